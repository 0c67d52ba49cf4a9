/**
 * Cache selection: Redis when `REDIS_URL` is configured, shared by every replica;
 * in process memory otherwise.
 */
import type { Cache, CacheLogger, NowMs } from './cache.js';
import { MemoryCache } from './memory-cache.js';
import { RedisCache, type RedisCacheOptions } from './redis-cache.js';

export * from './cache.js';
export { MemoryCache, DEFAULT_MAX_MEMORY_ENTRIES, type MemoryCacheOptions } from './memory-cache.js';
export { RedisCache, DEFAULT_KEY_PREFIX, redisKey, redactRedisUrl, parseRedisUrl, type RedisCacheOptions, type RedisNode, type RedisTarget } from './redis-cache.js';

export interface CreateCacheOptions {
  /** Set: Redis. Unset or empty: memory. */
  redisUrl?: string | undefined;
  /** Redis key prefix (default `token-registry`); ignored by the memory cache. */
  keyPrefix?: string | undefined;
  defaultTtlSeconds: number;
  /** Memory cache bound (default 10 000); ignored by Redis (bound Redis with maxmemory). */
  maxMemoryEntries?: number | undefined;
  logger: CacheLogger;
  /** Memory cache clock (epoch ms); Redis expires entries by its own clock. */
  now?: NowMs | undefined;
  /** Redis client timeouts, breaker and backoff (defaults: 250 ms, 1000 ms, 1000 ms, 2000 ms). */
  redis?: Pick<RedisCacheOptions, 'commandTimeoutMs' | 'breakerCooldownMs' | 'connectTimeoutMs' | 'maxReconnectDelayMs'> | undefined;
}

export function createCache(opts: CreateCacheOptions): Cache {
  if (opts.redisUrl !== undefined && opts.redisUrl !== '') {
    return new RedisCache({
      url: opts.redisUrl,
      ...(opts.keyPrefix !== undefined ? { keyPrefix: opts.keyPrefix } : {}),
      defaultTtlSeconds: opts.defaultTtlSeconds,
      logger: opts.logger,
      ...opts.redis,
    });
  }
  return new MemoryCache({
    defaultTtlSeconds: opts.defaultTtlSeconds,
    logger: opts.logger,
    ...(opts.maxMemoryEntries !== undefined ? { maxEntries: opts.maxMemoryEntries } : {}),
    ...(opts.now !== undefined ? { now: opts.now } : {}),
  });
}
