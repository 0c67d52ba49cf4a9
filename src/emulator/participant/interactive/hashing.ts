/**
 * Canton's "External Signing Hashing Algorithm", hashing scheme V2 (Canton 3.x docs, page
 * "External Signing Hashing Algorithm"; Scala `InteractiveSubmission` / `TransactionHash`):
 *
 *  - primitives: bool = 1 byte; int32 / int64 = 4 / 8 bytes big endian; string / bytes = int32
 *    length + bytes (UTF-8 for strings); hex strings (contract ids) are hex-decoded to bytes
 *    first; optional = 0x00 | 0x01 + value; repeated = int32 count + each element;
 *  - a node is encoded with the node encoding version 0x01, its LF version, a node tag
 *    (create 0, exercise 1, fetch 2, rollback 3) and its fields; children and roots are
 *    encoded as the SHA-256 of their node encoding (node seeds are looked up by node id);
 *  - transaction hash = SHA-256(purpose 0x00000030 ‖ version ‖ roots);
 *  - metadata hash   = SHA-256(purpose ‖ 0x01 ‖ actAs ‖ commandId ‖ transactionUuid ‖
 *    mediatorGroup ‖ synchronizerId ‖ opt minLET ‖ opt maxLET ‖ preparationTime ‖
 *    input contracts (createdAt ‖ SHA-256(create node encoding, no seed)));
 *  - prepared transaction hash = SHA-256(purpose ‖ 0x02 (scheme V2) ‖ tx hash ‖ metadata hash).
 *
 * `explain` collects a readable trace (the `hashingDetails` of a verbose prepare).
 */
import { createHash } from 'node:crypto';
import { ByteSink } from '../../shared/byte-sink.js';
import type { PCreate, PExercise, PFetch, PMetadata, PNode, PPreparedTransaction } from './prepared-transaction.js';
import type { PIdentifier, PValue } from '../../lf-value/proto-value.js';

/** Hash purpose of prepared transactions (`HashPurpose.PreparedSubmission`, id 48). */
const PURPOSE = Buffer.from([0, 0, 0, 48]);
const NODE_ENCODING_VERSION = 1;
const HASHING_SCHEME_V2 = 2;

export class HashingError extends Error {}

class Encoder {
  private readonly out = new ByteSink();
  byte(b: number): this {
    this.out.byte(b);
    return this;
  }
  raw(b: Uint8Array): this {
    this.out.bytes(b);
    return this;
  }
  int32(n: number): this {
    this.out.int32BE(n);
    return this;
  }
  int64(n: bigint): this {
    this.out.int64BE(n);
    return this;
  }
  bytes(b: Uint8Array): this {
    return this.int32(b.length).raw(b);
  }
  string(s: string): this {
    const at = this.out.length;
    this.out.int32BE(0);
    this.out.patchInt32BE(at, this.out.utf8(s));
    return this;
  }
  hex(s: string): this {
    if (s.length % 2 !== 0 || !HEX.test(s)) throw new HashingError(`not a hex string: ${s}`);
    const at = this.out.length;
    this.out.int32BE(0);
    this.out.patchInt32BE(at, this.out.hex(s));
    return this;
  }
  strings(xs: readonly string[]): this {
    this.int32(xs.length);
    for (const x of xs) this.string(x);
    return this;
  }
  optional<T>(v: T | undefined, f: (v: T) => void): this {
    if (v === undefined) return this.byte(0);
    this.byte(1);
    f(v);
    return this;
  }
  /** The bytes so far (a view into the encoder's buffer). */
  finish(): Buffer {
    return this.out.view();
  }
}

const HEX = /^[0-9a-fA-F]*$/;

const sha256 = (b: Uint8Array): Buffer => createHash('sha256').update(b).digest();

function identifier(e: Encoder, id: PIdentifier): void {
  e.string(id.packageId).strings(id.moduleName.split('.')).strings(id.entityName.split('.'));
}

