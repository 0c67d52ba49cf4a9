/**
 * The worked examples of docs/recipes.md (docs/examples/*.registry.json), loaded as `serve` loads
 * them and run over the emulated ledger:
 *  - every example is a valid registry configuration (recipes included);
 *  - TestTokenV1 written as a declarative recipe answers every registry endpoint, both versions,
 *    exactly as the built-in `splice-test-token-v1` recipe does over the same ledger (status and
 *    body), bad input included; and what it answers commits when a wallet submits it;
 *  - the Acme example (a model with its own context entries) answers its extra entries.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { buildEmulator } from '../../../src/emulator/index.js';
import { ManualClock } from '../../../src/canton/clock.js';
import { createTestTokenV1Rules, mintTestTokenV1, registerTestTokenV1 } from '../../../src/emulator/templates/test-token-v1/index.js';
import { MemoryCache } from '../../../src/cache/memory-cache.js';
import { LedgerClient } from '../../../src/ledger-client/client.js';
import { noAuth } from '../../../src/ledger-client/auth.js';
import { createRegistry } from '../../../src/registry/index.js';
import { TestTokenV1Recipe } from '../../../src/registry/recipes/test-token-v1.js';
import { TestTokenV2Recipe } from '../../../src/registry/recipes/test-token-v2.js';
import { createTestTokenV2Account, createTestTokenV2Rules, mintTestTokenV2, registerTestTokenV2 } from '../../../src/emulator/templates/test-token-v2/index.js';
import { declarativeRecipes } from '../../../src/registry/recipes/index.js';
import { inProcessFetch } from '../../../src/ledger-client/in-process.js';
import { parseRegistryConfig } from '../../../src/serve.js';
import { contextOf, contextValues, factoryOf, outputCid, outputTag } from '../../support/registry-wire.js';
import { walletExercise } from '../../support/wallet-submit.js';
import { callRegistry, recipeRegistries } from '../../support/recipe-differential.js';

const EXAMPLES = fileURLToPath(new URL('../../../docs/examples/', import.meta.url));
const example = (file: string): unknown => JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8'));

describe('docs/examples', () => {
  it('every example is a registry configuration that serve accepts, recipes included', () => {
    const files = readdirSync(EXAMPLES).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThanOrEqual(2);
    for (const f of files) {
      const config = parseRegistryConfig(example(f));
      expect(config.recipes.length, f).toBeGreaterThan(0);
    }
  });
});

// ---- TestTokenV1: built-in vs declarative ----------------------------------------------------------

const logger = pino({ level: 'silent' });
const clock = new ManualClock('2026-05-01T10:00:00Z');
const emu = buildEmulator({ config: { demoWorld: false, logLevel: 'silent' }, clock });
registerTestTokenV1(emu.engine.templates);
const admin = emu.engine.parties.allocate('admin').party;
const alice = emu.engine.parties.allocate('alice').party;
const bob = emu.engine.parties.allocate('bob').party;
const stranger = emu.engine.parties.allocate('stranger').party;
const exercise = walletExercise(emu.app, 'recipe-examples');

const TT1_EXAMPLE = parseRegistryConfig(example('test-token-v1.registry.json'));

const { builtin, declarative } = recipeRegistries({ ledger: emu.app, admin, example: TT1_EXAMPLE, builtin: { name: 'splice-test-token-v1', recipe: new TestTokenV1Recipe() }, clock, logger });

const call = callRegistry;

const I = (id = 'TT1') => ({ admin, id });
const meta = { values: {} };
function transferV1(sender: string, receiver: string, amount: string, inputs: string[], instrumentId = I()) {
  return {
    expectedAdmin: admin,
    transfer: { sender, receiver, amount, instrumentId, requestedAt: '2026-05-01T09:59:00Z', executeBefore: '2026-05-02T10:00:00Z', inputHoldingCids: inputs, meta },
    extraArgs: { context: { values: {} }, meta },
  };
}
function transferV2(sender: string, receiver: string, amount: string, inputs: string[]) {
  const { expectedAdmin: _v1Only, ...v1 } = transferV1(sender, receiver, amount, inputs);
  const account = (p: string) => ({ owner: p, provider: null, id: '' });
  return { ...v1, transfer: { ...v1.transfer, sender: account(sender), receiver: account(receiver) }, actors: [sender] };
}
function allocateV1(sender: string, receiver: string, amount: string, inputs: string[]) {
  return {
    expectedAdmin: admin,
    allocation: {
      settlement: {
        executor: admin,
        settlementRef: { id: 'trade-1', cid: null },
        requestedAt: '2026-05-01T09:59:00Z',
        allocateBefore: '2026-05-02T10:00:00Z',
        settleBefore: '2026-05-03T10:00:00Z',
        meta,
      },
      transferLegId: 'leg-1',
      transferLeg: { sender, receiver, amount, instrumentId: I(), meta },
    },
    requestedAt: '2026-05-01T09:59:00Z',
    inputHoldingCids: inputs,
    extraArgs: { context: { values: {} }, meta },
  };
}

const TRANSFER_FACTORY = '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory';
const TRANSFER_INSTRUCTION = '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction';
const ALLOCATION_FACTORY = '#splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationFactory';

let offer = '';
let allocation = '';
let holding = '';

beforeAll(async () => {
  createTestTokenV1Rules(emu.engine, admin);
  holding = mintTestTokenV1(emu.engine, { admin, owner: alice, instrumentId: 'TT1', amount: '100' });
  await Promise.all([builtin.start(), declarative.start()]);
  // An offer alice -> bob and an allocation, made from the declarative registry's answers.
  const args = transferV1(alice, bob, '10', [holding]);
  const f = await call(declarative, 'POST', '/registry/transfer-instruction/v1/transfer-factory', { choiceArguments: args });
  expect(f.status, JSON.stringify(f.body)).toBe(200);
  const factory = factoryOf(f.body);
  args.extraArgs.context = factory.choiceContext.choiceContextData as { values: Record<string, never> };
  const result = await exercise([alice], TRANSFER_FACTORY, factory.factoryId, 'TransferFactory_Transfer', args, factory.choiceContext.disclosedContracts);
  expect(outputTag(result)).toBe('TransferInstructionResult_Pending');
  offer = outputCid(result, 'transferInstructionCid');

  const more = mintTestTokenV1(emu.engine, { admin, owner: alice, instrumentId: 'TT1', amount: '20' });
  const allocArgs = allocateV1(alice, bob, '5', [more]);
  const af = await call(declarative, 'POST', '/registry/allocation-instruction/v1/allocation-factory', { choiceArguments: allocArgs });
  expect(af.status, JSON.stringify(af.body)).toBe(200);
  const afactory = factoryOf(af.body);
  allocArgs.extraArgs.context = afactory.choiceContext.choiceContextData as { values: Record<string, never> };
  const aresult = await exercise([alice], ALLOCATION_FACTORY, afactory.factoryId, 'AllocationFactory_Allocate', allocArgs, afactory.choiceContext.disclosedContracts);
  expect(outputTag(aresult)).toBe('AllocationInstructionResult_Completed');
  allocation = outputCid(aresult, 'allocationCid');
});
afterAll(async () => {
  await Promise.all([builtin.stop(), declarative.stop()]);
});

/** Every registry endpoint, both versions, with good and bad input. */
function requests(): Array<{ method: 'GET' | 'POST'; path: string; body?: unknown }> {
  const out: Array<{ method: 'GET' | 'POST'; path: string; body?: unknown }> = [];
  for (const path of [
    '/registry/metadata/v1/info',
    '/registry/metadata/v1/instruments',
    '/registry/metadata/v1/instruments?pageSize=1',
    '/registry/metadata/v1/instruments?pageToken=bogus',
    '/registry/metadata/v1/instruments/TT1',
    '/registry/metadata/v1/instruments/NOPE',
  ]) {
    out.push({ method: 'GET', path });
  }
  const factoryBodies = (v: 1 | 2) => {
    const t = v === 1 ? transferV1 : transferV2;
    return [
      { choiceArguments: t(alice, alice, '1', [holding]) },
      { choiceArguments: t(alice, bob, '1', [holding]), excludeDebugFields: true },
      { choiceArguments: t(alice, bob, '-1', [holding]) },
      { choiceArguments: t(alice, bob, '0.00000000001', [holding]) },
      { choiceArguments: { ...t(alice, bob, '1', []), expectedAdmin: stranger } },
      { choiceArguments: transferV1(alice, bob, '1', [], { admin, id: 'NOPE' }) },
      { choiceArguments: transferV1(alice, bob, '1', [], { admin: stranger, id: 'TT1' }) },
      { choiceArguments: {} },
      {},
      '{"choiceArguments":',
    ];
  };
  for (const v of [1, 2] as const) {
    for (const body of factoryBodies(v)) out.push({ method: 'POST', path: `/registry/transfer-instruction/v${v}/transfer-factory`, body });
    for (const body of [{ choiceArguments: allocateV1(alice, bob, '1', [holding]) }, { choiceArguments: allocateV1(alice, bob, 'x', []) }, { choiceArguments: {} }]) {
      out.push({ method: 'POST', path: `/registry/allocation-instruction/v${v}/allocation-factory`, body });
    }
  }
  out.push({
    method: 'POST',
    path: '/registry/allocation/v2/settlement-factory',
    body: {
      choiceArguments: {
        settlement: { executors: [admin], id: 's' },
        transferLegs: [{ transferLegId: 'l', sender: { owner: alice, provider: null, id: '' }, receiver: { owner: bob, provider: null, id: '' }, amount: '1', instrumentId: 'TT1' }],
        allocations: [],
        actors: [admin],
      },
    },
  });
  const unknownCid = `00${'ab'.repeat(33)}`;
  for (const v of [1, 2]) {
    for (const action of ['accept', 'reject', 'withdraw']) {
      for (const id of [offer, allocation, unknownCid, 'not-a-cid']) {
        out.push({ method: 'POST', path: `/registry/transfer-instruction/v${v}/${id}/choice-contexts/${action}`, body: {} });
      }
    }
    for (const action of ['execute-transfer', 'withdraw', 'cancel']) {
      for (const id of [allocation, offer, unknownCid]) out.push({ method: 'POST', path: `/registry/allocations/v${v}/${id}/choice-contexts/${action}`, body: { excludeDebugFields: true } });
    }
  }
  for (const action of ['accept', 'withdraw']) {
    for (const id of [offer, allocation, unknownCid]) out.push({ method: 'POST', path: `/registry/allocation-instruction/v2/${id}/choice-contexts/${action}`, body: {} });
  }
  return out;
}

