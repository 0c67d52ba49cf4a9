/**
 * The emulated synchronizer: what the participants connected to one Canton synchronizer share.
 *
 * A Canton network keeps one topology per synchronizer (which participant hosts which party, with
 * which permission, and the party's confirmation threshold: the PartyToParticipant mapping) and
 * orders every confirmation request once; each participant then keeps its own projection of the
 * ledger: the transactions in which a party it hosts is an informee, at offsets of its own, and the
 * contracts of which a party it hosts is a stakeholder. This class is that shared part:
 *  - the clock, the id generator (contract and update ids are unique network-wide) and the
 *    sequencer's traffic control;
 *  - the party-to-participant topology, and the signing keys of external parties (part of the
 *    same mapping in Canton 3.5: `party_signing_keys`), so every participant can check an external
 *    party's signatures whether it hosts the party or not;
 *  - delivery of a committed transaction to every other participant hosting one of its witnesses
 *    (`publish`), each appending it at its own next offset;
 *  - multi-hosted external parties: a PartyToParticipant mapping naming several participants
 *    becomes effective only when every hosting participant has authorized it (Canton's
 *    `allocateExternalParty` on each of them, which is what the wallet SDK does).
 *
 * LIMITATIONS: one synchronizer (no reassignment); the topology changes at once (no topology
 * delay, no `onboarding` flag, no party replication of existing contracts to a participant that
 * starts hosting a party later); every confirming participant always approves, so the
 * confirmation threshold is checked when the mapping is made but never decides an outcome; each
 * participant lists and vets its own packages, but a transaction is not checked against the
 * packages its informees' participants have vetted (the native templates are on every
 * participant); an interactive submission is executed on the participant that prepared it.
 */
import type { Clock } from '../../canton/clock.js';
import { IdGenerator, stableFingerprint } from '../shared/ids.js';
import { ExternalPartyStore, type ExternalPartyRecord } from './external-parties.js';
import type { SavedExternalParty, StateJournal } from './durability/changes.js';
import { SequencerTraffic } from './traffic.js';
import type { ContractRecord, HostingPermission } from './types.js';
import type { CreateNode, TransactionRecord, TxNode } from './updates.js';

export type { HostingPermission } from './types.js';

/** What the synchronizer needs of a connected participant. */
export interface SynchronizerMember {
  readonly participantId: string;
  /** Whether this participant hosts `party` (its party record is local). */
  hosts(party: string): boolean;
  /** Learns a party hosted elsewhere (`isLocal: false`). */
  learnParty(party: string): void;
  /** Appends a transaction submitted on another participant (see `publish`). */
  receive(tx: TransactionRecord, consumed: ReadonlySet<string>, submittingParticipant: string): void;
  /** Runs this participant's background automation (automations.ts). */
  runAutomations(): void;
  /** The contract if this participant stores it (active or archived). */
  storedContract(contractId: string): ContractRecord | undefined;
}

export interface SynchronizerOptions {
  clock: Clock;
  seed: string;
  /** Id name part (`global-domain` on Splice networks). */
  name?: string;
  /** The whole id, pinned (`<name>::<namespace>`); default `<name>::<a namespace derived from the seed>`. */
  id?: string;
  alias?: string;
}

interface Hosting {
  participants: Map<string, HostingPermission>;
  threshold: number;
}

/** A multi-hosted party's mapping waiting for the authorization of all its hosting participants. */
export interface PendingHosting {
  party: string;
  participants: ReadonlyMap<string, HostingPermission>;
  threshold: number;
  /** Participants that authorized it so far, with what each needs to host the party. */
  authorized: Map<string, () => void>;
}

export class Synchronizer {
  readonly id: string;
  readonly alias: string;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly seed: string;
  /** The sequencer's traffic control, metering every member's requests (off until parameters are set). */
  readonly traffic = new SequencerTraffic();
  /** Signing keys and thresholds of the external parties on this synchronizer. */
  readonly externalParties = new ExternalPartyStore({ onRegister: (rec) => this.journal?.record({ kind: 'external', record: savedExternalParty(rec) }) });
  /** Durable state's journal (STATE_DIR), when the world is kept across restarts. */
  journal: StateJournal | undefined;
  private readonly members: SynchronizerMember[] = [];
  private readonly hosting = new Map<string, Hosting>();
  private readonly pending = new Map<string, PendingHosting>();

