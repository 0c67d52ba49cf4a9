/**
 * Amulet V2 allocations (Splice `AmuletAllocationV2.daml`, `ExternalPartyAmuletRules.daml`):
 * AllocationFactory V2 on ExternalPartyAmuletRules → AmuletAllocationV2 → SettlementFactory V2
 * batch settlement, cancel, withdraw, the DSO's expiry, and the deadlines, over the JSON API.
 */
import { describe, expect, it } from 'vitest';
import type { amuletAllocationV2View } from '../../../../../src/emulator/templates/amulet/allocation-v2.js';
import type {
  AccountV,
  AllocationSpecificationV2,
  AmuletAllocationV2Payload,
  FinalizedAllocationV,
  LockedAmuletPayload,
  TransferLegSideV2,
} from '../../../../../src/emulator/templates/amulet/values.js';
import { AMULET, IFACE, amuletLedger, exercise, trace, type AmuletLedger } from './fixture.js';
import {
  exercisedOf,
  type AllocationInstructionResultV2,
  type AllocationResultV2,
  type CompletedAllocation,
  type SettleBatchResult,
} from '../wire.js';
import { interfaceView } from '../../../../support/ledger-wire.js';

type AllocationView = ReturnType<typeof amuletAllocationV2View>;

const basic = (owner: string): AccountV => ({ owner, provider: null, id: '' });
const noMeta = { values: {} };
const bool = (value: boolean) => ({ tag: 'AV_Bool', value });

interface Side {
  id: string;
  side: 'SenderSide' | 'ReceiverSide';
  other: string;
  amount: string;
}

function settlement(l: AmuletLedger, id = 'trade-1') {
  return { executors: [l.executor], id, cid: null, meta: noMeta };
}
function legSide(s: Side): TransferLegSideV2 {
  return { transferLegId: s.id, side: s.side, otherside: basic(s.other), amount: s.amount, instrumentId: 'Amulet', meta: noMeta };
}
function allocateArgs(l: AmuletLedger, authorizer: string, sides: Side[], inputs: string[], opts: { deadlineMs?: number; committed?: boolean; id?: string } = {}) {
  const c = l.ctx();
  const allocation: AllocationSpecificationV2 = {
    admin: l.dso,
    authorizer: basic(authorizer),
    transferLegSides: sides.map(legSide),
    settlementDeadline: l.at(opts.deadlineMs ?? 2 * 3600_000),
    nextIterationFunding: null,
    committed: opts.committed ?? false,
    meta: noMeta,
  };
  return {
    settlement: settlement(l, opts.id),
    allocation,
    requestedAt: l.at(-60_000),
    inputHoldingCids: inputs,
    extraArgs: { context: c.context, meta: noMeta },
    actors: [authorizer],
  };
}

async function allocateV2(l: AmuletLedger, authorizer: string, sides: Side[], inputs: string[], opts: Parameters<typeof allocateArgs>[4] = {}) {
  const c = l.ctx();
  const { result, events } = await l.client.ok<AllocationInstructionResultV2<CompletedAllocation>>(
    [authorizer],
    [exercise(IFACE.AllocationFactoryV2, c.externalPartyAmuletRulesCid, 'AllocationFactory_Allocate', allocateArgs(l, authorizer, sides, inputs, opts))],
    c.disclosed,
  );
  expect(result.output.tag).toBe('AllocationInstructionResult_Completed');
  const allocationCid = result.output.value.allocationCid;
  const payload = l.engine.contracts.get(allocationCid)!.payload as AmuletAllocationV2Payload;
  return { allocationCid, payload, result, events };
}

/** The DvP of the tests: alice pays bob 30 (leg-a), bob pays alice 10 (leg-b). */
const LEGS = (l: AmuletLedger) => [
  { transferLegId: 'leg-a', sender: basic(l.alice), receiver: basic(l.bob), amount: '30', instrumentId: 'Amulet', meta: noMeta },
  { transferLegId: 'leg-b', sender: basic(l.bob), receiver: basic(l.alice), amount: '10', instrumentId: 'Amulet', meta: noMeta },
];
const aliceSides = (l: AmuletLedger): Side[] => [
  { id: 'leg-a', side: 'SenderSide', other: l.bob, amount: '30' },
  { id: 'leg-b', side: 'ReceiverSide', other: l.bob, amount: '10' },
];
const bobSides = (l: AmuletLedger): Side[] => [
  { id: 'leg-a', side: 'ReceiverSide', other: l.alice, amount: '30' },
  { id: 'leg-b', side: 'SenderSide', other: l.alice, amount: '10' },
];

