/**
 * Canton topology transactions as the external-party endpoints exchange them: our own codec of
 * `com.digitalasset.canton.protocol.v30.TopologyTransaction` (topology.proto) for the mappings an
 * external party's onboarding uses, wrapped as Canton serializes every protocol-versioned message:
 * `com.digitalasset.canton.version.v1.UntypedVersionedMessage { bytes data = 1; int32 version = 2 }`
 * with proto version 30. Those wrapper bytes are what `GenerateExternalPartyTopologyResponse`
 * carries (openapi-3.5: "serialized as an `UntypedVersionedMessage`") and what the transaction's
 * hash covers (`TopologyTransaction.hash`: purpose TopologyTransactionSignature over the
 * serialized, versioned bytes).
 *
 * Field numbers (topology.proto / crypto.proto v30):
 *  - TopologyTransaction: operation 1 (enum TopologyChangeOp), serial 2, mapping 3
 *  - TopologyMapping (oneof): namespace_delegation 1, decentralized_namespace_definition 3,
 *    owner_to_key_mapping 4, … party_to_participant 9, … party_to_key_mapping 16
 *  - NamespaceDelegation: namespace 1, target_key 2, is_root_delegation 3, restriction oneof
 *    can_sign_all_mappings 4 / can_sign_all_but_namespace_delegations 5 / can_sign_specific_mapings 6
 *  - PartyToKeyMapping: party 1, threshold 3, signing_keys 4
 *  - PartyToParticipant: party 1, threshold 2, participants 3, party_signing_keys 6
 *    (SigningKeysWithThreshold: keys 1, threshold 2); HostingParticipant: participant_uid 1,
 *    permission 2, onboarding 3 (empty message, present iff onboarding)
 *  - SigningPublicKey: format 2, public_key 3, scheme 4 (deprecated), usage 5 (packed), key_spec 6
 */
import { ProtoError, ProtoMessage } from '../../shared/protobuf.js';
import { cantonHash, HashPurpose } from './canton-hash.js';
import { ProtoWriter } from '../../shared/protobuf-writer.js';

/** Proto version of `TopologyTransaction` on protocol versions 33+ (its only supported version). */
export const TOPOLOGY_TRANSACTION_PROTO_VERSION = 30;

/** `Enums.TopologyChangeOp`. */
export const TopologyChangeOp = { Replace: 1, Remove: 2 } as const;
/** `Enums.ParticipantPermission`. */
export const ParticipantPermission = { Submission: 1, Confirmation: 2, Observation: 3 } as const;
/** crypto.proto v30 `CryptoKeyFormat` (the topology/admin enum, not the Ledger API one). */
export const ProtoKeyFormat = { Der: 2, Raw: 3, DerX509Spki: 4 } as const;
/** crypto.proto v30 `SigningKeyUsage`. */
export const SigningKeyUsage = { Namespace: 1, SequencerAuthentication: 3, Protocol: 4, ProofOfOwnership: 5 } as const;

/** A `SigningPublicKey` as it appears inside topology mappings. */
export interface TopologySigningKey {
  format: number;
  publicKey: Buffer;
  usage: number[];
  keySpec: number;
  /** Deprecated `SigningKeyScheme`; 0 in everything Canton 3.x writes. */
  scheme: number;
}

export interface HostingParticipant {
  participantUid: string;
  permission: number;
  onboarding: boolean;
}

export type NamespaceRestriction = 'none' | 'canSignAllMappings' | 'canSignAllButNamespaceDelegations' | 'canSignSpecificMappings';

export type TopologyMapping =
  | {
      kind: 'NamespaceDelegation';
      namespace: string;
      targetKey: TopologySigningKey | undefined;
      isRootDelegation: boolean;
      restriction: NamespaceRestriction;
    }
  | { kind: 'PartyToKeyMapping'; party: string; threshold: number; signingKeys: TopologySigningKey[] }
  | {
      kind: 'PartyToParticipant';
      party: string;
      threshold: number;
      participants: HostingParticipant[];
      partySigningKeys: { keys: TopologySigningKey[]; threshold: number } | undefined;
    }
  /** Any other mapping (by its oneof field number); onboarding rejects these. */
  | { kind: 'Other'; field: number; name: string };

