/**
 * HTTP over plain sockets, for tests of what a server does with connections: sockets opened from a
 * chosen loopback address (on Linux all of 127.0.0.0/8 reaches a server listening on 127.0.0.1,
 * and the server sees the client's own address), raw request heads, and what came back.
 */
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';

/** A client socket and what the server did with it. */
export interface Probe {
  socket: Socket;
  /** Everything received so far. */
  received(): string;
  readonly closed: boolean;
  /** ms from connect to close (undefined while open). */
  readonly closedAfterMs: number | undefined;
}

/** Opens a socket from `localAddress`; resolves once connected (the server may still close it at once). */
export function openFrom(url: string, localAddress: string): Promise<Probe> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ port: Number(u.port), host: u.hostname, localAddress });
    let data = '';
    let closedAt: number | undefined;
    let connectedAt = 0;
    socket.on('data', (d: Buffer) => (data += d.toString('latin1')));
    socket.on('error', () => {}); // a refused socket is reset: what the test looks at is 'close'
    socket.once('close', () => (closedAt = Date.now()));
    socket.once('connect', () => {
      connectedAt = Date.now();
      resolve({
        socket,
        received: () => data,
        get closed() {
          return closedAt !== undefined;
        },
        get closedAfterMs() {
          return closedAt === undefined ? undefined : closedAt - connectedAt;
        },
      });
    });
    socket.once('error', reject);
  });
}

/** Opens `n` sockets from `localAddress`, all at once. */
export function openManyFrom(url: string, localAddress: string, n: number): Promise<Probe[]> {
  return Promise.all(Array.from({ length: n }, () => openFrom(url, localAddress)));
}

/** Waits until `cond()` holds (checked every 10 ms), or fails after `timeoutMs`. */
export async function until(cond: () => boolean, timeoutMs: number, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Sends `text` on a new socket and collects the answer until the server closes or `waitMs` passes. */
export async function exchange(url: string, text: string | Buffer, waitMs = 2_000, localAddress = '127.0.0.1'): Promise<string> {
  const p = await openFrom(url, localAddress);
  p.socket.write(text);
  await until(() => p.closed, waitMs).catch(() => undefined);
  p.socket.destroy();
  return p.received();
}

/** A GET from `localAddress` on a fresh connection: status, body and how long it took. */
export function getFrom(url: string, localAddress: string, timeoutMs = 5_000): Promise<{ status: number; body: string; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { localAddress, agent: false, timeout: timeoutMs }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, ms: performance.now() - t0 }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}
