/**
 * `serve`: the registry in production, for one instrument admin, reading the admin's own
 * participant (JSON Ledger API v2) and caching disclosed contracts in Redis when REDIS_URL is
 * set. Health: `/livez` (process up) and `/readyz` (the contract index has loaded its snapshot),
 * beside the registry paths.
 */
import { readFileSync } from 'node:fs';
import { Hono } from 'hono';
import pino, { type Logger } from 'pino';
import { z } from 'zod';
import { createCache } from './cache/index.js';
import { RegistryConfigSchema, type LedgerAuthConfig, type RegistryConfig } from './config/registry.js';
import { ConfigError } from './config/errors.js';
import { operationsFromEnv, parsedConfig } from './config/operations.js';
import { systemClock, type Clock } from './canton/clock.js';
import { noAuth, oauth2ClientCredentials, selfSignedHs256, staticToken, type TokenProvider } from './ledger/auth.js';
import { LedgerClient } from './ledger/client.js';
import { createRegistry, type Registry } from './registry/index.js';
import { builtInRecipes, declarativeRecipes } from './registry/recipes/index.js';
import { registryRequestListener, registryRouteOf } from './registry/server.js';
import { corsPolicy } from './http/cors.js';
import { cacheMetrics, indexMetrics, ledgerCallMetrics, ServiceMetrics } from './http/metrics.js';
import { createRequestContexts } from './http/request-context.js';
import { startService } from './http/service.js';
import { createProxyApp } from './proxy/index.js';
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
  if (env.LOG_LEVEL) merged.logLevel = env.LOG_LEVEL;
  if (env.AMULET_REGISTRY_COMPAT) merged.amuletCompat = env.AMULET_REGISTRY_COMPAT;
  Object.assign(merged, operationsFromEnv(env));
  const parsed = RegistryConfigSchema.safeParse(merged);
  if (!parsed.success) throw new ConfigError(`invalid registry configuration (${file}):\n${z.prettifyError(parsed.error)}`);
  return parsedConfig(parsed.data);
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

export async function startRegistry(
  config: Readonly<RegistryConfig>,
  deps: { logger?: Logger; clock?: Clock; fetch?: typeof fetch; upstreams?: Partial<UpstreamsConfig> } = {},
): Promise<RunningRegistry> {
  const logger = deps.logger ?? pino({ level: config.logLevel });
  const metrics = new ServiceMetrics({ service: 'registry', processMetrics: true });
  const contexts = createRequestContexts();
  const recipes = [...builtInRecipes({ amuletCompat: config.amuletCompat }), ...declarativeRecipes(config.recipes, logger)];
  const ledger = new LedgerClient({
    baseUrl: config.ledger.url,
    tokenProvider: tokenProviderOf(config.ledger.auth),
    timeoutMs: config.ledger.timeoutMs,
    fetch: deps.fetch,
    logger: logger.child({ module: 'ledger-client' }),
    contextHeaders: contexts.outgoingHeaders,
    onCall: ledgerCallMetrics(metrics.registry),
  });
  const cache = createCache({ redisUrl: config.redisUrl, defaultTtlSeconds: config.cacheTtlSeconds, logger: logger.child({ module: 'cache' }) });
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
  });
  indexMetrics(metrics.registry, registry.index);
  let ready = false;
  const health = new Hono();
  health.get('/livez', (c) => c.body(null, 200));
  health.get('/readyz', (c) => (ready ? c.text('ready\n', 200) : c.text("loading the admin's contracts from the ledger\n", 503)));
  // Scan and validator proxied to the admin's real ones (SCAN_UPSTREAM / VALIDATOR_UPSTREAM).
  for (const [api, mode] of [['scan', deps.upstreams?.scan], ['validator', deps.upstreams?.validator]] as const) {
    if (mode?.mode !== 'proxy') continue;
    health.route(`/api/${api}`, createProxyApp({ upstream: mode, api, mountPath: `/api/${api}`, logger }));
  }
  // The ledger's JSON API (/v2/...) forwarded to the participant (LEDGER_UPSTREAM=proxy:<url>),
  // so one host serves all a wallet needs. The registry itself reads the ledger at ledger.url.
  const ledgerMode = deps.upstreams?.ledger;
  if (ledgerMode?.mode === 'proxy') health.route('/v2', createProxyApp({ upstream: ledgerMode, api: 'ledger', mountPath: '', logger }));
  health.route('/', registry.app);
  // Listen first (liveness), then load the index; until then /readyz says 503.
  const listening = await startService({
    port: config.port,
    host: config.host,
    handler: { listener: registryRequestListener(registry.http, health), routeOf: registryRouteOf(registry.http, health) },
    metrics,
    logger,
    contexts,
    cors: corsPolicy({ origins: config.corsOrigins }),
  });
  try {
    await registry.start();
  } catch (e) {
    await listening.close({ drainMs: 0 });
    await cache.close();
    throw e;
  }
  ready = true;
  return {
    registry,
    url: listening.url,
    metrics,
    close: async () => {
      ready = false;
      await listening.close({ drainMs: config.shutdownDrainMs });
      await registry.stop();
      await cache.close();
    },
  };
}
