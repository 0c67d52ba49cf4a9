/**
 * The websocket channels of the emulated JSON Ledger API (Canton's
 * asyncapi.yaml of 3.4/3.5), served on the same HTTP server as the ledger app. Each channel is the stream its
 * list endpoint serves (streams.ts): same request body, same elements, one text frame each.
 *
 * Wire behaviour, following Canton's `Endpoints.websocket` / `prepareSingleWsStream` (json-api v2)
 * on pekko-http:
 * - The upgrade is never refused for auth: the token (an `Authorization: Bearer` header, else the
 *   first `jwt.token.<JWT>` entry of `Sec-WebSocket-Protocol`) is only carried to the gRPC call.
 *   The server answers the `daml.ws.auth` subprotocol.
 * - The client sends ONE request frame (later frames are ignored: the flow takes one element).
 *   Token, request and rights are checked then; a failure is sent as one JsCantonError frame,
 *   exactly the body the list endpoint would answer (`handleErrorInSocket`).
 * - A frame that does not decode as the request type fails tapir's frame decoding
 *   (`WebSocketFrameDecodeFailure`, "Cannot decode frame: ..."), which the same recovery turns
 *   into a LEDGER_API_INTERNAL_ERROR frame.
 * - When the stream completes (the ACS, updates with `endInclusive`, or after an error frame) the
 *   handler flow completes and pekko-http sends a Close frame with code 1000 and no reason
 *   (`FrameHandler`: `UserHandlerCompleted` -> `CloseCodes.Regular`).
 * - Open-ended streams (updates without `endInclusive`, completions) send what exists, then
 *   every transaction committed later, until the client closes.
 * - An open stream stays authorized only while its caller is (stream-auth.ts): a change of the
 *   user's rights, a deactivated or deleted user (STALE_STREAM_AUTHORIZATION) or an expired token
 *   (ACCESS_TOKEN_EXPIRED) fails the gRPC stream, which reaches the socket like any stream
 *   failure: one JsCantonError frame, then the close of a completed stream (1000).
 * - A path that is not a channel is answered 404 without upgrading, as the ledger app answers.
 *
 * Back-pressure: elements are rendered from the update log only while the socket's send buffer
 * (`bufferedAmount`) is under a high-water mark; a slow consumer keeps the server's memory at
 * that mark plus one transaction, however far behind it is (the log itself is the queue).
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { WILDCARD, type Claims } from '../participant/claims.js';
import type { LedgerEngine } from '../participant/engine.js';
import { LedgerApiError, PlainTextBadRequest, renderJsCantonError } from '../../canton/errors.js';
import type { TransactionRecord } from '../participant/updates.js';
import type { z } from 'zod';
import { CompletionStreamRequestSchema, GetCompletionsRequestSchema } from '../../ledger-client/schemas/commands.js';
import { GetActiveContractsRequestSchema, GetUpdatesRequestSchema } from '../../ledger-client/schemas/state.js';
import type { Authenticator } from './auth.js';
import { openCommandCompletions, openCompletions } from './commands.js';
import { decodeValue } from './decode.js';
import { jsonDepthExceeds } from '../../http/body-limit.js';
import { MAX_JSON_DEPTH } from '../../http/limits.js';
import { openActiveContracts } from './state.js';
import { watchStreamAuthorization, type StreamAuthorization } from './stream-auth.js';
import { logWindow, type LogStream, type OpenedStream, type SnapshotStream, type StreamOpener } from './streams.js';
import { openUpdates, openUpdateTrees } from './updates.js';

interface Channel {
  /** The request frame's type (tapir decodes the frame with it before the stream is called). */
  request: z.ZodType;
  open: StreamOpener;
}

