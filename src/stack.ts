/**
 * The emulated stack: the ledger node (JSON Ledger API v2), the instrument admin's registry,
 * Splice scan (with the Amulet registry at the root of the scan host) and the validator, each at
 * the root of its own port, so clients configured for LocalNet work by changing only host and
 * port. Registries read the emulated ledger through the same JSON API client they use against a
 * real participant (in process, through `app.request`), so every run exercises the production
 * code path (DESIGN.md). Scan and validator can each be proxied to a real upstream instead.
 */
import { Hono } from 'hono';
import pino, { type Logger } from 'pino';
import { createCache } from './cache/index.js';
import type { EmulatorConfig } from './config/schema.js';
import type { UpstreamMode } from './config/upstreams.js';
import { buildEmulator, serveLedger, type StartEmulatorOptions } from './emulator/index.js';
import type { LedgerEngine } from './emulator/participant/engine.js';
import type { LedgerApp } from './emulator/ledger-api/route-module.js';
import type { LedgerStreams } from './emulator/ledger-api/websocket.js';
import { createScanApp } from './emulator/scan/routes.js';
import { ScanService } from './emulator/scan/service.js';
import { createValidatorApp } from './emulator/validator/routes.js';
import { fromLedgerError } from './emulator/validator/errors.js';
import type { SeededWorld } from './emulator/world/seed.js';
import { answerWhenDurable, type DurableState } from './emulator/participant/durability/durable-state.js';
import { selfSignedHs256, noAuth, type TokenProvider } from './ledger-client/auth.js';
import { LedgerClient } from './ledger-client/client.js';
import { inProcessFetch } from './ledger-client/in-process.js';
import { createProxyApp } from './proxy/forward.js';
import { noSuchEndpoint } from './registry/app.js';
import { createRegistry, type Registry } from './registry/index.js';
import { amuletInstrumentConfig } from './registry/recipes/amulet.js';
import { builtInRecipes } from './registry/recipes/index.js';
import { registryHostApp } from './registry/health.js';
import { registryRequestListener, registryRouteOf } from './registry/server.js';
import type { Cache } from './cache/cache.js';
import { corsPolicy, type CorsPolicy } from './http/cors.js';
import { isAddressInUse, PortInUseError, type Listening } from './http/listen.js';
import { portInUseMessage } from './config/profiles.js';
import { ServiceMetrics } from './http/metrics.js';
import { cacheMetrics } from './cache/metrics.js';
import { indexMetrics } from './contracts/metrics.js';
import { ledgerCallMetrics } from './ledger-client/metrics.js';
import { startService, type ServiceOptions } from './http/service.js';
import type { InstrumentConfig } from './registry/instrument-config.js';
import type { Clock } from './canton/clock.js';
import { LedgerApiError } from './canton/errors.js';
import { AdminService, type Funded, type Holdings, type Minted } from './emulator/admin/service.js';
import { createAdminApp } from './emulator/admin/routes.js';
import { LiveEvents } from './emulator/admin/live-events.js';
import { RequestLog } from './emulator/admin/request-log.js';
import { WorldView } from './emulator/admin/world-view.js';
import type { SkewedClock } from './emulator/admin/clock.js';
import { explorerPage } from './emulator/explorer/page.js';
import { createAuthenticator } from './emulator/ledger-api/auth.js';
import { exampleRegistryInstrumentConfigs } from './emulator/example-registry/metadata.js';
import { createExampleRegistryHost } from './emulator/example-registry/routes.js';
import { exampleRegistryRecipes } from './emulator/example-registry/service.js';
import type { Recipe } from './registry/recipes/recipe.js';

export interface StackOptions extends StartEmulatorOptions {
  /** Registry port (default 7576; 0 picks a free one). */
  registryPort?: number;
  scanPort?: number;
  validatorPort?: number;
  /** Redis for the registries' caches; in memory when absent. */
  redisUrl?: string;
  /**
   * Admin API port (0 picks a free one). Default: `config.adminPort` (ADMIN_PORT, 7580), or a free
   * one when the ledger's port is 0 and `config.adminPort` was not given (a suite that asks for free
   * ports gets one for the admin API too, without naming it).
   */
  adminPort?: number;
  /** Emulate (default) or proxy scan and validator. */
  upstreams?: { scan?: UpstreamMode; validator?: UpstreamMode };
  /**
   * Port of the emulated example test-token registry of the wallet repository (0 picks a free one;
   * LocalNet's is 5634, `LOCALNET_PORTS.exampleRegistry`). Default: `config.exampleRegistryPort`
   * (EXAMPLE_REGISTRY_PORT); unset: not started.
   */
  exampleRegistryPort?: number;
}

