/**
 * What a scan app holds, derived from the emulated ledger: the DSO party's update history and the
 * ACS snapshots taken from it (Splice `apps/scan/.../store/AcsSnapshotStore.scala`).
 *
 * Scan ingests what the DSO party sees: transactions the DSO witnesses, and contracts the DSO is a
 * stakeholder of. The store catches up with the ledger lazily, on every read, so it needs no
 * subscription and always reflects every committed transaction.
 *
 * Record times. A synchronizer sequences with strictly increasing record times, and scan relies on
 * it (`/v2/updates` pages with a strict `>` cursor on record time). The emulated ledger may commit
 * several transactions at one clock reading (a ManualClock that is not advanced), so scan's record
 * time of an update is the ledger's, bumped by 1µs when needed to be strictly greater than the
 * previous update's and than the newest snapshot already taken (a snapshot at T never changes
 * after it is taken, as on a real network, where nothing is sequenced at or before T later).
 *
 * Snapshots (Splice `AcsSnapshotTriggerBase.scala`): periodic ones at the UTC 00:00, 03:00, ... 21:00 grid, the first at the first
 * boundary after the hour bucket of the first update (`computeSnapshotTimeAfter`: 02:59 → 03:00,
 * 03:00 → 06:00), each holding the contracts active after every update with record time ≤ the
 * boundary; a grid point exists once the clock has reached it. Forced snapshots
 * (`forceAcsSnapshotNow`) are taken at the record time of the latest update. Row ids are global
 * across snapshots, one per contract, in (created_at, contract_id) order, as the v0/v1 page tokens
 * and the "outside of snapshot range" check need.
 */
import type { Clock } from '../../canton/clock.js';
import type { LedgerEngine } from '../participant/engine.js';
import type { ContractRecord } from '../participant/types.js';
import { nameKey, stakeholdersOf } from '../participant/types.js';
import type { TransactionRecord } from '../participant/updates.js';
import { floorDiv } from './encode.js';

export const SNAPSHOT_PERIOD_MICROS = 3n * 3600n * 1_000_000n;

export interface HistoryEntry {
  tx: TransactionRecord;
  /** Scan's record time (see the header): strictly increasing along the history. */
  recordTimeMicros: bigint;
}

export interface Snapshot {
  recordTimeMicros: bigint;
  /** Ledger offset whose ACS the snapshot holds (0: before any update). */
  offset: number;
  firstRowId: number;
  /** `firstRowId - 1` for an empty snapshot. */
  lastRowId: number;
  forced: boolean;
}

export interface SnapshotRow {
  rowId: number;
  contract: ContractRecord;
}

export interface SnapshotPage {
  /** The rows of the page, before any post-filter. */
  rows: SnapshotRow[];
  /** Row id of the last row, only when the page is full ("token only on a full page"). */
  nextRowId?: number;
}

const ROWS_CACHE_SIZE = 16;

function refill<K, V>(target: Map<K, V>, from: ReadonlyMap<K, V>): void {
  target.clear();
  for (const [k, v] of from) target.set(k, v);
}

/** A ScanStore's contents at one moment (ScanStore.saved). */
export interface SavedScanStore {
  readonly history: readonly HistoryEntry[];
  readonly ingestedOffset: number;
  readonly floorMicros: bigint | undefined;
  readonly snapshots: readonly Snapshot[];
  readonly nextGridMicros: bigint | undefined;
  readonly nextRowId: number;
  readonly rowsByOffset: ReadonlyMap<number, ContractRecord[]>;
  readonly countByOffset: ReadonlyMap<number, number>;
  readonly openRoundLog: ReadonlyMap<string, ContractRecord>;
}

export class ScanStore {
  private readonly dsoSet: ReadonlySet<string>;
  private readonly history: HistoryEntry[] = [];
  private readonly byUpdateId = new Map<string, HistoryEntry>();
  private ingestedOffset = 0;
  /** Scan record times must stay above this (last update, newest snapshot). */
  private floorMicros: bigint | undefined;

  private readonly snapshots: Snapshot[] = [];
  private nextGridMicros: bigint | undefined;
  private nextRowId = 1;
  private readonly rowsByOffset = new Map<number, ContractRecord[]>();
  private readonly countByOffset = new Map<number, number>();

  /** Creations of `OpenMiningRound` ever seen, by round number: `getAmuletConfigForRound`'s tx log. */
  private readonly openRoundLog = new Map<string, ContractRecord>();

  constructor(
    private readonly engine: LedgerEngine,
    readonly dsoParty: string,
    private readonly clock: Clock,
    private readonly openMiningRoundKey: string,
  ) {
    this.dsoSet = new Set([dsoParty]);
  }

