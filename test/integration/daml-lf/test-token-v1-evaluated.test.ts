/**
 * TestTokenV1 run by the Daml-LF evaluator (TEMPLATE_ENGINE=daml, DARS_DIR = the Splice DARs),
 * over real loopback HTTP: the token's own Daml code, not the native implementation, answers the
 * same wallet flows and failures as tests/integration/test-token-v1/flows.test.ts expects of the
 * native one.
 */
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';
import { ManualClock } from '../../../src/canton/clock.js';
import {
  EMPTY_EXTRA_ARGS,
  TRANSFER_FACTORY_V1,
  TRANSFER_INSTRUCTION_V1,
  Tt1Client,
  eventSummary,
  type Disclosed,
  type Result,
} from '../../unit/emulator/templates/test-token-v1/tt1-client.js';
import { exercisedOf, type PendingTransfer, type TransferInstructionResult } from '../../unit/emulator/templates/wire.js';
import { mintOverHttp, setupWorldOverHttp, transferArg, type World } from '../../unit/emulator/templates/test-token-v1/tt1-scenario.js';
import { SHARED_DARS_DIR } from '../../support/shared-dars.js';

// DARS_DIR with just the token's DAR (it brings the token-standard APIs along): quicker to start
const DARS_DIR = mkdtempSync(join(tmpdir(), 'dars-tt1-'));
symlinkSync(join(SHARED_DARS_DIR, 'splice-test-token-v1-1.0.0.dar'), join(DARS_DIR, 'splice-test-token-v1-1.0.0.dar'));

let emu: RunningEmulator;
let clock: ManualClock;
let client: Tt1Client;

beforeAll(async () => {
  clock = new ManualClock('2026-03-01T12:00:00Z');
  emu = await startEmulator({ config: { port: 0, demoWorld: false, logLevel: 'silent', templateEngine: 'daml', darsDir: DARS_DIR }, clock });
  client = new Tt1Client((path, init) => fetch(emu.ledgerUrl + path, init));
});

afterAll(async () => {
  await emu?.close();
  rmSync(DARS_DIR, { recursive: true, force: true });
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
const instruction = (actAs: string[], cid: string, choice: string) =>
  client.submit(actAs, [{ ExerciseCommand: { templateId: TRANSFER_INSTRUCTION_V1, contractId: cid, choice, choiceArgument: { extraArgs: EMPTY_EXTRA_ARGS } } }]);

/** The root exercise result of a successful submission, as the LF JSON shape `R` the test expects. */
function rootResult<R>(r: Result): R {
  return exercisedOf(r.transaction.events[0]).exerciseResult as R;
}

describe('TestTokenV1 evaluated from its DAR (TEMPLATE_ENGINE=daml)', () => {
  it('registers the DAR templates as evaluated templates', () => {
    expect(emu.engine.templates.templateByNameKey('splice-test-token-v1:Splice.Testing.Tokens.TestTokenV1:Token')?.kind).toBe('daml');
  });

  it('mint → transfer offer → accept', async () => {
    const t1 = await mint(w.alice, '100');
    const hs = await client.holdings(w.alice);
    expect(hs[0]!.view).toEqual({ owner: w.alice, instrumentId: w.instrument, amount: '100.0000000000', lock: null, meta: { values: {} } });
    const start = await client.ledgerEnd();
    const r = await factoryTransfer([w.alice], transferArg(clock, w, { sender: w.alice, receiver: w.bob, amount: '30', inputs: [t1] }));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const offerCid = rootResult<TransferInstructionResult<PendingTransfer>>(r).output.value.transferInstructionCid;
    expect(await client.balance(w.alice, w.instrument)).toEqual({ unlocked: '70.0000000000', locked: '30.0000000000', count: 2 });
    const accepted = await instruction([w.bob], offerCid, 'TransferInstruction_Accept');
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(rootResult<TransferInstructionResult>(accepted).output.tag).toBe('TransferInstructionResult_Completed');
    expect((await client.balance(w.alice, w.instrument)).unlocked).toBe('70.0000000000');
    expect((await client.balance(w.bob, w.instrument)).unlocked).toBe('30.0000000000');
    const updates = (await client.updates(w.alice, start)).map(eventSummary);
    expect(updates[1]).toEqual(['archive TokenTransferOffer.TransferInstruction_Accept', 'create Token']);
  });

  it('the wrong controller is refused, and a double spend fails, with the errors of a participant', async () => {
    const t1 = await mint(w.alice, '10');
    const ok = await factoryTransfer([w.alice], transferArg(clock, w, { sender: w.alice, receiver: w.bob, amount: '4', inputs: [t1] }));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const offerCid = rootResult<TransferInstructionResult<PendingTransfer>>(ok).output.value.transferInstructionCid;
    const end = await client.ledgerEnd();
    // the receiver cannot withdraw (the sender controls it)
    const byBob = await instruction([w.bob], offerCid, 'TransferInstruction_Withdraw');
    expect(byBob.status).toBe(400);
    expect(byBob.error.code).toBe('DAML_AUTHORIZATION_ERROR');
    // the spent input cannot be spent again
    const again = await factoryTransfer([w.alice], transferArg(clock, w, { sender: w.alice, receiver: w.bob, amount: '4', inputs: [t1] }));
    expect(again.status).toBe(404);
    expect(again.error.code).toBe('CONTRACT_NOT_FOUND');
    // the same input twice in one instruction
    const change = rootResult<TransferInstructionResult>(ok).senderChangeCids[0]!;
    const twice = await factoryTransfer([w.alice], transferArg(clock, w, { sender: w.alice, receiver: w.bob, amount: '5', inputs: [change, change] }));
    expect(twice.error.code).toBe('CONTRACT_NOT_ACTIVE');
    // a Daml assertion of the token's own code: the wrong instrument
    const other = await mint(w.alice, '10', 'Y1');
    const wrongInstrument = await factoryTransfer([w.alice], transferArg(clock, w, { sender: w.alice, receiver: w.bob, amount: '5', inputs: [other] }));
    expect(wrongInstrument.error.code).toBe('DAML_FAILURE');
    expect(wrongInstrument.error.cause).toContain("'holding.instrumentId' is not equal to 'expected value'.");
    expect(await client.ledgerEnd()).toBe(end + 1);
  });
});
