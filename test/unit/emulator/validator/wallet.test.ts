/**
 * The validator's wallet endpoints (Splice wallet-external.yaml, wallet-internal.yaml) through the Hono app, with
 * HS256 tokens: the full transfer-offer flow (offer, list, accept, the wallet automation completes
 * it, status), reject / withdraw / expiry / out-of-funds, balance, amulets, tap, user-status, and
 * every error: 401 without a token, 404 without a wallet, 403 without CanActAs / deactivated /
 * unknown user, 409 on a reused tracking id, 400 on bad bodies, ledger failures mapped like
 * Splice's HttpErrorHandler.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createFeaturedAppRight, tapAmulet, type AmuletPayload } from '../../../../src/emulator/templates/amulet/index.js';
import {
  buildValidatorWorld,
  expiresIn,
  type AcceptedTransferOffer,
  type AcceptedTransferOffers,
  type CreatedTransferOffer,
  type ErrorBody,
  type TapResult,
  type TransferOffers,
  type TransferOfferStatus,
  type UserStatus,
  type ValidatorUser,
  type ValidatorWorld,
  type WalletAmulets,
  type WalletBalance,
} from './fixture.js';

let w: ValidatorWorld;
afterEach(async () => w?.close());

const offer = (w: ValidatorWorld, trackingId: string, amount = '25', receiver = w.bob, ms = 3600_000) => ({
  receiver_party_id: receiver,
  amount,
  description: `offer ${trackingId}`,
  expires_at: expiresIn(w, ms),
  tracking_id: trackingId,
});

async function balance(w: ValidatorWorld, user: string): Promise<string> {
  const r = await w.json<WalletBalance>('GET', '/v0/wallet/balance', { user });
  expect(r.status).toBe(200);
  return r.body.effective_unlocked_qty;
}

describe('transfer offers', () => {
  it('full flow: alice offers to bob, bob lists and accepts, the transfer completes, status shows completed', async () => {
    w = await buildValidatorWorld();
    tapAmulet(w.engine, { dso: w.dso, receiver: w.alice, amount: '100' });
    expect(await balance(w, 'bob')).toBe('0.0000000000');

    const created = await w.json<CreatedTransferOffer>('POST', '/v0/wallet/transfer-offers', { user: 'alice', body: offer(w, 'pizza-1') });
    expect(created.status).toBe(200);
    const offerCid = created.body.offer_contract_id;
    expect(w.engine.contracts.getActive(offerCid)!.payload).toMatchObject({
      sender: w.alice,
      receiver: w.bob,
      dso: w.dso,
      amount: { amount: '25.0000000000', unit: 'AmuletUnit' },
      description: 'offer pizza-1',
      trackingId: 'pizza-1',
    });

    // both see it; the Contract shape of common-external.yaml
    for (const user of ['alice', 'bob']) {
      const list = await w.json<TransferOffers>('GET', '/v0/wallet/transfer-offers', { user });
      expect(list.status).toBe(200);
      expect(list.body.offers.map((c) => c.contract_id)).toEqual([offerCid]);
      expect(Object.keys(list.body.offers[0]!).sort()).toEqual(['contract_id', 'created_at', 'created_event_blob', 'payload', 'template_id']);
      expect(list.body.offers[0]!.template_id).toMatch(/^[0-9a-f]{64}:Splice\.Wallet\.TransferOffer:TransferOffer$/);
    }
    const createdStatus = await w.json('POST', '/v0/wallet/transfer-offers/pizza-1/status', { user: 'alice' });
    expect(createdStatus.body).toEqual({ status: 'created', transaction_id: expect.any(String), contract_id: offerCid });
    // the receiver does not witness the create through alice's install: not in bob's log yet
    expect((await w.json('POST', '/v0/wallet/transfer-offers/pizza-1/status', { user: 'bob' })).status).toBe(404);

    const accepted = await w.json<AcceptedTransferOffer>('POST', `/v0/wallet/transfer-offers/${encodeURIComponent(offerCid)}/accept`, { user: 'bob' });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({ accepted_offer_contract_id: expect.any(String) });

    // the sender's wallet automation completed the accepted offer with alice's amulets
    expect(await balance(w, 'bob')).toBe('25.0000000000');
    expect(await balance(w, 'alice')).toBe('75.0000000000');
    expect(w.engine.contracts.getActive(accepted.body.accepted_offer_contract_id)).toBeUndefined();
    expect((await w.json('GET', '/v0/wallet/transfer-offers', { user: 'bob' })).body).toEqual({ offers: [] });
    expect((await w.json('GET', '/v0/wallet/accepted-transfer-offers', { user: 'bob' })).body).toEqual({ accepted_offers: [] });

    for (const user of ['alice', 'bob']) {
      const s = await w.json<TransferOfferStatus>('POST', '/v0/wallet/transfer-offers/pizza-1/status', { user });
      expect(s.status).toBe(200);
      expect(s.body.status).toBe('completed');
      const amulet = w.engine.contracts.getActive(s.body.contract_id!)!;
      expect(amulet.payload).toMatchObject({ owner: w.bob, amount: { initialAmount: '25.0000000000' } });
      expect(w.engine.updates.byId(s.body.transaction_id!)).toBeDefined();
    }
    const amulets = await w.json<WalletAmulets>('GET', '/v0/wallet/amulets', { user: 'bob' });
    expect(amulets.body.amulets.map((a) => a.contract.contract.contract_id)).toContain(
      (await w.json<TransferOfferStatus>('POST', '/v0/wallet/transfer-offers/pizza-1/status', { user: 'bob' })).body.contract_id,
    );
  });

  it('409 on a reused tracking id, also after the offer is gone', async () => {
    w = await buildValidatorWorld();
    expect((await w.json('POST', '/v0/wallet/transfer-offers', { user: 'alice', body: offer(w, 't-1') })).status).toBe(200);
    const again = await w.json('POST', '/v0/wallet/transfer-offers', { user: 'alice', body: offer(w, 't-1', '3') });
    expect(again).toMatchObject({ status: 409, body: { error: 'Transfer offer with trackingId t-1 already exists.' } });
    expect((await w.json<TransferOffers>('GET', '/v0/wallet/transfer-offers', { user: 'alice' })).body.offers).toHaveLength(1);
    // another tracking id is fine; bob may reuse alice's id (his log has no such event)
    expect((await w.json('POST', '/v0/wallet/transfer-offers', { user: 'alice', body: offer(w, 't-2') })).status).toBe(200);
    expect((await w.json('POST', '/v0/wallet/transfer-offers', { user: 'bob', body: offer(w, 't-1', '1', w.alice) })).status).toBe(200);
    // withdrawn: the tracking id stays used (the transaction log keeps it)
    const t2 = (await w.json<TransferOffers>('GET', '/v0/wallet/transfer-offers', { user: 'alice' })).body.offers.find((c) => c.payload.trackingId === 't-2' && c.payload.sender === w.alice)!;
    expect((await w.call('POST', `/v0/wallet/transfer-offers/${t2.contract_id}/withdraw`, { user: 'alice' })).status).toBe(200);
    expect((await w.json('POST', '/v0/wallet/transfer-offers', { user: 'alice', body: offer(w, 't-2') })).status).toBe(409);
  });

  it('reject, withdraw, expiry and out-of-funds give the failed statuses', async () => {
    w = await buildValidatorWorld();
    tapAmulet(w.engine, { dso: w.dso, receiver: w.alice, amount: '10' });
    const make = async (id: string, amount = '1', ms = 3600_000) =>
      (await w.json<CreatedTransferOffer>('POST', '/v0/wallet/transfer-offers', { user: 'alice', body: offer(w, id, amount, w.bob, ms) })).body.offer_contract_id;
    const status = async (id: string, user = 'alice') => (await w.json('POST', `/v0/wallet/transfer-offers/${id}/status`, { user })).body;

    const r = await make('rej');
    const rejected = await w.call('POST', `/v0/wallet/transfer-offers/${r}/reject`, { user: 'bob' });
    expect(rejected.status).toBe(200);
    expect(await rejected.text()).toBe('');
    expect(await status('rej')).toEqual({ status: 'failed', failure_kind: 'rejected' });
    expect(await status('rej', 'bob')).toEqual({ status: 'failed', failure_kind: 'rejected' });

    const wd = await make('wd');
    const withdrawn = await w.call('POST', `/v0/wallet/transfer-offers/${wd}/withdraw`, { user: 'alice' });
    expect(withdrawn.status).toBe(200);
    expect(await status('wd')).toEqual({ status: 'failed', failure_kind: 'withdrawn', withdrawn_reason: 'Withdrawn by sender' });

    // the wallet automation expires offers past expires_at
    const ex = await make('exp', '1', 60_000);
    w.clock.advance(120_000);
    expect(await status('exp')).toEqual({ status: 'failed', failure_kind: 'expired' });
    expect(w.engine.contracts.getActive(ex)).toBeUndefined();
    // accepting an expired offer: the Daml assertion, HttpErrorHandler's 409 for interpretation errors
    const late = await make('late', '1', 1000);
    w.clock.advance(500);
    expect((await w.json('GET', '/v0/wallet/balance', { user: 'alice' })).status).toBe(200);
    w.clock.advance(1000);
    w.engine.automations.unregister(`validator-wallet:${w.validator}`);
    const tooLate = await w.json<ErrorBody>('POST', `/v0/wallet/transfer-offers/${late}/accept`, { user: 'bob' });
    expect(tooLate.status).toBe(409);
    expect(tooLate.body.error).toMatch(/^DAML_FAILURE\(9,[0-9a-f]{8}\): .*Offer has not expired/);
  });

  it('an accepted offer the sender cannot pay is aborted with out of funds', async () => {
    w = await buildValidatorWorld();
    tapAmulet(w.engine, { dso: w.dso, receiver: w.alice, amount: '10' });
    const cid = (await w.json<CreatedTransferOffer>('POST', '/v0/wallet/transfer-offers', { user: 'alice', body: offer(w, 'big', '25') })).body.offer_contract_id;
    expect((await w.json('POST', `/v0/wallet/transfer-offers/${cid}/accept`, { user: 'bob' })).status).toBe(200);
    expect((await w.json('POST', '/v0/wallet/transfer-offers/big/status', { user: 'bob' })).body).toEqual({
      status: 'failed',
      failure_kind: 'withdrawn',
      withdrawn_reason: 'out of funds (missing 15.0000000000 CC)',
    });
    expect(await balance(w, 'alice')).toBe('10.0000000000');
    expect(await balance(w, 'bob')).toBe('0.0000000000');
  });

  it('accepted-transfer-offers lists what the automation has not completed yet', async () => {
    w = await buildValidatorWorld();
    tapAmulet(w.engine, { dso: w.dso, receiver: w.alice, amount: '10' });
    const cid = (await w.json<CreatedTransferOffer>('POST', '/v0/wallet/transfer-offers', { user: 'alice', body: offer(w, 'a1', '2') })).body.offer_contract_id;
    w.engine.automations.unregister(`validator-wallet:${w.validator}`);
    const acc = (await w.json<AcceptedTransferOffer>('POST', `/v0/wallet/transfer-offers/${cid}/accept`, { user: 'bob' })).body.accepted_offer_contract_id;
    for (const user of ['alice', 'bob']) {
      const l = await w.json<AcceptedTransferOffers>('GET', '/v0/wallet/accepted-transfer-offers', { user });
      expect(l.status).toBe(200);
      expect(l.body.accepted_offers.map((c) => c.contract_id)).toEqual([acc]);
      expect(l.body.accepted_offers[0]!.payload).toMatchObject({ sender: w.alice, receiver: w.bob, trackingId: 'a1' });
    }
    expect((await w.json('POST', '/v0/wallet/transfer-offers/a1/status', { user: 'bob' })).body).toEqual({ status: 'accepted', transaction_id: expect.any(String), contract_id: acc });
  });

  it('bad requests: body, party, amount, contract ids, the wrong party acting', async () => {
    w = await buildValidatorWorld();
    const post = <T = unknown>(body: unknown, user = 'alice') => w.json<T>('POST', '/v0/wallet/transfer-offers', { user, body });
    expect(await post('')).toMatchObject({ status: 400, body: { error: 'The request content was malformed:\nexhausted input' } });
    expect(await post('{')).toMatchObject({ status: 400 });
    expect(await post({})).toMatchObject({ status: 400, body: { error: 'The request content was malformed:\nDecodingFailure at .receiver_party_id: Missing required field' } });
    expect((await post({ ...offer(w, 'x'), expires_at: 'soon' })).status).toBe(400);
    expect(await post({ ...offer(w, 'x'), receiver_party_id: 'bob' })).toMatchObject({ status: 400, body: { error: 'Invalid unique identifier `bob` with missing namespace.' } });
    expect(await post({ ...offer(w, 'x'), amount: 'ten' })).toMatchObject({ status: 400, body: { error: 'Could not read Numeric string "ten"' } });
    // an unknown receiver: the ledger's unknown-party NOT_FOUND
    expect((await post({ ...offer(w, 'x'), receiver_party_id: `zed::${w.alice.split('::')[1]}` })).status).toBe(404);
    // nothing was created by any of these
    expect((await w.json<TransferOffers>('GET', '/v0/wallet/transfer-offers', { user: 'alice' })).body.offers).toEqual([]);

    const unknown = await w.json<ErrorBody>('POST', '/v0/wallet/transfer-offers/00abcdef/accept', { user: 'bob' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatch(/^CONTRACT_NOT_FOUND\(11,[0-9a-f]{8}\): Contract could not be found with id 00abcdef$/);
    expect((await w.json('POST', '/v0/wallet/transfer-offers/00abcdef/reject', { user: 'bob' })).status).toBe(404);
    expect((await w.json('POST', '/v0/wallet/transfer-offers/00abcdef/withdraw', { user: 'alice' })).status).toBe(404);
    // the sender cannot accept (TransferOffer_Accept is the receiver's), the receiver cannot withdraw
    const cid = (await post<CreatedTransferOffer>(offer(w, 'mine'))).body.offer_contract_id;
    expect((await w.json('POST', `/v0/wallet/transfer-offers/${cid}/accept`, { user: 'alice' })).status).toBe(400);
    expect((await w.json('POST', `/v0/wallet/transfer-offers/${cid}/withdraw`, { user: 'bob' })).status).toBe(400);
    expect(w.engine.contracts.getActive(cid)).toBeDefined();
    expect(await w.json('POST', '/v0/wallet/transfer-offers/nope/status', { user: 'alice' })).toMatchObject({
      status: 404,
      body: { error: "Couldn't find transfer offer with tracking id nope" },
    });
  });
});

describe('wallet auth', () => {
  const endpoints: Array<[string, string, string, unknown?]> = [
    ['GET', '/v0/wallet/transfer-offers', 'listTransferOffers'],
    ['POST', '/v0/wallet/transfer-offers', 'createTransferOffer', {}],
    ['POST', '/v0/wallet/transfer-offers/t/status', 'getTransferOfferStatus'],
    ['POST', '/v0/wallet/transfer-offers/00ab/accept', 'acceptTransferOffer'],
    ['POST', '/v0/wallet/transfer-offers/00ab/reject', 'rejectTransferOffer'],
    ['POST', '/v0/wallet/transfer-offers/00ab/withdraw', 'withdrawTransferOffer'],
    ['GET', '/v0/wallet/accepted-transfer-offers', 'listAcceptedTransferOffers'],
    ['GET', '/v0/wallet/balance', 'getBalance'],
    ['GET', '/v0/wallet/amulets', 'list'],
    ['POST', '/v0/wallet/tap', 'tap', {}],
    ['POST', '/v0/wallet/transfer-preapproval', 'createTransferPreapproval'],
    ['POST', '/v0/wallet/transfer-preapproval/send', 'transferPreapprovalSend', {}],
  ];

  it('401 without a token (before the body is read), 404 without a wallet, 403 when not authorized', async () => {
    w = await buildValidatorWorld();
    for (const [method, path, opId, body] of endpoints) {
      const none = await w.json(method, path, { body });
      expect(none, `${method} ${path}`).toMatchObject({ status: 401, body: 'The resource requires authentication, which was not supplied with the request' });
      expect(none.headers.get('www-authenticate')).toBe('Bearer realm="splice wallet realm"');
      expect(none.headers.get('content-type')).toBe('text/plain; charset=UTF-8');
      expect(await w.json(method, path, { user: 'carol', body })).toMatchObject({ status: 404, body: { error: `No wallet found for user 'carol' for operation '${opId}'` } });
      // an authenticated user with no participant user and no wallet: still the wallet 404 first
      expect((await w.json(method, path, { user: 'nobody', body })).status).toBe(404);
      for (const user of ['mallory', 'dave', 'ghost']) {
        expect(await w.json(method, path, { user, body }), `${user} ${path}`).toMatchObject({ status: 403, body: { error: `Authorization Failed for ${user}` } });
      }
    }
  });

  it('the wallet is found by the WalletAppInstall endUserName; the user needs CanActAs on its endUserParty', async () => {
    w = await buildValidatorWorld();
    // carol gets actAs on alice's party: still no wallet of her own
    w.engine.users.grant('carol', [{ kind: 'CanActAs', party: w.alice }]);
    expect((await w.json('GET', '/v0/wallet/balance', { user: 'carol' })).status).toBe(404);
    // mallory gets actAs on her wallet party: now authorized
    w.engine.users.grant('mallory', [{ kind: 'CanActAs', party: w.mallory }]);
    expect((await w.json('GET', '/v0/wallet/balance', { user: 'mallory' })).status).toBe(200);
    // the user from the Splice claim wins over `sub`
    const t = await w.token('carol', { 'https://canton-network': { daml_user: 'alice' } });
    expect((await w.json<UserStatus>('GET', '/v0/wallet/user-status', { token: t })).body.party_id).toBe(w.alice);
  });
});

describe('balance, amulets, tap, user-status', () => {
  it('tap: USD at the round price, rounded up; dedup on command_id; bad amounts', async () => {
    w = await buildValidatorWorld();
    const tap = await w.json<TapResult>('POST', '/v0/wallet/tap', { user: 'alice', body: { amount: '1' } });
    expect(tap.status).toBe(200);
    expect(w.engine.contracts.getActive(tap.body.contract_id)!.payload).toMatchObject({ owner: w.alice, amount: { initialAmount: '200.0000000000' } });
    // 0.0001 USD / 0.005 = 0.02 CC
    const small = await w.json<TapResult>('POST', '/v0/wallet/tap', { user: 'alice', body: { amount: '0.0001', command_id: 'c1' } });
    expect(w.engine.contracts.getActive(small.body.contract_id)!.payload).toMatchObject({ amount: { initialAmount: '0.0200000000' } });
    // the same command id again: deduplicated by the ledger (ALREADY_EXISTS → 409)
    const dup = await w.json<ErrorBody>('POST', '/v0/wallet/tap', { user: 'alice', body: { amount: '0.0001', command_id: 'c1' } });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toMatch(/^DUPLICATE_COMMAND/);
    expect(await w.json('POST', '/v0/wallet/tap', { user: 'alice', body: { amount: 'lots' } })).toMatchObject({ status: 400, body: { error: 'Could not read Numeric string "lots"' } });
    expect(await w.json('POST', '/v0/wallet/tap', { user: 'alice', body: {} })).toMatchObject({ status: 400, body: { error: 'The request content was malformed:\nDecodingFailure at .amount: Missing required field' } });
    // amounts Numeric 10 cannot hold: the ledger's preprocessing error; zero/negative: the Amulet precondition
    const precise = await w.json<ErrorBody>('POST', '/v0/wallet/tap', { user: 'alice', body: { amount: '0.00000000001' } });
    expect(precise.status).toBe(400);
    expect(precise.body.error).toMatch(/^COMMAND_PREPROCESSING_FAILED\(8,[0-9a-f]{8}\): .*without loss of precision$/);
    for (const amount of ['0', '-1']) {
      const r = await w.json<ErrorBody>('POST', '/v0/wallet/tap', { user: 'alice', body: { amount } });
      expect(r.status).toBe(409);
      expect(r.body.error).toMatch(/validExpiringAmount/);
    }
    expect(await balance(w, 'alice')).toBe('200.0200000000');
  });

  it('balance and amulets at the current round, with holding fees accruing', async () => {
    w = await buildValidatorWorld();
    tapAmulet(w.engine, { dso: w.dso, receiver: w.bob, amount: '100' });
    const b0 = await w.json('GET', '/v0/wallet/balance', { user: 'bob' });
    expect(b0.body).toEqual({ round: 1, effective_unlocked_qty: '100.0000000000', effective_locked_qty: '0.0000000000', total_holding_fees: '0.0000000000' });
    // two ticks: rounds advance, the amulet (created in round 1) pays holding fees
    w.clock.advance(600_000);
    w.engine.automations.run();
    w.clock.advance(600_000);
    const b1 = await w.json<WalletBalance>('GET', '/v0/wallet/balance', { user: 'bob' });
    expect(b1.body.round).toBeGreaterThan(1);
    const rounds = BigInt(b1.body.round - 1);
    // rate per round = holding fee (USD) / price
    const ratePerRound = (w.engine.contracts.activeAt(w.engine.ledgerEnd(), w.engine.ledgerEnd(), new Set([w.bob])).find((c) => c.templateId.entityName === 'Amulet')!.payload as AmuletPayload).amount.ratePerRound.rate;
    expect(ratePerRound).toBe('0.0038051800');
    expect(b1.body.total_holding_fees).toBe(`0.${(38051800n * rounds).toString().padStart(10, '0')}`);
    const a = await w.json<WalletAmulets>('GET', '/v0/wallet/amulets', { user: 'bob' });
    expect(a.status).toBe(200);
    expect(a.body.locked_amulets).toEqual([]);
    expect(a.body.amulets).toHaveLength(1);
    expect(a.body.amulets[0]).toMatchObject({ round: b1.body.round, accrued_holding_fee: b1.body.total_holding_fees, effective_amount: b1.body.effective_unlocked_qty });
    expect(a.body.amulets[0]!.contract).toEqual({ contract: expect.objectContaining({ contract_id: expect.any(String) }), domain_id: w.engine.synchronizerId });
  });

  it('user-status needs authentication only; validator-user is public', async () => {
    w = await buildValidatorWorld();
    expect((await w.json('GET', '/v0/wallet/user-status', { user: 'alice' })).body).toEqual({ party_id: w.alice, user_onboarded: true, user_wallet_installed: true, has_featured_app_right: false });
    createFeaturedAppRight(w.engine, { dso: w.dso, provider: w.alice });
    expect((await w.json<UserStatus>('GET', '/v0/wallet/user-status', { user: 'alice' })).body.has_featured_app_right).toBe(true);
    for (const user of ['carol', 'nobody']) {
      expect((await w.json('GET', '/v0/wallet/user-status', { user })).body).toEqual({ party_id: '', user_onboarded: false, user_wallet_installed: false, has_featured_app_right: false });
    }
    // mallory may not act as her party, but user-status does not check that
    expect((await w.json('GET', '/v0/wallet/user-status', { user: 'mallory' })).status).toBe(200);
    const none = await w.json('GET', '/v0/wallet/user-status');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="splice wallet realm"');

    expect((await w.json('GET', '/v0/validator-user')).body).toEqual({ party_id: w.validator, user_name: 'ledger-api-user', featured: false });
    createFeaturedAppRight(w.engine, { dso: w.dso, provider: w.validator });
    expect((await w.json<ValidatorUser>('GET', '/v0/validator-user', { token: 'garbage' })).body.featured).toBe(true);
  });
});
