/**
 * Two registry replicas sharing a highly available Redis, with real redis-server processes:
 * a Sentinel group (1 master, 1 replica, 3 sentinels) and a 3-master Cluster (one replica each).
 * Each replica builds its cache from the REDIS_URL form (`redis+sentinel://`, `redis+cluster://`)
 * through createCache, as `serve` does, and reads the emulated ledger (in process, every
 * contract lookup counted). For each:
 * - the replicas share entries: one caches a contract, the other answers from the cache alone;
 * - the master is SIGKILLed under load (both replicas, concurrent choice-context requests):
 *   0 failed requests (what the cache cannot answer comes from the ledger);
 * - after the failover the cache is used again: a contract cached by one replica through the new
 *   master is answered by the other without a ledger lookup.
 */
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCache, redisKey, type Cache } from '../../../src/cache/index.js';
import { ManualClock } from '../../../src/canton/clock.js';
import { buildEmulator } from '../../../src/emulator/index.js';
import { createTestTokenV2Rules, mintTestTokenV2, registerTestTokenV2 } from '../../../src/emulator/templates/test-token-v2/index.js';
import { noAuth } from '../../../src/ledger-client/auth.js';
import { LedgerClient } from '../../../src/ledger-client/client.js';
import { createRegistry, type Registry } from '../../../src/registry/index.js';
import { TestTokenV2Recipe } from '../../../src/registry/recipes/test-token-v2.js';
import { startRedisCluster, startSentinelGroup } from '../../support/redis-ha.js';
import { factoryOf, outputCid } from '../../support/registry-wire.js';
import { walletExercise } from '../../support/wallet-submit.js';

const logger = pino({ level: 'silent' });
const clock = new ManualClock('2026-05-01T10:00:00Z');
const emu = buildEmulator({ config: { demoWorld: false, logLevel: 'silent' }, clock });
registerTestTokenV2(emu.engine.templates);
const admin = emu.engine.parties.allocate('adminHa').party;
const rules = createTestTokenV2Rules(emu.engine, admin);
let counter = 0;
const party = (hint: string) => emu.engine.parties.allocate(`${hint}${++counter}`).party;
const basic = (owner: string) => ({ owner, provider: null, id: '' });
const noMeta = { values: {} };
const TRANSFER_FACTORY_V2 = '#splice-api-token-transfer-instruction-v2:Splice.Api.Token.TransferInstructionV2:TransferFactory';
const exercise = walletExercise(emu.app, 'redis-ha');

interface Replica {
  registry: Registry;
  cache: Cache;
  /** Contract lookups on the ledger (the cache's misses end there). */
  lookups: number;
}

function replica(redisUrl: string, keyPrefix: string): Replica {
  const cache = createCache({ redisUrl, keyPrefix, defaultTtlSeconds: 600, logger, redis: { commandTimeoutMs: 300, connectTimeoutMs: 500, maxReconnectDelayMs: 200 } });
  const rep = { cache, lookups: 0 } as Replica;
  const ledger = new LedgerClient({
    baseUrl: 'http://ledger',
    tokenProvider: noAuth,
    fetch: (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      const url = input instanceof Request ? input.url : String(input);
      if (url.includes('/v2/events/events-by-contract-id')) rep.lookups++;
      return emu.app.request(input instanceof Request ? input : url, init);
    }) as typeof fetch,
  });
  rep.registry = createRegistry({
    admin,
    instruments: [{ id: 'HA', name: 'HA token', symbol: 'HA', decimals: 4, recipe: 'splice-test-token-v2' }],
    recipes: [new TestTokenV2Recipe()],
    ledger,
    cache,
    clock,
    logger,
    cacheTtlSeconds: 600,
    pollIdleMs: 50,
  });
  return rep;
}

