/**
 * Daml-LF 2 builtin functions as function values, and LF's value order and equality
 * (daml-lf-2.rst, "Built-in functions"; Speedy's SBuiltinFun for behaviour the spec leaves open).
 *
 * Contract with the evaluator:
 *  - `builtinFunction(name)` is a `FunV` whose arity is the number of VALUE arguments: type
 *    arguments are erased, except that a numeric scale the result type names comes as a value
 *    argument (a `Numeric` of that scale, "the witness") where the LF signature says so: MUL_NUMERIC
 *    and DIV_NUMERIC take (witness, x, y); CAST_NUMERIC, SHIFT_NUMERIC, INT64_TO_NUMERIC and
 *    TEXT_TO_NUMERIC take (witness, x). ROUND_NUMERIC takes (Int64 decimals, x).
 *  - TEXTMAP_EMPTY and GENMAP_EMPTY have arity 0: they are constants, and the evaluator gets the
 *    value by invoking them with no arguments (`f.invoke([])`) when it evaluates the builtin.
 *  - Variants and enums are ordered by `rank` (their constructor's index in the data type).
 *  - Errors: arithmetic failures throw `DamlThrow` carrying daml-prim's `ArithmeticError`;
 *    ERROR throws `DamlFailure` 'userError'; FAIL_WITH_STATUS `DamlFailure` 'failureStatus';
 *    comparing functions, malformed crypto input and bad code points `DamlFailure` 'other';
 *    builtins not implemented `DamlFailure` 'unsupported' when called.
 *
 * Not implemented (LF 2.dev only, absent from the LF 2.1 DARs this emulator runs): the BigNumeric
 * builtins (lf-value/runtime-value.ts has no BigNumeric value) and EXTERNAL_CALL.
 */
import type { BuiltinFunctionName } from '../ast.js';
import type { FunV } from '../../lf-value/runtime-value.js';
import {
  anyExceptionMessageFn,
  type BuiltinHooks,
  coerceContractId,
  equal,
  equalList,
  error,
  failWithStatus,
  foldl,
  foldr,
  greater,
  greaterEq,
  less,
  lessEq,
  traceFn,
  typeRepTyconName,
  unsupported,
} from './control.js';
import {
  hexToText,
  keccak256Text,
  secp256k1Bool,
  secp256k1ValidateKey,
  secp256k1WithEcdsaBool,
  sha256HexFn,
  sha256Text,
  textToHex,
} from './crypto.js';
import { addInt64, divInt64, expInt64, int64ToText, modInt64, mulInt64, subInt64, textToInt64 } from './int64.js';
import {
  genMapDelete,
  genMapEmpty,
  genMapInsert,
  genMapKeys,
  genMapLookup,
  genMapSize,
  genMapValues,
  textMapDelete,
  textMapEmpty,
  textMapInsert,
  textMapLookup,
  textMapSize,
  textMapToList,
} from './maps.js';
import {
  addNumeric,
  castNumeric,
  divNumeric,
  int64ToNumeric,
  mulNumeric,
  numericToInt64,
  numericToTextFn,
  roundNumeric,
  shiftNumeric,
  subNumeric,
  textToNumeric,
} from './numeric.js';
import {
  appendText,
  codePointsToText,
  contractIdToText,
  explodeText,
  implodeText,
  partyToText,
  textToCodePoints,
  textToParty,
} from './text.js';
import {
  dateToTextFn,
  dateToUnixDays,
  timestampToTextFn,
  timestampToUnixMicroseconds,
  unixDaysToDate,
  unixMicrosecondsToTimestamp,
} from './time.js';

export type { BuiltinHooks } from './control.js';
export { compareValues, equalValues, compareText, compareTypes } from './compare.js';
export {
  ARITHMETIC_ERROR_PACKAGE_ID,
  ARITHMETIC_ERROR_TYCON,
  arithmeticErrorValue,
  isArithmeticError,
} from './errors.js';
export { EMPTY_GEN_MAP, EMPTY_TEXT_MAP } from './maps.js';

