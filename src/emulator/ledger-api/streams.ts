/**
 * The server-streaming endpoints of the JSON Ledger API, defined once and served two ways
 * (Canton's openapi.yaml and asyncapi.yaml): as a JSON list over HTTP POST (lists.ts) and as a
 * websocket channel (websocket.ts). Canton does the same: `JsUpdateService`, `JsStateService` and
 * `JsCommandService` hand one pekko `Flow` per stream to both `Endpoints.asList` and
 * `Endpoints.websocket`.
 *
 * A stream is opened from the decoded request and the caller's claims; opening validates the
 * request and checks the rights completely (throwing `LedgerApiError`), so a bad request never
 * starts a stream. What it yields is either a fixed snapshot (the ACS) or a window of the update
 * log rendered transaction by transaction (updates, completions), which is open-ended when it
 * has no end offset.
 */
import type { Claims } from '../participant/claims.js';
import type { LedgerEngine } from '../participant/engine.js';
import type { TransactionRecord } from '../participant/updates.js';

/** A bounded list computed when the stream opens (the ACS at an offset). */
export interface SnapshotStream {
  kind: 'snapshot';
  items: unknown[];
}

/** A window of the update log, each transaction rendered to zero or more stream elements. */
export interface LogStream {
  kind: 'log';
  beginExclusive: number;
  /** Bounded stream end; absent = open-ended (tails the log until the client goes away). */
  endInclusive?: number;
  /** Only transactions one of these parties witnesses can yield elements (index hint); all when absent. */
  parties?: ReadonlySet<string>;
  /** Bounded streams only: newest first. */
  descending: boolean;
  render(tx: TransactionRecord): unknown[];
}

export type OpenedStream = SnapshotStream | LogStream;

/** Opens a stream from the raw request (decoded here, failing like tapir) for a caller. */
export type StreamOpener = (engine: LedgerEngine, claims: Claims, request: unknown) => OpenedStream;

/** The transactions of a log window in (from, to], in stream order. */
export function logWindow(engine: LedgerEngine, s: LogStream, fromExclusive: number, toInclusive: number): TransactionRecord[] {
  const txs = engine.updates.range(fromExclusive, toInclusive, s.parties);
  return s.descending ? txs.reverse() : txs;
}
