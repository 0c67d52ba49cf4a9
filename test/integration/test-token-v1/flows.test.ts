/**
 * TestTokenV1 end to end over real loopback HTTP: the
 * emulator's JSON Ledger API v2, a wallet-like client, and the token's full V1 flows. After each
 * flow the holdings read through the HoldingV1 INTERFACE filter add up, nothing is left locked,
 * and the LEDGER_EFFECTS update stream shows the archives and creates in order.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';
import { ManualClock } from '../../../src/canton/clock.js';
import { registerTestTokenV1, testTokenV1TemplateId } from '../../../src/emulator/templates/test-token-v1/index.js';
import {
  ALLOCATION_FACTORY_V1,
  ALLOCATION_V1,
  EMPTY_EXTRA_ARGS,
  TRANSFER_FACTORY_V1,
  TRANSFER_INSTRUCTION_V1,
  Tt1Client,
  eventSummary,
  type Disclosed,
  type Result,
} from '../../unit/emulator/templates/test-token-v1/tt1-client.js';
import {
  exercisedOf,
  type AllocationInstructionResultV1,
  type AllocationResultV1,
  type CompletedAllocation,
  type CompletedTransfer,
  type PendingTransfer,
  type TransferInstructionResult,
} from '../../unit/emulator/templates/wire.js';
import { allocateArg, mintOverHttp, setupWorldOverHttp, transferArg, type World } from '../../unit/emulator/templates/test-token-v1/tt1-scenario.js';

let emu: RunningEmulator;
let clock: ManualClock;
let client: Tt1Client;

beforeAll(async () => {
  clock = new ManualClock('2026-03-01T12:00:00Z');
  emu = await startEmulator({ config: { port: 0, demoWorld: false, logLevel: 'silent' }, clock });
  registerTestTokenV1(emu.engine.templates);
  client = new Tt1Client((path, init) => fetch(emu.ledgerUrl + path, init));
});

afterAll(async () => {
  await emu?.close();
});

let n = 0;
let w: World;
let rules: Disclosed;

/** Fresh parties per test (the emulator is shared); TokenRules created by the admin over HTTP. */
beforeEach(async () => {
  clock.set('2026-03-01T12:00:00Z');
  ({ world: w, rules } = await setupWorldOverHttp(client, `-${++n}`));
});

const mint = (owner: string, amount: string, id = 'X1'): Promise<string> => mintOverHttp(client, w, owner, amount, id);

const factoryTransfer = (actAs: string[], arg: unknown, disclosed: Disclosed[] = [rules]) =>
  client.submit(actAs, [{ ExerciseCommand: { templateId: TRANSFER_FACTORY_V1, contractId: w.rulesCid, choice: 'TransferFactory_Transfer', choiceArgument: arg } }], disclosed);
const instruction = (actAs: string[], cid: string, choice: string, disclosed: Disclosed[] = []) =>
  client.submit(actAs, [{ ExerciseCommand: { templateId: TRANSFER_INSTRUCTION_V1, contractId: cid, choice, choiceArgument: { extraArgs: EMPTY_EXTRA_ARGS } } }], disclosed);
const allocation = (actAs: string[], cid: string, choice: string) =>
  client.submit(actAs, [{ ExerciseCommand: { templateId: ALLOCATION_V1, contractId: cid, choice, choiceArgument: { extraArgs: EMPTY_EXTRA_ARGS } } }]);

/** The root exercise result of a successful submission, as the LF JSON shape `R` the test expects. */
function rootResult<R>(r: Result): R {
  return exercisedOf(r.transaction.events[0]).exerciseResult as R;
}

const HOLDERS = ['alice', 'bob', 'executor', 'mallory'] as const;

async function expectBalances(expected: Partial<Record<(typeof HOLDERS)[number], string>>) {
  for (const who of HOLDERS) {
    const unlocked = expected[who];
    if (unlocked === undefined) continue;
    const b = await client.balance(w[who], w.instrument);
    expect({ who, unlocked: b.unlocked, locked: b.locked }).toEqual({ who, unlocked, locked: '0.0000000000' });
  }
}

async function updatesSince(party: string, offset: number): Promise<string[][]> {
  return (await client.updates(party, offset)).map(eventSummary);
}

