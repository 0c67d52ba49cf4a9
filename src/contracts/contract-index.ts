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
 *   index lags (research/registry.md §3.5, §8.5).
 *
 * One snapshot of the ACS at start, then the update stream from that offset, ACS_DELTA shape,
 * filtered to the admin party and the templates above.
 */
import type { Logger } from 'pino';
import type { Cache } from '../cache/cache.js';
import type { LedgerClient } from '../ledger/client.js';
import { offsetOfUpdate, type CreatedEvent } from '../ledger/schemas/events.js';

export const CONTRACT_NS = 'contract';

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
  private running = false;
  private loop?: Promise<void>;
  private abort?: AbortController;
  private readyPromise?: Promise<void>;

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

  /**
   * How many offsets the index is behind the ledger end (0 when current). Asks the ledger for its
   * end unless it is known in process (`ledgerEndHint`).
   */
  async lag(): Promise<number> {
    const end = this.opts.ledgerEndHint ? this.opts.ledgerEndHint() : await this.opts.ledger.ledgerEnd();
    return Math.max(0, end - this.offset);
  }

  /** Loads the ACS snapshot, then tails the update stream in the background. */
  start(): Promise<void> {
    this.readyPromise ??= (async () => {
      await this.loadSnapshot();
      this.running = true;
      this.loop = this.tail();
    })();
    return this.readyPromise;
  }

  async stop(): Promise<void> {
    this.running = false;
    this.abort?.abort();
    await this.loop?.catch(() => undefined);
  }

  /**
   * Brings the index up to the ledger end now (a ledger-end call and one update read): for a
   * lookup that may concern a contract created a moment ago.
   */
  async catchUp(opts: { skipIfCaughtUpWithinMs?: number } = {}): Promise<void> {
    let end: number;
    if (this.opts.ledgerEndHint) {
      // In process with the ledger: its end is known without a call, so this costs nothing
      // unless the index is actually behind.
      end = this.opts.ledgerEndHint();
    } else {
      const now = Date.now();
      if (opts.skipIfCaughtUpWithinMs !== undefined && now - this.lastCatchUp < opts.skipIfCaughtUpWithinMs) return;
      this.lastCatchUp = now;
      end = await this.opts.ledger.ledgerEnd();
    }
    if (this.offset >= end) return;
    // Read the gap directly, whether or not the tail is running: applying an update twice is
    // harmless (adds and removes are idempotent), and the tail may be waiting on updates this
    // index does not see (the offset only moves on visible ones).
    let from = this.offset;
    while (from < end) {
      const updates = await this.opts.ledger.updates({
        beginExclusive: from,
        endInclusive: end,
        parties: [this.opts.admin],
        ...this.filter(),
        includeCreatedEventBlob: true,
        shape: 'ACS_DELTA',
      });
      if (updates.length === 0) break;
      for (const u of updates) await this.apply(u.update as Record<string, { value: Record<string, unknown> }>);
      from = Math.max(from, ...updates.map((u) => offsetOfUpdate(u) ?? from));
    }
    this.offset = Math.max(this.offset, end);
  }

  /** Active contracts of an indexed template or interface (`packageName:Module:Entity`), optionally filtered. */
  find(key: string, where?: (c: IndexedContract) => boolean): IndexedContract[] {
    const all = [...(this.byTemplate.get(key)?.values() ?? [])];
    return where ? all.filter(where) : all;
  }

  /**
   * A contract by id: the cache, else one ledger lookup (cached on success). Undefined when the
   * ledger does not know it, it is archived, or the admin cannot see it.
   */
  async getById(contractId: string): Promise<IndexedContract | undefined> {
    // archived, but its cache entry could not be deleted yet
    if (this.pendingDeletes.has(contractId)) return undefined;
    const hit = await this.opts.cache.get<IndexedContract>(CONTRACT_NS, contractId);
    if (hit) return hit;
    const events = await this.opts.ledger.eventsByContractId(contractId, [this.opts.admin], { includeBlob: true });
    if (!events?.created || events.archived) return undefined;
    const c = toIndexed(events.created.createdEvent, events.created.synchronizerId);
    await this.opts.cache.set(CONTRACT_NS, c.contractId, c, this.opts.cacheTtlSeconds);
    return c;
  }

  /** Applies a freshly seen contract (also used by the ledger fallback of factory lookups). */
  private async added(c: IndexedContract): Promise<void> {
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
    await this.opts.cache.set(CONTRACT_NS, c.contractId, c, this.opts.cacheTtlSeconds);
  }

  private async removed(contractId: string): Promise<void> {
    for (const m of this.byTemplate.values()) m.delete(contractId);
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
    await cache.deleteMany(CONTRACT_NS, ids);
    if (cache.stats().errors === errorsBefore && cache.health().ok) for (const id of ids) this.pendingDeletes.delete(id);
  }

  private async loadSnapshot(): Promise<void> {
    const acs = await this.opts.ledger.activeContracts({
      parties: [this.opts.admin],
      ...this.filter(),
      includeCreatedEventBlob: true,
    });
    for (const entry of acs.contracts) await this.added(toIndexed(entry.createdEvent, entry.synchronizerId));
    for (const entry of acs.incompleteUnassigned) {
      await this.added({ ...toIndexed(entry.createdEvent, ''), inReassignment: true });
    }
    this.offset = acs.activeAtOffset;
  }

  private templateIds(): string[] {
    return [...new Set([...this.opts.indexedTemplates, ...this.opts.cachedTemplates])];
  }

  private filter(): { templateIds: string[]; interfaceIds?: string[]; includeInterfaceView?: boolean } {
    const interfaceIds = [...new Set(this.opts.indexedInterfaces ?? [])];
    return interfaceIds.length === 0 ? { templateIds: this.templateIds() } : { templateIds: this.templateIds(), interfaceIds, includeInterfaceView: true };
  }

  private async tail(): Promise<void> {
    let backoff = 100;
    while (this.running) {
      this.abort = new AbortController();
      try {
        const updates = await this.opts.ledger.updates({
          beginExclusive: this.offset,
          parties: [this.opts.admin],
          ...this.filter(),
          includeCreatedEventBlob: true,
          shape: 'ACS_DELTA',
          idleTimeoutMs: this.opts.pollIdleMs ?? 200,
          signal: this.abort.signal,
        });
        for (const u of updates) await this.apply(u.update as Record<string, { value: Record<string, unknown> }>);
        await this.flushDeletes();
        backoff = 100;
      } catch (err) {
        if (!this.running) return;
        this.opts.logger?.warn({ err: String(err) }, 'update stream of the contract index failed; retrying');
        await new Promise((r) => setTimeout(r, backoff));
        backoff = Math.min(backoff * 2, 5000);
      }
    }
  }

  private async apply(update: Record<string, { value: Record<string, unknown> }>): Promise<void> {
    const tx = update.Transaction?.value;
    if (tx) {
      const syncId = String(tx.synchronizerId);
      for (const ev of tx.events as Array<Record<string, Record<string, unknown>>>) {
        if (ev.CreatedEvent) await this.added(toIndexed(ev.CreatedEvent as unknown as CreatedEvent, syncId));
        else if (ev.ArchivedEvent) await this.removed(String(ev.ArchivedEvent.contractId));
      }
      this.offset = Math.max(this.offset, Number(tx.offset));
      return;
    }
    const checkpoint = update.OffsetCheckpoint?.value;
    if (checkpoint) {
      this.offset = Math.max(this.offset, Number(checkpoint.offset));
      return;
    }
    const reassignment = update.Reassignment?.value;
    if (reassignment) {
      // Unassigned: in flight until the matching assignment; assigned: current on its target.
      for (const ev of reassignment.events as Array<Record<string, Record<string, unknown>>>) {
        const un = (ev.JsUnassignedEvent?.value ?? undefined) as Record<string, unknown> | undefined;
        if (un) {
          const hit = await this.opts.cache.get<IndexedContract>(CONTRACT_NS, String(un.contractId));
          if (hit) await this.added({ ...hit, inReassignment: true });
        }
        const as = ev.JsAssignmentEvent as Record<string, unknown> | undefined;
        if (as?.createdEvent) await this.added(toIndexed(as.createdEvent as CreatedEvent, String(as.target)));
      }
      this.offset = Math.max(this.offset, Number(reassignment.offset));
    }
  }
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
