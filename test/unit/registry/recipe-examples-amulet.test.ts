/**
 * Amulet written as a declarative recipe (docs/examples/amulet.registry.json, loaded as `serve`
 * loads it) against the built-in `splice-amulet` recipe over the same emulated ledger: every
 * registry endpoint, both versions, answers identically (status and body), bad input and gone
 * locks included; and the declarative registry's answers commit when a wallet submits them
 * (offer, accept, direct transfer with the featured provider, reject after the lock is gone,
 * V1 and V2 allocations, withdraw, cancel, a DvP settled through the settlement factory). The older
 * Scan generation (AMULET_REGISTRY_COMPAT=legacy) is compared with docs/examples/amulet-legacy.registry.json
 * the same way, and both with each of the DSO's own contracts (AmuletRules, open rounds,
 * ExternalPartyAmuletRules, ExternalPartyConfigState) missing.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { buildEmulator } from '../../../src/emulator/index.js';
import { ManualClock } from '../../../src/canton/clock.js';
import { formatTime } from '../../../src/canton/lf-value.js';
import { createFeaturedAppRight, createTransferPreapproval, openMiningRounds, seedAmuletWorld, tapAmulet } from '../../../src/emulator/templates/amulet/index.js';
import type { AmuletTransferInstructionPayload, LockedAmuletPayload, OpenMiningRoundPayload } from '../../../src/emulator/templates/amulet/values.js';
import { MemoryCache } from '../../../src/cache/memory-cache.js';
import { LedgerClient } from '../../../src/ledger-client/client.js';
import { noAuth } from '../../../src/ledger-client/auth.js';
import { createRegistry } from '../../../src/registry/index.js';
import { AmuletRecipe } from '../../../src/registry/recipes/amulet.js';
import { inProcessFetch } from '../../../src/ledger-client/in-process.js';
import { parseRegistryConfig } from '../../../src/serve.js';
import { contextOf, contextValues, factoryOf, outputCid, outputTag } from '../../support/registry-wire.js';
import { walletExercise } from '../../support/wallet-submit.js';
import { callRegistry, recipeRegistries } from '../../support/recipe-differential.js';

const exampleConfig = (file: string) => parseRegistryConfig(JSON.parse(readFileSync(fileURLToPath(new URL(`../../../docs/examples/${file}`, import.meta.url)), 'utf8')));
const AMULET = exampleConfig('amulet.registry.json');
const AMULET_LEGACY = exampleConfig('amulet-legacy.registry.json');

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
const exercise = walletExercise(emu.app, 'recipe-examples-amulet');

const { builtin, declarative } = recipeRegistries({ ledger: emu.app, admin: dso, example: AMULET, builtin: { name: 'splice-amulet', recipe: new AmuletRecipe() }, clock, logger });
/** The older Scan generation (AMULET_REGISTRY_COMPAT=legacy) and docs/examples/amulet-legacy.registry.json, over the same ledger. */
const legacy = recipeRegistries({ ledger: emu.app, admin: dso, example: AMULET_LEGACY, builtin: { name: 'splice-amulet', recipe: new AmuletRecipe({ compat: 'legacy' }) }, clock, logger });
const catchUpAll = () => Promise.all([builtin, declarative, legacy.builtin, legacy.declarative].map((r) => r.index.catchUp()));

const call = callRegistry;
const post = (path: string, body: unknown) => call(declarative, 'POST', path, body);

const noMeta = { values: {} };
const at = (ms: number) => formatTime(clock.nowMicros() + BigInt(ms) * 1000n);
const acct = (owner: string) => ({ owner, provider: null, id: '' });
const INSTRUMENT = { admin: dso, id: 'Amulet' };

function transferV1(sender: string, receiver: string, amount: string, inputs: string[], context: unknown = noMeta, executeIn = 24 * 3600_000) {
  return {
    expectedAdmin: dso,
    transfer: { sender, receiver, amount, instrumentId: INSTRUMENT, requestedAt: at(-60_000), executeBefore: at(executeIn), inputHoldingCids: inputs, meta: noMeta },
    extraArgs: { context, meta: noMeta },
  };
}
function transferV2(sender: string, receiver: string, amount: string, inputs: string[], context: unknown = noMeta) {
  const { expectedAdmin: _v1Only, ...v1 } = transferV1(sender, receiver, amount, inputs, context);
  return { ...v1, transfer: { ...v1.transfer, sender: acct(sender), receiver: acct(receiver) }, actors: [sender] };
}
function allocateV1(id: string, inputs: string[], context: unknown = noMeta) {
  return {
    expectedAdmin: dso,
    allocation: {
      settlement: { executor, settlementRef: { id, cid: null }, requestedAt: at(-1000), allocateBefore: at(3600_000), settleBefore: at(7200_000), meta: noMeta },
      transferLegId: `${id}-leg`,
      transferLeg: { sender: alice, receiver: bob, amount: '2', instrumentId: INSTRUMENT, meta: noMeta },
    },
    requestedAt: at(-1000),
    inputHoldingCids: inputs,
    extraArgs: { context, meta: noMeta },
  };
}
const side = (id: string, s: 'SenderSide' | 'ReceiverSide', other: string, amount: string) => ({ transferLegId: id, side: s, otherside: acct(other), amount, instrumentId: 'Amulet', meta: noMeta });
function allocateV2(trade: string, authorizer: string, sides: unknown[], inputs: string[], context: unknown = noMeta) {
  return {
    settlement: { executors: [executor], id: trade, cid: null, meta: noMeta },
    allocation: { admin: dso, authorizer: acct(authorizer), transferLegSides: sides, settlementDeadline: at(2 * 3600_000), nextIterationFunding: null, committed: false, meta: noMeta },
    requestedAt: at(-1000),
    inputHoldingCids: inputs,
    extraArgs: { context, meta: noMeta },
    actors: [authorizer],
  };
}
function settle(trade: string, cids: string[], context: unknown = noMeta) {
  return {
    settlement: { executors: [executor], id: trade, cid: null, meta: noMeta },
    transferLegs: [
      { transferLegId: `${trade}-a`, sender: acct(alice), receiver: acct(bob), amount: '30', instrumentId: 'Amulet', meta: noMeta },
      { transferLegId: `${trade}-b`, sender: acct(bob), receiver: acct(alice), amount: '10', instrumentId: 'Amulet', meta: noMeta },
    ],
    allocations: cids.map((allocationCid) => ({ allocationCid, extraTransferLegSides: [], nextIterationFunding: null })),
    actors: [executor],
    extraArgs: { context, meta: noMeta },
  };
}

