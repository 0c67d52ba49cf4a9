/**
 * Read-only views of the emulated world for the explorer (the web page at the admin port's root)
 * and for any test suite: parties with their hosting and external keys, users with their rights,
 * instruments with their supply, balances, transactions newest first (paged by offset), one
 * transaction's event tree, one contract with what created and archived it. Everything is read
 * from the participants' own stores, as committed and published (with STATE_DIR: synced).
 *
 * KNOWN LIMITATIONS: balances and supply are sums of the HoldingV1 views of the active contracts,
 * read without running the background automation first (the admin API's holdings endpoint runs
 * it, as a wallet read does); a contract is looked up on one participant (the one named, else
 * the first that stored it).
 */
import { formatInstant } from '../../canton/clock.js';
import { formatDecimal, parseDecimal } from '../../canton/lf-value.js';
import type { LedgerEngine } from '../participant/engine.js';
import type { HostingPermission, Synchronizer } from '../participant/synchronizer.js';
import { formatId, nameKey, type ContractRecord, type QualifiedId, type Right } from '../participant/types.js';
import type { TransactionRecord, TxNode } from '../participant/updates.js';
import type { SeededWorld } from '../world/seed.js';
import { TS } from '../templates/token-standard.js';
import { AdminError, holdingView, type AdminInstrument } from './service.js';

export interface WorldViewDeps {
  synchronizer: Synchronizer;
  participants: readonly LedgerEngine[];
  seeded?: SeededWorld;
  /** The seeded instruments (AdminService.instruments). */
  instruments: () => AdminInstrument[];
  /** A party id or seeded name to a party id (AdminService.resolveParty: 404 when unknown). */
  resolveParty: (nameOrId: string) => string;
}

const DEFAULT_PAGE = 50;
const MAX_PAGE = 200;

interface InstrumentKey {
  admin: string;
  id: string;
}

export interface TransactionSummary {
  participantId: string;
  offset: number;
  updateId: string;
  commandId: string;
  workflowId: string;
  userId: string;
  actAs: string[];
  recordTime: string;
  effectiveAt: string;
  eventCount: number;
  roots: Array<{ kind: 'created' | 'exercised'; contractId: string; templateId: string; packageName: string; choice: string | null }>;
}

export type TransactionEvent =
  | {
      kind: 'created';
      nodeId: number;
      parentNodeId: number | null;
      contractId: string;
      templateId: string;
      packageName: string;
      payload: unknown;
      signatories: string[];
      observers: string[];
      transient: boolean;
    }
  | {
      kind: 'exercised';
      nodeId: number;
      parentNodeId: number | null;
      contractId: string;
      templateId: string;
      packageName: string;
      interfaceId: string | null;
      choice: string;
      choiceArgument: unknown;
      actingParties: string[];
      consuming: boolean;
      exerciseResult: unknown;
      lastDescendantNodeId: number;
    };

interface HoldingRow {
  owner: string;
  instrument: InstrumentKey;
  amount: bigint;
  locked: boolean;
}

export class WorldView {
  /**
   * The active holdings as of each participant's last published transaction: instruments and
   * balances are read together by the page, and again after every transaction, so one pass over
   * the contracts serves both until the ledger moves. The key holds the last transaction records
   * themselves, so a restore to another world with the same ledger end does not match.
   */
  private holdingsCache?: { key: ReadonlyArray<TransactionRecord | undefined>; rows: HoldingRow[] };

  constructor(private readonly deps: WorldViewDeps) {}

  /** A participant by id or name; the first when absent; 404 when unknown. */
  participant(idOrName?: string): LedgerEngine {
    const ps = this.deps.participants;
    if (idOrName === undefined) return ps[0]!;
    const found = ps.find((e) => e.participantId === idOrName || e.participantName === idOrName);
    if (!found) throw new AdminError(404, `unknown participant "${idOrName}" (this world has: ${ps.map((e) => e.participantName).join(', ')})`);
    return found;
  }

  parties() {
    const sync = this.deps.synchronizer;
    const names = new Map((this.deps.seeded?.parties ?? []).map((p) => [p.party, p.hint]));
    const ids = new Set<string>();
    for (const e of this.deps.participants) for (const r of e.parties.all()) ids.add(r.party);
    const seededOrder = [...names.keys()];
    const ordered = [...seededOrder.filter((p) => ids.has(p)), ...[...ids].filter((p) => !names.has(p)).sort()];
    return {
      parties: ordered.map((party) => {
        const hosting = sync.hostingOf(party);
        const external = sync.externalParties.get(party);
        return {
          party,
          name: names.get(party) ?? null,
          hostedOn: [...(hosting?.participants ?? new Map<string, HostingPermission>())].map(([participantId, permission]) => ({ participantId, permission })),
          threshold: hosting?.threshold ?? 1,
          external: external ? { threshold: external.threshold, keys: external.keys.map((k) => ({ fingerprint: k.fingerprint, spec: k.spec })) } : null,
        };
      }),
    };
  }

