/**
 * TestTokenV1 transfers: TokenRules as V1 TransferFactory, TokenTransferOffer as V1
 * TransferInstruction and locked Holding (Splice `TestTokenV1.daml`): results, views,
 * validations with the reference token's messages, and the documented deviations.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { TEST_TOKEN_V1_PACKAGE_ID, type TokenPayload, type TokenTransferOfferPayload } from '../../../../../src/emulator/templates/test-token-v1/index.js';
import type { LedgerEngine } from '../../../../../src/emulator/participant/engine.js';
import type { ManualClock } from '../../../../../src/canton/clock.js';
import { EMPTY_EXTRA_ARGS, HOLDING_V1, TRANSFER_FACTORY_V1, TRANSFER_INSTRUCTION_V1, Tt1Client, type Disclosed, type Result } from './tt1-client.js';
import { createdOf, exercisedOf, type PendingTransfer, type TransferInstructionResult } from '../wire.js';
import { at, inProcess, mint, setupWorld, transferArg, type World } from './tt1-scenario.js';

const HOLDING_V1_PKG = '718a0f77e505a8de22f188bd4c87fe74101274e9d4cb1bfac7d09aec7158d35b';

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

async function transfer(arg: unknown, actAs = [w.alice]) {
  return client.submit(actAs, [{ ExerciseCommand: { templateId: TRANSFER_FACTORY_V1, contractId: w.rulesCid, choice: 'TransferFactory_Transfer', choiceArgument: arg } }], [rules]);
}

/** Submits and expects a DAML_FAILURE, leaving the ledger unchanged. */
async function expectFailure(p: Promise<Result>, errorId: string, message: string) {
  const end = engine.ledgerEnd();
  const r = await p;
  expect(r.status).toBe(400);
  expect(r.error.code).toBe('DAML_FAILURE');
  expect(r.error.context.error_id).toBe(errorId);
  expect(r.error.cause).toContain(message);
  expect(engine.ledgerEnd()).toBe(end);
  return r;
}

const GENERAL = 'UNHANDLED_EXCEPTION/DA.Exception.GeneralError:GeneralError';
const ASSERTION = 'UNHANDLED_EXCEPTION/DA.Exception.AssertionFailed:AssertionFailed';

