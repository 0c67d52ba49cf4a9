/**
 * TestTokenV2 end to end over real loopback HTTP: the emulator's JSON Ledger API, a V2 wallet
 * and a V1 wallet (the V1 adapters), each flow checked through the HoldingV1/HoldingV2 interface
 * views and the LEDGER_EFFECTS update stream. Disclosed contracts are obtained like a wallet gets
 * them from the registry: the admin (or the holder) reads its ACS with `includeCreatedEventBlob`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';
import { ManualClock } from '../../../src/canton/clock.js';
import { formatTime } from '../../../src/canton/lf-value.js';
import { registerTestTokenV2 } from '../../../src/emulator/templates/test-token-v2/index.js';
import type { TransferV1, TransferV2 } from '../../../src/emulator/templates/test-token-v2/values.js';
import { basic, context, create, exercise, extraArgs, holdingsChanges, IFACE, LedgerClient, trace, TT2, type Disclosed } from '../../unit/emulator/templates/test-token-v2/client.js';
import {
  createdOf,
  type AllocationInstructionResultV1,
  type AllocationInstructionResultV2,
  type AllocationResultV1,
  type CompletedAllocation,
  type CompletedTransfer,
  type SettleBatchResult,
  type TransferInstructionResult,
} from '../../unit/emulator/templates/wire.js';

/** `TokenRules_OfferMint`'s result (the fields read here). */
interface OfferMintResult {
  offerCid: string;
}
/** The TransferInstructionV2 interface view (the fields read here). */
interface TransferInstructionViewV2 {
  transfer: TransferV2;
}
/** The TransferInstructionV1 interface view (the fields read here). */
interface TransferInstructionViewV1 {
  status: { tag: string };
  transfer: TransferV1;
}

const meta = { values: {} };
const clock = new ManualClock('2026-05-01T09:00:00Z');
let emu: RunningEmulator;
let client: LedgerClient;
let admin: string, alice: string, bob: string, carol: string, executor: string;
let rules: string;
let rulesD: Disclosed;

const at = (ms: number) => formatTime(clock.nowMicros() + BigInt(ms) * 1000n);
const ctx = () => extraArgs(context(rules));

beforeAll(async () => {
  emu = await startEmulator({ config: { port: 0, demoWorld: false, logLevel: 'silent' }, clock });
  registerTestTokenV2(emu.engine.templates);
  client = new LedgerClient((path, init) => fetch(emu.ledgerUrl + path, init));
  admin = await client.allocateParty('adminTT2');
  alice = await client.allocateParty('alice');
  bob = await client.allocateParty('bob');
  carol = await client.allocateParty('carol');
  executor = await client.allocateParty('executor');
  const created = await client.ok([admin], [create(TT2.TokenRules, { admin })]);
  rules = createdOf(created.events[0]).contractId;
  rulesD = await client.disclosed(admin, rules);
});

afterAll(async () => {
  await emu?.close();
});

/** Mint like the registry: admin offers, the receiver accepts (V2). */
async function mint(owner: string, amount: string): Promise<string> {
  const offer = await client.ok<OfferMintResult>([admin], [
    exercise(TT2.TokenRules, rules, 'TokenRules_OfferMint', {
      receiver: basic(owner),
      amount,
      instrumentId: { admin, id: 'X2' },
      offeredAt: at(0),
      receiverConfig: { admin, account: basic(owner), ownerConfig: { canInitiate: true, mustApprove: true }, providerConfig: { canInitiate: false, mustApprove: false } },
    }),
  ]);
  const acc = await client.ok<TransferInstructionResult<CompletedTransfer>>(
    [owner],
    [exercise(IFACE.TransferInstructionV2, offer.result.offerCid, 'TransferInstruction_Accept', { actors: [owner], extraArgs: ctx() })],
    [rulesD],
  );
  return acc.result.output.value.receiverHoldingCids[0]!;
}

