/**
 * Injectable time. The emulator never reads `Date.now()` directly: every timestamp (record time,
 * createdAt, deadlines checked by templates, JWT expiry) comes from a Clock, so tests can freeze
 * or advance time deterministically.
 */
import { DASH, DOT, isDigit, PLUS, ZERO } from './ascii.js';
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
 * when zero (Java `Instant.toString`, as Canton's `JsSchema.scala` writes them).
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

/**
 * Parses an ISO-8601 instant, `yyyy-MM-ddTHH:mm:ss`, an optional fraction (1 to 9 digits;
 * truncated to micros) and a `Z` or `±hh:mm` offset. Fields out of range (month 13, February 30,
 * hour 24, second 60, offset minutes 60) are refused, as java.time.Instant/OffsetDateTime refuse
 * them. Read character by character and computed from the fields (days from the civil date), not
 * with a regular expression or Date.parse: this runs twice per registry factory request, and a
 * match with ten groups allocated more than the rest of the check.
 */
export function parseInstant(text: string): bigint | undefined {
  const n = text.length;
  if (n < 20 || text.charCodeAt(4) !== DASH || text.charCodeAt(7) !== DASH || text.charCodeAt(10) !== T) return undefined;
  if (text.charCodeAt(13) !== COLON || text.charCodeAt(16) !== COLON) return undefined;
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  const hour = digitsAt(text, 11, 2);
  const minute = digitsAt(text, 14, 2);
  const second = digitsAt(text, 17, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) {
    return undefined;
  }
  let i = 19;
  let micros = 0;
  if (text.charCodeAt(i) === DOT) {
    let end = i + 1;
    while (end < n && isDigit(text.charCodeAt(end))) end++;
    const count = end - i - 1;
    if (count < 1 || count > 9) return undefined;
    for (let k = 0; k < 6; k++) micros = micros * 10 + (k < count ? text.charCodeAt(i + 1 + k) - ZERO : 0);
    i = end;
  }
  let offsetSeconds = 0;
  const sign = text.charCodeAt(i);
  if (sign === PLUS || sign === DASH) {
    if (n !== i + 6 || text.charCodeAt(i + 3) !== COLON) return undefined;
    const oh = digitsAt(text, i + 1, 2);
    const om = digitsAt(text, i + 4, 2);
    if (oh < 0 || om < 0 || oh > 18 || om > 59 || (oh === 18 && om > 0)) return undefined;
    offsetSeconds = (sign === DASH ? -1 : 1) * (oh * 3600 + om * 60);
  } else if (sign !== Z || n !== i + 1) {
    return undefined;
  }
  const epochSeconds = daysFromCivil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds;
  return BigInt(epochSeconds) * 1_000_000n + BigInt(micros);
}

const COLON = 0x3a;
const T = 0x54;
const Z = 0x5a;

/** The number written by the `count` ASCII digits at `at`, or -1 when one of them is not a digit. */
function digitsAt(text: string, at: number, count: number): number {
  let v = 0;
  for (let k = at; k < at + count; k++) {
    const c = text.charCodeAt(k);
    if (!isDigit(c)) return -1;
    v = v * 10 + (c - ZERO);
  }
  return v;
}

