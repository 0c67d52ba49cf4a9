import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { applyServerLimits, DEFAULT_SERVER_LIMITS } from '../../../src/http/server-limits.js';

describe('applyServerLimits', () => {
  it('sets every timeout and cap, defaults or overrides', () => {
    const s = createServer();
    applyServerLimits(s);
    expect(s.headersTimeout).toBe(DEFAULT_SERVER_LIMITS.headersTimeoutMs);
    expect(s.requestTimeout).toBe(DEFAULT_SERVER_LIMITS.requestTimeoutMs);
    expect(s.keepAliveTimeout).toBe(DEFAULT_SERVER_LIMITS.keepAliveTimeoutMs);
    expect(s.maxConnections).toBe(DEFAULT_SERVER_LIMITS.maxConnections);
    expect(s.maxHeadersCount).toBe(DEFAULT_SERVER_LIMITS.maxHeadersCount);
    expect(s.maxRequestsPerSocket).toBe(DEFAULT_SERVER_LIMITS.maxRequestsPerSocket);
    applyServerLimits(s, { requestTimeoutMs: 5_000, maxConnections: 3 });
    expect(s.requestTimeout).toBe(5_000);
    // Node needs headersTimeout <= requestTimeout
    expect(s.headersTimeout).toBe(5_000);
    expect(s.maxConnections).toBe(3);
  });

  it('a server past its connection cap refuses further sockets', async () => {
    const s = createServer((_req, res) => res.end('ok'));
    applyServerLimits(s, { maxConnections: 1 });
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
    const { port } = s.address() as { port: number };
    const net = await import('node:net');
    const first = net.connect(port, '127.0.0.1');
    await new Promise((r) => first.once('connect', r));
    await new Promise((r) => setTimeout(r, 50));
    const second = net.connect(port, '127.0.0.1');
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
