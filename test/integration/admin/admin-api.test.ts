/**
 * The emulator's admin API over real sockets, as a Java or Python suite uses it between tests:
 * snapshot → changes → restore gives back exactly the snapshot's ledger end, ACS, parties and
 * balances on both participants; reset; the clock expires a TT1 transfer offer; fund; bad input
 * changes nothing. Every response is validated against the API's own OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { ManualClock } from '../../../src/canton/clock.js';
import { DEFAULT_DEMO_WORLD, type DemoWorld } from '../../../src/emulator/world/seed.js';
import { startStack, type RunningStack } from '../../../src/stack.js';
import { AdminClient } from '../../../src/testcontainers/admin-client.js';
import { createServedSpecValidator, expectConformant, type SpecValidator } from '../../support/openapi-conformance.js';
import { EXPLORER_OPERATIONS } from './explorer-operations.js';
import { EMPTY_EXTRA_ARGS, TRANSFER_FACTORY_V1, TRANSFER_INSTRUCTION_V1, Tt1Client } from '../../unit/emulator/templates/test-token-v1/tt1-client.js';

// bob is hosted on both participants, so TT1 transfers to him reach participant2's ledger too.
const WORLD: DemoWorld = {
  ...DEFAULT_DEMO_WORLD,
  parties: DEFAULT_DEMO_WORLD.parties.map((p) => (p.hint === 'bob' ? { ...p, hostedOn: [{ participant: 'participant2', permission: 'Submission' }] } : p)),
};

let stack: RunningStack;
let spec: SpecValidator;
let client: Tt1Client;
let initial: WorldView;

interface Answer {
  status: number;
  body: unknown;
}

/** One admin call; its response must conform to the admin API's own OpenAPI document. */
async function admin(method: 'GET' | 'POST', path: string, body?: unknown, raw?: { body: string; contentType?: string }): Promise<Answer> {
  const headers: Record<string, string> = {};
  let payload: string | undefined;
  if (raw) {
    payload = raw.body;
    if (raw.contentType) headers['content-type'] = raw.contentType;
  } else if (body !== undefined) {
    payload = JSON.stringify(body);
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(`${stack.adminUrl}${path}`, { method, headers, body: payload });
  const parsed = await expectConformant(spec, res, method, path);
  return { status: res.status, body: parsed };
}

function field<T>(a: Answer, name: string): T {
  return (a.body as Record<string, T>)[name]!;
}

async function ledgerJson(url: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${url}${path}`, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
  return res.json();
}

interface WorldView {
  ends: number[];
  acs: string[][];
  parties: string[][];
  balances: unknown[];
}

/** What a client can see of the world: each participant's ledger end, ACS and parties, and alice's and bob's balances. */
async function view(): Promise<WorldView> {
  const ends: number[] = [];
  const acs: string[][] = [];
  const parties: string[][] = [];
  for (const p of stack.participants) {
    const end = ((await ledgerJson(p.ledgerUrl, '/v2/state/ledger-end')) as { offset: number }).offset;
    ends.push(end);
    const rows = (await ledgerJson(p.ledgerUrl, '/v2/state/active-contracts', {
      eventFormat: { filtersForAnyParty: { cumulative: [] }, verbose: false },
      activeAtOffset: end,
    })) as Array<{ contractEntry: { JsActiveContract: { createdEvent: { contractId: string } } } }>;
    acs.push(rows.map((r) => r.contractEntry.JsActiveContract.createdEvent.contractId).sort());
    const listed = (await ledgerJson(p.ledgerUrl, '/v2/parties')) as { partyDetails: Array<{ party: string }> };
    parties.push(listed.partyDetails.map((d) => d.party).sort());
  }
  const balances = [];
  for (const who of ['alice', 'bob']) balances.push(field(await admin('GET', `/admin/v1/holdings?party=${who}`), 'balances'));
  return { ends, acs, parties, balances };
}

const party = (hint: string) => stack.seeded!.parties.find((p) => p.hint === hint)!.party;

async function holdingOf(owner: string, instrument: string): Promise<string> {
  const h = await admin('GET', `/admin/v1/holdings?party=${owner}`);
  const line = field<Array<{ contractId: string; instrument: { id: string }; locked: boolean }>>(h, 'holdings').find((x) => x.instrument.id === instrument && !x.locked);
  if (!line) throw new Error(`${owner} has no unlocked ${instrument} holding`);
  return line.contractId;
}

/** A TT1 transfer offer alice → bob (bob has no pre-approval: the transfer waits for his accept). */
async function offerTt1(amount: string, executeBefore: string): Promise<string> {
  const tokenAdmin = party('token-admin');
  const rules = await client.disclosedRules(tokenAdmin);
  const now = field<string>(await admin('GET', '/admin/v1/clock'), 'now');
  const arg = {
    expectedAdmin: tokenAdmin,
    transfer: {
      sender: party('alice'),
      receiver: party('bob'),
      amount,
      instrumentId: { admin: tokenAdmin, id: 'TT1' },
      requestedAt: now,
      executeBefore,
      inputHoldingCids: [await holdingOf('alice', 'TT1')],
      meta: { values: {} },
    },
    extraArgs: EMPTY_EXTRA_ARGS,
  };
  const r = await client.submit([party('alice')], [{ ExerciseCommand: { templateId: TRANSFER_FACTORY_V1, contractId: rules.contractId, choice: 'TransferFactory_Transfer', choiceArgument: arg } }], [rules]);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const root = r.transaction.events.find((e) => e.ExercisedEvent?.nodeId === 0)!.ExercisedEvent!;
  const output = (root.exerciseResult as { output: { tag: string; value: { transferInstructionCid?: string } } }).output;
  expect(output.tag).toBe('TransferInstructionResult_Pending');
  return output.value.transferInstructionCid!;
}

beforeAll(async () => {
  stack = await startStack({
    config: { port: 0, participant2Port: 0, participants: 2, logLevel: 'silent', world: WORLD },
    clock: new ManualClock('2026-03-01T12:00:00Z'),
    registryPort: 0,
    scanPort: 0,
    validatorPort: 0,
    adminPort: 0,
  });
  spec = await createServedSpecValidator(`${stack.adminUrl}/admin/openapi.json`);
  client = new Tt1Client((path, init) => fetch(stack.ledgerUrl + path, init));
  initial = await view();
});

afterAll(async () => {
  await stack?.close();
});

describe('admin API: snapshots', () => {
  it('snapshot → transfers → restore gives back the ledger end, ACS, parties and balances of both participants', async () => {
    const snap = await admin('POST', '/admin/v1/snapshots');
    expect(snap.status).toBe(200);
    const id = field<string>(snap, 'id');
    const before = await view();
    expect(field<number[]>(snap, 'ledgerEnds')).toEqual(before.ends);

    // Changes on both participants: a TT1 offer to bob (hosted on both), mints, a new party on participant2.
    await offerTt1('10', '2026-03-02T12:00:00Z');
    expect((await admin('POST', '/admin/v1/mint', { instrument: 'TT2-USD', owner: 'bob', amount: '42.5' })).status).toBe(200);
    expect((await admin('POST', '/admin/v1/mint', { instrument: 'Amulet', owner: 'alice', amount: '7' })).status).toBe(200);
    await ledgerJson(stack.participants[1]!.ledgerUrl, '/v2/parties', { partyIdHint: 'carol', identityProviderId: '' });
    const changed = await view();
    expect(changed.ends[0]).toBeGreaterThan(before.ends[0]!);
    expect(changed.ends[1]).toBeGreaterThan(before.ends[1]!);
    expect(changed.parties[1]).not.toEqual(before.parties[1]);
    expect(changed.balances).not.toEqual(before.balances);

    const restored = await admin('POST', `/admin/v1/snapshots/${id}/restore`);
    expect(restored.status).toBe(200);
    expect(field<number[]>(restored, 'ledgerEnds')).toEqual(before.ends);
    expect(await view()).toEqual(before);

    // The snapshot stays usable: change again, restore again.
    await admin('POST', '/admin/v1/mint', { instrument: 'TT1', owner: 'alice', amount: '1' });
    await admin('POST', `/admin/v1/snapshots/${id}/restore`);
    expect(await view()).toEqual(before);

    // The restored ledger takes commands at once; its offsets continue from the snapshot's end.
    const minted = await admin('POST', '/admin/v1/mint', { instrument: 'TT1', owner: 'alice', amount: '1' });
    expect(minted.status).toBe(200);
    expect((await view()).ends[0]).toBe(before.ends[0]! + 1);
    // the registry followed the restore: it still hands out TT1's factory
    const factory = await fetch(`${stack.registryUrl}/registry/transfer-instruction/v1/transfer-factory`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ choiceArguments: { expectedAdmin: party('token-admin'), transfer: { instrumentId: { admin: party('token-admin'), id: 'TT1' } } }, excludeDebugFields: true }),
    });
    expect(factory.status).not.toBe(503);
  });

  it('a contract archived after the snapshot is live again in the registry after the restore', async () => {
    const offer = await offerTt1('2', '2026-03-02T12:00:00Z');
    const id = field<string>(await admin('POST', '/admin/v1/snapshots'), 'id');
    const acceptContext = () =>
      fetch(`${stack.registryUrl}/registry/transfer-instruction/v1/${offer}/choice-contexts/accept`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
    expect((await acceptContext()).status).toBe(200);
    const accepted = await client.submit([party('bob')], [{ ExerciseCommand: { templateId: TRANSFER_INSTRUCTION_V1, contractId: offer, choice: 'TransferInstruction_Accept', choiceArgument: { extraArgs: EMPTY_EXTRA_ARGS } } }]);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect((await acceptContext()).status).toBe(404);
    await admin('POST', `/admin/v1/snapshots/${id}/restore`);
    // the registry must not remember the archive of a timeline the restore discarded
    expect((await acceptContext()).status).toBe(200);
  });

  it('an open ledger websocket stream ends with SERVICE_NOT_RUNNING at a restore', async () => {
    const id = field<string>(await admin('POST', '/admin/v1/snapshots'), 'id');
    const ws = new WebSocket(`${stack.ledgerUrl.replace('http', 'ws')}/v2/updates`, ['daml.ws.auth']);
    const frames: string[] = [];
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    ws.on('message', (d) => frames.push(String(d)));
    await new Promise<void>((resolve) => ws.on('open', () => resolve()));
    const end = stack.engine.ledgerEnd();
    ws.send(JSON.stringify({ beginExclusive: end, updateFormat: { includeTransactions: { eventFormat: { filtersForAnyParty: { cumulative: [] }, verbose: false }, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' } } }));
    // the stream is open once the server subscribed it
    for (let i = 0; i < 200 && stack.participants[0]!.ledgerStreams.size === 0; i++) await new Promise((r) => setTimeout(r, 10));
    await admin('POST', `/admin/v1/snapshots/${id}/restore`);
    expect(await closed).toBe(1000);
    expect(frames.at(-1)).toContain('SERVICE_NOT_RUNNING');
  });

  it('reset goes back to the world the stack started with', async () => {
    await admin('POST', '/admin/v1/mint', { instrument: 'TT2-EUR', owner: 'bob', amount: '3' });
    await admin('POST', '/admin/v1/clock/advance', { seconds: 60 });
    expect(await view()).not.toEqual(initial);
    const reset = await admin('POST', '/admin/v1/reset');
    expect(reset.status).toBe(200);
    expect(await view()).toEqual(initial);
    expect(field<number>(await admin('GET', '/admin/v1/clock'), 'skewSeconds')).toBe(0);
  });
});

describe('admin API: clock, mint, fund', () => {
  it('advancing the clock expires a TT1 transfer offer: its accept then fails as the ledger says', async () => {
    const now = Date.parse(field<string>(await admin('GET', '/admin/v1/clock'), 'now'));
    const offer = await offerTt1('5', new Date(now + 3600_000).toISOString());
    const advanced = await admin('POST', '/admin/v1/clock/advance', { seconds: 7200 });
    expect(advanced.status).toBe(200);
    expect(Date.parse(field<string>(advanced, 'now'))).toBe(now + 7200_000);
    const late = await client.submit([party('bob')], [{ ExerciseCommand: { templateId: TRANSFER_INSTRUCTION_V1, contractId: offer, choice: 'TransferInstruction_Accept', choiceArgument: { extraArgs: EMPTY_EXTRA_ARGS } } }]);
    expect(late.status).toBe(400);
    expect(late.error.code).toBe('DAML_FAILURE');
    expect(late.error.context.error_id).toBe('stdlib.daml.com/deadline-exceeded');
  });

  it('mint answers the holding and its update; fund tops up to a balance, then mints nothing', async () => {
    const minted = await admin('POST', '/admin/v1/mint', { instrument: 'TT1', owner: party('alice'), amount: '100' });
    expect(minted.status).toBe(200);
    expect(field<string>(minted, 'updateId')).toMatch(/^1220[0-9a-f]{64}$/);
    const h = await admin('GET', `/admin/v1/holdings?party=alice`);
    expect(field<Array<{ contractId: string }>>(h, 'holdings').map((x) => x.contractId)).toContain(field<string>(minted, 'contractId'));

    const funded = await admin('POST', '/admin/v1/fund', { owner: 'bob', instrument: 'TT2-USD', atLeast: '5000' });
    expect(funded.status).toBe(200);
    expect(field<string>(funded, 'balance')).toBe('5000.0000000000');
    expect(field<unknown>(funded, 'minted')).not.toBeNull();
    const again = await admin('POST', '/admin/v1/fund', { owner: 'bob', instrument: 'TT2-USD', atLeast: '1000' });
    expect(field<string>(again, 'balance')).toBe('5000.0000000000');
    expect(field<unknown>(again, 'minted')).toBeNull();
    const balances = field<Array<{ instrument: { id: string }; amount: string }>>(await admin('GET', '/admin/v1/holdings?party=bob'), 'balances');
    expect(balances.find((b) => b.instrument.id === 'TT2-USD')?.amount).toBe('5000.0000000000');
  });
});

describe('admin API: bad input answers {"error"} and changes nothing', () => {
  const cases: Array<{ name: string; method: 'GET' | 'POST'; path: string; body?: unknown; raw?: { body: string; contentType?: string }; status: number }> = [
    { name: 'unknown snapshot', method: 'POST', path: '/admin/v1/snapshots/snapshot-999/restore', status: 404 },
    { name: 'unknown party (mint)', method: 'POST', path: '/admin/v1/mint', body: { instrument: 'TT1', owner: 'mallory', amount: '1' }, status: 404 },
    { name: 'unknown party (holdings)', method: 'GET', path: '/admin/v1/holdings?party=mallory', status: 404 },
    { name: 'holdings without a party', method: 'GET', path: '/admin/v1/holdings', status: 400 },
    { name: 'unknown instrument', method: 'POST', path: '/admin/v1/mint', body: { instrument: 'TT9', owner: 'alice', amount: '1' }, status: 404 },
    { name: 'negative amount', method: 'POST', path: '/admin/v1/mint', body: { instrument: 'TT1', owner: 'alice', amount: '-5' }, status: 400 },
    { name: 'zero amount', method: 'POST', path: '/admin/v1/mint', body: { instrument: 'TT1', owner: 'alice', amount: '0' }, status: 400 },
    { name: 'non-numeric amount', method: 'POST', path: '/admin/v1/mint', body: { instrument: 'TT1', owner: 'alice', amount: 'lots' }, status: 400 },
    { name: 'amount as a number', method: 'POST', path: '/admin/v1/mint', body: { instrument: 'TT1', owner: 'alice', amount: 5 }, status: 400 },
    { name: 'more places than the instrument has', method: 'POST', path: '/admin/v1/mint', body: { instrument: 'TT2-USD', owner: 'alice', amount: '1.001' }, status: 400 },
    { name: 'missing field', method: 'POST', path: '/admin/v1/mint', body: { instrument: 'TT1', owner: 'alice' }, status: 400 },
    { name: 'unknown field', method: 'POST', path: '/admin/v1/fund', body: { owner: 'alice', instrument: 'TT1', atLeast: '1', extra: 1 }, status: 400 },
    { name: 'negative atLeast', method: 'POST', path: '/admin/v1/fund', body: { owner: 'alice', instrument: 'TT1', atLeast: '-1' }, status: 400 },
    { name: 'negative seconds', method: 'POST', path: '/admin/v1/clock/advance', body: { seconds: -10 }, status: 400 },
    { name: 'zero seconds', method: 'POST', path: '/admin/v1/clock/advance', body: { seconds: 0 }, status: 400 },
    { name: 'non-numeric seconds', method: 'POST', path: '/admin/v1/clock/advance', body: { seconds: 'ten' }, status: 400 },
    { name: 'malformed JSON', method: 'POST', path: '/admin/v1/mint', raw: { body: '{"instrument": "TT1",', contentType: 'application/json' }, status: 400 },
    { name: 'a body not sent as JSON (curl -d)', method: 'POST', path: '/admin/v1/mint', raw: { body: '{"instrument":"TT1","owner":"alice","amount":"1"}', contentType: 'application/x-www-form-urlencoded' }, status: 400 },
    { name: 'JSON that is not an object', method: 'POST', path: '/admin/v1/clock/advance', raw: { body: '[1]', contentType: 'application/json' }, status: 400 },
  ];

  for (const c of cases) {
    it(`${c.name}: ${c.status}`, async () => {
      const before = await view();
      const clockBefore = await admin('GET', '/admin/v1/clock');
      const a = await admin(c.method, c.path, c.body, c.raw);
      expect(a.status, JSON.stringify(a.body)).toBe(c.status);
      expect(typeof field<string>(a, 'error')).toBe('string');
      expect(await view()).toEqual(before);
      expect(await admin('GET', '/admin/v1/clock')).toEqual(clockBefore);
    });
  }

  it('every operation of the OpenAPI document was answered and conformed', () => {
    const own = spec.operations().filter((o) => !EXPLORER_OPERATIONS.has(o.operationId));
    expect(spec.uncovered(own).map((o) => `${o.method} ${o.pathTemplate}`)).toEqual([]);
  });
});

describe('AdminClient (what EmulatedStackContainer calls) and the stack methods', () => {
  it('snapshot, fund, restore, advance, reset over HTTP; errors carry the status', async () => {
    const c = new AdminClient(stack.adminUrl);
    const id = await c.snapshot();
    const before = await c.holdings('alice');
    const funded = await c.fund({ owner: 'alice', instrument: 'TT1', atLeast: '99999' });
    expect(funded.balance).toBe('99999.0000000000');
    await c.restore(id);
    expect(await c.holdings('alice')).toEqual(before);
    const t0 = Date.parse((await c.clock()).now);
    expect(Date.parse((await c.advanceClock(30)).now)).toBe(t0 + 30_000);
    await c.reset();
    await expect(c.restore('snapshot-none')).rejects.toMatchObject({ status: 404 });
    await expect(c.mint({ instrument: 'TT1', owner: 'alice', amount: '-1' })).rejects.toMatchObject({ status: 400 });
  });

  it('startStack exposes the same in process', async () => {
    const id = stack.snapshot();
    const end = stack.engine.ledgerEnd();
    const minted = stack.mint({ instrument: 'Amulet', owner: 'bob', amount: '12' });
    expect(stack.holdings('bob').holdings.map((h) => h.contractId)).toContain(minted.contractId);
    expect(stack.fund({ owner: 'bob', instrument: 'TT2-EUR', atLeast: '10' }).balance).toBe('10.0000000000');
    stack.advanceClock(1);
    await stack.restore(id);
    expect(stack.engine.ledgerEnd()).toBe(end);
    expect(stack.holdings('bob').holdings.map((h) => h.contractId)).not.toContain(minted.contractId);
    await stack.reset();
    expect(await view()).toEqual(initial);
  });
});
