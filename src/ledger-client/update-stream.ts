/**
 * Following a ledger node's update stream, by two transports behind one interface:
 *
 * - `webSocketUpdates`: the websocket channel `GET ws /v2/updates` (Canton's JSON
 *   Ledger API `asyncapi.yaml`). The client sends one GetUpdatesRequest frame; the node answers one frame per
 *   element (a JsGetUpdatesResponse, or a JsCantonError after which it closes) and, for a request
 *   without `endInclusive`, keeps sending every later update as it is committed. The token goes
 *   in the subprotocols, as Canton reads it (`Endpoints.baseEndpoint`: the first `jwt.token.<JWT>`
 *   entry, next to `daml.ws.auth`, the subprotocol the node answers).
 * - `pollingUpdates`: long polls of `POST /v2/updates` with `stream_idle_timeout_ms`. A poll that
 *   keeps receiving updates never goes idle, so it returns only when the node's list limit or
 *   idle time ends it: seconds behind the ledger on a busy one. Kept as the fallback.
 * - `preferWebSocket`: the websocket, falling back to polls where the node (or a proxy in front of
 *   it) refuses the upgrade; the websocket is tried again every `retryWebSocketMs`.
 *
 * Every `follow` call starts from the offset it is given: a caller reconnects by calling again from
 * the last offset it applied (updates are delivered in offset order, each awaited before the next).
 */
import type { Logger } from 'pino';
import WebSocket, { type RawData } from 'ws';
import type { IncomingMessage } from 'node:http';
import type { TokenProvider } from './auth.js';
import { TokenProviderError } from './auth.js';
import { buildUpdateFormat, type ContractFilter, type LedgerClient, type TransactionShape } from './client.js';
import { LedgerError, LedgerUnavailableError, errorFromResponse, parseJsCantonError } from './errors.js';
import { httpStatusOfGrpc } from '../canton/errors.js';
import { JsGetUpdatesResponseSchema, offsetOfUpdate, type JsGetUpdatesResponse } from './schemas/events.js';

export interface UpdateStreamRequest extends ContractFilter {
  beginExclusive: number;
  /** Default `ACS_DELTA`. */
  shape?: TransactionShape;
}

export type UpdateTransport = 'websocket' | 'poll';

export interface UpdateStream {
  /** The transport the last (or current) `follow` used. */
  readonly transport: UpdateTransport;
  /**
   * Delivers the updates after `req.beginExclusive` in order, awaiting `onUpdate` for each before
   * the next. Resolves when `signal` aborts (after the update being applied, if any) or when the
   * stream ended and should be followed again from the last applied offset; rejects with a
   * `LedgerError` or `LedgerUnavailableError` when it failed (or with what `onUpdate` threw).
   */
  follow(req: UpdateStreamRequest, onUpdate: (u: JsGetUpdatesResponse) => Promise<void>, signal: AbortSignal): Promise<void>;
}

/** The node (or a proxy) answered the upgrade request without upgrading: it serves no websocket. */
export class WebSocketRefusedError extends Error {
  override readonly name = 'WebSocketRefusedError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface WebSocketUpdatesOptions {
  /** Base URL of the JSON API (`http(s)://...`, with the node's path prefix); `ws(s)://` is derived. */
  baseUrl: string;
  tokenProvider: TokenProvider;
  logger?: Logger;
  /** Opening handshake timeout (default 10 000 ms). */
  handshakeTimeoutMs?: number;
  /** Received updates not yet applied before reading from the socket pauses (default 1000). */
  maxBuffered?: number;
  /** The socket is pinged this often; no pong by the next ping ends it (default 15 000 ms). */
  pingIntervalMs?: number;
}

const WS_AUTH_PROTOCOL = 'daml.ws.auth';
const WS_TOKEN_PREFIX = 'jwt.token.';
const PATH = '/v2/updates';

/**
 * A 401 error frame on a socket that had been open this long is a token that expired while the
 * stream ran (Canton ends streams whose token expires), not a rejected credential.
 */
const EXPIRED_MID_STREAM_MS = 1_000;

