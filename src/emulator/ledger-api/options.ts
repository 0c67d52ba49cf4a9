/**
 * The emulated ledger API's options (zod only, no behaviour), kept apart from the routes and the
 * token verification (auth.ts) so config/ can assemble the configuration without loading them.
 * The auth options mirror Canton's auth services (`AuthServiceConfig`, the participant's
 * `ledger-api.auth-services`).
 */
import { z } from 'zod';
import { LOCALNET_LEDGER_AUTH } from '../../canton/localnet.js';

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

/**
 * `LEDGER_AUTH=localnet`: the ledger accepts LocalNet's tokens as they are (HS256, secret `unsafe`,
 * `aud` = `https://canton.network.global`, user in `sub`), which is exactly what the wallet SDK's
 * `self_signed` auth mints. A preset of `jwt`: secret and audience can still be overridden.
 */
const LocalnetAuthConfigSchema = z
  .object({
    mode: z.literal('localnet'),
    hs256Secret: z.string().min(1).default(LOCALNET_LEDGER_AUTH.hs256Secret).describe("HS256 secret (LocalNet's `unsafe`)."),
    targetAudience: z.string().min(1).default(LOCALNET_LEDGER_AUTH.targetAudience).describe('`target-audience`: `aud` must contain exactly this string.'),
    targetScope: z.string().min(1).optional().describe('`target-scope`: `scope`/`scp` must contain this string.'),
    leewaySeconds: z.number().int().nonnegative().optional().describe('`jwt-timestamp-leeway` (seconds) applied to `exp`, `nbf` and `iat`.'),
  })
  .strict()
  .transform(({ mode: _preset, ...jwt }) => ({ mode: 'jwt' as const, ...jwt }));

/** The ledger's auth: `none`, `jwt` (any Canton auth service), or the `localnet` preset of `jwt`. */
export const EmulatorAuthConfigSchema = z.union([AuthConfigSchema, LocalnetAuthConfigSchema]);

/** The ledger API's fields of the emulator configuration (one JSON API per participant). */
export const LedgerApiOptionsShape = {
  port: z.number().int().min(0).max(65535).default(7575).describe("Port of the emulated ledger node's JSON API (Canton's default is 7575)."),
  participant2Port: z.number().int().min(0).max(65535).default(7579).describe("Port of the second participant's ledger API (with `participants: 2`)."),
  auth: EmulatorAuthConfigSchema.default({ mode: 'none' }).describe(
    "The ledger's auth: `none` (the sandbox default), `jwt` (as Canton's auth services), or `localnet` (`jwt` with LocalNet's secret and audience).",
  ),
  listMaxElements: z.number().int().positive().default(200).describe('`http-list-max-elements-limit` of the JSON API.'),
};
