/**
 * Numeric builtins (daml-lf-2.rst, "Numeric functions"; Speedy's `Numeric` for the edge cases).
 * A `Numeric s` is an unscaled bigint with scale s ∈ [0, 37] and at most 38 significant digits.
 *  - ADD/SUB are exact; MUL/DIV round to the output scale half to even ("banker's rounding").
 *  - Any result with more than 38 digits, a division by zero, a CAST that would lose precision
 *    and a ROUND to a scale outside (s-38, s] throw `ArithmeticError`.
 *  - Scale witnesses: the builtins whose type names an output scale take a numeric value of that
 *    scale as their first argument (MUL, DIV, CAST, SHIFT, INT64_TO_NUMERIC, TEXT_TO_NUMERIC).
 */
import type { FunV, NumericV, Value } from '../../lf-value/runtime-value.js';
import { expect, fun, INT64_MAX, INT64_MIN, int64, NONE, numeric, some, text } from '../../lf-value/runtime-value.js';
import { throwArithmeticError } from './errors.js';
import { numericToText } from './format.js';

export const MAX_PRECISION = 38;
export const MAX_SCALE = 37;
const LIMIT = 10n ** BigInt(MAX_PRECISION);

const pow10 = (n: number): bigint => 10n ** BigInt(n);

/** True when `unscaled` has at most 38 digits. */
export function fitsPrecision(unscaled: bigint): boolean {
  return unscaled < LIMIT && unscaled > -LIMIT;
}

/** `n / d` rounded to the nearest integer, ties to the even one (d ≠ 0). */
export function divHalfEven(n: bigint, d: bigint): bigint {
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  let q = n / d;
  const r = n % d;
  if (r === 0n) return q;
  const twice = 2n * (r < 0n ? -r : r);
  const up = twice > d || (twice === d && (q & 1n) !== 0n);
  if (up) q += n < 0n ? -1n : 1n;
  return q;
}

/** `unscaled` at scale `from` brought to scale `to`, rounding half to even when digits go. */
function rescale(unscaled: bigint, from: number, to: number): bigint {
  return to >= from ? unscaled * pow10(to - from) : divHalfEven(unscaled, pow10(from - to));
}

type Args = readonly Value[];

function checked(name: string, args: Args, scale: number, unscaled: bigint): NumericV {
  if (!fitsPrecision(unscaled)) throwArithmeticError(name, args);
  return numeric(scale, unscaled);
}

export const addNumeric: FunV = fun(2, (args) => {
  const [x, y] = nums(args, 2);
  return checked('ADD_NUMERIC', args, x.scale, x.unscaled + y.unscaled);
}, 'ADD_NUMERIC');

export const subNumeric: FunV = fun(2, (args) => {
  const [x, y] = nums(args, 2);
  return checked('SUB_NUMERIC', args, x.scale, x.unscaled - y.unscaled);
}, 'SUB_NUMERIC');

export const mulNumeric: FunV = fun(3, (args) => {
  const [w, x, y] = nums(args, 3);
  const product = rescale(x.unscaled * y.unscaled, x.scale + y.scale, w.scale);
  return checked('MUL_NUMERIC', args, w.scale, product);
}, 'MUL_NUMERIC');

export const divNumeric: FunV = fun(3, (args) => {
  const [w, x, y] = nums(args, 3);
  if (y.unscaled === 0n) throwArithmeticError('DIV_NUMERIC', args);
  // x/y at scale w: (ux·10^-sx)/(uy·10^-sy)·10^w = ux·10^(sy-sx+w) / uy.
  const e = y.scale - x.scale + w.scale;
  const q = e >= 0 ? divHalfEven(x.unscaled * pow10(e), y.unscaled) : divHalfEven(x.unscaled, y.unscaled * pow10(-e));
  return checked('DIV_NUMERIC', args, w.scale, q);
}, 'DIV_NUMERIC');

