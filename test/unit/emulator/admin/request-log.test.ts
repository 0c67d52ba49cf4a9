import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { RequestLog } from '../../../../src/emulator/admin/request-log.js';

describe('RequestLog', () => {
  it('keeps the newest entries up to its capacity, newest first', () => {
    let now = 1_000_000;
    const log = new RequestLog({ capacity: 3, now: () => now });
    for (const path of ['/a', '/b', '/c', '/d']) {
      log.record({ service: 'registry', method: 'GET', path, status: 200, ms: 1 });
      now += 1000;
    }
    expect(log.recent().map((r) => r.path)).toEqual(['/d', '/c', '/b']);
    expect(log.recent()[0]!.time).toBe(new Date(1_003_000).toISOString());
  });

  it('lists only the entries of the last maxAgeMs', () => {
    let now = 0;
    const log = new RequestLog({ capacity: 10, maxAgeMs: 60_000, now: () => now });
    log.record({ service: 'scan', method: 'GET', path: '/old', status: 200, ms: 1 });
    now = 50_000;
    log.record({ service: 'scan', method: 'GET', path: '/new', status: 404, ms: 1 });
    now = 70_000;
    expect(log.recent().map((r) => r.path)).toEqual(['/new']);
    expect(new RequestLog().recent()).toEqual([]);
  });

  it('tells its subscribers, until they unsubscribe', () => {
    const log = new RequestLog();
    const seen: string[] = [];
    const off = log.subscribe((r) => seen.push(r.path));
    log.record({ service: 'validator', method: 'POST', path: '/x', status: 200, ms: 1 });
    off();
    log.record({ service: 'validator', method: 'POST', path: '/y', status: 200, ms: 1 });
    expect(seen).toEqual(['/x']);
  });

  it('records an answer through the wrapped listener once the response closes, without its query string', () => {
    const log = new RequestLog();
    const calls: string[] = [];
    const inner = Object.assign((req: IncomingMessage) => calls.push(req.url ?? ''), { echoesRequestId: true as const });
    const wrapped = log.recording('registry', { listener: inner, routeOf: () => undefined });
    expect(wrapped.listener.echoesRequestId).toBe(true);
    const req = new IncomingMessage(new Socket());
    req.method = 'POST';
    req.url = '/registry/x?token=secret';
    const res = new ServerResponse(req);
    res.statusCode = 201;
    wrapped.listener(req, res, { requestId: 'r1' });
    expect(calls).toEqual(['/registry/x?token=secret']);
    expect(log.recent()).toEqual([]);
    res.emit('close');
    expect(log.recent()).toEqual([expect.objectContaining({ service: 'registry', method: 'POST', path: '/registry/x', status: 201 })]);
  });
});
