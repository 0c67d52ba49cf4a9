/** The recipes that ship with the registry (Splice's reference test tokens) and configured ones. */
import type { Logger } from 'pino';
import type { Recipe } from './recipe.js';
import { TestTokenV1Recipe } from './test-token-v1.js';
import { TestTokenV2Recipe } from './test-token-v2.js';

export function builtInRecipes(): Recipe[] {
  return [new TestTokenV1Recipe(), new TestTokenV2Recipe()];
}

/** Declarative recipes from configuration (validated at start-up). */
export function declarativeRecipes(configs: readonly unknown[], logger?: Logger): Recipe[] {
  if (configs.length > 0) logger?.warn('declarative recipes are not available in this build');
  return [];
}
