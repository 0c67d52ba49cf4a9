/**
 * The `PreparedTransaction` of an interpretation (interactive_submission_service.proto): the
 * action tree as v1 nodes numbered in pre-order (creates, exercises with their children,
 * fetches), a fresh seed for every create and exercise node, and the metadata (submitter,
 * synchronizer, transaction uuid, preparation time, the input contracts with their create data,
 * creation time and blob, the requested ledger/record time bounds). Values are encoded with
 * their LF types where known (lf-value/proto-codec.ts).
 */
import type { ActionNode, Interpretation } from '../commands.js';
import type { IdGenerator } from '../../shared/ids.js';
import type { ContractStore } from '../contracts.js';
import type { PackageStore } from '../packages.js';
import type { TemplateRegistry } from '../templates.js';
import type { ContractRecord, QualifiedId } from '../types.js';
import { nameKey, stakeholdersOf } from '../types.js';
import { inferValue, nativeTypedValue, typedValue } from '../../lf-value/proto-codec.js';
import type { PCreate, PNode, PPreparedTransaction } from './prepared-transaction.js';
import type { PIdentifier, PValue } from '../../lf-value/proto-value.js';

/** The LF version Canton 3.5 writes into transactions and nodes (LF 2.1). */
const LF_VERSION = '2.1';

/** What building a prepared transaction reads of the participant (engine.ts's `LedgerEngine` implements it). */
export interface PreparedBuilderEngine {
  readonly ids: IdGenerator;
  readonly contracts: ContractStore;
  readonly packages: PackageStore;
  readonly templates: TemplateRegistry;
  readonly synchronizerId: string;
}

export class PreparedTransactionBuilder {
  constructor(private readonly engine: PreparedBuilderEngine) {}

  /** The PreparedTransaction of `i`, prepared at `preparationTime` (micros). */
  build(i: Interpretation, preparationTime: bigint, times: { minLedgerTimeMicros?: bigint; maxRecordTimeMicros?: bigint }): PPreparedTransaction {
    const nodes: PNode[] = [];
    const nodeSeeds: Array<{ nodeId: number; seed: Buffer }> = [];
    const contractOf = (cid: string): ContractRecord | undefined => i.created.get(cid) ?? i.inputs.get(cid) ?? this.engine.contracts.get(cid);
    const add = (a: ActionNode): string => {
      const id = nodes.length;
      const nodeId = String(id);
      const slot: PNode = { nodeId, node: { kind: 'rollback', children: [] } };
      nodes.push(slot);
      switch (a.kind) {
        case 'create':
          slot.node = { kind: 'create', create: this.createOf(a.node.contract) };
          nodeSeeds.push({ nodeId: id, seed: this.seed() });
          break;
        case 'exercise': {
          const n = a.node;
          const c = contractOf(n.contractId);
          const seed = this.seed();
          const children = a.children.map(add);
          slot.node = {
            kind: 'exercise',
            exercise: {
              lfVersion: this.lfVersionOf(n.templateId),
              contractId: n.contractId,
              packageName: n.templateId.packageName,
              templateId: pid(n.templateId),
              signatories: c?.signatories ?? [],
              stakeholders: c ? stakeholdersOf(c) : n.stakeholders,
              actingParties: n.actingParties,
              ...(n.interfaceId ? { interfaceId: pid(n.interfaceId) } : {}),
              choiceId: n.choice,
              chosenValue: this.choiceArgumentOf(n.templateId, n.interfaceId, n.choice, n.choiceArgument),
              consuming: n.consuming,
              children,
              exerciseResult: inferValue(n.exerciseResult),
              choiceObservers: a.choiceObservers,
            },
          };
          nodeSeeds.push({ nodeId: id, seed });
          break;
        }
        case 'fetch': {
          const c = a.contract;
          slot.node = {
            kind: 'fetch',
            fetch: {
              lfVersion: this.lfVersionOf(c.templateId),
              contractId: c.contractId,
              packageName: c.templateId.packageName,
              templateId: pid(c.templateId),
              signatories: c.signatories,
              stakeholders: stakeholdersOf(c),
              ...(a.interfaceId ? { interfaceId: pid(a.interfaceId) } : {}),
              actingParties: a.actingParties,
            },
          };
          break;
        }
      }
      return nodeId;
    };
    const roots = i.roots.map(add);
    const s = i.submission;
    const prepared: PPreparedTransaction = {
      transaction: { version: LF_VERSION, roots, nodes, nodeSeeds },
      metadata: {
        actAs: s.actAs,
        commandId: s.commandId,
        synchronizerId: this.engine.synchronizerId,
        mediatorGroup: 0,
        transactionUuid: this.engine.ids.uuid(),
        preparationTime,
        inputContracts: [...i.inputs.values()].map((c) => ({
          create: this.createOf(c),
          createdAt: c.createdAtMicros,
          eventBlob: Buffer.from(c.blob, 'base64'),
        })),
      },
    };
    if (times.minLedgerTimeMicros !== undefined) prepared.metadata.minLedgerEffectiveTime = times.minLedgerTimeMicros;
    if (times.maxRecordTimeMicros !== undefined) prepared.metadata.maxRecordTime = times.maxRecordTimeMicros;
    return prepared;
  }

