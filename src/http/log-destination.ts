/**
 * The process log's destination: a buffer in front of the asynchronous file-descriptor sink
 * (FdLogSink) that hands it many lines at once, at most once per `minIntervalMs`.
 *
 * Why: a busy server writes one access-log line per request, and each hand-over to the sink that
 * finds no write in flight starts an asynchronous `fs.write`: a libuv thread-pool job, a system
 * call on the pipe or file (waking its reader), and a completion callback. That costs far more
 * than the line itself. Handing over per event-loop turn still meant thousands of writes per
 * second under load, several lines each; the registry benchmark measured them at a quarter of the
 * server's CPU time per request.
 *
 * So lines are collected and handed over:
 *  - at the end of the current turn (`setImmediate`) when nothing was handed over during the last
 *    `minIntervalMs`: a quiet server's lines appear as soon as they are written;
 *  - otherwise when `minIntervalMs` has passed since the last hand-over (a timer): under load, at
 *    most 1000 / minIntervalMs writes per second, each carrying every line of that interval;
 *  - at once when more than `maxBufferedChars` are waiting, so a burst never holds much memory.
 *
 * A line therefore waits at most `minIntervalMs` (default 10 ms). On exit, what is still buffered
 * goes to the sink's `flushSync`, which writes what the descriptor takes at once and drops the rest.
 *
 * The sink gets bytes, not text: a pipe often takes only part of a batch, and a text sink would
 * convert the whole rest to bytes again for the next attempt (measured with sonic-boom's text mode
 * on the registry benchmark: 47 µs per request, against 40 with bytes, as with no log at all).
 */
import type { DestinationStream } from 'pino';

/** What this buffer writes to (FdLogSink for the process log). */
export interface LineSink {
  write(data: Buffer): unknown;
  flush?(cb?: (err?: Error) => void): void;
  flushSync?(): void;
}

export interface CoalescingLogDestinationOptions {
  /** Shortest time between two hand-overs to the sink under load, ms (default 10). */
  minIntervalMs?: number;
  /** Hand over at once when more than this many characters are waiting (default 64 Ki). */
  maxBufferedChars?: number;
  /** Monotonic milliseconds (default `performance.now`). */
  now?: () => number;
}

export class CoalescingLogDestination implements DestinationStream {
  private pending: string[] = [];
  private pendingChars = 0;
  private scheduled = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastHandOver = Number.NEGATIVE_INFINITY;
  private readonly minIntervalMs: number;
  private readonly maxBufferedChars: number;
  private readonly now: () => number;

  constructor(
    private readonly out: LineSink,
    opts: CoalescingLogDestinationOptions = {},
  ) {
    this.minIntervalMs = opts.minIntervalMs ?? 10;
    this.maxBufferedChars = opts.maxBufferedChars ?? 64 * 1024;
    this.now = opts.now ?? (() => performance.now());
  }

  write(line: string): void {
    this.pending.push(line);
    this.pendingChars += line.length;
    if (this.pendingChars > this.maxBufferedChars) {
      this.handOver();
      return;
    }
    if (this.scheduled) return;
    this.scheduled = true;
    const wait = this.minIntervalMs - (this.now() - this.lastHandOver);
    if (wait <= 0) {
      setImmediate(this.drain);
    } else {
      // unref: a pending line must not keep a finished process alive; exit writes it (flushSync)
      this.timer = setTimeout(this.drain, wait);
      this.timer.unref();
    }
  }

  /** Hands what is buffered to the sink; `cb` once the sink has written it (pino's `logger.flush`). */
  flush(cb?: (err?: Error) => void): void {
    this.handOver();
    if (this.out.flush) this.out.flush(cb);
    else cb?.();
  }

  /** Writes everything buffered, here and in the sink, before returning (process exit). */
  flushSync(): void {
    this.handOver();
    this.out.flushSync?.();
  }

  private readonly drain = (): void => {
    this.timer = undefined;
    this.scheduled = false;
    this.handOver();
  };

  private handOver(): void {
    const n = this.pending.length;
    if (n === 0) return;
    const text = n === 1 ? this.pending[0]! : this.pending.join('');
    this.pending = [];
    this.pendingChars = 0;
    this.lastHandOver = this.now();
    this.out.write(Buffer.from(text, 'utf8'));
  }
}
