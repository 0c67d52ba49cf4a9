import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, exportSPKI, generateKeyPair, type JWTPayload } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAuthenticator, isCallTimeAuthFailure, mintDevToken, participantAudience } from '../../../../src/emulator/ledger-api/auth.js';
import { AuthConfigSchema, type AuthConfig } from '../../../../src/emulator/ledger-api/options.js';
import { createLedgerApiApp } from '../../../../src/emulator/ledger-api/routes.js';
import type { RouteModule } from '../../../../src/emulator/ledger-api/route-module.js';
import type { Claims, UserClaims } from '../../../../src/emulator/participant/claims.js';
import { LedgerEngine } from '../../../../src/emulator/participant/engine.js';
import { LedgerApiError, PlainTextBadRequest, type JsCantonError } from '../../../../src/canton/errors.js';
import { ManualClock } from '../../../../src/canton/clock.js';

const SECRET = 'unsafe';

function setup(config: Partial<Extract<AuthConfig, { mode: 'jwt' }>> = {}) {
  const clock = new ManualClock('2026-01-01T00:00:00Z');
  const engine = new LedgerEngine({ seed: 'test', clock });
  const alice = engine.parties.allocate('alice').party;
  const bob = engine.parties.allocate('bob').party;
  engine.users.create({ id: 'alice-user', primaryParty: alice }, [
    { kind: 'CanActAs', party: alice },
    { kind: 'CanReadAs', party: bob },
    { kind: 'CanExecuteAs', party: bob },
    { kind: 'IdentityProviderAdmin' },
  ]);
  engine.users.create({ id: 'reader' }, [{ kind: 'CanReadAsAnyParty' }, { kind: 'CanExecuteAsAnyParty' }]);
  engine.users.create({ id: 'gone', isDeactivated: true }, [{ kind: 'CanActAs', party: alice }]);
  const authenticate = createAuthenticator({ mode: 'jwt', hs256Secret: SECRET, ...config }, { engine });
  const nowSeconds = () => Number(clock.nowMicros() / 1_000_000n);
  const aud = participantAudience(engine.participantId);
  return { clock, engine, authenticate, nowSeconds, aud, alice, bob };
}

async function sign(payload: JWTPayload, secret = SECRET): Promise<string> {
  return new SignJWT(payload).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(secret));
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}

async function expectUnauthenticated(p: Promise<unknown>): Promise<void> {
  const e = await rejection(p);
  expect(e).toBeInstanceOf(LedgerApiError);
  expect((e as LedgerApiError).code).toBe('UNAUTHENTICATED');
  expect((e as LedgerApiError).httpStatus).toBe(401);
  expect(isCallTimeAuthFailure(e)).toBe(true);
}

async function expectPermissionDenied(p: Promise<unknown>, callTime = false): Promise<LedgerApiError> {
  const e = await rejection(p);
  expect(e).toBeInstanceOf(LedgerApiError);
  expect((e as LedgerApiError).code).toBe('PERMISSION_DENIED');
  expect((e as LedgerApiError).httpStatus).toBe(403);
  expect(isCallTimeAuthFailure(e)).toBe(callTime);
  return e as LedgerApiError;
}

function asUser(c: Claims): UserClaims {
  if (c.kind !== 'user') throw new Error('expected user claims');
  return c;
}