/** One participant of the emulated synchronizer, as the stack serves it. */
export interface StackParticipant {
  participantId: string;
  engine: LedgerEngine;
  ledgerUrl: string;
  ledgerStreams: LedgerStreams;
}

export interface RunningStack {
  engine: LedgerEngine;
  ledgerUrl: string;
  /** Every participant (the first is `engine` at `ledgerUrl`); two with `config.participants: 2` (PARTICIPANTS=2). */
  participants: StackParticipant[];
  /** The world's durable state (STATE_DIR), when kept across restarts. */
  durable?: DurableState;
  /** The ledger's websocket channels (served on `ledgerUrl` with `ws://`). */
  ledgerStreams: LedgerStreams;
  /** The demo admin's registry, when the demo world has instruments. */
  registryUrl?: string;
  registry?: Registry;
  /** Scan base URL: `/api/scan/...` and the Amulet registry `/registry/...` live under it. */
  scanUrl?: string;
  scan?: ScanService;
  amuletRegistry?: Registry;
  /** Validator base URL: `/api/validator/...` lives under it. */
  validatorUrl?: string;
  /** The example test-token registry (`exampleRegistryPort`): its base URL, operator party and registry. */
  exampleRegistry?: { url: string; admin: string; registry: Registry };
  seeded?: SeededWorld;
  /** Admin API base URL: `/admin/v1/...` and `/admin/openapi.json` live under it. */
  adminUrl: string;
  /** What the admin API serves, in process. */
  admin: AdminService;
  /** The world's clock (the given clock, or wall time, plus what the admin API advanced it by). */
  clock: SkewedClock;
  /** Saves the whole world in memory; returns the snapshot's id. */
  snapshot(): string;
  /** Puts the world back as it was at snapshot `id` (open ledger streams end; registries reload). */
  restore(id: string): Promise<void>;
  /** Puts the world back as the stack started it. */
  reset(): Promise<void>;
  /** Moves ledger time forward by `seconds`; returns the new time. */
  advanceClock(seconds: number): string;
  /** Mints `amount` of a seeded instrument (`TT1`, `TT2-USD`, ..., `Amulet`) to `owner` (party id or seeded name). */
  mint(req: { instrument: string; owner: string; amount: string }): Minted;
  /** Tops `owner` up to at least `atLeast` of the instrument. */
  fund(req: { owner: string; instrument: string; atLeast: string }): Funded;
  /** A party's balances per instrument and the holdings behind them. */
  holdings(party: string): Holdings;
  close(): Promise<void>;
}

/**
 * The token a registry reads the emulated ledger with (the admin's own user), signed with the
 * stack's own service key, which the emulated ledger trusts beside its configured key sources
 * (AuthenticatorDeps.serviceKey): so a ledger that only knows an OAuth2 server's JWKS still serves
 * the registries. It carries the configured target audience or scope, as the ledger requires of
 * every token. Minted at the world's time, which the emulated ledger checks tokens against: after
 * the admin API moves the clock ahead, the registries' tokens are still valid.
 */
function tokenFor(config: EmulatorConfig, serviceKey: Uint8Array | undefined, user: string, clock: Clock): TokenProvider {
  if (config.auth.mode === 'none' || serviceKey === undefined) return noAuth;
  return selfSignedHs256({
    secret: serviceKey,
    userId: user,
    audience: config.auth.targetAudience,
    scope: config.auth.targetScope,
    now: () => Number(clock.nowMicros() / 1000n),
  });
}

/** A ledger client reading the emulated ledger in process. */
function inProcessLedger(app: LedgerApp, tokenProvider: TokenProvider, logger: Logger, metrics: ServiceMetrics): LedgerClient {
  return new LedgerClient({
    baseUrl: 'http://emulated-ledger',
    tokenProvider,
    fetch: inProcessFetch(app),
    logger: logger.child({ module: 'ledger-client' }),
    onCall: ledgerCallMetrics(metrics.registry),
  });
}

