/**
 * Assembles a registry for one instrument admin: ledger client → contract index (+ cache) →
 * service → HTTP app. Used by `serve` (a real participant) and by the emulated stack (the
 * emulator's ledger API, in process), so both run the same code path.
 */
import type { Logger } from 'pino';
import type { Cache } from '../cache/cache.js';
import { ContractIndex } from '../contracts/contract-index.js';
import type { ContractIndexOptions } from '../contracts/index-options.js';
import type { Clock } from '../canton/clock.js';
import type { LedgerClient } from '../ledger-client/client.js';
import { createRegistryHttp } from './app.js';
import type { Recipe } from './recipes/recipe.js';
import { checkInstrumentRecipes } from './recipes/index.js';
import { RegistryService } from './service.js';
import type { InstrumentConfig } from './instrument-config.js';

export interface RegistryOptions {
  admin: string;
  instruments: readonly InstrumentConfig[];
  recipes: readonly Recipe[];
  ledger: LedgerClient;
  cache: Cache;
  clock: Clock;
  logger?: Logger;
  basePath?: string;
  cacheTtlSeconds?: number;
  /** Idle time of one poll of the ledger's update stream (ms). */
  pollIdleMs?: number;
  /** The ledger end without a ledger call (in process with the ledger: the emulated stack). */
  ledgerEndHint?: () => number;
  /** How the contract index follows the ledger (identity checks, backoff, rejected credentials). */
  follow?: Pick<ContractIndexOptions, 'identityCheckMs' | 'backoffMs' | 'onFatal' | 'updates' | 'syncWaitMs'>;
  /** Request bounds of the HTTP app (body size, JSON depth). */
  limits?: { maxBodyBytes?: number; maxJsonDepth?: number };
}

export function createRegistry(opts: RegistryOptions) {
  // Checked against every recipe offered, so that the message lists them all.
  checkInstrumentRecipes(opts.instruments, opts.recipes.map((r) => r.name));
  const used = new Set(opts.instruments.map((i) => i.recipe));
  const recipes = opts.recipes.filter((r) => used.has(r.name));
  const index = new ContractIndex({
    ledger: opts.ledger,
    admin: opts.admin,
    indexedTemplates: recipes.flatMap((r) => r.indexedTemplates),
    cachedTemplates: recipes.flatMap((r) => r.cachedTemplates),
    indexedInterfaces: recipes.flatMap((r) => r.indexedInterfaces ?? []),
    cache: opts.cache,
    logger: opts.logger?.child({ module: 'contract-index' }),
    cacheTtlSeconds: opts.cacheTtlSeconds,
    pollIdleMs: opts.pollIdleMs,
    ledgerEndHint: opts.ledgerEndHint,
    ...opts.follow,
  });
  const service = new RegistryService({
    admin: opts.admin,
    instruments: opts.instruments,
    recipes,
    index,
    ledger: opts.ledger,
    clock: opts.clock,
    logger: opts.logger?.child({ module: 'registry' }),
  });
  const http = createRegistryHttp({ registry: service, logger: opts.logger, basePath: opts.basePath, limits: opts.limits });
  const app = http.app;
  return {
    app,
    /** The app plus the POST dispatcher, for the Node server's fast path (server.ts). */
    http,
    service,
    index,
    /** Reads the ACS snapshot and starts following the ledger. */
    start: () => index.start(),
    stop: () => index.stop(),
    /** Reloads the index now (its ledger was replaced under the same identity); resolves when loaded. */
    reload: (reason: string) => index.reload(reason),
  };
}
export type Registry = ReturnType<typeof createRegistry>;
