/**
 * The contract index over the emulated ledger (in process): cached contracts are deleted when the
 * ledger archives them, and a delete that fails while the cache is down is retried, never lost.
 */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryCache } from '../../../src/cache/memory-cache.js';
import type { Cache } from '../../../src/cache/cache.js';
import { ContractIndex } from '../../../src/contracts/contract-index.js';
import { buildEmulator } from '../../../src/emulator/index.js';
import { noAuth } from '../../../src/ledger/auth.js';
import { LedgerClient } from '../../../src/ledger/client.js';
import { inProcessFetch } from '../../../src/ledger/in-process.js';

const logger = pino({ level: 'silent' });

/** A memory cache that can be switched "down": then reads miss and writes/deletes fail, as RedisCache reports them. */
class FlakyCache implements Cache {
  down = false;
  private failures = 0;
  constructor(readonly inner = new MemoryCache({ defaultTtlSeconds: 600, logger })) {}
  get<T>(ns: string, key: string) { return this.down ? Promise.resolve(undefined) : this.inner.get<T>(ns, key); }
  getMany<T>(ns: string, keys: readonly string[]) { return this.down ? Promise.resolve(new Map<string, T>()) : this.inner.getMany<T>(ns, keys); }
  async set<T>(ns: string, key: string, value: T, ttl?: number) { if (this.down) this.failures++; else await this.inner.set(ns, key, value, ttl); }
  async delete(ns: string, key: string) { if (this.down) this.failures++; else await this.inner.delete(ns, key); }
  async deleteMany(ns: string, keys: readonly string[]) { if (this.down) this.failures++; else await this.inner.deleteMany(ns, keys); }
  health() { return { backend: 'redis' as const, ok: !this.down }; }
  stats() { return { ...this.inner.stats(), errors: this.failures }; }
  close() { return this.inner.close(); }
}

const ASSET = { packageName: 'index-test', moduleName: 'M', entityName: 'Asset', signatories: ['owner'], observers: [], implements: [] };
let index: ContractIndex | undefined;
afterEach(async () => index?.stop());

async function waitFor(cond: () => boolean | Promise<boolean>, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('ContractIndex', () => {
  it('deletes cached contracts on archive, and retries a delete that failed while the cache was down', async () => {
    const emu = buildEmulator({ config: { demoWorld: false, logLevel: 'silent', declaredTemplates: [ASSET] } });
    const admin = emu.engine.parties.allocate('admin').party;
    const create = (n: number) => {
      const tx = emu.engine.commands.submit({
        userId: 'u', actAs: [admin], readAs: [], commandId: `c${n}`, workflowId: '', submissionId: `s${n}`, disclosedContracts: [],
        commands: [{ kind: 'create', template: { package: { name: 'index-test' }, moduleName: 'M', entityName: 'Asset' }, createArguments: { owner: admin, n: String(n) } }],
      });
      return (tx.nodes[0] as { contract: { contractId: string } }).contract.contractId;
    };
    const archive = (cid: string, n: number) =>
      emu.engine.commands.submit({
        userId: 'u', actAs: [admin], readAs: [], commandId: `a${n}`, workflowId: '', submissionId: `t${n}`, disclosedContracts: [],
        commands: [{ kind: 'exercise', template: { package: { name: 'index-test' }, moduleName: 'M', entityName: 'Asset' }, contractId: cid, choice: 'Archive', choiceArgument: {} }],
      });
    const cid = create(1);
    const cache = new FlakyCache();
    index = new ContractIndex({
      ledger: new LedgerClient({ baseUrl: 'http://ledger', tokenProvider: noAuth, fetch: inProcessFetch(emu.app) }),
      admin,
      indexedTemplates: [],
      cachedTemplates: ['#index-test:M:Asset'],
      cache,
      logger,
      pollIdleMs: 10,
    });
    await index.start();
    expect(await cache.inner.get(index!.cacheNamespace, cid)).toBeDefined();

    // the archive arrives while the cache is down: the delete fails and stays pending
    cache.down = true;
    archive(cid, 1);
    await waitFor(() => index!.currentOffset >= emu.engine.ledgerEnd());
    expect(await cache.inner.get(index!.cacheNamespace, cid)).toBeDefined(); // the stale entry survived the outage
    expect(await index.getById(cid)).toBeUndefined(); // but the index does not serve it

    // the cache comes back: the next poll deletes the entry
    cache.down = false;
    await waitFor(async () => (await cache.inner.get(index!.cacheNamespace, cid)) === undefined);
    expect(await index.getById(cid)).toBeUndefined();
  });
});
