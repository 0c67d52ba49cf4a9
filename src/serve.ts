/**
 * `serve`: the registry in production, for one instrument admin, reading the admin's own
 * participant (JSON Ledger API v2) and caching disclosed contracts in Redis when REDIS_URL is
 * set. Health: `/livez` (process up) and `/readyz` (200 only while the contract index is ready:
 * 503 while it loads or reloads its snapshot and while the ledger cannot be read), beside the
 * registry paths.
 *
 * Start-up: the server listens at once; the first snapshot is retried with backoff until the
 * ledger answers. Credentials the ledger or its identity provider rejects are a configuration
 * error: `startRegistry` rejects with a ConfigError (first load), or `onFatal` is called (later).
 */
import { readFileSync } from 'node:fs';
import { Hono } from 'hono';
import pino, { type Logger } from 'pino';
import { createCache } from './cache/index.js';
import { RegistryConfigSchema, type LedgerAuthConfig, type RegistryConfig } from './config/registry.js';
import { ConfigError, zodProblems } from './canton/config-error.js';
import { operationsFromEnv, parsedConfig } from './config/operations.js';
import { systemClock, type Clock } from './canton/clock.js';
import { noAuth, oauth2ClientCredentials, selfSignedHs256, staticToken, type TokenProvider } from './ledger-client/auth.js';
import { LedgerClient } from './ledger-client/client.js';
import { pollingUpdates, preferWebSocket, webSocketUpdates } from './ledger-client/update-stream.js';
import { LedgerError, LedgerUnavailableError } from './ledger-client/errors.js';
import type { ContractIndexOptions } from './contracts/index-options.js';
import { createRegistry, type Registry } from './registry/index.js';
import { BUILT_IN_RECIPE_NAMES, builtInRecipes, checkInstrumentRecipes, declarativeRecipes, resolveDeclarativeRecipes } from './registry/recipes/index.js';
import { RateLimiter } from './http/rate-limit.js';
import { registryHostApp } from './registry/health.js';
import { registryRequestListener, registryRouteOf } from './registry/server.js';
import { corsPolicy } from './http/cors.js';
import { ServiceMetrics } from './http/metrics.js';
import { cacheMetrics } from './cache/metrics.js';
import { indexMetrics } from './contracts/metrics.js';
import { ledgerCallMetrics } from './ledger-client/metrics.js';
import { startService } from './http/service.js';
import { createProxyApp } from './proxy/forward.js';
import type { UpstreamsConfig } from './config/upstreams.js';

type Env = Record<string, string | undefined>;

/** Reads REGISTRY_CONFIG_FILE (JSON) and applies the environment overrides; clear errors. */
export function loadRegistryConfig(env: Env = process.env): Readonly<RegistryConfig> {
  const file = env.REGISTRY_CONFIG_FILE;
  if (!file) throw new ConfigError('REGISTRY_CONFIG_FILE is not set: point it at the registry configuration (JSON)');
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (e) {
    throw new ConfigError(`REGISTRY_CONFIG_FILE ${file}: ${(e as Error).message}`);
  }
  const ledger = { ...((raw.ledger as Record<string, unknown> | undefined) ?? {}) };
  if (env.LEDGER_URL) ledger.url = env.LEDGER_URL;
  if (env.LEDGER_TOKEN) ledger.auth = { kind: 'static', token: env.LEDGER_TOKEN };
  if (env.LEDGER_OAUTH2_CLIENT_SECRET && ledger.auth && (ledger.auth as { kind?: string }).kind === 'oauth2') {
    ledger.auth = { ...(ledger.auth as object), clientSecret: env.LEDGER_OAUTH2_CLIENT_SECRET };
  }
  const merged: Record<string, unknown> = { ...raw, ledger };
  if (env.PORT) merged.port = Number(env.PORT);
  if (env.HOST) merged.host = env.HOST;
  if (env.REDIS_URL) merged.redisUrl = env.REDIS_URL;
  if (env.REDIS_COMMAND_TIMEOUT_MS) merged.redis = { ...((raw.redis as Record<string, unknown> | undefined) ?? {}), commandTimeoutMs: Number(env.REDIS_COMMAND_TIMEOUT_MS) };
  if (env.LOG_LEVEL) merged.logLevel = env.LOG_LEVEL;
  if (env.AMULET_REGISTRY_COMPAT) merged.amuletCompat = env.AMULET_REGISTRY_COMPAT;
  merged.limits = limitsFromEnv(raw.limits, env);
  Object.assign(merged, operationsFromEnv(env));
  return parseRegistryConfig(merged);
}

