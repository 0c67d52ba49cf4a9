import { describe, expect, it } from 'vitest';
import { int64, NONE, some, text } from '../../../../../src/emulator/lf-value/runtime-value.js';
import { call, expectArithmeticError, i, num, scale, t } from './helpers.js';

const MAX38 = '9'.repeat(38);

describe('ADD_NUMERIC / SUB_NUMERIC', () => {
  it('are exact at the common scale', () => {
    expect(call('ADD_NUMERIC', num('1.50'), num('2.25'))).toEqual(num('3.75'));
    expect(call('SUB_NUMERIC', num('1.50'), num('2.25'))).toEqual(num('-0.75'));
    expect(call('ADD_NUMERIC', num(MAX38), num('0'))).toEqual(num(MAX38));
  });

  it('throw ArithmeticError past 38 digits', () => {
    expectArithmeticError(
      () => call('ADD_NUMERIC', num(MAX38), num('1')),
      `ArithmeticError while evaluating (ADD_NUMERIC ${MAX38}.0 1.0).`,
    );
    expectArithmeticError(
      () => call('SUB_NUMERIC', num(`-${MAX38.slice(1)}.9`), num('0.1')),
      `ArithmeticError while evaluating (SUB_NUMERIC -${MAX38.slice(1)}.9 0.1).`,
    );
  });
});

describe('MUL_NUMERIC (witness, x, y): rounds half to even to the witness scale', () => {
  it('multiplies across scales', () => {
    expect(call('MUL_NUMERIC', scale(10), num('1.5'), num('2.25'))).toEqual(num('3.375', 10));
    expect(call('MUL_NUMERIC', scale(0), num('4', 10), num('2.5', 1))).toEqual(num('10'));
  });

  it("uses banker's rounding", () => {
    expect(call('MUL_NUMERIC', scale(1), num('0.25'), num('1'))).toEqual(num('0.2'));
    expect(call('MUL_NUMERIC', scale(1), num('0.35'), num('1'))).toEqual(num('0.4'));
    expect(call('MUL_NUMERIC', scale(1), num('-0.25'), num('1'))).toEqual(num('-0.2'));
    expect(call('MUL_NUMERIC', scale(1), num('-0.35'), num('1'))).toEqual(num('-0.4'));
    expect(call('MUL_NUMERIC', scale(1), num('0.251'), num('1'))).toEqual(num('0.3'));
    expect(call('MUL_NUMERIC', scale(0), num('1.5'), num('1.5'))).toEqual(num('2'));
  });

  it('overflows past 38 digits', () => {
    expectArithmeticError(
      () => call('MUL_NUMERIC', scale(0), num(`1${'0'.repeat(20)}`), num(`1${'0'.repeat(18)}`)),
      `ArithmeticError while evaluating (MUL_NUMERIC 0.0 1${'0'.repeat(20)}.0 1${'0'.repeat(18)}.0).`,
    );
  });
});

describe('DIV_NUMERIC (witness, x, y)', () => {
  it('divides and rounds half to even', () => {
    expect(call('DIV_NUMERIC', scale(10), num('1', 10), num('3', 10))).toEqual(num('0.3333333333'));
    expect(call('DIV_NUMERIC', scale(10), num('2', 10), num('3', 10))).toEqual(num('0.6666666667'));
    expect(call('DIV_NUMERIC', scale(2), num('1'), num('8'))).toEqual(num('0.12'));
    expect(call('DIV_NUMERIC', scale(2), num('3'), num('8'))).toEqual(num('0.38'));
    expect(call('DIV_NUMERIC', scale(2), num('-1'), num('8'))).toEqual(num('-0.12'));
    expect(call('DIV_NUMERIC', scale(2), num('1.23456'), num('1'))).toEqual(num('1.23'));
    expect(call('DIV_NUMERIC', scale(0), num('7.5', 1), num('0.5', 1))).toEqual(num('15'));
    expect(call('DIV_NUMERIC', scale(3), num('-7'), num('-2'))).toEqual(num('3.500'));
  });

  it('division by zero and overflow throw ArithmeticError', () => {
    expectArithmeticError(
      () => call('DIV_NUMERIC', scale(10), num('1', 10), num('0', 10)),
      'ArithmeticError while evaluating (DIV_NUMERIC 0.0 1.0 0.0).',
    );
    expectArithmeticError(
      () => call('DIV_NUMERIC', scale(0), num(`1${'0'.repeat(37)}`), num('0.1')),
      `ArithmeticError while evaluating (DIV_NUMERIC 0.0 1${'0'.repeat(37)}.0 0.1).`,
    );
  });
});

describe('ROUND_NUMERIC (decimals, x)', () => {
  it('rounds half to even, keeping the scale', () => {
    expect(call('ROUND_NUMERIC', i(1), num('2.25'))).toEqual(num('2.20'));
    expect(call('ROUND_NUMERIC', i(1), num('2.35'))).toEqual(num('2.40'));
    expect(call('ROUND_NUMERIC', i(1), num('-2.25'))).toEqual(num('-2.20'));
    expect(call('ROUND_NUMERIC', i(2), num('2.25'))).toEqual(num('2.25'));
    expect(call('ROUND_NUMERIC', i(-1), num('15.00'))).toEqual(num('20.00'));
    expect(call('ROUND_NUMERIC', i(-1), num('25.00'))).toEqual(num('20.00'));
    expect(call('ROUND_NUMERIC', i(0), num('0.5'))).toEqual(num('0.0'));
    expect(call('ROUND_NUMERIC', i(-35), num('1.00'))).toEqual(num('0.00'));
  });

  it('rejects decimals outside (scale − 38, scale] and overflow', () => {
    expectArithmeticError(() => call('ROUND_NUMERIC', i(3), num('2.25')), 'ArithmeticError while evaluating (ROUND_NUMERIC 3 2.25).');
    expectArithmeticError(() => call('ROUND_NUMERIC', i(-36), num('2.25')), 'ArithmeticError while evaluating (ROUND_NUMERIC -36 2.25).');
    expectArithmeticError(() => call('ROUND_NUMERIC', i(-1), num(MAX38)), `ArithmeticError while evaluating (ROUND_NUMERIC -1 ${MAX38}.0).`);
  });
});

