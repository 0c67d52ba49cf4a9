/**
 * The native templates (TestTokenV1, Amulet) through prepare → sign → execute: the hash equals
 * the SDK oracle's, and the committed transaction is the one submit-and-wait commits for the
 * same command on a twin ledger (same events, same results, same balances).
 */
import { describe, expect, it } from 'vitest';
import { decodePreparedTransaction, hashPreparedTransaction } from '@canton-network/core-tx-visualizer';
import { executeBody, prepareBody, registerExternal } from '../../../../support/interactive.js';
import { inProcess, mint, setupWorld, transferArg } from '../../templates/test-token-v1/tt1-scenario.js';
import { EMPTY_EXTRA_ARGS, TRANSFER_FACTORY_V1, TRANSFER_INSTRUCTION_V1 } from '../../templates/test-token-v1/tt1-client.js';
import { IFACE, TICK_MS, amuletLedger, exercise, trace, type AmuletLedger } from '../../templates/amulet/fixture.js';
import type { Event } from '../../../../../src/ledger-client/schemas/events.js';
import { cantonError, exercisedEvent, fieldsOf, transactionOf } from '../../../../support/ledger-wire.js';
import { field, inputContracts } from './proto-value.js';

type Requester = (path: string, init: RequestInit) => Response | Promise<Response>;

/** The fields of the prepare answer used here (it also has `hashingDetails` and `costEstimation`, null here). */
interface Prepared {
  preparedTransaction: string;
  preparedTransactionHash: string;
}

async function post(request: Requester, path: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const r = await request(path, { method: 'POST', body: JSON.stringify(body) });
  return { status: r.status, body: await r.json() };
}

async function prepare(request: Requester, body: unknown): Promise<Prepared> {
  const r = await post(request, '/v2/interactive-submission/prepare', body);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as Prepared;
}

