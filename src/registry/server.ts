/**
 * The registry's Node request handler. POSTs to the registry's endpoints are answered straight
 * from the Node request by the PostDispatcher (no Web Request/Response objects on the hot path);
 * everything else goes through the Hono app via @hono/node-server. Both share the dispatcher,
 * the service and the error mapping (dispatch.ts). The server itself, request ids, metrics,
 * access log and CORS come from src/http (listen + pipeline), as for every other service; the
 * pipeline's request context is passed on to the service (the fast path) or in the Hono app's env.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Hono } from 'hono';
import { honoRouteOf, type RouteOf } from '../http/pipeline.js';
import type { RequestContext } from '../http/request-context.js';
import { honoRequestListener } from '../http/service.js';
import { stripBase, type RegistryHttp } from './app.js';
import type { Answer } from './dispatch.js';
import { isPromise } from './maybe-promise.js';
import { declaredLength, readLimitedBodyThen, tooLargeMessage, writeTooLarge } from '../http/body-limit.js';
import type { RateLimiter } from '../http/rate-limit.js';

/** Paths never rate limited: orchestrators' probes must keep working while a client is throttled. */
const UNLIMITED_PATHS = new Set(['/livez', '/readyz']);

/** A request listener for node:http: the fast path for registry POSTs, Hono for the rest. */
export function registryRequestListener(
  http: RegistryHttp,
  extra?: Hono,
  rateLimiter?: RateLimiter,
): ((req: IncomingMessage, res: ServerResponse, ctx?: RequestContext) => void) & { readonly echoesRequestId: true } {
  const fallback = honoRequestListener(extra ?? http.app);
  const listener = (req: IncomingMessage, res: ServerResponse, ctx?: RequestContext): void => {
    if (rateLimiter?.enabled && !UNLIMITED_PATHS.has(req.url ?? '')) {
      const decision = rateLimiter.take(req.socket.remoteAddress ?? 'unknown');
      if (!decision.ok) {
        echoRequestId(res, ctx);
        const body = JSON.stringify({ error: `Too many requests: retry after ${decision.retryAfterSeconds} s` });
        res.writeHead(429, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'retry-after': String(decision.retryAfterSeconds) });
        res.end(body);
        return;
      }
    }
    if (req.method === 'POST' && req.url) {
      const q = req.url.indexOf('?');
      const path = stripBase(q < 0 ? req.url : req.url.slice(0, q), http.basePath);
      const found = path === undefined ? undefined : http.dispatcher.match(path);
      if (found) {
        if (ctx) ctx.route = `${http.basePath}${found.route}`;
        readLimitedBodyThen(req, http.maxBodyBytes, (err, read) => {
          if (err) {
            res.destroy();
            return;
          }
          if (!read!.ok) {
            echoRequestId(res, ctx);
            const declared = declaredLength(req.headers['content-length'], req.headers['transfer-encoding']) !== undefined;
            writeTooLarge(res, 'application/json', JSON.stringify({ error: tooLargeMessage(http.maxBodyBytes, read!.receivedBytes, declared) }));
            return;
          }
          // A warm answer is there at once: written in this call stack, no promise in between.
          const a = http.dispatcher.answerMatch(found, read!.body.toString('utf8'), ctx);
          if (isPromise(a)) a.then((answer) => writeAnswer(res, answer, ctx), () => writeLastResort(res, ctx));
          else writeAnswer(res, a, ctx);
        });
        return;
      }
    }
    echoRequestId(res, ctx);
    fallback(req, res, ctx);
  };
  return Object.assign(listener, { echoesRequestId: true as const });
}

/**
 * One writeHead with every header (the answer's headers object is its own, made for this answer):
 * with nothing set before, Node serialises it as given and sends head and body in one write, as a
 * bare node:http server does.
 */
function writeAnswer(res: ServerResponse, a: Answer, ctx: RequestContext | undefined): void {
  const headers = a.headers;
  headers['content-length'] = String(typeof a.body === 'string' ? Buffer.byteLength(a.body) : a.body.length);
  if (ctx) headers['x-request-id'] = ctx.requestId;
  res.writeHead(a.status, headers);
  res.end(a.body);
}

/** answerMatch maps every failure to an answer itself; this is for a failure of that mapping. */
function writeLastResort(res: ServerResponse, ctx: RequestContext | undefined): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  echoRequestId(res, ctx);
  res.writeHead(500, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: 'An unexpected error occurred.' }));
}

/** `x-request-id` on an answer not written by the fast path (see ContextualListener.echoesRequestId). */
function echoRequestId(res: ServerResponse, ctx: RequestContext | undefined): void {
  if (ctx) res.setHeader('x-request-id', ctx.requestId);
}

/** Route patterns of the registry's requests: the POST endpoint table, else the Hono app's router. */
export function registryRouteOf(http: RegistryHttp, extra?: Hono): RouteOf {
  const hono = honoRouteOf(extra ?? http.app);
  return (method, path, status) => {
    if (method === 'POST') {
      const p = stripBase(path, http.basePath);
      const route = p === undefined ? undefined : http.dispatcher.routeOf(p);
      if (route !== undefined) return `${http.basePath}${route}`;
    }
    return hono(method, path, status);
  };
}
