import { describe, expect, it } from 'vitest';
import type { allocationViewV1, allocationViewV2 } from '../../../../../src/emulator/templates/test-token-v2/allocation.js';
import { basic, context, exercise, extraArgs, holdingsChanges, IFACE, trace, type Disclosed, type TxResult } from './client.js';
import { tt2Ledger, type TT2Ledger } from './fixture.js';
import {
  exercisedOf,
  type AllocationInstructionResultV1,
  type AllocationInstructionResultV2,
  type AllocationResultV1,
  type AllocationResultV2,
  type CompletedAllocation,
  type SettleBatchResult,
} from '../wire.js';
import { interfaceView } from '../../../../support/ledger-wire.js';

type AllocationViewV2 = ReturnType<typeof allocationViewV2>;
type AllocationViewV1 = NonNullable<ReturnType<typeof allocationViewV1>>;

const meta = { values: {} };

function settlementInfo(l: TT2Ledger, id = 'trade-1') {
  return { executors: [l.executor], id, cid: null, meta };
}
function leg(_l: TT2Ledger, id: string, sender: string, receiver: string, amount: string, instrumentId = 'X2') {
  return { transferLegId: id, sender: basic(sender), receiver: basic(receiver), amount, instrumentId, meta };
}
const side = (lg: ReturnType<typeof leg>, s: 'SenderSide' | 'ReceiverSide') => ({
  transferLegId: lg.transferLegId,
  side: s,
  otherside: s === 'SenderSide' ? lg.receiver : lg.sender,
  amount: lg.amount,
  instrumentId: lg.instrumentId,
  meta: lg.meta,
});

async function allocateV2(
  l: TT2Ledger,
  authorizer: string,
  sides: unknown[],
  inputs: string[],
  opts: { deadlineMs?: number | null; committed?: boolean; funding?: Record<string, string> | null; settlementId?: string } = {},
) {
  const allocation = {
    admin: l.admin,
    authorizer: basic(authorizer),
    transferLegSides: sides,
    settlementDeadline: opts.deadlineMs === null ? null : l.at(opts.deadlineMs ?? 3_600_000),
    nextIterationFunding: opts.funding ?? null,
    committed: opts.committed ?? false,
    meta,
  };
  return l.client.submit(
    [authorizer],
    [
      exercise(IFACE.AllocationFactoryV2, l.rules, 'AllocationFactory_Allocate', {
        settlement: settlementInfo(l, opts.settlementId),
        allocation,
        requestedAt: l.at(-1000),
        inputHoldingCids: inputs,
        extraArgs: extraArgs(context(l.rules)),
        actors: [authorizer],
      }),
    ],
    [await l.client.disclosed(l.admin, l.rules)],
  );
}

const allocationCidOf = (r: TxResult) => (exercisedOf(r.transaction.events[0]).exerciseResult as AllocationInstructionResultV2<CompletedAllocation>).output.value.allocationCid;

async function lockedOf(l: TT2Ledger, owner: string): Promise<Disclosed[]> {
  const locked = (await l.client.holdings(owner)).filter((h) => h.view.lock !== null);
  return Promise.all(locked.map((h) => l.client.disclosed(owner, h.contractId)));
}

