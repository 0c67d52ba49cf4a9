import { describe, expect, it } from 'vitest';
import { FdLogSink, type FdWriter } from '../../../src/http/fd-log-sink.js';

type Answer = { err: string } | { take: number };

/** A descriptor whose answers the test decides: each write takes what `next()` says. */
function fakeFd(next: () => Answer) {
  const written: string[] = [];
  const pending: (() => void)[] = [];
  const answer = (buf: Buffer, length: number): { err?: NodeJS.ErrnoException; n: number } => {
    const a = next();
    if ('err' in a) return { err: Object.assign(new Error(a.err), { code: a.err }), n: 0 };
    const n = Math.min(a.take, length);
    written.push(buf.subarray(0, n).toString('utf8'));
    return { n };
  };
  const fs: FdWriter = {
    write(_fd, buffer, offset, length, _pos, cb) {
      // completes when the test says so, like a thread-pool write
      pending.push(() => {
        const { err, n } = answer(buffer.subarray(offset), length);
        cb(err ?? null, n);
      });
    },
    writeSync(_fd, buffer, offset, length) {
      const { err, n } = answer(buffer.subarray(offset), length);
      if (err) throw err;
      return n;
    },
  };
  return {
    fs,
    written,
    /** Completes the write in flight, if any. */
    complete: () => pending.shift()?.(),
    inFlight: () => pending.length,
  };
}

const lines = (n: number, tag: string) => Buffer.from(Array.from({ length: n }, (_, i) => `${tag}${i}\n`).join(''));

describe('FdLogSink', () => {
  it('writes in order, one write in flight, the rest batched behind it', () => {
    const d = fakeFd(() => ({ take: 1 << 20 }));
    const s = new FdLogSink(1, { fs: d.fs });
    s.write(Buffer.from('a\n'));
    s.write(Buffer.from('b\n'));
    s.write(Buffer.from('c\n'));
    expect(d.inFlight()).toBe(1);
    d.complete();
    d.complete();
    expect(d.written.join('')).toBe('a\nb\nc\n');
    expect(d.written).toEqual(['a\n', 'b\nc\n']);
    expect(s.droppedLines()).toBe(0);
  });

  it('keeps the rest of a partial write first in line', () => {
    const takes = [3, 100, 100];
    const d = fakeFd(() => ({ take: takes.shift() ?? 100 }));
    const s = new FdLogSink(1, { fs: d.fs });
    s.write(Buffer.from('one\ntwo\n'));
    s.write(Buffer.from('three\n'));
    d.complete();
    d.complete();
    expect(d.written.join('')).toBe('one\ntwo\nthree\n');
  });

  it('drops whole batches beyond maxQueuedBytes while the reader stalls, and counts their lines', () => {
    const d = fakeFd(() => ({ err: 'EAGAIN' }));
    const s = new FdLogSink(1, { fs: d.fs, maxQueuedBytes: 100, retryMs: 60_000 });
    s.write(lines(5, 'a')); // 15 bytes: in flight
    expect(s.write(lines(10, 'b'))).toBe(true); // 30 of 100
    expect(s.write(lines(30, 'c'))).toBe(false); // 90 more would exceed it
    expect(s.droppedLines()).toBe(30);
    d.complete(); // EAGAIN: the batch waits for the retry timer, still kept
    expect(s.write(lines(10, 'd'))).toBe(true);
    expect(s.droppedLines()).toBe(30);
  });

  it('on EPIPE drops what is queued and everything later, and says why', () => {
    const d = fakeFd(() => ({ err: 'EPIPE' }));
    const s = new FdLogSink(1, { fs: d.fs });
    s.write(lines(2, 'a'));
    s.write(lines(3, 'b'));
    d.complete();
    expect(s.droppedLines()).toBe(5);
    expect(s.failure()?.code).toBe('EPIPE');
    s.write(lines(4, 'c'));
    expect(d.inFlight()).toBe(0);
    expect(s.droppedLines()).toBe(9);
    let flushed = false;
    s.flush(() => (flushed = true));
    expect(flushed).toBe(true);
  });

  it('flushSync writes what the descriptor takes at once and drops the rest, without retrying', () => {
    const answers: Answer[] = [{ take: 4 }, { err: 'EAGAIN' }];
    let calls = 0;
    const d = fakeFd(() => {
      calls++;
      return answers.shift() ?? { take: 1 << 20 };
    });
    const s = new FdLogSink(1, { fs: d.fs });
    s.write(lines(1, 'x')); // in flight, never completed: left to its write
    s.write(lines(3, 'y')); // "y0\ny1\ny2\n"
    s.flushSync();
    expect(d.written).toEqual(['y0\ny']); // took 4 bytes, then partial: stop
    expect(calls).toBe(1);
    expect(s.droppedLines()).toBe(2);
  });

  it('flushSync stops at the first error (EPIPE at exit) and counts every queued line', () => {
    const d = fakeFd(() => ({ err: 'EPIPE' }));
    const s = new FdLogSink(1, { fs: d.fs });
    s.write(lines(1, 'x'));
    s.write(lines(2, 'y'));
    s.write(lines(2, 'z'));
    s.flushSync();
    expect(s.droppedLines()).toBe(4);
    expect(s.failure()?.code).toBe('EPIPE');
  });

  it('flush resolves once everything is written', () => {
    const d = fakeFd(() => ({ take: 1 << 20 }));
    const s = new FdLogSink(1, { fs: d.fs });
    s.write(lines(2, 'a'));
    let flushed = false;
    s.flush(() => (flushed = true));
    expect(flushed).toBe(false);
    d.complete();
    expect(flushed).toBe(true);
  });
});
