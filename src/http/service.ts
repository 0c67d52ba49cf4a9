/**
 * Starts one service (registry, ledger, scan, validator): its handler behind the pipeline
 * (request id, trace context, CORS, /metrics, access log), served by the one listen helper.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener, type Http2Bindings, type HttpBindings } from '@hono/node-server';
import type { Hono } from 'hono';
import type { Logger } from 'pino';
import type { CorsPolicy } from './cors.js';
import { clientErrorAnswer, type ClientErrorShape } from './server-limits.js';
import { listen, type Listening, type ListenOptions } from './listen.js';
import type { ServiceMetrics } from './metrics.js';
import { honoRouteOf, pipeline, type ContextualListener, type RouteOf } from './pipeline.js';
import type { RequestContext, RequestContexts } from './request-context.js';

/** What a Hono app's fetch gets from the pipeline as `env`. */
export type ServedEnv = (HttpBindings | Http2Bindings) & RequestContextBindings;

/** A Hono app as a service's handler (its fetch may be wrapped, so long as `env` is passed on). */
export interface HonoHandler {
  fetch(request: Request, env: ServedEnv): Response | Promise<Response>;
  router: Hono['router'];
}

export interface ServiceOptions extends ListenOptions {
  /** A Node request listener with its route resolver, or a Hono app (routes from its router). */
  handler: { listener: ContextualListener; routeOf: RouteOf } | HonoHandler;
  metrics: ServiceMetrics;
  logger: Logger;
  /** Make request contexts ambient too (see PipelineOptions.contexts); off by default. */
  contexts?: RequestContexts;
  cors?: CorsPolicy;
}

/** What a Hono app served by `honoRequestListener` finds in `c.env`, besides node-server's `incoming`/`outgoing`. */
export interface RequestContextBindings {
  /** The context of the request being served (absent for in-process `app.request` calls). */
  requestContext?: RequestContext;
}

/**
 * A Hono app as a pipeline handler: @hono/node-server's listener, with the request's context
 * added to the app's `env` (`RequestContextBindings`). A request node-server cannot turn into a
 * Web Request (an HTTP/1.0 request without Host, an invalid Host, a backslash in the path), which
 * it would answer with an empty 400, gets a 400 in the API's error shape.
 */
export function honoRequestListener(app: Pick<HonoHandler, 'fetch'>, errorShape: ClientErrorShape = 'json'): (req: IncomingMessage, res: ServerResponse, ctx?: RequestContext) => void {
  const contexts = new WeakMap<object, RequestContext>();
  const listener = getRequestListener((request, env) => app.fetch(request, { ...env, requestContext: contexts.get(env.incoming) }), {
    errorHandler: (err) => {
      // node-server's RequestError: the request itself is unusable; anything else escaped the app
      // (node-server's own statuses for those kept: 504 for a timeout, else 500).
      const name = err instanceof Error ? err.name : '';
      const a =
        name === 'RequestError'
          ? clientErrorAnswer(400, `The request could not be parsed: ${err instanceof Error ? err.message : ''}`, errorShape)
          : clientErrorAnswer(name === 'TimeoutError' ? 504 : 500, name === 'TimeoutError' ? 'The request timed out.' : 'An unexpected error occurred.', errorShape);
      return new Response(a.body, { status: a.status, headers: { 'content-type': a.contentType } });
    },
  });
  return (req: IncomingMessage, res: ServerResponse, ctx?: RequestContext) => {
    if (ctx) contexts.set(req, ctx);
    void listener(req, res);
  };
}

export function startService(opts: ServiceOptions): Promise<Listening> {
  const h = 'listener' in opts.handler ? opts.handler : { listener: honoRequestListener(opts.handler, opts.errorShape), routeOf: honoRouteOf(opts.handler) };
  const listener = pipeline({
    handler: h.listener,
    routeOf: h.routeOf,
    metrics: opts.metrics,
    logger: opts.logger.child({ service: opts.metrics.service }),
    contexts: opts.contexts,
    cors: opts.cors,
  });
  return listen(listener, { port: opts.port, host: opts.host, limits: opts.limits, errorShape: opts.errorShape, onServer: opts.onServer });
}