function value(e: Encoder, v: PValue): void {
  switch (v.kind) {
    case 'unit':
      e.byte(0);
      return;
    case 'bool':
      e.byte(1).byte(v.value ? 1 : 0);
      return;
    case 'int64':
      e.byte(2).int64(v.value);
      return;
    case 'numeric':
      e.byte(3).string(v.value);
      return;
    case 'timestamp':
      e.byte(4).int64(v.value);
      return;
    case 'date':
      e.byte(5).int32(v.value);
      return;
    case 'party':
      e.byte(6).string(v.value);
      return;
    case 'text':
      e.byte(7).string(v.value);
      return;
    case 'contractId':
      e.byte(8).hex(v.value);
      return;
    case 'optional':
      e.byte(9).optional(v.value, (x) => value(e, x));
      return;
    case 'list':
      e.byte(10).int32(v.elements.length);
      for (const x of v.elements) value(e, x);
      return;
    case 'textMap':
      e.byte(11).int32(v.entries.length);
      for (const x of v.entries) {
        e.string(x.key);
        value(e, x.value);
      }
      return;
    case 'record':
      e.byte(12).optional(v.recordId, (id) => identifier(e, id));
      e.int32(v.fields.length);
      // A field label is an optional string; proto3 cannot tell "" from absent, so "" counts as set.
      for (const f of v.fields) {
        e.optional(f.label, (l) => e.string(l));
        value(e, f.value);
      }
      return;
    case 'variant':
      e.byte(13).optional(v.variantId, (id) => identifier(e, id));
      e.string(v.constructor);
      value(e, v.value);
      return;
    case 'enum':
      e.byte(14).optional(v.enumId, (id) => identifier(e, id));
      e.string(v.constructor);
      return;
    case 'genMap':
      e.byte(15).int32(v.entries.length);
      for (const x of v.entries) {
        value(e, x.key);
        value(e, x.value);
      }
      return;
  }
}

/** Encodes and hashes the nodes of one transaction (children by id, seeds by id). */
class NodeHasher {
  private readonly byId = new Map<string, PNode>();
  private readonly seeds = new Map<string, Buffer>();
  private readonly visiting = new Set<string>();

  constructor(p: PPreparedTransaction) {
    for (const n of p.transaction.nodes) this.byId.set(n.nodeId, n);
    for (const s of p.transaction.nodeSeeds) this.seeds.set(String(s.nodeId), s.seed);
  }

  hashOf(nodeId: string): Buffer {
    const n = this.byId.get(nodeId);
    if (!n) throw new HashingError(`Node with id ${nodeId} is not in the transaction`);
    if (this.visiting.has(nodeId)) throw new HashingError(`Node ${nodeId} is its own descendant`);
    this.visiting.add(nodeId);
    try {
      return sha256(this.encode(n));
    } finally {
      this.visiting.delete(nodeId);
    }
  }

  private encode(n: PNode): Buffer {
    const body = n.node;
    switch (body.kind) {
      case 'create':
        return encodeCreate(body.create, this.seeds.get(n.nodeId));
      case 'exercise': {
        const seed = this.seeds.get(n.nodeId);
        if (!seed) throw new HashingError(`Exercise node ${n.nodeId} has no seed`);
        return this.encodeExercise(body.exercise, seed);
      }
      case 'fetch':
        return encodeFetch(body.fetch);
      case 'rollback': {
        const e = new Encoder().byte(NODE_ENCODING_VERSION).byte(3).int32(body.children.length);
        for (const c of body.children) e.raw(this.hashOf(c));
        return e.finish();
      }
    }
  }

