/**
 * `POST /v2/parties/external/allocate` on the emulated participant: Canton 3.5's
 * `ApiPartyManagementService.allocateExternalParty`, the structural checks of
 * `ExternalPartyOnboardingDetails.create`, and the part of the topology manager's authorization a
 * fresh party's onboarding needs: every signature valid, the party's namespace key and every
 * signing key a transaction introduces among the signers.
 *
 * Accepted onboardings: the self-signed PartyToParticipant that generate-topology produces, and
 * the older form Canton still accepts (root NamespaceDelegation + PartyToKeyMapping +
 * PartyToParticipant). Signatures are per transaction (over its hash) or over the multi-hash.
 *
 * Everything is validated before anything is written: a rejected request changes nothing.
 */
import { errors, LedgerApiError } from '../../../canton/errors.js';
import type { LedgerEngine } from '../engine.js';
import type { HostingPermission } from '../synchronizer.js';
import { verifySignature, type SigningPublicKey, type WireSignature } from '../external-parties.js';
import { combinedTopologyHash } from './canton-hash.js';
import { SigningKeyError, signingKeyOfTopology, type NormalizedSigningKey } from './signing-keys.js';
import {
  decodeTopologyTransaction,
  ParticipantPermission,
  SigningKeyUsage,
  TopologyChangeOp,
  TopologyDecodeError,
  topologyTransactionHash,
  type TopologyMapping,
  type TopologyTransaction,
} from './transactions.js';
import { fingerprintError, parseUid } from './unique-identifiers.js';

export interface SignedTransactionInput {
  /** base64 */
  transaction: string;
  signatures: WireSignature[];
}

export interface AllocateExternalInput {
  synchronizer: string;
  onboardingTransactions: SignedTransactionInput[];
  multiHashSignatures: WireSignature[];
}

export interface AllocateExternalOptions {
  identityProviderId: string;
  /**
   * Runs after the request is validated and before anything is written (Canton's user existence
   * and quota checks happen there); throwing aborts the allocation with nothing changed.
   */
  beforeCommit?: (party: string) => void;
  /**
   * Runs when the party becomes hosted here: at once for a party hosted by this participant only;
   * for a multi-hosted party when the last of its hosting participants has authorized the mapping
   * (the route grants the user its rights then, so that they name a known party).
   */
  onHosted?: (party: string) => void;
}

/** What an allocation did: the party id, and whether the party is hosted now or still waits for other hosting participants. */
export interface AllocateExternalResult {
  party: string;
  effective: boolean;
}

const invalid = (what: string) => errors.invalidArgument(what);

function asStoreKey(k: NormalizedSigningKey): SigningPublicKey {
  return { fingerprint: k.fingerprint, spec: k.spec, key: k.key };
}

/** `CryptoValidator.validateSignature`: the request-level checks of one signature. */
function validateSignature(sig: WireSignature, field: string): void {
  if (sig.format === 'SIGNATURE_FORMAT_UNSPECIFIED' || sig.format === '') throw errors.missingField(`${field}.format`);
  if (sig.signingAlgorithmSpec === 'SIGNING_ALGORITHM_SPEC_UNSPECIFIED' || sig.signingAlgorithmSpec === '') {
    throw errors.missingField(`${field}.signing_algorithm_spec`);
  }
  if (sig.signature === '') throw errors.invalidField(field, 'signature is empty');
  const fpErr = fingerprintError(sig.signedBy);
  if (fpErr !== undefined) throw errors.invalidField(field, fpErr);
}

interface ParsedOnboardingTx {
  tx: TopologyTransaction;
  hash: Buffer;
  signatures: WireSignature[];
  /** The keys the mapping carries, normalized (decoding validates them, as Canton's parser does). */
  keys: NormalizedSigningKey[];
}

function invalidTransaction(message: string): LedgerApiError {
  return errors.invalidField('onboarding_transactions.transaction', `Invalid transaction: ${message}`);
}

function mappingKeys(m: TopologyMapping): NormalizedSigningKey[] {
  const raw =
    m.kind === 'NamespaceDelegation'
      ? m.targetKey
        ? [m.targetKey]
        : []
      : m.kind === 'PartyToKeyMapping'
        ? m.signingKeys
        : m.kind === 'PartyToParticipant'
          ? (m.partySigningKeys?.keys ?? [])
          : [];
  return raw.map(signingKeyOfTopology);
}

