/**
 * JWT authentication of the emulated JSON Ledger API, modelled on Canton 3.x
 * (digital-asset/canton sources `AuthServiceJWT.scala`, `AuthServiceJWTCodec`
 * (`AuthServiceJWTPayload.scala`), `JwksVerifier.scala`, `UserBasedClaimResolver.scala`,
 * `Authorizer.scala`, `AuthInterceptor.scala` and the JSON layer's `Endpoints.validateJwtToken`).
 *
 * Canton splits the work into two phases, and the split shows on the wire:
 *
 * 1. **Claim extraction** (`AuthInterceptor.extractClaims`, run by the JSON layer before the
 *    endpoint). The token is verified and parsed; a token that is missing, malformed, badly signed,
 *    expired or for another audience/scope does NOT fail here: it yields `ClaimSet.Unauthenticated`.
 *    A parsed token is then resolved against the user store (`UserBasedClaimResolver`), and those
 *    failures DO fail extraction: unknown or deactivated user, or a user of another identity
 *    provider -> PERMISSION_DENIED; a `sub` that is not a valid user id -> INVALID_TOKEN.
 *    `validateJwtToken` adds `{"ledger_api_error":"invalid token"}` to the context of such errors.
 * 2. **Authorization at the call** (`Authorizer`, inside the gRPC service the endpoint calls).
 *    Unauthenticated claims -> UNAUTHENTICATED (`MissingJwtToken`, 401); claims bound to another
 *    participant (`Claims.validForParticipant` in `Authorizer.valid`) -> PERMISSION_DENIED (403).
 *    These come back through the ordinary error path, so their JSON body has NO token context.
 *    The version service has no authorization wrapper at all (`ApiServices.scala`), so
 *    `GET /v2/version` answers 200 even with a bad token.
 *
 * The authenticator throws both kinds as `LedgerApiError`; `isCallTimeAuthFailure` tells routes.ts
 * which phase an error belongs to, so it can render the context and skip unauthorized services
 * exactly as Canton does.
 */
import { X509Certificate, createPublicKey, type KeyObject as NodeKeyObject } from 'node:crypto';
import {
  SignJWT,
  createRemoteJWKSet,
  decodeProtectedHeader,
  importSPKI,
  importX509,
  jwtVerify,
  type CryptoKey,
  type JWTPayload,
} from 'jose';
import type { AuthConfig } from './options.js';
import { WILDCARD, type Claims, type UserClaims } from '../participant/claims.js';
import type { LedgerEngine } from '../participant/engine.js';
import { LedgerApiError, PlainTextBadRequest, errors } from '../../canton/errors.js';
import { userIdError } from '../participant/object-meta.js';

// ---- configuration ---------------------------------------------------------------------------

export type Authenticator = (authorizationHeader: string | undefined) => Promise<Claims>;

// ---- constants of the token format (AuthServiceJWTCodec) --------------------------------------

export const LEDGER_API_SCOPE = 'daml_ledger_api';
export const PARTICIPANT_AUDIENCE_PREFIX = 'https://daml.com/jwt/aud/participant/';

/** The audience that binds a token to one participant: `https://daml.com/jwt/aud/participant/<id>`. */
export function participantAudience(participantId: string): string {
  return PARTICIPANT_AUDIENCE_PREFIX + participantId;
}

// ---- error phases ----------------------------------------------------------------------------

/** Errors Canton raises in the `Authorizer` at call time rather than during claim extraction. */
const callTimeFailures = new WeakSet<object>();

function callTime(err: LedgerApiError): LedgerApiError {
  callTimeFailures.add(err);
  return err;
}

/**
 * True for auth errors that Canton raises only when the called service authorizes the request
 * (UNAUTHENTICATED for a missing/invalid token; PERMISSION_DENIED for a token bound to another
 * participant). Those bodies carry no `ledger_api_error` context, and services without
 * authorization (the version service) are not affected by them.
 */
export function isCallTimeAuthFailure(err: unknown): boolean {
  return typeof err === 'object' && err !== null && callTimeFailures.has(err);
}

