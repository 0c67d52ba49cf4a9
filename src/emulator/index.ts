/**
 * Starts the emulated stack in-process: today the ledger node's JSON API v2 on its own port,
 * at the root path like a real participant. Used by the CLI (`emulate`) and by test suites
 * (`startEmulator()` from the package).
 *
 * LIMITATIONS (what is not emulated yet; README lists them too): one participant on one
 * synchronizer (no reassignment), no interactive (external-party) submission, no pruning, no
 * Daml-LF evaluation (templates are native TypeScript or declared).
 */
import pino, { type Logger } from 'pino';
import { createHash } from 'node:crypto';
import type { DeclaredTemplateConfig, EmulatorConfig, EmulatorConfigInput } from '../config/schema.js';
import type { QualifiedId } from './ledger/types.js';
import { EmulatorConfigSchema } from '../config/schema.js';
import { isParsedConfig, parsedConfig } from '../config/operations.js';
import { createAuthenticator } from './ledger-api/auth.js';
import { createLedgerApiApp, ledgerApiRoutes, type LedgerApp } from './ledger-api/index.js';
import { createLedgerStreams, type LedgerStreams } from './ledger-api/websocket.js';
import { LedgerEngine } from './ledger/engine.js';
import { installAdminWorkflows } from './templates/admin-workflows/index.js';
import { seedDemoWorld, type DemoWorld, type SeededWorld } from './seed.js';
import type { Clock } from '../canton/clock.js';
import type { Listening } from '../http/listen.js';
import { gaugeOf, ServiceMetrics } from '../http/metrics.js';
import { createRequestContexts, type RequestContexts } from '../http/request-context.js';
import { startService } from '../http/service.js';

export interface StartEmulatorOptions {
  /** Parsed with the config schema: defaults fill what is left out (`auth: { mode: 'localnet' }` works). */
  config?: EmulatorConfigInput;
  clock?: Clock;
  logger?: Logger;
  /** Replace the demo world (ignored when `config.demoWorld` is false). */
  world?: DemoWorld;
}

export interface RunningEmulator {
  engine: LedgerEngine;
  app: LedgerApp;
  /** The websocket channels of the ledger API, attached to the ledger's HTTP server when listening. */
  streams: LedgerStreams;
  /** Base URL of the ledger JSON API, e.g. `http://127.0.0.1:7575`. */
  ledgerUrl: string;
  /** The demo world, when it was seeded. */
  seeded?: SeededWorld;
  close(): Promise<void>;
}

/** Builds the engine and the ledger API app without listening (for in-process use). */
export function buildEmulator(opts: StartEmulatorOptions = {}): Omit<RunningEmulator, 'ledgerUrl' | 'close'> & { config: EmulatorConfig } {
  // The CLI hands over the configuration it loaded (parsed once, frozen); library callers give input.
  const config = isParsedConfig<EmulatorConfig>(opts.config) ? opts.config : parsedConfig(EmulatorConfigSchema.parse(opts.config ?? {}));
  const logger = opts.logger ?? pino({ level: config.logLevel });
  const engine = new LedgerEngine({
    clock: opts.clock,
    seed: config.seed,
    participantName: config.participantName,
    listMaxElements: config.listMaxElements,
  });
  // What a real participant has from start, demo world or not.
  installAdminWorkflows(engine);
  for (const id of config.adminUsers) engine.users.addAdminUser(id);
  for (const t of config.declaredTemplates) {
    engine.templates.declare({
      id: qualifiedId(t),
      signatories: t.signatories,
      observers: t.observers,
      implements: t.implements.map((i) => ({ interfaceId: qualifiedId(i.interface), view: i.view })),
    });
  }
  const seeded = config.demoWorld ? seedDemoWorld(engine, opts.world ?? config.world) : undefined;
  const authenticate = config.auth.mode === 'none' ? undefined : createAuthenticator(config.auth, { engine });
  const app = createLedgerApiApp({ engine, authenticate, logger: logger.child({ module: 'ledger-api' }) }, ledgerApiRoutes);
  const streams = createLedgerStreams({ engine, authenticate, logger: logger.child({ module: 'ledger-ws' }) });
  return { engine, app, streams, seeded, config };
}

function qualifiedId(d: DeclaredTemplateConfig['implements'][number]['interface']): QualifiedId {
  const packageId = d.packageId ?? createHash('sha256').update(`declared/${d.packageName}`).digest('hex');
  return { packageId, packageName: d.packageName, moduleName: d.moduleName, entityName: d.entityName };
}

/** Serves the emulated ledger's JSON API and its websocket channels on one port, as a participant does. */
export async function serveLedger(
  built: Pick<RunningEmulator, 'app' | 'streams'>,
  opts: { port: number; host: string; logger: Logger; contexts?: RequestContexts },
): Promise<{ listening: Listening; metrics: ServiceMetrics }> {
  const metrics = new ServiceMetrics({ service: 'ledger', processMetrics: true });
  gaugeOf(metrics.registry, 'ledger_websocket_subscribers', 'Open websocket subscriptions of the ledger API', () => built.streams.size);
  const listening = await startService({
    port: opts.port,
    host: opts.host,
    handler: built.app,
    metrics,
    logger: opts.logger,
    contexts: opts.contexts ?? createRequestContexts(),
    onServer: (server) => built.streams.attach(server),
  });
  return { listening, metrics };
}

export async function startEmulator(opts: StartEmulatorOptions = {}): Promise<RunningEmulator> {
  const built = buildEmulator(opts);
  const { config } = built;
  const { listening } = await serveLedger(built, { port: config.port, host: config.host, logger: opts.logger ?? pino({ level: config.logLevel }) });
  return {
    ...built,
    ledgerUrl: listening.url,
    close: () => listening.close({ drainMs: config.shutdownDrainMs, beforeCut: () => built.streams.close() }),
  };
}
