/** Evaluating value expressions in a request's scope, and the selections they read. */
import { walk } from './paths.js';
import { parseValueExpr, type ValueExpr } from './schema/paths-and-values.js';
import type { Scope } from './scope.js';

/** A predicate operand, parsed (validateDeclarativeRecipe has checked it). */
export function parsed(raw: string | boolean | null): ValueExpr {
  const e = parseValueExpr(raw);
  if (typeof e === 'string') throw new Error(`declarative recipe: ${e}`);
  return e;
}

export function evaluate(e: ValueExpr, scope: Scope): unknown {
  return evaluateMany(e, scope).value;
}

/** A value expression's value; `many`: it is a list of values (a `*` step, or a `$ref` to a list). */
export function evaluateMany(e: ValueExpr, scope: Scope): { many: boolean; value: unknown } {
  switch (e.kind) {
    case 'literal':
      return { many: false, value: e.value };
    case 'admin':
      return { many: false, value: scope.admin };
    case 'now':
      return { many: false, value: scope.now };
    case 'contractId':
      return { many: false, value: scope.contract?.contractId };
    case 'item':
      return { many: false, value: scope.item };
    case 'missing':
      return { many: false, value: scope.missing };
    case 'itemContract':
      return walk(scope.itemContract, e.path);
    case 'args':
      return walk(scope.args, e.path);
    case 'contract':
      return walk(scope.contract?.payload, e.path);
    case 'found':
      return { many: false, value: (scope.refs.get(e.name)?.contracts.length ?? 0) > 0 };
    case 'let':
      return walk(scope.lets?.get(e.name), e.path);
    case 'ref': {
      const r = scope.refs.get(e.name);
      if (!r) return { many: false, value: undefined };
      if (!r.many) return walk(r.contracts[0]?.payload, e.path);
      return walk(r.contracts.map((c) => c.payload), ['*', ...e.path]);
    }
    default: {
      const never: never = e;
      return never;
    }
  }
}

/** The names of the selections these expressions read (`$ref`, `$found`). */
export function namesIn(exprs: ReadonlyArray<{ expr: ValueExpr | string }>): string[] {
  return unique(exprs.flatMap(({ expr }) => (typeof expr !== 'string' && (expr.kind === 'ref' || expr.kind === 'found') ? [expr.name] : [])));
}

export function unique(xs: string[]): string[] {
  return [...new Set(xs)];
}
