/**
 * Shared set-up for TestTokenV1 tests: parties (admin, alice, bob, executor, mallory), the
 * TokenRules contract, and builders for the V1 factory choice arguments.
 */
import { LedgerEngine } from '../../../../../src/emulator/participant/engine.js';
import { createLedgerApiApp, ledgerApiRoutes } from '../../../../../src/emulator/ledger-api/routes.js';
import { createTestTokenV1Rules, mintTestTokenV1, registerTestTokenV1 } from '../../../../../src/emulator/templates/test-token-v1/index.js';
import { formatTime } from '../../../../../src/canton/lf-value.js';
import { ManualClock } from '../../../../../src/canton/clock.js';
import { EMPTY_EXTRA_ARGS, TOKEN, TOKEN_RULES, Tt1Client, type Disclosed } from './tt1-client.js';

export interface World {
  admin: string;
  alice: string;
  bob: string;
  executor: string;
  mallory: string;
  rulesCid: string;
  instrument: { admin: string; id: string };
}

export async function setupWorld(client: Tt1Client, engine: LedgerEngine, suffix = ''): Promise<World> {
  const admin = await client.allocateParty(`adminTT1${suffix}`);
  const alice = await client.allocateParty(`alice${suffix}`);
  const bob = await client.allocateParty(`bob${suffix}`);
  const executor = await client.allocateParty(`executor${suffix}`);
  const mallory = await client.allocateParty(`mallory${suffix}`);
  const rulesCid = createTestTokenV1Rules(engine, admin);
  return { admin, alice, bob, executor, mallory, rulesCid, instrument: { admin, id: 'X1' } };
}

/**
 * The same parties over the JSON API only (the emulator is shared, so `suffix` keeps them fresh):
 * TokenRules created by the admin, and disclosed the way the registry hands it out (admin ACS read
 * with the blob).
 */
export async function setupWorldOverHttp(client: Tt1Client, suffix: string): Promise<{ world: World; rules: Disclosed }> {
  const admin = await client.allocateParty(`adminTT1${suffix}`);
  const created = await client.submit([admin], [{ CreateCommand: { templateId: TOKEN_RULES, createArguments: { admin } } }]);
  if (created.status !== 200) throw new Error(`TokenRules create failed: ${JSON.stringify(created.body)}`);
  const world: World = {
    admin,
    alice: await client.allocateParty(`alice${suffix}`),
    bob: await client.allocateParty(`bob${suffix}`),
    executor: await client.allocateParty(`executor${suffix}`),
    mallory: await client.allocateParty(`mallory${suffix}`),
    rulesCid: created.transaction.events[0]!.CreatedEvent!.contractId,
    instrument: { admin, id: 'X1' },
  };
  return { world, rules: await client.disclosedRules(admin) };
}

/** Mint over the JSON API: a Token created acting as owner and admin (the reference registry's test utility). */
export async function mintOverHttp(client: Tt1Client, w: World, owner: string, amount: string, id = 'X1'): Promise<string> {
  const holding = { owner, instrumentId: { admin: w.admin, id }, amount, lock: null, meta: { values: {} } };
  const r = await client.submit([owner, w.admin], [{ CreateCommand: { templateId: TOKEN, createArguments: { holding } } }]);
  if (r.status !== 200) throw new Error(`mint failed: ${JSON.stringify(r.body)}`);
  return r.transaction.events[0]!.CreatedEvent!.contractId;
}

export function mint(engine: LedgerEngine, w: World, owner: string, amount: string, id = 'X1'): string {
  return mintTestTokenV1(engine, { admin: w.admin, owner, instrumentId: id, amount });
}

/** `now + deltaMs` as a Daml Time string. */
export function at(clock: ManualClock, deltaMs: number): string {
  return formatTime(clock.nowMicros() + BigInt(deltaMs) * 1000n);
}

export function transferArg(
  clock: ManualClock,
  w: World,
  opts: { sender: string; receiver: string; amount: string; inputs: string[]; expectedAdmin?: string; requestedAt?: string; executeBefore?: string; instrumentId?: { admin: string; id: string } },
) {
  return {
    expectedAdmin: opts.expectedAdmin ?? w.admin,
    transfer: {
      sender: opts.sender,
      receiver: opts.receiver,
      amount: opts.amount,
      instrumentId: opts.instrumentId ?? w.instrument,
      requestedAt: opts.requestedAt ?? at(clock, -60_000),
      executeBefore: opts.executeBefore ?? at(clock, 3_600_000),
      inputHoldingCids: opts.inputs,
      meta: { values: {} },
    },
    extraArgs: EMPTY_EXTRA_ARGS,
  };
}

export function allocateArg(
  clock: ManualClock,
  w: World,
  opts: {
    sender: string;
    receiver: string;
    amount: string;
    inputs: string[];
    settlementId?: string;
    expectedAdmin?: string;
    requestedAt?: string;
    allocateBefore?: string;
    settleBefore?: string;
  },
) {
  return {
    expectedAdmin: opts.expectedAdmin ?? w.admin,
    allocation: {
      settlement: {
        executor: w.executor,
        settlementRef: { id: opts.settlementId ?? 'trade-1', cid: null },
        requestedAt: opts.requestedAt ?? at(clock, -60_000),
        allocateBefore: opts.allocateBefore ?? at(clock, 3_600_000),
        settleBefore: opts.settleBefore ?? at(clock, 7_200_000),
        meta: { values: {} },
      },
      transferLegId: 'leg-0',
      transferLeg: { sender: opts.sender, receiver: opts.receiver, amount: opts.amount, instrumentId: w.instrument, meta: { values: {} } },
    },
    requestedAt: opts.requestedAt ?? at(clock, -60_000),
    inputHoldingCids: opts.inputs,
    extraArgs: EMPTY_EXTRA_ARGS,
  };
}

/** An engine with TestTokenV1 registered, its JSON API in-process, and a client on it. */
export function inProcess(start = '2026-03-01T12:00:00Z') {
  const clock = new ManualClock(start);
  const engine = new LedgerEngine({ seed: 'tt1', clock });
  registerTestTokenV1(engine.templates);
  const app = createLedgerApiApp({ engine }, ledgerApiRoutes);
  const client = new Tt1Client((path, init) => Promise.resolve(app.request(path, init)));
  return { clock, engine, app, client };
}
