import { describe, expect, it } from 'vitest';
import { ArgumentError, decimalFacts, formatDecimal, NumericSyntaxError, parseDecimal } from '../../../src/canton/lf-value.js';

/**
 * The reading of a Decimal the scanner must agree with, written the obvious way from Canton's
 * rules (src/canton/numeric.ts): a JSON number as the JVM's Double.toString prints it; the
 * Ledger API's `[+-]?\d{1,38}(\.\d{0,37})?` with at most 38 significant digits; then Numeric 10
 * (at most ten significant places, 28 digits before the point).
 */
function oracle(value: unknown): bigint | RegExp {
  let text = value;
  if (typeof value === 'number') {
    const abs = Math.abs(value);
    text = value === 0 ? '0.0' : abs >= 1e-3 && abs < 1e7 ? String(value) : `${value}E`; // any scientific text fails
  }
  if (typeof text !== 'string') return /expected a Decimal/;
  const m = /^([+-]?)(\d{1,38})(?:\.(\d{0,37}))?$/.exec(text);
  if (!m) return /Could not read Numeric string/;
  const int = m[2]!.replace(/^0+/, '');
  const frac = (m[3] ?? '').replace(/0+$/, '');
  if (int.length > 0 && int.length + frac.length > 38) return /Could not read Numeric string/;
  if (frac.length > 10) return /loss of precision/;
  if (int.length > 28) return /out of bounds/;
  const scaled = BigInt(int || '0') * 10n ** 10n + BigInt(frac.padEnd(10, '0'));
  return m[1] === '-' ? -scaled : scaled;
}

function places(scaled: bigint): number {
  const frac = (scaled < 0n ? -scaled : scaled) % 10n ** 10n;
  return frac === 0n ? 0 : 10 - (/0*$/.exec(frac.toString().padStart(10, '0'))![0].length);
}

function outcome(f: () => unknown): unknown {
  try {
    return f();
  } catch (e) {
    expect(e).toBeInstanceOf(ArgumentError);
    return (e as Error).message;
  }
}

function agrees(value: unknown): void {
  const want = oracle(value);
  const got = outcome(() => parseDecimal(value, 'amount'));
  const facts = outcome(() => decimalFacts(value, 'amount'));
  if (want instanceof RegExp) {
    expect(got, JSON.stringify(value)).toMatch(want);
    expect(facts, JSON.stringify(value)).toBe(got);
  } else {
    expect(got, JSON.stringify(value)).toBe(want);
    expect(facts, JSON.stringify(value)).toEqual({
      sign: want === 0n ? 0 : want < 0n ? -1 : 1,
      places: places(want),
      integerDigits: (want < 0n ? -want : want) / 10n ** 10n === 0n ? 0 : ((want < 0n ? -want : want) / 10n ** 10n).toString().length,
    });
  }
}

const examples: unknown[] = [
  '10', '10.0', '10.', '0', '-0', '+0.0', '0.0000000000', '-0.5', '+12.25', '007', '  3.5 ', '1.1234567890', '1.12345678901',
  '1.12345678900000', '0.00000000001', '1e5', '', '.5', '-', '+', '1.2.3', '1,5', '١٢', 'NaN', '12a', '1 2',
  '9'.repeat(28), '9'.repeat(28) + '.9999999999', '9'.repeat(29), '1' + '0'.repeat(28), '0'.repeat(40) + '1', '-' + '9'.repeat(29),
  ' 1', '1 ', '+1', '1.', '-1.', '+.5', '0'.repeat(38) + '1', '0'.repeat(37) + '1', '1.' + '0'.repeat(37), '1.' + '0'.repeat(38),
  '1' + '0'.repeat(28) + '.' + '0'.repeat(9) + '1', '1\n', '\t1',
  10, 0.1, -2.5, 0, Number.NaN, Number.POSITIVE_INFINITY, 1e21, 1e-11, 1e7, 9999999.5, 0.001, 0.0009, null, undefined, {}, ['1'], true,
];

describe('parseDecimal and decimalFacts', () => {
  it('read the examples as the regular-expression reading does, with the same errors', () => {
    for (const v of examples) agrees(v);
  });

  it('agree with it under every one-character change of valid amounts', () => {
    const alphabet = ['0', '1', '9', '.', '-', '+', ' ', 'e', ''];
    for (const base of ['10', '-0.25', '123.4567890123', '0.0000000001', '9'.repeat(28)]) {
      for (let i = 0; i <= base.length; i++) {
        for (const c of alphabet) {
          agrees(base.slice(0, i) + c + base.slice(i + 1)); // replace (or delete with '')
          agrees(base.slice(0, i) + c + base.slice(i)); // insert
        }
      }
    }
  });

  it('rejects a text the Ledger API cannot read as NumericSyntaxError, with Canton\'s cause', () => {
    for (const v of [' 1', '1 ', '.5', '1e3', '', '1' + '0'.repeat(38), 1e7]) {
      const e = outcome(() => parseDecimal(v, 'amount'));
      expect(e, JSON.stringify(v)).toMatch(/^amount: Could not read Numeric string/);
    }
    try {
      parseDecimal(' 1', 'amount');
    } catch (e) {
      expect(e).toBeInstanceOf(NumericSyntaxError);
      expect((e as NumericSyntaxError).cantonCause).toBe('Could not read Numeric string " 1"');
    }
    // Valid for the validation, but not for Numeric 10: the engine's preprocessing (plain ArgumentError)
    for (const v of ['1.00000000001', '1' + '0'.repeat(28)]) {
      try {
        parseDecimal(v, 'amount');
        expect.unreachable(v);
      } catch (e) {
        expect(e).toBeInstanceOf(ArgumentError);
        expect(e).not.toBeInstanceOf(NumericSyntaxError);
      }
    }
  });

  it('prints what it parses at scale 10', () => {
    expect(formatDecimal(parseDecimal('-12.5'))).toBe('-12.5000000000');
    expect(formatDecimal(parseDecimal('+1.'))).toBe('1.0000000000');
    expect(formatDecimal(parseDecimal(10))).toBe('10.0000000000');
    expect(decimalFacts('-0.000')).toEqual({ sign: 0, places: 0, integerDigits: 0 });
    expect(decimalFacts('100.0100')).toEqual({ sign: 1, places: 2, integerDigits: 3 });
  });
});
