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

export async function listenRegistry(
  http: RegistryHttp,
  port: number,
  host: string,
  extra?: Hono,
): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  const server = createServer(registryRequestListener(http, extra));
  server.keepAliveTimeout = 65_000;
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
