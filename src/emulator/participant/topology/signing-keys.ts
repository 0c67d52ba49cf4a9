/**
 * Public signing keys of external parties, normalized as Canton's `SigningPublicKey.create` does
 * (community/base `crypto/Signing.scala`):
 *  - an Ed25519 key given RAW (32 bytes) is migrated to DER X.509 SubjectPublicKeyInfo, and its
 *    fingerprint is taken over the raw 32 bytes (also when the key arrives as SPKI: "to be
 *    backward-compatible, the hash for the fingerprint must apply only to the raw public key");
 *  - an ECDSA key (P-256, P-384, secp256k1) is DER SPKI (the legacy `DER` format is the same
 *    bytes) and its fingerprint is taken over those DER bytes as given.
 * The fingerprint is `Fingerprint.create`: hash purpose PublicKeyFingerprint (12), hex.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { SigningKeySpecSchema } from '../../../ledger-client/schemas/external-parties.js';
import type { SigningKeySpec } from '../external-parties.js';
import { fingerprintOf } from './canton-hash.js';
import { ProtoKeyFormat, type TopologySigningKey } from './transactions.js';

/** crypto.proto v30 `SigningKeySpec` numbers. */
const KEY_SPEC_NUMBERS: Record<SigningKeySpec, number> = {
  SIGNING_KEY_SPEC_EC_CURVE25519: 1,
  SIGNING_KEY_SPEC_EC_P256: 2,
  SIGNING_KEY_SPEC_EC_P384: 3,
  SIGNING_KEY_SPEC_EC_SECP256K1: 4,
};
const KEY_SPECS: readonly SigningKeySpec[] = SigningKeySpecSchema.options.filter((s): s is SigningKeySpec => s !== 'SIGNING_KEY_SPEC_UNSPECIFIED');
const KEY_SPECS_BY_NUMBER = new Map(KEY_SPECS.map((spec) => [KEY_SPEC_NUMBERS[spec], spec]));

export function isSigningKeySpec(s: string): s is SigningKeySpec {
  return (KEY_SPECS as readonly string[]).includes(s);
}

/** The named curve node:crypto reports for each ECDSA key spec. */
const EC_CURVES: Partial<Record<SigningKeySpec, string>> = {
  SIGNING_KEY_SPEC_EC_P256: 'prime256v1',
  SIGNING_KEY_SPEC_EC_P384: 'secp384r1',
  SIGNING_KEY_SPEC_EC_SECP256K1: 'secp256k1',
};

/** DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410): SEQUENCE { id-Ed25519 } BIT STRING. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export type KeyFormat = 'raw' | 'der' | 'spki';

export interface NormalizedSigningKey {
  spec: SigningKeySpec;
  /** The key as Canton stores it after migration: DER X.509 SubjectPublicKeyInfo. */
  spki: Buffer;
  fingerprint: string;
  key: KeyObject;
}

/** The key bytes cannot be a key of that spec and format; the message says why. */
export class SigningKeyError extends Error {}

/** Normalizes a key given as (format, bytes, spec). */
export function normalizeSigningKey(format: KeyFormat, bytes: Buffer, spec: SigningKeySpec): NormalizedSigningKey {
  if (spec === 'SIGNING_KEY_SPEC_EC_CURVE25519') {
    let raw: Buffer;
    if (format === 'raw') {
      if (bytes.length !== 32) throw new SigningKeyError(`Invalid Ed25519 public key length: expected 32 bytes, got ${bytes.length}`);
      raw = bytes;
    } else if (format === 'spki') {
      if (bytes.length !== 44 || !bytes.subarray(0, 12).equals(ED25519_SPKI_PREFIX)) {
        throw new SigningKeyError('Failed to parse public key: not an Ed25519 X.509 SubjectPublicKeyInfo');
      }
      raw = bytes.subarray(12);
    } else {
      throw new SigningKeyError(`Invalid format for Ed25519 public key: ${format.toUpperCase()}`);
    }
    const spki = Buffer.concat([ED25519_SPKI_PREFIX, raw]);
    const key = createPublicKey({ key: spki, format: 'der', type: 'spki' });
    return { spec, spki, fingerprint: fingerprintOf(raw), key };
  }
  if (format === 'raw') throw new SigningKeyError(`Invalid format for ${spec} public key: RAW`);
  let key: KeyObject;
  try {
    key = createPublicKey({ key: bytes, format: 'der', type: 'spki' });
  } catch (e) {
    throw new SigningKeyError(`Failed to parse public key: ${(e as Error).message}`);
  }
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (key.asymmetricKeyType !== 'ec' || curve !== EC_CURVES[spec]) {
    throw new SigningKeyError(`Public key is not a ${spec} key (got ${key.asymmetricKeyType ?? 'unknown'} ${curve ?? ''})`.trim());
  }
  return { spec, spki: Buffer.from(bytes), fingerprint: fingerprintOf(bytes), key };
}

/** The key as a topology mapping carries it (`SigningPublicKey.toProtoV30` after migration). */
export function topologySigningKey(k: NormalizedSigningKey, usage: number[]): TopologySigningKey {
  return { format: ProtoKeyFormat.DerX509Spki, publicKey: k.spki, usage, keySpec: KEY_SPEC_NUMBERS[k.spec], scheme: 0 };
}

/** `SigningPublicKey.fromProtoV30`: the key of a decoded topology mapping. */
export function signingKeyOfTopology(k: TopologySigningKey): NormalizedSigningKey {
  const spec = KEY_SPECS_BY_NUMBER.get(k.keySpec);
  if (spec === undefined) throw new SigningKeyError(k.keySpec === 0 ? 'Field `key_spec` is not set' : `Unrecognized enum key_spec ${k.keySpec}`);
  const format: KeyFormat | undefined =
    k.format === ProtoKeyFormat.Raw ? 'raw' : k.format === ProtoKeyFormat.DerX509Spki ? 'spki' : k.format === ProtoKeyFormat.Der ? 'der' : undefined;
  if (format === undefined) throw new SigningKeyError(k.format === 0 ? 'Field `format` is not set' : `Unsupported key format ${k.format}`);
  // Legacy DER for ECDSA keys is the same SubjectPublicKeyInfo bytes.
  return normalizeSigningKey(format === 'der' && spec !== 'SIGNING_KEY_SPEC_EC_CURVE25519' ? 'spki' : format, k.publicKey, spec);
}