  private encodeExercise(x: PExercise, seed: Buffer): Buffer {
    const e = new Encoder().byte(NODE_ENCODING_VERSION).string(x.lfVersion).byte(1).raw(seed).hex(x.contractId).string(x.packageName);
    identifier(e, x.templateId);
    e.strings(x.signatories).strings(x.stakeholders).strings(x.actingParties);
    e.optional(x.interfaceId, (id) => identifier(e, id));
    e.string(x.choiceId);
    value(e, x.chosenValue);
    e.byte(x.consuming ? 1 : 0);
    e.optional(x.exerciseResult, (r) => value(e, r));
    e.strings(x.choiceObservers).int32(x.children.length);
    for (const c of x.children) e.raw(this.hashOf(c));
    return e.finish();
  }
}

function encodeCreate(c: PCreate, seed: Buffer | undefined): Buffer {
  const e = new Encoder().byte(NODE_ENCODING_VERSION).string(c.lfVersion).byte(0);
  e.optional(seed, (s) => e.raw(s));
  e.hex(c.contractId).string(c.packageName);
  identifier(e, c.templateId);
  value(e, c.argument);
  return e.strings(c.signatories).strings(c.stakeholders).finish();
}

function encodeFetch(f: PFetch): Buffer {
  const e = new Encoder().byte(NODE_ENCODING_VERSION).string(f.lfVersion).byte(2).hex(f.contractId).string(f.packageName);
  identifier(e, f.templateId);
  e.strings(f.signatories).strings(f.stakeholders);
  e.optional(f.interfaceId, (id) => identifier(e, id));
  return e.strings(f.actingParties).finish();
}

function encodeMetadata(m: PMetadata): Buffer {
  const e = new Encoder().raw(PURPOSE).byte(1).strings(m.actAs).string(m.commandId).string(m.transactionUuid).int32(m.mediatorGroup).string(m.synchronizerId);
  e.optional(m.minLedgerEffectiveTime, (t) => e.int64(t));
  e.optional(m.maxLedgerEffectiveTime, (t) => e.int64(t));
  e.int64(m.preparationTime).int32(m.inputContracts.length);
  for (const ic of m.inputContracts) e.int64(ic.createdAt).raw(sha256(encodeCreate(ic.create, undefined)));
  return e.finish();
}

export interface HashResult {
  hash: Buffer;
  transactionHash: Buffer;
  metadataHash: Buffer;
}

/** The V2 hash of a prepared transaction; throws HashingError when it is not hashable (missing node, seed...). */
export function hashPreparedTransactionV2(p: PPreparedTransaction): HashResult {
  const nodes = new NodeHasher(p);
  const tx = new Encoder().raw(PURPOSE).string(p.transaction.version).int32(p.transaction.roots.length);
  for (const r of p.transaction.roots) tx.raw(nodes.hashOf(r));
  const transactionHash = sha256(tx.finish());
  const metadataHash = sha256(encodeMetadata(p.metadata));
  const hash = sha256(Buffer.concat([PURPOSE, Buffer.from([HASHING_SCHEME_V2]), transactionHash, metadataHash]));
  return { hash, transactionHash, metadataHash };
}

/** A readable account of the hash (the `hashingDetails` of a verbose prepare; format not stable, as in Canton). */
export function explainHash(p: PPreparedTransaction, r: HashResult): string {
  const nodes = new NodeHasher(p);
  const lines = [
    'Hashing scheme: HASHING_SCHEME_VERSION_V2',
    `Transaction version: ${p.transaction.version}`,
    ...p.transaction.roots.map((id) => `Root node ${id}: ${nodes.hashOf(id).toString('hex')}`),
    `Transaction hash: ${r.transactionHash.toString('hex')}`,
    `Metadata: actAs=${p.metadata.actAs.join(',')} commandId=${p.metadata.commandId} transactionUuid=${p.metadata.transactionUuid} ` +
      `mediatorGroup=${p.metadata.mediatorGroup} synchronizerId=${p.metadata.synchronizerId} preparationTime=${p.metadata.preparationTime} ` +
      `inputContracts=${p.metadata.inputContracts.length}`,
    `Metadata hash: ${r.metadataHash.toString('hex')}`,
    `Prepared transaction hash: ${r.hash.toString('hex')}`,
  ];
  return lines.join('\n');
}
