/**
 * The wallet repository's example test-token registry (canton-network/wallet,
 * `examples/test-token-v1-registry`, the version with `POST /admin/v2/offer-mint`), emulated so
 * that tests written against LocalNet's copy of it (`localhost:5634`) run unchanged. It is our
 * registry (src/registry, with the TestTokenV1 and TestTokenV2 recipes) behind that registry's
 * metadata and admin endpoint; the operator party and its TokenRules are seeded at start (./seed).
 * This module is its behaviour without HTTP (the recipes, offer-mint); ./routes.ts serves it.
 *
 * Served (EXAMPLE_REGISTRY_PORT, or startStack's `exampleRegistryPort`; off by default):
 *  - `/registry/metadata/v1/*`: the example's three instruments (`test-token-v1`, `test-token-v2`,
 *    `test-token-paused`) exactly as it lists them (./metadata), and its info (`adminId` = the
 *    operator, the four V1 registry APIs);
 *  - the registry APIs v1 and v2 (transfer-instruction, allocation-instruction, allocation,
 *    settlement factory), answered by our registry; the TestTokenV2 contexts name
 *    `testTokenV2/tokenRules` and disclose TokenRules, as the example's do (./recipe);
 *  - `POST /admin/v2/offer-mint` `{receiver, amount? = "100.0", instrumentId? = "test-token-v2"}`:
 *    `TokenRules_OfferMint` to the receiver's basic account (owner may initiate, need not approve),
 *    answering `{offerCid, updateId, completionOffset}`.
 *
 * LIMITATIONS (where it answers differently from the example, and why):
 *  1. The example answers its V1 factories with its TestTokenV1 TokenRules and an empty context
 *     whatever the instrument, and every V1 choice context, the V2 reject/withdraw contexts and
 *     the allocation and allocation-instruction contexts as empty. Here each instrument gets its
 *     own token's factory, and every context is our recipe's (TokenRules for TestTokenV2, as
 *     Splice's reference registry of the token serves it), so that the V1 flows of `test-token-v2`
 *     (the wallet SDK 1.4.0 speaks only V1) complete; the TestTokenV1 factories also disclose
 *     TokenRules.
 *  2. A V2 accept context also discloses the locked input holdings of the instruction (none for a
 *     mint offer), and disclosed contracts carry debug fields unless `excludeDebugFields`.
 *  3. Factories check the instrument as our registry does, where the example's ignore it: those
 *     of `test-token-paused` answer 400 (paused; SDK clients refuse before asking, as they find
 *     no holdings of it), an instrument the registry does not list answers 400, and a V2 call for
 *     `test-token-v1` answers 400 (TestTokenV1 has only the V1 APIs) instead of TestTokenV2's
 *     TokenRules.
 *  4. Errors have the example's shape `{"error": ...}`, with our registry's messages for invalid
 *     registry requests. Offer-mint: a body that is not JSON, an amount that is no positive
 *     Decimal or an instrumentId that is no text answer 400 before anything is submitted, and
 *     what the ledger refuses (an unknown receiver) answers 400 with the ledger's message (the
 *     example passes both to the ledger and answers 500). Unknown paths answer a JSON 404, not
 *     Express's HTML page; `/livez` and `/readyz` are extra.
 *  5. The operator is a local party of the first participant (the example allocates an external
 *     party with a key it generates): `operator::<participant namespace>`.
 */
import { z } from 'zod';
import { isObject } from '../../canton/json-shape.js';
import { TestTokenV1Recipe } from '../../registry/recipes/test-token-v1.js';
import type { Recipe } from '../../registry/recipes/recipe.js';
import type { LedgerEngine } from '../participant/engine.js';
import { createTestTokenV2Rules, findTestTokenV2Rules, offerMintTestTokenV2 } from '../templates/test-token-v2/index.js';
import { ExampleRegistryTestTokenV2Recipe } from './recipe.js';
import type { ExampleRegistryWorld } from './seed.js';

/** The recipes of the example's tokens. */
export function exampleRegistryRecipes(): Recipe[] {
  return [new TestTokenV1Recipe(), new ExampleRegistryTestTokenV2Recipe()];
}

/** The instrument `offer-mint` mints when the body names none (the example's `TestTokenV2ID`). */
export const OFFER_MINT_DEFAULT_INSTRUMENT = 'test-token-v2';
/** The amount `offer-mint` offers when the body names none. */
export const OFFER_MINT_DEFAULT_AMOUNT = '100.0';

/** `POST /admin/v2/offer-mint`'s answer. */
export const OfferMintResponseSchema = z.object({ offerCid: z.string(), updateId: z.string(), completionOffset: z.number().int() });
export type OfferMintResponse = z.infer<typeof OfferMintResponseSchema>;

/** An offer-mint request, checked. */
export interface OfferMintRequest {
  receiver: string;
  amount: string;
  instrumentId: string;
}

/** A positive Daml Decimal text (at most 10 decimal places), as the token's `amount` takes it. */
const DECIMAL = /^\+?(\d{1,28})(?:\.(\d{1,10}))?$/;

/**
 * The offer-mint body `{receiver, amount?, instrumentId?}`: `receiver` is required (any body
 * without one gets the example's own message), the others default as the example's do.
 */
export function parseOfferMint(body: unknown): OfferMintRequest | { error: string } {
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

/**
 * `TokenRules_OfferMint` to the receiver's basic account (owner may initiate, need not approve), as
 * the operator. What the ledger refuses (an unknown receiver party, the token's own checks) throws
 * its LedgerApiError and changes nothing.
 */
export function offerMint(engine: LedgerEngine, world: ExampleRegistryWorld, req: OfferMintRequest): OfferMintResponse {
  const { operator } = world;
  // The example resolves the operator's TokenRules, creating it when there is none.
  const rules = findTestTokenV2Rules(engine, operator)[0] ?? createTestTokenV2Rules(engine, operator);
  const account = { owner: req.receiver, provider: null, id: '' };
  const offer = offerMintTestTokenV2(engine, {
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
    userId: world.userId,
  });
  return { offerCid: offer.offerCid, updateId: offer.updateId, completionOffset: offer.offset };
}