describe('TestTokenV1 flows over HTTP', () => {
  it('mint: the holding shows through the HoldingV1 interface', async () => {
    const start = await client.ledgerEnd();
    const cid = await mint(w.alice, '1000');
    const hs = await client.holdings(w.alice);
    expect(hs.map((h) => h.contractId)).toEqual([cid]);
    expect(hs[0]!.view).toEqual({ owner: w.alice, instrumentId: w.instrument, amount: '1000.0000000000', lock: null, meta: { values: {} } });
    await expectBalances({ alice: '1000.0000000000', bob: '0.0000000000' });
    expect(await updatesSince(w.alice, start)).toEqual([['create Token']]);
  });

  it('self transfer completes immediately, with change', async () => {
    const t1 = await mint(w.alice, '60');
    const t2 = await mint(w.alice, '40');
    const start = await client.ledgerEnd();
    const r = await factoryTransfer([w.alice], transferArg(clock, w, { sender: w.alice, receiver: w.alice, amount: '70', inputs: [t1, t2] }));
    expect(r.status).toBe(200);
    const result = rootResult<TransferInstructionResult<CompletedTransfer>>(r);
    expect(result.output.tag).toBe('TransferInstructionResult_Completed');
    expect(result.output.value.receiverHoldingCids).toHaveLength(1);
    expect(result.senderChangeCids).toHaveLength(1);
    await expectBalances({ alice: '100.0000000000' });
    const amounts = (await client.holdings(w.alice)).map((h) => h.view.amount).sort();
    expect(amounts).toEqual(['30.0000000000', '70.0000000000']);
    expect(await updatesSince(w.alice, start)).toEqual([
      ['exercise TokenRules.TransferFactory_Transfer', 'archive Token.Archive', 'archive Token.Archive', 'create Token', 'create Token'],
    ]);
  });

  it('transfer offer, then accept', async () => {
    const t1 = await mint(w.alice, '100');
    const start = await client.ledgerEnd();
    const r = await factoryTransfer([w.alice], transferArg(clock, w, { sender: w.alice, receiver: w.bob, amount: '30', inputs: [t1] }));
    expect(r.status).toBe(200);
    const offerCid = rootResult<TransferInstructionResult<PendingTransfer>>(r).output.value.transferInstructionCid;
    // while pending: the offer is alice's locked holding; bob sees the instruction
    expect(await client.balance(w.alice, w.instrument)).toEqual({ unlocked: '70.0000000000', locked: '30.0000000000', count: 2 });
    const pending = await client.acs(w.bob, { InterfaceFilter: { value: { interfaceId: TRANSFER_INSTRUCTION_V1, includeInterfaceView: true, includeCreatedEventBlob: false } } });
    expect(pending.map((p) => p.createdEvent.contractId)).toEqual([offerCid]);

    const accepted = await instruction([w.bob], offerCid, 'TransferInstruction_Accept');
    expect(accepted.status).toBe(200);
    expect(rootResult<TransferInstructionResult>(accepted).output.tag).toBe('TransferInstructionResult_Completed');
    await expectBalances({ alice: '70.0000000000', bob: '30.0000000000' });
    expect(await client.acs(w.bob, { InterfaceFilter: { value: { interfaceId: TRANSFER_INSTRUCTION_V1, includeInterfaceView: false, includeCreatedEventBlob: false } } })).toEqual([]);
    expect(await updatesSince(w.alice, start)).toEqual([
      ['exercise TokenRules.TransferFactory_Transfer', 'archive Token.Archive', 'create Token', 'create TokenTransferOffer'],
      ['archive TokenTransferOffer.TransferInstruction_Accept', 'create Token'],
    ]);
    // bob is not an informee of the factory call: he sees only the offer being created, then his accept
    expect(await updatesSince(w.bob, start)).toEqual([['create TokenTransferOffer'], ['archive TokenTransferOffer.TransferInstruction_Accept', 'create Token']]);
  });

  it('transfer offer, then reject', async () => {
    const t1 = await mint(w.alice, '100');
    const r = await factoryTransfer([w.alice], transferArg(clock, w, { sender: w.alice, receiver: w.bob, amount: '100', inputs: [t1] }));
    const offerCid = rootResult<TransferInstructionResult<PendingTransfer>>(r).output.value.transferInstructionCid;
    const start = await client.ledgerEnd();
    const rejected = await instruction([w.bob], offerCid, 'TransferInstruction_Reject');
    expect(rejected.status).toBe(200);
    const result = rootResult<TransferInstructionResult>(rejected);
    expect(result.output).toEqual({ tag: 'TransferInstructionResult_Failed', value: {} });
    expect(result.senderChangeCids).toHaveLength(1);
    await expectBalances({ alice: '100.0000000000', bob: '0.0000000000' });
    expect(await updatesSince(w.alice, start)).toEqual([['archive TokenTransferOffer.TransferInstruction_Reject', 'create Token']]);
  });

  it('transfer offer, then withdraw', async () => {
    const t1 = await mint(w.alice, '100');
    const r = await factoryTransfer([w.alice], transferArg(clock, w, { sender: w.alice, receiver: w.bob, amount: '40', inputs: [t1] }));
    const offerCid = rootResult<TransferInstructionResult<PendingTransfer>>(r).output.value.transferInstructionCid;
    const start = await client.ledgerEnd();
    // the receiver cannot withdraw
    const byBob = await instruction([w.bob], offerCid, 'TransferInstruction_Withdraw');
    expect(byBob.status).toBe(400);
    expect(byBob.error.code).toBe('DAML_AUTHORIZATION_ERROR');
    expect(await client.ledgerEnd()).toBe(start);
    const withdrawn = await instruction([w.alice], offerCid, 'TransferInstruction_Withdraw');
    expect(withdrawn.status).toBe(200);
    expect(rootResult<TransferInstructionResult>(withdrawn).output.tag).toBe('TransferInstructionResult_Failed');
    await expectBalances({ alice: '100.0000000000', bob: '0.0000000000' });
    expect((await client.holdings(w.alice)).length).toBe(2); // change 60 + returned 40
    expect(await updatesSince(w.alice, start)).toEqual([['archive TokenTransferOffer.TransferInstruction_Withdraw', 'create Token']]);
  });

  it('allocation, then execute transfer', async () => {
    const t1 = await mint(w.alice, '100');
    const start = await client.ledgerEnd();
    const r = await client.submit(
      [w.alice],
      [{ ExerciseCommand: { templateId: ALLOCATION_FACTORY_V1, contractId: w.rulesCid, choice: 'AllocationFactory_Allocate', choiceArgument: allocateArg(clock, w, { sender: w.alice, receiver: w.bob, amount: '25', inputs: [t1] }) } }],
      [rules],
    );
    expect(r.status).toBe(200);
    const allocCid = rootResult<AllocationInstructionResultV1<CompletedAllocation>>(r).output.value.allocationCid;
    expect(await client.balance(w.alice, w.instrument)).toEqual({ unlocked: '75.0000000000', locked: '25.0000000000', count: 2 });
    // the executor sees the allocation through the Allocation interface
    const seen = await client.acs(w.executor, { InterfaceFilter: { value: { interfaceId: ALLOCATION_V1, includeInterfaceView: true, includeCreatedEventBlob: false } } });
    expect(seen.map((s) => s.createdEvent.contractId)).toEqual([allocCid]);

    const executed = await allocation([w.executor, w.alice, w.bob], allocCid, 'Allocation_ExecuteTransfer');
    expect(executed.status).toBe(200);
    expect(rootResult<AllocationResultV1>(executed).receiverHoldingCids).toHaveLength(1);
    await expectBalances({ alice: '75.0000000000', bob: '25.0000000000' });
    expect(await updatesSince(w.alice, start)).toEqual([
      ['exercise TokenRules.AllocationFactory_Allocate', 'archive Token.Archive', 'create Token', 'create TokenAllocation'],
      ['archive TokenAllocation.Allocation_ExecuteTransfer', 'create Token'],
    ]);
    expect(await updatesSince(w.executor, start)).toEqual([['create TokenAllocation'], ['archive TokenAllocation.Allocation_ExecuteTransfer', 'create Token']]);
  });

  it('allocations, then cancel (executor + sender + receiver) and withdraw (sender)', async () => {
    const t1 = await mint(w.alice, '100');
    const first = await client.exercise<AllocationInstructionResultV1<CompletedAllocation>>([w.alice], ALLOCATION_FACTORY_V1, w.rulesCid, 'AllocationFactory_Allocate', allocateArg(clock, w, { sender: w.alice, receiver: w.bob, amount: '10', inputs: [t1], settlementId: 's-1' }), [rules]);
    const change = first.senderChangeCids[0]!;
    const second = await client.exercise<AllocationInstructionResultV1<CompletedAllocation>>([w.alice], ALLOCATION_FACTORY_V1, w.rulesCid, 'AllocationFactory_Allocate', allocateArg(clock, w, { sender: w.alice, receiver: w.bob, amount: '20', inputs: [change], settlementId: 's-2' }), [rules]);
    expect(await client.balance(w.alice, w.instrument)).toEqual({ unlocked: '70.0000000000', locked: '30.0000000000', count: 3 });
    const start = await client.ledgerEnd();
    const cancelled = await allocation([w.executor, w.alice, w.bob], first.output.value.allocationCid, 'Allocation_Cancel');
    expect(cancelled.status).toBe(200);
    const withdrawn = await allocation([w.alice], second.output.value.allocationCid, 'Allocation_Withdraw');
    expect(withdrawn.status).toBe(200);
    await expectBalances({ alice: '100.0000000000', bob: '0.0000000000' });
    expect(await updatesSince(w.alice, start)).toEqual([
      ['archive TokenAllocation.Allocation_Cancel', 'create Token'],
      ['archive TokenAllocation.Allocation_Withdraw', 'create Token'],
    ]);
  });
});

