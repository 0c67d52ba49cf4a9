/**
 * Where the process log's bytes go: a file descriptor (stdout), written asynchronously, with a
 * bounded queue that drops what does not fit, and an exit flush that never waits.
 *
 * Why not pino's own destination (sonic-boom): a process logs to a pipe whose reader may stall
 * (a full pipe) or go away (EPIPE). sonic-boom then keeps every line in memory (its queue has no
 * bound unless `maxLength` is set), and on process exit pino calls its `flushSync`, which sleeps
 * and retries until everything is written: on EAGAIN (a stalled reader) by design, and on any other
 * error too (`flushBufferSync` in pinojs/sonic-boom `index.js` only rethrows EAGAIN/EBUSY when
 * `retryEAGAIN` refuses; every other code falls through to the sleep). A process with such a
 * stdout never finishes exiting; a test harness that started it is left with an orphan holding
 * its ports.
 *
 * Here:
 *  - one `fs.write` in flight at a time; what arrives meanwhile is queued, up to `maxQueuedBytes`;
 *    beyond that, whole batches are dropped and their lines counted;
 *  - EAGAIN (the reader is slow) waits `retryMs` on an unref'd timer and tries again; any other
 *    error (EPIPE, EIO on a closed terminal, EBADF) marks the sink broken: what is queued and
 *    everything later is dropped and counted;
 *  - `flushSync` (process exit) writes what the descriptor takes at once and stops at the first
 *    error or partial write: a pipe that Node has made non-blocking (it does so for stdout once
 *    `process.stdout` exists) answers EAGAIN instead of waiting. What is left is counted as dropped.
 *
 * Nothing here sleeps or loops waiting for the reader, so a signal handler and timers keep
 * running whatever the reader does.
 */
import fs from 'node:fs';

/** The parts of `node:fs` the sink uses (tests inject a fake descriptor). */
export interface FdWriter {
  write(fd: number, buffer: Buffer, offset: number, length: number, position: null, callback: (err: NodeJS.ErrnoException | null, written: number) => void): void;
  writeSync(fd: number, buffer: Buffer, offset: number, length: number): number;
}

export interface FdLogSinkOptions {
  /** The most bytes kept waiting for a slow reader (default 4 MiB); more is dropped. */
  maxQueuedBytes?: number;
  /** Wait before trying again after EAGAIN, ms (default 50). */
  retryMs?: number;
  fs?: FdWriter;
}

export class FdLogSink {
  private queue: Buffer[] = [];
  private queuedBytes = 0;
  /** The batch handed to `fs.write` and not yet confirmed (already out of `queue`). */
  private inFlight: Buffer | undefined;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private broken: NodeJS.ErrnoException | undefined;
  private dropped = 0;
  private idleWaiters: (() => void)[] = [];
  private readonly maxQueuedBytes: number;
  private readonly retryMs: number;
  private readonly fs: FdWriter;

  constructor(
    private readonly fd: number,
    opts: FdLogSinkOptions = {},
  ) {
    this.maxQueuedBytes = opts.maxQueuedBytes ?? 4 * 1024 * 1024;
    this.retryMs = opts.retryMs ?? 50;
    this.fs = opts.fs ?? fs;
  }

  /** Lines that could not be written (the queue was full, or the descriptor failed). */
  droppedLines(): number {
    return this.dropped;
  }

  /** Why the descriptor stopped taking writes, if it did (EPIPE, EIO, ...). */
  failure(): NodeJS.ErrnoException | undefined {
    return this.broken;
  }

  write(data: Buffer): boolean {
    if (this.broken || this.queuedBytes + data.length > this.maxQueuedBytes) {
      this.drop(data);
      return false;
    }
    this.queue.push(data);
    this.queuedBytes += data.length;
    if (!this.inFlight && !this.retryTimer) this.next();
    return true;
  }

  /** `cb` once everything queued so far is written, or the descriptor has failed. */
  flush(cb?: (err?: Error) => void): void {
    if (this.idle()) {
      cb?.();
      return;
    }
    this.idleWaiters.push(() => cb?.());
  }

  /**
   * Process exit: writes what the descriptor takes now, without waiting; the rest is dropped and
   * counted. The batch of a write still in flight is left to it (a thread-pool write that
   * completes, or fails, on its own).
   */
  flushSync(): void {
    if (this.retryTimer) {
      clearTimeout(this.retryTimer);
      this.retryTimer = undefined;
    }
    while (this.queue.length > 0 && !this.broken) {
      const buf = this.queue[0]!;
      let n: number;
      try {
        n = this.fs.writeSync(this.fd, buf, 0, buf.length);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') this.broken = err as NodeJS.ErrnoException;
        break;
      }
      this.queuedBytes -= n;
      if (n < buf.length) {
        this.queue[0] = buf.subarray(n);
        break; // the reader is behind: waiting for it is what must not happen at exit
      }
      this.queue.shift();
    }
    for (const b of this.queue) this.drop(b);
    this.queue = [];
    this.queuedBytes = 0;
  }

  private idle(): boolean {
    return this.broken !== undefined || (this.queue.length === 0 && !this.inFlight);
  }

  private next(): void {
    this.retryTimer = undefined;
    if (this.queue.length === 0 || this.broken) {
      this.settle();
      return;
    }
    const buf = this.queue.length === 1 ? this.queue[0]! : Buffer.concat(this.queue, this.queuedBytes);
    this.queue = [];
    this.queuedBytes = 0;
    this.inFlight = buf;
    this.fs.write(this.fd, buf, 0, buf.length, null, (err, written) => this.written(buf, err, written));
  }

  private written(buf: Buffer, err: NodeJS.ErrnoException | null, n: number): void {
    this.inFlight = undefined;
    if (err && err.code !== 'EAGAIN') {
      this.broken = err;
      this.drop(buf);
      for (const b of this.queue) this.drop(b);
      this.queue = [];
      this.queuedBytes = 0;
      this.settle();
      return;
    }
    const rest = err ? buf : buf.subarray(n);
    if (rest.length > 0) {
      // Back to the head of the queue, in order; it was accepted once, so it does not count
      // against the bound again (the bound is what new lines may add).
      this.queue.unshift(rest);
      this.queuedBytes += rest.length;
    }
    if (err) {
      // unref: a slow reader must not keep a finished process alive
      this.retryTimer = setTimeout(() => this.next(), this.retryMs);
      this.retryTimer.unref();
      return;
    }
    this.next();
  }

  private settle(): void {
    if (!this.idle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  private drop(buf: Buffer): void {
    let lines = 0;
    for (let i = buf.indexOf(10); i >= 0; i = buf.indexOf(10, i + 1)) lines++;
    this.dropped += lines > 0 ? lines : 1;
  }
}
