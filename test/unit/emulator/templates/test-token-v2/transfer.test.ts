import { describe, expect, it } from 'vitest';
import type { offerViewV1, offerViewV2 } from '../../../../../src/emulator/templates/test-token-v2/transfer.js';
import { basic, context, exercise, extraArgs, holdingsChanges, IFACE, trace, type TxResult } from './client.js';
import { tt2Ledger, type TT2Ledger } from './fixture.js';
import { exercisedOf, type PendingTransfer, type TransferInstructionResult } from '../wire.js';
import { interfaceView } from '../../../../support/ledger-wire.js';

type OfferViewV2 = ReturnType<typeof offerViewV2>;
type OfferViewV1 = ReturnType<typeof offerViewV1>;

/** The result of the root exercise of a successful submission. */
const rootResult = (r: TxResult) => exercisedOf(r.transaction.events[0]).exerciseResult;

const REASON = 'splice.lfdecentralizedtrust.org/reason';

function transferArg(l: TT2Ledger, sender: string, receiver: string, amount: string, inputs: string[], executeBeforeMs = 3_600_000) {
  return {
    sender: basic(sender),
    receiver: basic(receiver),
    amount,
    instrumentId: { admin: l.admin, id: 'X2' },
    requestedAt: l.at(-1000),
    executeBefore: l.at(executeBeforeMs),
    inputHoldingCids: inputs,
    meta: { values: {} },
  };
}

async function v2Transfer(l: TT2Ledger, sender: string, receiver: string, amount: string, inputs: string[], executeBeforeMs?: number) {
  const rulesD = await l.client.disclosed(l.admin, l.rules);
  return l.client.submit(
    [sender],
    [exercise(IFACE.TransferFactoryV2, l.rules, 'TransferFactory_Transfer', { transfer: transferArg(l, sender, receiver, amount, inputs, executeBeforeMs), actors: [sender], extraArgs: extraArgs(context(l.rules)) })],
    [rulesD],
  );
}

describe('TestTokenV2 mint', () => {
  it('mints through TokenRules_OfferMint and a V2 accept, with a mint event for the receiver', async () => {
    const l = tt2Ledger();
    const cid = l.mint(l.alice, '100');
    const hs = await l.client.holdings(l.alice);
    expect(hs).toEqual([
      {
        contractId: cid,
        view: { account: basic(l.alice), instrumentId: { admin: l.admin, id: 'X2' }, amount: '100.0000000000', lock: null, meta: { values: {} } },
      },
    ]);
    const v1 = await l.client.holdings(l.alice, 'V1');
    expect(v1[0]!.view).toEqual({ owner: l.alice, instrumentId: { admin: l.admin, id: 'X2' }, amount: '100.0000000000', lock: null, meta: { values: {} } });
    const txs = await l.client.updates(l.alice, 0);
    const accept = txs.at(-1)!;
    expect((exercisedOf(accept.events[0]).exerciseResult as TransferInstructionResult).meta.values).toEqual({
      [REASON]: 'mint offer',
      'splice.lfdecentralizedtrust.org/tx-kind': 'mint',
    });
    const changes = holdingsChanges(accept.events);
    expect(changes).toHaveLength(1); // the mint account's side is not logged
    expect(changes[0]).toMatchObject({ owner: l.alice, inputs: [], outputs: [cid] });
    expect(changes[0]!.legs[0]).toMatchObject({ side: 'ReceiverSide', otherside: { owner: null, provider: null, id: 'cip-112/mint' }, amount: '100.0000000000' });
  });
});

