import { describe, expect, it } from 'vitest';
import { canonicalNumeric, jvmDoubleText, numericScaleProblem, readNumericText } from '../../../src/canton/numeric.js';

describe('readNumericText: the Ledger API validation of a Numeric text', () => {
  // The cases of Canton's SubmitRequestValidatorTest ("validating decimal values"), each with "", "+" and "-"
  const valid = ['0', '0.0', '1.0000', '3.1415926536', '1' + '0'.repeat(27), '1' + '0'.repeat(27) + '.' + '0'.repeat(9) + '1', '0.' + '0'.repeat(9) + '1', '0.'];
  const invalid = ['zero', '1E10', '+', '-', '0x01', '.', '', '.0', '0.' + '0'.repeat(37) + '1', '1' + '0'.repeat(38), '1' + '0'.repeat(28) + '.' + '0'.repeat(10) + '1'];

  it('accepts what Canton accepts, with any sign', () => {
    for (const sign of ['', '+', '-']) for (const v of valid) expect(readNumericText(sign + v), sign + v).toBeDefined();
  });

  it('rejects what Canton rejects, with any sign', () => {
    for (const sign of ['', '+', '-']) for (const v of invalid) expect(readNumericText(sign + v), sign + v).toBeUndefined();
  });

  it('takes no white space, and the digit counts of the pattern include padding zeros', () => {
    for (const v of [' 1', '1 ', '\t1', '1\n', '1 .0']) expect(readNumericText(v), JSON.stringify(v)).toBeUndefined();
    expect(readNumericText('0'.repeat(38))).toBeDefined();
    expect(readNumericText('0'.repeat(39))).toBeUndefined();
    expect(readNumericText('1.' + '0'.repeat(37))).toBeDefined();
    expect(readNumericText('1.' + '0'.repeat(38))).toBeUndefined();
  });

  it('strips padding zeros and keeps the sign', () => {
    expect(readNumericText('+007.250')).toEqual({ negative: false, int: '7', frac: '25' });
    expect(readNumericText('-0.000')).toEqual({ negative: true, int: '', frac: '' });
    expect(readNumericText('1.')).toEqual({ negative: false, int: '1', frac: '' });
  });
});

describe('numericScaleProblem and canonicalNumeric: the engine fitting it to a scale', () => {
  it('finds decimals beyond the scale and integer digits beyond 38 - scale', () => {
    expect(numericScaleProblem(readNumericText('1.00000000001')!, 10)).toBe('precision');
    expect(numericScaleProblem(readNumericText('1' + '0'.repeat(28))!, 10)).toBe('bounds');
    expect(numericScaleProblem(readNumericText('9'.repeat(28) + '.9999999999')!, 10)).toBeUndefined();
  });

  it('prints exactly scale decimals, scale 0 ending in ".", zero without a sign', () => {
    expect(canonicalNumeric(readNumericText('+1.')!, 10)).toBe('1.0000000000');
    expect(canonicalNumeric(readNumericText('-0.0')!, 2)).toBe('0.00');
    expect(canonicalNumeric(readNumericText('7')!, 0)).toBe('7.');
  });
});

describe('jvmDoubleText: a JSON number as Canton turns it into text', () => {
  it('is plain with a decimal from 1e-3 below 1e7, scientific outside', () => {
    expect(jvmDoubleText(10)).toBe('10.0');
    expect(jvmDoubleText(-2.5)).toBe('-2.5');
    expect(jvmDoubleText(0)).toBe('0.0');
    expect(jvmDoubleText(-0)).toBe('-0.0');
    expect(jvmDoubleText(0.001)).toBe('0.001');
    expect(jvmDoubleText(9999999.5)).toBe('9999999.5');
    expect(jvmDoubleText(1e7)).toBe('1.0E7');
    expect(jvmDoubleText(12345678)).toBe('1.2345678E7');
    expect(jvmDoubleText(0.0009)).toBe('9.0E-4');
    expect(jvmDoubleText(1e21)).toBe('1.0E21');
  });
});