/** Total of a party's holdings through both interface views; the V1 and V2 views must agree. */
async function balance(party: string): Promise<{ free: number; locked: number }> {
  const v2free = await client.balance(party, { locked: false, admin });
  const v2locked = await client.balance(party, { locked: true, admin });
  expect(await client.balance(party, { version: 'V1', locked: false, admin })).toBe(v2free);
  expect(await client.balance(party, { version: 'V1', locked: true, admin })).toBe(v2locked);
  return { free: v2free, locked: v2locked };
}

async function inputsOf(party: string): Promise<string[]> {
  return (await client.holdings(party)).filter((h) => h.view.lock === null && h.view.account.owner === party).map((h) => h.contractId);
}

function v2TransferCmd(sender: string, receiver: string, amount: string, inputs: string[], executeBeforeMs = 3_600_000) {
  return exercise(IFACE.TransferFactoryV2, rules, 'TransferFactory_Transfer', {
    transfer: {
      sender: basic(sender),
      receiver: basic(receiver),
      amount,
      instrumentId: { admin, id: 'X2' },
      requestedAt: at(-1000),
      executeBefore: at(executeBeforeMs),
      inputHoldingCids: inputs,
      meta,
    },
    actors: [sender],
    extraArgs: ctx(),
  });
}

async function pendingOffer(receiver: string): Promise<{ cid: string; locked: string; owner: string | null }> {
  const offers = await client.acs(receiver, { InterfaceFilter: { value: { interfaceId: IFACE.TransferInstructionV2, includeInterfaceView: true } } });
  const o = offers.at(-1)!;
  const v = o.interfaceViews[0]!.viewValue as TransferInstructionViewV2;
  return { cid: o.contractId, locked: v.transfer.inputHoldingCids[0]!, owner: v.transfer.sender.owner };
}