/** Mapping invariants `fromProtoV30` enforces (PositiveInt thresholds, ids, key counts). */
function checkMappingInvariants(m: TopologyMapping): void {
  if (m.kind === 'NamespaceDelegation') {
    if (!m.targetKey) throw new TopologyDecodeError('Field `target_key` is not set');
    const err = fingerprintError(m.namespace);
    if (err !== undefined) throw new TopologyDecodeError(err);
  }
  if (m.kind === 'PartyToKeyMapping' || m.kind === 'PartyToParticipant') {
    const uid = parseUid(m.party);
    if (typeof uid === 'string') throw new TopologyDecodeError(uid);
    if (m.threshold < 1) throw new TopologyDecodeError(`Invalid threshold ${m.threshold}: must be positive`);
  }
  if (m.kind === 'PartyToKeyMapping' && (m.signingKeys.length === 0 || m.threshold > m.signingKeys.length)) {
    throw new TopologyDecodeError(`Party ${m.party} cannot meet threshold of ${m.threshold} signing keys with ${m.signingKeys.length} keys`);
  }
  if (m.kind === 'PartyToParticipant') {
    if (m.participants.length === 0) throw new TopologyDecodeError('Field `participants` must not be empty');
    for (const p of m.participants) {
      const uid = parseUid(p.participantUid);
      if (typeof uid === 'string') throw new TopologyDecodeError(uid);
      if (p.permission < 1 || p.permission > 3) throw new TopologyDecodeError(`Unrecognized enum permission ${p.permission}`);
    }
    const uids = m.participants.map((p) => p.participantUid);
    if (new Set(uids).size !== uids.length) throw new TopologyDecodeError('Participants may only be assigned once');
    const confirmers = m.participants.filter((p) => p.permission !== ParticipantPermission.Observation).length;
    if (confirmers > 0 && m.threshold > confirmers) {
      throw new TopologyDecodeError(`Party ${m.party} cannot meet threshold of ${m.threshold} confirming participants with participants ${uids.join(', ')}`);
    }
    const keys = m.partySigningKeys;
    if (keys && (keys.keys.length === 0 || keys.threshold < 1 || keys.threshold > keys.keys.length)) {
      throw new TopologyDecodeError(`Invalid signing keys threshold ${keys.threshold} for ${keys.keys.length} key(s)`);
    }
  }
}

function parseOnboardingTransaction(input: SignedTransactionInput): ParsedOnboardingTx {
  const serialized = Buffer.from(input.transaction, 'base64');
  let tx: TopologyTransaction;
  let keys: NormalizedSigningKey[];
  try {
    if (serialized.length === 0) throw new TopologyDecodeError('Field `transaction` is empty');
    tx = decodeTopologyTransaction(serialized);
    if (tx.serial < 1) throw new TopologyDecodeError(`Invalid serial ${tx.serial}: must be positive`);
    checkMappingInvariants(tx.mapping);
    keys = mappingKeys(tx.mapping);
  } catch (e) {
    if (e instanceof TopologyDecodeError || e instanceof SigningKeyError) throw invalidTransaction(e.message);
    throw e;
  }
  if (tx.operation !== TopologyChangeOp.Replace) {
    throw errors.invalidField('onboarding_transactions.transaction', 'Onboarding topology transactions must be Replace operations');
  }
  if (tx.serial !== 1) throw errors.invalidField('onboarding_transactions.transaction.serial', 'Onboarding transaction serial must be 1');
  for (const sig of input.signatures) validateSignature(sig, 'onboarding_transaction.signatures');
  return { tx, hash: topologyTransactionHash(serialized), signatures: input.signatures, keys };
}

type Ptp = Extract<TopologyMapping, { kind: 'PartyToParticipant' }>;
type Ptk = Extract<TopologyMapping, { kind: 'PartyToKeyMapping' }>;
type Nsd = Extract<TopologyMapping, { kind: 'NamespaceDelegation' }>;

function namespaceOf(party: string): string {
  return party.slice(party.indexOf('::') + 2);
}

/** A signature together with the bytes it must cover (the tx hash, or the multi-hash). */
interface CoveringSignature {
  sig: WireSignature;
  data: Buffer;
}

