/**
 * Starts the emulated stack in-process: today the ledger node's JSON API v2 on its own port,
 * at the root path like a real participant. Used by the CLI (`emulate`) and by test suites
 * (`startEmulator()` from the package).
 *
 * LIMITATIONS (what is not emulated yet; README lists them too): one participant on one
 * synchronizer (no reassignment), no interactive (external-party) submission, no pruning, no
 * Daml-LF evaluation (templates are native TypeScript or declared).
 */
import { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { applyServerLimits } from '../http/server-limits.js';
import pino, { type Logger } from 'pino';
import { createHash } from 'node:crypto';
import type { DeclaredTemplateConfig, EmulatorConfig, EmulatorConfigInput } from '../config/schema.js';
import type { QualifiedId } from './ledger/types.js';
import { EmulatorConfigSchema } from '../config/schema.js';
import { createAuthenticator } from './ledger-api/auth.js';
import { createLedgerApiApp, ledgerApiRoutes, type LedgerApp } from './ledger-api/index.js';
import { createLedgerStreams, type LedgerStreams } from './ledger-api/websocket.js';
import { LedgerEngine } from './ledger/engine.js';
import { installAdminWorkflows } from './templates/admin-workflows/index.js';
import { seedDemoWorld, type DemoWorld, type SeededWorld } from './seed.js';
import type { Clock } from '../canton/clock.js';

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
  const config = EmulatorConfigSchema.parse(opts.config ?? {});
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

export async function startEmulator(opts: StartEmulatorOptions = {}): Promise<RunningEmulator> {
  const built = buildEmulator(opts);
  const { config } = built;
  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve({ fetch: built.app.fetch, port: config.port, hostname: config.host }, () => resolve(s));
    s.once('error', reject);
  });
  if (!(server instanceof HttpServer)) throw new Error('the ledger API is served over HTTP/1.1');
  applyServerLimits(server, {}, 'text');
  built.streams.attach(server);
  const { port } = server.address() as AddressInfo;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return {
    ...built,
    ledgerUrl: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        built.streams.close();
        server.close((err) => (err ? reject(err) : resolve()));
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}
