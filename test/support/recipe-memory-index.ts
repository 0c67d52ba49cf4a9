/**
 * Unit-test plumbing for declarative recipes run against an index held in memory: contracts made
 * from a `#package:Module:Entity` template and a payload, the `RecipeEnv` the registry's contract
 * index would give, the outcome of a registry call as one comparable string, and the problems a
 * recipe is rejected with at load.
 */
import { expect } from 'vitest';
import { templateKey, type IndexedContract } from '../../src/contracts/indexed-contract.js';
import { RegistryError } from '../../src/registry/errors.js';
import { RecipeConfigError, validateDeclarativeRecipe } from '../../src/registry/recipes/declarative/validation.js';
import type { RecipeEnv } from '../../src/registry/recipes/recipe.js';

/** A factory of contracts with ids `0001`, `0002`, … in the order they are made. */
export function contractMaker(): (template: string, payload: Record<string, unknown>) => IndexedContract {
  let ids = 0;
  return (template, payload) => {
    const [pkg, moduleName, entity] = template.slice(1).split(':');
    const contractId = `00${(++ids).toString(16).padStart(4, '0')}`;
    return { contractId, templateId: `pkg0:${moduleName}:${entity}`, packageName: pkg!, payload, createdAt: '2026-05-01T10:00:00Z', createdEventBlob: '', synchronizerId: 'sync::1' };
  };
}

/** What the registry's contract index answers over these contracts, for `admin`. */
export function memoryRecipeEnv(admin: string, contracts: IndexedContract[]): RecipeEnv {
  return {
    admin,
    index: {
      find: (key, where) => contracts.filter((c) => templateKey(c.packageName, c.templateId) === key && (where === undefined || where(c))),
      getById: async (id) => contracts.find((c) => c.contractId === id),
      catchUp: async () => undefined,
    },
    nowMicros: () => 1_777_629_600_000_000n,
  };
}

/** `ok`, or `<code>: <message>` of the RegistryError the call refused with. */
export async function registryOutcome(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
    return 'ok';
  } catch (e) {
    if (e instanceof RegistryError) return `${e.code}: ${e.message}`;
    throw e;
  }
}

/** The problems `validateDeclarativeRecipe` rejects `json` with (it must reject it). */
export function recipeProblems(json: unknown): string[] {
  try {
    validateDeclarativeRecipe(json);
  } catch (e) {
    expect(e).toBeInstanceOf(RecipeConfigError);
    if (e instanceof RecipeConfigError) return [...e.problems];
  }
  throw new Error('expected the recipe to be rejected');
}