/**
 * Validates a registry configuration document, its declarative recipes and the recipe each
 * instrument names: every problem at once, each `<path>: <what>` (a ConfigError), so that no
 * request is ever served from a half-valid configuration.
 */
export function parseRegistryConfig(doc: unknown): Readonly<RegistryConfig> {
  const parsed = RegistryConfigSchema.safeParse(doc);
  if (!parsed.success) throw new ConfigError(zodProblems(parsed.error));
  const config = parsedConfig(parsed.data);
  const { recipes } = resolveDeclarativeRecipes(config.recipes);
  checkInstrumentRecipes(config.instruments, [...BUILT_IN_RECIPE_NAMES, ...recipes.map((r) => r.name)]);
  return config;
}

/** RATE_LIMIT_RPS (0 = off), RATE_LIMIT_BURST, MAX_BODY_BYTES, MAX_CONNECTIONS and MAX_CONNECTIONS_PER_ADDRESS override `limits` of the file. */
function limitsFromEnv(fromFile: unknown, env: Env): Record<string, unknown> {
  const limits: Record<string, unknown> = { ...((fromFile as Record<string, unknown> | undefined) ?? {}) };
  const rateLimit: Record<string, unknown> = { ...((limits.rateLimit as Record<string, unknown> | undefined) ?? {}) };
  if (env.RATE_LIMIT_RPS) rateLimit.requestsPerSecond = Number(env.RATE_LIMIT_RPS);
  if (env.RATE_LIMIT_BURST) rateLimit.burst = Number(env.RATE_LIMIT_BURST);
  if (env.MAX_BODY_BYTES) limits.maxBodyBytes = Number(env.MAX_BODY_BYTES);
  if (env.MAX_CONNECTIONS) limits.maxConnections = Number(env.MAX_CONNECTIONS);
  if (env.MAX_CONNECTIONS_PER_ADDRESS) limits.maxConnectionsPerAddress = Number(env.MAX_CONNECTIONS_PER_ADDRESS);
  limits.rateLimit = rateLimit;
  return limits;
}

export function tokenProviderOf(auth: LedgerAuthConfig): TokenProvider {
  switch (auth.kind) {
    case 'none':
      return noAuth;
    case 'static':
      return staticToken(auth.token);
    case 'oauth2':
      return oauth2ClientCredentials(auth);
    case 'hs256':
      return selfSignedHs256(auth);
  }
}

export interface RunningRegistry {
  registry: Registry;
  url: string;
  /** This service's Prometheus metrics (served at `/metrics`). */
  metrics: ServiceMetrics;
  /** Stops accepting, drains requests in flight (at most `shutdownDrainMs`), then closes the index and the cache. */
  close(): Promise<void>;
}

/** What to tell the operator when the ledger or identity provider rejects the credentials. */
export function credentialsRejected(err: Error, config: RegistryConfig): ConfigError {
  if (err instanceof LedgerError && err.status === 401) {
    return new ConfigError(`the ledger node ${config.ledger.url} rejected the registry's access token (401 ${err.code}): check ledger.auth`);
  }
  if (err instanceof LedgerError && err.status === 403) {
    return new ConfigError(
      `the ledger node ${config.ledger.url} refused the registry's user access to the admin party's contracts (403 ${err.code}): ` +
        `the user needs CanReadAs (or CanActAs) ${config.adminParty}`,
    );
  }
  if (err instanceof LedgerUnavailableError) return new ConfigError(`${err.message}: check ledger.auth`);
  return new ConfigError(err.message);
}

