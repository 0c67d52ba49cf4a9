/**
 * The validator's scan-proxy (Splice `apps/validator/src/main/openapi/scan-proxy.yaml`) answered from the emulated scan in
 * process, the token-standard registry proxied to the Amulet registry under
 * `/v0/scan-proxy/registry/...`, the health endpoints, and the unknown-route / wrong-method
 * answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFeaturedAppRight, createTransferPreapproval, tapAmulet } from '../../../../src/emulator/templates/amulet/index.js';
import { formatTime } from '../../../../src/canton/lf-value.js';
import { createValidatorApp } from '../../../../src/emulator/validator/routes.js';
import { TransferFactoryWithChoiceContextSchema } from '../../../../src/registry/schemas.js';
import { fieldsOf } from '../../../support/ledger-wire.js';
import type { ContractWithState, FeaturedAppRight, TransferPreapprovalByParty } from '../scan/fixture.js';
import { buildValidatorWorld, type ErrorBody, type ScanProxyMiningRounds, type ValidatorWorld } from './fixture.js';

let w: ValidatorWorld;
beforeAll(async () => {
  w = await buildValidatorWorld({ registry: true });
});
afterAll(async () => w.close());

const get = <T = unknown>(path: string, user = 'alice') => w.json<T>('GET', path, { user });

describe('scan-proxy reads', () => {
  it('dso-party-id, dso, amulet-rules, open-and-issuing-mining-rounds (GET, plain arrays)', async () => {
    expect((await get('/v0/scan-proxy/dso-party-id')).body).toEqual({ dso_party_id: w.dso });
    const dso = await get('/v0/scan-proxy/dso');
    expect(dso.status).toBe(200);
    expect(dso.body).toEqual(w.scan.dsoInfo());
    const rules = await get<{ amulet_rules: ContractWithState }>('/v0/scan-proxy/amulet-rules');
    expect(rules.body.amulet_rules.contract.template_id).toMatch(/:Splice\.AmuletRules:AmuletRules$/);
    expect(rules.body.amulet_rules.domain_id).toBe(w.engine.synchronizerId);
    const rounds = await get<ScanProxyMiningRounds>('/v0/scan-proxy/open-and-issuing-mining-rounds');
    expect(Object.keys(rounds.body).sort()).toEqual(['issuing_mining_rounds', 'open_mining_rounds']);
    expect(rounds.body.open_mining_rounds.map((r) => r.contract.payload.round.number)).toEqual(['0', '1', '2']);
    expect(rounds.body.issuing_mining_rounds).toEqual([]);
    expect((await w.json('POST', '/v0/scan-proxy/open-and-issuing-mining-rounds', { user: 'alice', body: {} })).status).toBe(405);
  });

  it('featured-apps/{provider}: {} or the right; 400 for a malformed party', async () => {
    expect((await get(`/v0/scan-proxy/featured-apps/${encodeURIComponent(w.bob)}`)).body).toEqual({});
    const cid = createFeaturedAppRight(w.engine, { dso: w.dso, provider: w.bob });
    const r = await get<FeaturedAppRight>(`/v0/scan-proxy/featured-apps/${encodeURIComponent(w.bob)}`);
    expect(r.body.featured_app_right!.contract_id).toBe(cid);
    expect(await get('/v0/scan-proxy/featured-apps/bob')).toMatchObject({ status: 400, body: { error: 'Invalid unique identifier `bob` with missing namespace.' } });
  });

  it('transfer-preapprovals/by-party/{party}: 404 with scan\'s message, then the pre-approval', async () => {
    expect(await get(`/v0/scan-proxy/transfer-preapprovals/by-party/${encodeURIComponent(w.carol)}`)).toMatchObject({
      status: 404,
      body: { error: `No TransferPreapproval found for party: ${w.carol}` },
    });
    const cid = createTransferPreapproval(w.engine, { dso: w.dso, receiver: w.carol, provider: w.validator });
    const r = await get<TransferPreapprovalByParty>(`/v0/scan-proxy/transfer-preapprovals/by-party/${encodeURIComponent(w.carol)}`);
    expect(r.body.transfer_preapproval.contract.contract_id).toBe(cid);
  });
});

describe('token-standard registry through the scan-proxy', () => {
  it('passes the request context on: the registry\'s ledger calls carry the request id and trace', async () => {
    // an unknown contract: the registry asks the ledger before answering 404
    const cid = `00${'ab'.repeat(32)}`;
    const requestContext = { requestId: 'wallet-req-7', trace: { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', parentId: '1111111111111111', flags: '01' } };
    const before = w.ledgerRequests.length;
    const res = await w.app.request(
      `http://validator.local/api/validator/v0/scan-proxy/registry/transfer-instruction/v1/${cid}/choice-contexts/accept`,
      { method: 'POST', headers: { authorization: `Bearer ${await w.token('alice')}`, 'content-type': 'application/json' }, body: '{}' },
      { requestContext },
    );
    expect(res.status).toBe(404);
    // The registry also follows the ledger in the background (update polls, identity checks of
    // the ledger end), on behalf of no request: those carry no request id and are set apart.
    const calls = w.ledgerRequests.slice(before);
    const forTheRequest = calls.filter((c) => c.headers.has('x-request-id'));
    expect(forTheRequest.length).toBeGreaterThanOrEqual(1);
    for (const { headers } of forTheRequest) {
      expect(headers.get('x-request-id')).toBe('wallet-req-7');
      expect(headers.get('traceparent')).toBe('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    }
    const background = calls.filter((c) => !c.headers.has('x-request-id')).map((c) => c.path);
    for (const path of background) expect(['/v2/updates', '/v2/state/ledger-end']).toContain(path);
  });

  it('metadata and the transfer factory come from the Amulet registry, unchanged', async () => {
    const info = await get('/v0/scan-proxy/registry/metadata/v1/info');
    const direct = await w.registry!.app.request('/registry/metadata/v1/info');
    expect(info.status).toBe(200);
    expect(info.body).toEqual(await direct.json());
    const inst = await get('/v0/scan-proxy/registry/metadata/v1/instruments/Amulet');
    expect(inst.body).toMatchObject({ id: 'Amulet', symbol: 'CC', decimals: 10 });
    expect((await get('/v0/scan-proxy/registry/metadata/v1/instruments/Nope')).status).toBe(404);
    expect(await get('/v0/scan-proxy/registry/metadata/v9/info')).toMatchObject({
      status: 404,
      body: { error: 'The requested resource could not be found: http://validator.local/api/validator/v0/scan-proxy/registry/metadata/v9/info' },
    });

    const h = tapAmulet(w.engine, { dso: w.dso, receiver: w.alice, amount: '10' });
    const at = (ms: number) => formatTime(w.clock.nowMicros() + BigInt(ms) * 1000n);
    const f = await w.json('POST', '/v0/scan-proxy/registry/transfer-instruction/v1/transfer-factory', {
      user: 'alice',
      body: {
        choiceArguments: {
          expectedAdmin: w.dso,
          transfer: {
            sender: w.alice,
            receiver: w.bob,
            amount: '1',
            instrumentId: { admin: w.dso, id: 'Amulet' },
            requestedAt: at(-1000),
            executeBefore: at(3600_000),
            inputHoldingCids: [h],
            meta: { values: {} },
          },
          extraArgs: { context: { values: {} }, meta: { values: {} } },
        },
      },
    });
    expect(f.status).toBe(200);
    const factory = TransferFactoryWithChoiceContextSchema.parse(f.body);
    expect(factory.transferKind).toBe('offer');
    expect(Object.keys(fieldsOf(factory.choiceContext.choiceContextData.values)).sort()).toEqual(['amulet-rules', 'external-party-config-state', 'open-round']);
    const bad = await w.json<ErrorBody>('POST', '/v0/scan-proxy/registry/transfer-instruction/v1/transfer-factory', { user: 'alice', body: '{' });
    expect(bad.status).toBe(400);
    expect(typeof bad.body.error).toBe('string');
  });

  it('without a registry app the registry paths are unknown (404)', async () => {
    const app = createValidatorApp({ engine: w.engine, dso: w.dso, scan: w.scan, validatorParty: w.validator, walletAutomation: false });
    const t = await w.token('alice');
    const r = await app.request('http://v.local/api/validator/v0/scan-proxy/registry/metadata/v1/info', { headers: { authorization: `Bearer ${t}` } });
    expect(r.status).toBe(404);
    expect(await r.json()).toEqual({ error: 'The requested resource could not be found: http://v.local/api/validator/v0/scan-proxy/registry/metadata/v1/info' });
  });
});

describe('health, unknown routes, methods, CORS', () => {
  it('readyz/livez empty 200, status and version', async () => {
    for (const p of ['/readyz', '/livez']) {
      const r = await w.call('GET', p);
      expect(r.status).toBe(200);
      expect(await r.text()).toBe('');
    }
    expect((await w.json('GET', '/status')).body).toEqual({ success: { id: expect.stringMatching(/^validator::/), uptime: expect.stringMatching(/s$/), ports: {}, active: true } });
    expect((await w.json('GET', '/version')).body).toEqual({ version: '0.7.5', commit_ts: expect.any(String) });
  });

  it('unknown path: 404 JSON with the URI; known path, other method: 405 JSON with pekko’s message and Allow', async () => {
    const r = await w.json('GET', '/v0/nope?x=1', { user: 'alice' });
    expect(r).toMatchObject({ status: 404, body: { error: 'The requested resource could not be found: http://validator.local/api/validator/v0/nope?x=1' } });
    expect((await w.app.request('http://validator.local/elsewhere')).status).toBe(404);
    const m = await w.json('PUT', '/v0/wallet/transfer-offers', { user: 'alice' });
    expect(m).toMatchObject({ status: 405, body: { error: 'HTTP method not allowed, supported methods: GET, POST' } });
    expect(m.headers.get('allow')).toBe('GET, POST');
    expect(m.headers.get('content-type')).toMatch(/^application\/json/);
    expect((await w.json('GET', '/v0/wallet/tap', { user: 'alice' })).status).toBe(405);
  });

  it('CORS preflight is answered', async () => {
    const r = await w.call('OPTIONS', '/v0/wallet/balance', { headers: { origin: 'http://wallet.example', 'access-control-request-method': 'GET' } });
    expect(r.status).toBe(204);
    expect(r.headers.get('access-control-allow-methods')).toContain('POST');
  });
});
