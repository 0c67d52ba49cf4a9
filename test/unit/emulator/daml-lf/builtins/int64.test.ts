import { describe, expect, it } from 'vitest';
import { int64, NONE, some } from '../../../../../src/emulator/lf-value/runtime-value.js';
import { call, expectArithmeticError, i, t } from './helpers.js';

const MAX = 2n ** 63n - 1n;
const MIN = -(2n ** 63n);

describe('Int64 arithmetic (daml-lf-2.rst "Int64 functions")', () => {
  it('adds, subtracts and multiplies within range', () => {
    expect(call('ADD_INT64', i(2), i(3))).toEqual(int64(5n));
    expect(call('SUB_INT64', i(2), i(3))).toEqual(int64(-1n));
    expect(call('MUL_INT64', i(-4), i(3))).toEqual(int64(-12n));
    expect(call('ADD_INT64', i(MAX - 1n), i(1))).toEqual(int64(MAX));
    expect(call('SUB_INT64', i(MIN + 1n), i(1))).toEqual(int64(MIN));
    expect(call('MUL_INT64', i(MIN), i(1))).toEqual(int64(MIN));
  });

  it('throws ArithmeticError on overflow, naming the call as Speedy does', () => {
    expectArithmeticError(() => call('ADD_INT64', i(MAX), i(1)), 'ArithmeticError while evaluating (ADD_INT64 9223372036854775807 1).');
    expectArithmeticError(() => call('SUB_INT64', i(MIN), i(1)), 'ArithmeticError while evaluating (SUB_INT64 -9223372036854775808 1).');
    expectArithmeticError(() => call('MUL_INT64', i(MIN), i(-1)), 'ArithmeticError while evaluating (MUL_INT64 -9223372036854775808 -1).');
    expectArithmeticError(() => call('MUL_INT64', i(2n ** 32n), i(2n ** 31n)), 'ArithmeticError while evaluating (MUL_INT64 4294967296 2147483648).');
  });

  it('divides rounding toward zero; division by zero and MIN / -1 are errors', () => {
    expect(call('DIV_INT64', i(7), i(2))).toEqual(int64(3n));
    expect(call('DIV_INT64', i(-7), i(2))).toEqual(int64(-3n));
    expect(call('DIV_INT64', i(7), i(-2))).toEqual(int64(-3n));
    expect(call('DIV_INT64', i(MIN), i(1))).toEqual(int64(MIN));
    expectArithmeticError(() => call('DIV_INT64', i(1), i(0)), 'ArithmeticError while evaluating (DIV_INT64 1 0).');
    expectArithmeticError(() => call('DIV_INT64', i(MIN), i(-1)), 'ArithmeticError while evaluating (DIV_INT64 -9223372036854775808 -1).');
  });

  it('takes the remainder with the sign of the dividend; modulo zero is an error', () => {
    expect(call('MOD_INT64', i(7), i(3))).toEqual(int64(1n));
    expect(call('MOD_INT64', i(-7), i(3))).toEqual(int64(-1n));
    expect(call('MOD_INT64', i(7), i(-3))).toEqual(int64(1n));
    expect(call('MOD_INT64', i(MIN), i(-1))).toEqual(int64(0n));
    expectArithmeticError(() => call('MOD_INT64', i(5), i(0)), 'ArithmeticError while evaluating (MOD_INT64 5 0).');
  });

  it('exponentiates; a negative exponent or an overflow is an error', () => {
    expect(call('EXP_INT64', i(2), i(10))).toEqual(int64(1024n));
    expect(call('EXP_INT64', i(0), i(0))).toEqual(int64(1n));
    expect(call('EXP_INT64', i(-2), i(63))).toEqual(int64(MIN));
    expect(call('EXP_INT64', i(-1), i(MAX))).toEqual(int64(-1n));
    expect(call('EXP_INT64', i(1), i(MAX))).toEqual(int64(1n));
    expect(call('EXP_INT64', i(0), i(MAX))).toEqual(int64(0n));
    expect(call('EXP_INT64', i(3), i(39))).toEqual(int64(3n ** 39n));
    expectArithmeticError(() => call('EXP_INT64', i(2), i(63)), 'ArithmeticError while evaluating (EXP_INT64 2 63).');
    expectArithmeticError(() => call('EXP_INT64', i(2), i(-1)), 'ArithmeticError while evaluating (EXP_INT64 2 -1).');
    expectArithmeticError(() => call('EXP_INT64', i(3), i(MAX)), 'ArithmeticError while evaluating (EXP_INT64 3 9223372036854775807).');
  });
});

describe('Int64 text conversions', () => {
  it('INT64_TO_TEXT is the decimal representation', () => {
    expect(call('INT64_TO_TEXT', i(MIN))).toEqual(t('-9223372036854775808'));
    expect(call('INT64_TO_TEXT', i(0))).toEqual(t('0'));
  });

  it('TEXT_TO_INT64 reads [+-]?\\d+ that fits, else None', () => {
    expect(call('TEXT_TO_INT64', t('42'))).toEqual(some(int64(42n)));
    expect(call('TEXT_TO_INT64', t('+42'))).toEqual(some(int64(42n)));
    expect(call('TEXT_TO_INT64', t('-0042'))).toEqual(some(int64(-42n)));
    expect(call('TEXT_TO_INT64', t('9223372036854775807'))).toEqual(some(int64(MAX)));
    expect(call('TEXT_TO_INT64', t('-9223372036854775808'))).toEqual(some(int64(MIN)));
    for (const bad of ['9223372036854775808', '-9223372036854775809', '', '+', '1.0', ' 1', '1e3', '١٢', '0x10']) {
      expect(call('TEXT_TO_INT64', t(bad))).toEqual(NONE);
    }
  });
});