export async function startRegistry(
  config: Readonly<RegistryConfig>,
  deps: {
    logger?: Logger;
    clock?: Clock;
    fetch?: typeof fetch;
    upstreams?: Partial<UpstreamsConfig>;
    /**
     * The ledger rejected the credentials after start-up (e.g. a rotated secret): the registry is
     * no use any more. Default: logged, and the server closed.
     */
    onFatal?: (err: ConfigError) => void;
    /** Overrides of how the index follows the ledger (tests shorten the identity check). */
    follow?: Pick<ContractIndexOptions, 'identityCheckMs' | 'backoffMs' | 'updates'>;
  } = {},
): Promise<RunningRegistry> {
  const logger = deps.logger ?? pino({ level: config.logLevel });
  const metrics = new ServiceMetrics({ service: 'registry', processMetrics: true });
  const recipes = [...builtInRecipes({ amuletCompat: config.amuletCompat }), ...declarativeRecipes(config.recipes, logger)];
  // Before anything is opened (cache, listener): a configuration built in code gets the same checks.
  checkInstrumentRecipes(config.instruments, recipes.map((r) => r.name));
  const tokenProvider = tokenProviderOf(config.ledger.auth);
  const ledger = new LedgerClient({
    baseUrl: config.ledger.url,
    tokenProvider,
    timeoutMs: config.ledger.timeoutMs,
    fetch: deps.fetch,
    logger: logger.child({ module: 'ledger-client' }),
    onCall: ledgerCallMetrics(metrics.registry),
  });
  const cache = createCache({ redisUrl: config.redisUrl, defaultTtlSeconds: config.cacheTtlSeconds, logger: logger.child({ module: 'cache' }), redis: config.redis });
  let close: () => Promise<void> = async () => undefined;
  cacheMetrics(metrics.registry, cache);
  const registry = createRegistry({
    admin: config.adminParty,
    instruments: config.instruments,
    recipes,
    ledger,
    cache,
    clock: deps.clock ?? systemClock,
    logger,
    basePath: config.basePath,
    cacheTtlSeconds: config.cacheTtlSeconds,
    follow: {
      backoffMs: { initial: 200, max: 5_000 },
      // The index follows the websocket update stream: a transaction reaches it as the node
      // emits it, where long polls lag a busy ledger by seconds (ledger-client/update-stream.ts).
      updates: preferWebSocket({
        webSocket: webSocketUpdates({ baseUrl: config.ledger.url, tokenProvider, logger: logger.child({ module: 'update-stream' }) }),
        poll: pollingUpdates({ ledger }),
        logger: logger.child({ module: 'update-stream' }),
      }),
      ...deps.follow,
      onFatal: (err) => {
        const fatal = credentialsRejected(err, config);
        logger.fatal({ err: fatal.message }, 'configuration error; the registry stops');
        if (deps.onFatal) deps.onFatal(fatal);
        else void close();
      },
    },
    limits: config.limits,
  });
  indexMetrics(metrics.registry, registry.index);
  // Scan and validator proxied to the admin's real ones (SCAN_UPSTREAM / VALIDATOR_UPSTREAM);
  // the ledger's JSON API (/v2/...) forwarded to the participant (LEDGER_UPSTREAM=proxy:<url>),
  // so one host serves all a wallet needs. The registry itself reads the ledger at ledger.url.
  const mounted: Array<[string, Hono]> = [];
  for (const [api, mode] of [['scan', deps.upstreams?.scan], ['validator', deps.upstreams?.validator]] as const) {
    if (mode?.mode !== 'proxy') continue;
    mounted.push([`/api/${api}`, createProxyApp({ upstream: mode, api, mountPath: `/api/${api}`, logger })]);
  }
  const ledgerMode = deps.upstreams?.ledger;
  if (ledgerMode?.mode === 'proxy') mounted.push(['/v2', createProxyApp({ upstream: ledgerMode, api: 'ledger', mountPath: '', logger })]);
  const host = registryHostApp(registry.index, registry.app, mounted);
  // Listen first (liveness), then load the index; until then /readyz says 503.
  const { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs, maxConnections, maxConnectionsPerAddress, rateLimit } = config.limits;
  const listening = await startService({
    port: config.port,
    host: config.host,
    handler: { listener: registryRequestListener(registry.http, host, new RateLimiter(rateLimit)), routeOf: registryRouteOf(registry.http, host) },
    metrics,
    logger,
    cors: corsPolicy({ origins: config.corsOrigins }),
    limits: { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs, maxConnections, maxConnectionsPerAddress },
  });
  let closed = false;
  close = async () => {
    if (closed) return;
    closed = true;
    await listening.close({ drainMs: config.shutdownDrainMs });
    await registry.stop();
    await cache.close();
  };
  try {
    await registry.start();
  } catch (err) {
    await close();
    throw credentialsRejected(err as Error, config);
  }
  return { registry, url: listening.url, metrics, close };
}
