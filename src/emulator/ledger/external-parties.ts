/**
 * External parties hosted by the emulated participant: parties whose signing keys live with the
 * wallet, not the node (Canton 3.x "external parties"). The participant keeps, per party, the
 * public keys of its party-to-key mapping and the signing threshold; every transaction such a
 * party submits must carry at least `threshold` valid signatures by those keys over the
 * prepared-transaction hash (Canton's interactive submission service).
 *
 * Signature checks use node:crypto with Canton's algorithm specs (crypto.proto v30):
 *  - SIGNING_ALGORITHM_SPEC_ED25519: Ed25519 over the raw hash bytes; signature format RAW or
 *    CONCAT (the wallet SDK sends CONCAT for Ed25519, and participants accept it);
 *  - SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256 / _384: ECDSA over SHA-256 / SHA-384 of the hash
 *    bytes, signature DER or CONCAT (r || s).
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';

export type SigningKeySpec =
  | 'SIGNING_KEY_SPEC_EC_CURVE25519'
  | 'SIGNING_KEY_SPEC_EC_P256'
  | 'SIGNING_KEY_SPEC_EC_P384'
  | 'SIGNING_KEY_SPEC_EC_SECP256K1';

export type SigningAlgorithmSpec =
  | 'SIGNING_ALGORITHM_SPEC_ED25519'
  | 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256'
  | 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384';

export interface SigningPublicKey {
  /** Canton fingerprint of the key (`1220` + 64 hex), what a signature's `signedBy` names. */
  fingerprint: string;
  spec: SigningKeySpec;
  key: KeyObject;
}

/** One signature as the JSON API carries it (`Signature` of the interactive submission API). */
export interface WireSignature {
  /** base64 */
  signature: string;
  signedBy: string;
  format: string;
  signingAlgorithmSpec: string;
}

export interface ExternalPartyRecord {
  party: string;
  keys: SigningPublicKey[];
  /** Signatures needed from distinct keys (the party-to-key mapping's threshold). */
  threshold: number;
}

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

/** DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410): 30 2a 30 05 06 03 2b 65 70 03 21 00. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** Builds a verification key from the bytes a client sent: raw Ed25519 or DER SubjectPublicKeyInfo. */
export function publicKeyFromBytes(bytes: Buffer, format: 'raw' | 'spki'): KeyObject {
  if (format === 'raw') {
    if (bytes.length !== 32) throw new Error(`a raw Ed25519 key has 32 bytes, got ${bytes.length}`);
    return createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, bytes]), format: 'der', type: 'spki' });
  }
  return createPublicKey({ key: bytes, format: 'der', type: 'spki' });
}

/** Verifies one signature over `data` with `key`; false for any malformed input. */
export function verifySignature(key: SigningPublicKey, data: Uint8Array, sig: WireSignature): boolean {
  const signature = Buffer.from(sig.signature, 'base64');
  try {
    switch (sig.signingAlgorithmSpec) {
      case 'SIGNING_ALGORITHM_SPEC_ED25519':
        if (key.spec !== 'SIGNING_KEY_SPEC_EC_CURVE25519') return false;
        if (sig.format !== 'SIGNATURE_FORMAT_RAW' && sig.format !== 'SIGNATURE_FORMAT_CONCAT') return false;
        return verify(null, data, key.key, signature);
      case 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256':
      case 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384': {
        if (key.spec === 'SIGNING_KEY_SPEC_EC_CURVE25519') return false;
        const digest = sig.signingAlgorithmSpec === 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256' ? 'sha256' : 'sha384';
        if (sig.format === 'SIGNATURE_FORMAT_DER') return verify(digest, data, { key: key.key, dsaEncoding: 'der' }, signature);
        if (sig.format === 'SIGNATURE_FORMAT_CONCAT') return verify(digest, data, { key: key.key, dsaEncoding: 'ieee-p1363' }, signature);
        return false;
      }
      default:
        return false;
    }
  } catch {
    return false;
  }
}

export class ExternalPartyStore {
  private readonly byParty = new Map<string, ExternalPartyRecord>();

  register(rec: ExternalPartyRecord): void {
    this.byParty.set(rec.party, rec);
  }

  get(party: string): ExternalPartyRecord | undefined {
    return this.byParty.get(party);
  }

  isExternal(party: string): boolean {
    return this.byParty.has(party);
  }

  all(): ExternalPartyRecord[] {
    return [...this.byParty.values()];
  }

  /**
   * Checks that `signatures` authorize `party` over `hash`: each must be by one of the party's
   * keys (by fingerprint) and valid; at least `threshold` distinct keys must have signed.
   */
  verifyPartySignatures(party: string, hash: Uint8Array, signatures: readonly WireSignature[]): SignatureCheck {
    const rec = this.byParty.get(party);
    if (!rec) return { ok: false, reason: `party ${party} is not an external party hosted here` };
    const valid = new Set<string>();
    for (const sig of signatures) {
      const key = rec.keys.find((k) => k.fingerprint === sig.signedBy);
      if (!key) return { ok: false, reason: `signature by unknown key ${sig.signedBy} for party ${party}` };
      if (!verifySignature(key, hash, sig)) return { ok: false, reason: `invalid signature by ${sig.signedBy} for party ${party}` };
      valid.add(key.fingerprint);
    }
    if (valid.size < rec.threshold) {
      return { ok: false, reason: `party ${party} needs ${rec.threshold} valid signature(s), got ${valid.size}` };
    }
    return { ok: true };
  }
}
