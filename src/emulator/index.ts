/**
 * Starts the emulated ledger in-process: each participant's JSON API v2 on its own port, at the
 * root path like a real participant (one by default; `participants: 2` adds `participant2` on the
 * same synchronizer). Used by the CLI (`emulate`) and by test suites (`startEmulator()` from the
 * package).
 *
 * LIMITATIONS (what is not emulated yet; README lists them too): one synchronizer (no
 * reassignment), at most two participants (synchronizer.ts lists what multi-hosting lacks), no
 * pruning. Templates are native TypeScript, declared, or (any uploaded DAR's, and with
 * TEMPLATE_ENGINE=daml the token ones too) run by the Daml-LF evaluator (./daml-lf, whose
 * modules state their own limits).
 */
import pino, { type Logger } from 'pino';
import { createHash, randomBytes } from 'node:crypto';
import type { EmulatorConfig, EmulatorConfigInput } from '../config/schema.js';
import type { DeclaredTemplateConfig } from './participant/options.js';
import type { QualifiedId } from './participant/types.js';
import { EmulatorConfigSchema, type ProfileName } from '../config/schema.js';
import { applyProfile } from '../config/profiles.js';
import { isParsedConfig, parsedConfig } from '../config/operations.js';
import { createAuthenticator } from './ledger-api/auth.js';
import { createLedgerApiApp, ledgerApiRoutes } from './ledger-api/routes.js';
import type { LedgerApp } from './ledger-api/route-module.js';
import { createLedgerStreams, type LedgerStreams } from './ledger-api/websocket.js';
import { LedgerEngine } from './participant/engine.js';
import { installAdminWorkflows } from './templates/admin-workflows/ping.js';
import { DEFAULT_DEMO_WORLD, seedDemoWorld, type DemoWorld, type SeededWorld } from './world/seed.js';
import { answerWhenDurable, DurableState, type StateDirIo } from './participant/durability/durable-state.js';
import { systemClock, type Clock } from '../canton/clock.js';
import { renderJsCantonError, type LedgerApiError } from '../canton/errors.js';
import { SkewedClock } from './admin/clock.js';
import type { Listening } from '../http/listen.js';
import { gaugeOf, ServiceMetrics } from '../http/metrics.js';
import type { RequestContexts } from '../http/request-context.js';
import { DEFAULT_SERVER_LIMITS } from '../http/server-limits.js';
import { startService } from '../http/service.js';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../canton/config-error.js';
import { DamlRuntime, type DamlEngineParts } from './daml-lf-bridge/daml-runtime.js';
import { installDamlTemplates } from './daml-lf-bridge/install.js';
import { LF_ENGINE } from './daml-lf-bridge/lf-engine.js';
import { TemplateRegistry } from './participant/templates.js';
import { registerTestTokenV1 } from './templates/test-token-v1/index.js';
import { registerTestTokenV2 } from './templates/test-token-v2/index.js';
import { registerAmulet } from './templates/amulet/index.js';
import { seedExampleRegistry, type ExampleRegistryWorld } from './example-registry/seed.js';

export interface StartEmulatorOptions {
  /** Parsed with the config schema: defaults fill what is left out (`auth: { mode: 'localnet' }` works). */
  config?: EmulatorConfigInput;
  /**
   * Start from a profile's defaults (`localnet`: LocalNet's topology at its addresses,
   * src/config/profiles.ts); what `config` gives explicitly wins. Same as `config.profile`.
   */
  profile?: ProfileName;
  clock?: Clock;
  logger?: Logger;
  /** Replace the demo world (ignored when `config.demoWorld` is false). */
  world?: DemoWorld;
  /** The Daml-LF decoder and evaluator (default: the emulator's own, ./daml-lf). */
  damlEngine?: DamlEngineParts;
  /** How STATE_DIR's journal writes (default node:fs; tests inject a failing disk). */
  stateDirIo?: StateDirIo;
  /**
   * Seed the world of the wallet repository's example test-token registry (its operator party and
   * TokenRules, ./example-registry). Default: when `config.exampleRegistryPort` is set.
   */
  exampleRegistry?: boolean;
}

