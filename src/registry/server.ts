/**
 * The registry's Node request handler. POSTs to the registry's endpoints are answered straight
 * from the Node request by the PostDispatcher (no Web Request/Response objects on the hot path);
 * everything else goes through the Hono app via @hono/node-server. Both share the dispatcher,
 * the service and the error mapping (dispatch.ts). The server itself, request ids, metrics,
 * access log and CORS come from src/http (listen + pipeline), as for every other service.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { Hono } from 'hono';
import { honoRouteOf, type RouteOf } from '../http/pipeline.js';
import { stripBase, type RegistryHttp } from './app.js';

/** A request listener for node:http: the fast path for registry POSTs, Hono for the rest. */
export function registryRequestListener(http: RegistryHttp, extra?: Hono): (req: IncomingMessage, res: ServerResponse) => void {
  const fallback = getRequestListener((extra ?? http.app).fetch);
  return (req, res) => {
    if (req.method === 'POST' && req.url) {
      const q = req.url.indexOf('?');
      const path = stripBase(q < 0 ? req.url : req.url.slice(0, q), http.basePath);
      if (path !== undefined && http.dispatcher.matches(path)) {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          http.dispatcher.answer(path, Buffer.concat(chunks).toString('utf8')).then(
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
        });
        req.on('error', () => res.destroy());
        return;
      }
    }
    void fallback(req, res);
  };
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
