/**
 * Conformance of the emulated validator: every endpoint
 * we serve is driven through `createValidatorApp` over the emulated Amulet world, with success
 * cases and the errors we can provoke, and EVERY response is validated with ajv against the
 * OFFICIAL file it belongs to (DESIGN.md rule 1), all with the servers base path `/api/validator`:
 *  - validator-internal.yaml: `/readyz`, `/livez`, `/v0/validator-user`;
 *  - common-external.yaml: `/status`, `/version` (the common admin routes every app serves);
 *  - wallet-external.yaml: `/v0/wallet/transfer-offers` (GET, POST) and `…/{tracking_id}/status`;
 *  - wallet-internal.yaml: the other `/v0/wallet/...` endpoints;
 *  - scan-proxy.yaml: `/v0/scan-proxy/...`;
 *  - the token-standard files for `/v0/scan-proxy/registry/...` (base `/api/validator/v0/scan-proxy`).
 *
 * A status the official file does not document for the operation is allowed only when it is in
 * `UNDOCUMENTED` below, with the reason; JSON error bodies must be exactly `{"error": string}`,
 * and the 401/405 bodies pekko's plain text. Nothing may be a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFeaturedAppRight, createTransferPreapproval, tapAmulet } from '../../src/emulator/templates/amulet/index.js';
import { formatTime } from '../../src/canton/lf-value.js';
import { createValidatorApp, walletAutomationName } from '../../src/emulator/validator/routes.js';
import { ValidatorWallets } from '../../src/emulator/validator/service.js';
import { buildValidatorWorld, expiresIn, type ValidatorWorld } from '../unit/emulator/validator/fixture.js';
import { SPECS, createSpecValidator, specPath, type CoverageRequirement, type SpecValidator } from '../support/openapi-conformance.js';
import { jsonAt, jsonText } from '../support/ledger-wire.js';

const BASE = '/api/validator';
const validatorSpec = createSpecValidator(specPath(SPECS.validatorInternal), { basePath: BASE });
const commonSpec = createSpecValidator(specPath('splice/apps/common/src/main/openapi/common-external.yaml'), { basePath: BASE });
const walletExternal = createSpecValidator(specPath(SPECS.walletExternal), { basePath: BASE });
const walletInternal = createSpecValidator(specPath(SPECS.walletInternal), { basePath: BASE });
const scanProxy = createSpecValidator(specPath(SPECS.scanProxy), { basePath: BASE });
const metadataV1 = createSpecValidator(specPath(SPECS.tokenMetadataV1), { basePath: `${BASE}/v0/scan-proxy` });
const transferV1 = createSpecValidator(specPath(SPECS.transferInstructionV1), { basePath: `${BASE}/v0/scan-proxy` });

function specFor(method: string, path: string): SpecValidator {
  const p = path.split('?')[0]!.slice(BASE.length);
  if (p.startsWith('/v0/scan-proxy/registry/metadata/')) return metadataV1;
  if (p.startsWith('/v0/scan-proxy/registry/transfer-instruction/')) return transferV1;
  if (p.startsWith('/v0/scan-proxy/')) return scanProxy;
  if (p === '/status' || p === '/version') return commonSpec;
  if (p === '/v0/wallet/transfer-offers' || /^\/v0\/wallet\/transfer-offers\/[^/]+\/status$/.test(p)) return walletExternal;
  if (p === '/v0/wallet/buy-traffic-requests' || /^\/v0\/wallet\/buy-traffic-requests\/[^/]+\/status$/.test(p)) return walletExternal;
  if (p.startsWith('/v0/wallet/')) return walletInternal;
  void method;
  return validatorSpec;
}

/** Statuses we return that the official file does not list for the operation, and why. */
const UNDOCUMENTED: Array<{ operationId: string; status: number; reason: string }> = [
  ...[
    'listTransferOffers',
    'createTransferOffer',
    'getTransferOfferStatus',
    'userStatus',
    'list',
    'tap',
    'getBalance',
    'acceptTransferOffer',
    'rejectTransferOffer',
    'withdrawTransferOffer',
    'listAcceptedTransferOffers',
    'getDsoPartyId',
    'getDsoInfo',
    'lookupFeaturedAppRight',
    'getOpenAndIssuingMiningRounds',
    'getAmuletRules',
    'lookupTransferPreapprovalByParty',
    'createTransferPreapproval',
    'transferPreapprovalSend',
    'createBuyTrafficRequest',
    'getBuyTrafficRequestStatus',
  ].map((operationId) => ({ operationId, status: 401, reason: "pekko authenticateOAuth2's rejection (plain text, WWW-Authenticate); the specs document no 401" })),
  ...[
    'listTransferOffers',
    'createTransferOffer',
    'getTransferOfferStatus',
    'list',
    'tap',
    'getBalance',
    'acceptTransferOffer',
    'rejectTransferOffer',
    'withdrawTransferOffer',
    'listAcceptedTransferOffers',
    'createTransferPreapproval',
    'transferPreapprovalSend',
    'createBuyTrafficRequest',
    'getBuyTrafficRequestStatus',
  ].map((operationId) => ({ operationId, status: 403, reason: 'UserWalletAuthExtractor: `Authorization Failed for <user>` (AuthExtractor.rejectWithAuthorizationFailure)' })),
  ...['createTransferPreapproval', 'transferPreapprovalSend', 'createBuyTrafficRequest'].map((operationId) => ({
    operationId,
    status: 404,
    reason: 'UserWalletAuthExtractor: `No wallet found for user …` (the other wallet operations document it; these two do not)',
  })),
  {
    operationId: 'transferPreapprovalSend',
    status: 400,
    reason:
      'a malformed body or party/amount (Codec.tryDecode), a receiver without a pre-approval (INVALID_ARGUMENT), or the treasury COO_Error for insufficient funds (FAILED_PRECONDITION): HttpErrorHandler → 400; the spec documents only 200',
  },
  { operationId: 'acceptTransferOffer', status: 400, reason: 'DAML_AUTHORIZATION_ERROR (INVALID_ARGUMENT) when the sender tries to accept: HttpErrorHandler → 400' },
  { operationId: 'acceptTransferOffer', status: 409, reason: 'a Daml failure (offer expired) is FAILED_PRECONDITION with an interpretation error: HttpErrorHandler → 409' },
  { operationId: 'withdrawTransferOffer', status: 400, reason: 'DAML_AUTHORIZATION_ERROR when the receiver tries to withdraw' },
  { operationId: 'tap', status: 409, reason: 'a repeated command_id: the ledger deduplicates (ALREADY_EXISTS) → 409' },
  { operationId: 'lookupFeaturedAppRight', status: 400, reason: 'a malformed party id: PartyId.tryFromProtoPrimitive throws IllegalArgumentException → 400' },
  { operationId: 'lookupTransferPreapprovalByParty', status: 400, reason: 'a malformed party id (as above)' },
];

