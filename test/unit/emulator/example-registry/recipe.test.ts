/**
 * The example registry's TestTokenV2 recipe (src/emulator/example-registry/recipe.ts) on an
 * in-memory index: contexts name only `testTokenV2/tokenRules` when no account has an
 * AccountConfig, keep the configurations when one has, and the settlement factory discloses the
 * allocations it is given between TokenRules and their locked holdings.
 */
import { describe, expect, it } from 'vitest';
import type { IndexedContract } from '../../../../src/contracts/indexed-contract.js';
import { templateKey } from '../../../../src/contracts/indexed-contract.js';
import { ExampleRegistryTestTokenV2Recipe } from '../../../../src/emulator/example-registry/recipe.js';
import type { RecipeEnv } from '../../../../src/registry/recipes/recipe.js';
import { TestTokenV2Templates as T } from '../../../../src/registry/recipes/test-token-v2.js';

const admin = 'operator::1220aa';
const alice = 'alice::1220aa';
const bob = 'bob::1220aa';
const provider = 'bank::1220aa';
const meta = { values: {} };

function contract(contractId: string, key: string, payload: Record<string, unknown>): IndexedContract {
  const [packageName, moduleName, entity] = key.split(':');
  return { contractId, templateId: `pkg0:${moduleName}:${entity}`, packageName: packageName!, payload, createdAt: '2026-05-01T10:00:00Z', createdEventBlob: 'blob', synchronizerId: 'sync::1' };
}

const rules = contract('00a1', T.TokenRules, { admin });
const providerAccount = { owner: alice, provider, id: 'savings' };
const config = contract('00c1', T.AccountConfig, {
  admin,
  account: providerAccount,
  ownerConfig: { canInitiate: true, mustApprove: false },
  providerConfig: { canInitiate: true, mustApprove: false },
});
const locked = contract('00d1', T.Token, { admin, account: { owner: alice, provider: null, id: '' }, instrumentId: { admin, id: 'test-token-v2' }, amount: '20.0', lock: {} });
const allocation = contract('00e1', T.TokenAllocationV2, {
  allocation: {
    admin,
    authorizer: { owner: alice, provider: null, id: '' },
    transferLegSides: [{ transferLegId: 'l', side: 'SenderSide', otherside: { owner: bob, provider: null, id: '' }, instrumentId: 'test-token-v2' }],
    nextIterationFunding: null,
  },
  lockedTokens: { 'test-token-v2': [locked.contractId] },
});
const byId = new Map([rules, config, locked, allocation].map((c) => [c.contractId, c]));

const env: RecipeEnv = {
  admin,
  index: {
    find: (key, pred) => [...byId.values()].filter((c) => templateKey(c.packageName, c.templateId) === key && (pred ? pred(c) : true)),
    getById: async (cid) => byId.get(cid),
    catchUp: async () => undefined,
  },
  nowMicros: () => 0n,
};
const recipe = new ExampleRegistryTestTokenV2Recipe();
const transferArgs = (sender: unknown, actors: string[]) => ({ transfer: { sender, receiver: { owner: bob, provider: null, id: '' }, meta }, actors });

describe("the example registry's TestTokenV2 recipe", () => {
  it('basic accounts: the context names testTokenV2/tokenRules alone, TokenRules disclosed', async () => {
    const parts = await recipe.transferFactory(2, transferArgs({ owner: alice, provider: null, id: '' }, [alice]), env);
    expect(parts.values).toEqual({ 'testTokenV2/tokenRules': { tag: 'AV_ContractId', value: rules.contractId } });
    expect(parts.disclose.map((c) => c.contractId)).toEqual([rules.contractId]);
    expect(parts.factory).toBe(rules);
  });

  it('a provider account with an AccountConfig: the configurations stay in the context', async () => {
    const parts = await recipe.transferFactory(2, transferArgs(providerAccount, [alice]), env);
    expect(parts.values['testTokenV2/accountConfigs']).toEqual({ tag: 'AV_List', value: [{ tag: 'AV_ContractId', value: config.contractId }] });
    expect(parts.disclose.map((c) => c.contractId)).toEqual([rules.contractId, config.contractId]);
  });

  it('settlement factory: TokenRules, the allocations, then their locked holdings', async () => {
    const parts = await recipe.settlementFactory(
      { transferLegs: [{ sender: { owner: alice, provider: null, id: '' }, receiver: { owner: bob, provider: null, id: '' } }], allocations: [{ allocationCid: allocation.contractId }] },
      env,
    );
    expect(parts.values).toEqual({ 'testTokenV2/tokenRules': { tag: 'AV_ContractId', value: rules.contractId } });
    expect(parts.disclose.map((c) => c.contractId)).toEqual([rules.contractId, allocation.contractId, locked.contractId]);
  });
});
