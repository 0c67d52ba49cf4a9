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
