import { pino, type DestinationStream } from 'pino';
import { describe, expect, it } from 'vitest';
import { AccessLog, type AccessEntry } from '../../../src/http/access-log.js';

function capture() {
  const lines: string[] = [];
  const stream: DestinationStream = { write: (s: string) => void lines.push(s) };
  return { lines, stream };
}

const entries: AccessEntry[] = [
  { reqId: 'r1', method: 'POST', route: '/registry/transfer-instruction/v1/transfer-factory', path: '/registry/transfer-instruction/v1/transfer-factory', status: 200, ms: 0.42 },
  { reqId: 'r2', traceId: '4bf92f3577b34da6a3ce929d0e0e4736', method: 'GET', route: 'unmatched', path: '/a"b\\c/\u0001/é', status: 404, ms: 12 },
  { reqId: 'r3', method: 'POST', route: '/x', path: '/x', status: 503, ms: 3.5, aborted: true },
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
    expect(a.lines).toEqual(b.lines);
    expect(a.lines.map((l) => JSON.parse(l).msg)).toEqual(['request', 'request', 'request']);
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
});