describe('AuthConfigSchema', () => {
  it('accepts none and jwt with a key source, rejects jwt without one', () => {
    expect(AuthConfigSchema.parse({ mode: 'none' })).toEqual({ mode: 'none' });
    expect(AuthConfigSchema.parse({ mode: 'jwt', hs256Secret: 'x', targetAudience: 'a' }).mode).toBe('jwt');
    expect(AuthConfigSchema.safeParse({ mode: 'jwt' }).success).toBe(false);
    expect(AuthConfigSchema.safeParse({ mode: 'jwt', jwksUrl: 'not a url' }).success).toBe(false);
    expect(AuthConfigSchema.safeParse({ mode: 'jwt', hs256Secret: 'x', leewaySeconds: -1 }).success).toBe(false);
  });

  it('a publicKeyPem that is not an RSA / P-256 / P-521 public key fails at construction', async () => {
    const engine = new LedgerEngine({ seed: 'test' });
    expect(() => createAuthenticator({ mode: 'jwt', publicKeyPem: 'not a pem' }, { engine })).toThrow();
    const ed = await generateKeyPair('EdDSA', { extractable: true });
    expect(() => createAuthenticator({ mode: 'jwt', publicKeyPem: ES256_CERT }, { engine })).not.toThrow();
    const edPem = await exportSPKI(ed.publicKey);
    expect(() => createAuthenticator({ mode: 'jwt', publicKeyPem: edPem }, { engine })).toThrow(/unsupported public key/);
  });

  it('mode none yields wildcard claims whatever the header', async () => {
    const authenticate = createAuthenticator({ mode: 'none' }, { engine: new LedgerEngine({ seed: 'test' }) });
    expect(await authenticate(undefined)).toEqual({ kind: 'wildcard' });
    expect(await authenticate('Bearer garbage')).toEqual({ kind: 'wildcard' });
  });
});

