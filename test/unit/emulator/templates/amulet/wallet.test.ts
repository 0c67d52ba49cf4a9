/**
 * The wallet's transfer offers (splice-wallet) driven as the validator's wallet API drives them:
 * through each user's WalletAppInstall, acting as the validator operator.
 */
import { describe, expect, it } from 'vitest';
import { createTransferPreapproval, installWallet } from '../../../../../src/emulator/templates/amulet/index.js';
import { AMULET, amuletLedger, exercise, trace, type AmuletLedger, type ExecuteBatchResult, type TransferResultV } from './fixture.js';

/** `WalletAppInstall_CreateTransferOffer`'s result. */
interface CreateOfferResult {
  transferOffer: string;
}
/** `WalletAppInstall_TransferOffer_Accept`'s result. */
interface AcceptOfferResult {
  acceptedTransferOffer: string;
}
/** The tracking info of the transfer offer results. */
interface TrackingInfoResult {
  trackingInfo: { trackingId: string; sender: string; receiver: string };
}
/** The outcome of `CO_CompleteAcceptedTransfer`: the transfer's result and the tracking info. */
interface CompletedTransferOutcome {
  _1: TransferResultV;
  _2: unknown;
}

function wallets(l: AmuletLedger) {
  const validator = l.party('validator');
  const aliceInstall = installWallet(l.engine, { dso: l.dso, user: l.alice, validator });
  const bobInstall = installWallet(l.engine, { dso: l.dso, user: l.bob, validator });
  return { validator, aliceInstall, bobInstall };
}

const paymentContext = (c: { amuletRulesCid: string; openRoundCid: string }) => ({
  amuletRules: c.amuletRulesCid,
  context: { openMiningRound: c.openRoundCid, issuingMiningRounds: [], validatorRights: [], featuredAppRight: null },
});

