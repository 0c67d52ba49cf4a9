/**
 * Injectable time. The emulator never reads `Date.now()` directly: every timestamp (record time,
 * createdAt, deadlines checked by templates, JWT expiry) comes from a Clock, so tests can freeze
 * or advance time deterministically.
 */
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
  const ms = micros / 1000n;
  const subMs = Number(micros % 1000n);
  const iso = new Date(Number(ms)).toISOString(); // always .SSSZ
  const base = iso.slice(0, 19);
  const millis = Number(ms % 1000n);
  if (millis === 0 && subMs === 0) return `${base}Z`;
  if (subMs === 0) return `${base}.${String(millis).padStart(3, '0')}Z`;
  return `${base}.${String(millis).padStart(3, '0')}${String(subMs).padStart(3, '0')}Z`;
}

/**
 * Formats a Daml `Timestamp` value as transcode's JSON codec does (ISO_DATE_TIME at UTC):
 * trailing zeros of the fraction are stripped, and the fraction is dropped when zero.
 */
export function formatDamlTimestamp(micros: bigint): string {
  const ms = micros / 1000n;
  const frac = Number(((micros % 1_000_000n) + 1_000_000n) % 1_000_000n);
  const base = new Date(Number(ms - (ms % 1000n))).toISOString().slice(0, 19);
  if (frac === 0) return `${base}Z`;
  return `${base}.${String(frac).padStart(6, '0').replace(/0+$/, '')}Z`;
}

/** Parses an ISO-8601 instant with optional fraction (up to 9 digits; truncated to micros). */
export function parseInstant(text: string): bigint | undefined {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/.exec(text);
  if (!m) return undefined;
  const seconds = Date.parse(`${m[1]}${m[3]}`);
  if (Number.isNaN(seconds)) return undefined;
  const frac = (m[2] ?? '').padEnd(6, '0').slice(0, 6);
  return BigInt(seconds) * 1000n + BigInt(frac);
}
