/**
 * Injectable time. The emulator never reads `Date.now()` directly: every timestamp (record time,
 * createdAt, deadlines checked by templates, JWT expiry) comes from a Clock, so tests can freeze
 * or advance time deterministically.
 */
import { daysFromCivil, daysInMonth } from './calendar.js';

export interface Clock {
  /** Current time in epoch microseconds (Canton timestamps have microsecond precision). */
  nowMicros(): bigint;
}

export const systemClock: Clock = {
  nowMicros: () => BigInt(Date.now()) * 1000n,
};

/** A clock that only moves when told to. Each read can optionally tick by `autoTickMicros`. */
export class ManualClock implements Clock {
  private micros: bigint;
  constructor(
    start: Date | string = '2026-01-01T00:00:00Z',
    private readonly autoTickMicros = 0n,
  ) {
    this.micros = BigInt(new Date(start).getTime()) * 1000n;
  }
  nowMicros(): bigint {
    const t = this.micros;
    this.micros += this.autoTickMicros;
    return t;
  }
  set(at: Date | string): void {
    this.micros = BigInt(new Date(at).getTime()) * 1000n;
  }
  advance(ms: number): void {
    this.micros += BigInt(Math.round(ms * 1000));
  }
}

/**
 * Formats epoch microseconds like Java's `Instant.toString`, which Canton uses for protobuf
 * timestamps on the JSON API: the fraction is printed in groups of 3 or 6 digits and left out
 * when zero (research/ledger-api.md §1.5).
 */
export function formatInstant(micros: bigint): string {
  const { base, frac } = split(micros);
  if (frac === 0n) return `${base}Z`;
  const digits = String(frac).padStart(6, '0');
  return `${base}.${digits.endsWith('000') ? digits.slice(0, 3) : digits}Z`;
}

/** Whole seconds (as ISO, floor) and the non-negative microsecond fraction, also before 1970. */
function split(micros: bigint): { base: string; frac: bigint } {
  let secs = micros / 1_000_000n;
  let frac = micros % 1_000_000n;
  if (frac < 0n) {
    frac += 1_000_000n;
    secs -= 1n;
  }
  return { base: new Date(Number(secs) * 1000).toISOString().slice(0, 19), frac };
}

/**
 * Formats a Daml `Timestamp` value as transcode's JSON codec does (ISO_DATE_TIME at UTC):
 * trailing zeros of the fraction are stripped, and the fraction is dropped when zero.
 */
export function formatDamlTimestamp(micros: bigint): string {
  const { base, frac } = split(micros);
  if (frac === 0n) return `${base}Z`;
  return `${base}.${String(frac).padStart(6, '0').replace(/0+$/, '')}Z`;
}

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:Z|([+-])(\d{2}):(\d{2}))$/;

/**
 * Parses an ISO-8601 instant with optional fraction (up to 9 digits; truncated to micros) and a
 * `Z` or `±hh:mm` offset. Fields out of range (month 13, February 30, hour 24, second 60, offset
 * minutes 60) are refused, as java.time.Instant/OffsetDateTime refuse them. Computed from the
 * fields (days from the civil date), not with Date.parse: this runs twice per registry factory
 * request.
 */
export function parseInstant(text: string): bigint | undefined {
  const m = INSTANT.exec(text);
  if (!m) return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = Number(m[6]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetSeconds = 0;
  if (m[8] !== undefined) {
    const oh = Number(m[9]);
    const om = Number(m[10]);
    if (oh > 18 || om > 59 || (oh === 18 && om > 0)) return undefined;
    offsetSeconds = (m[8] === '-' ? -1 : 1) * (oh * 3600 + om * 60);
  }
  const epochSeconds = daysFromCivil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds;
  const f = m[7];
  const micros = f === undefined ? 0 : Number(f.length >= 6 ? f.slice(0, 6) : f + '000000'.slice(f.length));
  return BigInt(epochSeconds) * 1_000_000n + BigInt(micros);
}