  users() {
    const users = [];
    for (const e of this.deps.participants) {
      for (const [id, u] of e.users.savedEntries()) {
        users.push({
          participantId: e.participantId,
          id,
          primaryParty: u.user.primaryParty,
          isDeactivated: u.user.isDeactivated,
          rights: u.rights.map((r: Right) => ({ kind: r.kind, party: 'party' in r ? r.party : null })),
        });
      }
    }
    return { users };
  }

  /** Every active HoldingV1 (each contract once, from the first participant storing it). */
  private activeHoldings(): HoldingRow[] {
    const key = this.deps.participants.map((e) => e.updates.atOffset(e.readableEnd()));
    const cached = this.holdingsCache;
    if (cached && cached.key.length === key.length && cached.key.every((k, i) => k === key[i])) return cached.rows;
    const rows: HoldingRow[] = [];
    const seen = new Set<string>();
    const holdingKey = nameKey(TS.HoldingV1.id);
    for (const e of this.deps.participants) {
      const end = e.readableEnd();
      // Whether a template implements HoldingV1, asked once per template rather than per contract.
      const implementsHolding = new Map<string, boolean>();
      for (const c of e.contracts.activeAt(end, end)) {
        if (seen.has(c.contractId)) continue;
        seen.add(c.contractId);
        const t = formatId(c.templateId);
        let holds = implementsHolding.get(t);
        if (holds === undefined) {
          holds = e.templates.templateById(c.templateId)?.implements.some((i) => nameKey(i.interface.id) === holdingKey) ?? false;
          implementsHolding.set(t, holds);
        }
        if (!holds) continue;
        const v = holdingView(e, c, holdingKey);
        if (!v) continue;
        let amount: bigint;
        try {
          amount = parseDecimal(v.amount);
        } catch {
          continue;
        }
        rows.push({ owner: v.owner, instrument: { admin: v.instrumentId.admin, id: v.instrumentId.id }, amount, locked: v.lock !== null && v.lock !== undefined });
      }
    }
    this.holdingsCache = { key, rows };
    return rows;
  }

  instruments() {
    const key = (i: InstrumentKey) => `${i.admin}\n${i.id}`;
    const rows = new Map<string, { instrument: InstrumentKey; kind: string; decimals: number | null; supply: bigint; holders: Set<string> }>();
    for (const i of this.deps.instruments()) rows.set(key(i), { instrument: { admin: i.admin, id: i.id }, kind: i.kind, decimals: i.decimals, supply: 0n, holders: new Set() });
    for (const h of this.activeHoldings()) {
      let r = rows.get(key(h.instrument));
      if (!r) rows.set(key(h.instrument), (r = { instrument: h.instrument, kind: 'other', decimals: null, supply: 0n, holders: new Set() }));
      r.supply += h.amount;
      r.holders.add(h.owner);
    }
    return {
      instruments: [...rows.values()].map((r) => ({ instrument: r.instrument, kind: r.kind, decimals: r.decimals, supply: formatDecimal(r.supply), holders: r.holders.size })),
    };
  }

  balances() {
    const rows = new Map<string, { party: string; instrument: InstrumentKey; amount: bigint; locked: bigint }>();
    for (const h of this.activeHoldings()) {
      const k = `${h.owner}\n${h.instrument.admin}\n${h.instrument.id}`;
      let r = rows.get(k);
      if (!r) rows.set(k, (r = { party: h.owner, instrument: h.instrument, amount: 0n, locked: 0n }));
      if (h.locked) r.locked += h.amount;
      else r.amount += h.amount;
    }
    return { balances: [...rows.values()].map((r) => ({ party: r.party, instrument: r.instrument, amount: formatDecimal(r.amount), locked: formatDecimal(r.locked) })) };
  }

