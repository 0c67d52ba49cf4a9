/**
 * The Ledger API auth configuration schema, owned by the auth module (auth.ts) and kept apart from
 * it so config/ can assemble the configuration without loading the token verification. The
 * options mirror Canton's auth services (`AuthServiceConfig`, the participant's `ledger-api.auth-services`).
 */
import { z } from 'zod';

const JwtAuthConfigSchema = z
  .object({
    mode: z.literal('jwt'),
    /** `unsafe-jwt-hmac-256`: HS256 with a shared secret (testing only; LocalNet uses "unsafe"). */
    hs256Secret: z.string().min(1).optional().describe('HS256 shared secret (`unsafe-jwt-hmac-256`; testing only).'),
    /** `jwt-jwks`: RS256 / ES256 / ES512 keys from a JWKS URL; tokens must carry a `kid`. */
    jwksUrl: z.url().optional().describe('JWKS URL of RS256 / ES256 / ES512 keys (`jwt-jwks`); tokens carry a `kid`.'),
    /**
     * `jwt-rs-256-crt` / `jwt-es-256-crt` / `jwt-es-512-crt`: a PEM public key (SPKI) or X.509
     * certificate; the algorithm follows from the key (RSA -> RS256, P-256 -> ES256, P-521 -> ES512).
     */
    publicKeyPem: z.string().min(1).optional().describe('A PEM public key (SPKI) or X.509 certificate; the algorithm follows from the key.'),
    /** `target-audience`: `aud` must contain exactly this string; no participant check. */
    targetAudience: z.string().min(1).optional().describe('`target-audience`: `aud` must contain exactly this string.'),
    /** `target-scope`: `scope`/`scp` must contain this string; no participant check. */
    targetScope: z.string().min(1).optional().describe('`target-scope`: `scope`/`scp` must contain this string.'),
    /** `jwt-timestamp-leeway` (seconds) applied to `exp`, `nbf` and `iat`. */
    leewaySeconds: z.number().int().nonnegative().optional().describe('`jwt-timestamp-leeway` (seconds) applied to `exp`, `nbf` and `iat`.'),
  })
  .refine((c) => c.hs256Secret !== undefined || c.jwksUrl !== undefined || c.publicKeyPem !== undefined, {
    message: 'jwt auth needs at least one key source: hs256Secret, jwksUrl or publicKeyPem',
  });

export const AuthConfigSchema = z.discriminatedUnion('mode', [
  /** The sandbox default `AuthServiceWildcard`: every request is allowed, claims carry no user. */
  z.object({ mode: z.literal('none') }),
  JwtAuthConfigSchema,
]);
export type AuthConfig = z.infer<typeof AuthConfigSchema>;
