/**
 * JWT authentication of the emulated validator app (canton-network/splice
 * `AuthConfig`, `SignatureVerifier`, `JwtClaims`, `AuthExtractor`):
 *  - signature: HS256 with a shared secret (`hs-256-unsafe`, LocalNet secret `unsafe`), or RS256
 *    with keys from a JWKS URL (`rs-256`); any other `alg` is rejected;
 *  - `exp`/`nbf` and `iat`-not-in-the-future checked like auth0 java-jwt's default verifier, on the
 *    emulator's clock (so tests can expire tokens by moving a ManualClock);
 *  - audience: `aud` (string or list) must contain the configured audience;
 *  - the user: `"https://canton-network": {"daml_user": ...}` if present, else `sub`;
 *  - a missing token (no `Authorization: Bearer` header) and an invalid one are rejected by
 *    pekko's `authenticateOAuth2` with 401, a plain-text body and
 *    `WWW-Authenticate: Bearer realm="<realm>"`: the realm names the route group.
 */
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { Clock } from '../../canton/clock.js';
import { CREDENTIALS_MISSING, CREDENTIALS_REJECTED } from './errors.js';

export interface ValidatorAuthConfig {
  /** HS256 secret (`auth.algorithm = "hs-256-unsafe"`); default `unsafe` unless `jwksUrl` is set. */
  secret?: string;
  /** The audience every token's `aud` must contain; default LocalNet's `https://canton.network.global`. */
  audience?: string;
  /** RS256 through this JWKS URL (`auth.algorithm = "rs-256"`), instead of HS256. */
  jwksUrl?: string;
}

export const DEFAULT_VALIDATOR_AUDIENCE = 'https://canton.network.global';
export const DEFAULT_VALIDATOR_SECRET = 'unsafe';

/** `ValidatorApp.OAuthRealms`. */
export const REALMS = {
  validator: 'splice validator realm',
  scanProxy: 'splice scan proxy realm',
  wallet: 'splice wallet realm',
} as const;
export type Realm = (typeof REALMS)[keyof typeof REALMS];

/** The custom claim object Splice reads the user from (`JwtClaims.ClaimKey`). */
export const SPLICE_CLAIM_KEY = 'https://canton-network';

export type Authentication = { ok: true; user: string } | { ok: false; missing: boolean; reason: string };

export type TokenAuthenticator = (authorizationHeader: string | undefined) => Promise<Authentication>;

/**
 * Builds the verifier for one validator app. The returned function never throws: every failure
 * is an `{ok: false}` (logged by Splice, never shown to the client).
 */
export function createTokenAuthenticator(config: ValidatorAuthConfig, clock: Clock): TokenAuthenticator {
  const audience = config.audience ?? DEFAULT_VALIDATOR_AUDIENCE;
  const verify: (token: string, currentDate: Date) => Promise<JWTPayload> =
    config.jwksUrl !== undefined
      ? (() => {
          const jwks = createRemoteJWKSet(new URL(config.jwksUrl));
          return async (token, currentDate) => (await jwtVerify(token, jwks, { algorithms: ['RS256'], audience, currentDate })).payload;
        })()
      : (() => {
          const key = new TextEncoder().encode(config.secret ?? DEFAULT_VALIDATOR_SECRET);
          return async (token, currentDate) => (await jwtVerify(token, key, { algorithms: ['HS256'], audience, currentDate })).payload;
        })();

  return async (header) => {
    const token = bearerToken(header);
    if (token === undefined) return { ok: false, missing: true, reason: 'no bearer token' };
    const currentDate = new Date(Number(clock.nowMicros() / 1000n));
    let payload: JWTPayload;
    try {
      payload = await verify(token, currentDate);
    } catch (e) {
      return { ok: false, missing: false, reason: (e as Error).message };
    }
    // java-jwt checks `iat` is not in the future by default; jose does not.
    if (typeof payload.iat === 'number' && payload.iat > currentDate.getTime() / 1000) {
      return { ok: false, missing: false, reason: "The Token can't be used before its issued-at time" };
    }
    const user = ledgerApiUser(payload);
    if (user === undefined) return { ok: false, missing: false, reason: 'No daml user found in token' };
    return { ok: true, user };
  };
}

/**
 * The bearer token of an `Authorization` header as pekko parses it: scheme `Bearer` (any case) and
 * one token. Another scheme, or a header pekko cannot parse, counts as no credentials.
 */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const m = /^\s*bearer\s+([^\s]+)\s*$/i.exec(header);
  return m ? m[1] : undefined;
}

/** `JwtClaims.getLedgerApiUser`: `daml_user` of the Splice claim, else `sub`. */
export function ledgerApiUser(payload: JWTPayload): string | undefined {
  const splice = payload[SPLICE_CLAIM_KEY];
  if (splice !== null && typeof splice === 'object' && !Array.isArray(splice)) {
    const damlUser = (splice as Record<string, unknown>).daml_user;
    if (typeof damlUser === 'string') return damlUser;
  }
  return typeof payload.sub === 'string' ? payload.sub : undefined;
}

/** pekko's 401 for `AuthenticationFailedRejection` (RejectionHandler.default). */
export function unauthorized(a: Extract<Authentication, { ok: false }>, realm: Realm): Response {
  return new Response(a.missing ? CREDENTIALS_MISSING : CREDENTIALS_REJECTED, {
    status: 401,
    headers: { 'content-type': 'text/plain; charset=UTF-8', 'www-authenticate': `Bearer realm="${realm}"` },
  });
}
