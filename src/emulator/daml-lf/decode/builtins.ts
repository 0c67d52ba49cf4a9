/**
 * The builtins of daml_lf2.proto: the `BuiltinFunction` enum, `BuiltinCon` (unit, false, true)
 * and `BuiltinLit` literals, Numeric literals checked as the LF data library reads them.
 */
import { LfDecodeError, type Lf2Context } from '../../dar/lf2.js';
import type { ProtoMessage } from '../../shared/protobuf.js';
import type { BuiltinFunctionName, Expr, FailureCategoryName, Literal, RoundingModeName } from '../ast.js';
import { unknownConstruct } from './expr-reader.js';

/** `BuiltinFunction` enum numbers of daml_lf2.proto. */
const BUILTIN_FUNCTIONS: ReadonlyMap<number, BuiltinFunctionName> = new Map<number, BuiltinFunctionName>([
  [0, 'TRACE'], [1, 'ERROR'], [2, 'EQUAL'], [3, 'LESS_EQ'], [4, 'LESS'], [5, 'GREATER_EQ'], [6, 'GREATER'],
  [7, 'ADD_INT64'], [8, 'SUB_INT64'], [9, 'MUL_INT64'], [10, 'DIV_INT64'], [11, 'MOD_INT64'], [12, 'EXP_INT64'],
  [13, 'ADD_NUMERIC'], [14, 'SUB_NUMERIC'], [15, 'MUL_NUMERIC'], [16, 'DIV_NUMERIC'], [17, 'ROUND_NUMERIC'],
  [18, 'CAST_NUMERIC'], [19, 'SHIFT_NUMERIC'], [20, 'INT64_TO_NUMERIC'], [21, 'NUMERIC_TO_INT64'],
  [22, 'INT64_TO_TEXT'], [23, 'NUMERIC_TO_TEXT'], [25, 'TIMESTAMP_TO_TEXT'], [26, 'DATE_TO_TEXT'],
  [27, 'PARTY_TO_TEXT'], [28, 'TEXT_TO_PARTY'], [29, 'TEXT_TO_INT64'], [30, 'TEXT_TO_NUMERIC'],
  [31, 'CONTRACT_ID_TO_TEXT'], [32, 'SHA256_TEXT'], [33, 'EXPLODE_TEXT'], [34, 'APPEND_TEXT'], [35, 'IMPLODE_TEXT'],
  [36, 'CODE_POINTS_TO_TEXT'], [37, 'TEXT_TO_CODE_POINTS'], [38, 'DATE_TO_UNIX_DAYS'], [39, 'UNIX_DAYS_TO_DATE'],
  [40, 'TIMESTAMP_TO_UNIX_MICROSECONDS'], [41, 'UNIX_MICROSECONDS_TO_TIMESTAMP'], [42, 'COERCE_CONTRACT_ID'],
  [43, 'FOLDL'], [44, 'FOLDR'], [45, 'EQUAL_LIST'],
  [52, 'GENMAP_EMPTY'], [53, 'GENMAP_INSERT'], [54, 'GENMAP_LOOKUP'], [55, 'GENMAP_DELETE'], [56, 'GENMAP_KEYS'],
  [57, 'GENMAP_VALUES'], [58, 'GENMAP_SIZE'], [59, 'ANY_EXCEPTION_MESSAGE'],
  [60, 'TEXTMAP_EMPTY'], [61, 'TEXTMAP_INSERT'], [62, 'TEXTMAP_LOOKUP'], [63, 'TEXTMAP_DELETE'],
  [64, 'TEXTMAP_TO_LIST'], [65, 'TEXTMAP_SIZE'], [66, 'FAIL_WITH_STATUS'],
  [67, 'KECCAK256_TEXT'], [68, 'SECP256K1_BOOL'], [69, 'HEX_TO_TEXT'], [70, 'TEXT_TO_HEX'], [71, 'SHA256_HEX'],
  [72, 'SECP256K1_WITH_ECDSA_BOOL'], [73, 'SECP256K1_VALIDATE_KEY'],
  [2001, 'SCALE_BIGNUMERIC'], [2002, 'PRECISION_BIGNUMERIC'], [2003, 'ADD_BIGNUMERIC'], [2004, 'SUB_BIGNUMERIC'],
  [2005, 'MUL_BIGNUMERIC'], [2006, 'DIV_BIGNUMERIC'], [2007, 'SHIFT_RIGHT_BIGNUMERIC'],
  [2008, 'BIGNUMERIC_TO_NUMERIC'], [2009, 'NUMERIC_TO_BIGNUMERIC'], [2010, 'BIGNUMERIC_TO_TEXT'],
  [3011, 'TYPE_REP_TYCON_NAME'], [5001, 'EXTERNAL_CALL'],
]);