async function until(cond: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The replica's answer: its status and JSON body. */
async function post(rep: Replica, path: string, body: unknown = {}): Promise<{ status: number; body: unknown }> {
  const r = await rep.registry.app.request(path, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  return { status: r.status, body: await r.json() };
}

const acceptPath = (cid: string) => `/registry/transfer-instruction/v2/${cid}/choice-contexts/accept`;

/** A transfer offer made through `rep`'s factory; returns the instruction's contract id. */
async function offer(rep: Replica): Promise<string> {
  const alice = party('alice');
  const bob = party('bob');
  const h = mintTestTokenV2(emu.engine, { admin, owner: alice, instrumentId: 'HA', amount: '10', tokenRulesCid: rules });
  const args = {
    transfer: {
      sender: basic(alice),
      receiver: basic(bob),
      amount: '1',
      instrumentId: { admin, id: 'HA' },
      requestedAt: '2026-05-01T09:59:00Z',
      executeBefore: '2026-05-02T10:00:00Z',
      inputHoldingCids: [h],
      meta: noMeta,
    },
    actors: [alice],
    extraArgs: { context: { values: {} }, meta: noMeta },
  };
  const answer = await post(rep, '/registry/transfer-instruction/v2/transfer-factory', { choiceArguments: args });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  const f = factoryOf(answer.body);
  const result = await exercise([alice], TRANSFER_FACTORY_V2, f.factoryId, 'TransferFactory_Transfer', { ...args, extraArgs: { context: f.choiceContext.choiceContextData, meta: noMeta } }, f.choiceContext.disclosedContracts);
  return outputCid(result, 'transferInstructionCid');
}

/** Accept contexts of `cids` from both replicas with `workers` concurrent loops until stopped. */
function load(reps: Replica[], cids: string[], workers = 4) {
  const stats = { ok: 0, failed: [] as string[] };
  let running = true;
  const loops = Array.from({ length: workers }, async (_, w) => {
    for (let i = w; running; i++) {
      // The ledger answers in process: with Redis failing fast, a request may complete without
      // any I/O, so yield to the event loop or the timers of the test (and of ioredis) starve.
      await new Promise((r) => setImmediate(r));
      const r = await post(reps[i % reps.length]!, acceptPath(cids[i % cids.length]!));
      if (r.status === 200) stats.ok++;
      else stats.failed.push(`${r.status} ${JSON.stringify(r.body)}`);
    }
  });
  return {
    stats,
    async stop() {
      running = false;
      await Promise.all(loops);
      return stats;
    },
  };
}

/** The shared suite; `killMaster` kills the master holding `key` and waits for the failover. */
function haSuite(kind: string, start: () => Promise<{ url: string; failover: (key: string) => Promise<void>; stop: () => Promise<void> }>) {
  describe(`two replicas on a ${kind}`, () => {
    let ha: Awaited<ReturnType<typeof start>>;
    let r1: Replica;
    let r2: Replica;
    const prefix = `ha-${kind}-${randomUUID().slice(0, 8)}`;

    beforeAll(async () => {
      ha = await start();
      r1 = replica(ha.url, prefix);
      r2 = replica(ha.url, prefix);
      await until(() => r1.cache.health().ok && r2.cache.health().ok, 10_000, 'both replicas to connect');
      await Promise.all([r1.registry.start(), r2.registry.start()]);
    }, 60_000);

    afterAll(async () => {
      await r1?.registry.stop();
      await r2?.registry.stop();
      await r1?.cache.close();
      await r2?.cache.close();
      await ha?.stop();
    });

    it('shares entries, survives the master being killed under load with 0 failed requests, and uses the cache again after failover', async () => {
      const cids = [await offer(r1), await offer(r1), await offer(r1)];
      for (const cid of cids) expect((await post(r1, acceptPath(cid))).status).toBe(200);
      // r2 answers from what r1 cached: no ledger lookup
      const before = r2.lookups;
      for (const cid of cids) expect((await post(r2, acceptPath(cid))).status).toBe(200);
      expect(r2.lookups - before).toBe(0);

      const l = load([r1, r2], cids);
      await new Promise((r) => setTimeout(r, 300));
      const okBefore = l.stats.ok;
      await ha.failover(redisKey(prefix, r1.registry.index.cacheNamespace, cids[0]!));
      await until(() => r1.cache.health().ok && r2.cache.health().ok, 15_000, 'both replicas to reach the new master');
      await new Promise((r) => setTimeout(r, 300));
      const stats = await l.stop();
      console.info(`redis-ha ${kind}: ${stats.ok} requests during the failover, ${stats.failed.length} failed`);
      expect(stats.failed).toEqual([]);
      expect(stats.ok).toBeGreaterThan(okBefore);

      // after the failover: r1 caches a new contract through the new master, r2 reads it from there
      const fresh = await offer(r1);
      await until(async () => (await r1.cache.get(r1.registry.index.cacheNamespace, fresh)) !== undefined, 5_000, 'the new contract to be cached');
      const lookups = r2.lookups;
      const hits = r2.cache.stats().hits;
      expect((await post(r2, acceptPath(fresh))).status).toBe(200);
      expect(r2.lookups - lookups).toBe(0);
      expect(r2.cache.stats().hits).toBeGreaterThan(hits);
    }, 60_000);
  });
}

haSuite('sentinel group', async () => {
  const group = await startSentinelGroup({ replicas: 1, sentinels: 3 });
  return {
    url: group.url,
    failover: async () => {
      const old = await group.killMaster();
      await group.waitForFailover(old);
    },
    stop: () => group.stop(),
  };
});

haSuite('3-master cluster', async () => {
  const cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
  return {
    url: cluster.url,
    failover: async (key) => {
      const old = await cluster.killMasterOf(key);
      await cluster.waitForFailover(key, old);
    },
    stop: () => cluster.stop(),
  };
});