const TF1 = '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory';
const TF2 = '#splice-api-token-transfer-instruction-v2:Splice.Api.Token.TransferInstructionV2:TransferFactory';
const TI1 = '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction';
const TI2 = '#splice-api-token-transfer-instruction-v2:Splice.Api.Token.TransferInstructionV2:TransferInstruction';
const AF1 = '#splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationFactory';
const AF2 = '#splice-api-token-allocation-instruction-v2:Splice.Api.Token.AllocationInstructionV2:AllocationFactory';
const AL1 = '#splice-api-token-allocation-v1:Splice.Api.Token.AllocationV1:Allocation';
const AL2 = '#splice-api-token-allocation-v2:Splice.Api.Token.AllocationV2:Allocation';
const SF2 = '#splice-api-token-allocation-v2:Splice.Api.Token.AllocationV2:SettlementFactory';

/** A wallet: ask the declarative registry, put its context into the arguments, submit with its disclosures. */
async function viaFactory(path: string, actAs: string, iface: string, choice: string, args: (context: unknown) => unknown): Promise<{ transferKind?: string; result: unknown }> {
  const f = await post(path, { choiceArguments: args(noMeta) });
  expect(f.status, JSON.stringify(f.body)).toBe(200);
  const factory = factoryOf(f.body);
  const result = await exercise([actAs], iface, factory.factoryId, choice, args(factory.choiceContext.choiceContextData), factory.choiceContext.disclosedContracts);
  return { ...(factory.transferKind !== undefined ? { transferKind: factory.transferKind } : {}), result };
}
async function viaContext(path: string, actAs: string, iface: string, cid: string, choice: string, arg: (context: unknown) => unknown): Promise<unknown> {
  const a = await post(path, {});
  expect(a.status, JSON.stringify(a.body)).toBe(200);
  const ctx = contextOf(a.body);
  return exercise([actAs], iface, cid, choice, arg(ctx.choiceContextData), ctx.disclosedContracts);
}

/** The objects the comparison asks about. */
const o = { offerV1: '', offerV2: '', offerGone: '', allocV1: '', allocV2: '', allocUnfunded: '', bobAlloc: '', otherDsoAlloc: '', lockGoneV1: '', lockGoneV2: '' };

/** One command as the given parties (the test ledger runs without auth); fails the test unless it commits. */
async function submitAs(actAs: string[], command: unknown, commandId: string): Promise<void> {
  const r = await emu.app.request('/v2/commands/submit-and-wait', { method: 'POST', body: JSON.stringify({ commands: [command], commandId, actAs, userId: 'recipe-examples-amulet' }) });
  expect(r.status, JSON.stringify(await r.clone().json())).toBe(200);
}
let archived = 0;
/** Archives a contract with the authority of all its signatories (a state a ledger reaches by other routes, e.g. an expired lock spent). */
async function archive(cid: string, templateId: string, signatories: string[]): Promise<void> {
  await submitAs(signatories, { ExerciseCommand: { templateId, contractId: cid, choice: 'Archive', choiceArgument: {} } }, `archive-${++archived}`);
}
const LOCKED_AMULET = '#splice-amulet:Splice.Amulet:LockedAmulet';
/** Archives an allocation's LockedAmulet while the allocation stays active. */
async function archiveLockOf(allocationCid: string): Promise<void> {
  const lockCid = (engine.contracts.get(allocationCid)!.payload as { lockedAmulet: string }).lockedAmulet;
  const lock = engine.contracts.get(lockCid)!.payload as LockedAmuletPayload;
  await archive(lockCid, LOCKED_AMULET, [...new Set([lock.amulet.dso, lock.amulet.owner, ...lock.lock.holders])]);
}

