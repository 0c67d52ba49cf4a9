/**
 * Builtins over any type: comparisons, folds, errors, tracing, exceptions and type representations
 * (daml-lf-2.rst "Generic comparison functions", "List functions", "Error functions", "Debugging
 * functions", "Type Representation function"; Speedy for FAIL_WITH_STATUS, which the spec does not
 * list yet: `Text → FailureCategory → Text → TextMap Text → α`).
 */
import { DamlFailure } from '../runtime.js';
import type { AnyExceptionV, FunV, Value } from '../../lf-value/runtime-value.js';
import { applyValue, bool, expect, fun, NONE, some, text } from '../../lf-value/runtime-value.js';
import { compareValues, equalValues, failureCategoryId } from './compare.js';
import { isArithmeticError } from './errors.js';

export interface BuiltinHooks {
  /** Receives TRACE messages (nothing is logged without it). */
  trace?: (message: string) => void;
  /**
   * The message of an exception that is not an `ArithmeticError`: its DefException's message
   * function applied, which only the evaluator can run. Without it ANY_EXCEPTION_MESSAGE of such
   * an exception is an unsupported-feature failure.
   */
  exceptionMessage?: (exception: AnyExceptionV) => string;
}

export const equal: FunV = fun(2, (args) => bool(equalValues(args[0]!, args[1]!)), 'EQUAL');
export const lessEq: FunV = fun(2, (args) => bool(compareValues(args[0]!, args[1]!) <= 0), 'LESS_EQ');
export const less: FunV = fun(2, (args) => bool(compareValues(args[0]!, args[1]!) < 0), 'LESS');
export const greaterEq: FunV = fun(2, (args) => bool(compareValues(args[0]!, args[1]!) >= 0), 'GREATER_EQ');
export const greater: FunV = fun(2, (args) => bool(compareValues(args[0]!, args[1]!) > 0), 'GREATER');

export const coerceContractId: FunV = fun(1, (args) => expect(args[0]!, 'contractId'), 'COERCE_CONTRACT_ID');

/** FOLDL f z [x₁ … xₙ] = f (… (f z x₁) …) xₙ. */
export const foldl: FunV = fun(3, (args) => {
  const f = args[0]!;
  let acc = args[1]!;
  for (const x of expect(args[2]!, 'list').items) acc = applyValue(f, [acc, x]);
  return acc;
}, 'FOLDL');

/** FOLDR f z [x₁ … xₙ] = f x₁ (… (f xₙ z) …), evaluated from the right without recursion. */
export const foldr: FunV = fun(3, (args) => {
  const f = args[0]!;
  let acc = args[1]!;
  const items = expect(args[2]!, 'list').items;
  for (let i = items.length - 1; i >= 0; i--) acc = applyValue(f, [items[i]!, acc]);
  return acc;
}, 'FOLDR');

/**
 * EQUAL_LIST eq xs ys: pairwise with `eq`, stopping at the first `False`, then equal lengths.
 * Speedy calls `eq y x` (the second list's element first); so do we, for the same effects.
 */
export const equalList: FunV = fun(3, (args) => {
  const f = args[0]!;
  const xs = expect(args[1]!, 'list').items;
  const ys = expect(args[2]!, 'list').items;
  const n = Math.min(xs.length, ys.length);
  for (let i = 0; i < n; i++) if (!expect(applyValue(f, [ys[i]!, xs[i]!]), 'bool').value) return bool(false);
  return bool(xs.length === ys.length);
}, 'EQUAL_LIST');

/** TRACE msg x = x; the message goes to the hook. */
export function traceFn(hooks: BuiltinHooks): FunV {
  return fun(2, (args) => {
    hooks.trace?.(expect(args[0]!, 'text').value);
    return args[1]!;
  }, 'TRACE');
}

/** ERROR msg: a fatal (uncatchable) user error, "Throws a fatal error with the string as message". */
export const error: FunV = fun(1, (args) => {
  throw new DamlFailure({ kind: 'userError', message: expect(args[0]!, 'text').value });
}, 'ERROR');

/** FAIL_WITH_STATUS errorId category message metadata: an uncatchable failure with a Canton status. */
export const failWithStatus: FunV = fun(4, (args) => {
  const errorId = expect(args[0]!, 'text').value;
  const cat = args[1]!;
  // Speedy compiles failure category literals to their Canton category id; accept either form.
  const category = cat.tag === 'int64' ? Number(cat.value) : failureCategoryId(expect(cat, 'failureCategory').value);
  const message = expect(args[2]!, 'text').value;
  const metadata: Record<string, string> = {};
  for (const [k, v] of expect(args[3]!, 'textMap').entries) metadata[k] = expect(v, 'text').value;
  throw new DamlFailure({ kind: 'failureStatus', errorId, category, message, metadata });
}, 'FAIL_WITH_STATUS');

export function anyExceptionMessageFn(hooks: BuiltinHooks): FunV {
  return fun(1, (args) => {
    const e = expect(args[0]!, 'anyException');
    if (isArithmeticError(e.value)) return expect(e.value.fields[0]!, 'text');
    if (hooks.exceptionMessage === undefined) {
      throw new DamlFailure({ kind: 'unsupported', feature: 'ANY_EXCEPTION_MESSAGE of a user-defined exception' });
    }
    return text(hooks.exceptionMessage(e));
  }, 'ANY_EXCEPTION_MESSAGE');
}

/** `Some "pkgId:Module:Entity"` for a type constructor, `None` for any other type. */
export const typeRepTyconName: FunV = fun(1, (args) => {
  const t = expect(args[0]!, 'typeRep').type;
  if (t.kind !== 'con' || t.args.length > 0) return NONE;
  return some(text(`${t.tycon.packageId}:${t.tycon.moduleName}:${t.tycon.entityName}`));
}, 'TYPE_REP_TYCON_NAME');

/** A builtin the emulator does not implement: calling it fails, naming it. */
export function unsupported(name: string, arity: number): FunV {
  return fun(arity, (): Value => {
    throw new DamlFailure({ kind: 'unsupported', feature: name });
  }, name);
}
