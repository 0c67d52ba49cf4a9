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
 *
 * Requests Node's parser refuses before any app sees them (an unknown method, a malformed request
 * line, headers over 16 KiB, a head or body that timed out) are answered in the API's own error
 * shape too: `{"error": ...}` (registry, scan, validator) or text/plain (the ledger, as pekko-http
 * answers them), and the connection is closed.
 */
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

/** How an API words an error Node's parser raised: `json` is `{"error": ...}`, `text` text/plain. */
export type ClientErrorShape = 'json' | 'text';

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

export function applyServerLimits(server: Server, limits: Partial<ServerLimits> = {}, shape: ClientErrorShape = 'json'): void {
  const l = { ...DEFAULT_SERVER_LIMITS, ...limits };
  // Node requires headersTimeout <= requestTimeout (when the latter is set).
  server.requestTimeout = l.requestTimeoutMs;
  server.headersTimeout = Math.min(l.headersTimeoutMs, l.requestTimeoutMs);
  server.keepAliveTimeout = l.keepAliveTimeoutMs;
  server.maxConnections = l.maxConnections;
  server.maxHeadersCount = l.maxHeadersCount;
  server.maxRequestsPerSocket = l.maxRequestsPerSocket;
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => answerClientError(err, socket, shape));
}

function answerClientError(err: NodeJS.ErrnoException, socket: Duplex, shape: ClientErrorShape): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, reason, text] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'HTTP header value exceeds the configured limit']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'The server was not able to produce a timely response to your request.']
        : [400, 'Bad Request', `The request could not be parsed: ${err.code === 'HPE_INVALID_METHOD' ? 'unsupported HTTP method' : 'malformed HTTP request'}`];
  const [type, body] = shape === 'json' ? ['application/json', JSON.stringify({ error: text })] : ['text/plain; charset=UTF-8', text];
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
