/**
 * What every service does around its own handler, at the Node request level (so that the
 * registry's fast path, which answers its POSTs without Hono, gets the same treatment as the Hono
 * apps): the request id (`x-request-id` accepted or generated, returned on the answer), the W3C
 * trace context, the request context handed to the handler (which passes it on to the ledger
 * client's calls made for the request), CORS when configured,
 * `GET /metrics`, then, when the answer is done, one access-log line and the request metrics.
 *
 * The access log (access-log.ts) holds method, route pattern, path (without query string), status,
 * duration, request id and trace id: never a header value, so never an Authorization header or a
 * token.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Hono } from 'hono';
import type { Logger } from 'pino';
import { AccessLog } from './access-log.js';
import type { ClosingRequestListener } from './listen.js';
import type { CorsPolicy } from './cors.js';
import type { ServiceMetrics } from './metrics.js';
import { parseTraceparent, requestIdOf, type RequestContext, type RequestContexts } from './request-context.js';

/**
 * A service's handler behind the pipeline: it also gets the request's context, to pass on
 * explicitly. `echoesRequestId`: the handler puts `x-request-id` on every answer itself, so the
 * pipeline does not `setHeader` it up front (a response with no header set before `writeHead`
 * takes Node's lean path, where the headers object is serialised as given).
 */
export type ContextualListener = ((req: IncomingMessage, res: ServerResponse, ctx: RequestContext) => void) & { readonly echoesRequestId?: boolean };

/** The route pattern of a request (`/v2/parties/{party}`-like), for metrics and logs. */
export type RouteOf = (method: string, path: string, status?: number) => string | undefined;

export interface PipelineOptions {
  handler: ContextualListener;
  routeOf?: RouteOf;
  metrics?: ServiceMetrics;
  /** The access log goes here at `info` (5xx at `warn`); its level decides whether lines are written. */
  logger?: Logger;
  /**
   * Also make the context ambient (AsyncLocalStorage) while the handler runs, for code that reads
   * it with `contexts.current()`. Off by default: once an AsyncLocalStorage is in use, Node 22
   * runs a hook on every promise and async resource of the process, which costs more than the
   * registry's whole warm answer; our services pass the context explicitly instead.
   */
  contexts?: RequestContexts;
  cors?: CorsPolicy;
}

export const UNMATCHED_ROUTE = 'unmatched';
const METRICS_PATH = '/metrics';

export function pipeline(opts: PipelineOptions): ClosingRequestListener {
  const { handler, metrics, contexts, cors } = opts;
  const routeOf = opts.routeOf ?? (() => undefined);
  const log = opts.logger?.child({ module: 'http' });
  const accessLog = log && new AccessLog(log);
  const handlerEchoes = handler.echoesRequestId === true;
  const listener = (req: IncomingMessage, res: ServerResponse, closed?: () => void): void => {
    const started = performance.now();
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const header = req.headers['x-request-id'];
    const ctx: RequestContext = { requestId: requestIdOf(typeof header === 'string' ? header : undefined) };
    const tp = req.headers.traceparent;
    if (tp !== undefined) {
      const trace = parseTraceparent(typeof tp === 'string' ? tp : undefined);
      if (trace) ctx.trace = trace;
    }
    if (!handlerEchoes) res.setHeader('x-request-id', ctx.requestId);
    let route: string | undefined;

    // `on`, not `once`: a response closes once, and once() costs a wrapper per request. The one
    // 'close' listener of the response: it also tells listen() (`closed`) that the request ended.
    res.on('close', () => {
      closed?.();
      const status = res.statusCode;
      const r = route ?? ctx.route ?? routeOf(method, path, status) ?? UNMATCHED_ROUTE;
      const seconds = (performance.now() - started) / 1000;
      metrics?.observeRequest(method, r, status, seconds);
      if (!accessLog || (status < 500 && !accessLog.infoEnabled)) return;
      accessLog.write({
        reqId: ctx.requestId,
        traceId: ctx.trace?.traceId,
        method,
        route: r,
        path,
        status,
        ms: Math.round(seconds * 100_000) / 100,
        aborted: res.writableFinished ? undefined : true,
      });
    });

    const decision = cors?.decide(method, path, req.headers);
    if (decision) {
      if (handlerEchoes && decision.preflightStatus !== undefined) res.setHeader('x-request-id', ctx.requestId);
      for (const [k, v] of Object.entries(decision.headers)) res.setHeader(k, v);
      if (decision.preflightStatus !== undefined) {
        route = 'preflight';
        if (decision.preflightStatus === 204) {
          res.writeHead(204).end();
        } else {
          const body = JSON.stringify({ error: `Origin ${req.headers.origin} is not allowed to call this service` });
          res.writeHead(decision.preflightStatus, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
        }
        req.resume();
        return;
      }
    }

    if (metrics && path === METRICS_PATH && (method === 'GET' || method === 'HEAD')) {
      route = METRICS_PATH;
      if (handlerEchoes) res.setHeader('x-request-id', ctx.requestId);
      req.resume();
      metrics.render().then(
        (text) => {
          res.writeHead(200, { 'content-type': metrics.contentType(), 'content-length': Buffer.byteLength(text) });
          res.end(method === 'HEAD' ? undefined : text);
        },
        (err: unknown) => {
          log?.error({ err }, 'metrics collection failed');
          res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics collection failed\n');
        },
      );
      return;
    }

    if (contexts) contexts.run(ctx, () => handler(req, res, ctx));
    else handler(req, res, ctx);
  };
  return Object.assign(listener, { reportsClosed: true as const });
}

/**
 * The route pattern of a Hono app's request, from its own router; undefined when nothing but
 * middleware matched (the app's not-found answer).
 */
export function honoRouteOf(app: Pick<Hono, 'router'>): RouteOf {
  return (method, path, status) => {
    let matched: ReturnType<Hono['router']['match']>;
    try {
      matched = app.router.match(method === 'HEAD' ? 'GET' : method, path);
    } catch {
      return undefined;
    }
    // A route registered for one method answered; `all`/`use` routes are ambiguous (middleware
    // takes (c, next), a handler (c), as hono/route's matchedRoutes tells them apart, but a
    // sub-app mounted with `route()` wraps its handlers into (c, next)). So: the last matched
    // method route; else the last handler-shaped catch-all; else, when something other than 404
    // was answered, the last catch-all that is not the root's.
    const routes = matched[0].map(([[, route]]) => route);
    let catchAll: string | undefined;
    for (let i = routes.length - 1; i >= 0; i--) {
      const r = routes[i]!;
      if (r.method !== 'ALL') return r.path;
    }
    for (let i = routes.length - 1; i >= 0; i--) {
      const r = routes[i]!;
      if (r.handler.length < 2) return r.path;
      if (catchAll === undefined && r.path !== '*' && r.path !== '/*') catchAll = r.path;
    }
    if (status !== undefined && status !== 404) return catchAll;
    return undefined;
  };
}