export interface TopologyTransaction {
  operation: number;
  serial: number;
  mapping: TopologyMapping;
}

/** Names of the TopologyMapping oneof cases (for error texts naming an unsupported mapping). */
const MAPPING_NAMES: Record<number, string> = {
  1: 'NamespaceDelegation',
  3: 'DecentralizedNamespaceDefinition',
  4: 'OwnerToKeyMapping',
  5: 'SynchronizerTrustCertificate',
  6: 'ParticipantSynchronizerPermission',
  7: 'PartyHostingLimits',
  8: 'VettedPackages',
  9: 'PartyToParticipant',
  11: 'SynchronizerParametersState',
  12: 'MediatorSynchronizerState',
  13: 'SequencerSynchronizerState',
  14: 'PurgeTopologyTransaction',
  15: 'DynamicSequencingParametersState',
  16: 'PartyToKeyMapping',
};

// ---- encoding ---------------------------------------------------------------------------------

function signingKeyMessage(k: TopologySigningKey): ProtoWriter {
  return new ProtoWriter().uintIfSet(2, k.format).bytesIfSet(3, k.publicKey).uintIfSet(4, k.scheme).packed(5, k.usage).uintIfSet(6, k.keySpec);
}

function mappingMessage(m: TopologyMapping): ProtoWriter {
  const w = new ProtoWriter();
  switch (m.kind) {
    case 'NamespaceDelegation': {
      const nd = new ProtoWriter().stringIfSet(1, m.namespace);
      if (m.targetKey) nd.message(2, signingKeyMessage(m.targetKey));
      nd.boolIfSet(3, m.isRootDelegation);
      if (m.restriction === 'canSignAllMappings') nd.message(4, new ProtoWriter());
      if (m.restriction === 'canSignAllButNamespaceDelegations') nd.message(5, new ProtoWriter());
      if (m.restriction === 'canSignSpecificMappings') nd.message(6, new ProtoWriter());
      return w.message(1, nd);
    }
    case 'PartyToKeyMapping': {
      const ptk = new ProtoWriter().stringIfSet(1, m.party).uintIfSet(3, m.threshold);
      for (const k of m.signingKeys) ptk.message(4, signingKeyMessage(k));
      return w.message(16, ptk);
    }
    case 'PartyToParticipant': {
      const ptp = new ProtoWriter().stringIfSet(1, m.party).uintIfSet(2, m.threshold);
      for (const p of m.participants) {
        const hp = new ProtoWriter().stringIfSet(1, p.participantUid).uintIfSet(2, p.permission);
        if (p.onboarding) hp.message(3, new ProtoWriter());
        ptp.message(3, hp);
      }
      if (m.partySigningKeys) {
        const sk = new ProtoWriter();
        for (const k of m.partySigningKeys.keys) sk.message(1, signingKeyMessage(k));
        sk.uintIfSet(2, m.partySigningKeys.threshold);
        ptp.message(6, sk);
      }
      return w.message(9, ptp);
    }
    case 'Other':
      throw new Error(`cannot encode a ${m.name} mapping`);
  }
}

/** The serialized, versioned transaction: `UntypedVersionedMessage(data = TopologyTransaction, version = 30)`. */
export function encodeTopologyTransaction(tx: TopologyTransaction): Buffer {
  const inner = new ProtoWriter().uintIfSet(1, tx.operation).uintIfSet(2, tx.serial).message(3, mappingMessage(tx.mapping)).finish();
  return new ProtoWriter().bytesIfSet(1, inner).uintIfSet(2, TOPOLOGY_TRANSACTION_PROTO_VERSION).finish();
}

