/**
 * The context of the request being served: its id (`x-request-id`, accepted from the caller or
 * generated) and its W3C trace context (`traceparent`, Trace Context Level 1, §3.2). The HTTP
 * pipeline (pipeline.ts) makes one per request and hands it to the service's handler, which passes
 * it on explicitly (the registry: through its service to the ledger client's calls, `context` in
 * their options), so both headers reach the participant and a registry answer can be followed
 * into its logs.
 *
 * Explicitly, not through AsyncLocalStorage: on Node 22 (as on 20, where it was measured) an
 * AsyncLocalStorage in use makes every promise and async resource of the process run an init
 * hook, which cost more CPU than the registry's whole warm answer (bench/registry.ts); Node 24
 * carries it in the async context frame instead, without that hook. `RequestContexts` (AsyncLocalStorage) stays
 * for embedders that want the context ambient: the pipeline's `contexts` option and the ledger
 * client's `contextHeaders` read it. Whoever uses it creates one per process and passes it on
 * (no module-level singleton).
 *
 * Why not `hono/request-id` (honojs/hono `src/middleware/request-id/request-id.ts`) on the Hono
 * routes: the id is needed before and outside any Hono app. The pipeline makes it at the Node
 * request level for the access-log line and request metrics it writes when the answer closes, for
 * answers written without Hono (the registry's POST fast path, CORS preflights, the rate
 * limiter's 429, `/metrics`), and for the ledger client's calls; the Hono apps get it in their
 * `env`. The middleware would only read the same header again. It also accepts fewer caller ids:
 * anything outside `[A-Za-z0-9_=-]` (so `abc-123_x.y:z`, which we keep and echo) is replaced, and
 * it has no option for the check. Hono has nothing for `traceparent`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes, randomUUID } from 'node:crypto';

export interface TraceContext {
  /** 32 lower-case hex digits, not all zero. */
  traceId: string;
  /** The span id this process uses as parent of its outgoing calls: 16 hex digits. */
  spanId: string;
  /** The caller's span (the `parent-id` it sent). */
  parentId: string;
  /** trace-flags, 2 hex digits (01 = sampled). */
  flags: string;
}

export interface RequestContext {
  requestId: string;
  trace?: TraceContext;
  /**
   * The route pattern of the request, set by a handler that knows it when it starts answering (the
   * registry's POST fast path); the access log and the request metrics use it instead of
   * resolving the path again.
   */
  route?: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
/** What an accepted request id may hold: printable, no spaces, bounded (it is logged and echoed). */
const REQUEST_ID = /^[A-Za-z0-9._:/+=@-]{1,128}$/;

/**
 * Parses a `traceparent` header. Per the spec: version ff is invalid; an all-zero trace-id or
 * parent-id is invalid; a future version may carry more fields after a dash, version 00 may not.
 * A new span id is drawn for this process's work.
 */
export function parseTraceparent(header: string | undefined): TraceContext | undefined {
  if (!header) return undefined;
  const m = TRACEPARENT.exec(header.trim());
  if (!m) return undefined;
  const [, version, traceId, parentId, flags, rest] = m;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (/^0+$/.test(traceId!) || /^0+$/.test(parentId!)) return undefined;
  return { traceId: traceId!, parentId: parentId!, flags: flags!, spanId: randomBytes(8).toString('hex') };
}

/** The `traceparent` this process sends downstream: same trace, its own span as parent. */
export function formatTraceparent(t: TraceContext): string {
  return `00-${t.traceId}-${t.spanId}-${t.flags}`;
}

/** The caller's request id when it is acceptable, else a fresh UUID. */
export function requestIdOf(header: string | undefined): string {
  return header !== undefined && REQUEST_ID.test(header) ? header : randomUUID();
}

export interface RequestContexts {
  /** Runs `fn` with `ctx` as the current request context (also across its awaits). */
  run<T>(ctx: RequestContext, fn: () => T): T;
  current(): RequestContext | undefined;
  /** Headers that carry the current context to a downstream service (empty outside a request). */
  outgoingHeaders(): Record<string, string>;
}

export function createRequestContexts(): RequestContexts {
  const storage = new AsyncLocalStorage<RequestContext>();
  return {
    run: (ctx, fn) => storage.run(ctx, fn),
    current: () => storage.getStore(),
    outgoingHeaders: () => {
      const ctx = storage.getStore();
      return ctx ? outgoingHeadersOf(ctx) : {};
    },
  };
}

/** The headers that carry `ctx` to a downstream service. */
export function outgoingHeadersOf(ctx: RequestContext): Record<string, string> {
  const h: Record<string, string> = { 'x-request-id': ctx.requestId };
  if (ctx.trace) h.traceparent = formatTraceparent(ctx.trace);
  return h;
}
