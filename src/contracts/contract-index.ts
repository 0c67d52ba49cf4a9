/**
 * The contracts the registry needs, read from the admin's ledger node and kept current.
 *
 * - *Indexed* templates (factories, rules, configurations, pre-approvals: few and long-lived) are
 *   held in memory per replica and queried by template and payload fields, so a warm factory
 *   request makes no ledger call.
 * - Every contract the registry may disclose or look up by id (the indexed ones and the
 *   *cached* templates: instructions, allocations, locked holdings) goes to the shared Cache
 *   (Redis when configured) keyed by contract id, written when the update stream shows its
 *   creation, deleted when it shows the archive, with a TTL as a safety net.
 * - A lookup by id that misses the cache asks the ledger once (events-by-contract-id as the
 *   admin) and caches the answer: a contract created a moment ago never 404s because the
 *   index lags (Splice Scan needed `ChoiceContextContractFetcher`'s ledger fallback for that).
 *
 * One snapshot of the ACS at start, then the update stream from that offset (ledger-follower.ts,
 * which also reloads the snapshot when the ledger is reset or replaced); the contracts go to the
 * store (contract-store.ts), under the cache namespace of the ledger's incarnation
 * (ledger-identity.ts).
 *
 * Never answering from an index known to be behind. Following the websocket keeps the index
 * within milliseconds of the ledger, but a wallet that has its acceptance acknowledged and asks
 * for the context again at once can still be faster than the stream. Choices made here:
 * - Per-contract contexts (`syncToLedgerEnd`, called by the service before the lookup) ask the
 *   ledger end (one GET; requests arriving while one is in flight share the next) and wait, at
 *   most `syncWaitMs`, for the stream to reach it, else read the gap directly. An archive the
 *   ledger acknowledged before the request is then applied, and the contract is a 404. Cost: one
 *   ledger-end round trip per context (bench/index-lag.ts reports it), against a lookup of the
 *   contract itself (events-by-contract-id) per request, which would cost a larger answer.
 * - Factory answers, the hot path (tens of thousands per second, from memory), make no call:
 *   they wait only when the index is known to be behind (`current()`: a ledger end seen by a
 *   context or an identity check is past the index's offset), which a number comparison tells.
 *   Factories (rules, configurations) are long-lived, and the stream brings their changes in
 *   milliseconds.
 * - Archived ids are remembered (`archived`, contract-store.ts): a stale cache entry (a lagging
 *   replica, a lookup that raced the archive) or a create replayed by the stream after a gap read
 *   cannot revive one.
 */
import type { RequestContext } from '../http/request-context.js';
import { LedgerUnavailableError, hasCode } from '../ledger-client/errors.js';
import { offsetOfUpdate } from '../ledger-client/schemas/events.js';
import type { UpdateTransport } from '../ledger-client/update-stream.js';
import { ContractStore } from './contract-store.js';
import { toIndexed, type IndexedContract } from './indexed-contract.js';
import { IndexOffset } from './index-offset.js';
import { ledgerFilter, type AppliedUpdate, type ContractIndexOptions } from './index-options.js';
import { IndexNotReadyError, RESET_CODES, type IndexState } from './index-state.js';
import { LedgerFollower } from './ledger-follower.js';
import { LedgerIdentityChecks } from './ledger-identity.js';

export class ContractIndex {
  private readonly store: ContractStore;
  private readonly offset = new IndexOffset();
  private readonly identityChecks: LedgerIdentityChecks;
  private readonly follower: LedgerFollower;
  /** When catchUp last asked the ledger (epoch ms), to rate-limit speculative catch-ups. */
  private lastCatchUp = 0;
  /** The gap read in flight (syncTo), joined by requests that need no more than its end. */
  private gapRead?: { end: number; done: Promise<void> };
  /** A ledger-end call not yet sent, which later requests join (see ledgerEndAfterNow). */
  private nextEnd?: Promise<number>;
  private endInFlight?: Promise<unknown>;

  constructor(private readonly opts: ContractIndexOptions) {
    this.store = new ContractStore(opts);
    this.identityChecks = new LedgerIdentityChecks(opts.ledger, opts.admin, () => ledgerFilter(opts));
    this.follower = new LedgerFollower(opts, this.store, this.offset, this.identityChecks, () => this.catchUp());
  }

  /** The offset the index is current to. */
  get currentOffset(): number {
    return this.offset.value;
  }

  /** How the index follows the ledger now. */
  get transport(): UpdateTransport {
    return this.opts.updates?.transport ?? 'poll';
  }

  /** Calls `listener` for each transaction the index applies, the first time it does (lag metrics). */
  onApplied(listener: (u: AppliedUpdate) => void): void {
    this.offset.onApplied(listener);
  }

  get state(): IndexState {
    return this.follower.state;
  }

