/**
 * `POST /v2/parties/external/generate-topology` on the emulated participant: Canton 3.5's
 * `ApiPartyManagementService.generateExternalPartyTopology`. As Canton 3.5 generates it (its
 * openapi: the PartyToParticipant carries "the party's signing keys and threshold"; 3.4 documents
 * a separate PartyToKeyMapping instead), the topology is ONE transaction, a PartyToParticipant carrying the party's signing key with threshold 1
 * (`party_signing_keys`). That key is also the party's namespace key, so the mapping authorizes
 * itself ("self-signed", topology.proto) and no NamespaceDelegation or PartyToKeyMapping is
 * generated. Nothing is stored: the same request always gives the same answer.
 */
import { errors } from '../../../canton/errors.js';
import type { LedgerEngine } from '../engine.js';
import { combinedTopologyHash } from './canton-hash.js';
import { isSigningKeySpec, normalizeSigningKey, SigningKeyError, topologySigningKey, type KeyFormat, type NormalizedSigningKey } from './signing-keys.js';
import {
  encodeTopologyTransaction,
  ParticipantPermission,
  SigningKeyUsage,
  TopologyChangeOp,
  topologyTransactionHash,
  type HostingParticipant,
  type TopologyTransaction,
} from './transactions.js';
import { identifierError, parseUid } from './unique-identifiers.js';

export interface PublicKeyInput {
  format: string;
  /** base64 */
  keyData: string;
  keySpec: string;
}

export interface GenerateTopologyInput {
  synchronizer: string;
  partyHint: string;
  publicKey?: PublicKeyInput | null;
  localParticipantObservationOnly: boolean;
  otherConfirmingParticipantUids: string[];
  confirmationThreshold: number;
  observingParticipantUids: string[];
}

export interface GeneratedTopology {
  partyId: string;
  publicKeyFingerprint: string;
  /** base64 of each serialized, versioned transaction */
  topologyTransactions: string[];
  /** base64 */
  multiHash: string;
}

/** The usages Canton gives the key of a generated topology (namespace, proof of ownership, protocol). */
const GENERATED_KEY_USAGE = [SigningKeyUsage.Namespace, SigningKeyUsage.ProofOfOwnership, SigningKeyUsage.Protocol];

const LAPI_KEY_FORMATS: Record<string, KeyFormat> = {
  CRYPTO_KEY_FORMAT_RAW: 'raw',
  CRYPTO_KEY_FORMAT_DER: 'der',
  CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO: 'spki',
};

const invalid = (what: string) => errors.invalidArgument(what);

function keyFromWire(pk: PublicKeyInput): NormalizedSigningKey | string {
  const format = LAPI_KEY_FORMATS[pk.format];
  if (format === undefined) return 'format: Field `format` is not set';
  const spec = pk.keySpec;
  if (!isSigningKeySpec(spec)) return 'key_spec: Field `key_spec` is not set';
  if (pk.keyData === '') return 'public_key: Field `public_key` is empty';
  try {
    return normalizeSigningKey(format, Buffer.from(pk.keyData, 'base64'), spec);
  } catch (e) {
    if (e instanceof SigningKeyError) return e.message;
    throw e;
  }
}

export function generateExternalPartyTopology(engine: LedgerEngine, input: GenerateTopologyInput): GeneratedTopology {
  const participantUid = engine.participantId;
  const availableConfirmers = (input.localParticipantObservationOnly ? 0 : 1) + input.otherConfirmingParticipantUids.length;

  if (!input.publicKey) throw invalid('Field `public_key` is not set');
  const key = keyFromWire(input.publicKey);
  if (typeof key === 'string') throw invalid(key);

  const sync = parseUid(input.synchronizer);
  if (typeof sync === 'string') throw invalid(sync);
  if (input.synchronizer !== engine.synchronizerId) throw invalid(`Unknown or not connected synchronizer ${input.synchronizer}`);
  if (input.partyHint === '') throw invalid('Party hint is empty');
  const hintErr = identifierError(input.partyHint);
  if (hintErr !== undefined) throw invalid(`party_hint: ${hintErr}`);
  if (input.confirmationThreshold < 0) throw invalid('Negative confirmation threshold observed');
  for (const uid of [...input.otherConfirmingParticipantUids, ...input.observingParticipantUids]) {
    const parsed = parseUid(uid);
    if (typeof parsed === 'string') throw invalid(parsed);
  }
  if (input.otherConfirmingParticipantUids.includes(participantUid)) {
    throw invalid(
      `This participant node (PAR::${participantUid}) is also listed in 'otherConfirmingParticipantUids'. By sending the request to this node, it is de facto a hosting node and must not be listed in 'otherConfirmingParticipantUids'.`,
    );
  }
  if (input.observingParticipantUids.includes(participantUid)) {
    throw invalid(
      `This participant node (PAR::${participantUid}) is also listed in 'observingParticipantUids'. By sending the request to this node, it is de facto a hosting node and must not be listed in 'observingParticipantUids'.`,
    );
  }
  const all = [...input.otherConfirmingParticipantUids, ...input.observingParticipantUids];
  const duplicates = [...new Set(all.filter((uid, i) => all.indexOf(uid) !== i))];
  if (duplicates.length > 0) {
    throw invalid(
      `The following participant IDs are referenced multiple times in the request: ${duplicates.join(', ')}. Please ensure all IDs are referenced only once across 'otherConfirmingParticipantUids' and 'observingParticipantUids' fields.`,
    );
  }
  if (input.confirmationThreshold > availableConfirmers) throw invalid('Confirmation threshold exceeds number of confirming participants');
  const threshold = input.confirmationThreshold === 0 ? availableConfirmers : input.confirmationThreshold;
  // Canton's `PositiveInt.tryCreate` would throw here (an internal error); a clear rejection instead.
  if (threshold < 1) throw invalid('The party needs at least one confirming participant');

  const partyId = `${input.partyHint}::${key.fingerprint}`;
  const participants: HostingParticipant[] = [
    {
      participantUid,
      permission: input.localParticipantObservationOnly ? ParticipantPermission.Observation : ParticipantPermission.Confirmation,
      onboarding: false,
    },
    ...input.otherConfirmingParticipantUids.map((uid) => ({ participantUid: uid, permission: ParticipantPermission.Confirmation, onboarding: false })),
    ...input.observingParticipantUids.map((uid) => ({ participantUid: uid, permission: ParticipantPermission.Observation, onboarding: false })),
  ];
  const tx: TopologyTransaction = {
    operation: TopologyChangeOp.Replace,
    serial: 1,
    mapping: {
      kind: 'PartyToParticipant',
      party: partyId,
      threshold,
      participants,
      partySigningKeys: { keys: [topologySigningKey(key, GENERATED_KEY_USAGE)], threshold: 1 },
    },
  };
  const serialized = encodeTopologyTransaction(tx);
  return {
    partyId,
    publicKeyFingerprint: key.fingerprint,
    topologyTransactions: [serialized.toString('base64')],
    multiHash: combinedTopologyHash([topologyTransactionHash(serialized)]).toString('base64'),
  };
}
