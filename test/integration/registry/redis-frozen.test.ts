/**
 * A frozen Redis (the process SIGSTOPped: connections stay open, nothing answers) fails fast:
 * `startRegistry` (serve's wiring) with a real redis-server and the emulated ledger over loopback
 * HTTP. While Redis is frozen, registry requests answer in milliseconds (the cache's breaker skips
 * Redis after one command timed out; misses are answered from the ledger) and correctly (an
 * instruction archived meanwhile is a 404); after SIGCONT the cache is used again and the entry
 * of the archived instruction is deleted from Redis.
 */
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_KEY_PREFIX, redisKey } from '../../../src/cache/redis-cache.js';
import { RegistryConfigSchema } from '../../../src/config/registry.js';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';
import { registerTestTokenV2 } from '../../../src/emulator/templates/test-token-v2/index.js';
import { startRegistry, type RunningRegistry } from '../../../src/serve.js';
import { basic, create, LedgerClient, TT2, type Disclosed } from '../../unit/emulator/templates/test-token-v2/client.js';
import { until } from '../../support/processes.js';
import { startRedisServer, type RedisServer } from '../../support/redis-server.js';

const silent = pino({ level: 'silent' });
const meta = { values: {} };
const at = (ms: number) => new Date(Date.now() + ms).toISOString();

let emu: RunningEmulator;
let redis: RedisServer;
let raw: Redis;
let running: RunningRegistry;
let client: LedgerClient;
let admin: string, alice: string, bob: string;
let rules: string;
let rulesD: Disclosed;

beforeAll(async () => {
  redis = await startRedisServer();
  raw = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await raw.connect();
  emu = await startEmulator({ config: { port: 0, demoWorld: false, logLevel: 'silent' } });
  registerTestTokenV2(emu.engine.templates);
  client = new LedgerClient((path, init) => fetch(emu.ledgerUrl + path, init));
  admin = await client.allocateParty('adminX2');
  alice = await client.allocateParty('alice');
  bob = await client.allocateParty('bob');
  const created = await client.ok([admin], [create(TT2.TokenRules, { admin })]);
  rules = (created.events[0] as { CreatedEvent: { contractId: string } }).CreatedEvent.contractId;
  rulesD = await client.disclosed(admin, rules);
  const config = RegistryConfigSchema.parse({
    adminParty: admin,
    ledger: { url: emu.ledgerUrl, auth: { kind: 'none' } },
    instruments: [{ id: 'X2', name: 'X two', symbol: 'X2', decimals: 2, recipe: 'splice-test-token-v2' }],
    port: 0,
    host: '127.0.0.1',
    logLevel: 'silent',
    redisUrl: redis.url,
    redis: { commandTimeoutMs: 250, breakerCooldownMs: 1000 },
  });
  running = await startRegistry(config, { logger: silent });
}, 60_000);

afterAll(async () => {
  redis?.resume();
  await running?.close();
  await emu?.close();
  raw?.disconnect();
  await redis?.stop();
});

/** The admin offers `owner` a mint: a pending transfer instruction (V2). */
const offerMint = (owner: string) => client.offerMint(admin, rules, owner, 'X2');
/** The receiver accepts: the ledger archives the instruction and acknowledges it. */
const acceptOnLedger = (owner: string, cid: string) => client.acceptInstruction(owner, cid, rulesD);

const factoryBody = () => ({
  choiceArguments: {
    transfer: { sender: basic(alice), receiver: basic(bob), amount: '1.0', instrumentId: { admin, id: 'X2' }, requestedAt: at(-60_000), executeBefore: at(3_600_000), inputHoldingCids: [], meta },
    actors: [alice],
    extraArgs: { context: meta, meta },
  },
});

async function post(path: string, body: unknown): Promise<number> {
  const r = await fetch(`${running.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await r.arrayBuffer();
  return r.status;
}
const accept = (cid: string) => post(`/registry/transfer-instruction/v2/${cid}/choice-contexts/accept`, {});
const key = (cid: string) => redisKey(DEFAULT_KEY_PREFIX, running.registry.index.cacheNamespace, cid);

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

describe('a frozen Redis (SIGSTOP)', () => {
  it('registry requests stay fast and correct while it is frozen, and Redis is used again after SIGCONT', async () => {
    const live = [await offerMint(alice), await offerMint(alice), await offerMint(bob)];
    const doomed = await offerMint(bob);
    for (const cid of [...live, doomed]) expect(await accept(cid)).toBe(200);
    await until(async () => (await raw.exists(key(doomed))) === 1, 5000, 'the instruction to be cached in Redis');

    redis.pause();
    const times: number[] = [];
    try {
      for (let i = 0; i < 30; i++) {
        const t = performance.now();
        const status = i % 3 === 0 ? await post('/registry/transfer-instruction/v2/transfer-factory', factoryBody()) : await accept(live[i % live.length]!);
        times.push(performance.now() - t);
        expect(status).toBe(200);
      }
      // Archived while Redis is frozen: the index cannot delete the entry, and must not serve it.
      await acceptOnLedger(bob, doomed);
      expect(await accept(doomed)).toBe(404);
    } finally {
      redis.resume();
    }
    const p50 = percentile(times, 50);
    console.log(`frozen Redis: p50 ${p50.toFixed(1)} ms, p90 ${percentile(times, 90).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms over ${times.length} requests`);
    expect(p50).toBeLessThan(100);

    // After SIGCONT: the pending delete reaches Redis, reads use it again, answers stay right.
    await until(async () => (await raw.exists(key(doomed))) === 0, 10_000, 'the archived instruction to be deleted from Redis');
    expect(await accept(doomed)).toBe(404);
    for (const cid of live) expect(await accept(cid)).toBe(200);
    await until(async () => /token_registry_redis_up 1/.test(await (await fetch(`${running.url}/metrics`)).text()), 10_000, 'the cache to report Redis up');
  }, 60_000);
});
