/**
 * The TestTokenV2 recipe as the wallet repository's example registry answers
 * (canton-network/wallet, `examples/test-token-v1-registry/src/api/token-rules-v2.ts` and
 * `api/allocation/getSettlementFactoryV2.ts`): our TestTokenV2 recipe, with two differences of
 * that registry's answers:
 *  - the context names only `testTokenV2/tokenRules` (the example never sends
 *    `testTokenV2/accountConfigs`; TestTokenV2 reads a missing key as no configurations, so the
 *    key is left out whenever it would be the empty list);
 *  - the settlement factory also discloses the allocations named in
 *    `choiceArguments.allocations[].allocationCid` (before their locked holdings), so that an
 *    executor who is no stakeholder of an allocation can settle it.
 */
import type { IndexedContract } from '../../contracts/indexed-contract.js';
import type { AllocationAction, AllocationInstructionAction, ApiVersion, TransferInstructionAction } from '../../registry/api.js';
import type { ContextParts, ContractRequest, FactoryParts, RecipeEnv, TransferFactoryParts } from '../../registry/recipes/recipe.js';
import { TEST_TOKEN_V2_ACCOUNT_CONFIGS_KEY, TestTokenV2Recipe } from '../../registry/recipes/test-token-v2.js';

export class ExampleRegistryTestTokenV2Recipe extends TestTokenV2Recipe {
  override async transferFactory(version: ApiVersion, args: Record<string, unknown>, env: RecipeEnv): Promise<TransferFactoryParts> {
    return withoutEmptyConfigs(await super.transferFactory(version, args, env));
  }

  override async allocationFactory(version: ApiVersion, args: Record<string, unknown>, env: RecipeEnv): Promise<FactoryParts> {
    return withoutEmptyConfigs(await super.allocationFactory(version, args, env));
  }

  override async settlementFactory(args: Record<string, unknown>, env: RecipeEnv): Promise<FactoryParts> {
    // The parent checks each allocation (an id, found, a TestTokenV2 allocation of this admin).
    const parts = await super.settlementFactory(args, env);
    const allocations: IndexedContract[] = [];
    for (const { allocationCid } of (args.allocations as Array<{ allocationCid: string }> | undefined) ?? []) {
      const c = await env.index.getById(allocationCid);
      if (c) allocations.push(c);
    }
    const [rules, ...rest] = parts.disclose;
    const disclose = uniqueById([rules!, ...allocations, ...rest]);
    return withoutEmptyConfigs({ ...parts, disclose });
  }

  override async transferInstructionContext(req: ContractRequest<TransferInstructionAction>, env: RecipeEnv): Promise<ContextParts> {
    return withoutEmptyConfigs(await super.transferInstructionContext(req, env));
  }

  override async allocationInstructionContext(req: ContractRequest<AllocationInstructionAction>, env: RecipeEnv): Promise<ContextParts> {
    return withoutEmptyConfigs(await super.allocationInstructionContext(req, env));
  }

  override async allocationContext(req: ContractRequest<AllocationAction>, env: RecipeEnv): Promise<ContextParts> {
    return withoutEmptyConfigs(await super.allocationContext(req, env));
  }
}

function withoutEmptyConfigs<P extends ContextParts>(parts: P): P {
  const configs = parts.values[TEST_TOKEN_V2_ACCOUNT_CONFIGS_KEY];
  if (configs?.tag !== 'AV_List' || !Array.isArray(configs.value) || configs.value.length > 0) return parts;
  const values = { ...parts.values };
  delete values[TEST_TOKEN_V2_ACCOUNT_CONFIGS_KEY];
  return { ...parts, values };
}

function uniqueById(contracts: IndexedContract[]): IndexedContract[] {
  const seen = new Set<string>();
  return contracts.filter((c) => (seen.has(c.contractId) ? false : (seen.add(c.contractId), true)));
}
