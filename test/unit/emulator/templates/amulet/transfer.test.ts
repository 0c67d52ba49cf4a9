/**
 * Amulet through the token-standard V1 factory (ExternalPartyAmuletRules) over the JSON Ledger
 * API: tap, self transfer, offer then accept / reject / withdraw, direct transfer with a
 * pre-approval; the context keys and disclosures a registry would hand out.
 */
import { describe, expect, it } from 'vitest';
import { createFeaturedAppRight, createTransferPreapproval, AmuletIds } from '../../../../../src/emulator/templates/amulet/index.js';
import type { AccountV, AmuletPayload, AmuletTransferInstructionPayload, LockedAmuletPayload, MetadataV } from '../../../../../src/emulator/templates/amulet/values.js';
import { AMULET, IFACE, amuletLedger, exercise, trace, transferArg, type AmuletLedger, type TransferResultV } from './fixture.js';
import {
  createdOf,
  exercisedOf,
  type CompletedTransfer,
  type PendingTransfer,
  type TransferInstructionResult,
} from '../wire.js';
import { interfaceView } from '../../../../support/ledger-wire.js';

/** The result of `TransferPreapproval_Send` (LF JSON). */
interface PreapprovalSendResult {
  result: TransferResultV;
  meta: MetadataV;
}

async function factoryTransfer(l: AmuletLedger, actAs: string, arg: unknown, disclosed = l.ctx().disclosed) {
  return l.client.submit([actAs], [exercise(IFACE.TransferFactoryV1, l.world.externalPartyAmuletRulesCid, 'TransferFactory_Transfer', arg)], disclosed);
}

describe('Amulet: tap and holdings', () => {
  it('taps Amulet created in the open round with the round holding fee rate, visible through HoldingV1', async () => {
    const l = amuletLedger();
    const cid = l.tap(l.alice, '100');
    const c = l.engine.contracts.get(cid)!;
    expect(c.payload).toEqual({
      dso: l.dso,
      owner: l.alice,
      amount: { initialAmount: '100.0000000000', createdAt: { number: '1' }, ratePerRound: { rate: '0.0038051800' } },
    });
    const hs = await l.client.holdings(l.alice);
    expect(hs).toHaveLength(1);
    expect(hs[0]!.view).toEqual({
      owner: l.alice,
      instrumentId: { admin: l.dso, id: 'Amulet' },
      amount: '100.0000000000',
      lock: null,
      meta: { values: { 'amulet.splice.lfdecentralizedtrust.org/created-in-round': '1', 'amulet.splice.lfdecentralizedtrust.org/rate-per-round': '0.00380518' } },
    });
  });

  it('rejects a tap without the rules disclosed, and a tap above the limit', async () => {
    const l = amuletLedger();
    const c = l.ctx();
    const tap = (amount: string, disclosed = c.disclosed) =>
      l.client.submit([l.alice], [exercise(AMULET.AmuletRules, c.amuletRulesCid, 'AmuletRules_DevNet_Tap', { receiver: l.alice, amount, openRound: c.openRoundCid })], disclosed);
    expect((await tap('1', [])).error.code).toBe('CONTRACT_NOT_FOUND');
    const big = await tap('100000000.1');
    expect(big.error.cause).toMatch(/Tapped amount <= 100,000,000/);
    const r = await tap('5');
    expect(r.status).toBe(200);
    expect(r.transaction.events.map((e) => Object.keys(e)[0])).toEqual(['ExercisedEvent', 'ExercisedEvent', 'CreatedEvent']);
  });
});

