/**
 * `com.daml.ledger.api.v2.interactive.PreparedTransaction` (interactive_submission_service.proto,
 * interactive/transaction/v1/interactive_submission_data.proto) as plain data, with its protobuf
 * encoding and decoding. Field numbers are those of the Canton 3.5 protos. The Daml values inside
 * (value.proto) are lf-value/proto-value.ts.
 *
 * 64-bit integers are bigints; contract ids are hex strings (as on the wire).
 */
import { ProtoError, ProtoMessage } from '../../shared/protobuf.js';
import { ProtoWriter } from '../../shared/protobuf-writer.js';
import { readIdentifier, readOptionalIdentifier, readValue, writeIdentifier, writeValue, type PIdentifier, type PValue } from '../../lf-value/proto-value.js';

export interface PCreate {
  lfVersion: string;
  contractId: string;
  packageName: string;
  templateId: PIdentifier;
  argument: PValue;
  signatories: string[];
  stakeholders: string[];
}

export interface PExercise {
  lfVersion: string;
  contractId: string;
  packageName: string;
  templateId: PIdentifier;
  signatories: string[];
  stakeholders: string[];
  actingParties: string[];
  interfaceId?: PIdentifier;
  choiceId: string;
  chosenValue: PValue;
  consuming: boolean;
  children: string[];
  exerciseResult?: PValue;
  choiceObservers: string[];
}

export interface PFetch {
  lfVersion: string;
  contractId: string;
  packageName: string;
  templateId: PIdentifier;
  signatories: string[];
  stakeholders: string[];
  interfaceId?: PIdentifier;
  actingParties: string[];
}

export type PNodeBody =
  | { kind: 'create'; create: PCreate }
  | { kind: 'exercise'; exercise: PExercise }
  | { kind: 'fetch'; fetch: PFetch }
  | { kind: 'rollback'; children: string[] };

export interface PNode {
  nodeId: string;
  node: PNodeBody;
}

export interface PTransaction {
  version: string;
  roots: string[];
  nodes: PNode[];
  nodeSeeds: Array<{ nodeId: number; seed: Buffer }>;
}

export interface PInputContract {
  create: PCreate;
  createdAt: bigint;
  eventBlob: Buffer;
}

export interface PMetadata {
  actAs: string[];
  commandId: string;
  synchronizerId: string;
  mediatorGroup: number;
  transactionUuid: string;
  preparationTime: bigint;
  inputContracts: PInputContract[];
  minLedgerEffectiveTime?: bigint;
  maxLedgerEffectiveTime?: bigint;
  maxRecordTime?: bigint;
}

export interface PPreparedTransaction {
  transaction: PTransaction;
  metadata: PMetadata;
}

// ---- encoding -------------------------------------------------------------------------------------


function writeCreate(c: PCreate): ProtoWriter {
  return new ProtoWriter()
    .stringIfSet(1, c.lfVersion)
    .stringIfSet(2, c.contractId)
    .stringIfSet(3, c.packageName)
    .message(4, writeIdentifier(c.templateId))
    .message(5, writeValue(c.argument))
    .repeatedStrings(6, c.signatories)
    .repeatedStrings(7, c.stakeholders);
}

function writeExercise(e: PExercise): ProtoWriter {
  const w = new ProtoWriter()
    .stringIfSet(1, e.lfVersion)
    .stringIfSet(2, e.contractId)
    .stringIfSet(3, e.packageName)
    .message(4, writeIdentifier(e.templateId))
    .repeatedStrings(5, e.signatories)
    .repeatedStrings(6, e.stakeholders)
    .repeatedStrings(7, e.actingParties);
  if (e.interfaceId) w.message(8, writeIdentifier(e.interfaceId));
  w.stringIfSet(9, e.choiceId).message(10, writeValue(e.chosenValue)).boolIfSet(11, e.consuming).repeatedStrings(12, e.children);
  if (e.exerciseResult) w.message(13, writeValue(e.exerciseResult));
  return w.repeatedStrings(14, e.choiceObservers);
}

function writeFetch(f: PFetch): ProtoWriter {
  const w = new ProtoWriter()
    .stringIfSet(1, f.lfVersion)
    .stringIfSet(2, f.contractId)
    .stringIfSet(3, f.packageName)
    .message(4, writeIdentifier(f.templateId))
    .repeatedStrings(5, f.signatories)
    .repeatedStrings(6, f.stakeholders)
    .repeatedStrings(7, f.actingParties);
  if (f.interfaceId) w.message(8, writeIdentifier(f.interfaceId));
  return w;
}

function writeNode(n: PNode): ProtoWriter {
  const v1 = new ProtoWriter();
  switch (n.node.kind) {
    case 'create':
      v1.message(1, writeCreate(n.node.create));
      break;
    case 'fetch':
      v1.message(2, writeFetch(n.node.fetch));
      break;
    case 'exercise':
      v1.message(3, writeExercise(n.node.exercise));
      break;
    case 'rollback':
      v1.message(4, new ProtoWriter().repeatedStrings(1, n.node.children));
      break;
  }
  return new ProtoWriter().stringIfSet(1, n.nodeId).message(1000, v1);
}

