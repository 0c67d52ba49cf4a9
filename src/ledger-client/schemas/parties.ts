/**
 * Wire schemas of the party management endpoints (openapi-3.5.yaml: AllocatePartyRequest,
 * UpdatePartyDetailsRequest, PartyDetails, ObjectMeta, FieldMask and the responses).
 *
 * Requests decode leniently like Canton's relaxed circe codecs (digital-asset/canton `.../http/json/v2/CirceRelaxedCodec.scala`):
 * unknown keys are ignored, missing strings / booleans / maps / arrays take their proto defaults,
 * missing or null message fields are absent. A present field of the wrong type is a decode
 * failure (plain-text 400). Response schemas are strict: every field, as Canton prints it.
 */
import { z } from 'zod';

const str = z.string().default('');
const bool = z.boolean().default(false);

/** ObjectMeta: `{resourceVersion, annotations}`. */
export const ObjectMetaSchema = z.object({
  resourceVersion: str,
  annotations: z.record(z.string(), z.string()).default({}),
});
export type ObjectMeta = z.infer<typeof ObjectMetaSchema>;

/** google.protobuf.FieldMask: `{paths, unknownFields}` (unknownFields ignored on input). */
export const FieldMaskSchema = z.object({
  paths: z.array(z.string()).default([]),
});

export const PartyDetailsSchema = z.object({
  party: str,
  isLocal: bool,
  localMetadata: ObjectMetaSchema.nullish(),
  identityProviderId: str,
});
export type PartyDetailsWire = z.infer<typeof PartyDetailsSchema>;

export const AllocatePartyRequestSchema = z.object({
  partyIdHint: str,
  localMetadata: ObjectMetaSchema.nullish(),
  identityProviderId: str,
  synchronizerId: str,
  userId: str,
});
export type AllocatePartyRequest = z.infer<typeof AllocatePartyRequestSchema>;

export const UpdatePartyDetailsRequestSchema = z.object({
  partyDetails: PartyDetailsSchema.nullish(),
  updateMask: FieldMaskSchema.nullish(),
});
export type UpdatePartyDetailsRequest = z.infer<typeof UpdatePartyDetailsRequestSchema>;

// ---- responses (what the emulator prints) ---------------------------------------------------

export const PartyDetailsOutSchema = z.object({
  party: z.string(),
  isLocal: z.boolean(),
  localMetadata: z.object({ resourceVersion: z.string(), annotations: z.record(z.string(), z.string()) }),
  identityProviderId: z.string(),
});
export type PartyDetailsOut = z.infer<typeof PartyDetailsOutSchema>;

export const AllocatePartyResponseSchema = z.object({ partyDetails: PartyDetailsOutSchema });
export const UpdatePartyDetailsResponseSchema = z.object({ partyDetails: PartyDetailsOutSchema });
export const GetPartiesResponseSchema = z.object({ partyDetails: z.array(PartyDetailsOutSchema) });
export const ListKnownPartiesResponseSchema = z.object({
  partyDetails: z.array(PartyDetailsOutSchema),
  nextPageToken: z.string(),
});
export const GetParticipantIdResponseSchema = z.object({ participantId: z.string() });
