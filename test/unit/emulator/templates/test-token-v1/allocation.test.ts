/**
 * TestTokenV1 allocations: TokenRules as V1 AllocationFactory, TokenAllocation as V1 Allocation and
 * locked Holding (Splice `TestTokenV1.daml`): results, views, validations and deadlines.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { LedgerEngine } from '../../../../../src/emulator/participant/engine.js';
import type { ManualClock } from '../../../../../src/canton/clock.js';
import type { TokenAllocationPayload, TokenPayload } from '../../../../../src/emulator/templates/test-token-v1/index.js';
import { ALLOCATION_FACTORY_V1, ALLOCATION_V1, EMPTY_EXTRA_ARGS, Tt1Client, type Disclosed, type Result } from './tt1-client.js';
import { createdOf, exercisedOf, type AllocationInstructionResultV1, type AllocationResultV1, type CompletedAllocation } from '../wire.js';
import { allocateArg, at, inProcess, mint, setupWorld, type World } from './tt1-scenario.js';

let engine: LedgerEngine;
let clock: ManualClock;
let client: Tt1Client;
let w: World;
let rules: Disclosed;

beforeEach(async () => {
  ({ engine, clock, client } = inProcess());
  w = await setupWorld(client, engine);
  rules = await client.disclosedRules(w.admin);
});

const GENERAL = 'UNHANDLED_EXCEPTION/DA.Exception.GeneralError:GeneralError';
const ASSERTION = 'UNHANDLED_EXCEPTION/DA.Exception.AssertionFailed:AssertionFailed';

const allocate = (arg: unknown, actAs = [w.alice]) =>
  client.submit(actAs, [{ ExerciseCommand: { templateId: ALLOCATION_FACTORY_V1, contractId: w.rulesCid, choice: 'AllocationFactory_Allocate', choiceArgument: arg } }], [rules]);
const act = (actAs: string[], cid: string, choice: string) =>
  client.submit(actAs, [{ ExerciseCommand: { templateId: ALLOCATION_V1, contractId: cid, choice, choiceArgument: { extraArgs: EMPTY_EXTRA_ARGS } } }]);

async function expectFailure(p: Promise<Result>, errorId: string, message: string) {
  const end = engine.ledgerEnd();
  const r = await p;
  expect(r.error.code).toBe('DAML_FAILURE');
  expect(r.error.context.error_id).toBe(errorId);
  expect(r.error.cause).toContain(message);
  expect(engine.ledgerEnd()).toBe(end);
}

async function allocated(amount = '40'): Promise<{ cid: string; arg: ReturnType<typeof allocateArg> }> {
  const t1 = mint(engine, w, w.alice, '100');
  const arg = allocateArg(clock, w, { sender: w.alice, receiver: w.bob, amount, inputs: [t1] });
  const r = await allocate(arg);
  expect(r.status).toBe(200);
  const result = exercisedOf(r.transaction.events[0]).exerciseResult as AllocationInstructionResultV1<CompletedAllocation>;
  return { cid: result.output.value.allocationCid, arg };
}

describe('AllocationFactory_Allocate', () => {
  it('consumes the inputs and completes with a TokenAllocation at once (no AllocationInstruction)', async () => {
    const t1 = mint(engine, w, w.alice, '100');
    const arg = allocateArg(clock, w, { sender: w.alice, receiver: w.bob, amount: '40', inputs: [t1] });
    const r = await allocate(arg);
    expect(r.status).toBe(200);
    const events = r.transaction.events;
    expect(events.map((e) => (e.CreatedEvent ? `create ${e.CreatedEvent.templateId.split(':').pop()}` : `${exercisedOf(e).choice}`))).toEqual([
      'AllocationFactory_Allocate',
      'Archive',
      'create Token',
      'create TokenAllocation',
    ]);
    const change = createdOf(events[2]);
    const alloc = createdOf(events[3]);
    expect((change.createArgument as TokenPayload).holding.amount).toBe('60.0000000000');
    expect(alloc.createArgument).toEqual({ allocation: { ...arg.allocation, transferLeg: { ...arg.allocation.transferLeg, amount: '40.0000000000' } } });
    expect(alloc.signatories).toEqual([w.alice, w.admin].sort());
    expect(alloc.observers).toEqual([w.executor]);
    expect(exercisedOf(events[0]).exerciseResult).toEqual({
      output: { tag: 'AllocationInstructionResult_Completed', value: { allocationCid: alloc.contractId } },
      senderChangeCids: [change.contractId],
      meta: { values: {} },
    });
  });

  it('shows the allocation through the Allocation and Holding interfaces', async () => {
    const { cid, arg } = await allocated();
    const rows = await client.acs(w.executor, { InterfaceFilter: { value: { interfaceId: ALLOCATION_V1, includeInterfaceView: true, includeCreatedEventBlob: false } } });
    expect(rows.map((r) => r.createdEvent.contractId)).toEqual([cid]);
    expect(rows[0]!.createdEvent.interfaceViews[0]!.viewValue).toEqual({
      allocation: (engine.contracts.getActive(cid)!.payload as TokenAllocationPayload).allocation,
      holdingCids: [],
      meta: { values: {} },
    });
    const h = (await client.holdings(w.alice)).find((x) => x.contractId === cid)!;
    expect(h.view).toEqual({
      owner: w.alice,
      instrumentId: w.instrument,
      amount: '40.0000000000',
      lock: { holders: [w.alice, w.admin], expiresAt: arg.allocation.settlement.settleBefore, expiresAfter: null, context: 'allocation for settlement of trade-1' },
      meta: { values: {} },
    });
    expect(await client.balance(w.alice)).toEqual({ unlocked: '60.0000000000', locked: '40.0000000000', count: 2 });
  });

  it('validates in the reference order with the reference messages', async () => {
    const t1 = mint(engine, w, w.alice, '100');
    const base = { sender: w.alice, receiver: w.bob, amount: '40', inputs: [t1] };
    await expectFailure(allocate(allocateArg(clock, w, { ...base, expectedAdmin: w.bob })), GENERAL, "'expectedAdmin' is not equal to 'expected value'.");
    await expectFailure(
      allocate(allocateArg(clock, w, { ...base, requestedAt: at(clock, 1000) })),
      'stdlib.daml.com/deadline-not-exceeded',
      "Ledger time is strictly before deadline 'Allocation.settlement.requestedAt'",
    );
    await expectFailure(
      allocate(allocateArg(clock, w, { ...base, allocateBefore: at(clock, 0) })),
      'stdlib.daml.com/deadline-exceeded',
      "Ledger time is at or past deadline 'Allocation.settlement.allocateBefore' at 2026-03-01T12:00:00Z",
    );
    await expectFailure(
      allocate(allocateArg(clock, w, { ...base, allocateBefore: at(clock, 7_200_000), settleBefore: at(clock, 3_600_000) })),
      ASSERTION,
      "The requirement 'Allocation.settlement.allocateBefore <= Allocation.settlement.settleBefore' was not met.",
    );
    await expectFailure(allocate(allocateArg(clock, w, { ...base, amount: '-1' })), ASSERTION, "The requirement 'Transfer amount must be positive' was not met.");
    await expectFailure(allocate(allocateArg(clock, w, { ...base, inputs: [] })), ASSERTION, "The requirement 'At least one input holding must be provided' was not met.");
    await expectFailure(allocate(allocateArg(clock, w, { ...base, amount: '100.0000000001' })), GENERAL, "'input amount' is less than 'transfer.amount'.\ninput amount: 100.0\ntransfer.amount: 100.0000000001\n");
  });

  it('is controlled by the leg sender; PublicFetch checks expectedAdmin', async () => {
    const t1 = mint(engine, w, w.alice, '100');
    const r = await allocate(allocateArg(clock, w, { sender: w.alice, receiver: w.bob, amount: '1', inputs: [t1] }), [w.bob]);
    expect(r.error.code).toBe('DAML_AUTHORIZATION_ERROR');
    const view = await client.exercise([w.bob], ALLOCATION_FACTORY_V1, w.rulesCid, 'AllocationFactory_PublicFetch', { expectedAdmin: w.admin, actor: w.bob }, [rules]);
    expect(view).toEqual({ admin: w.admin, meta: { values: {} } });
    await expectFailure(
      client.submit([w.bob], [{ ExerciseCommand: { templateId: ALLOCATION_FACTORY_V1, contractId: w.rulesCid, choice: 'AllocationFactory_PublicFetch', choiceArgument: { expectedAdmin: w.bob, actor: w.bob } } }], [rules]),
      GENERAL,
      "'expectedAdmin' is not equal to 'expected value'.",
    );
  });
});

describe('TokenAllocation as Allocation', () => {
  it('execute transfer: needs executor, sender and receiver; the receiver gets the Token', async () => {
    const { cid } = await allocated();
    expect((await act([w.executor], cid, 'Allocation_ExecuteTransfer')).error.code).toBe('DAML_AUTHORIZATION_ERROR');
    expect((await act([w.executor, w.alice], cid, 'Allocation_ExecuteTransfer')).error.code).toBe('DAML_AUTHORIZATION_ERROR');
    const r = await act([w.executor, w.alice, w.bob], cid, 'Allocation_ExecuteTransfer');
    expect(r.status).toBe(200);
    const [root, created] = r.transaction.events;
    expect(root!.ExercisedEvent).toMatchObject({ consuming: true, actingParties: [w.executor, w.alice, w.bob].sort() });
    expect((createdOf(created).createArgument as TokenPayload).holding).toEqual({ owner: w.bob, instrumentId: w.instrument, amount: '40.0000000000', lock: null, meta: { values: {} } });
    expect(exercisedOf(root).exerciseResult).toEqual({ senderHoldingCids: [], receiverHoldingCids: [createdOf(created).contractId], meta: { values: {} } });
    expect(await client.balance(w.bob)).toEqual({ unlocked: '40.0000000000', locked: '0.0000000000', count: 1 });
    expect(await client.balance(w.alice)).toEqual({ unlocked: '60.0000000000', locked: '0.0000000000', count: 1 });
  });

  it('execute transfer fails at or after settleBefore; cancel still releases the funds', async () => {
    const { cid } = await allocated();
    clock.advance(7_200_000);
    const r = await act([w.executor, w.alice, w.bob], cid, 'Allocation_ExecuteTransfer');
    expect(r.error.context.error_id).toBe('stdlib.daml.com/deadline-exceeded');
    expect(r.error.cause).toContain("Ledger time is at or past deadline 'Allocation.settlement.settleBefore' at 2026-03-01T14:00:00Z");
    const c = await act([w.executor, w.alice, w.bob], cid, 'Allocation_Cancel');
    expect(c.status).toBe(200);
    const [root, created] = c.transaction.events;
    expect((createdOf(created).createArgument as TokenPayload).holding.owner).toBe(w.alice);
    expect(exercisedOf(root).exerciseResult).toEqual({ senderHoldingCids: [createdOf(created).contractId], meta: { values: {} } });
    expect(await client.balance(w.alice)).toEqual({ unlocked: '100.0000000000', locked: '0.0000000000', count: 2 });
  });

  it('withdraw: the sender alone; not the executor or receiver', async () => {
    const { cid } = await allocated();
    expect((await act([w.executor], cid, 'Allocation_Withdraw')).error.code).toBe('DAML_AUTHORIZATION_ERROR');
    expect((await act([w.bob], cid, 'Allocation_Withdraw')).error.code).toBe('CONTRACT_NOT_FOUND');
    const r = await act([w.alice], cid, 'Allocation_Withdraw');
    expect(r.status).toBe(200);
    expect((exercisedOf(r.transaction.events[0]).exerciseResult as AllocationResultV1).senderHoldingCids).toHaveLength(1);
    expect(await client.balance(w.alice)).toEqual({ unlocked: '100.0000000000', locked: '0.0000000000', count: 2 });
  });

  it('a TokenAllocation cannot be created with an invalid specification (ensure)', async () => {
    const { arg } = await allocated();
    const bad = { allocation: { ...arg.allocation, settlement: { ...arg.allocation.settlement, allocateBefore: at(clock, 9_000_000) } } };
    const r = await client.submit([w.alice, w.admin], [{ CreateCommand: { templateId: '#splice-test-token-v1:Splice.Testing.Tokens.TestTokenV1:TokenAllocation', createArguments: bad } }]);
    expect(r.error.code).toBe('DAML_FAILURE');
    expect(r.error.cause).toContain('PreconditionFailed');
  });
});