describe('TransferFactory_Transfer', () => {
  it('self transfer: archives the inputs, returns change and completes at once', async () => {
    const t1 = mint(engine, w, w.alice, '60');
    const t2 = mint(engine, w, w.alice, '40');
    const r = await transfer(transferArg(clock, w, { sender: w.alice, receiver: w.alice, amount: '70', inputs: [t1, t2] }));
    expect(r.status).toBe(200);
    const events = r.transaction.events;
    const root = exercisedOf(events[0]);
    expect(root).toMatchObject({ choice: 'TransferFactory_Transfer', consuming: false, actingParties: [w.alice], interfaceId: expect.stringContaining(':Splice.Api.Token.TransferInstructionV1:TransferFactory') });
    // the inputs are archived through the Holding interface, in order, then change, then the new token
    expect(events[1]!.ExercisedEvent).toMatchObject({ contractId: t1, choice: 'Archive', consuming: true, interfaceId: `${HOLDING_V1_PKG}:Splice.Api.Token.HoldingV1:Holding`, actingParties: [w.alice, w.admin].sort() });
    expect(events[2]!.ExercisedEvent).toMatchObject({ contractId: t2, choice: 'Archive', consuming: true });
    const change = createdOf(events[3]);
    const moved = createdOf(events[4]);
    expect((change.createArgument as TokenPayload).holding.amount).toBe('30.0000000000');
    expect((moved.createArgument as TokenPayload).holding).toEqual({ owner: w.alice, instrumentId: w.instrument, amount: '70.0000000000', lock: null, meta: { values: {} } });
    expect(root.exerciseResult).toEqual({
      output: { tag: 'TransferInstructionResult_Completed', value: { receiverHoldingCids: [moved.contractId] } },
      senderChangeCids: [change.contractId],
      meta: { values: {} },
    });
    expect(root.lastDescendantNodeId).toBe(4);
    expect(await client.balance(w.alice)).toEqual({ unlocked: '100.0000000000', locked: '0.0000000000', count: 2 });
  });

  it('exact amount: no change token', async () => {
    const t1 = mint(engine, w, w.alice, '25');
    const res = await client.exercise<TransferInstructionResult>([w.alice], TRANSFER_FACTORY_V1, w.rulesCid, 'TransferFactory_Transfer', transferArg(clock, w, { sender: w.alice, receiver: w.bob, amount: '25', inputs: [t1] }), [rules]);
    expect(res.senderChangeCids).toEqual([]);
    expect(res.output.tag).toBe('TransferInstructionResult_Pending');
  });

  it('transfer to another party: a pending TokenTransferOffer that is itself a locked holding of the sender', async () => {
    const t1 = mint(engine, w, w.alice, '100');
    const arg = transferArg(clock, w, { sender: w.alice, receiver: w.bob, amount: '30', inputs: [t1] });
    const res = await client.exercise<TransferInstructionResult<PendingTransfer>>([w.alice], TRANSFER_FACTORY_V1, w.rulesCid, 'TransferFactory_Transfer', arg, [rules]);
    expect(res.output.tag).toBe('TransferInstructionResult_Pending');
    const offerCid = res.output.value.transferInstructionCid;
    const offer = engine.contracts.getActive(offerCid)!;
    expect(offer.templateId.entityName).toBe('TokenTransferOffer');
    // the transfer is stored unchanged, with the original inputs
    expect(offer.payload).toEqual({ transfer: { ...arg.transfer, amount: '30.0000000000' } });
    expect(offer.signatories).toEqual([w.alice, w.admin].sort());
    expect(offer.observers).toEqual([w.bob]);

    // bob sees it as a TransferInstruction with the reference view
    const rows = await client.acs(w.bob, { InterfaceFilter: { value: { interfaceId: TRANSFER_INSTRUCTION_V1, includeInterfaceView: true, includeCreatedEventBlob: false } } });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.createdEvent.interfaceViews[0]!.viewValue).toEqual({
      originalInstructionCid: null,
      transfer: (offer.payload as TokenTransferOfferPayload).transfer,
      status: { tag: 'TransferPendingReceiverAcceptance', value: {} },
      meta: { values: {} },
    });
    // and alice sees it as a locked holding (owner alice, lock holders alice + admin, until executeBefore)
    const hs = await client.holdings(w.alice);
    const locked = hs.find((h) => h.contractId === offerCid)!;
    expect(locked.view).toEqual({
      owner: w.alice,
      instrumentId: w.instrument,
      amount: '30.0000000000',
      lock: { holders: [w.alice, w.admin], expiresAt: arg.transfer.executeBefore, expiresAfter: null, context: `transfer to '${w.bob}'` },
      meta: { values: {} },
    });
    expect(await client.balance(w.alice)).toEqual({ unlocked: '70.0000000000', locked: '30.0000000000', count: 2 });
    expect(await client.balance(w.bob)).toEqual({ unlocked: '0.0000000000', locked: '0.0000000000', count: 0 });
  });

  it('checks expectedAdmin, instrument admin, amount and the deadlines with the reference messages', async () => {
    const t1 = mint(engine, w, w.alice, '10');
    const ok = { sender: w.alice, receiver: w.bob, amount: '5', inputs: [t1] };
    await expectFailure(
      transfer(transferArg(clock, w, { ...ok, expectedAdmin: w.mallory })),
      GENERAL,
      `'expectedAdmin' is not equal to 'expected value'.\nexpectedAdmin: '${w.mallory}'\nexpected value: '${w.admin}'\n`,
    );
    await expectFailure(
      transfer(transferArg(clock, w, { ...ok, instrumentId: { admin: w.mallory, id: 'X1' } })),
      ASSERTION,
      "The requirement 'Instrument-admin must match the factory' was not met.",
    );
    await expectFailure(transfer(transferArg(clock, w, { ...ok, amount: '0' })), ASSERTION, "The requirement 'Amount must be positive' was not met.");
    await expectFailure(
      transfer(transferArg(clock, w, { ...ok, requestedAt: '2026-03-01T12:00:00.000001Z' })),
      'stdlib.daml.com/deadline-not-exceeded',
      "Ledger time is strictly before deadline 'Transfer.requestedAt' at 2026-03-01T12:00:00.000001Z",
    );
    const r = await expectFailure(
      transfer(transferArg(clock, w, { ...ok, requestedAt: '2026-03-01T11:00:00Z', executeBefore: '2026-03-01T12:00:00Z' })),
      'stdlib.daml.com/deadline-exceeded',
      "Ledger time is at or past deadline 'Transfer.executeBefore' at 2026-03-01T12:00:00Z",
    );
    expect(r.error.errorCategory).toBe(9);
    // requestedAt == now is fine (at or after)
    const fine = await transfer(transferArg(clock, w, { ...ok, requestedAt: at(clock, 0) }));
    expect(fine.status).toBe(200);
  });

  it('checks the inputs: owner, instrument, lock, and that they cover the amount', async () => {
    const mine = mint(engine, w, w.alice, '10');
    const other = mint(engine, w, w.alice, '10', 'Y1');
    const bobs = mint(engine, w, w.bob, '10');
    const base = { sender: w.alice, receiver: w.bob, amount: '5' };
    await expectFailure(
      transfer(transferArg(clock, w, { ...base, inputs: [other] })),
      GENERAL,
      `'holding.instrumentId' is not equal to 'expected value'.\nholding.instrumentId: InstrumentId {admin = '${w.admin}', id = "Y1"}\nexpected value: InstrumentId {admin = '${w.admin}', id = "X1"}\n`,
    );
    await expectFailure(transfer(transferArg(clock, w, { ...base, amount: '10.5', inputs: [mine] })), GENERAL, "'input amount' is less than 'transfer.amount'.\ninput amount: 10.0\ntransfer.amount: 10.5\n");
    await expectFailure(transfer(transferArg(clock, w, { ...base, inputs: [] })), GENERAL, "'input amount' is less than 'transfer.amount'.\ninput amount: 0.0\ntransfer.amount: 5.0\n");
    // bob's token is not visible to alice at all ...
    const hidden = await transfer(transferArg(clock, w, { ...base, inputs: [bobs] }));
    expect(hidden.error.code).toBe('CONTRACT_NOT_FOUND');
    // ... and even when it is disclosed to her, the owner check refuses it
    const bobsRow = (await client.acs(w.bob, { InterfaceFilter: { value: { interfaceId: HOLDING_V1, includeInterfaceView: false, includeCreatedEventBlob: true } } }))[0]!;
    const bobsDisclosed = { templateId: bobsRow.createdEvent.templateId, contractId: bobs, createdEventBlob: bobsRow.createdEvent.createdEventBlob, synchronizerId: bobsRow.synchronizerId };
    await expectFailure(
      client.submit([w.alice], [{ ExerciseCommand: { templateId: TRANSFER_FACTORY_V1, contractId: w.rulesCid, choice: 'TransferFactory_Transfer', choiceArgument: transferArg(clock, w, { ...base, inputs: [bobs] }) } }], [rules, bobsDisclosed]),
      GENERAL,
      `'holding owner' is not equal to 'expected value'.\nholding owner: '${w.bob}'\nexpected value: '${w.alice}'\n`,
    );
    // a locked holding (a pending offer) cannot fund a transfer
    const pending = await client.exercise<TransferInstructionResult<PendingTransfer>>([w.alice], TRANSFER_FACTORY_V1, w.rulesCid, 'TransferFactory_Transfer', transferArg(clock, w, { ...base, inputs: [mine] }), [rules]);
    const offerCid = pending.output.value.transferInstructionCid;
    const executeBefore = (engine.contracts.getActive(offerCid)!.payload as TokenTransferOfferPayload).transfer.executeBefore;
    await expectFailure(
      transfer(transferArg(clock, w, { ...base, amount: '1', inputs: [offerCid] })),
      GENERAL,
      `'holding.lock' is not equal to 'expected value'.\nholding.lock: Some (Lock {holders = ['${w.alice}','${w.admin}'], expiresAt = Some ${executeBefore}, expiresAfter = None, context = Some "transfer to '${w.bob}'"})\nexpected value: None\n`,
    );
  });

  it('a double spend of the same input fails, in one transaction and across transactions', async () => {
    const t1 = mint(engine, w, w.alice, '10');
    const end = engine.ledgerEnd();
    const twice = await transfer(transferArg(clock, w, { sender: w.alice, receiver: w.bob, amount: '15', inputs: [t1, t1] }));
    expect(twice.error.code).toBe('CONTRACT_NOT_ACTIVE');
    expect(engine.ledgerEnd()).toBe(end);
    expect(await transfer(transferArg(clock, w, { sender: w.alice, receiver: w.bob, amount: '5', inputs: [t1] }))).toMatchObject({ status: 200 });
    const again = await transfer(transferArg(clock, w, { sender: w.alice, receiver: w.bob, amount: '5', inputs: [t1] }));
    expect(again.status).toBe(404);
    expect(again.error.code).toBe('CONTRACT_NOT_FOUND');
  });

  it('without the disclosed TokenRules the sender cannot see the factory; only the sender can instruct', async () => {
    const t1 = mint(engine, w, w.alice, '10');
    const arg = transferArg(clock, w, { sender: w.alice, receiver: w.bob, amount: '5', inputs: [t1] });
    const hidden = await client.submit([w.alice], [{ ExerciseCommand: { templateId: TRANSFER_FACTORY_V1, contractId: w.rulesCid, choice: 'TransferFactory_Transfer', choiceArgument: arg } }]);
    expect(hidden.status).toBe(404);
    expect(hidden.error.code).toBe('CONTRACT_NOT_FOUND');
    const notSender = await client.submit([w.bob], [{ ExerciseCommand: { templateId: TRANSFER_FACTORY_V1, contractId: w.rulesCid, choice: 'TransferFactory_Transfer', choiceArgument: arg } }], [rules]);
    expect(notSender.error.code).toBe('DAML_AUTHORIZATION_ERROR');
  });

  it('rejects a malformed choice argument with COMMAND_PREPROCESSING_FAILED (INVALID_ARGUMENT for an unreadable Numeric)', async () => {
    const arg = transferArg(clock, w, { sender: w.alice, receiver: w.bob, amount: 'lots', inputs: [] });
    const r = await transfer(arg);
    expect(r.error.code).toBe('INVALID_ARGUMENT');
    const lossy = await transfer(transferArg(clock, w, { sender: w.alice, receiver: w.bob, amount: '1.00000000001', inputs: [] }));
    expect(lossy.error.code).toBe('COMMAND_PREPROCESSING_FAILED');
    const noExtra = await transfer({ ...transferArg(clock, w, { sender: w.alice, receiver: w.bob, amount: '1', inputs: [] }), extraArgs: undefined });
    expect(noExtra.error.code).toBe('COMMAND_PREPROCESSING_FAILED');
    expect(noExtra.error.cause).toContain('extraArgs');
  });
});

