/**
 * The one place where this project creates and binds an HTTP server (registry, ledger, scan,
 * validator, in `serve` and in the emulated stack), so that server-wide settings are applied to
 * every one of them: the limits and connection slots (server-limits.ts, connections.ts) and
 * `Expect: 100-continue` (expect-continue.ts); and every one shuts down the same way:
 *
 *   close(): stop accepting (the listening socket is closed, idle keep-alive connections too),
 *   let the requests in flight finish (answers written during the drain carry
 *   `Connection: close`), and after at most `drainMs` cut what is left. `beforeCut` runs once the
 *   in-flight requests are done, before the remaining connections (e.g. websockets) are cut.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ConnectionStats } from './connections.js';
import { continueWhenRead } from './expect-continue.js';
import { applyServerLimits, connectionsCheckingIntervalMs, refusedForMissingHost, type ClientErrorShape, type ServerLimits } from './server-limits.js';

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * A listener that reports itself when each of its responses has closed, by calling `closed` from
 * its own 'close' listener (the pipeline does): listen then adds none of its own, and a response
 * carries one 'close' listener, not two.
 */
export type ClosingRequestListener = ((req: IncomingMessage, res: ServerResponse, closed: () => void) => void) & { readonly reportsClosed: true };

export interface ListenOptions {
  port: number;
  host: string;
  /** Timeouts and connection slots (DEFAULT_SERVER_LIMITS for what is not given). */
  limits?: Partial<ServerLimits>;
  /** How the API words errors Node raises before the handler sees the request (default `json`). */
  errorShape?: ClientErrorShape;
  /** Called with the server before it listens (e.g. attaching websocket upgrades). */
  onServer?: (server: Server) => void;
}

export interface CloseOptions {
  /** Longest wait for in-flight requests, ms (default 10 000). */
  drainMs?: number;
  /** Runs once the in-flight requests are done (or the drain time is up), before connections are cut. */
  beforeCut?: () => void | Promise<void>;
}

export interface Listening {
  server: Server;
  /** `http://host:port`, with 127.0.0.1 for a wildcard host. */
  url: string;
  /** Requests being answered right now. */
  readonly inFlight: number;
  /** Open connections, and those refused, evicted or closed for silence so far. */
  connections(): ConnectionStats;
  close(opts?: CloseOptions): Promise<void>;
}

export const DEFAULT_DRAIN_MS = 10_000;

/** A port another process already listens on: one clear line for the operator, no stack trace. */
export class PortInUseError extends Error {
  constructor(
    readonly port: number,
    message: string,
  ) {
    super(message);
    this.name = 'PortInUseError';
  }
}

/** Whether `err` is Node's EADDRINUSE from `server.listen`. */
export function isAddressInUse(err: unknown): boolean {
  return err instanceof Error && (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
}

export async function listen(handler: RequestListener, opts: ListenOptions): Promise<Listening>;
export async function listen(handler: ClosingRequestListener, opts: ListenOptions): Promise<Listening>;
export async function listen(handler: RequestListener | ClosingRequestListener, opts: ListenOptions): Promise<Listening> {
  let inFlight = 0;
  let draining = false;
  let drained: (() => void) | undefined;
  // One function for every request: it needs nothing of the request it ends.
  const closed = () => {
    inFlight--;
    if (inFlight === 0) drained?.();
  };
  const errorShape = opts.errorShape ?? 'json';
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    if (refusedForMissingHost(req, res, errorShape)) return;
    inFlight++;
    guard.requestStarted(req.socket, res);
    if (draining) res.shouldKeepAlive = false;
    if (reportsClosed(handler)) {
      handler(req, res, closed);
    } else {
      res.on('close', closed);
      handler(req, res);
    }
  };
  const server = createServer({ connectionsCheckingInterval: connectionsCheckingIntervalMs(opts.limits), requireHostHeader: false }, onRequest);
  const guard = applyServerLimits(server, opts.limits, errorShape);
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    continueWhenRead(req, res, () => !draining);
    onRequest(req, res);
  });
  opts.onServer?.(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port: bound } = server.address() as AddressInfo;
  const h = opts.host === '0.0.0.0' || opts.host === '::' ? '127.0.0.1' : opts.host;
  let closing: Promise<void> | undefined;
  return {
    server,
    url: `http://${h.includes(':') ? `[${h}]` : h}:${bound}`,
    get inFlight() {
      return inFlight;
    },
    connections: () => guard.stats(),
    close: (c: CloseOptions = {}) =>
      (closing ??= (async () => {
        draining = true;
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        if (inFlight > 0) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, c.drainMs ?? DEFAULT_DRAIN_MS);
            timer.unref();
            drained = () => {
              clearTimeout(timer);
              resolve();
            };
          });
        }
        await c.beforeCut?.();
        server.closeAllConnections();
        await closed;
      })()),
  };
}

function reportsClosed(h: RequestListener | ClosingRequestListener): h is ClosingRequestListener {
  return 'reportsClosed' in h && h.reportsClosed === true;
}