  private createOf(c: ContractRecord): PCreate {
    return {
      lfVersion: this.lfVersionOf(c.templateId),
      contractId: c.contractId,
      packageName: c.templateId.packageName,
      templateId: pid(c.templateId),
      argument: this.payloadOf(c.templateId, c.payload),
      signatories: c.signatories,
      stakeholders: stakeholdersOf(c),
    };
  }

  private seed(): Buffer {
    return Buffer.from(this.engine.ids.hex(32), 'hex');
  }

  /** The LF version of the template's package when it was uploaded, else Canton 3.5's default. */
  private lfVersionOf(id: QualifiedId): string {
    return this.engine.packages.get(id.packageId)?.lfVersion ?? LF_VERSION;
  }

  /** A create argument: typed by the native template's description, else by its DAR's record type. */
  private payloadOf(id: QualifiedId, payload: unknown): PValue {
    const native = this.engine.templates.templateById(id)?.payloadType;
    if (native) return nativeTypedValue(native, payload);
    const found = this.engine.packages.findDataType(id.packageId, id.moduleName, id.entityName);
    if (found?.dataType.kind !== 'record') return inferValue(payload);
    return typedValue(this.engine.packages, { kind: 'con', tycon: { packageId: found.id.packageId, moduleName: id.moduleName, entityName: id.entityName }, args: [] }, payload);
  }

  /** A choice argument: typed by the native choice's description, else by its DAR's argument type. */
  private choiceArgumentOf(templateId: QualifiedId, interfaceId: QualifiedId | undefined, choice: string, arg: unknown): PValue {
    const def = this.engine.templates.templateById(templateId);
    const choiceDef = interfaceId
      ? def?.implements.find((i) => nameKey(i.interface.id) === nameKey(interfaceId))?.choices[choice]
      : def?.choices[choice];
    if (choiceDef?.argumentType) return nativeTypedValue(choiceDef.argumentType, arg);
    const owner = interfaceId ?? templateId;
    const pkg = this.engine.packages.get(owner.packageId);
    const mod = pkg?.modules.find((m) => m.name === owner.moduleName);
    const decl =
      mod?.templates.find((t) => t.name === owner.entityName)?.choices.find((c) => c.name === choice) ??
      mod?.interfaces.find((t) => t.name === owner.entityName)?.choices.find((c) => c.name === choice);
    return decl?.argType ? typedValue(this.engine.packages, decl.argType, arg) : inferValue(arg);
  }
}

function pid(id: QualifiedId): PIdentifier {
  return { packageId: id.packageId, moduleName: id.moduleName, entityName: id.entityName };
}