describe('HS256 audience-based tokens', () => {
  it('resolves the user and maps rights to claims', async () => {
    const { authenticate, nowSeconds, aud, alice, bob } = setup();
    const exp = nowSeconds() + 600;
    const claims = asUser(await authenticate(`Bearer ${await sign({ sub: 'alice-user', aud, exp, iat: nowSeconds() })}`));
    expect(claims.userId).toBe('alice-user');
    expect(claims.identityProviderId).toBe('');
    expect(claims.admin).toBe(false);
    // convertUserRightsToClaims drops IdentityProviderAdmin for users of the default IDP.
    expect(claims.idpAdmin).toBe(false);
    expect([...claims.actAs]).toEqual([alice]);
    expect([...claims.readAs]).toEqual([bob]);
    expect([...claims.executeAs]).toEqual([bob]);
    expect(claims.readAsAnyParty).toBe(false);
    expect(claims.executeAsAnyParty).toBe(false);
    expect(claims.expiresAt).toBe(exp);
  });

  it('accepts aud as an array with other audiences, and wildcard rights', async () => {
    const { authenticate, aud } = setup();
    const claims = asUser(await authenticate(`Bearer ${await sign({ sub: 'reader', aud: ['https://other', aud] })}`));
    expect(claims.readAsAnyParty).toBe(true);
    expect(claims.executeAsAnyParty).toBe(true);
    expect(claims.expiresAt).toBeUndefined();
  });

  it('ParticipantAdmin grants admin but no party rights', async () => {
    const { authenticate, aud } = setup();
    const claims = asUser(await authenticate(`Bearer ${await sign({ sub: 'participant_admin', aud })}`));
    expect(claims.admin).toBe(true);
    expect(claims.actAs.size).toBe(0);
    expect(claims.readAs.size).toBe(0);
    expect(claims.readAsAnyParty).toBe(false);
  });

  it('a bad signature is 401', async () => {
    const { authenticate, aud } = setup();
    await expectUnauthenticated(authenticate(`Bearer ${await sign({ sub: 'alice-user', aud }, 'wrong-secret')}`));
  });

  it('a missing header, another scheme or a malformed token is 401', async () => {
    const { authenticate } = setup();
    await expectUnauthenticated(authenticate(undefined));
    await expectUnauthenticated(authenticate('Basic YWxpY2U6cHc='));
    await expectUnauthenticated(authenticate('Bearer not-a-jwt'));
    // HS256 verifier only: an unsigned token never verifies.
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"sub":"alice-user","scope":"daml_ledger_api"}').toString('base64url')}.`;
    await expectUnauthenticated(authenticate(`Bearer ${none}`));
  });

  it('an empty bearer token is a plain-text 400, as in Canton JsonApiAuthIT', async () => {
    const { authenticate } = setup();
    const e = await rejection(authenticate('Bearer '));
    expect(e).toBeInstanceOf(PlainTextBadRequest);
  });

  it('expires by the engine clock, with leeway', async () => {
    const { clock, authenticate, nowSeconds, aud } = setup();
    const token = `Bearer ${await sign({ sub: 'alice-user', aud, exp: nowSeconds() + 60 })}`;
    await authenticate(token);
    clock.advance(60_000);
    await expectUnauthenticated(authenticate(token));

    const lenient = setup({ leewaySeconds: 30 });
    const t2 = `Bearer ${await sign({ sub: 'alice-user', aud: lenient.aud, exp: lenient.nowSeconds() + 60 })}`;
    lenient.clock.advance(80_000);
    await lenient.authenticate(t2);
    lenient.clock.advance(20_000);
    await expectUnauthenticated(lenient.authenticate(t2));
  });

  it('rejects tokens issued or valid only in the future (java-jwt iat/nbf checks)', async () => {
    const { authenticate, nowSeconds, aud } = setup();
    await expectUnauthenticated(authenticate(`Bearer ${await sign({ sub: 'alice-user', aud, iat: nowSeconds() + 60 })}`));
    await expectUnauthenticated(authenticate(`Bearer ${await sign({ sub: 'alice-user', aud, nbf: nowSeconds() + 60 })}`));
    const lenient = setup({ leewaySeconds: 120 });
    await lenient.authenticate(`Bearer ${await sign({ sub: 'alice-user', aud: lenient.aud, iat: lenient.nowSeconds() + 60 })}`);
  });

  // A user of another identity provider is also 403 (auth.ts); not testable until IDP configs exist.
  it('unknown and deactivated users are 403 at claim extraction', async () => {
    const { authenticate, aud } = setup();
    await expectPermissionDenied(authenticate(`Bearer ${await sign({ sub: 'nobody', aud })}`));
    const e = await expectPermissionDenied(authenticate(`Bearer ${await sign({ sub: 'gone', aud })}`));
    expect(e.causeText).toContain('User gone is deactivated');
  });

  it('a missing sub is 401; a sub that is not a user id is INVALID_TOKEN 400', async () => {
    const { authenticate, aud } = setup();
    await expectUnauthenticated(authenticate(`Bearer ${await sign({ aud })}`));
    const e = await rejection(authenticate(`Bearer ${await sign({ sub: 'not a user', aud })}`));
    expect(e).toBeInstanceOf(LedgerApiError);
    expect((e as LedgerApiError).code).toBe('INVALID_TOKEN');
    expect((e as LedgerApiError).httpStatus).toBe(400);
    expect((e as LedgerApiError).causeText).toMatch(/^The submitted request is missing a user-id: token User ID "not a user"/);
    expect(isCallTimeAuthFailure(e)).toBe(false);
  });

  it('another participant in aud is 403 (Authorizer.valid), checked after the user lookup', async () => {
    const { authenticate } = setup();
    const other = participantAudience('participant2::1220ffff');
    const e = await expectPermissionDenied(authenticate(`Bearer ${await sign({ sub: 'alice-user', aud: other })}`), true);
    expect(e.causeText).toContain("Claims are only valid for participantId 'participant2::1220ffff'");
    // The user resolution fails first: unknown user with the wrong participant is an extraction failure.
    await expectPermissionDenied(authenticate(`Bearer ${await sign({ sub: 'nobody', aud: other })}`), false);
  });

  it('aud without a single participant id and without the ledger API scope is 401', async () => {
    const { authenticate, aud, engine } = setup();
    await expectUnauthenticated(authenticate(`Bearer ${await sign({ sub: 'alice-user', aud: 'https://example.com' })}`));
    await expectUnauthenticated(
      authenticate(`Bearer ${await sign({ sub: 'alice-user', aud: [aud, participantAudience(`x${engine.participantId}`)] })}`),
    );
    await expectUnauthenticated(authenticate(`Bearer ${await sign({ sub: 'alice-user', aud: participantAudience('') })}`));
    await expectUnauthenticated(authenticate(`Bearer ${await sign({ sub: 'alice-user' })}`));
  });

  it('rejects legacy custom-claims tokens', async () => {
    const { authenticate, engine, alice } = setup();
    const legacy = {
      'https://daml.com/ledger-api': {
        ledgerId: 'sandbox',
        participantId: engine.participantId,
        applicationId: 'alice-user',
        actAs: [alice],
        admin: true,
      },
    };
    await expectUnauthenticated(authenticate(`Bearer ${await sign(legacy)}`));
    await expectUnauthenticated(authenticate(`Bearer ${await sign({ ...legacy, sub: 'alice-user' })}`));
  });
});