describe('Amulet: transfers through the TransferFactory', () => {
  it('self transfer: completes at once, change back to the sender', async () => {
    const l = amuletLedger();
    const h = l.tap(l.alice, '100');
    const c = l.ctx();
    const { result, events } = await l.client.ok<TransferInstructionResult<CompletedTransfer>>(
      [l.alice],
      [exercise(IFACE.TransferFactoryV1, c.externalPartyAmuletRulesCid, 'TransferFactory_Transfer', transferArg(l, l.alice, l.alice, '30', [h], c.context))],
      c.disclosed,
    );
    expect(result.output.tag).toBe('TransferInstructionResult_Completed');
    expect(result.output.value.receiverHoldingCids).toHaveLength(1);
    expect(result.senderChangeCids).toHaveLength(1);
    expect(result.meta).toEqual({ values: {} });
    expect(trace(events)).toEqual([
      'exercise ExternalPartyAmuletRules.TransferFactory_Transfer',
      'exercise AmuletRules.AmuletRules_Transfer',
      'consume Amulet.Archive',
      'create Amulet',
      'create Amulet',
    ]);
    expect(await l.client.balance(l.alice)).toBe('100.0000000000');
    const amounts = (await l.client.holdings(l.alice)).map((x) => x.view.amount).sort();
    expect(amounts).toEqual(['30.0000000000', '70.0000000000']);
  });

  it('offer then accept: the amount is locked for the DSO, the receiver gets it on accept', async () => {
    const l = amuletLedger();
    const h = l.tap(l.alice, '100');
    const c = l.ctx();
    const { result, events } = await l.client.ok<TransferInstructionResult<PendingTransfer>>(
      [l.alice],
      [exercise(IFACE.TransferFactoryV1, c.externalPartyAmuletRulesCid, 'TransferFactory_Transfer', transferArg(l, l.alice, l.bob, '40', [h], c.context))],
      c.disclosed,
    );
    expect(result.output.tag).toBe('TransferInstructionResult_Pending');
    const instr = result.output.value.transferInstructionCid;
    expect(trace(events)).toContain('create LockedAmulet');
    expect(trace(events)).toContain('create AmuletTransferInstruction');
    const ti = l.engine.contracts.get(instr)!.payload as AmuletTransferInstructionPayload;
    const locked = l.engine.contracts.get(ti.lockedAmulet)!.payload as LockedAmuletPayload;
    expect(locked.lock).toEqual({ holders: [l.dso], expiresAt: ti.transfer.executeBefore, optContext: `transfer to '${l.bob}'` });
    expect(ti.transfer.inputHoldingCids).toEqual([ti.lockedAmulet]);
    expect(await l.client.balance(l.alice, true)).toBe('40.0000000000');
    expect(await l.client.balance(l.alice, false)).toBe('60.0000000000');
    // the receiver sees the instruction through the interface
    const seen = await l.client.acs(l.bob, { InterfaceFilter: { value: { interfaceId: IFACE.TransferInstructionV1, includeInterfaceView: true, includeCreatedEventBlob: false } } });
    expect(seen.map((e) => e.contractId)).toEqual([instr]);
    expect((interfaceView(seen[0]) as { status: unknown }).status).toEqual({ tag: 'TransferPendingReceiverAcceptance', value: {} });

    // accept: without the LockedAmulet disclosed the receiver cannot unlock it
    const acceptArg = (ctx: unknown) => ({ extraArgs: { context: ctx, meta: { values: {} } } });
    const c2 = l.ctx({ 'expire-lock': { tag: 'AV_Bool', value: true } });
    const noLock = await l.client.submit([l.bob], [exercise(IFACE.TransferInstructionV1, instr, 'TransferInstruction_Accept', acceptArg(c2.context))], c2.disclosed.slice(0, 2));
    expect(noLock.error.code).toBe('CONTRACT_NOT_FOUND');
    // a third party cannot accept
    const byCarol = await l.client.submit([l.carol], [exercise(IFACE.TransferInstructionV1, instr, 'TransferInstruction_Accept', acceptArg(c2.context))], [...c2.disclosed.slice(0, 2), l.disclose(ti.lockedAmulet)]);
    expect(byCarol.status).not.toBe(200);
    const acc = await l.client.ok<TransferInstructionResult>([l.bob], [exercise(IFACE.TransferInstructionV1, instr, 'TransferInstruction_Accept', acceptArg(c2.context))], [...c2.disclosed.slice(0, 2), l.disclose(ti.lockedAmulet)]);
    expect(acc.result.output.tag).toBe('TransferInstructionResult_Completed');
    expect(trace(acc.events)).toEqual([
      'consume AmuletTransferInstruction.TransferInstruction_Accept',
      'consume LockedAmulet.LockedAmulet_Unlock',
      'create Amulet',
      'exercise AmuletRules.AmuletRules_Transfer',
      'consume Amulet.Archive',
      'create Amulet',
    ]);
    expect(await l.client.balance(l.bob)).toBe('40.0000000000');
    expect(await l.client.balance(l.alice)).toBe('60.0000000000');
    expect(await l.client.balance(l.alice, true)).toBe('0.0000000000');
  });

  it('offer then reject or withdraw: the lock is released back to the sender; the receiver cannot withdraw', async () => {
    const l = amuletLedger();
    const c = l.ctx();
    const offer = async (amount: string) => {
      const h = l.tap(l.alice, amount);
      const { result } = await l.client.ok<TransferInstructionResult<PendingTransfer>>(
        [l.alice],
        [exercise(IFACE.TransferFactoryV1, c.externalPartyAmuletRulesCid, 'TransferFactory_Transfer', transferArg(l, l.alice, l.bob, amount, [h], c.context))],
        c.disclosed,
      );
      const instr = result.output.value.transferInstructionCid;
      return { instr, lockedAmulet: (l.engine.contracts.get(instr)!.payload as AmuletTransferInstructionPayload).lockedAmulet };
    };
    const ctx = l.ctx({ 'expire-lock': { tag: 'AV_Bool', value: true } });
    const arg = { extraArgs: { context: ctx.context, meta: { values: {} } } };
    const o1 = await offer('10');
    const rej = await l.client.ok<TransferInstructionResult>([l.bob], [exercise(IFACE.TransferInstructionV1, o1.instr, 'TransferInstruction_Reject', arg)], [...ctx.disclosed.slice(0, 2), l.disclose(o1.lockedAmulet)]);
    expect(rej.result).toMatchObject({ output: { tag: 'TransferInstructionResult_Failed', value: {} }, meta: { values: {} } });
    expect(rej.result.senderChangeCids).toHaveLength(1);
    const o2 = await offer('5');
    const byBob = await l.client.submit([l.bob], [exercise(IFACE.TransferInstructionV1, o2.instr, 'TransferInstruction_Withdraw', arg)], [...ctx.disclosed.slice(0, 2), l.disclose(o2.lockedAmulet)]);
    expect(byBob.error.code).toBe('DAML_AUTHORIZATION_ERROR');
    const wd = await l.client.ok<TransferInstructionResult>([l.alice], [exercise(IFACE.TransferInstructionV1, o2.instr, 'TransferInstruction_Withdraw', arg)], ctx.disclosed.slice(0, 2));
    expect(wd.result.output.tag).toBe('TransferInstructionResult_Failed');
    expect(await l.client.balance(l.alice)).toBe('15.0000000000');
    expect(await l.client.balance(l.alice, true)).toBe('0.0000000000');
    expect(await l.client.balance(l.bob)).toBe('0.0000000000');
  });

  it('reject needs the expire-lock key; with expire-lock false only after the deadline, leaving the lock to expire', async () => {
    const l = amuletLedger();
    const c = l.ctx();
    const h = l.tap(l.alice, '10');
    const arg = transferArg(l, l.alice, l.bob, '10', [h], c.context, { executeBefore: l.at(3600_000) });
    const { result } = await l.client.ok<TransferInstructionResult<PendingTransfer>>([l.alice], [exercise(IFACE.TransferFactoryV1, c.externalPartyAmuletRulesCid, 'TransferFactory_Transfer', arg)], c.disclosed);
    const instr = result.output.value.transferInstructionCid;
    const missing = await l.client.submit([l.bob], [exercise(IFACE.TransferInstructionV1, instr, 'TransferInstruction_Reject', { extraArgs: { context: { values: {} }, meta: { values: {} } } })]);
    expect(missing.error.cause).toMatch(/Missing context entry for: expire-lock/);
    const noExpire = { extraArgs: { context: { values: { 'expire-lock': { tag: 'AV_Bool', value: false } } }, meta: { values: {} } } };
    const early = await l.client.submit([l.bob], [exercise(IFACE.TransferInstructionV1, instr, 'TransferInstruction_Reject', noExpire)]);
    expect(early.error.cause).toMatch(/strictly before deadline 'Transfer.executeBefore'/);
    // past the deadline: accept fails, reject with expire-lock false succeeds and returns nothing
    l.clock.advance(2 * 3600_000);
    const c2 = l.ctx({ 'expire-lock': { tag: 'AV_Bool', value: true } });
    const locked = (l.engine.contracts.get(instr)!.payload as AmuletTransferInstructionPayload).lockedAmulet;
    const late = await l.client.submit([l.bob], [exercise(IFACE.TransferInstructionV1, instr, 'TransferInstruction_Accept', { extraArgs: { context: c2.context, meta: { values: {} } } })], [...c2.disclosed.slice(0, 2), l.disclose(locked)]);
    expect(late.error.cause).toMatch(/at or past deadline 'Transfer.executeBefore'/);
    const rej = await l.client.ok<TransferInstructionResult>([l.bob], [exercise(IFACE.TransferInstructionV1, instr, 'TransferInstruction_Reject', noExpire)]);
    expect(rej.result.senderChangeCids).toEqual([]);
    // the sender spends the expired LockedAmulet directly: it is unlocked on the fly
    expect(await l.client.balance(l.alice, true)).toBe('10.0000000000');
    const c3 = l.ctx();
    const self = await l.client.ok([l.alice], [exercise(IFACE.TransferFactoryV1, c3.externalPartyAmuletRulesCid, 'TransferFactory_Transfer', transferArg(l, l.alice, l.alice, '10', [locked], c3.context))], c3.disclosed);
    expect(trace(self.events)).toContain('consume LockedAmulet.LockedAmulet_OwnerExpireLock');
    expect(await l.client.balance(l.alice, false)).toBe('10.0000000000');
  });

  it('direct transfer when the receiver has a pre-approval (featured provider accepted)', async () => {
    const l = amuletLedger();
    const pre = createTransferPreapproval(l.engine, { dso: l.dso, receiver: l.bob, provider: l.provider });
    const far = createFeaturedAppRight(l.engine, { dso: l.dso, provider: l.provider });
    const h = l.tap(l.alice, '50');
    const c = l.ctx({ 'transfer-preapproval': l.cidValue(pre), 'featured-app-right': l.cidValue(far) });
    const disclosed = [...c.disclosed, l.disclose(pre), l.disclose(far)];
    const arg = transferArg(l, l.alice, l.bob, '20', [h], c.context, { meta: { values: { 'splice.lfdecentralizedtrust.org/reason': 'lunch' } } });
    const { result, events } = await l.client.ok<TransferInstructionResult>([l.alice], [exercise(IFACE.TransferFactoryV1, c.externalPartyAmuletRulesCid, 'TransferFactory_Transfer', arg)], disclosed);
    expect(result.output.tag).toBe('TransferInstructionResult_Completed');
    expect(trace(events)).toEqual([
      'exercise ExternalPartyAmuletRules.TransferFactory_Transfer',
      'exercise TransferPreapproval.TransferPreapproval_Send',
      'exercise AmuletRules.AmuletRules_Transfer',
      'consume Amulet.Archive',
      'create Amulet',
      'create Amulet',
    ]);
    const send = exercisedOf(events[1]).exerciseResult as PreapprovalSendResult;
    expect(send.meta.values['splice.lfdecentralizedtrust.org/reason']).toBe('lunch');
    expect(send.result.meta).toBeNull();
    expect(await l.client.balance(l.bob)).toBe('20.0000000000');
    expect(await l.client.balance(l.alice)).toBe('30.0000000000');
    // a pre-approval of another receiver is refused
    const preCarol = createTransferPreapproval(l.engine, { dso: l.dso, receiver: l.carol });
    const h2 = l.tap(l.alice, '1');
    const c2 = l.ctx({ 'transfer-preapproval': l.cidValue(preCarol) });
    const wrong = await factoryTransfer(l, l.alice, transferArg(l, l.alice, l.bob, '1', [h2], c2.context), [...c2.disclosed, l.disclose(preCarol)]);
    expect(wrong.error.cause).toMatch(/Contract group identifier mismatch/);
  });

  it('checks admin, instrument, amount, inputs, deadlines, ownership and funds; a failure changes nothing', async () => {
    const l = amuletLedger();
    const h = l.tap(l.alice, '10');
    const hb = l.tap(l.bob, '10');
    const c = l.ctx();
    const end = await l.client.ledgerEnd();
    const bad = async (over: Record<string, unknown>, top: Record<string, unknown> = {}) =>
      (await factoryTransfer(l, l.alice, { ...transferArg(l, l.alice, l.bob, '1', [h], c.context, over), ...top })).error.cause;
    expect(await bad({}, { expectedAdmin: l.bob })).toMatch(/Expected admin/);
    expect(await bad({ instrumentId: { admin: l.dso, id: 'CC' } })).toMatch(/Expected instrumentId/);
    expect(await bad({ amount: '0' })).toMatch(/Amount must be positive/);
    expect(await bad({ inputHoldingCids: [] })).toMatch(/At least one holding must be provided/);
    expect(await bad({ requestedAt: l.at(60_000) })).toMatch(/strictly before deadline 'Transfer.requestedAt'/);
    expect(await bad({ executeBefore: l.at(-1) })).toMatch(/at or past deadline 'Transfer.executeBefore'/);
    // another owner's holding: invisible to the sender, and refused even when disclosed
    expect(await bad({ inputHoldingCids: [hb] })).toMatch(/Contract could not be found/);
    const disclosedHb = await factoryTransfer(l, l.alice, transferArg(l, l.alice, l.bob, '1', [hb], c.context), [...c.disclosed, l.disclose(hb)]);
    expect(disclosedHb.error.cause).toMatch(/Contract group identifier mismatch/);
    expect(await bad({ amount: '11' })).toMatch(/ITR_InsufficientFunds \{missingAmount = 1.0\}/);
    const noCtx = await factoryTransfer(l, l.alice, transferArg(l, l.alice, l.bob, '1', [h], { values: {} }));
    expect(noCtx.error.cause).toMatch(/Missing context entry for: amulet-rules/);
    // without the factory disclosed the sender (not a stakeholder) cannot use it
    const hidden = await factoryTransfer(l, l.alice, transferArg(l, l.alice, l.bob, '1', [h], c.context), c.disclosed.slice(0, 2));
    expect(hidden.error.code).toBe('CONTRACT_NOT_FOUND');
    expect(await l.client.ledgerEnd()).toBe(end);
    // double spend: the second use of the same input fails
    await l.client.ok([l.alice], [exercise(IFACE.TransferFactoryV1, c.externalPartyAmuletRulesCid, 'TransferFactory_Transfer', transferArg(l, l.alice, l.alice, '1', [h], c.context))], c.disclosed);
    const again = await factoryTransfer(l, l.alice, transferArg(l, l.alice, l.alice, '1', [h], c.context));
    expect(again.status).not.toBe(200);
  });

  it('payload and argument normalisation: decimals at scale 10, unknown fields rejected', async () => {
    const l = amuletLedger();
    const r = await l.client.submit([l.dso], [{ CreateCommand: { templateId: AMULET.Amulet, createArguments: { dso: l.dso, owner: l.dso, amount: { initialAmount: '1.5', createdAt: { number: 3 }, ratePerRound: { rate: 0.001 } } } } }]);
    expect(r.status).toBe(200);
    expect((createdOf(r.transaction.events[0]).createArgument as AmuletPayload).amount).toEqual({ initialAmount: '1.5000000000', createdAt: { number: '3' }, ratePerRound: { rate: '0.0010000000' } });
    const bad = await l.client.submit([l.dso], [{ CreateCommand: { templateId: AMULET.Amulet, createArguments: { dso: l.dso, owner: l.dso, amount: { initialAmount: '1', createdAt: { number: '1' }, ratePerRound: { rate: '0' } }, extra: 1 } } }]);
    // transcode's check, as for every template (Canton: INVALID_ARGUMENT "Unexpected fields")
    expect(bad.error.code).toBe('INVALID_ARGUMENT');
    expect(bad.error.cause).toBe('The submitted request has invalid arguments: Unexpected fields: extra');
    expect(l.engine.templates.templateById(AmuletIds.Amulet)?.kind).toBe('native');
  });
});

