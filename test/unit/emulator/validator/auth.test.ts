/**
 * The validator's JWT checks (Splice SignatureVerifier,
 * JwtClaims, AuthExtractor): HS256 with the secret or RS256 through a JWKS URL, `aud` containing
 * the configured audience, `exp`/`nbf`/`iat` on the emulator's clock, the user from
 * `https://canton-network`.`daml_user` else `sub`; and pekko's 401 (plain text, WWW-Authenticate
 * with the route group's realm) when the token is missing or invalid.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/canton/clock.js';
import { bearerToken, createTokenAuthenticator, ledgerApiUser } from '../../../../src/emulator/validator/auth.js';
import { buildValidatorWorld, type ValidatorWorld } from './fixture.js';

const AUD = 'https://canton.network.global';
const clock = new ManualClock('2026-05-01T10:00:00Z');
const now = () => Number(clock.nowMicros() / 1_000_000n);
const hs = (payload: JWTPayload, secret = 'unsafe', alg = 'HS256') => new SignJWT(payload).setProtectedHeader({ alg }).sign(new TextEncoder().encode(secret));

describe('token verification', () => {
  const authenticate = createTokenAuthenticator({}, clock);
  const user = async (header: string | undefined) => {
    const a = await authenticate(header);
    return a.ok ? a.user : a.missing ? 'MISSING' : 'REJECTED';
  };

  it('accepts HS256 with the secret `unsafe` and an audience containing the configured one', async () => {
    expect(await user(`Bearer ${await hs({ sub: 'alice', aud: AUD })}`)).toBe('alice');
    expect(await user(`bearer ${await hs({ sub: 'alice', aud: ['other', AUD] })}`)).toBe('alice');
    expect(await user(`Bearer ${await hs({ sub: 'alice', aud: AUD, exp: now() + 60, nbf: now() - 1, iat: now() })}`)).toBe('alice');
  });

  it('takes the user from the Splice claim first, then sub', async () => {
    expect(await user(`Bearer ${await hs({ sub: 'x', aud: AUD, 'https://canton-network': { daml_user: 'app-user' } })}`)).toBe('app-user');
    expect(await user(`Bearer ${await hs({ aud: AUD, 'https://canton-network': { daml_user: 'app-user' } })}`)).toBe('app-user');
    expect(await user(`Bearer ${await hs({ sub: 'x', aud: AUD, 'https://canton-network': { other: 1 } })}`)).toBe('x');
    expect(await user(`Bearer ${await hs({ aud: AUD })}`)).toBe('REJECTED');
    expect(ledgerApiUser({ sub: 'a', 'https://canton-network': 'not an object' })).toBe('a');
  });

  it('missing credentials: no header, another scheme, no token', async () => {
    expect(await user(undefined)).toBe('MISSING');
    expect(await user('Basic YWxpY2U6cHc=')).toBe('MISSING');
    expect(await user('Bearer')).toBe('MISSING');
    expect(bearerToken('Bearer  abc ')).toBe('abc');
  });

  it('rejects: wrong secret, other algorithm, wrong or no audience, expired, not yet valid, issued in the future, garbage', async () => {
    expect(await user(`Bearer ${await hs({ sub: 'a', aud: AUD }, 'secret')}`)).toBe('REJECTED');
    expect(await user(`Bearer ${await hs({ sub: 'a', aud: AUD }, 'unsafe', 'HS384')}`)).toBe('REJECTED');
    expect(await user(`Bearer ${await hs({ sub: 'a', aud: 'https://sv.example.com' })}`)).toBe('REJECTED');
    expect(await user(`Bearer ${await hs({ sub: 'a' })}`)).toBe('REJECTED');
    expect(await user(`Bearer ${await hs({ sub: 'a', aud: AUD, exp: now() - 1 })}`)).toBe('REJECTED');
    expect(await user(`Bearer ${await hs({ sub: 'a', aud: AUD, nbf: now() + 60 })}`)).toBe('REJECTED');
    expect(await user(`Bearer ${await hs({ sub: 'a', aud: AUD, iat: now() + 60 })}`)).toBe('REJECTED');
    expect(await user('Bearer not.a.jwt')).toBe('REJECTED');
  });

  it('expiry follows the injected clock', async () => {
    const c = new ManualClock('2026-05-01T10:00:00Z');
    const auth = createTokenAuthenticator({}, c);
    const t = await hs({ sub: 'a', aud: AUD, exp: Number(c.nowMicros() / 1_000_000n) + 60 });
    expect((await auth(`Bearer ${t}`)).ok).toBe(true);
    c.advance(61_000);
    expect((await auth(`Bearer ${t}`)).ok).toBe(false);
  });

  it('a configured secret and audience replace the LocalNet defaults', async () => {
    const auth = createTokenAuthenticator({ secret: 's3cret', audience: 'https://my.validator' }, clock);
    expect((await auth(`Bearer ${await hs({ sub: 'a', aud: 'https://my.validator' }, 's3cret')}`)).ok).toBe(true);
    expect((await auth(`Bearer ${await hs({ sub: 'a', aud: AUD }, 'unsafe')}`)).ok).toBe(false);
  });
});

describe('RS256 through a JWKS URL', () => {
  let server: Server;
  let jwksUrl: string;
  let rsa: Awaited<ReturnType<typeof generateKeyPair>>;

  beforeAll(async () => {
    rsa = await generateKeyPair('RS256');
    const keys = [{ ...(await exportJWK(rsa.publicKey)), kid: 'rsa-1', use: 'sig', alg: 'RS256' }];
    server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys })));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
  });
  afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  it('accepts RS256 tokens signed by a JWKS key; HS256 is then refused', async () => {
    const auth = createTokenAuthenticator({ jwksUrl }, clock);
    const rs = await new SignJWT({ sub: 'app-provider', aud: AUD }).setProtectedHeader({ alg: 'RS256', kid: 'rsa-1' }).sign(rsa.privateKey);
    expect(await auth(`Bearer ${rs}`)).toEqual({ ok: true, user: 'app-provider' });
    expect((await auth(`Bearer ${await hs({ sub: 'a', aud: AUD })}`)).ok).toBe(false);
    const other = await generateKeyPair('RS256');
    const forged = await new SignJWT({ sub: 'x', aud: AUD }).setProtectedHeader({ alg: 'RS256', kid: 'rsa-1' }).sign(other.privateKey);
    expect((await auth(`Bearer ${forged}`)).ok).toBe(false);
  });
});

describe('401 answers of the app, per route group', () => {
  let w: ValidatorWorld;
  beforeAll(async () => {
    w = await buildValidatorWorld({ registry: true });
  });
  afterAll(async () => w.close());

  it('pekko text and the realm of the group; public routes need no token', async () => {
    const cases: Array<[string, string, string]> = [
      ['GET', '/v0/wallet/balance', 'splice wallet realm'],
      ['GET', '/v0/wallet/user-status', 'splice wallet realm'],
      ['GET', '/v0/scan-proxy/dso-party-id', 'splice scan proxy realm'],
      ['GET', '/v0/scan-proxy/registry/metadata/v1/info', 'splice scan proxy realm'],
      ['POST', '/v0/scan-proxy/registry/transfer-instruction/v1/transfer-factory', 'splice scan proxy realm'],
    ];
    const bad = await hs({ sub: 'alice', aud: AUD }, 'wrong');
    for (const [method, path, realm] of cases) {
      const missing = await w.json(method, path, { body: method === 'POST' ? {} : undefined });
      expect(missing, path).toMatchObject({ status: 401, body: 'The resource requires authentication, which was not supplied with the request' });
      expect(missing.headers.get('www-authenticate')).toBe(`Bearer realm="${realm}"`);
      expect(missing.headers.get('content-type')).toBe('text/plain; charset=UTF-8');
      const rejected = await w.json(method, path, { token: bad });
      expect(rejected, path).toMatchObject({ status: 401, body: 'The supplied authentication is invalid' });
      expect(rejected.headers.get('www-authenticate')).toBe(`Bearer realm="${realm}"`);
    }
    for (const path of ['/readyz', '/livez', '/status', '/version', '/v0/validator-user']) {
      expect((await w.call('GET', path)).status, path).toBe(200);
      expect((await w.call('GET', path, { token: bad })).status, path).toBe(200);
    }
  });

  it('scan-proxy routes need no participant user: any valid token works', async () => {
    expect((await w.json('GET', '/v0/scan-proxy/dso-party-id', { user: 'someone-unknown' })).body).toEqual({ dso_party_id: w.dso });
  });
});