/** One participant of the emulated synchronizer: its engine, ledger API and websocket channels. */
export interface ParticipantNode {
  engine: LedgerEngine;
  app: LedgerApp;
  /** The websocket channels of the ledger API, attached to the ledger's HTTP server when listening. */
  streams: LedgerStreams;
}

export interface RunningEmulator extends ParticipantNode {
  /** The world's durable state, with `stateDir` (STATE_DIR); servers answer after its `flush()`. */
  durable?: DurableState;
  /** Every participant, the first being this one (`engine`, `app`, `streams`); two with `participants: 2`. */
  participants: ParticipantNode[];
  /** Base URL of the ledger JSON API, e.g. `http://127.0.0.1:7575`. */
  ledgerUrl: string;
  /** Ledger API base URL of each participant, in `participants` order. */
  ledgerUrls: string[];
  /** The demo world, when it was seeded. */
  seeded?: SeededWorld;
  /** The example test-token registry's operator and user, when seeded (`exampleRegistry`). */
  exampleRegistry?: ExampleRegistryWorld;
  close(): Promise<void>;
}

/** Builds the engine and the ledger API app without listening (for in-process use). */
export function buildEmulator(
  opts: StartEmulatorOptions = {},
): Omit<RunningEmulator, 'ledgerUrl' | 'ledgerUrls' | 'close'> & {
  config: EmulatorConfig;
  clock: SkewedClock;
  /** With ledger auth: the key the emulated services sign their ledger tokens with (HS256; AuthenticatorDeps.serviceKey). */
  serviceKey?: Uint8Array;
} {
  // The CLI hands over the configuration it loaded (parsed once, frozen); library callers give input.
  const config = isParsedConfig<EmulatorConfig>(opts.config)
    ? opts.config
    : parsedConfig(EmulatorConfigSchema.parse(applyProfile(opts.profile ?? opts.config?.profile, opts.config)));
  const logger = opts.logger ?? pino({ level: config.logLevel });
  // The world's clock: the given one (wall time by default), which the admin API can move ahead.
  const clock = new SkewedClock(opts.clock ?? systemClock);
  const engine = new LedgerEngine({
    clock,
    seed: config.seed,
    participantName: config.participantName,
    participantId: config.participantId,
    synchronizerId: config.synchronizerId,
    listMaxElements: config.listMaxElements,
  });
  const engines = [engine];
  if (config.participants === 2) {
    if (config.participantName === config.participant2Name) throw new ConfigError(`PARTICIPANT_NAME must differ from PARTICIPANT2_NAME (${config.participant2Name}) when PARTICIPANTS=2`);
    if (config.participantId !== undefined && config.participantId === config.participant2Id) throw new ConfigError('PARTICIPANT_ID and PARTICIPANT2_ID must differ');
    engines.push(
      new LedgerEngine({
        synchronizer: engine.synchronizer,
        participantName: config.participant2Name,
        participantId: config.participant2Id,
        listMaxElements: config.listMaxElements,
      }),
    );
  }
  // One Daml-LF world for the synchronizer: templates of uploaded DARs without a native
  // implementation run through the evaluator (with TEMPLATE_ENGINE=daml, the token ones too).
  const daml = new DamlRuntime(opts.damlEngine ?? LF_ENGINE);
  const nativePackageIds = config.templateEngine === 'daml' ? new Set<string>() : nativeTemplatePackageIds();
  const dars = config.darsDir ? readDarsDir(config.darsDir) : [];
  if (config.templateEngine === 'daml' && !config.darsDir) {
    throw new ConfigError('TEMPLATE_ENGINE=daml needs DARS_DIR: a folder with the DARs whose templates the evaluator runs (splice-test-token-v1, -v2, splice-amulet, ...)');
  }
  for (const e of engines) {
    // What a real participant has from start, demo world or not.
    installAdminWorkflows(e);
    installDamlTemplates(e, daml, { nativePackageIds });
    for (const dar of dars) {
      try {
        e.packages.uploadDar(dar.bytes);
      } catch (err) {
        throw new ConfigError(`DARS_DIR: cannot upload ${dar.file}: ${(err as Error).message}`);
      }
    }
    for (const id of config.adminUsers) e.users.addAdminUser(id);
    for (const t of config.declaredTemplates) {
      e.templates.declare({
        id: qualifiedId(t),
        signatories: t.signatories,
        observers: t.observers,
        implements: t.implements.map((i) => ({ interfaceId: qualifiedId(i.interface), view: i.view })),
      });
    }
  }
  const others = new Map(engines.slice(1).map((e) => [e.participantName, e] as const));
  if (config.demoWorld && config.templateEngine === 'daml') requireEvaluatedTokens(engine, opts.world ?? config.world ?? DEFAULT_DEMO_WORLD);
  const seeded = config.demoWorld ? seedDemoWorld(engine, opts.world ?? config.world, others) : undefined;
  const withExampleRegistry = opts.exampleRegistry ?? config.exampleRegistryPort !== undefined;
  const exampleRegistry = withExampleRegistry ? seedExampleRegistry(engine) : undefined;
  // The other participants run the same native template implementations.
  for (const e of engines.slice(1)) e.templates.adoptNative(engine.templates);
  // With STATE_DIR, the built world's data is replaced by the saved one (its wiring stays).
  const world = opts.world ?? config.world;
  const durable = config.stateDir
    ? DurableState.open({
        dir: config.stateDir,
        synchronizer: engine.synchronizer,
        participants: engines,
        // Put back here, before the services start: nothing reads the time of the restored world first.
        clock,
        snapshotEvery: config.snapshotEvery,
        probeEveryMs: config.stateProbeEveryMs,
        io: opts.stateDirIo,
        logger: logger.child({ module: 'state-dir' }),
        identity: {
          seed: config.seed,
          participants: engines.map((e) => e.participantName).join(','),
          // Pinned ids are not derived from the seed: a saved world holds parties of those namespaces.
          ...(config.participantId || config.participant2Id || config.synchronizerId
            ? { ids: [engine.synchronizerId, ...engines.map((e) => e.participantId)].join(',') }
            : {}),
          demoWorld: config.demoWorld,
          world: createHash('sha256').update(JSON.stringify(world ?? DEFAULT_DEMO_WORLD)).digest('hex'),
          declaredTemplates: createHash('sha256').update(JSON.stringify(config.declaredTemplates)).digest('hex'),
          // only when seeded, so that the worlds saved before it existed keep their identity
          ...(withExampleRegistry ? { exampleRegistry: true } : {}),
        },
      })
    : undefined;
  // The emulated services' own ledger key (AuthenticatorDeps.serviceKey), drawn afresh each start.
  const serviceKey = config.auth.mode === 'none' ? undefined : new Uint8Array(randomBytes(32));
  const participants = engines.map((e): ParticipantNode => {
    const authenticate = config.auth.mode === 'none' ? undefined : createAuthenticator(config.auth, { engine: e, serviceKey });
    const name = e.participantName;
    const app = createLedgerApiApp({ engine: e, authenticate, logger: logger.child({ module: 'ledger-api', participant: name }) }, ledgerApiRoutes);
    const streams = createLedgerStreams({ engine: e, authenticate, logger: logger.child({ module: 'ledger-ws', participant: name }) });
    return { engine: e, app, streams };
  });
  const first = participants[0]!;
  return { ...first, participants, seeded, exampleRegistry, config, durable, clock, ...(serviceKey ? { serviceKey } : {}) };
}