  get ready(): boolean {
    return this.follower.state === 'ready';
  }

  /** The cache namespace of the current ledger incarnation. */
  get cacheNamespace(): string {
    return this.store.namespace;
  }

  /** The participant id of the ledger the index was loaded from (undefined before the first load). */
  get participantId(): string | undefined {
    return this.identityChecks.identity?.participantId;
  }

  /**
   * How many offsets the index is behind the ledger end (0 when current). Asks the ledger for its
   * end unless it is known in process (`ledgerEndHint`).
   */
  async lag(): Promise<number> {
    const end = this.opts.ledgerEndHint ? this.opts.ledgerEndHint() : await this.opts.ledger.ledgerEnd();
    return Math.max(0, end - this.offset.value);
  }

  /**
   * Loads the ACS snapshot (retrying with backoff while the ledger is unreachable), then follows
   * the update stream in the background. Resolves when the first snapshot is loaded; rejects when
   * the ledger rejects the credentials or the index is stopped first.
   */
  start(): Promise<void> {
    return this.follower.start();
  }

  stop(): Promise<void> {
    return this.follower.stop();
  }

  /**
   * Drops the index and loads a new snapshot now, for an owner that knows the ledger was replaced
   * under the same identity (the emulator's admin API restoring a snapshot of its world, which the
   * identity checks cannot tell from the ledger it replaced). Resolves once the new snapshot is
   * loaded (or the index stopped).
   */
  reload(reason: string): Promise<void> {
    return this.follower.reload(reason);
  }

  /**
   * Reads are answered from a loaded snapshot: while ready, while the ledger is unreachable (the
   * snapshot was valid when last checked, and the identity is checked before the index follows
   * the ledger again), and after `stop()` (the owner froze it). Never while a snapshot loads.
   */
  private assertReady(): void {
    const s = this.follower.state;
    if (s === 'loading' || s === 'reloading' || s === 'failed' || this.identityChecks.identity === undefined) throw new IndexNotReadyError(s);
  }

  /**
   * Brings the index up to the ledger end now (a ledger-end call and one update read): for a
   * lookup that may concern a contract created a moment ago. `context`: the request it is done
   * for (sent to the ledger with its calls).
   */
  async catchUp(opts: { skipIfCaughtUpWithinMs?: number; context?: RequestContext } = {}): Promise<void> {
    this.assertReady();
    let end: number;
    // The offset before the ledger is asked: the update stream may move it meanwhile, and the
    // ledger end can only be compared with an offset the index had when it asked.
    const before = this.offset.value;
    if (this.opts.ledgerEndHint) {
      // In process with the ledger: its end is known without a call, so this costs nothing
      // unless the index is actually behind.
      end = this.opts.ledgerEndHint();
    } else {
      const now = Date.now();
      if (opts.skipIfCaughtUpWithinMs !== undefined && now - this.lastCatchUp < opts.skipIfCaughtUpWithinMs) return;
      this.lastCatchUp = now;
      end = await this.opts.ledger.ledgerEnd({ context: opts.context });
    }
    if (end < before) {
      this.follower.requestReload(`ledger end ${end} is below the index's offset ${before}`);
      this.assertReady();
    }
    await this.readGap(end, opts.context);
  }

  /**
   * Whether the index is known to be behind the ledger: a ledger end it was told of is past its
   * offset. Then the promise settles once the index has caught up to it; otherwise undefined,
   * and a factory answer is built at once (no ledger call, no promise: the hot path).
   */
  current(): Promise<void> | undefined {
    const end = this.opts.ledgerEndHint ? this.opts.ledgerEndHint() : this.offset.knownEnd;
    if (end <= this.offset.value || this.follower.state !== 'ready') return undefined;
    return this.syncTo(end, undefined);
  }

  /**
   * Makes the index current to the ledger end as it is now, before a per-contract answer: an
   * archive the ledger has acknowledged before this call is then applied (or the index knows the
   * contract as archived), so a context is never built for a contract the ledger already
   * archived. Cost: one ledger-end call (shared by the requests that arrive while one is being
   * sent), plus a read of the gap only when the update stream has not brought it within
   * `syncWaitMs`. In process with the ledger (`ledgerEndHint`): free unless behind.
   *
   * When the ledger cannot be asked, the index answers as it stands (as every read does while the
   * ledger is unreachable): it is not known to be behind then, and no wallet can submit anyway.
   */
  async syncToLedgerEnd(context?: RequestContext): Promise<void> {
    this.assertReady();
    let end: number;
    try {
      end = this.opts.ledgerEndHint ? this.opts.ledgerEndHint() : await this.ledgerEndAfterNow(context);
    } catch (err) {
      if (err instanceof LedgerUnavailableError) return;
      throw err;
    }
    this.offset.tellLedgerEnd(end);
    if (end <= this.offset.value) return;
    if (!this.opts.ledgerEndHint && (await this.offset.reached(end, this.opts.syncWaitMs ?? 10))) return;
    await this.syncTo(end, context);
  }

