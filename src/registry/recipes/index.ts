/** The recipes that ship with the registry (Splice's reference test tokens, Amulet) and configured ones. */
import type { Logger } from 'pino';
import type { Recipe } from './recipe.js';
import { TestTokenV1Recipe } from './test-token-v1.js';
import { TestTokenV2Recipe } from './test-token-v2.js';
import { DeclarativeRecipe } from './declarative/declarative-recipe.js';
import { RecipeConfigError } from './declarative/validation.js';
import { AmuletRecipe } from './amulet.js';
import type { AmuletRegistryCompat } from './amulet-compat.js';
import { ConfigError } from '../../canton/config-error.js';

/** `amuletCompat`: which Scan generation the Amulet recipe answers as (default `current`). */
export function builtInRecipes(opts: { amuletCompat?: AmuletRegistryCompat } = {}): Recipe[] {
  return [new TestTokenV1Recipe(), new TestTokenV2Recipe(), new AmuletRecipe({ compat: opts.amuletCompat })];
}

/** The names an instrument's `recipe` may use besides the configured recipes' `name`s. */
export const BUILT_IN_RECIPE_NAMES: readonly string[] = builtInRecipes().map((r) => r.name);

/**
 * Declarative recipes from configuration, validated at start-up: a mistake stops the start with
 * a ConfigError listing every problem as `recipes[<n>].<path>: <what>`; warnings (e.g. keys
 * without a DNS prefix) are logged.
 */
export function declarativeRecipes(configs: readonly unknown[], logger?: Logger): Recipe[] {
  const { recipes, warnings } = resolveDeclarativeRecipes(configs);
  for (const w of warnings) logger?.warn({ recipe: w.recipe }, w.text);
  return recipes;
}

export interface ResolvedRecipes {
  recipes: DeclarativeRecipe[];
  warnings: Array<{ recipe: string; text: string }>;
}

/** Validates every configured recipe; throws one ConfigError with every problem of every recipe. */
export function resolveDeclarativeRecipes(configs: readonly unknown[]): ResolvedRecipes {
  const problems: string[] = [];
  const out: ResolvedRecipes = { recipes: [], warnings: [] };
  const names = new Map<string, number>();
  configs.forEach((json, n) => {
    try {
      const { recipe, warnings } = DeclarativeRecipe.fromJson(json);
      const prev = names.get(recipe.name);
      if (prev !== undefined) problems.push(`recipes[${n}].name: duplicate recipe name "${recipe.name}" (also recipes[${prev}])`);
      names.set(recipe.name, n);
      out.recipes.push(recipe);
      out.warnings.push(...warnings.map((text) => ({ recipe: recipe.name, text: `recipes[${n}].${text}` })));
    } catch (e) {
      if (!(e instanceof RecipeConfigError)) throw e;
      problems.push(...e.problems.map((p) => `recipes[${n}]${p.startsWith('(root)') ? p.slice('(root)'.length) : `.${p}`}`));
    }
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return out;
}

/**
 * Checks that every instrument names a known recipe (a built-in one or a configured `name`);
 * the message lists the known names. Throws ConfigError.
 */
export function checkInstrumentRecipes(instruments: ReadonlyArray<{ id: string; recipe: string }>, known: readonly string[]): void {
  const problems: string[] = [];
  instruments.forEach((i, n) => {
    if (known.includes(i.recipe)) return;
    const hint = i.recipe.startsWith('declarative:') && known.includes(i.recipe.slice('declarative:'.length)) ? ` (did you mean "${i.recipe.slice('declarative:'.length)}"? a recipe is named by its "name" alone)` : '';
    problems.push(`instruments[${n}].recipe: unknown recipe "${i.recipe}" for instrument ${i.id}${hint}; known recipes: ${known.join(', ')}`);
  });
  if (problems.length > 0) throw new ConfigError(problems);
}