export function encodePreparedTransaction(p: PPreparedTransaction): Buffer {
  const t = p.transaction;
  const tx = new ProtoWriter().stringIfSet(1, t.version).repeatedStrings(2, t.roots);
  for (const n of t.nodes) tx.message(3, writeNode(n));
  for (const s of t.nodeSeeds) tx.message(4, new ProtoWriter().uintIfSet(1, s.nodeId).bytes(2, s.seed));

  const m = p.metadata;
  const md = new ProtoWriter()
    .message(2, new ProtoWriter().repeatedStrings(1, m.actAs).stringIfSet(2, m.commandId))
    .stringIfSet(3, m.synchronizerId)
    .uintIfSet(4, m.mediatorGroup)
    .stringIfSet(5, m.transactionUuid)
    .uintIfSet(6, m.preparationTime);
  for (const ic of m.inputContracts) {
    md.message(7, new ProtoWriter().message(1, writeCreate(ic.create)).uintIfSet(1000, ic.createdAt).bytes(1002, ic.eventBlob));
  }
  if (m.minLedgerEffectiveTime !== undefined) md.uint(9, m.minLedgerEffectiveTime);
  if (m.maxLedgerEffectiveTime !== undefined) md.uint(10, m.maxLedgerEffectiveTime);
  if (m.maxRecordTime !== undefined) md.uint(11, m.maxRecordTime);
  return new ProtoWriter().message(1, tx).message(2, md).finish();
}

// ---- decoding -------------------------------------------------------------------------------------


function readCreate(m: ProtoMessage): PCreate {
  return {
    lfVersion: m.string(1),
    contractId: m.string(2),
    packageName: m.string(3),
    templateId: readIdentifier(m.message(4)),
    argument: readValue(m.message(5)),
    signatories: m.repeatedStrings(6),
    stakeholders: m.repeatedStrings(7),
  };
}

/** Fields 1-8 of an Exercise and of a Fetch node (transaction/v1/interactive_submission_data.proto): the same numbers and meaning. */
function readActionOnContract(m: ProtoMessage): PFetch {
  const f: PFetch = {
    lfVersion: m.string(1),
    contractId: m.string(2),
    packageName: m.string(3),
    templateId: readIdentifier(m.message(4)),
    signatories: m.repeatedStrings(5),
    stakeholders: m.repeatedStrings(6),
    actingParties: m.repeatedStrings(7),
  };
  const iface = readOptionalIdentifier(m, 8);
  if (iface) f.interfaceId = iface;
  return f;
}

function readExercise(m: ProtoMessage): PExercise {
  const e: PExercise = {
    ...readActionOnContract(m),
    choiceId: m.string(9),
    chosenValue: readValue(m.message(10)),
    consuming: m.bool(11),
    children: m.repeatedStrings(12),
    choiceObservers: m.repeatedStrings(14),
  };
  if (m.has(13)) e.exerciseResult = readValue(m.message(13));
  return e;
}

const readFetch = readActionOnContract;

function readNode(m: ProtoMessage): PNode {
  const nodeId = m.string(1);
  const v1 = m.message(1000);
  if (!v1) throw new ProtoError(`node ${nodeId} has no v1 content`);
  if (v1.has(1)) return { nodeId, node: { kind: 'create', create: readCreate(v1.message(1)!) } };
  if (v1.has(2)) return { nodeId, node: { kind: 'fetch', fetch: readFetch(v1.message(2)!) } };
  if (v1.has(3)) return { nodeId, node: { kind: 'exercise', exercise: readExercise(v1.message(3)!) } };
  if (v1.has(4)) return { nodeId, node: { kind: 'rollback', children: v1.message(4)!.repeatedStrings(1) } };
  throw new ProtoError(`node ${nodeId} has no node type`);
}

/** Decodes a PreparedTransaction; throws ProtoError when the bytes are not one. */
export function decodePreparedTransaction(bytes: Buffer): PPreparedTransaction {
  const top = ProtoMessage.decode(bytes);
  const tx = top.message(1);
  const md = top.message(2);
  if (!tx || !md) throw new ProtoError('the prepared transaction lacks its transaction or metadata');
  const transaction: PTransaction = {
    version: tx.string(1),
    roots: tx.repeatedStrings(2),
    nodes: tx.repeatedMessages(3).map(readNode),
    nodeSeeds: tx.repeatedMessages(4).map((s) => ({ nodeId: s.int32(1), seed: Buffer.from(s.bytes(2) ?? Buffer.alloc(0)) })),
  };
  const submitter = md.message(2);
  const metadata: PMetadata = {
    actAs: submitter?.repeatedStrings(1) ?? [],
    commandId: submitter?.string(2) ?? '',
    synchronizerId: md.string(3),
    mediatorGroup: md.int32(4) >>> 0,
    transactionUuid: md.string(5),
    preparationTime: md.uint64(6),
    inputContracts: md.repeatedMessages(7).map((ic) => {
      const create = ic.message(1);
      if (!create) throw new ProtoError('an input contract has no v1 content');
      return { create: readCreate(create), createdAt: ic.uint64(1000), eventBlob: Buffer.from(ic.bytes(1002) ?? Buffer.alloc(0)) };
    }),
  };
  if (md.has(9)) metadata.minLedgerEffectiveTime = md.uint64(9);
  if (md.has(10)) metadata.maxLedgerEffectiveTime = md.uint64(10);
  if (md.has(11)) metadata.maxRecordTime = md.uint64(11);
  return { transaction, metadata };
}
