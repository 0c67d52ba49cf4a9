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
import { verify, type KeyObject } from 'node:crypto';
import type { z } from 'zod';
import type { SigningKeySpecSchema } from '../../ledger-client/schemas/external-parties.js';

/** The key specs a party key can have: the Ledger API's `SigningKeySpec` less UNSPECIFIED. */
export type SigningKeySpec = Exclude<z.infer<typeof SigningKeySpecSchema>, 'SIGNING_KEY_SPEC_UNSPECIFIED'>;

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

/**
 * The outcome of checking a party's signatures. A failure carries the tally Canton's rejection
 * reports: distinct keys with a valid signature, signatures that were invalid or by an unknown
 * key, and the threshold; `external` is false when the party has no keys here at all.
 */
export type SignatureCheck =
  | { ok: true }
  | { ok: false; external: boolean; reason: string; valid: number; invalid: number; threshold: number };

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

  /** `onRegister` is called after every registration (durable state journals it). */
  constructor(private readonly opts: { onRegister?: (rec: ExternalPartyRecord) => void } = {}) {}

  register(rec: ExternalPartyRecord): void {
    this.byParty.set(rec.party, rec);
    this.opts.onRegister?.(rec);
  }

  /** Forgets every external party (durable state's restore). */
  clear(): void {
    this.byParty.clear();
  }

  /** Registers a saved record (durable state's restore); no hooks. */
  restore(rec: ExternalPartyRecord): void {
    this.byParty.set(rec.party, rec);
  }

  get(party: string): ExternalPartyRecord | undefined {
    return this.byParty.get(party);
  }

  all(): ExternalPartyRecord[] {
    return [...this.byParty.values()];
  }

  /**
   * Checks that `signatures` authorize `party` over `hash`: each must be by one of the party's
   * keys (by fingerprint) and valid; at least `threshold` distinct keys must have signed. Every
   * signature is checked, so a failure reports the whole tally.
   */
  verifyPartySignatures(party: string, hash: Uint8Array, signatures: readonly WireSignature[]): SignatureCheck {
    const rec = this.byParty.get(party);
    if (!rec) return { ok: false, external: false, reason: `party ${party} is not an external party hosted here`, valid: 0, invalid: signatures.length, threshold: 0 };
    const valid = new Set<string>();
    let invalid = 0;
    for (const sig of signatures) {
      const key = rec.keys.find((k) => k.fingerprint === sig.signedBy);
      if (key && verifySignature(key, hash, sig)) valid.add(key.fingerprint);
      else invalid++;
    }
    if (invalid > 0 || valid.size < rec.threshold) {
      const reason = `party ${party}: ${valid.size} valid signature(s) from distinct keys, ${invalid} invalid or by unknown keys, threshold ${rec.threshold}`;
      return { ok: false, external: true, reason, valid: valid.size, invalid, threshold: rec.threshold };
    }
    return { ok: true };
  }
}
