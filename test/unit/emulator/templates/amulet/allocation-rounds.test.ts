/**
 * Amulet allocations (AllocationFactory V1 → AmuletAllocation → execute / cancel / withdraw),
 * rounds that open and advance with a ManualClock (lazy automation), holding-fee math and
 * configurable fees.
 */
import { describe, expect, it } from 'vitest';
import {
  advanceAmuletRounds,
  amuletValueAtRound,
  chargeSteppedRate,
  createFeaturedAppRight,
  latestUsableOpenRound,
  openMiningRounds,
  roundAutomationName,
  amuletExpiresAtRound,
} from '../../../../../src/emulator/templates/amulet/index.js';
import type { AmuletAllocationPayload, AmuletPayload, LockedAmuletPayload, OpenMiningRoundPayload } from '../../../../../src/emulator/templates/amulet/values.js';
import { parseDecimal } from '../../../../../src/canton/lf-value.js';
import {
  AMULET,
  IFACE,
  TICK_MS,
  amuletLedger,
  exercise,
  trace,
  type AmuletLedger,
  type AmuletRulesTransferArg,
  type TransferResultV,
} from './fixture.js';
import { exercisedOf, type AllocationInstructionResultV1, type AllocationResultV1, type CompletedAllocation } from '../wire.js';
import { interfaceView } from '../../../../support/ledger-wire.js';

function allocateArg(l: AmuletLedger, sender: string, receiver: string, amount: string, inputs: string[], context: unknown) {
  return {
    expectedAdmin: l.dso,
    allocation: {
      settlement: {
        executor: l.executor,
        settlementRef: { id: 'trade-1', cid: null },
        requestedAt: l.at(-60_000),
        allocateBefore: l.at(3600_000),
        settleBefore: l.at(2 * 3600_000),
        meta: { values: {} },
      },
      transferLegId: 'leg-0',
      transferLeg: { sender, receiver, amount, instrumentId: l.instrument, meta: { values: {} } },
    },
    requestedAt: l.at(-60_000),
    inputHoldingCids: inputs,
    extraArgs: { context, meta: { values: {} } },
  };
}

async function allocate(l: AmuletLedger, amount: string) {
  const h = l.tap(l.alice, '100');
  const c = l.ctx();
  const { result, events } = await l.client.ok<AllocationInstructionResultV1<CompletedAllocation>>(
    [l.alice],
    [exercise(IFACE.AllocationFactoryV1, c.externalPartyAmuletRulesCid, 'AllocationFactory_Allocate', allocateArg(l, l.alice, l.bob, amount, [h], c.context))],
    c.disclosed,
  );
  expect(result.output.tag).toBe('AllocationInstructionResult_Completed');
  const allocationCid = result.output.value.allocationCid;
  const payload = l.engine.contracts.get(allocationCid)!.payload as AmuletAllocationPayload;
  return { allocationCid, lockedAmulet: payload.lockedAmulet, payload, events };
}