beforeAll(async () => {
  await Promise.all([builtin.start(), declarative.start(), legacy.builtin.start(), legacy.declarative.start()]);
  createTransferPreapproval(engine, { dso, receiver: carol, provider });
  createFeaturedAppRight(engine, { dso, provider });
  createFeaturedAppRight(engine, { dso, provider: executor });

  // an offer whose lock is gone: its deadline passes, the sender spends the expired LockedAmulet
  const h0 = tapAmulet(engine, { dso, receiver: alice, amount: '5' });
  const gone = await viaFactory('/registry/transfer-instruction/v1/transfer-factory', alice, TF1, 'TransferFactory_Transfer', (c) => transferV1(alice, bob, '5', [h0], c, 3600_000));
  o.offerGone = outputCid(gone.result, 'transferInstructionCid');
  clock.advance(2 * 3600_000);
  const locked = (engine.contracts.get(o.offerGone)!.payload as AmuletTransferInstructionPayload).lockedAmulet;
  await viaFactory('/registry/transfer-instruction/v1/transfer-factory', alice, TF1, 'TransferFactory_Transfer', (c) => transferV1(alice, alice, '5', [locked], c));

  const h1 = tapAmulet(engine, { dso, receiver: alice, amount: '100' });
  const o1 = await viaFactory('/registry/transfer-instruction/v1/transfer-factory', alice, TF1, 'TransferFactory_Transfer', (c) => transferV1(alice, bob, '10', [h1], c));
  expect(o1.transferKind).toBe('offer');
  o.offerV1 = outputCid(o1.result, 'transferInstructionCid');
  const h2 = tapAmulet(engine, { dso, receiver: alice, amount: '8' });
  const o2 = await viaFactory('/registry/transfer-instruction/v2/transfer-factory', alice, TF2, 'TransferFactory_Transfer', (c) => transferV2(alice, bob, '8', [h2], c));
  o.offerV2 = outputCid(o2.result, 'transferInstructionCid');

  const h3 = tapAmulet(engine, { dso, receiver: alice, amount: '2' });
  const a1 = await viaFactory('/registry/allocation-instruction/v1/allocation-factory', alice, AF1, 'AllocationFactory_Allocate', (c) => allocateV1('v1-trade', [h3], c));
  expect(outputTag(a1.result)).toBe('AllocationInstructionResult_Completed');
  o.allocV1 = outputCid(a1.result, 'allocationCid');

  const h4 = tapAmulet(engine, { dso, receiver: alice, amount: '100' });
  const h5 = tapAmulet(engine, { dso, receiver: bob, amount: '50' });
  const a2 = await viaFactory('/registry/allocation-instruction/v2/allocation-factory', alice, AF2, 'AllocationFactory_Allocate', (c) =>
    allocateV2('dvp-1', alice, [side('dvp-1-a', 'SenderSide', bob, '30'), side('dvp-1-b', 'ReceiverSide', bob, '10')], [h4], c),
  );
  o.allocV2 = outputCid(a2.result, 'allocationCid');
  const a3 = await viaFactory('/registry/allocation-instruction/v2/allocation-factory', bob, AF2, 'AllocationFactory_Allocate', (c) =>
    allocateV2('dvp-1', bob, [side('dvp-1-a', 'ReceiverSide', alice, '30'), side('dvp-1-b', 'SenderSide', alice, '10')], [h5], c),
  );
  o.bobAlloc = outputCid(a3.result, 'allocationCid');
  const a4 = await viaFactory('/registry/allocation-instruction/v2/allocation-factory', bob, AF2, 'AllocationFactory_Allocate', (c) =>
    allocateV2('unfunded', bob, [side('unfunded-a', 'ReceiverSide', alice, '5')], [], c),
  );
  o.allocUnfunded = outputCid(a4.result, 'allocationCid');

  // allocations whose LockedAmulet is gone while they are not: a settlement names them
  const h7 = tapAmulet(engine, { dso, receiver: alice, amount: '20' });
  const a5 = await viaFactory('/registry/allocation-instruction/v2/allocation-factory', alice, AF2, 'AllocationFactory_Allocate', (c) =>
    allocateV2('gone-v2', alice, [side('gone-v2-a', 'SenderSide', bob, '5')], [h7], c),
  );
  o.lockGoneV2 = outputCid(a5.result, 'allocationCid');
  await archiveLockOf(o.lockGoneV2);
  const h8 = tapAmulet(engine, { dso, receiver: alice, amount: '2' });
  const a6 = await viaFactory('/registry/allocation-instruction/v1/allocation-factory', alice, AF1, 'AllocationFactory_Allocate', (c) => allocateV1('gone-v1', [h8], c));
  o.lockGoneV1 = outputCid(a6.result, 'allocationCid');
  await archiveLockOf(o.lockGoneV1);

  // an allocation of another DSO (a second Amulet world on the same ledger), made through its own registry
  const otherDso = seedAmuletWorld(engine, { dsoHint: 'DSO2' }).dso;
  const otherRegistry = createRegistry({
    admin: otherDso,
    instruments: [{ ...AMULET.instruments[0]!, recipe: 'splice-amulet' }],
    recipes: [new AmuletRecipe()],
    ledger: new LedgerClient({ baseUrl: 'http://ledger', tokenProvider: noAuth, fetch: inProcessFetch(emu.app) }),
    cache: new MemoryCache({ defaultTtlSeconds: 600, logger }),
    clock,
    logger,
    pollIdleMs: 20,
  });
  await otherRegistry.start();
  try {
    const h6 = tapAmulet(engine, { dso: otherDso, receiver: alice, amount: '40' });
    const otherArgs = (c: unknown) => {
      const a = allocateV2('dvp-1', alice, [side('dvp-1-a', 'SenderSide', bob, '30')], [h6], c);
      // our DSO executes the trade: the allocation is visible to it
      return { ...a, settlement: { ...a.settlement, executors: [dso] }, allocation: { ...a.allocation, admin: otherDso } };
    };
    const f = await call(otherRegistry, 'POST', '/registry/allocation-instruction/v2/allocation-factory', { choiceArguments: otherArgs(noMeta) });
    expect(f.status, JSON.stringify(f.body)).toBe(200);
    const fx = factoryOf(f.body);
    const other = await exercise([alice], AF2, fx.factoryId, 'AllocationFactory_Allocate', otherArgs(fx.choiceContext.choiceContextData), fx.choiceContext.disclosedContracts);
    o.otherDsoAlloc = outputCid(other, 'allocationCid');
  } finally {
    await otherRegistry.stop();
  }
  await catchUpAll();
});
afterAll(async () => {
  await Promise.all([builtin.stop(), declarative.stop(), legacy.builtin.stop(), legacy.declarative.stop()]);
});

