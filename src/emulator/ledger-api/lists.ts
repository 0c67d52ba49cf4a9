/**
 * The JSON API's "list" form of gRPC streams (Canton `Endpoints.asList`, `JsonApiConfig.scala`): the response is a
 * JSON array; `limit` caps it; without a limit, more than the node limit
 * (`http-list-max-elements-limit`, 200 by default) is a 413; open-ended streams return after
 * `stream_idle_timeout_ms` of idleness (`http-list-wait-time`, 500 ms by default).
 *
 * A client cannot hold a request open indefinitely: the idle timeout it asks for is capped, and
 * so is the whole wait of one open-ended list (a stream that keeps receiving transactions never
 * goes idle), both at Canton's JSON API request timeout (`request-timeout`, 20 s by default).
 *
 * While an open-ended list waits, the caller's authorization is watched as for any open stream
 * (stream-auth.ts): when it lapses the gRPC stream fails, `Endpoints.asList`'s `Sink.seq` fails
 * with it, and the whole request answers that error (409 for STALE_STREAM_AUTHORIZATION and
 * ACCESS_TOKEN_EXPIRED), not the elements collected so far.
 */
import type { Context } from 'hono';
import { LedgerApiError } from '../../canton/errors.js';
import type { Claims } from '../participant/claims.js';
import type { LedgerEngine } from '../participant/engine.js';
import { queryInt } from './decode.js';
import { LEDGER_MAX_LIST_WAIT_MS } from '../../http/limits.js';
import { logWindow, type OpenedStream } from './streams.js';
import { watchStreamAuthorization } from './stream-auth.js';

export const DEFAULT_IDLE_TIMEOUT_MS = 500;

export interface ListParams {
  limit?: number;
  idleTimeoutMs: number;
}

export function listParams(c: Context): ListParams {
  const limit = queryInt(c, 'limit');
  const idle = queryInt(c, 'stream_idle_timeout_ms');
  return {
    limit: limit !== undefined && limit >= 0 ? limit : undefined,
    idleTimeoutMs: Math.min(idle ?? DEFAULT_IDLE_TIMEOUT_MS, LEDGER_MAX_LIST_WAIT_MS),
  };
}

/**
 * Applies `limit` and the node limit to a bounded result: a client limit within the node limit
 * caps the answer; otherwise more elements than the node limit is a 413 (Canton takes up to
 * node limit + 1 elements and fails, whatever larger limit the client asked for).
 */
export function bounded<T>(engine: LedgerEngine, items: T[], p: ListParams): T[] {
  if (p.limit !== undefined && p.limit <= engine.listMaxElements) return items.slice(0, p.limit);
  if (items.length > engine.listMaxElements) throw tooManyElements(items.length, engine.listMaxElements);
  return p.limit === undefined ? items : items.slice(0, p.limit);
}

/** How many elements an open-ended stream may collect before answering (node limit + 1 trips the 413). */
function capOf(engine: LedgerEngine, p: ListParams): number {
  return p.limit !== undefined && p.limit <= engine.listMaxElements ? p.limit : engine.listMaxElements + 1;
}

export function tooManyElements(n: number, limit: number): LedgerApiError {
  return new LedgerApiError(
    'JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED',
    `The number of matching elements (${n}) is greater than the node limit (${limit}).`,
    { httpStatus: 413 },
  );
}

/**
 * Collects an open-ended stream: `initial(end)` gives what exists up to `end`; afterwards every
 * new transaction is offered to `next` until the stream has been idle for the idle timeout or
 * the limit is reached.
 */
export async function collectOpenEnded<T>(
  engine: LedgerEngine,
  claims: Claims,
  p: ListParams,
  initial: (end: number) => T[],
  next: (offset: number) => T[],
): Promise<T[]> {
  const cap = capOf(engine, p);
  const out = initial(engine.readableEnd()).slice(0, cap);
  if (out.length < cap && p.idleTimeoutMs > 0) {
    await new Promise<void>((resolve, reject) => {
      let timer = setTimeout(done, p.idleTimeoutMs);
      const deadline = setTimeout(done, LEDGER_MAX_LIST_WAIT_MS);
      const authorized = watchStreamAuthorization(engine, claims, (err) => {
        release();
        reject(err);
      });
      const unsubscribe = engine.updates.subscribe((tx) => {
        const items = next(tx.offset);
        if (items.length > 0 && authorized.check() !== undefined) return;
        for (const x of items) if (out.length < cap) out.push(x);
        clearTimeout(timer);
        if (out.length >= cap) done();
        else timer = setTimeout(done, p.idleTimeoutMs);
      });
      function release() {
        clearTimeout(timer);
        clearTimeout(deadline);
        unsubscribe();
        authorized.stop();
      }
      function done() {
        release();
        resolve();
      }
    });
  }
  return bounded(engine, out, p);
}

/** Serves an opened stream in list form: a snapshot or bounded window at once, an open-ended one until idle. */
export async function listOf(engine: LedgerEngine, claims: Claims, stream: OpenedStream, p: ListParams): Promise<unknown[]> {
  if (stream.kind === 'snapshot') return bounded(engine, stream.items, p);
  if (stream.endInclusive !== undefined) {
    const out: unknown[] = [];
    const cap = engine.listMaxElements + 1;
    for (const tx of logWindow(engine, stream, stream.beginExclusive, stream.endInclusive)) {
      if (out.length >= cap) break;
      out.push(...stream.render(tx));
    }
    return bounded(engine, out, p);
  }
  return collectOpenEnded(
    engine,
    claims,
    p,
    (end) => logWindow(engine, stream, stream.beginExclusive, end).flatMap((tx) => stream.render(tx)),
    (offset) => stream.render(engine.updates.atOffset(offset)!),
  );
}