/** `BuiltinLit.RoundingMode`, in enum order (java.math.RoundingMode's order too). */
const ROUNDING_MODES: readonly RoundingModeName[] = [
  'UP', 'DOWN', 'CEILING', 'FLOOR', 'HALF_UP', 'HALF_DOWN', 'HALF_EVEN', 'UNNECESSARY',
];
/** `BuiltinLit.FailureCategory`, in enum order. */
const FAILURE_CATEGORIES: readonly FailureCategoryName[] = [
  'INVALID_INDEPENDENT_OF_SYSTEM_STATE', 'INVALID_GIVEN_CURRENT_SYSTEM_STATE_OTHER',
];

export const UNIT: Expr = { tag: 'unit' };
export const TRUE: Expr = { tag: 'bool', value: true };
export const FALSE: Expr = { tag: 'bool', value: false };

/**
 * Numeric literals are text (`Numeric.fromString` in the LF data library): `-?([1-9]\d*|0)\.\d*`,
 * the number of digits after the point being the scale; at most 38 significant digits and scale 37
 * (daml-lf-2.rst, "Numeric").
 */
const NUMERIC_LITERAL = /^-?([1-9]\d*|0)\.(\d*)$/;
const NUMERIC_MAX_PRECISION = 38;
const NUMERIC_MAX_SCALE = 37;

export function parseNumericLiteral(text: string): { scale: number; unscaled: bigint } {
  const m = NUMERIC_LITERAL.exec(text);
  if (!m) throw new LfDecodeError(`Could not read Numeric string "${text}"`);
  const intPart = m[1]!;
  const scale = m[2]!.length;
  const precision = intPart === '0' ? scale : intPart.length + scale;
  if (precision > NUMERIC_MAX_PRECISION || scale > NUMERIC_MAX_SCALE) {
    throw new LfDecodeError(`Could not read Numeric string "${text}"`);
  }
  return { scale, unscaled: BigInt(text.replace('.', '')) };
}

/** `Expr.builtin = 4`: a `BuiltinFunction` by its enum number. */
export function builtinFunction(code: number): Expr {
  const name = BUILTIN_FUNCTIONS.get(code);
  return name ? { tag: 'builtin', name } : unknownConstruct(`BuiltinFunction ${code}`);
}

/** `Expr.builtin_con = 5`: `BuiltinCon { CON_UNIT 0, CON_FALSE 1, CON_TRUE 2 }`. */
export function builtinCon(code: number): Expr {
  return (code === 0 ? UNIT : code === 1 ? FALSE : code === 2 ? TRUE : undefined) ?? unknownConstruct(`BuiltinCon ${code}`);
}

/**
 * `BuiltinLit { int64 1 (sint64), timestamp 2 (sfixed64 µs), numeric_interned_str 3,
 * text_interned_str 4, date 5 (days), failure_category 6, rounding_mode 1001 }`.
 */
export function builtinLiteral(ctx: Lf2Context, l: ProtoMessage): Expr {
  let value: Literal;
  if (l.has(1)) value = { lit: 'int64', value: l.sint64Big(1) };
  else if (l.has(2)) value = { lit: 'timestamp', micros: l.sfixed64(2) };
  else if (l.has(3)) value = { lit: 'numeric', ...parseNumericLiteral(ctx.str(l.int32(3))) };
  else if (l.has(4)) value = { lit: 'text', value: ctx.str(l.int32(4)) };
  else if (l.has(5)) value = { lit: 'date', days: l.int32(5) };
  else if (l.has(6)) {
    const fc = FAILURE_CATEGORIES[l.int32(6)];
    if (!fc) return unknownConstruct(`FailureCategory ${l.int32(6)}`);
    value = { lit: 'failureCategory', value: fc };
  } else if (l.has(1001)) {
    const rm = ROUNDING_MODES[l.int32(1001)];
    if (!rm) return unknownConstruct(`RoundingMode ${l.int32(1001)}`);
    value = { lit: 'roundingMode', value: rm };
  } else {
    const other = l.fieldNumbers().next();
    if (other.done) throw new LfDecodeError('literal without a case');
    return unknownConstruct(`BuiltinLit case ${other.value}`);
  }
  return { tag: 'lit', value };
}
