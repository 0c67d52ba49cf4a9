import { describe, expect, it } from 'vitest';
import { parseRequestTime, partyIdError, recordTimeString } from '../../../../src/emulator/scan/encode.js';

describe('scan timestamp encodings', () => {
  it('parses OffsetDateTime like circe and echoes it like OffsetDateTime.toString', () => {
    expect(parseRequestTime('2026-05-01T03:00:00Z')).toEqual({ micros: BigInt(Date.UTC(2026, 4, 1, 3)) * 1000n, text: '2026-05-01T03:00Z' });
    expect(parseRequestTime('2026-05-01T03:00Z')?.text).toBe('2026-05-01T03:00Z');
    expect(parseRequestTime('2026-05-01T03:00:05Z')?.text).toBe('2026-05-01T03:00:05Z');
    expect(parseRequestTime('2026-05-01T03:00:00.5Z')?.text).toBe('2026-05-01T03:00:00.500Z');
    expect(parseRequestTime('2026-05-01T03:00:00.1234Z')?.text).toBe('2026-05-01T03:00:00.123400Z');
    expect(parseRequestTime('2026-05-01T03:00:00.1234567Z')?.text).toBe('2026-05-01T03:00:00.123456700Z');
    // the offset is kept in the echo and applied to the instant; +00:00 is Z
    const t = parseRequestTime('2026-05-01T05:00:00+02:00')!;
    expect(t.text).toBe('2026-05-01T05:00+02:00');
    expect(t.micros).toBe(parseRequestTime('2026-05-01T03:00:00Z')!.micros);
    expect(parseRequestTime('2026-05-01T03:00:00+00:00')?.text).toBe('2026-05-01T03:00Z');
    // sub-microsecond digits are truncated for matching
    expect(parseRequestTime('2026-05-01T03:00:00.000001999Z')!.micros % 1_000_000n).toBe(1n);
  });

  it('rejects what is not an OffsetDateTime', () => {
    for (const bad of ['2026-05-01', '2026-05-01T03:00:00', 'yesterday', '2026-02-30T00:00:00Z', '2026-05-01T24:00:00Z', '']) {
      expect(parseRequestTime(bad), bad).toBeUndefined();
    }
  });

  it('prints update record times with exactly 6 fraction digits', () => {
    expect(recordTimeString(BigInt(Date.UTC(2026, 4, 1, 10)) * 1000n)).toBe('2026-05-01T10:00:00.000000Z');
    expect(recordTimeString(BigInt(Date.UTC(2026, 4, 1, 10)) * 1000n + 123456n)).toBe('2026-05-01T10:00:00.123456Z');
  });

  it('validates party ids like PartyId.tryFromProtoPrimitive', () => {
    expect(partyIdError('alice::1220abcd')).toBeUndefined();
    expect(partyIdError('alice')).toBe('Invalid unique identifier `alice` with missing namespace.');
    expect(partyIdError('::1220ab')).toBe('Invalid unique identifier `::1220ab`.');
    expect(partyIdError('alice::not-hex')).toBe('Invalid unique identifier `alice::not-hex`.');
  });
});
