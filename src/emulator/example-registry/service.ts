/**
 * The wallet repository's example test-token registry (canton-network/wallet,
 * `examples/test-token-v1-registry`, the version with `POST /admin/v2/offer-mint`), emulated so
 * that tests written against LocalNet's copy of it (`localhost:5634`) run unchanged. It is our
 * registry (src/registry, with the TestTokenV1 and TestTokenV2 recipes) behind that registry's
 * metadata and admin endpoint; the operator party and its TokenRules are seeded at start (./seed).
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
export { createExampleRegistryHost, OfferMintResponseSchema, parseOfferMint, type OfferMintResponse } from './routes.js';
export { EXAMPLE_REGISTRY_DUAL_APIS, EXAMPLE_REGISTRY_V1_APIS, exampleRegistryInstrumentConfigs, exampleRegistryInstruments } from './metadata.js';
export { ExampleRegistryTestTokenV2Recipe } from './recipe.js';
export { EXAMPLE_REGISTRY_PARTY_HINT, EXAMPLE_REGISTRY_USER, seedExampleRegistry, type ExampleRegistryWorld } from './seed.js';

import { TestTokenV1Recipe } from '../../registry/recipes/test-token-v1.js';
import type { Recipe } from '../../registry/recipes/recipe.js';
import { ExampleRegistryTestTokenV2Recipe } from './recipe.js';

/** The recipes of the example's tokens. */
export function exampleRegistryRecipes(): Recipe[] {
  return [new TestTokenV1Recipe(), new ExampleRegistryTestTokenV2Recipe()];
}
