/**
 * Recipe for Splice's TestTokenV1 (`splice-test-token-v1`), as its Daml test registry
 * (`TestTokenV1_RegistryV1`, canton-network/splice `token-standard/splice-token-standard-v1-test/`) answers:
 *  - every factory (transfer, allocation) is the admin's single `TokenRules` contract, disclosed;
 *    the choice context is empty;
 *  - every per-contract choice context is empty, with no disclosures;
 *  - transferKind: `self` when sender == receiver (the factory completes at once), else `offer`
 *    (TestTokenV1 has no pre-approvals, so never `direct`).
 * TestTokenV1 implements only the V1 APIs: v2 endpoints answer 400 saying so.
 */
import { templateKey, type IndexedContract } from '../../contracts/indexed-contract.js';
import { notFound, RegistryError } from '../errors.js';
import type { ContextParts, ContractKind, ContractRequest, FactoryParts, Recipe, RecipeEnv, TransferFactoryParts } from './recipe.js';
import { UnsupportedOperation, TOKEN_STANDARD_V1_APIS } from './recipe.js';
import type { AllocationAction, AllocationInstructionAction, ApiVersion, TransferInstructionAction } from '../api.js';

const PKG = 'splice-test-token-v1';
const MODULE = 'Splice.Testing.Tokens.TestTokenV1';
const RULES = `${PKG}:${MODULE}:TokenRules`;
const OFFER = `${PKG}:${MODULE}:TokenTransferOffer`;
const ALLOCATION = `${PKG}:${MODULE}:TokenAllocation`;

const EMPTY: ContextParts = { values: {}, disclose: [] };

export class TestTokenV1Recipe implements Recipe {
  readonly name = PKG;
  readonly supportedApis = TOKEN_STANDARD_V1_APIS;
  readonly indexedTemplates = [`#${RULES}`];
  readonly cachedTemplates = [`#${OFFER}`, `#${ALLOCATION}`];

  kindOf(c: IndexedContract): ContractKind | undefined {
    const key = templateKey(c.packageName, c.templateId);
    if (key === OFFER) return 'transfer-instruction';
    if (key === ALLOCATION) return 'allocation';
    return undefined;
  }

  instrumentOf(c: IndexedContract): { admin: string; id: string } | undefined {
    const p = c.payload as { transfer?: { instrumentId?: { admin: string; id: string } }; allocation?: { transferLeg?: { instrumentId?: { admin: string; id: string } } } };
    return p.transfer?.instrumentId ?? p.allocation?.transferLeg?.instrumentId;
  }

  // Everything below needs only the in-memory index: answered synchronously (see MaybePromise).
  transferFactory(version: ApiVersion, args: Record<string, unknown>, env: RecipeEnv): TransferFactoryParts {
    v1Only(version, 'transfer instruction');
    const transfer = args.transfer as { sender?: unknown; receiver?: unknown };
    const rules = this.rules(env);
    return { factory: rules, values: {}, disclose: [rules], transferKind: transfer.sender === transfer.receiver ? 'self' : 'offer' };
  }

  transferInstructionContext(req: ContractRequest<TransferInstructionAction>): ContextParts {
    v1Only(req.version, 'transfer instruction');
    return EMPTY;
  }

  allocationFactory(version: ApiVersion, _args: Record<string, unknown>, env: RecipeEnv): FactoryParts {
    v1Only(version, 'allocation instruction');
    const rules = this.rules(env);
    return { factory: rules, values: {}, disclose: [rules] };
  }

  async allocationInstructionContext(_req: ContractRequest<AllocationInstructionAction>): Promise<ContextParts> {
    throw new UnsupportedOperation(`${PKG} does not create allocation instructions: allocations complete at once`);
  }

  allocationContext(req: ContractRequest<AllocationAction>): ContextParts {
    v1Only(req.version, 'allocation');
    return EMPTY;
  }

  async settlementFactory(): Promise<FactoryParts> {
    throw new UnsupportedOperation(`${PKG} implements only the V1 token standard: it has no settlement factory`);
  }

  /** The admin's one TokenRules contract. */
  private rules(env: RecipeEnv): IndexedContract {
    const rules = env.index.find(RULES, (c) => c.payload.admin === env.admin);
    if (rules.length === 0) throw notFound(`No TokenRules contract of ${env.admin} found on the ledger (${PKG})`);
    if (rules.length > 1) {
      throw new RegistryError('INTERNAL', `Multiple TokenRules contracts of ${env.admin} found on the ledger (${PKG}): ${rules.map((r) => r.contractId).join(', ')}`);
    }
    return rules[0]!;
  }
}

function v1Only(version: ApiVersion, api: string): void {
  if (version !== 1) throw new UnsupportedOperation(`${PKG} implements only the V1 ${api} API; use /v1`);
}
