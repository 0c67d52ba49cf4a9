/**
 * Proxy mode of the whole stack, tested against a second emulator instance as the upstream
 * (including an upstream that is down), over real loopback HTTP:
 *  - `upstream`: a first `startStack` with emulated scan and validator;
 *  - `proxied`: a second `startStack` whose scan and validator are `{ mode: 'proxy' }` to the
 *    first's `<scan>/api/scan` and `<validator>/api/validator` (the URLs a client of those APIs is
 *    configured with; src/config/upstreams.ts).
 * Each request is sent both to the upstream directly and through the proxy, and the two answers
 * must be the same (status, content type, body; WWW-Authenticate on a 401): reads, the official
 * ScanClient / ScanProxyClient, validator wallet calls authenticated by the JWT the proxy forwards,
 * and the upstream's errors (400, 401, 404, 405, 409), which pass through unchanged. Last, the
 * upstream stack is closed and the proxy answers 503 in scan's / the validator's `{"error"}` shape.
 * (Timeouts and hop-by-hop headers of the proxy itself: forward.test.ts.)
 */
import { ScanClient, ScanProxyClient } from '@canton-network/core-splice-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type RunningStack } from '../../../src/stack.js';
import { holdingsAtForcedSnapshot, silentLogger, staticTokenProvider, validatorJwt } from '../../e2e/support/amulet.js';

const TIMEOUT_MS = 2000;

let upstream: RunningStack;
let proxied: RunningStack;
let upstreamClosed = false;
let dso: string;
let alice: string;
let bob: string;
const jwt: Record<string, string> = {};

beforeAll(async () => {
  upstream = await startStack({ config: { port: 0, logLevel: 'silent' }, registryPort: 0, scanPort: 0, validatorPort: 0 });
  proxied = await startStack({
    config: { port: 0, logLevel: 'silent' },
    registryPort: 0,
    scanPort: 0,
    validatorPort: 0,
    upstreams: {
      scan: { mode: 'proxy', url: `${upstream.scanUrl}/api/scan`, timeoutMs: TIMEOUT_MS },
      validator: { mode: 'proxy', url: `${upstream.validatorUrl}/api/validator`, timeoutMs: TIMEOUT_MS },
    },
  });
  const party = (hint: string) => upstream.seeded!.parties.find((p) => p.hint === hint)!.party;
  dso = upstream.seeded!.amulet!.dso;
  alice = party('alice');
  bob = party('bob');
  for (const user of ['alice', 'bob', 'executor']) jwt[user] = await validatorJwt(user);
});

afterAll(async () => {
  await proxied?.close();
  if (!upstreamClosed) await upstream?.close();
});

interface Answer {
  status: number;
  contentType: string | null;
  wwwAuthenticate: string | null;
  body: string;
}

async function call(base: string, path: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(`${base}${path}`, init);
  return { status: res.status, contentType: res.headers.get('content-type'), wwwAuthenticate: res.headers.get('www-authenticate'), body: await res.text() };
}

/** The same request to the upstream and through the proxy; returns both answers. */
async function both(api: 'scan' | 'validator', path: string, init: RequestInit = {}): Promise<{ direct: Answer; viaProxy: Answer }> {
  const [d, p] = api === 'scan' ? [upstream.scanUrl!, proxied.scanUrl!] : [upstream.validatorUrl!, proxied.validatorUrl!];
  return { direct: await call(d, path, init), viaProxy: await call(p, path, init) };
}

/** Sent both ways, the answers are identical; returns the proxied one. */
async function same(api: 'scan' | 'validator', path: string, init: RequestInit = {}): Promise<Answer> {
  const { direct, viaProxy } = await both(api, path, init);
  expect(viaProxy).toEqual(direct);
  return viaProxy;
}

