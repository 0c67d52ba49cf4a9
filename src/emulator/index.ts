/**
 * Starts the emulated ledger in-process: each participant's JSON API v2 on its own port, at the
 * root path like a real participant (one by default; `participants: 2` adds `participant2` on the
 * same synchronizer). Used by the CLI (`emulate`) and by test suites (`startEmulator()` from the
 * package).
 *
 * LIMITATIONS (what is not emulated yet; README lists them too): one synchronizer (no
 * reassignment), at most two participants (synchronizer.ts lists what multi-hosting lacks), no
 * pruning, no Daml-LF evaluation (templates are native TypeScript or declared).
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
import { DEFAULT_DEMO_WORLD, seedDemoWorld, type DemoWorld, type SeededWorld } from './seed.js';
import { answerWhenDurable, DurableState } from './ledger/durability/durable-state.js';
import type { Clock } from '../canton/clock.js';

export interface StartEmulatorOptions {
  /** Parsed with the config schema: defaults fill what is left out (`auth: { mode: 'localnet' }` works). */
  config?: EmulatorConfigInput;
  clock?: Clock;
  logger?: Logger;
  /** Replace the demo world (ignored when `config.demoWorld` is false). */
  world?: DemoWorld;
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
  close(): Promise<void>;
}

/** Builds the engine and the ledger API app without listening (for in-process use). */
export function buildEmulator(opts: StartEmulatorOptions = {}): Omit<RunningEmulator, 'ledgerUrl' | 'ledgerUrls' | 'close'> & { config: EmulatorConfig } {
  const config = EmulatorConfigSchema.parse(opts.config ?? {});
  const logger = opts.logger ?? pino({ level: config.logLevel });
  const engine = new LedgerEngine({
    clock: opts.clock,
    seed: config.seed,
    participantName: config.participantName,
    listMaxElements: config.listMaxElements,
  });
  const engines = [engine];
  if (config.participants === 2) {
    if (config.participantName === 'participant2') throw new Error('PARTICIPANT_NAME must differ from participant2 when PARTICIPANTS=2');
    engines.push(new LedgerEngine({ synchronizer: engine.synchronizer, participantName: 'participant2', listMaxElements: config.listMaxElements }));
  }
  for (const e of engines) {
    // What a real participant has from start, demo world or not.
    installAdminWorkflows(e);
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
  const seeded = config.demoWorld ? seedDemoWorld(engine, opts.world ?? config.world, others) : undefined;
  // The other participants run the same native template implementations.
  for (const e of engines.slice(1)) e.templates.adoptNative(engine.templates);
  // With STATE_DIR, the built world's data is replaced by the saved one (its wiring stays).
  const world = opts.world ?? config.world;
  const durable = config.stateDir
    ? DurableState.open({
        dir: config.stateDir,
        synchronizer: engine.synchronizer,
        participants: engines,
        snapshotEvery: config.snapshotEvery,
        identity: {
          seed: config.seed,
          participants: engines.map((e) => e.participantName).join(','),
          demoWorld: config.demoWorld,
          world: createHash('sha256').update(JSON.stringify(world ?? DEFAULT_DEMO_WORLD)).digest('hex'),
          declaredTemplates: createHash('sha256').update(JSON.stringify(config.declaredTemplates)).digest('hex'),
        },
      })
    : undefined;
  const participants = engines.map((e): ParticipantNode => {
    const authenticate = config.auth.mode === 'none' ? undefined : createAuthenticator(config.auth, { engine: e });
    const name = e.participantName;
    const app = createLedgerApiApp({ engine: e, authenticate, logger: logger.child({ module: 'ledger-api', participant: name }) }, ledgerApiRoutes);
    const streams = createLedgerStreams({ engine: e, authenticate, logger: logger.child({ module: 'ledger-ws', participant: name }) });
    return { engine: e, app, streams };
  });
  const first = participants[0]!;
  return { ...first, participants, seeded, config, durable };
}

function qualifiedId(d: DeclaredTemplateConfig['implements'][number]['interface']): QualifiedId {
  const packageId = d.packageId ?? createHash('sha256').update(`declared/${d.packageName}`).digest('hex');
  return { packageId, packageName: d.packageName, moduleName: d.moduleName, entityName: d.entityName };
}

export async function startEmulator(opts: StartEmulatorOptions = {}): Promise<RunningEmulator> {
  const built = buildEmulator(opts);
  const { config } = built;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const listening: Array<{ url: string; close(): Promise<void> }> = [];
  const closeAll = async () => {
    for (const l of listening.reverse()) await l.close();
    built.durable?.close();
  };
  try {
    for (const [i, p] of built.participants.entries()) {
      const port = i === 0 ? config.port : config.participant2Port;
      const server: ServerType = await new Promise((resolve, reject) => {
        const s = serve({ fetch: answerWhenDurable(built.durable, p.app.fetch), port, hostname: config.host }, () => resolve(s));
        s.once('error', reject);
      });
      if (!(server instanceof HttpServer)) throw new Error('the ledger API is served over HTTP/1.1');
      applyServerLimits(server, {}, 'text');
      p.streams.attach(server);
      const { port: bound } = server.address() as AddressInfo;
      listening.push({
        url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
        close: () =>
          new Promise<void>((resolve, reject) => {
            p.streams.close();
            server.close((err) => (err ? reject(err) : resolve()));
            (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
          }),
      });
    }
  } catch (e) {
    await closeAll();
    throw e;
  }
  const ledgerUrls = listening.map((l) => l.url);
  return { ...built, ledgerUrl: ledgerUrls[0]!, ledgerUrls, close: closeAll };
}
