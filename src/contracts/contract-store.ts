/**
 * The contracts of the index: the indexed templates and interfaces in memory (per replica,
 * queried by key), every contract the registry may disclose in the shared Cache under the
 * namespace of the ledger's incarnation (ledger-identity.ts), and the ids of archived contracts,
 * remembered so that nothing revives them. Fed by the ACS snapshot and by the updates the index
 * applies (`apply`).
 */
import type { Update } from '../ledger-client/schemas/events.js';
import { toIndexed, templateKey, type IndexedContract } from './indexed-contract.js';
import type { AppliedPosition } from './index-offset.js';
import type { ContractIndexOptions } from './index-options.js';
import { CONTRACT_NS } from './ledger-identity.js';

export class ContractStore {
  private readonly byTemplate = new Map<string, Map<string, IndexedContract>>();
  private readonly indexedKeys: Set<string>;
  /** Indexed interface key (`package-name:Module:Entity`) → `:Module:Entity` suffix of its ids. */
  private readonly interfaceSuffixes: Map<string, string>;
  /** Archived contracts whose cache entry is still to be deleted (see flushDeletes). */
  private readonly pendingDeletes = new Set<string>();
  /**
   * Contracts the index saw archived, most recent last (bounded by `archivedMemory`). Checked
   * before the cache: an entry another replica (re)wrote while it lagged, or a ledger lookup
   * that raced the archive and cached the contract after it, must not revive an archived contract.
   */
  private readonly archived = new Set<string>();
  /** Cache namespace of the current incarnation (set by each load). */
  namespace = CONTRACT_NS;

  constructor(
    private readonly opts: Pick<ContractIndexOptions, 'cache' | 'indexedTemplates' | 'indexedInterfaces' | 'cacheTtlSeconds' | 'archivedMemory'>,
  ) {
    this.indexedKeys = new Set(opts.indexedTemplates.map((t) => t.replace(/^#/, '')));
    this.interfaceSuffixes = new Map(
      (opts.indexedInterfaces ?? []).map((i) => {
        const key = i.replace(/^#/, '');
        return [key, key.slice(key.indexOf(':'))];
      }),
    );
  }

  /** Active contracts of an indexed template or interface (`packageName:Module:Entity`), optionally filtered. */
  find(key: string, where?: (c: IndexedContract) => boolean): IndexedContract[] {
    const all = [...(this.byTemplate.get(key)?.values() ?? [])];
    return where ? all.filter(where) : all;
  }

  /** Whether the index saw the contract archived. */
  isArchived(contractId: string): boolean {
    return this.archived.has(contractId);
  }

  /** Whether the contract is archived, or its cache entry still to be deleted. */
  isArchivedOrDeleting(contractId: string): boolean {
    return this.archived.has(contractId) || this.pendingDeletes.has(contractId);
  }

  get hasPendingDeletes(): boolean {
    return this.pendingDeletes.size > 0;
  }

  /**
   * Starts a snapshot of the incarnation whose cache namespace is `namespace`: the in-memory
   * contracts are dropped, and so are the archives and deletes of another incarnation (its
   * entries are unreachable now).
   */
  reset(namespace: string): void {
    if (namespace !== this.namespace) {
      this.pendingDeletes.clear();
      this.archived.clear();
    }
    this.byTemplate.clear();
    this.namespace = namespace;
  }

  /** Forgets the archived ids (the owner discarded the timeline they belong to). */
  forgetArchives(): void {
    this.archived.clear();
  }

  /** Applies a freshly seen contract (also used by the ledger fallback of factory lookups). */
  async added(c: IndexedContract): Promise<void> {
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
    await this.opts.cache.set(this.namespace, c.contractId, c, this.opts.cacheTtlSeconds);
  }

  async removed(contractId: string): Promise<void> {
    for (const m of this.byTemplate.values()) m.delete(contractId);
    this.archived.add(contractId);
    if (this.archived.size > (this.opts.archivedMemory ?? 100_000)) this.archived.delete(this.archived.values().next().value!);
    await this.deleteEntry(contractId);
  }

  /** Deletes the cache entry of an archived contract (again, if a lookup rewrote it). */
  async deleteEntry(contractId: string): Promise<void> {
    this.pendingDeletes.add(contractId);
    await this.flushDeletes();
  }

  /**
   * Deletes the cache entries of archived contracts. A delete that fails (Redis unreachable: the
   * cache never throws, it counts the error and reports itself unhealthy) stays pending and is
   * retried on every poll of the update stream, so that a Redis that kept its data through an
   * outage does not go on serving archived contracts to every replica until the TTL.
   */
  async flushDeletes(): Promise<void> {
    if (this.pendingDeletes.size === 0) return;
    const cache = this.opts.cache;
    const ids = [...this.pendingDeletes];
    const errorsBefore = cache.stats().errors;
    await cache.deleteMany(this.namespace, ids);
    if (cache.stats().errors === errorsBefore && cache.health().ok) for (const id of ids) this.pendingDeletes.delete(id);
  }

  /**
   * Applies one update of the stream (ACS_DELTA shape): creates and archives of a transaction,
   * reassignments. Returns the offset it brings the index to (undefined for an update of another
   * kind).
   */
  async apply(update: Update): Promise<AppliedPosition | undefined> {
    if ('Transaction' in update) {
      const tx = update.Transaction.value;
      for (const ev of tx.events) {
        if ('CreatedEvent' in ev) await this.added(toIndexed(ev.CreatedEvent, tx.synchronizerId));
        else if ('ArchivedEvent' in ev) await this.removed(ev.ArchivedEvent.contractId);
      }
      return { offset: tx.offset, recordTime: tx.recordTime };
    }
    if ('OffsetCheckpoint' in update) return { offset: update.OffsetCheckpoint.value.offset };
    if ('Reassignment' in update) {
      const reassignment = update.Reassignment.value;
      // Unassigned: in flight until the matching assignment; assigned: current on its target.
      for (const ev of reassignment.events) {
        if ('JsUnassignedEvent' in ev) {
          const hit = await this.opts.cache.get<IndexedContract>(this.namespace, ev.JsUnassignedEvent.value.contractId);
          if (hit) await this.added({ ...hit, inReassignment: true });
        } else if ('JsAssignmentEvent' in ev) {
          await this.added(toIndexed(ev.JsAssignmentEvent.createdEvent, ev.JsAssignmentEvent.target));
        }
      }
      return { offset: reassignment.offset };
    }
    return undefined;
  }
}
