/**
 * Wire schemas of external party onboarding (openapi-3.5.yaml: GenerateExternalPartyTopologyRequest
 * / Response, AllocateExternalPartyRequest / Response, SignedTransaction, Signature,
 * SigningPublicKey). Requests decode leniently like Canton's relaxed circe codecs (unknown keys
 * ignored, missing scalars take proto defaults); enum strings outside the Ledger API's enums
 * (com/daml/ledger/api/v2/crypto.proto) and malformed base64 are decode failures, as they are
 * for ScalaPB's JSON codecs. Response schemas are strict.
 */
import { z } from 'zod';

const str = z.string().default('');
const bool = z.boolean().default(false);

/** Standard base64 (protobuf `bytes` in JSON): padded, `+/` alphabet. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const base64 = z.string().refine((s) => BASE64.test(s), { message: 'Invalid base64 value' });

/** `com.daml.ledger.api.v2.CryptoKeyFormat`. */
export const CryptoKeyFormatSchema = z.enum([
  'CRYPTO_KEY_FORMAT_UNSPECIFIED',
  'CRYPTO_KEY_FORMAT_DER',
  'CRYPTO_KEY_FORMAT_RAW',
  'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO',
]);
/** `com.daml.ledger.api.v2.SigningKeySpec`. */
export const SigningKeySpecSchema = z.enum([
  'SIGNING_KEY_SPEC_UNSPECIFIED',
  'SIGNING_KEY_SPEC_EC_CURVE25519',
  'SIGNING_KEY_SPEC_EC_P256',
  'SIGNING_KEY_SPEC_EC_P384',
  'SIGNING_KEY_SPEC_EC_SECP256K1',
]);
/** `com.daml.ledger.api.v2.SignatureFormat`. */
export const SignatureFormatSchema = z.enum([
  'SIGNATURE_FORMAT_UNSPECIFIED',
  'SIGNATURE_FORMAT_RAW',
  'SIGNATURE_FORMAT_DER',
  'SIGNATURE_FORMAT_CONCAT',
  'SIGNATURE_FORMAT_SYMBOLIC',
]);
/** `com.daml.ledger.api.v2.SigningAlgorithmSpec`. */
export const SigningAlgorithmSpecSchema = z.enum([
  'SIGNING_ALGORITHM_SPEC_UNSPECIFIED',
  'SIGNING_ALGORITHM_SPEC_ED25519',
  'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256',
  'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384',
]);

export const SigningPublicKeySchema = z.object({
  format: CryptoKeyFormatSchema.default('CRYPTO_KEY_FORMAT_UNSPECIFIED'),
  keyData: base64.default(''),
  keySpec: SigningKeySpecSchema.default('SIGNING_KEY_SPEC_UNSPECIFIED'),
});
export type SigningPublicKeyWire = z.infer<typeof SigningPublicKeySchema>;

export const SignatureSchema = z.object({
  format: SignatureFormatSchema.default('SIGNATURE_FORMAT_UNSPECIFIED'),
  signature: base64.default(''),
  signedBy: str,
  signingAlgorithmSpec: SigningAlgorithmSpecSchema.default('SIGNING_ALGORITHM_SPEC_UNSPECIFIED'),
});
export type SignatureWire = z.infer<typeof SignatureSchema>;

export const GenerateExternalPartyTopologyRequestSchema = z.object({
  synchronizer: str,
  partyHint: str,
  publicKey: SigningPublicKeySchema.nullish(),
  localParticipantObservationOnly: bool,
  otherConfirmingParticipantUids: z.array(z.string()).default([]),
  confirmationThreshold: z.number().int().default(0),
  observingParticipantUids: z.array(z.string()).default([]),
});
export type GenerateExternalPartyTopologyRequest = z.infer<typeof GenerateExternalPartyTopologyRequestSchema>;

export const SignedTransactionSchema = z.object({
  transaction: base64.default(''),
  signatures: z.array(SignatureSchema).default([]),
});

export const AllocateExternalPartyRequestSchema = z.object({
  synchronizer: str,
  onboardingTransactions: z.array(SignedTransactionSchema).default([]),
  multiHashSignatures: z.array(SignatureSchema).default([]),
  identityProviderId: str,
  /** proto3 `optional bool`: absent means true (Canton: "only false if explicitly set to false"). */
  waitForAllocation: z.boolean().nullish(),
  userId: str,
});
export type AllocateExternalPartyRequest = z.infer<typeof AllocateExternalPartyRequestSchema>;

// ---- responses --------------------------------------------------------------------------------

export const GenerateExternalPartyTopologyResponseSchema = z.object({
  partyId: z.string(),
  publicKeyFingerprint: z.string(),
  /** base64 of each serialized, versioned topology transaction. */
  topologyTransactions: z.array(z.string()),
  /** base64 of the combined hash of all transactions. */
  multiHash: z.string(),
});
export type GenerateExternalPartyTopologyResponse = z.infer<typeof GenerateExternalPartyTopologyResponseSchema>;

export const AllocateExternalPartyResponseSchema = z.object({ partyId: z.string() });
