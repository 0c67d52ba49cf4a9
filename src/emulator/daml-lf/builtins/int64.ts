/**
 * Int64 builtins (daml-lf-2.rst, "Int64 functions"): 64-bit two's complement arithmetic where any
 * overflow, a division by zero, `−2⁶³ / −1` and a negative exponent throw `ArithmeticError`.
 * DIV rounds toward zero and MOD takes the dividend's sign (as Java's `/` and `%`, and bigint's).
 */
import type { FunV } from '../../lf-value/runtime-value.js';
import { expect, fun, INT64_MAX, INT64_MIN, int64, NONE, some, text } from '../../lf-value/runtime-value.js';
import { throwArithmeticError } from './errors.js';

const inRange = (v: bigint): boolean => v >= INT64_MIN && v <= INT64_MAX;

function binary(name: string, op: (x: bigint, y: bigint) => bigint | undefined): FunV {
  return fun(2, (args) => {
    const x = expect(args[0]!, 'int64').value;
    const y = expect(args[1]!, 'int64').value;
    const r = op(x, y);
    if (r === undefined || !inRange(r)) throwArithmeticError(name, args);
    return int64(r);
  }, name);
}

export const addInt64 = binary('ADD_INT64', (x, y) => x + y);
export const subInt64 = binary('SUB_INT64', (x, y) => x - y);
export const mulInt64 = binary('MUL_INT64', (x, y) => x * y);
export const divInt64 = binary('DIV_INT64', (x, y) => (y === 0n ? undefined : x / y));
export const modInt64 = binary('MOD_INT64', (x, y) => (y === 0n ? undefined : x % y));
export const expInt64 = binary('EXP_INT64', (base, exponent) => {
  if (exponent < 0n) return undefined;
  if (exponent === 0n) return 1n;
  if (base === 0n || base === 1n) return base;
  if (base === -1n) return exponent % 2n === 0n ? 1n : -1n;
  // |base| ≥ 2: anything past 2⁶³ overflows, so the exponent is below 64 for a result that fits.
  if (exponent >= 64n) return undefined;
  return base ** exponent;
});

export const int64ToText: FunV = fun(1, (args) => text(expect(args[0]!, 'int64').value.toString()), 'INT64_TO_TEXT');

/** `[+-]?\d+` (ASCII digits) that fits in 64 bits, else `None`. */
export const textToInt64: FunV = fun(1, (args) => {
  const t = expect(args[0]!, 'text').value;
  if (!/^[+-]?[0-9]+$/.test(t)) return NONE;
  const v = BigInt(t.startsWith('+') ? t.slice(1) : t);
  return inRange(v) ? some(int64(v)) : NONE;
}, 'TEXT_TO_INT64');