const STATELESS = {
  EQUAL: equal,
  LESS_EQ: lessEq,
  LESS: less,
  GREATER_EQ: greaterEq,
  GREATER: greater,
  ERROR: error,
  ADD_INT64: addInt64,
  SUB_INT64: subInt64,
  MUL_INT64: mulInt64,
  DIV_INT64: divInt64,
  MOD_INT64: modInt64,
  EXP_INT64: expInt64,
  ADD_NUMERIC: addNumeric,
  SUB_NUMERIC: subNumeric,
  MUL_NUMERIC: mulNumeric,
  DIV_NUMERIC: divNumeric,
  ROUND_NUMERIC: roundNumeric,
  CAST_NUMERIC: castNumeric,
  SHIFT_NUMERIC: shiftNumeric,
  INT64_TO_NUMERIC: int64ToNumeric,
  NUMERIC_TO_INT64: numericToInt64,
  INT64_TO_TEXT: int64ToText,
  NUMERIC_TO_TEXT: numericToTextFn,
  TIMESTAMP_TO_TEXT: timestampToTextFn,
  DATE_TO_TEXT: dateToTextFn,
  PARTY_TO_TEXT: partyToText,
  TEXT_TO_PARTY: textToParty,
  TEXT_TO_INT64: textToInt64,
  TEXT_TO_NUMERIC: textToNumeric,
  CONTRACT_ID_TO_TEXT: contractIdToText,
  SHA256_TEXT: sha256Text,
  EXPLODE_TEXT: explodeText,
  APPEND_TEXT: appendText,
  IMPLODE_TEXT: implodeText,
  CODE_POINTS_TO_TEXT: codePointsToText,
  TEXT_TO_CODE_POINTS: textToCodePoints,
  DATE_TO_UNIX_DAYS: dateToUnixDays,
  UNIX_DAYS_TO_DATE: unixDaysToDate,
  TIMESTAMP_TO_UNIX_MICROSECONDS: timestampToUnixMicroseconds,
  UNIX_MICROSECONDS_TO_TIMESTAMP: unixMicrosecondsToTimestamp,
  COERCE_CONTRACT_ID: coerceContractId,
  FOLDL: foldl,
  FOLDR: foldr,
  EQUAL_LIST: equalList,
  GENMAP_EMPTY: genMapEmpty,
  GENMAP_INSERT: genMapInsert,
  GENMAP_LOOKUP: genMapLookup,
  GENMAP_DELETE: genMapDelete,
  GENMAP_KEYS: genMapKeys,
  GENMAP_VALUES: genMapValues,
  GENMAP_SIZE: genMapSize,
  TEXTMAP_EMPTY: textMapEmpty,
  TEXTMAP_INSERT: textMapInsert,
  TEXTMAP_LOOKUP: textMapLookup,
  TEXTMAP_DELETE: textMapDelete,
  TEXTMAP_TO_LIST: textMapToList,
  TEXTMAP_SIZE: textMapSize,
  FAIL_WITH_STATUS: failWithStatus,
  KECCAK256_TEXT: keccak256Text,
  SECP256K1_BOOL: secp256k1Bool,
  HEX_TO_TEXT: hexToText,
  TEXT_TO_HEX: textToHex,
  SHA256_HEX: sha256HexFn,
  SECP256K1_WITH_ECDSA_BOOL: secp256k1WithEcdsaBool,
  SECP256K1_VALIDATE_KEY: secp256k1ValidateKey,
  TYPE_REP_TYCON_NAME: typeRepTyconName,
} as const satisfies { readonly [N in BuiltinFunctionName]?: FunV };

/** Value arities of the builtins not implemented, so that partial application still works. */
const UNSUPPORTED = {
  SCALE_BIGNUMERIC: 1,
  PRECISION_BIGNUMERIC: 1,
  ADD_BIGNUMERIC: 2,
  SUB_BIGNUMERIC: 2,
  MUL_BIGNUMERIC: 2,
  DIV_BIGNUMERIC: 4,
  SHIFT_RIGHT_BIGNUMERIC: 2,
  BIGNUMERIC_TO_NUMERIC: 2,
  NUMERIC_TO_BIGNUMERIC: 1,
  BIGNUMERIC_TO_TEXT: 1,
  EXTERNAL_CALL: 4,
} as const satisfies { readonly [N in BuiltinFunctionName]?: number };

/** Compile-time check that every builtin of ast.ts has an entry (a missing one names itself here). */
type Missing = Exclude<BuiltinFunctionName, keyof typeof STATELESS | keyof typeof UNSUPPORTED | 'TRACE' | 'ANY_EXCEPTION_MESSAGE'>;
const everyBuiltinCovered: [Missing] extends [never] ? true : Missing = true;
void everyBuiltinCovered;

const statelessTable: { readonly [N in BuiltinFunctionName]?: FunV } = STATELESS;
const unsupportedTable: { readonly [N in BuiltinFunctionName]?: number } = UNSUPPORTED;

/** The builtin `name` as a function value. `hooks` serve TRACE and ANY_EXCEPTION_MESSAGE. */
export function builtinFunction(name: BuiltinFunctionName, hooks: BuiltinHooks = {}): FunV {
  if (name === 'TRACE') return traceFn(hooks);
  if (name === 'ANY_EXCEPTION_MESSAGE') return anyExceptionMessageFn(hooks);
  const f = statelessTable[name];
  if (f !== undefined) return f;
  const arity = unsupportedTable[name];
  if (arity !== undefined) return unsupported(name, arity);
  throw new TypeError(`unknown builtin function ${String(name)}`);
}

/** Every builtin name, for tests and for an evaluator that builds its table up front. */
export const BUILTIN_NAMES: readonly BuiltinFunctionName[] = [
  'TRACE',
  'ANY_EXCEPTION_MESSAGE',
  ...(Object.keys(STATELESS) as BuiltinFunctionName[]),
  ...(Object.keys(UNSUPPORTED) as BuiltinFunctionName[]),
];
