/**
 * What the explorer is told as it happens: each transaction once its participant publishes it
 * (the update log's own subscription, the feed the ledger's update streams read), each recorded
 * registry/scan/validator request, and each change of the whole world (restore, reset, clock).
 * The admin API serves it as server-sent events (`GET /admin/v1/events`).
 *
 * The hub subscribes to the ledgers only while someone listens, so a stack without an open
 * explorer holds no listener on its update logs.
 *
 * KNOWN LIMITATIONS: no replay (no event ids, no `Last-Event-ID`): a client that connects again
 * reloads what it shows from the reads; events for a client that reads slowly wait in memory
 * without a bound (the explorer is one local page, not a public feed).
 */
import type { LedgerEngine } from '../participant/engine.js';
import type { RecordedRequest, RequestLog } from './request-log.js';
import type { TransactionSummary, WorldView } from './world-view.js';

export type WorldChange = 'restored' | 'reset' | 'clock';

export type LiveEvent =
  | { type: 'transaction'; data: TransactionSummary }
  | { type: 'request'; data: RecordedRequest }
  | { type: 'world'; data: { change: WorldChange; ledgerEnds: Record<string, number> } };

interface Listener {
  send: (e: LiveEvent) => void;
  end: () => void;
}

export interface LiveEventsDeps {
  participants: readonly LedgerEngine[];
  view: WorldView;
  requests?: RequestLog;
}

export class LiveEvents {
  private readonly listeners = new Set<Listener>();
  private unsubscribe: Array<() => void> = [];

  constructor(private readonly deps: LiveEventsDeps) {}

  /** Each participant's published ledger end, by participant id. */
  ledgerEnds(): Record<string, number> {
    return Object.fromEntries(this.deps.participants.map((e) => [e.participantId, e.readableEnd()]));
  }

  /** Calls `send` for every event from now on, `end` when the hub closes; returns an unsubscribe. */
  subscribe(send: (e: LiveEvent) => void, end: () => void): () => void {
    const l = { send, end };
    this.listeners.add(l);
    if (this.listeners.size === 1) this.start();
    return () => {
      if (this.listeners.delete(l) && this.listeners.size === 0) this.stop();
    };
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  worldChanged(change: WorldChange): void {
    this.broadcast({ type: 'world', data: { change, ledgerEnds: this.ledgerEnds() } });
  }

  /** Ends every open feed (the server is shutting down). */
  closeAll(): void {
    const ls = [...this.listeners];
    this.listeners.clear();
    this.stop();
    for (const l of ls) l.end();
  }

  private broadcast(e: LiveEvent): void {
    for (const l of this.listeners) l.send(e);
  }

  private start(): void {
    for (const e of this.deps.participants) {
      this.unsubscribe.push(e.updates.subscribe((tx) => this.broadcast({ type: 'transaction', data: this.deps.view.summaryOf(e, tx) })));
    }
    const requests = this.deps.requests;
    if (requests) this.unsubscribe.push(requests.subscribe((r) => this.broadcast({ type: 'request', data: r })));
  }

  private stop(): void {
    for (const u of this.unsubscribe) u();
    this.unsubscribe = [];
  }
}
