/**
 * CORS for services that browsers call directly (the registry: browser wallets fetch factories and
 * choice contexts from the instrument admin's registry). Per the Fetch standard's CORS protocol:
 * an allowed origin gets `Access-Control-Allow-Origin: <origin>` (with `Vary: Origin`) on every
 * answer, and a preflight (OPTIONS with `Access-Control-Request-Method`) is answered 204 with the
 * allowed methods and the requested headers. A preflight from an origin not on the list is
 * answered 403 without CORS headers, so the browser refuses the real request. Credentials are not
 * allowed: the registry API is public and needs no cookie.
 *
 * Why ours and not `hono/cors` (honojs/hono `src/middleware/cors/index.ts`), which the emulated
 * scan and validator apps use for their own APIs, whose answers all come from their Hono apps:
 *  - it is Hono middleware, so it only touches answers a Hono app makes. The pipeline
 *    (pipeline.ts) decides here, at the Node request level, because the registry answers its
 *    POSTs on a fast path without Hono (registry/server.ts), and writes the rate limiter's 429
 *    (whose Retry-After a throttled browser wallet can read only because it is exposed) and
 *    `/metrics` outside any Hono app too. Sending requests that carry an Origin through Hono
 *    instead would make a browser wallet's POSTs take the path the fast path exists to avoid
 *    (registry/dispatch.ts: the registry went from 0.14x to 0.40x of a bare node:http server's
 *    throughput when its POSTs left Hono's Request/Response plumbing), and still leave the 429
 *    without CORS;
 *  - it answers every preflight 204 and only leaves `Access-Control-Allow-Origin` out for an
 *    origin not on the list; we refuse that preflight with a 403 in the API's error shape.
 * Adopting it would leave ours the origin check, the preflight detection and the refusal (most
 * of this file) and add a second path for browser requests.
 */
import type { IncomingHttpHeaders } from 'node:http';

export interface CorsOptions {
  /** Exact origins (`https://wallet.example.com`), or `*` for any. Empty: CORS off. */
  origins: readonly string[];
  /** Preflight cache time (Access-Control-Max-Age), seconds. Default 600. */
  maxAgeSeconds?: number;
}

export interface CorsDecision {
  /** Headers to add to the answer. */
  headers: Record<string, string>;
  /** Set for a preflight: answer with this status and no body, without calling the service. */
  preflightStatus?: number;
}

const ALLOWED_METHODS = 'GET, POST, OPTIONS';
/** Headers a browser may read besides the CORS-safelisted ones. */
const EXPOSED = 'x-request-id, retry-after';

export interface CorsPolicy {
  decide(method: string, path: string, headers: IncomingHttpHeaders): CorsDecision | undefined;
}

export function corsPolicy(opts: CorsOptions): CorsPolicy | undefined {
  if (opts.origins.length === 0) return undefined;
  const any = opts.origins.includes('*');
  const allowed = new Set(opts.origins.map((o) => o.replace(/\/$/, '').toLowerCase()));
  const maxAge = String(opts.maxAgeSeconds ?? 600);
  return {
    decide(method, _path, headers) {
      const origin = headers.origin;
      if (origin === undefined) return undefined;
      const ok = any || allowed.has(origin.toLowerCase());
      const preflight = method === 'OPTIONS' && headers['access-control-request-method'] !== undefined;
      if (!ok) return preflight ? { headers: { vary: 'Origin' }, preflightStatus: 403 } : undefined;
      const h: Record<string, string> = { 'access-control-allow-origin': any ? '*' : origin, vary: 'Origin' };
      if (!preflight) {
        h['access-control-expose-headers'] = EXPOSED;
        return { headers: h };
      }
      h['access-control-allow-methods'] = ALLOWED_METHODS;
      const requested = headers['access-control-request-headers'];
      if (requested) h['access-control-allow-headers'] = requested;
      h['access-control-max-age'] = maxAge;
      return { headers: h, preflightStatus: 204 };
    },
  };
}
