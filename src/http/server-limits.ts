/**
 * Limits every Node HTTP server we start gets (registry, ledger, scan, validator, proxies), set in
 * one place so no server is left with Node's unbounded defaults:
 * - headersTimeout: a client has this long to send its request head (slowloris);
 * - requestTimeout: ... and this long to send the whole request, body included (a trickled body);
 *   upgraded websocket connections are outside it;
 * - keepAliveTimeout: an idle keep-alive connection is closed after this; above the 60 s idle
 *   timeout of common load balancers, so they never reuse a connection we just closed;
 * - maxConnections: sockets beyond this are refused at accept;
 * - maxHeadersCount / maxRequestsPerSocket: bounded header lists and pipelining per connection.
 */
import type { Server } from 'node:http';

export interface ServerLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
  maxHeadersCount: number;
  maxRequestsPerSocket: number;
}

export const DEFAULT_SERVER_LIMITS: Readonly<ServerLimits> = Object.freeze({
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 65_000,
  maxConnections: 2_000,
  maxHeadersCount: 100,
  maxRequestsPerSocket: 10_000,
});

export function applyServerLimits(server: Server, limits: Partial<ServerLimits> = {}): void {
  const l = { ...DEFAULT_SERVER_LIMITS, ...limits };
  // Node requires headersTimeout <= requestTimeout (when the latter is set).
  server.requestTimeout = l.requestTimeoutMs;
  server.headersTimeout = Math.min(l.headersTimeoutMs, l.requestTimeoutMs);
  server.keepAliveTimeout = l.keepAliveTimeoutMs;
  server.maxConnections = l.maxConnections;
  server.maxHeadersCount = l.maxHeadersCount;
  server.maxRequestsPerSocket = l.maxRequestsPerSocket;
}
