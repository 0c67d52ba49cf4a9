/**
 * The Amulet registry (Scan's, Splice `HttpTokenStandard*Handler.scala`) over the emulated ledger, in process:
 * a wallet transfers Canton Coin with exactly what the registry hands out — offer then accept,
 * direct when the receiver has a pre-approval, self — and the registry answers Scan's 404s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { buildEmulator } from '../../../src/emulator/index.js';
import { ManualClock } from '../../../src/canton/clock.js';
import { formatTime } from '../../../src/canton/lf-value.js';
import { createFeaturedAppRight, createTransferPreapproval, externalPartyConfigStates, seedAmuletWorld, tapAmulet } from '../../../src/emulator/templates/amulet/index.js';
import { MemoryCache } from '../../../src/cache/memory-cache.js';
import { LedgerClient } from '../../../src/ledger-client/client.js';
import { noAuth } from '../../../src/ledger-client/auth.js';
import { createRegistry, type Registry } from '../../../src/registry/index.js';
import { AmuletRecipe, amuletInstrumentConfig } from '../../../src/registry/recipes/amulet.js';
import { GetRegistryInfoResponseSchema, InstrumentSchema, type ChoiceContext } from '../../../src/registry/schemas.js';
import { inProcessFetch as inProcess } from '../../../src/ledger-client/in-process.js';
import type { AmuletAllocationPayload, AmuletAllocationV2Payload, AmuletPayload, AmuletTransferInstructionPayload, OpenMiningRoundPayload } from '../../../src/emulator/templates/amulet/values.js';
import type { HoldingView as HoldingViewV1 } from '../../../src/emulator/templates/test-token-v1/values.js';
import { contextOf, contextValues, disclosedTemplates, errorOf, factoryOf, outputCid, outputTag } from '../../support/registry-wire.js';
import { activeContracts, exercisedChoices, interfaceView, jsonAt, rootExerciseResult, transactionOf } from '../../support/ledger-wire.js';

const logger = pino({ level: 'silent' });
const clock = new ManualClock('2026-05-01T10:00:00Z');
const emu = buildEmulator({ config: { demoWorld: false, logLevel: 'silent' }, clock });
const engine = emu.engine;
const world = seedAmuletWorld(engine);
const dso = world.dso;
const alice = engine.parties.allocate('alice').party;
const bob = engine.parties.allocate('bob').party;
const carol = engine.parties.allocate('carol').party;
const provider = engine.parties.allocate('provider').party;
const executor = engine.parties.allocate('executor').party;
let registry: Registry;

const TF = '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory';
const TI = '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction';
const HOLDING = '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding';
const AF2 = '#splice-api-token-allocation-instruction-v2:Splice.Api.Token.AllocationInstructionV2:AllocationFactory';
const AL2 = '#splice-api-token-allocation-v2:Splice.Api.Token.AllocationV2:Allocation';
const SF2 = '#splice-api-token-allocation-v2:Splice.Api.Token.AllocationV2:SettlementFactory';

const inProcessFetch = inProcess(emu.app);

/** The entity name of each disclosed contract's template, in order. */
const lastNames = (ctx: ChoiceContext) => ctx.disclosedContracts.map((d) => d.templateId.split(':').pop());