describe('TestTokenV2 V2 allocations and batch settlement', () => {
  it('allocate both sides, then SettlementFactory_SettleBatch pays the receiver', async () => {
    const l = tt2Ledger();
    const a = l.mint(l.alice, '100');
    const lg = leg(l, 'leg-1', l.alice, l.bob, '30');
    const ra = await allocateV2(l, l.alice, [side(lg, 'SenderSide')], [a]);
    expect(ra.status, JSON.stringify(ra.body)).toBe(200);
    const res = exercisedOf(ra.transaction.events[0]).exerciseResult as AllocationInstructionResultV2;
    expect(res.output.tag).toBe('AllocationInstructionResult_Completed');
    expect(Object.keys(res.authorizerChangeCids)).toEqual(['X2']);
    expect(holdingsChanges(ra.transaction.events).map((c) => c.reason)).toEqual(['lock holdings for allocation']);
    const rb = await allocateV2(l, l.bob, [side(lg, 'ReceiverSide')], []);
    expect(rb.status, JSON.stringify(rb.body)).toBe(200);
    // nothing to lock for a receipt: no holdings change, no event
    expect(holdingsChanges(rb.transaction.events)).toEqual([]);
    expect(await l.client.balance(l.alice, { locked: true })).toBe(30);
    expect(await l.client.balance(l.alice, { locked: false })).toBe(70);

    // the executor sees both allocations (observer), with the default available actions
    const allocs = await l.client.acs(l.executor, { InterfaceFilter: { value: { interfaceId: IFACE.AllocationV2, includeInterfaceView: true } } });
    expect(allocs).toHaveLength(2);
    const av = interfaceView(allocs.find((x) => x.contractId === allocationCidOf(ra))) as AllocationViewV2;
    expect(av.availableActions).toEqual([
      [{ tag: 'AA_Settle', value: {} }, [[l.admin, l.executor].sort()]],
      [{ tag: 'AA_Cancel', value: {} }, [[l.executor]]],
      [{ tag: 'AA_Withdraw', value: {} }, [[l.alice]]],
    ]);
    expect(av.holdingCids).toHaveLength(1);
    expect(av.numIterations).toBe('0');

    const batch = {
      settlement: settlementInfo(l),
      transferLegs: [lg],
      allocations: [
        { allocationCid: allocationCidOf(ra), extraTransferLegSides: [], nextIterationFunding: null },
        { allocationCid: allocationCidOf(rb), extraTransferLegSides: [], nextIterationFunding: null },
      ],
      actors: [l.executor],
      extraArgs: extraArgs(context(l.rules)),
    };
    const rulesD = await l.client.disclosed(l.admin, l.rules);
    // without the locked token disclosed, the executor cannot settle
    const blind = await l.client.submit([l.executor], [exercise(IFACE.SettlementFactoryV2, l.rules, 'SettlementFactory_SettleBatch', batch)], [rulesD]);
    expect(blind.error.code).toBe('CONTRACT_NOT_FOUND');
    // only the executors may settle
    const byAlice = await l.client.submit([l.alice], [exercise(IFACE.SettlementFactoryV2, l.rules, 'SettlementFactory_SettleBatch', { ...batch, actors: [l.alice] })], [rulesD]);
    expect(byAlice.error.code).toBe('DAML_FAILURE');
    // a batch missing the receiver's allocation is rejected
    const partial = await l.client.submit(
      [l.executor],
      [exercise(IFACE.SettlementFactoryV2, l.rules, 'SettlementFactory_SettleBatch', { ...batch, allocations: [batch.allocations[0]] })],
      [rulesD, ...(await lockedOf(l, l.alice))],
    );
    expect(partial.error.cause).toContain("'missing authorizations' is not equal to 'empty set'");
    const empty = await l.client.submit([l.executor], [exercise(IFACE.SettlementFactoryV2, l.rules, 'SettlementFactory_SettleBatch', { ...batch, transferLegs: [], allocations: [] })], [rulesD]);
    expect(empty.error.cause).toContain('at least one transfer leg');

    const settled = await l.client.ok<SettleBatchResult>([l.executor], [exercise(IFACE.SettlementFactoryV2, l.rules, 'SettlementFactory_SettleBatch', batch)], [rulesD, ...(await lockedOf(l, l.alice))]);
    const results = settled.result.allocationSettleResults;
    expect(results.map((r) => r.output)).toEqual([
      { tag: 'AllocationResult_Settled', value: { nextIterationAllocationCid: null } },
      { tag: 'AllocationResult_Settled', value: { nextIterationAllocationCid: null } },
    ]);
    expect(results[0]!.authorizerHoldingCids).toEqual({});
    expect(Object.keys(results[1]!.authorizerHoldingCids)).toEqual(['X2']);
    expect(results[0]!.meta.values['splice.lfdecentralizedtrust.org/tx-kind']).toBe('settle-V2-allocation');
    expect(holdingsChanges(settled.events).map((c) => [c.owner, c.reason, c.legs.map((x) => x.side)])).toEqual([
      [l.alice, 'settle allocation', ['SenderSide']],
      [l.bob, 'settle allocation', ['ReceiverSide']],
    ]);
    expect(trace(settled.events).filter((t) => t.includes('Archive'))).toEqual([
      'consume TokenAllocationV2.Archive',
      'consume Token.Archive',
      'consume TokenAllocationV2.Archive',
    ]);
    expect(await l.client.balance(l.alice)).toBe(70);
    expect(await l.client.balance(l.alice, { locked: true })).toBe(0);
    expect(await l.client.balance(l.bob)).toBe(30);
    expect(await l.client.acs(l.executor, { InterfaceFilter: { value: { interfaceId: IFACE.AllocationV2, includeInterfaceView: false } } })).toEqual([]);
  });

  it('settles a two-instrument DvP where each side nets its legs', async () => {
    const l = tt2Ledger();
    const x = l.mint(l.alice, '100', 'X2');
    const y = l.mint(l.bob, '7', 'Y2');
    const l1 = leg(l, 'leg-x', l.alice, l.bob, '40', 'X2');
    const l2 = leg(l, 'leg-y', l.bob, l.alice, '5', 'Y2');
    const ra = await allocateV2(l, l.alice, [side(l1, 'SenderSide'), side(l2, 'ReceiverSide')], [x]);
    const rb = await allocateV2(l, l.bob, [side(l1, 'ReceiverSide'), side(l2, 'SenderSide')], [y]);
    expect([ra.status, rb.status]).toEqual([200, 200]);
    const batch = {
      settlement: settlementInfo(l),
      transferLegs: [l1, l2],
      allocations: [ra, rb].map((r) => ({ allocationCid: allocationCidOf(r), extraTransferLegSides: [], nextIterationFunding: null })),
      actors: [l.executor],
      extraArgs: extraArgs(context(l.rules)),
    };
    await l.client.ok(
      [l.executor],
      [exercise(IFACE.SettlementFactoryV2, l.rules, 'SettlementFactory_SettleBatch', batch)],
      [await l.client.disclosed(l.admin, l.rules), ...(await lockedOf(l, l.alice)), ...(await lockedOf(l, l.bob))],
    );
    const bal = async (p: string) =>
      (await l.client.holdings(p)).reduce<Record<string, number>>((m, h) => ({ ...m, [h.view.instrumentId.id]: (m[h.view.instrumentId.id] ?? 0) + Number(h.view.amount) }), {});
    expect(await bal(l.alice)).toEqual({ X2: 60, Y2: 5 });
    expect(await bal(l.bob)).toEqual({ X2: 40, Y2: 2 });
  });

  it('cancel by the executor and withdraw by the authorizer unlock the funds', async () => {
    const l = tt2Ledger();
    const a = l.mint(l.alice, '100');
    const lg = leg(l, 'leg-1', l.alice, l.bob, '30');
    const r1 = await allocateV2(l, l.alice, [side(lg, 'SenderSide')], [a]);
    const rulesD = await l.client.disclosed(l.admin, l.rules);
    const args = (actors: string[]) => ({ actors, extraArgs: extraArgs(context(l.rules)) });
    const byAlice = await l.client.submit([l.alice], [exercise(IFACE.AllocationV2, allocationCidOf(r1), 'Allocation_Cancel', args([l.alice]))], [rulesD]);
    expect(byAlice.error.code).toBe('DAML_FAILURE');
    const cancel = await l.client.ok<AllocationResultV2>([l.executor], [exercise(IFACE.AllocationV2, allocationCidOf(r1), 'Allocation_Cancel', args([l.executor]))], [rulesD, ...(await lockedOf(l, l.alice))]);
    expect(cancel.result.output).toEqual({ tag: 'AllocationResult_Cancelled', value: {} });
    expect(holdingsChanges(cancel.events).map((c) => c.reason)).toEqual(['allocation cancelled']);
    expect(await l.client.balance(l.alice, { locked: false })).toBe(100);

    const inputs = (await l.client.holdings(l.alice)).map((h) => h.contractId);
    const r2 = await allocateV2(l, l.alice, [side(lg, 'SenderSide')], inputs);
    const byExec = await l.client.submit([l.executor], [exercise(IFACE.AllocationV2, allocationCidOf(r2), 'Allocation_Withdraw', args([l.executor]))], [rulesD]);
    expect(byExec.error.code).toBe('DAML_FAILURE');
    const wd = await l.client.ok<AllocationResultV2>([l.alice], [exercise(IFACE.AllocationV2, allocationCidOf(r2), 'Allocation_Withdraw', args([l.alice]))], [rulesD]);
    expect(wd.result.output).toEqual({ tag: 'AllocationResult_Withdrawn', value: {} });
    expect(holdingsChanges(wd.events).map((c) => c.reason)).toEqual(['allocation withdrawn']);
    expect(await l.client.balance(l.alice, { locked: false })).toBe(100);
    expect(await l.client.balance(l.alice, { locked: true })).toBe(0);
  });

  it('a committed allocation cannot be withdrawn before its deadline; settlement fails after it', async () => {
    const l = tt2Ledger();
    const a = l.mint(l.alice, '100');
    const lg = leg(l, 'leg-1', l.alice, l.bob, '30');
    const r = await allocateV2(l, l.alice, [side(lg, 'SenderSide')], [a], { committed: true, deadlineMs: 60_000 });
    const rb = await allocateV2(l, l.bob, [side(lg, 'ReceiverSide')], [], { deadlineMs: 60_000 });
    const rulesD = await l.client.disclosed(l.admin, l.rules);
    const wd = () =>
      l.client.submit([l.alice], [exercise(IFACE.AllocationV2, allocationCidOf(r), 'Allocation_Withdraw', { actors: [l.alice], extraArgs: extraArgs(context(l.rules)) })], [rulesD]);
    const early = await wd();
    expect(early.error.context.error_id).toBe('splice.lfdecentralizedtrust.org/cannot-withdraw-committed-allocation');
    l.clock.advance(60_000);
    const batch = {
      settlement: settlementInfo(l),
      transferLegs: [lg],
      allocations: [r, rb].map((x) => ({ allocationCid: allocationCidOf(x), extraTransferLegSides: [], nextIterationFunding: null })),
      actors: [l.executor],
      extraArgs: extraArgs(context(l.rules)),
    };
    const late = await l.client.submit([l.executor], [exercise(IFACE.SettlementFactoryV2, l.rules, 'SettlementFactory_SettleBatch', batch)], [rulesD, ...(await lockedOf(l, l.alice))]);
    expect(late.error.context.error_id).toBe('stdlib.daml.com/deadline-exceeded');
    l.clock.advance(1);
    expect((await wd()).status).toBe(200);
    expect(await l.client.balance(l.alice, { locked: false })).toBe(100);
  });

  it('rejects allocating without enough funds or with foreign inputs', async () => {
    const l = tt2Ledger();
    const a = l.mint(l.alice, '10');
    const c = l.mint(l.carol, '10');
    const lg = leg(l, 'leg-1', l.alice, l.bob, '30');
    const short = await allocateV2(l, l.alice, [side(lg, 'SenderSide')], [a]);
    expect(short.error.cause).toContain('Not enough funds for allocation of Account');
    const foreign = await l.client.submit(
      [l.alice],
      [
        exercise(IFACE.AllocationFactoryV2, l.rules, 'AllocationFactory_Allocate', {
          settlement: settlementInfo(l),
          allocation: { admin: l.admin, authorizer: basic(l.alice), transferLegSides: [side(lg, 'SenderSide')], settlementDeadline: null, nextIterationFunding: null, committed: false, meta },
          requestedAt: l.at(-1000),
          inputHoldingCids: [c],
          extraArgs: extraArgs(context(l.rules)),
          actors: [l.alice],
        }),
      ],
      [await l.client.disclosed(l.admin, l.rules), await l.client.disclosed(l.carol, c)],
    );
    expect(foreign.error.cause).toContain("'inputHolding.account' is not equal to 'allocation.authorizer'");
  });

  it('iterated settlement keeps funding locked in a next-iteration allocation', async () => {
    const l = tt2Ledger();
    const a = l.mint(l.alice, '100');
    const lg = leg(l, 'leg-1', l.alice, l.bob, '30');
    const ra = await allocateV2(l, l.alice, [side(lg, 'SenderSide')], [a], { funding: { X2: '20' } });
    expect(ra.status, JSON.stringify(ra.body)).toBe(200);
    expect(await l.client.balance(l.alice, { locked: true })).toBe(50);
    const rb = await allocateV2(l, l.bob, [side(lg, 'ReceiverSide')], []);
    const batch = {
      settlement: settlementInfo(l),
      transferLegs: [lg],
      allocations: [
        { allocationCid: allocationCidOf(ra), extraTransferLegSides: [], nextIterationFunding: { X2: '20' } },
        { allocationCid: allocationCidOf(rb), extraTransferLegSides: [], nextIterationFunding: null },
      ],
      actors: [l.executor],
      extraArgs: extraArgs(context(l.rules)),
    };
    const s = await l.client.ok<SettleBatchResult>([l.executor], [exercise(IFACE.SettlementFactoryV2, l.rules, 'SettlementFactory_SettleBatch', batch)], [
      await l.client.disclosed(l.admin, l.rules),
      ...(await lockedOf(l, l.alice)),
    ]);
    const next = s.result.allocationSettleResults[0]!.output.value.nextIterationAllocationCid;
    expect(next).toMatch(/^00/);
    const [nv] = (await l.client.acs(l.executor, { InterfaceFilter: { value: { interfaceId: IFACE.AllocationV2, includeInterfaceView: true } } })).map((e) => interfaceView(e));
    expect(nv).toMatchObject({ numIterations: '1', originalAllocationCid: allocationCidOf(ra), allocation: { transferLegSides: [], nextIterationFunding: { X2: '20.0000000000' } } });
    expect(await l.client.balance(l.alice, { locked: true })).toBe(20);
    expect(await l.client.balance(l.bob)).toBe(30);
  });
});

