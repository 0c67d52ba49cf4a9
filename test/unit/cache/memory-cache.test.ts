import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createCache, MemoryCache, RedisCache, redactRedisUrl, redisKey, CACHE_SCHEMA_VERSION, ttlMillis } from '../../../src/cache/index.js';

function captureLogger() {
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (s: string) => void lines.push(s) });
  return { logger, lines };
}

class FakeClock {
  t = 1_000_000;
  now = (): number => this.t;
  advance(ms: number): void {
    this.t += ms;
  }
}

function memory(opts: { maxEntries?: number; ttl?: number } = {}): { cache: MemoryCache; clock: FakeClock; lines: string[] } {
  const clock = new FakeClock();
  const { logger, lines } = captureLogger();
  const cache = new MemoryCache({ defaultTtlSeconds: opts.ttl ?? 60, logger, now: clock.now, ...(opts.maxEntries ? { maxEntries: opts.maxEntries } : {}) });
  return { cache, clock, lines };
}

const contract = {
  templateId: '#pkg:Mod:Ent',
  contractId: '00ab',
  createdEventBlob: 'CgMyLjES',
  synchronizerId: 'global-domain::1220aa',
  payload: { amount: '10.0', owner: 'alice::1220bb' },
  createdAt: '2026-01-01T00:00:00Z',
};

describe('MemoryCache', () => {
  it('stores and returns JSON values; a miss is undefined', async () => {
    const { cache } = memory();
    expect(await cache.get('contracts', 'nope')).toBeUndefined();
    await cache.set('contracts', '00ab', contract);
    expect(await cache.get('contracts', '00ab')).toEqual(contract);
    expect(cache.stats()).toEqual({ hits: 1, misses: 1, errors: 0 });
  });

  it('returns a copy: mutating a result or the stored object does not change the cache (like Redis)', async () => {
    const { cache } = memory();
    const value = structuredClone(contract);
    await cache.set('contracts', '00ab', value);
    value.payload.amount = '999';
    const got = await cache.get<typeof contract>('contracts', '00ab');
    expect(got?.payload.amount).toBe('10.0');
    got!.payload.amount = '1';
    expect((await cache.get<typeof contract>('contracts', '00ab'))?.payload.amount).toBe('10.0');
  });

  it('namespaces are separate', async () => {
    const { cache } = memory();
    await cache.set('a', 'k', 1);
    expect(await cache.get('b', 'k')).toBeUndefined();
    expect(await cache.get('a', 'k')).toBe(1);
  });

  it('expires entries after the default TTL, by the injected clock', async () => {
    const { cache, clock } = memory({ ttl: 10 });
    await cache.set('c', 'k', 'v');
    clock.advance(9_999);
    expect(await cache.get('c', 'k')).toBe('v');
    clock.advance(1);
    expect(await cache.get('c', 'k')).toBeUndefined();
    expect(cache.size).toBe(0); // the expired entry was dropped on read
  });

  it('a per-entry TTL overrides the default; a non-positive one falls back to the default', async () => {
    const { cache, clock } = memory({ ttl: 10 });
    await cache.set('c', 'short', 1, 2);
    await cache.set('c', 'zero', 1, 0);
    await cache.set('c', 'long', 1, 100);
    clock.advance(2_000);
    expect(await cache.get('c', 'short')).toBeUndefined();
    expect(await cache.get('c', 'zero')).toBe(1);
    clock.advance(8_000);
    expect(await cache.get('c', 'zero')).toBeUndefined();
    expect(await cache.get('c', 'long')).toBe(1);
  });

  it('set refreshes the TTL of an existing entry', async () => {
    const { cache, clock } = memory({ ttl: 10 });
    await cache.set('c', 'k', 1);
    clock.advance(8_000);
    await cache.set('c', 'k', 2);
    clock.advance(8_000);
    expect(await cache.get('c', 'k')).toBe(2);
  });

  it('getMany returns only the live entries', async () => {
    const { cache, clock } = memory({ ttl: 10 });
    await cache.set('c', 'a', 'A');
    await cache.set('c', 'b', 'B', 1);
    clock.advance(1_000);
    const got = await cache.getMany<string>('c', ['a', 'b', 'missing']);
    expect([...got]).toEqual([['a', 'A']]);
    expect((await cache.getMany('c', [])).size).toBe(0);
  });

  it('delete and deleteMany remove entries', async () => {
    const { cache } = memory();
    for (const k of ['a', 'b', 'c']) await cache.set('n', k, k);
    await cache.delete('n', 'a');
    await cache.deleteMany('n', ['b', 'missing']);
    expect([...(await cache.getMany('n', ['a', 'b', 'c'])).keys()]).toEqual(['c']);
  });

  it('is bounded: evicts the least recently used entry, and a read counts as a use', async () => {
    const { cache } = memory({ maxEntries: 3 });
    await cache.set('n', 'a', 1);
    await cache.set('n', 'b', 2);
    await cache.set('n', 'c', 3);
    expect(await cache.get('n', 'a')).toBe(1); // a is now the most recently used
    await cache.set('n', 'd', 4); // evicts b
    expect(cache.size).toBe(3);
    expect(await cache.get('n', 'b')).toBeUndefined();
    expect(await cache.getMany('n', ['a', 'c', 'd'])).toEqual(new Map([['a', 1], ['c', 3], ['d', 4]]));
    await cache.set('n', 'e', 5); // a, c, d were read in that order: a is the oldest use
    expect(await cache.get('n', 'a')).toBeUndefined();
    expect(cache.size).toBe(3);
  });

  it('overwriting a key does not count as a new entry', async () => {
    const { cache } = memory({ maxEntries: 2 });
    await cache.set('n', 'a', 1);
    await cache.set('n', 'b', 2);
    await cache.set('n', 'a', 3);
    expect(cache.size).toBe(2);
    expect(await cache.get('n', 'b')).toBe(2);
  });

  it('a value JSON cannot hold is not stored, does not throw, and is logged and counted', async () => {
    const { cache, lines } = memory();
    await expect(cache.set('n', 'big', { amount: 10n })).resolves.toBeUndefined();
    await expect(cache.set('n', 'undef', undefined)).resolves.toBeUndefined();
    expect(await cache.get('n', 'big')).toBeUndefined();
    expect(cache.stats().errors).toBe(2);
    expect(lines.join('')).toContain('memory cache operation failed');
  });

  it('health is ok until closed; after close reads miss and writes are dropped', async () => {
    const { cache } = memory();
    expect(cache.health()).toEqual({ backend: 'memory', ok: true });
    await cache.set('n', 'k', 1);
    await cache.close();
    expect(cache.health()).toMatchObject({ backend: 'memory', ok: false });
    await cache.set('n', 'k', 1);
    expect(await cache.get('n', 'k')).toBeUndefined();
  });

  it('rejects a nonsensical configuration at construction', () => {
    const { logger } = captureLogger();
    expect(() => new MemoryCache({ defaultTtlSeconds: 0, logger })).toThrow(RangeError);
    expect(() => new MemoryCache({ defaultTtlSeconds: 1, maxEntries: 0, logger })).toThrow(RangeError);
  });
});