describe('TestTokenV1 as a declarative recipe (docs/examples/test-token-v1.registry.json)', () => {
  it('answers every endpoint, both versions, bad input included, exactly as the built-in recipe', async () => {
    const all = requests();
    expect(all.length).toBeGreaterThan(80);
    const statuses = new Set<number>();
    for (const r of all) {
      const [a, b] = [await call(builtin, r.method, r.path, r.body), await call(declarative, r.method, r.path, r.body)];
      expect(b, `${r.method} ${r.path} ${JSON.stringify(r.body)?.slice(0, 200)}`).toEqual(a);
      statuses.add(a.status);
    }
    // the comparison covered answers and refusals alike
    expect([...statuses].sort()).toEqual([200, 400, 404]);
  });

  it('v2 per-contract contexts of the V1-only token: the built-in 400, word for word', async () => {
    const a = await call(declarative, 'POST', `/registry/transfer-instruction/v2/${offer}/choice-contexts/accept`, {});
    expect(a).toEqual({ status: 400, body: { error: 'splice-test-token-v1 implements only the V1 transfer instruction API; use /v1' } });
    const w = await call(declarative, 'POST', `/registry/allocations/v2/${allocation}/choice-contexts/withdraw`, {});
    expect(w).toEqual({ status: 400, body: { error: 'splice-test-token-v1 implements only the V1 allocation API; use /v1' } });
  });

  it("an instrument's own supportedApis decide the versions its per-contract contexts answer", async () => {
    const instrument = TT1_EXAMPLE.instruments[0]!;
    const withV2 = createRegistry({
      admin,
      instruments: [{ ...instrument, supportedApis: { ...TT1_EXAMPLE.recipes[0]!.supportedApis, 'splice-api-token-transfer-instruction-v2': 1 } }],
      recipes: declarativeRecipes(TT1_EXAMPLE.recipes),
      ledger: new LedgerClient({ baseUrl: 'http://ledger', tokenProvider: noAuth, fetch: inProcessFetch(emu.app) }),
      cache: new MemoryCache({ defaultTtlSeconds: 600, logger }),
      clock,
      logger,
    });
    await withV2.start();
    try {
      expect(await call(withV2, 'POST', `/registry/transfer-instruction/v2/${offer}/choice-contexts/accept`, {})).toEqual({
        status: 200,
        body: { choiceContextData: { values: {} }, disclosedContracts: [] },
      });
      // allocation-v2 is still not listed
      expect((await call(withV2, 'POST', `/registry/allocations/v2/${allocation}/choice-contexts/withdraw`, {})).status).toBe(400);
    } finally {
      await withV2.stop();
    }
  });

  it("the accept context built from the declarative recipe's answer commits: bob gets the tokens", async () => {
    const ctx = contextOf((await call(declarative, 'POST', `/registry/transfer-instruction/v1/${offer}/choice-contexts/accept`, {})).body);
    const result = await exercise([bob], TRANSFER_INSTRUCTION, offer, 'TransferInstruction_Accept', { extraArgs: { context: ctx.choiceContextData, meta } }, ctx.disclosedContracts);
    expect(outputTag(result)).toBe('TransferInstructionResult_Completed');
  });
});

// ---- TestTokenV2: built-in vs declarative ----------------------------------------------------------