/** The registry's answer: its status and JSON body (read with registry-wire's `factoryOf`, `contextOf`, `errorOf`). */
async function post(path: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const r = await registry.app.request(path, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  return { status: r.status, body: await r.json() };
}

async function ledger(path: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const r = await emu.app.request(path, { method: 'POST', body: JSON.stringify(body) });
  return { status: r.status, body: await r.json() };
}

/** The DSO's ExternalPartyConfigState lasting longest (what Scan's lookupLatestExternalPartyConfigState returns). */
function newestConfigState(): string {
  const states = externalPartyConfigStates(engine, dso);
  expect(states).toHaveLength(2);
  return states[states.length - 1]!.contractId;
}

const at = (ms: number) => formatTime(clock.nowMicros() + BigInt(ms) * 1000n);

function transferArgs(sender: string, receiver: string, amount: string, inputs: string[], context: unknown = { values: {} }) {
  return {
    expectedAdmin: dso,
    transfer: {
      sender,
      receiver,
      amount,
      instrumentId: { admin: dso, id: 'Amulet' },
      requestedAt: at(-60_000),
      executeBefore: at(24 * 3600_000),
      inputHoldingCids: inputs,
      meta: { values: {} },
    },
    extraArgs: { context, meta: { values: {} } },
  };
}

let cmd = 0;
async function submit(actAs: string, templateId: string, contractId: string, choice: string, choiceArgument: unknown, disclosedContracts: unknown[]) {
  return ledger('/v2/commands/submit-and-wait-for-transaction', {
    commands: { commands: [{ ExerciseCommand: { templateId, contractId, choice, choiceArgument } }], commandId: `amulet-reg-${++cmd}`, actAs: [actAs], userId: 'wallet', disclosedContracts },
    transactionFormat: { eventFormat: { filtersByParty: { [actAs]: { cumulative: [] } }, verbose: true }, transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS' },
  });
}

/** What a wallet does: ask for the factory, put the context in extraArgs, submit with the disclosures. */
async function walletTransfer(sender: string, receiver: string, amount: string, inputs: string[]) {
  const f = await post('/registry/transfer-instruction/v1/transfer-factory', { choiceArguments: transferArgs(sender, receiver, amount, inputs) });
  expect(f.status, JSON.stringify(f.body)).toBe(200);
  const factory = factoryOf(f.body);
  const args = transferArgs(sender, receiver, amount, inputs, factory.choiceContext.choiceContextData);
  const tx = await submit(sender, TF, factory.factoryId, 'TransferFactory_Transfer', args, factory.choiceContext.disclosedContracts);
  expect(tx.status, JSON.stringify(tx.body)).toBe(200);
  return { factory, result: rootExerciseResult(tx.body) };
}

async function balance(party: string): Promise<number> {
  const end = (await (await emu.app.request('/v2/state/ledger-end')).json()) as { offset: number };
  const r = await ledger('/v2/state/active-contracts', {
    eventFormat: { filtersByParty: { [party]: { cumulative: [{ identifierFilter: { InterfaceFilter: { value: { interfaceId: HOLDING, includeInterfaceView: true } } } }] } }, verbose: true },
    activeAtOffset: end.offset,
  });
  // the HoldingV1 views (one-step from the view's LF JSON)
  return activeContracts(r.body)
    .map((c) => interfaceView(c.createdEvent) as HoldingViewV1)
    .filter((v) => v.owner === party && v.lock === null)
    .reduce((s, v) => s + Number(v.amount), 0);
}

beforeAll(async () => {
  const ledgerClient = new LedgerClient({ baseUrl: 'http://ledger', tokenProvider: noAuth, fetch: inProcessFetch });
  registry = createRegistry({
    admin: dso,
    instruments: [amuletInstrumentConfig()],
    recipes: [new AmuletRecipe()],
    ledger: ledgerClient,
    cache: new MemoryCache({ defaultTtlSeconds: 600, logger }),
    clock,
    logger,
    pollIdleMs: 20,
  });
  await registry.start();
});
afterAll(async () => registry.stop());

describe('Amulet registry over the emulated ledger', () => {
  it('serves Canton Coin metadata with the DSO as admin', async () => {
    const info = GetRegistryInfoResponseSchema.parse(await (await registry.app.request('/registry/metadata/v1/info')).json());
    expect(info.adminId).toBe(dso);
    const inst: unknown = await (await registry.app.request('/registry/metadata/v1/instruments/Amulet')).json();
    expect(inst).toMatchObject({ id: 'Amulet', name: 'Canton Coin', symbol: 'CC', decimals: 10 });
  });

  it('offer then accept: factory context as Scan builds it, then the accept context with the LockedAmulet', async () => {
    const h = tapAmulet(engine, { dso, receiver: alice, amount: '100' });
    const { factory, result } = await walletTransfer(alice, bob, '40', [h]);
    expect(factory.transferKind).toBe('offer');
    expect(Object.keys(contextValues(factory.choiceContext.choiceContextData)).sort()).toEqual(['amulet-rules', 'external-party-config-state', 'open-round']);
    // the newest of the DSO's two config states
    expect(contextValues(factory.choiceContext.choiceContextData)['external-party-config-state']).toEqual({ tag: 'AV_ContractId', value: newestConfigState() });
    expect(disclosedTemplates(factory.choiceContext)).toEqual([
      'Splice.AmuletRules:AmuletRules',
      'Splice.Round:OpenMiningRound',
      'Splice.ExternalPartyConfigState:ExternalPartyConfigState',
      'Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules',
    ]);
    expect(factory.choiceContext.disclosedContracts[0]!.debugPackageName).toBe('splice-amulet');
    expect(factory.choiceContext.disclosedContracts[0]!.synchronizerId).toBe(engine.synchronizerId);
    expect(outputTag(result)).toBe('TransferInstructionResult_Pending');
    const instr = outputCid(result, 'transferInstructionCid');

    const answer = await post(`/registry/transfer-instruction/v1/${instr}/choice-contexts/accept`, {});
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const ctx = contextOf(answer.body);
    // the newest Scan's two-step context: the config state and expire-lock, no rules, no round
    expect(contextValues(ctx.choiceContextData)).toEqual({
      'external-party-config-state': { tag: 'AV_ContractId', value: newestConfigState() },
      'expire-lock': { tag: 'AV_Bool', value: true },
    });
    expect(lastNames(ctx)).toEqual(['ExternalPartyConfigState', 'LockedAmulet']);
    expect(ctx.disclosedContracts[1]!.contractId).toBe((engine.contracts.get(instr)!.payload as AmuletTransferInstructionPayload).lockedAmulet);
    const acc = await submit(bob, TI, instr, 'TransferInstruction_Accept', { extraArgs: { context: ctx.choiceContextData, meta: { values: {} } } }, ctx.disclosedContracts);
    expect(acc.status, JSON.stringify(acc.body)).toBe(200);
    // paid through the config state (executeExternalPartyTransfer), not AmuletRules_Transfer
    const choices = exercisedChoices(transactionOf(acc.body));
    expect(choices).toContain('LockedAmulet_UnlockV2');
    expect(choices).not.toContain('AmuletRules_Transfer');
    expect(await balance(bob)).toBe(40);
    expect(await balance(alice)).toBe(60);
  });

  it('direct when the receiver has a pre-approval (with the provider featured); self transfers complete at once', async () => {
    createTransferPreapproval(engine, { dso, receiver: carol, provider });
    createFeaturedAppRight(engine, { dso, provider });
    await registry.index.catchUp();
    const h = tapAmulet(engine, { dso, receiver: alice, amount: '10' });
    const { factory, result } = await walletTransfer(alice, carol, '4', [h]);
    expect(factory.transferKind).toBe('direct');
    expect(Object.keys(contextValues(factory.choiceContext.choiceContextData)).sort()).toEqual([
      'amulet-rules',
      'external-party-config-state',
      'featured-app-right',
      'open-round',
      'transfer-preapproval',
    ]);
    expect(lastNames(factory.choiceContext)).toEqual([
      'AmuletRules',
      'OpenMiningRound',
      'ExternalPartyConfigState',
      'FeaturedAppRight',
      'TransferPreapproval',
      'ExternalPartyAmuletRules',
    ]);
    expect(outputTag(result)).toBe('TransferInstructionResult_Completed');
    expect(await balance(carol)).toBe(4);

    const h2 = tapAmulet(engine, { dso, receiver: carol, amount: '3' });
    const self = await walletTransfer(carol, carol, '1', [h2]);
    expect(self.factory.transferKind).toBe('self');
    expect(outputTag(self.result)).toBe('TransferInstructionResult_Completed');
  });

  it('once the lock is gone: accept 404s, reject gets only expire-lock false and no disclosures', async () => {
    const h = tapAmulet(engine, { dso, receiver: alice, amount: '5' });
    const args = transferArgs(alice, bob, '5', [h]);
    args.transfer.executeBefore = at(3600_000);
    const f = factoryOf((await post('/registry/transfer-instruction/v1/transfer-factory', { choiceArguments: args })).body);
    args.extraArgs.context = f.choiceContext.choiceContextData;
    const tx = await submit(alice, TF, f.factoryId, 'TransferFactory_Transfer', args, f.choiceContext.disclosedContracts);
    const instr = outputCid(rootExerciseResult(tx.body), 'transferInstructionCid');
    const locked = (engine.contracts.get(instr)!.payload as AmuletTransferInstructionPayload).lockedAmulet;
    // the deadline passes; the sender spends the expired LockedAmulet (self transfer), which unlocks it
    clock.advance(2 * 3600_000);
    await walletTransfer(alice, alice, '5', [locked]);
    const acc = await post(`/registry/transfer-instruction/v1/${instr}/choice-contexts/accept`, {});
    expect(acc.status).toBe(404);
    expect(errorOf(acc.body)).toBe(`LockedAmulet 'Some(ContractId(${locked}))' not found for AmuletTransferInstruction '${instr}', which expires on Some(${args.transfer.executeBefore})`);
    const rej = await post(`/registry/transfer-instruction/v1/${instr}/choice-contexts/reject`, {});
    expect(rej.status).toBe(200);
    expect(rej.body).toEqual({ choiceContextData: { values: { 'expire-lock': { tag: 'AV_Bool', value: false } } }, disclosedContracts: [] });
    const r = await submit(bob, TI, instr, 'TransferInstruction_Reject', { extraArgs: { context: contextOf(rej.body).choiceContextData, meta: { values: {} } } }, []);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  });

  it('v2: the transfer factory and instruction contexts work the same', async () => {
    const h = tapAmulet(engine, { dso, receiver: alice, amount: '8' });
    const acct = (owner: string) => ({ owner, provider: null, id: '' });
    const v2Args = (context: unknown) => ({
      transfer: {
        sender: acct(alice),
        receiver: acct(bob),
        amount: '8',
        instrumentId: { admin: dso, id: 'Amulet' },
        requestedAt: at(-1000),
        executeBefore: at(3600_000),
        inputHoldingCids: [h],
        meta: { values: {} },
      },
      actors: [alice],
      extraArgs: { context, meta: { values: {} } },
    });
    const answer = await post('/registry/transfer-instruction/v2/transfer-factory', { choiceArguments: v2Args({ values: {} }) });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const f = factoryOf(answer.body);
    expect(f.transferKind).toBe('offer');
    const TF2 = '#splice-api-token-transfer-instruction-v2:Splice.Api.Token.TransferInstructionV2:TransferFactory';
    const TI2 = '#splice-api-token-transfer-instruction-v2:Splice.Api.Token.TransferInstructionV2:TransferInstruction';
    const tx = await submit(alice, TF2, f.factoryId, 'TransferFactory_Transfer', v2Args(f.choiceContext.choiceContextData), f.choiceContext.disclosedContracts);
    expect(tx.status, JSON.stringify(tx.body)).toBe(200);
    const res = rootExerciseResult(tx.body);
    expect(jsonAt(res, 'meta', 'values', 'splice.lfdecentralizedtrust.org/tx-kind')).toBe('transfer');
    const instr = outputCid(res, 'transferInstructionCid');
    const ctxAnswer = await post(`/registry/transfer-instruction/v2/${instr}/choice-contexts/accept`, {});
    expect(ctxAnswer.status, JSON.stringify(ctxAnswer.body)).toBe(200);
    const ctx = contextOf(ctxAnswer.body);
    const before = await balance(bob);
    const acc = await submit(bob, TI2, instr, 'TransferInstruction_Accept', { actors: [bob], extraArgs: { context: ctx.choiceContextData, meta: { values: {} } } }, ctx.disclosedContracts);
    expect(acc.status, JSON.stringify(acc.body)).toBe(200);
    expect(await balance(bob)).toBe(before + 8);

  });

  describe('v2 allocations: allocate through the allocation factory, settle through the settlement factory', () => {
    const acct = (owner: string) => ({ owner, provider: null, id: '' });
    const noMeta = { values: {} };
    const settlementInfo = (id: string) => ({ executors: [executor], id, cid: null, meta: noMeta });
    const side = (id: string, s: 'SenderSide' | 'ReceiverSide', other: string, amount: string) => ({
      transferLegId: id,
      side: s,
      otherside: acct(other),
      amount,
      instrumentId: 'Amulet',
      meta: noMeta,
    });
    const allocateArgs = (trade: string, authorizer: string, sides: unknown[], inputs: string[], context: unknown = { values: {} }) => ({
      settlement: settlementInfo(trade),
      allocation: { admin: dso, authorizer: acct(authorizer), transferLegSides: sides, settlementDeadline: at(2 * 3600_000), nextIterationFunding: null, committed: false, meta: noMeta },
      requestedAt: at(-1000),
      inputHoldingCids: inputs,
      extraArgs: { context, meta: noMeta },
      actors: [authorizer],
    });
    /** A wallet allocating with only what the registry returned. */
    async function walletAllocate(trade: string, authorizer: string, sides: unknown[], inputs: string[]) {
      const answer = await post('/registry/allocation-instruction/v2/allocation-factory', { choiceArguments: allocateArgs(trade, authorizer, sides, inputs) });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const factory = factoryOf(answer.body);
      const tx = await submit(authorizer, AF2, factory.factoryId, 'AllocationFactory_Allocate', allocateArgs(trade, authorizer, sides, inputs, factory.choiceContext.choiceContextData), factory.choiceContext.disclosedContracts);
      expect(tx.status, JSON.stringify(tx.body)).toBe(200);
      const result = rootExerciseResult(tx.body);
      expect(outputTag(result)).toBe('AllocationInstructionResult_Completed');
      return { factory, allocationCid: outputCid(result, 'allocationCid') };
    }
    const legs = (trade: string) => [
      { transferLegId: `${trade}-a`, sender: acct(alice), receiver: acct(bob), amount: '30', instrumentId: 'Amulet', meta: noMeta },
      { transferLegId: `${trade}-b`, sender: acct(bob), receiver: acct(alice), amount: '10', instrumentId: 'Amulet', meta: noMeta },
    ];
    const settleArgs = (trade: string, cids: string[], context: unknown = { values: {} }) => ({
      settlement: settlementInfo(trade),
      transferLegs: legs(trade),
      allocations: cids.map((allocationCid) => ({ allocationCid, extraTransferLegSides: [], nextIterationFunding: null })),
      actors: [executor],
      extraArgs: { context, meta: noMeta },
    });

    it('lists the V2 APIs it implements', async () => {
      const inst = InstrumentSchema.parse(await (await registry.app.request('/registry/metadata/v1/instruments/Amulet')).json());
      expect(inst.supportedApis).toMatchObject({
        'splice-api-token-holding-v1': 1,
        'splice-api-token-allocation-v1': 1,
        'splice-api-token-holding-v2': 1,
        'splice-api-token-transfer-instruction-v2': 1,
        'splice-api-token-allocation-v2': 1,
        'splice-api-token-allocation-instruction-v2': 1,
        'splice-api-token-transfer-events-v2': 1,
      });
    });

    it('a DvP of Canton Coin: alice 30 for bob 10, settled by the executor in one batch', async () => {
      const ha = tapAmulet(engine, { dso, receiver: alice, amount: '100' });
      const hb = tapAmulet(engine, { dso, receiver: bob, amount: '50' });
      // unlocked balances after the taps
      const [alice0, bob0] = [await balance(alice), await balance(bob)];
      const a = await walletAllocate('dvp-1', alice, [side('dvp-1-a', 'SenderSide', bob, '30'), side('dvp-1-b', 'ReceiverSide', bob, '10')], [ha]);
      // the newest Scan's V2 allocation factory: only the config state
      expect(contextValues(a.factory.choiceContext.choiceContextData)).toEqual({ 'external-party-config-state': { tag: 'AV_ContractId', value: newestConfigState() } });
      expect(disclosedTemplates(a.factory.choiceContext)).toEqual([
        'Splice.ExternalPartyConfigState:ExternalPartyConfigState',
        'Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules',
      ]);
      expect(a.factory.factoryId).toBe(world.externalPartyAmuletRulesCid);
      // bob receives more than he pays: his allocation locks nothing
      const b = await walletAllocate('dvp-1', bob, [side('dvp-1-a', 'ReceiverSide', alice, '30'), side('dvp-1-b', 'SenderSide', alice, '10')], [hb]);
      expect(await balance(alice)).toBe(alice0 - 20);

      const answer = await post('/registry/allocation/v2/settlement-factory', { choiceArguments: settleArgs('dvp-1', [a.allocationCid, b.allocationCid]) });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const f = factoryOf(answer.body);
      expect(f.factoryId).toBe(world.externalPartyAmuletRulesCid);
      expect(Object.keys(contextValues(f.choiceContext.choiceContextData))).toEqual(['external-party-config-state']);
      const lockedA = (engine.contracts.get(a.allocationCid)!.payload as AmuletAllocationV2Payload).lockedAmulet;
      expect(disclosedTemplates(f.choiceContext)).toEqual([
        'Splice.ExternalPartyConfigState:ExternalPartyConfigState',
        'Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules',
        'Splice.Amulet:LockedAmulet',
      ]);
      expect(f.choiceContext.disclosedContracts[2]!.contractId).toBe(lockedA);
      const tx = await submit(executor, SF2, f.factoryId, 'SettlementFactory_SettleBatch', settleArgs('dvp-1', [a.allocationCid, b.allocationCid], f.choiceContext.choiceContextData), f.choiceContext.disclosedContracts);
      expect(tx.status, JSON.stringify(tx.body)).toBe(200);
      expect(jsonAt(rootExerciseResult(tx.body), 'allocationSettleResults')).toHaveLength(2);
      expect(await balance(alice)).toBe(alice0 - 20);
      expect(await balance(bob)).toBe(bob0 + 20);

      // the settled allocations are gone: 404
      await registry.index.catchUp();
      const again = await post('/registry/allocation/v2/settlement-factory', { choiceArguments: settleArgs('dvp-1', [a.allocationCid, b.allocationCid]) });
      expect(again.status).toBe(404);
      expect(errorOf(again.body)).toBe(`AmuletAllocationV2 '${a.allocationCid}' not found.`);
    });

    it('settlement factory: 404 for an unknown allocation, 400 for a malformed id', async () => {
      const unknown = `00${'ab'.repeat(34)}`;
      const r = await post('/registry/allocation/v2/settlement-factory', { choiceArguments: settleArgs('x', [unknown]) });
      expect(r.status).toBe(404);
      expect(errorOf(r.body)).toBe(`AmuletAllocationV2 '${unknown}' not found.`);
      const bad = await post('/registry/allocation/v2/settlement-factory', { choiceArguments: settleArgs('x', ['not-a-cid']) });
      expect(bad.status).toBe(400);
    });

    it('withdraw and cancel contexts: expire-lock with the LockedAmulet, or false without one', async () => {
      const h = tapAmulet(engine, { dso, receiver: alice, amount: '20' });
      const a1 = await walletAllocate('wc-1', alice, [side('wc-1-a', 'SenderSide', bob, '5')], [h]);
      const change = engine.contracts.activeAt(engine.ledgerEnd(), engine.ledgerEnd(), new Set([alice])).find((c) => {
        if (c.templateId.entityName !== 'Amulet') return false;
        const amulet = c.payload as AmuletPayload;
        return amulet.owner === alice && amulet.amount.initialAmount === '15.0000000000';
      })!.contractId;
      const a2 = await walletAllocate('wc-2', alice, [side('wc-2-a', 'SenderSide', bob, '5')], [change]);
      const unfunded = await walletAllocate('wc-3', bob, [side('wc-3-a', 'ReceiverSide', alice, '5')], []);
      const before = await balance(alice);

      const wAnswer = await post(`/registry/allocations/v2/${a1.allocationCid}/choice-contexts/withdraw`, {});
      expect(wAnswer.status, JSON.stringify(wAnswer.body)).toBe(200);
      const w = contextOf(wAnswer.body);
      expect(w.choiceContextData).toEqual({ values: { 'expire-lock': { tag: 'AV_Bool', value: true } } });
      expect(disclosedTemplates(w)).toEqual(['Splice.Amulet:LockedAmulet']);
      const wt = await submit(alice, AL2, a1.allocationCid, 'Allocation_Withdraw', { actors: [alice], extraArgs: { context: w.choiceContextData, meta: noMeta } }, w.disclosedContracts);
      expect(wt.status, JSON.stringify(wt.body)).toBe(200);

      // the executor cancels: the LockedAmulet it is not a stakeholder of comes disclosed
      const cAnswer = await post(`/registry/allocations/v2/${a2.allocationCid}/choice-contexts/cancel`, {});
      expect(cAnswer.status, JSON.stringify(cAnswer.body)).toBe(200);
      const c = contextOf(cAnswer.body);
      expect(disclosedTemplates(c)).toEqual(['Splice.Amulet:LockedAmulet']);
      const ct = await submit(executor, AL2, a2.allocationCid, 'Allocation_Cancel', { actors: [executor], extraArgs: { context: c.choiceContextData, meta: noMeta } }, c.disclosedContracts);
      expect(ct.status, JSON.stringify(ct.body)).toBe(200);
      expect(await balance(alice)).toBe(before + 10);

      // an unfunded allocation has no lock
      const u = await post(`/registry/allocations/v2/${unfunded.allocationCid}/choice-contexts/withdraw`, {});
      expect(u.body).toEqual({ choiceContextData: { values: { 'expire-lock': { tag: 'AV_Bool', value: false } } }, disclosedContracts: [] });
      const ut = await submit(bob, AL2, unfunded.allocationCid, 'Allocation_Withdraw', { actors: [bob], extraArgs: { context: contextOf(u.body).choiceContextData, meta: noMeta } }, []);
      expect(ut.status, JSON.stringify(ut.body)).toBe(200);

      // each version answers for its own template only; v2 has no execute-transfer
      const h2 = tapAmulet(engine, { dso, receiver: alice, amount: '5' });
      const a4 = await walletAllocate('wc-4', alice, [side('wc-4-a', 'SenderSide', bob, '1')], [h2]);
      const v1 = await post(`/registry/allocations/v1/${a4.allocationCid}/choice-contexts/withdraw`, {});
      expect(v1.status).toBe(404);
      expect(errorOf(v1.body)).toBe(`AmuletAllocation '${a4.allocationCid}' not found.`);
      const exec = await post(`/registry/allocations/v2/${a4.allocationCid}/choice-contexts/execute-transfer`, {});
      expect(exec.status).toBe(404);
    });
  });

  describe('an allocation made through the V1 factory, served by the V2 endpoints (V2 lookup, then V1)', () => {
    const AF1 = '#splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationFactory';
    const AL1 = '#splice-api-token-allocation-v1:Splice.Api.Token.AllocationV1:Allocation';
    const v1Args = (id: string, context: unknown, inputs: string[]) => ({
      expectedAdmin: dso,
      allocation: {
        settlement: { executor, settlementRef: { id, cid: null }, requestedAt: at(-1000), allocateBefore: at(3600_000), settleBefore: at(7200_000), meta: { values: {} } },
        transferLegId: `${id}-leg`,
        transferLeg: { sender: alice, receiver: bob, amount: '2', instrumentId: { admin: dso, id: 'Amulet' }, meta: { values: {} } },
      },
      requestedAt: at(-1000),
      inputHoldingCids: inputs,
      extraArgs: { context, meta: { values: {} } },
    });
    async function v1Allocate(id: string) {
      const h = tapAmulet(engine, { dso, receiver: alice, amount: '2' });
      const answer = await post('/registry/allocation-instruction/v1/allocation-factory', { choiceArguments: v1Args(id, { values: {} }, [h]) });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const f = factoryOf(answer.body);
      // the V1 factory keeps the rules and round, plus the config state
      expect(Object.keys(contextValues(f.choiceContext.choiceContextData)).sort()).toEqual(['amulet-rules', 'external-party-config-state', 'open-round']);
      const tx = await submit(alice, AF1, f.factoryId, 'AllocationFactory_Allocate', v1Args(id, f.choiceContext.choiceContextData, [h]), f.choiceContext.disclosedContracts);
      expect(tx.status, JSON.stringify(tx.body)).toBe(200);
      const cid = outputCid(rootExerciseResult(tx.body), 'allocationCid');
      expect(engine.contracts.get(cid)!.templateId.entityName).toBe('AmuletAllocation');
      await registry.index.catchUp();
      return { cid, locked: (engine.contracts.get(cid)!.payload as AmuletAllocationPayload).lockedAmulet };
    }

    it('v2 withdraw gets the V1 two-step context, which the V1 allocation accepts', async () => {
      const { cid, locked } = await v1Allocate('v1-fallback-1');
      const before = await balance(alice);
      const answer = await post(`/registry/allocations/v2/${cid}/choice-contexts/withdraw`, {});
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const w = contextOf(answer.body);
      expect(contextValues(w.choiceContextData)).toEqual({
        'external-party-config-state': { tag: 'AV_ContractId', value: newestConfigState() },
        'expire-lock': { tag: 'AV_Bool', value: true },
      });
      expect(lastNames(w)).toEqual(['ExternalPartyConfigState', 'LockedAmulet']);
      expect(w.disclosedContracts[1]!.contractId).toBe(locked);
      // the same answer as /v1 (the raw answers)
      const w1 = await post(`/registry/allocations/v1/${cid}/choice-contexts/withdraw`, {});
      expect(w1.body).toEqual(answer.body);
      const tx = await submit(alice, AL1, cid, 'Allocation_Withdraw', { extraArgs: { context: w.choiceContextData, meta: { values: {} } } }, w.disclosedContracts);
      expect(tx.status, JSON.stringify(tx.body)).toBe(200);
      expect(await balance(alice)).toBe(before + 2);
    });

    it('v2 cancel and the settlement factory accept it too; its LockedAmulet is disclosed', async () => {
      const { cid, locked } = await v1Allocate('v1-fallback-2');
      const c = await post(`/registry/allocations/v2/${cid}/choice-contexts/cancel`, {});
      expect(c.status, JSON.stringify(c.body)).toBe(200);
      expect(Object.keys(contextValues(contextOf(c.body).choiceContextData)).sort()).toEqual(['expire-lock', 'external-party-config-state']);
      const f = await post('/registry/allocation/v2/settlement-factory', {
        choiceArguments: {
          settlement: { executors: [executor], id: 'v1-fallback-2', cid: null, meta: { values: {} } },
          transferLegs: [{ transferLegId: 'v1-fallback-2-leg', sender: { owner: alice, provider: null, id: '' }, receiver: { owner: bob, provider: null, id: '' }, amount: '2', instrumentId: 'Amulet', meta: { values: {} } }],
          allocations: [{ allocationCid: cid, extraTransferLegSides: [], nextIterationFunding: null }],
          actors: [executor],
          extraArgs: { context: { values: {} }, meta: { values: {} } },
        },
      });
      expect(f.status, JSON.stringify(f.body)).toBe(200);
      const factory = factoryOf(f.body);
      expect(lastNames(factory.choiceContext)).toEqual(['ExternalPartyConfigState', 'ExternalPartyAmuletRules', 'LockedAmulet']);
      expect(factory.choiceContext.disclosedContracts[2]!.contractId).toBe(locked);
      // execute-transfer stays a V1-only endpoint (V2 has no such route)
      const exec = await post(`/registry/allocations/v2/${cid}/choice-contexts/execute-transfer`, {});
      expect(exec.status).toBe(404);
    });
  });

  describe('AMULET_REGISTRY_COMPAT=legacy: the Scan contexts before the config state', () => {
    let legacy: Registry;
    beforeAll(async () => {
      legacy = createRegistry({
        admin: dso,
        instruments: [amuletInstrumentConfig()],
        recipes: [new AmuletRecipe({ compat: 'legacy' })],
        ledger: new LedgerClient({ baseUrl: 'http://ledger', tokenProvider: noAuth, fetch: inProcessFetch }),
        cache: new MemoryCache({ defaultTtlSeconds: 600, logger }),
        clock,
        logger,
        pollIdleMs: 20,
      });
      await legacy.start();
    });
    afterAll(async () => legacy.stop());
    const postLegacy = async (path: string, body: unknown): Promise<{ status: number; body: unknown }> => {
      const r = await legacy.app.request(path, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
      return { status: r.status, body: await r.json() };
    };

    it('offer then accept with amulet-rules and open-round only, which the emulated Daml still takes', async () => {
      const inst = InstrumentSchema.parse(await (await legacy.app.request('/registry/metadata/v1/instruments/Amulet')).json());
      expect(inst.supportedApis['splice-api-token-transfer-events-v2']).toBeUndefined();
      const h = tapAmulet(engine, { dso, receiver: alice, amount: '7' });
      const answer = await postLegacy('/registry/transfer-instruction/v1/transfer-factory', { choiceArguments: transferArgs(alice, bob, '7', [h]) });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const f = factoryOf(answer.body);
      expect(Object.keys(contextValues(f.choiceContext.choiceContextData)).sort()).toEqual(['amulet-rules', 'open-round']);
      expect(lastNames(f.choiceContext)).toEqual(['AmuletRules', 'OpenMiningRound', 'ExternalPartyAmuletRules']);
      const args = transferArgs(alice, bob, '7', [h]);
      args.extraArgs.context = f.choiceContext.choiceContextData;
      const tx = await submit(alice, TF, f.factoryId, 'TransferFactory_Transfer', args, f.choiceContext.disclosedContracts);
      expect(tx.status, JSON.stringify(tx.body)).toBe(200);
      const instr = outputCid(rootExerciseResult(tx.body), 'transferInstructionCid');
      await legacy.index.catchUp();
      const ctxAnswer = await postLegacy(`/registry/transfer-instruction/v1/${instr}/choice-contexts/accept`, {});
      expect(ctxAnswer.status, JSON.stringify(ctxAnswer.body)).toBe(200);
      const ctx = contextOf(ctxAnswer.body);
      expect(Object.keys(contextValues(ctx.choiceContextData)).sort()).toEqual(['amulet-rules', 'expire-lock', 'open-round']);
      expect(lastNames(ctx)).toEqual(['AmuletRules', 'OpenMiningRound', 'LockedAmulet']);
      const before = await balance(bob);
      const acc = await submit(bob, TI, instr, 'TransferInstruction_Accept', { extraArgs: { context: ctx.choiceContextData, meta: { values: {} } } }, ctx.disclosedContracts);
      expect(acc.status, JSON.stringify(acc.body)).toBe(200);
      const choices = exercisedChoices(transactionOf(acc.body));
      expect(choices).toContain('AmuletRules_Transfer');
      expect(await balance(bob)).toBe(before + 7);
    });

    it('the V2 allocation factory gives amulet-rules and open-round, and a V1 allocation is a 404 on /v2', async () => {
      const f = await postLegacy('/registry/allocation-instruction/v2/allocation-factory', {
        choiceArguments: {
          settlement: { executors: [executor], id: 'legacy-1', cid: null, meta: { values: {} } },
          allocation: {
            admin: dso,
            authorizer: { owner: alice, provider: null, id: '' },
            transferLegSides: [{ transferLegId: 'l', side: 'ReceiverSide', otherside: { owner: bob, provider: null, id: '' }, amount: '1', instrumentId: 'Amulet', meta: { values: {} } }],
            settlementDeadline: null, nextIterationFunding: null, committed: false, meta: { values: {} } },
          requestedAt: at(-1000),
          inputHoldingCids: [],
          extraArgs: { context: { values: {} }, meta: { values: {} } },
          actors: [alice],
        },
      });
      expect(f.status, JSON.stringify(f.body)).toBe(200);
      expect(Object.keys(contextValues(factoryOf(f.body).choiceContext.choiceContextData)).sort()).toEqual(['amulet-rules', 'open-round']);
      const v1 = engine.contracts.activeAt(engine.ledgerEnd(), engine.ledgerEnd(), new Set([alice])).find((c) => c.templateId.entityName === 'AmuletAllocation');
      expect(v1, 'a V1 allocation from the fallback tests').toBeDefined();
      const w = await postLegacy(`/registry/allocations/v2/${v1!.contractId}/choice-contexts/withdraw`, {});
      expect(w.status).toBe(404);
      expect(errorOf(w.body)).toBe(`AmuletAllocationV2 '${v1!.contractId}' not found.`);
    });
  });

  it('404 "No open usable OpenMiningRound found." without a usable round triple', async () => {
    // the DSO archives its newest round: no triple of consecutive rounds is left
    const rounds = engine.contracts.activeAt(engine.ledgerEnd(), engine.ledgerEnd(), new Set([dso])).filter((c) => c.templateId.entityName === 'OpenMiningRound');
    const roundOf = (c: (typeof rounds)[number]) => Number((c.payload as OpenMiningRoundPayload).round.number);
    const newest = rounds.sort((a, b) => roundOf(b) - roundOf(a))[0]!;
    const r = await ledger('/v2/commands/submit-and-wait', {
      commands: [{ ExerciseCommand: { templateId: '#splice-amulet:Splice.Round:OpenMiningRound', contractId: newest.contractId, choice: 'Archive', choiceArgument: {} } }],
      commandId: 'archive-round',
      actAs: [dso],
      userId: 'dso',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    await registry.index.catchUp();
    const f = await post('/registry/transfer-instruction/v1/transfer-factory', { choiceArguments: transferArgs(alice, bob, '1', ['00aa']) });
    expect(f.status).toBe(404);
    expect(f.body).toEqual({ error: 'No open usable OpenMiningRound found.' });
    const a = await post('/registry/allocation-instruction/v1/allocation-factory', {
      choiceArguments: {
        expectedAdmin: dso,
        allocation: {
          settlement: { executor: bob, settlementRef: { id: 'x', cid: null }, requestedAt: at(-1000), allocateBefore: at(3600_000), settleBefore: at(7200_000), meta: { values: {} } },
          transferLegId: 'l',
          transferLeg: { sender: alice, receiver: bob, amount: '1', instrumentId: { admin: dso, id: 'Amulet' }, meta: { values: {} } },
        },
        requestedAt: at(-1000),
        inputHoldingCids: ['00aa'],
        extraArgs: { context: { values: {} }, meta: { values: {} } },
      },
    });
    expect(a.status).toBe(404);
  });
});
