import { describe, expect, it } from 'vitest';
import type { BuiltinFunctionName } from '../../../../../src/emulator/daml-lf/ast.js';
import { BUILTIN_NAMES, builtinFunction } from '../../../../../src/emulator/daml-lf/builtins/index.js';
import { UNIT } from '../../../../../src/emulator/lf-value/runtime-value.js';
import { failureOf } from './helpers.js';

/** Value arities from the LF 2 signatures, scale witnesses counted (daml-lf-2.rst "Built-in functions"). */
const ARITY: Record<BuiltinFunctionName, number> = {
  TRACE: 2, ERROR: 1, EQUAL: 2, LESS_EQ: 2, LESS: 2, GREATER_EQ: 2, GREATER: 2,
  ADD_INT64: 2, SUB_INT64: 2, MUL_INT64: 2, DIV_INT64: 2, MOD_INT64: 2, EXP_INT64: 2,
  ADD_NUMERIC: 2, SUB_NUMERIC: 2, MUL_NUMERIC: 3, DIV_NUMERIC: 3, ROUND_NUMERIC: 2, CAST_NUMERIC: 2,
  SHIFT_NUMERIC: 2, INT64_TO_NUMERIC: 2, NUMERIC_TO_INT64: 1,
  INT64_TO_TEXT: 1, NUMERIC_TO_TEXT: 1, TIMESTAMP_TO_TEXT: 1, DATE_TO_TEXT: 1, PARTY_TO_TEXT: 1,
  TEXT_TO_PARTY: 1, TEXT_TO_INT64: 1, TEXT_TO_NUMERIC: 2, CONTRACT_ID_TO_TEXT: 1,
  SHA256_TEXT: 1, EXPLODE_TEXT: 1, APPEND_TEXT: 2, IMPLODE_TEXT: 1, CODE_POINTS_TO_TEXT: 1, TEXT_TO_CODE_POINTS: 1,
  DATE_TO_UNIX_DAYS: 1, UNIX_DAYS_TO_DATE: 1, TIMESTAMP_TO_UNIX_MICROSECONDS: 1, UNIX_MICROSECONDS_TO_TIMESTAMP: 1,
  COERCE_CONTRACT_ID: 1, FOLDL: 3, FOLDR: 3, EQUAL_LIST: 3,
  GENMAP_EMPTY: 0, GENMAP_INSERT: 3, GENMAP_LOOKUP: 2, GENMAP_DELETE: 2, GENMAP_KEYS: 1, GENMAP_VALUES: 1, GENMAP_SIZE: 1,
  TEXTMAP_EMPTY: 0, TEXTMAP_INSERT: 3, TEXTMAP_LOOKUP: 2, TEXTMAP_DELETE: 2, TEXTMAP_TO_LIST: 1, TEXTMAP_SIZE: 1,
  ANY_EXCEPTION_MESSAGE: 1, FAIL_WITH_STATUS: 4,
  KECCAK256_TEXT: 1, SECP256K1_BOOL: 3, HEX_TO_TEXT: 1, TEXT_TO_HEX: 1, SHA256_HEX: 1, SECP256K1_WITH_ECDSA_BOOL: 3,
  SECP256K1_VALIDATE_KEY: 1,
  SCALE_BIGNUMERIC: 1, PRECISION_BIGNUMERIC: 1, ADD_BIGNUMERIC: 2, SUB_BIGNUMERIC: 2, MUL_BIGNUMERIC: 2,
  DIV_BIGNUMERIC: 4, SHIFT_RIGHT_BIGNUMERIC: 2, BIGNUMERIC_TO_NUMERIC: 2, NUMERIC_TO_BIGNUMERIC: 1, BIGNUMERIC_TO_TEXT: 1,
  TYPE_REP_TYCON_NAME: 1, EXTERNAL_CALL: 4,
};

const NOT_IMPLEMENTED: BuiltinFunctionName[] = [
  'SCALE_BIGNUMERIC', 'PRECISION_BIGNUMERIC', 'ADD_BIGNUMERIC', 'SUB_BIGNUMERIC', 'MUL_BIGNUMERIC', 'DIV_BIGNUMERIC',
  'SHIFT_RIGHT_BIGNUMERIC', 'BIGNUMERIC_TO_NUMERIC', 'NUMERIC_TO_BIGNUMERIC', 'BIGNUMERIC_TO_TEXT', 'EXTERNAL_CALL',
];

describe('builtinFunction', () => {
  it('covers every builtin of ast.ts with its value arity', () => {
    expect([...BUILTIN_NAMES].sort()).toEqual(Object.keys(ARITY).sort());
    for (const [name, arity] of Object.entries(ARITY) as Array<[BuiltinFunctionName, number]>) {
      const f = builtinFunction(name);
      expect(f.tag, name).toBe('fun');
      expect(f.arity, name).toBe(arity);
      expect(f.name, name).toBe(name);
    }
  });

  it('builtins not implemented fail with an unsupported-feature error naming them', () => {
    for (const name of NOT_IMPLEMENTED) {
      const f = builtinFunction(name);
      expect(failureOf(() => f.invoke(Array.from({ length: f.arity }, () => UNIT)))).toEqual({ kind: 'unsupported', feature: name });
    }
  });
});
