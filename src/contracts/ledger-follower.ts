/**
 * How the contract index loads its snapshot and follows the ledger: one snapshot of the ACS,
 * then the update stream from its offset (ACS_DELTA shape, filtered to the admin party and the
 * index's templates), through the injected `UpdateStream` (ledger-client/update-stream.ts: the
 * websocket channel, long polls where the node refuses it) or long polls of the LedgerClient.
 *
 * Following the ledger through restarts and resets. The index leaves `ready` when:
 * - the ledger cannot be read (`unreachable`): reads are still answered from the snapshot and
 *   the cache (what needs the ledger gets a 503), polls retry with backoff (at most 1 s apart),
 *   and when the ledger answers again its identity is checked (ledger-identity.ts) before the
 *   index follows it;
 * - the ledger is no longer the one the snapshot came from (`reloading`): the node rejects the
 *   index's offset (`OFFSET_AFTER_LEDGER_END`, `PARTICIPANT_PRUNED_DATA_ACCESSED`,
 *   `OFFSET_OUT_OF_RANGE`: Canton's error codes in `ledger/error/`), its ledger end is
 *   below the index's offset, its participant id changed, or the first update the admin sees
 *   (its id and record time, the *anchor*) changed. The in-memory index is dropped and a new
 *   snapshot is loaded; until it is, every read throws `IndexNotReadyError` (a
 *   `LedgerUnavailableError`: the registry's 503 with Retry-After).
 * Credentials the ledger or identity provider rejects (401/403, or a token request refused as
 * non-transient) are a configuration error: `onFatal` is called and the index stops.
 */
import { LedgerError, hasCode } from '../ledger-client/errors.js';
import type { UpdateStream } from '../ledger-client/update-stream.js';
import type { ContractStore } from './contract-store.js';
import { toIndexed } from './indexed-contract.js';
import type { IndexOffset } from './index-offset.js';
import { ledgerFilter, type ContractIndexOptions } from './index-options.js';
import { LedgerResetError, RESET_CODES, describeError, isConfigurationFailure, type IndexState } from './index-state.js';
import { contractNamespace, type LedgerIdentity, type LedgerIdentityChecks } from './ledger-identity.js';

export class LedgerFollower {
  private stateNow: IndexState = 'stopped';
  private reloadReason?: string;
  private loop?: Promise<void>;
  private abort?: AbortController;
  private readyPromise?: Promise<void>;
  private firstLoad?: { resolve: () => void; reject: (e: Error) => void };
  private wake?: () => void;
  /** Callers of `reload` waiting for the next loaded snapshot. */
  private reloadWaiters: Array<() => void> = [];

  /** `catchUp`: the index's own (ContractIndex.catchUp), which polls use in process with the ledger. */
  constructor(
    private readonly opts: ContractIndexOptions,
    private readonly store: ContractStore,
    private readonly offset: IndexOffset,
    private readonly identityChecks: LedgerIdentityChecks,
    private readonly catchUp: () => Promise<void>,
  ) {}

  get state(): IndexState {
    return this.stateNow;
  }

  /** See ContractIndex.start. */
  start(): Promise<void> {
    this.readyPromise ??= new Promise<void>((resolve, reject) => {
      this.firstLoad = { resolve, reject };
      this.stateNow = 'loading';
      this.loop = this.run();
    });
    return this.readyPromise;
  }

  async stop(): Promise<void> {
    if (this.stateNow !== 'failed') this.stateNow = 'stopped';
    this.abort?.abort();
    this.wake?.();
    this.firstLoad?.reject(new Error('the contract index was stopped before its first load'));
    this.firstLoad = undefined;
    this.releaseReloadWaiters();
    await this.loop?.catch(() => undefined);
  }

  /** See ContractIndex.reload. */
  reload(reason: string): Promise<void> {
    if (this.isStopped()) return Promise.resolve();
    const loaded = new Promise<void>((resolve) => this.reloadWaiters.push(resolve));
    // The archives the index remembers belong to the timeline the owner discarded: a contract
    // archived there may be active again in the replacing ledger (same identity, same ids).
    this.store.forgetArchives();
    this.requestReload(reason);
    return loaded;
  }

