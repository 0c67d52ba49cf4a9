/**
 * Proxy mode: one upstream API (the JSON Ledger API, scan or validator) forwarded to
 * a real service. The app has the same paths as the emulated API it replaces (DESIGN.md rule 3),
 * so a client cannot tell the modes apart except by the data.
 *
 * What is forwarded: method, path, query, body (streamed), the Authorization header and every
 * other end-to-end header (content-type, accept, traceparent, ...). Hop-by-hop headers (RFC 9110
 * §7.6.1: connection, keep-alive, proxy-authenticate, proxy-authorization, te, trailer,
 * transfer-encoding, upgrade, plus every header the Connection header names) are removed in both
 * directions. Upstream status codes, headers and bodies (4xx/5xx included) come back unchanged.
 *
 * Path rule. `upstream.url` is the API's base URL, the same URL a client of that API is given;
 * `mountPath` is the prefix under which this app serves the API. The part of the request path
 * after `mountPath` is appended to `upstream.url`:
 *   ledger     mount ''               upstream http://participant:7575      GET /v2/version
 *                                       -> http://participant:7575/v2/version
 *   scan       mount '/api/scan'      upstream https://scan.sv.example/api/scan
 *                                       GET /api/scan/v0/dso -> https://scan.sv.example/api/scan/v0/dso
 *   validator  mount '/api/validator' upstream https://v.example/api/validator
 *                                       GET /api/validator/v0/validator-user -> .../api/validator/v0/validator-user
 * So an upstream behind another prefix (a gateway's `/ledger-api`, say) works by putting that
 * prefix in its URL. A path outside `mountPath` is not forwarded (the API's 404).
 *
 * Failures the proxy itself answers, in the API's own error shape (DESIGN.md rule 2):
 * - upstream unreachable (refused, DNS, reset, TLS, not HTTP): 503 in every API. Canton maps its
 *   transient category (UNAVAILABLE) to 503 and Splice's HttpErrorHandler maps UNAVAILABLE to
 *   503; neither ever emits 502, so 503 is what their clients handle (and it says "retry").
 *   Ledger: JsCantonError `SERVICE_NOT_RUNNING` (category 1 TransientServerFailure, gRPC 14,
 *   retryInfo "1 second"; Canton `ErrorCategory.scala`). Scan/validator: `{"error": ...}`.
 * - upstream too slow: ledger 504 JsCantonError `REQUEST_TIME_OUT` (category 3
 *   DeadlineExceededRequestStateUnknown, definiteAnswer false): the command may have been
 *   executed, which is exactly what that category tells a client. Scan/validator: 503 with
 *   Splice's own timeout text, `The server is taking too long to respond to the (GET) request at
 *   <uri>` (Splice `apps/common/.../admin/http/HttpErrorHandler.scala`, `timeoutHandler`).
 * The timeout bounds the wait for the response head and then each idle gap in the body, so a
 * long but flowing download (a big ACS) is not cut, and a stalled one is.
 *
 * Authorization is forwarded but never logged (only method, path, status and timing are).
 */
import { randomBytes } from 'node:crypto';
import { Hono, type Context } from 'hono';
import type { UpstreamApi } from '../config/upstreams.js';
import { LedgerApiError, renderJsCantonError } from '../canton/errors.js';
import { honoBodyLimit, jsonErrorBodyLimit } from '../http/body-limit.js';
import { LEDGER_MAX_BODY_BYTES, LEDGER_MAX_DAR_BYTES, SPLICE_MAX_BODY_BYTES } from '../http/limits.js';

export type ProxiedApi = UpstreamApi;

/** The prefix each API is served under on a real node (the `servers` of Splice's scan.yaml, LocalNet's nginx). */
export const DEFAULT_MOUNT_PATHS: Record<ProxiedApi, string> = {
  ledger: '',
  scan: '/api/scan',
  validator: '/api/validator',
};