describe('Amulet allocations', () => {
  it('allocate locks the leg amount; the executor settles with execute-transfer (featured executor)', async () => {
    const l = amuletLedger();
    const a = await allocate(l, '25');
    expect(a.payload.expiresAt).toBe(a.payload.allocation.settlement.settleBefore);
    const locked = l.engine.contracts.get(a.lockedAmulet)!.payload as LockedAmuletPayload;
    expect(locked.lock.optContext).toBe(`allocation for settlement of ${a.payload.allocation.settlement.settlementRef.id}`);
    // the executor sees the allocation through the Allocation interface
    const seen = await l.client.acs(l.executor, { InterfaceFilter: { value: { interfaceId: IFACE.AllocationV1, includeInterfaceView: true, includeCreatedEventBlob: false } } });
    expect((interfaceView(seen[0]) as { holdingCids: string[] }).holdingCids).toEqual([a.lockedAmulet]);
    expect(await l.client.balance(l.alice, true)).toBe('25.0000000000');

    const far = createFeaturedAppRight(l.engine, { dso: l.dso, provider: l.executor });
    const c = l.ctx({ 'featured-app-right': l.cidValue(far), 'expire-lock': { tag: 'AV_Bool', value: true } });
    const arg = { extraArgs: { context: c.context, meta: { values: {} } } };
    const disclosed = [...c.disclosed.slice(0, 2), l.disclose(a.lockedAmulet), l.disclose(far)];
    // only executor + sender + receiver together
    const alone = await l.client.submit([l.executor], [exercise(IFACE.AllocationV1, a.allocationCid, 'Allocation_ExecuteTransfer', arg)], disclosed);
    expect(alone.error.code).toBe('DAML_AUTHORIZATION_ERROR');
    const { result, events } = await l.client.ok<AllocationResultV1>([l.executor, l.alice, l.bob], [exercise(IFACE.AllocationV1, a.allocationCid, 'Allocation_ExecuteTransfer', arg)], disclosed);
    expect(result.receiverHoldingCids).toHaveLength(1);
    expect(trace(events)).toContain('consume LockedAmulet.LockedAmulet_Unlock');
    // the featured app right of the executor went into the transfer context
    const transfer = exercisedOf(events.find((e) => e.ExercisedEvent?.choice === 'AmuletRules_Transfer')).choiceArgument as AmuletRulesTransferArg;
    expect(transfer.context.featuredAppRight).toBe(far);
    expect(transfer.transfer.provider).toBe(l.executor);
    expect(await l.client.balance(l.bob)).toBe('25.0000000000');
    expect(await l.client.balance(l.alice)).toBe('75.0000000000');
  });

  it('cancel (all three) and withdraw (sender) release the lock; after settleBefore execute fails', async () => {
    const l = amuletLedger();
    const c = l.ctx({ 'expire-lock': { tag: 'AV_Bool', value: true } });
    const arg = { extraArgs: { context: c.context, meta: { values: {} } } };
    const a1 = await allocate(l, '10');
    const cancel = await l.client.ok<AllocationResultV1>([l.executor, l.alice, l.bob], [exercise(IFACE.AllocationV1, a1.allocationCid, 'Allocation_Cancel', arg)], [...c.disclosed.slice(0, 2), l.disclose(a1.lockedAmulet)]);
    expect(cancel.result.senderHoldingCids).toHaveLength(1);
    const a2 = await allocate(l, '10');
    const byBob = await l.client.submit([l.bob], [exercise(IFACE.AllocationV1, a2.allocationCid, 'Allocation_Withdraw', arg)], [...c.disclosed.slice(0, 2), l.disclose(a2.lockedAmulet)]);
    expect(byBob.status).not.toBe(200);
    await l.client.ok([l.alice], [exercise(IFACE.AllocationV1, a2.allocationCid, 'Allocation_Withdraw', arg)], c.disclosed.slice(0, 2));
    expect(await l.client.balance(l.alice)).toBe('200.0000000000');
    expect(await l.client.balance(l.alice, true)).toBe('0.0000000000');
    const a3 = await allocate(l, '10');
    l.clock.advance(3 * 3600_000);
    const c2 = l.ctx({ 'expire-lock': { tag: 'AV_Bool', value: true } });
    const late = await l.client.submit([l.executor, l.alice, l.bob], [exercise(IFACE.AllocationV1, a3.allocationCid, 'Allocation_ExecuteTransfer', { extraArgs: { context: c2.context, meta: { values: {} } } })], [...c2.disclosed.slice(0, 2), l.disclose(a3.lockedAmulet)]);
    expect(late.error.cause).toMatch(/at or past deadline 'allocation.settlement.settleBefore'/);
  });

  it('validates the allocation request', async () => {
    const l = amuletLedger();
    const h = l.tap(l.alice, '10');
    const c = l.ctx();
    const bad = async (mut: (a: ReturnType<typeof allocateArg>) => void) => {
      const a = allocateArg(l, l.alice, l.bob, '1', [h], c.context);
      mut(a);
      return (await l.client.submit([l.alice], [exercise(IFACE.AllocationFactoryV1, c.externalPartyAmuletRulesCid, 'AllocationFactory_Allocate', a)], c.disclosed)).error.cause as string;
    };
    expect(await bad((a) => (a.allocation.settlement.allocateBefore = l.at(-1)))).toMatch(/allocateBefore/);
    expect(await bad((a) => (a.allocation.settlement.settleBefore = l.at(60_000)))).toMatch(/allocateBefore <= Allocation.settlement.settleBefore/);
    expect(await bad((a) => (a.allocation.transferLeg.amount = '-1'))).toMatch(/Transfer amount must be positive/);
    expect(await bad((a) => (a.allocation.transferLeg.instrumentId = { admin: l.dso, id: 'X' }))).toMatch(/Instrument-id must match the factory/);
    expect(await bad((a) => (a.inputHoldingCids = []))).toMatch(/At least one input holding must be provided/);
  });
});

