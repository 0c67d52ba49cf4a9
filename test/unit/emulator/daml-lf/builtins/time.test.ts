import { describe, expect, it } from 'vitest';
import { MAX_DATE_DAYS, MAX_TIMESTAMP_MICROS, MIN_DATE_DAYS, MIN_TIMESTAMP_MICROS } from '../../../../../src/emulator/daml-lf/builtins/time.js';
import { date, int64, text, timestamp } from '../../../../../src/emulator/lf-value/runtime-value.js';
import { call, expectArithmeticError, i } from './helpers.js';

const DAY_MS = 86_400_000;

describe('date and timestamp limits (daml-lf-2.rst "Literals")', () => {
  it('are 0001-01-01 .. 9999-12-31T23:59:59.999999Z', () => {
    expect(MIN_DATE_DAYS).toBe(Date.parse('0001-01-01T00:00:00Z') / DAY_MS);
    expect(MAX_DATE_DAYS).toBe(Date.parse('9999-12-31T00:00:00Z') / DAY_MS);
    expect(MIN_TIMESTAMP_MICROS).toBe(-62135596800000000n);
    expect(MAX_TIMESTAMP_MICROS).toBe(253402300799999999n);
  });
});

describe('DATE_TO_TEXT', () => {
  it('formats YYYY-MM-DD over the whole range', () => {
    expect(call('DATE_TO_TEXT', date(0))).toEqual(text('1970-01-01'));
    expect(call('DATE_TO_TEXT', date(MIN_DATE_DAYS))).toEqual(text('0001-01-01'));
    expect(call('DATE_TO_TEXT', date(MAX_DATE_DAYS))).toEqual(text('9999-12-31'));
    expect(call('DATE_TO_TEXT', date(Date.parse('2000-02-29T00:00:00Z') / DAY_MS))).toEqual(text('2000-02-29'));
    expect(call('DATE_TO_TEXT', date(Date.parse('1900-03-01T00:00:00Z') / DAY_MS))).toEqual(text('1900-03-01'));
  });

  it('agrees with the proleptic Gregorian calendar of JS Date on a sweep of days', () => {
    for (let d = MIN_DATE_DAYS; d <= MAX_DATE_DAYS; d += 4999) {
      const expected = new Date(d * DAY_MS).toISOString().slice(0, 10);
      expect(call('DATE_TO_TEXT', date(d))).toEqual(text(expected));
    }
  });
});

describe('TIMESTAMP_TO_TEXT', () => {
  const ts = (us: bigint) => call('TIMESTAMP_TO_TEXT', timestamp(us));
  it('prints ISO 8601 UTC with no fraction, milliseconds or microseconds', () => {
    expect(ts(0n)).toEqual(text('1970-01-01T00:00:00Z'));
    expect(ts(1n)).toEqual(text('1970-01-01T00:00:00.000001Z'));
    expect(ts(1000n)).toEqual(text('1970-01-01T00:00:00.001Z'));
    expect(ts(120_000n)).toEqual(text('1970-01-01T00:00:00.120Z'));
    expect(ts(123_456n)).toEqual(text('1970-01-01T00:00:00.123456Z'));
    expect(ts(-1n)).toEqual(text('1969-12-31T23:59:59.999999Z'));
    expect(ts(1_700_000_000_000_000n)).toEqual(text('2023-11-14T22:13:20Z'));
    expect(ts(MIN_TIMESTAMP_MICROS)).toEqual(text('0001-01-01T00:00:00Z'));
    expect(ts(MAX_TIMESTAMP_MICROS)).toEqual(text('9999-12-31T23:59:59.999999Z'));
  });
});

describe('conversions to and from Int64', () => {
  it('DATE_TO_UNIX_DAYS and UNIX_DAYS_TO_DATE round-trip within range', () => {
    expect(call('DATE_TO_UNIX_DAYS', date(-5))).toEqual(int64(-5n));
    expect(call('UNIX_DAYS_TO_DATE', i(MIN_DATE_DAYS))).toEqual(date(MIN_DATE_DAYS));
    expect(call('UNIX_DAYS_TO_DATE', i(MAX_DATE_DAYS))).toEqual(date(MAX_DATE_DAYS));
  });

  it('UNIX_DAYS_TO_DATE out of range throws ArithmeticError', () => {
    expectArithmeticError(() => call('UNIX_DAYS_TO_DATE', i(MIN_DATE_DAYS - 1)), 'ArithmeticError while evaluating (UNIX_DAYS_TO_DATE -719163).');
    expectArithmeticError(() => call('UNIX_DAYS_TO_DATE', i(MAX_DATE_DAYS + 1)), 'ArithmeticError while evaluating (UNIX_DAYS_TO_DATE 2932897).');
    expectArithmeticError(() => call('UNIX_DAYS_TO_DATE', i(2n ** 40n)), 'ArithmeticError while evaluating (UNIX_DAYS_TO_DATE 1099511627776).');
  });

  it('TIMESTAMP_TO_UNIX_MICROSECONDS and back; out of range throws ArithmeticError', () => {
    expect(call('TIMESTAMP_TO_UNIX_MICROSECONDS', timestamp(-7n))).toEqual(int64(-7n));
    expect(call('UNIX_MICROSECONDS_TO_TIMESTAMP', i(MAX_TIMESTAMP_MICROS))).toEqual(timestamp(MAX_TIMESTAMP_MICROS));
    expect(call('UNIX_MICROSECONDS_TO_TIMESTAMP', i(MIN_TIMESTAMP_MICROS))).toEqual(timestamp(MIN_TIMESTAMP_MICROS));
    expectArithmeticError(
      () => call('UNIX_MICROSECONDS_TO_TIMESTAMP', i(MAX_TIMESTAMP_MICROS + 1n)),
      'ArithmeticError while evaluating (UNIX_MICROSECONDS_TO_TIMESTAMP 253402300800000000).',
    );
    expectArithmeticError(
      () => call('UNIX_MICROSECONDS_TO_TIMESTAMP', i(MIN_TIMESTAMP_MICROS - 1n)),
      'ArithmeticError while evaluating (UNIX_MICROSECONDS_TO_TIMESTAMP -62135596800000001).',
    );
  });
});