describe('TestTokenV1 authorization and visibility over HTTP', () => {
  it('a sender who does not pass TokenRules as a disclosed contract cannot use the factory', async () => {
    const t1 = await mint(w.alice, '10');
    const end = await client.ledgerEnd();
    const r = await factoryTransfer([w.alice], transferArg(clock, w, { sender: w.alice, receiver: w.bob, amount: '5', inputs: [t1] }), []);
    expect(r.status).toBe(404);
    expect(r.error.code).toBe('CONTRACT_NOT_FOUND');
    // TokenRules has no observers: only the admin sees it
    expect(await client.acs(w.alice, { TemplateFilter: { value: { templateId: testTokenV1TemplateId('TokenRules'), includeCreatedEventBlob: false } } })).toEqual([]);
    expect(await client.ledgerEnd()).toBe(end);
  });

  it("a third party cannot accept someone else's offer, even with it disclosed", async () => {
    const t1 = await mint(w.alice, '10');
    const r = await factoryTransfer([w.alice], transferArg(clock, w, { sender: w.alice, receiver: w.bob, amount: '5', inputs: [t1] }));
    const offerCid = rootResult<TransferInstructionResult<PendingTransfer>>(r).output.value.transferInstructionCid;
    const end = await client.ledgerEnd();
    const hidden = await instruction([w.mallory], offerCid, 'TransferInstruction_Accept');
    expect(hidden.error.code).toBe('CONTRACT_NOT_FOUND');
    const row = (await client.acs(w.alice, { InterfaceFilter: { value: { interfaceId: TRANSFER_INSTRUCTION_V1, includeInterfaceView: false, includeCreatedEventBlob: true } } }))[0]!;
    const disclosed = { templateId: row.createdEvent.templateId, contractId: offerCid, createdEventBlob: row.createdEvent.createdEventBlob, synchronizerId: row.synchronizerId };
    const denied = await instruction([w.mallory], offerCid, 'TransferInstruction_Accept', [disclosed]);
    expect(denied.status).toBe(400);
    expect(denied.error.code).toBe('DAML_AUTHORIZATION_ERROR');
    expect(await client.ledgerEnd()).toBe(end);
    expect(await client.balance(w.mallory)).toEqual({ unlocked: '0.0000000000', locked: '0.0000000000', count: 0 });
  });

  it('a holding of another owner or of another instrument cannot be spent', async () => {
    const bobs = await mint(w.bob, '10');
    const otherInstrument = await mint(w.alice, '10', 'Y1');
    const end = await client.ledgerEnd();
    const notMine = await factoryTransfer([w.alice], transferArg(clock, w, { sender: w.alice, receiver: w.alice, amount: '5', inputs: [bobs] }));
    expect(notMine.error.code).toBe('CONTRACT_NOT_FOUND');
    const wrongInstrument = await factoryTransfer([w.alice], transferArg(clock, w, { sender: w.alice, receiver: w.bob, amount: '5', inputs: [otherInstrument] }));
    expect(wrongInstrument.error.code).toBe('DAML_FAILURE');
    expect(wrongInstrument.error.cause).toContain("'holding.instrumentId' is not equal to 'expected value'.");
    // claiming to be bob does not help alice: bob's authority is needed to act as sender
    const asBob = await factoryTransfer([w.alice], transferArg(clock, w, { sender: w.bob, receiver: w.alice, amount: '5', inputs: [bobs] }));
    expect(asBob.error.code).toBe('DAML_AUTHORIZATION_ERROR');
    expect(await client.ledgerEnd()).toBe(end);
    await expectBalances({ alice: '0.0000000000', bob: '10.0000000000' });
  });

  it('a double spend of the same input fails and leaves the state unchanged', async () => {
    const t1 = await mint(w.alice, '10');
    const ok = await factoryTransfer([w.alice], transferArg(clock, w, { sender: w.alice, receiver: w.bob, amount: '4', inputs: [t1] }));
    expect(ok.status).toBe(200);
    const end = await client.ledgerEnd();
    const before = await client.holdings(w.alice);
    const again = await factoryTransfer([w.alice], transferArg(clock, w, { sender: w.alice, receiver: w.bob, amount: '4', inputs: [t1] }));
    expect(again.status).toBe(404);
    expect(again.error.code).toBe('CONTRACT_NOT_FOUND');
    // the same input twice in one instruction
    const change = rootResult<TransferInstructionResult>(ok).senderChangeCids[0]!;
    const twice = await factoryTransfer([w.alice], transferArg(clock, w, { sender: w.alice, receiver: w.bob, amount: '7', inputs: [change, change] }));
    expect(twice.error.code).toBe('CONTRACT_NOT_ACTIVE');
    expect(await client.ledgerEnd()).toBe(end);
    expect(await client.holdings(w.alice)).toEqual(before);
  });

  it('deadlines follow the injectable clock: an offer past executeBefore cannot be accepted', async () => {
    const t1 = await mint(w.alice, '10');
    const r = await factoryTransfer([w.alice], transferArg(clock, w, { sender: w.alice, receiver: w.bob, amount: '10', inputs: [t1], executeBefore: '2026-03-01T12:30:00Z' }));
    const offerCid = rootResult<TransferInstructionResult<PendingTransfer>>(r).output.value.transferInstructionCid;
    clock.set('2026-03-01T12:30:00Z');
    const late = await instruction([w.bob], offerCid, 'TransferInstruction_Accept');
    expect(late.status).toBe(400);
    expect(late.error.code).toBe('DAML_FAILURE');
    expect(late.error.context.error_id).toBe('stdlib.daml.com/deadline-exceeded');
    // a new instruction with a past executeBefore is refused by the factory too
    const t2 = await mint(w.alice, '5');
    const stale = await factoryTransfer([w.alice], transferArg(clock, w, { sender: w.alice, receiver: w.bob, amount: '5', inputs: [t2], requestedAt: '2026-03-01T12:00:00Z', executeBefore: '2026-03-01T12:29:59Z' }));
    expect(stale.error.context.error_id).toBe('stdlib.daml.com/deadline-exceeded');
    // the sender gets the funds back
    expect((await instruction([w.alice], offerCid, 'TransferInstruction_Withdraw')).status).toBe(200);
    await expectBalances({ alice: '15.0000000000', bob: '0.0000000000' });
  });
});

