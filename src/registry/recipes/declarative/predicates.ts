/** Evaluating predicates and computed values (a rule's `let`). */
import { asList, compare, jsonEqual } from './json-values.js';
import { type Operand, type Predicate, WHOLE_NUMBER } from './schema/predicates.js';
import type { Scope } from './scope.js';
import { evaluate, parsed } from './value-expressions.js';

/** Whether a predicate holds (`transferKind.self`, an entry's `if`, a refusal's `when`). */
export function holds(p: Predicate, scope: Scope): boolean {
  const present = (v: unknown) => v !== undefined && v !== null;
  const member = (x: unknown, list: unknown) => present(x) && asList(list).some((y) => jsonEqual(x, y));
  if ('eq' in p) return jsonEqual(operandValue(p.eq[0], scope), operandValue(p.eq[1], scope));
  if ('in' in p) return member(operandValue(p.in[0], scope), operandValue(p.in[1], scope));
  if ('subsetOf' in p) {
    const b = operandValue(p.subsetOf[1], scope);
    return asList(operandValue(p.subsetOf[0], scope)).every((x) => !present(x) || member(x, b));
  }
  if ('exists' in p) return present(operandValue(p.exists, scope));
  if ('lt' in p) return (compare(operandValue(p.lt[0], scope), operandValue(p.lt[1], scope)) ?? 0) < 0;
  if ('count' in p) {
    const n = operandValue(p.count[1], scope);
    return typeof n === 'string' && WHOLE_NUMBER.test(n) && asList(operandValue(p.count[0], scope)).filter(present).length === Number(n);
  }
  if ('consecutive' in p) {
    const numbers = asList(operandValue(p.consecutive, scope)).map(wholeNumber);
    if (numbers.some((x) => x === undefined)) return false;
    const sorted = (numbers as bigint[]).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return sorted.every((x, i) => i === 0 || x === sorted[i - 1]! + 1n);
  }
  if ('matches' in p) {
    const re = new RegExp(`^(?:${p.matches[1]})$`);
    return asList(operandValue(p.matches[0], scope)).some((x) => typeof x === 'string' && re.test(x));
  }
  if ('not' in p) return !holds(p.not, scope);
  if ('all' in p) return p.all.every((q) => holds(q, scope));
  return p.any.some((q) => holds(q, scope));
}

/** A whole number (an Int64 text, or a JSON integer), else undefined. */
function wholeNumber(v: unknown): bigint | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? BigInt(v) : undefined;
  return typeof v === 'string' && /^-?[0-9]+$/.test(v) ? BigInt(v) : undefined;
}

/**
 * The value of a predicate operand: a value expression's, or a computed value's (`list`: the
 * present values in order; `union`: the elements of each, distinct, ascending; `if`).
 */
function operandValue(o: Operand, scope: Scope): unknown {
  if (o === null || typeof o !== 'object') return evaluate(parsed(o), scope);
  const present = (v: unknown) => v !== undefined && v !== null;
  if ('list' in o) return o.list.map((x) => operandValue(x, scope)).filter(present);
  if ('union' in o) {
    const out: unknown[] = [];
    for (const x of o.union.flatMap((y) => asList(operandValue(y, scope)))) if (present(x) && !out.some((z) => jsonEqual(x, z))) out.push(x);
    return out.sort(orderValues);
  }
  if ('record' in o) {
    const fields = Object.entries(o.record).map(([k, x]) => [k, operandValue(x, scope)] as const);
    return Object.fromEntries(fields.filter(([, v]) => present(v)));
  }
  return holds(o.if, scope) ? operandValue(o.then, scope) : o.else === undefined ? undefined : operandValue(o.else, scope);
}

/** A rule's `let` values, each computed in order (it may read those before it). */
export function letValues(lets: ReadonlyArray<[string, Operand]>, scope: Scope): Map<string, unknown> {
  const out = new Map<string, unknown>();
  scope.lets = out;
  for (const [name, o] of lets) out.set(name, operandValue(o, scope));
  return out;
}

/** Ascending order of `union`: texts by code unit, lists element by element (a prefix first), other values by their JSON. */
function orderValues(a: unknown, b: unknown): number {
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = orderValues(a[i], b[i]);
      if (c !== 0) return c;
    }
    return a.length - b.length;
  }
  const [x, y] = [typeof a === 'string' ? a : JSON.stringify(a), typeof b === 'string' ? b : JSON.stringify(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}