/** Every registry endpoint, both versions, good and bad input, over the objects above. */
function requests(): Array<{ method: 'GET' | 'POST'; path: string; body?: unknown }> {
  const out: Array<{ method: 'GET' | 'POST'; path: string; body?: unknown }> = [];
  for (const path of ['/registry/metadata/v1/info', '/registry/metadata/v1/instruments', '/registry/metadata/v1/instruments/Amulet', '/registry/metadata/v1/instruments/NOPE']) out.push({ method: 'GET', path });
  const holding = tapAmulet(engine, { dso, receiver: alice, amount: '1' });
  for (const v of [1, 2] as const) {
    const t = v === 1 ? transferV1 : transferV2;
    for (const body of [
      { choiceArguments: t(alice, alice, '1', [holding]) },
      { choiceArguments: t(alice, bob, '1', [holding]) },
      { choiceArguments: t(alice, carol, '1', [holding]) },
      { choiceArguments: t(alice, carol, '1', [holding]), excludeDebugFields: true },
      { choiceArguments: t(alice, bob, '-1', [holding]) },
      { choiceArguments: t(alice, bob, '0.00000000001', [holding]) },
      { choiceArguments: { ...t(alice, bob, '1', []), expectedAdmin: bob } },
      { choiceArguments: {} },
      {},
      '{"choiceArguments":',
    ]) {
      out.push({ method: 'POST', path: `/registry/transfer-instruction/v${v}/transfer-factory`, body });
    }
    for (const body of [
      { choiceArguments: v === 1 ? allocateV1('x', [holding]) : allocateV2('x', alice, [side('x-a', 'SenderSide', bob, '1')], [holding]) },
      { choiceArguments: v === 1 ? allocateV1('x', [holding]) : allocateV2('x', alice, [side('x-a', 'SenderSide', bob, '1')], [holding]), excludeDebugFields: true },
      { choiceArguments: v === 1 ? allocateV2('x', alice, [], []) : allocateV1('x', []) },
      { choiceArguments: {} },
    ]) {
      out.push({ method: 'POST', path: `/registry/allocation-instruction/v${v}/allocation-factory`, body });
    }
  }
  const unknownCid = `00${'ab'.repeat(34)}`;
  for (const cids of [[o.allocV2, o.bobAlloc], [o.allocV2, o.allocUnfunded], [o.allocV1], [unknownCid], [o.allocV2, unknownCid], ['not-a-cid'], [o.offerV1], [], [o.otherDsoAlloc], [o.allocV2, o.otherDsoAlloc], [o.otherDsoAlloc, unknownCid], [unknownCid, o.otherDsoAlloc], [o.otherDsoAlloc, 'not-a-cid'],
    // each allocation, then its LockedAmulet, in turn: a gone lock answers before a later allocation is checked
    [o.lockGoneV2], [o.lockGoneV1], [o.allocV2, o.lockGoneV2], [o.lockGoneV2, o.otherDsoAlloc], [o.otherDsoAlloc, o.lockGoneV2], [o.lockGoneV1, unknownCid],
    [o.lockGoneV2, 'not-a-cid'], ['not-a-cid', o.lockGoneV1], [o.allocUnfunded, o.lockGoneV1, o.lockGoneV2]]) {
    out.push({ method: 'POST', path: '/registry/allocation/v2/settlement-factory', body: { choiceArguments: settle('dvp-1', cids) } });
  }
  const all = [o.offerV1, o.offerV2, o.offerGone, o.allocV1, o.allocV2, o.allocUnfunded, o.lockGoneV1, o.lockGoneV2, unknownCid, 'not-a-cid'];
  for (const v of [1, 2]) {
    for (const action of ['accept', 'reject', 'withdraw']) for (const id of all) out.push({ method: 'POST', path: `/registry/transfer-instruction/v${v}/${id}/choice-contexts/${action}`, body: {} });
    for (const action of ['execute-transfer', 'withdraw', 'cancel']) {
      for (const id of all) out.push({ method: 'POST', path: `/registry/allocations/v${v}/${id}/choice-contexts/${action}`, body: { excludeDebugFields: true } });
    }
  }
  for (const action of ['accept', 'withdraw']) for (const id of [o.offerV1, o.allocV1, unknownCid]) out.push({ method: 'POST', path: `/registry/allocation-instruction/v2/${id}/choice-contexts/${action}`, body: {} });
  return out;
}

