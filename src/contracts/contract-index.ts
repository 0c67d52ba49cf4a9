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
 * One snapshot of the ACS at start, then the update stream from that offset, ACS_DELTA shape,
 * filtered to the admin party and the templates above. How the stream is followed is injected
 * (`updates`, ledger-client/update-stream.ts: `serve` uses the websocket channel, long polls where the
 * node refuses it); without it the index long-polls its LedgerClient (the emulated stack, which
 * knows the ledger end in process).
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
 * - Archived ids are remembered (`archived`): a stale cache entry (a lagging replica, a lookup
 *   that raced the archive) or a create replayed by the stream after a gap read cannot revive one.
 *
 * Following the ledger through restarts and resets. The index leaves `ready` when:
 * - the ledger cannot be read (`unreachable`): reads are still answered from the snapshot and
 *   the cache (what needs the ledger gets a 503), polls retry with backoff (at most 1 s apart),
 *   and when the ledger answers again its identity is checked before the index follows it;
 * - the ledger is no longer the one the snapshot came from (`reloading`): the node rejects the
 *   index's offset (`OFFSET_AFTER_LEDGER_END`, `PARTICIPANT_PRUNED_DATA_ACCESSED`,
 *   `OFFSET_OUT_OF_RANGE`: Canton's error codes in `ledger/error/`), its ledger end is
 *   below the index's offset, its participant id changed, or the first update the admin sees
 *   (its id and record time, the *anchor*) changed. The in-memory index is dropped and a new
 *   snapshot is loaded; until it is, every read throws `IndexNotReadyError` (a
 *   `LedgerUnavailableError`: the registry's 503 with Retry-After).
 * Cache entries live under a namespace derived from the participant id and the anchor (the
 *   *incarnation*), so every replica reading the same ledger shares them, and the entries of a
 *   previous ledger become unreachable the moment the index reloads (their TTL removes them).
 *   LIMITATION: a participant restored from a backup of itself keeps its participant id and
 *   anchor, hence its namespace: entries of contracts created after the backup point stay
 *   readable by id until their TTL.
 * The identity is re-checked after every failed poll and every `identityCheckMs` while ready
 * (the anchor after a failed poll and on every 12th periodic check).
 * Credentials the ledger or identity provider rejects (401/403, or a token request refused as
 * non-transient) are a configuration error: `onFatal` is called and the index stops.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Cache } from '../cache/cache.js';
import type { RequestContext } from '../http/request-context.js';
import type { LedgerClient } from '../ledger-client/client.js';
import { LedgerError, LedgerUnavailableError, hasCode } from '../ledger-client/errors.js';
import { offsetOfUpdate, type CreatedEvent, type JsGetUpdatesResponse, type Update } from '../ledger-client/schemas/events.js';
import type { UpdateStream, UpdateTransport } from '../ledger-client/update-stream.js';

/** Prefix of the cache namespace of contracts; the ledger's incarnation follows it. */
export const CONTRACT_NS = 'contract';

/** The cache namespace of the contracts of one ledger incarnation (no ':' in it, see redisKey). */
export function contractNamespace(participantId: string, anchor: string): string {
  const h = createHash('sha256').update(`${participantId}\n${anchor}`).digest('hex').slice(0, 24);
  return `${CONTRACT_NS}-${h}`;
}

/** What the index is doing; only `ready` answers reads. */
export type IndexState = 'loading' | 'ready' | 'unreachable' | 'reloading' | 'failed' | 'stopped';

/** A read while the index is not ready: the registry answers 503 with Retry-After. */
export class IndexNotReadyError extends LedgerUnavailableError {
  constructor(readonly state: IndexState) {
    super({
      reason: 'status',
      message:
        state === 'reloading' || state === 'loading'
          ? "the registry is loading the admin's contracts from its ledger node"
          : state === 'unreachable'
            ? 'the ledger node cannot be reached'
            : 'the registry is not running',
      retryAfterSeconds: 1,
    });
  }
}

/** The node's error codes that say the index's offset does not exist on it (Canton's `ledger/error/` codes). */
const RESET_CODES = ['OFFSET_AFTER_LEDGER_END', 'PARTICIPANT_PRUNED_DATA_ACCESSED', 'OFFSET_OUT_OF_RANGE'];