describe('TestTokenV2 as a declarative recipe (docs/examples/test-token-v2.registry.json)', () => {
  const clock2 = new ManualClock('2026-05-01T10:00:00Z');
  const emu2 = buildEmulator({ config: { demoWorld: false, logLevel: 'silent' }, clock: clock2 });
  registerTestTokenV2(emu2.engine.templates);
  const admin2 = emu2.engine.parties.allocate('admin').party;
  const alice2 = emu2.engine.parties.allocate('alice').party;
  const bob2 = emu2.engine.parties.allocate('bob').party;
  const carol2 = emu2.engine.parties.allocate('carol').party;
  const bank2 = emu2.engine.parties.allocate('bank').party;
  const zed2 = emu2.engine.parties.allocate('zed').party;
  const abe2 = emu2.engine.parties.allocate('abe').party;
  const exercise2 = walletExercise(emu2.app, 'recipe-examples-tt2');
  const TT2 = parseRegistryConfig(example('test-token-v2.registry.json'));
  const { builtin: builtin2, declarative: declarative2 } = recipeRegistries({ ledger: emu2.app, admin: admin2, example: TT2, builtin: { name: 'splice-test-token-v2', recipe: new TestTokenV2Recipe() }, clock: clock2, logger });
  const basicAccount = (p: string) => ({ owner: p, provider: null, id: '' });
  const carolAccount = { owner: carol2, provider: bank2, id: 'c-1' };
  const carolDirect = { owner: carol2, provider: bank2, id: 'd-1' };
  const carolByBank = { owner: carol2, provider: bank2, id: 'p-1' };
  const ID = { admin: admin2, id: 'TT2-USD' };
  const v1Args = (sender: string, receiver: string, amount: string, inputs: string[]) => ({
    expectedAdmin: admin2,
    transfer: { sender, receiver, amount, instrumentId: ID, requestedAt: '2026-05-01T09:59:00Z', executeBefore: '2026-05-02T10:00:00Z', inputHoldingCids: inputs, meta },
    extraArgs: { context: { values: {} }, meta },
  });
  const NO_OWNER = 'cip-112_no-owner::1220000000000000000000000000000000000000000000000000000000000000abcd';
  const withMeta = (a: ReturnType<typeof v1Args>, values: Record<string, string>) => ({ ...a, transfer: { ...a.transfer, meta: { values } } });
  const v2Args = (sender: object, receiver: object, amount: string, inputs: string[], actors: string[]) => {
    const { expectedAdmin: _v1Only, ...v1 } = v1Args(alice2, bob2, amount, inputs);
    return { ...v1, transfer: { ...v1.transfer, sender, receiver }, actors };
  };
  const v2Meta = (a: ReturnType<typeof v2Args>, values: Record<string, string>) => ({ ...a, transfer: { ...a.transfer, meta: { values } } });
  let aliceHolding = '';
  let offer2 = '';

  beforeAll(async () => {
    createTestTokenV2Rules(emu2.engine, admin2);
    createTestTokenV2Account(emu2.engine, { admin: admin2, owner: carol2, provider: bank2, id: 'c-1' });
    // carol's second account at the bank, id "": what V1 metadata naming only the provider means
    createTestTokenV2Account(emu2.engine, { admin: admin2, owner: carol2, provider: bank2 });
    // the bank's account without owner (a CIP-112 special account), which V1 names by the owner stub
    createTestTokenV2Account(emu2.engine, { admin: admin2, owner: null, provider: bank2, id: 's-1' });
    // carol's third account: carol initiates alone, the bank need not approve (its authority passes to carol's actions)
    createTestTokenV2Account(emu2.engine, { admin: admin2, owner: carol2, provider: bank2, id: 'd-1', providerConfig: { canInitiate: false, mustApprove: false } });
    // alice's account at zed (whose party id sorts after alice's), where alice may not initiate alone
    createTestTokenV2Account(emu2.engine, { admin: admin2, owner: alice2, provider: zed2, id: 'z-1', ownerConfig: { canInitiate: false, mustApprove: true } });
    // an account without owner at abe (whose party id sorts before the admin's)
    createTestTokenV2Account(emu2.engine, { admin: admin2, owner: null, provider: abe2, id: 'a-1' });
    // an account without owner whose provider is the admin itself: its one party is the admin
    createTestTokenV2Account(emu2.engine, { admin: admin2, owner: null, provider: admin2, id: 'm-1' });
    // carol's fourth account: the bank initiates alone, carol need not approve (her authority passes to the bank's actions)
    createTestTokenV2Account(emu2.engine, { admin: admin2, owner: carol2, provider: bank2, id: 'p-1', ownerConfig: { canInitiate: true, mustApprove: false } });
    // bob's account at the bank (whose party id sorts before bob's), where bob may not initiate alone
    createTestTokenV2Account(emu2.engine, { admin: admin2, owner: bob2, provider: bank2, id: 'b-1', ownerConfig: { canInitiate: false, mustApprove: true } });
    aliceHolding = mintTestTokenV2(emu2.engine, { admin: admin2, owner: alice2, instrumentId: 'TT2-USD', amount: '100' });
    mintTestTokenV2(emu2.engine, { admin: admin2, account: carolAccount, instrumentId: 'TT2-USD', amount: '50' });
    await Promise.all([builtin2.start(), declarative2.start()]);
    // an offer alice -> bob, made from the declarative registry's answer
    const args = v1Args(alice2, bob2, '10', [aliceHolding]);
    const f = await call(declarative2, 'POST', '/registry/transfer-instruction/v1/transfer-factory', { choiceArguments: args });
    expect(f.status, JSON.stringify(f.body)).toBe(200);
    const factory = factoryOf(f.body);
    args.extraArgs.context = factory.choiceContext.choiceContextData as { values: Record<string, never> };
    const result = await exercise2([alice2], TRANSFER_FACTORY, factory.factoryId, 'TransferFactory_Transfer', args, factory.choiceContext.disclosedContracts);
    expect(outputTag(result)).toBe('TransferInstructionResult_Pending');
    offer2 = outputCid(result, 'transferInstructionCid');
  });
  afterAll(async () => {
    await Promise.all([builtin2.stop(), declarative2.stop()]);
  });

  it('answers the transfer and allocation factories and the transfer-instruction contexts, both versions, as the built-in recipe (accounts with and without an AccountConfig)', async () => {
    const all: Array<{ method: 'GET' | 'POST'; path: string; body?: unknown }> = [
      { method: 'GET', path: '/registry/metadata/v1/instruments/TT2-USD' },
      { method: 'GET', path: '/registry/metadata/v1/instruments' },
    ];
    for (const body of [
      { choiceArguments: v1Args(alice2, alice2, '1', [aliceHolding]) },
      { choiceArguments: v1Args(alice2, bob2, '1', [aliceHolding]) },
      { choiceArguments: v1Args(alice2, bob2, '1', [aliceHolding]), excludeDebugFields: true },
      { choiceArguments: v1Args(alice2, bob2, '-1', []) },
      { choiceArguments: { ...v1Args(alice2, bob2, '1', []), expectedAdmin: bob2 } },
      { choiceArguments: withMeta(v1Args(carol2, bank2, '1', []), { 'cip-112/sender.provider': bank2, 'cip-112/sender.id': 'd-1' }) },
      { choiceArguments: withMeta(v1Args(alice2, NO_OWNER, '1', [aliceHolding]), { 'cip-112/receiver.provider': bank2, 'cip-112/receiver.id': 's-1' }) },
      { choiceArguments: withMeta(v1Args(carol2, carol2, '1', []), { 'cip-112/sender.provider': bank2, 'cip-112/sender.id': 'c-1', 'cip-112/receiver.provider': bank2, 'cip-112/receiver.id': 'c-1' }) },
      { choiceArguments: withMeta(v1Args(carol2, carol2, '1', []), { 'cip-112/sender.provider': bank2, 'cip-112/sender.id': 'd-1', 'cip-112/receiver.provider': bank2, 'cip-112/receiver.id': 'd-1' }) },
      // the V1 sender's upcast account does not let it initiate alone: refused with the groups that may, sorted
      { choiceArguments: withMeta(v1Args(alice2, bob2, '1', []), { 'cip-112/sender.provider': zed2, 'cip-112/sender.id': 'z-1' }) },
      { choiceArguments: withMeta(v1Args(bob2, alice2, '1', []), { 'cip-112/sender.provider': bank2, 'cip-112/sender.id': 'b-1' }) },
      { choiceArguments: withMeta(v1Args(NO_OWNER, alice2, '1', []), { 'cip-112/sender.provider': bank2, 'cip-112/sender.id': 's-1' }) },
      { choiceArguments: v1Args(NO_OWNER, alice2, '1', []) },
      { choiceArguments: withMeta(v1Args(NO_OWNER, alice2, '1', []), { 'cip-112/sender.provider': bank2, 'cip-112/sender.id': 'unknown' }) },
      // the owner stub of the admin's own account without owner: only the admin may initiate
      { choiceArguments: withMeta(v1Args(NO_OWNER, alice2, '1', []), { 'cip-112/sender.provider': admin2, 'cip-112/sender.id': 'm-1' }) },
      { choiceArguments: {} },
    ]) {
      all.push({ method: 'POST', path: '/registry/transfer-instruction/v1/transfer-factory', body });
    }
    for (const body of [
      { choiceArguments: v2Args(basicAccount(alice2), basicAccount(bob2), '1', [aliceHolding], [alice2]) },
      { choiceArguments: v2Args(basicAccount(alice2), carolAccount, '1', [aliceHolding], [alice2]) },
      { choiceArguments: v2Args(carolAccount, basicAccount(bob2), '1', [], [carol2, bank2]) },
      { choiceArguments: v2Args(basicAccount(alice2), basicAccount(bob2), '1.001', [], [alice2]) },
      // transferKind: self exactly when the actors, with the authority an AccountConfig passes on, complete both sides
      { choiceArguments: v2Args(carolAccount, carolAccount, '1', [], [carol2]) },
      { choiceArguments: v2Args(carolAccount, carolAccount, '1', [], [carol2, bank2]) },
      { choiceArguments: v2Args(carolAccount, basicAccount(bank2), '1', [], [carol2, bank2]) },
      { choiceArguments: v2Args(carolAccount, basicAccount(bank2), '1', [], [carol2]) },
      { choiceArguments: v2Args(carolDirect, basicAccount(bank2), '1', [], [carol2]) },
      { choiceArguments: v2Args(carolDirect, carolDirect, '1', [], [carol2]) },
      { choiceArguments: v2Args(carolDirect, carolAccount, '1', [], [carol2]) },
      { choiceArguments: v2Args(basicAccount(bank2), carolDirect, '1', [], [bank2]) },
      { choiceArguments: v2Args(carolDirect, basicAccount(bank2), '1', [], []) },
      // the provider acts with the owner's authority (the owner need not approve): the sender's step, then the receiver's with both
      { choiceArguments: v2Args(carolByBank, carolByBank, '1', [], [bank2]) },
      { choiceArguments: v2Args(carolByBank, basicAccount(carol2), '1', [], [bank2]) },
      { choiceArguments: v2Args(carolByBank, carolAccount, '1', [], [bank2]) },
      { choiceArguments: v2Args(carolByBank, basicAccount(bob2), '1', [], [bank2]) },
      { choiceArguments: v2Args(basicAccount(bank2), carolByBank, '1', [], [bank2]) },
      { choiceArguments: v2Args(carolByBank, carolByBank, '1', [], []) },
      // where the owner must approve, the provider alone does not complete the owner's step
      { choiceArguments: v2Args(carolAccount, carolAccount, '1', [], [bank2]) },
      { choiceArguments: v2Args(basicAccount(bank2), carolAccount, '1', [], [bank2]) },
      { choiceArguments: v2Args(basicAccount(alice2), basicAccount(alice2), '1', [], []) },
      { choiceArguments: v2Args(basicAccount(alice2), basicAccount(bob2), '1', [], []) },
      // actors that a basic account does not let initiate (not exactly its owner): refused naming the one group; repeated owner: allowed
      { choiceArguments: v2Args(basicAccount(alice2), basicAccount(bob2), '1', [aliceHolding], [bob2]) },
      { choiceArguments: v2Args(basicAccount(alice2), basicAccount(bob2), '1', [aliceHolding], [alice2, bob2]) },
      { choiceArguments: v2Args({ owner: alice2, provider: null, id: 'x-1' }, basicAccount(bob2), '1', [aliceHolding], [bob2]) },
      { choiceArguments: v2Args(basicAccount(alice2), basicAccount(bob2), '1', [aliceHolding], [alice2, alice2]) },
      // provider accounts: the groups their AccountConfig lets initiate, sorted (the provider's party id before or after the owner's)
      { choiceArguments: v2Args(carolAccount, basicAccount(bob2), '1', [], [bob2]) },
      { choiceArguments: v2Args(carolAccount, basicAccount(bob2), '1', [], [carol2, bob2]) },
      { choiceArguments: v2Args(carolAccount, basicAccount(bob2), '1', [], [bank2]) },
      { choiceArguments: v2Args(carolDirect, basicAccount(bob2), '1', [], [bank2]) },
      { choiceArguments: v2Args({ owner: alice2, provider: zed2, id: 'z-1' }, basicAccount(bob2), '1', [], [alice2]) },
      { choiceArguments: v2Args({ owner: alice2, provider: zed2, id: 'z-1' }, basicAccount(bob2), '1', [], [zed2]) },
      { choiceArguments: v2Args({ owner: alice2, provider: zed2, id: 'z-1' }, basicAccount(bob2), '1', [], [alice2, zed2]) },
      { choiceArguments: v2Args({ owner: alice2, provider: zed2, id: 'nope' }, basicAccount(bob2), '1', [], [bob2]) },
      // accounts without owner: the groups are the provider (if it may initiate) and the admin with the provider
      { choiceArguments: v2Args({ owner: null, provider: bank2, id: 's-1' }, basicAccount(bob2), '1', [], [carol2]) },
      { choiceArguments: v2Args({ owner: null, provider: bank2, id: 's-1' }, basicAccount(bob2), '1', [], [bank2, carol2]) },
      { choiceArguments: v2Args({ owner: null, provider: bank2, id: 's-1' }, basicAccount(bob2), '1', [], [admin2, bank2]) },
      { choiceArguments: v2Args({ owner: null, provider: bank2, id: 's-1' }, basicAccount(bob2), '1', [], [admin2, bank2, carol2]) },
      { choiceArguments: v2Args({ provider: abe2, id: 'a-1' }, basicAccount(bob2), '1', [], [admin2]) },
      { choiceArguments: v2Args({ provider: abe2, id: 'a-1' }, basicAccount(bob2), '1', [], [abe2, admin2]) },
      // the admin's own account without owner, and an account with neither owner nor provider: the admin alone
      { choiceArguments: v2Args({ owner: null, provider: admin2, id: 'm-1' }, basicAccount(bob2), '1', [], [bank2]) },
      { choiceArguments: v2Args({ owner: null, provider: admin2, id: 'm-1' }, basicAccount(bob2), '1', [], [admin2, bank2]) },
      { choiceArguments: v2Args({ owner: null, provider: admin2, id: 'm-1' }, basicAccount(bob2), '1', [], [admin2, admin2]) },
      { choiceArguments: v2Args({ owner: null, provider: null, id: 'n-1' }, basicAccount(bob2), '1', [], [bank2]) },
      { choiceArguments: v2Args({ owner: null, provider: null, id: '' }, basicAccount(bob2), '1', [], [admin2, bank2]) },
      { choiceArguments: v2Args({}, basicAccount(bob2), '1', [], [admin2]) },
      // account metadata in a V2 offer: refused, the offending keys listed in request order; in a self transfer: allowed
      { choiceArguments: v2Meta(v2Args(basicAccount(alice2), basicAccount(bob2), '1', [aliceHolding], [alice2]), { 'cip-112/receiver.id': 'r', note: 'x', 'cip-112/sender.provider': bank2, 'cip-112/sender.idx': 'y' }) },
      { choiceArguments: v2Meta(v2Args(basicAccount(alice2), basicAccount(alice2), '1', [aliceHolding], [alice2]), { 'cip-112/sender.id': 's' }) },
      { choiceArguments: {} },
    ]) {
      all.push({ method: 'POST', path: '/registry/transfer-instruction/v2/transfer-factory', body });
    }
    for (const [authorizer, actors] of [
      [carolAccount, [carol2, bank2]],
      [basicAccount(alice2), [bob2, alice2]],
      [carolAccount, [bob2]],
      [carolDirect, [bank2]],
      [{ owner: alice2, provider: zed2, id: 'z-1' }, [alice2]],
      [{ owner: null, provider: bank2, id: 's-1' }, [carol2]],
      [{ owner: null, provider: admin2, id: 'm-1' }, [bank2]],
      [{ owner: null, provider: admin2, id: 'm-1' }, [admin2]],
      [{ owner: null, provider: null, id: 'n-1' }, [carol2, admin2]],
      [{ owner: null, provider: null, id: '' }, [admin2]],
    ] as const) {
      all.push({
        method: 'POST',
        path: '/registry/allocation-instruction/v2/allocation-factory',
        body: {
          choiceArguments: {
            settlement: { executors: [admin2], id: 's-1', meta },
            allocation: {
              admin: admin2,
              authorizer,
              transferLegSides: [{ transferLegId: 'l-1', side: 'sender', otherside: basicAccount(bob2), amount: '1', instrumentId: 'TT2-USD', meta }],
              settlementDeadline: '2026-05-02T10:00:00Z',
            },
            requestedAt: '2026-05-01T09:59:00Z',
            inputHoldingCids: [],
            actors,
            extraArgs: { context: { values: {} }, meta },
          },
        },
      });
    }
    const unknownCid = `00${'cd'.repeat(33)}`;
    for (const v of [1, 2]) {
      for (const action of ['accept', 'reject', 'withdraw']) {
        for (const id of [offer2, unknownCid, 'nope']) all.push({ method: 'POST', path: `/registry/transfer-instruction/v${v}/${id}/choice-contexts/${action}`, body: {} });
      }
    }
    const statuses = new Set<number>();
    for (const r of all) {
      const [a, b] = [await call(builtin2, r.method, r.path, r.body), await call(declarative2, r.method, r.path, r.body)];
      expect(b, `${r.method} ${r.path} ${JSON.stringify(r.body)?.slice(0, 300)}`).toEqual(a);
      statuses.add(a.status);
    }
    expect([...statuses].sort()).toEqual([200, 400, 404]);
    const actorsRefused = await call(declarative2, 'POST', '/registry/transfer-instruction/v2/transfer-factory', { choiceArguments: v2Args(basicAccount(alice2), basicAccount(bob2), '1', [aliceHolding], [alice2, bob2]) });
    expect(actorsRefused).toEqual({
      status: 400,
      body: { error: `actors [${alice2}, ${bob2}] cannot initiate a transfer from account {owner: ${alice2}, provider: None, id: ""}: splice-test-token-v2 requires exactly one of these groups: [${alice2}]` },
    });
    const groupsRefused = await call(declarative2, 'POST', '/registry/transfer-instruction/v2/transfer-factory', { choiceArguments: v2Args({ owner: alice2, provider: zed2, id: 'z-1' }, basicAccount(bob2), '1', [], [alice2]) });
    expect(groupsRefused).toEqual({
      status: 400,
      body: { error: `actors [${alice2}] cannot initiate a transfer from account {owner: ${alice2}, provider: ${zed2}, id: "z-1"}: splice-test-token-v2 requires exactly one of these groups: [${alice2}, ${zed2}] or [${zed2}]` },
    });
    // the metadata refusal was among them, computed from the request
    const metaRefused = await call(declarative2, 'POST', '/registry/transfer-instruction/v2/transfer-factory', {
      choiceArguments: v2Meta(v2Args(basicAccount(alice2), basicAccount(bob2), '1', [aliceHolding], [alice2]), { 'cip-112/receiver.id': 'r', note: 'x', 'cip-112/sender.provider': bank2 }),
    });
    expect(metaRefused).toEqual({
      status: 400,
      body: { error: 'transfer.meta must not carry account metadata in a V2 transfer (cip-112/receiver.id, cip-112/sender.provider): give the accounts in transfer.sender and transfer.receiver' },
    });
    // the comparison covered both transfer kinds where sender and receiver differ and where they are the same
    const kinds: string[] = [];
    for (const [from, to, actors] of [
      [carolDirect, basicAccount(bank2), [carol2]],
      [carolAccount, carolAccount, [carol2]],
      // the provider with the owner's authority, on the sender's side and on the receiver's
      [carolByBank, carolByBank, [bank2]],
      [carolByBank, basicAccount(carol2), [bank2]],
      [basicAccount(bank2), carolByBank, [bank2]],
      [carolAccount, carolAccount, [bank2]],
    ] as const) {
      const r = await call(declarative2, 'POST', '/registry/transfer-instruction/v2/transfer-factory', { choiceArguments: v2Args(from, to, '1', [], [...actors]) });
      kinds.push((r.body as { transferKind: string }).transferKind);
    }
    expect(kinds).toEqual(['self', 'offer', 'self', 'self', 'self', 'offer']);
    // the V1 owner stub named the bank's owner-less account: its AccountConfig is in the context
    const special = await call(declarative2, 'POST', '/registry/transfer-instruction/v1/transfer-factory', {
      choiceArguments: withMeta(v1Args(alice2, NO_OWNER, '1', [aliceHolding]), { 'cip-112/receiver.provider': bank2, 'cip-112/receiver.id': 's-1' }),
    });
    expect(contextValues(factoryOf(special.body).choiceContext.choiceContextData)['testTokenV2/accountConfigs']).toMatchObject({ tag: 'AV_List', value: [{ tag: 'AV_ContractId' }] });
    // the comparison included a context with an AccountConfig (carol's provider account)
    const withConfig = await call(declarative2, 'POST', '/registry/transfer-instruction/v2/transfer-factory', {
      choiceArguments: v2Args(carolAccount, basicAccount(bob2), '1', [], [carol2, bank2]),
    });
    expect(withConfig.status, JSON.stringify(withConfig.body)).toBe(200);
    expect(contextValues(factoryOf(withConfig.body).choiceContext.choiceContextData)['testTokenV2/accountConfigs']).toMatchObject({ tag: 'AV_List', value: [{ tag: 'AV_ContractId' }] });
  });

  // ---- allocations, allocation instructions and the settlement factory ----
  const ALLOCATION_FACTORY_V2 = '#splice-api-token-allocation-instruction-v2:Splice.Api.Token.AllocationInstructionV2:AllocationFactory';
  const SETTLEMENT_FACTORY = '#splice-api-token-allocation-v2:Splice.Api.Token.AllocationV2:SettlementFactory';
  const ALLOCATION_V1 = '#splice-api-token-allocation-v1:Splice.Api.Token.AllocationV1:Allocation';
  const objects = { allocV2: '', bobAlloc: '', allocV1: '', instruction: '', fundingOnly: '', otherAdmin: '', lockGoneV2: '', lockGoneV1: '' };
  let archived = 0;
  /** Archives an allocation's locked Tokens (with the authority of their signatories) while the allocation stays active. */
  async function archiveLockedTokens(allocationCid: string): Promise<void> {
    const p = emu2.engine.contracts.get(allocationCid)!.payload as { lockedTokens?: Record<string, string[]>; allocationV2?: { lockedTokens: Record<string, string[]> } };
    const locked = Object.values(p.lockedTokens ?? p.allocationV2!.lockedTokens).flat();
    expect(locked.length).toBeGreaterThan(0);
    for (const cid of locked) {
      const { holding } = emu2.engine.contracts.get(cid)!.payload as { holding: { account: { owner: string | null; provider: string | null }; instrumentId: { admin: string } } };
      const signatories = [holding.account.owner, holding.account.provider, holding.instrumentId.admin].filter((x): x is string => x !== null);
      const r = await emu2.app.request('/v2/commands/submit-and-wait', {
        method: 'POST',
        body: JSON.stringify({
          commands: [{ ExerciseCommand: { templateId: '#splice-test-token-v2:Splice.Testing.Tokens.TestTokenV2.Holding:Token', contractId: cid, choice: 'Archive', choiceArgument: {} } }],
          commandId: `archive-locked-${++archived}`,
          actAs: [...new Set(signatories)],
          userId: 'recipe-examples-tt2',
        }),
      });
      expect(r.status, JSON.stringify(await r.clone().json())).toBe(200);
    }
  }
  const side = (s: 'SenderSide' | 'ReceiverSide', other: object, amount: string) => ({ transferLegId: 'leg-1', side: s, otherside: other, amount, instrumentId: 'TT2-USD', meta });
  const allocV2Args = (trade: string, authorizer: object, sides: object[], inputs: string[], actors: string[], context: unknown = { values: {} }) => ({
    settlement: { executors: [admin2], id: trade, cid: null, meta },
    allocation: { admin: admin2, authorizer, transferLegSides: sides, settlementDeadline: '2026-05-03T10:00:00Z', nextIterationFunding: null, committed: false, meta },
    requestedAt: '2026-05-01T09:59:00Z',
    inputHoldingCids: inputs,
    actors,
    extraArgs: { context, meta },
  });
  const allocV1Args = (sender: string, receiver: string, amount: string, inputs: string[], legMeta: object = meta, context: unknown = { values: {} }) => ({
    expectedAdmin: admin2,
    allocation: {
      settlement: { executor: admin2, settlementRef: { id: 'trade-v1', cid: null }, requestedAt: '2026-05-01T09:59:00Z', allocateBefore: '2026-05-02T10:00:00Z', settleBefore: '2026-05-03T10:00:00Z', meta },
      transferLegId: 'leg-1',
      transferLeg: { sender, receiver, amount, instrumentId: ID, meta: legMeta },
    },
    requestedAt: '2026-05-01T09:59:00Z',
    inputHoldingCids: inputs,
    extraArgs: { context, meta },
  });
  const settleArgs = (cids: string[], context: unknown = { values: {} }) => ({
    settlement: { executors: [admin2], id: 'trade-1', cid: null, meta },
    transferLegs: [{ transferLegId: 'leg-1', sender: basicAccount(alice2), receiver: basicAccount(bob2), amount: '5', instrumentId: 'TT2-USD', meta }],
    allocations: cids.map((allocationCid) => ({ allocationCid, extraTransferLegSides: [], nextIterationFunding: null })),
    actors: [admin2],
    extraArgs: { context, meta },
  });
  /** Allocates with the declarative registry's answer; the allocation (or pending instruction) cid. */
  async function allocate(path: string, iface: string, actAs: string[], args: (context: unknown) => unknown): Promise<{ tag: string; cid: string }> {
    const f = await call(declarative2, 'POST', path, { choiceArguments: args({ values: {} }) });
    expect(f.status, JSON.stringify(f.body)).toBe(200);
    const factory = factoryOf(f.body);
    const result = await exercise2(actAs, iface, factory.factoryId, 'AllocationFactory_Allocate', args(factory.choiceContext.choiceContextData), factory.choiceContext.disclosedContracts);
    const tag = outputTag(result);
    return { tag, cid: outputCid(result, tag === 'AllocationInstructionResult_Pending' ? 'allocationInstructionCid' : 'allocationCid') };
  }

  beforeAll(async () => {
    const h = mintTestTokenV2(emu2.engine, { admin: admin2, owner: alice2, instrumentId: 'TT2-USD', amount: '30' });
    const a = await allocate('/registry/allocation-instruction/v2/allocation-factory', ALLOCATION_FACTORY_V2, [alice2], (c) => allocV2Args('trade-1', basicAccount(alice2), [side('SenderSide', basicAccount(bob2), '5')], [h], [alice2], c));
    expect(a.tag).toBe('AllocationInstructionResult_Completed');
    objects.allocV2 = a.cid;
    const b = await allocate('/registry/allocation-instruction/v2/allocation-factory', ALLOCATION_FACTORY_V2, [bob2], (c) => allocV2Args('trade-1', basicAccount(bob2), [side('ReceiverSide', basicAccount(alice2), '5')], [], [bob2], c));
    objects.bobAlloc = b.cid;
    const h1 = mintTestTokenV2(emu2.engine, { admin: admin2, owner: alice2, instrumentId: 'TT2-USD', amount: '7' });
    const v1 = await allocate('/registry/allocation-instruction/v1/allocation-factory', ALLOCATION_FACTORY, [alice2], (c) => allocV1Args(alice2, bob2, '3', [h1], meta, c));
    expect(v1.tag).toBe('AllocationInstructionResult_Completed');
    objects.allocV1 = v1.cid;
    // carol initiates, her provider must still approve: a pending allocation instruction
    const pending = await allocate('/registry/allocation-instruction/v2/allocation-factory', ALLOCATION_FACTORY_V2, [carol2], (c) => allocV2Args('trade-2', carolAccount, [side('SenderSide', basicAccount(bob2), '1')], [], [carol2], c));
    expect(pending.tag).toBe('AllocationInstructionResult_Pending');
    objects.instruction = pending.cid;
    await Promise.all([builtin2.index.catchUp(), declarative2.index.catchUp()]);
    // an allocation with no leg sides, funding the next iteration only: the registry's factory
    // refuses to build one (no legs), the token accepts it; its instrument is the funded one
    const hf = mintTestTokenV2(emu2.engine, { admin: admin2, owner: alice2, instrumentId: 'TT2-USD', amount: '4' });
    const withLeg = allocV2Args('trade-3', basicAccount(alice2), [side('SenderSide', basicAccount(bob2), '1')], [hf], [alice2]);
    const f = factoryOf((await call(declarative2, 'POST', '/registry/allocation-instruction/v2/allocation-factory', { choiceArguments: withLeg })).body);
    const noLegs = allocV2Args('trade-3', basicAccount(alice2), [], [hf], [alice2], f.choiceContext.choiceContextData);
    const funded = await exercise2([alice2], ALLOCATION_FACTORY_V2, f.factoryId, 'AllocationFactory_Allocate', { ...noLegs, allocation: { ...noLegs.allocation, nextIterationFunding: { 'TT2-USD': '2' } } }, f.choiceContext.disclosedContracts);
    expect(outputTag(funded)).toBe('AllocationInstructionResult_Completed');
    objects.fundingOnly = outputCid(funded, 'allocationCid');
    // an allocation of another admin's token (same instrument id) that this registry's admin sees: it is its authorizer
    const admin3 = emu2.engine.parties.allocate('admin3').party;
    createTestTokenV2Rules(emu2.engine, admin3);
    const h3 = mintTestTokenV2(emu2.engine, { admin: admin3, owner: admin2, instrumentId: 'TT2-USD', amount: '5' });
    const otherRegistry = createRegistry({
      admin: admin3,
      instruments: [{ ...TT2.instruments[0]!, recipe: 'splice-test-token-v2' }],
      recipes: [new TestTokenV2Recipe()],
      ledger: new LedgerClient({ baseUrl: 'http://ledger', tokenProvider: noAuth, fetch: inProcessFetch(emu2.app) }),
      cache: new MemoryCache({ defaultTtlSeconds: 600, logger }),
      clock: clock2,
      logger,
      pollIdleMs: 20,
    });
    await otherRegistry.start();
    try {
      const otherArgs = (c: unknown) => {
        const a = allocV2Args('trade-4', basicAccount(admin2), [side('SenderSide', basicAccount(bob2), '1')], [h3], [admin2], c);
        return { ...a, settlement: { ...a.settlement, executors: [admin3] }, allocation: { ...a.allocation, admin: admin3 } };
      };
      const of = await call(otherRegistry, 'POST', '/registry/allocation-instruction/v2/allocation-factory', { choiceArguments: otherArgs({ values: {} }) });
      expect(of.status, JSON.stringify(of.body)).toBe(200);
      const ofx = factoryOf(of.body);
      const other = await exercise2([admin2], ALLOCATION_FACTORY_V2, ofx.factoryId, 'AllocationFactory_Allocate', otherArgs(ofx.choiceContext.choiceContextData), ofx.choiceContext.disclosedContracts);
      expect(outputTag(other)).toBe('AllocationInstructionResult_Completed');
      objects.otherAdmin = outputCid(other, 'allocationCid');
    } finally {
      await otherRegistry.stop();
    }
    // allocations (V2, and V1-made) whose locked Token was archived while they were not
    const hg2 = mintTestTokenV2(emu2.engine, { admin: admin2, owner: alice2, instrumentId: 'TT2-USD', amount: '6' });
    const g2 = await allocate('/registry/allocation-instruction/v2/allocation-factory', ALLOCATION_FACTORY_V2, [alice2], (c) => allocV2Args('trade-5', basicAccount(alice2), [side('SenderSide', basicAccount(bob2), '2')], [hg2], [alice2], c));
    objects.lockGoneV2 = g2.cid;
    await archiveLockedTokens(objects.lockGoneV2);
    const hg1 = mintTestTokenV2(emu2.engine, { admin: admin2, owner: alice2, instrumentId: 'TT2-USD', amount: '5' });
    const g1 = await allocate('/registry/allocation-instruction/v1/allocation-factory', ALLOCATION_FACTORY, [alice2], (c) => allocV1Args(alice2, bob2, '2', [hg1], meta, c));
    objects.lockGoneV1 = g1.cid;
    await archiveLockedTokens(objects.lockGoneV1);
    await Promise.all([builtin2.index.catchUp(), declarative2.index.catchUp()]);
  });

  it('answers allocations, allocation instructions, the settlement factory and provider accounts upcast from V1 metadata as the built-in recipe', async () => {
    const unknownCid = `00${'ef'.repeat(33)}`;
    const cip112 = { values: { 'cip-112/sender.provider': bank2, 'cip-112/sender.id': 'c-1' } };
    const all: Array<{ method: 'GET' | 'POST'; path: string; body?: unknown }> = [];
    const carolV1 = v1Args(carol2, bob2, '1', []);
    all.push({ method: 'POST', path: '/registry/transfer-instruction/v1/transfer-factory', body: { choiceArguments: { ...carolV1, transfer: { ...carolV1.transfer, meta: cip112 } } } });
    all.push({ method: 'POST', path: '/registry/allocation-instruction/v1/allocation-factory', body: { choiceArguments: allocV1Args(carol2, bob2, '1', [], cip112) } });
    all.push({ method: 'POST', path: '/registry/allocation-instruction/v1/allocation-factory', body: { choiceArguments: allocV1Args(alice2, bob2, '1', []) } });
    for (const [sender, legMeta] of [
      [bob2, { values: { 'cip-112/sender.provider': bank2, 'cip-112/sender.id': 'b-1' } }],
      [NO_OWNER, { values: { 'cip-112/sender.provider': bank2, 'cip-112/sender.id': 's-1' } }],
      [NO_OWNER, meta],
      [NO_OWNER, { values: { 'cip-112/sender.provider': admin2, 'cip-112/sender.id': 'm-1' } }],
    ] as const) {
      all.push({ method: 'POST', path: '/registry/allocation-instruction/v1/allocation-factory', body: { choiceArguments: allocV1Args(sender, alice2, '1', [], legMeta) } });
    }
    // V1 metadata without a `.id` key: account id "" (carol's second account), found as the built-in finds it
    const providerOnly = { values: { 'cip-112/sender.provider': bank2 } };
    all.push({ method: 'POST', path: '/registry/transfer-instruction/v1/transfer-factory', body: { choiceArguments: { ...carolV1, transfer: { ...carolV1.transfer, meta: providerOnly } } } });
    all.push({ method: 'POST', path: '/registry/allocation-instruction/v1/allocation-factory', body: { choiceArguments: allocV1Args(carol2, bob2, '1', [], providerOnly) } });
    // V1- and V2-made allocations mixed, either order: the locks are disclosed allocation by allocation
    // a contract that is not an allocation of the token (the offer): refused naming its template, in the order of the allocations
    for (const cids of [[objects.allocV2, objects.bobAlloc], [objects.allocV1], [objects.allocV1, objects.allocV2], [objects.allocV2, objects.allocV1], [unknownCid], ['not-a-cid'], [], [offer2], [objects.allocV2, offer2, unknownCid], [objects.allocV2, unknownCid, offer2], [objects.otherAdmin], [objects.allocV2, objects.otherAdmin, unknownCid], [objects.allocV2, unknownCid, objects.otherAdmin], [offer2, objects.otherAdmin], [objects.otherAdmin, offer2]]) {
      all.push({ method: 'POST', path: '/registry/allocation/v2/settlement-factory', body: { choiceArguments: settleArgs(cids) } });
    }
    const ids = [objects.allocV2, objects.bobAlloc, objects.allocV1, objects.instruction, objects.fundingOnly, objects.lockGoneV2, objects.lockGoneV1, offer2, unknownCid];
    for (const v of [1, 2]) {
      for (const action of ['execute-transfer', 'withdraw', 'cancel']) for (const id of ids) all.push({ method: 'POST', path: `/registry/allocations/v${v}/${id}/choice-contexts/${action}`, body: {} });
    }
    for (const action of ['accept', 'withdraw']) for (const id of ids) all.push({ method: 'POST', path: `/registry/allocation-instruction/v2/${id}/choice-contexts/${action}`, body: {} });
    const statuses = new Set<number>();
    for (const r of all) {
      const [a, b] = [await call(builtin2, r.method, r.path, r.body), await call(declarative2, r.method, r.path, r.body)];
      expect(b, `${r.method} ${r.path} ${JSON.stringify(r.body)?.slice(0, 300)}`).toEqual(a);
      statuses.add(a.status);
    }
    expect([...statuses].sort()).toEqual([200, 400, 404]);
    const notAllocation = await call(declarative2, 'POST', '/registry/allocation/v2/settlement-factory', { choiceArguments: settleArgs([objects.allocV2, offer2]) });
    expect(notAllocation.status).toBe(400);
    expect((notAllocation.body as { error: string }).error).toMatch(new RegExp(`^Contract ${offer2} \\([0-9a-f]{64}:Splice\\.Testing\\.Tokens\\.TestTokenV2\\.Transfer:TokenTransferOffer\\) is not a splice-test-token-v2 allocation$`));
    const otherAdmin = await call(declarative2, 'POST', '/registry/allocation/v2/settlement-factory', { choiceArguments: settleArgs([objects.allocV2, objects.otherAdmin]) });
    expect(otherAdmin.status, JSON.stringify(otherAdmin.body)).toBe(400);
    expect((otherAdmin.body as { error: string }).error).toMatch(new RegExp(`^Allocation ${objects.otherAdmin} is for admin admin3::[0-9a-f]+, not this registry's \\(${admin2}\\)$`));
    // the funding-only allocation is the registry's: its withdraw context is answered (not 404)
    expect((await call(declarative2, 'POST', `/registry/allocations/v2/${objects.fundingOnly}/choice-contexts/withdraw`, {})).status).toBe(200);
    // the V1 metadata named carol's provider account: its AccountConfig is in the context
    for (const legMeta of [cip112, providerOnly]) {
      const upcast = await call(declarative2, 'POST', '/registry/allocation-instruction/v1/allocation-factory', { choiceArguments: allocV1Args(carol2, bob2, '1', [], legMeta) });
      expect(contextValues(factoryOf(upcast.body).choiceContext.choiceContextData)['testTokenV2/accountConfigs']).toMatchObject({ tag: 'AV_List', value: [{ tag: 'AV_ContractId' }] });
    }
  });

  it('checks each settled allocation, then its locked Tokens, in turn, as the built-in recipe (a gone Token answers before a later allocation is refused)', async () => {
    const unknownCid = `00${'ef'.repeat(33)}`;
    const { lockGoneV2, lockGoneV1, allocV2, bobAlloc, otherAdmin } = objects;
    const cases = [[lockGoneV2], [lockGoneV1], [allocV2, lockGoneV2], [lockGoneV2, offer2], [offer2, lockGoneV2], [lockGoneV2, otherAdmin], [lockGoneV1, unknownCid], [lockGoneV2, 'not-a-cid'], ['not-a-cid', lockGoneV1], [bobAlloc, lockGoneV1, lockGoneV2]];
    for (const cids of cases) {
      const body = { choiceArguments: settleArgs(cids) };
      const [a, b] = [await call(builtin2, 'POST', '/registry/allocation/v2/settlement-factory', body), await call(declarative2, 'POST', '/registry/allocation/v2/settlement-factory', body)];
      expect(b, JSON.stringify(cids)).toEqual(a);
      expect(a.status, JSON.stringify(a.body)).not.toBe(200);
    }
    const gone = await call(declarative2, 'POST', '/registry/allocation/v2/settlement-factory', { choiceArguments: settleArgs([lockGoneV2, offer2]) });
    expect(gone.status).toBe(404);
    expect((gone.body as { error: string }).error).toMatch(new RegExp(`^Holding [0-9a-f]+ of allocation ${lockGoneV2} not found: it is archived or not a splice-test-token-v2 Token visible to the registry admin$`));
  });

  it("the declarative recipe's execute-transfer and settlement answers commit", async () => {
    const exec = contextOf((await call(declarative2, 'POST', `/registry/allocations/v1/${objects.allocV1}/choice-contexts/execute-transfer`, {})).body);
    const executed = await exercise2([admin2, alice2, bob2], ALLOCATION_V1, objects.allocV1, 'Allocation_ExecuteTransfer', { extraArgs: { context: exec.choiceContextData, meta } }, exec.disclosedContracts);
    expect(executed).toBeDefined();
    const f = await call(declarative2, 'POST', '/registry/allocation/v2/settlement-factory', { choiceArguments: settleArgs([objects.allocV2, objects.bobAlloc]) });
    expect(f.status, JSON.stringify(f.body)).toBe(200);
    const factory = factoryOf(f.body);
    // TokenRules and alice's locked Token (bob's receipt-only allocation locks nothing)
    expect(factory.choiceContext.disclosedContracts.map((d) => d.templateId.split(':').slice(1).join(':'))).toEqual([
      'Splice.Testing.Tokens.TestTokenV2:TokenRules',
      'Splice.Testing.Tokens.TestTokenV2.Holding:Token',
    ]);
    const settled = await exercise2([admin2], SETTLEMENT_FACTORY, factory.factoryId, 'SettlementFactory_SettleBatch', settleArgs([objects.allocV2, objects.bobAlloc], factory.choiceContext.choiceContextData), factory.choiceContext.disclosedContracts);
    expect(settled).toBeDefined();
  });

  it("bob accepts with the declarative recipe's accept context (the locked Token disclosed): it commits", async () => {
    const a = await call(declarative2, 'POST', `/registry/transfer-instruction/v1/${offer2}/choice-contexts/accept`, {});
    const ctx = contextOf(a.body);
    expect(ctx.disclosedContracts.map((d) => d.templateId.split(':').slice(1).join(':'))).toEqual([
      'Splice.Testing.Tokens.TestTokenV2:TokenRules',
      'Splice.Testing.Tokens.TestTokenV2.Holding:Token',
    ]);
    const result = await exercise2([bob2], TRANSFER_INSTRUCTION, offer2, 'TransferInstruction_Accept', { extraArgs: { context: ctx.choiceContextData, meta } }, ctx.disclosedContracts);
    expect(outputTag(result)).toBe('TransferInstructionResult_Completed');
  });
});