describe('wallet transfer offers', () => {
  it('create, accept, complete: the amount moves from sender to receiver', async () => {
    const l = amuletLedger();
    const w = wallets(l);
    const install = l.engine.contracts.get(w.aliceInstall)!.payload;
    expect(install).toEqual({ dsoParty: l.dso, validatorParty: w.validator, endUserName: 'alice', endUserParty: l.alice });
    const h = l.tap(l.alice, '100');

    const created = await l.client.ok<CreateOfferResult>(
      [w.validator],
      [
        exercise(AMULET.WalletAppInstall, w.aliceInstall, 'WalletAppInstall_CreateTransferOffer', {
          receiver: l.bob,
          amount: { amount: '12.5', unit: 'AmuletUnit' },
          description: 'for the pizza',
          expiresAt: l.at(3600_000),
          trackingId: 'track-1',
        }),
      ],
    );
    const offerCid = created.result.transferOffer;
    expect(l.engine.contracts.get(offerCid)!.payload).toEqual({
      sender: l.alice,
      receiver: l.bob,
      dso: l.dso,
      amount: { amount: '12.5000000000', unit: 'AmuletUnit' },
      description: 'for the pizza',
      expiresAt: l.at(3600_000),
      trackingId: 'track-1',
    });
    // bob sees it (observer); a stranger's validator cannot accept it through alice's install
    expect((await l.client.acs(l.bob, { TemplateFilter: { value: { templateId: AMULET.TransferOffer, includeCreatedEventBlob: false } } })).map((e) => e.contractId)).toEqual([offerCid]);
    const wrong = await l.client.submit([w.validator], [exercise(AMULET.WalletAppInstall, w.aliceInstall, 'WalletAppInstall_TransferOffer_Accept', { cid: offerCid })], [], [l.alice]);
    expect(wrong.error.code).toBe('DAML_AUTHORIZATION_ERROR');

    const accepted = await l.client.ok<AcceptOfferResult>([w.validator], [exercise(AMULET.WalletAppInstall, w.bobInstall, 'WalletAppInstall_TransferOffer_Accept', { cid: offerCid })], [], [l.bob]);
    const acceptedCid = accepted.result.acceptedTransferOffer;
    expect(trace(accepted.events)).toEqual(['exercise WalletAppInstall.WalletAppInstall_TransferOffer_Accept', 'consume TransferOffer.TransferOffer_Accept', 'create AcceptedTransferOffer']);

    // the sender's wallet automation completes it with the sender's amulets
    const c = l.ctx();
    const batch = await l.client.ok<ExecuteBatchResult<CompletedTransferOutcome>>(
      [w.validator],
      [
        exercise(AMULET.WalletAppInstall, w.aliceInstall, 'WalletAppInstall_ExecuteBatch', {
          context: paymentContext(c),
          inputs: [{ tag: 'InputAmulet', value: h }],
          operations: [{ tag: 'CO_CompleteAcceptedTransfer', value: acceptedCid }],
        }),
      ],
      c.disclosed.slice(0, 2),
      [l.alice],
    );
    expect(batch.result.endUserName).toBe('alice');
    expect(batch.result.outcomes[0]!.tag).toBe('COO_CompleteAcceptedTransfer');
    expect(batch.result.outcomes[0]!.value._2).toEqual({ trackingId: 'track-1', sender: l.alice, receiver: l.bob });
    expect(await l.client.balance(l.bob)).toBe('12.5000000000');
    expect(await l.client.balance(l.alice)).toBe('87.5000000000');
  });

  it('reject by the receiver, withdraw by the sender, expiry checks', async () => {
    const l = amuletLedger();
    const w = wallets(l);
    const offer = async (trackingId: string, expiresInMs = 3600_000) =>
      (
        await l.client.ok<CreateOfferResult>([w.validator], [
          exercise(AMULET.WalletAppInstall, w.aliceInstall, 'WalletAppInstall_CreateTransferOffer', {
            receiver: l.bob,
            amount: { amount: '1', unit: 'USDUnit' },
            description: '',
            expiresAt: l.at(expiresInMs),
            trackingId,
          }),
        ])
      ).result.transferOffer;
    const o1 = await offer('t1');
    const rej = await l.client.ok<TrackingInfoResult>([w.validator], [exercise(AMULET.WalletAppInstall, w.bobInstall, 'WalletAppInstall_TransferOffer_Reject', { cid: o1 })], [], [l.bob]);
    expect(rej.result.trackingInfo).toEqual({ trackingId: 't1', sender: l.alice, receiver: l.bob });
    const o2 = await offer('t2');
    const wd = await l.client.ok<TrackingInfoResult>([w.validator], [exercise(AMULET.WalletAppInstall, w.aliceInstall, 'WalletAppInstall_TransferOffer_Withdraw', { cid: o2, reason: 'changed my mind' })], [], [l.alice]);
    expect(wd.result.trackingInfo.trackingId).toBe('t2');
    const o3 = await offer('t3', 60_000);
    const early = await l.client.submit([w.validator], [exercise(AMULET.WalletAppInstall, w.aliceInstall, 'WalletAppInstall_TransferOffer_Expire', { cid: o3 })], [], [l.alice]);
    expect(early.error.cause).toMatch(/Contract has expired/);
    l.clock.advance(120_000);
    const late = await l.client.submit([w.validator], [exercise(AMULET.WalletAppInstall, w.bobInstall, 'WalletAppInstall_TransferOffer_Accept', { cid: o3 })], [], [l.bob]);
    expect(late.error.cause).toMatch(/Offer has not expired/);
    await l.client.ok([w.validator], [exercise(AMULET.WalletAppInstall, w.aliceInstall, 'WalletAppInstall_TransferOffer_Expire', { cid: o3 })], [], [l.alice]);
    const long = await l.client.submit([w.validator], [
      exercise(AMULET.WalletAppInstall, w.aliceInstall, 'WalletAppInstall_CreateTransferOffer', {
        receiver: l.bob,
        amount: { amount: '1', unit: 'AmuletUnit' },
        description: 'x'.repeat(280),
        expiresAt: l.at(60_000),
        trackingId: 't4',
      }),
    ]);
    expect(long.error.code).toBe('DAML_FAILURE');
  });

  it('USD offers convert at the round price; batch tap and pre-approved send', async () => {
    const l = amuletLedger();
    const w = wallets(l);
    const pre = createTransferPreapproval(l.engine, { dso: l.dso, receiver: l.bob, provider: w.validator });
    const c = l.ctx();
    const batch = await l.client.ok<ExecuteBatchResult>(
      [w.validator],
      [
        exercise(AMULET.WalletAppInstall, w.aliceInstall, 'WalletAppInstall_ExecuteBatch', {
          context: paymentContext(c),
          inputs: [],
          operations: [
            { tag: 'CO_Tap', value: { tapAmount: '50' } },
            { tag: 'CO_TransferPreapprovalSend', value: { transferPreapprovalCid: pre, providerFeaturedAppRightCid: null, amount: '20', description: 'hi' } },
            { tag: 'CO_MergeTransferInputs', value: {} },
          ],
        }),
      ],
      [...c.disclosed.slice(0, 2), l.disclose(pre)],
      [l.alice],
    );
    expect(batch.result.outcomes.map((o) => o.tag)).toEqual(['COO_Tap', 'COO_TransferPreapprovalSend', 'COO_MergeTransferInputs']);
    expect(await l.client.balance(l.bob)).toBe('20.0000000000');
    expect(await l.client.balance(l.alice)).toBe('30.0000000000');

    // 1 USD at 0.005 USD/CC = 200 CC
    const offer = (
      await l.client.ok<CreateOfferResult>([w.validator], [
        exercise(AMULET.WalletAppInstall, w.aliceInstall, 'WalletAppInstall_CreateTransferOffer', {
          receiver: l.bob,
          amount: { amount: '0.1', unit: 'USDUnit' },
          description: '',
          expiresAt: l.at(3600_000),
          trackingId: 'usd',
        }),
      ])
    ).result.transferOffer;
    const acc = (await l.client.ok<AcceptOfferResult>([w.validator], [exercise(AMULET.WalletAppInstall, w.bobInstall, 'WalletAppInstall_TransferOffer_Accept', { cid: offer })], [], [l.bob])).result.acceptedTransferOffer;
    const aliceHoldings = (await l.client.holdings(l.alice)).map((x) => ({ tag: 'InputAmulet', value: x.contractId }));
    const done = await l.client.ok<ExecuteBatchResult<CompletedTransferOutcome>>(
      [w.validator],
      [exercise(AMULET.WalletAppInstall, w.aliceInstall, 'WalletAppInstall_ExecuteBatch', { context: paymentContext(c), inputs: aliceHoldings, operations: [{ tag: 'CO_CompleteAcceptedTransfer', value: acc }] })],
      c.disclosed.slice(0, 2),
      [l.alice],
    );
    expect(done.result.outcomes[0]!.value._1.summary.senderChangeAmount).toBe('10.0000000000');
    expect(await l.client.balance(l.bob)).toBe('40.0000000000');
  });
});
