/** `transferKind` compiled once, and decided in a request: `self` by its rules (or sender = receiver), `direct` when a rule finds a contract, else `offer`. */
import type { IndexedContract } from '../../../contracts/indexed-contract.js';
import { contractIdValue, type RecipeEnv } from '../recipe.js';
import type { Resolution, Slot } from './context-entries.js';
import { jsonEqual } from './json-values.js';
import { holds, letValues } from './predicates.js';
import { type Operand, operandExpressions, type Predicate, predicateExpressions } from './schema/predicates.js';
import type { DirectRule, SelfRule } from './schema/transfer-kind.js';
import type { Scope } from './scope.js';
import { type CompiledSelector, compileSelector, flat, pickOne, select } from './selection.js';
import { unique } from './value-expressions.js';

export interface CompiledDirect extends CompiledSelector {
  contextKey?: string;
  name?: string;
  endpoints: readonly string[];
}

/** A `transferKind.self` rule, compiled: its `let` values, predicate, endpoints and the selections they read. */
export interface CompiledSelfRule {
  when: Predicate;
  lets: Array<[string, Operand]>;
  endpoints: readonly string[];
  deps: string[];
}

/** The `transferKind.direct` rules (one or a list), compiled. */
export function compileDirectRules(direct: DirectRule | DirectRule[] | undefined): CompiledDirect[] {
  const rules: DirectRule[] = direct === undefined ? [] : Array.isArray(direct) ? direct : [direct];
  return rules.map((r) => ({
    ...compileSelector(r),
    ...(r.key !== undefined ? { contextKey: r.key } : {}),
    ...(r.name !== undefined ? { name: r.name } : {}),
    endpoints: r.endpoints ?? ['transferFactory.v1', 'transferFactory.v2'],
  }));
}

/** The `transferKind.self` rules, compiled. */
export function compileSelfRules(rules: readonly SelfRule[]): CompiledSelfRule[] {
  return rules.map((r) => {
    const lets = Object.entries(r.let ?? {});
    const exprs = [...lets.flatMap(([, o]) => operandExpressions(o, '')), ...predicateExpressions(r.when, '')];
    return {
      when: r.when,
      lets,
      endpoints: r.endpoints ?? ['transferFactory.v1', 'transferFactory.v2'],
      deps: unique(exprs.flatMap(({ expr }) => (typeof expr !== 'string' && (expr.kind === 'ref' || expr.kind === 'found') ? [expr.name] : []))),
    };
  });
}

/** Whether the transfer is `self`: by the endpoint's rules (the selections they read made first), else when sender = receiver. */
export async function isSelf(rules: readonly CompiledSelfRule[], transfer: { sender?: unknown; receiver?: unknown }, scope: Scope, resolution: Resolution): Promise<boolean> {
  if (rules.length === 0) return jsonEqual(transfer.sender, transfer.receiver);
  await resolution.need(rules.flatMap((r) => r.deps));
  return rules.some((r) => {
    if (r.lets.length > 0) scope.lets = letValues(r.lets, scope);
    return holds(r.when, scope);
  });
}

/** The first `transferKind.direct` rule that finds a contract, and the contract (named in `scope`). */
export async function firstDirect(rules: readonly CompiledDirect[], scope: Scope, env: RecipeEnv): Promise<{ rule: CompiledDirect; contract: IndexedContract } | undefined> {
  for (const rule of rules) {
    const found = flat(await select(rule, scope, env));
    if (found.length === 0) continue;
    const contract = pickOne(rule, found, scope, `Transfer pre-approval "${rule.contextKey ?? rule.name ?? rule.ref}"`);
    if (rule.name !== undefined) scope.refs.set(rule.name, { contracts: [contract], many: false });
    return { rule, contract };
  }
  return undefined;
}

/** Each direct rule's place in the disclosures (after the context entries), matched or not: the matched rule's contract under its key. */
export function directSlots(rules: readonly CompiledDirect[], matched?: { rule: CompiledDirect; contract: IndexedContract }): Slot[] {
  return rules.map((r) => {
    const slot: Slot = { ...(r.name !== undefined ? { name: r.name } : {}), values: {}, disclose: [] };
    if (matched?.rule === r && r.contextKey !== undefined) {
      slot.values[r.contextKey] = contractIdValue(matched.contract.contractId);
      slot.disclose.push(matched.contract);
    }
    return slot;
  });
}
