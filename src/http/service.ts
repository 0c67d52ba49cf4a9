/**
 * Starts one service (registry, ledger, scan, validator): its handler behind the pipeline
 * (request id, trace context, CORS, /metrics, access log), served by the one listen helper.
 */
import { getRequestListener } from '@hono/node-server';
import type { Hono } from 'hono';
import type { Logger } from 'pino';
import type { CorsPolicy } from './cors.js';
import { listen, type Listening, type ListenOptions } from './listen.js';
import type { ServiceMetrics } from './metrics.js';
import { honoRouteOf, pipeline, type RequestListener, type RouteOf } from './pipeline.js';
import type { RequestContexts } from './request-context.js';

export interface ServiceOptions extends ListenOptions {
  /** A Node request listener with its route resolver, or a Hono app (routes from its router). */
  handler: { listener: RequestListener; routeOf: RouteOf } | Pick<Hono, 'fetch' | 'router'>;
  metrics: ServiceMetrics;
  logger: Logger;
  contexts: RequestContexts;
  cors?: CorsPolicy;
}

export function startService(opts: ServiceOptions): Promise<Listening> {
  const h = 'listener' in opts.handler ? opts.handler : { listener: getRequestListener(opts.handler.fetch), routeOf: honoRouteOf(opts.handler) };
  const listener = pipeline({
    handler: h.listener,
    routeOf: h.routeOf,
    metrics: opts.metrics,
    logger: opts.logger.child({ service: opts.metrics.service }),
    contexts: opts.contexts,
    cors: opts.cors,
  });
  return listen(listener, { port: opts.port, host: opts.host, onServer: opts.onServer });
}