  /** One page of a participant's transactions, newest first, below offset `before`. */
  transactions(q: { participant?: string; before?: string; limit?: string; party?: string }) {
    const e = this.participant(q.participant);
    const end = e.readableEnd();
    const limit = q.limit === undefined ? DEFAULT_PAGE : Number(q.limit);
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_PAGE) throw new AdminError(400, `limit must be between 1 and ${MAX_PAGE}, got ${q.limit}`);
    const before = q.before === undefined ? end + 1 : Math.min(Number(q.before), end + 1);
    if (!Number.isSafeInteger(before)) throw new AdminError(400, `before must be an offset, got ${q.before}`);
    let txs: TransactionRecord[];
    let more: boolean;
    if (q.party !== undefined) {
      const party = this.deps.resolveParty(q.party);
      const witnessed = e.updates.range(0, before - 1, new Set([party]));
      txs = witnessed.slice(Math.max(0, witnessed.length - limit)).reverse();
      more = witnessed.length > limit;
    } else {
      txs = [];
      for (let o = before - 1; o >= 1 && txs.length < limit; o--) txs.push(e.updates.atOffset(o)!);
      more = txs.length > 0 && txs[txs.length - 1]!.offset > 1;
    }
    return {
      participantId: e.participantId,
      ledgerEnd: end,
      transactions: txs.map((t) => summary(e, t)),
      nextBefore: more && txs.length > 0 ? txs[txs.length - 1]!.offset : null,
    };
  }

  /** A transaction with its events; 404 when no participant (or not the one named) has it. */
  transaction(updateId: string, participant?: string) {
    const engines = participant === undefined ? this.deps.participants : [this.participant(participant)];
    for (const e of engines) {
      const tx = e.updates.byId(updateId);
      if (tx && tx.offset <= e.readableEnd()) return { ...summary(e, tx), events: events(tx.nodes) };
    }
    throw new AdminError(404, `no transaction with update id "${updateId}"`);
  }

  /** A contract with its creating and archiving transactions; 404 when unknown. */
  contract(contractId: string, participant?: string) {
    const engines = participant === undefined ? this.deps.participants : [this.participant(participant)];
    for (const e of engines) {
      const c = e.contracts.get(contractId);
      if (c && c.createdOffset <= e.readableEnd()) return contractView(e, c);
    }
    throw new AdminError(404, `no contract with id "${contractId}"`);
  }

  /** A transaction as the live feed pushes it. */
  summaryOf(e: LedgerEngine, tx: TransactionRecord): TransactionSummary {
    return summary(e, tx);
  }
}

function templateOf(id: QualifiedId) {
  return { templateId: formatId(id), packageName: id.packageName };
}

function summary(e: LedgerEngine, tx: TransactionRecord): TransactionSummary {
  const roots: TransactionSummary['roots'] = [];
  for (let i = 0; i < tx.nodes.length; ) {
    const n = tx.nodes[i]!;
    if (n.kind === 'create') {
      roots.push({ kind: 'created', contractId: n.contract.contractId, ...templateOf(n.contract.templateId), choice: null });
      i++;
    } else {
      roots.push({ kind: 'exercised', contractId: n.contractId, ...templateOf(n.templateId), choice: n.choice });
      // the exercise's descendants follow it in pre-order
      const next = tx.nodes.findIndex((m, j) => j > i && m.nodeId > n.lastDescendantNodeId);
      i = next < 0 ? tx.nodes.length : next;
    }
  }
  return {
    participantId: e.participantId,
    offset: tx.offset,
    updateId: tx.updateId,
    commandId: tx.commandId,
    workflowId: tx.workflowId,
    userId: tx.userId,
    actAs: tx.actAs,
    recordTime: formatInstant(tx.recordTimeMicros),
    effectiveAt: formatInstant(tx.effectiveAtMicros),
    eventCount: tx.nodes.length,
    roots,
  };
}

function events(nodes: readonly TxNode[]): TransactionEvent[] {
  const open: Array<{ nodeId: number; last: number }> = [];
  return nodes.map((n) => {
    while (open.length > 0 && open[open.length - 1]!.last < n.nodeId) open.pop();
    const parentNodeId = open.length > 0 ? open[open.length - 1]!.nodeId : null;
    if (n.kind === 'create') {
      const c = n.contract;
      return { kind: 'created', nodeId: n.nodeId, parentNodeId, contractId: c.contractId, ...templateOf(c.templateId), payload: c.payload, signatories: c.signatories, observers: c.observers, transient: n.transient };
    }
    open.push({ nodeId: n.nodeId, last: n.lastDescendantNodeId });
    return {
      kind: 'exercised',
      nodeId: n.nodeId,
      parentNodeId,
      contractId: n.contractId,
      ...templateOf(n.templateId),
      interfaceId: n.interfaceId ? formatId(n.interfaceId) : null,
      choice: n.choice,
      choiceArgument: n.choiceArgument,
      actingParties: n.actingParties,
      consuming: n.consuming,
      exerciseResult: n.exerciseResult,
      lastDescendantNodeId: n.lastDescendantNodeId,
    };
  });
}

function contractView(e: LedgerEngine, c: ContractRecord) {
  let archivedBy = null;
  const archivedAt = c.archivedOffset;
  if (archivedAt !== undefined && archivedAt <= e.readableEnd()) {
    const tx = e.updates.atOffset(archivedAt);
    const node = tx?.nodes.find((n) => n.kind === 'exercise' && n.consuming && n.contractId === c.contractId);
    archivedBy = {
      updateId: tx?.updateId ?? '',
      offset: archivedAt,
      choice: node?.kind === 'exercise' ? node.choice : null,
      actingParties: node?.kind === 'exercise' ? node.actingParties : [],
    };
  }
  return {
    participantId: e.participantId,
    contractId: c.contractId,
    ...templateOf(c.templateId),
    payload: c.payload,
    signatories: c.signatories,
    observers: c.observers,
    key: c.key ? { value: c.key.value, maintainers: c.key.maintainers } : null,
    createdAt: formatInstant(c.createdAtMicros),
    createdBy: { updateId: c.createdUpdateId, offset: c.createdOffset },
    archivedBy,
  };
}
