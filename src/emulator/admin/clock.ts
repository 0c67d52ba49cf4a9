/**
 * The emulated world's clock: a base clock (wall time, or a test's ManualClock) plus a skew that
 * the admin API moves forward (`POST /admin/v1/clock/advance`). Every reader of the world's time
 * (record times, template deadlines, the Amulet round automation, scan's snapshot grid, JWT
 * expiry) reads it through the engine's clock, so one advance moves them all, as Canton's
 * simulated clock (`SimClock`, digital-asset/canton `community/base/.../time/Clock.scala`) does
 * for a whole sandbox.
 *
 * With STATE_DIR the skew is journaled like every other change of the world (durable-state.ts):
 * an advance is a `clock` change record, acknowledged once it is on disk, and a restart puts the
 * skew back before anything reads the time, so time never runs backwards across a restart.
 */
import type { Clock } from '../../canton/clock.js';
import type { StateJournal } from '../participant/durability/changes.js';

export class SkewedClock implements Clock {
  private skew = 0n;
  /** Durable state's journal (STATE_DIR), when the world is kept across restarts. */
  journal: StateJournal | undefined;

  constructor(private readonly base: Clock) {}

  nowMicros(): bigint {
    return this.base.nowMicros() + this.skew;
  }

  /**
   * Moves time forward by `micros` (never back: a negative amount is refused). With a journal
   * that refuses the change (the disk cannot be written: a 503 LedgerApiError), the clock stays
   * where it was.
   */
  advance(micros: bigint): void {
    if (micros < 0n) throw new RangeError('the clock only moves forward');
    const before = this.skew;
    this.skew += micros;
    try {
      // The new skew itself, not the step: replaying it twice (a snapshot taken meanwhile) is harmless.
      this.journal?.record({ kind: 'clock', skewMicros: this.skew });
    } catch (e) {
      this.skew = before;
      throw e;
    }
  }

  /** How far ahead of the base clock the world is (saved and put back by snapshots; not journaled). */
  get skewMicros(): bigint {
    return this.skew;
  }
  set skewMicros(micros: bigint) {
    this.skew = micros;
  }
}
