/**
 * In-process cache: the default when `REDIS_URL` is not set (embedded use, tests, a single
 * replica). It keeps the Redis cache's semantics so code tested against it behaves the same in
 * production: values are stored serialised (a get returns a fresh copy, exactly like a Redis
 * round trip, so a caller mutating a result cannot corrupt the cache), every entry has a TTL, and
 * nothing ever rejects.
 *
 * Memory is bounded: at most `maxEntries` entries, evicting the least recently used. A JS Map
 * iterates in insertion order, so re-inserting an entry on every hit keeps the oldest-used first.
 */
import {
  errorMessage,
  ttlMillis,
  type Cache,
  type CacheHealth,
  type CacheLogger,
  type CacheStats,
  type NowMs,
} from './cache.js';

export interface MemoryCacheOptions {
  defaultTtlSeconds: number;
  /** Bound on the number of entries (LRU eviction beyond it). Default 10 000. */
  maxEntries?: number;
  logger: CacheLogger;
  /** Epoch milliseconds; defaults to `Date.now`. */
  now?: NowMs;
}

interface Entry {
  json: string;
  expiresAt: number;
}

export const DEFAULT_MAX_MEMORY_ENTRIES = 10_000;

export class MemoryCache implements Cache {
  private readonly entries = new Map<string, Entry>();
  private readonly defaultTtlSeconds: number;
  private readonly maxEntries: number;
  private readonly logger: CacheLogger;
  private readonly now: NowMs;
  private readonly counters: CacheStats = { hits: 0, misses: 0, errors: 0 };
  private closed = false;

  constructor(opts: MemoryCacheOptions) {
    if (!(opts.defaultTtlSeconds > 0)) throw new RangeError('defaultTtlSeconds must be positive');
    const maxEntries = opts.maxEntries ?? DEFAULT_MAX_MEMORY_ENTRIES;
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError('maxEntries must be a positive integer');
    this.defaultTtlSeconds = opts.defaultTtlSeconds;
    this.maxEntries = maxEntries;
    this.logger = opts.logger;
    this.now = opts.now ?? Date.now;
  }

  /** Number of entries held (expired ones not yet swept included). */
  get size(): number {
    return this.entries.size;
  }

  async get<T>(ns: string, key: string): Promise<T | undefined> {
    return this.read<T>(compositeKey(ns, key), this.now());
  }

  async getMany<T>(ns: string, keys: readonly string[]): Promise<Map<string, T>> {
    const out = new Map<string, T>();
    const now = this.now();
    for (const key of keys) {
      const value = this.read<T>(compositeKey(ns, key), now);
      if (value !== undefined) out.set(key, value);
    }
    return out;
  }

  async set<T>(ns: string, key: string, value: T, ttlSeconds?: number): Promise<void> {
    if (this.closed) return;
    let json: string | undefined;
    try {
      json = JSON.stringify(value);
    } catch (err) {
      this.fail('set', ns, err);
      return;
    }
    // JSON.stringify(undefined) (or a function) gives undefined: nothing a get could return.
    if (json === undefined) {
      this.fail('set', ns, new TypeError('value is not JSON-serialisable'));
      return;
    }
    const k = compositeKey(ns, key);
    this.entries.delete(k); // re-insert at the most-recently-used end
    this.entries.set(k, { json, expiresAt: this.now() + ttlMillis(ttlSeconds, this.defaultTtlSeconds) });
    this.evict();
  }

  async delete(ns: string, key: string): Promise<void> {
    this.entries.delete(compositeKey(ns, key));
  }

  async deleteMany(ns: string, keys: readonly string[]): Promise<void> {
    for (const key of keys) this.entries.delete(compositeKey(ns, key));
  }

  health(): CacheHealth {
    return this.closed ? { backend: 'memory', ok: false, lastError: 'closed' } : { backend: 'memory', ok: true };
  }

  stats(): CacheStats {
    return { ...this.counters };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.entries.clear();
  }

  private read<T>(k: string, now: number): T | undefined {
    const entry = this.entries.get(k);
    if (entry === undefined) {
      this.counters.misses++;
      return undefined;
    }
    if (entry.expiresAt <= now) {
      this.entries.delete(k);
      this.counters.misses++;
      return undefined;
    }
    this.entries.delete(k);
    this.entries.set(k, entry);
    this.counters.hits++;
    return JSON.parse(entry.json) as T;
  }

  private evict(): void {
    // The first key in iteration order is the least recently used. Expired entries nobody reads
    // again are not swept separately: they age out through this same bound.
    for (const k of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) return;
      this.entries.delete(k);
    }
  }

  private fail(op: string, ns: string, err: unknown): void {
    this.counters.errors++;
    this.logger.warn({ op, ns, err: errorMessage(err) }, 'memory cache operation failed');
  }
}

/** Same shape as the Redis key minus prefix and version: `ns:key`. */
function compositeKey(ns: string, key: string): string {
  return `${ns}:${key}`;
}