describe('Amulet: token standard V2', () => {
  const TF2 = '#splice-api-token-transfer-instruction-v2:Splice.Api.Token.TransferInstructionV2:TransferFactory';
  const TI2 = '#splice-api-token-transfer-instruction-v2:Splice.Api.Token.TransferInstructionV2:TransferInstruction';
  const acct = (owner: string): AccountV => ({ owner, provider: null, id: '' });
  const v2Arg = (l: AmuletLedger, actors: string[], receiver: string, h: string, context: unknown, sender = acct(l.alice)) => ({
    transfer: { sender, receiver: acct(receiver), amount: '3', instrumentId: l.instrument, requestedAt: l.at(-1000), executeBefore: l.at(3600_000), inputHoldingCids: [h], meta: { values: {} } },
    actors,
    extraArgs: { context, meta: { values: {} } },
  });

  it('sender and receiver as actors: completes at once; sender alone: an instruction the receiver rejects through V2', async () => {
    const l = amuletLedger();
    const c = l.ctx();
    const h1 = l.tap(l.alice, '3');
    const both = await l.client.ok<TransferInstructionResult>([l.alice, l.bob], [exercise(TF2, c.externalPartyAmuletRulesCid, 'TransferFactory_Transfer', v2Arg(l, [l.alice, l.bob], l.bob, h1, c.context))], c.disclosed);
    expect(both.result.output.tag).toBe('TransferInstructionResult_Completed');
    expect(both.result.meta.values).toEqual({ 'splice.lfdecentralizedtrust.org/sender': l.alice, 'splice.lfdecentralizedtrust.org/tx-kind': 'transfer' });
    expect(await l.client.balance(l.bob)).toBe('3.0000000000');

    const h2 = l.tap(l.alice, '3');
    const badActors = await l.client.submit([l.alice, l.carol], [exercise(TF2, c.externalPartyAmuletRulesCid, 'TransferFactory_Transfer', v2Arg(l, [l.alice, l.carol], l.bob, h2, c.context))], c.disclosed);
    expect(badActors.error.cause).toMatch(/'actors' does not have the same elements as one of 'allowed actors'/);
    const notBasic = await l.client.submit([l.alice], [exercise(TF2, c.externalPartyAmuletRulesCid, 'TransferFactory_Transfer', v2Arg(l, [l.alice], l.bob, h2, c.context, { owner: l.alice, provider: l.provider, id: '' }))], c.disclosed);
    expect(notBasic.error.cause).toMatch(/only basic accounts/);

    const offer = await l.client.ok<TransferInstructionResult<PendingTransfer>>([l.alice], [exercise(TF2, c.externalPartyAmuletRulesCid, 'TransferFactory_Transfer', v2Arg(l, [l.alice], l.bob, h2, c.context))], c.disclosed);
    const instr = offer.result.output.value.transferInstructionCid;
    const views = await l.client.acs(l.bob, { InterfaceFilter: { value: { interfaceId: TI2, includeInterfaceView: true, includeCreatedEventBlob: false } } });
    expect(interfaceView(views[0])).toMatchObject({
      transfer: { sender: acct(l.alice), receiver: acct(l.bob) },
      availableActions: [
        [{ tag: 'TIA_Accept', value: {} }, [[l.bob]]],
        [{ tag: 'TIA_Reject', value: {} }, [[l.bob]]],
        [{ tag: 'TIA_Withdraw', value: {} }, [[l.alice]]],
      ],
    });
    const locked = (l.engine.contracts.get(instr)!.payload as AmuletTransferInstructionPayload).lockedAmulet;
    const c2 = l.ctx({ 'expire-lock': { tag: 'AV_Bool', value: true } });
    const rej = await l.client.ok([l.bob], [exercise(TI2, instr, 'TransferInstruction_Reject', { actors: [l.bob], extraArgs: { context: c2.context, meta: { values: {} } } })], [...c2.disclosed.slice(0, 2), l.disclose(locked)]);
    expect(trace(rej.events).slice(0, 2)).toEqual(['exercise AmuletTransferInstruction.TransferInstruction_Reject', 'consume AmuletTransferInstruction.TransferInstruction_Reject']);
    expect(await l.client.balance(l.alice)).toBe('3.0000000000');
    // HoldingV2 views: basic accounts
    const v2 = await l.client.acs(l.alice, { InterfaceFilter: { value: { interfaceId: IFACE.HoldingV2, includeInterfaceView: true, includeCreatedEventBlob: false } } });
    expect((interfaceView(v2[0]) as { account: AccountV }).account).toEqual(acct(l.alice));
  });
});

