/**
 * The emulated ledger node: one deterministic state machine holding parties, users, packages,
 * templates, contracts and the transaction log of one participant connected to one synchronizer.
 * Several engines can share one `Synchronizer` (synchronizer.ts): each is then a participant of
 * its own (users, rights, packages, hosted parties, offsets), and transactions reach every
 * participant that hosts one of their witnesses.
 *
 * All sources of nondeterminism come in as options (clock, id seed), so two engines built with
 * the same options and fed the same commands produce byte-identical ledgers.
 */
import { systemClock, type Clock } from '../../canton/clock.js';
import { type IdGenerator, stableFingerprint } from '../shared/ids.js';
import { ContractStore } from './contracts.js';
import { PackageStore } from './packages.js';
import { PartyStore } from './parties.js';
import { TemplateRegistry } from './templates.js';
import { UpdateLog } from './updates.js';
import { UserStore } from './users.js';
import { CommandService } from './commands.js';
import { EngineAutomations } from './automations.js';
import type { ExternalPartyStore } from './external-parties.js';
import { InteractiveSubmissionService } from './interactive/service.js';
import { receivedCopy, Synchronizer, type HostingPermission, type SynchronizerMember } from './synchronizer.js';
import type { SequencerTraffic } from './traffic.js';
import type { ContractRecord } from './types.js';
import { stakeholdersOf } from './types.js';
import type { TransactionRecord } from './updates.js';

export interface LedgerEngineOptions {
  clock?: Clock;
  /** Seed of all generated ids. */
  seed?: string;
  /** Participant name, the part before `::` of the participant id (Canton: `participant1`). */
  participantName?: string;
  /**
   * The participant's id, pinned (`<identifier>::<namespace>`); default
   * `<participantName>::<a namespace derived from the seed and the name>`.
   */
  participantId?: string;
  synchronizerAlias?: string;
  /** Synchronizer id name part (`global-domain` on Splice networks). */
  synchronizerName?: string;
  /** The synchronizer's whole id, pinned (`<name>::<namespace>`); wins over `synchronizerName`. */
  synchronizerId?: string;
  /** Server limit on list endpoints (`http-list-max-elements-limit`, default 200). */
  listMaxElements?: number;
  /**
   * The synchronizer to connect to, shared with other participants; a new one of its own when
   * absent (built from `clock`, `seed`, `synchronizerName` and `synchronizerAlias`). A shared
   * synchronizer brings the clock, the id generator and the traffic control.
   */
  synchronizer?: Synchronizer;
}

export class LedgerEngine implements SynchronizerMember {
  readonly synchronizer: Synchronizer;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly participantName: string;
  /** The participant's namespace: every party it allocates is `hint::<namespace>`. */
  readonly namespace: string;
  readonly participantId: string;
  /** The participant as a sequencer member (`Member.toProtoPrimitive`: `PAR::<uid>`). */
  readonly participantMember: string;
  readonly synchronizerId: string;
  readonly synchronizerAlias: string;
  readonly listMaxElements: number;

  readonly packages = new PackageStore({
    onUpload: (upload) => this.synchronizer.journal?.record({ kind: 'dar', participant: this.participantName, upload }),
  });
  /** Declared templates read their payload types from the uploaded packages. */
  readonly templates = new TemplateRegistry({ packages: this.packages });
  readonly parties: PartyStore;
  /** Signing keys and thresholds of the synchronizer's external parties (topology, shared by all participants). */
  readonly externalParties: ExternalPartyStore;
  readonly users: UserStore;
  readonly contracts: ContractStore;
  readonly updates: UpdateLog;
  readonly commands: CommandService;
  /** Prepare / execute of externally signed transactions. */
  readonly interactive: InteractiveSubmissionService;
  /** Background automation run lazily before each submission (automations.ts). */
  readonly automations: EngineAutomations<LedgerEngine>;
  /** The synchronizer's traffic control, metering this participant's requests (off until parameters are set). */
  readonly traffic: SequencerTraffic;

