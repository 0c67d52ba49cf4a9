/**
 * End to end: the emulated stack with ledger auth from an OAuth2 server's JWKS only
 * (`LEDGER_AUTH=jwt`, `LEDGER_AUTH_JWKS_URL`, no HS256 secret), as a wallet stack with its own
 * mock OAuth2 server configures it, and the official wallet SDK 1.4.0 getting its tokens from that
 * server (`client_credentials`: OpenID configuration, then the token endpoint).
 *  - the stack starts (the emulated registries read the ledger with the stack's own key, which
 *    the ledger trusts beside the JWKS, so no HS256 secret is needed);
 *  - the ledger accepts the OAuth2 server's RS256 tokens and refuses LocalNet's HS256 `unsafe`
 *    tokens and tokens of another key (401);
 *  - a TT1 offer alice -> bob through the demo registry and bob's accept (the registry reads the
 *    ledger for factories and contexts);
 *  - the validator (VALIDATOR_AUTH_JWKS_URL, the same server's keys): the SDK's amulet namespace
 *    learns the validator party from `GET /v0/validator-user`, reads the Amulet rules through the
 *    scan-proxy, and `tapInternal` acts as the validator party on the ledger.
 */
import { CustomLogAdapter, SDK, type TokenProviderConfig } from '@canton-network/wallet-sdk';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type RunningStack } from '../../src/stack.js';
import { startMockOAuth2Server, type MockOAuth2Server } from '../support/oauth2-server.js';
import { amuletUrls, validatorJwt } from './support/amulet.js';
import { balanceOf, plus } from './support/wallet-sdk.js';

const AUDIENCE = 'https://canton.network.global';
const VALIDATOR_USER = 'ledger-api-user';
const CLIENTS = { alice: 'alice-secret', bob: 'bob-secret', [VALIDATOR_USER]: 'validator-secret' };

