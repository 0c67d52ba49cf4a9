/**
 * The participant's update log: committed transactions at consecutive offsets (1, 2, ...),
 * with indexes by update id and by witness party so that update streams for a few parties do
 * not scan the whole log.
 *
 * Appending and publishing are two steps when the world is durable (STATE_DIR): a transaction is
 * appended when it is committed in memory, and published (subscribers called, `publishedEnd`
 * moved) only once the journal has synced it, as a Canton participant's indexer makes an update
 * readable only after it is persisted. Without durable state, appending publishes.
 */
import type { ContractRecord, LfValue, QualifiedId } from './types.js';

export interface CreateNode {
  kind: 'create';
  nodeId: number;
  contract: ContractRecord;
  /** Informees of this node and of all its ancestors (LEDGER_EFFECTS visibility). */
  witnesses: ReadonlySet<string>;
  /** Archived within the same transaction: not part of the ACS delta. */
  transient: boolean;
}

export interface ExerciseNode {
  kind: 'exercise';
  nodeId: number;
  contractId: string;
  templateId: QualifiedId;
  interfaceId?: QualifiedId;
  choice: string;
  choiceArgument: LfValue;
  actingParties: string[];
  consuming: boolean;
  exerciseResult: LfValue;
  lastDescendantNodeId: number;
  /** Stakeholders of the exercised contract (ACS_DELTA visibility of the archive). */
  stakeholders: string[];
  witnesses: ReadonlySet<string>;
  /** The exercised contract was created in this same transaction. */
  onTransient: boolean;
  /** Interfaces the template implements (ArchivedEvent.implementedInterfaces). */
  implementedInterfaces: QualifiedId[];
}

export type TxNode = CreateNode | ExerciseNode;

export interface TransactionRecord {
  updateId: string;
  offset: number;
  commandId: string;
  workflowId: string;
  userId: string;
  actAs: string[];
  submissionId: string;
  effectiveAtMicros: bigint;
  recordTimeMicros: bigint;
  synchronizerId: string;
  /** Nodes in pre-order; `nodes[i].nodeId === i`. */
  nodes: TxNode[];
  /** Every party that witnesses any node. */
  witnesses: ReadonlySet<string>;
  /** Base64 prepared-transaction hash of an externally signed (interactive) submission. */
  externalTransactionHash?: string;
  /** Bytes of traffic the submitting participant paid for the request (./traffic.ts); absent without traffic control. */
  paidTrafficCost?: bigint;
  /**
   * On a copy delivered by the synchronizer (synchronizer.ts), the participant that submitted the
   * transaction; absent on the submitting participant's own record.
   */
  submittingParticipant?: string;
}

/** An UpdateLog's contents at one moment (UpdateLog.saved). */
export interface SavedUpdateLog {
  readonly txs: readonly TransactionRecord[];
  readonly byUpdateId: ReadonlyMap<string, TransactionRecord>;
  readonly offsetsByParty: ReadonlyMap<string, readonly number[]>;
}

export class UpdateLog {
  private txs: TransactionRecord[] = [];
  private byUpdateId = new Map<string, TransactionRecord>();
  private offsetsByParty = new Map<string, number[]>();
  private readonly listeners = new Set<(tx: TransactionRecord) => void>();
  private published = 0;
  private deferred = false;

  /** Offset of the last update; 0 on an empty ledger. */
  end(): number {
    return this.txs.length;
  }

  /** Offset of the last published update (what readers and subscribers see). */
  publishedEnd(): number {
    return this.deferred ? this.published : this.txs.length;
  }

  /** From now on, appended transactions wait for `publish()` (durable state calls it after each sync). */
  deferPublication(): void {
    this.deferred = true;
    this.published = this.txs.length;
  }

  /** Publishes every appended transaction: subscribers are called for those not published yet. */
  publish(): void {
    while (this.published < this.txs.length) {
      const tx = this.txs[this.published++]!;
      for (const l of this.listeners) l(tx);
    }
  }