describe('TestTokenV2 V2 transfers', () => {
  it('offer then accept: locks at the factory, pays the receiver on accept', async () => {
    const l = tt2Ledger();
    const t1 = l.mint(l.alice, '100');
    const r = await v2Transfer(l, l.alice, l.bob, '30', [t1]);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const res = rootResult(r) as TransferInstructionResult<PendingTransfer>;
    expect(res.output.tag).toBe('TransferInstructionResult_Pending');
    const offerCid = res.output.value.transferInstructionCid;
    expect(res.senderChangeCids).toHaveLength(1);
    expect(trace(r.transaction.events)).toEqual([
      'exercise TokenRules.TransferFactory_Transfer',
      'consume Token.Archive',
      'create Token',
      'create Token',
      'exercise TokenRules.EventLog_HoldingsChange',
      'create TokenTransferOffer',
    ]);
    expect(holdingsChanges(r.transaction.events)[0]!.reason).toMatch(/^lock for transfer to Account \{owner = Some 'bob::/);
    expect(await l.client.balance(l.alice, { locked: false })).toBe(70);
    expect(await l.client.balance(l.alice, { locked: true })).toBe(30);

    // bob sees the offer through the V2 and V1 TransferInstruction views
    const [offer] = await l.client.acs(l.bob, { InterfaceFilter: { value: { interfaceId: IFACE.TransferInstructionV2, includeInterfaceView: true } } });
    const view = interfaceView(offer) as OfferViewV2;
    expect(view.availableActions).toEqual([
      [{ tag: 'TIA_Accept', value: {} }, [[l.bob]]],
      [{ tag: 'TIA_Reject', value: {} }, [[l.bob]]],
      [{ tag: 'TIA_Withdraw', value: {} }, [[l.alice]]],
    ]);
    const locked = view.transfer.inputHoldingCids[0]!;
    const [offerV1] = await l.client.acs(l.bob, { InterfaceFilter: { value: { interfaceId: IFACE.TransferInstructionV1, includeInterfaceView: true } } });
    const viewV1 = interfaceView(offerV1) as OfferViewV1;
    expect(viewV1.status).toEqual({ tag: 'TransferPendingReceiverAcceptance', value: {} });
    expect(viewV1.meta.values['cip-112/expiresAt']).toMatch(/^\d+$/);

    const disclosed = [await l.client.disclosed(l.admin, l.rules), await l.client.disclosed(l.alice, locked)];
    const acc = await l.client.ok<TransferInstructionResult>([l.bob], [exercise(IFACE.TransferInstructionV2, offerCid, 'TransferInstruction_Accept', { actors: [l.bob], extraArgs: extraArgs(context(l.rules)) })], disclosed);
    expect(acc.result.output.tag).toBe('TransferInstructionResult_Completed');
    expect(acc.result.meta.values).toEqual({
      'splice.lfdecentralizedtrust.org/receiver': l.bob,
      'splice.lfdecentralizedtrust.org/sender': l.alice,
      'splice.lfdecentralizedtrust.org/tx-kind': 'transfer',
    });
    expect(trace(acc.events)).toEqual([
      'exercise TokenTransferOffer.TransferInstruction_Accept',
      'consume TokenTransferOffer.Archive',
      'consume Token.Archive',
      'create Token',
      'exercise TokenRules.EventLog_HoldingsChange',
      'exercise TokenRules.EventLog_HoldingsChange',
    ]);
    expect(holdingsChanges(acc.events).map((c) => [c.owner, c.legs[0]!.side])).toEqual([
      [l.alice, 'SenderSide'],
      [l.bob, 'ReceiverSide'],
    ]);
    expect(await l.client.balance(l.alice)).toBe(70);
    expect(await l.client.balance(l.alice, { locked: true })).toBe(0);
    expect(await l.client.balance(l.bob)).toBe(30);
  });

  it('self transfer completes at once (merge-split)', async () => {
    const l = tt2Ledger();
    const t1 = l.mint(l.alice, '10');
    const t2 = l.mint(l.alice, '5');
    const r = await v2Transfer(l, l.alice, l.alice, '12', [t1, t2]);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const res = rootResult(r) as TransferInstructionResult;
    expect(res.output.tag).toBe('TransferInstructionResult_Completed');
    expect(res.senderChangeCids).toHaveLength(1);
    const changes = holdingsChanges(r.transaction.events);
    expect(changes.map((c) => c.reason)).toEqual([expect.stringMatching(/^lock for transfer/), undefined]);
    expect(changes[1]!.legs.map((x) => x.side)).toEqual(['SenderSide', 'ReceiverSide']);
    const hs = await l.client.holdings(l.alice);
    expect(hs.map((h) => h.view.amount).sort()).toEqual(['12.0000000000', '3.0000000000']);
    expect(hs.every((h) => h.view.lock === null)).toBe(true);
  });

  it('reject returns the locked amount to the sender; withdraw likewise; roles are enforced', async () => {
    const l = tt2Ledger();
    const t1 = l.mint(l.alice, '100');
    const r1 = await v2Transfer(l, l.alice, l.bob, '40', [t1]);
    const offer1 = (rootResult(r1) as TransferInstructionResult<PendingTransfer>).output.value.transferInstructionCid;
    const [o1] = await l.client.acs(l.bob, { InterfaceFilter: { value: { interfaceId: IFACE.TransferInstructionV2, includeInterfaceView: true } } });
    const locked1 = (interfaceView(o1) as OfferViewV2).transfer.inputHoldingCids[0]!;
    const disclosed = [await l.client.disclosed(l.admin, l.rules), await l.client.disclosed(l.alice, locked1)];
    const arg = (actors: string[]) => ({ actors, extraArgs: extraArgs(context(l.rules)) });

    // the receiver cannot withdraw, the sender cannot accept, a third party cannot accept
    const end = await l.client.ledgerEnd();
    const bobWithdraw = await l.client.submit([l.bob], [exercise(IFACE.TransferInstructionV2, offer1, 'TransferInstruction_Withdraw', arg([l.bob]))], disclosed);
    expect(bobWithdraw.error.code).toBe('DAML_FAILURE');
    expect(bobWithdraw.error.cause).toContain("'actors' does not have the same elements as one of 'allowed actors'");
    const aliceAccept = await l.client.submit([l.alice], [exercise(IFACE.TransferInstructionV2, offer1, 'TransferInstruction_Accept', arg([l.alice]))], disclosed);
    expect(aliceAccept.error.code).toBe('DAML_FAILURE');
    const carolAccept = await l.client.submit([l.carol], [exercise(IFACE.TransferInstructionV2, offer1, 'TransferInstruction_Accept', arg([l.carol]))], [...disclosed, await l.client.disclosed(l.bob, offer1)]);
    expect(carolAccept.error.code).toBe('DAML_FAILURE');
    const carolAsBob = await l.client.submit([l.carol], [exercise(IFACE.TransferInstructionV2, offer1, 'TransferInstruction_Accept', arg([l.bob]))], [...disclosed, await l.client.disclosed(l.bob, offer1)]);
    expect(carolAsBob.error.code).toBe('DAML_AUTHORIZATION_ERROR');
    expect(await l.client.ledgerEnd()).toBe(end);

    const rej = await l.client.ok<TransferInstructionResult>([l.bob], [exercise(IFACE.TransferInstructionV2, offer1, 'TransferInstruction_Reject', arg([l.bob]))], disclosed);
    expect(rej.result.output.tag).toBe('TransferInstructionResult_Failed');
    expect(holdingsChanges(rej.events).map((c) => c.reason)).toEqual(['transfer rejected']);
    expect(await l.client.balance(l.alice, { locked: false })).toBe(100);
    expect(await l.client.balance(l.bob)).toBe(0);

    // withdraw by the sender
    const [h60, h40] = (await l.client.holdings(l.alice)).map((h) => h.contractId);
    const r2 = await v2Transfer(l, l.alice, l.bob, '25', [h60!, h40!]);
    const offer2 = (rootResult(r2) as TransferInstructionResult<PendingTransfer>).output.value.transferInstructionCid;
    const locked2 = (await l.client.holdings(l.alice)).find((h) => h.view.lock !== null)!.contractId;
    const wd = await l.client.ok<TransferInstructionResult>([l.alice], [exercise(IFACE.TransferInstructionV2, offer2, 'TransferInstruction_Withdraw', arg([l.alice]))], [
      await l.client.disclosed(l.admin, l.rules),
    ]);
    expect(wd.result.output.tag).toBe('TransferInstructionResult_Failed');
    expect(holdingsChanges(wd.events).map((c) => [c.reason, c.inputs])).toEqual([['transfer withdrawn', [locked2]]]);
    expect(await l.client.balance(l.alice, { locked: false })).toBe(100);
    expect(await l.client.balance(l.alice, { locked: true })).toBe(0);
  });

  it('rejects spending holdings of another owner or instrument, and double spends', async () => {
    const l = tt2Ledger();
    const a = l.mint(l.alice, '50');
    const c = l.mint(l.carol, '50');
    const y = l.mint(l.alice, '50', 'Y2');
    const end = await l.client.ledgerEnd();
    // carol's token is not even visible to alice
    expect((await v2Transfer(l, l.alice, l.bob, '10', [c])).error.code).toBe('CONTRACT_NOT_FOUND');
    // even disclosed, it is not alice's
    const rulesD = await l.client.disclosed(l.admin, l.rules);
    const stolen = await l.client.submit(
      [l.alice],
      [exercise(IFACE.TransferFactoryV2, l.rules, 'TransferFactory_Transfer', { transfer: transferArg(l, l.alice, l.bob, '10', [c]), actors: [l.alice], extraArgs: extraArgs(context(l.rules)) })],
      [rulesD, await l.client.disclosed(l.carol, c)],
    );
    expect(stolen.error.code).toBe('DAML_FAILURE');
    expect(stolen.error.cause).toContain("'inputHolding.account' is not equal to 'expectedOwner'");
    const otherInstrument = await v2Transfer(l, l.alice, l.bob, '10', [y]);
    expect(otherInstrument.error.cause).toContain("'inputHolding.instrumentId' is not equal to 'expectedInstrumentId'");
    const tooLittle = await v2Transfer(l, l.alice, l.bob, '60', [a]);
    expect(tooLittle.error.cause).toContain("is less than 'transfer.amount'");
    const none = await v2Transfer(l, l.alice, l.bob, '1', []);
    expect(none.error.code).toBe('DAML_FAILURE');
    const twice = await v2Transfer(l, l.alice, l.bob, '10', [a, a]);
    expect(twice.error.code).toBe('CONTRACT_NOT_ACTIVE');
    expect(await l.client.ledgerEnd()).toBe(end);
    expect((await v2Transfer(l, l.alice, l.bob, '10', [a])).status).toBe(200);
    expect((await v2Transfer(l, l.alice, l.bob, '10', [a])).error.code).toBe('CONTRACT_NOT_FOUND');
  });

  it('needs TokenRules as a disclosed contract, and the tokenRules context entry', async () => {
    const l = tt2Ledger();
    const a = l.mint(l.alice, '50');
    const arg = { transfer: transferArg(l, l.alice, l.bob, '10', [a]), actors: [l.alice], extraArgs: extraArgs(context(l.rules)) };
    const hidden = await l.client.submit([l.alice], [exercise(IFACE.TransferFactoryV2, l.rules, 'TransferFactory_Transfer', arg)]);
    expect(hidden.status).toBe(404);
    expect(hidden.error.code).toBe('CONTRACT_NOT_FOUND');
    const noCtx = await l.client.submit(
      [l.alice],
      [exercise(IFACE.TransferFactoryV2, l.rules, 'TransferFactory_Transfer', { ...arg, extraArgs: extraArgs() })],
      [await l.client.disclosed(l.admin, l.rules)],
    );
    expect(noCtx.error.cause).toContain("Context value for 'testTokenV2/tokenRules' not found");
  });

  it('follows the injectable clock: no transfer or accept at or past executeBefore (interface contract)', async () => {
    const l = tt2Ledger();
    const a = l.mint(l.alice, '50');
    const late = await v2Transfer(l, l.alice, l.bob, '10', [a], 0);
    expect(late.error.code).toBe('DAML_FAILURE');
    expect(late.error.context.error_id).toBe('stdlib.daml.com/deadline-exceeded');
    const r = await v2Transfer(l, l.alice, l.bob, '10', [a], 60_000);
    const offer = (rootResult(r) as TransferInstructionResult<PendingTransfer>).output.value.transferInstructionCid;
    const locked = (await l.client.holdings(l.alice)).find((h) => h.view.lock !== null)!.contractId;
    l.clock.advance(60_000);
    const disclosed = [await l.client.disclosed(l.admin, l.rules), await l.client.disclosed(l.alice, locked)];
    const acc = await l.client.submit([l.bob], [exercise(IFACE.TransferInstructionV2, offer, 'TransferInstruction_Accept', { actors: [l.bob], extraArgs: extraArgs(context(l.rules)) })], disclosed);
    expect(acc.error.context.error_id).toBe('stdlib.daml.com/deadline-exceeded');
    expect(acc.error.cause).toContain("Ledger time is at or past deadline 'transfer.executeBefore'");
    // the stale offer can still be rejected; the lock has expired, so the funds are usable again anyway
    const rej = await l.client.ok<TransferInstructionResult>([l.bob], [exercise(IFACE.TransferInstructionV2, offer, 'TransferInstruction_Reject', { actors: [l.bob], extraArgs: extraArgs(context(l.rules)) })], disclosed);
    expect(rej.result.output.tag).toBe('TransferInstructionResult_Failed');
    expect(await l.client.balance(l.alice)).toBe(50);
  });

  it('spends a holding whose lock has expired, but not a live lock', async () => {
    const l = tt2Ledger();
    const a = l.mint(l.alice, '50');
    await v2Transfer(l, l.alice, l.bob, '20', [a], 60_000);
    const locked = (await l.client.holdings(l.alice)).find((h) => h.view.lock !== null)!.contractId;
    const live = await v2Transfer(l, l.alice, l.carol, '20', [locked]);
    expect(live.error.context.error_id).toBe('stdlib.daml.com/deadline-not-exceeded');
    l.clock.advance(60_000);
    const ok = await v2Transfer(l, l.alice, l.carol, '20', [locked]);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  });
});

describe('TestTokenV2 V1 adapters for transfers', () => {
  it('a V1 wallet transfers with the V1 factory, and the receiver accepts with V1', async () => {
    const l = tt2Ledger();
    const a = l.mint(l.alice, '100');
    const rulesD = await l.client.disclosed(l.admin, l.rules);
    const v1Transfer = {
      sender: l.alice,
      receiver: l.bob,
      amount: '15',
      instrumentId: { admin: l.admin, id: 'X2' },
      requestedAt: l.at(-1000),
      executeBefore: l.at(3_600_000),
      inputHoldingCids: [a],
      meta: { values: {} },
    };
    const wrongAdmin = await l.client.submit(
      [l.alice],
      [exercise(IFACE.TransferFactoryV1, l.rules, 'TransferFactory_Transfer', { expectedAdmin: l.alice, transfer: v1Transfer, extraArgs: extraArgs(context(l.rules)) })],
      [rulesD],
    );
    expect(wrongAdmin.error.cause).toContain("'arg.expectedAdmin' is not equal to 'expected value'");
    const r = await l.client.ok<TransferInstructionResult<PendingTransfer>>(
      [l.alice],
      [exercise(IFACE.TransferFactoryV1, l.rules, 'TransferFactory_Transfer', { expectedAdmin: l.admin, transfer: v1Transfer, extraArgs: extraArgs(context(l.rules)) })],
      [rulesD],
    );
    expect(r.result.output.tag).toBe('TransferInstructionResult_Pending');
    const offer = r.result.output.value.transferInstructionCid;
    const [v1] = await l.client.acs(l.bob, { InterfaceFilter: { value: { interfaceId: IFACE.TransferInstructionV1, includeInterfaceView: true } } });
    const view = interfaceView(v1) as OfferViewV1;
    expect(view.transfer).toMatchObject({ sender: l.alice, receiver: l.bob, amount: '15.0000000000' });
    const locked = view.transfer.inputHoldingCids[0]!;
    const acc = await l.client.ok<TransferInstructionResult>([l.bob], [exercise(IFACE.TransferInstructionV1, offer, 'TransferInstruction_Accept', { extraArgs: extraArgs(context(l.rules)) })], [
      rulesD,
      await l.client.disclosed(l.alice, locked),
    ]);
    expect(acc.result.output.tag).toBe('TransferInstructionResult_Completed');
    expect(acc.events[0]!.ExercisedEvent).toMatchObject({ choice: 'TransferInstruction_Accept', consuming: true });
    expect(await l.client.balance(l.bob, { version: 'V1' })).toBe(15);
    expect(await l.client.balance(l.alice, { version: 'V1' })).toBe(85);
  });

  it('V1 reject and withdraw, and V1 update aborts', async () => {
    const l = tt2Ledger();
    const a = l.mint(l.alice, '100');
    const rulesD = await l.client.disclosed(l.admin, l.rules);
    const mk = async (amount: string, inputs: string[]) => {
      const v1Transfer = {
        sender: l.alice,
        receiver: l.bob,
        amount,
        instrumentId: { admin: l.admin, id: 'X2' },
        requestedAt: l.at(-1000),
        executeBefore: l.at(3_600_000),
        inputHoldingCids: inputs,
        meta: { values: {} },
      };
      const r = await l.client.ok<TransferInstructionResult<PendingTransfer>>([l.alice], [exercise(IFACE.TransferFactoryV1, l.rules, 'TransferFactory_Transfer', { expectedAdmin: l.admin, transfer: v1Transfer, extraArgs: extraArgs(context(l.rules)) })], [rulesD]);
      return { offer: r.result.output.value.transferInstructionCid, change: r.result.senderChangeCids };
    };
    const o1 = await mk('10', [a]);
    const upd = await l.client.submit([l.admin], [exercise(IFACE.TransferInstructionV1, o1.offer, 'TransferInstruction_Update', { extraActors: [], extraArgs: extraArgs() })]);
    expect(upd.error.cause).toContain('update is not used on transfer instruction compatibility wrappers');
    const locked = (await l.client.holdings(l.alice)).find((h) => h.view.lock !== null)!.contractId;
    const rej = await l.client.ok<TransferInstructionResult>([l.bob], [exercise(IFACE.TransferInstructionV1, o1.offer, 'TransferInstruction_Reject', { extraArgs: extraArgs(context(l.rules)) })], [
      rulesD,
      await l.client.disclosed(l.alice, locked),
    ]);
    expect(rej.result.output.tag).toBe('TransferInstructionResult_Failed');
    const o2 = await mk('20', o1.change);
    const wd = await l.client.ok<TransferInstructionResult>([l.alice], [exercise(IFACE.TransferInstructionV1, o2.offer, 'TransferInstruction_Withdraw', { extraArgs: extraArgs(context(l.rules)) })], [rulesD]);
    expect(wd.result.output.tag).toBe('TransferInstructionResult_Failed');
    expect(holdingsChanges(wd.events).map((c) => c.reason)).toEqual(['transfer withdrawn']);
    expect(await l.client.balance(l.alice, { version: 'V1', locked: false })).toBe(100);
  });
});
