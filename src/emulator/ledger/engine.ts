/**
 * The emulated ledger node: one deterministic state machine holding parties, users, packages,
 * templates, contracts and the transaction log of one participant connected to one synchronizer.
 *
 * All sources of nondeterminism come in as options (clock, id seed), so two engines built with
 * the same options and fed the same commands produce byte-identical ledgers.
 */
import { systemClock, type Clock } from '../../canton/clock.js';
import { IdGenerator, stableFingerprint } from '../shared/ids.js';
import { ContractStore } from './contracts.js';
import { PackageStore } from './packages.js';
import { PartyStore } from './parties.js';
import { TemplateRegistry } from './templates.js';
import { UpdateLog } from './updates.js';
import { UserStore } from './users.js';
import { CommandService } from './commands.js';
import { EngineAutomations } from './automations.js';
import { ExternalPartyStore } from './external-parties.js';
import { InteractiveSubmissionService } from './interactive/service.js';
import { SequencerTraffic } from './traffic.js';

export interface LedgerEngineOptions {
  clock?: Clock;
  /** Seed of all generated ids. */
  seed?: string;
  /** Participant name, the part before `::` of the participant id (Canton: `participant1`). */
  participantName?: string;
  synchronizerAlias?: string;
  /** Synchronizer id name part (`global-domain` on Splice networks). */
  synchronizerName?: string;
  /** Server limit on list endpoints (`http-list-max-elements-limit`, default 200). */
  listMaxElements?: number;
}

export class LedgerEngine {
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

  readonly packages = new PackageStore();
  /** Declared templates read their payload types from the uploaded packages. */
  readonly templates = new TemplateRegistry({ packages: this.packages });
  readonly parties: PartyStore;
  /** Signing keys and thresholds of the external parties this participant hosts. */
  readonly externalParties = new ExternalPartyStore();
  readonly users: UserStore;
  readonly contracts: ContractStore;
  readonly updates: UpdateLog;
  readonly commands: CommandService;
  /** Prepare / execute of externally signed transactions. */
  readonly interactive: InteractiveSubmissionService;
  /** Background automation run lazily before each submission (automations.ts). */
  readonly automations: EngineAutomations;
  /** The synchronizer's traffic control, metering this participant's requests (off until parameters are set). */
  readonly traffic = new SequencerTraffic();

  constructor(opts: LedgerEngineOptions = {}) {
    this.clock = opts.clock ?? systemClock;
    const seed = opts.seed ?? 'token-registry';
    this.ids = new IdGenerator(seed);
    this.participantName = opts.participantName ?? 'participant1';
    this.namespace = stableFingerprint(`${seed}/namespace/${this.participantName}`);
    this.participantId = `${this.participantName}::${this.namespace}`;
    this.participantMember = `PAR::${this.participantId}`;
    const syncName = opts.synchronizerName ?? 'global-domain';
    this.synchronizerId = `${syncName}::${stableFingerprint(`${seed}/synchronizer/${syncName}`)}`;
    this.synchronizerAlias = opts.synchronizerAlias ?? 'global';
    this.listMaxElements = opts.listMaxElements ?? 200;

    this.parties = new PartyStore({ ids: this.ids, namespace: this.namespace });
    this.users = new UserStore({ parties: this.parties });
    this.contracts = new ContractStore();
    this.updates = new UpdateLog();
    this.commands = new CommandService(this);
    this.interactive = new InteractiveSubmissionService(this);
    this.automations = new EngineAutomations(this);
  }

  /** The ledger end: offset of the last update, 0 on an empty ledger. */
  ledgerEnd(): number {
    return this.updates.end();
  }
}