/** Structural logger: a pino Logger fits. */
export interface ProxyLogger {
  debug(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface CreateProxyAppOptions {
  upstream: { url: string; timeoutMs?: number };
  api: ProxiedApi;
  /** '' (ledger at the root), '/api/scan', '/api/validator'. Defaults per API. */
  mountPath?: string;
  /** Injectable for tests; the global fetch by default. */
  fetch?: typeof fetch;
  logger?: ProxyLogger;
  /** `context.participant` of the JsCantonErrors the proxy itself produces (ledger only). */
  participantName?: string;
}

export const DEFAULT_PROXY_TIMEOUT_MS = 30_000;

const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection', // non-standard, still sent by some clients
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];

/**
 * Removes hop-by-hop headers in place, including those the Connection header names
 * (RFC 9110 §7.6.1). Returns the same object.
 */
export function stripHopByHop(headers: Headers): Headers {
  const named = headers.get('connection');
  if (named !== null) {
    for (const token of named.split(',')) {
      const name = token.trim().toLowerCase();
      if (name !== '') headers.delete(name);
    }
  }
  for (const name of HOP_BY_HOP) headers.delete(name);
  return headers;
}

/** Why a forward failed before a response head arrived. */
type Failure = { kind: 'timeout' } | { kind: 'unreachable'; reason: string; code: string | undefined };

class ProxyTimeout extends Error {
  override readonly name = 'TimeoutError';
}

/** Joins the base URL and the path after the mount; `null` when the path is outside the mount. */
export function upstreamTarget(baseUrl: string, mountPath: string, rawPath: string, rawQuery: string): string | null {
  let rest: string;
  if (mountPath === '') rest = rawPath;
  else if (rawPath === mountPath) rest = '';
  else if (rawPath.startsWith(`${mountPath}/`)) rest = rawPath.slice(mountPath.length);
  else return null;
  return `${baseUrl.replace(/\/+$/, '')}${rest}${rawQuery}`;
}

export function createProxyApp(opts: CreateProxyAppOptions): Hono {
  const { api } = opts;
  const mountPath = opts.mountPath ?? DEFAULT_MOUNT_PATHS[api];
  if (mountPath !== '' && !/^(\/[^/?#]+)+$/.test(mountPath)) {
    throw new TypeError(`mountPath must be '' or start with / and have no trailing /, got "${mountPath}"`);
  }
  let base: URL;
  try {
    base = new URL(opts.upstream.url);
  } catch {
    throw new TypeError(`upstream.url is not a URL: "${opts.upstream.url}"`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new TypeError(`upstream.url must be http or https: "${opts.upstream.url}"`);
  const baseUrl = `${base.origin}${base.pathname.replace(/\/+$/, '')}`;
  const timeoutMs = opts.upstream.timeoutMs ?? DEFAULT_PROXY_TIMEOUT_MS;
  const doFetch = opts.fetch ?? fetch;
  const logger = opts.logger;
  const participantName = opts.participantName ?? 'proxy';

  const app = new Hono();
  // The upstream has the same limits; refusing here keeps an oversized body off the network
  // between us and it, with the upstream's own 413 (http/limits.ts).
  app.use(
    '*',
    api === 'ledger'
      ? honoBodyLimit({
          maxBytes: (c) => (/\/v2\/(dars|packages)(\/validate)?$/.test(c.req.path) ? LEDGER_MAX_DAR_BYTES : LEDGER_MAX_BODY_BYTES),
          tooLarge: (c, limit, received) => c.text(`Request Content-Length of ${received} bytes exceeds the configured limit of ${limit} bytes`, 413),
        })
      : jsonErrorBodyLimit(SPLICE_MAX_BODY_BYTES),
  );

  app.all('*', async (c) => {
    const started = Date.now();
    const { rawPath, rawQuery } = splitRawUrl(c.req.url);
    const target = upstreamTarget(baseUrl, mountPath, rawPath, rawQuery);
    if (target === null) return notFound(c, api);

    const method = c.req.method;
    const headers = stripHopByHop(new Headers(c.req.raw.headers));
    // fetch sets Host for the upstream; `expect: 100-continue` is answered by our own server and
    // undici refuses to send it.
    headers.delete('host');
    headers.delete('expect');
    // Ask for the body as-is: fetch would transparently decompress a gzip answer while keeping
    // its Content-Encoding header, and the client would get a body that contradicts its headers.
    headers.set('accept-encoding', 'identity');
    const body = method === 'GET' || method === 'HEAD' ? null : c.req.raw.body;
    if (body === null) headers.delete('content-length');

    // Our timeout, or the downstream client hanging up (@hono/node-server aborts the request's
    // signal then), ends the upstream exchange.
    const timeout = new AbortController();
    const signal = AbortSignal.any([timeout.signal, c.req.raw.signal]);
    // Bounds sending the request and receiving the response head; the body has its idle guard.
    const headTimer = setTimeout(() => timeout.abort(new ProxyTimeout(`no answer within ${timeoutMs} ms`)), timeoutMs);
    let upstream: Response;
    try {
      const init: RequestInit = { method, headers, body, redirect: 'manual', signal };
      if (body !== null) init.duplex = 'half';
      upstream = await doFetch(target, init);
    } catch (err) {
      clearTimeout(headTimer);
      if (c.req.raw.signal.aborted && !timeout.signal.aborted) {
        // The client hung up first; nobody reads this answer (nginx's 499 "client closed request").
        logger?.debug({ api, method, path: rawPath, ms: Date.now() - started }, 'client closed the request');
        return new Response(null, { status: 499 });
      }
      const failure: Failure = timeout.signal.aborted ? { kind: 'timeout' } : classify(err);
      if (failure.kind === 'timeout') {
        logger?.warn({ api, method, path: rawPath, timeoutMs, ms: Date.now() - started }, 'upstream timed out');
      } else {
        logger?.warn(
          { api, method, path: rawPath, upstream: baseUrl, reason: failure.reason, code: failure.code, ms: Date.now() - started },
          'upstream unreachable',
        );
      }
      return failureResponse(c, api, failure, { timeoutMs, participantName, rawPath });
    }
    clearTimeout(headTimer);

    const outHeaders = stripHopByHop(new Headers(upstream.headers));
    // If the upstream compressed anyway, fetch has decoded the body: the encoding and length no
    // longer describe what we send.
    if (outHeaders.has('content-encoding') && upstream.body !== null) {
      outHeaders.delete('content-encoding');
      outHeaders.delete('content-length');
    }
    logger?.debug({ api, method, path: rawPath, status: upstream.status, ms: Date.now() - started }, 'proxied');
    const onIdle = () => {
      logger?.warn({ api, method, path: rawPath, timeoutMs, ms: Date.now() - started }, 'upstream body stalled; response truncated');
      // Headers are already sent: the only honest signal left is cutting the connection.
      timeout.abort(new ProxyTimeout(`upstream response body stalled for ${timeoutMs} ms`));
    };
    const outBody = upstream.body === null ? null : idleGuarded(upstream.body, timeoutMs, onIdle);
    return new Response(outBody, { status: upstream.status, statusText: upstream.statusText, headers: outHeaders });
  });

  app.onError((err, c) => {
    logger?.error({ api, err: { name: err.name, message: err.message } }, 'proxy failure');
    if (api === 'ledger') {
      return c.json(
        renderJsCantonError(new LedgerApiError('LEDGER_API_INTERNAL_ERROR', 'internal proxy error'), errorContext(c, participantName)),
        500,
      );
    }
    return c.json({ error: 'An unexpected error occurred.' }, 500);
  });

  return app;
}

/** Path and query exactly as received (Hono's `c.req.path` is percent-decoded). */
function splitRawUrl(url: string): { rawPath: string; rawQuery: string } {
  const start = url.indexOf('/', url.indexOf('://') + 3);
  if (start === -1) return { rawPath: '/', rawQuery: '' };
  const hash = url.indexOf('#', start);
  const end = hash === -1 ? url.length : hash;
  const q = url.indexOf('?', start);
  if (q === -1 || q > end) return { rawPath: url.slice(start, end), rawQuery: '' };
  return { rawPath: url.slice(start, q), rawQuery: url.slice(q, end) };
}

/** Maps a fetch rejection to a short, address-free reason for the client and a code for logs. */
function classify(err: unknown): Failure {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : typeof (err as { code?: unknown })?.code === 'string' ? ((err as { code: string }).code) : undefined;
  let reason = 'connection failed';
  if (code === 'ECONNREFUSED') reason = 'connection refused';
  else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') reason = 'host not found';
  else if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') reason = 'host unreachable';
  else if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') reason = 'connection closed by upstream';
  else if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT') reason = 'connect timeout';
  else if (code?.startsWith('HPE_')) reason = 'invalid HTTP response from upstream';
  else if (code !== undefined && /CERT|TLS|SSL/.test(code)) reason = 'TLS handshake failed';
  return { kind: 'unreachable', reason, code };
}

function errorContext(c: Context, participant: string) {
  const traceId = (c.req.header('traceparent')?.split('-')[1] ?? randomBytes(16).toString('hex')).toLowerCase();
  return { participant, traceId, correlationId: null };
}

function failureResponse(
  c: Context,
  api: ProxiedApi,
  failure: Failure,
  o: { timeoutMs: number; participantName: string; rawPath: string },
): Response {
  if (api === 'ledger') {
    const err =
      failure.kind === 'timeout'
        ? new LedgerApiError(
            'REQUEST_TIME_OUT',
            `The upstream Ledger API did not answer ${c.req.method} ${o.rawPath} within ${o.timeoutMs} ms; the outcome of the request is unknown.`,
            { definiteAnswer: false },
          )
        : // CommonErrors.ServiceNotRunning: cause "<service> is not running.", context service_name.
          new LedgerApiError('SERVICE_NOT_RUNNING', 'Ledger API is not running.', {
            context: { service_name: 'Ledger API', reason: `upstream ${failure.reason}` },
          });
    return c.json(renderJsCantonError(err, errorContext(c, o.participantName)), err.httpStatus as 503);
  }
  if (failure.kind === 'timeout') {
    // Splice's timeoutHandler: 503 and the request's absolute URI as the server received it.
    return c.json({ error: `The server is taking too long to respond to the (${c.req.method}) request at ${c.req.url}` }, 503);
  }
  return c.json({ error: `The ${api} service is unavailable (upstream ${failure.reason}). Please retry in a short while.` }, 503);
}

function notFound(c: Context, api: ProxiedApi): Response {
  // The API's own unknown-route answers: pekko's plain text on the ledger (Pekko's
  // default 404, as src/emulator/ledger-api/routes.ts), Splice `HttpAdminService`'s JSON on scan/validator.
  if (api === 'ledger') return c.text('The requested resource could not be found.', 404);
  return c.json({ error: `The requested resource could not be found: ${c.req.url}` }, 404);
}

/**
 * Passes the upstream body through chunk by chunk, aborting when the upstream sends nothing for
 * `idleMs` while we wait for it. Time spent waiting for a slow downstream reader does not count.
 */
function idleGuarded(body: ReadableStream<Uint8Array>, idleMs: number, onIdle: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const timer = setTimeout(onIdle, idleMs);
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (err) {
        controller.error(err);
      } finally {
        clearTimeout(timer);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
