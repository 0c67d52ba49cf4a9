/** The recipes that ship with the registry (Splice's reference test tokens, Amulet) and configured ones. */
import type { Logger } from 'pino';
import type { Recipe } from './recipe.js';
import { TestTokenV1Recipe } from './test-token-v1.js';
import { TestTokenV2Recipe } from './test-token-v2.js';
import { DeclarativeRecipe } from './declarative.js';
import { AmuletRecipe, type AmuletRegistryCompat } from './amulet.js';

/** `amuletCompat`: which Scan generation the Amulet recipe answers as (default `current`). */
export function builtInRecipes(opts: { amuletCompat?: AmuletRegistryCompat } = {}): Recipe[] {
  return [new TestTokenV1Recipe(), new TestTokenV2Recipe(), new AmuletRecipe({ compat: opts.amuletCompat })];
}

/**
 * Declarative recipes from configuration, validated at start-up: a mistake stops the start with
 * a RecipeConfigError listing every problem; warnings (e.g. keys without a DNS prefix) are logged.
 */
export function declarativeRecipes(configs: readonly unknown[], logger?: Logger): Recipe[] {
  return configs.map((json) => {
    const { recipe, warnings } = DeclarativeRecipe.fromJson(json);
    for (const w of warnings) logger?.warn({ recipe: recipe.name }, w);
    return recipe;
  });
}
