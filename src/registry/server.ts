/**
 * The registry's Node HTTP server. POSTs to the registry's endpoints are answered straight from
 * the Node request by the PostDispatcher (no Web Request/Response objects on the hot path);
 * everything else goes through the Hono app via @hono/node-server. Both share the dispatcher,
 * the service and the error mapping (dispatch.ts).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { Hono } from 'hono';
import { stripBase, type RegistryHttp } from './app.js';
import { declaredLength, readLimitedBody, tooLargeMessage, writeTooLarge } from '../http/body-limit.js';
import { applyServerLimits, type ServerLimits } from '../http/server-limits.js';
import type { RateLimiter } from '../http/rate-limit.js';

/** Paths never rate limited: orchestrators' probes must keep working while a client is throttled. */
const UNLIMITED_PATHS = new Set(['/livez', '/readyz']);

/** A request listener for node:http: the fast path for registry POSTs, Hono for the rest. */
export function registryRequestListener(
  http: RegistryHttp,
  extra?: Hono,
  rateLimiter?: RateLimiter,
): (req: IncomingMessage, res: ServerResponse) => void {
  const fallback = getRequestListener((extra ?? http.app).fetch);
  return (req, res) => {
    if (rateLimiter?.enabled && !UNLIMITED_PATHS.has(req.url ?? '')) {
      const decision = rateLimiter.take(req.socket.remoteAddress ?? 'unknown');
      if (!decision.ok) {
        const body = JSON.stringify({ error: `Too many requests: retry after ${decision.retryAfterSeconds} s` });
        res.writeHead(429, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'retry-after': String(decision.retryAfterSeconds) });
        res.end(body);
        return;
      }
    }
    if (req.method === 'POST' && req.url) {
      const q = req.url.indexOf('?');
      const path = stripBase(q < 0 ? req.url : req.url.slice(0, q), http.basePath);
      if (path !== undefined && http.dispatcher.matches(path)) {
        readLimitedBody(req, http.maxBodyBytes).then((read) => {
          if (!read.ok) {
            const declared = declaredLength(req.headers['content-length'], req.headers['transfer-encoding']) !== undefined;
            writeTooLarge(res, 'application/json', JSON.stringify({ error: tooLargeMessage(http.maxBodyBytes, read.receivedBytes, declared) }));
            return;
          }
          http.dispatcher.answer(path, read.body.toString('utf8')).then(
            (a) => {
              res.writeHead(a!.status, { ...a!.headers, 'content-length': Buffer.byteLength(a!.body) });
              res.end(a!.body);
            },
            (err: unknown) => {
              // answer() maps every failure itself; this is a last resort
              res.writeHead(500, { 'content-type': 'application/json' });
              res.end(JSON.stringify({ error: 'An unexpected error occurred.' }));
              void err;
            },
          );
        }, () => res.destroy());
        return;
      }
    }
    void fallback(req, res);
  };
}

export async function listenRegistry(
  http: RegistryHttp,
  port: number,
  host: string,
  extra?: Hono,
  options: { limits?: Partial<ServerLimits>; rateLimiter?: RateLimiter } = {},
): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  const server = createServer(registryRequestListener(http, extra, options.rateLimiter));
  applyServerLimits(server, options.limits);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  const h = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return {
    server,
    url: `http://${h.includes(':') ? `[${h}]` : h}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