  constructor(opts: LedgerEngineOptions = {}) {
    const synchronizer =
      opts.synchronizer ??
      new Synchronizer({
        clock: opts.clock ?? systemClock,
        seed: opts.seed ?? 'token-registry',
        name: opts.synchronizerName,
        id: opts.synchronizerId,
        alias: opts.synchronizerAlias,
      });
    this.synchronizer = synchronizer;
    this.clock = synchronizer.clock;
    this.ids = synchronizer.ids;
    this.traffic = synchronizer.traffic;
    this.externalParties = synchronizer.externalParties;
    this.participantName = opts.participantName ?? 'participant1';
    const pinned = opts.participantId?.split('::');
    this.namespace = pinned?.[1] ?? stableFingerprint(`${synchronizer.seed}/namespace/${this.participantName}`);
    this.participantId = pinned ? `${pinned[0]}::${this.namespace}` : `${this.participantName}::${this.namespace}`;
    this.participantMember = `PAR::${this.participantId}`;
    this.synchronizerId = synchronizer.id;
    this.synchronizerAlias = synchronizer.alias;
    this.listMaxElements = opts.listMaxElements ?? 200;

    const name = this.participantName;
    this.parties = new PartyStore({
      ids: this.ids,
      namespace: this.namespace,
      onHosted: (party, permission) => this.synchronizer.host(party, this.participantId, permission),
      onWrite: (record) => this.synchronizer.journal?.record({ kind: 'party', participant: name, record }),
    });
    this.users = new UserStore({
      parties: this.parties,
      onChange: (id) => this.synchronizer.journal?.record({ kind: 'user', participant: name, id, user: this.users.savedEntry(id) }),
    });
    this.contracts = new ContractStore();
    this.updates = new UpdateLog();
    this.commands = new CommandService(this);
    this.interactive = new InteractiveSubmissionService(this);
    this.automations = new EngineAutomations<LedgerEngine>(this);
    synchronizer.connect(this);
  }

  /** Whether this participant hosts `party`. */
  hosts(party: string): boolean {
    return this.parties.isLocal(party);
  }

  /**
   * The parties a party-wildcard read covers: those this participant hosts. Undefined when the
   * synchronizer has no other participant, so that every known party counts (the single-node
   * behaviour, with no per-event check).
   */
  hostedFilter(): ((party: string) => boolean) | undefined {
    return this.synchronizer.isMultiParticipant ? this.isHosted : undefined;
  }
  private readonly isHosted = (party: string): boolean => this.parties.isLocal(party);

  /** The permission with which this participant hosts `party`, if it does. */
  hostingPermission(party: string): HostingPermission | undefined {
    return this.synchronizer.permissionOf(party, this.participantId);
  }

  learnParty(party: string): void {
    this.parties.addRemote(party);
  }

  runAutomations(): void {
    this.automations.run();
  }

  storedContract(contractId: string): ContractRecord | undefined {
    return this.contracts.get(contractId);
  }

  /** A transaction committed on another participant of the synchronizer, at this participant's next offset. */
  receive(tx: TransactionRecord, consumed: ReadonlySet<string>, submittingParticipant: string): void {
    const offset = this.updates.end() + 1;
    const hostsStakeholder = (c: ContractRecord) => stakeholdersOf(c).some((p) => this.parties.isLocal(p));
    const copy = receivedCopy(tx, offset, submittingParticipant, hostsStakeholder);
    for (const c of copy.stored) this.contracts.add(c);
    for (const cid of consumed) this.contracts.archive(cid, offset);
    this.updates.append(copy.tx);
  }

  /**
   * The ledger end as the engine's own logic sees it: offset of the last update committed in
   * memory, 0 on an empty ledger. With durable state it can be ahead of `readableEnd()` until
   * the journal's sync.
   */
  ledgerEnd(): number {
    return this.updates.end();
  }

  /** The ledger end the API reports and streams run to: the last published (with STATE_DIR: synced) update. */
  readableEnd(): number {
    return this.updates.publishedEnd();
  }
}