/**
 * `ExternalPartyOnboardingDetails.parseTransactionsWithSignatures`: per transaction, its own
 * signatures plus the multi-hash signatures, one per signer (its own preferred); a root
 * NamespaceDelegation keeps only its namespace key's signatures.
 */
function signaturesPerTransaction(txs: ParsedOnboardingTx[], multi: WireSignature[], multiHash: Buffer): CoveringSignature[][] {
  return txs.map((t) => {
    const bySigner = new Map<string, CoveringSignature>();
    for (const sig of t.signatures) if (!bySigner.has(sig.signedBy)) bySigner.set(sig.signedBy, { sig, data: t.hash });
    for (const sig of multi) if (!bySigner.has(sig.signedBy)) bySigner.set(sig.signedBy, { sig, data: multiHash });
    const all = [...bySigner.values()];
    const m = t.tx.mapping;
    return m.kind === 'NamespaceDelegation' ? all.filter((s) => s.sig.signedBy === m.namespace) : all;
  });
}

interface OnboardingPlan {
  party: string;
  ptp: Ptp;
  ptk: Ptk | undefined;
  nsd: Nsd | undefined;
  /** Per transaction, the signatures that apply to it. */
  signatures: CoveringSignature[][];
  txs: ParsedOnboardingTx[];
}

/** `ExternalPartyOnboardingDetails.create`: which transactions form the onboarding, structurally. */
function planOnboarding(engine: LedgerEngine, txs: ParsedOnboardingTx[], multi: WireSignature[]): OnboardingPlan {
  const unwanted = [...new Set(txs.flatMap((t) => (t.tx.mapping.kind === 'Other' ? [t.tx.mapping.name] : [])))];
  if (unwanted.includes('DecentralizedNamespaceDefinition')) {
    throw invalid('Decentralized party namespaces are not supported by the emulated participant');
  }
  if (unwanted.length > 0) {
    throw invalid(
      `Unsupported transactions found: ${unwanted.join(', ')}. Supported transactions are: NamespaceDelegation, DecentralizedNamespaceDefinition, PartyToParticipant, PartyToKeyMapping`,
    );
  }
  const multiHash = combinedTopologyHash(txs.map((t) => t.hash));
  const signatures = signaturesPerTransaction(txs, multi, multiHash);
  const signed = txs.filter((_, i) => signatures[i]!.length > 0);
  const unsigned = txs.filter((_, i) => signatures[i]!.length === 0);
  const ofKind = <K extends TopologyMapping['kind']>(list: ParsedOnboardingTx[], kind: K) =>
    list.map((t) => t.tx.mapping).filter((m): m is Extract<TopologyMapping, { kind: K }> => m.kind === kind);

  // validateExactlyOnePartyToParticipant: a signed one, else exactly one unsigned one
  const signedPtps = ofKind(signed, 'PartyToParticipant');
  if (signedPtps.length > 1) throw invalid(`Only one transaction of type PartyToParticipant can be provided, got ${signedPtps.length}`);
  const unsignedPtps = ofKind(unsigned, 'PartyToParticipant');
  const ptp = signedPtps[0] ?? unsignedPtps[0];
  if (signedPtps.length === 0 && unsignedPtps.length > 1) {
    throw invalid(`Only one transaction of type PartyToParticipant can be provided, got ${unsignedPtps.length}`);
  }
  if (!ptp) throw invalid('One transaction of type PartyToParticipant must be provided, got 0');

  // validatePartyToParticipant
  const here = engine.participantId;
  const submission = ptp.participants.filter((p) => p.permission === ParticipantPermission.Submission);
  if (submission.length > 0) {
    throw invalid(
      `The PartyToParticipant transaction must not contain any node with Submission permission. Nodes with submission permission: ${submission.map((p) => `PAR::${p.participantUid}`).join(', ')}`,
    );
  }
  if (ptp.participants.length === 1) {
    const only = ptp.participants[0]!;
    if (only.participantUid !== here || only.permission !== ParticipantPermission.Confirmation) {
      throw invalid(
        `The party is to be hosted on a single participant (PAR::${only.participantUid}) that is not this participant (PAR::${here}). Submit the allocation request on PAR::${only.participantUid} instead.`,
      );
    }
  }
  const confirming = ptp.participants.filter((p) => p.permission === ParticipantPermission.Confirmation);
  if (confirming.length === 0) throw invalid('The PartyToParticipant transaction must contain at least one node with Confirmation permission');
  const ptpKeys = (ptp.partySigningKeys?.keys ?? []).map(signingKeyOfTopology);
  const ptpUsages = ptp.partySigningKeys?.keys.map((k) => k.usage) ?? [];
  if (!ptpUsages.every((u) => u.includes(SigningKeyUsage.Protocol))) throw invalid('Missing Protocol usage on signing keys');
  const namespace = namespaceOf(ptp.party);
  const nsKeyIndex = ptpKeys.findIndex((k) => k.fingerprint === namespace);
  if (nsKeyIndex >= 0 && !(ptpUsages[nsKeyIndex]!.includes(SigningKeyUsage.Namespace) && ptpUsages[nsKeyIndex]!.includes(SigningKeyUsage.Protocol))) {
    throw invalid('Missing Namespace and Protocol usage on the party namespace key');
  }
  if (!ptp.participants.some((p) => p.participantUid === here)) {
    throw invalid('This node is not hosting the party either with Confirmation or Observation permission.');
  }

  // validatePartyToKey (signed only, at most one, same namespace)
  const ptks = ofKind(signed, 'PartyToKeyMapping');
  if (ptks.length > 1) throw invalid(`Only one transaction of type PartyToKeyMapping can be provided, got ${ptks.length}`);
  const ptk = ptks[0];
  if (ptk && namespaceOf(ptk.party) !== namespace) {
    throw invalid(`The PartyToKeyMapping namespace (${namespaceOf(ptk.party)}) does not match the PartyToParticipant namespace (${namespace})`);
  }
  // validateExactlyOneSetOfSigningKeys
  if ((ptp.partySigningKeys !== undefined) === (ptk !== undefined)) {
    throw invalid('Party signing keys must be supplied either in the PartyToParticipant or in a PartyToKeyMapping transaction. Not in both.');
  }
  // validatePartyNamespace (signed only)
  const nsds = ofKind(signed, 'NamespaceDelegation');
  if (nsds.length > 1) throw invalid(`Only one transaction of type NamespaceDelegation can be provided, got ${nsds.length}`);
  const nsd = nsds[0];
  if (nsd) {
    const rootKey = signingKeyOfTopology(nsd.targetKey!);
    // Without a restriction, the deprecated is_root_delegation flag decides (topology.proto).
    const canSignAll = nsd.restriction === 'canSignAllMappings' || (nsd.restriction === 'none' && nsd.isRootDelegation);
    if (rootKey.fingerprint !== nsd.namespace || !canSignAll) {
      throw invalid('NamespaceDelegation is not a root namespace. Ensure the namespace and target key are the same');
    }
    if (nsd.namespace !== namespace) {
      throw invalid(`The Party namespace (${nsd.namespace}) does not match the PartyToParticipant namespace (${namespace})`);
    }
  }
  return { party: ptp.party, ptp, ptk, nsd, signatures, txs };
}