/** The `*.dar` files of DARS_DIR, in file name order. */
function readDarsDir(dir: string): Array<{ file: string; bytes: Buffer }> {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.dar')).sort();
  } catch (err) {
    throw new ConfigError(`DARS_DIR: cannot read ${dir}: ${(err as Error).message}`);
  }
  return names.map((file) => ({ file, bytes: readFileSync(join(dir, file)) }));
}

/** Packages of the native template implementations (TEMPLATE_ENGINE=native keeps these native). */
function nativeTemplatePackageIds(): Set<string> {
  const scratch = new TemplateRegistry();
  registerTestTokenV1(scratch);
  registerTestTokenV2(scratch);
  registerAmulet(scratch);
  return new Set(scratch.allTemplates().map((t) => t.id.packageId));
}

/**
 * With TEMPLATE_ENGINE=daml the demo world is seeded through the evaluator: each token it uses
 * must have come from DARS_DIR as an evaluated template (else its native one would be used).
 */
function requireEvaluatedTokens(engine: LedgerEngine, world: DemoWorld): void {
  const needed = new Map<string, string>();
  for (const i of world.instruments) {
    needed.set(i.token, i.token === 'splice-test-token-v1' ? 'splice-test-token-v1:Splice.Testing.Tokens.TestTokenV1:Token' : 'splice-test-token-v2:Splice.Testing.Tokens.TestTokenV2.Holding:Token');
  }
  if (world.amulet) needed.set('splice-amulet', 'splice-amulet:Splice.Amulet:Amulet');
  for (const [pkg, key] of needed) {
    if (engine.templates.templateByNameKey(key)?.kind !== 'daml') {
      throw new ConfigError(`TEMPLATE_ENGINE=daml: the demo world uses ${pkg}, but DARS_DIR has no DAR with it`);
    }
  }
}