describe('Amulet as a declarative recipe (docs/examples/amulet.registry.json)', () => {
  it('answers every endpoint, both versions, bad input included, exactly as the built-in recipe', async () => {
    const all = requests();
    expect(all.length).toBeGreaterThan(130);
    const statuses = new Set<number>();
    const kinds = new Set<unknown>();
    for (const r of all) {
      const [a, b] = [await call(builtin, r.method, r.path, r.body), await call(declarative, r.method, r.path, r.body)];
      expect(b, `${r.method} ${r.path} ${JSON.stringify(r.body)?.slice(0, 300)}`).toEqual(a);
      statuses.add(a.status);
      if (a.status === 200 && r.path.endsWith('transfer-factory')) kinds.add(factoryOf(a.body).transferKind);
    }
    expect([...statuses].sort()).toEqual([200, 400, 404]);
    expect([...kinds].sort()).toEqual(['direct', 'offer', 'self']);
  });

  it('legacy (docs/examples/amulet-legacy.registry.json): answers every endpoint, both versions, bad input included, exactly as the built-in in legacy mode', async () => {
    const all = requests();
    const statuses = new Set<number>();
    const keys = new Set<string>();
    for (const r of all) {
      const [a, b] = [await call(legacy.builtin, r.method, r.path, r.body), await call(legacy.declarative, r.method, r.path, r.body)];
      expect(b, `legacy: ${r.method} ${r.path} ${JSON.stringify(r.body)?.slice(0, 300)}`).toEqual(a);
      statuses.add(a.status);
      if (a.status === 200 && r.method === 'POST') {
        const values = r.path.includes('/choice-contexts/') ? contextOf(a.body).choiceContextData : factoryOf(a.body).choiceContext.choiceContextData;
        for (const k of Object.keys(contextValues(values))) keys.add(k);
      }
    }
    expect([...statuses].sort()).toEqual([200, 400, 404]);
    // the older generation's contexts: the rules and the round everywhere, no config state
    expect(keys).toContain('amulet-rules');
    expect(keys).toContain('open-round');
    expect(keys).not.toContain('external-party-config-state');
    // and it differs from the current generation's
    const v1OnV2 = `/registry/allocations/v2/${o.allocV1}/choice-contexts/withdraw`;
    expect((await call(legacy.declarative, 'POST', v1OnV2, {})).status).toBe(404);
    expect((await call(declarative, 'POST', v1OnV2, {})).status).toBe(200);
  });

  it('the answers of a gone lock: reject gets only expire-lock false, accept the 404 naming the lock', async () => {
    const rej = await post(`/registry/transfer-instruction/v1/${o.offerGone}/choice-contexts/reject`, {});
    expect(rej.body).toEqual({ choiceContextData: { values: { 'expire-lock': { tag: 'AV_Bool', value: false } } }, disclosedContracts: [] });
    const acc = await post(`/registry/transfer-instruction/v1/${o.offerGone}/choice-contexts/accept`, {});
    expect(acc.status).toBe(404);
    expect(JSON.stringify(acc.body)).toMatch(/LockedAmulet 'Some\(ContractId\([0-9a-f]+\)\)' not found for AmuletTransferInstruction/);
  });

  it("what a wallet builds from the declarative recipe's answers commits", async () => {
    // a direct transfer to carol (pre-approval, provider featured)
    const h = tapAmulet(engine, { dso, receiver: alice, amount: '4' });
    await declarative.index.catchUp();
    const direct = await viaFactory('/registry/transfer-instruction/v1/transfer-factory', alice, TF1, 'TransferFactory_Transfer', (c) => transferV1(alice, carol, '4', [h], c));
    expect(direct.transferKind).toBe('direct');
    expect(outputTag(direct.result)).toBe('TransferInstructionResult_Completed');
    // accept (v1 and v2 offers) and reject after the lock is gone
    const acc1 = await viaContext(`/registry/transfer-instruction/v1/${o.offerV1}/choice-contexts/accept`, bob, TI1, o.offerV1, 'TransferInstruction_Accept', (context) => ({ extraArgs: { context, meta: noMeta } }));
    expect(outputTag(acc1)).toBe('TransferInstructionResult_Completed');
    const acc2 = await viaContext(`/registry/transfer-instruction/v2/${o.offerV2}/choice-contexts/accept`, bob, TI2, o.offerV2, 'TransferInstruction_Accept', (context) => ({ actors: [bob], extraArgs: { context, meta: noMeta } }));
    expect(outputTag(acc2)).toBe('TransferInstructionResult_Completed');
    const rej = await viaContext(`/registry/transfer-instruction/v1/${o.offerGone}/choice-contexts/reject`, bob, TI1, o.offerGone, 'TransferInstruction_Reject', (context) => ({ extraArgs: { context, meta: noMeta } }));
    expect(outputTag(rej)).toBe('TransferInstructionResult_Failed');
    // the V1 allocation withdrawn through /v2 (the V1 fallback), the unfunded V2 one too
    await viaContext(`/registry/allocations/v2/${o.allocV1}/choice-contexts/withdraw`, alice, AL1, o.allocV1, 'Allocation_Withdraw', (context) => ({ extraArgs: { context, meta: noMeta } }));
    await viaContext(`/registry/allocations/v2/${o.allocUnfunded}/choice-contexts/withdraw`, bob, AL2, o.allocUnfunded, 'Allocation_Withdraw', (context) => ({ actors: [bob], extraArgs: { context, meta: noMeta } }));
    // the DvP settled by the executor through the settlement factory (alice's LockedAmulet disclosed)
    const f = await post('/registry/allocation/v2/settlement-factory', { choiceArguments: settle('dvp-1', [o.allocV2, o.bobAlloc]) });
    expect(f.status, JSON.stringify(f.body)).toBe(200);
    const factory = factoryOf(f.body);
    expect(Object.keys(contextValues(factory.choiceContext.choiceContextData))).toEqual(['external-party-config-state']);
    const settled = await exercise([executor], SF2, factory.factoryId, 'SettlementFactory_SettleBatch', settle('dvp-1', [o.allocV2, o.bobAlloc], factory.choiceContext.choiceContextData), factory.choiceContext.disclosedContracts);
    expect(settled).toBeDefined();
  });

  it('answers 404 "No open usable OpenMiningRound found." as the built-in unless exactly three consecutive rounds are open', async () => {
    // Scan's `lookupLatestUsableOpenMiningRound` (Splice `MiningRoundsStore.scala`): of exactly three
    // consecutive open rounds, the newest that has opened; the DSO's rounds are put in other states
    // here by archiving and creating OpenMiningRounds directly
    const ROUND = '#splice-amulet:Splice.Round:OpenMiningRound';
    let created = 0;
    const createRound = (like: OpenMiningRoundPayload, number: bigint) =>
      submitAs([dso], { CreateCommand: { templateId: ROUND, createArguments: { ...like, round: { number: String(number) } } } }, `create-round-${++created}`);
    const holding = tapAmulet(engine, { dso, receiver: alice, amount: '3' });
    const factoryRequests = [
      { path: '/registry/transfer-instruction/v1/transfer-factory', args: transferV1(alice, bob, '1', [holding]) },
      { path: '/registry/transfer-instruction/v1/transfer-factory', args: transferV1(alice, alice, '1', [holding]) },
      { path: '/registry/transfer-instruction/v2/transfer-factory', args: transferV2(alice, carol, '1', [holding]) },
      { path: '/registry/allocation-instruction/v1/allocation-factory', args: allocateV1('rounds', [holding]) },
      // needs no round: answers whatever the rounds
      { path: '/registry/allocation-instruction/v2/allocation-factory', args: allocateV2('rounds', alice, [side('rounds-a', 'SenderSide', bob, '1')], [holding]) },
    ];
    const compare = async (state: string, roundStatus: number) => {
      await Promise.all([builtin.index.catchUp(), declarative.index.catchUp()]);
      for (const r of factoryRequests) {
        const body = { choiceArguments: r.args };
        const [a, b] = [await call(builtin, 'POST', r.path, body), await call(declarative, 'POST', r.path, body)];
        expect(b, `${state}: ${r.path}`).toEqual(a);
        expect(a.status, `${state}: ${r.path} ${JSON.stringify(a.body)}`).toBe(r.path.includes('/v2/allocation-factory') ? 200 : roundStatus);
        if (a.status === 404) expect(a.body).toEqual({ error: 'No open usable OpenMiningRound found.' });
      }
    };
    const numbers = () => openMiningRounds(engine, dso).map((r) => BigInt(r.payload.round.number));
    const [r0, , r2] = openMiningRounds(engine, dso);
    const n = BigInt(r0!.payload.round.number);
    expect(numbers()).toEqual([n, n + 1n, n + 2n]);
    await compare('three consecutive rounds', 200);

    await archive(r2!.contractId, ROUND, [dso]);
    expect(numbers()).toEqual([n, n + 1n]);
    await compare('two rounds', 404);

    await createRound(r2!.payload, n + 3n);
    expect(numbers()).toEqual([n, n + 1n, n + 3n]);
    await compare('three rounds with a gap', 404);

    await createRound(r2!.payload, n + 2n);
    expect(numbers()).toEqual([n, n + 1n, n + 2n, n + 3n]);
    await compare('four consecutive rounds', 404);

    const [, , , r3] = openMiningRounds(engine, dso);
    await archive(r3!.contractId, ROUND, [dso]);
    expect(numbers()).toEqual([n, n + 1n, n + 2n]);
    await compare('three consecutive rounds again', 200);
  });
});

