import { SignJWT, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { TokenProviderError, noAuth, oauth2ClientCredentials, selfSignedHs256, staticToken } from '../../../src/ledger-client/auth.js';

interface SeenRequest {
  url: string;
  method: string;
  headers: Headers;
  body: URLSearchParams;
}

/** A fake token endpoint: answers with `respond(n)` for the n-th request (1-based). */
function tokenEndpoint(respond: (n: number) => Response | Promise<Response>) {
  const seen: SeenRequest[] = [];
  const fetchFn: typeof fetch = async (input, init) => {
    seen.push({
      url: String(input),
      method: init?.method ?? 'GET',
      headers: new Headers(init?.headers),
      body: new URLSearchParams(String(init?.body ?? '')),
    });
    return respond(seen.length);
  };
  return { seen, fetch: fetchFn };
}

const ok = (token: string, expiresIn?: number | string) =>
  Response.json({ access_token: token, token_type: 'Bearer', ...(expiresIn !== undefined ? { expires_in: expiresIn } : {}) });

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

const base = { tokenUrl: 'https://idp.example/oauth/token', clientId: 'registry', clientSecret: 's3cr3t-value' };

describe('oauth2ClientCredentials', () => {
  it('posts the client-credentials grant as a form and caches the token', async () => {
    const ep = tokenEndpoint((n) => ok(`tok-${n}`, 300));
    const c = clock();
    const p = oauth2ClientCredentials({ ...base, audience: 'https://canton.example', scope: 'daml_ledger_api', fetch: ep.fetch, now: c.now });
    expect(await p.token()).toBe('tok-1');
    expect(await p.token()).toBe('tok-1');
    expect(ep.seen).toHaveLength(1);
    const r = ep.seen[0]!;
    expect(r.method).toBe('POST');
    expect(r.url).toBe(base.tokenUrl);
    expect(r.headers.get('content-type')).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(r.body)).toEqual({
      grant_type: 'client_credentials',
      client_id: 'registry',
      client_secret: 's3cr3t-value',
      audience: 'https://canton.example',
      scope: 'daml_ledger_api',
    });
  });

  it('can authenticate with HTTP Basic instead of form fields', async () => {
    const ep = tokenEndpoint(() => ok('t', 300));
    const p = oauth2ClientCredentials({ ...base, clientAuthentication: 'client_secret_basic', fetch: ep.fetch });
    await p.token();
    const r = ep.seen[0]!;
    expect(r.headers.get('authorization')).toBe(`Basic ${Buffer.from('registry:s3cr3t-value').toString('base64')}`);
    expect(r.body.has('client_secret')).toBe(false);
  });

  it('refreshes before expires_in runs out, minus the skew', async () => {
    const ep = tokenEndpoint((n) => ok(`tok-${n}`, 300));
    const c = clock();
    const p = oauth2ClientCredentials({ ...base, fetch: ep.fetch, now: c.now, refreshSkewSeconds: 30 });
    expect(await p.token()).toBe('tok-1');
    c.advance(269_000);
    expect(await p.token()).toBe('tok-1');
    c.advance(1_000); // 270 s = 300 - 30: time to refresh
    expect(await p.token()).toBe('tok-2');
    expect(ep.seen).toHaveLength(2);
  });

  it('takes at most half the lifetime off a short-lived token', async () => {
    const ep = tokenEndpoint((n) => ok(`tok-${n}`, '20')); // expires_in as a string, as some IdPs send it
    const c = clock();
    const p = oauth2ClientCredentials({ ...base, fetch: ep.fetch, now: c.now, refreshSkewSeconds: 60 });
    await p.token();
    c.advance(9_999);
    expect(await p.token()).toBe('tok-1');
    c.advance(1);
    expect(await p.token()).toBe('tok-2');
  });

  it('uses the JWT exp when the answer has no expires_in', async () => {
    const c = clock(1_700_000_000_000);
    const jwt = await new SignJWT({ sub: 'x' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(1_700_000_000 + 120)
      .sign(new TextEncoder().encode('k'));
    const ep = tokenEndpoint(() => ok(jwt));
    const p = oauth2ClientCredentials({ ...base, fetch: ep.fetch, now: c.now, refreshSkewSeconds: 30 });
    await p.token();
    c.advance(89_000);
    await p.token();
    expect(ep.seen).toHaveLength(1);
    c.advance(1_000);
    await p.token();
    expect(ep.seen).toHaveLength(2);
  });

  it('makes one request for many concurrent callers (single flight)', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const ep = tokenEndpoint(async (n) => {
      await gate;
      return ok(`tok-${n}`, 300);
    });
    const c = clock();
    const p = oauth2ClientCredentials({ ...base, fetch: ep.fetch, now: c.now });
    const all = Promise.all(Array.from({ length: 20 }, () => p.token()));
    release();
    expect(new Set(await all)).toEqual(new Set(['tok-1']));
    expect(ep.seen).toHaveLength(1);

    // and again when a refresh is due
    c.advance(300_000);
    const again = await Promise.all(Array.from({ length: 5 }, () => p.token()));
    expect(new Set(again)).toEqual(new Set(['tok-2']));
    expect(ep.seen).toHaveLength(2);
  });

  it('fails clearly on a non-2xx answer, without the secret in the message', async () => {
    // an identity provider that echoes what it received in error_description
    const ep = tokenEndpoint(() => Response.json({ error: 'invalid_client', error_description: 'Invalid client credentials for s3cr3t' }, { status: 401 }));
    const p = oauth2ClientCredentials({ ...base, fetch: ep.fetch });
    const err = await p.token().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TokenProviderError);
    const e = err as TokenProviderError;
    expect(e).toMatchObject({ status: 401, oauthError: 'invalid_client', transient: false });
    expect(e.message).toBe('token endpoint https://idp.example/oauth/token answered 401: invalid_client');
    expect(e.message).not.toContain('s3cr3t');
    expect(e.message).not.toContain('Invalid client credentials');
  });

  it('marks 5xx and network failures transient, and retries them on the next call', async () => {
    const ep = tokenEndpoint((n) => (n === 1 ? new Response('upstream down', { status: 503 }) : ok('tok', 300)));
    const p = oauth2ClientCredentials({ ...base, fetch: ep.fetch });
    const err = (await p.token().catch((e: unknown) => e)) as TokenProviderError;
    expect(err).toMatchObject({ status: 503, transient: true });
    expect(await p.token()).toBe('tok');

    const down = oauth2ClientCredentials({
      ...base,
      fetch: async () => {
        throw new TypeError('fetch failed');
      },
    });
    const netErr = (await down.token().catch((e: unknown) => e)) as TokenProviderError;
    expect(netErr).toBeInstanceOf(TokenProviderError);
    expect(netErr.transient).toBe(true);
    expect(netErr.message).toContain('could not be reached');
  });

  it('rejects a 2xx answer without an access token', async () => {
    const ep = tokenEndpoint(() => Response.json({ token_type: 'Bearer' }));
    const err = (await oauth2ClientCredentials({ ...base, fetch: ep.fetch }).token().catch((e: unknown) => e)) as TokenProviderError;
    expect(err.message).toContain('without an access_token');
  });

  it('keeps serving a still-valid token when an early refresh fails', async () => {
    const ep = tokenEndpoint((n) => (n === 1 ? ok('tok-1', 300) : new Response('', { status: 500 })));
    const c = clock();
    const p = oauth2ClientCredentials({ ...base, fetch: ep.fetch, now: c.now, refreshSkewSeconds: 60 });
    await p.token();
    c.advance(250_000); // refresh due (240 s), token valid until 300 s
    expect(await p.token()).toBe('tok-1');
    c.advance(50_000); // expired now
    await expect(p.token()).rejects.toBeInstanceOf(TokenProviderError);
  });

  it('obtains a new token after invalidate()', async () => {
    const ep = tokenEndpoint((n) => ok(`tok-${n}`, 300));
    const p = oauth2ClientCredentials({ ...base, fetch: ep.fetch });
    expect(await p.token()).toBe('tok-1');
    p.invalidate!();
    expect(await p.token()).toBe('tok-2');
  });

  it('validates its options', () => {
    expect(() => oauth2ClientCredentials({ ...base, tokenUrl: 'not a url' })).toThrow(/tokenUrl/);
    expect(() => oauth2ClientCredentials({ ...base, clientSecret: '' })).toThrow(/clientSecret/);
  });
});