describe('TestTokenV2 V1 adapters for allocations', () => {
  function v1Spec(l: TT2Ledger, amount: string) {
    return {
      settlement: {
        executor: l.executor,
        settlementRef: { id: 'trade-v1', cid: null },
        requestedAt: l.at(-1000),
        allocateBefore: l.at(1_800_000),
        settleBefore: l.at(3_600_000),
        meta,
      },
      transferLegId: 'leg-0',
      transferLeg: { sender: l.alice, receiver: l.bob, amount, instrumentId: { admin: l.admin, id: 'X2' }, meta },
    };
  }
  async function allocateV1(l: TT2Ledger, amount: string, inputs: string[]) {
    return l.client.ok<AllocationInstructionResultV1<CompletedAllocation>>(
      [l.alice],
      [
        exercise(IFACE.AllocationFactoryV1, l.rules, 'AllocationFactory_Allocate', {
          expectedAdmin: l.admin,
          allocation: v1Spec(l, amount),
          requestedAt: l.at(-1000),
          inputHoldingCids: inputs,
          extraArgs: extraArgs(context(l.rules)),
        }),
      ],
      [await l.client.disclosed(l.admin, l.rules)],
    );
  }

  it('V1 allocate, then V1 Allocation_ExecuteTransfer settles through the V2 batch', async () => {
    const l = tt2Ledger();
    const a = l.mint(l.alice, '100');
    const r = await allocateV1(l, '25', [a]);
    expect(r.result.output.tag).toBe('AllocationInstructionResult_Completed');
    expect(r.result.senderChangeCids).toHaveLength(1);
    const cid = r.result.output.value.allocationCid;
    const [v1] = await l.client.acs(l.executor, { InterfaceFilter: { value: { interfaceId: IFACE.AllocationV1, includeInterfaceView: true } } });
    const view = interfaceView(v1) as AllocationViewV1;
    expect(view.allocation).toMatchObject({
      transferLegId: 'leg-0',
      settlement: { executor: l.executor, settlementRef: { id: 'trade-v1', cid: null }, settleBefore: v1Spec(l, '1').settlement.settleBefore },
    });
    expect(view.allocation.transferLeg).toEqual({ sender: l.alice, receiver: l.bob, amount: '25.0000000000', instrumentId: { admin: l.admin, id: 'X2' }, meta });
    const ctl = [l.executor, l.alice, l.bob];
    const ex = await l.client.ok<AllocationResultV1>(ctl, [exercise(IFACE.AllocationV1, cid, 'Allocation_ExecuteTransfer', { extraArgs: extraArgs(context(l.rules)) })], [
      await l.client.disclosed(l.admin, l.rules),
      ...(await lockedOf(l, l.alice)),
    ]);
    expect(ex.result.senderHoldingCids).toEqual([]);
    expect(ex.result.receiverHoldingCids).toHaveLength(1);
    expect(await l.client.balance(l.bob, { version: 'V1' })).toBe(25);
    expect(await l.client.balance(l.alice, { version: 'V1' })).toBe(75);
    expect(await l.client.balance(l.alice, { version: 'V1', locked: true })).toBe(0);
    // only executor + sender + receiver together may execute
    const r2 = await allocateV1(l, '5', r.result.senderChangeCids);
    const alone = await l.client.submit([l.executor], [exercise(IFACE.AllocationV1, r2.result.output.value.allocationCid, 'Allocation_ExecuteTransfer', { extraArgs: extraArgs(context(l.rules)) })], [
      await l.client.disclosed(l.admin, l.rules),
    ]);
    expect(alone.error.code).toBe('DAML_AUTHORIZATION_ERROR');
  });

  it('V1 cancel and withdraw unlock', async () => {
    const l = tt2Ledger();
    const a = l.mint(l.alice, '100');
    const r1 = await allocateV1(l, '25', [a]);
    const rulesD = await l.client.disclosed(l.admin, l.rules);
    const ctl = [l.executor, l.alice, l.bob];
    const cancel = await l.client.ok<AllocationResultV1>(ctl, [exercise(IFACE.AllocationV1, r1.result.output.value.allocationCid, 'Allocation_Cancel', { extraArgs: extraArgs(context(l.rules)) })], [rulesD]);
    expect(cancel.result.senderHoldingCids).toHaveLength(1);
    expect(holdingsChanges(cancel.events).map((c) => c.reason)).toEqual(['allocation cancelled']);
    const inputs = (await l.client.holdings(l.alice)).map((h) => h.contractId);
    const r2 = await allocateV1(l, '25', inputs);
    const wd = await l.client.ok<AllocationResultV1>([l.alice], [exercise(IFACE.AllocationV1, r2.result.output.value.allocationCid, 'Allocation_Withdraw', { extraArgs: extraArgs(context(l.rules)) })], [rulesD]);
    expect(wd.result.senderHoldingCids).toHaveLength(1);
    expect(await l.client.balance(l.alice, { locked: false })).toBe(100);
  });
});
