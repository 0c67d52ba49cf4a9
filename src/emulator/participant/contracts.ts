/**
 * All contracts the participant has seen, with indexes over the ACTIVE ones by stakeholder,
 * template (package name key) and interface, so that ACS queries touch only the contracts of
 * the requested parties and templates, never the whole store.
 *
 * Archived contracts stay in `byId` (events-by-contract-id needs them) and are listed in
 * archive order, so the ACS at an earlier offset can be rebuilt without a full scan.
 */
import type { ContractRecord } from './types.js';
import { nameKey, stakeholdersOf } from './types.js';

/** A ContractStore's contents at one moment (ContractStore.saved). */
export interface SavedContracts {
  readonly byId: ReadonlyMap<string, ContractRecord>;
  readonly activeByParty: ReadonlyMap<string, ReadonlySet<string>>;
  readonly activeByTemplate: ReadonlyMap<string, ReadonlySet<string>>;
  readonly activeAll: ReadonlySet<string>;
  readonly activeByKey: ReadonlyMap<string, string>;
  /** The archived contracts in archive order, with their archive offsets. */
  readonly archived: ReadonlyArray<readonly [ContractRecord, number]>;
}

function copyIndex(index: ReadonlyMap<string, ReadonlySet<string>>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const [k, v] of index) out.set(k, new Set(v));
  return out;
}

export class ContractStore {
  private byId = new Map<string, ContractRecord>();
  /** Active contract ids by stakeholder; Set iteration order = creation order. */
  private activeByParty = new Map<string, Set<string>>();
  /** Active contract ids by template name key (`pkgName:Module:Entity`). */
  private activeByTemplate = new Map<string, Set<string>>();
  private activeAll = new Set<string>();
  /** Active contract id by contract key hash. */
  private activeByKey = new Map<string, string>();
  /** Archived contracts in archive order (ascending archivedOffset). */
  private readonly archivedInOrder: ContractRecord[] = [];

  get(cid: string): ContractRecord | undefined {
    return this.byId.get(cid);
  }
  /** Forgets every contract (durable state's restore, before it loads the saved ones). */
  clear(): void {
    for (const m of [this.byId, this.activeByParty, this.activeByTemplate, this.activeByKey]) m.clear();
    this.activeAll.clear();
    this.archivedInOrder.length = 0;
  }

  /** Every contract, in creation order (durable state's snapshot). */
  all(): IterableIterator<ContractRecord> {
    return this.byId.values();
  }
  /**
   * Loads saved contracts, given in creation order, into an empty store: the active ones are
   * indexed, the archived ones listed in archive order.
   */
  load(records: Iterable<ContractRecord>): void {
    if (this.byId.size > 0) throw new Error('contracts can only be loaded into an empty store');
    const archived: ContractRecord[] = [];
    for (const c of records) {
      if (c.archivedOffset === undefined) this.add(c);
      else {
        this.byId.set(c.contractId, c);
        archived.push(c);
      }
    }
    archived.sort((a, b) => a.archivedOffset! - b.archivedOffset!);
    this.archivedInOrder.push(...archived);
  }
  /**
   * The store as it is now, for an in-memory snapshot of the world (the admin API's snapshots):
   * copies of the indexes (native Map/Set copies, no per-contract work in JavaScript) over the
   * records themselves (shared: a record changes after its creation only by being archived, so
   * the archived ones are listed with their offsets).
   */
  saved(): SavedContracts {
    return {
      byId: new Map(this.byId),
      activeByParty: copyIndex(this.activeByParty),
      activeByTemplate: copyIndex(this.activeByTemplate),
      activeAll: new Set(this.activeAll),
      activeByKey: new Map(this.activeByKey),
      archived: this.archivedInOrder.map((c) => [c, c.archivedOffset!] as const),
    };
  }
  /**
   * Puts a saved store back (the saved one stays usable). The work in JavaScript is proportional
   * to the archived contracts of both (their offsets are reset), the rest is native copying.
   */
  restoreSaved(s: SavedContracts): void {
    for (const c of this.archivedInOrder) if (c.archivedOffset !== undefined) delete c.archivedOffset;
    this.archivedInOrder.length = 0;
    for (const [c, offset] of s.archived) {
      c.archivedOffset = offset;
      this.archivedInOrder.push(c);
    }
    this.byId = new Map(s.byId);
    this.activeByParty = copyIndex(s.activeByParty);
    this.activeByTemplate = copyIndex(s.activeByTemplate);
    this.activeAll = new Set(s.activeAll);
    this.activeByKey = new Map(s.activeByKey);
  }
  getActive(cid: string): ContractRecord | undefined {
    const c = this.byId.get(cid);
    return c && c.archivedOffset === undefined ? c : undefined;
  }
  activeByKeyHash(hash: string): ContractRecord | undefined {
    const cid = this.activeByKey.get(hash);
    return cid === undefined ? undefined : this.byId.get(cid);
  }
  get activeCount(): number {
    return this.activeAll.size;
  }