/** Rejected credentials: no retry can fix them (401/403 from the node, a refused token request). */
export function isConfigurationFailure(err: unknown): boolean {
  if (err instanceof LedgerError) return err.status === 401 || err.status === 403;
  if (err instanceof LedgerUnavailableError) return err.reason === 'auth' && !err.retryable;
  return false;
}

/** The identity of the ledger the index was loaded from. */
interface LedgerIdentity {
  participantId: string;
  /** The first update the admin sees (`offset/updateId/recordTime`), or `none`. */
  anchor: string;
  /** The anchor was looked for up to this offset (the snapshot offset). */
  anchorEnd: number;
}

class LedgerResetError extends Error {}

/** Periodic identity checks between two reads of the anchor (with the default 5 s: one a minute). */
const ANCHOR_EVERY = 12;

/** A contract as the registry discloses it (everything the DisclosedContract needs). */
export interface IndexedContract {
  contractId: string;
  /** `pkgId:Module:Entity`, as the ledger emits it. */
  templateId: string;
  packageName: string;
  payload: Record<string, unknown>;
  createdAt: string;
  createdEventBlob: string;
  /** The synchronizer the contract is assigned to, as the ledger reports it. */
  synchronizerId: string;
  /** Set while the contract is being reassigned (unassigned, not yet assigned). */
  inReassignment?: boolean;
  /** Interfaces (`pkgId:Module:Entity`) whose view the ledger reported: set for indexed interfaces. */
  interfaceIds?: string[];
}

/** `packageName:Module:Entity`, the key that identifies a template across package versions. */
export function templateKey(packageName: string, templateId: string): string {
  const [, moduleName, entityName] = templateId.split(':');
  return `${packageName}:${moduleName}:${entityName}`;
}

export interface ContractIndexOptions {
  ledger: LedgerClient;
  /** The instrument admin: the index reads as this party. */
  admin: string;
  /** `#package-name:Module:Entity` of templates held in memory and queried by field. */
  indexedTemplates: readonly string[];
  /** `#package-name:Module:Entity` of further templates cached by id (instructions, allocations...). */
  cachedTemplates: readonly string[];
  /**
   * `#package-name:Module:Entity` of interfaces whose implementing contracts are held in memory
   * too, under the interface's key (a factory configured by interface, declarative recipes).
   */
  indexedInterfaces?: readonly string[];
  cache: Cache;
  logger?: Logger;
  /** Idle time of one poll of the update stream (ms). */
  pollIdleMs?: number;
  /** TTL of cache entries (safety net; archives delete them). */
  cacheTtlSeconds?: number;
  /**
   * The ledger end without a ledger call, when the registry runs in process with the ledger
   * (the emulated stack); catchUp then asks the ledger only when the index is behind.
   */
  ledgerEndHint?: () => number;
  /** How often the ledger's identity is checked while ready (ms, default 5000). */
  identityCheckMs?: number;
  /** First and largest delay between failed loads or polls (ms, defaults 100 and 5000). */
  backoffMs?: { initial: number; max: number };
  /** Called once when the ledger rejects the credentials (the index has stopped). */
  onFatal?: (err: Error) => void;
  /**
   * How the index follows the ledger once loaded (ledger-client/update-stream.ts: the websocket, with
   * long polls as its fallback). Absent: long polls of `ledger` (with `ledgerEndHint`, reads of
   * exactly the gap).
   */
  updates?: UpdateStream;
  /**
   * `syncToLedgerEnd`: how long to wait for the update stream to bring an offset before reading
   * the gap directly (ms, default 10). The stream usually has it within a millisecond or two.
   */
  syncWaitMs?: number;
  /** How many archived contract ids are remembered (default 100 000), see `archived`. */
  archivedMemory?: number;
}

/** A transaction the index applied, for the lag metrics. */
export interface AppliedUpdate {
  offset: number;
  /** The ledger's record time of the transaction (ISO 8601). */
  recordTime: string;
  /** When the index had applied it (epoch ms). */
  appliedAtMs: number;
}