  /**
   * The ledger end from a call sent after this one was made: requests that arrive while a call is
   * in flight share the next one (an answer sent earlier may predate their archive).
   */
  private ledgerEndAfterNow(context: RequestContext | undefined): Promise<number> {
    if (this.nextEnd) return this.nextEnd;
    const prior = this.endInFlight ?? Promise.resolve();
    const next = prior.then(
      () => undefined,
      () => undefined,
    ).then(() => {
      this.nextEnd = undefined;
      const call = this.opts.ledger.ledgerEnd({ context });
      this.endInFlight = call;
      void call.then(
        () => this.endInFlight === call && (this.endInFlight = undefined),
        () => this.endInFlight === call && (this.endInFlight = undefined),
      );
      return call;
    });
    this.nextEnd = next;
    return next;
  }

  /** Reads the gap up to `end` once for every request that needs no more than that. */
  private syncTo(end: number, context: RequestContext | undefined): Promise<void> {
    const running = this.gapRead;
    if (running && running.end >= end) return running.done;
    const done = this.readGap(end, context).finally(() => {
      if (this.gapRead?.done === done) this.gapRead = undefined;
    });
    this.gapRead = { end, done };
    return done;
  }

  /** Applies the updates between the index's offset and `end` (read directly from the ledger). */
  private async readGap(end: number, context: RequestContext | undefined): Promise<void> {
    if (this.offset.value >= end) return;
    const ns = this.store.namespace;
    // Read the gap directly, whether or not the tail is running: applying an update twice is
    // harmless (adds and removes are idempotent), and the tail may be waiting on updates this
    // index does not see (the offset only moves on visible ones).
    let from = this.offset.value;
    while (from < end) {
      const updates = await this.opts.ledger
        .updates({
        beginExclusive: from,
        endInclusive: end,
        parties: [this.opts.admin],
        ...ledgerFilter(this.opts),
        includeCreatedEventBlob: true,
        shape: 'ACS_DELTA',
        context,
      })
        .catch((err: unknown) => {
          if (!hasCode(err, ...RESET_CODES)) throw err;
          this.follower.requestReload(`${err.code}: ${err.cause}`);
          throw new IndexNotReadyError(this.follower.state);
        });
      if (updates.length === 0) break;
      // A reload started meanwhile: these updates are of the old ledger (or of the new one,
      // which the new snapshot covers).
      if (this.store.namespace !== ns) throw new IndexNotReadyError(this.follower.state);
      for (const u of updates) {
        const applied = await this.store.apply(u.update);
        if (applied) this.offset.applied(applied);
      }
      from = Math.max(from, ...updates.map((u) => offsetOfUpdate(u) ?? from));
    }
    if (this.store.namespace === ns) this.offset.advance(end);
  }

  /** Active contracts of an indexed template or interface (`packageName:Module:Entity`), optionally filtered. */
  find(key: string, where?: (c: IndexedContract) => boolean): IndexedContract[] {
    this.assertReady();
    return this.store.find(key, where);
  }

  /**
   * A contract by id: the cache, else one ledger lookup (cached on success). Undefined when the
   * ledger does not know it, it is archived, or the admin cannot see it. `context`: the request
   * it is looked up for (sent to the ledger with the lookup).
   */
  async getById(contractId: string, context?: RequestContext): Promise<IndexedContract | undefined> {
    this.assertReady();
    const ns = this.store.namespace;
    // archived (its cache entry may not be deleted yet, or be rewritten by a lagging replica)
    if (this.store.isArchivedOrDeleting(contractId)) return undefined;
    const hit = await this.opts.cache.get<IndexedContract>(ns, contractId);
    if (hit) return this.store.isArchived(contractId) ? undefined : hit;
    const events = await this.opts.ledger.eventsByContractId(contractId, [this.opts.admin], { includeBlob: true, context });
    // The ledger may have been replaced while it answered: its answer is not this incarnation's.
    if (this.store.namespace !== ns) throw new IndexNotReadyError(this.follower.state);
    if (this.follower.state === 'unreachable') this.follower.wakeUp(); // the ledger answers again: check it now
    if (!events?.created || events.archived) return undefined;
    // The update stream may have applied the archive while the ledger answered.
    if (this.store.isArchived(contractId)) return undefined;
    const c = toIndexed(events.created.createdEvent, events.created.synchronizerId);
    await this.opts.cache.set(ns, c.contractId, c, this.opts.cacheTtlSeconds);
    // ...or while the entry was written: then the entry is removed again.
    if (this.store.isArchived(contractId)) {
      await this.store.deleteEntry(contractId);
      return undefined;
    }
    return c;
  }
}