describe('HS256 scope-based tokens', () => {
  it('accepts daml_ledger_api in scope or scp, with aud absent or our participant id', async () => {
    const { authenticate, engine } = setup();
    expect(asUser(await authenticate(`Bearer ${await sign({ sub: 'alice-user', scope: 'openid daml_ledger_api' })}`)).userId).toBe(
      'alice-user',
    );
    await authenticate(`Bearer ${await sign({ sub: 'alice-user', scp: ['daml_ledger_api'] })}`);
    await authenticate(`Bearer ${await sign({ sub: 'alice-user', scp: 'daml_ledger_api' })}`);
    await authenticate(`Bearer ${await sign({ sub: 'alice-user', scope: 'daml_ledger_api', aud: engine.participantId })}`);
  });

  it('a single aud naming another participant is 403; several aud values are 401', async () => {
    const { authenticate, engine } = setup();
    await expectPermissionDenied(authenticate(`Bearer ${await sign({ sub: 'alice-user', scope: 'daml_ledger_api', aud: 'participant9' })}`), true);
    await expectUnauthenticated(
      authenticate(`Bearer ${await sign({ sub: 'alice-user', scope: 'daml_ledger_api', aud: [engine.participantId, 'x'] })}`),
    );
    await expectUnauthenticated(authenticate(`Bearer ${await sign({ sub: 'alice-user', scope: 'openid' })}`));
  });
});

describe('target audience and target scope', () => {
  it('target-audience: aud must contain it; no participant check', async () => {
    const { authenticate } = setup({ targetAudience: 'https://canton.network.global' });
    const claims = asUser(
      await authenticate(`Bearer ${await sign({ sub: 'alice-user', aud: ['x', 'https://canton.network.global'] })}`),
    );
    expect(claims.userId).toBe('alice-user');
    // No participant check: another participant's audience next to the target one is fine.
    await authenticate(
      `Bearer ${await sign({ sub: 'alice-user', aud: ['https://canton.network.global', participantAudience('participant9')] })}`,
    );
    await expectUnauthenticated(authenticate(`Bearer ${await sign({ sub: 'alice-user', scope: 'daml_ledger_api' })}`));
    await expectUnauthenticated(authenticate(`Bearer ${await sign({ sub: 'alice-user', aud: 'https://canton.network' })}`));
  });

  it('target-scope: the scopes must contain it; no participant check', async () => {
    const { authenticate } = setup({ targetScope: 'ledger.rw' });
    await authenticate(`Bearer ${await sign({ sub: 'alice-user', scope: 'openid ledger.rw', aud: 'participant9' })}`);
    await authenticate(`Bearer ${await sign({ sub: 'alice-user', scp: ['ledger.rw'] })}`);
    await expectUnauthenticated(authenticate(`Bearer ${await sign({ sub: 'alice-user', scope: 'daml_ledger_api' })}`));
  });
});

describe('the emulated services\' own key (serviceKey)', () => {
  const serviceKey = new TextEncoder().encode('the-stack-s-own-32-byte-key-here');
  const withKey = (key?: Uint8Array) => {
    const clock = new ManualClock('2026-01-01T00:00:00Z');
    const engine = new LedgerEngine({ seed: 'test', clock });
    engine.users.create({ id: 'admin-user' }, [{ kind: 'ParticipantAdmin' }]);
    // A JWKS-only ledger: the JWKS is never fetched for these tokens (HS256, no `kid`).
    const config = { mode: 'jwt' as const, jwksUrl: 'http://127.0.0.1:9/jwks', targetAudience: 'https://canton.network.global' };
    return createAuthenticator(config, key === undefined ? { engine } : { engine, serviceKey: key });
  };
  const token = (payload: JWTPayload) =>
    new SignJWT(payload).setProtectedHeader({ alg: 'HS256' }).setIssuedAt(Date.parse('2026-01-01T00:00:00Z') / 1000).sign(serviceKey);

  it('a JWKS-only ledger accepts tokens signed with it, read like any other token', async () => {
    const claims = asUser(await withKey(serviceKey)(`Bearer ${await token({ sub: 'admin-user', aud: 'https://canton.network.global' })}`));
    expect(claims).toMatchObject({ userId: 'admin-user', admin: true });
    // The configured target audience still applies to them.
    await expectUnauthenticated(withKey(serviceKey)(`Bearer ${await token({ sub: 'admin-user', scope: 'daml_ledger_api' })}`));
  });

  it('without it (or with another key) the same token is unauthenticated', async () => {
    const t = await token({ sub: 'admin-user', aud: 'https://canton.network.global' });
    await expectUnauthenticated(withKey()(`Bearer ${t}`));
    await expectUnauthenticated(withKey(new TextEncoder().encode('another-key-another-key-another!'))(`Bearer ${t}`));
  });
});

