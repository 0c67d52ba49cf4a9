/**
 * Canton's purpose-tagged hashes (`com.digitalasset.canton.crypto.Hash` / `HashBuilder`,
 * `HashPurpose`): SHA-256 over the 4-byte big-endian purpose id followed by the content, printed
 * as a multihash (`0x12` = sha2-256, `0x20` = 32 bytes, then the digest). Hex of such a hash is
 * the `1220…` form of fingerprints, namespaces and topology transaction hashes.
 */
import { createHash } from 'node:crypto';

/** The `HashPurpose` ids the external-party flows use (Canton `HashPurpose.scala`). */
export const HashPurpose = {
  /** Hash of a topology transaction, what each signature of it covers. */
  TopologyTransactionSignature: 11,
  /** Fingerprint of a public key: the key id, the namespace of a root key. */
  PublicKeyFingerprint: 12,
  /** The combined hash of several topology transactions, signed once for all of them. */
  MultiTopologyTransaction: 55,
} as const;

const MULTIHASH_SHA256_PREFIX = Buffer.from([0x12, 0x20]);

function int32be(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
}

/** `Hash.digest(purpose, bytes, Sha256)` as its multihash bytes (34 bytes). */
export function cantonHash(purpose: number, content: Uint8Array): Buffer {
  const digest = createHash('sha256').update(int32be(purpose)).update(content).digest();
  return Buffer.concat([MULTIHASH_SHA256_PREFIX, digest]);
}

/** A key fingerprint (`Fingerprint.create`) in its printed hex form, `1220` + 64 hex. */
export function fingerprintOf(keyBytesForFingerprint: Uint8Array): string {
  return cantonHash(HashPurpose.PublicKeyFingerprint, keyBytesForFingerprint).toString('hex');
}

/**
 * `MultiTransactionSignature.computeCombinedHash`: the transaction hashes (multihash bytes),
 * de-duplicated and sorted by their hex form, hashed with purpose MultiTopologyTransaction as
 * `count || (length || hash)*` with 4-byte big-endian integers (what `HashBuilder.add(Int)` and
 * `HashBuilder.add(ByteString)` append).
 */
export function combinedTopologyHash(transactionHashes: readonly Uint8Array[]): Buffer {
  const unique = new Map<string, Buffer>();
  for (const h of transactionHashes) unique.set(Buffer.from(h).toString('hex'), Buffer.from(h));
  const sorted = [...unique.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, h]) => h);
  const parts: Buffer[] = [int32be(sorted.length)];
  for (const h of sorted) parts.push(int32be(h.length), h);
  return cantonHash(HashPurpose.MultiTopologyTransaction, Buffer.concat(parts));
}
