/**
 * The registry's cache of disclosed contracts: a contract's created-event blob,
 * template id, synchronizer id, payload and createdAt, looked up by contract id. Shared through
 * Redis by every replica when `REDIS_URL` is set, in process memory otherwise (DESIGN.md,
 * "Real components").
 *
 * The cache is an optimisation, never a source of truth: the ledger is. So no method ever rejects.
 * A failed read is a miss (the caller falls back to the ledger), a failed write or delete is logged
 * and counted. That is what lets the registry keep answering while Redis is down.
 */

/**
 * Version of the shape of the cached values. It is part of every Redis key, so a release that
 * changes the shape starts from an empty keyspace instead of reading values it cannot understand,
 * and two releases can run side by side during a rolling upgrade. Bump it on any such change.
 */
export const CACHE_SCHEMA_VERSION = 1;

export type CacheBackend = 'memory' | 'redis';

export interface CacheHealth {
  backend: CacheBackend;
  /** The backend answers right now (memory: always, until closed; Redis: the connection is ready). */
  ok: boolean;
  /** Why it does not (cleared when the backend is healthy again). Never contains credentials. */
  lastError?: string;
}

/** Counters since the cache was created (for metrics, benchmarks and tests). */
export interface CacheStats {
  hits: number;
  misses: number;
  /** Operations that failed (a read counted here is also counted as a miss). */
  errors: number;
}

export interface Cache {
  /** The value, or undefined on a miss, an expired entry, or any backend failure. */
  get<T>(ns: string, key: string): Promise<T | undefined>;
  /** The entries found; missing, expired and unreadable keys are absent from the map. */
  getMany<T>(ns: string, keys: readonly string[]): Promise<Map<string, T>>;
  /**
   * Stores a JSON value (it is serialised: what comes back is a copy, and values JSON cannot
   * represent, such as bigint, fail the write). `ttlSeconds` defaults to the cache's default TTL.
   */
  set<T>(ns: string, key: string, value: T, ttlSeconds?: number): Promise<void>;
  delete(ns: string, key: string): Promise<void>;
  deleteMany(ns: string, keys: readonly string[]): Promise<void>;
  health(): CacheHealth;
  stats(): CacheStats;
  /** Releases the backend; later reads miss and later writes are dropped. */
  close(): Promise<void>;
}

/** The smallest logger the caches need; a pino `Logger` fits. */
export interface CacheLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Time source in epoch milliseconds (injectable so tests can move time, DESIGN.md rule 5). */
export type NowMs = () => number;

/** A TTL in milliseconds from a TTL in seconds, or the default when absent or not positive. */
export function ttlMillis(ttlSeconds: number | undefined, defaultTtlSeconds: number): number {
  const s = ttlSeconds !== undefined && Number.isFinite(ttlSeconds) && ttlSeconds > 0 ? ttlSeconds : defaultTtlSeconds;
  return Math.max(1, Math.round(s * 1000));
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