  /** Drops the index and loads a new snapshot (the ledger was reset or replaced). */
  requestReload(reason: string): void {
    if (this.stateNow === 'stopped' || this.stateNow === 'failed') return;
    if (this.stateNow !== 'reloading' && this.stateNow !== 'loading') {
      this.opts.logger?.warn({ reason, offset: this.offset.value }, 'the ledger is not the one the contract index was loaded from; reloading its snapshot');
    }
    this.reloadReason = reason;
    this.stateNow = this.stateNow === 'loading' ? 'loading' : 'reloading';
    this.abort?.abort();
    this.wake?.();
  }

  /** Ends the current wait (backoff, idle poll) now: the ledger answered again. */
  wakeUp(): void {
    this.wake?.();
  }

  /** Reads who the ledger is, then its ACS as the admin, into a fresh index. */
  private async loadSnapshot(): Promise<void> {
    const participantId = await this.opts.ledger.participantId();
    const acs = await this.opts.ledger.activeContracts({
      parties: [this.opts.admin],
      ...ledgerFilter(this.opts),
      includeCreatedEventBlob: true,
    });
    const anchor = await this.identityChecks.anchorUpTo(acs.activeAtOffset);
    const identity: LedgerIdentity = { participantId, anchor, anchorEnd: acs.activeAtOffset };
    this.store.reset(contractNamespace(participantId, anchor));
    this.identityChecks.identity = identity;
    this.offset.reset(acs.activeAtOffset);
    for (const entry of acs.contracts) await this.store.added(toIndexed(entry.createdEvent, entry.synchronizerId));
    for (const entry of acs.incompleteUnassigned) {
      await this.store.added({ ...toIndexed(entry.createdEvent, ''), inReassignment: true });
    }
    this.identityChecks.checked();
  }

  /** Loads, then follows; reloads on a reset, backs off while the ledger is unreachable. */
  private async run(): Promise<void> {
    const { initial, max } = this.opts.backoffMs ?? { initial: 100, max: 5000 };
    let backoff = initial;
    while (this.stateNow !== 'stopped' && this.stateNow !== 'failed') {
      this.abort = new AbortController();
      try {
        if (this.stateNow === 'loading' || this.stateNow === 'reloading') {
          const reloading = this.stateNow === 'reloading';
          await this.loadSnapshot();
          if (this.isStopped()) return;
          this.stateNow = 'ready';
          this.opts.logger?.info(
            { offset: this.offset.value, participantId: this.identityChecks.identity?.participantId, reason: this.reloadReason },
            reloading ? 'contract index reloaded' : 'contract index loaded',
          );
          this.reloadReason = undefined;
          this.releaseReloadWaiters();
          this.firstLoad?.resolve();
          this.firstLoad = undefined;
        } else {
          if (this.identityChecks.isDue(this.opts.identityCheckMs ?? 5000)) await this.identityChecks.check(this.offset);
          if (this.stateNow === 'unreachable') {
            this.stateNow = 'ready';
            this.opts.logger?.info({ offset: this.offset.value }, 'ledger reachable again; contract index ready');
          }
          if (this.opts.updates) await this.follow(this.opts.updates, this.abort.signal);
          else await this.poll(this.abort.signal);
        }
        backoff = initial;
      } catch (err) {
        if (this.isStopped()) return;
        if (this.stateNow === 'reloading' && this.abort.signal.aborted) continue; // requestReload interrupted a poll
        if (isConfigurationFailure(err)) {
          this.fail(err as Error);
          return;
        }
        // (while loading, such an answer is a race with the ledger's own restart: back off)
        if ((err instanceof LedgerResetError || hasCode(err, ...RESET_CODES)) && this.stateNow !== 'loading' && this.stateNow !== 'reloading') {
          this.requestReload(err instanceof LedgerError ? `${err.code}: ${err.cause}` : (err as Error).message);
          continue;
        }
        if (this.stateNow === 'ready') this.stateNow = 'unreachable';
        this.identityChecks.due = true;
        this.opts.logger?.warn(
          { err: describeError(err), state: this.stateNow, retryInMs: backoff },
          this.stateNow === 'unreachable' ? 'update stream of the contract index failed; retrying' : 'loading the contract index failed; retrying',
        );
        await this.sleep(backoff);
        // While a loaded snapshot is being served, come back soon: a replaced ledger must be
        // noticed before its new contracts are confused with the old ones.
        backoff = Math.min(backoff * 2, this.stateNow === 'unreachable' ? Math.min(max, 1000) : max);
      }
    }
  }