  /** Counts every appended transaction as published without telling subscribers (a reload of what they already saw). */
  markPublished(): void {
    this.published = this.txs.length;
  }

  append(tx: TransactionRecord): void {
    if (tx.offset !== this.txs.length + 1) throw new Error(`offset ${tx.offset} out of sequence`);
    this.index(tx);
    if (!this.deferred) this.publish();
  }

  private index(tx: TransactionRecord): void {
    this.txs.push(tx);
    this.byUpdateId.set(tx.updateId, tx);
    for (const p of tx.witnesses) {
      let list = this.offsetsByParty.get(p);
      if (!list) this.offsetsByParty.set(p, (list = []));
      list.push(tx.offset);
    }
  }

  /** The log as it is now, for an in-memory snapshot of the world (records are immutable: shared; indexes copied). */
  saved(): SavedUpdateLog {
    const offsetsByParty = new Map<string, number[]>();
    for (const [p, list] of this.offsetsByParty) offsetsByParty.set(p, list.slice());
    return { txs: this.txs.slice(), byUpdateId: new Map(this.byUpdateId), offsetsByParty };
  }

  /** Puts a saved log back (the saved one stays usable); listeners are not called (the streams that had them were ended). */
  restoreSaved(s: SavedUpdateLog): void {
    this.txs = s.txs.slice();
    this.byUpdateId = new Map(s.byUpdateId);
    this.offsetsByParty = new Map();
    for (const [p, list] of s.offsetsByParty) this.offsetsByParty.set(p, list.slice());
    this.published = this.txs.length;
  }

  /** Forgets every transaction (durable state's restore, before it loads the saved ones). */
  clear(): void {
    this.txs.length = 0;
    this.byUpdateId.clear();
    this.offsetsByParty.clear();
    this.published = 0;
  }

  /** Every transaction, in offset order (durable state's snapshot). */
  all(): readonly TransactionRecord[] {
    return this.txs;
  }

  byId(updateId: string): TransactionRecord | undefined {
    return this.byUpdateId.get(updateId);
  }
  /**
   * The transaction of the interactive submission whose prepared-transaction hash is `hashBase64`
   * (canonical padded base64, as recorded); a linear scan, newest first.
   */
  byExternalHash(hashBase64: string): TransactionRecord | undefined {
    for (let i = this.txs.length - 1; i >= 0; i--) {
      if (this.txs[i]!.externalTransactionHash === hashBase64) return this.txs[i];
    }
    return undefined;
  }
  atOffset(offset: number): TransactionRecord | undefined {
    return this.txs[offset - 1];
  }

  /**
   * Transactions in (begin, end] that one of `parties` witnesses (every transaction when
   * `parties` is undefined), ascending.
   */
  range(beginExclusive: number, endInclusive: number, parties?: ReadonlySet<string>): TransactionRecord[] {
    const end = Math.min(endInclusive, this.txs.length);
    if (parties === undefined) return this.txs.slice(beginExclusive, Math.max(beginExclusive, end));
    const offsets = new Set<number>();
    for (const p of parties) {
      const list = this.offsetsByParty.get(p);
      if (!list) continue;
      for (let i = lowerBound(list, beginExclusive + 1); i < list.length && list[i]! <= end; i++) offsets.add(list[i]!);
    }
    return [...offsets].sort((a, b) => a - b).map((o) => this.txs[o - 1]!);
  }

  /** How many listeners are subscribed (streams free theirs when they end). */
  get listenerCount(): number {
    return this.listeners.size;
  }

  /** Calls `listener` for every transaction published from now on; returns an unsubscribe. */
  subscribe(listener: (tx: TransactionRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

function lowerBound(list: number[], value: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A transaction as committed, with what its effects need (what durable state journals). */
export interface CommittedTransaction {
  tx: TransactionRecord;
  /** The contracts it creates (the records its create nodes carry). */
  created: ContractRecord[];
  consumed: string[];
  /** Deduplication key of its change id. */
  changeKey: string;
  /** Traffic cost of its confirmation request, before the base rate pays part of it. */
  eventCost: bigint;
}
