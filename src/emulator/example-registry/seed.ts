/**
 * What the wallet repository's example test-token registry (canton-network/wallet,
 * `examples/test-token-v1-registry`) finds on the ledger once it has started: its operator party
 * (`common/operator.ts` allocates it with the hint `operator`) and the two TokenRules contracts
 * it resolves or creates on first use (`getTransferFactory.ts` for TestTokenV1, `token-rules-v2.ts`
 * for TestTokenV2). Seeded at start so that the first request finds them, as after the example's
 * own first factory call.
 */
import type { LedgerEngine } from '../participant/engine.js';
import { nameKey, type QualifiedId } from '../participant/types.js';
import { createTestTokenV1Rules, registerTestTokenV1, TestTokenV1Ids } from '../templates/test-token-v1/index.js';
import { createTestTokenV2Rules, findTestTokenV2Rules, registerTestTokenV2 } from '../templates/test-token-v2/index.js';

/** The operator's party hint, as the example allocates it. */
export const EXAMPLE_REGISTRY_PARTY_HINT = 'operator';
/** The ledger user the emulated example registry reads and submits as (CanActAs the operator). */
export const EXAMPLE_REGISTRY_USER = 'test-token-v1-registry';

export interface ExampleRegistryWorld {
  /** The registry admin (`adminId`), the instrument admin of its three instruments. */
  operator: string;
  userId: string;
}

/**
 * Allocates the operator (or reuses a local `operator::…` party a world file already declared),
 * its user, and the TestTokenV1 and TestTokenV2 TokenRules of the operator when missing.
 */
export function seedExampleRegistry(engine: LedgerEngine): ExampleRegistryWorld {
  const existing = engine.parties.all().find((p) => p.isLocal && p.party.startsWith(`${EXAMPLE_REGISTRY_PARTY_HINT}::`));
  const operator = existing?.party ?? engine.parties.allocate(EXAMPLE_REGISTRY_PARTY_HINT).party;
  const rights = [{ kind: 'CanActAs' as const, party: operator }];
  if (engine.users.has(EXAMPLE_REGISTRY_USER)) engine.users.grant(EXAMPLE_REGISTRY_USER, rights);
  else engine.users.create({ id: EXAMPLE_REGISTRY_USER, primaryParty: operator }, rights);
  registerTestTokenV1(engine.templates);
  registerTestTokenV2(engine.templates);
  if (activeOf(engine, operator, TestTokenV1Ids.TokenRules).length === 0) createTestTokenV1Rules(engine, operator);
  if (findTestTokenV2Rules(engine, operator).length === 0) createTestTokenV2Rules(engine, operator);
  return { operator, userId: EXAMPLE_REGISTRY_USER };
}

/** Active contracts of `id` whose `admin` is `admin`, as `admin` sees them. */
function activeOf(engine: LedgerEngine, admin: string, id: QualifiedId): string[] {
  const end = engine.ledgerEnd();
  return engine.contracts
    .activeAt(end, end, new Set([admin]), new Set([nameKey(id)]))
    .filter((c) => (c.payload as { admin?: unknown }).admin === admin)
    .map((c) => c.contractId);
}
