/**
 * Two participants on one emulated synchronizer, over real loopback HTTP: each has its own
 * parties, users and offsets; a transaction reaches every participant hosting one of its
 * informees (at that participant's own offset, same update id); a party hosted on one
 * participant is invisible on the other; a party hosted on both (submission on one, observation
 * on the other) sees the same transactions on both and can submit only where it may.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';
import { ManualClock } from '../../../src/canton/clock.js';
import { registerTestTokenV1, testTokenV1TemplateId } from '../../../src/emulator/templates/test-token-v1/index.js';
import { EMPTY_EXTRA_ARGS, TOKEN, TRANSFER_FACTORY_V1, TRANSFER_INSTRUCTION_V1, Tt1Client, type Disclosed } from '../../unit/emulator/templates/test-token-v1/tt1-client.js';
import { transferArg, type World } from '../../unit/emulator/templates/test-token-v1/tt1-scenario.js';
import { SPECS, createSpecValidator, expectConformant } from '../../support/openapi-conformance.js';
import { createdOf, exercisedOf, type PendingTransfer, type TransferInstructionResult } from '../../unit/emulator/templates/wire.js';
import { GetConnectedSynchronizersResponseSchema, GetLedgerEndResponseSchema } from '../../../src/ledger-client/schemas/events.js';
import { GetParticipantIdResponseSchema, GetPartiesResponseSchema, ListKnownPartiesResponseSchema } from '../../../src/ledger-client/schemas/parties.js';

let emu: RunningEmulator;
let clock: ManualClock;
let p1: Tt1Client;
let p2: Tt1Client;
let url1: string;
let url2: string;

async function get(url: string): Promise<unknown> {
  const r = await fetch(url);
  expect(r.status, url).toBe(200);
  return r.json();
}
async function post(url: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const r = await fetch(url, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  return { status: r.status, body: await r.json() };
}
const ledgerEnd = async (url: string): Promise<number> => GetLedgerEndResponseSchema.parse(await get(`${url}/v2/state/ledger-end`)).offset;

/** The fields of the raw (unparsed) wire answers these tests read. */
interface WitnessedEvent {
  witnessParties: string[];
}
interface RawTransaction {
  offset: number;
  events: Array<{ CreatedEvent?: WitnessedEvent; ExercisedEvent?: WitnessedEvent }>;
}
type RawUpdates = Array<{ update: { Transaction: { value: RawTransaction } } }>;
type RawActiveContracts = Array<{ contractEntry: { JsActiveContract: { createdEvent: WitnessedEvent } } }>;
type RawCompletions = Array<{ completionResponse: { Completion: { value: { updateId: string } } } }>;