describe('LEDGER_AUTH=jwt with only a JWKS URL (a mock OAuth2 server): the emulated services and the wallet SDK', () => {
  let oauth: MockOAuth2Server;
  let stack: RunningStack;
  let admin: string;
  let alice: string;
  let bob: string;

  const auth = (user: keyof typeof CLIENTS): TokenProviderConfig => ({
    method: 'client_credentials',
    configUrl: oauth.configUrl,
    credentials: { clientId: user, clientSecret: CLIENTS[user], audience: AUDIENCE, scope: '' },
  });
  const walletSdk = (user: 'alice' | 'bob') =>
    SDK.create({
      auth: auth(user),
      ledgerClientUrl: stack.ledgerUrl,
      logAdapter: new CustomLogAdapter(() => {}),
      token: { auth: auth(user), registries: [stack.registryUrl!] },
    });
  const authenticatedUser = async (token: string) => {
    const res = await fetch(`${stack.ledgerUrl}/v2/authenticated-user`, { headers: { Authorization: `Bearer ${token}` } });
    return { status: res.status, body: (await res.json()) as { user?: { id: string } } };
  };

  beforeAll(async () => {
    oauth = await startMockOAuth2Server(CLIENTS);
    stack = await startStack({
      config: {
        port: 0,
        logLevel: 'silent',
        auth: { mode: 'jwt', jwksUrl: oauth.jwksUrl, targetAudience: AUDIENCE },
        validatorAuth: { jwksUrl: oauth.jwksUrl, audience: AUDIENCE },
      },
      registryPort: 0,
      scanPort: 0,
      validatorPort: 0,
    });
    const party = (hint: string) => stack.seeded!.parties.find((p) => p.hint === hint)!.party;
    admin = party('token-admin');
    alice = party('alice');
    bob = party('bob');
  }, 60_000);

  afterAll(async () => {
    await stack?.close();
    await oauth?.close();
  });

  it('the ledger accepts the OAuth2 server tokens and nothing else', async () => {
    expect(await authenticatedUser(await oauth.sign({ sub: 'alice', aud: AUDIENCE }))).toMatchObject({ status: 200, body: { user: { id: 'alice' } } });
    // LocalNet's HS256 `unsafe` token: no HS256 secret is configured, so no key verifies it.
    expect((await authenticatedUser(await validatorJwt('alice'))).status).toBe(401);
    // The same claims and kid, signed by another RS256 key.
    const other = await generateKeyPair('RS256');
    expect((await exportJWK(other.publicKey)).kty).toBe('RSA');
    const forged = await new SignJWT({ scope: '' })
      .setProtectedHeader({ alg: 'RS256', kid: 'mock-oauth2-rs256' })
      .setSubject('alice')
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(other.privateKey);
    expect((await authenticatedUser(forged)).status).toBe(401);
    // The server's token for another audience.
    expect((await authenticatedUser(await oauth.sign({ sub: 'alice', aud: 'https://elsewhere.example' }))).status).toBe(401);
  });

  it('TT1 through the demo registry: alice offers 5 to bob, bob accepts (SDK client_credentials tokens)', async () => {
    const [aliceSdk, bobSdk] = await Promise.all([walletSdk('alice'), walletSdk('bob')]);
    const instrument = { admin, id: 'TT1' };
    const aliceBefore = await balanceOf(aliceSdk, alice, instrument);
    const bobBefore = await balanceOf(bobSdk, bob, instrument);

    const [offer, offerDisclosed] = await aliceSdk.token.transfer.create({ sender: alice, recipient: bob, amount: '5', instrumentId: 'TT1', registryUrl: new URL(stack.registryUrl!) });
    await aliceSdk.ledger.internal.submit({ commands: [offer], actAs: [alice], disclosedContracts: offerDisclosed });
    const [pending] = (await bobSdk.token.transfer.pending(bob)).filter((p) => p.interfaceViewValue.transfer.instrumentId.id === 'TT1');
    expect(pending?.interfaceViewValue.transfer).toMatchObject({ sender: alice, receiver: bob, amount: '5.0000000000' });

    const [accept, acceptDisclosed] = await bobSdk.token.transfer.accept({ transferInstructionCid: pending!.contractId, registryUrl: new URL(stack.registryUrl!) });
    await bobSdk.ledger.internal.submit({ commands: [accept], actAs: [bob], disclosedContracts: acceptDisclosed });

    expect(await balanceOf(bobSdk, bob, instrument)).toEqual({ unlocked: plus(bobBefore.unlocked, '5'), locked: bobBefore.locked });
    expect(await balanceOf(aliceSdk, alice, instrument)).toEqual({ unlocked: plus(aliceBefore.unlocked, '-5'), locked: aliceBefore.locked });
    // The SDKs' tokens came from the OAuth2 server's token endpoint (one per SDK, cached since).
    expect(oauth.issued()).toBeGreaterThanOrEqual(2);
  });

  it('the validator verifies the same tokens: the amulet namespace finds the validator party and taps as it', async () => {
    const urls = amuletUrls(stack);
    const sdk = await SDK.create({
      auth: auth(VALIDATOR_USER),
      ledgerClientUrl: stack.ledgerUrl,
      logAdapter: new CustomLogAdapter(() => {}),
      amulet: { auth: auth(VALIDATOR_USER), scanApiUrl: urls.scanApi, registryUrl: urls.scanProxyRegistry, validatorUrl: urls.validatorApi },
      token: { auth: auth(VALIDATOR_USER), registries: [urls.scanProxyRegistry], validatorUrl: urls.validatorApi },
    });
    const validator = stack.seeded!.amulet!.validator;
    const dso = stack.seeded!.amulet!.dso;
    const before = await balanceOf(sdk, validator, { admin: dso, id: 'Amulet' });
    await sdk.amulet.tapInternal('50');
    expect(await balanceOf(sdk, validator, { admin: dso, id: 'Amulet' })).toEqual({ unlocked: plus(before.unlocked, '50'), locked: before.locked });

    // The scan-proxy (authenticated, unlike `validator-user`) refuses LocalNet's HS256 token: the validator trusts only the JWKS.
    const dsoWith = async (token: string) => fetch(`${urls.validatorApi}/v0/scan-proxy/dso`, { headers: { Authorization: `Bearer ${token}` } });
    expect((await dsoWith(await validatorJwt(VALIDATOR_USER))).status).toBe(401);
    const ok = await dsoWith(await oauth.sign({ sub: VALIDATOR_USER, aud: AUDIENCE }));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ dso_party_id: dso });
  });
});