describe('CAST_NUMERIC and SHIFT_NUMERIC (witness, x)', () => {
  it('CAST keeps the value', () => {
    expect(call('CAST_NUMERIC', scale(1), num('1.50'))).toEqual(num('1.5'));
    expect(call('CAST_NUMERIC', scale(10), num('1.5'))).toEqual(num('1.5', 10));
    expect(call('CAST_NUMERIC', scale(0), num('-3.000'))).toEqual(num('-3'));
  });

  it('CAST fails on precision loss or overflow', () => {
    expectArithmeticError(() => call('CAST_NUMERIC', scale(1), num('1.55')), 'ArithmeticError while evaluating (CAST_NUMERIC 0.0 1.55).');
    expectArithmeticError(
      () => call('CAST_NUMERIC', scale(1), num(`1${'0'.repeat(37)}`)),
      `ArithmeticError while evaluating (CAST_NUMERIC 0.0 1${'0'.repeat(37)}.0).`,
    );
  });

  it('SHIFT moves the decimal point: the same digits at the witness scale', () => {
    expect(call('SHIFT_NUMERIC', scale(4), num('1.23'))).toEqual(num('0.0123'));
    expect(call('SHIFT_NUMERIC', scale(0), num('1.23'))).toEqual(num('123'));
  });
});

describe('Int64 <-> Numeric', () => {
  it('INT64_TO_NUMERIC (witness, i) overflows past 38 digits', () => {
    expect(call('INT64_TO_NUMERIC', scale(10), i(5))).toEqual(num('5', 10));
    expect(call('INT64_TO_NUMERIC', scale(19), i(2n ** 63n - 1n))).toEqual(num('9223372036854775807', 19));
    expectArithmeticError(
      () => call('INT64_TO_NUMERIC', scale(20), i(2n ** 63n - 1n)),
      'ArithmeticError while evaluating (INT64_TO_NUMERIC 0.0 9223372036854775807).',
    );
  });

  it('NUMERIC_TO_INT64 truncates toward zero and overflows', () => {
    expect(call('NUMERIC_TO_INT64', num('2.9'))).toEqual(int64(2n));
    expect(call('NUMERIC_TO_INT64', num('-2.9'))).toEqual(int64(-2n));
    expect(call('NUMERIC_TO_INT64', num('-9223372036854775808.99'))).toEqual(int64(-(2n ** 63n)));
    expectArithmeticError(
      () => call('NUMERIC_TO_INT64', num('9223372036854775808.0')),
      'ArithmeticError while evaluating (NUMERIC_TO_INT64 9223372036854775808.0).',
    );
  });
});

describe('Numeric text conversions', () => {
  it('NUMERIC_TO_TEXT: shortest exact decimal with at least one fractional digit', () => {
    expect(call('NUMERIC_TO_TEXT', num('1.50'))).toEqual(text('1.5'));
    expect(call('NUMERIC_TO_TEXT', num('100'))).toEqual(text('100.0'));
    expect(call('NUMERIC_TO_TEXT', num('0', 10))).toEqual(text('0.0'));
    expect(call('NUMERIC_TO_TEXT', num('-0.05', 10))).toEqual(text('-0.05'));
    expect(call('NUMERIC_TO_TEXT', num('0.0000000000000000000000000000000000001'))).toEqual(text('0.0000000000000000000000000000000000001'));
    expect(call('NUMERIC_TO_TEXT', num(MAX38))).toEqual(text(`${MAX38}.0`));
  });

  it('TEXT_TO_NUMERIC (witness, text) reads at the witness scale or gives None', () => {
    expect(call('TEXT_TO_NUMERIC', scale(2), t('1.5'))).toEqual(some(num('1.50')));
    expect(call('TEXT_TO_NUMERIC', scale(2), t('+1.5'))).toEqual(some(num('1.50')));
    expect(call('TEXT_TO_NUMERIC', scale(2), t('-1'))).toEqual(some(num('-1.00')));
    expect(call('TEXT_TO_NUMERIC', scale(1), t('007.500'))).toEqual(some(num('7.5')));
    expect(call('TEXT_TO_NUMERIC', scale(0), t('100.000'))).toEqual(some(num('100')));
    expect(call('TEXT_TO_NUMERIC', scale(2), t('-0.0'))).toEqual(some(num('0.00')));
    expect(call('TEXT_TO_NUMERIC', scale(0), t(MAX38))).toEqual(some(num(MAX38)));
    expect(call('TEXT_TO_NUMERIC', scale(37), t(`0.${'0'.repeat(36)}1`))).toEqual(some(num(`0.${'0'.repeat(36)}1`)));
    expect(call('TEXT_TO_NUMERIC', scale(0), t(`000${MAX38}`))).toEqual(some(num(MAX38)));
    for (const bad of ['1.555', '1.', '.5', '', '1e5', '1,5', ' 1', `1${MAX38}`, '--1', 'NaN']) {
      expect(call('TEXT_TO_NUMERIC', scale(2), t(bad))).toEqual(NONE);
    }
    expect(call('TEXT_TO_NUMERIC', scale(10), t('1'.repeat(29)))).toEqual(NONE);
    expect(call('TEXT_TO_NUMERIC', scale(10), t('1'.repeat(28)))).toEqual(some(num('1'.repeat(28), 10)));
  });
});
