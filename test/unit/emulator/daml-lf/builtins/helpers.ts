/** Shared helpers of the builtin tests: call a builtin, build numerics, catch LF errors. */
import { expect } from 'vitest';
import type { BuiltinFunctionName } from '../../../../../src/emulator/daml-lf/ast.js';
import { builtinFunction, isArithmeticError } from '../../../../../src/emulator/daml-lf/builtins/index.js';
import { DamlFailure, DamlThrow, type DamlFailureDetail } from '../../../../../src/emulator/daml-lf/runtime.js';
import type { NumericV, Value } from '../../../../../src/emulator/lf-value/runtime-value.js';
import { applyValue, int64, numeric, text } from '../../../../../src/emulator/lf-value/runtime-value.js';

/** Applies the builtin to exactly its value arguments. */
export function call(name: BuiltinFunctionName, ...args: Value[]): Value {
  const f = builtinFunction(name);
  expect(f.arity).toBe(args.length);
  return applyValue(f, args);
}

/** `num('1.50')` is 1.50 at scale 2; `num('7', 10)` is 7 at scale 10. */
export function num(s: string, scale?: number): NumericV {
  const m = /^(-?)(\d+)(?:\.(\d*))?$/.exec(s);
  if (m === null) throw new Error(`bad numeric ${s}`);
  const dec = m[3] ?? '';
  const sc = scale ?? dec.length;
  if (dec.length > sc) throw new Error(`${s} has more than ${sc} decimals`);
  const magnitude = BigInt((m[2] ?? '0') + dec.padEnd(sc, '0'));
  return numeric(sc, m[1] === '-' ? -magnitude : magnitude);
}

/** A zero of scale `s`: the scale witness the evaluator passes. */
export const scale = (s: number): NumericV => numeric(s, 0n);

export const i = (v: bigint | number): Value => int64(BigInt(v));
export const t = (v: string): Value => text(v);

/** Runs `f`, expecting an ArithmeticError whose message is `message`. */
export function expectArithmeticError(f: () => unknown, message: string): void {
  let caught: unknown;
  try {
    f();
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(DamlThrow);
  const e = caught as DamlThrow;
  expect(e.exceptionMessage).toBe(message);
  expect(isArithmeticError(e.exception.value)).toBe(true);
  expect(e.exception.value).toMatchObject({ fields: [{ tag: 'text', value: message }], fieldNames: ['message'] });
}

/** Runs `f`, expecting a DamlFailure and returning its detail. */
export function failureOf(f: () => unknown): DamlFailureDetail {
  try {
    f();
  } catch (e) {
    if (e instanceof DamlFailure) return e.detail;
    throw e;
  }
  throw new Error('expected a DamlFailure');
}
