/**
 * Request bodies of the validator endpoints we serve, one zod schema per wire type of
 * wallet-external.yaml / wallet-internal.yaml. Lenient like the generated server (unknown keys are
 * ignored); a body that does not decode is answered like scan's (`decodeBody` of
 * ../scan/schemas.ts: 400 `The request content was malformed:\nDecodingFailure at ...`).
 *
 * Field-level checks the handlers make after decoding (Splice `Codec.tryDecode`, which throws an
 * IllegalArgumentException → 400 with its message) are here too.
 */
import { z } from 'zod';
import { partyIdError } from '../scan/encode.js';
import { badRequest } from './errors.js';

export { decodeBody } from '../scan/schemas.js';
import { int64 } from '../scan/schemas.js';


const opt = <T extends z.ZodType>(t: T) => t.nullish().transform((v) => v ?? undefined);

/** `CreateTransferOfferRequest` (all five fields required). */
export const CreateTransferOfferRequest = z.object({
  receiver_party_id: z.string(),
  amount: z.string(),
  description: z.string(),
  expires_at: int64,
  tracking_id: z.string(),
});
export type CreateTransferOfferRequest = z.infer<typeof CreateTransferOfferRequest>;

/** `CreateBuyTrafficRequest` (wallet-external.yaml; all five fields required). */
export const CreateBuyTrafficRequest = z.object({
  receiving_validator_party_id: z.string(),
  domain_id: z.string(),
  traffic_amount: int64,
  tracking_id: z.string(),
  expires_at: int64,
});
export type CreateBuyTrafficRequest = z.infer<typeof CreateBuyTrafficRequest>;

/** `TapRequest`. */
export const TapRequest = z.object({
  amount: z.string(),
  command_id: opt(z.string()),
});
export type TapRequest = z.infer<typeof TapRequest>;

/** `TransferPreapprovalSendRequest` (receiver_party_id, amount, deduplication_id required). */
export const TransferPreapprovalSendRequest = z.object({
  receiver_party_id: z.string(),
  amount: z.string(),
  deduplication_id: z.string(),
  description: opt(z.string()),
});
export type TransferPreapprovalSendRequest = z.infer<typeof TransferPreapprovalSendRequest>;

// ---- Codec.tryDecode -------------------------------------------------------------------------

/** Daml `Numeric.fromString` (the form `Codec.JavaBigDecimal` accepts): optional sign, digits, optional fraction. */
const NUMERIC = /^-?\d+(\.\d+)?$/;

/** `Codec.tryDecode(Codec.JavaBigDecimal)`; returns the text and its scale (fraction digits). */
export function decodeNumeric(text: string): { text: string; scale: number } {
  const digits = text.replace(/^-/, '').replace('.', '').replace(/^0+(?=\d)/, '');
  if (!NUMERIC.test(text) || digits.length > 38) throw badRequest(`Could not read Numeric string "${text}"`);
  const frac = text.split('.')[1] ?? '';
  return { text, scale: frac.length };
}

/** `Codec.tryDecode(Codec.Party)`: `PartyId.fromProtoPrimitive`. */
export function decodeParty(party: string): string {
  const err = partyIdError(party);
  if (err) throw badRequest(err);
  return party;
}

/** Daml `Time` bounds (0001-01-01T00:00:00Z .. 9999-12-31T23:59:59.999999Z) in epoch micros. */
const MIN_MICROS = -62135596800000000n;
const MAX_MICROS = 253402300799999999n;

/** `Codec.tryDecode(Codec.Timestamp)`: unix micros within Daml's `Time` range. */
export function decodeTimestampMicros(micros: number): bigint {
  const m = BigInt(micros);
  if (m < MIN_MICROS || m > MAX_MICROS) throw badRequest(`micros ${m} is out of bound [${MIN_MICROS}, ${MAX_MICROS}]`);
  return m;
}