/** prepare → oracle hash check → sign → executeAndWaitForTransaction (LEDGER_EFFECTS for the signer). */
async function viaInteractive(request: Requester, key: ReturnType<typeof registerExternal>, commands: unknown[], disclosedContracts: unknown[] = []) {
  const prepared = await prepare(request, prepareBody([key.party], commands, { disclosedContracts }));
  expect(await hashPreparedTransaction(prepared.preparedTransaction, 'base64')).toBe(prepared.preparedTransactionHash);
  const r = await post(request, '/v2/interactive-submission/executeAndWaitForTransaction', {
    ...executeBody(prepared, [key]),
    transactionFormat: { eventFormat: { filtersByParty: { [key.party]: { cumulative: [] } }, verbose: true }, transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS' },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return transactionOf(r.body);
}

/** The `transferInstructionCid` of a `TransferInstructionResult_Pending` exercise result. */
const pendingInstruction = (result: unknown) => fieldsOf(fieldsOf(fieldsOf(result).output).value).transferInstructionCid;

describe('TestTokenV1 through interactive submission', () => {
  it('transfer offer with the disclosed TokenRules, then accept: same effects as submit-and-wait', async () => {
    const run = async (interactive: boolean) => {
      const { engine, clock, client, app } = inProcess();
      const w = await setupWorld(client, engine);
      const rules = await client.disclosedRules(w.admin);
      const t1 = mint(engine, w, w.alice, '100');
      const request: Requester = (p, i) => app.request(p, i);
      const offerCmd = [{ ExerciseCommand: { templateId: TRANSFER_FACTORY_V1, contractId: w.rulesCid, choice: 'TransferFactory_Transfer', choiceArgument: transferArg(clock, w, { sender: w.alice, receiver: w.bob, amount: '30', inputs: [t1] }) } }];
      let offerEvents: Event[];
      if (interactive) {
        offerEvents = (await viaInteractive(request, registerExternal(engine, w.alice), offerCmd, [rules])).events;
      } else {
        offerEvents = transactionOf((await client.submit([w.alice], offerCmd, [rules])).body).events;
      }
      const instr = pendingInstruction(exercisedEvent(offerEvents[0]).exerciseResult);
      const acceptCmd = [{ ExerciseCommand: { templateId: TRANSFER_INSTRUCTION_V1, contractId: instr, choice: 'TransferInstruction_Accept', choiceArgument: { extraArgs: EMPTY_EXTRA_ARGS } } }];
      const acceptEvents = interactive
        ? (await viaInteractive(request, registerExternal(engine, w.bob), acceptCmd)).events
        : transactionOf((await client.submit([w.bob], acceptCmd)).body).events;
      return { offerEvents, acceptEvents, alice: await client.balance(w.alice), bob: await client.balance(w.bob), end: engine.ledgerEnd() };
    };
    const normal = await run(false);
    const isub = await run(true);
    expect(isub.alice).toEqual(normal.alice);
    expect(isub.bob).toEqual(normal.bob);
    expect(isub.bob.unlocked).toBe('30.0000000000');
    expect(isub.end).toBe(normal.end);
    const shape = (events: Event[]) => events.map((e) => ('CreatedEvent' in e ? `create ${e.CreatedEvent.templateId.split(':').pop()}` : `exercise ${exercisedEvent(e).choice}`));
    expect(shape(isub.offerEvents)).toEqual(shape(normal.offerEvents));
    expect(shape(isub.acceptEvents)).toEqual(shape(normal.acceptEvents));
  });
});

describe('Amulet through interactive submission', () => {
  const transferArgOf = (l: AmuletLedger, inputs: string[]) => ({
    expectedAdmin: l.dso,
    transfer: {
      sender: l.alice,
      receiver: l.bob,
      amount: '10',
      instrumentId: l.instrument,
      requestedAt: l.at(-60_000),
      executeBefore: l.at(24 * 3600_000),
      inputHoldingCids: inputs,
      meta: { values: {} },
    },
    extraArgs: { context: l.ctx().context, meta: { values: {} } },
  });

  it('a V1 factory transfer offer: the oracle hash matches and the effects equal submit-and-wait', async () => {
    const run = async (interactive: boolean) => {
      const l = amuletLedger();
      const cid = l.tap(l.alice, '100');
      const cmd = [exercise(IFACE.TransferFactoryV1, l.world.externalPartyAmuletRulesCid, 'TransferFactory_Transfer', transferArgOf(l, [cid]))];
      if (interactive) {
        // the Amulet payload is encoded with its LF types (Numeric, Int64 round number)
        const p = await prepare((path, i) => l.app.request(path, i), prepareBody([l.alice], cmd, { disclosedContracts: l.ctx().disclosed }));
        const input = inputContracts(decodePreparedTransaction(p.preparedTransaction)).find((c) => c.contractId === cid)!;
        const amount = field(input.argument, 'amount');
        expect(field(amount, 'initialAmount').sum).toEqual({ oneofKind: 'numeric', numeric: '100.0000000000' });
        expect(field(field(amount, 'createdAt'), 'number').sum).toEqual({ oneofKind: 'int64', int64: '1' });
      }
      const events = interactive
        ? (await viaInteractive((p, i) => l.app.request(p, i), registerExternal(l.engine, l.alice), cmd, l.ctx().disclosed)).events
        : transactionOf((await l.client.submit([l.alice], cmd, l.ctx().disclosed)).body).events;
      return { events, locked: await l.client.balance(l.alice, true), end: l.engine.ledgerEnd() };
    };
    const normal = await run(false);
    const isub = await run(true);
    expect(trace(isub.events)).toEqual(trace(normal.events));
    expect(isub.locked).toBe(normal.locked);
    expect(isub.end).toBe(normal.end);
    // the same result, up to the contract ids (the id generator also drew node seeds and a uuid)
    const noCids = (v: unknown) => JSON.stringify(v).replace(/00[0-9a-f]{64}ca10[0-9a-f]{68}/g, '<cid>');
    expect(noCids(exercisedEvent(isub.events[0]).exerciseResult)).toBe(noCids(exercisedEvent(normal.events[0]).exerciseResult));
    expect(noCids(exercisedEvent(isub.events[0]).exerciseResult)).toContain('TransferInstructionResult_Pending');
  });

  it('a transfer signed after its open round closed is rejected: LOCAL_VERDICT_INACTIVE_CONTRACTS', async () => {
    const l = amuletLedger();
    const cid = l.tap(l.alice, '100');
    const key = registerExternal(l.engine, l.alice);
    const request: Requester = (p, i) => l.app.request(p, i);
    const cmd = [exercise(IFACE.TransferFactoryV1, l.world.externalPartyAmuletRulesCid, 'TransferFactory_Transfer', transferArgOf(l, [cid]))];
    const prepared = await prepare(request, prepareBody([l.alice], cmd, { disclosedContracts: l.ctx().disclosed }));
    // two ticks later the rounds have advanced twice (lazy automation, one round per run): the
    // first run by a tap, the second by the execute itself, which archives the round it used
    l.clock.advance(TICK_MS);
    l.tap(l.bob, '1');
    l.clock.advance(TICK_MS);
    const r = await post(request, '/v2/interactive-submission/executeAndWait', executeBody(prepared, [key]));
    expect([r.status, cantonError(r.body).code]).toEqual([409, 'LOCAL_VERDICT_INACTIVE_CONTRACTS']);
    expect(l.engine.contracts.getActive(cid)).toBeDefined();
  });
});