/**
 * The topology manager's checks for a fresh party: every signature by a key the onboarding
 * carries must be valid (else INVALID_TOPOLOGY_TX_SIGNATURE_ERROR), and each transaction must be
 * signed by the party's namespace key and by every signing key it introduces (else
 * UNAUTHORIZED_TOPOLOGY_TRANSACTION). The namespace key is the root NamespaceDelegation's target
 * or, for a self-signed PartyToParticipant, its signing key whose fingerprint is the namespace.
 */
function authorize(plan: OnboardingPlan): void {
  const keysByFingerprint = new Map<string, NormalizedSigningKey>();
  for (const t of plan.txs) for (const k of t.keys) keysByFingerprint.set(k.fingerprint, k);
  const namespace = namespaceOf(plan.party);

  const validSigners = plan.txs.map((t, i) => {
    const signers = new Set<string>();
    for (const { sig, data } of plan.signatures[i]!) {
      const key = keysByFingerprint.get(sig.signedBy);
      if (key === undefined) continue; // a key this node does not know cannot authorize anything
      if (!verifySignature(asStoreKey(key), data, sig)) {
        throw new LedgerApiError('INVALID_TOPOLOGY_TX_SIGNATURE_ERROR', 'Transaction signature verification failed');
      }
      signers.add(sig.signedBy);
    }
    return signers;
  });

  const namespaceKeyKnown =
    (plan.nsd !== undefined && validSigners[plan.txs.findIndex((t) => t.tx.mapping === plan.nsd)]!.has(namespace)) ||
    (plan.ptp.partySigningKeys?.keys ?? []).some((k) => signingKeyOfTopology(k).fingerprint === namespace);
  plan.txs.forEach((t, i) => {
    const m = t.tx.mapping;
    if (m !== plan.ptp && m !== plan.ptk && m !== plan.nsd) return; // ignored unsigned extras
    const required = new Set([namespace, ...t.keys.map((k) => k.fingerprint)]);
    const missing = [...required].filter((fp) => !validSigners[i]!.has(fp));
    if (!namespaceKeyKnown || missing.length > 0) {
      throw new LedgerApiError(
        'UNAUTHORIZED_TOPOLOGY_TRANSACTION',
        `Topology transaction is not properly authorized: ${m.kind} for ${plan.party} is missing signatures of ${missing.join(', ') || `the namespace ${namespace}`}`,
      );
    }
  });
}

