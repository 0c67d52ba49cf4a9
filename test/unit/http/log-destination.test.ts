import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { CoalescingLogDestination } from '../../../src/http/log-destination.js';

function sink() {
  const writes: string[] = [];
  let syncFlushes = 0;
  return {
    writes,
    syncFlushes: () => syncFlushes,
    out: {
      write: (b: Buffer) => writes.push(b.toString('utf8')),
      flush: (cb?: (err?: Error) => void) => cb?.(),
      flushSync: () => syncFlushes++,
    },
  };
}

const nextTurn = () => new Promise<void>((r) => setImmediate(r));

describe('CoalescingLogDestination', () => {
  it('hands the lines of one event-loop turn of a quiet process to the sink in one write, in order', async () => {
    const s = sink();
    let now = 0;
    const d = new CoalescingLogDestination(s.out, { now: () => now });
    d.write('a\n');
    d.write('b\n');
    await Promise.resolve(); // a microtask later: still the same turn
    d.write('c\n');
    expect(s.writes).toEqual([]);
    await nextTurn();
    expect(s.writes).toEqual(['a\nb\nc\n']);
    now += 100;
    d.write('d\n');
    await nextTurn();
    expect(s.writes).toEqual(['a\nb\nc\n', 'd\n']);
  });

  it('under load hands over at most once per interval, every line of the interval in one write', async () => {
    const s = sink();
    let now = 1000;
    const d = new CoalescingLogDestination(s.out, { minIntervalMs: 10, now: () => now });
    d.write('a\n');
    await nextTurn();
    expect(s.writes).toEqual(['a\n']); // quiet before: at the end of the turn
    now += 2;
    d.write('b\n');
    await nextTurn();
    d.write('c\n');
    await nextTurn();
    expect(s.writes).toEqual(['a\n']); // 2 ms after the last hand-over: waits for the interval
    await new Promise((r) => setTimeout(r, 20));
    expect(s.writes).toEqual(['a\n', 'b\nc\n']);
    now += 50; // quiet again: the next line goes out at the end of its turn
    d.write('d\n');
    await nextTurn();
    expect(s.writes).toEqual(['a\n', 'b\nc\n', 'd\n']);
  });

  it('hands over at once when more than maxBufferedChars are waiting', async () => {
    const s = sink();
    const d = new CoalescingLogDestination(s.out, { maxBufferedChars: 5 });
    d.write('abc\n');
    expect(s.writes).toEqual([]);
    d.write('def\n');
    expect(s.writes).toEqual(['abc\ndef\n']);
    await nextTurn();
    expect(s.writes).toEqual(['abc\ndef\n']);
  });

  it('writes what is pending at once on flush and flushSync', async () => {
    const s = sink();
    const d = new CoalescingLogDestination(s.out);
    d.write('a\n');
    await new Promise<void>((resolve) => d.flush(() => resolve()));
    expect(s.writes).toEqual(['a\n']);
    d.write('b\n');
    d.flushSync();
    expect(s.writes).toEqual(['a\n', 'b\n']);
    expect(s.syncFlushes()).toBe(1);
    await nextTurn();
    expect(s.writes).toEqual(['a\n', 'b\n']);
  });

  it('carries pino lines unchanged', async () => {
    const s = sink();
    const log = pino({ base: undefined, timestamp: false }, new CoalescingLogDestination(s.out));
    log.info({ reqId: 'r1', status: 200 }, 'request');
    log.warn({ reqId: 'r2', status: 503 }, 'request');
    await nextTurn();
    expect(s.writes).toHaveLength(1);
    expect(s.writes[0]!.trimEnd().split('\n').map((l) => JSON.parse(l))).toEqual([
      { level: 30, reqId: 'r1', status: 200, msg: 'request' },
      { level: 40, reqId: 'r2', status: 503, msg: 'request' },
    ]);
  });
});
