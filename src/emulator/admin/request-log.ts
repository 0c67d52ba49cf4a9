/**
 * The registry, scan and validator requests of the last minutes, in a ring buffer in memory: what
 * the explorer shows so that a test author sees what a wallet asked (method, path, status, time).
 * A middleware at the Node request level wraps each service's handler (the registry's fast path
 * answers without Hono), so every answer is recorded once it is done, whatever produced it.
 *
 * Like the access log (src/http/access-log.ts), an entry holds no header and no query string,
 * so never a token.
 *
 * KNOWN LIMITATIONS: in memory only (a restart forgets it), the last `capacity` requests; the
 * ledger's and the admin API's own requests are not recorded; a request counts when its answer
 * is done, so one still streaming is not listed yet.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { honoRequestListener, type ServiceOptions } from '../../http/service.js';
import { honoRouteOf, type ContextualListener, type RouteOf } from '../../http/pipeline.js';

export type RecordedService = 'registry' | 'scan' | 'validator';

export interface RecordedRequest {
  service: RecordedService;
  method: string;
  path: string;
  status: number;
  /** Wall time (ISO-8601) when the answer was done. */
  time: string;
  ms: number;
}

export interface RequestLogOptions {
  /** Entries kept at most (default 1000): the oldest go first. */
  capacity?: number;
  /** Entries older than this are not listed (default ten minutes). */
  maxAgeMs?: number;
  /** Wall time in ms (default Date.now). */
  now?: () => number;
}

export class RequestLog {
  private readonly entries: Array<{ at: number; request: RecordedRequest } | undefined>;
  private next = 0;
  private readonly listeners = new Set<(r: RecordedRequest) => void>();
  private readonly maxAgeMs: number;
  private readonly now: () => number;

  constructor(opts: RequestLogOptions = {}) {
    this.entries = new Array(Math.max(1, opts.capacity ?? 1000));
    this.maxAgeMs = opts.maxAgeMs ?? 10 * 60_000;
    this.now = opts.now ?? Date.now;
  }

  record(r: Omit<RecordedRequest, 'time'>): void {
    const at = this.now();
    const request = { ...r, time: new Date(at).toISOString() };
    this.entries[this.next] = { at, request };
    this.next = (this.next + 1) % this.entries.length;
    for (const l of this.listeners) l(request);
  }

  /** The requests of the last `maxAgeMs`, newest first. */
  recent(): RecordedRequest[] {
    const oldest = this.now() - this.maxAgeMs;
    const out: RecordedRequest[] = [];
    const n = this.entries.length;
    for (let i = 1; i <= n; i++) {
      const e = this.entries[(this.next - i + n) % n];
      if (!e || e.at < oldest) break;
      out.push(e.request);
    }
    return out;
  }

  /** Calls `listener` for every request recorded from now on; returns an unsubscribe. */
  subscribe(listener: (r: RecordedRequest) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * A service's handler with every answer recorded: `handler` as `startService` takes it (a Node
   * listener with its route resolver, or a Hono app), wrapped at the Node request level.
   */
  recording(service: RecordedService, handler: ServiceOptions['handler']): { listener: ContextualListener; routeOf: RouteOf } {
    const inner = 'listener' in handler ? handler : { listener: honoRequestListener(handler), routeOf: honoRouteOf(handler) };
    const started = (req: IncomingMessage, res: ServerResponse) => {
      const t0 = performance.now();
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const method = req.method ?? 'GET';
      const path = q < 0 ? url : url.slice(0, q);
      res.once('close', () => this.record({ service, method, path, status: res.statusCode, ms: Math.round((performance.now() - t0) * 100) / 100 }));
    };
    const listener: ContextualListener = Object.assign(
      (req: IncomingMessage, res: ServerResponse, ctx: Parameters<ContextualListener>[2]) => {
        started(req, res);
        inner.listener(req, res, ctx);
      },
      { echoesRequestId: 'listener' in handler ? handler.listener.echoesRequestId : undefined },
    );
    return { listener, routeOf: inner.routeOf };
  }
}