describe('TestTokenV2 over HTTP', () => {
  it('mints', async () => {
    const before = await client.ledgerEnd();
    const cid = await mint(alice, '1000');
    expect(await balance(alice)).toEqual({ free: 1000, locked: 0 });
    const [offerTx, acceptTx] = await client.updates(alice, before);
    // alice is no informee of the admin's OfferMint exercise, only a stakeholder of the offer it creates
    expect(trace(offerTx!.events)).toEqual(['create TokenTransferOffer']);
    expect(trace(acceptTx!.events)).toEqual([
      'exercise TokenTransferOffer.TransferInstruction_Accept',
      'consume TokenTransferOffer.Archive',
      'create Token',
      'exercise TokenRules.EventLog_HoldingsChange',
    ]);
    expect(createdOf(acceptTx!.events[2]).contractId).toBe(cid);
  });

  it('self transfer (V2) completes at once', async () => {
    const before = await client.ledgerEnd();
    const r = await client.ok<TransferInstructionResult>([alice], [v2TransferCmd(alice, alice, '100', await inputsOf(alice))], [rulesD]);
    expect(r.result.output.tag).toBe('TransferInstructionResult_Completed');
    expect(await balance(alice)).toEqual({ free: 1000, locked: 0 });
    const [tx] = await client.updates(alice, before);
    const t = trace(tx!.events);
    // inputs archived, change and lock created, lock archived, receiver token created, in order
    expect(t.indexOf('consume Token.Archive')).toBeLessThan(t.indexOf('create Token'));
    expect(t.filter((x) => x === 'create Token')).toHaveLength(3);
    expect(t.filter((x) => x === 'consume Token.Archive')).toHaveLength(2);
    expect(tx!.events.filter((e) => e.ArchivedEvent)).toEqual([]); // LEDGER_EFFECTS: archives are consuming exercises
  });

  it('V2 transfer: offer then accept', async () => {
    const before = await client.ledgerEnd();
    const r = await client.ok<TransferInstructionResult>([alice], [v2TransferCmd(alice, bob, '250', await inputsOf(alice))], [rulesD]);
    expect(r.result.output.tag).toBe('TransferInstructionResult_Pending');
    expect(await balance(alice)).toEqual({ free: 750, locked: 250 });
    const offer = await pendingOffer(bob);
    // the receiver cannot withdraw; a third party cannot accept
    const arg = (actors: string[]) => ({ actors, extraArgs: ctx() });
    const locked = await client.disclosed(alice, offer.locked);
    expect((await client.submit([bob], [exercise(IFACE.TransferInstructionV2, offer.cid, 'TransferInstruction_Withdraw', arg([bob]))], [rulesD, locked])).error.code).toBe('DAML_FAILURE');
    expect((await client.submit([carol], [exercise(IFACE.TransferInstructionV2, offer.cid, 'TransferInstruction_Accept', arg([carol]))], [rulesD, locked])).error.code).toBe('CONTRACT_NOT_FOUND');
    const acc = await client.ok<TransferInstructionResult>([bob], [exercise(IFACE.TransferInstructionV2, offer.cid, 'TransferInstruction_Accept', arg([bob]))], [rulesD, locked]);
    expect(acc.result.output.tag).toBe('TransferInstructionResult_Completed');
    expect(await balance(alice)).toEqual({ free: 750, locked: 0 });
    expect(await balance(bob)).toEqual({ free: 250, locked: 0 });
    const bobTxs = await client.updates(bob, before);
    expect(bobTxs).toHaveLength(2); // the offer's creation (bob observes it) and the accept
    expect(trace(bobTxs[1]!.events)).toEqual([
      'exercise TokenTransferOffer.TransferInstruction_Accept',
      'consume TokenTransferOffer.Archive',
      'consume Token.Archive',
      'create Token',
      'exercise TokenRules.EventLog_HoldingsChange',
      'exercise TokenRules.EventLog_HoldingsChange',
    ]);
  });

  it('V2 transfer: offer then reject, offer then withdraw', async () => {
    await client.ok([alice], [v2TransferCmd(alice, bob, '50', await inputsOf(alice))], [rulesD]);
    let offer = await pendingOffer(bob);
    const rej = await client.ok([bob], [exercise(IFACE.TransferInstructionV2, offer.cid, 'TransferInstruction_Reject', { actors: [bob], extraArgs: ctx() })], [
      rulesD,
      await client.disclosed(alice, offer.locked),
    ]);
    expect(holdingsChanges(rej.events).map((c) => c.reason)).toEqual(['transfer rejected']);
    expect(await balance(alice)).toEqual({ free: 750, locked: 0 });
    await client.ok([alice], [v2TransferCmd(alice, bob, '60', await inputsOf(alice))], [rulesD]);
    offer = await pendingOffer(bob);
    const wd = await client.ok([alice], [exercise(IFACE.TransferInstructionV2, offer.cid, 'TransferInstruction_Withdraw', { actors: [alice], extraArgs: ctx() })], [rulesD]);
    expect(holdingsChanges(wd.events).map((c) => c.reason)).toEqual(['transfer withdrawn']);
    expect(await balance(alice)).toEqual({ free: 750, locked: 0 });
    expect(await balance(bob)).toEqual({ free: 250, locked: 0 });
  });

  it('a double spend fails and changes nothing; TokenRules must be disclosed', async () => {
    const [first] = await inputsOf(alice);
    const end = await client.ledgerEnd();
    expect((await client.submit([alice], [v2TransferCmd(alice, bob, '1', [first!])])).error.code).toBe('CONTRACT_NOT_FOUND');
    expect((await client.submit([alice], [v2TransferCmd(alice, bob, '1', [first!]), v2TransferCmd(alice, carol, '1', [first!])], [rulesD])).error.code).toBe('CONTRACT_NOT_ACTIVE');
    expect(await client.ledgerEnd()).toBe(end);
    expect(await balance(alice)).toEqual({ free: 750, locked: 0 });
  });

  it('an offer past executeBefore cannot be accepted (injectable clock)', async () => {
    await client.ok([alice], [v2TransferCmd(alice, bob, '10', await inputsOf(alice), 60_000)], [rulesD]);
    const offer = await pendingOffer(bob);
    clock.advance(60_000);
    const late = await client.submit([bob], [exercise(IFACE.TransferInstructionV2, offer.cid, 'TransferInstruction_Accept', { actors: [bob], extraArgs: ctx() })], [
      rulesD,
      await client.disclosed(alice, offer.locked),
    ]);
    expect(late.status).toBe(400);
    expect(late.error.context.error_id).toBe('stdlib.daml.com/deadline-exceeded');
    await client.ok([alice], [exercise(IFACE.TransferInstructionV2, offer.cid, 'TransferInstruction_Withdraw', { actors: [alice], extraArgs: ctx() })], [rulesD]);
    expect(await balance(alice)).toEqual({ free: 750, locked: 0 });
  });

  it('V2 allocations settled with SettlementFactory_SettleBatch', async () => {
    const settlement = { executors: [executor], id: 'dvp-1', cid: null, meta };
    const leg = { transferLegId: 'l1', sender: basic(alice), receiver: basic(bob), amount: '120', instrumentId: 'X2', meta };
    const allocate = async (who: string, side: 'SenderSide' | 'ReceiverSide', inputs: string[]) => {
      const r = await client.ok<AllocationInstructionResultV2<CompletedAllocation>>([who], [
        exercise(IFACE.AllocationFactoryV2, rules, 'AllocationFactory_Allocate', {
          settlement,
          allocation: {
            admin,
            authorizer: basic(who),
            transferLegSides: [{ transferLegId: 'l1', side, otherside: side === 'SenderSide' ? leg.receiver : leg.sender, amount: leg.amount, instrumentId: 'X2', meta }],
            settlementDeadline: at(3_600_000),
            nextIterationFunding: null,
            committed: false,
            meta,
          },
          requestedAt: at(-1000),
          inputHoldingCids: inputs,
          extraArgs: ctx(),
          actors: [who],
        }),
      ], [rulesD]);
      return r.result.output.value.allocationCid;
    };
    const aAlloc = await allocate(alice, 'SenderSide', await inputsOf(alice));
    const bAlloc = await allocate(bob, 'ReceiverSide', []);
    expect(await balance(alice)).toEqual({ free: 630, locked: 120 });
    const locked = (await client.holdings(alice)).filter((h) => h.view.lock !== null);
    const before = await client.ledgerEnd();
    const s = await client.ok<SettleBatchResult>(
      [executor],
      [
        exercise(IFACE.SettlementFactoryV2, rules, 'SettlementFactory_SettleBatch', {
          settlement,
          transferLegs: [leg],
          allocations: [aAlloc, bAlloc].map((allocationCid) => ({ allocationCid, extraTransferLegSides: [], nextIterationFunding: null })),
          actors: [executor],
          extraArgs: ctx(),
        }),
      ],
      [rulesD, ...(await Promise.all(locked.map((h) => client.disclosed(alice, h.contractId))))],
    );
    expect(s.result.allocationSettleResults.map((r) => r.output.tag)).toEqual(['AllocationResult_Settled', 'AllocationResult_Settled']);
    expect(await balance(alice)).toEqual({ free: 630, locked: 0 });
    expect(await balance(bob)).toEqual({ free: 370, locked: 0 });
    // alice sees only her own allocation's settlement (no extra observers on the batch)
    const [aliceTx] = await client.updates(alice, before);
    expect(trace(aliceTx!.events)).toEqual([
      'exercise TokenAllocationV2.Allocation_Settle',
      'consume TokenAllocationV2.Archive',
      'consume Token.Archive',
      'exercise TokenRules.EventLog_HoldingsChange',
    ]);
    const [execTx] = await client.updates(executor, before);
    expect(trace(execTx!.events)[0]).toBe('exercise TokenRules.SettlementFactory_SettleBatch');
  });
});