function settleArgs(l: AmuletLedger, allocationCids: string[], legs = LEGS(l), id = 'trade-1') {
  const c = l.ctx();
  return {
    settlement: settlement(l, id),
    transferLegs: legs,
    allocations: allocationCids.map((allocationCid): FinalizedAllocationV => ({ allocationCid, extraTransferLegSides: [], nextIterationFunding: null })),
    actors: [l.executor],
    extraArgs: { context: c.context, meta: noMeta },
  };
}

async function swap(l: AmuletLedger) {
  const ha = l.tap(l.alice, '100');
  const hb = l.tap(l.bob, '50');
  const a = await allocateV2(l, l.alice, aliceSides(l), [ha]);
  const b = await allocateV2(l, l.bob, bobSides(l), [hb]);
  return { ha, hb, a, b };
}

describe('Amulet V2 allocations', () => {
  it('allocate locks the net outflow only; an allocation that needs no funding locks nothing and returns its inputs', async () => {
    const l = amuletLedger();
    const { hb, a, b } = await swap(l);
    // alice: -30 + 10 → 20 locked for the DSO until the settlement deadline
    expect(a.payload.lockedAmulet).not.toBeNull();
    const locked = l.engine.contracts.get(a.payload.lockedAmulet!)!.payload as LockedAmuletPayload;
    expect(locked.amulet.amount.initialAmount).toBe('20.0000000000');
    expect(locked.lock).toEqual({ holders: [l.dso], expiresAt: a.payload.allocation.settlementDeadline, optContext: 'allocation for settlement of trade-1' });
    expect(a.payload.expiresAt).toBe(a.payload.allocation.settlementDeadline);
    expect(a.result.authorizerChangeCids.Amulet).toHaveLength(1);
    expect(await l.client.balance(l.alice, true)).toBe('20.0000000000');
    expect(await l.client.balance(l.alice, false)).toBe('80.0000000000');
    // bob: +30 - 10 → nothing to lock; his input comes back unused
    expect(b.payload.lockedAmulet).toBeNull();
    expect(b.result.authorizerChangeCids).toEqual({ Amulet: [hb] });
    expect(trace(b.events)).toContain('create AmuletAllocationV2');
    expect(trace(b.events)).not.toContain('create LockedAmulet');

    // the executor sees both through the Allocation V2 interface, with Splice's view
    const seen = await l.client.acs(l.executor, { InterfaceFilter: { value: { interfaceId: IFACE.AllocationV2, includeInterfaceView: true, includeCreatedEventBlob: false } } });
    const views = Object.fromEntries(seen.map((e) => [e.contractId, interfaceView(e) as AllocationView]));
    expect(views[a.allocationCid]).toMatchObject({
      originalAllocationCid: null,
      settlement: settlement(l),
      holdingCids: [a.payload.lockedAmulet],
      numIterations: '0',
      expiresAt: a.payload.expiresAt,
      availableActions: [
        [{ tag: 'AA_Settle', value: {} }, [[l.dso, l.executor].sort()]],
        [{ tag: 'AA_Cancel', value: {} }, [[l.executor]]],
        [{ tag: 'AA_Withdraw', value: {} }, [[l.alice]]],
      ],
    });
    expect(views[b.allocationCid]!.holdingCids).toEqual([]);
  });

  it('the executor settles a DvP batch through the SettlementFactory: net payouts, nothing left locked', async () => {
    const l = amuletLedger();
    const { a, b } = await swap(l);
    const start = await l.client.ledgerEnd();
    const c = l.ctx();
    const disclosed = [...c.disclosed, l.disclose(a.payload.lockedAmulet!)];
    // not the executor: checkActors
    const byAlice = await l.client.submit([l.alice], [exercise(IFACE.SettlementFactoryV2, c.externalPartyAmuletRulesCid, 'SettlementFactory_SettleBatch', { ...settleArgs(l, [a.allocationCid, b.allocationCid]), actors: [l.alice] })], disclosed);
    expect(byAlice.status).not.toBe(200);
    // without the LockedAmulet disclosed, the executor cannot see what it archives
    const hidden = await l.client.submit([l.executor], [exercise(IFACE.SettlementFactoryV2, c.externalPartyAmuletRulesCid, 'SettlementFactory_SettleBatch', settleArgs(l, [a.allocationCid, b.allocationCid]))], c.disclosed);
    expect(hidden.status).not.toBe(200);

    const { result, events } = await l.client.ok<SettleBatchResult>(
      [l.executor],
      [exercise(IFACE.SettlementFactoryV2, c.externalPartyAmuletRulesCid, 'SettlementFactory_SettleBatch', settleArgs(l, [a.allocationCid, b.allocationCid]))],
      disclosed,
    );
    expect(result.allocationSettleResults).toHaveLength(2);
    const [ra, rb] = result.allocationSettleResults;
    expect(ra!.output).toEqual({ tag: 'AllocationResult_Settled', value: { nextIterationAllocationCid: null } });
    expect(ra!.authorizerHoldingCids).toEqual({});
    expect(rb!.authorizerHoldingCids.Amulet).toHaveLength(1);
    expect(rb!.meta.values).toEqual({ 'splice.lfdecentralizedtrust.org/reason': 'settle V2 allocation', 'splice.lfdecentralizedtrust.org/tx-kind': 'settle-V2-allocation' });
    expect(trace(events)).toEqual([
      'exercise ExternalPartyAmuletRules.SettlementFactory_SettleBatch',
      'exercise AmuletAllocationV2.Allocation_Settle',
      'consume AmuletAllocationV2.Archive',
      'consume LockedAmulet.Archive',
      'exercise AmuletAllocationV2.Allocation_Settle',
      'consume AmuletAllocationV2.Archive',
      'create Amulet',
    ]);
    // 100 - 30 + 10 and 50 + 30 - 10, nothing locked, no allocation left
    expect(await l.client.balance(l.alice)).toBe('80.0000000000');
    expect(await l.client.balance(l.alice, true)).toBe('0.0000000000');
    expect(await l.client.balance(l.bob)).toBe('70.0000000000');
    expect(await l.client.acs(l.executor, { TemplateFilter: { value: { templateId: AMULET.AmuletAllocationV2, includeCreatedEventBlob: false } } })).toEqual([]);
    // alice and bob (leg parties) see the settlement on their update streams
    const bobsUpdates = await l.client.updates(l.bob, start);
    expect(bobsUpdates.flatMap((u) => trace(u.events))).toContain('create Amulet');
    // settled allocations cannot be settled again
    const again = await l.client.submit([l.executor], [exercise(IFACE.SettlementFactoryV2, c.externalPartyAmuletRulesCid, 'SettlementFactory_SettleBatch', settleArgs(l, [a.allocationCid, b.allocationCid]))], disclosed);
    expect(again.status).not.toBe(200);
  });

  it('the batch must cover exactly both sides of every leg, of this settlement', async () => {
    const l = amuletLedger();
    const { a, b } = await swap(l);
    const c = l.ctx();
    const disclosed = [...c.disclosed, l.disclose(a.payload.lockedAmulet!)];
    const settle = async (args: unknown) =>
      (await l.client.submit([l.executor], [exercise(IFACE.SettlementFactoryV2, c.externalPartyAmuletRulesCid, 'SettlementFactory_SettleBatch', args)], disclosed)).error.cause;
    expect(await settle(settleArgs(l, [a.allocationCid]))).toMatch(/'missing authorizations' is not equal to 'empty set'/);
    expect(await settle(settleArgs(l, [a.allocationCid, b.allocationCid], LEGS(l).slice(0, 1)))).toMatch(/'superfluous authorizations' is not equal to 'empty set'/);
    expect(await settle(settleArgs(l, [a.allocationCid, b.allocationCid], LEGS(l), 'trade-2'))).toMatch(/'allocation.settlement' is not equal to 'expected value'/);
    expect(await settle(settleArgs(l, [], []))).toMatch(/at least one transfer leg/);
    const tampered = LEGS(l);
    tampered[0]!.amount = '31';
    expect(await settle(settleArgs(l, [a.allocationCid, b.allocationCid], tampered))).toMatch(/missing authorizations/);
    // nothing changed
    expect(await l.client.balance(l.alice, true)).toBe('20.0000000000');
  });

  it('iterated settlement: the next iteration keeps its funding locked and gets a new allocation', async () => {
    const l = amuletLedger();
    const ha = l.tap(l.alice, '100');
    const args = allocateArgs(l, l.alice, [{ id: 'i1', side: 'SenderSide', other: l.bob, amount: '10' }], [ha]);
    args.allocation.nextIterationFunding = { Amulet: '5' };
    const c = l.ctx();
    const r = await l.client.ok<AllocationInstructionResultV2<CompletedAllocation>>([l.alice], [exercise(IFACE.AllocationFactoryV2, c.externalPartyAmuletRulesCid, 'AllocationFactory_Allocate', args)], c.disclosed);
    const a = r.result.output.value.allocationCid;
    const lockedA = (l.engine.contracts.get(a)!.payload as AmuletAllocationV2Payload).lockedAmulet!;
    expect((l.engine.contracts.get(lockedA)!.payload as LockedAmuletPayload).amulet.amount.initialAmount).toBe('15.0000000000');
    const b = await allocateV2(l, l.bob, [{ id: 'i1', side: 'ReceiverSide', other: l.alice, amount: '10' }], []);
    const settle = settleArgs(l, [a, b.allocationCid], [LEGS(l)[0]!].map((x) => ({ ...x, transferLegId: 'i1', amount: '10' })));
    settle.allocations[0]!.nextIterationFunding = { Amulet: '5' };
    const { result } = await l.client.ok<SettleBatchResult>([l.executor], [exercise(IFACE.SettlementFactoryV2, c.externalPartyAmuletRulesCid, 'SettlementFactory_SettleBatch', settle)], [...c.disclosed, l.disclose(lockedA)]);
    const next = result.allocationSettleResults[0]!.output.value.nextIterationAllocationCid!;
    const np = l.engine.contracts.get(next)!.payload as AmuletAllocationV2Payload;
    expect(np).toMatchObject({ numIterations: '1', allocation: { transferLegSides: [], nextIterationFunding: { Amulet: '5.0000000000' } } });
    expect(result.allocationSettleResults[0]!.authorizerHoldingCids.Amulet).toEqual([np.lockedAmulet]);
    const lock = (l.engine.contracts.get(np.lockedAmulet!)!.payload as LockedAmuletPayload).lock;
    expect(lock.holders).toEqual([l.alice, l.dso]);
    expect(lock.optContext).toBe('allocation for settlement of trade-1');
    expect(await l.client.balance(l.bob)).toBe('10.0000000000');
    expect(await l.client.balance(l.alice, true)).toBe('5.0000000000');
    // the authorizer withdraws the next iteration
    await l.client.ok([l.alice], [exercise(IFACE.AllocationV2, next, 'Allocation_Withdraw', { actors: [l.alice], extraArgs: { context: { values: { 'expire-lock': bool(true) } }, meta: noMeta } })]);
    expect(await l.client.balance(l.alice)).toBe('90.0000000000');
    expect(await l.client.balance(l.alice, true)).toBe('0.0000000000');
  });

  it('validates the allocation request', async () => {
    const l = amuletLedger();
    const h = l.tap(l.alice, '10');
    const c = l.ctx();
    const bad = async (mut: (a: ReturnType<typeof allocateArgs>) => void, actAs = [l.alice]) => {
      const args = allocateArgs(l, l.alice, [{ id: 'l', side: 'SenderSide', other: l.bob, amount: '5' }], [h]);
      mut(args);
      const r = await l.client.submit(actAs, [exercise(IFACE.AllocationFactoryV2, c.externalPartyAmuletRulesCid, 'AllocationFactory_Allocate', args)], c.disclosed);
      expect(r.status).not.toBe(200);
      return r.error.cause;
    };
    expect(await bad((a) => (a.actors = [l.alice, l.bob]), [l.alice, l.bob])).toMatch(/'actors' does not have the same elements as one of 'allowed actors'/);
    expect(await bad((a) => (a.allocation.authorizer = { owner: l.alice, provider: l.bob, id: '' }), [l.alice])).toMatch(/Expected a basic account for field 'allocation.authorizer'/);
    expect(await bad((a) => (a.allocation.settlementDeadline = l.at(-1)))).toMatch(/at or past deadline 'Allocation.settlementDeadline'/);
    expect(await bad((a) => (a.allocation.transferLegSides[0]!.instrumentId = 'X'))).toMatch(/'transferLeg.instrumentId' is not equal to 'expected value'/);
    expect(await bad((a) => (a.allocation.transferLegSides[0]!.amount = '-1'))).toMatch(/'transferLeg.amount' is not greater than 'zero'/);
    expect(await bad((a) => (a.allocation.transferLegSides[0]!.otherside = { owner: l.bob, provider: l.carol, id: '' }))).toMatch(/basic account for field 'transferLeg.otherside'/);
    expect(await bad((a) => (a.inputHoldingCids = []))).toMatch(/At least one input holding must be provided for allocations that require funding/);
    expect(await bad((a) => (a.requestedAt = l.at(60_000)))).toMatch(/strictly before deadline 'requestedAt'/);
    expect(await bad((a) => (a.allocation.transferLegSides[0]!.amount = '11'))).toMatch(/ITR_InsufficientFunds/);
    // bob cannot allocate alice's holding: he does not even see it; disclosed, it is not his
    expect(await bad((a) => ((a.allocation.authorizer = basic(l.bob)), (a.actors = [l.bob])), [l.bob])).toMatch(/could not be found/);
    const stolen = await l.client.submit(
      [l.bob],
      [exercise(IFACE.AllocationFactoryV2, c.externalPartyAmuletRulesCid, 'AllocationFactory_Allocate', { ...allocateArgs(l, l.bob, [{ id: 'l', side: 'SenderSide', other: l.carol, amount: '5' }], [h]) })],
      [...c.disclosed, l.disclose(h)],
    );
    expect(stolen.error.cause).toMatch(/Contract group identifier mismatch: expected ForOwner/);
    expect(await l.client.balance(l.alice)).toBe('10.0000000000');
  });

  it('withdraw (authorizer) and cancel (executors) release the lock; others cannot', async () => {
    const l = amuletLedger();
    const h = l.tap(l.alice, '100');
    const side: Side[] = [{ id: 'l', side: 'SenderSide', other: l.bob, amount: '25' }];
    const a1 = await allocateV2(l, l.alice, side, [h]);
    const a2 = await allocateV2(l, l.alice, side, [a1.result.authorizerChangeCids.Amulet![0]!], { id: 'trade-2' });
    const ctxArgs = (actors: string[]) => ({ actors, extraArgs: { context: { values: { 'expire-lock': bool(true) } }, meta: noMeta } });
    // the receiver cannot withdraw, the executor cannot withdraw, alice cannot cancel
    expect((await l.client.submit([l.bob], [exercise(IFACE.AllocationV2, a1.allocationCid, 'Allocation_Withdraw', ctxArgs([l.bob]))], [l.disclose(a1.allocationCid), l.disclose(a1.payload.lockedAmulet!)])).status).not.toBe(200);
    expect((await l.client.submit([l.executor], [exercise(IFACE.AllocationV2, a1.allocationCid, 'Allocation_Withdraw', ctxArgs([l.executor]))], [l.disclose(a1.payload.lockedAmulet!)])).error.cause).toMatch(/allowed actors/);
    expect((await l.client.submit([l.alice], [exercise(IFACE.AllocationV2, a1.allocationCid, 'Allocation_Cancel', ctxArgs([l.alice]))])).error.cause).toMatch(/allowed actors/);
    // the DSO cannot cancel before the allocation expired
    const dsoCancel = await l.client.submit([l.dso], [exercise(IFACE.AllocationV2, a1.allocationCid, 'Allocation_Cancel', ctxArgs([l.dso]))]);
    expect(dsoCancel.error.cause).toMatch(/strictly before deadline 'allocation.expiresAt'/);

    const w = await l.client.ok<AllocationResultV2>([l.alice], [exercise(IFACE.AllocationV2, a1.allocationCid, 'Allocation_Withdraw', ctxArgs([l.alice]))]);
    expect(w.result.output.tag).toBe('AllocationResult_Withdrawn');
    expect(w.result.authorizerHoldingCids.Amulet).toHaveLength(1);
    expect(w.result.meta).toEqual(noMeta);
    expect(trace(w.events)).toEqual(['exercise AmuletAllocationV2.Allocation_Withdraw', 'consume AmuletAllocationV2.Archive', 'consume LockedAmulet.LockedAmulet_UnlockV2', 'create Amulet']);

    const cn = await l.client.ok<AllocationResultV2>([l.executor], [exercise(IFACE.AllocationV2, a2.allocationCid, 'Allocation_Cancel', ctxArgs([l.executor]))], [l.disclose(a2.payload.lockedAmulet!)]);
    expect(cn.result.output.tag).toBe('AllocationResult_Cancelled');
    expect(cn.result.meta.values).toEqual({ 'splice.lfdecentralizedtrust.org/tx-kind': 'unlock' });
    expect(await l.client.balance(l.alice)).toBe('100.0000000000');
    expect(await l.client.balance(l.alice, true)).toBe('0.0000000000');
  });

  it('deadlines: no settlement after the deadline; the DSO expires it, or the lock is gone and expire-lock is false', async () => {
    const l = amuletLedger();
    const { a, b } = await swap(l);
    // a committed allocation cannot be withdrawn before its deadline
    const h = l.tap(l.carol, '5');
    const committed = await allocateV2(l, l.carol, [{ id: 'c', side: 'SenderSide', other: l.bob, amount: '5' }], [h], { committed: true, id: 'trade-3' });
    const early = await l.client.submit([l.carol], [exercise(IFACE.AllocationV2, committed.allocationCid, 'Allocation_Withdraw', { actors: [l.carol], extraArgs: { context: { values: {} }, meta: noMeta } })]);
    expect(early.error.cause).toMatch(/cannot-withdraw-committed-allocation .*Cannot withdraw a committed allocation before its settlement deadline\./);

    l.clock.advance(3 * 3600_000);
    const c = l.ctx();
    const late = await l.client.submit(
      [l.executor],
      [exercise(IFACE.SettlementFactoryV2, c.externalPartyAmuletRulesCid, 'SettlementFactory_SettleBatch', settleArgs(l, [a.allocationCid, b.allocationCid]))],
      [...c.disclosed, l.disclose(a.payload.lockedAmulet!)],
    );
    expect(late.error.cause).toMatch(/at or past deadline 'allocation.settlement.settlementDeadline'/);

    // the DSO cancels expired allocations in bulk (ExternalPartyAmuletRules_ExpireAmuletAllocationsV2)
    const cancel = { actors: [l.dso], extraArgs: { context: { values: {} }, meta: noMeta } };
    const ex = await l.client.ok([l.dso], [
      exercise(AMULET.ExternalPartyAmuletRules, c.externalPartyAmuletRulesCid, 'ExternalPartyAmuletRules_ExpireAmuletAllocationsV2', {
        cancellations: [{ _1: b.allocationCid, _2: cancel }, { _1: committed.allocationCid, _2: cancel }],
        observers: [],
      }),
    ]);
    expect(trace(ex.events).filter((t) => t.includes('Allocation_Cancel'))).toHaveLength(2);
    const cancelEvent = exercisedOf(ex.events.find((e) => e.ExercisedEvent?.choice === 'Allocation_Cancel' && e.ExercisedEvent.contractId === committed.allocationCid));
    expect((cancelEvent.exerciseResult as AllocationResultV2).meta.values['splice.lfdecentralizedtrust.org/reason']).toBe('cancelled expired allocation');
    expect(await l.client.balance(l.carol)).toBe('5.0000000000');

    // alice spends her expired lock in a self transfer: the LockedAmulet is gone, so withdraw with expire-lock false
    const tf = '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory';
    await l.client.ok(
      [l.alice],
      [
        exercise(tf, c.externalPartyAmuletRulesCid, 'TransferFactory_Transfer', {
          expectedAdmin: l.dso,
          transfer: { sender: l.alice, receiver: l.alice, amount: '20', instrumentId: l.instrument, requestedAt: l.at(-1000), executeBefore: l.at(60_000), inputHoldingCids: [a.payload.lockedAmulet!], meta: noMeta },
          extraArgs: { context: c.context, meta: noMeta },
        }),
      ],
      c.disclosed,
    );
    const w = await l.client.ok<AllocationResultV2>([l.alice], [exercise(IFACE.AllocationV2, a.allocationCid, 'Allocation_Withdraw', { actors: [l.alice], extraArgs: { context: { values: { 'expire-lock': bool(false) } }, meta: noMeta } })]);
    expect(w.result.authorizerHoldingCids).toEqual({ Amulet: [] });
    expect(await l.client.balance(l.alice)).toBe('100.0000000000');
  });
});