export function webSocketUpdates(opts: WebSocketUpdatesOptions): UpdateStream {
  const url = `${opts.baseUrl.replace(/\/+$/, '').replace(/^http/i, 'ws')}${PATH}`;
  const maxBuffered = Math.max(1, opts.maxBuffered ?? 1000);
  let reauthorized = false;
  return {
    transport: 'websocket',
    async follow(req, onUpdate, signal) {
      if (signal.aborted) return;
      let token: string | undefined;
      try {
        token = await opts.tokenProvider.token();
      } catch (e) {
        throw new LedgerUnavailableError({
          reason: 'auth',
          message: `could not obtain a ledger access token: ${(e as Error).message}`,
          retryable: e instanceof TokenProviderError ? e.transient : false,
          error: e,
          method: 'GET',
          path: PATH,
        });
      }
      const protocols = token ? [`${WS_TOKEN_PREFIX}${token}`, WS_AUTH_PROTOCOL] : [WS_AUTH_PROTOCOL];
      const ws = new WebSocket(url, protocols, { handshakeTimeout: opts.handshakeTimeoutMs ?? 10_000, perMessageDeflate: false });
      const request = {
        beginExclusive: req.beginExclusive,
        updateFormat: buildUpdateFormat(req),
        verbose: false,
      };
      return new Promise<void>((resolve, reject) => {
        const queue: JsGetUpdatesResponse[] = [];
        let draining = false;
        let paused = false;
        let outcome: { error?: unknown } | undefined;
        let openedAt = 0;
        let awaitingPong = false;
        let settled = false;
        const pinger = setInterval(() => {
          if (ws.readyState !== WebSocket.OPEN) return;
          if (awaitingPong) {
            finish({ error: new LedgerUnavailableError({ reason: 'timeout', message: 'the ledger node stopped answering pings on the update stream', method: 'GET', path: PATH }) });
            return;
          }
          awaitingPong = true;
          ws.ping();
        }, opts.pingIntervalMs ?? 15_000);
        pinger.unref();
        ws.on('pong', () => (awaitingPong = false));

        const settle = () => {
          if (settled || draining || outcome === undefined) return;
          // Updates received before the end are applied first (a failed onUpdate or an abort
          // emptied the queue).
          if (queue.length > 0 && !signal.aborted) return void drain();
          settled = true;
          clearInterval(pinger);
          signal.removeEventListener('abort', onAbort);
          if (outcome.error === undefined) resolve();
          else reject(outcome.error);
        };
        /** Ends the stream (first outcome wins) and closes the socket. */
        const finish = (o: { error?: unknown }) => {
          if (outcome === undefined) outcome = o;
          if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.terminate();
          settle();
        };
        const onAbort = () => {
          queue.length = 0;
          finish({});
        };
        signal.addEventListener('abort', onAbort, { once: true });

        const drain = async () => {
          draining = true;
          try {
            while (queue.length > 0 && !signal.aborted) {
              const u = queue.shift()!;
              await onUpdate(u);
              if (paused && queue.length <= maxBuffered / 2) {
                paused = false;
                ws.resume();
              }
            }
          } catch (e) {
            queue.length = 0;
            draining = false;
            finish({ error: e });
            return;
          }
          draining = false;
          settle();
        };

        ws.on('unexpected-response', (_req, res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            if (size < 4096) chunks.push(c);
            size += c.length;
          });
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            const bodyText = Buffer.concat(chunks).toString('utf8');
            if (status === 401 || status === 403 || status >= 502) {
              const contentType = res.headers['content-type'] ?? null;
              finish({ error: errorFromResponse({ status, contentType, bodyText, method: 'GET', path: PATH }) });
            } else {
              finish({ error: new WebSocketRefusedError(status, `the ledger node answered the websocket upgrade of ${PATH} with HTTP ${status}`) });
            }
          });
          res.on('error', () => finish({ error: new WebSocketRefusedError(res.statusCode ?? 0, `websocket upgrade of ${PATH} refused`) }));
        });
        ws.on('open', () => {
          openedAt = Date.now();
          ws.send(JSON.stringify(request));
        });
        ws.on('message', (data: RawData) => {
          if (outcome !== undefined) return;
          let json: unknown;
          try {
            json = JSON.parse(textOf(data));
          } catch {
            finish({ error: invalidFrame('a frame is not JSON') });
            return;
          }
          const canton = parseJsCantonError(json);
          if (canton) {
            const status = httpStatusOfGrpc(canton.grpcCodeValue ?? 13);
            const err = errorFromResponse({ status, contentType: 'application/json', bodyText: JSON.stringify(json), method: 'GET', path: PATH });
            // A token that expired mid-stream, or a cached one revoked since: one more try with a
            // fresh token (as the HTTP client does on a 401), as a transient failure.
            if (status === 401 && opts.tokenProvider.invalidate && (!reauthorized || Date.now() - openedAt >= EXPIRED_MID_STREAM_MS)) {
              reauthorized = true;
              opts.tokenProvider.invalidate();
              finish({ error: new LedgerUnavailableError({ reason: 'auth', message: `the ledger node ended the update stream: ${canton.code}`, error: err, method: 'GET', path: PATH }) });
              return;
            }
            finish({ error: err });
            return;
          }
          const parsed = JsGetUpdatesResponseSchema.safeParse(json);
          if (!parsed.success) {
            finish({ error: invalidFrame(`unexpected frame shape: ${parsed.error.issues[0]?.message ?? 'invalid'}`) });
            return;
          }
          reauthorized = false;
          queue.push(parsed.data);
          if (!paused && queue.length >= maxBuffered) {
            paused = true;
            ws.pause();
          }
          if (!draining) void drain();
        });
        ws.on('error', (err) => {
          if (outcome !== undefined) return;
          finish({ error: new LedgerUnavailableError({ reason: 'network', message: `update stream ${url}: ${err.message}`, error: err, method: 'GET', path: PATH }) });
        });
        ws.on('close', (code) => {
          // An open-ended stream does not complete: a close is the node going away (or ending the
          // stream after an error frame, which set the outcome already).
          finish({ error: new LedgerUnavailableError({ reason: 'network', message: `the ledger node closed the update stream (code ${code})`, method: 'GET', path: PATH }) });
        });
      });
    },
  };
}