export class ContractIndex {
  private readonly byTemplate = new Map<string, Map<string, IndexedContract>>();
  private readonly indexedKeys: Set<string>;
  /** Indexed interface key (`package-name:Module:Entity`) → `:Module:Entity` suffix of its ids. */
  private readonly interfaceSuffixes: Map<string, string>;
  private offset = 0;
  /** Archived contracts whose cache entry is still to be deleted (see flushDeletes). */
  private readonly pendingDeletes = new Set<string>();
  /** When catchUp last asked the ledger (epoch ms), to rate-limit speculative catch-ups. */
  private lastCatchUp = 0;
  private stateNow: IndexState = 'stopped';
  private identity?: LedgerIdentity;
  /** Cache namespace of the current incarnation (set by each load). */
  private ns = CONTRACT_NS;
  private lastIdentityCheck = 0;
  private checksSinceAnchor = 0;
  private identityDue = false;
  private reloadReason?: string;
  private loop?: Promise<void>;
  private abort?: AbortController;
  private readyPromise?: Promise<void>;
  private firstLoad?: { resolve: () => void; reject: (e: Error) => void };
  private wake?: () => void;
  /**
   * The highest ledger end the index has been told of (identity checks, syncToLedgerEnd): while
   * the index's offset is below it, the index is known to be behind.
   */
  private knownEnd = 0;
  /**
   * Contracts the index saw archived, most recent last (bounded by `archivedMemory`). Checked
   * before the cache: an entry another replica (re)wrote while it lagged, or a ledger lookup
   * that raced the archive and cached the contract after it, must not revive an archived contract.
   */
  private readonly archived = new Set<string>();
  /** The gap read in flight (syncTo), joined by requests that need no more than its end. */
  private gapRead?: { end: number; done: Promise<void> };
  /** A ledger-end call not yet sent, which later requests join (see ledgerEndAfterNow). */
  private nextEnd?: Promise<number>;
  private endInFlight?: Promise<unknown>;
  /** Waiters for the offset to reach a value (syncToLedgerEnd). */
  private offsetWaiters: Array<{ offset: number; resolve: () => void }> = [];
  private readonly appliedListeners: Array<(u: AppliedUpdate) => void> = [];
  /** Callers of `reload` waiting for the next loaded snapshot. */
  private reloadWaiters: Array<() => void> = [];

