/**
 * The emulated world's clock: a base clock (wall time, or a test's ManualClock) plus a skew that
 * the admin API moves forward (`POST /admin/v1/clock/advance`). Every reader of the world's time
 * (record times, template deadlines, the Amulet round automation, scan's snapshot grid, JWT
 * expiry) reads it through the engine's clock, so one advance moves them all, as Canton's
 * simulated clock (`SimClock`, digital-asset/canton `community/base/.../time/Clock.scala`) does
 * for a whole sandbox.
 */
import type { Clock } from '../../canton/clock.js';

export class SkewedClock implements Clock {
  private skew = 0n;

  constructor(private readonly base: Clock) {}

  nowMicros(): bigint {
    return this.base.nowMicros() + this.skew;
  }

  /** Moves time forward by `micros` (never back: a negative amount is refused). */
  advance(micros: bigint): void {
    if (micros < 0n) throw new RangeError('the clock only moves forward');
    this.skew += micros;
  }

  /** How far ahead of the base clock the world is (saved and put back by snapshots). */
  get skewMicros(): bigint {
    return this.skew;
  }
  set skewMicros(micros: bigint) {
    this.skew = micros;
  }
}
