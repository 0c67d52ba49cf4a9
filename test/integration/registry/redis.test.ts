/**
 * The registry's Redis cache against a real redis-server. Two registry replicas (two `createRegistry` instances) read the same emulated ledger and
 * share one Redis under one key prefix, each through its own connection, as two processes would:
 *  (a) replica 2 answers a per-contract choice context from the entries replica 1 put in Redis
 *      (it took its snapshot before the contract existed and does not follow the update stream;
 *      its only ledger calls are the ledger end, which every per-contract context asks first, and
 *      the read of the gap up to it, since it is behind);
 *  (b) an archive on the ledger removes the Redis entries (checked on the raw keys);
 *  (c) Redis killed mid-test: requests still succeed from the ledger; after a restart the shared
 *      cache is filled and read again.
 * TestTokenV2 is used because its accept context discloses a contract found by id (the locked
 * Token, as `TestTokenV2_RegistryV2.daml` discloses it), so the cache serves both the instruction and a
 * disclosed contract.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { buildEmulator } from '../../../src/emulator/index.js';
import { ManualClock } from '../../../src/canton/clock.js';
import { createTestTokenV2Rules, mintTestTokenV2, registerTestTokenV2 } from '../../../src/emulator/templates/test-token-v2/index.js';
import { RedisCache, redisKey } from '../../../src/cache/index.js';
import { LedgerClient } from '../../../src/ledger-client/client.js';
import { noAuth } from '../../../src/ledger-client/auth.js';
import { createRegistry, type Registry } from '../../../src/registry/index.js';
import { TestTokenV2Recipe } from '../../../src/registry/recipes/test-token-v2.js';
import { startRedisServer, type RedisServer } from '../../support/redis-server.js';
import { contextOf, errorOf, factoryOf, outputCid, outputTag } from '../../support/registry-wire.js';
import { jsonAt, jsonText } from '../../support/ledger-wire.js';
import { walletExercise } from '../../support/wallet-submit.js';

const logger = pino({ level: 'silent' });
const clock = new ManualClock('2026-05-01T10:00:00Z');
const emu = buildEmulator({ config: { demoWorld: false, logLevel: 'silent' }, clock });
const engine = emu.engine;
registerTestTokenV2(engine.templates);
const admin = engine.parties.allocate('adminRedis').party;
let rules: string;
let counter = 0;
const party = (hint: string) => engine.parties.allocate(`${hint}${++counter}`).party;
const basic = (owner: string) => ({ owner, provider: null, id: '' });
const noMeta = { values: {} };
const TRANSFER_FACTORY_V2 = '#splice-api-token-transfer-instruction-v2:Splice.Api.Token.TransferInstructionV2:TransferFactory';
const TRANSFER_INSTRUCTION_V2 = '#splice-api-token-transfer-instruction-v2:Splice.Api.Token.TransferInstructionV2:TransferInstruction';

/** One registry replica: its own ledger client (counting its calls) and its own Redis connection. */
interface Replica {
  registry: Registry;
  cache: RedisCache;
  ledgerCalls: number;
}

let server: RedisServer;
let raw: Redis;
const keyPrefix = `it-registry-${randomUUID()}`;
let r1: Replica;
let r2: Replica;

function replica(): Replica {
  const cache = new RedisCache({ url: server.url, keyPrefix, defaultTtlSeconds: 600, logger, commandTimeoutMs: 300, connectTimeoutMs: 500, maxReconnectDelayMs: 100 });
  const rep = { cache, ledgerCalls: 0 } as Replica;
  const ledger = new LedgerClient({
    baseUrl: 'http://ledger',
    tokenProvider: noAuth,
    fetch: (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      rep.ledgerCalls++;
      return emu.app.request(input instanceof Request ? input : String(input), init);
    }) as typeof fetch,
  });
  rep.registry = createRegistry({
    admin,
    instruments: [{ id: 'X2', name: 'Test token two', symbol: 'TT2', decimals: 4, recipe: 'splice-test-token-v2' }],
    recipes: [new TestTokenV2Recipe()],
    ledger,
    cache,
    clock,
    logger,
    cacheTtlSeconds: 600,
    pollIdleMs: 20,
  });
  return rep;
}

