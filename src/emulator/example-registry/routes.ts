/**
 * The HTTP host of the emulated example registry: its metadata (a fixed list), its admin
 * endpoint `POST /admin/v2/offer-mint`, then our registry app for every factory and choice
 * context (registry v1 and v2 APIs), with the registry's health probes.
 */
import { Hono, type Env } from 'hono';
import { LedgerApiError } from '../../canton/errors.js';
import { noSuchEndpoint } from '../../registry/app.js';
import { registryHostApp, type Readiness } from '../../registry/health.js';
import type { LedgerEngine } from '../participant/engine.js';
import { EXAMPLE_REGISTRY_V1_APIS, exampleRegistryInstruments } from './metadata.js';
import type { ExampleRegistryWorld } from './seed.js';
import { offerMint, parseOfferMint, type OfferMintResponse } from './service.js';

export interface ExampleRegistryHostDeps<E extends Env> {
  engine: LedgerEngine;
  world: ExampleRegistryWorld;
  /** The registry app (factories and choice contexts) and its index (for the probes). */
  registry: { app: Hono<E>; index: Readiness };
  /** Resolves once the ledger's changes are durable (STATE_DIR); rejects when they cannot be. */
  flush?: () => Promise<void>;
}

export function createExampleRegistryHost<E extends Env>(deps: ExampleRegistryHostDeps<E>): Hono {
  const host = new Hono();
  const { operator } = deps.world;

  // The example's metadata routes (api/metadata): a fixed list, pagination parameters ignored.
  host.get('/registry/metadata/v1/info', (c) => c.json({ adminId: operator, supportedApis: { ...EXAMPLE_REGISTRY_V1_APIS } }));
  host.get('/registry/metadata/v1/instruments', (c) => c.json({ instruments: exampleRegistryInstruments() }));
  host.get('/registry/metadata/v1/instruments/:instrumentId', (c) => {
    const instrument = exampleRegistryInstruments().find((i) => i.id === c.req.param('instrumentId'));
    return instrument ? c.json(instrument) : c.json({ error: 'Instrument not found' }, 404);
  });

  host.post('/admin/v2/offer-mint', async (c) => {
    let body: unknown;
    const text = await c.req.text();
    try {
      body = text.trim() === '' ? {} : JSON.parse(text);
    } catch (e) {
      return c.json({ error: `The request body is not valid JSON: ${(e as Error).message}` }, 400);
    }
    const req = parseOfferMint(body);
    if ('error' in req) return c.json({ error: req.error }, 400);
    let answer: OfferMintResponse;
    try {
      answer = offerMint(deps.engine, deps.world, req);
    } catch (e) {
      // What the ledger refuses (an unknown receiver party, the token's own checks) changed nothing.
      if (e instanceof LedgerApiError) return c.json({ error: e.causeText }, e.httpStatus >= 500 ? 503 : 400);
      throw e;
    }
    if (deps.flush) {
      try {
        await deps.flush();
      } catch (e) {
        return c.json({ error: `The offer could not be made durable: ${(e as Error).message}` }, 503, { 'retry-after': '1' });
      }
    }
    return c.json(answer);
  });

  host.route('/', registryHostApp(deps.registry.index, deps.registry.app));
  host.notFound(noSuchEndpoint);
  return host;
}
