/**
 * How a Daml `Numeric` that arrives over the JSON Ledger API is read, in Canton's three steps.
 * One reading for every place such a value comes in (native templates, uploaded DARs, the
 * registry's request bodies), so that all accept and reject the same texts.
 *
 *  1. The JSON value becomes text. The JSON API's value codec (transcode `JsonCodec.numeric`,
 *     digital-asset/canton `community/transcode/codec-json/.../codec/json/JsonCodec.scala`) passes a
 *     string through unchanged, and turns a JSON number (a Double in ujson) into text with the
 *     JVM's `Double.toString`: plain digits with at least one decimal ("1.0") from 10^-3 up to
 *     10^7, scientific notation ("1.0E7") outside, which step 2 rejects.
 *  2. The Ledger API's value validation (`ValueValidator.validateNumeric`,
 *     `community/ledger/ledger-api-core/.../ledger/api/validation/ValueValidator.scala`): the
 *     whole text must match `[+-]?\d{1,38}(\.\d{0,37})?` (so "+1", "1." and "007" are fine; " 1",
 *     "1 ", ".5", "1e3", "" are not), and then `Numeric.fromUnscaledBigDecimal`
 *     (`community/daml-lf/data/.../NumericModule.scala`) must find at most 38 significant digits
 *     with trailing zeros stripped. Failing either is INVALID_ARGUMENT with
 *     `Could not read Numeric string "<text>"` (Canton's own SubmitRequestValidatorTest lists
 *     these cases).
 *  3. The engine's preprocessing (`community/daml-lf/engine/.../refinement/ValueTranslator.scala`: `Numeric.fromBigDecimal(scale, x)`) fits it to
 *     the type's scale: more significant decimals than the scale, or more than 38 - scale integer
 *     digits, is COMMAND_PREPROCESSING_FAILED.
 *
 * The scanner is hand-written and linear (no regular expression, no big numbers): the registry
 * runs it on every factory request.
 */
import { DASH, DOT, isDigit, PLUS, ZERO } from './ascii.js';

/** Numeric's precision: 38 significant digits. */
export const NUMERIC_PRECISION = 38;

/** A Numeric's text as the validation reads it: sign, and its digits without padding zeros. */
export interface NumericParts {
  negative: boolean;
  /** Integer digits without leading zeros ('' for a zero integer part). */
  int: string;
  /** Decimals up to the last non-zero one ('' when there are none). */
  frac: string;
}

/** Step 1: the text Canton sees for a JSON string or number; undefined for any other JSON value. */
export function numericTextOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return jvmDoubleText(value);
  return undefined;
}

/** Step 2: the parts of a valid text, or undefined where Canton answers "Could not read Numeric string". */
export function readNumericText(text: string): NumericParts | undefined {
  const n = text.length;
  const first = text.charCodeAt(0);
  let i = first === PLUS || first === DASH ? 1 : 0;
  const intStart = i;
  while (i < n && isDigit(text.charCodeAt(i))) i++;
  const intEnd = i;
  if (intEnd === intStart || intEnd - intStart > NUMERIC_PRECISION) return undefined;
  let fracStart = n;
  if (i < n) {
    if (text.charCodeAt(i) !== DOT) return undefined;
    fracStart = ++i;
    while (i < n && isDigit(text.charCodeAt(i))) i++;
    if (i < n || n - fracStart > NUMERIC_PRECISION - 1) return undefined;
  }
  let a = intStart;
  while (a < intEnd && text.charCodeAt(a) === ZERO) a++;
  let b = n;
  while (b > fracStart && text.charCodeAt(b - 1) === ZERO) b--;
  const int = text.slice(a, intEnd);
  const frac = text.slice(fracStart, b);
  // fromUnscaledBigDecimal: the precision of the value with trailing zeros stripped
  if (int.length > 0 && int.length + frac.length > NUMERIC_PRECISION) return undefined;
  return { negative: first === DASH, int, frac };
}

/** Step 3: why valid parts do not fit `Numeric scale`, or undefined when they do. */
export function numericScaleProblem(parts: NumericParts, scale: number): 'precision' | 'bounds' | undefined {
  if (parts.frac.length > scale) return 'precision';
  if (parts.int.length + scale > NUMERIC_PRECISION) return 'bounds';
  return undefined;
}

/** The canonical text of `Numeric scale` (exactly `scale` decimals; scale 0 ends in "."), as the ledger prints it. */
export function canonicalNumeric(parts: NumericParts, scale: number): string {
  const zero = parts.int === '' && parts.frac === '';
  return `${parts.negative && !zero ? '-' : ''}${parts.int || '0'}.${parts.frac.padEnd(scale, '0')}`;
}

/** The canonical text of a Numeric held as its unscaled integer (`1.50` at scale 2 is 150n), printed as `canonicalNumeric` prints it. */
export function formatNumeric(unscaled: bigint, scale: number): string {
  const neg = unscaled < 0n;
  const digits = (neg ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
  const cut = digits.length - scale;
  return `${neg ? '-' : ''}${digits.slice(0, cut)}.${digits.slice(cut)}`;
}

/**
 * The JVM's `Double.toString` (java.lang.Double): "0.0"/"-0.0"; plain notation with at least one
 * decimal for 10^-3 <= |d| < 10^7; otherwise `d.dddE±n` without "+" (e.g. "1.0E7", "1.5E-4").
 * The digits are JavaScript's shortest round-trip ones, which is what the JDK prints since 19.
 */
export function jvmDoubleText(d: number): string {
  if (!Number.isFinite(d)) return Number.isNaN(d) ? 'NaN' : d > 0 ? 'Infinity' : '-Infinity';
  if (d === 0) return Object.is(d, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(d);
  if (abs >= 1e-3 && abs < 1e7) {
    const s = String(d); // plain notation in this range
    return s.includes('.') ? s : `${s}.0`;
  }
  const [mantissa, exponent] = d.toExponential().split('e') as [string, string];
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${exponent.startsWith('+') ? exponent.slice(1) : exponent}`;
}