const PEKKO_401 = new Set(['The resource requires authentication, which was not supplied with the request', 'The supplied authentication is invalid']);
const isErrorBody = (b: unknown) => typeof b === 'object' && b !== null && !Array.isArray(b) && Object.keys(b).length === 1 && typeof (b as { error?: unknown }).error === 'string';

let w: ValidatorWorld;
let checked = 0;

/** The answer: its status and body (JSON, conformant to the official file; read with `jsonAt`), or its text. */
async function call(method: string, path: string, opts: { user?: string; token?: string; body?: unknown } = {}): Promise<{ status: number; body: unknown }> {
  const res = await w.call(method, path.slice(BASE.length), opts);
  const text = await res.text();
  const ct = res.headers.get('content-type');
  const parsed = (ct ?? '').includes('json') && text !== '' ? (JSON.parse(text) as unknown) : text;
  expect(res.status, `${method} ${path}: never a 500`).not.toBe(500);
  if (res.status === 401) {
    expect(PEKKO_401.has(text), `${method} ${path}: 401 body ${text}`).toBe(true);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="splice (wallet|scan proxy) realm"$/);
  } else if (res.status === 405) {
    // Pekko's rejection text, in the API's own {"error"} shape (as scan answers it), with Allow.
    expect(isErrorBody(parsed), `${method} ${path}: 405 body ${text}`).toBe(true);
    expect(jsonAt(parsed, 'error')).toMatch(/^HTTP method not allowed, supported methods: /);
    expect(res.headers.get('allow')).toBeTruthy();
  } else if (res.status >= 400 && !(res.status === 409 && path === `${BASE}/v0/wallet/transfer-preapproval`)) {
    // (createTransferPreapproval's 409 carries the existing pre-approval's CreateTransferPreapprovalResponse)
    expect(isErrorBody(parsed), `${method} ${path}: error body ${text}`).toBe(true);
  }
  const spec = specFor(method, path);
  const r = spec.validateResponse({ method, path, status: res.status, contentType: ct, body: text });
  if (!r.ok) {
    const allowed = UNDOCUMENTED.find((u) => u.operationId === r.operation && u.status === res.status);
    const undocumentedOnly = r.errors.length === 1 && r.errors[0]!.includes('is not documented');
    const unknownRoute = res.status === 404 && r.operation === undefined;
    const wrongMethod = res.status === 405 && r.operation === undefined;
    if (!((allowed && undocumentedOnly) || unknownRoute || wrongMethod)) {
      throw new Error(`${method} ${path} → ${res.status} does not conform:\n${r.errors.join('\n')}\nbody: ${text.slice(0, 1500)}`);
    }
  }
  checked++;
  return { status: res.status, body: parsed };
}