/** The channels (asyncapi 3.5; `command-completions` from 3.5.7) and the stream each serves. */
export const WEBSOCKET_CHANNELS: ReadonlyMap<string, Channel> = new Map([
  ['/v2/updates', { request: GetUpdatesRequestSchema, open: openUpdates }],
  ['/v2/updates/flats', { request: GetUpdatesRequestSchema, open: openUpdates }],
  ['/v2/updates/trees', { request: GetUpdatesRequestSchema, open: openUpdateTrees }],
  ['/v2/state/active-contracts', { request: GetActiveContractsRequestSchema, open: openActiveContracts }],
  ['/v2/commands/completions', { request: CompletionStreamRequestSchema, open: openCompletions }],
  ['/v2/commands/command-completions', { request: GetCompletionsRequestSchema, open: openCommandCompletions }],
]);

/** `Endpoints.wsSubprotocol`: the subprotocol Canton answers. */
export const WS_AUTH_PROTOCOL = 'daml.ws.auth';
/** Prefix of the subprotocol entry that carries the JWT (`Endpoints.baseEndpoint`). */
export const WS_TOKEN_PREFIX = 'jwt.token.';
/** pekko-http `Protocol.CloseCodes.Regular`, sent when the stream completes. */
export const CLOSE_NORMAL = 1000;

/** Largest request frame accepted. */
const MAX_REQUEST_FRAME_BYTES = 4 * 1024 * 1024;
/** Default send-buffer high-water mark per socket. */
const DEFAULT_HIGH_WATER_BYTES = 256 * 1024;

export interface LedgerStreamsDeps {
  engine: LedgerEngine;
  authenticate?: Authenticator;
  logger?: Logger;
  /** Stop rendering for a socket while its send buffer holds at least this many bytes. */
  highWaterBytes?: number;
  /** A socket that sends no request frame within this is closed (default 20 s, Canton's request timeout). */
  requestFrameTimeoutMs?: number;
  /** Sockets are pinged this often; one that did not answer the previous ping is terminated (default 30 s). */
  pingIntervalMs?: number;
}

export interface LedgerStreams {
  /** Serves the channels on `server`'s upgrade requests. */
  attach(server: Server): void;
  /** Open websocket subscriptions (from upgrade to close). */
  readonly size: number;
  /** The largest `bufferedAmount` any socket has reached (for the back-pressure bench and tests). */
  readonly maxBufferedAmount: number;
  /** Terminates every open socket. */
  close(): void;
  /** Ends every open stream with `err` (one JsCantonError frame, then close 1000); returns how many. */
  endAll(err: LedgerApiError): number;
}

