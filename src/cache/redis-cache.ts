/**
 * Redis cache, shared by every registry replica (`REDIS_URL`).
 *
 * Keys are `${keyPrefix}:v${CACHE_SCHEMA_VERSION}:${ns}:${key}`: the prefix lets deployments (or
 * tests) share one Redis or stay isolated, the version keeps releases with different value shapes
 * apart (see CACHE_SCHEMA_VERSION). `ns` must not contain ':' (it would make two keys collide).
 *
 * Availability over consistency: the ledger is the source of truth, so when Redis is down or slow
 * the registry must answer from the ledger at once, not wait for Redis. Hence the client fails fast
 * instead of queueing: no offline queue (a command issued while disconnected rejects immediately),
 * no per-request retries, a short command and connect timeout. It reconnects by itself with a
 * bounded backoff, so reads and writes work again when Redis returns, without a restart.
 *
 * A Redis that hangs (frozen process, stalled host) keeps its connection open, so nothing fails
 * fast by itself: each command would wait its whole timeout, and a per-contract request makes two
 * (a read and a write). Hence a circuit breaker: after a command fails, Redis is skipped for
 * `breakerCooldownMs` (reads miss at once, writes and deletes are dropped and counted as errors,
 * `health()` says not ok); then one command goes through as a probe, and its success closes the
 * breaker. Answers stay correct meanwhile: a miss is answered from the ledger (ContractIndex), and
 * the index retries the deletes of archived contracts until Redis takes them.
 *
 * High availability (parseRedisUrl): `REDIS_URL` names one server (`redis://`, `rediss://`), a
 * Sentinel group (`redis+sentinel://[[user]:password@]host:port,host:port/<master name>[?db=N
 * &sentinelPassword=...]`: ioredis asks the sentinels for the current master and follows a
 * failover), or a Redis Cluster (`redis+cluster://[[user]:password@]host:port,host:port`: a seed
 * list; the client learns the slot map and follows failovers and resharding). `rediss+...` uses
 * TLS. Within a cluster, keys of one request may live on different nodes, so multi-key reads and
 * deletes are sent key by key there.
 */
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import {
  CACHE_SCHEMA_VERSION,
  errorMessage,
  ttlMillis,
  type Cache,
  type CacheHealth,
  type CacheLogger,
  type CacheStats,
} from './cache.js';

export interface RedisCacheOptions {
  /** `redis://[user:password@]host:port[/db]`, `rediss://...`, `redis+sentinel://...` or `redis+cluster://...` (parseRedisUrl). */
  url: string;
  /** Default `token-registry`. Replicas that share entries use the same prefix. */
  keyPrefix?: string;
  defaultTtlSeconds: number;
  logger: CacheLogger;
  /** A command not answered within this rejects (counts as a miss / failed write). Default 250 ms. */
  commandTimeoutMs?: number;
  /** After a failed command, Redis is skipped this long before one command probes it again. Default 1000 ms. */
  breakerCooldownMs?: number;
  /** Default 1000 ms. */
  connectTimeoutMs?: number;
  /** Upper bound of the exponential reconnect backoff. Default 2000 ms. */
  maxReconnectDelayMs?: number;
}

export const DEFAULT_KEY_PREFIX = 'token-registry';

/** The Redis key of an entry. */
export function redisKey(keyPrefix: string, ns: string, key: string): string {
  return `${keyPrefix}:v${CACHE_SCHEMA_VERSION}:${ns}:${key}`;
}

/** The URL with its passwords replaced by `***`, for logs (a URL may carry Redis credentials). */
export function redactRedisUrl(url: string): string {
  const ha = HA_URL.exec(url);
  if (ha) {
    const [, scheme, user, password, hosts, path, query] = ha;
    const auth = user !== undefined || password !== undefined ? `${user ?? ''}${password !== undefined ? ':***' : ''}@` : '';
    const q = query === undefined ? '' : `?${query.replace(/(sentinelPassword=)[^&]*/gi, '$1***')}`;
    return `${scheme}://${auth}${hosts}${path ?? ''}${q}`;
  }
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return '<unparseable redis url>';
  }
}

/** `scheme://[user[:password]@]hosts[/path][?query]` of the Sentinel and Cluster forms. */
const HA_URL = /^(rediss?\+(?:sentinel|cluster)):\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^/?@]+)(\/[^?]*)?(?:\?(.*))?$/i;

export interface RedisNode {
  host: string;
  port: number;
}