/** `TopologyTransaction.hash`: purpose TopologyTransactionSignature over the serialized bytes. */
export function topologyTransactionHash(serialized: Uint8Array): Buffer {
  return cantonHash(HashPurpose.TopologyTransactionSignature, serialized);
}

// ---- decoding ---------------------------------------------------------------------------------

/** The bytes are not a topology transaction we can read; the message says why. */
export class TopologyDecodeError extends Error {}

function decodeSigningKey(m: ProtoMessage): TopologySigningKey {
  return {
    format: m.int32(2),
    publicKey: Buffer.from(m.bytes(3) ?? Buffer.alloc(0)),
    scheme: m.int32(4),
    usage: m.repeatedInt32(5),
    keySpec: m.int32(6),
  };
}

function decodeMapping(m: ProtoMessage): TopologyMapping {
  const present = Object.keys(MAPPING_NAMES).map(Number).filter((f) => m.has(f));
  if (present.length === 0) throw new TopologyDecodeError('Field `mapping` is not set');
  const field = present[present.length - 1]!;
  const body = m.message(field)!;
  switch (field) {
    case 1: {
      const restriction: NamespaceRestriction = body.has(4)
        ? 'canSignAllMappings'
        : body.has(5)
          ? 'canSignAllButNamespaceDelegations'
          : body.has(6)
            ? 'canSignSpecificMappings'
            : 'none';
      const target = body.message(2);
      return {
        kind: 'NamespaceDelegation',
        namespace: body.string(1),
        targetKey: target ? decodeSigningKey(target) : undefined,
        isRootDelegation: body.bool(3),
        restriction,
      };
    }
    case 16:
      return {
        kind: 'PartyToKeyMapping',
        party: body.string(1),
        threshold: body.int32(3) >>> 0,
        signingKeys: body.repeatedMessages(4).map(decodeSigningKey),
      };
    case 9: {
      const keys = body.message(6);
      return {
        kind: 'PartyToParticipant',
        party: body.string(1),
        threshold: body.int32(2) >>> 0,
        participants: body.repeatedMessages(3).map((p) => ({
          participantUid: p.string(1),
          permission: p.int32(2),
          onboarding: p.has(3),
        })),
        partySigningKeys: keys
          ? { keys: keys.repeatedMessages(1).map(decodeSigningKey), threshold: keys.int32(2) >>> 0 }
          : undefined,
      };
    }
    default:
      return { kind: 'Other', field, name: MAPPING_NAMES[field]! };
  }
}

/**
 * Reads a serialized, versioned topology transaction. Fails (TopologyDecodeError) on bytes that
 * are not protobuf, a wrapper without data, or a proto version other than 30, as Canton's
 * `TopologyTransaction.fromByteString` with protocol-version validation does.
 */
export function decodeTopologyTransaction(serialized: Buffer): TopologyTransaction {
  try {
    const wrapper = ProtoMessage.decode(serialized);
    const version = wrapper.int32(2);
    const data = wrapper.bytes(1);
    if (data === undefined) throw new TopologyDecodeError('Field `data` is not set');
    if (version !== TOPOLOGY_TRANSACTION_PROTO_VERSION) {
      throw new TopologyDecodeError(`Unsupported proto version ${version} for TopologyTransaction; supported: ${TOPOLOGY_TRANSACTION_PROTO_VERSION}`);
    }
    const tx = ProtoMessage.decode(data);
    const mapping = tx.message(3);
    if (mapping === undefined) throw new TopologyDecodeError('Field `mapping` is not set');
    return { operation: tx.int32(1), serial: tx.int32(2) >>> 0, mapping: decodeMapping(mapping) };
  } catch (e) {
    if (e instanceof TopologyDecodeError) throw e;
    if (e instanceof ProtoError) throw new TopologyDecodeError(e.message);
    throw e;
  }
}
