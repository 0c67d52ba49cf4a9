import { pino, type DestinationStream } from 'pino';
import { describe, expect, it } from 'vitest';
import { AccessLog, type AccessEntry } from '../../../src/http/access-log.js';
import { CoalescingLogDestination } from '../../../src/http/log-destination.js';

function capture() {
  const lines: string[] = [];
  const stream: DestinationStream = { write: (s: string) => void lines.push(s) };
  return { lines, stream };
}

const entries: AccessEntry[] = [
  { reqId: 'r1', method: 'POST', route: '/registry/transfer-instruction/v1/transfer-factory', path: '/registry/transfer-instruction/v1/transfer-factory', status: 200, ms: 0.42 },
  { reqId: 'r2', traceId: '4bf92f3577b34da6a3ce929d0e0e4736', method: 'GET', route: 'unmatched', path: '/a"b\\c/\u0001/é', status: 404, ms: 12 },
  { reqId: 'r3', method: 'POST', route: '/x', path: '/x', status: 503, ms: 3.5, aborted: true },
  { reqId: 'r4', method: 'GET', route: '/y', path: '/y\\z', status: 200, ms: 0.01 },
  { reqId: 'ré"q\u2028', traceId: '\ud800', method: 'PATCH', route: '/p/{id}', path: '/p/\u007f\u0000😀', status: 201, ms: 1234567.89 },
];

/** What pino itself writes for the entry (the pipeline's former `log.info(line, 'request')`). */
function viaPino(logger: pino.Logger, e: AccessEntry): void {
  const { traceId, aborted, ...rest } = e;
  const obj = { reqId: rest.reqId, traceId, method: rest.method, route: rest.route, path: rest.path, status: rest.status, ms: rest.ms, aborted };
  if (e.status >= 500) logger.warn(obj, 'request');
  else logger.info(obj, 'request');
}

describe('AccessLog', () => {
  it('writes exactly the lines pino writes, for a default logger with bindings', () => {
    const a = capture();
    const b = capture();
    const time = () => ',"time":1700000000000';
    const ours = new AccessLog(pino({ level: 'info', timestamp: time }, a.stream).child({ service: 'registry' }).child({ module: 'http' }));
    const theirs = pino({ level: 'info', timestamp: time }, b.stream).child({ service: 'registry' }).child({ module: 'http' });
    expect(ours.writesDirectly).toBe(true);
    for (const e of entries) {
      ours.write(e);
      viaPino(theirs, e);
    }
    // as bytes, as they reach the log: a lone surrogate in pino's string is U+FFFD in UTF-8, as in ours
    expect(a.lines.map((l) => Buffer.from(l, 'utf8'))).toEqual(b.lines.map((l) => Buffer.from(l, 'utf8')));
    expect(a.lines.map((l) => JSON.parse(l).msg)).toEqual(entries.map(() => 'request'));
    expect(JSON.parse(a.lines[2]!)).toMatchObject({ level: 40, aborted: true, status: 503 });
  });

  it('goes through the logger when its lines would differ (formatters, message key)', () => {
    const a = capture();
    const b = capture();
    const opts = { level: 'info', timestamp: false, messageKey: 'message', formatters: { level: (label: string) => ({ severity: label.toUpperCase() }) } } as const;
    const ours = new AccessLog(pino(opts, a.stream).child({ module: 'http' }));
    const theirs = pino(opts, b.stream).child({ module: 'http' });
    expect(ours.writesDirectly).toBe(false);
    for (const e of entries) {
      ours.write(e);
      viaPino(theirs, e);
    }
    expect(a.lines).toEqual(b.lines);
    expect(JSON.parse(a.lines[0]!)).toMatchObject({ severity: 'INFO', message: 'request' });
  });

  it('follows the level: nothing below warn but 5xx at warn, nothing at all when silent', () => {
    const a = capture();
    const warnOnly = new AccessLog(pino({ level: 'warn' }, a.stream));
    expect(warnOnly.infoEnabled).toBe(false);
    for (const e of entries) warnOnly.write(e);
    expect(a.lines.map((l) => JSON.parse(l).reqId)).toEqual(['r3']);
    const b = capture();
    const silent = new AccessLog(pino({ level: 'silent' }, b.stream));
    for (const e of entries) silent.write(e);
    expect(b.lines).toEqual([]);
  });

  it('writes through a CoalescingLogDestination the same bytes as pino', () => {
    const batches = () => {
      const given: Buffer[] = [];
      return { given, d: new CoalescingLogDestination({ write: (b: Buffer) => given.push(b) }) };
    };
    const a = batches();
    const b = batches();
    const time = () => ',"time":1700000000000';
    const ours = new AccessLog(pino({ level: 'info', timestamp: time }, a.d).child({ module: 'http' }));
    const theirs = pino({ level: 'info', timestamp: time }, b.d).child({ module: 'http' });
    expect(ours.writesDirectly).toBe(true);
    for (const e of entries) {
      ours.write(e);
      viaPino(theirs, e);
    }
    a.d.flushSync();
    b.d.flushSync();
    expect(Buffer.concat(a.given)).toEqual(Buffer.concat(b.given));
    expect(Buffer.concat(a.given).toString('utf8').trimEnd().split('\n')).toHaveLength(entries.length);
  });
});