/** Every transaction of the participant, through a party-wildcard (admin) read. */
async function allUpdates(url: string): Promise<RawTransaction[]> {
  const end = await ledgerEnd(url);
  const r = await post(`${url}/v2/updates`, {
    beginExclusive: 0,
    endInclusive: end,
    updateFormat: { includeTransactions: { eventFormat: { filtersForAnyParty: { cumulative: [] }, verbose: true }, transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS' } },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return (r.body as RawUpdates).map((u) => u.update.Transaction.value);
}

beforeAll(async () => {
  clock = new ManualClock('2026-03-01T12:00:00Z');
  emu = await startEmulator({
    config: {
      port: 0,
      participant2Port: 0,
      participants: 2,
      demoWorld: false,
      logLevel: 'silent',
    },
    clock,
  });
  for (const p of emu.participants) registerTestTokenV1(p.engine.templates);
  [url1, url2] = emu.ledgerUrls as [string, string];
  p1 = new Tt1Client((path, init) => fetch(url1 + path, init));
  p2 = new Tt1Client((path, init) => fetch(url2 + path, init));
});

afterAll(async () => {
  await emu?.close();
});

describe('two participants on one synchronizer', () => {
  let w: World;
  let carol: string;
  let rules: Disclosed;

  beforeAll(async () => {
    const admin = await p1.allocateParty('admin');
    const created = await p1.submit([admin], [{ CreateCommand: { templateId: testTokenV1TemplateId('TokenRules'), createArguments: { admin } } }]);
    expect(created.status).toBe(200);
    w = {
      admin,
      alice: await p1.allocateParty('alice'),
      bob: await p1.allocateParty('bob'),
      executor: await p1.allocateParty('executor'),
      mallory: await p1.allocateParty('mallory'),
      rulesCid: createdOf(created.transaction.events[0]).contractId,
      instrument: { admin, id: 'X1' },
    };
    carol = await p2.allocateParty('carol');
    rules = await p1.disclosedRules(admin);
  });

  it('participant ids, and /v2/parties as each participant sees the synchronizer', async () => {
    const id1 = GetParticipantIdResponseSchema.parse(await get(`${url1}/v2/parties/participant-id`)).participantId;
    const id2 = GetParticipantIdResponseSchema.parse(await get(`${url2}/v2/parties/participant-id`)).participantId;
    expect(id1).toMatch(/^participant1::1220[0-9a-f]{64}$/);
    expect(id2).toMatch(/^participant2::1220[0-9a-f]{64}$/);
    expect(carol.split('::')[1]).toBe(id2.split('::')[1]);
    const on1 = ListKnownPartiesResponseSchema.parse(await get(`${url1}/v2/parties?pageSize=1000`)).partyDetails;
    const on2 = ListKnownPartiesResponseSchema.parse(await get(`${url2}/v2/parties?pageSize=1000`)).partyDetails;
    const local = (list: typeof on1, party: string) => list.find((p) => p.party === party)?.isLocal;
    expect([local(on1, w.alice), local(on2, w.alice)]).toEqual([true, false]);
    expect([local(on1, carol), local(on2, carol)]).toEqual([false, true]);
    // a remote party has no local record
    expect(on2.find((p) => p.party === w.alice)?.localMetadata.resourceVersion).toBe('');
    const sync = async (url: string, party: string, participantId = '') =>
      GetConnectedSynchronizersResponseSchema.parse(
        await get(`${url}/v2/state/connected-synchronizers?party=${encodeURIComponent(party)}&participantId=${encodeURIComponent(participantId)}`),
      ).connectedSynchronizers;
    expect((await sync(url1, w.alice))[0]?.permission).toBe('PARTICIPANT_PERMISSION_SUBMISSION');
    expect(await sync(url2, w.alice)).toEqual([]);
    expect((await sync(url1, carol, id2))[0]?.permission).toBe('PARTICIPANT_PERMISSION_SUBMISSION');
  });

  it('a transfer from a party on participant1 to a party on participant2, accepted on participant2', async () => {
    const holding = { owner: w.alice, instrumentId: w.instrument, amount: '100', lock: null, meta: { values: {} } };
    const minted = await p1.submit([w.alice, w.admin], [{ CreateCommand: { templateId: TOKEN, createArguments: { holding } } }]);
    expect(minted.status).toBe(200);
    const t1 = createdOf(minted.transaction.events[0]).contractId;
    const end2Before = await ledgerEnd(url2);
    // The mint has no informee on participant2: it never reaches it.
    expect(await p2.updates(carol, 0)).toEqual([]);

    const offer = await p1.submit(
      [w.alice],
      [{ ExerciseCommand: { templateId: TRANSFER_FACTORY_V1, contractId: w.rulesCid, choice: 'TransferFactory_Transfer', choiceArgument: transferArg(clock, w, { sender: w.alice, receiver: carol, amount: '30', inputs: [t1] }) } }],
      [rules],
    );
    expect(offer.status, JSON.stringify(offer.body)).toBe(200);
    const offerResult = exercisedOf(offer.transaction.events[0]).exerciseResult as TransferInstructionResult<PendingTransfer>;
    const offerCid = offerResult.output.value.transferInstructionCid;

    // participant2 got the transaction at its own next offset, same update id, no command id
    const seen = await p2.updates(carol, end2Before);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.updateId).toBe(offer.transaction.updateId);
    expect(seen[0]?.offset).toBe(end2Before + 1);
    expect(seen[0]?.commandId).toBe('');
    expect(seen[0]?.events.map((e) => Object.keys(e)[0])).toEqual(['CreatedEvent']);
    const pending = await p2.acs(carol, { InterfaceFilter: { value: { interfaceId: TRANSFER_INSTRUCTION_V1, includeInterfaceView: false, includeCreatedEventBlob: false } } });
    expect(pending.map((p) => p.createdEvent.contractId)).toEqual([offerCid]);

    // carol accepts through her own participant
    const accepted = await p2.submit([carol], [{ ExerciseCommand: { templateId: TRANSFER_INSTRUCTION_V1, contractId: offerCid, choice: 'TransferInstruction_Accept', choiceArgument: { extraArgs: EMPTY_EXTRA_ARGS } } }]);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(await p2.balance(carol, w.instrument)).toEqual({ unlocked: '30.0000000000', locked: '0.0000000000', count: 1 });
    // ... and participant1 (hosting the admin and alice) has the accept too
    expect(await p1.balance(w.alice, w.instrument)).toEqual({ unlocked: '70.0000000000', locked: '0.0000000000', count: 1 });
    const onP1 = (await p1.updates(w.alice, 0)).map((t) => t.updateId);
    expect(onP1).toContain(accepted.transaction.updateId);
    // carol's holding is on participant2 and on participant1 (the admin is a stakeholder), alice sees none of it on participant2
    expect(await p2.holdings(w.alice)).toEqual([]);
    expect(await p2.updates(w.alice, 0)).toEqual([]);

    // completions only where the command was submitted
    const completions = async (url: string, user: string, parties: string[]) =>
      (await post(`${url}/v2/commands/completions`, { userId: user, parties, beginExclusive: 0 })).body as RawCompletions;
    expect((await completions(url2, 'tt1-tester', [carol])).map((c) => c.completionResponse.Completion.value.updateId)).toEqual([accepted.transaction.updateId]);
    expect(await completions(url1, 'tt1-tester', [carol])).toEqual([]);
  });

  it('a party-wildcard read on one participant shows only what its parties see', async () => {
    const on2 = await allUpdates(url2);
    for (const tx of on2) {
      for (const e of tx.events) {
        const ev = e.CreatedEvent ?? e.ExercisedEvent;
        if (!ev) throw new Error(`neither a created nor an exercised event: ${JSON.stringify(e)}`);
        expect(ev.witnessParties.every((p: string) => p.split('::')[1] === carol.split('::')[1]), JSON.stringify(ev)).toBe(true);
      }
    }
    const offsets = on2.map((t) => t.offset);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    const acs = await post(`${url2}/v2/state/active-contracts`, {
      eventFormat: { filtersForAnyParty: { cumulative: [] }, verbose: false },
      activeAtOffset: await ledgerEnd(url2),
    });
    const stakeholders = (acs.body as RawActiveContracts).map((x) => x.contractEntry.JsActiveContract.createdEvent.witnessParties);
    expect(stakeholders.length).toBeGreaterThan(0);
    for (const ws of stakeholders) expect(ws).toEqual([carol]);
  });

  it("participant2's answers conform to the JSON Ledger API 3.5 spec", async () => {
    const v = createSpecValidator(SPECS.ledgerApi35);
    const end = await ledgerEnd(url2);
    const checks: Array<[string, string, unknown?]> = [
      ['GET', '/v2/parties/participant-id'],
      ['GET', '/v2/parties'],
      ['GET', `/v2/parties/${encodeURIComponent(w.alice)}`],
      ['GET', `/v2/parties/${encodeURIComponent(carol)}`],
      ['GET', `/v2/state/connected-synchronizers?party=${encodeURIComponent(carol)}`],
      ['GET', '/v2/state/ledger-end'],
      ['POST', '/v2/updates', { beginExclusive: 0, endInclusive: end, updateFormat: { includeTransactions: { eventFormat: { filtersForAnyParty: { cumulative: [] }, verbose: true }, transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS' } } }],
      ['POST', '/v2/state/active-contracts', { eventFormat: { filtersByParty: { [carol]: { cumulative: [] } }, verbose: true }, activeAtOffset: end }],
      ['POST', '/v2/commands/completions', { userId: 'tt1-tester', parties: [carol], beginExclusive: 0 }],
    ];
    for (const [method, path, body] of checks) {
      const r = await fetch(url2 + path, { method, body: body === undefined ? undefined : JSON.stringify(body), headers: { 'content-type': 'application/json' } });
      expect(r.status, path).toBe(200);
      await expectConformant(v, r, method, path);
    }
  });

  it('a party hosted elsewhere cannot submit here; a disclosed contract of the other participant can be used', async () => {
    const r = await p2.submit([w.alice], [{ CreateCommand: { templateId: TOKEN, createArguments: { holding: { owner: w.alice, instrumentId: w.instrument, amount: '1', lock: null, meta: { values: {} } } } } }]);
    expect(r.status).toBe(404);
    expect(r.error.code).toBe('NO_SYNCHRONIZER_ON_WHICH_ALL_SUBMITTERS_CAN_SUBMIT');
    expect(r.error.cause).toBe('This participant cannot submit as the given submitter on any connected synchronizer');

    // carol self-transfers through the admin's TokenRules, which participant2 does not store: disclosed
    const mine = (await p2.holdings(carol)).map((h) => h.contractId);
    expect(emu.participants[1]!.engine.contracts.get(w.rulesCid)).toBeUndefined();
    const withoutRules = await p2.submit(
      [carol],
      [{ ExerciseCommand: { templateId: TRANSFER_FACTORY_V1, contractId: w.rulesCid, choice: 'TransferFactory_Transfer', choiceArgument: transferArg(clock, w, { sender: carol, receiver: carol, amount: '10', inputs: mine }) } }],
    );
    expect(withoutRules.error.code).toBe('CONTRACT_NOT_FOUND');
    const self = await p2.submit(
      [carol],
      [{ ExerciseCommand: { templateId: TRANSFER_FACTORY_V1, contractId: w.rulesCid, choice: 'TransferFactory_Transfer', choiceArgument: transferArg(clock, w, { sender: carol, receiver: carol, amount: '10', inputs: mine }) } }],
      [rules],
    );
    expect(self.status, JSON.stringify(self.body)).toBe(200);
    expect(await p2.balance(carol, w.instrument)).toEqual({ unlocked: '30.0000000000', locked: '0.0000000000', count: 2 });
  });
});

describe('a party hosted on both participants', () => {
  it('is created by the demo world with hostedOn, sees the same transactions on both, and submits only where it may', async () => {
    const clock2 = new ManualClock('2026-03-01T12:00:00Z');
    const stack = await startEmulator({
      config: { port: 0, participant2Port: 0, participants: 2, logLevel: 'silent' },
      clock: clock2,
      world: {
        parties: [
          { hint: 'admin', role: 'admin' },
          { hint: 'alice', role: 'holder' },
          { hint: 'dana', role: 'observed holder', hostedOn: [{ participant: 'participant2', permission: 'Observation' }] },
        ],
        instruments: [{ token: 'splice-test-token-v1', admin: 'admin', id: 'TT1', name: 'T', symbol: 'T', decimals: 10, holdings: [{ owner: 'alice', amount: '10' }, { owner: 'dana', amount: '5' }] }],
      },
    });
    try {
      const [a, b] = stack.ledgerUrls as [string, string];
      const dana = stack.seeded!.parties.find((p) => p.hint === 'dana')!.party;
      const q1 = new Tt1Client((path, init) => fetch(a + path, init));
      const q2 = new Tt1Client((path, init) => fetch(b + path, init));
      const on1 = (await q1.updates(dana, 0)).map((t) => t.updateId);
      const on2 = (await q2.updates(dana, 0)).map((t) => t.updateId);
      expect(on1.length).toBeGreaterThan(0);
      expect(on2).toEqual(on1);
      expect(await q2.balance(dana)).toEqual(await q1.balance(dana));
      const parties2 = GetPartiesResponseSchema.parse(await get(`${b}/v2/parties/${encodeURIComponent(dana)}`)).partyDetails;
      expect(parties2[0]?.isLocal).toBe(true);
      const syncPath = `/v2/state/connected-synchronizers?party=${encodeURIComponent(dana)}`;
      const syncAnswer = await fetch(b + syncPath);
      await expectConformant(createSpecValidator(SPECS.ledgerApi35), syncAnswer, 'GET', syncPath);
      const perm = GetConnectedSynchronizersResponseSchema.parse(await syncAnswer.json()).connectedSynchronizers[0]?.permission;
      expect(perm).toBe('PARTICIPANT_PERMISSION_OBSERVATION');
      const holding = { owner: dana, instrumentId: { admin: stack.seeded!.instruments[0]!.adminParty, id: 'TT1' }, amount: '1', lock: null, meta: { values: {} } };
      const denied = await q2.submit([dana], [{ CreateCommand: { templateId: TOKEN, createArguments: { holding } } }]);
      expect(denied.error.code).toBe('NO_SYNCHRONIZER_ON_WHICH_ALL_SUBMITTERS_CAN_SUBMIT');
    } finally {
      await stack.close();
    }
  });

  it('a demo world naming a participant that is not running is refused with a clear message', async () => {
    await expect(
      startEmulator({ config: { port: 0, logLevel: 'silent' }, world: { parties: [{ hint: 'x', role: '', hostedOn: [{ participant: 'participant2', permission: 'Observation' }] }], instruments: [] } }),
    ).rejects.toThrow(/hosted on participant2, which is not running .*PARTICIPANTS=2/);
  });
});
