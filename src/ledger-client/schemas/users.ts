/**
 * Wire schemas of the user management and identity-provider endpoints (openapi-3.5.yaml: User,
 * Right/Kind, CreateUserRequest, UpdateUserRequest, Grant/RevokeUserRightsRequest,
 * UpdateUserIdentityProviderIdRequest, IdentityProviderConfig and the responses).
 *
 * Requests decode leniently like Canton's relaxed circe codecs (see ./parties.ts). `Kind` is a
 * oneof printed as a single-key object with a `value` level: `{"CanActAs":{"value":{"party":p}}}`,
 * `{"ParticipantAdmin":{"value":{}}}`; the `value` level is required (the Scala oneof case has
 * no default), `{"Empty":{}}` decodes and is rejected later by Canton logic.
 */
import { z } from 'zod';
import { FieldMaskSchema, ObjectMetaSchema } from './parties.js';

const str = z.string().default('');
const bool = z.boolean().default(false);

export const UserSchema = z.object({
  id: str,
  primaryParty: str,
  isDeactivated: bool,
  metadata: ObjectMetaSchema.nullish(),
  identityProviderId: str,
  primaryPartyAuthentication: bool,
});
export type UserWire = z.infer<typeof UserSchema>;

const partyValue = z.object({ value: z.object({ party: str }) });
const emptyValue = z.object({ value: z.object({}) });

export const KindSchema = z.union([
  z.object({ CanActAs: partyValue }),
  z.object({ CanReadAs: partyValue }),
  z.object({ CanExecuteAs: partyValue }),
  z.object({ ParticipantAdmin: emptyValue }),
  z.object({ IdentityProviderAdmin: emptyValue }),
  z.object({ CanReadAsAnyParty: emptyValue }),
  z.object({ CanExecuteAsAnyParty: emptyValue }),
  z.object({ Empty: z.object({}) }),
]);
export type KindWire = z.infer<typeof KindSchema>;

/** Right: `{"kind": Kind}`; a missing kind is the proto oneof's Empty case. */
export const RightSchema = z.object({ kind: KindSchema.default({ Empty: {} }) });
export type RightWire = z.infer<typeof RightSchema>;

export const CreateUserRequestSchema = z.object({
  user: UserSchema.nullish(),
  rights: z.array(RightSchema).default([]),
});
export type CreateUserRequest = z.infer<typeof CreateUserRequestSchema>;

export const UpdateUserRequestSchema = z.object({
  user: UserSchema.nullish(),
  updateMask: FieldMaskSchema.nullish(),
});
export type UpdateUserRequest = z.infer<typeof UpdateUserRequestSchema>;

/** GrantUserRightsRequest and RevokeUserRightsRequest have the same shape. */
export const UserRightsRequestSchema = z.object({
  userId: str,
  rights: z.array(RightSchema).default([]),
  identityProviderId: str,
});
export type UserRightsRequest = z.infer<typeof UserRightsRequestSchema>;
export const GrantUserRightsRequestSchema = UserRightsRequestSchema;
export const RevokeUserRightsRequestSchema = UserRightsRequestSchema;

export const UpdateUserIdentityProviderIdRequestSchema = z.object({
  userId: str,
  sourceIdentityProviderId: str,
  targetIdentityProviderId: str,
});

export const IdentityProviderConfigSchema = z.object({
  identityProviderId: str,
  isDeactivated: bool,
  issuer: str,
  jwksUrl: str,
  audience: str,
});
export const CreateIdentityProviderConfigRequestSchema = z.object({
  identityProviderConfig: IdentityProviderConfigSchema.nullish(),
});
export const UpdateIdentityProviderConfigRequestSchema = z.object({
  identityProviderConfig: IdentityProviderConfigSchema.nullish(),
  updateMask: FieldMaskSchema.nullish(),
});

// ---- responses (what the emulator prints) ---------------------------------------------------

export const UserOutSchema = z.object({
  id: z.string(),
  primaryParty: z.string(),
  isDeactivated: z.boolean(),
  metadata: z.object({ resourceVersion: z.string(), annotations: z.record(z.string(), z.string()) }),
  identityProviderId: z.string(),
  primaryPartyAuthentication: z.boolean(),
});
export type UserOut = z.infer<typeof UserOutSchema>;

export const RightOutSchema = z.object({ kind: z.record(z.string(), z.object({ value: z.record(z.string(), z.string()) })) });
export type RightOut = z.infer<typeof RightOutSchema>;

export const UserResponseSchema = z.object({ user: UserOutSchema });
export const ListUsersResponseSchema = z.object({ users: z.array(UserOutSchema), nextPageToken: z.string() });
export const ListUserRightsResponseSchema = z.object({ rights: z.array(RightOutSchema) });
export const GrantUserRightsResponseSchema = z.object({ newlyGrantedRights: z.array(RightOutSchema) });
export const RevokeUserRightsResponseSchema = z.object({ newlyRevokedRights: z.array(RightOutSchema) });
export const ListIdentityProviderConfigsResponseSchema = z.object({
  identityProviderConfigs: z.array(IdentityProviderConfigSchema),
});
