/**
 * Access tokens for the JSON Ledger API (`Authorization: Bearer <JWT>`; Canton `AuthServiceJWT.scala`).
 *
 * A `TokenProvider` hands the client a token for each request. Providers:
 * - `noAuth`: no Authorization header (a node without auth, e.g. the sandbox's wildcard service);
 * - `staticToken(token)`: a fixed token from configuration;
 * - `oauth2ClientCredentials(...)`: the OAuth2 client-credentials grant (RFC 6749 §4.4) against the
 *   operator's IdP (Keycloak, Auth0, Okta, ...), cached and refreshed before it expires;
 * - `selfSignedHs256(...)`: development only; signs its own HS256 token the way the official wallet
 *   SDK's `self_signed` provider does (`{sub, aud, scope, iat, exp: +3600, iss}`,
 *   npm `@canton-network/core-wallet-auth`), for nodes run with `unsafe-jwt-hmac-256`.
 *
 * Secrets and tokens are never logged nor put into error messages.
 */
import { SignJWT, decodeJwt, type JWTPayload } from 'jose';
import { z } from 'zod';

export interface TokenProvider {
  /** The bearer token to send, or undefined to send no Authorization header. */
  token(): Promise<string | undefined>;
  /**
   * Drops a cached token, so that the next `token()` obtains a new one. The client calls it once
   * when the node answers 401, in case the token was revoked or the node's keys rotated.
   */
  invalidate?(): void;
}

/** Sends no Authorization header. */
export const noAuth: TokenProvider = { token: async () => undefined };

export function staticToken(token: string): TokenProvider {
  if (token.trim() === '') throw new Error('staticToken: the token is empty');
  return { token: async () => token };
}

