/**
 * The Redis cache against a real redis-server,
 * started by the test on a free port. Covers: the basic operations, TTL expiry, two replicas
 * sharing one prefix, isolation by prefix, the version in the key, and surviving a Redis crash:
 * while Redis is dead reads miss fast and writes do not throw; after a restart on the same port the
 * same cache object works again.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { CACHE_SCHEMA_VERSION, createCache, RedisCache, type Cache } from '../../../src/cache/index.js';
import { startRedisServer, type RedisServer } from '../../support/redis-server.js';

const contract = {
  templateId: '#pkg:Mod:Ent',
  contractId: '00ab',
  createdEventBlob: 'CgMyLjES',
  synchronizerId: 'global-domain::1220aa',
  payload: { amount: '10.0', owner: 'alice::1220bb' },
  createdAt: '2026-01-01T00:00:00Z',
};

let server: RedisServer;
let raw: Redis;
const lines: string[] = [];
const logger = pino({ level: 'debug' }, { write: (s: string) => void lines.push(s) });
const opened: Cache[] = [];

/** A cache with fast reconnects, tracked for cleanup; each test gets its own prefix unless given. */
function newCache(keyPrefix = `t-${randomUUID()}`, url = server.url): RedisCache {
  const cache = new RedisCache({ url, keyPrefix, defaultTtlSeconds: 60, logger, commandTimeoutMs: 300, connectTimeoutMs: 500, maxReconnectDelayMs: 100 });
  opened.push(cache);
  return cache;
}