/** Why a token yields `ClaimSet.Unauthenticated`; logged by Canton, never shown to the client. */
class TokenRejected extends Error {}

function unauthenticated(): LedgerApiError {
  return callTime(errors.unauthenticated());
}

// ---- verification ----------------------------------------------------------------------------

type JwtConfig = Extract<AuthConfig, { mode: 'jwt' }>;
type Verifier = (token: string, currentDate: Date) => Promise<JWTPayload>;

/**
 * The signature and timestamp checks of `JwtVerifier` (auth0 java-jwt): `exp` and `nbf` with the
 * leeway (jose does these), plus `iat` not in the future, which java-jwt checks by default and jose
 * only with `maxTokenAge`.
 */
function buildVerifiers(config: JwtConfig, serviceKey: Uint8Array | undefined): Verifier[] {
  const leeway = config.leewaySeconds ?? 0;
  const common = (currentDate: Date) => ({ currentDate, clockTolerance: leeway });
  const verifiers: Verifier[] = [];

  if (serviceKey !== undefined) {
    // The emulated services' own key (see createAuthenticator): HS256, never configured or shown.
    verifiers.push(async (token, currentDate) => (await jwtVerify(token, serviceKey, { algorithms: ['HS256'], ...common(currentDate) })).payload);
  }

  if (config.hs256Secret !== undefined) {
    const key = new TextEncoder().encode(config.hs256Secret);
    verifiers.push(async (token, currentDate) => {
      return (await jwtVerify(token, key, { algorithms: ['HS256'], ...common(currentDate) })).payload;
    });
  }

  if (config.jwksUrl !== undefined) {
    // One key set per authenticator: jose caches the keys and refetches on an unknown `kid`,
    // like the Guava cache in front of `UrlJwkProvider` in JwksVerifier.
    const jwks = createRemoteJWKSet(new URL(config.jwksUrl));
    verifiers.push(async (token, currentDate) => {
      // JwksVerifier.getCachedVerifier: "No Key ID found" when the header has no `kid`.
      const kid = decodeProtectedHeader(token).kid;
      if (typeof kid !== 'string') throw new TokenRejected('No Key ID found');
      return (await jwtVerify(token, jwks, { algorithms: ['RS256', 'ES256', 'ES512'], ...common(currentDate) }))
        .payload;
    });
  }

  if (config.publicKeyPem !== undefined) {
    const pem = config.publicKeyPem;
    // Parse the PEM now, so a bad key is a startup error rather than a 401 on every request.
    const isCert = pem.includes('BEGIN CERTIFICATE');
    const alg = algorithmOf(isCert ? new X509Certificate(pem).publicKey : createPublicKey(pem));
    let imported: Promise<CryptoKey> | undefined;
    verifiers.push(async (token, currentDate) => {
      imported ??= isCert ? importX509(pem, alg) : importSPKI(pem, alg);
      return (await jwtVerify(token, await imported, { algorithms: [alg], ...common(currentDate) })).payload;
    });
  }

  return verifiers.map((verify) => async (token, currentDate) => {
    const payload = await verify(token, currentDate);
    if (payload.iat !== undefined && payload.iat > currentDate.getTime() / 1000 + leeway) {
      throw new TokenRejected("The Token can't be used before its issued-at time");
    }
    return payload;
  });
}

/** The algorithm follows from the key, as Canton's `*-crt` auth services fix it per key type. */
function algorithmOf(key: NodeKeyObject): string {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1' || curve === 'P-256') return 'ES256';
    if (curve === 'secp521r1' || curve === 'P-521') return 'ES512';
  }
  throw new Error(`publicKeyPem: unsupported public key (${key.asymmetricKeyType}); expected RSA, EC P-256 or EC P-521`);
}

// ---- payload parsing (AuthServiceJWTCodec) ---------------------------------------------------

interface ParsedPayload {
  userId: string;
  /** Set when the token binds itself to a participant; checked against ours at call time. */
  participantId?: string;
  exp?: number;
}