describe("Amulet as a declarative recipe when the DSO's own contracts are missing", () => {
  // Scan looks up AmuletRules, then the open round, then the factory (ExternalPartyAmuletRules) for
  // transfers and V1 allocations, and the factory before the allocations of a settlement
  // (Splice `ChoiceContextBuilder.getAmuletRulesTransferContext`, `HttpTokenStandardAllocationHandler`):
  // with several of them missing, the first missing one is the 404, as the recipe's `after` orders it
  const TEMPLATE = {
    rules: '#splice-amulet:Splice.AmuletRules:AmuletRules',
    factory: '#splice-amulet:Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules',
    round: '#splice-amulet:Splice.Round:OpenMiningRound',
    state: '#splice-amulet:Splice.ExternalPartyConfigState:ExternalPartyConfigState',
  } as const;
  type Which = keyof typeof TEMPLATE;
  const dsoContracts = (which: Which) => {
    const end = engine.ledgerEnd();
    return engine.contracts.activeAt(end, end, new Set([dso]), new Set([TEMPLATE[which].slice(1)])).filter((c) => (c.payload as { dso?: string }).dso === dso);
  };
  let created = 0;

  /** Archives the DSO's contracts of these templates (all, or `keep` of the rounds), runs `check`, then creates them again. */
  async function without(missing: Array<Which | 'one-round'>, check: () => Promise<void>): Promise<void> {
    const gone: Array<{ which: Which; payload: unknown }> = [];
    for (const m of missing) {
      const which: Which = m === 'one-round' ? 'round' : m;
      const contracts = m === 'one-round' ? dsoContracts('round').slice(-1) : dsoContracts(which);
      expect(contracts.length, `${m} to archive`).toBeGreaterThan(0);
      for (const c of contracts) {
        await archive(c.contractId, TEMPLATE[which], [dso]);
        gone.push({ which, payload: c.payload });
      }
    }
    try {
      await check();
    } finally {
      for (const g of gone) {
        await submitAs([dso], { CreateCommand: { templateId: TEMPLATE[g.which], createArguments: g.payload } }, `recreate-${++created}`);
      }
    }
  }

  it('answers the same 404 as the built-in, whichever of AmuletRules, the open rounds, ExternalPartyAmuletRules and the config state are missing', async () => {
    const holding = tapAmulet(engine, { dso, receiver: alice, amount: '3' });
    const unknownCid = `00${'cd'.repeat(34)}`;
    // live objects, with their lock and with it gone, whose contexts read (legacy) the rules and the round
    const offer = async (amount: string) =>
      outputCid((await viaFactory('/registry/transfer-instruction/v1/transfer-factory', alice, TF1, 'TransferFactory_Transfer', (c) => transferV1(alice, bob, amount, [tapAmulet(engine, { dso, receiver: alice, amount })], c))).result, 'transferInstructionCid');
    const [offerLive, offerLockGone] = [await offer('1'), await offer('2')];
    await archiveLockOf(offerLockGone);
    const allocLiveV1 = outputCid((await viaFactory('/registry/allocation-instruction/v1/allocation-factory', alice, AF1, 'AllocationFactory_Allocate', (c) => allocateV1('missing-v1', [tapAmulet(engine, { dso, receiver: alice, amount: '2' })], c))).result, 'allocationCid');
    const allocLiveV2 = outputCid(
      (await viaFactory('/registry/allocation-instruction/v2/allocation-factory', alice, AF2, 'AllocationFactory_Allocate', (c) => allocateV2('missing-v2', alice, [side('missing-v2-a', 'SenderSide', bob, '1')], [tapAmulet(engine, { dso, receiver: alice, amount: '1' })], c))).result,
      'allocationCid',
    );
    const contexts = [
      ...[offerLive, offerLockGone].flatMap((id) => ['accept', 'reject', 'withdraw'].map((action) => `/registry/transfer-instruction/v1/${id}/choice-contexts/${action}`)),
      ...[allocLiveV1, allocLiveV2, o.lockGoneV1, o.lockGoneV2].flatMap((id) => [
        `/registry/allocations/v1/${id}/choice-contexts/execute-transfer`,
        `/registry/allocations/v1/${id}/choice-contexts/withdraw`,
        `/registry/allocations/v2/${id}/choice-contexts/cancel`,
      ]),
    ];
    const requests = [
      { path: '/registry/transfer-instruction/v1/transfer-factory', args: transferV1(alice, bob, '1', [holding]) },
      { path: '/registry/transfer-instruction/v1/transfer-factory', args: transferV1(alice, alice, '1', [holding]) },
      { path: '/registry/transfer-instruction/v1/transfer-factory', args: transferV1(alice, carol, '1', [holding]) },
      { path: '/registry/transfer-instruction/v2/transfer-factory', args: transferV2(alice, bob, '1', [holding]) },
      { path: '/registry/allocation-instruction/v1/allocation-factory', args: allocateV1('missing', [holding]) },
      { path: '/registry/allocation-instruction/v2/allocation-factory', args: allocateV2('missing', alice, [side('missing-a', 'SenderSide', bob, '1')], [holding]) },
      ...[[unknownCid], [o.lockGoneV2], [o.lockGoneV1], [o.otherDsoAlloc], ['not-a-cid'], [o.allocUnfunded], [o.allocUnfunded, unknownCid], [allocLiveV2], [allocLiveV1]].map((cids) => ({
        path: '/registry/allocation/v2/settlement-factory',
        args: settle('missing', cids),
      })),
    ];
    const errors = new Set<string>();
    const pairs = [
      { compat: 'current', builtin, declarative },
      { compat: 'legacy', ...legacy },
    ];
    const compare = async (state: string) => {
      await catchUpAll();
      for (const pair of pairs) {
        for (const r of requests) {
          const body = { choiceArguments: r.args };
          const [a, b] = [await call(pair.builtin, 'POST', r.path, body), await call(pair.declarative, 'POST', r.path, body)];
          expect(b, `${pair.compat}, ${state}: ${r.path} ${JSON.stringify(r.args).slice(0, 200)}`).toEqual(a);
          if (a.status === 404) errors.add(`${pair.compat}: ${(a.body as { error: string }).error.replace(dso, '<dso>').replace(/'[0-9a-f]+'/g, "'<cid>'")}`);
        }
        for (const path of contexts) {
          const [a, b] = [await call(pair.builtin, 'POST', path, {}), await call(pair.declarative, 'POST', path, {})];
          expect(b, `${pair.compat}, ${state}: ${path}`).toEqual(a);
          if (a.status === 404) errors.add(`${pair.compat}: ${(a.body as { error: string }).error.replace(dso, '<dso>').replace(/'[0-9a-f]+'/g, "'<cid>'")}`);
        }
      }
    };
    await without(['rules'], () => compare('no AmuletRules'));
    await without(['factory'], () => compare('no ExternalPartyAmuletRules'));
    await without(['rules', 'factory'], () => compare('neither AmuletRules nor ExternalPartyAmuletRules'));
    await without(['round', 'factory'], () => compare('no open round, no ExternalPartyAmuletRules'));
    await without(['one-round', 'factory'], () => compare('two open rounds, no ExternalPartyAmuletRules'));
    await without(['rules', 'round'], () => compare('neither AmuletRules nor an open round'));
    await without(['round'], () => compare('no open round'));
    await without(['one-round'], () => compare('two open rounds'));
    await without(['state'], () => compare('no ExternalPartyConfigState'));
    await without(['state', 'factory'], () => compare('no ExternalPartyConfigState, no ExternalPartyAmuletRules'));
    await without(['rules', 'round', 'factory', 'state'], () => compare('none of them'));
    await compare('all of them again');
    // each missing contract answered first somewhere
    const firsts = ['No AmuletRules contract of <dso> found on the ledger', 'No ExternalPartyAmuletRules contract of <dso> found on the ledger', 'No open usable OpenMiningRound found.'];
    expect([...errors].sort()).toEqual(expect.arrayContaining([...firsts.map((e) => `current: ${e}`), ...firsts.map((e) => `legacy: ${e}`)]));
  });
});

