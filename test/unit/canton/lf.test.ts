import { describe, expect, it } from 'vitest';
import { ArgumentError, decimalFacts, formatDecimal, parseDecimal } from '../../../src/canton/lf.js';

/**
 * The reading of a Decimal the scanner must agree with, written the obvious way: the JSON API's
 * Numeric 10 (at most ten places, 28 digits before the point) from `[+-]?\d+(\.\d*)?`.
 */
function oracle(value: unknown): bigint | string {
  const text = typeof value === 'number' ? value.toFixed(10) : value;
  if (typeof text !== 'string') return 'expected a Decimal';
  const m = /^([+-]?)(\d+)(?:\.(\d*))?$/.exec(text.trim());
  if (!m) return 'could not read';
  const frac = m[3] ?? '';
  if (frac.length > 10 && /[1-9]/.test(frac.slice(10))) return 'loss of precision';
  const scaled = BigInt(m[2]!) * 10n ** 10n + BigInt((frac.slice(0, 10) || '0').padEnd(10, '0'));
  if (scaled > 10n ** 38n - 1n) return 'out of bounds';
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
  if (typeof want === 'string') {
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
  10, 0.1, -2.5, 0, Number.NaN, Number.POSITIVE_INFINITY, 1e21, 1e-11, null, undefined, {}, ['1'], true,
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

  it('prints what it parses at scale 10', () => {
    expect(formatDecimal(parseDecimal(' -12.5 '))).toBe('-12.5000000000');
    expect(decimalFacts('-0.000')).toEqual({ sign: 0, places: 0, integerDigits: 0 });
    expect(decimalFacts('100.0100')).toEqual({ sign: 1, places: 2, integerDigits: 3 });
  });
});