/** `readOptionalStringOrArray`: absent/null -> [], string -> [s], array of strings -> list, else error. */
function stringOrArray(payload: Record<string, unknown>, name: string): string[] {
  const v = payload[name];
  if (v === undefined || v === null) return [];
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.every((e): e is string => typeof e === 'string')) return v;
  throw new TokenRejected(`Could not read ${JSON.stringify(v)} as string for ${name}`);
}

/** Java's `String.split(" ")`: trailing empty strings are dropped, but "" splits to [""]. */
function javaSplitSpace(s: string): string[] {
  if (s === '') return [''];
  const parts = s.split(' ');
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/** `readScopes`: `scope` (space-separated string), else `scp` (string or array). */
function readScopes(payload: Record<string, unknown>): string[] {
  const scope = payload.scope;
  const fromScope = typeof scope === 'string' ? javaSplitSpace(scope) : [];
  return fromScope.length > 0 ? fromScope : stringOrArray(payload, 'scp');
}

/** `readString("sub")`: a missing or non-string `sub` makes the token unparseable (401). */
function readSub(payload: Record<string, unknown>): string {
  const sub = payload.sub;
  if (sub === undefined) throw new TokenRejected('Could not read value for sub');
  if (typeof sub !== 'string') throw new TokenRejected(`Could not read ${JSON.stringify(sub)} as string for sub`);
  return sub;
}

function readCommon(payload: Record<string, unknown>): { exp?: number } {
  const iss = payload.iss;
  if (iss !== undefined && iss !== null && typeof iss !== 'string') {
    throw new TokenRejected('Could not read iss as string');
  }
  const exp = payload.exp;
  // readInstant: epoch seconds as a long.
  if (exp !== undefined && exp !== null && !Number.isInteger(exp)) {
    throw new TokenRejected('Could not read exp as epoch seconds');
  }
  return typeof exp === 'number' ? { exp } : {};
}

/**
 * The default codec (`readPayload`): audience-based tokens first (an `aud` entry with the
 * participant prefix; exactly one non-empty participant id), then scope-based tokens (`daml_ledger_api`
 * in the scopes; `aud` absent or a single value read as the participant id). Anything else,
 * including the legacy `https://daml.com/ledger-api` custom-claims tokens, does not parse.
 */
function readDefaultPayload(payload: Record<string, unknown>): ParsedPayload {
  const scopes = readScopes(payload);
  const aud = stringOrArray(payload, 'aud');
  const participantAudiences = aud.filter((a) => a.startsWith(PARTICIPANT_AUDIENCE_PREFIX));
  if (participantAudiences.length > 0) {
    const ids = participantAudiences.map((a) => a.slice(PARTICIPANT_AUDIENCE_PREFIX.length)).filter((id) => id !== '');
    if (ids.length !== 1) {
      throw new TokenRejected('`aud` must include a single participantId value prefixed by ' + PARTICIPANT_AUDIENCE_PREFIX);
    }
    return { userId: readSub(payload), participantId: ids[0]!, ...readCommon(payload) };
  }
  if (scopes.includes(LEDGER_API_SCOPE)) {
    if (aud.length > 1) throw new TokenRejected('`aud` must be empty or a single participantId.');
    const parsed: ParsedPayload = { userId: readSub(payload), ...readCommon(payload) };
    if (aud.length === 1) parsed.participantId = aud[0]!;
    return parsed;
  }
  throw new TokenRejected(`Access token with unknown scope "${scopes.join('')}"`);
}

/**
 * `AuthServiceJWTBase.parsePayload` + `checkAudienceAndScope`: with `targetAudience` the token is
 * read audience-based and `aud` must contain it; else with `targetScope` the scopes must contain it;
 * else the default codec. Target-based tokens carry no participant id (no participant check).
 */
function parsePayload(config: JwtConfig, payload: Record<string, unknown>): ParsedPayload {
  if (config.targetAudience !== undefined) {
    const parsed = { userId: readSub(payload), ...readCommon(payload) };
    readScopes(payload); // readAudienceBasedToken reads the scopes too: a malformed `scp` fails it
    if (!stringOrArray(payload, 'aud').includes(config.targetAudience)) {
      throw new TokenRejected("Audience doesn't match the target value");
    }
    return parsed;
  }
  if (config.targetScope !== undefined) {
    const parsed = { userId: readSub(payload), ...readCommon(payload) };
    stringOrArray(payload, 'aud'); // read (and so validated) by readScopeBasedToken
    const scopes = readScopes(payload).join(' ').split(' ');
    if (!scopes.includes(config.targetScope)) throw new TokenRejected("Scope doesn't match the target value");
    return parsed;
  }
  return readDefaultPayload(payload);
}

/**
 * `JwtFromBearerHeader`: the token follows `Bearer `. HTTP strips trailing whitespace from header
 * values, so `Bearer ` with an empty token arrives as `Bearer`: that gives "".
 */
function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const m = /^\s*bearer(?:\s+(.*))?$/i.exec(header);
  return m ? (m[1] ?? '').trim() : undefined;
}