describe('rounds follow the clock', () => {
  it('bootstraps three rounds (0 and 1 open, 2 opening after a tick) and advances lazily when the clock moves', async () => {
    const l = amuletLedger();
    const numbers = () => openMiningRounds(l.engine, l.dso).map((r) => Number(r.payload.round.number));
    expect(numbers()).toEqual([0, 1, 2]);
    const r = openMiningRounds(l.engine, l.dso);
    expect(r[0]!.payload.opensAt).toBe('2026-05-01T10:00:00Z');
    expect(r[0]!.payload.targetClosesAt).toBe('2026-05-01T10:10:00Z');
    expect(r[2]!.payload.opensAt).toBe('2026-05-01T10:10:00Z');
    expect(r[2]!.payload.tickDuration).toEqual({ microseconds: '600000000' });
    expect(r[2]!.payload.transferConfigUsd.holdingFee).toEqual({ rate: '0.0000190259' });
    expect(latestUsableOpenRound(l.engine, l.dso)?.payload).toMatchObject({ round: { number: '1' } });
    expect(l.engine.automations.names()).toEqual([roundAutomationName(l.dso)]);

    // nothing happens until the clock passes a boundary and someone submits
    l.tap(l.alice, '1');
    expect(numbers()).toEqual([0, 1, 2]);
    l.clock.advance(TICK_MS);
    expect(numbers()).toEqual([0, 1, 2]);
    const end = await l.client.ledgerEnd();
    const cid = l.tap(l.alice, '1');
    expect(numbers()).toEqual([1, 2, 3]);
    // the tap used the newest open round (2), the automation's transaction came first
    expect((l.engine.contracts.get(cid)!.payload as AmuletPayload).amount.createdAt).toEqual({ number: '2' });
    const updates = await l.client.updates(l.dso, end);
    expect(trace(updates[0]!.events)).toEqual([
      'exercise AmuletRules.AmuletRules_AdvanceOpenMiningRounds',
      'consume OpenMiningRound.Archive',
      'create SummarizingMiningRound',
      'create OpenMiningRound',
    ]);
    const r3 = openMiningRounds(l.engine, l.dso)[2]!.payload;
    expect(r3.opensAt).toBe('2026-05-01T10:20:00Z');
    expect(r3.targetClosesAt).toBe('2026-05-01T10:40:00Z');
    expect(r3.issuingFor).toEqual({ microseconds: String(3 * 600_000_000) });

    // tick by tick the rounds keep advancing, one per tick
    for (let i = 0; i < 4; i++) {
      l.clock.advance(TICK_MS);
      l.tap(l.alice, '1');
    }
    expect(numbers()).toEqual([5, 6, 7]);
    // the previous summarizing round is archived when the next advance happens
    const summarizing = l.engine.contracts.activeAt(l.engine.ledgerEnd(), l.engine.ledgerEnd(), new Set([l.dso])).filter((c) => c.templateId.entityName === 'SummarizingMiningRound');
    expect(summarizing).toHaveLength(1);
    expect(advanceAmuletRounds(l.engine, l.dso)).toBe(0);
  });

  it('the registry-visible usable round requires exactly three consecutive rounds', async () => {
    const l = amuletLedger({ automateRounds: false });
    l.clock.advance(5 * TICK_MS);
    l.tap(l.alice, '1');
    expect(openMiningRounds(l.engine, l.dso).map((r) => r.payload.round.number)).toEqual(['0', '1', '2']);
    const [r0] = openMiningRounds(l.engine, l.dso);
    await l.client.ok([l.dso], [exercise(AMULET.OpenMiningRound, r0!.contractId, 'Archive', {})]);
    expect(latestUsableOpenRound(l.engine, l.dso)).toBeUndefined();
  });
});