describe('TestTokenV1 amounts as Canton reads a Numeric over the JSON API', () => {
  it('rejects an amount with white space as INVALID_ARGUMENT, changing nothing', async () => {
    const t1 = await mint(w.alice, '10');
    const end = await client.ledgerEnd();
    const before = await client.holdings(w.alice);
    for (const amount of [' 1', '1 ', '.5', '1e0']) {
      const r = await factoryTransfer([w.alice], transferArg(clock, w, { sender: w.alice, receiver: w.bob, amount, inputs: [t1] }));
      expect(r.status, amount).toBe(400);
      expect(r.error.code).toBe('INVALID_ARGUMENT');
      expect(r.error.cause).toBe(`The submitted request has invalid arguments: Could not read Numeric string ${JSON.stringify(amount)}`);
    }
    // the same in a create
    const minted = await client.submit([w.alice, w.admin], [
      { CreateCommand: { templateId: testTokenV1TemplateId('Token'), createArguments: { holding: { owner: w.alice, instrumentId: w.instrument, amount: ' 1', lock: null, meta: { values: {} } } } } },
    ]);
    expect(minted.error.code).toBe('INVALID_ARGUMENT');
    expect(await client.ledgerEnd()).toBe(end);
    expect(await client.holdings(w.alice)).toEqual(before);
  });

  it('accepts "+1" and "1." as 1.0, as the Ledger API does', async () => {
    const t1 = await mint(w.alice, '+10.');
    const t2 = await mint(w.alice, '10');
    for (const [amount, input] of [['+1', t1], ['1.', t2]] as const) {
      const r = await factoryTransfer([w.alice], transferArg(clock, w, { sender: w.alice, receiver: w.alice, amount, inputs: [input] }));
      expect(r.status, amount).toBe(200);
    }
    const amounts = (await client.holdings(w.alice)).map((h) => h.view.amount).sort();
    expect(amounts).toEqual(['1.0000000000', '1.0000000000', '9.0000000000', '9.0000000000']);
  });

  it('more decimals than Numeric 10 holds is COMMAND_PREPROCESSING_FAILED (the engine, not the validation)', async () => {
    const t1 = await mint(w.alice, '10');
    const end = await client.ledgerEnd();
    const r = await factoryTransfer([w.alice], transferArg(clock, w, { sender: w.alice, receiver: w.bob, amount: '1.00000000001', inputs: [t1] }));
    expect(r.error.code).toBe('COMMAND_PREPROCESSING_FAILED');
    expect(await client.ledgerEnd()).toBe(end);
  });
});