export function createLedgerStreams(deps: LedgerStreamsDeps): LedgerStreams {
  const { engine } = deps;
  const authenticate = deps.authenticate ?? (async () => WILDCARD);
  const highWater = deps.highWaterBytes ?? DEFAULT_HIGH_WATER_BYTES;
  const open = new Set<WebSocket>();
  let maxBuffered = 0;
  const requestFrameTimeoutMs = deps.requestFrameTimeoutMs ?? 20_000;
  // Idle and dead peers: an open-ended stream with no new transactions sends nothing, so a peer
  // that vanished without a FIN would hold its socket forever. Each ping must be answered
  // (RFC 6455 §5.5.2: browsers and `ws` answer pings themselves) before the next one.
  const alive = new WeakSet<WebSocket>();
  const pinger = setInterval(() => {
    for (const ws of open) {
      if (!alive.has(ws)) {
        ws.terminate();
        continue;
      }
      alive.delete(ws);
      ws.ping();
    }
  }, deps.pingIntervalMs ?? 30_000);
  pinger.unref();
  const wss = new WebSocketServer({
    noServer: true,
    // The only inbound frame is one request; a larger one is refused (close 1009) rather than
    // buffered (ws's default allows 100 MiB).
    maxPayload: MAX_REQUEST_FRAME_BYTES,
    // Canton always names `daml.ws.auth`; a client that did not offer it would fail the handshake
    // (RFC 6455 §4.1), so it is answered only when offered.
    handleProtocols: (protocols) => (protocols.has(WS_AUTH_PROTOCOL) ? WS_AUTH_PROTOCOL : false),
  });

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = channelPath(req.url ?? '/');
    const channel = WEBSOCKET_CHANNELS.get(path);
    if (!channel || req.method !== 'GET') {
      refuse(socket, 404, 'The requested resource could not be found.');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      open.add(ws);
      alive.add(ws);
      ws.on('pong', () => alive.add(ws));
      // The request frame must come soon: a socket that never sends one holds a connection for nothing.
      const requestTimer = setTimeout(() => ws.close(1008, 'no request frame received'), requestFrameTimeoutMs);
      ws.once('message', () => clearTimeout(requestTimer));
      ws.once('close', () => {
        clearTimeout(requestTimer);
        open.delete(ws);
      });
      serve(ws, bearerOf(req), channel);
    });
  };

  function serve(ws: WebSocket, authorization: string | undefined, channel: Channel): void {
    let stop: (() => void) | undefined;
    let authorized: StreamAuthorization | undefined;
    ws.once('close', () => {
      stop?.();
      authorized?.stop();
    });
    ws.on('error', (err) => deps.logger?.debug({ err }, 'websocket error'));
    ws.once('message', (data, isBinary) => {
      void (async () => {
        let stream: OpenedStream;
        let claims: Claims;
        try {
          // As on Canton: the frame is decoded first (tapir), then the token is checked and the
          // request validated and authorized (the gRPC call).
          const request = decodeFrame(data, isBinary, channel.request);
          claims = await authenticate(authorization);
          if (ws.readyState !== ws.OPEN) return;
          stream = channel.open(engine, claims, request);
        } catch (e) {
          // What the list endpoint answers with a text/plain 400 (e.g. an identifier that is not
          // `pkg:Module:Entity`) fails circe's decoding of the frame on Canton.
          fail(ws, e instanceof PlainTextBadRequest ? frameDecodeFailure(textOf(data), e.body) : e);
          return;
        }
        // Watched from the moment the stream is authorized, so a change that lands while the
        // first window renders still ends it.
        authorized = watchStreamAuthorization(engine, claims, (err) => {
          stop?.();
          fail(ws, err);
        });
        stop = stream.kind === 'snapshot' ? sendSnapshot(ws, stream, authorized) : sendLog(ws, stream, authorized);
      })();
    });
  }

  /** Sends `frames` while the send buffer allows; `resume` is called once it has drained. */
  function sendFrames(ws: WebSocket, frames: unknown[], resume: () => void, congested: { waiting: boolean }): void {
    for (const f of frames) {
      ws.send(JSON.stringify(f), (err) => {
        if (!err && congested.waiting && ws.bufferedAmount < highWater) {
          congested.waiting = false;
          resume();
        }
      });
    }
    if (ws.bufferedAmount > maxBuffered) maxBuffered = ws.bufferedAmount;
  }

  function sendSnapshot(ws: WebSocket, stream: SnapshotStream, authorized: StreamAuthorization): () => void {
    let next = 0;
    const congested = { waiting: false };
    const pump = (): void => {
      while (ws.readyState === ws.OPEN) {
        if (next >= stream.items.length) {
          ws.close(CLOSE_NORMAL);
          return;
        }
        if (ws.bufferedAmount >= highWater) {
          congested.waiting = true;
          return;
        }
        if (authorized.check() !== undefined) return;
        sendFrames(ws, [stream.items[next++]], pump, congested);
      }
    };
    pump();
    return () => {};
  }

  function sendLog(ws: WebSocket, stream: LogStream, authorized: StreamAuthorization): () => void {
    let cursor = stream.beginExclusive;
    let window: TransactionRecord[] = [];
    let next = 0;
    let scheduled = false;
    const congested = { waiting: false };
    const pump = (): void => {
      try {
        while (ws.readyState === ws.OPEN) {
          if (ws.bufferedAmount >= highWater) {
            congested.waiting = true;
            return;
          }
          if (next >= window.length) {
            const end = stream.endInclusive ?? engine.readableEnd();
            if (cursor >= end) {
              if (stream.endInclusive !== undefined) ws.close(CLOSE_NORMAL);
              return;
            }
            window = logWindow(engine, stream, cursor, end);
            next = 0;
            cursor = end;
            continue;
          }
          const frames = stream.render(window[next++]!);
          // Canton checks before each element it emits (`onNext`), not per transaction.
          if (frames.length > 0 && authorized.check() !== undefined) return;
          sendFrames(ws, frames, pump, congested);
        }
      } catch (e) {
        fail(ws, e);
      }
    };
    // Rendering runs after the committing call returns (a microtask), never inside it: a slow or
    // failing subscriber cannot delay or break a submission, and bursts coalesce into one pump.
    const unsubscribe =
      stream.endInclusive === undefined
        ? engine.updates.subscribe(() => {
            if (scheduled || congested.waiting) return;
            scheduled = true;
            queueMicrotask(() => {
              scheduled = false;
              pump();
            });
          })
        : () => {};
    pump();
    return unsubscribe;
  }

  /** One JsCantonError frame, then the close of a completed stream. */
  function fail(ws: WebSocket, e: unknown): void {
    const err = e instanceof LedgerApiError ? e : new LedgerApiError('LEDGER_API_INTERNAL_ERROR', String(e instanceof Error ? e.message : e));
    if (!(e instanceof LedgerApiError)) deps.logger?.error({ err: e }, 'unhandled error in a ledger websocket stream');
    if (ws.readyState !== ws.OPEN) return;
    const traceId = engine.ids.hex(16);
    const body = renderJsCantonError(err, {
      participant: engine.participantName,
      traceId,
      correlationId: null,
      unredacted: err.code === 'LEDGER_API_INTERNAL_ERROR',
    });
    ws.send(JSON.stringify(body));
    ws.close(CLOSE_NORMAL);
  }

  return {
    attach(server) {
      server.on('upgrade', onUpgrade);
    },
    get size() {
      return open.size;
    },
    get maxBufferedAmount() {
      return maxBuffered;
    },
    close() {
      clearInterval(pinger);
      for (const ws of open) ws.terminate();
    },
    endAll(err) {
      const sockets = [...open];
      for (const ws of sockets) fail(ws, err);
      return sockets.length;
    },
  };
}