  private releaseReloadWaiters(): void {
    const waiters = this.reloadWaiters;
    this.reloadWaiters = [];
    for (const w of waiters) w();
  }

  private isStopped(): boolean {
    return this.stateNow === 'stopped' || this.stateNow === 'failed';
  }

  /**
   * Follows the update stream from the index's offset until it ends or fails, checking the
   * ledger's identity every `identityCheckMs` meanwhile (the stream stays open: a reconnect per
   * check would cost a handshake and a replay). Throws what the stream or a check threw.
   */
  private async follow(updates: UpdateStream, signal: AbortSignal): Promise<void> {
    const ns = this.store.namespace;
    const tail = new AbortController();
    const onAbort = () => tail.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    let ended: { error?: unknown } | undefined;
    const request = { beginExclusive: this.offset.value, parties: [this.opts.admin], ...ledgerFilter(this.opts), includeCreatedEventBlob: true, shape: 'ACS_DELTA' as const };
    const following = updates
      .follow(
        request,
        async (u) => {
          // a reload started: these updates are of the old ledger (the new snapshot covers the new one)
          if (this.store.namespace !== ns || tail.signal.aborted) return;
          const applied = await this.store.apply(u.update);
          if (applied) this.offset.applied(applied);
          if (this.stateNow === 'unreachable') this.stateNow = 'ready';
        },
        tail.signal,
      )
      .then(
        () => (ended = {}),
        (error: unknown) => (ended = { error }),
      )
      .finally(() => this.wake?.());
    try {
      const every = this.opts.identityCheckMs ?? 5000;
      while (ended === undefined && !signal.aborted) {
        // Archives whose cache delete failed are retried about once a second.
        const due = Math.max(0, every - (Date.now() - this.identityChecks.lastCheck));
        await this.sleep(this.store.hasPendingDeletes ? Math.min(due, 1000) : due);
        if (ended !== undefined || signal.aborted) break;
        await this.store.flushDeletes();
        if (this.identityChecks.isDue(every)) await this.identityChecks.check(this.offset);
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      tail.abort();
      await following;
    }
    const end: { error?: unknown } = ended ?? {};
    if (end.error !== undefined && !signal.aborted) throw end.error;
  }

  private async poll(signal: AbortSignal): Promise<void> {
    if (this.opts.ledgerEndHint) {
      // In process with the ledger: its end is known without a call. Nothing new: wait one idle
      // period without asking (an idle registry then costs a timer, not a ledger request every
      // period); something new: read exactly the gap (a bounded window answers at once).
      const end = this.opts.ledgerEndHint();
      if (end === this.offset.value) {
        await this.sleep(this.opts.pollIdleMs ?? 200);
        return;
      }
      if (end > this.offset.value) {
        await this.catchUp();
        await this.store.flushDeletes();
        return;
      }
      // below the index's offset: the open-ended read below meets the ledger's own answer
    }
    const ns = this.store.namespace;
    const updates = await this.opts.ledger.updates({
      beginExclusive: this.offset.value,
      parties: [this.opts.admin],
      ...ledgerFilter(this.opts),
      includeCreatedEventBlob: true,
      shape: 'ACS_DELTA',
      idleTimeoutMs: this.opts.pollIdleMs ?? 200,
      signal,
    });
    if (this.store.namespace !== ns || this.stateNow !== 'ready') return;
    for (const u of updates) {
      const applied = await this.store.apply(u.update);
      if (applied) this.offset.applied(applied);
    }
    await this.store.flushDeletes();
  }

  private fail(err: Error): void {
    this.stateNow = 'failed';
    this.releaseReloadWaiters();
    this.opts.logger?.error({ err: describeError(err) }, 'the ledger rejected the registry\'s credentials; the contract index stopped');
    if (this.firstLoad) {
      this.firstLoad.reject(err);
      this.firstLoad = undefined;
    } else this.opts.onFatal?.(err);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        resolve();
      }
      this.wake = done;
    });
  }
}
