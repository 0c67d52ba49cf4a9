/**
 * The contract index over the emulated ledger (in process): cached contracts are deleted when the
 * ledger archives them, and a delete that fails while the cache is down is retried, never lost;
 * it follows a ledger that is down, replaced or rejects its credentials (a switchable fetch
 * routes to one emulator or another, or refuses the connection).
 */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryCache } from '../../../src/cache/memory-cache.js';
import type { Cache } from '../../../src/cache/cache.js';
import { ContractIndex } from '../../../src/contracts/contract-index.js';
import { IndexNotReadyError } from '../../../src/contracts/index-state.js';
import { noAuth } from '../../../src/ledger-client/auth.js';
import { LedgerClient } from '../../../src/ledger-client/client.js';
import { inProcessFetch } from '../../../src/ledger-client/in-process.js';
import { ASSET_ID, assetLedger } from '../../support/asset-ledger.js';

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
    const { emu, admin, create } = assetLedger();
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

describe('ContractIndex following its ledger', () => {
  /** Two ledgers with the same seed (same participant id, same id sequence) and different contracts. */
  function world(n: number) {
    const { emu, admin, create } = assetLedger();
    const cids = Array.from({ length: n }, (_, i) => create(i, n * 100 + i));
    return { emu, admin, cids };
  }
  type Target = ReturnType<typeof world> | 'down' | 'unauthorized';
  function switchable(first: Target) {
    const sw = { target: first };
    const f = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      if (sw.target === 'down') throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') });
      if (sw.target === 'unauthorized') return Response.json({ code: 'UNAUTHENTICATED', cause: 'The command is missing a (valid) JWT token', errorCategory: 6, grpcCodeValue: 16, context: {}, resources: [] }, { status: 401 });
      return sw.target.emu.app.request(input instanceof Request ? input : String(input), init);
    }) as typeof fetch;
    return { sw, ledger: new LedgerClient({ baseUrl: 'http://ledger', tokenProvider: noAuth, fetch: f, retry: { maxAttempts: 1 } }) };
  }
  const make = (ledger: LedgerClient, admin: string, cache: Cache, onFatal?: (e: Error) => void) =>
    new ContractIndex({ ledger, admin, indexedTemplates: [ASSET_ID], cachedTemplates: [], cache, logger, pollIdleMs: 10, identityCheckMs: 50, backoffMs: { initial: 10, max: 50 }, onFatal });

  it('retries a first load while the ledger is down, and is ready once it answers', async () => {
    const w = world(2);
    const { sw, ledger } = switchable('down');
    index = make(ledger, w.admin, new MemoryCache({ defaultTtlSeconds: 600, logger }));
    const started = index.start();
    await waitFor(() => index!.state === 'loading');
    expect(() => index!.find('index-test:M:Asset')).toThrow(IndexNotReadyError);
    await new Promise((r) => setTimeout(r, 100));
    sw.target = w;
    await started;
    expect(index.state).toBe('ready');
    expect(index.find('index-test:M:Asset').map((c) => c.contractId).sort()).toEqual([...w.cids].sort());
  });

  it('reloads when the ledger is replaced by one with other contracts, leaving the old cache entries unreachable', async () => {
    const a = world(2);
    const b = world(5); // same seed: the first ids are the same, the contents differ
    expect(b.admin).toBe(a.admin);
    expect(b.cids.slice(0, 2)).toEqual(a.cids);
    const cache = new MemoryCache({ defaultTtlSeconds: 600, logger });
    const { sw, ledger } = switchable(a);
    index = make(ledger, a.admin, cache);
    await index.start();
    const nsA = index.cacheNamespace;
    expect(((await index.getById(a.cids[0]!))!.payload as { n: string }).n).toBe('200');

    sw.target = 'down';
    await waitFor(() => index!.state === 'unreachable');
    // served from the loaded snapshot meanwhile
    expect(index.find('index-test:M:Asset')).toHaveLength(2);
    sw.target = b;
    await waitFor(() => index!.state === 'ready' && index!.cacheNamespace !== nsA);
    expect(index.find('index-test:M:Asset')).toHaveLength(5);
    // the same id is the new ledger's contract, not the cached one of the old ledger
    expect(((await index.getById(a.cids[0]!))!.payload as { n: string }).n).toBe('500');
    expect(await cache.get(nsA, a.cids[0]!)).toBeDefined(); // still in the cache, but under the old namespace
  });

  it('rejects its first load when the ledger rejects the credentials; later, calls onFatal', async () => {
    const w = world(1);
    const first = switchable('unauthorized');
    const failing = make(first.ledger, w.admin, new MemoryCache({ defaultTtlSeconds: 600, logger }));
    await expect(failing.start()).rejects.toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
    expect(failing.state).toBe('failed');

    const later = switchable(w);
    const fatal: Error[] = [];
    index = make(later.ledger, w.admin, new MemoryCache({ defaultTtlSeconds: 600, logger }), (e) => fatal.push(e));
    await index.start();
    later.sw.target = 'unauthorized';
    await waitFor(() => fatal.length === 1);
    expect(index.state).toBe('failed');
  });
});
