/**
 * Predicates (`eq`, `in`, `subsetOf`, `exists`, ..., `not`, `all`, `any`) and the computed values
 * their operands and a rule's `let` may be (`list`, `union`, `record`, `if`), parsed with each
 * mistake reported at its own path.
 */
import { z } from 'zod';
import { parseValueExpr, type ValueExpr, ValueExprSchema } from './paths-and-values.js';

/**
 * A predicate operand: a value expression, or a *computed value* built from operands
 * (COMPUTED_FORMS), e.g. the sorted groups of parties an account lets initiate.
 */
export type Operand = string | boolean | null | ComputedValue;

export type ComputedValue = { list: Operand[] } | { union: Operand[] } | { record: Record<string, Operand> } | { if: Predicate; then: Operand; else?: Operand };

const COMPUTED_FORMS =
  '{"list": [a, ...]} (the present values, absent and null ones left out, in order; a list stays one element), {"union": [a, ...]} (the elements of each, a single value counting as a list of one, without duplicates, in ascending order: texts by code unit, lists element by element), {"record": {"field": a, ...}} (an object of these fields, absent ones left out, e.g. an account put together from V1 arguments, read with a path: $let.sender.owner), {"if": p, "then": a, "else": b} (a when the predicate p holds, else b, absent without "else")';

/** A condition on value expressions (see PREDICATE_FORMS). */
export type Predicate =
  | { eq: [Operand, Operand] }
  | { in: [Operand, Operand] }
  | { subsetOf: [Operand, Operand] }
  | { exists: Operand }
  | { matches: [Operand, string] }
  | { lt: [Operand, Operand] }
  | { count: [Operand, Operand] }
  | { consecutive: Operand }
  | { not: Predicate }
  | { all: Predicate[] }
  | { any: Predicate[] };

const PREDICATE_FORMS =
  '{"eq": [a, b]} (equal values), {"in": [a, b]} (a is an element of the list b; a single value counts as a list of one), {"subsetOf": [a, b]} (every element of the list a, absent and null ones aside, is in b), {"exists": a} (present and not null), {"matches": [a, "regex"]} (some element of the list a is a text the regex matches whole, JavaScript syntax), {"lt": [a, b]} (a orders before b, compared as match comparisons compare), {"count": [a, "n"]} (the list a has n elements, absent and null ones aside), {"consecutive": a} (the elements of the list a are whole numbers that, in ascending order, each follow the one before by 1), {"not": p}, {"all": [p, ...]}, {"any": [p, ...]}, where a and b are value expressions';

/** A non-negative whole number, as a `count` predicate compares with. */
export const WHOLE_NUMBER = /^(0|[1-9][0-9]*)$/;

/** Parses an operand of a predicate or computed value: a computed value (an object) or a value expression. */
function parseOperand(x: unknown, at: PropertyKey[], ctx: z.RefinementCtx): Operand | undefined {
  if (x !== null && typeof x === 'object') return parseComputed(x, at, ctx);
  const r = ValueExprSchema.safeParse(x);
  if (r.success) return r.data;
  for (const i of r.error.issues) ctx.addIssue({ code: 'custom', message: i.message, path: at });
  return undefined;
}