  constructor(private readonly opts: ContractIndexOptions) {
    this.indexedKeys = new Set(opts.indexedTemplates.map((t) => t.replace(/^#/, '')));
    this.interfaceSuffixes = new Map(
      (opts.indexedInterfaces ?? []).map((i) => {
        const key = i.replace(/^#/, '');
        return [key, key.slice(key.indexOf(':'))];
      }),
    );
  }

  /** The offset the index is current to. */
  get currentOffset(): number {
    return this.offset;
  }

  /** How the index follows the ledger now. */
  get transport(): UpdateTransport {
    return this.opts.updates?.transport ?? 'poll';
  }

  /** Calls `listener` for each transaction the index applies, the first time it does (lag metrics). */
  onApplied(listener: (u: AppliedUpdate) => void): void {
    this.appliedListeners.push(listener);
  }

  get state(): IndexState {
    return this.stateNow;
  }

  get ready(): boolean {
    return this.stateNow === 'ready';
  }

  /** The cache namespace of the current ledger incarnation. */
  get cacheNamespace(): string {
    return this.ns;
  }

  /** The participant id of the ledger the index was loaded from (undefined before the first load). */
  get participantId(): string | undefined {
    return this.identity?.participantId;
  }

  /**
   * How many offsets the index is behind the ledger end (0 when current). Asks the ledger for its
   * end unless it is known in process (`ledgerEndHint`).
   */
  async lag(): Promise<number> {
    const end = this.opts.ledgerEndHint ? this.opts.ledgerEndHint() : await this.opts.ledger.ledgerEnd();
    return Math.max(0, end - this.offset);
  }

  /**
   * Loads the ACS snapshot (retrying with backoff while the ledger is unreachable), then follows
   * the update stream in the background. Resolves when the first snapshot is loaded; rejects when
   * the ledger rejects the credentials or the index is stopped first.
   */
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

  /**
   * Drops the index and loads a new snapshot now, for an owner that knows the ledger was replaced
   * under the same identity (the emulator's admin API restoring a snapshot of its world, which the
   * identity checks cannot tell from the ledger it replaced). Resolves once the new snapshot is
   * loaded (or the index stopped).
   */
  reload(reason: string): Promise<void> {
    if (this.isStopped()) return Promise.resolve();
    const loaded = new Promise<void>((resolve) => this.reloadWaiters.push(resolve));
    // The archives the index remembers belong to the timeline the owner discarded: a contract
    // archived there may be active again in the replacing ledger (same identity, same ids).
    this.archived.clear();
    this.requestReload(reason);
    return loaded;
  }

  /** Drops the index and loads a new snapshot (the ledger was reset or replaced). */
  private requestReload(reason: string): void {
    if (this.stateNow === 'stopped' || this.stateNow === 'failed') return;
    if (this.stateNow !== 'reloading' && this.stateNow !== 'loading') {
      this.opts.logger?.warn({ reason, offset: this.offset }, 'the ledger is not the one the contract index was loaded from; reloading its snapshot');
    }
    this.reloadReason = reason;
    this.stateNow = this.stateNow === 'loading' ? 'loading' : 'reloading';
    this.abort?.abort();
    this.wake?.();
  }

  /**
   * Reads are answered from a loaded snapshot: while ready, while the ledger is unreachable (the
   * snapshot was valid when last checked, and the identity is checked before the index follows
   * the ledger again), and after `stop()` (the owner froze it). Never while a snapshot loads.
   */
  private assertReady(): void {
    const s = this.stateNow;
    if (s === 'loading' || s === 'reloading' || s === 'failed' || this.identity === undefined) throw new IndexNotReadyError(s);
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
    const before = this.offset;
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
      this.requestReload(`ledger end ${end} is below the index's offset ${before}`);
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
    const end = this.opts.ledgerEndHint ? this.opts.ledgerEndHint() : this.knownEnd;
    if (end <= this.offset || this.stateNow !== 'ready') return undefined;
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
    if (end > this.knownEnd) this.knownEnd = end;
    if (end <= this.offset) return;
    if (!this.opts.ledgerEndHint && (await this.offsetReached(end, this.opts.syncWaitMs ?? 10))) return;
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

  /** Resolves true when the offset reaches `offset`, false after `ms`. */
  private offsetReached(offset: number, ms: number): Promise<boolean> {
    if (this.offset >= offset) return Promise.resolve(true);
    if (ms <= 0) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const waiter = {
        offset,
        resolve: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      const timer = setTimeout(() => {
        this.offsetWaiters = this.offsetWaiters.filter((w) => w !== waiter);
        resolve(false);
      }, ms);
      this.offsetWaiters.push(waiter);
    });
  }

  private setOffset(offset: number): void {
    if (offset <= this.offset) return;
    this.offset = offset;
    if (this.offsetWaiters.length === 0) return;
    const due = this.offsetWaiters.filter((w) => w.offset <= offset);
    if (due.length === 0) return;
    this.offsetWaiters = this.offsetWaiters.filter((w) => w.offset > offset);
    for (const w of due) w.resolve();
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
    if (this.offset >= end) return;
    const ns = this.ns;
    // Read the gap directly, whether or not the tail is running: applying an update twice is
    // harmless (adds and removes are idempotent), and the tail may be waiting on updates this
    // index does not see (the offset only moves on visible ones).
    let from = this.offset;
    while (from < end) {
      const updates = await this.opts.ledger
        .updates({
        beginExclusive: from,
        endInclusive: end,
        parties: [this.opts.admin],
        ...this.filter(),
        includeCreatedEventBlob: true,
        shape: 'ACS_DELTA',
        context,
      })
        .catch((err: unknown) => {
          if (!hasCode(err, ...RESET_CODES)) throw err;
          this.requestReload(`${err.code}: ${err.cause}`);
          throw new IndexNotReadyError(this.stateNow);
        });
      if (updates.length === 0) break;
      // A reload started meanwhile: these updates are of the old ledger (or of the new one,
      // which the new snapshot covers).
      if (this.ns !== ns) throw new IndexNotReadyError(this.stateNow);
      for (const u of updates) await this.apply(u.update);
      from = Math.max(from, ...updates.map((u) => offsetOfUpdate(u) ?? from));
    }
    if (this.ns === ns) this.setOffset(end);
  }

  /** Active contracts of an indexed template or interface (`packageName:Module:Entity`), optionally filtered. */
  find(key: string, where?: (c: IndexedContract) => boolean): IndexedContract[] {
    this.assertReady();
    const all = [...(this.byTemplate.get(key)?.values() ?? [])];
    return where ? all.filter(where) : all;
  }

  /**
   * A contract by id: the cache, else one ledger lookup (cached on success). Undefined when the
   * ledger does not know it, it is archived, or the admin cannot see it. `context`: the request
   * it is looked up for (sent to the ledger with the lookup).
   */
  async getById(contractId: string, context?: RequestContext): Promise<IndexedContract | undefined> {
    this.assertReady();
    const ns = this.ns;
    // archived (its cache entry may not be deleted yet, or be rewritten by a lagging replica)
    if (this.archived.has(contractId) || this.pendingDeletes.has(contractId)) return undefined;
    const hit = await this.opts.cache.get<IndexedContract>(ns, contractId);
    if (hit) return this.archived.has(contractId) ? undefined : hit;
    const events = await this.opts.ledger.eventsByContractId(contractId, [this.opts.admin], { includeBlob: true, context });
    // The ledger may have been replaced while it answered: its answer is not this incarnation's.
    if (this.ns !== ns) throw new IndexNotReadyError(this.stateNow);
    if (this.stateNow === 'unreachable') this.wake?.(); // the ledger answers again: check it now
    if (!events?.created || events.archived) return undefined;
    // The update stream may have applied the archive while the ledger answered.
    if (this.archived.has(contractId)) return undefined;
    const c = toIndexed(events.created.createdEvent, events.created.synchronizerId);
    await this.opts.cache.set(ns, c.contractId, c, this.opts.cacheTtlSeconds);
    // ...or while the entry was written: then the entry is removed again.
    if (this.archived.has(contractId)) {
      this.pendingDeletes.add(contractId);
      await this.flushDeletes();
      return undefined;
    }
    return c;
  }

  /** Applies a freshly seen contract (also used by the ledger fallback of factory lookups). */
  private async added(c: IndexedContract): Promise<void> {
    // Contract ids are never reused: the create of an archived one is a replay (the update stream
    // bringing what a gap read already applied, archive included).
    if (this.archived.has(c.contractId)) return;
    const key = templateKey(c.packageName, c.templateId);
    if (this.indexedKeys.has(key)) {
      let m = this.byTemplate.get(key);
      if (!m) this.byTemplate.set(key, (m = new Map()));
      m.set(c.contractId, c);
    }
    // The ledger reports views in package-id form (`pkgId:Module:Entity`); the filter only asked
    // for the indexed interfaces, so the module and entity name identify which one matched.
    for (const [ikey, suffix] of this.interfaceSuffixes) {
      if (!c.interfaceIds?.some((id) => id.endsWith(suffix))) continue;
      let m = this.byTemplate.get(ikey);
      if (!m) this.byTemplate.set(ikey, (m = new Map()));
      m.set(c.contractId, c);
    }
    await this.opts.cache.set(this.ns, c.contractId, c, this.opts.cacheTtlSeconds);
  }

  private async removed(contractId: string): Promise<void> {
    for (const m of this.byTemplate.values()) m.delete(contractId);
    this.archived.add(contractId);
    if (this.archived.size > (this.opts.archivedMemory ?? 100_000)) this.archived.delete(this.archived.values().next().value!);
    this.pendingDeletes.add(contractId);
    await this.flushDeletes();
  }

  /**
   * Deletes the cache entries of archived contracts. A delete that fails (Redis unreachable: the
   * cache never throws, it counts the error and reports itself unhealthy) stays pending and is
   * retried on every poll of the update stream, so that a Redis that kept its data through an
   * outage does not go on serving archived contracts to every replica until the TTL.
   */
  private async flushDeletes(): Promise<void> {
    if (this.pendingDeletes.size === 0) return;
    const cache = this.opts.cache;
    const ids = [...this.pendingDeletes];
    const errorsBefore = cache.stats().errors;
    await cache.deleteMany(this.ns, ids);
    if (cache.stats().errors === errorsBefore && cache.health().ok) for (const id of ids) this.pendingDeletes.delete(id);
  }

  /** Reads who the ledger is, then its ACS as the admin, into a fresh index. */
  private async loadSnapshot(): Promise<void> {
    const participantId = await this.opts.ledger.participantId();
    const acs = await this.opts.ledger.activeContracts({
      parties: [this.opts.admin],
      ...this.filter(),
      includeCreatedEventBlob: true,
    });
    const anchor = await this.anchorUpTo(acs.activeAtOffset);
    const identity: LedgerIdentity = { participantId, anchor, anchorEnd: acs.activeAtOffset };
    const ns = contractNamespace(participantId, anchor);
    if (ns !== this.ns) {
      // the old incarnation's entries are unreachable now
      this.pendingDeletes.clear();
      this.archived.clear();
    }
    this.knownEnd = 0;
    this.byTemplate.clear();
    this.identity = identity;
    this.ns = ns;
    this.offset = acs.activeAtOffset;
    for (const entry of acs.contracts) await this.added(toIndexed(entry.createdEvent, entry.synchronizerId));
    for (const entry of acs.incompleteUnassigned) {
      await this.added({ ...toIndexed(entry.createdEvent, ''), inReassignment: true });
    }
    this.lastIdentityCheck = Date.now();
    this.identityDue = false;
  }

  /**
   * The first update the admin sees at or before `end` (offset, update id, record time): the
   * same on every replica reading the same ledger, different on a rebuilt one (update ids are
   * hashes of the transaction, record times differ between runs).
   */
  private async anchorUpTo(end: number): Promise<string> {
    if (end <= 0) return 'none';
    let updates: JsGetUpdatesResponse[];
    try {
      updates = await this.opts.ledger.updates({
        beginExclusive: 0,
        endInclusive: end,
        parties: [this.opts.admin],
        ...this.filter(),
        shape: 'ACS_DELTA',
        limit: 10,
      });
    } catch (err) {
      // A pruned participant cannot show its first update: the identity is the participant alone.
      if (hasCode(err, 'PARTICIPANT_PRUNED_DATA_ACCESSED')) return 'pruned';
      throw err;
    }
    for (const u of updates) {
      const v = (u.update as Record<string, { value?: Record<string, unknown> } | undefined>);
      const tx = v.Transaction?.value ?? v.Reassignment?.value;
      if (tx && typeof tx.updateId === 'string') return `${String(tx.offset)}/${tx.updateId}/${String(tx.recordTime ?? '')}`;
    }
    return 'none';
  }

  /** Whether the ledger is still the one the index was loaded from; throws LedgerResetError if not. */
  private async checkIdentity(): Promise<void> {
    const identity = this.identity;
    if (!identity) return;
    const participantId = await this.opts.ledger.participantId();
    if (participantId !== identity.participantId) {
      throw new LedgerResetError(`the participant id changed from ${identity.participantId} to ${participantId}`);
    }
    // The offset before the call: the update stream may move it while the ledger answers.
    const before = this.offset;
    const end = await this.opts.ledger.ledgerEnd();
    if (end < before) throw new LedgerResetError(`ledger end ${end} is below the index's offset ${before}`);
    if (end > this.knownEnd) this.knownEnd = end;
    // The anchor read scans the admin's updates from the ledger's beginning: after a failed read
    // (a replaced node is down for a while first) and on every ANCHOR_EVERY-th periodic check.
    if (this.identityDue || ++this.checksSinceAnchor >= ANCHOR_EVERY) {
      const anchor = await this.anchorUpTo(Math.min(identity.anchorEnd, end));
      if (anchor !== identity.anchor) throw new LedgerResetError(`the ledger's first update changed (${identity.anchor} -> ${anchor})`);
      this.checksSinceAnchor = 0;
    }
    this.lastIdentityCheck = Date.now();
    this.identityDue = false;
  }

  private templateIds(): string[] {
    return [...new Set([...this.opts.indexedTemplates, ...this.opts.cachedTemplates])];
  }

  private filter(): { templateIds: string[]; interfaceIds?: string[]; includeInterfaceView?: boolean } {
    const interfaceIds = [...new Set(this.opts.indexedInterfaces ?? [])];
    return interfaceIds.length === 0 ? { templateIds: this.templateIds() } : { templateIds: this.templateIds(), interfaceIds, includeInterfaceView: true };
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
            { offset: this.offset, participantId: this.identity?.participantId, reason: this.reloadReason },
            reloading ? 'contract index reloaded' : 'contract index loaded',
          );
          this.reloadReason = undefined;
          this.releaseReloadWaiters();
          this.firstLoad?.resolve();
          this.firstLoad = undefined;
        } else {
          if (this.identityDue || Date.now() - this.lastIdentityCheck >= (this.opts.identityCheckMs ?? 5000)) await this.checkIdentity();
          if (this.stateNow === 'unreachable') {
            this.stateNow = 'ready';
            this.opts.logger?.info({ offset: this.offset }, 'ledger reachable again; contract index ready');
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
        this.identityDue = true;
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
    const ns = this.ns;
    const tail = new AbortController();
    const onAbort = () => tail.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    let ended: { error?: unknown } | undefined;
    const request = { beginExclusive: this.offset, parties: [this.opts.admin], ...this.filter(), includeCreatedEventBlob: true, shape: 'ACS_DELTA' as const };
    const following = updates
      .follow(
        request,
        async (u) => {
          // a reload started: these updates are of the old ledger (the new snapshot covers the new one)
          if (this.ns !== ns || tail.signal.aborted) return;
          await this.apply(u.update);
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
        const due = Math.max(0, every - (Date.now() - this.lastIdentityCheck));
        await this.sleep(this.pendingDeletes.size > 0 ? Math.min(due, 1000) : due);
        if (ended !== undefined || signal.aborted) break;
        await this.flushDeletes();
        if (this.identityDue || Date.now() - this.lastIdentityCheck >= every) await this.checkIdentity();
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
      if (end === this.offset) {
        await this.sleep(this.opts.pollIdleMs ?? 200);
        return;
      }
      if (end > this.offset) {
        await this.catchUp();
        await this.flushDeletes();
        return;
      }
      // below the index's offset: the open-ended read below meets the ledger's own answer
    }
    const ns = this.ns;
    const updates = await this.opts.ledger.updates({
      beginExclusive: this.offset,
      parties: [this.opts.admin],
      ...this.filter(),
      includeCreatedEventBlob: true,
      shape: 'ACS_DELTA',
      idleTimeoutMs: this.opts.pollIdleMs ?? 200,
      signal,
    });
    if (this.ns !== ns || this.stateNow !== 'ready') return;
    for (const u of updates) await this.apply(u.update);
    await this.flushDeletes();
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

  private async apply(update: Update): Promise<void> {
    if ('Transaction' in update) {
      const tx = update.Transaction.value;
      for (const ev of tx.events) {
        if ('CreatedEvent' in ev) await this.added(toIndexed(ev.CreatedEvent, tx.synchronizerId));
        else if ('ArchivedEvent' in ev) await this.removed(ev.ArchivedEvent.contractId);
      }
      // Only the first time: the stream replays what a gap read applied (the lag is to the first).
      const first = tx.offset > this.offset;
      this.setOffset(tx.offset);
      if (first && this.appliedListeners.length > 0) {
        const applied = { offset: tx.offset, recordTime: tx.recordTime, appliedAtMs: Date.now() };
        for (const l of this.appliedListeners) l(applied);
      }
      return;
    }
    if ('OffsetCheckpoint' in update) {
      this.setOffset(update.OffsetCheckpoint.value.offset);
      return;
    }
    if ('Reassignment' in update) {
      const reassignment = update.Reassignment.value;
      // Unassigned: in flight until the matching assignment; assigned: current on its target.
      for (const ev of reassignment.events) {
        if ('JsUnassignedEvent' in ev) {
          const hit = await this.opts.cache.get<IndexedContract>(this.ns, ev.JsUnassignedEvent.value.contractId);
          if (hit) await this.added({ ...hit, inReassignment: true });
        } else if ('JsAssignmentEvent' in ev) {
          await this.added(toIndexed(ev.JsAssignmentEvent.createdEvent, ev.JsAssignmentEvent.target));
        }
      }
      this.setOffset(reassignment.offset);
    }
  }
}

/** An error for logs: the code and status of a ledger error, the message otherwise (never a token). */
export function describeError(err: unknown): string {
  if (err instanceof LedgerError) return `${err.status} ${err.code}${err.method ? ` (${err.method} ${err.path})` : ''}`;
  return err instanceof Error ? err.message : String(err);
}

export function toIndexed(ev: CreatedEvent, synchronizerId: string): IndexedContract {
  const c: IndexedContract = {
    contractId: ev.contractId,
    templateId: ev.templateId,
    packageName: ev.packageName,
    payload: (ev.createArgument ?? {}) as Record<string, unknown>,
    createdAt: ev.createdAt,
    createdEventBlob: ev.createdEventBlob ?? '',
    synchronizerId,
  };
  if (ev.interfaceViews && ev.interfaceViews.length > 0) c.interfaceIds = ev.interfaceViews.map((v) => v.interfaceId);
  return c;
}
