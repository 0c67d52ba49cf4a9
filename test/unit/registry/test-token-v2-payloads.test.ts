/**
 * TestTokenV2 payloads of a shape the recipe does not know (another package version, a corrupt
 * cache entry): an internal error naming the contract, or no instrument, never a TypeError.
 */
import { describe, expect, it } from 'vitest';
import type { IndexedContract } from '../../../src/contracts/indexed-contract.js';
import { RegistryError } from '../../../src/registry/errors.js';
import { TestTokenV2Recipe, TestTokenV2Templates as T } from '../../../src/registry/recipes/test-token-v2.js';
import type { RecipeEnv } from '../../../src/registry/recipes/recipe.js';

const recipe = new TestTokenV2Recipe();

function contract(key: string, payload: Record<string, unknown>): IndexedContract {
  const [packageName, moduleName, entity] = key.split(':');
  return { contractId: '00cafe', templateId: `pkg0:${moduleName}:${entity}`, packageName: packageName!, payload, createdAt: '2026-05-01T10:00:00Z', createdEventBlob: '', synchronizerId: 'sync::1' };
}

const env: RecipeEnv = {
  admin: 'admin::1',
  index: {
    find: () => [],
    getById: async () => undefined,
    catchUp: async () => undefined,
  },
  nowMicros: () => 0n,
};

describe('TestTokenV2 payloads of an unknown shape', () => {
  it('a transfer offer without its transfer: an INTERNAL error naming the contract', async () => {
    const offer = contract(T.TokenTransferOffer, { actionAuthorizers: [] });
    const err = await recipe.transferInstructionContext({ version: 2, action: 'accept', contract: offer }, env).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RegistryError);
    expect(err).toMatchObject({ code: 'INTERNAL', message: expect.stringContaining('Contract 00cafe (pkg0:Splice.Testing.Tokens.TestTokenV2.Transfer:TokenTransferOffer)') });
  });

  it('an allocation instruction without its allocation: INTERNAL for a context, no instrument for the index', async () => {
    const instr = contract(T.TokenAllocationInstructionV2, { admin: 'admin::1' });
    await expect(recipe.allocationInstructionContext({ version: 2, action: 'withdraw', contract: instr }, env)).rejects.toMatchObject({ code: 'INTERNAL' });
    expect(recipe.instrumentOf(instr)).toBeUndefined();
    expect(recipe.instrumentOf(contract(T.TokenTransferOffer, { transfer: { instrumentId: { admin: 1, id: 'x' } } }))).toBeUndefined();
  });

  it('well-formed payloads still name their instrument', () => {
    const offer = contract(T.TokenTransferOffer, { transfer: { instrumentId: { admin: 'admin::1', id: 'TUSD' } } });
    expect(recipe.instrumentOf(offer)).toEqual({ admin: 'admin::1', id: 'TUSD' });
  });
});