  add(c: ContractRecord): void {
    this.byId.set(c.contractId, c);
    if (c.archivedOffset !== undefined) {
      // created and archived in the same transaction (transient): never active
      this.archivedInOrder.push(c);
      return;
    }
    this.activeAll.add(c.contractId);
    for (const p of stakeholdersOf(c)) addTo(this.activeByParty, p, c.contractId);
    addTo(this.activeByTemplate, nameKey(c.templateId), c.contractId);
    if (c.key) this.activeByKey.set(c.key.hash, c.contractId);
  }

  archive(cid: string, offset: number): void {
    const c = this.byId.get(cid);
    if (!c || c.archivedOffset !== undefined) return;
    c.archivedOffset = offset;
    this.activeAll.delete(cid);
    for (const p of stakeholdersOf(c)) this.activeByParty.get(p)?.delete(cid);
    this.activeByTemplate.get(nameKey(c.templateId))?.delete(cid);
    if (c.key && this.activeByKey.get(c.key.hash) === cid) this.activeByKey.delete(c.key.hash);
    this.archivedInOrder.push(c);
  }

  /**
   * Contracts active at `offset` whose stakeholders include one of `parties` (all parties when
   * undefined) and whose template name key is in `templateKeys` (all when undefined), in
   * creation order.
   */
  activeAt(offset: number, ledgerEnd: number, parties?: ReadonlySet<string>, templateKeys?: ReadonlySet<string>): ContractRecord[] {
    const ids = this.candidateIds(parties, templateKeys);
    const out: ContractRecord[] = [];
    for (const cid of ids) {
      const c = this.byId.get(cid)!;
      if (c.createdOffset > offset) continue;
      if (!this.matches(c, parties, templateKeys)) continue;
      out.push(c);
    }
    let unordered = (parties?.size ?? 0) > 1 || (templateKeys?.size ?? 0) > 1;
    if (offset < ledgerEnd) {
      // contracts archived after `offset` were active at `offset`
      for (let i = this.firstArchivedAfter(offset); i < this.archivedInOrder.length; i++) {
        const c = this.archivedInOrder[i]!;
        if (c.createdOffset <= offset && this.matches(c, parties, templateKeys)) {
          out.push(c);
          unordered = true;
        }
      }
    }
    // Canton streams the ACS in event sequential id order, i.e. creation order.
    if (unordered) out.sort((a, b) => a.createdOffset - b.createdOffset || a.createdNodeId - b.createdNodeId);
    return out;
  }

  private candidateIds(parties?: ReadonlySet<string>, templateKeys?: ReadonlySet<string>): Iterable<string> {
    // pick the smallest index that bounds the answer
    const sets: Set<string>[] = [];
    if (parties) {
      // only the parties that have contracts: a filter may name tens of thousands that have none
      const partySets: Set<string>[] = [];
      for (const p of parties) {
        const s = this.activeByParty.get(p);
        if (s && s.size > 0) partySets.push(s);
      }
      sets.push(partySets.length === 0 ? new Set<string>() : partySets.length === 1 ? partySets[0]! : unionInOrder(partySets));
    }
    if (templateKeys) {
      const tSets = [...templateKeys].map((k) => this.activeByTemplate.get(k) ?? new Set<string>());
      sets.push(tSets.length === 1 ? tSets[0]! : unionInOrder(tSets));
    }
    if (sets.length === 0) return this.activeAll;
    return sets.reduce((a, b) => (a.size <= b.size ? a : b));
  }

  private matches(c: ContractRecord, parties?: ReadonlySet<string>, templateKeys?: ReadonlySet<string>): boolean {
    if (templateKeys && !templateKeys.has(nameKey(c.templateId))) return false;
    if (parties && !stakeholdersOf(c).some((p) => parties.has(p))) return false;
    return true;
  }

  private firstArchivedAfter(offset: number): number {
    let lo = 0;
    let hi = this.archivedInOrder.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.archivedInOrder[mid]!.archivedOffset! > offset) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

function addTo(index: Map<string, Set<string>>, key: string, cid: string): void {
  let s = index.get(key);
  if (!s) index.set(key, (s = new Set()));
  s.add(cid);
}

function unionInOrder(sets: Set<string>[]): Set<string> {
  // A union loses creation order across sets; activeAt sorts in that case.
  const out = new Set<string>();
  for (const s of sets) for (const x of s) out.add(x);
  return out;
}
