/**
 * Helpers for interactive-submission tests: an Ed25519 key registered for a (normally
 * allocated) party in `engine.externalParties`, signing the prepared-transaction hash as a
 * wallet does, and prepare / execute requests over the JSON API.
 */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import type { LedgerEngine } from '../../src/emulator/participant/engine.js';
import { normalizeSigningKey } from '../../src/emulator/participant/topology/signing-keys.js';

export interface ExternalKey {
  party: string;
  fingerprint: string;
  rawPublicKey: Buffer;
  privateKey: KeyObject;
  /** A `Signature` over the base64 hash, as the wallet SDK sends it. */
  signature(hashB64: string): { signature: string; signedBy: string; format: string; signingAlgorithmSpec: string };
}

export function newKey(party: string): ExternalKey {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const rawPublicKey = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  const { fingerprint } = normalizeSigningKey('raw', rawPublicKey, 'SIGNING_KEY_SPEC_EC_CURVE25519');
  return {
    party,
    fingerprint,
    rawPublicKey,
    privateKey,
    signature: (hashB64) => ({
      signature: sign(null, Buffer.from(hashB64, 'base64'), privateKey).toString('base64'),
      signedBy: fingerprint,
      format: 'SIGNATURE_FORMAT_CONCAT',
      signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ED25519',
    }),
  };
}

/** Registers a fresh Ed25519 key (threshold 1) for `party`, which must already be allocated. */
export function registerExternal(engine: LedgerEngine, party: string): ExternalKey {
  const k = newKey(party);
  engine.externalParties.register({
    party,
    keys: [normalizeSigningKey('raw', k.rawPublicKey, 'SIGNING_KEY_SPEC_EC_CURVE25519')],
    threshold: 1,
  });
  return k;
}

let n = 0;
export function prepareBody(actAs: string[], commands: unknown[], extra: Record<string, unknown> = {}) {
  return { userId: 'tester', commandId: `isub-${++n}`, actAs, commands, ...extra };
}

export function executeBody(prepared: { preparedTransaction: string; preparedTransactionHash: string }, keys: ExternalKey[], extra: Record<string, unknown> = {}) {
  return {
    userId: 'tester',
    preparedTransaction: prepared.preparedTransaction,
    hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
    submissionId: `sub-${++n}`,
    partySignatures: { signatures: keys.map((k) => ({ party: k.party, signatures: [k.signature(prepared.preparedTransactionHash)] })) },
    ...extra,
  };
}