  // ---- in-memory snapshots of the world (the emulator's admin API) -----------------------------

  /** What the store holds now; restoreSaved puts it back (entries and snapshots are immutable: shared). */
  saved(): SavedScanStore {
    return {
      history: this.history.slice(),
      ingestedOffset: this.ingestedOffset,
      floorMicros: this.floorMicros,
      snapshots: this.snapshots.slice(),
      nextGridMicros: this.nextGridMicros,
      nextRowId: this.nextRowId,
      rowsByOffset: new Map(this.rowsByOffset),
      countByOffset: new Map(this.countByOffset),
      openRoundLog: new Map(this.openRoundLog),
    };
  }

  restoreSaved(s: SavedScanStore): void {
    this.history.length = 0;
    this.history.push(...s.history);
    this.byUpdateId.clear();
    for (const e of s.history) this.byUpdateId.set(e.tx.updateId, e);
    this.ingestedOffset = s.ingestedOffset;
    this.floorMicros = s.floorMicros;
    this.snapshots.length = 0;
    this.snapshots.push(...s.snapshots);
    this.nextGridMicros = s.nextGridMicros;
    this.nextRowId = s.nextRowId;
    refill(this.rowsByOffset, s.rowsByOffset);
    refill(this.countByOffset, s.countByOffset);
    refill(this.openRoundLog, s.openRoundLog);
  }

  // ---- ingestion -------------------------------------------------------------------------------

  /**
   * Ingests every transaction committed since the last call that the DSO witnesses. The ledger's
   * background automation (round advancement, automations.ts) runs first, so scan sees what the
   * SV automation would have done by the current clock time.
   */
  catchUp(): void {
    this.engine.automations.run();
    const end = this.engine.readableEnd();
    if (end <= this.ingestedOffset) return;
    for (const tx of this.engine.updates.range(this.ingestedOffset, end, this.dsoSet)) {
      const floor = this.floorMicros;
      const recordTimeMicros = floor === undefined || tx.recordTimeMicros > floor ? tx.recordTimeMicros : floor + 1n;
      const entry = { tx, recordTimeMicros };
      this.history.push(entry);
      this.byUpdateId.set(tx.updateId, entry);
      this.floorMicros = recordTimeMicros;
      for (const n of tx.nodes) {
        if (n.kind !== 'create' || !n.witnesses.has(this.dsoParty)) continue;
        if (nameKey(n.contract.templateId) !== this.openMiningRoundKey) continue;
        const round = (n.contract.payload as { round?: { number?: unknown } } | null)?.round?.number;
        if (typeof round === 'string' || typeof round === 'number') this.openRoundLog.set(String(round), n.contract);
      }
    }
    this.ingestedOffset = end;
  }

  /** The DSO's updates, ascending by record time. */
  updates(): readonly HistoryEntry[] {
    this.catchUp();
    return this.history;
  }

  update(updateId: string): HistoryEntry | undefined {
    this.catchUp();
    return this.byUpdateId.get(updateId);
  }

  openRoundCreation(round: bigint): ContractRecord | undefined {
    this.catchUp();
    return this.openRoundLog.get(String(round));
  }

  /** Contracts the DSO is a stakeholder of that are active now, of one template (creation order). */
  activeNow(templateKey: string): ContractRecord[] {
    this.catchUp();
    return this.engine.contracts.activeAt(this.engine.readableEnd(), this.engine.ledgerEnd(), this.dsoSet, new Set([templateKey]));
  }

  // ---- snapshots -------------------------------------------------------------------------------

  /** All snapshots taken so far (grid points the clock has reached included), ascending by time. */
  listSnapshots(): readonly Snapshot[] {
    this.catchUp();
    this.materializeGrid();
    return this.snapshots;
  }

  /** The snapshot at exactly `micros`. */
  snapshotAt(micros: bigint): Snapshot | undefined {
    return this.listSnapshots().find((s) => s.recordTimeMicros === micros);
  }

  /** The latest snapshot at or before `micros` (`lookupSnapshotAtOrBefore`: SQL `<=`). */
  snapshotAtOrBefore(micros: bigint): Snapshot | undefined {
    const all = this.listSnapshots();
    for (let i = all.length - 1; i >= 0; i--) if (all[i]!.recordTimeMicros <= micros) return all[i];
    return undefined;
  }

  /** The first snapshot strictly after `micros`. */
  snapshotAfter(micros: bigint): Snapshot | undefined {
    return this.listSnapshots().find((s) => s.recordTimeMicros > micros);
  }