async function until(cond: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const ready = (c: Cache): Promise<void> => until(() => c.health().ok, 3_000, 'the cache to connect');

beforeAll(async () => {
  server = await startRedisServer();
  raw = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await raw.connect();
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
});

afterAll(async () => {
  raw?.disconnect();
  await server?.stop();
});

describe('RedisCache against a real redis-server', () => {
  it('connects in the background and reports health', async () => {
    const cache = newCache();
    await ready(cache);
    expect(cache.health()).toEqual({ backend: 'redis', ok: true });
  });

  it('set / get / getMany / delete / deleteMany', async () => {
    const cache = newCache();
    await ready(cache);
    expect(await cache.get('contracts', '00ab')).toBeUndefined();
    await cache.set('contracts', '00ab', contract);
    await cache.set('contracts', '00cd', { ...contract, contractId: '00cd' });
    await cache.set('contracts', '00ef', { ...contract, contractId: '00ef' });
    expect(await cache.get('contracts', '00ab')).toEqual(contract);
    const many = await cache.getMany<typeof contract>('contracts', ['00ab', 'missing', '00cd']);
    expect([...many.keys()]).toEqual(['00ab', '00cd']);
    expect(many.get('00cd')?.contractId).toBe('00cd');
    expect((await cache.getMany('contracts', [])).size).toBe(0);

    await cache.delete('contracts', '00ab');
    expect(await cache.get('contracts', '00ab')).toBeUndefined();
    await cache.deleteMany('contracts', ['00cd', '00ef', 'missing']);
    expect((await cache.getMany('contracts', ['00cd', '00ef'])).size).toBe(0);
    expect(cache.stats().errors).toBe(0);
  });

  it('stores under prefix:v<version>:ns:key with the TTL set', async () => {
    const prefix = `t-${randomUUID()}`;
    const cache = newCache(prefix);
    await ready(cache);
    await cache.set('contracts', '00ab', contract, 30);
    const key = `${prefix}:v${CACHE_SCHEMA_VERSION}:contracts:00ab`;
    expect(JSON.parse((await raw.get(key))!)).toEqual(contract);
    const pttl = await raw.pttl(key);
    expect(pttl).toBeGreaterThan(25_000);
    expect(pttl).toBeLessThanOrEqual(30_000);
    // the default TTL applies without an explicit one
    await cache.set('contracts', 'dflt', 1);
    expect(await raw.ttl(`${prefix}:v${CACHE_SCHEMA_VERSION}:contracts:dflt`)).toBeGreaterThan(55);
  });

  it('entries expire after their TTL', async () => {
    const cache = newCache();
    await ready(cache);
    await cache.set('contracts', 'short', contract, 1);
    await cache.set('contracts', 'long', contract, 60);
    expect(await cache.get('contracts', 'short')).toEqual(contract);
    const start = Date.now();
    await until(async () => (await cache.get('contracts', 'short')) === undefined, 3_000, 'the 1 s entry to expire');
    expect(Date.now() - start).toBeGreaterThan(500);
    expect(await cache.get('contracts', 'long')).toEqual(contract);
  });

  it('two replicas with the same prefix see each other\'s writes and deletes', async () => {
    const prefix = `t-${randomUUID()}`;
    const a = newCache(prefix);
    const b = newCache(prefix);
    await Promise.all([ready(a), ready(b)]);
    await a.set('contracts', '00ab', contract);
    expect(await b.get('contracts', '00ab')).toEqual(contract);
    await b.delete('contracts', '00ab'); // e.g. replica b saw the archive
    expect(await a.get('contracts', '00ab')).toBeUndefined();
  });

  it('different prefixes are isolated', async () => {
    const a = newCache();
    const b = newCache();
    await Promise.all([ready(a), ready(b)]);
    await a.set('contracts', '00ab', contract);
    expect(await b.get('contracts', '00ab')).toBeUndefined();
    expect((await b.getMany('contracts', ['00ab'])).size).toBe(0);
  });

  it('a value that is not JSON (written by something else) is a miss, not an error to the caller', async () => {
    const prefix = `t-${randomUUID()}`;
    const cache = newCache(prefix);
    await ready(cache);
    await raw.set(`${prefix}:v${CACHE_SCHEMA_VERSION}:contracts:bad`, '{not json');
    await cache.set('contracts', 'good', 1);
    expect(await cache.get('contracts', 'bad')).toBeUndefined();
    expect(await cache.getMany('contracts', ['bad', 'good'])).toEqual(new Map([['good', 1]]));
    expect(cache.stats().errors).toBe(2);
  });

  it('createCache picks Redis for a URL; the password in it works and never reaches the logs', async () => {
    const secret = 'hunter2-secret';
    const guarded = await startRedisServer({ password: secret });
    try {
      lines.length = 0;
      const good = createCache({ redisUrl: guarded.url, defaultTtlSeconds: 5, logger, redis: { maxReconnectDelayMs: 100 } });
      const wrong = new URL(guarded.url);
      wrong.password = `${secret}-wrong`;
      const bad = createCache({ redisUrl: wrong.toString(), defaultTtlSeconds: 5, logger, redis: { maxReconnectDelayMs: 100 } });
      opened.push(good, bad);
      expect(good).toBeInstanceOf(RedisCache);
      await ready(good);
      await good.set('contracts', 'k', 1);
      expect(await good.get('contracts', 'k')).toBe(1);

      await until(() => lines.some((l) => l.includes('redis cache unavailable')), 3_000, 'the bad URL to be logged');
      await bad.set('contracts', 'k', 2);
      expect(await bad.get('contracts', 'k')).toBeUndefined();
      expect(bad.health()).toMatchObject({ backend: 'redis', ok: false });

      const log = lines.join('\n');
      expect(log).toContain('redis cache connected');
      expect(log).toContain(':***@127.0.0.1');
      expect(log).not.toContain(secret);
    } finally {
      await Promise.all(opened.splice(0).map((c) => c.close()));
      await guarded.stop();
    }
  });

  it('survives Redis dying: reads miss fast, writes do not throw, and it recovers on restart', async () => {
    const prefix = `t-${randomUUID()}`;
    const cache = newCache(prefix);
    const replica = newCache(prefix);
    await Promise.all([ready(cache), ready(replica)]);
    await cache.set('contracts', '00ab', contract);
    expect(await replica.get('contracts', '00ab')).toEqual(contract);

    await server.stop(); // SIGKILL

    // A read right after the crash: a miss within 1 s, no throw.
    let t = Date.now();
    await expect(cache.get('contracts', '00ab')).resolves.toBeUndefined();
    expect(Date.now() - t).toBeLessThan(1_000);
    t = Date.now();
    await expect(cache.getMany('contracts', ['00ab', '00cd'])).resolves.toEqual(new Map());
    await expect(cache.set('contracts', '00cd', contract)).resolves.toBeUndefined();
    await expect(cache.delete('contracts', '00ab')).resolves.toBeUndefined();
    await expect(cache.deleteMany('contracts', ['00ab'])).resolves.toBeUndefined();
    expect(Date.now() - t).toBeLessThan(1_000);

    await until(() => !cache.health().ok, 1_000, 'health to report the outage');
    const h = cache.health();
    expect(h).toMatchObject({ backend: 'redis', ok: false });
    expect(h.lastError).toBeTruthy();
    expect(cache.stats().errors).toBeGreaterThan(0);

    // Still fast once the client knows Redis is down (no offline queue: it does not wait).
    t = Date.now();
    for (let i = 0; i < 20; i++) expect(await cache.get('contracts', '00ab')).toBeUndefined();
    expect(Date.now() - t).toBeLessThan(500);

    await server.restart(); // same port, empty (no persistence)
    await until(() => cache.health().ok && replica.health().ok, 5_000, 'both caches to reconnect');
    expect(cache.health()).toEqual({ backend: 'redis', ok: true });
    await cache.set('contracts', '00ab', contract);
    expect(await replica.get('contracts', '00ab')).toEqual(contract);
    expect(lines.some((l) => l.includes('redis cache recovered'))).toBe(true);
  });

  it('a hung Redis (SIGSTOP) costs at most the command timeout per call, and is reported', async () => {
    const cache = newCache(); // commandTimeoutMs: 300
    await ready(cache);
    await cache.set('contracts', '00ab', contract);
    server.pause();
    try {
      const t = Date.now();
      await expect(cache.get('contracts', '00ab')).resolves.toBeUndefined();
      await expect(cache.set('contracts', '00cd', contract)).resolves.toBeUndefined();
      expect(Date.now() - t).toBeLessThan(1_500);
      expect(cache.health()).toMatchObject({ backend: 'redis', ok: false });
      expect(cache.health().lastError).toMatch(/timed out/i);
    } finally {
      server.resume();
    }
    await until(async () => (await cache.get('contracts', '00ab')) !== undefined, 3_000, 'reads to work again');
    expect(cache.health()).toEqual({ backend: 'redis', ok: true });
  });

  it('a hung Redis trips the breaker: after one timed-out command, calls skip Redis at once until a probe succeeds', async () => {
    const cache = new RedisCache({ url: server.url, keyPrefix: `t-${randomUUID()}`, defaultTtlSeconds: 60, logger, commandTimeoutMs: 200, breakerCooldownMs: 500, maxReconnectDelayMs: 100 });
    opened.push(cache);
    await ready(cache);
    await cache.set('contracts', '00ab', contract);
    server.pause();
    try {
      await expect(cache.get('contracts', '00ab')).resolves.toBeUndefined(); // times out: the breaker opens
      const t = performance.now();
      for (let i = 0; i < 20; i++) {
        await expect(cache.get('contracts', '00ab')).resolves.toBeUndefined();
        await cache.set('contracts', `00c${i}`, contract);
        await cache.delete('contracts', '00ab');
      }
      expect(performance.now() - t).toBeLessThan(100);
      expect(cache.health()).toMatchObject({ backend: 'redis', ok: false });
    } finally {
      server.resume();
    }
    // The skipped delete did not happen: the entry is still there once a probe closes the breaker.
    await until(async () => (await cache.get('contracts', '00ab')) !== undefined, 3_000, 'a probe to close the breaker');
    expect(cache.health()).toEqual({ backend: 'redis', ok: true });
  });

  it('a cache whose Redis was never reachable answers misses at once and does not throw', async () => {
    const cache = newCache(`t-${randomUUID()}`, 'redis://127.0.0.1:1');
    const t = Date.now();
    expect(await cache.get('contracts', 'k')).toBeUndefined();
    await cache.set('contracts', 'k', 1);
    expect(Date.now() - t).toBeLessThan(500);
    expect(cache.health()).toMatchObject({ backend: 'redis', ok: false });
  });

  it('close stops the client: later calls miss or do nothing', async () => {
    const cache = newCache();
    await ready(cache);
    await cache.close();
    expect(cache.health()).toMatchObject({ ok: false, lastError: 'closed' });
    await cache.set('contracts', 'k', 1);
    expect(await cache.get('contracts', 'k')).toBeUndefined();
  });
});
