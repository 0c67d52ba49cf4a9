/**
 * The emulated stack: the ledger node (JSON Ledger API v2) and the instrument admin's registry,
 * each at the root of its own port, so clients configured for a participant and a registry work
 * by changing only host and port. The registry reads the emulated ledger through the same JSON
 * API client it uses against a real participant (in process, through `app.request`), so every
 * run of the stack exercises the production code path (DESIGN.md).
 */
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import pino, { type Logger } from 'pino';
import { createCache } from './cache/index.js';
import type { EmulatorConfig } from './config/schema.js';
import { buildEmulator, type StartEmulatorOptions } from './emulator/index.js';
import type { LedgerEngine } from './emulator/ledger/engine.js';
import type { SeededWorld } from './emulator/seed.js';
import { selfSignedHs256, noAuth, type TokenProvider } from './ledger/auth.js';
import { LedgerClient } from './ledger/client.js';
import { createRegistry, type Registry } from './registry/index.js';
import { builtInRecipes } from './registry/recipes/index.js';
import type { InstrumentConfig } from './registry/service.js';
import { listenRegistry } from './registry/server.js';

export interface StackOptions extends StartEmulatorOptions {
  /** Registry port (default 7576; 0 picks a free one). */
  registryPort?: number;
  /** Redis for the registry's cache; in memory when absent. */
  redisUrl?: string;
}

export interface RunningStack {
  engine: LedgerEngine;
  ledgerUrl: string;
  /** The demo admin's registry, when the demo world has instruments. */
  registryUrl?: string;
  registry?: Registry;
  seeded?: SeededWorld;
  close(): Promise<void>;
}

async function listen(fetch: (req: Request) => Response | Promise<Response>, port: number, host: string): Promise<ServerType> {
  return new Promise((resolve, reject) => {
    const s = serve({ fetch, port, hostname: host }, () => resolve(s));
    s.once('error', reject);
  });
}

function urlOf(server: ServerType, host: string): string {
  const { port } = server.address() as AddressInfo;
  const h = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${h.includes(':') ? `[${h}]` : h}:${port}`;
}

function closeServer(s: ServerType): Promise<void> {
  return new Promise((resolve) => {
    s.close(() => resolve());
    (s as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
  });
}

/** The token the registry reads the emulated ledger with (the admin's own user). */
function registryTokenProvider(config: EmulatorConfig, adminUser: string): TokenProvider {
  if (config.auth.mode === 'none') return noAuth;
  if (config.auth.hs256Secret) {
    return selfSignedHs256({ secret: config.auth.hs256Secret, userId: adminUser, audience: config.auth.targetAudience, scope: config.auth.targetScope });
  }
  throw new Error('the emulated registry needs an HS256 secret to read a JWT-protected emulated ledger (set LEDGER_AUTH_HS256_SECRET)');
}

export async function startStack(opts: StackOptions = {}): Promise<RunningStack> {
  const built = buildEmulator(opts);
  const { config, engine } = built;
  const logger: Logger = opts.logger ?? pino({ level: config.logLevel });
  const ledgerServer = await listen(built.app.fetch, config.port, config.host);
  const ledgerUrl = urlOf(ledgerServer, config.host);

  let registry: Registry | undefined;
  let registryServer: Awaited<ReturnType<typeof listenRegistry>> | undefined;
  const seeded = built.seeded;
  const first = seeded?.instruments[0];
  if (seeded && first) {
    const adminParty = first.adminParty;
    const adminUser = seeded.parties.find((p) => p.party === adminParty)!.userId;
    const instruments: InstrumentConfig[] = seeded.instruments
      .filter((i) => i.adminParty === adminParty)
      .map((i) => ({ id: i.id, name: i.name, symbol: i.symbol, decimals: i.decimals, recipe: i.token, totalSupply: 'ledger' }));
    const ledger = new LedgerClient({
      baseUrl: 'http://emulated-ledger',
      tokenProvider: registryTokenProvider(config, adminUser),
      // in process: the same client and wire format as against a participant, without a socket
      fetch: ((input: Parameters<typeof fetch>[0], init?: RequestInit) =>
        built.app.request(input instanceof Request ? input : String(input), init)) as typeof fetch,
      logger: logger.child({ module: 'ledger-client' }),
    });
    registry = createRegistry({
      admin: adminParty,
      instruments,
      recipes: builtInRecipes(),
      ledger,
      cache: createCache({ redisUrl: opts.redisUrl, defaultTtlSeconds: 3600, logger: logger.child({ module: 'cache' }) }),
      clock: engine.clock,
      logger,
      pollIdleMs: 50,
    });
    await registry.start();
    registryServer = await listenRegistry(registry.http, opts.registryPort ?? 7576, config.host);
  }

  return {
    engine,
    ledgerUrl,
    registryUrl: registryServer?.url,
    registry,
    seeded,
    close: async () => {
      await registry?.stop();
      await registryServer?.close();
      await closeServer(ledgerServer);
    },
  };
}
