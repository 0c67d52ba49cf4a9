/**
 * The registry over the emulated ledger (in process), with TestTokenV2: every wallet flow goes
 * THROUGH THE REGISTRY. The wallet asks for a factory or a choice context, puts
 * `choiceContextData` into `extraArgs.context`, submits with exactly the `disclosedContracts` it
 * got, and the holdings move (as with `TestTokenV2_RegistryV2.daml`).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { buildEmulator } from '../../../src/emulator/index.js';
import { ManualClock } from '../../../src/canton/clock.js';
import {
  createTestTokenV2Account,
  createTestTokenV2Rules,
  mintTestTokenV2,
  registerTestTokenV2,
} from '../../../src/emulator/templates/test-token-v2/index.js';
import { MemoryCache } from '../../../src/cache/memory-cache.js';
import { LedgerClient } from '../../../src/ledger-client/client.js';
import { noAuth } from '../../../src/ledger-client/auth.js';
import { createRegistry, type Registry } from '../../../src/registry/index.js';
import { TestTokenV2Recipe } from '../../../src/registry/recipes/test-token-v2.js';
import { inProcessFetch as inProcess } from '../../../src/ledger-client/in-process.js';
import type { Account, HoldingView } from '../../../src/emulator/templates/test-token-v2/values.js';
import { InstrumentSchema } from '../../../src/registry/schemas.js';
import { contextOf, disclosedIds, errorOf, factoryOf, outputCid, outputTag } from '../../support/registry-wire.js';
import { activeContracts, interfaceView, jsonAt, jsonText } from '../../support/ledger-wire.js';
import { walletExercise } from '../../support/wallet-submit.js';

const logger = pino({ level: 'silent' });
const clock = new ManualClock('2026-05-01T10:00:00Z');
const emu = buildEmulator({ config: { demoWorld: false, logLevel: 'silent' }, clock });
const engine = emu.engine;
registerTestTokenV2(engine.templates);
const admin = engine.parties.allocate('adminTT2').party;
const executor = engine.parties.allocate('executor').party;
let rules: string;
let registry: Registry;
let ledgerCalls = 0;
let counter = 0;

const party = (hint: string) => engine.parties.allocate(`${hint}${++counter}`).party;
const basic = (owner: string): Account => ({ owner, provider: null, id: '' });
const noMeta = { values: {} };
const emptyExtraArgs = () => ({ context: { values: {} }, meta: { values: {} } });
const REQUESTED_AT = '2026-05-01T09:59:00Z';
const EXECUTE_BEFORE = '2026-05-02T10:00:00Z';
const DEADLINE = '2026-05-03T10:00:00Z';

const IFACE = {
  HoldingV2: '#splice-api-token-holding-v2:Splice.Api.Token.HoldingV2:Holding',
  TransferFactoryV1: '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory',
  TransferFactoryV2: '#splice-api-token-transfer-instruction-v2:Splice.Api.Token.TransferInstructionV2:TransferFactory',
  TransferInstructionV1: '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction',
  TransferInstructionV2: '#splice-api-token-transfer-instruction-v2:Splice.Api.Token.TransferInstructionV2:TransferInstruction',
  AllocationFactoryV1: '#splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationFactory',
  AllocationFactoryV2: '#splice-api-token-allocation-instruction-v2:Splice.Api.Token.AllocationInstructionV2:AllocationFactory',
  AllocationV1: '#splice-api-token-allocation-v1:Splice.Api.Token.AllocationV1:Allocation',
  AllocationV2: '#splice-api-token-allocation-v2:Splice.Api.Token.AllocationV2:Allocation',
  SettlementFactoryV2: '#splice-api-token-allocation-v2:Splice.Api.Token.AllocationV2:SettlementFactory',
} as const;

const inProcessFetch = inProcess(emu.app, () => ledgerCalls++);

/** The registry's answer: its status and JSON body. */
async function post(path: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const r = await registry.app.request(path, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  return { status: r.status, body: await r.json() };
}

/** The registry's answer must be a 200; returns its body. */
async function ok(path: string, body: unknown = {}): Promise<unknown> {
  const r = await post(path, body);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}
/** A factory endpoint's 200 answer. */
const okFactory = async (path: string, body: unknown) => factoryOf(await ok(path, body));
/** A choice-context endpoint's 200 answer. */
const okContext = async (path: string, body: unknown = {}) => contextOf(await ok(path, body));

/** Submits one exercise as a wallet would: with the registry's disclosed contracts; returns the root result. */
const exercise = walletExercise(emu.app, 'tt2-registry');

/** The owner's holdings through the HoldingV2 interface: unlocked and locked sums. */
async function balance(owner: string): Promise<{ unlocked: number; locked: number }> {
  const r = await emu.app.request('/v2/state/active-contracts', {
    method: 'POST',
    body: JSON.stringify({
      eventFormat: {
        filtersByParty: { [owner]: { cumulative: [{ identifierFilter: { InterfaceFilter: { value: { interfaceId: IFACE.HoldingV2, includeInterfaceView: true } } } }] } },
        verbose: true,
      },
      activeAtOffset: engine.ledgerEnd(),
    }),
  });
  expect(r.status).toBe(200);
  const out = { unlocked: 0, locked: 0 };
  for (const c of activeContracts(await r.json())) {
    // the HoldingV2 view (one-step from the view's LF JSON)
    const view = interfaceView(c.createdEvent) as HoldingView;
    if (view.account.owner !== owner || view.instrumentId.admin !== admin) continue;
    out[view.lock === null ? 'unlocked' : 'locked'] += Number(view.amount);
  }
  return out;
}

/** Waits until the registry's contract index has followed the ledger to its end. */
async function indexCaughtUp() {
  const end = engine.ledgerEnd();
  await vi.waitFor(() => expect(registry.index.currentOffset).toBeGreaterThanOrEqual(end), { timeout: 2000, interval: 5 });
}

const mint = (owner: string, amount: string) => mintTestTokenV2(engine, { admin, owner, instrumentId: 'X2', amount, tokenRulesCid: rules });

function transferV2(sender: unknown, receiver: unknown, amount: string, inputs: string[], actors: string[]) {
  return {
    transfer: {
      sender,
      receiver,
      amount,
      instrumentId: { admin, id: 'X2' },
      requestedAt: REQUESTED_AT,
      executeBefore: EXECUTE_BEFORE,
      inputHoldingCids: inputs,
      meta: noMeta,
    },
    actors,
    extraArgs: emptyExtraArgs(),
  };
}

const context = (configs: string[] = []) => ({
  values: {
    'testTokenV2/accountConfigs': { tag: 'AV_List', value: configs.map((c) => ({ tag: 'AV_ContractId', value: c })) },
    'testTokenV2/tokenRules': { tag: 'AV_ContractId', value: rules },
  },
});

/** A V2 transfer through the registry's factory; returns the factory answer and the choice result. */
async function transferThroughRegistry(args: ReturnType<typeof transferV2>) {
  const f = await okFactory('/registry/transfer-instruction/v2/transfer-factory', { choiceArguments: args, excludeDebugFields: true });
  const submitted = { ...args, extraArgs: { context: f.choiceContext.choiceContextData, meta: noMeta } };
  const actors = args.actors;
  const result = await exercise(actors, IFACE.TransferFactoryV2, f.factoryId, 'TransferFactory_Transfer', submitted, f.choiceContext.disclosedContracts);
  return { f, result };
}

const settlement = (id: string) => ({ executors: [executor], id, cid: null, meta: noMeta });

function allocateV2(settlementId: string, authorizer: string, side: 'SenderSide' | 'ReceiverSide', other: string, amount: string, inputs: string[]) {
  return {
    settlement: settlement(settlementId),
    allocation: {
      admin,
      authorizer: basic(authorizer),
      transferLegSides: [{ transferLegId: 'leg-1', side, otherside: basic(other), amount, instrumentId: 'X2', meta: noMeta }],
      settlementDeadline: DEADLINE,
      nextIterationFunding: null,
      committed: false,
      meta: noMeta,
    },
    requestedAt: REQUESTED_AT,
    inputHoldingCids: inputs,
    actors: [authorizer],
    extraArgs: emptyExtraArgs(),
  };
}

/** A V2 allocation through the registry's allocation factory; returns the allocation cid. */
async function allocateThroughRegistry(args: ReturnType<typeof allocateV2>): Promise<string> {
  const f = await okFactory('/registry/allocation-instruction/v2/allocation-factory', { choiceArguments: args });
  expect(f.factoryId).toBe(rules);
  expect(f.choiceContext.choiceContextData).toEqual(context());
  const result = await exercise(args.actors, IFACE.AllocationFactoryV2, f.factoryId, 'AllocationFactory_Allocate', { ...args, extraArgs: { context: f.choiceContext.choiceContextData, meta: noMeta } }, f.choiceContext.disclosedContracts);
  expect(outputTag(result)).toBe('AllocationInstructionResult_Completed');
  return outputCid(result, 'allocationCid');
}

beforeAll(async () => {
  rules = createTestTokenV2Rules(engine, admin);
  const ledgerClient = new LedgerClient({ baseUrl: 'http://ledger', tokenProvider: noAuth, fetch: inProcessFetch });
  registry = createRegistry({
    admin,
    instruments: [{ id: 'X2', name: 'Test token two', symbol: 'TT2', decimals: 4, recipe: 'splice-test-token-v2', totalSupply: 'ledger' }],
    recipes: [new TestTokenV2Recipe()],
    ledger: ledgerClient,
    cache: new MemoryCache({ defaultTtlSeconds: 600, logger }),
    clock,
    logger,
    pollIdleMs: 20,
  });
  await registry.start();
});
afterAll(async () => registry.stop());

describe('registry with TestTokenV2 over the emulated ledger', () => {
  it('reports the V1 and V2 APIs the token implements', async () => {
    const r = await registry.app.request('/registry/metadata/v1/instruments/X2');
    const body = InstrumentSchema.parse(await r.json());
    expect(body.supportedApis).toEqual({
      'splice-api-token-metadata-v1': 1,
      'splice-api-token-holding-v1': 1,
      'splice-api-token-holding-v2': 1,
      'splice-api-token-transfer-instruction-v1': 1,
      'splice-api-token-transfer-instruction-v2': 1,
      'splice-api-token-allocation-v1': 1,
      'splice-api-token-allocation-v2': 1,
      'splice-api-token-allocation-instruction-v1': 1,
      'splice-api-token-allocation-instruction-v2': 1,
    });
  });

  it('v2 transfer: offer through the factory, then accept with the accept context', async () => {
    const alice = party('alice');
    const bob = party('bob');
    const h = mint(alice, '100');
    const { f, result } = await transferThroughRegistry(transferV2(basic(alice), basic(bob), '30', [h], [alice]));
    expect(f.transferKind).toBe('offer');
    expect(f.factoryId).toBe(rules);
    expect(f.choiceContext.choiceContextData).toEqual(context());
    expect(disclosedIds(f.choiceContext)).toEqual([rules]);
    expect(f.choiceContext.disclosedContracts[0]!.debugPayload).toBeUndefined();
    expect(outputTag(result)).toBe('TransferInstructionResult_Pending');
    const offer = outputCid(result, 'transferInstructionCid');
    expect(await balance(alice)).toEqual({ unlocked: 70, locked: 30 });

    // the offer was created a moment ago: its context must not 404; it discloses the locked token
    const accept = await okContext(`/registry/transfer-instruction/v2/${offer}/choice-contexts/accept`, {});
    expect(accept.choiceContextData).toEqual(context());
    expect(accept.disclosedContracts).toHaveLength(2);
    expect(accept.disclosedContracts[0]!.contractId).toBe(rules);
    const locked = accept.disclosedContracts[1]!;
    expect(locked.templateId).toMatch(/:Splice\.Testing\.Tokens\.TestTokenV2\.Holding:Token$/);
    expect(jsonAt(locked.debugPayload, 'holding', 'lock')).not.toBeNull();
    const accepted = await exercise([bob], IFACE.TransferInstructionV2, offer, 'TransferInstruction_Accept', { actors: [bob], extraArgs: { context: accept.choiceContextData, meta: noMeta } }, accept.disclosedContracts);
    expect(outputTag(accepted)).toBe('TransferInstructionResult_Completed');
    expect(await balance(alice)).toEqual({ unlocked: 70, locked: 0 });
    expect(await balance(bob)).toEqual({ unlocked: 30, locked: 0 });
  });

  it('v2 transfer: the receiver rejects, the sender withdraws, with the registry contexts', async () => {
    const alice = party('alice');
    const bob = party('bob');
    const h1 = mint(alice, '10');
    const h2 = mint(alice, '20');
    const first = await transferThroughRegistry(transferV2(basic(alice), basic(bob), '10', [h1], [alice]));
    const second = await transferThroughRegistry(transferV2(basic(alice), basic(bob), '5', [h2], [alice]));
    expect(await balance(alice)).toEqual({ unlocked: 15, locked: 15 });

    const offer1 = outputCid(first.result, 'transferInstructionCid');
    const reject = await okContext(`/registry/transfer-instruction/v2/${offer1}/choice-contexts/reject`, { excludeDebugFields: true });
    expect(reject.choiceContextData).toEqual(context());
    expect(disclosedIds(reject)).toHaveLength(2);
    const rejected = await exercise([bob], IFACE.TransferInstructionV2, offer1, 'TransferInstruction_Reject', { actors: [bob], extraArgs: { context: reject.choiceContextData, meta: noMeta } }, reject.disclosedContracts);
    expect(outputTag(rejected)).toBe('TransferInstructionResult_Failed');

    const offer2 = outputCid(second.result, 'transferInstructionCid');
    const withdraw = await okContext(`/registry/transfer-instruction/v2/${offer2}/choice-contexts/withdraw`, {});
    expect(withdraw.choiceContextData).toEqual(context());
    const withdrawn = await exercise([alice], IFACE.TransferInstructionV2, offer2, 'TransferInstruction_Withdraw', { actors: [alice], extraArgs: { context: withdraw.choiceContextData, meta: noMeta } }, withdraw.disclosedContracts);
    expect(outputTag(withdrawn)).toBe('TransferInstructionResult_Failed');

    expect(await balance(alice)).toEqual({ unlocked: 30, locked: 0 });
    expect(await balance(bob)).toEqual({ unlocked: 0, locked: 0 });
    // an archived offer is a 404 naming it (once the index has seen the archive)
    await indexCaughtUp();
    const gone = await post(`/registry/transfer-instruction/v2/${offer2}/choice-contexts/accept`, {});
    expect(gone.status).toBe(404);
    expect(errorOf(gone.body)).toContain(offer2);
  });

  it('v1 transfer through the V1 interfaces (the V1 adapters of TestTokenV2)', async () => {
    const alice = party('alice');
    const bob = party('bob');
    const h = mint(alice, '50');
    const args = {
      expectedAdmin: admin,
      transfer: {
        sender: alice,
        receiver: bob,
        amount: '12.5',
        instrumentId: { admin, id: 'X2' },
        requestedAt: REQUESTED_AT,
        executeBefore: EXECUTE_BEFORE,
        inputHoldingCids: [h],
        meta: noMeta,
      },
      extraArgs: emptyExtraArgs(),
    };
    const f = await okFactory('/registry/transfer-instruction/v1/transfer-factory', { choiceArguments: args });
    expect(f.transferKind).toBe('offer');
    expect(f.factoryId).toBe(rules);
    expect(f.choiceContext.choiceContextData).toEqual(context());
    const result = await exercise([alice], IFACE.TransferFactoryV1, f.factoryId, 'TransferFactory_Transfer', { ...args, extraArgs: { context: f.choiceContext.choiceContextData, meta: noMeta } }, f.choiceContext.disclosedContracts);
    expect(outputTag(result)).toBe('TransferInstructionResult_Pending');
    const offer = outputCid(result, 'transferInstructionCid');
    const accept = await okContext(`/registry/transfer-instruction/v1/${offer}/choice-contexts/accept`, {});
    expect(accept.choiceContextData).toEqual(context());
    expect(disclosedIds(accept)).toHaveLength(2);
    const accepted = await exercise([bob], IFACE.TransferInstructionV1, offer, 'TransferInstruction_Accept', { extraArgs: { context: accept.choiceContextData, meta: noMeta } }, accept.disclosedContracts);
    expect(outputTag(accepted)).toBe('TransferInstructionResult_Completed');
    expect(await balance(alice)).toEqual({ unlocked: 37.5, locked: 0 });
    expect(await balance(bob)).toEqual({ unlocked: 12.5, locked: 0 });
  });

  it('self transfer: transferKind self, completed by the factory call', async () => {
    const alice = party('alice');
    const h = mint(alice, '40');
    const { f, result } = await transferThroughRegistry(transferV2(basic(alice), basic(alice), '15', [h], [alice]));
    expect(f.transferKind).toBe('self');
    expect(outputTag(result)).toBe('TransferInstructionResult_Completed');
    expect(await balance(alice)).toEqual({ unlocked: 40, locked: 0 });
    // V1: sender == receiver is a self transfer too
    const v1 = await okFactory('/registry/transfer-instruction/v1/transfer-factory', {
      choiceArguments: { expectedAdmin: admin, transfer: { ...transferV2(alice, alice, '1', [], []).transfer }, extraArgs: emptyExtraArgs() },
    });
    expect(v1.transferKind).toBe('self');
  });

  it('v2 allocations, then settlement through the settlement factory with the locked tokens disclosed', async () => {
    const alice = party('alice');
    const bob = party('bob');
    const h = mint(alice, '100');
    const aliceAlloc = await allocateThroughRegistry(allocateV2('trade-1', alice, 'SenderSide', bob, '25', [h]));
    const bobAlloc = await allocateThroughRegistry(allocateV2('trade-1', bob, 'ReceiverSide', alice, '25', []));
    expect(await balance(alice)).toEqual({ unlocked: 75, locked: 25 });

    const settleArgs = {
      settlement: settlement('trade-1'),
      transferLegs: [{ transferLegId: 'leg-1', sender: basic(alice), receiver: basic(bob), amount: '25', instrumentId: 'X2', meta: noMeta }],
      allocations: [
        { allocationCid: aliceAlloc, extraTransferLegSides: [], nextIterationFunding: null },
        { allocationCid: bobAlloc, extraTransferLegSides: [], nextIterationFunding: null },
      ],
      actors: [executor],
      extraArgs: emptyExtraArgs(),
    };
    const f = await okFactory('/registry/allocation/v2/settlement-factory', { choiceArguments: settleArgs });
    expect(f.factoryId).toBe(rules);
    expect(f.choiceContext.choiceContextData).toEqual(context());
    // TokenRules and alice's locked token (bob's receipt-only allocation locks nothing)
    expect(f.choiceContext.disclosedContracts).toHaveLength(2);
    expect(jsonAt(f.choiceContext.disclosedContracts[1]!.debugPayload, 'holding', 'account', 'owner')).toBe(alice);
    const result = await exercise([executor], IFACE.SettlementFactoryV2, f.factoryId, 'SettlementFactory_SettleBatch', { ...settleArgs, extraArgs: { context: f.choiceContext.choiceContextData, meta: noMeta } }, f.choiceContext.disclosedContracts);
    expect(jsonAt(result, 'allocationSettleResults')).toHaveLength(2);
    expect(await balance(alice)).toEqual({ unlocked: 75, locked: 0 });
    expect(await balance(bob)).toEqual({ unlocked: 25, locked: 0 });
  });

  it('allocation withdraw and cancel contexts', async () => {
    const alice = party('alice');
    const bob = party('bob');
    const h1 = mint(alice, '10');
    const h2 = mint(alice, '10');
    const a1 = await allocateThroughRegistry(allocateV2('trade-2', alice, 'SenderSide', bob, '4', [h1]));
    const a2 = await allocateThroughRegistry(allocateV2('trade-3', alice, 'SenderSide', bob, '6', [h2]));
    expect(await balance(alice)).toEqual({ unlocked: 10, locked: 10 });

    // withdraw by the authorizer, a stakeholder of its locked token: nothing extra to disclose
    const withdraw = await okContext(`/registry/allocations/v2/${a1}/choice-contexts/withdraw`, {});
    expect(withdraw.choiceContextData).toEqual(context());
    expect(disclosedIds(withdraw)).toEqual([rules]);
    const withdrawn = await exercise([alice], IFACE.AllocationV2, a1, 'Allocation_Withdraw', { actors: [alice], extraArgs: { context: withdraw.choiceContextData, meta: noMeta } }, withdraw.disclosedContracts);
    expect(outputTag(withdrawn)).toBe('AllocationResult_Withdrawn');

    // cancel by the executor, who cannot see alice's locked token: it is disclosed
    const cancel = await okContext(`/registry/allocations/v2/${a2}/choice-contexts/cancel`, {});
    expect(cancel.choiceContextData).toEqual(context());
    expect(disclosedIds(cancel)).toHaveLength(2);
    const cancelled = await exercise([executor], IFACE.AllocationV2, a2, 'Allocation_Cancel', { actors: [executor], extraArgs: { context: cancel.choiceContextData, meta: noMeta } }, cancel.disclosedContracts);
    expect(outputTag(cancelled)).toBe('AllocationResult_Cancelled');

    expect(await balance(alice)).toEqual({ unlocked: 20, locked: 0 });
    // a V2 allocation has no V1 interface: the v1 endpoints say so
    const a3 = await allocateThroughRegistry(allocateV2('trade-4', alice, 'SenderSide', bob, '1', [jsonText(withdrawn, 'authorizerHoldingCids', 'X2', 0)]));
    const v1 = await post(`/registry/allocations/v1/${a3}/choice-contexts/execute-transfer`, {});
    expect(v1.status).toBe(400);
    expect(errorOf(v1.body)).toMatch(/V2 allocation/);
  });

  it('v1 allocation, then execute-transfer with its context', async () => {
    const alice = party('alice');
    const bob = party('bob');
    const h = mint(alice, '30');
    const args = {
      expectedAdmin: admin,
      allocation: {
        settlement: {
          executor,
          settlementRef: { id: 'trade-v1', cid: null },
          requestedAt: REQUESTED_AT,
          allocateBefore: EXECUTE_BEFORE,
          settleBefore: DEADLINE,
          meta: noMeta,
        },
        transferLegId: 'leg-1',
        transferLeg: { sender: alice, receiver: bob, amount: '8', instrumentId: { admin, id: 'X2' }, meta: noMeta },
      },
      requestedAt: REQUESTED_AT,
      inputHoldingCids: [h],
      extraArgs: emptyExtraArgs(),
    };
    const f = await okFactory('/registry/allocation-instruction/v1/allocation-factory', { choiceArguments: args });
    expect(f.factoryId).toBe(rules);
    expect(f.choiceContext.choiceContextData).toEqual(context());
    const result = await exercise([alice], IFACE.AllocationFactoryV1, f.factoryId, 'AllocationFactory_Allocate', { ...args, extraArgs: { context: f.choiceContext.choiceContextData, meta: noMeta } }, f.choiceContext.disclosedContracts);
    expect(outputTag(result)).toBe('AllocationInstructionResult_Completed');
    const allocation = outputCid(result, 'allocationCid');
    expect(await balance(alice)).toEqual({ unlocked: 22, locked: 8 });

    const ctx = await okContext(`/registry/allocations/v1/${allocation}/choice-contexts/execute-transfer`, {});
    expect(ctx.choiceContextData).toEqual(context());
    expect(disclosedIds(ctx)).toHaveLength(2);
    const executed = await exercise([executor, alice, bob], IFACE.AllocationV1, allocation, 'Allocation_ExecuteTransfer', { extraArgs: { context: ctx.choiceContextData, meta: noMeta } }, ctx.disclosedContracts);
    expect(jsonAt(executed, 'receiverHoldingCids')).toHaveLength(1);
    expect(await balance(alice)).toEqual({ unlocked: 22, locked: 0 });
    expect(await balance(bob)).toEqual({ unlocked: 8, locked: 0 });
  });

  it('a provider account: its AccountConfig is in testTokenV2/accountConfigs and disclosed', async () => {
    const dave = party('dave');
    const provider = party('provider');
    const bob = party('bob');
    // the owner initiates; the provider need not approve, so dave acts with its authority (`AccountConfig.daml`)
    const config = createTestTokenV2Account(engine, {
      admin,
      owner: dave,
      provider,
      ownerConfig: { canInitiate: true, mustApprove: true },
      providerConfig: { canInitiate: false, mustApprove: false },
    });
    const account = { owner: dave, provider, id: '' };
    const h = mintTestTokenV2(engine, { admin, account, instrumentId: 'X2', amount: '20', tokenRulesCid: rules });
    // AccountConfigs are indexed (held in memory), not looked up per request: let the index see it
    await indexCaughtUp();

    const { f, result } = await transferThroughRegistry(transferV2(account, basic(bob), '5', [h], [dave]));
    expect(f.transferKind).toBe('offer');
    expect(f.choiceContext.choiceContextData).toEqual(context([config]));
    expect(disclosedIds(f.choiceContext)).toEqual([rules, config]);
    expect(outputTag(result)).toBe('TransferInstructionResult_Pending');
    const offer = outputCid(result, 'transferInstructionCid');

    // bob is no stakeholder of dave's AccountConfig nor of the locked token: both are disclosed
    const accept = await okContext(`/registry/transfer-instruction/v2/${offer}/choice-contexts/accept`, {});
    expect(accept.choiceContextData).toEqual(context([config]));
    expect(disclosedIds(accept).slice(0, 2)).toEqual([rules, config]);
    expect(disclosedIds(accept)).toHaveLength(3);
    await exercise([bob], IFACE.TransferInstructionV2, offer, 'TransferInstruction_Accept', { actors: [bob], extraArgs: { context: accept.choiceContextData, meta: noMeta } }, accept.disclosedContracts);
    expect(await balance(dave)).toEqual({ unlocked: 15, locked: 0 });
    expect(await balance(bob)).toEqual({ unlocked: 5, locked: 0 });

    // the provider cannot initiate alone: a 400 that names the allowed groups, before any submission
    const bad = await post('/registry/transfer-instruction/v2/transfer-factory', { choiceArguments: transferV2(account, basic(bob), '1', [], [provider]) });
    expect(bad.status).toBe(400);
    expect(errorOf(bad.body)).toContain(`[${dave}]`);
    // a V1 wallet names the provider account through the cip-112 meta keys of the upcast
    const v1 = await okFactory('/registry/transfer-instruction/v1/transfer-factory', {
      choiceArguments: {
        expectedAdmin: admin,
        transfer: { ...transferV2(dave, dave, '1', [], []).transfer, meta: { values: { 'cip-112/sender.provider': provider, 'cip-112/receiver.provider': provider } } },
        extraArgs: emptyExtraArgs(),
      },
    });
    expect(v1.transferKind).toBe('self');
    expect(v1.choiceContext.choiceContextData).toEqual(context([config]));
  });

  it('allocation instructions of a two-party account: accept and withdraw contexts', async () => {
    const erin = party('erin');
    const provider = party('provider');
    const bob = party('bob');
    // both parties must approve: the owner's allocation stays a pending instruction (`AccountConfig.daml`)
    const config = createTestTokenV2Account(engine, { admin, owner: erin, provider });
    const account = { owner: erin, provider, id: '' };
    const h1 = mintTestTokenV2(engine, { admin, account, instrumentId: 'X2', amount: '10', tokenRulesCid: rules });
    const h2 = mintTestTokenV2(engine, { admin, account, instrumentId: 'X2', amount: '10', tokenRulesCid: rules });
    await indexCaughtUp();
    const instruct = async (id: string, input: string) => {
      const args = { ...allocateV2(id, erin, 'SenderSide', bob, '3', [input]), actors: [erin] };
      args.allocation.authorizer = account;
      const f = await okFactory('/registry/allocation-instruction/v2/allocation-factory', { choiceArguments: args });
      expect(f.choiceContext.choiceContextData).toEqual(context([config]));
      expect(disclosedIds(f.choiceContext)).toEqual([rules, config]);
      const r = await exercise([erin], IFACE.AllocationFactoryV2, f.factoryId, 'AllocationFactory_Allocate', { ...args, extraArgs: { context: f.choiceContext.choiceContextData, meta: noMeta } }, f.choiceContext.disclosedContracts);
      expect(outputTag(r)).toBe('AllocationInstructionResult_Pending');
      return outputCid(r, 'allocationInstructionCid');
    };
    const i1 = await instruct('trade-5', h1);
    const i2 = await instruct('trade-6', h2);

    const accept = await okContext(`/registry/allocation-instruction/v2/${i1}/choice-contexts/accept`, {});
    expect(accept.choiceContextData).toEqual(context([config]));
    expect(disclosedIds(accept)).toEqual([rules, config]);
    const accepted = await exercise([provider], '#splice-api-token-allocation-instruction-v2:Splice.Api.Token.AllocationInstructionV2:AllocationInstruction', i1, 'AllocationInstruction_Accept', { actors: [provider], extraArgs: { context: accept.choiceContextData, meta: noMeta } }, accept.disclosedContracts);
    expect(outputTag(accepted)).toBe('AllocationInstructionResult_Completed');

    const withdraw = await okContext(`/registry/allocation-instruction/v2/${i2}/choice-contexts/withdraw`, {});
    expect(withdraw.choiceContextData).toEqual(context([config]));
    const withdrawn = await exercise([erin], '#splice-api-token-allocation-instruction-v2:Splice.Api.Token.AllocationInstructionV2:AllocationInstruction', i2, 'AllocationInstruction_Withdraw', { actors: [erin], extraArgs: { context: withdraw.choiceContextData, meta: noMeta } }, withdraw.disclosedContracts);
    expect(outputTag(withdrawn)).toBe('AllocationInstructionResult_Failed');
    expect(await balance(erin)).toEqual({ unlocked: 17, locked: 3 });
    // an allocation instruction is not an allocation
    const wrong = await post(`/registry/allocations/v2/${i2}/choice-contexts/withdraw`, {});
    expect(wrong.status).toBe(404);
  });

  it('answers a warm factory request without any ledger call', async () => {
    const alice = party('alice');
    const args = transferV2(basic(alice), basic(alice), '1', [], [alice]);
    await okFactory('/registry/transfer-instruction/v2/transfer-factory', { choiceArguments: args });
    // stop following the ledger, so that any call counted below is one the request made
    await registry.stop();
    const before = ledgerCalls;
    const f = await okFactory('/registry/transfer-instruction/v2/transfer-factory', { choiceArguments: args });
    expect(f.transferKind).toBe('self');
    expect(f.choiceContext.disclosedContracts[0]!.debugPackageName).toBe('splice-test-token-v2');
    expect(ledgerCalls - before).toBe(0);
  });
});