/** Parses a predicate, reporting each mistake at its own path. */
function parsePredicate(v: unknown, path: PropertyKey[], ctx: z.RefinementCtx): Predicate | undefined {
  const fail = (message: string, at: PropertyKey[] = path) => {
    ctx.addIssue({ code: 'custom', message, path: at });
    return undefined;
  };
  if (v === null || typeof v !== 'object' || Array.isArray(v) || Object.keys(v).length !== 1) return fail(`a predicate is one of ${PREDICATE_FORMS}`);
  const [op, arg] = Object.entries(v)[0]!;
  const operand = (x: unknown, at: PropertyKey[]) => parseOperand(x, at, ctx);
  switch (op) {
    case 'eq':
    case 'in':
    case 'lt':
    case 'subsetOf': {
      if (!Array.isArray(arg) || arg.length !== 2) return fail(`"${op}" takes a list of two value expressions`, [...path, op]);
      const a = operand(arg[0], [...path, op, 0]);
      const b = operand(arg[1], [...path, op, 1]);
      return a === undefined || b === undefined ? undefined : op === 'eq' ? { eq: [a, b] } : op === 'in' ? { in: [a, b] } : op === 'lt' ? { lt: [a, b] } : { subsetOf: [a, b] };
    }
    case 'exists':
    case 'consecutive': {
      const a = operand(arg, [...path, op]);
      return a === undefined ? undefined : op === 'exists' ? { exists: a } : { consecutive: a };
    }
    case 'count': {
      if (!Array.isArray(arg) || arg.length !== 2) return fail('"count" takes a list expression and the number of its elements, e.g. ["$ref.rounds", "3"]', [...path, op]);
      const a = operand(arg[0], [...path, op, 0]);
      const n = operand(arg[1], [...path, op, 1]);
      if (n === undefined) return undefined;
      const e = n === null || typeof n !== 'object' ? parseValueExpr(n) : undefined;
      if (e !== undefined && typeof e !== 'string' && e.kind === 'literal' && !(typeof e.value === 'string' && WHOLE_NUMBER.test(e.value))) {
        return fail(`${JSON.stringify(n)}: "count" compares with a whole number written as a string, e.g. "3"`, [...path, op, 1]);
      }
      return a === undefined ? undefined : { count: [a, n] };
    }
    case 'matches': {
      if (!Array.isArray(arg) || arg.length !== 2 || typeof arg[1] !== 'string') return fail('"matches" takes a value expression and a regular expression (a string)', [...path, op]);
      try {
        new RegExp(arg[1]);
      } catch (err) {
        return fail(`not a regular expression: ${(err as Error).message}`, [...path, op, 1]);
      }
      const a = operand(arg[0], [...path, op, 0]);
      return a === undefined ? undefined : { matches: [a, arg[1]] };
    }
    case 'not': {
      const p = parsePredicate(arg, [...path, op], ctx);
      return p === undefined ? undefined : { not: p };
    }
    case 'all':
    case 'any': {
      if (!Array.isArray(arg) || arg.length === 0) return fail(`"${op}" takes a non-empty list of predicates`, [...path, op]);
      const ps = arg.map((x, i) => parsePredicate(x, [...path, op, i], ctx));
      if (ps.some((p) => p === undefined)) return undefined;
      const ok = ps.filter((p): p is Predicate => p !== undefined);
      return op === 'all' ? { all: ok } : { any: ok };
    }
    default:
      return fail(`unknown predicate "${op}"; a predicate is one of ${PREDICATE_FORMS}`);
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Parses a computed value (COMPUTED_FORMS), reporting each mistake at its own path. */
function parseComputed(v: object, path: PropertyKey[], ctx: z.RefinementCtx): ComputedValue | undefined {
  const fail = (message: string, at: PropertyKey[] = path) => {
    ctx.addIssue({ code: 'custom', message, path: at });
    return undefined;
  };
  const operand = (x: unknown, at: PropertyKey[]) => parseOperand(x, at, ctx);
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  if (!Array.isArray(v) && keys.length === 1 && (keys[0] === 'list' || keys[0] === 'union')) {
    const k = keys[0];
    const xs = o[k];
    if (!Array.isArray(xs)) return fail(`"${k}" takes a list of values`, [...path, k]);
    const out = xs.map((x, i) => operand(x, [...path, k, i]));
    if (out.some((x) => x === undefined)) return undefined;
    const ok = out.filter((x): x is Operand => x !== undefined);
    return k === 'list' ? { list: ok } : { union: ok };
  }
  if (!Array.isArray(v) && keys.length === 1 && keys[0] === 'record') {
    if (!isPlainObject(o.record)) return fail('"record" takes an object {"field": <value>, ...}', [...path, 'record']);
    const fields = Object.entries(o.record).map(([k, x]) => [k, operand(x, [...path, 'record', k])] as const);
    if (fields.some(([, x]) => x === undefined)) return undefined;
    return { record: Object.fromEntries(fields) as Record<string, Operand> };
  }
  if (!Array.isArray(v) && 'if' in o && 'then' in o && keys.every((k) => k === 'if' || k === 'then' || k === 'else')) {
    const p = parsePredicate(o.if, [...path, 'if'], ctx);
    const then = operand(o.then, [...path, 'then']);
    const otherwise = 'else' in o ? operand(o.else, [...path, 'else']) : null;
    if (p === undefined || then === undefined || otherwise === undefined) return undefined;
    return 'else' in o ? { if: p, then, else: otherwise as Operand } : { if: p, then };
  }
  return fail(`a value is a value expression (a string, a boolean or null) or a computed value: ${COMPUTED_FORMS}`);
}

export const PredicateSchema = z.unknown().transform((v, ctx): Predicate => parsePredicate(v, [], ctx) ?? z.NEVER);

/** A value expression or a computed value (a refusal's `let`). */
export const OperandSchema = z.unknown().transform((v, ctx): Operand => {
  if (v !== null && typeof v === 'object') return parseComputed(v, [], ctx) ?? z.NEVER;
  const r = ValueExprSchema.safeParse(v);
  if (r.success) return r.data;
  for (const i of r.error.issues) ctx.addIssue({ code: 'custom', message: i.message, path: i.path as PropertyKey[] });
  return z.NEVER;
});

/** The value expressions of an operand (those inside a computed value, and of its `if` predicates). */
export function operandExpressions(o: Operand, at: string): Array<{ at: string; raw: string | boolean | null; expr: ValueExpr | string }> {
  if (o === null || typeof o !== 'object') return [{ at, raw: o, expr: parseValueExpr(o) }];
  if ('list' in o) return o.list.flatMap((x, i) => operandExpressions(x, `${at}.list[${i}]`));
  if ('union' in o) return o.union.flatMap((x, i) => operandExpressions(x, `${at}.union[${i}]`));
  if ('record' in o) return Object.entries(o.record).flatMap(([k, x]) => operandExpressions(x, `${at}.record.${k}`));
  return [...predicateExpressions(o.if, `${at}.if`), ...operandExpressions(o.then, `${at}.then`), ...(o.else !== undefined ? operandExpressions(o.else, `${at}.else`) : [])];
}

/** The value expressions of a predicate, with their paths. */
export function predicateExpressions(p: Predicate, at: string): Array<{ at: string; raw: string | boolean | null; expr: ValueExpr | string }> {
  const one = operandExpressions;
  if ('eq' in p) return p.eq.flatMap((x, i) => one(x, `${at}.eq[${i}]`));
  if ('in' in p) return p.in.flatMap((x, i) => one(x, `${at}.in[${i}]`));
  if ('subsetOf' in p) return p.subsetOf.flatMap((x, i) => one(x, `${at}.subsetOf[${i}]`));
  if ('lt' in p) return p.lt.flatMap((x, i) => one(x, `${at}.lt[${i}]`));
  if ('count' in p) return p.count.flatMap((x, i) => one(x, `${at}.count[${i}]`));
  if ('exists' in p) return one(p.exists, `${at}.exists`);
  if ('consecutive' in p) return one(p.consecutive, `${at}.consecutive`);
  if ('matches' in p) return one(p.matches[0], `${at}.matches[0]`);
  if ('not' in p) return predicateExpressions(p.not, `${at}.not`);
  if ('all' in p) return p.all.flatMap((q, i) => predicateExpressions(q, `${at}.all[${i}]`));
  return p.any.flatMap((q, i) => predicateExpressions(q, `${at}.any[${i}]`));
}