describe('TransferFactory_PublicFetch', () => {
  it('returns the factory view to any actor holding the disclosure, and checks expectedAdmin (deviation 2)', async () => {
    const view = await client.exercise([w.mallory], TRANSFER_FACTORY_V1, w.rulesCid, 'TransferFactory_PublicFetch', { expectedAdmin: w.admin, actor: w.mallory }, [rules]);
    expect(view).toEqual({ admin: w.admin, meta: { values: {} } });
    await expectFailure(
      client.submit([w.mallory], [{ ExerciseCommand: { templateId: TRANSFER_FACTORY_V1, contractId: w.rulesCid, choice: 'TransferFactory_PublicFetch', choiceArgument: { expectedAdmin: w.mallory, actor: w.mallory } } }], [rules]),
      GENERAL,
      `'expectedAdmin' is not equal to 'expected value'.`,
    );
    const wrongActor = await client.submit([w.mallory], [{ ExerciseCommand: { templateId: TRANSFER_FACTORY_V1, contractId: w.rulesCid, choice: 'TransferFactory_PublicFetch', choiceArgument: { expectedAdmin: w.admin, actor: w.bob } } }], [rules]);
    expect(wrongActor.error.code).toBe('DAML_AUTHORIZATION_ERROR');
  });
});

describe('TokenTransferOffer as TransferInstruction', () => {
  async function offer(amount = '30') {
    const t1 = mint(engine, w, w.alice, '100');
    const res = await client.exercise<TransferInstructionResult<PendingTransfer>>([w.alice], TRANSFER_FACTORY_V1, w.rulesCid, 'TransferFactory_Transfer', transferArg(clock, w, { sender: w.alice, receiver: w.bob, amount, inputs: [t1] }), [rules]);
    return res.output.value.transferInstructionCid;
  }
  const act = (actAs: string[], cid: string, choice: string, arg: unknown = { extraArgs: EMPTY_EXTRA_ARGS }) =>
    client.submit(actAs, [{ ExerciseCommand: { templateId: TRANSFER_INSTRUCTION_V1, contractId: cid, choice, choiceArgument: arg } }]);

  it('accept: the receiver gets an unlocked Token; the offer is archived', async () => {
    const cid = await offer();
    const r = await act([w.bob], cid, 'TransferInstruction_Accept');
    expect(r.status).toBe(200);
    const [root, created] = r.transaction.events;
    expect(root!.ExercisedEvent).toMatchObject({ contractId: cid, choice: 'TransferInstruction_Accept', consuming: true, actingParties: [w.bob] });
    expect((createdOf(created).createArgument as TokenPayload).holding).toEqual({ owner: w.bob, instrumentId: w.instrument, amount: '30.0000000000', lock: null, meta: { values: {} } });
    expect(createdOf(created).signatories).toEqual([w.bob, w.admin].sort());
    expect(exercisedOf(root).exerciseResult).toEqual({
      output: { tag: 'TransferInstructionResult_Completed', value: { receiverHoldingCids: [createdOf(created).contractId] } },
      senderChangeCids: [],
      meta: { values: {} },
    });
    expect(engine.contracts.getActive(cid)).toBeUndefined();
    expect(await client.balance(w.bob)).toEqual({ unlocked: '30.0000000000', locked: '0.0000000000', count: 1 });
    expect(await client.balance(w.alice)).toEqual({ unlocked: '70.0000000000', locked: '0.0000000000', count: 1 });
  });

  it('reject (receiver) and withdraw (sender) return the amount to the sender with a Failed result', async () => {
    for (const [choice, actor] of [
      ['TransferInstruction_Reject', 'bob'],
      ['TransferInstruction_Withdraw', 'alice'],
    ] as const) {
      const cid = await offer('10');
      const r = await act([w[actor]], cid, choice);
      expect(r.status).toBe(200);
      const [root, created] = r.transaction.events;
      expect((createdOf(created).createArgument as TokenPayload).holding.owner).toBe(w.alice);
      expect(exercisedOf(root).exerciseResult).toEqual({
        output: { tag: 'TransferInstructionResult_Failed', value: {} },
        senderChangeCids: [createdOf(created).contractId],
        meta: { values: {} },
      });
    }
    expect(await client.balance(w.alice)).toEqual({ unlocked: '200.0000000000', locked: '0.0000000000', count: 4 });
  });

  it('only the receiver accepts or rejects, only the sender withdraws', async () => {
    const cid = await offer();
    expect((await act([w.alice], cid, 'TransferInstruction_Accept')).error.code).toBe('DAML_AUTHORIZATION_ERROR');
    expect((await act([w.bob], cid, 'TransferInstruction_Withdraw')).error.code).toBe('DAML_AUTHORIZATION_ERROR');
    expect((await act([w.alice], cid, 'TransferInstruction_Reject')).error.code).toBe('DAML_AUTHORIZATION_ERROR');
    // a third party does not even see the offer
    expect((await act([w.mallory], cid, 'TransferInstruction_Accept')).error.code).toBe('CONTRACT_NOT_FOUND');
    expect(engine.contracts.getActive(cid)).toBeDefined();
  });

  it('accept fails at or after executeBefore (deviation 1); reject and withdraw still work', async () => {
    const cid = await offer();
    clock.advance(3_600_000); // executeBefore = start + 1h: now == executeBefore
    const r = await act([w.bob], cid, 'TransferInstruction_Accept');
    expect(r.error.code).toBe('DAML_FAILURE');
    expect(r.error.context.error_id).toBe('stdlib.daml.com/deadline-exceeded');
    expect(r.error.cause).toContain("Ledger time is at or past deadline 'Transfer.executeBefore' at 2026-03-01T13:00:00Z");
    expect((await act([w.bob], cid, 'TransferInstruction_Reject')).status).toBe(200);
    expect(await client.balance(w.alice)).toEqual({ unlocked: '100.0000000000', locked: '0.0000000000', count: 2 });
  });

  it('TransferInstruction_Update is not supported, with the reference message', async () => {
    const cid = await offer();
    // the controller is the instrument admin (+ extraActors); the admin is a signatory, so it sees the offer
    await expectFailure(act([w.admin], cid, 'TransferInstruction_Update', { extraActors: [], extraArgs: EMPTY_EXTRA_ARGS }), GENERAL, 'V1.TransferInstruction_Update: not supported by TokenTransferOffer');
    expect((await act([w.bob], cid, 'TransferInstruction_Update', { extraActors: [w.bob], extraArgs: EMPTY_EXTRA_ARGS })).error.code).toBe('DAML_AUTHORIZATION_ERROR');
  });

  it('the template id of the offer is the real TestTokenV1 package', async () => {
    const cid = await offer();
    expect(engine.contracts.getActive(cid)!.templateId).toEqual({
      packageId: TEST_TOKEN_V1_PACKAGE_ID,
      packageName: 'splice-test-token-v1',
      moduleName: 'Splice.Testing.Tokens.TestTokenV1',
      entityName: 'TokenTransferOffer',
    });
  });
});