describe('holding fees and configurable fees', () => {
  it('value decays by ratePerRound per round; expiry round is exact', () => {
    const amount = { initialAmount: '1.0000000000', createdAt: { number: '10' }, ratePerRound: { rate: '0.0038051800' } };
    expect(amuletValueAtRound(amount, 10n)).toBe(parseDecimal('1'));
    expect(amuletValueAtRound(amount, 9n)).toBe(parseDecimal('1'));
    expect(amuletValueAtRound(amount, 12n)).toBe(parseDecimal('0.9923896400'));
    expect(amuletValueAtRound(amount, 1000n)).toBe(0n);
    // ceiling(1 / 0.00380518) = 263 rounds
    expect(amuletExpiresAtRound(amount)).toBe(273n);
    expect(chargeSteppedRate(parseDecimal('0.01'), [[parseDecimal('100'), parseDecimal('0.001')], [parseDecimal('1000'), parseDecimal('0.0001')]], parseDecimal('500'))).toBe(parseDecimal('1.4'));
  });

  it('the DSO expires an amulet worth nothing as of the open round (Amulet_Expire), not before', async () => {
    const l = amuletLedger();
    const dust = l.tap(l.alice, '0.001'); // round 1 at 0.00380518 per round: worthless from round 2
    const expire = () => {
      const c = l.ctx();
      return l.client.submit([l.dso], [exercise(AMULET.Amulet, dust, 'Amulet_Expire', { roundCid: c.openRoundCid })], c.disclosed);
    };
    expect((await expire()).error.cause).toMatch(/Amulet is expired/);
    l.clock.advance(TICK_MS);
    const r = await expire();
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(exercisedOf(r.transaction.events[0]).exerciseResult).toEqual({
      expireSum: { owner: l.alice, round: { number: '1' }, changeToInitialAmountAsOfRoundZero: '-0.0048051800', changeToHoldingFeesRate: '-0.0038051800' },
      meta: { values: { 'splice.lfdecentralizedtrust.org/burned': '0.001', 'splice.lfdecentralizedtrust.org/tx-kind': 'expire-dust' } },
    });
    expect(await l.client.balance(l.alice)).toBe('0.0000000000');
  });

  it('with holdingFeesOnTransfer, inputs count at their current value and the fee is burned', async () => {
    const l = amuletLedger({ behaviour: { holdingFeesOnTransfer: true } });
    const h = l.tap(l.alice, '10');
    for (let i = 0; i < 2; i++) {
      l.clock.advance(TICK_MS);
      l.tap(l.bob, '1');
    }
    const c = l.ctx();
    const round = Number((l.engine.contracts.get(c.openRoundCid)!.payload as OpenMiningRoundPayload).round.number);
    expect(round).toBe(3);
    const arg = {
      expectedAdmin: l.dso,
      transfer: { sender: l.alice, receiver: l.alice, amount: '5', instrumentId: l.instrument, requestedAt: l.at(-1000), executeBefore: l.at(3600_000), inputHoldingCids: [h], meta: { values: {} } },
      extraArgs: { context: c.context, meta: { values: {} } },
    };
    const { events } = await l.client.ok([l.alice], [exercise(IFACE.TransferFactoryV1, c.externalPartyAmuletRulesCid, 'TransferFactory_Transfer', arg)], c.disclosed);
    const summary = (exercisedOf(events.find((e) => e.ExercisedEvent?.choice === 'AmuletRules_Transfer')).exerciseResult as TransferResultV).summary;
    // created in round 1, spent in round 3: 2 rounds of 0.00380518
    expect(summary.holdingFees).toBe('0.0076103600');
    expect(summary.senderChangeAmount).toBe('4.9923896400');
    expect(await l.client.balance(l.alice)).toBe('9.9923896400');
  });

  it('non-zero create, lock-holder and transfer fees from the round config are charged', async () => {
    const l = amuletLedger({ createFeeUsd: '0.03', lockHolderFeeUsd: '0.005', transferFee: { initialRate: '0.01', steps: [['100', '0.001']] } });
    const h = l.tap(l.alice, '100');
    const c = l.ctx();
    const arg = {
      expectedAdmin: l.dso,
      transfer: { sender: l.alice, receiver: l.bob, amount: '10', instrumentId: l.instrument, requestedAt: l.at(-1000), executeBefore: l.at(3600_000), inputHoldingCids: [h], meta: { values: {} } },
      extraArgs: { context: c.context, meta: { values: {} } },
    };
    const { events } = await l.client.ok([l.alice], [exercise(IFACE.TransferFactoryV1, c.externalPartyAmuletRulesCid, 'TransferFactory_Transfer', arg)], c.disclosed);
    const res = exercisedOf(events.find((e) => e.ExercisedEvent?.choice === 'AmuletRules_Transfer')).exerciseResult as TransferResultV;
    // the lock to self: create fee 6 CC (0.03 / 0.005) + 1 lock holder at 1 CC; no transfer fee to self
    expect(res.summary.outputFees).toEqual(['7.0000000000']);
    expect(res.summary.senderChangeFee).toBe('6.0000000000');
    expect(res.summary.senderChangeAmount).toBe('77.0000000000');
    expect(res.meta!.values['splice.lfdecentralizedtrust.org/burned']).toBe('13.0');
  });
});