// ---- claim resolution (UserBasedClaimResolver) -----------------------------------------------

/**
 * The claims a user's current state grants (`UserBasedClaimResolver`), throwing the claim
 * extraction failures; `exp` is carried into them. Also used by open streams to notice that the
 * user's claims changed (stream-auth.ts, as Canton's `UserRightsChangeAsyncChecker` re-resolves).
 */
export function resolveUserClaims(engine: LedgerEngine, userId: string, exp: number | undefined): UserClaims {
  // getUserId: a `sub` that is not a valid user id -> INVALID_TOKEN / MissingUserId (400).
  const invalidUserId = userIdError(userId);
  if (invalidUserId !== undefined) {
    throw new LedgerApiError('INVALID_TOKEN', `The submitted request is missing a user-id: token ${invalidUserId}`);
  }
  const user = engine.users.get(userId);
  if (user === undefined) {
    throw errors.permissionDenied(
      `Could not resolve is_deactivated status for user '${userId}' and identity_provider_id 'Default' due to 'UserNotFound(${userId})'`,
    );
  }
  if (user.isDeactivated) throw errors.permissionDenied(`User ${userId} is deactivated`);
  // Tokens from the default auth services speak for the default IDP ("").
  if (user.identityProviderId !== '') throw errors.permissionDenied('User is assigned to another identity provider');

  const actAs = new Set<string>();
  const readAs = new Set<string>();
  const executeAs = new Set<string>();
  let admin = false;
  let readAsAnyParty = false;
  let executeAsAnyParty = false;
  for (const right of engine.users.rights(userId)) {
    switch (right.kind) {
      case 'ParticipantAdmin':
        admin = true; // ClaimAdmin only: it grants no party rights.
        break;
      case 'IdentityProviderAdmin':
        // convertUserRightsToClaims drops ClaimIdentityProviderAdmin for the default IDP.
        break;
      case 'CanReadAsAnyParty':
        readAsAnyParty = true;
        break;
      case 'CanExecuteAsAnyParty':
        executeAsAnyParty = true;
        break;
      case 'CanActAs':
        actAs.add(right.party);
        break;
      case 'CanReadAs':
        readAs.add(right.party);
        break;
      case 'CanExecuteAs':
        executeAs.add(right.party);
        break;
    }
  }
  const claims: UserClaims = {
    kind: 'user',
    userId,
    identityProviderId: '',
    admin,
    idpAdmin: false,
    actAs,
    readAs,
    executeAs,
    readAsAnyParty,
    executeAsAnyParty,
  };
  if (exp !== undefined) claims.expiresAt = exp;
  return claims;
}

// ---- the authenticator -----------------------------------------------------------------------

export interface AuthenticatorDeps {
  engine: LedgerEngine;
  /**
   * The key of the emulated services (registries) that read this ledger through its JSON API: an
   * HS256 secret the stack draws at random and never shows, trusted beside the configured key
   * sources. Canton trusts several auth services at once the same way (`canton.participants.<p>.
   * ledger-api.auth-services` is a list); with it a ledger configured with only a JWKS URL (an
   * OAuth2 server's keys, which the emulator cannot sign with) still serves the emulated services.
   */
  serviceKey?: Uint8Array;
}