describe('TestTokenV2 V1 adapters used by a V1 wallet over HTTP', () => {
  const v1Transfer = (sender: string, receiver: string, amount: string, inputs: string[]) => ({
    sender,
    receiver,
    amount,
    instrumentId: { admin, id: 'X2' },
    requestedAt: at(-1000),
    executeBefore: at(3_600_000),
    inputHoldingCids: inputs,
    meta,
  });
  const v1Inputs = async (party: string) =>
    (await client.holdings(party, 'V1')).filter((h) => h.view.lock === null && h.view.owner === party).map((h) => h.contractId);

  it('V1 transfer factory, V1 accept', async () => {
    const r = await client.ok<TransferInstructionResult>(
      [bob],
      [exercise(IFACE.TransferFactoryV1, rules, 'TransferFactory_Transfer', { expectedAdmin: admin, transfer: v1Transfer(bob, carol, '70', await v1Inputs(bob)), extraArgs: ctx() })],
      [rulesD],
    );
    expect(r.result.output.tag).toBe('TransferInstructionResult_Pending');
    const [o] = await client.acs(carol, { InterfaceFilter: { value: { interfaceId: IFACE.TransferInstructionV1, includeInterfaceView: true } } });
    const view = o!.interfaceViews[0]!.viewValue as TransferInstructionViewV1;
    expect(view.status.tag).toBe('TransferPendingReceiverAcceptance');
    const acc = await client.ok<TransferInstructionResult>([carol], [exercise(IFACE.TransferInstructionV1, o!.contractId, 'TransferInstruction_Accept', { extraArgs: ctx() })], [
      rulesD,
      await client.disclosed(bob, view.transfer.inputHoldingCids[0]!),
    ]);
    expect(acc.result.output.tag).toBe('TransferInstructionResult_Completed');
    expect(await balance(bob)).toEqual({ free: 300, locked: 0 });
    expect(await balance(carol)).toEqual({ free: 70, locked: 0 });
  });

  const v1Allocation = (amount: string) => ({
    settlement: { executor, settlementRef: { id: `v1-${amount}`, cid: null }, requestedAt: at(-1000), allocateBefore: at(1_800_000), settleBefore: at(3_600_000), meta },
    transferLegId: 'leg',
    transferLeg: { sender: carol, receiver: alice, amount, instrumentId: { admin, id: 'X2' }, meta },
  });
  const allocateV1 = async (amount: string) => {
    const r = await client.ok<AllocationInstructionResultV1<CompletedAllocation>>(
      [carol],
      [exercise(IFACE.AllocationFactoryV1, rules, 'AllocationFactory_Allocate', { expectedAdmin: admin, allocation: v1Allocation(amount), requestedAt: at(-1000), inputHoldingCids: await v1Inputs(carol), extraArgs: ctx() })],
      [rulesD],
    );
    expect(r.result.output.tag).toBe('AllocationInstructionResult_Completed');
    return r.result.output.value.allocationCid;
  };
  const lockedOf = async (party: string) =>
    Promise.all((await client.holdings(party, 'V1')).filter((h) => h.view.lock !== null).map((h) => client.disclosed(party, h.contractId)));

  it('V1 allocation then Allocation_ExecuteTransfer', async () => {
    const cid = await allocateV1('20');
    expect(await balance(carol)).toEqual({ free: 50, locked: 20 });
    const ex = await client.ok<AllocationResultV1>([executor, carol, alice], [exercise(IFACE.AllocationV1, cid, 'Allocation_ExecuteTransfer', { extraArgs: ctx() })], [rulesD, ...(await lockedOf(carol))]);
    expect(ex.result.receiverHoldingCids).toHaveLength(1);
    expect(await balance(carol)).toEqual({ free: 50, locked: 0 });
    expect(await balance(alice)).toEqual({ free: 650, locked: 0 });
  });

  it('V1 allocation then cancel, and then withdraw', async () => {
    const c1 = await allocateV1('10');
    await client.ok([executor, carol, alice], [exercise(IFACE.AllocationV1, c1, 'Allocation_Cancel', { extraArgs: ctx() })], [rulesD, ...(await lockedOf(carol))]);
    expect(await balance(carol)).toEqual({ free: 50, locked: 0 });
    const c2 = await allocateV1('15');
    const receiverTries = await client.submit([alice], [exercise(IFACE.AllocationV1, c2, 'Allocation_Withdraw', { extraArgs: ctx() })], [rulesD]);
    expect(receiverTries.error.code).toBe('CONTRACT_NOT_FOUND'); // alice does not see carol's allocation
    const wd = await client.ok([carol], [exercise(IFACE.AllocationV1, c2, 'Allocation_Withdraw', { extraArgs: ctx() })], [rulesD]);
    expect(holdingsChanges(wd.events).map((c) => c.reason)).toEqual(['allocation withdrawn']);
    expect(await balance(carol)).toEqual({ free: 50, locked: 0 });
  });
});