function qualifiedId(d: DeclaredTemplateConfig['implements'][number]['interface']): QualifiedId {
  const packageId = d.packageId ?? createHash('sha256').update(`declared/${d.packageName}`).digest('hex');
  return { packageId, packageName: d.packageName, moduleName: d.moduleName, entityName: d.entityName };
}

/** Serves the emulated ledger's JSON API and its websocket channels on one port, as a participant does. */
export async function serveLedger(
  node: Pick<ParticipantNode, 'app' | 'streams' | 'engine'>,
  opts: { port: number; host: string; logger: Logger; contexts?: RequestContexts; durable?: DurableState },
): Promise<{ listening: Listening; metrics: ServiceMetrics }> {
  const metrics = new ServiceMetrics({ service: 'ledger', processMetrics: true });
  gaugeOf(metrics.registry, 'ledger_websocket_subscribers', 'Open websocket subscriptions of the ledger API', () => node.streams.size);
  const listening = await startService({
    port: opts.port,
    host: opts.host,
    // With durable state, an answer waits until the changes it made are on disk.
    handler: { fetch: answerWhenDurable(opts.durable, node.app.fetch, (err, req) => cantonRefusal(node.engine, err, req)), router: node.app.router },
    metrics,
    logger: opts.logger,
    contexts: opts.contexts,
    // pekko-http words the errors of its parser in text/plain
    errorShape: 'text',
    // No per-address share: a client opens websocket subscriptions by the hundreds from one
    // address (the websocket bench: 1,000), and they are busy for as long as they live. Silent
    // and idle sockets are still closed or evicted for newcomers at the cap (connections.ts).
    limits: { maxConnectionsPerAddress: DEFAULT_SERVER_LIMITS.maxConnections },
    onServer: (server) => node.streams.attach(server),
  });
  return { listening, metrics };
}

/** A request refused because the node cannot persist: the JsCantonError the ledger API answers, 503 with Retry-After. */
function cantonRefusal(engine: LedgerEngine, err: LedgerApiError, req: Request): Response {
  const traceId = (req.headers.get('traceparent')?.split('-')[1] ?? engine.ids.hex(16)).toLowerCase();
  const body = renderJsCantonError(err, { participant: engine.participantName, traceId, correlationId: null });
  return Response.json(body, { status: err.httpStatus, headers: { 'retry-after': '1' } });
}

export async function startEmulator(opts: StartEmulatorOptions = {}): Promise<RunningEmulator> {
  const built = buildEmulator(opts);
  const { config } = built;
  const logger = opts.logger ?? pino({ level: config.logLevel });
  const listening: Listening[] = [];
  const closeAll = async (drainMs: number) => {
    await Promise.all(listening.map((l, i) => l.close({ drainMs, beforeCut: () => built.participants[i]!.streams.close() })));
    built.durable?.close();
  };
  try {
    for (const [i, p] of built.participants.entries()) {
      const port = i === 0 ? config.port : config.participant2Port;
      listening.push((await serveLedger(p, { port, host: config.host, logger, durable: built.durable })).listening);
    }
  } catch (e) {
    await closeAll(0);
    throw e;
  }
  const ledgerUrls = listening.map((l) => l.url);
  return { ...built, ledgerUrl: ledgerUrls[0]!, ledgerUrls, close: () => closeAll(config.shutdownDrainMs) };
}
