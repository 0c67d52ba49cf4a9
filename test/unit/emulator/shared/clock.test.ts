import { describe, expect, it } from 'vitest';
import { formatDamlTimestamp, formatInstant, parseInstant } from '../../../../src/canton/clock.js';

describe('timestamps', () => {
  it('prints protobuf timestamps like Instant.toString (groups of 3 or 6 digits)', () => {
    expect(formatInstant(parseInstant('2025-01-27T15:30:36Z')!)).toBe('2025-01-27T15:30:36Z');
    expect(formatInstant(parseInstant('2025-01-27T15:30:36.430Z')!)).toBe('2025-01-27T15:30:36.430Z');
    expect(formatInstant(parseInstant('2025-01-27T15:30:36.430940Z')!)).toBe('2025-01-27T15:30:36.430940Z');
  });
  it('prints Daml timestamps with trailing zeros stripped, also before 1970', () => {
    expect(formatDamlTimestamp(parseInstant('2025-01-27T15:30:36.430940Z')!)).toBe('2025-01-27T15:30:36.43094Z');
    expect(formatDamlTimestamp(0n)).toBe('1970-01-01T00:00:00Z');
    expect(formatDamlTimestamp(-1n)).toBe('1969-12-31T23:59:59.999999Z');
    expect(formatInstant(-1000n)).toBe('1969-12-31T23:59:59.999Z');
  });
  it('parses offsets and truncates below microseconds', () => {
    expect(parseInstant('2025-01-27T16:30:36.1234567+01:00')).toBe(parseInstant('2025-01-27T15:30:36.123456Z'));
    expect(parseInstant('not a time')).toBeUndefined();
  });
});

describe('parseInstant against Date.parse', () => {
  it('agrees on random instants from year 1 to 9999, with fractions and offsets', () => {
    let seed = 12345;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const pad = (n: number, w: number) => String(n).padStart(w, '0');
    for (let i = 0; i < 20_000; i++) {
      const y = 1 + rnd(9999);
      const text =
        `${pad(y, 4)}-${pad(1 + rnd(12), 2)}-${pad(1 + rnd(31), 2)}T${pad(rnd(24), 2)}:${pad(rnd(60), 2)}:${pad(rnd(60), 2)}` +
        (rnd(2) ? `.${pad(rnd(1000), 3)}` : '') +
        (rnd(2) ? 'Z' : `${rnd(2) ? '+' : '-'}${pad(rnd(15), 2)}:${pad(rnd(60), 2)}`);
      const expected = Date.parse(text);
      // Date.parse rolls Feb 30 over to March; the parser refuses it (as java.time does)
      const [, mo, d] = /^\d{4}-(\d{2})-(\d{2})/.exec(text)!.map(Number) as [number, number, number];
      const valid = new Date(Date.UTC(2000, mo! - 1, 1)).getUTCMonth() === mo! - 1 && d! <= new Date(Date.UTC(y, mo!, 0)).getUTCDate();
      if (!valid) expect(parseInstant(text)).toBeUndefined();
      else expect(parseInstant(text)).toBe(BigInt(expected) * 1000n);
    }
  });

  it('refuses fields out of range', () => {
    for (const bad of ['2026-13-01T00:00:00Z', '2026-02-29T00:00:00Z', '2026-04-31T00:00:00Z', '2026-01-01T24:00:00Z', '2026-01-01T00:60:00Z', '2026-01-01T00:00:60Z', '2026-01-01T00:00:00+19:00', '2026-01-01T00:00:00+01:60', '2026-01-01 00:00:00Z']) {
      expect(parseInstant(bad), bad).toBeUndefined();
    }
    expect(parseInstant('2024-02-29T00:00:00Z')).toBe(BigInt(Date.parse('2024-02-29T00:00:00Z')) * 1000n);
    expect(parseInstant('2026-01-01T00:00:00.1234567Z')).toBe(BigInt(Date.parse('2026-01-01T00:00:00Z')) * 1000n + 123456n);
  });

  it('refuses what is not of the form yyyy-MM-ddTHH:mm:ss[.f{1,9}](Z|±hh:mm)', () => {
    const form = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;
    for (const bad of ['2026-01-01T00:00:00.Z', '2026-01-01T00:00:00.1234567890Z', '2026-01-01T00:00:00', '2026-01-01T00:00:00Zx', '2026-01-01T00:00:00+0100', '2026-01-01T00:00:00+01:00x', '+2026-01-01T00:00:00Z', '2026-1-01T00:00:00Z', '２０２６-01-01T00:00:00Z', '2026-01-01t00:00:00z']) {
      expect(form.test(bad), bad).toBe(false);
      expect(parseInstant(bad), bad).toBeUndefined();
    }
    // one character changed anywhere in valid instants: refused whenever the form no longer holds
    const chars = ['0', '9', '-', ':', '.', 'T', 'Z', '+', ' ', 'a', '٣'];
    for (const valid of ['2026-03-04T05:06:07Z', '2026-03-04T05:06:07.123456789+01:30', '2026-03-04T05:06:07.5-00:00']) {
      for (let i = 0; i <= valid.length; i++) {
        for (const c of chars) {
          for (const text of [valid.slice(0, i) + c + valid.slice(i + 1), valid.slice(0, i) + c + valid.slice(i), valid.slice(0, i) + valid.slice(i + 1)]) {
            if (!form.test(text)) expect(parseInstant(text), text).toBeUndefined();
            else if (parseInstant(text) !== undefined) expect(formatInstant(parseInstant(text)!)).toMatch(/^\d{4}-\d{2}-\d{2}T/);
          }
        }
      }
    }
  });
});
