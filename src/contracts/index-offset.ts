/**
 * Where the index stands against its ledger: the offset it is current to, the highest ledger end
 * it has been told of (while its offset is below that, it is known to be behind), the requests
 * waiting for the offset to move, and the listeners of the transactions it applies.
 */
import type { AppliedUpdate } from './index-options.js';

/** What applying one update moved the index to (`recordTime`: set for a transaction). */
export interface AppliedPosition {
  offset: number;
  recordTime?: string;
}

export class IndexOffset {
  /** The offset the index is current to. */
  value = 0;
  /**
   * The highest ledger end the index has been told of (identity checks, syncToLedgerEnd): while
   * the index's offset is below it, the index is known to be behind.
   */
  knownEnd = 0;
  /** Waiters for the offset to reach a value (syncToLedgerEnd). */
  private waiters: Array<{ offset: number; resolve: () => void }> = [];
  private readonly appliedListeners: Array<(u: AppliedUpdate) => void> = [];

  /** A snapshot at `offset` was loaded: the ends the index was told of belong to the ledger before. */
  reset(offset: number): void {
    this.knownEnd = 0;
    this.value = offset;
  }

  /** The ledger end is `end` (or later). */
  tellLedgerEnd(end: number): void {
    if (end > this.knownEnd) this.knownEnd = end;
  }

  /** Calls `listener` for each transaction the index applies, the first time it does (lag metrics). */
  onApplied(listener: (u: AppliedUpdate) => void): void {
    this.appliedListeners.push(listener);
  }

  /** An update was applied: moves the offset, and tells the listeners of a transaction applied for the first time. */
  applied(position: AppliedPosition): void {
    if (position.recordTime === undefined) {
      this.advance(position.offset);
      return;
    }
    // Only the first time: the stream replays what a gap read applied (the lag is to the first).
    const first = position.offset > this.value;
    this.advance(position.offset);
    if (first && this.appliedListeners.length > 0) {
      const applied = { offset: position.offset, recordTime: position.recordTime, appliedAtMs: Date.now() };
      for (const l of this.appliedListeners) l(applied);
    }
  }

  /** Resolves true when the offset reaches `offset`, false after `ms`. */
  reached(offset: number, ms: number): Promise<boolean> {
    if (this.value >= offset) return Promise.resolve(true);
    if (ms <= 0) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const waiter = {
        offset,
        resolve: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(false);
      }, ms);
      this.waiters.push(waiter);
    });
  }

  /** Moves the offset forward (never back) and releases the waiters it reached. */
  advance(offset: number): void {
    if (offset <= this.value) return;
    this.value = offset;
    if (this.waiters.length === 0) return;
    const due = this.waiters.filter((w) => w.offset <= offset);
    if (due.length === 0) return;
    this.waiters = this.waiters.filter((w) => w.offset > offset);
    for (const w of due) w.resolve();
  }
}
