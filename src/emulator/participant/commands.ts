/**
 * Command interpretation and commit: the part of a participant that turns a submission into a
 * transaction, with Daml's rules (Daml documentation, "The Ledger Model"):
 *  - authorization: a create needs every signatory among the current authorizers; an exercise
 *    needs its controllers; inside a choice body the authorizers are the controllers plus the
 *    exercised contract's signatories; a fetch needs one stakeholder among them;
 *  - visibility: a contract can be used only if one of the submission's readers (actAs ∪ readAs)
 *    is a stakeholder, or it was passed in `disclosedContracts` (blob checked), or it was created
 *    earlier in the same transaction;
 *  - consuming choices archive before the body runs; using an archived contract fails;
 *  - deduplication on (userId, actAs set, commandId) within the deduplication period;
 *  - atomicity: the transaction is built in a scratch overlay and committed only when every
 *    command succeeded, so a failure leaves no trace.
 */
import { createHash } from 'node:crypto';
import { encodeBlob, decodeBlob } from './blob.js';
import type { Clock } from '../../canton/clock.js';
import type { IdGenerator } from '../shared/ids.js';
import type { ContractStore } from './contracts.js';
import type { PartyStore } from './parties.js';
import type { Synchronizer, SynchronizerMember } from './synchronizer.js';
import type { SequencerTraffic } from './traffic.js';
import type { UpdateLog } from './updates.js';
import { errors, LedgerApiError, type Category } from '../../canton/errors.js';
import { NumericSyntaxError } from '../../canton/lf-value.js';
import { formatIdRef, resolveRef, unknownTemplateError, type IdRef, parseIdRef } from './identifiers.js';
import { ArgumentError, type ChoiceDef, type FetchedContract, type TemplateDef, type TemplateRegistry, type UpdateContext } from './templates.js';
import type { ContractRecord, HostingPermission, LfValue, QualifiedId } from './types.js';
import { formatId, nameKey, stakeholdersOf } from './types.js';
import type { CommittedTransaction, CreateNode, ExerciseNode, TransactionRecord, TxNode } from './updates.js';
export type { CommittedTransaction } from './updates.js';
import { unexpectedFieldsIn, type NativeValueType } from '../lf-value/native-type.js';
import { LfValueError } from '../lf-value/json-codec.js';
import { damlErrorToLedger, internalEvaluationError, isDamlError } from '../daml-lf/ledger-errors.js';
import { LfJsonError } from '../lf-value/runtime-json-codec.js';

export type EngineCommand =
  | { kind: 'create'; template: IdRef; createArguments: LfValue }
  | { kind: 'exercise'; template: IdRef; contractId: string; choice: string; choiceArgument: LfValue }
  | { kind: 'createAndExercise'; template: IdRef; createArguments: LfValue; choice: string; choiceArgument: LfValue }
  | { kind: 'exerciseByKey'; template: IdRef; contractKey: LfValue; choice: string; choiceArgument: LfValue };

export interface DisclosedInput {
  templateId?: string;
  contractId?: string;
  createdEventBlob: string;
  synchronizerId?: string;
}

export type Deduplication = { kind: 'duration'; micros: bigint } | { kind: 'offset'; offset: number };

export interface Submission {
  userId: string;
  actAs: string[];
  readAs: string[];
  commandId: string;
  workflowId: string;
  submissionId: string;
  commands: EngineCommand[];
  disclosedContracts: DisclosedInput[];
  deduplication?: Deduplication;
}

/** Canton's default `max-deduplication-duration` (participant config): 7 days. */
export const MAX_DEDUPLICATION_MICROS = 7n * 24n * 3600n * 1_000_000n;