  /** Record time of the latest update the DSO saw, undefined when there is none. */
  lastRecordTime(): bigint | undefined {
    this.catchUp();
    return this.history.at(-1)?.recordTimeMicros;
  }

  /**
   * Takes a snapshot at the latest update's record time (`forceAcsSnapshotNow`), or returns the
   * one that already exists there. Undefined when there is no update.
   */
  force(): Snapshot | undefined {
    const all = this.listSnapshots();
    const last = this.history.at(-1);
    if (!last) return undefined;
    const existing = all.find((s) => s.recordTimeMicros === last.recordTimeMicros);
    if (existing) return existing;
    return this.take(last.recordTimeMicros, true);
  }

  /**
   * A page of a snapshot's rows after row `afterRowId` (exclusive; the first row when undefined),
   * restricted to contracts with a stakeholder in `parties` and a template in `templateKeys`
   * (name keys), at most `limit` rows. The caller has checked `afterRowId` against the range.
   */
  page(s: Snapshot, afterRowId: number | undefined, limit: number, parties?: ReadonlySet<string>, templateKeys?: ReadonlySet<string>): SnapshotPage {
    const rows = this.rowsAt(s.offset);
    const start = afterRowId === undefined ? 0 : afterRowId - s.firstRowId + 1;
    const out: SnapshotRow[] = [];
    for (let i = start; i < rows.length && out.length < limit; i++) {
      const c = rows[i]!;
      if (templateKeys && !templateKeys.has(nameKey(c.templateId))) continue;
      if (parties && !stakeholdersOf(c).some((p) => parties.has(p))) continue;
      out.push({ rowId: s.firstRowId + i, contract: c });
    }
    return { rows: out, ...(out.length === limit && out.length > 0 ? { nextRowId: out.at(-1)!.rowId } : {}) };
  }

  private materializeGrid(): void {
    const first = this.history[0];
    if (!first) return;
    if (this.nextGridMicros === undefined) {
      // computeSnapshotTimeAfter(first record time): the next grid hour after the first update's hour bucket
      this.nextGridMicros = (floorDiv(first.recordTimeMicros, SNAPSHOT_PERIOD_MICROS) + 1n) * SNAPSHOT_PERIOD_MICROS;
    }
    const now = this.clock.nowMicros();
    while (this.nextGridMicros <= now) {
      if (!this.snapshots.some((s) => s.recordTimeMicros === this.nextGridMicros)) this.take(this.nextGridMicros, false);
      this.nextGridMicros += SNAPSHOT_PERIOD_MICROS;
    }
  }

  private take(recordTimeMicros: bigint, forced: boolean): Snapshot {
    const offset = this.offsetAtOrBefore(recordTimeMicros);
    const count = this.countAt(offset);
    const s: Snapshot = { recordTimeMicros, offset, firstRowId: this.nextRowId, lastRowId: this.nextRowId + count - 1, forced };
    this.nextRowId += count;
    const at = this.snapshots.findIndex((x) => x.recordTimeMicros > recordTimeMicros);
    if (at < 0) this.snapshots.push(s);
    else this.snapshots.splice(at, 0, s);
    if (this.floorMicros === undefined || recordTimeMicros > this.floorMicros) this.floorMicros = recordTimeMicros;
    return s;
  }

  /** Ledger offset of the last DSO update with record time ≤ `micros` (0 when none). */
  private offsetAtOrBefore(micros: bigint): number {
    let lo = 0;
    let hi = this.history.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.history[mid]!.recordTimeMicros <= micros) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? 0 : this.history[lo - 1]!.tx.offset;
  }

  private countAt(offset: number): number {
    let n = this.countByOffset.get(offset);
    if (n === undefined) {
      n = this.rowsAt(offset).length;
      this.countByOffset.set(offset, n);
    }
    return n;
  }

  /** The DSO-visible ACS at `offset`, ordered by (created_at, contract_id) like `acs_snapshot_data`. */
  private rowsAt(offset: number): ContractRecord[] {
    let rows = this.rowsByOffset.get(offset);
    if (rows) return rows;
    const end = this.engine.ledgerEnd();
    rows = offset === 0 ? [] : this.engine.contracts.activeAt(offset, end, this.dsoSet);
    rows.sort((a, b) => (a.createdAtMicros < b.createdAtMicros ? -1 : a.createdAtMicros > b.createdAtMicros ? 1 : a.contractId < b.contractId ? -1 : a.contractId > b.contractId ? 1 : 0));
    if (this.rowsByOffset.size >= ROWS_CACHE_SIZE) this.rowsByOffset.delete(this.rowsByOffset.keys().next().value!);
    this.rowsByOffset.set(offset, rows);
    return rows;
  }
}
