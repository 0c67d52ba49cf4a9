/**
 * Wire schemas of Canton 3.6's JOSE service (openapi-3.6-snapshot.yaml, `GET
 * /v2/jose/jwks/synchronizer/{synchronizer}/party/{party}`): a JWKS (RFC 7517) whose keys are the
 * JWKs Canton builds from a party's signing keys (digital-asset/canton:
 * community/base/src/main/scala/com/digitalasset/canton/crypto/Jwks.scala `Jwk.toJsonObject`,
 * .../crypto/provider/jce/JceJwks.scala): `kty`, `alg`, `kid` (the RFC 7638 thumbprint), `use: "sig"`,
 * `crv` and the base64url coordinates (`x`, plus `y` for EC keys).
 */
import { z } from 'zod';

export const JwkSchema = z.object({
  kty: z.enum(['EC', 'OKP']),
  alg: z.enum(['ES256', 'ES384', 'EdDSA', 'ES256K']),
  kid: z.string(),
  use: z.literal('sig'),
  crv: z.enum(['P-256', 'P-384', 'Ed25519', 'secp256k1']),
  x: z.string(),
  y: z.string().optional(),
});
export type Jwk = z.infer<typeof JwkSchema>;

/** `GetJwksResponse`: the spec's only required member is `keys` (possibly empty). */
export const GetJwksResponseSchema = z.object({ keys: z.array(JwkSchema) });
export type GetJwksResponse = z.infer<typeof GetJwksResponseSchema>;
