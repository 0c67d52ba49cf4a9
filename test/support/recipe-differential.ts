/**
 * The two sides of a recipe differential test: registries over the same in-process emulated
 * ledger, one answering an example instrument (docs/examples/*.registry.json) with a built-in
 * recipe, the other with the example's declarative recipes; and a request helper that reads an
 * answer as status and JSON body.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../src/canton/clock.js';
import { MemoryCache } from '../../src/cache/memory-cache.js';
import type { RegistryConfig } from '../../src/config/registry.js';
import { noAuth } from '../../src/ledger-client/auth.js';
import { LedgerClient } from '../../src/ledger-client/client.js';
import { inProcessFetch, type RequestHandler } from '../../src/ledger-client/in-process.js';
import { createRegistry, type Registry } from '../../src/registry/index.js';
import { declarativeRecipes } from '../../src/registry/recipes/index.js';
import type { Recipe } from '../../src/registry/recipes/recipe.js';

export interface RecipePairOptions {
  /** The emulated ledger's JSON API (`buildEmulator(...).app`). */
  ledger: RequestHandler;
  admin: string;
  /** The example, parsed as `serve` parses it; its first instrument is served. */
  example: Readonly<RegistryConfig>;
  /** The built-in recipe the example is compared with, and the name instruments give it. */
  builtin: { name: string; recipe: Recipe };
  clock: Clock;
  logger: Logger;
}

/** The built-in and the declarative registry of one example instrument (not started). */
export function recipeRegistries(o: RecipePairOptions): { builtin: Registry; declarative: Registry } {
  const instrument = o.example.instruments[0]!;
  const registry = (recipe: string, recipes: Recipe[]) =>
    createRegistry({
      admin: o.admin,
      instruments: [{ ...instrument, recipe }],
      recipes,
      ledger: new LedgerClient({ baseUrl: 'http://ledger', tokenProvider: noAuth, fetch: inProcessFetch(o.ledger) }),
      cache: new MemoryCache({ defaultTtlSeconds: 600, logger: o.logger }),
      clock: o.clock,
      logger: o.logger,
      pollIdleMs: 20,
    });
  return { builtin: registry(o.builtin.name, [o.builtin.recipe]), declarative: registry(instrument.recipe, declarativeRecipes(o.example.recipes)) };
}

export interface RegistryAnswer {
  status: number;
  body: unknown;
}

/** One request to a registry in process; a string body is sent as it is (malformed JSON). */
export async function callRegistry(registry: Registry, method: 'GET' | 'POST', path: string, body?: unknown): Promise<RegistryAnswer> {
  const r = await registry.app.request(path, {
    method,
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  return { status: r.status, body: await r.json() };
}