const req = (list: Array<[string, string, number?]>): CoverageRequirement[] => list.map(([method, pathTemplate, status]) => ({ method, pathTemplate, ...(status ? { status } : {}) }));

describe('validator conformance (validator-internal, wallet-external/-internal, scan-proxy, token standard)', () => {
  beforeAll(async () => {
    w = await buildValidatorWorld({ registry: true });
  });

  afterAll(async () => {
    await w.close();
    expect(validatorSpec.uncovered(req([['get', '/readyz', 200], ['get', '/livez', 200], ['get', '/v0/validator-user', 200]]))).toEqual([]);
    expect(commonSpec.uncovered(req([['get', '/status', 200], ['get', '/version', 200]]))).toEqual([]);
    expect(
      walletExternal.uncovered(
        req([
          ['get', '/v0/wallet/transfer-offers', 200],
          ['get', '/v0/wallet/transfer-offers', 404],
          ['post', '/v0/wallet/transfer-offers', 200],
          ['post', '/v0/wallet/transfer-offers', 400],
          ['post', '/v0/wallet/transfer-offers', 404],
          ['post', '/v0/wallet/transfer-offers', 409],
          ['post', '/v0/wallet/transfer-offers/{tracking_id}/status', 200],
          ['post', '/v0/wallet/transfer-offers/{tracking_id}/status', 404],
          ['post', '/v0/wallet/buy-traffic-requests', 200],
          ['post', '/v0/wallet/buy-traffic-requests', 400],
          ['post', '/v0/wallet/buy-traffic-requests', 409],
          ['post', '/v0/wallet/buy-traffic-requests/{tracking_id}/status', 200],
          ['post', '/v0/wallet/buy-traffic-requests/{tracking_id}/status', 404],
        ]),
      ),
    ).toEqual([]);
    expect(
      walletInternal.uncovered(
        req([
          ['get', '/v0/wallet/user-status', 200],
          ['get', '/v0/wallet/amulets', 200],
          ['get', '/v0/wallet/amulets', 404],
          ['post', '/v0/wallet/tap', 200],
          ['post', '/v0/wallet/tap', 400],
          ['get', '/v0/wallet/balance', 200],
          ['get', '/v0/wallet/balance', 404],
          ['post', '/v0/wallet/transfer-offers/{contract_id}/accept', 200],
          ['post', '/v0/wallet/transfer-offers/{contract_id}/accept', 404],
          ['post', '/v0/wallet/transfer-offers/{contract_id}/reject', 200],
          ['post', '/v0/wallet/transfer-offers/{contract_id}/reject', 404],
          ['post', '/v0/wallet/transfer-offers/{contract_id}/withdraw', 200],
          ['post', '/v0/wallet/transfer-offers/{contract_id}/withdraw', 404],
          ['get', '/v0/wallet/accepted-transfer-offers', 200],
          ['get', '/v0/wallet/accepted-transfer-offers', 404],
          ['post', '/v0/wallet/transfer-preapproval', 200],
          ['post', '/v0/wallet/transfer-preapproval', 409],
          ['post', '/v0/wallet/transfer-preapproval', 429],
          ['post', '/v0/wallet/transfer-preapproval/send', 200],
        ]),
      ),
    ).toEqual([]);
    expect(
      scanProxy.uncovered(
        req([
          ['get', '/v0/scan-proxy/dso-party-id', 200],
          ['get', '/v0/scan-proxy/dso', 200],
          ['get', '/v0/scan-proxy/featured-apps/{provider_party_id}', 200],
          ['get', '/v0/scan-proxy/open-and-issuing-mining-rounds', 200],
          ['get', '/v0/scan-proxy/amulet-rules', 200],
          ['get', '/v0/scan-proxy/transfer-preapprovals/by-party/{party}', 200],
          ['get', '/v0/scan-proxy/transfer-preapprovals/by-party/{party}', 404],
        ]),
      ),
    ).toEqual([]);
    expect(metadataV1.uncovered()).toEqual([]);
    expect(transferV1.uncovered(req([['post', '/registry/transfer-instruction/v1/transfer-factory', 200]]))).toEqual([]);
    expect(checked).toBeGreaterThan(100);
  });

  it('public: health, version, validator-user', async () => {
    for (const p of ['/readyz', '/livez', '/status', '/version', '/v0/validator-user']) expect((await call('GET', `${BASE}${p}`)).status).toBe(200);
    createFeaturedAppRight(w.engine, { dso: w.dso, provider: w.validator });
    expect(jsonAt((await call('GET', `${BASE}/v0/validator-user`)).body, 'featured')).toBe(true);
  });

  it('wallet: buy-traffic requests, completed by the wallet automation, and their errors', async () => {
    const B = `${BASE}/v0/wallet/buy-traffic-requests`;
    const request = (id: string, amount = 200_000, ms = 3600_000, domain = w.engine.synchronizerId) => ({
      receiving_validator_party_id: w.validator,
      domain_id: domain,
      traffic_amount: amount,
      tracking_id: id,
      expires_at: expiresIn(w, ms),
    });
    const status = (id: string, user = 'bob') => call('POST', `${B}/${id}/status`, { user });
    for (const [method, path, body] of [['POST', B, request('e')], ['POST', `${B}/e/status`]] as Array<[string, string, unknown?]>) {
      expect((await call(method, path, { body })).status).toBe(401);
      expect((await call(method, path, { body, user: 'mallory' })).status).toBe(403);
    }
    expect((await call('POST', B, { body: request('e'), user: 'carol' })).status).toBe(404);

    // bob pays all his 666.8 CC for 200 kB (16.67 $/MB at 0.005 $/CC): the automation completes it
    tapAmulet(w.engine, { dso: w.dso, receiver: w.bob, amount: '666.8' });
    const created = await call('POST', B, { user: 'bob', body: request('bt1') });
    expect(created.status).toBe(200);
    expect(jsonAt(created.body, 'request_contract_id')).toMatch(/^00[0-9a-f]+$/);
    const done = await status('bt1');
    expect(jsonAt(done.body, 'status')).toBe('completed');
    expect(typeof jsonAt(done.body, 'transaction_id')).toBe('string');
    const member = w.engine.participantMember;
    expect(w.scan.memberTrafficStatus(w.engine.synchronizerId, member)).toMatchObject({ traffic_status: { target: { total_purchased: 200_000 } } });
    expect((await call('POST', B, { user: 'bob', body: request('bt1') })).status).toBe(409);
    expect((await status('unknown')).status).toBe(404);
    // alice does not see bob's tracking ids
    expect((await status('bt1', 'alice')).status).toBe(404);

    // invalid requests: the automation cancels them with the Amulet rules' reason
    expect((await call('POST', B, { user: 'bob', body: request('small', 1000) })).status).toBe(200);
    expect((await status('small')).body).toEqual({
      status: 'failed',
      failure_reason: 'rejected',
      rejection_reason: 'ITR_InsufficientTopupAmount {requestedTopupAmount = 1000, minTopupAmount = 200000}',
    });
    expect((await call('POST', B, { user: 'bob', body: request('poor') })).status).toBe(200);
    expect((await status('poor')).body).toMatchObject({ status: 'failed', failure_reason: 'rejected' });
    expect(jsonAt((await status('poor')).body, 'rejection_reason')).toMatch(/^ITR_InsufficientFunds \{missingAmount = /);

    // bad bodies and parties
    expect((await call('POST', B, { user: 'bob', body: {} })).status).toBe(400);
    expect((await call('POST', B, { user: 'bob', body: { ...request('x'), receiving_validator_party_id: 'nobody' } })).status).toBe(400);
    expect((await call('POST', B, { user: 'bob', body: { ...request('x'), receiving_validator_party_id: 'someone::1220ab' } })).status).toBe(400);
    expect((await call('POST', B, { user: 'bob', body: { ...request('x'), traffic_amount: 'lots' } })).status).toBe(400);

    // a request nobody completes in time expires
    w.engine.automations.unregister(walletAutomationName(w.validator));
    expect((await call('POST', B, { user: 'bob', body: request('late', 200_000, 1000) })).status).toBe(200);
    expect((await status('late')).body).toEqual({ status: 'created' });
    w.clock.advance(2000);
    // the wallet automation again (an equivalent instance, for the rest of the suite)
    const automation = new ValidatorWallets({ engine: w.engine, dso: w.dso, validatorParty: w.validator, validatorUser: 'ledger-api-user' });
    w.engine.automations.register(walletAutomationName(w.validator), () => automation.runAutomation());
    expect((await status('late')).body).toEqual({ status: 'failed', failure_reason: 'expired' });
  });

  it('wallet: the transfer-offer flow and every error', async () => {
    tapAmulet(w.engine, { dso: w.dso, receiver: w.alice, amount: '50' });
    const offer = (id: string, amount = '5', receiver = w.bob, ms = 3600_000) => ({ receiver_party_id: receiver, amount, description: 'd', expires_at: expiresIn(w, ms), tracking_id: id });
    const O = `${BASE}/v0/wallet/transfer-offers`;

    // auth errors on every wallet endpoint
    const wallet: Array<[string, string, unknown?]> = [
      ['GET', O],
      ['POST', O, offer('e')],
      ['POST', `${O}/e/status`],
      ['POST', `${O}/00ab/accept`],
      ['POST', `${O}/00ab/reject`],
      ['POST', `${O}/00ab/withdraw`],
      ['GET', `${BASE}/v0/wallet/accepted-transfer-offers`],
      ['GET', `${BASE}/v0/wallet/balance`],
      ['GET', `${BASE}/v0/wallet/amulets`],
      ['POST', `${BASE}/v0/wallet/tap`, { amount: '1' }],
    ];
    for (const [method, path, body] of wallet) {
      expect((await call(method, path, { body })).status).toBe(401);
      expect((await call(method, path, { body, token: 'x.y.z' })).status).toBe(401);
      expect((await call(method, path, { body, user: 'carol' })).status).toBe(404);
      expect((await call(method, path, { body, user: 'mallory' })).status).toBe(403);
    }
    expect((await call('GET', `${BASE}/v0/wallet/user-status`)).status).toBe(401);
    expect(jsonAt((await call('GET', `${BASE}/v0/wallet/user-status`, { user: 'carol' })).body, 'user_onboarded')).toBe(false);
    expect(jsonAt((await call('GET', `${BASE}/v0/wallet/user-status`, { user: 'alice' })).body, 'party_id')).toBe(w.alice);

    // create, list, status, 409, 400s
    const cid = jsonText((await call('POST', O, { user: 'alice', body: offer('t1') })).body, 'offer_contract_id');
    expect((await call('POST', O, { user: 'alice', body: offer('t1') })).status).toBe(409);
    expect((await call('POST', O, { user: 'alice', body: {} })).status).toBe(400);
    expect((await call('POST', O, { user: 'alice', body: { ...offer('t9'), receiver_party_id: 'nobody' } })).status).toBe(400);
    expect((await call('POST', O, { user: 'alice', body: { ...offer('t9'), amount: 'x' } })).status).toBe(400);
    expect(jsonAt((await call('GET', O, { user: 'bob' })).body, 'offers')).toHaveLength(1);
    expect(jsonAt((await call('POST', `${O}/t1/status`, { user: 'alice' })).body, 'status')).toBe('created');
    expect((await call('POST', `${O}/unknown/status`, { user: 'alice' })).status).toBe(404);

    // accept → completed; accepted list; wrong-party and unknown-contract errors
    expect((await call('POST', `${O}/${cid}/accept`, { user: 'alice' })).status).toBe(400);
    expect((await call('POST', `${O}/${cid}/withdraw`, { user: 'bob' })).status).toBe(400);
    expect((await call('POST', `${O}/${cid}/accept`, { user: 'bob' })).status).toBe(200);
    expect(jsonAt((await call('POST', `${O}/t1/status`, { user: 'bob' })).body, 'status')).toBe('completed');
    expect((await call('POST', `${O}/00ab/accept`, { user: 'bob' })).status).toBe(404);
    expect((await call('POST', `${O}/00ab/reject`, { user: 'bob' })).status).toBe(404);
    expect((await call('POST', `${O}/00ab/withdraw`, { user: 'alice' })).status).toBe(404);

    // accepted but not yet completed (sender out of funds → aborted; status failed/withdrawn)
    const big = jsonText((await call('POST', O, { user: 'alice', body: offer('big', '1000') })).body, 'offer_contract_id');
    expect((await call('POST', `${O}/${big}/accept`, { user: 'bob' })).status).toBe(200);
    expect((await call('POST', `${O}/big/status`, { user: 'alice' })).body).toMatchObject({ status: 'failed', failure_kind: 'withdrawn' });
    w.engine.automations.unregister(`validator-wallet:${w.validator}`);
    const pending = jsonText((await call('POST', O, { user: 'alice', body: offer('pending', '1') })).body, 'offer_contract_id');
    expect((await call('POST', `${O}/${pending}/accept`, { user: 'bob' })).status).toBe(200);
    expect(jsonAt((await call('GET', `${BASE}/v0/wallet/accepted-transfer-offers`, { user: 'alice' })).body, 'accepted_offers')).toHaveLength(1);
    expect(jsonAt((await call('POST', `${O}/pending/status`, { user: 'alice' })).body, 'status')).toBe('accepted');

    // reject, withdraw, expired accept
    const r = jsonText((await call('POST', O, { user: 'alice', body: offer('rej') })).body, 'offer_contract_id');
    expect((await call('POST', `${O}/${r}/reject`, { user: 'bob' })).status).toBe(200);
    expect((await call('POST', `${O}/rej/status`, { user: 'alice' })).body).toEqual({ status: 'failed', failure_kind: 'rejected' });
    const wd = jsonText((await call('POST', O, { user: 'alice', body: offer('wd') })).body, 'offer_contract_id');
    expect((await call('POST', `${O}/${wd}/withdraw`, { user: 'alice' })).status).toBe(200);
    expect(jsonAt((await call('POST', `${O}/wd/status`, { user: 'alice' })).body, 'withdrawn_reason')).toBe('Withdrawn by sender');
    const late = jsonText((await call('POST', O, { user: 'alice', body: offer('late', '1', w.bob, 1000) })).body, 'offer_contract_id');
    w.clock.advance(2000);
    expect((await call('POST', `${O}/${late}/accept`, { user: 'bob' })).status).toBe(409);

    // balance, amulets, tap
    expect(jsonAt((await call('GET', `${BASE}/v0/wallet/balance`, { user: 'bob' })).body, 'effective_unlocked_qty')).toBe('5.0000000000');
    expect(jsonAt((await call('GET', `${BASE}/v0/wallet/amulets`, { user: 'bob' })).body, 'amulets')).toHaveLength(1);
    expect((await call('POST', `${BASE}/v0/wallet/tap`, { user: 'bob', body: { amount: '1', command_id: 'tap-1' } })).status).toBe(200);
    expect((await call('POST', `${BASE}/v0/wallet/tap`, { user: 'bob', body: { amount: '1', command_id: 'tap-1' } })).status).toBe(409);
    expect((await call('POST', `${BASE}/v0/wallet/tap`, { user: 'bob', body: { amount: 'one' } })).status).toBe(400);
    expect((await call('POST', `${BASE}/v0/wallet/tap`, { user: 'bob', body: '[]' })).status).toBe(400);

    // unknown route, wrong method
    expect((await call('GET', `${BASE}/v0/wallet/nothing`, { user: 'bob' })).status).toBe(404);
    expect((await call('DELETE', O, { user: 'bob' })).status).toBe(405);
  });

  it('scan-proxy and the registry behind it', async () => {
    const S = `${BASE}/v0/scan-proxy`;
    for (const p of ['dso-party-id', 'dso', 'open-and-issuing-mining-rounds', 'amulet-rules']) {
      expect((await call('GET', `${S}/${p}`, { user: 'anyone' })).status).toBe(200);
      expect((await call('GET', `${S}/${p}`)).status).toBe(401);
    }
    expect(jsonAt((await call('GET', `${S}/featured-apps/${encodeURIComponent(w.validator)}`, { user: 'anyone' })).body, 'featured_app_right')).toBeDefined();
    expect((await call('GET', `${S}/featured-apps/${encodeURIComponent(w.carol)}`, { user: 'anyone' })).body).toEqual({});
    expect((await call('GET', `${S}/featured-apps/nope`, { user: 'anyone' })).status).toBe(400);
    expect((await call('GET', `${S}/featured-apps/nope`)).status).toBe(401);
    expect((await call('GET', `${S}/transfer-preapprovals/by-party/${encodeURIComponent(w.carol)}`, { user: 'anyone' })).status).toBe(404);
    expect((await call('GET', `${S}/transfer-preapprovals/by-party/nope`, { user: 'anyone' })).status).toBe(400);
    expect((await call('GET', `${S}/transfer-preapprovals/by-party/nope`)).status).toBe(401);
    createTransferPreapproval(w.engine, { dso: w.dso, receiver: w.carol, provider: w.validator });
    expect((await call('GET', `${S}/transfer-preapprovals/by-party/${encodeURIComponent(w.carol)}`, { user: 'anyone' })).status).toBe(200);

    const R = `${S}/registry`;
    expect((await call('GET', `${R}/metadata/v1/info`, { user: 'anyone' })).status).toBe(200);
    expect((await call('GET', `${R}/metadata/v1/instruments`, { user: 'anyone' })).status).toBe(200);
    expect((await call('GET', `${R}/metadata/v1/instruments/Amulet`, { user: 'anyone' })).status).toBe(200);
    expect((await call('GET', `${R}/metadata/v1/instruments/Nope`, { user: 'anyone' })).status).toBe(404);
    const h = tapAmulet(w.engine, { dso: w.dso, receiver: w.alice, amount: '3' });
    const at = (ms: number) => formatTime(w.clock.nowMicros() + BigInt(ms) * 1000n);
    const choiceArguments = {
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
    };
    expect((await call('POST', `${R}/transfer-instruction/v1/transfer-factory`, { user: 'anyone', body: { choiceArguments } })).status).toBe(200);
    expect((await call('POST', `${R}/transfer-instruction/v1/transfer-factory`, { user: 'anyone', body: {} })).status).toBe(400);
  });

  it('wallet: transfer pre-approvals (create 200 / 409 / 429) and sends through them (200, dedup, 400s)', async () => {
    const P = `${BASE}/v0/wallet/transfer-preapproval`;
    const sendBody = (deduplication_id: string, amount = '1', receiver = w.bob) => ({ receiver_party_id: receiver, amount, deduplication_id, description: 'conformance' });
    for (const [path, body] of [[P, undefined], [`${P}/send`, sendBody('auth')]] as Array<[string, unknown]>) {
      expect((await call('POST', path, { body })).status).toBe(401);
      expect((await call('POST', path, { body, token: 'x.y.z' })).status).toBe(401);
      expect((await call('POST', path, { body, user: 'carol' })).status).toBe(404);
      expect((await call('POST', path, { body, user: 'mallory' })).status).toBe(403);
    }

    // a validator buying 190-day pre-approvals without funds to pay for the 100 days beyond the free 90: 429
    const DAY = 24n * 3600n * 1_000_000n;
    const automationOnly = { engine: w.engine, dso: w.dso, scan: w.scan, validatorParty: w.validator, walletAutomation: false, preapprovalAutomation: true };
    createValidatorApp({ ...automationOnly, preapprovalLifetimeMicros: 190n * DAY });
    expect((await call('POST', P, { user: 'alice' })).status).toBe(429);
    // back to the default 90 days: the pending proposal is accepted in the background
    createValidatorApp(automationOnly);
    expect((await call('POST', P, { user: 'alice' })).status).toBe(409);
    const created = await call('POST', P, { user: 'bob' });
    expect(created.status).toBe(200);
    expect((await call('POST', P, { user: 'bob' })).body).toEqual(created.body);

    // sends: 200 (empty body), the same deduplication id again 200 without a second transfer, 400s
    const before = jsonText((await call('GET', `${BASE}/v0/wallet/balance`, { user: 'bob' })).body, 'effective_unlocked_qty');
    expect((await call('POST', `${P}/send`, { user: 'alice', body: sendBody('c1') })).status).toBe(200);
    expect((await call('POST', `${P}/send`, { user: 'alice', body: sendBody('c1') })).status).toBe(200);
    const after = jsonText((await call('GET', `${BASE}/v0/wallet/balance`, { user: 'bob' })).body, 'effective_unlocked_qty');
    expect(Number(after) - Number(before)).toBeCloseTo(1, 10);
    expect((await call('POST', `${P}/send`, { user: 'alice', body: sendBody('c2', '1', w.dave) })).status).toBe(400);
    expect((await call('POST', `${P}/send`, { user: 'alice', body: sendBody('c3', '1000000') })).status).toBe(400);
    expect((await call('POST', `${P}/send`, { user: 'alice', body: {} })).status).toBe(400);
    expect((await call('POST', `${P}/send`, { user: 'alice', body: sendBody('c4', 'x') })).status).toBe(400);
    expect((await call('GET', P, { user: 'alice' })).status).toBe(405);
  });
});