/** What a REDIS_URL names. */
export type RedisTarget =
  | { kind: 'single'; url: string }
  | { kind: 'sentinel'; sentinels: RedisNode[]; name: string; username?: string; password?: string; sentinelUsername?: string; sentinelPassword?: string; db: number; tls: boolean }
  | { kind: 'cluster'; nodes: RedisNode[]; username?: string; password?: string; tls: boolean };

/** Parses a REDIS_URL (see the module comment); throws a RangeError naming what is wrong (never the password). */
export function parseRedisUrl(url: string): RedisTarget {
  if (/^rediss?:\/\//i.test(url)) return { kind: 'single', url };
  const m = HA_URL.exec(url);
  if (!m) {
    throw new RangeError(`REDIS_URL ${redactRedisUrl(url)}: expected redis://, rediss://, redis+sentinel://host:port,.../<master name> or redis+cluster://host:port,...`);
  }
  const [, scheme, user, password, hostList, path, query] = m;
  const nodes = hostList!.split(',').map((h) => {
    const hm = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(h.trim());
    const port = hm ? Number(hm[2] ?? (scheme!.toLowerCase().endsWith('sentinel') ? 26379 : 6379)) : NaN;
    if (!hm || !(port > 0 && port < 65536)) throw new RangeError(`REDIS_URL ${redactRedisUrl(url)}: "${h}" is not host:port`);
    return { host: hm[1]!.replace(/^\[|\]$/g, ''), port };
  });
  const dec = (v: string | undefined) => (v === undefined || v === '' ? undefined : decodeURIComponent(v));
  const params = new URLSearchParams(query ?? '');
  const tls = scheme!.toLowerCase().startsWith('rediss');
  const auth = { ...(dec(user) !== undefined ? { username: dec(user) } : {}), ...(dec(password) !== undefined ? { password: dec(password) } : {}) };
  if (scheme!.toLowerCase().endsWith('cluster')) {
    if (path !== undefined && path !== '' && path !== '/') throw new RangeError(`REDIS_URL ${redactRedisUrl(url)}: a cluster has no database path (only db 0)`);
    return { kind: 'cluster', nodes, tls, ...auth };
  }
  const name = dec(path?.replace(/^\//, ''));
  if (!name) throw new RangeError(`REDIS_URL ${redactRedisUrl(url)}: name the Sentinel master group after the hosts (redis+sentinel://h1:26379,h2:26379/mymaster)`);
  const db = Number(params.get('db') ?? '0');
  if (!Number.isInteger(db) || db < 0) throw new RangeError(`REDIS_URL ${redactRedisUrl(url)}: db must be a whole number`);
  const sentinelUsername = params.get('sentinelUsername') ?? undefined;
  const sentinelPassword = params.get('sentinelPassword') ?? undefined;
  return {
    kind: 'sentinel',
    sentinels: nodes,
    name,
    db,
    tls,
    ...auth,
    ...(sentinelUsername !== undefined ? { sentinelUsername } : {}),
    ...(sentinelPassword !== undefined ? { sentinelPassword } : {}),
  };
}

/** Failures of operations are logged at warn at most this often (an outage fails every request). */
const WARN_INTERVAL_MS = 5_000;
/** DEL takes any number of keys; chunks keep one command from growing without bound. */
const DEL_CHUNK = 500;

export class RedisCache implements Cache {
  private readonly client: Redis | Cluster;
  /** A cluster: multi-key commands are split per key (keys hash to different slots). */
  private readonly cluster: boolean;
  private readonly keyPrefix: string;
  private readonly defaultTtlSeconds: number;
  private readonly logger: CacheLogger;
  private readonly safeUrl: string;
  private readonly counters: CacheStats = { hits: 0, misses: 0, errors: 0 };
  private lastError: string | undefined = 'connecting';
  /** The connection is up but the last command failed (e.g. timed out: Redis hangs). */
  private commandsFailing = false;
  private closed = false;
  /** Whether the connection was ready before (to log an outage and a recovery once each). */
  private wasReady = false;
  private outageLogged = false;
  private lastWarnAt = 0;
  private suppressed = 0;
  private readonly breakerCooldownMs: number;
  /** The breaker is open until then (epoch ms): commands are skipped. */
  private skipUntil = 0;
  /** The breaker is half open: one command is probing Redis; the others are skipped meanwhile. */
  private probing = false;

  constructor(opts: RedisCacheOptions) {
    if (!(opts.defaultTtlSeconds > 0)) throw new RangeError('defaultTtlSeconds must be positive');
    this.keyPrefix = opts.keyPrefix ?? DEFAULT_KEY_PREFIX;
    this.defaultTtlSeconds = opts.defaultTtlSeconds;
    this.logger = opts.logger;
    this.safeUrl = redactRedisUrl(opts.url);
    this.breakerCooldownMs = Math.max(0, opts.breakerCooldownMs ?? 1_000);
    const maxDelay = opts.maxReconnectDelayMs ?? 2_000;
    const target = parseRedisUrl(opts.url);
    // Called after each lost connection / failed attempt; never gives up (returns a number).
    const retryStrategy = (times: number) => Math.min(50 * 2 ** Math.min(times - 1, 16), maxDelay);
    const base: RedisOptions = {
      // Connect in the background (below): process start never waits for Redis.
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      commandTimeout: opts.commandTimeoutMs ?? 250,
      connectTimeout: opts.connectTimeoutMs ?? 1_000,
      retryStrategy,
    };
    const { lazyConnect: _lazy, ...nodeOptions } = base;
    this.cluster = target.kind === 'cluster';
    if (target.kind === 'single') {
      this.client = new Redis(target.url, base);
    } else if (target.kind === 'sentinel') {
      this.client = new Redis({
        ...base,
        sentinels: target.sentinels,
        name: target.name,
        db: target.db,
        ...(target.username !== undefined ? { username: target.username } : {}),
        ...(target.password !== undefined ? { password: target.password } : {}),
        ...(target.sentinelUsername !== undefined ? { sentinelUsername: target.sentinelUsername } : {}),
        ...(target.sentinelPassword !== undefined ? { sentinelPassword: target.sentinelPassword } : {}),
        ...(target.tls ? { tls: {}, enableTLSForSentinelMode: true } : {}),
        // On a lost connection the client asks the sentinels for the master again (with the
        // same backoff), which finds the promoted replica once they have failed over. (ioredis'
        // `failoverDetector` is left off: with it, the client ended for good after a master was
        // killed, in the Sentinel failover test.)
        sentinelRetryStrategy: retryStrategy,
      });
    } else {
      const clusterOptions: ClusterOptions = {
        lazyConnect: true,
        enableOfflineQueue: false,
        clusterRetryStrategy: retryStrategy,
        // A failover moves slots: refresh the map quickly and retry a redirected command once.
        retryDelayOnFailover: 50,
        retryDelayOnClusterDown: 50,
        retryDelayOnMoved: 0,
        maxRedirections: 4,
        slotsRefreshTimeout: opts.connectTimeoutMs ?? 1_000,
        // The cluster connects its nodes itself (it is the one that is lazy).
        redisOptions: {
          ...nodeOptions,
          ...(target.username !== undefined ? { username: target.username } : {}),
          ...(target.password !== undefined ? { password: target.password } : {}),
          ...(target.tls ? { tls: {} } : {}),
        },
      };
      this.client = new Cluster(target.nodes, clusterOptions);
    }
    this.client.on('ready', () => this.onReady());
    this.client.on('error', (err: unknown) => this.onConnectionError(errorMessage(err)));
    this.client.on('close', () => this.onConnectionError(this.lastError ?? 'connection closed'));
    this.client.connect().catch(() => {
      // Reported through the 'error' event; the retry strategy keeps trying.
    });
  }

  async get<T>(ns: string, key: string): Promise<T | undefined> {
    if (this.closed) return undefined;
    if (!this.admit()) {
      this.counters.misses++;
      this.counters.errors++;
      return undefined;
    }
    let raw: string | null;
    try {
      raw = await this.client.get(redisKey(this.keyPrefix, ns, key));
    } catch (err) {
      this.counters.misses++;
      this.commandFailed('get', ns, err);
      return undefined;
    }
    this.succeeded();
    return this.decode<T>(raw, ns);
  }

  async getMany<T>(ns: string, keys: readonly string[]): Promise<Map<string, T>> {
    const out = new Map<string, T>();
    if (this.closed || keys.length === 0) return out;
    if (!this.admit()) {
      this.counters.misses += keys.length;
      this.counters.errors++;
      return out;
    }
    let raws: (string | null)[];
    try {
      const rkeys = keys.map((k) => redisKey(this.keyPrefix, ns, k));
      raws = this.cluster ? await Promise.all(rkeys.map((k) => this.client.get(k))) : await this.client.mget(rkeys);
    } catch (err) {
      this.counters.misses += keys.length;
      this.commandFailed('getMany', ns, err);
      return out;
    }
    this.succeeded();
    keys.forEach((k, i) => {
      const value = this.decode<T>(raws[i] ?? null, ns);
      if (value !== undefined) out.set(k, value);
    });
    return out;
  }

  async set<T>(ns: string, key: string, value: T, ttlSeconds?: number): Promise<void> {
    if (this.closed) return;
    let json: string | undefined;
    try {
      json = JSON.stringify(value);
      if (json === undefined) throw new TypeError('value is not JSON-serialisable');
    } catch (err) {
      this.fail('set', ns, err); // the caller's value, not Redis: health unaffected
      return;
    }
    if (!this.admit()) {
      this.counters.errors++;
      return;
    }
    try {
      await this.client.set(redisKey(this.keyPrefix, ns, key), json, 'PX', ttlMillis(ttlSeconds, this.defaultTtlSeconds));
      this.succeeded();
    } catch (err) {
      this.commandFailed('set', ns, err);
    }
  }

  async delete(ns: string, key: string): Promise<void> {
    await this.deleteMany(ns, [key]);
  }

  async deleteMany(ns: string, keys: readonly string[]): Promise<void> {
    if (this.closed || keys.length === 0) return;
    if (!this.admit()) {
      this.counters.errors++;
      return;
    }
    try {
      for (let i = 0; i < keys.length; i += DEL_CHUNK) {
        const chunk = keys.slice(i, i + DEL_CHUNK).map((k) => redisKey(this.keyPrefix, ns, k));
        if (this.cluster) await Promise.all(chunk.map((k) => this.client.del(k)));
        else await this.client.del(...chunk);
      }
      this.succeeded();
    } catch (err) {
      this.commandFailed('delete', ns, err);
    }
  }

  health(): CacheHealth {
    if (this.closed) return { backend: 'redis', ok: false, lastError: 'closed' };
    const ok = this.client.status === 'ready' && !this.commandsFailing;
    if (ok) return { backend: 'redis', ok };
    return { backend: 'redis', ok, lastError: this.lastError ?? `connection ${this.client.status}` };
  }

  stats(): CacheStats {
    return { ...this.counters };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.client.status === 'ready') {
      await this.client.quit().catch(() => undefined);
    }
    // Also stops a pending reconnect.
    this.client.disconnect();
  }

  private decode<T>(raw: string | null, ns: string): T | undefined {
    if (raw === null) {
      this.counters.misses++;
      return undefined;
    }
    try {
      const value = JSON.parse(raw) as T;
      this.counters.hits++;
      return value;
    } catch (err) {
      // Not written by this schema version's code: treat as absent; the caller will overwrite it.
      this.counters.misses++;
      this.fail('decode', ns, err);
      return undefined;
    }
  }

  private onReady(): void {
    this.lastError = undefined;
    // A new connection: commands are tried again at once.
    this.succeeded();
    if (this.outageLogged || !this.wasReady) {
      this.logger.info({ redis: this.safeUrl, recovered: this.wasReady }, this.wasReady ? 'redis cache recovered' : 'redis cache connected');
    }
    this.wasReady = true;
    this.outageLogged = false;
  }

  private onConnectionError(message: string): void {
    if (this.closed) return;
    this.lastError = message;
    if (!this.outageLogged) {
      this.outageLogged = true;
      this.logger.warn(
        { redis: this.safeUrl, err: message },
        'redis cache unavailable; serving from the ledger and reconnecting in the background',
      );
    } else {
      this.logger.debug({ redis: this.safeUrl, err: message }, 'redis cache still unavailable');
    }
  }

  /**
   * Whether a command may be sent now: always while the breaker is closed; while it is open, not
   * before the cooldown has passed, then one command at a time (the probe).
   */
  private admit(): boolean {
    if (this.skipUntil === 0) return true;
    if (this.probing || Date.now() < this.skipUntil) return false;
    this.probing = true;
    return true;
  }

  private succeeded(): void {
    this.commandsFailing = false;
    this.skipUntil = 0;
    this.probing = false;
  }

  /** A command failed: Redis is unreachable, hangs (command timeout) or refused it. */
  private commandFailed(op: string, ns: string, err: unknown): void {
    this.commandsFailing = true;
    this.probing = false;
    this.skipUntil = Date.now() + this.breakerCooldownMs;
    this.lastError = errorMessage(err);
    this.fail(op, ns, err);
  }

  private fail(op: string, ns: string, err: unknown): void {
    this.counters.errors++;
    const now = Date.now();
    if (now - this.lastWarnAt >= WARN_INTERVAL_MS) {
      this.logger.warn({ op, ns, err: errorMessage(err), suppressed: this.suppressed }, 'redis cache operation failed');
      this.lastWarnAt = now;
      this.suppressed = 0;
    } else {
      this.suppressed++;
      this.logger.debug({ op, ns, err: errorMessage(err) }, 'redis cache operation failed');
    }
  }
}
