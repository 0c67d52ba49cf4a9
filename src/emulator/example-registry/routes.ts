/**
 * The HTTP host of the emulated example registry: its metadata (a fixed list), its admin
 * endpoint `POST /admin/v2/offer-mint`, then our registry app for every factory and choice
 * context (registry v1 and v2 APIs), with the registry's health probes.
 */
import { Hono, type Env } from 'hono';
import { z } from 'zod';
import { LedgerApiError } from '../../canton/errors.js';
import { isObject } from '../../canton/json-shape.js';
import { noSuchEndpoint } from '../../registry/app.js';
import { registryHostApp, type Readiness } from '../../registry/health.js';
import type { LedgerEngine } from '../participant/engine.js';
import { createTestTokenV2Rules, findTestTokenV2Rules, offerMintTestTokenV2 } from '../templates/test-token-v2/index.js';
import { EXAMPLE_REGISTRY_V1_APIS, exampleRegistryInstruments } from './metadata.js';
import type { ExampleRegistryWorld } from './seed.js';

/** The instrument `offer-mint` mints when the body names none (the example's `TestTokenV2ID`). */
export const OFFER_MINT_DEFAULT_INSTRUMENT = 'test-token-v2';
/** The amount `offer-mint` offers when the body names none. */
export const OFFER_MINT_DEFAULT_AMOUNT = '100.0';

/** `POST /admin/v2/offer-mint`'s answer. */
export const OfferMintResponseSchema = z.object({ offerCid: z.string(), updateId: z.string(), completionOffset: z.number().int() });
export type OfferMintResponse = z.infer<typeof OfferMintResponseSchema>;

/** A positive Daml Decimal text (at most 10 decimal places), as the token's `amount` takes it. */
const DECIMAL = /^\+?(\d{1,28})(?:\.(\d{1,10}))?$/;

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
      // The example resolves the operator's TokenRules, creating it when there is none.
      const rules = findTestTokenV2Rules(deps.engine, operator)[0] ?? createTestTokenV2Rules(deps.engine, operator);
      const account = { owner: req.receiver, provider: null, id: '' };
      const offer = offerMintTestTokenV2(deps.engine, {
        admin: operator,
        tokenRulesCid: rules,
        receiverConfig: {
          admin: operator,
          account,
          ownerConfig: { canInitiate: true, mustApprove: false },
          providerConfig: { canInitiate: false, mustApprove: false },
        },
        instrumentId: req.instrumentId,
        amount: req.amount,
        userId: deps.world.userId,
      });
      answer = { offerCid: offer.offerCid, updateId: offer.updateId, completionOffset: offer.offset };
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

/**
 * The offer-mint body `{receiver, amount?, instrumentId?}`: `receiver` is required (any body
 * without one gets the example's own message), the others default as the example's do.
 */
export function parseOfferMint(body: unknown): { receiver: string; amount: string; instrumentId: string } | { error: string } {
  const b = isObject(body) ? body : {};
  const { receiver, amount = OFFER_MINT_DEFAULT_AMOUNT, instrumentId = OFFER_MINT_DEFAULT_INSTRUMENT } = b;
  if (receiver === undefined || receiver === null || receiver === '') return { error: 'receiver party is required' };
  if (typeof receiver !== 'string') return { error: `receiver must be a party id (text), got ${JSON.stringify(receiver)}` };
  const amountText = typeof amount === 'number' && Number.isFinite(amount) ? String(amount) : amount;
  if (typeof amountText !== 'string' || !DECIMAL.test(amountText)) {
    return { error: `amount must be a decimal with at most 10 decimal places, e.g. "100.0"; got ${JSON.stringify(amount)}` };
  }
  if (!/[1-9]/.test(amountText)) return { error: `amount must be positive, got ${JSON.stringify(amount)}` };
  if (typeof instrumentId !== 'string' || instrumentId === '') return { error: `instrumentId must be a non-empty text, got ${JSON.stringify(instrumentId)}` };
  return { receiver, amount: amountText, instrumentId };
}