describe('ttlMillis', () => {
  it('uses the given TTL when positive and finite, the default otherwise', () => {
    expect(ttlMillis(2, 10)).toBe(2_000);
    expect(ttlMillis(0.5, 10)).toBe(500);
    expect(ttlMillis(undefined, 10)).toBe(10_000);
    expect(ttlMillis(-1, 10)).toBe(10_000);
    expect(ttlMillis(Number.NaN, 10)).toBe(10_000);
  });
});

describe('createCache', () => {
  it('picks memory without a Redis URL (unset or empty)', async () => {
    const { logger } = captureLogger();
    const clock = new FakeClock();
    const a = createCache({ defaultTtlSeconds: 5, logger, now: clock.now, maxMemoryEntries: 1 });
    const b = createCache({ redisUrl: '', defaultTtlSeconds: 5, logger });
    expect(a).toBeInstanceOf(MemoryCache);
    expect(b.health().backend).toBe('memory');
    // the options reach the memory cache: the injected clock and the bound
    await a.set('n', 'x', 1);
    await a.set('n', 'y', 2);
    expect(await a.get('n', 'x')).toBeUndefined();
    clock.advance(5_000);
    expect(await a.get('n', 'y')).toBeUndefined();
  });

  it('picks Redis with a URL, without blocking on the connection', async () => {
    const { logger } = captureLogger();
    // Port 1 on loopback: nothing listens, the connection is refused.
    const cache = createCache({ redisUrl: 'redis://127.0.0.1:1', defaultTtlSeconds: 5, logger });
    try {
      expect(cache).toBeInstanceOf(RedisCache);
      expect(cache.health()).toMatchObject({ backend: 'redis', ok: false });
    } finally {
      await cache.close();
    }
  });
});

describe('Redis key and URL helpers', () => {
  it('keys carry the prefix and the schema version', () => {
    expect(redisKey('reg', 'contracts', '00ab')).toBe(`reg:v${CACHE_SCHEMA_VERSION}:contracts:00ab`);
  });

  it('redacts the password of a Redis URL, and only that', () => {
    expect(redactRedisUrl('redis://user:s3cret@cache.example:6380/2')).toBe('redis://user:***@cache.example:6380/2');
    expect(redactRedisUrl('rediss://:s3cret@cache.example')).toBe('rediss://:***@cache.example');
    expect(redactRedisUrl('redis://cache.example:6379')).toBe('redis://cache.example:6379');
    expect(redactRedisUrl('not a url')).not.toContain('not a url');
  });
});