describe('Amulet legacy as a declarative recipe: what a wallet builds from its answers commits', () => {
  const postLegacy = (path: string, body: unknown) => call(legacy.declarative, 'POST', path, body);
  async function legacyFactory(path: string, actAs: string, iface: string, choice: string, args: (context: unknown) => unknown): Promise<unknown> {
    const f = await postLegacy(path, { choiceArguments: args(noMeta) });
    expect(f.status, JSON.stringify(f.body)).toBe(200);
    const factory = factoryOf(f.body);
    expect(Object.keys(contextValues(factory.choiceContext.choiceContextData))).toEqual(expect.arrayContaining(['amulet-rules', 'open-round']));
    return exercise([actAs], iface, factory.factoryId, choice, args(factory.choiceContext.choiceContextData), factory.choiceContext.disclosedContracts);
  }
  async function legacyContext(path: string, actAs: string, iface: string, cid: string, choice: string, arg: (context: unknown) => unknown): Promise<unknown> {
    const a = await postLegacy(path, {});
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    const ctx = contextOf(a.body);
    return exercise([actAs], iface, cid, choice, arg(ctx.choiceContextData), ctx.disclosedContracts);
  }

  it('an offer and its accept, a V1 allocation withdrawn, a DvP of V2 allocations settled', async () => {
    await catchUpAll();
    const h1 = tapAmulet(engine, { dso, receiver: alice, amount: '6' });
    const offer = await legacyFactory('/registry/transfer-instruction/v1/transfer-factory', alice, TF1, 'TransferFactory_Transfer', (c) => transferV1(alice, bob, '6', [h1], c));
    const offerCid = outputCid(offer, 'transferInstructionCid');
    await catchUpAll();
    const accepted = await legacyContext(`/registry/transfer-instruction/v1/${offerCid}/choice-contexts/accept`, bob, TI1, offerCid, 'TransferInstruction_Accept', (context) => ({ extraArgs: { context, meta: noMeta } }));
    expect(outputTag(accepted)).toBe('TransferInstructionResult_Completed');

    const h2 = tapAmulet(engine, { dso, receiver: alice, amount: '2' });
    const a1 = await legacyFactory('/registry/allocation-instruction/v1/allocation-factory', alice, AF1, 'AllocationFactory_Allocate', (c) => allocateV1('legacy-v1', [h2], c));
    const allocV1 = outputCid(a1, 'allocationCid');
    await catchUpAll();
    await legacyContext(`/registry/allocations/v1/${allocV1}/choice-contexts/withdraw`, alice, AL1, allocV1, 'Allocation_Withdraw', (context) => ({ extraArgs: { context, meta: noMeta } }));

    const h3 = tapAmulet(engine, { dso, receiver: alice, amount: '30' });
    const h4 = tapAmulet(engine, { dso, receiver: bob, amount: '10' });
    const mine = await legacyFactory('/registry/allocation-instruction/v2/allocation-factory', alice, AF2, 'AllocationFactory_Allocate', (c) =>
      allocateV2('legacy-dvp', alice, [side('legacy-dvp-a', 'SenderSide', bob, '30'), side('legacy-dvp-b', 'ReceiverSide', bob, '10')], [h3], c),
    );
    const theirs = await legacyFactory('/registry/allocation-instruction/v2/allocation-factory', bob, AF2, 'AllocationFactory_Allocate', (c) =>
      allocateV2('legacy-dvp', bob, [side('legacy-dvp-a', 'ReceiverSide', alice, '30'), side('legacy-dvp-b', 'SenderSide', alice, '10')], [h4], c),
    );
    await catchUpAll();
    const cids = [outputCid(mine, 'allocationCid'), outputCid(theirs, 'allocationCid')];
    const settled = await legacyFactory('/registry/allocation/v2/settlement-factory', executor, SF2, 'SettlementFactory_SettleBatch', (c) => settle('legacy-dvp', cids, c));
    expect(settled).toBeDefined();
  });
});