/** `Endpoints.baseEndpoint`: the bearer header wins, else the first `jwt.token.` subprotocol entry. */
function bearerOf(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (header !== undefined) return header;
  const fromProtocol = (req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .find((p) => p.startsWith(WS_TOKEN_PREFIX));
  return fromProtocol === undefined ? undefined : `Bearer ${fromProtocol.slice(WS_TOKEN_PREFIX.length)}`;
}

/**
 * The request path without its query, with repeated slashes collapsed: the wallet SDK's events
 * namespace joins `websocketURL.toString()` (which ends in `/`) and `/v2/updates`, so it asks for
 * `//v2/updates`.
 */
function channelPath(url: string): string {
  return url.split('?')[0]!.replace(/\/{2,}/g, '/');
}

function textOf(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data instanceof ArrayBuffer ? new Uint8Array(data) : data).toString('utf8');
}

/**
 * Decodes the request frame as the channel's request type; a frame that is not JSON or not of
 * that type is a tapir frame decode failure (not the list endpoint's text/plain 400).
 */
function decodeFrame(data: RawData, isBinary: boolean, type: z.ZodType): unknown {
  const text = textOf(data);
  if (isBinary) throw frameDecodeFailure(text, 'binary frame');
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) throw frameDecodeFailure(text.slice(0, 200), `JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw frameDecodeFailure(text, e instanceof Error ? e.message : String(e));
  }
  try {
    decodeValue(json, type);
  } catch (e) {
    if (e instanceof PlainTextBadRequest) throw frameDecodeFailure(text, e.body);
    throw e;
  }
  return json;
}

/** tapir's `WebSocketFrameDecodeFailure` text, as `LedgerApiErrors.InternalError.Generic` carries it. */
function frameDecodeFailure(text: string, why: string): LedgerApiError {
  return new LedgerApiError('LEDGER_API_INTERNAL_ERROR', `Cannot decode frame: Text(${text},true,None), due to: Error(${text},${why})`);
}

function refuse(socket: Duplex, status: number, text: string): void {
  socket.end(
    `HTTP/1.1 ${status} Not Found\r\nContent-Type: text/plain; charset=UTF-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}
