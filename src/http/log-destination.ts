/**
 * The process log's destination: pino's asynchronous file destination (sonic-boom) behind a buffer
 * that hands it the lines of one event-loop turn at once.
 *
 * Why: a busy server writes one access-log line per request. sonic-boom alone starts one
 * asynchronous `fs.write` (a libuv thread-pool job and its completion callback) whenever no write
 * is in flight, so at a few thousand requests per second most lines still cost their own write
 * call, and sonic-boom re-measures its growing buffer on every line. Collected per turn (flushed
 * from `setImmediate`, which runs once the turn's I/O callbacks are done), the lines of all the
 * requests answered in that turn go out in one write. Nothing waits longer than the current
 * turn, so a quiet server's lines appear as soon as before.
 *
 * On exit, what is still buffered is written synchronously (`flushSync`), like pino's own exit
 * handling of an asynchronous destination.
 */
import type { DestinationStream } from 'pino';

/** The part of sonic-boom (pino.destination) this buffer writes to. */
export interface LineSink {
  write(data: string): unknown;
  flush?(cb?: (err?: Error) => void): void;
  flushSync?(): void;
}

export class TurnBufferedDestination implements DestinationStream {
  private pending: string[] = [];
  private scheduled = false;

  constructor(private readonly out: LineSink) {}

  write(line: string): void {
    this.pending.push(line);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.drain);
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
    this.scheduled = false;
    this.handOver();
  };

  private handOver(): void {
    const n = this.pending.length;
    if (n === 0) return;
    const text = n === 1 ? this.pending[0]! : this.pending.join('');
    this.pending = [];
    this.out.write(text);
  }
}