const json = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const bearer = (user: string, init: RequestInit = {}): RequestInit => ({ ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${jwt[user]}` } });

describe('scan proxied to a second emulator instance', () => {
  it('reads come back exactly as the upstream gives them', async () => {
    expect(JSON.parse((await same('scan', '/api/scan/v0/dso-party-id')).body)).toEqual({ dso_party_id: dso });
    const info = await same('scan', '/api/scan/v0/dso');
    expect(info.status).toBe(200);
    expect(JSON.parse(info.body).amulet_rules.contract.contract_id).toBe(upstream.seeded!.amulet!.amuletRulesCid);
    await same('scan', '/api/scan/v0/amulet-rules', json({}));
    await same('scan', '/api/scan/v0/open-and-issuing-mining-rounds', json({ cached_open_mining_round_contract_ids: [], cached_issuing_round_contract_ids: [] }));
    await same('scan', '/api/scan/v0/featured-apps');
    await same('scan', `/api/scan/v0/featured-apps/${encodeURIComponent(alice)}`);
    await same('scan', '/api/scan/version');
    const ready = await same('scan', '/api/scan/readyz');
    expect(ready).toMatchObject({ status: 200, body: '' });
  });

  it('the official ScanClient through the proxy: rules, rounds, holdings at a forced snapshot', async () => {
    const viaProxy = new ScanClient(new URL(`${proxied.scanUrl}/api/scan`), silentLogger, staticTokenProvider(''));
    const direct = new ScanClient(new URL(`${upstream.scanUrl}/api/scan`), silentLogger, staticTokenProvider(''));
    expect((await viaProxy.getAmuletRules()).contract_id).toBe(upstream.seeded!.amulet!.amuletRulesCid);
    expect(await viaProxy.getActiveOpenMiningRound()).not.toBeNull();
    // The snapshot is forced on the upstream through the proxy; the direct read at that record time agrees.
    const snap = await holdingsAtForcedSnapshot(viaProxy, [alice, bob]);
    expect(snap.balances).toEqual({ [alice]: { unlocked: '1000', locked: '0' }, [bob]: { unlocked: '500', locked: '0' } });
    const request = { migration_id: 0, record_time: snap.recordTime, record_time_match: 'exact' as const, page_size: 100, owner_party_ids: [alice, bob] };
    expect(await viaProxy.post('/v1/holdings/state', request)).toEqual(await direct.post('/v1/holdings/state', request));
  });

  it("errors pass through unchanged: 404, 400, 405 and the upstream's unknown path", async () => {
    const missing = await same('scan', `/api/scan/v0/transfer-preapprovals/by-party/${encodeURIComponent(bob)}`);
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body)).toEqual({ error: `No TransferPreapproval found for party: ${bob}` });

    const malformed = await same('scan', '/api/scan/v1/holdings/state', json({ migration_id: 0 }));
    expect(malformed.status).toBe(400);
    expect(JSON.parse(malformed.body)).toEqual({ error: expect.stringMatching(/^The request content was malformed/) });

    const notJson = await same('scan', '/api/scan/v0/amulet-rules', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' });
    expect(notJson.status).toBe(400);

    const wrongMethod = await same('scan', '/api/scan/v0/amulet-rules');
    expect(wrongMethod.status).toBe(405);
    expect(JSON.parse(wrongMethod.body)).toEqual({ error: 'HTTP method not allowed, supported methods: POST' });

    // Unknown under /api/scan: the upstream's own 404, naming the URL it was asked for.
    const unknown = await same('scan', '/api/scan/v0/no-such-endpoint?x=1');
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body)).toEqual({ error: `The requested resource could not be found: ${upstream.scanUrl}/api/scan/v0/no-such-endpoint?x=1` });

    // Scan serves the Amulet registry at the root of its host: that is forwarded too, so a
    // wallet configured with the scan URL as its registry works through the proxy.
    const info = await same('scan', '/registry/metadata/v1/info');
    expect(info.status).toBe(200);
    expect(JSON.parse(info.body)).toMatchObject({ adminId: dso });
    const outside = await same('scan', '/v0/dso');
    expect(outside.status).toBe(404);
  });
});

describe('validator proxied to a second emulator instance (JWT forwarded)', () => {
  it('validator-user, and the scan-proxy reads with a token', async () => {
    const user = await same('validator', '/api/validator/v0/validator-user');
    expect(JSON.parse(user.body)).toMatchObject({ party_id: upstream.seeded!.amulet!.validator });
    const rules = await same('validator', '/api/validator/v0/scan-proxy/amulet-rules', bearer('alice'));
    expect(rules.status).toBe(200);
    // The Canton Coin registry behind the upstream validator's scan-proxy.
    const info = await same('validator', '/api/validator/v0/scan-proxy/registry/metadata/v1/info', bearer('alice'));
    expect(info.status).toBe(200);
    expect(JSON.parse(info.body)).toMatchObject({ adminId: dso });

    const scanProxy = new ScanProxyClient(new URL(`${proxied.validatorUrl}/api/validator`), silentLogger, staticTokenProvider(jwt.alice!));
    expect((await scanProxy.getAmuletRules()).contract_id).toBe(upstream.seeded!.amulet!.amuletRulesCid);
    expect((await scanProxy.getOpenMiningRounds()).length).toBe(3);
  });

  it('wallet transfer offers: create through the proxy, listed by sender and receiver, 409 on a reused tracking id', async () => {
    const offers = await same('validator', '/api/validator/v0/wallet/transfer-offers', bearer('alice'));
    expect(offers.status).toBe(200);
    expect(JSON.parse(offers.body)).toEqual({ offers: [] });

    const request = { receiver_party_id: bob, amount: '12.5', description: 'through the proxy', expires_at: (Date.now() + 3_600_000) * 1000, tracking_id: 'proxy-offer-1' };
    const created = await call(proxied.validatorUrl!, '/api/validator/v0/wallet/transfer-offers', bearer('alice', json(request)));
    expect(created.status).toBe(200);
    const { offer_contract_id: offerCid } = JSON.parse(created.body) as { offer_contract_id: string };
    expect(offerCid).toMatch(/^00[0-9a-f]+$/);

    // The offer exists on the upstream: both see it, directly and through the proxy.
    for (const user of ['alice', 'bob']) {
      const list = await same('validator', '/api/validator/v0/wallet/transfer-offers', bearer(user));
      expect((JSON.parse(list.body) as { offers: Array<{ contract_id: string }> }).offers.map((o) => o.contract_id)).toEqual([offerCid]);
    }

    // The same tracking id again: the upstream's 409, unchanged.
    const again = await both('validator', '/api/validator/v0/wallet/transfer-offers', bearer('alice', json(request)));
    expect(again.viaProxy).toEqual(again.direct);
    expect(again.viaProxy.status).toBe(409);
    expect(JSON.parse(again.viaProxy.body)).toEqual({ error: 'Transfer offer with trackingId proxy-offer-1 already exists.' });

    const status = await same('validator', '/api/validator/v0/wallet/transfer-offers/proxy-offer-1/status', bearer('alice', { method: 'POST' }));
    expect(JSON.parse(status.body)).toMatchObject({ status: 'created', contract_id: offerCid });
  });

  it('auth errors pass through: 401 without or with a bad token (plain text, WWW-Authenticate), 404 for a user without a wallet', async () => {
    const none = await same('validator', '/api/validator/v0/wallet/transfer-offers');
    expect(none).toMatchObject({
      status: 401,
      body: 'The resource requires authentication, which was not supplied with the request',
      wwwAuthenticate: 'Bearer realm="splice wallet realm"',
    });
    const forged = await validatorJwt('alice', { secret: 'not-the-secret' });
    const bad = await same('validator', '/api/validator/v0/wallet/transfer-offers', { headers: { authorization: `Bearer ${forged}` } });
    expect(bad).toMatchObject({ status: 401, body: 'The supplied authentication is invalid' });

    const noWallet = await same('validator', '/api/validator/v0/wallet/transfer-offers', bearer('executor'));
    expect(noWallet.status).toBe(404);
    expect(JSON.parse(noWallet.body)).toHaveProperty('error');
  });
});

describe('an upstream that is down', () => {
  it('scan and validator answer 503 in their {"error"} shape; the official client rejects with it', async () => {
    await upstream.close();
    upstreamClosed = true;

    const scanDown = await call(proxied.scanUrl!, '/api/scan/v0/dso');
    expect(scanDown.status).toBe(503);
    expect(scanDown.contentType).toMatch(/^application\/json/);
    expect(JSON.parse(scanDown.body)).toEqual({ error: expect.stringMatching(/^The scan service is unavailable \(upstream [a-z ]+\)\. Please retry in a short while\.$/) });

    const validatorDown = await call(proxied.validatorUrl!, '/api/validator/v0/wallet/transfer-offers', bearer('alice'));
    expect(validatorDown.status).toBe(503);
    expect(JSON.parse(validatorDown.body)).toEqual({ error: expect.stringMatching(/^The validator service is unavailable \(upstream [a-z ]+\)\. Please retry in a short while\.$/) });

    const client = new ScanClient(new URL(`${proxied.scanUrl}/api/scan`), silentLogger, staticTokenProvider(''));
    const err = await client.post('/v0/amulet-rules', {}).catch((e: unknown) => e);
    expect(err).toEqual({ error: expect.stringMatching(/^The scan service is unavailable/) });
  });
});
