import { describe, expect, it } from 'vitest';
import { ACCOUNT, ASSET, HOLDING, IOU, cmds, create, exercise, testLedger, type TestLedger } from '../../../support/ledger-fixtures.js';
import { JsGetUpdatesListResponseSchema } from '../../../../src/ledger-client/schemas/events.js';
import { activeContracts, archivedEvent, cantonError, createdEvent, exercisedEvent, fieldsOf, transactionOf } from '../../../support/ledger-wire.js';

async function json(r: Response): Promise<unknown> {
  return JSON.parse(await r.text());
}

async function submitTx(l: TestLedger, actAs: string[], commands: unknown[], extra: Record<string, unknown> = {}) {
  const r = await l.post('/v2/commands/submit-and-wait-for-transaction', {
    commands: cmds(actAs, commands, extra),
    transactionFormat: {
      eventFormat: { filtersByParty: Object.fromEntries(actAs.map((p) => [p, { cumulative: [] }])), verbose: true },
      transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
    },
  });
  return { status: r.status, body: await json(r) };
}

async function acs(l: TestLedger, party: string, filter: unknown = null) {
  const cumulative = filter === null ? [] : [{ identifierFilter: filter }];
  const r = await l.post('/v2/state/active-contracts', {
    eventFormat: { filtersByParty: { [party]: { cumulative } }, verbose: false },
    activeAtOffset: l.engine.ledgerEnd(),
  });
  expect(r.status).toBe(200);
  return activeContracts(await json(r));
}

function iouArgs(issuer: string, owner: string, amount = '10', observers: string[] = []) {
  return { issuer, owner, amount, observers };
}