describe('selfSignedHs256', () => {
  const secret = new TextEncoder().encode('unsafe');

  it('signs the wallet SDK shape {sub, aud, scope, iat, exp, iss}', async () => {
    const c = clock(1_700_000_000_500);
    const p = selfSignedHs256({ secret: 'unsafe', userId: 'ledger-api-user', audience: 'https://canton.network.global', scope: 'daml_ledger_api', issuer: 'me', now: c.now });
    const token = (await p.token())!;
    const { payload, protectedHeader } = await jwtVerify(token, secret, { currentDate: new Date(c.now()) });
    expect(protectedHeader.alg).toBe('HS256');
    expect(payload).toEqual({ sub: 'ledger-api-user', aud: 'https://canton.network.global', scope: 'daml_ledger_api', iss: 'me', iat: 1_700_000_000, exp: 1_700_003_600 });
  });

  it('uses the daml_ledger_api scope when neither audience nor scope is given', async () => {
    const token = (await selfSignedHs256({ secret: 'unsafe', userId: 'u' }).token())!;
    const { payload } = await jwtVerify(token, secret);
    expect(payload.scope).toBe('daml_ledger_api');
    expect(payload.aud).toBeUndefined();
  });

  it('reuses a token until shortly before it expires', async () => {
    const c = clock(1_700_000_000_000);
    const p = selfSignedHs256({ secret: 'unsafe', userId: 'u', ttlSeconds: 600, now: c.now });
    const first = await p.token();
    c.advance(500_000);
    expect(await p.token()).toBe(first);
    c.advance(41_000); // within 60 s of exp
    expect(await p.token()).not.toBe(first);
  });
});

describe('static providers', () => {
  it('staticToken returns the token; noAuth returns none', async () => {
    expect(await staticToken('abc').token()).toBe('abc');
    expect(await noAuth.token()).toBeUndefined();
    expect(() => staticToken(' ')).toThrow();
  });
});
