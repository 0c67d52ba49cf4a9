/** What value expressions can read while one request is resolved. */
import { formatInstant } from '../../../canton/clock.js';
import type { IndexedContract } from '../../../contracts/indexed-contract.js';
import type { RecipeEnv } from '../recipe.js';

/** What value expressions can read while resolving one request. */
export interface Scope {
  admin: string;
  now: string;
  args?: Record<string, unknown>;
  contract?: IndexedContract;
  /** Named selections made so far (`$ref`, `$found`, `when`); `many`: a list, not one contract. */
  refs: Map<string, { contracts: IndexedContract[]; many: boolean }>;
  /** The element of a list expression being selected for or checked (`$item` in missingError and forEach refusals). */
  item?: unknown;
  /** The contract of that id, of any template (`$itemContract` in forEach refusals). */
  itemContract?: { contractId: string; templateId: string; template: string; payload: unknown };
  /** The element a check's `whenMissing` lookup found nothing for (`$missing` in its error). */
  missing?: unknown;
  /** The values the `let` of the refusal or `transferKind.self` rule being checked computed (`$let.<name>`). */
  lets?: Map<string, unknown>;
}

export function newScope(env: RecipeEnv, o: { args?: Record<string, unknown>; contract?: IndexedContract }): Scope {
  return { admin: env.admin, now: formatInstant(env.nowMicros()), refs: new Map(), ...o };
}
