/**
 * Our Canton crypto facts and topology codec against independent oracles from the official
 * wallet SDK's packages: core-tx-visualizer's `computeSha256CantonHash` /
 * `computeMultiHashForTopology` (the SDK's own HashNamespace.topologyTransaction), and
 * core-ledger-proto's protobuf-ts bindings of Canton's protos for decoding what we encode.
 */
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { BinaryReader } from '@protobuf-ts/runtime';
import {
  Enums_ParticipantPermission,
  Enums_TopologyChangeOp,
  SigningPublicKey as ProtoSigningPublicKey,
  TopologyTransaction as ProtoTopologyTransaction,
  CryptoKeyFormat,
  SigningKeySpec as ProtoSigningKeySpec,
  SigningKeyUsage as ProtoSigningKeyUsage,
} from '@canton-network/core-ledger-proto';
import { computeMultiHashForTopology, computeSha256CantonHash } from '@canton-network/core-tx-visualizer';
import { describe, expect, it } from 'vitest';
import { cantonHash, combinedTopologyHash, fingerprintOf } from '../../../../../src/emulator/participant/topology/canton-hash.js';
import { normalizeSigningKey, SigningKeyError } from '../../../../../src/emulator/participant/topology/signing-keys.js';
import {
  decodeTopologyTransaction,
  encodeTopologyTransaction,
  ParticipantPermission,
  TopologyChangeOp,
  TopologyDecodeError,
  topologyTransactionHash,
} from '../../../../../src/emulator/participant/topology/transactions.js';
import { generateExternalPartyTopology } from '../../../../../src/emulator/participant/topology/generate-topology.js';
import { LedgerEngine } from '../../../../../src/emulator/participant/engine.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** A fixed Ed25519 key (RFC 8032 test vector 1 public key). */
const RAW_KEY = Buffer.from('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a', 'hex');
const SPKI_KEY = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), RAW_KEY]);

/** Splits Canton's UntypedVersionedMessage { bytes data = 1; int32 version = 2 } with protobuf-ts's reader. */
function unwrapVersioned(bytes: Uint8Array): { data: Uint8Array; version: number } {
  const r = new BinaryReader(bytes);
  let data: Uint8Array = new Uint8Array();
  let version = 0;
  while (r.pos < r.len) {
    const [field, wire] = r.tag();
    if (field === 1) data = r.bytes();
    else if (field === 2) version = r.int32();
    else r.skip(wire);
  }
  return { data, version };
}

/** The raw bytes of unknown field `no` that protobuf-ts kept aside for a message. */
function unknownField(msg: object, no: number): Uint8Array {
  const list = (msg as Record<symbol, Array<{ no: number; data: Uint8Array }>>)[Symbol.for('protobuf-ts/unknown')] ?? [];
  const entry = list.find((f) => f.no === no);
  if (!entry) throw new Error(`no unknown field ${no}`);
  // protobuf-ts keeps the field's payload as read after the tag: here the length-prefixed bytes
  return new BinaryReader(entry.data).bytes();
}

describe('Canton hashes', () => {
  it('hash with purpose equals the SDK oracle (computeSha256CantonHash)', async () => {
    for (const purpose of [11, 12, 55]) {
      const data = Buffer.from(`payload-${purpose}`);
      expect(hex(cantonHash(purpose, data))).toBe(hex(await computeSha256CantonHash(purpose, data)));
    }
  });

  it('fingerprint of an Ed25519 key: purpose 12 over the raw 32 bytes, RAW and SPKI alike', async () => {
    const expected = hex(await computeSha256CantonHash(12, RAW_KEY));
    expect(expected).toMatch(/^1220[0-9a-f]{64}$/);
    expect(fingerprintOf(RAW_KEY)).toBe(expected);
    expect(normalizeSigningKey('raw', RAW_KEY, 'SIGNING_KEY_SPEC_EC_CURVE25519').fingerprint).toBe(expected);
    const fromSpki = normalizeSigningKey('spki', SPKI_KEY, 'SIGNING_KEY_SPEC_EC_CURVE25519');
    expect(fromSpki.fingerprint).toBe(expected);
    expect(hex(fromSpki.spki)).toBe(hex(SPKI_KEY));
  });

  it('fingerprint of the wallet SDK key (WebCrypto recomputation as the oracle)', async () => {
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', Buffer.concat([Buffer.from([0, 0, 0, 12]), RAW_KEY])));
    expect(fingerprintOf(RAW_KEY)).toBe(`1220${hex(digest)}`);
  });

  it('fingerprint of an ECDSA P-256 key: purpose 12 over its DER SubjectPublicKeyInfo', async () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const der = publicKey.export({ format: 'der', type: 'spki' });
    const k = normalizeSigningKey('spki', der, 'SIGNING_KEY_SPEC_EC_P256');
    expect(k.fingerprint).toBe(hex(await computeSha256CantonHash(12, der)));
    expect(() => normalizeSigningKey('spki', der, 'SIGNING_KEY_SPEC_EC_P384')).toThrow(SigningKeyError);
    expect(() => normalizeSigningKey('raw', der, 'SIGNING_KEY_SPEC_EC_P256')).toThrow(SigningKeyError);
  });

  it('rejects malformed Ed25519 keys', () => {
    expect(() => normalizeSigningKey('raw', RAW_KEY.subarray(1), 'SIGNING_KEY_SPEC_EC_CURVE25519')).toThrow(/expected 32 bytes, got 31/);
    expect(() => normalizeSigningKey('spki', RAW_KEY, 'SIGNING_KEY_SPEC_EC_CURVE25519')).toThrow(SigningKeyError);
  });

  it('the combined hash of several transactions equals the SDK oracle (sorted, length-prefixed, purpose 55)', async () => {
    const hashes = ['c', 'a', 'b'].map((s) => cantonHash(11, Buffer.from(s)));
    const oracle = await computeSha256CantonHash(55, await computeMultiHashForTopology(hashes));
    expect(hex(combinedTopologyHash(hashes))).toBe(hex(oracle));
    expect(hex(combinedTopologyHash([...hashes].reverse()))).toBe(hex(oracle));
  });
});