async function until(cond: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The replica's answer: its status and JSON body (read with registry-wire's `factoryOf`, `contextOf`, `errorOf`). */
async function post(rep: Replica, path: string, body: unknown = {}): Promise<{ status: number; body: unknown }> {
  const r = await rep.registry.app.request(path, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  return { status: r.status, body: await r.json() };
}

/** A request to one replica with the number of ledger calls it made. */
async function counted(rep: Replica, path: string, body: unknown = {}) {
  const before = rep.ledgerCalls;
  const r = await post(rep, path, body);
  return { ...r, ledgerCalls: rep.ledgerCalls - before };
}

const exercise = walletExercise(emu.app, 'redis-it');

/** alice offers bob `amount` of X2 through replica 1's factory; returns the offer's contract id. */
async function offer(alice: string, bob: string, amount: string): Promise<string> {
  const h = mintTestTokenV2(engine, { admin, owner: alice, instrumentId: 'X2', amount: '100', tokenRulesCid: rules });
  const args = {
    transfer: {
      sender: basic(alice),
      receiver: basic(bob),
      amount,
      instrumentId: { admin, id: 'X2' },
      requestedAt: '2026-05-01T09:59:00Z',
      executeBefore: '2026-05-02T10:00:00Z',
      inputHoldingCids: [h],
      meta: noMeta,
    },
    actors: [alice],
    extraArgs: { context: { values: {} }, meta: noMeta },
  };
  const answer = await post(r1, '/registry/transfer-instruction/v2/transfer-factory', { choiceArguments: args });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  const f = factoryOf(answer.body);
  const result = await exercise([alice], TRANSFER_FACTORY_V2, f.factoryId, 'TransferFactory_Transfer', { ...args, extraArgs: { context: f.choiceContext.choiceContextData, meta: noMeta } }, f.choiceContext.disclosedContracts);
  expect(outputTag(result)).toBe('TransferInstructionResult_Pending');
  return outputCid(result, 'transferInstructionCid');
}

const acceptPath = (cid: string) => `/registry/transfer-instruction/v2/${cid}/choice-contexts/accept`;
/** Both replicas read the same ledger, so they agree on its incarnation's namespace. */
const keyOf = (cid: string) => redisKey(keyPrefix, r1.registry.index.cacheNamespace, cid);

beforeAll(async () => {
  server = await startRedisServer();
  raw = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await raw.connect();
  rules = createTestTokenV2Rules(engine, admin);
  r1 = replica();
  r2 = replica();
  await until(() => r1.cache.health().ok && r2.cache.health().ok, 3_000, 'both replicas to connect to Redis');
  await Promise.all([r1.registry.start(), r2.registry.start()]);
  expect(r2.registry.index.cacheNamespace).toBe(r1.registry.index.cacheNamespace);
  expect(r1.registry.index.cacheNamespace).toMatch(/^contract-[0-9a-f]{24}$/);
  // Replica 2 keeps only its start-up snapshot (TokenRules): every contract created from now on
  // can reach it only through Redis or a ledger lookup, and any ledger call it makes is counted.
  await r2.registry.stop();
});

afterAll(async () => {
  await r1?.registry.stop();
  await r2?.registry.stop();
  await r1?.cache.close();
  await r2?.cache.close();
  raw?.disconnect();
  await server?.stop();
});

describe('registry replicas sharing a real Redis', () => {
  let offerCid: string;
  let lockedCid: string;

  it('(a) replica 2 answers a choice context from what replica 1 cached, with no ledger lookup', async () => {
    offerCid = await offer(party('alice'), party('bob'), '30');
    const first = await counted(r1, acceptPath(offerCid));
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const ctx = contextOf(first.body);
    // TokenRules, then the locked Token found by id
    expect(ctx.disclosedContracts.map((d) => d.contractId)[0]).toBe(rules);
    expect(ctx.disclosedContracts).toHaveLength(2);
    lockedCid = ctx.disclosedContracts[1]!.contractId;
    expect(jsonAt(ctx.disclosedContracts[1]!.debugPayload, 'holding', 'lock')).not.toBeNull();
    // both are in Redis, under the versioned key, as the JSON of the indexed contract
    const cached: unknown = JSON.parse((await raw.get(keyOf(offerCid)))!);
    expect(cached).toMatchObject({ contractId: offerCid, synchronizerId: ctx.disclosedContracts[0]!.synchronizerId });
    expect(await raw.exists(keyOf(lockedCid))).toBe(1);
    expect(await raw.pttl(keyOf(offerCid))).toBeGreaterThan(0); // the TTL safety net is set

    const hitsBefore = r2.cache.stats().hits;
    const second = await counted(r2, acceptPath(offerCid));
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    // the ledger end and the gap up to it (ContractIndex.syncToLedgerEnd), no lookup by id
    expect(second.ledgerCalls).toBeLessThanOrEqual(2);
    expect(second.body).toEqual(first.body);
    expect(r2.cache.stats().hits - hitsBefore).toBeGreaterThanOrEqual(2); // the offer and the locked Token
  });

  it('(b) an archive on the ledger removes the Redis entries, and the archived instruction is a 404', async () => {
    const accept = contextOf((await post(r1, acceptPath(offerCid))).body);
    const cachedOffer: unknown = JSON.parse((await raw.get(keyOf(offerCid)))!);
    const receiver = jsonText(cachedOffer, 'payload', 'transfer', 'receiver', 'owner');
    const done = await exercise([receiver], TRANSFER_INSTRUCTION_V2, offerCid, 'TransferInstruction_Accept', { actors: [receiver], extraArgs: { context: accept.choiceContextData, meta: noMeta } }, accept.disclosedContracts);
    expect(outputTag(done)).toBe('TransferInstructionResult_Completed');
    // replica 1 follows the update stream: both archives delete their keys, within a bounded wait
    await until(async () => (await raw.exists(keyOf(offerCid), keyOf(lockedCid))) === 0, 3_000, 'the archived contracts to leave Redis');
    // replica 2 asks the ledger end, reads the gap up to it, and so learns the instruction is gone
    const gone = await counted(r2, acceptPath(offerCid));
    expect(gone.status).toBe(404);
    expect(errorOf(gone.body)).toContain(offerCid);
    expect(gone.ledgerCalls).toBeLessThanOrEqual(2);
  });

  it('(c) with Redis killed the replicas answer from the ledger; after a restart the cache is used again', async () => {
    const cid = await offer(party('carol'), party('dave'), '5');
    expect((await post(r1, acceptPath(cid))).status).toBe(200);
    await until(async () => (await raw.exists(keyOf(cid))) === 1, 3_000, 'the new offer to be cached');

    await server.stop(); // SIGKILL, like a crash
    await until(() => !r1.cache.health().ok && !r2.cache.health().ok, 3_000, 'the replicas to notice Redis is gone');
    for (const rep of [r1, r2]) {
      const t0 = Date.now();
      const r = await counted(rep, acceptPath(cid));
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(contextOf(r.body).disclosedContracts).toHaveLength(2);
      expect(r.ledgerCalls).toBeGreaterThanOrEqual(1); // from the ledger, not from a cache
      expect(Date.now() - t0).toBeLessThan(1_000); // no waiting on the dead Redis
    }
    // factories come from the in-memory index: unaffected
    const factory = await post(r2, '/registry/transfer-instruction/v2/transfer-factory', {
      choiceArguments: {
        transfer: {
          sender: basic(admin),
          receiver: basic(admin),
          amount: '1',
          instrumentId: { admin, id: 'X2' },
          requestedAt: '2026-05-01T09:59:00Z',
          executeBefore: '2026-05-02T10:00:00Z',
          inputHoldingCids: [],
          meta: noMeta,
        },
        actors: [admin],
        extraArgs: { context: { values: {} }, meta: noMeta },
      },
    });
    expect(factory.status, JSON.stringify(factory.body)).toBe(200);

    await server.restart(); // empty: no persistence
    await until(() => r1.cache.health().ok && r2.cache.health().ok, 5_000, 'the replicas to reconnect');
    if (raw.status !== 'ready') await until(() => raw.status === 'ready', 5_000, 'the raw client to reconnect');
    // replica 1 misses, reads the ledger and fills Redis again; replica 2 then reads Redis only
    const refill = await counted(r1, acceptPath(cid));
    expect(refill.status).toBe(200);
    expect(refill.ledgerCalls).toBeGreaterThanOrEqual(1);
    expect(await raw.exists(keyOf(cid))).toBe(1);
    const shared = await counted(r2, acceptPath(cid));
    expect(shared.status).toBe(200);
    expect(shared.ledgerCalls).toBe(1); // the ledger end only: the contract comes from Redis
    expect(shared.body).toEqual(refill.body);
  });
});