describe('commands', () => {
  it('creates a contract that needs all signatories as submitters', async () => {
    const l = testLedger();
    const bank = l.party('bank');
    const alice = l.party('alice');
    const ok = await submitTx(l, [bank, alice], [create(IOU, iouArgs(bank, alice))]);
    expect(ok.status).toBe(200);
    const ev = createdEvent(transactionOf(ok.body).events[0]);
    expect(ev.templateId).toBe(`${'a'.repeat(64)}:Iou:Iou`);
    expect(fieldsOf(ev.createArgument).amount).toBe('10.0000000000');
    expect(ev.signatories).toEqual([bank, alice].sort());
    expect(ev.contractId).toMatch(/^00[0-9a-f]{64}ca101220[0-9a-f]{64}$/);

    const end = l.engine.ledgerEnd();
    const denied = await submitTx(l, [alice], [create(IOU, iouArgs(bank, alice))]);
    expect(denied.status).toBe(400);
    expect(cantonError(denied.body).code).toBe('DAML_AUTHORIZATION_ERROR');
    expect(l.engine.ledgerEnd()).toBe(end);
  });

  it('runs choice bodies with the signatories authority and archives consumed contracts', async () => {
    const l = testLedger();
    const bank = l.party('bank');
    const alice = l.party('alice');
    const bob = l.party('bob');
    const created = await submitTx(l, [bank, alice], [create(IOU, iouArgs(bank, alice))]);
    const cid = createdEvent(transactionOf(created.body).events[0]).contractId;
    // bob is not a stakeholder yet: invisible to him
    const invisible = await submitTx(l, [bob], [exercise(IOU, cid, 'Transfer', { newOwner: bob })]);
    expect(invisible.status).toBe(404);
    expect(cantonError(invisible.body).code).toBe('CONTRACT_NOT_FOUND');
    // alice controls Transfer, but the new Iou needs bob as a signatory: inside the body only the
    // controllers and the contract's signatories authorize (bank, alice) — even when bob submits
    // too, since submitter authority does not flow into a choice body. Daml's rule.
    const needsBob = await submitTx(l, [alice, bob], [exercise(IOU, cid, 'Transfer', { newOwner: bob })]);
    expect(needsBob.status).toBe(400);
    expect(cantonError(needsBob.body).code).toBe('DAML_AUTHORIZATION_ERROR');
    // Split creates two Ious with the same signatories: authorized by the contract's signatories.
    const split = await submitTx(l, [alice], [exercise(IOU, cid, 'Split', { amount: '4' })]);
    expect(split.status).toBe(200);
    const events = transactionOf(split.body).events;
    expect(exercisedEvent(events[0])).toMatchObject({ nodeId: 0, choice: 'Split', consuming: true, lastDescendantNodeId: 2 });
    expect(createdEvent(events[1]).nodeId).toBe(1);
    expect(exercisedEvent(events[0]).exerciseResult).toEqual({ _1: createdEvent(events[1]).contractId, _2: createdEvent(events[2]).contractId });
    expect(await acs(l, alice)).toHaveLength(2);
    expect(await acs(l, bob)).toHaveLength(0);
    // double spend: the archived contract cannot be used again
    const again = await submitTx(l, [alice], [exercise(IOU, cid, 'Split', { amount: '1' })]);
    expect(cantonError(again.body).code).toBe('CONTRACT_NOT_FOUND');
    // within one command, using a contract twice fails and leaves nothing
    const [first] = await acs(l, alice);
    const cid2 = first!.createdEvent.contractId;
    const end = l.engine.ledgerEnd();
    const twice = await submitTx(l, [alice], [exercise(IOU, cid2, 'Split', { amount: '1' }), exercise(IOU, cid2, 'Split', { amount: '1' })]);
    expect(cantonError(twice.body).code).toBe('CONTRACT_NOT_ACTIVE');
    expect(l.engine.ledgerEnd()).toBe(end);
  });

  it('is atomic: a failing second command leaves nothing behind', async () => {
    const l = testLedger();
    const bank = l.party('bank');
    const alice = l.party('alice');
    const before = l.engine.ledgerEnd();
    const r = await submitTx(l, [bank, alice], [create(IOU, iouArgs(bank, alice)), create(IOU, iouArgs(bank, alice, '0'))]);
    expect(r.status).toBe(400);
    expect(cantonError(r.body).code).toBe('DAML_FAILURE');
    expect(l.engine.ledgerEnd()).toBe(before);
    expect(await acs(l, alice)).toHaveLength(0);
  });

  it('rejects a duplicate command id within the deduplication period', async () => {
    const l = testLedger();
    const alice = l.party('alice');
    const body = cmds([alice], [create(ASSET, { owner: alice, observers: [] })]);
    const first = await l.post('/v2/commands/submit-and-wait', body);
    expect(first.status).toBe(200);
    const r = await json(first);
    expect(r).toEqual({ updateId: expect.stringMatching(/^1220[0-9a-f]{64}$/), completionOffset: 1 });
    const dup = await l.post('/v2/commands/submit-and-wait', body);
    expect(dup.status).toBe(409);
    expect(cantonError(await json(dup)).code).toBe('DUPLICATE_COMMAND');
    expect(l.engine.ledgerEnd()).toBe(1);
  });

  it('answers malformed bodies with the text/plain 400 of tapir', async () => {
    const l = testLedger();
    const r1 = await l.post('/v2/commands/submit-and-wait', '{not json');
    expect(r1.status).toBe(400);
    expect(r1.headers.get('content-type')).toMatch(/text\/plain/);
    const alice = l.party('alice');
    const r2 = await l.post('/v2/commands/submit-and-wait', cmds([alice], [create('not-a-valid-template-id', {})]));
    expect(r2.status).toBe(400);
    expect(await r2.text()).toBe(
      "Invalid value for: body (Invalid identifier format (not-a-valid-template-id) not matching the expected format (<package>:<moduleName>:<entityName>) at 'commands[0].CreateCommand.templateId')",
    );
    const r3 = await l.post('/v2/state/active-contracts', { activeAtOffset: 'abc', filter: {} });
    expect(r3.status).toBe(400);
    expect(await r3.text()).toMatch(/^Invalid value for: body \(Got value '"abc"' with wrong type, expecting number at 'activeAtOffset'\)$/);
  });

  it('rejects unknown templates', async () => {
    const l = testLedger();
    const alice = l.party('alice');
    const r = await l.post('/v2/commands/submit-and-wait', cmds([alice], [create('#no-such-pkg:M:T', { owner: alice })]));
    expect(r.status).toBe(400);
    expect(cantonError(await json(r)).code).toBe('COMMAND_PREPROCESSING_FAILED');
  });

  it('dispatches interface choices and renders interface views', async () => {
    const l = testLedger();
    const bank = l.party('bank');
    const alice = l.party('alice');
    const created = await submitTx(l, [bank, alice], [create(IOU, iouArgs(bank, alice, '5'))]);
    const cid = createdEvent(transactionOf(created.body).events[0]).contractId;
    const view = await acs(l, alice, { InterfaceFilter: { value: { interfaceId: HOLDING, includeInterfaceView: true, includeCreatedEventBlob: true } } });
    expect(view).toHaveLength(1);
    const ev = view[0]!.createdEvent;
    expect(ev.interfaceViews[0]).toMatchObject({ interfaceId: `${'b'.repeat(64)}:Holding:Holding`, viewValue: { owner: alice, amount: '5.0000000000' } });
    expect(ev.createdEventBlob).not.toBe('');
    const burn = await submitTx(l, [alice], [exercise(HOLDING, cid, 'Holding_Burn')]);
    expect(cantonError(burn.body).code).toBe('DAML_AUTHORIZATION_ERROR'); // needs the issuer too
    const ok = await submitTx(l, [alice, bank], [exercise(HOLDING, cid, 'Holding_Burn')]);
    expect(ok.status).toBe(200);
    expect(exercisedEvent(transactionOf(ok.body).events[0]).interfaceId).toBe(`${'b'.repeat(64)}:Holding:Holding`);
  });

  it('lets a command use a contract it cannot see only when disclosed, and checks the blob', async () => {
    const l = testLedger();
    const bank = l.party('bank');
    const alice = l.party('alice');
    const bob = l.party('bob');
    const created = await submitTx(l, [bank, alice], [create(IOU, iouArgs(bank, alice, '5'))]);
    const cid = createdEvent(transactionOf(created.body).events[0]).contractId;
    const [entry] = await acs(l, alice, { TemplateFilter: { value: { templateId: IOU, includeCreatedEventBlob: true } } });
    const blob = entry!.createdEvent.createdEventBlob;
    // bob exercising a nonconsuming choice needs the controller (alice); check visibility only:
    const hidden = await submitTx(l, [bob, alice], [exercise(IOU, cid, 'Observe', { reader: bob })], { readAs: [] });
    expect(hidden.status).toBe(200); // alice is a stakeholder and submitter
    const onlyBob = await l.post('/v2/commands/submit-and-wait', cmds([bob], [exercise(IOU, cid, 'Observe', { reader: bob })]));
    expect(cantonError(await json(onlyBob)).code).toBe('CONTRACT_NOT_FOUND');
    const disclosedButUnauthorized = await l.post(
      '/v2/commands/submit-and-wait',
      cmds([bob], [exercise(IOU, cid, 'Observe', { reader: bob })], { disclosedContracts: [{ contractId: cid, createdEventBlob: blob, templateId: IOU }] }),
    );
    expect(cantonError(await json(disclosedButUnauthorized)).code).toBe('DAML_AUTHORIZATION_ERROR');
    const tampered = Buffer.from(Buffer.from(blob, 'base64').toString().replace('5.0000000000', '9.0000000000')).toString('base64');
    const bad = await l.post(
      '/v2/commands/submit-and-wait',
      cmds([bob], [exercise(IOU, cid, 'Observe', { reader: bob })], { disclosedContracts: [{ contractId: cid, createdEventBlob: tampered }] }),
    );
    expect(bad.status).toBe(400);
    expect(cantonError(await json(bad)).code).toBe('INVALID_ARGUMENT');
  });

  it('streams updates in both shapes and finds transactions by id', async () => {
    const l = testLedger();
    const alice = l.party('alice');
    const bob = l.party('bob');
    const c1 = await submitTx(l, [alice], [create(ASSET, { owner: alice, observers: [bob] })]);
    const c1Tx = transactionOf(c1.body);
    const cid = createdEvent(c1Tx.events[0]).contractId;
    await submitTx(l, [alice], [exercise(ASSET, cid, 'Archive')]);
    const r = await l.post('/v2/updates?stream_idle_timeout_ms=10', {
      beginExclusive: 0,
      updateFormat: {
        includeTransactions: { eventFormat: { filtersByParty: { [bob]: { cumulative: [] } } }, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' },
      },
    });
    const raw = await json(r);
    const updates = JsGetUpdatesListResponseSchema.parse(raw).map((u) => {
      if (!('Transaction' in u.update)) throw new Error(`not a transaction: ${JSON.stringify(u)}`);
      return u.update.Transaction.value;
    });
    expect(updates).toHaveLength(2);
    // bob did not submit: read as sent (the schema would also read a null commandId as '')
    const sent = raw as Array<{ update: { Transaction: { value: { commandId: unknown } } } }>;
    expect(sent[0]!.update.Transaction.value.commandId).toBe('');
    expect(archivedEvent(updates[1]!.events[0]).contractId).toBe(cid);
    const byId = await l.post('/v2/updates/transaction-by-id', { updateId: c1Tx.updateId, requestingParties: [bob] });
    expect(byId.status).toBe(200);
    const stranger = l.party('carol');
    const hidden = await l.post('/v2/updates/transaction-by-id', { updateId: c1Tx.updateId, requestingParties: [stranger] });
    expect(hidden.status).toBe(404);
    expect(cantonError(await json(hidden)).code).toBe('UPDATE_NOT_FOUND');
    const end = await json(await l.get('/v2/state/ledger-end'));
    expect(end).toEqual({ offset: 2 });
  });

  it('answers 413 when a list exceeds the node limit without a client limit', async () => {
    const l = testLedger({ listMaxElements: 3 });
    const alice = l.party('alice');
    for (let i = 0; i < 4; i++) await submitTx(l, [alice], [create(ASSET, { owner: alice, observers: [] })]);
    const body = { eventFormat: { filtersByParty: { [alice]: { cumulative: [] } } }, activeAtOffset: 4 };
    const r = await l.post('/v2/state/active-contracts', body);
    expect(r.status).toBe(413);
    expect(cantonError(await json(r)).code).toBe('JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED');
    const limited = await l.post('/v2/state/active-contracts?limit=2', body);
    expect(await json(limited)).toHaveLength(2);
    // the ACS at an earlier offset still has what was active then
    const early = await l.post('/v2/state/active-contracts', { ...body, activeAtOffset: 2 });
    expect(await json(early)).toHaveLength(2);
  });

  it('enforces contract key uniqueness and exercises by key', async () => {
    const l = testLedger();
    const alice = l.party('alice');
    const bob = l.party('bob');
    const acc = { owner: alice, label: 'main', balance: '1' };
    expect((await submitTx(l, [alice], [create(ACCOUNT, acc)])).status).toBe(200);
    const dup = await submitTx(l, [alice], [create(ACCOUNT, acc)]);
    expect(dup.status).toBe(409);
    expect(cantonError(dup.body).code).toBe('DUPLICATE_CONTRACT_KEY');
    const byKey = (actAs: string, key: unknown) =>
      submitTx(l, [actAs], [{ ExerciseByKeyCommand: { templateId: ACCOUNT, contractKey: key, choice: 'Deposit', choiceArgument: { amount: '2' } } }]);
    const ok = await byKey(alice, { _1: alice, _2: 'main' });
    expect(ok.status).toBe(200);
    const created = createdEvent(transactionOf(ok.body).events.find((e) => 'CreatedEvent' in e));
    expect(fieldsOf(created.createArgument).balance).toBe('3');
    expect(created.contractKey).toEqual({ _1: alice, _2: 'main' });
    // the key still resolves after the consuming choice re-created the contract
    expect((await byKey(alice, { _1: alice, _2: 'main' })).status).toBe(200);
    // bob cannot see alice's key: not found (no information leak)
    expect(cantonError((await byKey(bob, { _1: alice, _2: 'main' })).body).code).toBe('CONTRACT_KEY_NOT_FOUND');
    expect(cantonError((await byKey(alice, { _1: alice, _2: 'other' })).body).code).toBe('CONTRACT_KEY_NOT_FOUND');
  });
});
