import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { addressKey } from '../../../src/http/connections.js';
import { applyServerLimits, connectionsCheckingIntervalMs, DEFAULT_SERVER_LIMITS, defaultConnectionsPerAddress } from '../../../src/http/server-limits.js';

describe('applyServerLimits', () => {
  it('sets every timeout and cap, defaults or overrides', () => {
    const s = createServer();
    applyServerLimits(s);
    expect(s.headersTimeout).toBe(DEFAULT_SERVER_LIMITS.headersTimeoutMs);
    expect(s.requestTimeout).toBe(DEFAULT_SERVER_LIMITS.requestTimeoutMs);
    expect(s.keepAliveTimeout).toBe(DEFAULT_SERVER_LIMITS.keepAliveTimeoutMs);
    // the connection cap is the guard's (connections.ts), so that it can evict idle sockets: Node's own is off
    expect(s.maxConnections).toBeUndefined();
    expect(s.maxHeadersCount).toBe(DEFAULT_SERVER_LIMITS.maxHeadersCount);
    expect(s.maxRequestsPerSocket).toBe(DEFAULT_SERVER_LIMITS.maxRequestsPerSocket);
    applyServerLimits(s, { requestTimeoutMs: 5_000, maxConnections: 3 });
    expect(s.requestTimeout).toBe(5_000);
    // Node needs headersTimeout <= requestTimeout
    expect(s.headersTimeout).toBe(5_000);
  });

  it('one address gets a quarter of the connections by default; Node checks the timeouts at least every second', () => {
    expect(defaultConnectionsPerAddress(2_000)).toBe(500);
    expect(defaultConnectionsPerAddress(50)).toBe(13);
    expect(defaultConnectionsPerAddress(1)).toBe(1);
    expect(connectionsCheckingIntervalMs()).toBe(1_000);
    expect(connectionsCheckingIntervalMs({ headersTimeoutMs: 300 })).toBe(150);
  });

  it('counts IPv4 clients by address and IPv6 clients by their /64', () => {
    expect(addressKey('127.0.0.1')).toBe('127.0.0.1');
    expect(addressKey('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(addressKey('2001:db8:0:1:aaaa::1')).toBe('2001:db8:0:1::/64');
    expect(addressKey('2001:0DB8:0000:0001:ffff:0:0:2')).toBe('2001:db8:0:1::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressKey(undefined)).toBe('unknown');
  });

  it('closes a socket that sends nothing after headersTimeout, which Node (checking every 30 s by default) would keep', async () => {
    const s = createServer((_req, res) => res.end('ok'));
    const guard = applyServerLimits(s, { headersTimeoutMs: 200 });
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
    const { port } = s.address() as { port: number };
    const net = await import('node:net');
    const silent = net.connect(port, '127.0.0.1');
    silent.on('error', () => {});
    const t0 = Date.now();
    let received = '';
    silent.on('data', (d: Buffer) => (received += d.toString()));
    await new Promise((r) => silent.once('close', r));
    expect(Date.now() - t0).toBeGreaterThanOrEqual(150);
    expect(received).toBe('');
    expect(guard.stats()).toMatchObject({ open: 0, silent: 1 });
    await new Promise<void>((r) => s.close(() => r()));
  });

  it('a peer that never closes its half after a parser error is cut after a moment', async () => {
    const s = createServer((_req, res) => res.end('ok'));
    const guard = applyServerLimits(s);
    const serverSide = new Promise<Socket>((r) => s.once('connection', r));
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
    const { port } = s.address() as { port: number };
    const net = await import('node:net');
    // allowHalfOpen: the client keeps its side open after the server's FIN
    const c = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    c.on('error', () => {});
    let received = '';
    c.on('data', (d: Buffer) => (received += d.toString()));
    await new Promise((r) => c.once('connect', r));
    c.write('NOT-HTTP\r\n\r\n');
    await new Promise((r) => c.once('end', r));
    expect(received).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*"error"/);
    // the server's side is closed although the client keeps its own open
    const t0 = Date.now();
    const socket = await serverSide;
    if (!socket.destroyed) await new Promise((r) => socket.once('close', r));
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(guard.stats().open).toBe(0);
    c.destroy();
    await new Promise<void>((r) => s.close(() => r()));
  });

  it('a server past its connection cap refuses further sockets while the ones it has are busy', async () => {
    const s = createServer((req, res) => (req.url === '/hang' ? undefined : res.end('ok')));
    applyServerLimits(s, { maxConnections: 1 });
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
    const { port } = s.address() as { port: number };
    const net = await import('node:net');
    const first = net.connect(port, '127.0.0.1');
    await new Promise((r) => first.once('connect', r));
    const requested = new Promise((r) => s.once('request', r));
    first.write('GET /hang HTTP/1.1\r\nHost: x\r\n\r\n');
    await requested;
    const second = net.connect(port, '127.0.0.1');
    second.on('error', () => {}); // reset by the server: 'close' is what counts
    const closed = await new Promise<boolean>((resolve) => {
      second.once('close', () => resolve(true));
      second.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
      setTimeout(() => resolve(false), 2000);
    });
    expect(closed).toBe(true);
    first.destroy();
    await new Promise<void>((r) => s.close(() => r()));
  });
});