/** ROUND_NUMERIC n x: x rounded half to even to n decimals (n may be negative: tens, hundreds, …). */
export const roundNumeric: FunV = fun(2, (args) => {
  const n = expect(args[0]!, 'int64').value;
  const x = expect(args[1]!, 'numeric');
  const s = BigInt(x.scale);
  if (!(n <= s && s - BigInt(MAX_PRECISION) < n)) throwArithmeticError('ROUND_NUMERIC', args);
  const drop = x.scale - Number(n);
  const rounded = divHalfEven(x.unscaled, pow10(drop)) * pow10(drop);
  return checked('ROUND_NUMERIC', args, x.scale, rounded);
}, 'ROUND_NUMERIC');

/** CAST_NUMERIC w x: x at w's scale, only when no digit is lost. */
export const castNumeric: FunV = fun(2, (args) => {
  const [w, x] = nums(args, 2);
  if (w.scale < x.scale && x.unscaled % pow10(x.scale - w.scale) !== 0n) throwArithmeticError('CAST_NUMERIC', args);
  const unscaled = w.scale >= x.scale ? x.unscaled * pow10(w.scale - x.scale) : x.unscaled / pow10(x.scale - w.scale);
  return checked('CAST_NUMERIC', args, w.scale, unscaled);
}, 'CAST_NUMERIC');

/** SHIFT_NUMERIC w x: x·10^(scale x − scale w) at w's scale, i.e. the same digits, another scale. */
export const shiftNumeric: FunV = fun(2, (args) => {
  const [w, x] = nums(args, 2);
  return numeric(w.scale, x.unscaled);
}, 'SHIFT_NUMERIC');

export const int64ToNumeric: FunV = fun(2, (args) => {
  const w = expect(args[0]!, 'numeric');
  const i = expect(args[1]!, 'int64').value;
  return checked('INT64_TO_NUMERIC', args, w.scale, i * pow10(w.scale));
}, 'INT64_TO_NUMERIC');

/** The integral part (rounding toward zero). */
export const numericToInt64: FunV = fun(1, (args) => {
  const x = expect(args[0]!, 'numeric');
  const i = x.unscaled / pow10(x.scale);
  if (i < INT64_MIN || i > INT64_MAX) throwArithmeticError('NUMERIC_TO_INT64', args);
  return int64(i);
}, 'NUMERIC_TO_INT64');

export const numericToTextFn: FunV = fun(1, (args) => text(numericToText(expect(args[0]!, 'numeric'))), 'NUMERIC_TO_TEXT');

/**
 * TEXT_TO_NUMERIC w t: `[+-]?\d+(\.\d+)?` read at w's scale, `None` when it has more decimals than
 * the scale allows or too many integer digits. Leading and trailing zeros are not significant
 * ("007.500" at scale 1 is 7.5), as Speedy reads it.
 */
const NUMERIC_TEXT = /^([+-]?)0*(\d+)(?:\.(\d*[1-9]|0)0*)?$/;

export const textToNumeric: FunV = fun(2, (args) => {
  const w = expect(args[0]!, 'numeric');
  const t = expect(args[1]!, 'text').value;
  const m = NUMERIC_TEXT.exec(t);
  if (m === null) return NONE;
  const signPart = m[1];
  const intPart = m[2] ?? '0';
  const decGroup = m[3];
  const decPart = decGroup === undefined || decGroup === '0' ? '' : decGroup;
  const intDigits = intPart === '0' ? 0 : intPart.length;
  if (intDigits > MAX_PRECISION - w.scale || decPart.length > w.scale) return NONE;
  const magnitude = BigInt(intPart + decPart.padEnd(w.scale, '0'));
  return some(numeric(w.scale, signPart === '-' ? -magnitude : magnitude));
}, 'TEXT_TO_NUMERIC');

function nums(args: Args, n: 2): [NumericV, NumericV];
function nums(args: Args, n: 3): [NumericV, NumericV, NumericV];
function nums(args: Args, n: number): NumericV[] {
  const out: NumericV[] = [];
  for (let i = 0; i < n; i++) out.push(expect(args[i]!, 'numeric'));
  return out;
}