/** Failure raised by Daml code (`fail`, `assertMsg`, `failWithStatus`, a failed `ensure`). */
export class DamlFailure extends Error {
  constructor(
    message: string,
    readonly errorId = 'UNHANDLED_EXCEPTION/DA.Exception.AssertionFailed:AssertionFailed',
    readonly category: Category = 9,
    /** `failWithStatus` metadata: reported in the error's context, next to `error_id`. */
    readonly metadata: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** A committed change id's completion, for deduplication. */
export interface Completion {
  offset: number;
  submissionId: string;
  recordTimeMicros: bigint;
}

/**
 * What the command service uses of its participant: engine.ts's `LedgerEngine` implements it.
 * Declared here so the service depends on the stores it uses, not on the engine that builds it.
 */
export interface CommandEngine extends SynchronizerMember {
  readonly synchronizer: Synchronizer;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly parties: PartyStore;
  readonly contracts: ContractStore;
  readonly updates: UpdateLog;
  readonly templates: TemplateRegistry;
  readonly traffic: SequencerTraffic;
  readonly participantName: string;
  /** The participant as a sequencer member (`PAR::<uid>`). */
  readonly participantMember: string;
  readonly synchronizerId: string;
  hostingPermission(party: string): HostingPermission | undefined;
}

export class CommandService {
  private readonly dedup = new Map<string, Completion>();
  constructor(private readonly engine: CommandEngine) {}

  /** Interprets and commits a submission; returns the committed transaction or throws. */
  submit(s: Submission): TransactionRecord {
    // A duplicate is refused before interpretation, as the submission service does.
    this.checkDeduplication(s.userId, s.actAs, s.commandId, s.deduplication, this.engine.clock.nowMicros());
    this.requireSubmissionRights(s.actAs);
    const interpretation = this.interpret(s);
    return this.commit(interpretation, { submissionId: s.submissionId, deduplication: s.deduplication });
  }

  /**
   * Interprets a submission without changing the ledger (the prepare step of an interactive
   * submission, and the first half of `submit`): checks the submitters, runs the commands, and
   * returns what committing would write. Deduplication is the committer's business.
   */
  interpret(s: Submission, ledgerTimeMicros?: bigint): Interpretation {
    const engine = this.engine;
    // Background automation first (automations.ts): the command sees what it would have left,
    // on every participant of the synchronizer.
    engine.synchronizer.runAutomations();
    const now = ledgerTimeMicros ?? engine.clock.nowMicros();
    for (const p of s.actAs) {
      if (!engine.parties.has(p)) {
        throw new LedgerApiError('SUBMITTING_PARTY_NOT_KNOWN_ON_LEDGER', `Party not known on ledger: Submitting party '${p}' not known`, {
          resources: [['PARTY', p]],
        });
      }
    }
    const builder = new TransactionBuilder(engine, s, now);
    for (const cmd of s.commands) {
      try {
        builder.run(cmd);
      } catch (e) {
        // Daml-LF evaluation errors (templates of the 'daml' kind) travel up unmapped, so that an
        // enclosing Daml `try` can catch an exception; the command reports what reaches it.
        if (isDamlError(e)) throw damlErrorToLedger(e);
        if (e instanceof LfJsonError) throw internalEvaluationError(e);
        throw e;
      }
    }
    return builder.result();
  }

  /**
   * Commits an interpretation at the next offset, after checking that it still applies: no
   * duplicate of its change id, every contract it used still active, no contract key it creates
   * taken meanwhile. `submissionId`/`deduplication` are those of the committing request.
   */
  commit(i: Interpretation, opts: { submissionId: string; deduplication?: Deduplication; externalTransactionHash?: string }): TransactionRecord {
    const engine = this.engine;
    const now = engine.clock.nowMicros();
    const s = i.submission;
    this.checkDeduplication(s.userId, s.actAs, s.commandId, opts.deduplication, now);
    // Activeness is the synchronizer's: an input read from another participant (disclosed) counts too.
    const inactive = [...i.inputs.keys()].filter((cid) => {
      const c = engine.synchronizer.storedContract(cid, engine);
      return c === undefined || c.archivedOffset !== undefined;
    });
    if (inactive.length > 0) {
      throw new LedgerApiError('LOCAL_VERDICT_INACTIVE_CONTRACTS', `Rejected transaction is referring to inactive contracts ${inactive.join(', ')}`, {
        resources: inactive.map((cid) => ['CONTRACT_ID', cid] as [string, string]),
        definiteAnswer: true,
      });
    }
    for (const c of i.created.values()) {
      const holder = c.key && engine.contracts.activeByKeyHash(c.key.hash);
      if (c.key && holder && !i.consumed.has(holder.contractId)) {
        throw new LedgerApiError('DUPLICATE_CONTRACT_KEY', `Interpretation error: Error: Contract key is not unique (template ${formatId(c.templateId)})`, {
          resources: [['TEMPLATE_ID', formatId(c.templateId)]],
        });
      }
    }
    const offset = engine.updates.end() + 1;
    const witnesses = new Set<string>();
    for (const n of i.nodes) for (const w of n.witnesses) witnesses.add(w);
    const tx: TransactionRecord = {
      updateId: i.updateId,
      offset,
      commandId: s.commandId,
      workflowId: s.workflowId,
      userId: s.userId,
      actAs: s.actAs,
      submissionId: opts.submissionId,
      effectiveAtMicros: i.ledgerTimeMicros,
      recordTimeMicros: now,
      synchronizerId: engine.synchronizerId,
      nodes: i.nodes,
      witnesses,
    };
    if (opts.externalTransactionHash !== undefined) tx.externalTransactionHash = opts.externalTransactionHash;
    // The confirmation request is sequenced: this participant pays its traffic.
    const traffic = engine.traffic;
    const recipients = BigInt(engine.synchronizer.recipientsOf(witnesses));
    const eventCost = traffic.eventCost(traffic.requestSize(i.nodes, i.inputs.values(), i.created.values()), recipients);
    const committed: CommittedTransaction = {
      tx,
      created: [...i.created.values()],
      consumed: [...i.consumed],
      changeKey: changeKeyOf(s.userId, s.actAs, s.commandId),
      eventCost,
    };
    // Journaled before it is applied: a journal that refuses it (the disk cannot be written)
    // leaves nothing of it behind. Replay recomputes what applying adds to the records.
    engine.synchronizer.journal?.record({ kind: 'commit', participant: engine.participantName, commit: committed });
    this.apply(committed);
    return tx;
  }

  /**
   * The effects of a committed transaction, with nothing left to check: its traffic, contracts,
   * update, delivery to the other participants and deduplication entry. Durable state's restore
   * replays journaled commits through here.
   */
  apply(c: CommittedTransaction): void {
    const engine = this.engine;
    const { tx } = c;
    const offset = tx.offset;
    const cost = engine.traffic.consume(engine.participantMember, c.eventCost, tx.recordTimeMicros);
    if (cost !== undefined) tx.paidTrafficCost = cost;
    const consumed = new Set(c.consumed);
    const created = new Set(c.created.map((r) => r.contractId));
    for (const n of tx.nodes) if (n.kind === 'create') n.transient = consumed.has(n.contract.contractId);
    for (const r of c.created) {
      r.createdOffset = offset;
      if (consumed.has(r.contractId)) r.archivedOffset = offset;
      engine.contracts.add(r);
    }
    for (const cid of consumed) if (!created.has(cid)) engine.contracts.archive(cid, offset);
    engine.updates.append(tx);
    engine.synchronizer.publish(engine.participantId, tx, consumed);
    this.dedup.set(c.changeKey, { offset, submissionId: tx.submissionId, recordTimeMicros: tx.recordTimeMicros });
  }

  /**
   * A classic submission needs this participant to host every actAs party with submission
   * permission (Canton's routing, `AdmissibleSynchronizersComputation`): a party hosted elsewhere,
   * or here only to confirm or observe (an external party), cannot submit through this node.
   */
  private requireSubmissionRights(actAs: readonly string[]): void {
    const engine = this.engine;
    const notAllowed = actAs.filter((p) => engine.parties.has(p) && engine.hostingPermission(p) !== 'Submission' && engine.synchronizer.hostingOf(p) !== undefined);
    if (notAllowed.length === 0) return;
    const cause =
      notAllowed.length === 1
        ? 'This participant cannot submit as the given submitter on any connected synchronizer'
        : 'Not connected to a synchronizer on which this participant can submit for all submitters';
    throw new LedgerApiError('NO_SYNCHRONIZER_ON_WHICH_ALL_SUBMITTERS_CAN_SUBMIT', cause, {
      context: notAllowed.length === 1 ? { unknownSubmitter: notAllowed[0]! } : { unknownSubmitters: `List(${notAllowed.join(', ')})` },
    });
  }

  /** The deduplication entries (durable state's snapshot). */
  savedDeduplication(): Array<[string, Completion]> {
    return [...this.dedup].map(([k, v]) => [k, { ...v }]);
  }
  /** Replaces the deduplication entries with saved ones. */
  restoreDeduplication(entries: ReadonlyArray<[string, Completion]>): void {
    this.dedup.clear();
    for (const [k, v] of entries) this.dedup.set(k, { ...v });
  }

  private checkDeduplication(userId: string, actAs: readonly string[], commandId: string, d: Deduplication | undefined, now: bigint): void {
    const previous = this.dedup.get(changeKeyOf(userId, actAs, commandId));
    if (previous && this.isDuplicate(previous, d, now)) {
      throw new LedgerApiError('DUPLICATE_COMMAND', 'A command with the given command id has already been successfully processed', {
        context: { existing_submission_id: previous.submissionId, completion_offset: String(previous.offset) },
        resources: [['COMMAND_ID', commandId]],
        definiteAnswer: false,
      });
    }
  }

  private isDuplicate(prev: Completion, d: Deduplication | undefined, now: bigint): boolean {
    if (d?.kind === 'offset') return prev.offset > d.offset;
    const window = d?.kind === 'duration' ? d.micros : MAX_DEDUPLICATION_MICROS;
    return now - prev.recordTimeMicros < window;
  }
}


/**
 * What interpreting a submission produced, not yet on the ledger: the nodes with their
 * contracts, what they consume, the contracts they read from the store (`inputs`, in first-use
 * order), and the action tree with fetches (what a prepared transaction shows).
 */
export interface Interpretation {
  submission: Submission;
  updateId: string;
  ledgerTimeMicros: bigint;
  nodes: TxNode[];
  created: ReadonlyMap<string, ContractRecord>;
  consumed: ReadonlySet<string>;
  inputs: ReadonlyMap<string, ContractRecord>;
  roots: ActionNode[];
}

/** One action of the transaction tree; fetches are actions too (Daml's Node.Fetch), though they make no event. */
export type ActionNode =
  | { kind: 'create'; node: CreateNode }
  | { kind: 'exercise'; node: ExerciseNode; choiceObservers: string[]; children: ActionNode[] }
  | { kind: 'fetch'; contract: ContractRecord; actingParties: string[]; interfaceId?: QualifiedId };

function changeKeyOf(userId: string, actAs: readonly string[], commandId: string): string {
  return `${userId}\u0000${[...new Set(actAs)].sort().join(',')}\u0000${commandId}`;
}

/** Builds one transaction in a scratch overlay; nothing touches the stores (see `CommandService.commit`). */
class TransactionBuilder {
  private readonly nodes: TxNode[] = [];
  private readonly created = new Map<string, ContractRecord>();
  private consumed = new Set<string>();
  private keys = new Map<string, string | null>(); // key hash → cid (null: archived in tx)
  private readonly readers: ReadonlySet<string>;
  private readonly disclosed = new Map<string, ContractRecord>();
  private readonly inputs = new Map<string, ContractRecord>();
  private readonly roots: ActionNode[] = [];
  /** The children list new actions go to (the innermost running exercise's, else the roots). */
  private siblings: ActionNode[] = this.roots;
  private readonly updateId: string;

  constructor(
    private readonly engine: CommandEngine,
    private readonly s: Submission,
    private readonly now: bigint,
  ) {
    this.readers = new Set([...s.actAs, ...s.readAs]);
    this.updateId = engine.ids.updateId();
    for (const d of s.disclosedContracts) this.addDisclosed(d);
  }

  run(cmd: EngineCommand): void {
    const actAs = new Set(this.s.actAs);
    switch (cmd.kind) {
      case 'create': {
        const def = this.templateOf(cmd.template);
        this.create(def, cmd.createArguments, actAs, []);
        return;
      }
      case 'exercise':
        this.exerciseRef(cmd.template, cmd.contractId, cmd.choice, cmd.choiceArgument, actAs, []);
        return;
      case 'createAndExercise': {
        const def = this.templateOf(cmd.template);
        const cid = this.create(def, cmd.createArguments, actAs, []);
        this.exercise(cid, cmd.choice, cmd.choiceArgument, actAs, [], undefined);
        return;
      }
      case 'exerciseByKey': {
        const def = this.templateOf(cmd.template);
        if (!def.key) throw new LedgerApiError('COMMAND_PREPROCESSING_FAILED', `Template ${formatIdRef(cmd.template)} does not have a key`);
        const hash = keyHash(def.id, cmd.contractKey);
        const cid = this.keys.has(hash) ? this.keys.get(hash) : this.engine.contracts.activeByKeyHash(hash)?.contractId;
        // A key the readers cannot see is reported as not found, like a missing one (no leak).
        const c = cid ? (this.created.get(cid) ?? this.engine.contracts.getActive(cid)) : undefined;
        if (!c || !stakeholdersOf(c).some((p) => this.readers.has(p))) {
          throw new LedgerApiError('CONTRACT_KEY_NOT_FOUND', `Contract could not be found with key ${JSON.stringify(cmd.contractKey)}`, {
            resources: [['TEMPLATE_ID', formatId(def.id)], ['CONTRACT_KEY', JSON.stringify(cmd.contractKey)]],
          });
        }
        this.exercise(c.contractId, cmd.choice, cmd.choiceArgument, actAs, [], undefined);
        return;
      }
    }
  }

  result(): Interpretation {
    return {
      submission: this.s,
      updateId: this.updateId,
      ledgerTimeMicros: this.now,
      nodes: this.nodes,
      created: this.created,
      consumed: this.consumed,
      inputs: this.inputs,
      roots: this.roots,
    };
  }

  // ---- actions --------------------------------------------------------------------------------

  private templateOf(ref: IdRef): TemplateDef {
    const r = resolveRef(ref, this.engine.templates);
    if (!r || r.kind !== 'template') throw unknownTemplateError(ref, this.engine.templates);
    return r.def;
  }

  private create(def: TemplateDef, rawPayload: LfValue, authorizers: ReadonlySet<string>, ancestors: readonly Set<string>[]): string {
    // a command's own argument (no ancestors), as Canton's preprocessing reads it; the templates'
    // own creates are their business
    if (def.payloadType && ancestors.length === 0) rejectUnexpectedFields(def.payloadType, rawPayload);
    const payload = this.parse(() => (def.parsePayload ? def.parsePayload(rawPayload) : rawPayload));
    const signatories = dedupe(this.parse(() => def.signatories(payload)));
    const observers = dedupe(this.parse(() => def.observers(payload))).filter((p) => !signatories.includes(p));
    const failed = def.ensure?.(payload);
    if (failed !== undefined) {
      throw damlFailureError(
        new DamlFailure(`Template precondition violated: ${failed}`, 'UNHANDLED_EXCEPTION/DA.Exception.PreconditionFailed:PreconditionFailed'),
      );
    }
    const nodeId = this.nodes.length;
    const missing = signatories.filter((p) => !authorizers.has(p));
    if (missing.length > 0 || signatories.length === 0) {
      throw authorizationError(nodeId, def.id, signatories, authorizers);
    }
    const unknown = [...signatories, ...observers].filter((p) => !this.engine.parties.has(p));
    if (unknown.length > 0) {
      throw new LedgerApiError('PARTY_NOT_KNOWN_ON_LEDGER', `Parties not known on ledger: ${JSON.stringify(unknown)}`, {
        resources: unknown.map((p) => ['PARTY', p] as [string, string]),
      });
    }
    let key: ContractRecord['key'];
    if (def.key) {
      const value = def.key.of(payload);
      const maintainers = dedupe(def.key.maintainers(value));
      const hash = keyHash(def.id, value);
      const existing = this.keys.has(hash) ? this.keys.get(hash) : this.engine.contracts.activeByKeyHash(hash)?.contractId;
      if (existing) {
        throw new LedgerApiError('DUPLICATE_CONTRACT_KEY', `Interpretation error: Error: Contract key is not unique (template ${formatId(def.id)})`, {
          resources: [['TEMPLATE_ID', formatId(def.id)]],
        });
      }
      key = { value, maintainers, hash };
      this.keys.set(hash, '');
    }
    const contractId = this.engine.ids.contractId();
    const base = {
      contractId,
      templateId: def.id,
      payload,
      signatories,
      observers,
      key,
      createdAtMicros: this.now,
      // set when the transaction is committed
      createdOffset: -1,
      createdNodeId: nodeId,
      createdUpdateId: this.updateId,
      synchronizerId: this.engine.synchronizerId,
    };
    const contract: ContractRecord = { ...base, blob: encodeBlob(base) };
    if (key) this.keys.set(key.hash, contractId);
    const informees = new Set([...signatories, ...observers]);
    const node: CreateNode = { kind: 'create', nodeId, contract, witnesses: unionAll(ancestors, informees), transient: false };
    this.nodes.push(node);
    this.siblings.push({ kind: 'create', node });
    this.created.set(contractId, contract);
    return contractId;
  }

  private exerciseRef(ref: IdRef, cid: string, choice: string, arg: LfValue, authorizers: ReadonlySet<string>, ancestors: readonly Set<string>[]): LfValue {
    const r = resolveRef(ref, this.engine.templates);
    if (!r) throw unknownTemplateError(ref, this.engine.templates);
    const c = this.lookup(cid);
    if (r.kind === 'template' && nameKey(r.def.id) !== nameKey(c.templateId)) {
      throw new LedgerApiError(
        'DAML_INTERPRETATION_ERROR',
        `Interpretation error: Error: Contract ${cid} was expected to be of template ${formatId(r.def.id)} but is of template ${formatId(c.templateId)}`,
        { resources: [['CONTRACT_ID', cid]] },
      );
    }
    return this.exercise(cid, choice, arg, authorizers, ancestors, r.kind === 'interface' ? r.def.id : undefined);
  }

  private exercise(
    cid: string,
    choiceName: string,
    rawArg: LfValue,
    authorizers: ReadonlySet<string>,
    ancestors: readonly Set<string>[],
    interfaceId: QualifiedId | undefined,
  ): LfValue {
    const c = this.lookup(cid);
    const def = this.engine.templates.templateById(c.templateId);
    if (!def) throw errors.internal(`no implementation for template ${formatId(c.templateId)}`);
    let choice: ChoiceDef | undefined;
    if (interfaceId) {
      const impl = def.implements.find((i) => nameKey(i.interface.id) === nameKey(interfaceId));
      if (!impl) {
        throw new LedgerApiError(
          'DAML_INTERPRETATION_ERROR',
          `Interpretation error: Error: Contract ${cid} of template ${formatId(c.templateId)} does not implement interface ${formatId(interfaceId)}`,
          { resources: [['CONTRACT_ID', cid]] },
        );
      }
      choice = impl.choices[choiceName];
    } else {
      choice = def.choices[choiceName];
    }
    if (!choice) {
      const owner = interfaceId ? formatId(interfaceId) : formatId(c.templateId);
      throw new LedgerApiError('COMMAND_PREPROCESSING_FAILED', `Couldn't find choice ${choiceName} of ${owner}`, {
        resources: [['TEMPLATE_ID', owner]],
      });
    }
    if (choice.argumentType && ancestors.length === 0) rejectUnexpectedFields(choice.argumentType, rawArg ?? {});
    const arg = this.parse(() => (choice.parseArgument ? choice.parseArgument(rawArg ?? {}) : (rawArg ?? {})));
    const controllers = dedupe(this.parse(() => choice.controllers(c.payload, arg)));
    const nodeId = this.nodes.length;
    if (controllers.length === 0 || controllers.some((p) => !authorizers.has(p))) {
      throw authorizationError(nodeId, c.templateId, controllers, authorizers);
    }
    const choiceObservers = dedupe(choice.observers?.(c.payload, arg) ?? []);
    const stakeholders = stakeholdersOf(c);
    const informees = new Set([...(choice.consuming ? stakeholders : c.signatories), ...controllers, ...choiceObservers]);
    const witnesses = unionAll(ancestors, informees);
    const node: ExerciseNode = {
      kind: 'exercise',
      nodeId,
      contractId: cid,
      templateId: c.templateId,
      interfaceId,
      choice: choiceName,
      choiceArgument: arg,
      actingParties: controllers,
      consuming: choice.consuming,
      exerciseResult: null,
      lastDescendantNodeId: nodeId,
      stakeholders,
      witnesses,
      onTransient: this.created.has(cid),
      implementedInterfaces: def.implements.map((i) => i.interface.id),
    };
    this.nodes.push(node);
    const action: ActionNode = { kind: 'exercise', node, choiceObservers, children: [] };
    this.siblings.push(action);
    if (choice.consuming) {
      this.consumed.add(cid);
      if (c.key) this.keys.set(c.key.hash, null);
    }
    const bodyAuthorizers = new Set([...controllers, ...c.signatories]);
    const ctx = this.context(bodyAuthorizers, [...ancestors, informees]);
    let result: LfValue;
    const outer = this.siblings;
    this.siblings = action.children;
    try {
      result = choice.body(ctx, { contractId: cid, payload: c.payload }, arg);
    } catch (e) {
      throw this.asLedgerError(e);
    } finally {
      this.siblings = outer;
    }
    node.exerciseResult = result ?? {};
    node.lastDescendantNodeId = this.nodes.length - 1;
    return node.exerciseResult;
  }

  private fetch(cid: string, expected: QualifiedId | string | undefined, authorizers: ReadonlySet<string>): FetchedContract {
    const c = this.lookup(cid);
    if (!stakeholdersOf(c).some((p) => authorizers.has(p))) {
      throw new LedgerApiError(
        'DAML_AUTHORIZATION_ERROR',
        `Interpretation error: Error: node NodeId(${this.nodes.length}) (${formatId(c.templateId)}) requires one of the stakeholders ${stakeholdersOf(c).join(', ')} of the fetched contract to be an authorizer, but authorizers were ${[...authorizers].join(', ')}`,
      );
    }
    const def = this.engine.templates.templateById(c.templateId);
    if (expected !== undefined) {
      const want = typeof expected === 'string' ? this.resolveText(expected) : expected;
      const ok =
        nameKey(want) === nameKey(c.templateId) || (def?.implements.some((i) => nameKey(i.interface.id) === nameKey(want)) ?? false);
      if (!ok) {
        throw new LedgerApiError(
          'DAML_INTERPRETATION_ERROR',
          `Interpretation error: Error: Contract ${cid} was expected to be of ${formatId(want)} but is of template ${formatId(c.templateId)}`,
          { resources: [['CONTRACT_ID', cid]] },
        );
      }
    }
    const acting = stakeholdersOf(c).filter((p) => authorizers.has(p));
    const interfaceId = expected !== undefined && typeof expected !== 'string' && nameKey(expected) !== nameKey(c.templateId) ? expected : undefined;
    this.siblings.push(interfaceId ? { kind: 'fetch', contract: c, actingParties: acting, interfaceId } : { kind: 'fetch', contract: c, actingParties: acting });
    return {
      contractId: c.contractId,
      templateId: c.templateId,
      payload: c.payload,
      signatories: c.signatories,
      observers: c.observers,
      interfaceView: (iface) => def?.implements.find((i) => nameKey(i.interface.id) === nameKey(iface))?.view(c.payload),
    };
  }

  private context(authorizers: ReadonlySet<string>, ancestors: readonly Set<string>[]): UpdateContext {
    return {
      nowMicros: this.now,
      authorizers,
      create: (templateId, payload) => {
        const def = typeof templateId === 'string' ? this.templateOf(this.refOf(templateId)) : this.engine.templates.templateById(templateId);
        if (!def) throw errors.internal(`no implementation for template ${formatId(templateId as QualifiedId)}`);
        return this.create(def, payload, authorizers, ancestors);
      },
      exercise: (cid, choice, argument, opts) => {
        const iface = opts?.interfaceId;
        const interfaceId = iface === undefined ? undefined : typeof iface === 'string' ? this.resolveText(iface) : iface;
        const tmpl = opts?.templateId;
        if (tmpl !== undefined && interfaceId === undefined) {
          // Daml's `exercise` on a template: the contract must be of that template (any version).
          const want = typeof tmpl === 'string' ? this.resolveText(tmpl) : tmpl;
          const c = this.lookup(cid);
          if (nameKey(want) !== nameKey(c.templateId)) {
            throw new LedgerApiError(
              'DAML_INTERPRETATION_ERROR',
              `Interpretation error: Error: Contract ${cid} was expected to be of template ${formatId(want)} but is of template ${formatId(c.templateId)}`,
              { resources: [['CONTRACT_ID', cid]] },
            );
          }
        }
        return this.exercise(cid, choice, argument, authorizers, ancestors, interfaceId);
      },
      fetch: (cid, expected) => this.fetch(cid, expected, authorizers),
      rollbackScope: (body) => this.rollbackScope(body),
      fail: (message, opts) => {
        throw new DamlFailure(message, opts?.errorId, opts?.category, opts?.metadata);
      },
    };
  }

  /**
   * Daml's `try` (LF `TryCatch`): when `body` throws, everything it did to the transaction is
   * undone (nodes, created and consumed contracts, keys) and the error rethrown for the catch
   * handler. Canton keeps the undone actions under a rollback node; the JSON Ledger API's
   * transactions never show rollback nodes or what is under them, so dropping them yields the
   * same transactions. Contracts the scope read stay inputs of the transaction.
   */
  private rollbackScope<T>(body: () => T): T {
    const nodes = this.nodes.length;
    const siblings = this.siblings;
    const siblingCount = siblings.length;
    const created = new Set(this.created.keys());
    const consumed = new Set(this.consumed);
    const keys = new Map(this.keys);
    try {
      return body();
    } catch (e) {
      this.nodes.length = nodes;
      siblings.length = siblingCount;
      this.siblings = siblings;
      for (const cid of [...this.created.keys()]) if (!created.has(cid)) this.created.delete(cid);
      this.consumed = consumed;
      this.keys = keys;
      throw e;
    }
  }

  // ---- contract lookup with visibility ----------------------------------------------------

  private lookup(cid: string): ContractRecord {
    if (this.consumed.has(cid)) {
      throw new LedgerApiError('CONTRACT_NOT_ACTIVE', `Interpretation error: Error: Update failed due to fetch of an inactive contract ${cid}`, {
        resources: [['CONTRACT_ID', cid]],
      });
    }
    const local = this.created.get(cid);
    if (local) return local;
    const disclosed = this.disclosed.get(cid);
    const c = this.engine.contracts.getActive(cid) ?? (disclosed?.archivedOffset === undefined ? disclosed : undefined);
    if (!c) throw errors.contractNotFound(cid);
    if (!this.disclosed.has(cid) && !stakeholdersOf(c).some((p) => this.readers.has(p))) throw errors.contractNotFound(cid);
    if (!this.inputs.has(cid)) this.inputs.set(cid, c);
    return c;
  }

  /**
   * A disclosed contract must carry a blob that the participant can authenticate: ours must
   * decode, name the same contract as the other fields, and equal the blob of that contract.
   * An archived disclosed contract is simply unusable (CONTRACT_NOT_FOUND at use).
   */
  private addDisclosed(d: DisclosedInput): void {
    const decoded = decodeBlob(d.createdEventBlob);
    if (!decoded) {
      throw errors.invalidArgument('Unable to decode disclosed contract event payload: the createdEventBlob is not a valid contract blob');
    }
    if (d.contractId && d.contractId !== '' && d.contractId !== decoded.contractId) {
      throw errors.invalidArgument(
        `Mismatch between DisclosedContract.contract_id (${d.contractId}) and contract_id from decoded DisclosedContract.created_event_blob (${decoded.contractId})`,
      );
    }
    if (d.templateId && d.templateId !== '') {
      const ref = parseIdRef(d.templateId);
      const r = ref && resolveRef(ref, this.engine.templates);
      const stored = this.engine.synchronizer.storedContract(decoded.contractId, this.engine);
      if (!r || (stored && nameKey(r.def.id) !== nameKey(stored.templateId))) {
        throw errors.invalidArgument(
          `Mismatch between DisclosedContract.template_id (${d.templateId}) and template_id from decoded DisclosedContract.created_event_blob (${decoded.templateId})`,
        );
      }
    }
    if (d.synchronizerId && d.synchronizerId !== '' && d.synchronizerId !== this.engine.synchronizerId) {
      throw errors.invalidArgument(`Disclosed contract ${decoded.contractId} is assigned to an unknown synchronizer ${d.synchronizerId}`);
    }
    // The contract as the synchronizer knows it: a participant authenticates a disclosed contract
    // whether or not it stores it (Canton: the contract id's authentication).
    const stored = this.engine.synchronizer.storedContract(decoded.contractId, this.engine);
    if (stored && stored.blob !== d.createdEventBlob) {
      throw errors.invalidArgument(`Disclosed contract ${decoded.contractId} failed authentication: its createdEventBlob does not match the contract`);
    }
    if (stored) this.disclosed.set(stored.contractId, stored);
  }

  // ---- helpers --------------------------------------------------------------------------------

  private refOf(text: string): IdRef {
    const ref = parseIdRef(text);
    if (!ref) throw errors.internal(`bad template id in template code: ${text}`);
    return ref;
  }
  private resolveText(text: string): QualifiedId {
    const ref = this.refOf(text);
    const r = resolveRef(ref, this.engine.templates);
    if (!r) throw unknownTemplateError(ref, this.engine.templates);
    return r.def.id;
  }

  private parse<T>(f: () => T): T {
    try {
      return f();
    } catch (e) {
      throw this.asLedgerError(e);
    }
  }

  private asLedgerError(e: unknown): Error {
    if (e instanceof LedgerApiError) return e;
    if (e instanceof DamlFailure) return damlFailureError(e);
    // A Numeric text the Ledger API's value validation rejects never reaches the engine (canton/numeric.ts)
    if (e instanceof NumericSyntaxError) return errors.invalidArgument(e.cantonCause);
    if (e instanceof ArgumentError) return new LedgerApiError('COMMAND_PREPROCESSING_FAILED', e.message);
    return e as Error;
  }
}

/** Transcode's unknown-field check for a native template's payload or choice argument (lf-value/native-type.ts). */
function rejectUnexpectedFields(t: NativeValueType, value: unknown): void {
  const unexpected = unexpectedFieldsIn(t, value);
  if (unexpected) throw new LfValueError('unexpected-fields', '', `Unexpected fields: ${unexpected.join(', ')}`);
}

export function damlFailureError(e: DamlFailure): LedgerApiError {
  return new LedgerApiError(
    'DAML_FAILURE',
    `Interpretation error: Error: User failure: ${e.errorId} (error category ${e.category}): ${e.message}`,
    { category: e.category, context: { ...e.metadata, error_id: e.errorId } },
  );
}

function authorizationError(nodeId: number, templateId: QualifiedId, required: string[], authorizers: ReadonlySet<string>): LedgerApiError {
  return new LedgerApiError(
    'DAML_AUTHORIZATION_ERROR',
    `Interpretation error: Error: node NodeId(${nodeId}) (${formatId(templateId)}) requires authorizers ${required.join(',')}, but only ${[...authorizers].join(',')} were given`,
  );
}

export function keyHash(templateId: QualifiedId, key: LfValue): string {
  return createHash('sha256').update(`${nameKey(templateId)}\u0000${JSON.stringify(key)}`).digest('hex');
}

/**
 * A party list as a Daml-LF transaction holds it: a set, in party order (Speedy's
 * `extractParties` builds a TreeSet for signatories, observers, controllers and choice
 * observers), whatever order the template's expression listed them in.
 */
function dedupe(xs: string[]): string[] {
  return [...new Set(xs)].sort();
}

function unionAll(ancestors: readonly Set<string>[], own: Set<string>): Set<string> {
  const out = new Set(own);
  for (const a of ancestors) for (const p of a) out.add(p);
  return out;
}