  constructor(opts: SynchronizerOptions) {
    this.clock = opts.clock;
    this.seed = opts.seed;
    this.ids = new IdGenerator(opts.seed);
    const name = opts.name ?? 'global-domain';
    this.id = opts.id ?? `${name}::${stableFingerprint(`${opts.seed}/synchronizer/${name}`)}`;
    this.alias = opts.alias ?? 'global';
  }

  /** Connects a participant; it learns every party already on the synchronizer. */
  connect(member: SynchronizerMember): void {
    if (this.members.some((m) => m.participantId === member.participantId)) {
      throw new Error(`participant ${member.participantId} is already connected to ${this.id}`);
    }
    this.members.push(member);
    for (const party of this.hosting.keys()) if (!member.hosts(party)) member.learnParty(party);
  }

  /** More than one participant: visibility then depends on which participant a request reaches. */
  get isMultiParticipant(): boolean {
    return this.members.length > 1;
  }

  /** The permission with which `participantId` hosts `party`, if it does. */
  permissionOf(party: string, participantId: string): HostingPermission | undefined {
    return this.hosting.get(party)?.participants.get(participantId);
  }

  /** The party's hosting participants and confirmation threshold (its PartyToParticipant mapping). */
  hostingOf(party: string): { participants: ReadonlyMap<string, HostingPermission>; threshold: number } | undefined {
    return this.hosting.get(party);
  }

  /**
   * Records that `participantId` hosts `party` with `permission` (a party allocated there, or a
   * hosting configured for the demo world); every other participant learns the party. The
   * confirmation threshold is 1 unless a multi-hosted mapping sets it (`authorizeHosting`).
   */
  host(party: string, participantId: string, permission: HostingPermission): void {
    let h = this.hosting.get(party);
    if (!h) this.hosting.set(party, (h = { participants: new Map(), threshold: 1 }));
    h.participants.set(participantId, permission);
    this.journal?.record({ kind: 'host', party, participantId, permission, threshold: h.threshold });
    for (const m of this.members) if (m.participantId !== participantId && !m.hosts(party)) m.learnParty(party);
  }

  /** The mapping of a multi-hosted party still waiting for authorizations, if any. */
  pendingHosting(party: string): PendingHosting | undefined {
    return this.pending.get(party);
  }

  /**
   * One hosting participant's authorization of a multi-hosted party's mapping. `activate` hosts the
   * party on that participant; all of them run once the last hosting participant has authorized.
   * Returns whether the mapping became effective with this call.
   */
  authorizeHosting(
    mapping: { party: string; participants: ReadonlyMap<string, HostingPermission>; threshold: number },
    participantId: string,
    activate: () => void,
  ): boolean {
    let p = this.pending.get(mapping.party);
    if (!p) this.pending.set(mapping.party, (p = { ...mapping, authorized: new Map() }));
    p.authorized.set(participantId, activate);
    if ([...p.participants.keys()].some((id) => !p.authorized.has(id))) return false;
    this.pending.delete(mapping.party);
    for (const run of p.authorized.values()) run();
    const h = this.hosting.get(mapping.party);
    if (h) {
      h.threshold = mapping.threshold;
      for (const [id, permission] of h.participants) {
        this.journal?.record({ kind: 'host', party: mapping.party, participantId: id, permission, threshold: h.threshold });
      }
    }
    return true;
  }

  /** Every hosting of the topology (durable state's snapshot). */
  savedHosting(): Array<{ party: string; participantId: string; permission: HostingPermission; threshold: number }> {
    return [...this.hosting].flatMap(([party, h]) => [...h.participants].map(([participantId, permission]) => ({ party, participantId, permission, threshold: h.threshold })));
  }

  /** Forgets the topology (durable state's restore, before it writes the saved hostings). */
  clearHosting(): void {
    this.hosting.clear();
    this.pending.clear();
  }

