import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { TurnBufferedDestination } from '../../../src/http/log-destination.js';

function sink() {
  const writes: string[] = [];
  let syncFlushes = 0;
  return {
    writes,
    syncFlushes: () => syncFlushes,
    out: {
      write: (s: string) => writes.push(s),
      flush: (cb?: (err?: Error) => void) => cb?.(),
      flushSync: () => syncFlushes++,
    },
  };
}

const nextTurn = () => new Promise<void>((r) => setImmediate(r));

describe('TurnBufferedDestination', () => {
  it('hands the lines of one event-loop turn to the sink in one write, in order', async () => {
    const s = sink();
    const d = new TurnBufferedDestination(s.out);
    d.write('a\n');
    d.write('b\n');
    await Promise.resolve(); // a microtask later: still the same turn
    d.write('c\n');
    expect(s.writes).toEqual([]);
    await nextTurn();
    expect(s.writes).toEqual(['a\nb\nc\n']);
    d.write('d\n');
    await nextTurn();
    expect(s.writes).toEqual(['a\nb\nc\n', 'd\n']);
  });

  it('writes what is pending at once on flush and flushSync', async () => {
    const s = sink();
    const d = new TurnBufferedDestination(s.out);
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
    const log = pino({ base: undefined, timestamp: false }, new TurnBufferedDestination(s.out));
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
