/**
 * Real-socket helpers for the ledger API's websocket channels: serve a test ledger's app and its
 * channels on a loopback port (as `startEmulator` does), and a minimal `ws` client that records
 * every frame and the close code/reason.
 */
import { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import WebSocket from 'ws';
import type { Authenticator } from '../../src/emulator/ledger-api/auth.js';
import { createLedgerStreams, type LedgerStreams } from '../../src/emulator/ledger-api/websocket.js';
import type { TestLedger } from './ledger-fixtures.js';

export interface ServedLedger {
  httpUrl: string;
  wsUrl: string;
  streams: LedgerStreams;
  close(): Promise<void>;
}

export async function serveLedger(
  t: TestLedger,
  opts: { authenticate?: Authenticator; highWaterBytes?: number; requestFrameTimeoutMs?: number; pingIntervalMs?: number } = {},
): Promise<ServedLedger> {
  const server = await new Promise<HttpServer>((resolve, reject) => {
    const s = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' }, () => {
      if (s instanceof HttpServer) resolve(s);
      else reject(new Error('expected an HTTP/1.1 server'));
    });
  });
  const streams = createLedgerStreams({ engine: t.engine, ...opts });
  streams.attach(server);
  const { port } = server.address() as AddressInfo;
  return {
    httpUrl: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}`,
    streams,
    close: () =>
      new Promise<void>((resolve) => {
        streams.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface Subscription {
  ws: WebSocket;
  frames: unknown[];
  /** Resolves when the server closed (or the handshake failed: code -1). */
  closed: Promise<{ code: number; reason: string }>;
  /** Resolves once at least `n` frames have arrived. */
  waitFrames(n: number, timeoutMs?: number): Promise<unknown[]>;
}

/** Opens `path`, sends `request` as the one request frame (a string is sent as is). */
export function subscribe(
  wsUrl: string,
  path: string,
  request: unknown,
  opts: { protocols?: string[]; headers?: Record<string, string> } = {},
): Subscription {
  const ws = new WebSocket(`${wsUrl}${path}`, opts.protocols ?? ['daml.ws.auth'], { headers: opts.headers });
  const frames: unknown[] = [];
  const waiters: Array<() => void> = [];
  ws.on('open', () => ws.send(typeof request === 'string' ? request : JSON.stringify(request)));
  ws.on('message', (data) => {
    frames.push(JSON.parse(String(data)));
    for (const w of waiters.splice(0)) w();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.on('close', (code, reason) => {
      resolve({ code, reason: String(reason) });
      for (const w of waiters.splice(0)) w();
    });
    ws.on('unexpected-response', (_req, res) => resolve({ code: -1, reason: String(res.statusCode) }));
    ws.on('error', () => resolve({ code: -1, reason: 'error' }));
  });
  const waitFrames = (n: number, timeoutMs = 5000): Promise<unknown[]> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${n} frames, got ${frames.length}`)), timeoutMs);
      const check = () => {
        if (frames.length >= n) {
          clearTimeout(timer);
          resolve(frames.slice());
        } else if (ws.readyState === WebSocket.CLOSED) {
          clearTimeout(timer);
          reject(new Error(`socket closed after ${frames.length} of ${n} frames`));
        } else waiters.push(check);
      };
      check();
    });
  return { ws, frames, closed, waitFrames };
}

/** Waits until `predicate` holds (polled; for server-side cleanup after a close). */
export async function eventually(predicate: () => boolean, timeoutMs = 2000): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