export async function startStack(opts: StackOptions = {}): Promise<RunningStack> {
  const built = buildEmulator(opts.exampleRegistryPort === undefined ? opts : { ...opts, exampleRegistry: true });
  const { config, engine } = built;
  const logger: Logger = opts.logger ?? pino({ level: config.logLevel });
  const cors = corsPolicy({ origins: config.corsOrigins });
  // Scan's own API answers CORS itself (any origin, as Splice's scan does); CORS_ORIGINS is for
  // the registry, which the scan host serves at its root.
  const scanHostCors: CorsPolicy | undefined = cors && { decide: (method, path, headers) => (path.startsWith('/api/scan') ? undefined : cors.decide(method, path, headers)) };
  const servers: Array<{ listening: Listening; beforeCut?: () => void; beforeClose?: () => void }> = [];
  // What the registry, scan and validator were asked lately (the explorer lists it).
  const requestLog = new RequestLog();
  const registries: Registry[] = [];
  const caches: Cache[] = [];
  // Every server bounds what it reads (listen applies src/http/server-limits.ts); their APIs answer JSON errors.
  // A port already taken is one clear error naming it (under a profile, with what it likely means).
  const bound = async <T>(port: number, start: () => Promise<T>): Promise<T> => {
    try {
      return await start();
    } catch (err) {
      if (isAddressInUse(err)) throw new PortInUseError(port, portInUseMessage(port, config.profile));
      throw err;
    }
  };
  const serve = (o: Omit<ServiceOptions, 'logger' | 'contexts' | 'host'>) => bound(o.port, () => startService({ ...o, host: config.host, logger }));
  const newRegistry = async (admin: string, user: string, instruments: InstrumentConfig[], metrics: ServiceMetrics, recipes?: Recipe[]) => {
    const cache = createCache({ redisUrl: opts.redisUrl, keyPrefix: `token-registry:${user}`, defaultTtlSeconds: 3600, logger: logger.child({ module: 'cache' }) });
    caches.push(cache);
    cacheMetrics(metrics.registry, cache);
    const r = createRegistry({
      admin,
      instruments,
      recipes: recipes ?? builtInRecipes({ amuletCompat: config.amuletRegistryCompat }),
      ledger: inProcessLedger(built.app, tokenFor(config, built.serviceKey, user, engine.clock), logger, metrics),
      cache,
      clock: engine.clock,
      logger,
      pollIdleMs: 50,
      ledgerEndHint: () => engine.readableEnd(),
    });
    indexMetrics(metrics.registry, r.index);
    await r.start();
    registries.push(r);
    return r;
  };
  const close = async (drainMs: number) => {
    // Stop accepting everywhere and drain in parallel; then the registries' index tails, the
    // caches (Redis connections) and, through beforeCut, the ledger's websockets.
    // Open-ended answers (the explorer's event streams) end first, so the drain does not wait for them.
    for (const s of servers) s.beforeClose?.();
    await Promise.all(servers.map((s) => s.listening.close({ drainMs, beforeCut: s.beforeCut })));
    for (const r of registries) await r.stop();
    for (const c of caches) await c.close();
    // A final snapshot once no server takes requests.
    built.durable?.close();
  };

  try {
    // The ledger's websocket channels share its HTTP server, as on a participant.
    const participants: StackParticipant[] = [];
    for (const [i, p] of built.participants.entries()) {
      const port = i === 0 ? config.port : config.participant2Port;
      const ledger = await bound(port, () => serveLedger(p, { port, host: config.host, logger, durable: built.durable }));
      servers.push({ listening: ledger.listening, beforeCut: () => p.streams.close() });
      participants.push({ participantId: p.engine.participantId, engine: p.engine, ledgerUrl: ledger.listening.url, ledgerStreams: p.streams });
    }
    const seeded = built.seeded;
    const userOf = (party: string) => seeded!.parties.find((p) => p.party === party)!.userId;

    // The demo admin's token-standard registry.
    let registry: Registry | undefined;
    let registryUrl: string | undefined;
    const first = seeded?.instruments[0];
    if (seeded && first) {
      const admin = first.adminParty;
      const instruments: InstrumentConfig[] = seeded.instruments
        .filter((i) => i.adminParty === admin)
        .map((i) => ({ id: i.id, name: i.name, symbol: i.symbol, decimals: i.decimals, recipe: i.token, totalSupply: 'ledger' }));
      const metrics = new ServiceMetrics({ service: 'registry' });
      registry = await newRegistry(admin, userOf(admin), instruments, metrics);
      // the probes of `serve` too, so a deployment's health checks work against either
      const host = registryHostApp(registry.index, registry.app);
      const s = await serve({
        port: opts.registryPort ?? config.registryPort,
        handler: requestLog.recording('registry', { listener: registryRequestListener(registry.http, host), routeOf: registryRouteOf(registry.http, host) }),
        metrics,
        cors,
      });
      servers.push({ listening: s });
      registryUrl = s.url;
    }

    // The wallet repository's example test-token registry (LocalNet's localhost:5634).
    let exampleRegistry: RunningStack['exampleRegistry'];
    const exampleRegistryPort = opts.exampleRegistryPort ?? config.exampleRegistryPort;
    if (built.exampleRegistry && exampleRegistryPort !== undefined) {
      const { operator, userId } = built.exampleRegistry;
      const metrics = new ServiceMetrics({ service: 'example-registry' });
      const r = await newRegistry(operator, userId, exampleRegistryInstrumentConfigs(), metrics, exampleRegistryRecipes());
      const durable = built.durable;
      const host = createExampleRegistryHost({ engine, world: built.exampleRegistry, registry: r, flush: durable && (() => durable.flush()) });
      const s = await serve({
        port: exampleRegistryPort,
        handler: { listener: registryRequestListener(r.http, host), routeOf: registryRouteOf(r.http, host) },
        metrics,
        cors,
      });
      servers.push({ listening: s });
      exampleRegistry = { url: s.url, admin: operator, registry: r };
    }

    // Scan (and the Amulet registry at the root of its host), emulated or proxied.
    let scan: ScanService | undefined;
    let amuletRegistry: Registry | undefined;
    let scanUrl: string | undefined;
    const scanMode = opts.upstreams?.scan ?? { mode: 'emulate' };
    const scanPort = opts.scanPort ?? config.scanPort;
    if (scanMode.mode === 'proxy') {
      const host = new Hono();
      host.route('/api/scan', createProxyApp({ upstream: scanMode, api: 'scan', mountPath: '/api/scan', logger }));
      // Scan serves the Amulet registry at the root of its host: forward /registry/... there too.
      const root = scanMode.url.replace(/\/api\/scan$/, '');
      if (root !== scanMode.url) {
        host.route('/', createProxyApp({ upstream: { ...scanMode, url: root }, api: 'scan', mountPath: '', logger }));
      }
      const s = await serve({ port: scanPort, handler: requestLog.recording('scan', host), metrics: new ServiceMetrics({ service: 'scan' }), cors: scanHostCors });
      servers.push({ listening: s });
      scanUrl = s.url;
    } else if (seeded?.amulet) {
      const dso = seeded.amulet.dso;
      scan = new ScanService({ engine, dsoParty: dso, instanceNames: config.instanceNames, logger: logger.child({ module: 'scan' }) });
      const scanApp = createScanApp({ service: scan, logger });
      const metrics = new ServiceMetrics({ service: 'scan' });
      amuletRegistry = await newRegistry(dso, userOf(dso), [{ ...amuletInstrumentConfig({ name: config.instanceNames.amuletName, symbol: config.instanceNames.amuletNameAcronym }), totalSupply: 'ledger' }], metrics);
      const host = new Hono();
      host.route('/', scanApp);
      host.route('/', amuletRegistry.app);
      host.notFound((c) => (c.req.path.startsWith('/api/scan') ? c.json({ error: `The requested resource could not be found: ${c.req.url}` }, 404) : noSuchEndpoint(c)));
      const s = await serve({
        port: scanPort,
        handler: requestLog.recording('scan', { listener: registryRequestListener(amuletRegistry.http, host), routeOf: registryRouteOf(amuletRegistry.http, host) }),
        metrics,
        cors: scanHostCors,
      });
      servers.push({ listening: s });
      scanUrl = s.url;
    }

    // The validator (wallet, scan-proxy with the Amulet registry), emulated or proxied.
    let validatorUrl: string | undefined;
    const validatorMode = opts.upstreams?.validator ?? { mode: 'emulate' };
    const validatorPort = opts.validatorPort ?? config.validatorPort;
    if (validatorMode.mode === 'proxy') {
      const proxy = createProxyApp({ upstream: validatorMode, api: 'validator', mountPath: '/api/validator', logger });
      const s = await serve({ port: validatorPort, handler: requestLog.recording('validator', proxy), metrics: new ServiceMetrics({ service: 'validator' }) });
      servers.push({ listening: s });
      validatorUrl = s.url;
    } else if (seeded?.amulet) {
      if (!scan) {
        throw new Error('an emulated validator needs the emulated scan: set VALIDATOR_UPSTREAM=proxy:<url> too when scan is proxied');
      }
      const validatorApp = createValidatorApp({
        engine,
        dso: seeded.amulet.dso,
        scan,
        registryApp: amuletRegistry?.app,
        validatorParty: seeded.amulet.validator,
        validatorUser: seeded.amulet.validatorUser,
        auth: config.validatorAuth,
        logger: logger.child({ module: 'validator' }),
      });
      const s = await serve({
        port: validatorPort,
        // A refusal of the ledger (STATE_DIR cannot be written) as the validator answers ledger errors.
        handler: requestLog.recording('validator', {
          fetch: answerWhenDurable(built.durable, validatorApp.fetch, (err) => {
            const e = fromLedgerError(err);
            return Response.json({ error: e.message }, { status: e.status, headers: { 'retry-after': '1' } });
          }),
          router: validatorApp.router,
        }),
        metrics: new ServiceMetrics({ service: 'validator' }),
      });
      servers.push({ listening: s });
      validatorUrl = s.url;
    }

    // The admin API (emulate only): snapshots, restore, reset, clock, mint, fund, holdings; and
    // the explorer (its web page at the root, its reads and live feed under /admin/v1).
    let live: LiveEvents | undefined;
    const admin = new AdminService({
      world: { synchronizer: engine.synchronizer, participants: built.participants.map((p) => p.engine), clock: built.clock, scan: scan?.store },
      seeded,
      afterRestore: async () => {
        // The ledger a stream followed was replaced: end it as a participant that goes away does.
        const replaced = new LedgerApiError('SERVICE_NOT_RUNNING', 'The emulated ledger was restored to a snapshot; subscribe again from the current ledger end');
        for (const p of built.participants) p.streams.endAll(replaced);
        await Promise.all(registries.map((r) => r.reload('the emulated world was restored to a snapshot')));
        // With STATE_DIR, the journal describes the replaced world: save the restored one instead.
        built.durable?.compact();
      },
      onWorldChange: (change) => live?.worldChanged(change),
    });
    const engines = built.participants.map((p) => p.engine);
    const view = new WorldView({
      synchronizer: engine.synchronizer,
      participants: engines,
      seeded,
      instruments: () => admin.instruments(),
      resolveParty: (p) => admin.resolveParty(p),
    });
    live = new LiveEvents({ participants: engines, view, requests: requestLog });
    const liveEvents = live;
    const adminApp = createAdminApp({
      service: admin,
      authenticate: config.auth.mode === 'none' ? undefined : createAuthenticator(config.auth, { engine }),
      logger: logger.child({ module: 'admin' }),
      view,
      live,
      requests: requestLog,
      page: explorerPage(),
    });
    const adminServer = await serve({
      port: opts.adminPort ?? (config.port === 0 && opts.config?.adminPort === undefined ? 0 : config.adminPort),
      handler: { fetch: answerWhenDurable(built.durable, adminApp.fetch), router: adminApp.router },
      metrics: new ServiceMetrics({ service: 'admin' }),
    });
    servers.push({ listening: adminServer, beforeClose: () => liveEvents.closeAll() });

    return {
      engine,
      ledgerUrl: participants[0]!.ledgerUrl,
      adminUrl: adminServer.url,
      admin,
      clock: built.clock,
      snapshot: () => admin.snapshot().id,
      restore: async (id) => {
        await admin.restore(id);
      },
      reset: async () => {
        await admin.reset();
      },
      advanceClock: (seconds) => admin.advanceClock(seconds).now,
      mint: (req) => admin.mint(req),
      fund: (req) => admin.fund(req),
      holdings: (party) => admin.holdings(party),
      participants,
      durable: built.durable,
      ledgerStreams: built.streams,
      validatorUrl,
      exampleRegistry,
      registryUrl,
      registry,
      scanUrl,
      scan,
      amuletRegistry,
      seeded,
      close: () => close(config.shutdownDrainMs),
    };
  } catch (e) {
    await close(0);
    throw e;
  }
}