/**
 * `allocateExternalParty`: decodes and checks the onboarding transactions, verifies their
 * signatures, hosts the party here and registers its protocol keys and threshold with
 * `engine.externalParties`. Returns the party id.
 */
export function allocateExternalParty(engine: LedgerEngine, input: AllocateExternalInput, opts: AllocateExternalOptions): AllocateExternalResult {
  if (input.synchronizer === '') throw errors.missingField('synchronizer');
  const sync = parseUid(input.synchronizer);
  if (typeof sync === 'string') throw errors.invalidField('synchronizer', sync);
  if (input.synchronizer !== engine.synchronizerId) {
    throw invalid(`This node is not connected to the requested synchronizer ${input.synchronizer}.`);
  }
  const txs = input.onboardingTransactions.map(parseOnboardingTransaction);
  if (txs.length === 0) throw errors.invalidField('onboarding_transactions.transactions', 'Transactions field is empty');
  for (const sig of input.multiHashSignatures) validateSignature(sig, 'multi_hash_signatures.signatures');

  const plan = planOnboarding(engine, txs, input.multiHashSignatures);
  opts.beforeCommit?.(plan.party);
  engine.parties.requireNotAllocated(plan.party);
  authorize(plan);

  const protocolKeys = plan.ptp.partySigningKeys ?? { keys: plan.ptk!.signingKeys, threshold: plan.ptk!.threshold };
  const participants = new Map(plan.ptp.participants.map((p) => [p.participantUid, permissionName(p.permission)] as const));
  const permission = participants.get(engine.participantId)!;
  const activate = () => {
    engine.externalParties.register({
      party: plan.party,
      keys: protocolKeys.keys.map((k) => asStoreKey(signingKeyOfTopology(k))),
      threshold: protocolKeys.threshold,
    });
    // Hosting it here records the hosting in the synchronizer's topology (PartyStore.onHosted).
    engine.parties.allocateHosted(plan.party, opts.identityProviderId, permission);
    opts.onHosted?.(plan.party);
  };
  if (participants.size === 1) {
    activate();
    return { party: plan.party, effective: true };
  }
  // A multi-hosted party's mapping needs every hosting participant's authorization: each of them
  // is sent the same allocation (what the wallet SDK does); the last one makes it effective
  // (Canton: `ExternalPartyOnboardingDetails.fullyAllocatesParty` is false for several hosts, and
  // the call returns without waiting).
  const pending = engine.synchronizer.pendingHosting(plan.party);
  if (pending && !sameHosting(pending.participants, participants, pending.threshold, plan.ptp.threshold)) {
    throw invalid(`A different PartyToParticipant mapping of ${plan.party} is awaiting the authorization of its hosting participants`);
  }
  const effective = engine.synchronizer.authorizeHosting({ party: plan.party, participants, threshold: plan.ptp.threshold }, engine.participantId, activate);
  return { party: plan.party, effective };
}

function permissionName(p: number): HostingPermission {
  return p === ParticipantPermission.Submission ? 'Submission' : p === ParticipantPermission.Observation ? 'Observation' : 'Confirmation';
}

function sameHosting(a: ReadonlyMap<string, HostingPermission>, b: ReadonlyMap<string, HostingPermission>, ta: number, tb: number): boolean {
  return ta === tb && a.size === b.size && [...a].every(([id, perm]) => b.get(id) === perm);
}