export interface PollingUpdatesOptions {
  ledger: LedgerClient;
  /** `stream_idle_timeout_ms` of one poll (default 200). */
  idleMs?: number;
  /** A `follow` resolves after this long (default: never), so that a caller can try another transport. */
  maxRunMs?: number;
}

/** Long polls of `POST /v2/updates` (see the module comment). */
export function pollingUpdates(opts: PollingUpdatesOptions): UpdateStream {
  return {
    transport: 'poll',
    async follow(req, onUpdate, signal) {
      const until = opts.maxRunMs === undefined ? Infinity : Date.now() + opts.maxRunMs;
      let from = req.beginExclusive;
      while (!signal.aborted && Date.now() < until) {
        let updates: JsGetUpdatesResponse[];
        try {
          updates = await opts.ledger.updates({ ...req, beginExclusive: from, includeCreatedEventBlob: req.includeCreatedEventBlob, idleTimeoutMs: opts.idleMs ?? 200, signal });
        } catch (e) {
          if (signal.aborted) return;
          throw e;
        }
        for (const u of updates) {
          if (signal.aborted) return;
          await onUpdate(u);
          from = Math.max(from, offsetOfUpdate(u));
        }
      }
    },
  };
}

export interface PreferWebSocketOptions {
  webSocket: UpdateStream;
  poll: UpdateStream;
  /** After a refused upgrade, polls are used this long before the websocket is tried again (default 300 000 ms). */
  retryWebSocketMs?: number;
  logger?: Logger;
}

/** The websocket, or polls while the node refuses it (see the module comment). */
export function preferWebSocket(opts: PreferWebSocketOptions): UpdateStream {
  const retryMs = opts.retryWebSocketMs ?? 300_000;
  let pollUntil = 0;
  let transport: UpdateTransport = 'websocket';
  let warned = false;
  const poll = (req: UpdateStreamRequest, onUpdate: (u: JsGetUpdatesResponse) => Promise<void>, signal: AbortSignal) => {
    transport = 'poll';
    const wait = Math.max(0, pollUntil - Date.now());
    const timer = new AbortController();
    const t = setTimeout(() => timer.abort(), wait);
    return opts.poll.follow(req, onUpdate, AbortSignal.any([signal, timer.signal])).finally(() => clearTimeout(t));
  };
  return {
    get transport() {
      return transport;
    },
    async follow(req, onUpdate, signal) {
      if (Date.now() < pollUntil) return poll(req, onUpdate, signal);
      transport = 'websocket';
      let from = req.beginExclusive;
      const track = async (u: JsGetUpdatesResponse) => {
        await onUpdate(u);
        from = Math.max(from, offsetOfUpdate(u));
      };
      try {
        await opts.webSocket.follow(req, track, signal);
        if (warned) opts.logger?.info('the ledger node serves the websocket update stream again');
        warned = false;
      } catch (e) {
        if (!(e instanceof WebSocketRefusedError)) throw e;
        pollUntil = Date.now() + retryMs;
        if (!warned) {
          opts.logger?.warn({ status: e.status, retryWebSocketInMs: retryMs }, 'the ledger node refused the websocket update stream; following it by long polls');
          warned = true;
        }
        return poll({ ...req, beginExclusive: from }, onUpdate, signal);
      }
    },
  };
}

function textOf(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data instanceof ArrayBuffer ? new Uint8Array(data) : data).toString('utf8');
}

function invalidFrame(cause: string): LedgerError {
  return new LedgerError({ status: 200, code: 'INVALID_RESPONSE', cause, category: -1, method: 'GET', path: PATH });
}