  /** Writes a saved hosting into the topology (durable state's restore); nobody is told. */
  restoreHosting(party: string, participantId: string, permission: HostingPermission, threshold: number): void {
    let h = this.hosting.get(party);
    if (!h) this.hosting.set(party, (h = { participants: new Map(), threshold }));
    h.participants.set(participantId, permission);
    h.threshold = threshold;
  }

  /** Whether a mapping naming `participantId` would wait for another participant that is not connected. */
  isConnected(participantId: string): boolean {
    return this.members.some((m) => m.participantId === participantId);
  }

  /**
   * Delivers a transaction committed by `origin` to every other participant hosting one of its
   * witnesses; `consumed` are the contracts it archives.
   */
  publish(origin: string, tx: TransactionRecord, consumed: ReadonlySet<string>): void {
    if (this.members.length < 2) return;
    for (const m of this.members) {
      if (m.participantId === origin) continue;
      if (![...tx.witnesses].some((w) => m.hosts(w))) continue;
      m.receive(tx, consumed, origin);
    }
  }

  /** How many participants a transaction with these witnesses is delivered to (traffic's recipients). */
  recipientsOf(witnesses: Iterable<string>): number {
    if (this.members.length < 2) return 1;
    const ws = [...witnesses];
    return Math.max(1, this.members.filter((m) => ws.some((w) => m.hosts(w))).length);
  }

  /** Runs every participant's background automation (a command sees what all of them left). */
  runAutomations(): void {
    for (const m of this.members) m.runAutomations();
  }

  /**
   * A contract stored by any participant: what a participant can authenticate a disclosed
   * contract against (Canton checks the contract id's authentication; here its blob) and where
   * the activeness of an input contract is decided.
   */
  storedContract(contractId: string, preferred?: SynchronizerMember): ContractRecord | undefined {
    const local = preferred?.storedContract(contractId);
    if (local) return local;
    for (const m of this.members) {
      if (m === preferred) continue;
      const c = m.storedContract(contractId);
      if (c) return c;
    }
    return undefined;
  }
}

/**
 * The receiving participant's copy of a transaction submitted elsewhere: the same update id,
 * nodes and record time at the receiver's own offset; no command id, user or submission id (only
 * the submitting participant reports those) and no traffic cost (the submitter paid it). Created
 * contracts of which the receiver hosts a stakeholder are copied with the receiver's offsets.
 */
export function receivedCopy(
  tx: TransactionRecord,
  offset: number,
  submittingParticipant: string,
  hostsStakeholder: (c: ContractRecord) => boolean,
): { tx: TransactionRecord; stored: ContractRecord[] } {
  const stored: ContractRecord[] = [];
  const nodes: TxNode[] = tx.nodes.map((n) => {
    if (n.kind !== 'create') return n;
    const contract: ContractRecord = { ...n.contract, createdOffset: offset };
    if (n.contract.archivedOffset !== undefined) contract.archivedOffset = offset;
    else delete contract.archivedOffset;
    if (hostsStakeholder(contract)) stored.push(contract);
    const copy: CreateNode = { ...n, contract };
    return copy;
  });
  const copy: TransactionRecord = {
    updateId: tx.updateId,
    offset,
    commandId: '',
    workflowId: tx.workflowId,
    userId: '',
    actAs: tx.actAs,
    submissionId: '',
    effectiveAtMicros: tx.effectiveAtMicros,
    recordTimeMicros: tx.recordTimeMicros,
    synchronizerId: tx.synchronizerId,
    nodes,
    witnesses: tx.witnesses,
    submittingParticipant,
  };
  if (tx.externalTransactionHash !== undefined) copy.externalTransactionHash = tx.externalTransactionHash;
  return { tx: copy, stored };
}


/** An external party's record with its keys in DER, as durable state saves it. */
export function savedExternalParty(rec: ExternalPartyRecord): SavedExternalParty {
  return {
    party: rec.party,
    threshold: rec.threshold,
    keys: rec.keys.map((k) => ({ fingerprint: k.fingerprint, spec: k.spec, spki: k.key.export({ format: 'der', type: 'spki' }) })),
  };
}