describe('mintDevToken', () => {
  it('mints tokens the authenticator accepts', async () => {
    const { authenticate, nowSeconds, aud, clock } = setup();
    const byAudience = await mintDevToken({ secret: SECRET, sub: 'alice-user', audience: aud, nowSeconds: nowSeconds() });
    expect(asUser(await authenticate(`Bearer ${byAudience}`)).expiresAt).toBe(nowSeconds() + 3600);
    const byDefault = await mintDevToken({ secret: SECRET, sub: 'alice-user', nowSeconds: nowSeconds(), expiresInSeconds: null });
    expect(asUser(await authenticate(`Bearer ${byDefault}`)).expiresAt).toBeUndefined();
    clock.advance(3_600_000);
    await expectUnauthenticated(authenticate(`Bearer ${byAudience}`));
  });
});

describe('asymmetric keys', () => {
  let server: Server;
  let jwksUrl: string;
  let rsa: Awaited<ReturnType<typeof generateKeyPair>>;
  let es512: Awaited<ReturnType<typeof generateKeyPair>>;
  let fetches = 0;

  beforeAll(async () => {
    rsa = await generateKeyPair('RS256');
    es512 = await generateKeyPair('ES512');
    const keys = [
      { ...(await exportJWK(rsa.publicKey)), kid: 'rsa-1', use: 'sig' },
      { ...(await exportJWK(es512.publicKey)), kid: 'ec-1', use: 'sig' },
    ];
    server = createServer((req, res) => {
      fetches += 1;
      if (req.url !== '/.well-known/jwks.json') {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  beforeEach(() => {
    fetches = 0;
  });

  it('RS256 and ES512 via JWKS from a local HTTP server; kid required', async () => {
    const { authenticate, aud, nowSeconds } = setup({ hs256Secret: undefined, jwksUrl });
    const rs = await new SignJWT({ sub: 'alice-user', aud, exp: nowSeconds() + 60 })
      .setProtectedHeader({ alg: 'RS256', kid: 'rsa-1' })
      .sign(rsa.privateKey);
    expect(asUser(await authenticate(`Bearer ${rs}`)).userId).toBe('alice-user');
    const es = await new SignJWT({ sub: 'reader', scope: 'daml_ledger_api' })
      .setProtectedHeader({ alg: 'ES512', kid: 'ec-1' })
      .sign(es512.privateKey);
    expect(asUser(await authenticate(`Bearer ${es}`)).readAsAnyParty).toBe(true);
    expect(fetches).toBe(1); // keys are cached

    const noKid = await new SignJWT({ sub: 'alice-user', aud }).setProtectedHeader({ alg: 'RS256' }).sign(rsa.privateKey);
    await expectUnauthenticated(authenticate(`Bearer ${noKid}`));
    const unknownKid = await new SignJWT({ sub: 'alice-user', aud })
      .setProtectedHeader({ alg: 'RS256', kid: 'rsa-2' })
      .sign(rsa.privateKey);
    await expectUnauthenticated(authenticate(`Bearer ${unknownKid}`));
    const otherKey = await generateKeyPair('RS256');
    const forged = await new SignJWT({ sub: 'alice-user', aud })
      .setProtectedHeader({ alg: 'RS256', kid: 'rsa-1' })
      .sign(otherKey.privateKey);
    await expectUnauthenticated(authenticate(`Bearer ${forged}`));
    // An HS256 token is not accepted when only JWKS is configured.
    await expectUnauthenticated(authenticate(`Bearer ${await sign({ sub: 'alice-user', aud })}`));
  });

  it('an unreachable JWKS URL is 401, not a 500', async () => {
    const { authenticate, aud } = setup({ hs256Secret: undefined, jwksUrl: 'http://127.0.0.1:1/jwks.json' });
    const rs = await new SignJWT({ sub: 'alice-user', aud }).setProtectedHeader({ alg: 'RS256', kid: 'rsa-1' }).sign(rsa.privateKey);
    await expectUnauthenticated(authenticate(`Bearer ${rs}`));
  });

  it('ES256 and RS256 via an SPKI PEM', async () => {
    const es = await generateKeyPair('ES256', { extractable: true });
    const a = setup({ hs256Secret: undefined, publicKeyPem: await exportSPKI(es.publicKey) });
    const token = await new SignJWT({ sub: 'alice-user', aud: a.aud }).setProtectedHeader({ alg: 'ES256' }).sign(es.privateKey);
    expect(asUser(await a.authenticate(`Bearer ${token}`)).userId).toBe('alice-user');
    const other = await generateKeyPair('ES256');
    const forged = await new SignJWT({ sub: 'alice-user', aud: a.aud }).setProtectedHeader({ alg: 'ES256' }).sign(other.privateKey);
    await expectUnauthenticated(a.authenticate(`Bearer ${forged}`));

    const b = setup({ hs256Secret: undefined, publicKeyPem: await exportSPKI(rsa.publicKey) });
    const rs = await new SignJWT({ sub: 'alice-user', aud: b.aud }).setProtectedHeader({ alg: 'RS256' }).sign(rsa.privateKey);
    expect(asUser(await b.authenticate(`Bearer ${rs}`)).userId).toBe('alice-user');
  });

  it('ES256 via an X.509 certificate (jwt-es-256-crt), next to an HS256 secret', async () => {
    const { createPrivateKey } = await import('node:crypto');
    const { authenticate, aud } = setup({ publicKeyPem: ES256_CERT });
    const token = await new SignJWT({ sub: 'alice-user', aud })
      .setProtectedHeader({ alg: 'ES256' })
      .sign(createPrivateKey(ES256_CERT_KEY));
    expect(asUser(await authenticate(`Bearer ${token}`)).userId).toBe('alice-user');
    // Both key sources are tried, like Canton's list of auth services.
    await authenticate(`Bearer ${await sign({ sub: 'alice-user', aud })}`);
  });
});

describe('on the wire (createLedgerApiApp)', () => {
  const echo: RouteModule = (app) => {
    app.get('/v2/test', (c) => c.json({ user: c.get('claims').kind === 'user' ? (c.get('claims') as UserClaims).userId : null }));
    app.get('/v2/version', (c) => c.json({ version: '3.4.12' }));
  };

  function wireSetup() {
    const s = setup();
    const app = createLedgerApiApp({ engine: s.engine, authenticate: s.authenticate }, [echo]);
    const get = (path: string, token?: string) =>
      app.request(path, token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } });
    return { ...s, app, get };
  }

  const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

  it('a valid token reaches the route', async () => {
    const { get, aud } = wireSetup();
    const res = await get('/v2/test', await sign({ sub: 'alice-user', aud }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ user: 'alice-user' });
  });

  it('401 is the redacted NA error with grpcCodeValue 16 and no token context', async () => {
    const { app } = wireSetup();
    const res = await app.request('/v2/test', {
      headers: { Authorization: 'Bearer junk', traceparent: `00-${TRACE}-00f067aa0ba902b7-01` },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({
      code: 'NA',
      cause: 'A security-sensitive error has been received',
      // not a command submission: no correlation id
      correlationId: null,
      traceId: TRACE,
      context: {},
      resources: [],
      errorCategory: -1,
      grpcCodeValue: 16,
      retryInfo: null,
      definiteAnswer: false,
    });
    const missing = await app.request('/v2/test');
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as JsCantonError).grpcCodeValue).toBe(16);
  });

  it('403 for an unknown user carries {"ledger_api_error":"invalid token"} (JsonApiAuthIT)', async () => {
    const { get, aud } = wireSetup();
    const res = await get('/v2/test', await sign({ sub: 'nobody', aud }));
    expect(res.status).toBe(403);
    const body = (await res.json()) as JsCantonError;
    expect(body).toMatchObject({ code: 'NA', errorCategory: -1, grpcCodeValue: 7, context: { ledger_api_error: 'invalid token' } });
  });

  it('403 for another participant comes from the Authorizer: no token context', async () => {
    const { get } = wireSetup();
    const res = await get('/v2/test', await sign({ sub: 'alice-user', aud: participantAudience('participant9') }));
    expect(res.status).toBe(403);
    const body = (await res.json()) as JsCantonError;
    expect(body.grpcCodeValue).toBe(7);
    expect(body.context).toEqual({});
  });

  it('INVALID_TOKEN is an unredacted 400 with the token context', async () => {
    const { get, aud, engine } = wireSetup();
    const res = await get('/v2/test', await sign({ sub: 'bad user', aud }));
    expect(res.status).toBe(400);
    const body = (await res.json()) as JsCantonError;
    expect(body.code).toBe('INVALID_TOKEN');
    expect(body.errorCategory).toBe(8);
    expect(body.grpcCodeValue).toBe(3);
    expect(body.context).toMatchObject({ participant: engine.participantName, category: '8', ledger_api_error: 'invalid token' });
  });

  it('an empty bearer token is a plain-text 400', async () => {
    const { app } = wireSetup();
    const res = await app.request('/v2/test', { headers: { Authorization: 'Bearer ' } });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  });

  it('GET /v2/version ignores a bad token (no authorization on the version service) but not an unknown user', async () => {
    const { get, aud } = wireSetup();
    expect((await get('/v2/version')).status).toBe(200);
    expect((await get('/v2/version', 'junk')).status).toBe(200);
    expect((await get('/v2/version', await sign({ sub: 'nobody', aud }))).status).toBe(403);
  });

  it('health paths need no token', async () => {
    const { app } = wireSetup();
    app.get('/livez', (c) => c.text('ok'));
    expect((await app.request('/livez')).status).toBe(200);
  });
});

// A self-signed P-256 certificate and its key (openssl req -x509 -newkey ec -pkeyopt
// ec_paramgen_curve:P-256), standing in for a `jwt-es-256-crt` certificate file.
const ES256_CERT = `-----BEGIN CERTIFICATE-----
MIIBhjCCAS2gAwIBAgIUZt0deX9eEYvI066VXog+EsPzzMUwCgYIKoZIzj0EAwIw
GDEWMBQGA1UEAwwNZW11bGF0b3ItdGVzdDAgFw0yNjExMjExMjQ3MjZaGA8yMTI2
MTAyODEyNDcyNlowGDEWMBQGA1UEAwwNZW11bGF0b3ItdGVzdDBZMBMGByqGSM49
AgEGCCqGSM49AwEHA0IABCo7iWeGqTDheSo0YrL2n/UmfimrcWHr3aaM5EQOJO7O
qANA3BrcVczrjF4mY+LgCX2p6ryyNXvA0fybB/kvMAWjUzBRMB0GA1UdDgQWBBQf
F+0o5IDoqO+1l5puE7J7p9IoCTAfBgNVHSMEGDAWgBQfF+0o5IDoqO+1l5puE7J7
p9IoCTAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0cAMEQCICGr22eD9Wfv
JqZkihcabIiEW8YVYbUQmn3DNFeGO7ljAiBtFoIviEeWlaxCdodb3oLxj4y7raQ9
9b5zadZFJ0cLgQ==
-----END CERTIFICATE-----
`;
const ES256_CERT_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgnlU4a8WTyH/zOmR8
F2lJ3OV6gRvugrAhP02/FE6Hhr6hRANCAAQqO4lnhqkw4XkqNGKy9p/1Jn4pq3Fh
692mjOREDiTuzqgDQNwa3FXM64xeJmPi4Al9qeq8sjV7wNH8mwf5LzAF
-----END PRIVATE KEY-----
`;
