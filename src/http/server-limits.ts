/**
 * Limits every Node HTTP server we start gets (registry, ledger, scan, validator, proxies), set in
 * one place so no server is left with Node's unbounded defaults:
 * - headersTimeout: a client has this long to send its request head (slowloris);
 * - requestTimeout: ... and this long to send the whole request, body included (a trickled body);
 *   upgraded websocket connections are outside it;
 * - keepAliveTimeout: an idle keep-alive connection is closed after this; above the 60 s idle
 *   timeout of common load balancers, so they never reuse a connection we just closed;
 * - maxConnections, maxConnectionsPerAddress: the connection slots and one address's share of
 *   them, idle sockets evicted for newcomers, silent sockets closed after headersTimeout
 *   (connections.ts);
 * - maxHeadersCount / maxRequestsPerSocket: bounded header lists and pipelining per connection;
 * - how often Node checks the two timeouts (`connectionsCheckingInterval`, 30 s by default, which
 *   let a slow head live up to 30 s past its timeout): at most 1 s.
 *
 * Requests Node's parser refuses before any app sees them (an unknown method, a malformed request
 * line, headers over 16 KiB, a head or body that timed out) are answered in the API's own error
 * shape too: `{"error": ...}` (registry, scan, validator) or text/plain (the ledger, as pekko-http
 * answers them), and the connection is closed. So is an `Expect` other than `100-continue`, which
 * Node answers 417 with an empty body unless the server handles 'checkExpectation'.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ConnectionGuard } from './connections.js';

/** How an API words an error Node's parser raised: `json` is `{"error": ...}`, `text` text/plain. */
export type ClientErrorShape = 'json' | 'text';

export interface ServerLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
  /** One client address's share of `maxConnections` (default: a quarter of it). */
  maxConnectionsPerAddress?: number;
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

/** The share of the connection slots one address gets unless configured: a quarter. */
export function defaultConnectionsPerAddress(maxConnections: number): number {
  return Math.max(1, Math.ceil(maxConnections / 4));
}

/**
 * How often Node checks headersTimeout/requestTimeout: a createServer option only (read when the
 * server starts listening), so listen() passes it in.
 */
export function connectionsCheckingIntervalMs(limits: Partial<ServerLimits> = {}): number {
  const headersTimeoutMs = limits.headersTimeoutMs ?? DEFAULT_SERVER_LIMITS.headersTimeoutMs;
  return Math.max(10, Math.min(1_000, Math.floor(headersTimeoutMs / 2)));
}

/** Applies the limits to `server`; the returned guard wants to hear of each request (`requestStarted`). */
export function applyServerLimits(server: Server, limits: Partial<ServerLimits> = {}, shape: ClientErrorShape = 'json'): ConnectionGuard {
  const l = { ...DEFAULT_SERVER_LIMITS, ...limits };
  // Node requires headersTimeout <= requestTimeout (when the latter is set).
  server.requestTimeout = l.requestTimeoutMs;
  server.headersTimeout = Math.min(l.headersTimeoutMs, l.requestTimeoutMs);
  server.keepAliveTimeout = l.keepAliveTimeoutMs;
  server.maxHeadersCount = l.maxHeadersCount;
  server.maxRequestsPerSocket = l.maxRequestsPerSocket;
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => answerClientError(err, socket, shape));
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => answerExpectation(req, res, shape));
  const guard = new ConnectionGuard({
    maxConnections: l.maxConnections,
    maxConnectionsPerAddress: Math.min(l.maxConnections, l.maxConnectionsPerAddress ?? defaultConnectionsPerAddress(l.maxConnections)),
    firstByteTimeoutMs: server.headersTimeout,
  });
  guard.attach(server);
  return guard;
}

function errorBody(text: string, shape: ClientErrorShape): [type: string, body: string] {
  return shape === 'json' ? ['application/json', JSON.stringify({ error: text })] : ['text/plain; charset=UTF-8', text];
}

/** An error answer in the API's shape, for the few answered outside the APIs' own handlers. */
export function clientErrorAnswer(status: number, text: string, shape: ClientErrorShape): { status: number; contentType: string; body: string } {
  const [contentType, body] = errorBody(text, shape);
  return { status, contentType, body };
}

/**
 * An HTTP/1.1 request without Host, which RFC 9112 (section 3.2) says to answer 400. Node does so
 * itself with an empty body unless `requireHostHeader` is off (Node's http docs); listen() turns
 * it off and calls this instead. True when it answered.
 */
export function refusedForMissingHost(req: IncomingMessage, res: ServerResponse, shape: ClientErrorShape): boolean {
  if (req.headers.host !== undefined || req.httpVersionMajor !== 1 || req.httpVersionMinor !== 1) return false;
  const [type, body] = errorBody('The request could not be parsed: an HTTP/1.1 request needs a Host header', shape);
  res.writeHead(400, { 'content-type': type, 'content-length': Buffer.byteLength(body), connection: 'close' }).end(body);
  req.resume();
  return true;
}

function answerExpectation(req: IncomingMessage, res: ServerResponse, shape: ClientErrorShape): void {
  const [type, body] = errorBody(`Expectation '${String(req.headers.expect).slice(0, 100)}' is not supported; only 100-continue is`, shape);
  res.writeHead(417, { 'content-type': type, 'content-length': Buffer.byteLength(body), connection: 'close' }).end(body);
}

/** How long a socket answered with a parser error may stay half-open for its peer to read the answer. */
const ERROR_LINGER_MS = 1_000;

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
  const [type, body] = errorBody(text, shape);
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  // end() only closes our half: an HTTP server's sockets allow half-open connections (Node's
  // http.Server sets allowHalfOpen), so a peer that never closes its own would keep the socket,
  // and its slot, forever. It gets a moment to read the answer, then the socket is destroyed.
  const linger = setTimeout(() => socket.destroy(), ERROR_LINGER_MS);
  linger.unref();
  socket.once('close', () => clearTimeout(linger));
}