/** Obtaining a token failed. `transient` failures (network, timeout, 5xx, 429) may pass on retry. */
export class TokenProviderError extends Error {
  override readonly name = 'TokenProviderError';
  constructor(
    message: string,
    readonly transient: boolean,
    /** HTTP status of the token endpoint's answer, if it answered. */
    readonly status?: number,
    /** The OAuth2 `error` code of the answer (e.g. `invalid_client`), if any. */
    readonly oauthError?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

// ---- OAuth2 client credentials ----------------------------------------------------------------

export interface OAuth2ClientCredentialsOptions {
  /** The IdP's token endpoint, e.g. `https://idp.example.com/realms/canton/protocol/openid-connect/token`. */
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** `audience` form parameter (Auth0 and others need it; Canton checks `aud`, `AuthServiceJWTCodec`). */
  audience?: string;
  /** `scope` form parameter, e.g. `daml_ledger_api`. */
  scope?: string;
  /**
   * How the client authenticates to the token endpoint: form fields (`client_secret_post`, the
   * default, accepted by Keycloak, Auth0, Okta) or HTTP Basic (`client_secret_basic`).
   */
  clientAuthentication?: 'client_secret_post' | 'client_secret_basic';
  fetch?: typeof fetch;
  /** Current time in epoch milliseconds (tests move it). */
  now?: () => number;
  /**
   * Refresh this many seconds before the token expires (default 60). For short-lived tokens at
   * most half the lifetime is taken off, so a token is always used for a while.
   */
  refreshSkewSeconds?: number;
  /** Timeout of one token request (default 10 s). */
  timeoutMs?: number;
}

/** The token endpoint's success answer (RFC 6749 §5.1). Unknown fields ignored. */
const TokenResponseSchema = z.object({
  access_token: z.string().min(1),
  token_type: z.string().optional(),
  /** Some IdPs send it as a string. */
  expires_in: z.union([z.number(), z.string().regex(/^\d+$/).transform(Number)]).optional(),
});

/** The token endpoint's error answer (RFC 6749 §5.2). */
const TokenErrorSchema = z.object({ error: z.string(), error_description: z.string().optional() });

interface CachedToken {
  token: string;
  /** When to start refreshing (epoch ms). */
  refreshAt: number;
  /** When the token stops being valid (epoch ms); Infinity when unknown. */
  expiresAt: number;
}

/** Expiry of a token: `expires_in` if given, else the JWT's own `exp`, else unknown. */
function lifetimeMs(token: string, expiresIn: number | undefined, now: number): number {
  if (expiresIn !== undefined) return expiresIn * 1000;
  try {
    const exp = decodeJwt(token).exp;
    if (typeof exp === 'number') return exp * 1000 - now;
  } catch {
    // not a JWT: an opaque token without a stated lifetime
  }
  return Infinity;
}

function schedule(token: string, lifetime: number, now: number, skewSeconds: number): CachedToken {
  const skew = Math.min(skewSeconds * 1000, lifetime / 2);
  return { token, refreshAt: now + lifetime - skew, expiresAt: now + lifetime };
}

/**
 * OAuth2 client credentials: POSTs `grant_type=client_credentials` (form-encoded) to `tokenUrl`,
 * caches the access token and obtains a new one `refreshSkewSeconds` before `expires_in` runs out.
 * Concurrent callers share one in-flight request. If a refresh fails while the cached token is
 * still valid, the cached token is used and the refresh is tried again on the next call.
 */
export function oauth2ClientCredentials(opts: OAuth2ClientCredentialsOptions): TokenProvider {
  const doFetch = opts.fetch ?? fetch;
  const now = opts.now ?? Date.now;
  const skewSeconds = opts.refreshSkewSeconds ?? 60;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const basic = opts.clientAuthentication === 'client_secret_basic';
  let url: URL;
  try {
    url = new URL(opts.tokenUrl);
  } catch {
    throw new Error(`oauth2ClientCredentials: tokenUrl is not a URL: ${opts.tokenUrl}`);
  }
  if (!opts.clientId) throw new Error('oauth2ClientCredentials: clientId is empty');
  if (!opts.clientSecret) throw new Error('oauth2ClientCredentials: clientSecret is empty');

  let cached: CachedToken | undefined;
  let inflight: Promise<string> | undefined;

  async function fetchToken(): Promise<string> {
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    const headers: Record<string, string> = {
      'Content-Type': 'application/x-www-form-urlencoded',
      Accept: 'application/json',
    };
    if (basic) {
      // RFC 6749 §2.3.1: each part form-urlencoded before base64.
      const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
      headers.Authorization = `Basic ${Buffer.from(`${enc(opts.clientId)}:${enc(opts.clientSecret)}`).toString('base64')}`;
    } else {
      form.set('client_id', opts.clientId);
      form.set('client_secret', opts.clientSecret);
    }
    if (opts.audience) form.set('audience', opts.audience);
    if (opts.scope) form.set('scope', opts.scope);

    const where = `token endpoint ${url.origin}${url.pathname}`;
    // The lifetime counts from when we asked, so network delay only makes us refresh earlier.
    const askedAt = now();
    let res: Response;
    try {
      res = await doFetch(url, { method: 'POST', headers, body: form.toString(), signal: AbortSignal.timeout(timeoutMs) });
    } catch (e) {
      const timedOut = e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError');
      throw new TokenProviderError(`${where} ${timedOut ? `did not answer within ${timeoutMs} ms` : 'could not be reached'}`, true, undefined, undefined, {
        cause: e,
      });
    }
    const text = await res.text().catch(() => '');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (!res.ok) {
      const err = TokenErrorSchema.safeParse(json);
      // Only the OAuth2 error code (RFC 6749 §5.2: a fixed vocabulary): the identity provider's
      // free-text error_description may echo what it was sent, so it is never repeated.
      const detail = err.success && /^[A-Za-z0-9_.-]{1,64}$/.test(err.data.error) ? `: ${err.data.error}` : '';
      const transient = res.status >= 500 || res.status === 429 || res.status === 408;
      throw new TokenProviderError(`${where} answered ${res.status}${detail}`, transient, res.status, err.success ? err.data.error : undefined);
    }
    const ok = TokenResponseSchema.safeParse(json);
    if (!ok.success) throw new TokenProviderError(`${where} answered ${res.status} without an access_token`, false, res.status);
    cached = schedule(ok.data.access_token, lifetimeMs(ok.data.access_token, ok.data.expires_in, askedAt), askedAt, skewSeconds);
    return ok.data.access_token;
  }

  function refresh(): Promise<string> {
    inflight ??= fetchToken().finally(() => {
      inflight = undefined;
    });
    return inflight;
  }

  return {
    async token() {
      const t = now();
      if (cached && t < cached.refreshAt) return cached.token;
      if (cached && t < cached.expiresAt) {
        // Refresh ahead of expiry; keep serving the still-valid token if the IdP fails now.
        const still = cached.token;
        return refresh().catch(() => still);
      }
      return refresh();
    },
    invalidate() {
      cached = undefined;
    },
  };
}

// ---- self-signed HS256 (development) ----------------------------------------------------------

export interface SelfSignedHs256Options {
  /** The shared secret of the node's `unsafe-jwt-hmac-256` auth service (LocalNet: `unsafe`), as text or raw bytes. */
  secret: string | Uint8Array;
  /** The ledger user (`sub`). */
  userId: string;
  /** `aud`: a target audience, or `https://daml.com/jwt/aud/participant/<participantId>`. */
  audience?: string;
  /**
   * `scope`. When neither audience nor scope is given, `daml_ledger_api` is used: Canton's default
   * token codec accepts a scope-based token for any participant (`AuthServiceJWTCodec.readPayload`, digital-asset/canton).
   */
  scope?: string;
  issuer?: string;
  /** Lifetime of each token (default 3600 s, as the wallet SDK signs). */
  ttlSeconds?: number;
  /** Current time in epoch milliseconds. */
  now?: () => number;
}

/** Signs HS256 tokens for `userId`, re-signing shortly before each expires. */
export function selfSignedHs256(opts: SelfSignedHs256Options): TokenProvider {
  if (opts.secret.length === 0) throw new Error('selfSignedHs256: the secret is empty');
  if (!opts.userId) throw new Error('selfSignedHs256: userId is empty');
  const key = typeof opts.secret === 'string' ? new TextEncoder().encode(opts.secret) : opts.secret;
  const ttl = opts.ttlSeconds ?? 3600;
  if (!(ttl > 0)) throw new Error('selfSignedHs256: ttlSeconds must be positive');
  const now = opts.now ?? Date.now;
  let cached: CachedToken | undefined;

  return {
    async token() {
      const t = now();
      if (cached && t < cached.refreshAt) return cached.token;
      const iat = Math.floor(t / 1000);
      const payload: JWTPayload = { sub: opts.userId };
      if (opts.audience !== undefined) payload.aud = opts.audience;
      if (opts.scope !== undefined) payload.scope = opts.scope;
      else if (opts.audience === undefined) payload.scope = 'daml_ledger_api';
      if (opts.issuer !== undefined) payload.iss = opts.issuer;
      const token = await new SignJWT(payload)
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuedAt(iat)
        .setExpirationTime(iat + ttl)
        .sign(key);
      cached = schedule(token, ttl * 1000 - (t - iat * 1000), t, 60);
      return token;
    },
    invalidate() {
      cached = undefined;
    },
  };
}