/**
 * Builds the `authenticate` dependency of `createLedgerApiApp`. Resolves claims on every request
 * (rights changes apply at once, like Canton's per-call resolution) and reads time from the
 * engine's clock, so tests can expire tokens by moving a ManualClock.
 */
export function createAuthenticator(config: AuthConfig, deps: AuthenticatorDeps): Authenticator {
  if (config.mode === 'none') return async () => WILDCARD;
  const { engine } = deps;
  const verifiers = buildVerifiers(config, deps.serviceKey);

  return async (authorizationHeader) => {
    const token = bearerToken(authorizationHeader);
    if (token === undefined) throw unauthenticated();
    if (token === '') {
      // Canton's own JsonApiAuthIT ("deny unauthenticated access") sees 400 for `Bearer ` with an
      // empty token: tapir rejects the header before Canton runs. The wording is unverified.
      throw new PlainTextBadRequest('Invalid value for: header Authorization');
    }

    const currentDate = new Date(Number(engine.clock.nowMicros() / 1000n));
    let payload: JWTPayload | undefined;
    for (const verify of verifiers) {
      try {
        payload = await verify(token, currentDate);
        break;
      } catch {
        // Try the next configured key source (AuthInterceptor tries each auth service in turn).
      }
    }
    if (payload === undefined) throw unauthenticated();

    let parsed: ParsedPayload;
    try {
      parsed = parsePayload(config, payload as Record<string, unknown>);
    } catch (e) {
      if (e instanceof TokenRejected) throw unauthenticated();
      throw e;
    }

    // Claim extraction: user lookup failures carry the token context on the wire.
    const claims = resolveUserClaims(engine, parsed.userId, parsed.exp);
    if (parsed.exp !== undefined && config.leewaySeconds !== undefined) claims.expiryLeewaySeconds = config.leewaySeconds;

    // Authorizer.valid at call time: a token bound to another participant.
    if (parsed.participantId !== undefined && parsed.participantId !== engine.participantId) {
      throw callTime(
        errors.permissionDenied(
          `Claims are only valid for participantId '${parsed.participantId}', actual participantId is '${engine.participantId}'`,
        ),
      );
    }
    return claims;
  };
}

// ---- dev tokens ------------------------------------------------------------------------------

export interface MintDevTokenOptions {
  /** The HS256 secret (`unsafe` on Splice LocalNet). */
  secret: string;
  /** The user id. */
  sub: string;
  /** `aud`: e.g. `participantAudience(engine.participantId)` or a target audience. */
  audience?: string | string[];
  /**
   * `scope` (space-separated). When neither audience nor scope is given, `daml_ledger_api` is used,
   * which the default codec accepts for any participant.
   */
  scope?: string;
  issuer?: string;
  /** Lifetime; default 3600 s like the wallet SDK's self-signed tokens. `null` mints no `exp`. */
  expiresInSeconds?: number | null;
  /** `iat`, in epoch seconds (take it from the emulator's clock). */
  nowSeconds: number;
}

/** Mints an HS256 token of the shape the official SDK's `self_signed` provider signs. */
export async function mintDevToken(opts: MintDevTokenOptions): Promise<string> {
  const payload: JWTPayload = { sub: opts.sub };
  if (opts.audience !== undefined) payload.aud = opts.audience;
  if (opts.scope !== undefined) payload.scope = opts.scope;
  else if (opts.audience === undefined) payload.scope = LEDGER_API_SCOPE;
  if (opts.issuer !== undefined) payload.iss = opts.issuer;
  payload.iat = opts.nowSeconds;
  const lifetime = opts.expiresInSeconds === undefined ? 3600 : opts.expiresInSeconds;
  if (lifetime !== null) payload.exp = opts.nowSeconds + lifetime;
  return new SignJWT(payload).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(opts.secret));
}