describe('generate-topology output decodes with the official protobuf bindings', () => {
  const engine = new LedgerEngine({ seed: 'topology-test' });
  const generated = generateExternalPartyTopology(engine, {
    synchronizer: engine.synchronizerId,
    partyHint: 'alice',
    publicKey: { format: 'CRYPTO_KEY_FORMAT_RAW', keyData: RAW_KEY.toString('base64'), keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519' },
    localParticipantObservationOnly: false,
    otherConfirmingParticipantUids: [],
    confirmationThreshold: 1,
    observingParticipantUids: [],
  });

  it('names the party in the key namespace and prints the key fingerprint', async () => {
    const fp = hex(await computeSha256CantonHash(12, RAW_KEY));
    expect(generated.publicKeyFingerprint).toBe(fp);
    expect(generated.partyId).toBe(`alice::${fp}`);
    expect(generated.topologyTransactions).toHaveLength(1);
  });

  it('is an UntypedVersionedMessage (version 30) around a PartyToParticipant REPLACE, serial 1', () => {
    const { data, version } = unwrapVersioned(Buffer.from(generated.topologyTransactions[0]!, 'base64'));
    expect(version).toBe(30);
    const tx = ProtoTopologyTransaction.fromBinary(data);
    expect(tx.operation).toBe(Enums_TopologyChangeOp.ADD_REPLACE);
    expect(tx.serial).toBe(1);
    expect(tx.mapping?.mapping.oneofKind).toBe('partyToParticipant');
    if (tx.mapping?.mapping.oneofKind !== 'partyToParticipant') throw new Error('unreachable');
    const ptp = tx.mapping.mapping.partyToParticipant;
    expect(ptp.party).toBe(generated.partyId);
    expect(ptp.threshold).toBe(1);
    expect(ptp.participants).toEqual([{ participantUid: engine.participantId, permission: Enums_ParticipantPermission.CONFIRMATION }]);

    // party_signing_keys (field 6) is newer than these bindings: read it as SigningKeysWithThreshold.
    const keysWithThreshold = new BinaryReader(unknownField(ptp, 6));
    const keys: ProtoSigningPublicKey[] = [];
    let threshold = 0;
    while (keysWithThreshold.pos < keysWithThreshold.len) {
      const [field, wire] = keysWithThreshold.tag();
      if (field === 1) keys.push(ProtoSigningPublicKey.fromBinary(keysWithThreshold.bytes()));
      else if (field === 2) threshold = keysWithThreshold.uint32();
      else keysWithThreshold.skip(wire);
    }
    expect(threshold).toBe(1);
    expect(keys).toHaveLength(1);
    expect(keys[0]!.format).toBe(CryptoKeyFormat.DER_X509_SUBJECT_PUBLIC_KEY_INFO);
    expect(hex(keys[0]!.publicKey)).toBe(hex(SPKI_KEY));
    expect(keys[0]!.keySpec).toBe(ProtoSigningKeySpec.EC_CURVE25519);
    expect(keys[0]!.usage).toEqual([ProtoSigningKeyUsage.NAMESPACE, ProtoSigningKeyUsage.PROOF_OF_OWNERSHIP, ProtoSigningKeyUsage.PROTOCOL]);
    // the key really is the Ed25519 key we gave
    expect(createPublicKey({ key: Buffer.from(keys[0]!.publicKey), format: 'der', type: 'spki' }).asymmetricKeyType).toBe('ed25519');
  });

  it('multiHash equals the SDK computation (HashNamespace.topologyTransaction)', async () => {
    const txs = generated.topologyTransactions.map((t) => Buffer.from(t, 'base64'));
    const hashes = await Promise.all(txs.map((t) => computeSha256CantonHash(11, t)));
    const oracle = await computeSha256CantonHash(55, await computeMultiHashForTopology(hashes));
    expect(generated.multiHash).toBe(Buffer.from(oracle).toString('base64'));
  });

  it('observation-only plus other participants: permissions and threshold as requested', () => {
    const other = `participant2::1220${'ab'.repeat(32)}`;
    const observer = `participant3::1220${'cd'.repeat(32)}`;
    const g = generateExternalPartyTopology(engine, {
      synchronizer: engine.synchronizerId,
      partyHint: 'multi',
      publicKey: { format: 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO', keyData: SPKI_KEY.toString('base64'), keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519' },
      localParticipantObservationOnly: true,
      otherConfirmingParticipantUids: [other],
      confirmationThreshold: 0,
      observingParticipantUids: [observer],
    });
    const tx = ProtoTopologyTransaction.fromBinary(unwrapVersioned(Buffer.from(g.topologyTransactions[0]!, 'base64')).data);
    if (tx.mapping?.mapping.oneofKind !== 'partyToParticipant') throw new Error('not a PartyToParticipant');
    expect(tx.mapping.mapping.partyToParticipant.threshold).toBe(1);
    expect(tx.mapping.mapping.partyToParticipant.participants).toEqual([
      { participantUid: engine.participantId, permission: Enums_ParticipantPermission.OBSERVATION },
      { participantUid: other, permission: Enums_ParticipantPermission.CONFIRMATION },
      { participantUid: observer, permission: Enums_ParticipantPermission.OBSERVATION },
    ]);
  });
});

describe('topology transaction codec', () => {
  const key = { format: 4, publicKey: SPKI_KEY, usage: [1, 4], keySpec: 1, scheme: 0 };
  const ns = fingerprintOf(RAW_KEY);

  it('round-trips the legacy onboarding mappings, readable by the official bindings', () => {
    const nsd = { operation: TopologyChangeOp.Replace, serial: 1, mapping: { kind: 'NamespaceDelegation' as const, namespace: ns, targetKey: key, isRootDelegation: true, restriction: 'canSignAllMappings' as const } };
    const ptk = { operation: TopologyChangeOp.Replace, serial: 1, mapping: { kind: 'PartyToKeyMapping' as const, party: `bob::${ns}`, threshold: 1, signingKeys: [key] } };
    const ptp = {
      operation: TopologyChangeOp.Replace,
      serial: 1,
      mapping: {
        kind: 'PartyToParticipant' as const,
        party: `bob::${ns}`,
        threshold: 1,
        participants: [{ participantUid: 'p::1220aa', permission: ParticipantPermission.Confirmation, onboarding: true }],
        partySigningKeys: undefined,
      },
    };
    for (const tx of [nsd, ptk, ptp]) {
      const bytes = encodeTopologyTransaction(tx);
      expect(decodeTopologyTransaction(bytes)).toEqual(tx);
      expect(hex(topologyTransactionHash(bytes))).toBe(hex(cantonHash(11, bytes)));
    }
    const official = ProtoTopologyTransaction.fromBinary(unwrapVersioned(encodeTopologyTransaction(nsd)).data);
    if (official.mapping?.mapping.oneofKind !== 'namespaceDelegation') throw new Error('not a NamespaceDelegation');
    expect(official.mapping.mapping.namespaceDelegation.namespace).toBe(ns);
    expect(official.mapping.mapping.namespaceDelegation.isRootDelegation).toBe(true);
    expect(official.mapping.mapping.namespaceDelegation.restriction.oneofKind).toBe('canSignAllMappings');
    const officialPtk = ProtoTopologyTransaction.fromBinary(unwrapVersioned(encodeTopologyTransaction(ptk)).data);
    if (officialPtk.mapping?.mapping.oneofKind !== 'partyToKeyMapping') throw new Error('not a PartyToKeyMapping');
    expect(officialPtk.mapping.mapping.partyToKeyMapping.signingKeys[0]!.usage).toEqual([1, 4]);
  });

  it('rejects bytes that are not a versioned topology transaction', () => {
    expect(() => decodeTopologyTransaction(Buffer.from([0x0a, 0x05, 0x01]))).toThrow(TopologyDecodeError);
    // the bare TopologyTransaction without the version wrapper
    const inner = unwrapVersioned(encodeTopologyTransaction({ operation: 1, serial: 1, mapping: { kind: 'PartyToKeyMapping', party: 'x::1220', threshold: 1, signingKeys: [] } })).data;
    expect(() => decodeTopologyTransaction(Buffer.from(inner))).toThrow(TopologyDecodeError);
  });
});
