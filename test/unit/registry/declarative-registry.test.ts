/**
 * A declarative recipe resolving against the emulated ledger: an imaginary Daml model (`acme-token`)
 * whose templates are *declared* in the emulator (they only have Archive: the registry only reads
 * them). The registry answers from its contract index; contracts created after start arrive
 * through the update stream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { buildEmulator } from '../../../src/emulator/index.js';
import type { DeclaredTemplateConfig } from '../../../src/emulator/participant/options.js';
import { ManualClock } from '../../../src/canton/clock.js';
import { MemoryCache } from '../../../src/cache/memory-cache.js';
import { LedgerClient } from '../../../src/ledger-client/client.js';
import { noAuth } from '../../../src/ledger-client/auth.js';
import { createRegistry, type Registry } from '../../../src/registry/index.js';
import { DeclarativeRecipe } from '../../../src/registry/recipes/declarative/declarative-recipe.js';
import { inProcessFetch as inProcess } from '../../../src/ledger-client/in-process.js';
import { contextOf, contextValues, disclosedIds, errorOf, factoryOf } from '../../support/registry-wire.js';
import { declarativeRecipes } from '../../../src/registry/recipes/index.js';
import { parseRegistryConfig } from '../../../src/serve.js';
import ACME_EXAMPLE from '../../../docs/examples/acme-token.registry.json' with { type: 'json' };
import { createdEvent, jsonAt, transactionOf } from '../../support/ledger-wire.js';

const logger = pino({ level: 'silent' });
const clock = new ManualClock('2026-05-01T10:00:00Z');

const declared = (moduleName: string, entityName: string, signatories: string[], observers: string[] = [], implements_: DeclaredTemplateConfig['implements'] = []): DeclaredTemplateConfig => ({
  packageName: 'acme-token',
  moduleName,
  entityName,
  signatories,
  observers,
  implements: implements_,
});
const ALLOCATION_FACTORY = {
  packageName: 'splice-api-token-allocation-instruction-v1',
  moduleName: 'Splice.Api.Token.AllocationInstructionV1',
  entityName: 'AllocationFactory',
};
const emu = buildEmulator({
  config: {
    demoWorld: false,
    logLevel: 'silent',
    declaredTemplates: [
      declared('Acme.Rules', 'TransferRules', ['admin']),
      declared('Acme.Rules', 'AllocationRules', ['admin'], [], [{ interface: ALLOCATION_FACTORY, view: { admin: 'admin' } }]),
      declared('Acme.Config', 'InstrumentConfig', ['admin']),
      declared('Acme.Preapproval', 'Preapproval', ['admin'], ['receiver']),
      declared('Acme.Credential', 'Credential', ['issuer'], ['holder']),
      declared('Acme.Holding', 'LockedHolding', ['admin'], ['owner']),
      declared('Acme.Transfer', 'TransferOffer', ['admin'], ['transfer.sender', 'transfer.receiver']),
      declared('Acme.Allocation', 'Allocation', ['admin']),
    ],
  },
  clock,
});
const engine = emu.engine;
const admin = engine.parties.allocate('admin').party;
const other = engine.parties.allocate('other-admin').party;
const alice = engine.parties.allocate('alice').party;
const bob = engine.parties.allocate('bob').party;
const carol = engine.parties.allocate('carol').party;

const K = {
  config: 'acme.example.com/instrument-configuration',
  preapproval: 'acme.example.com/transfer-preapproval',
  credentials: 'acme.example.com/sender-credentials',
  lock: 'acme.example.com/locked-holding',
};

/** The recipe of the README example, minus the parts this model does not have. */
const recipeJson = {
  name: 'acme-token',
  supportedApis: {
    'splice-api-token-metadata-v1': 1,
    'splice-api-token-holding-v1': 1,
    'splice-api-token-transfer-instruction-v1': 1,
    'splice-api-token-allocation-instruction-v1': 1,
  },
  factories: {
    'transferFactory.v1': { templateId: '#acme-token:Acme.Rules:TransferRules', match: { admin: '$admin' } },
    'allocationFactory.v1': { interfaceId: '#splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationFactory' },
  },
  contextEntries: [
    {
      key: K.config,
      templateId: '#acme-token:Acme.Config:InstrumentConfig',
      match: { admin: '$admin', instrumentId: '$args.transfer.instrumentId.id' },
      required: true,
      endpoints: ['transferFactory.v1'],
    },
    {
      key: K.config,
      templateId: '#acme-token:Acme.Config:InstrumentConfig',
      match: { admin: '$admin', instrumentId: '$args.allocation.transferLeg.instrumentId.id' },
      endpoints: ['allocationFactory.v1'],
    },
    {
      key: K.credentials,
      templateId: '#acme-token:Acme.Credential:Credential',
      match: { issuer: '$admin', holder: '$args.transfer.sender', kind: 'KYC' },
      required: false,
      as: 'list',
      endpoints: ['transferFactory.v1'],
    },
  ],
  refuse: [
    {
      endpoints: ['transferFactory.v1'],
      when: { exists: '$args.transfer.meta.values.[acme.example.com/refuse]' },
      status: 404,
      error: 'keys {join(sort($args.transfer.meta.values.~), " | ")}; acme keys {join(matching($args.transfer.meta.values.~, "acme[.].*"), ",")}; note {default($args.transfer.meta.values.[acme.example.com/note], "none")}; raw {$args.transfer.meta.values.~}',
    },
    {
      endpoints: ['transferFactory.v1'],
      forEach: '$args.transfer.inputHoldingCids.*',
      checks: [
        { when: { not: { exists: '$itemContract' } }, status: 404, error: 'Holding {$item} not found' },
        { when: { eq: ['$itemContract.template', '#acme-token:Acme.Rules:TransferRules'] }, status: 400, error: '{$item} is a {$itemContract.template} of {$itemContract.payload.admin}, not a holding' },
      ],
    },
  ],
  transferKind: {
    direct: { templateId: '#acme-token:Acme.Preapproval:Preapproval', match: { admin: '$admin', receiver: '$args.transfer.receiver' }, key: K.preapproval },
  },
  transferInstructions: {
    templateIds: ['#acme-token:Acme.Transfer:TransferOffer'],
    instrumentIdPath: 'transfer.instrumentId',
    contextEntries: [
      { key: K.config, templateId: '#acme-token:Acme.Config:InstrumentConfig', match: { admin: '$admin', instrumentId: '$contract.transfer.instrumentId.id' } },
      {
        key: K.lock,
        templateId: '#acme-token:Acme.Holding:LockedHolding',
        match: { $id: '$contract.lockedHoldingCid' },
        required: false,
        endpoints: ['accept', 'withdraw'],
      },
    ],
  },
};

let registry: Registry;
const cids: Record<string, string> = {};
let n = 0;

const inProcessFetch = inProcess(emu.app);

async function create(entity: string, args: Record<string, unknown>, actAs = admin): Promise<string> {
  const r = await emu.app.request('/v2/commands/submit-and-wait-for-transaction', {
    method: 'POST',
    body: JSON.stringify({
      commands: { commands: [{ CreateCommand: { templateId: `#acme-token:${entity}`, createArguments: args } }], commandId: `c-${n++}`, actAs: [actAs], userId: 'admin' },
    }),
  });
  const body: unknown = await r.json();
  expect(r.status, JSON.stringify(body)).toBe(200);
  return createdEvent(transactionOf(body).events[0]).contractId;
}

/** The registry's answer: its status and JSON body (read with registry-wire's `factoryOf`, `contextOf`, `errorOf`). */
async function post(path: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const r = await registry.app.request(path, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  return { status: r.status, body: await r.json() };
}

function transferArgs(sender: string, receiver: string, instrument = 'ACME') {
  return {
    expectedAdmin: admin,
    transfer: {
      sender,
      receiver,
      amount: '5',
      instrumentId: { admin, id: instrument },
      requestedAt: '2026-05-01T09:59:00Z',
      executeBefore: '2026-05-02T10:00:00Z',
      inputHoldingCids: [],
      meta: { values: {} },
    },
    extraArgs: { context: { values: {} }, meta: { values: {} } },
  };
}
const transferFactory = (args: unknown) => post('/registry/transfer-instruction/v1/transfer-factory', { choiceArguments: args, excludeDebugFields: true });

async function eventually<T>(f: () => Promise<T>, ok: (t: T) => boolean): Promise<T> {
  for (let i = 0; ; i++) {
    const t = await f();
    if (ok(t) || i > 100) return t;
    await new Promise((r) => setTimeout(r, 10));
  }
}

beforeAll(async () => {
  cids.rules = await create('Acme.Rules:TransferRules', { admin });
  cids.otherRules = await create('Acme.Rules:TransferRules', { admin: other }, other);
  cids.allocRules = await create('Acme.Rules:AllocationRules', { admin });
  cids.config = await create('Acme.Config:InstrumentConfig', { admin, instrumentId: 'ACME', maxTransfer: '1000' });
  cids.dup1 = await create('Acme.Config:InstrumentConfig', { admin, instrumentId: 'DUP' });
  cids.dup2 = await create('Acme.Config:InstrumentConfig', { admin, instrumentId: 'DUP' });
  cids.bobPreapproval = await create('Acme.Preapproval:Preapproval', { admin, receiver: bob });
  cids.kyc1 = await create('Acme.Credential:Credential', { issuer: admin, holder: alice, kind: 'KYC' });
  cids.kyc2 = await create('Acme.Credential:Credential', { issuer: admin, holder: alice, kind: 'KYC' });
  cids.aml = await create('Acme.Credential:Credential', { issuer: admin, holder: alice, kind: 'AML' });

  const { recipe, warnings } = DeclarativeRecipe.fromJson(recipeJson);
  expect(warnings).toEqual([]);
  registry = createRegistry({
    admin,
    instruments: [
      { id: 'ACME', name: 'Acme dollar', symbol: 'ACD', decimals: 2, recipe: 'acme-token' },
      { id: 'DUP', name: 'Duplicated config', symbol: 'DUP', decimals: 2, recipe: 'acme-token' },
      { id: 'NOCFG', name: 'No config', symbol: 'NOC', decimals: 2, recipe: 'acme-token' },
    ],
    recipes: [recipe],
    ledger: new LedgerClient({ baseUrl: 'http://ledger', tokenProvider: noAuth, fetch: inProcessFetch }),
    cache: new MemoryCache({ defaultTtlSeconds: 600, logger }),
    clock,
    logger,
    pollIdleMs: 20,
  });
  await registry.start();
});
afterAll(async () => registry?.stop());

describe('declarative recipe over the emulated ledger', () => {
  it('offer: the admin factory, the instrument configuration and the sender credentials, all disclosed', async () => {
    const r = await transferFactory(transferArgs(alice, carol));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const f = factoryOf(r.body);
    expect(f.factoryId).toBe(cids.rules);
    expect(f.transferKind).toBe('offer');
    expect(f.choiceContext.choiceContextData).toEqual({
      values: {
        [K.config]: { tag: 'AV_ContractId', value: cids.config },
        [K.credentials]: {
          tag: 'AV_List',
          value: [
            { tag: 'AV_ContractId', value: cids.kyc1 },
            { tag: 'AV_ContractId', value: cids.kyc2 },
          ],
        },
      },
    });
    expect(disclosedIds(f.choiceContext)).toEqual([cids.rules, cids.config, cids.kyc1, cids.kyc2]);
    const first = f.choiceContext.disclosedContracts[0]!;
    expect(first.templateId).toMatch(/^[0-9a-f]{64}:Acme\.Rules:TransferRules$/);
    expect(first.createdEventBlob).not.toBe('');
    expect(first.synchronizerId).not.toBe('');
    expect(first.debugPayload).toBeUndefined();
  });

  it('self when sender = receiver (no pre-approval looked up); an optional list with no match is empty', async () => {
    const r = await transferFactory(transferArgs(bob, bob));
    expect(r.status).toBe(200);
    const f = factoryOf(r.body);
    expect(f.transferKind).toBe('self');
    expect(contextValues(f.choiceContext.choiceContextData)).toEqual({
      [K.config]: { tag: 'AV_ContractId', value: cids.config },
      [K.credentials]: { tag: 'AV_List', value: [] },
    });
    expect(disclosedIds(f.choiceContext)).toEqual([cids.rules, cids.config]);
  });

  it('direct when the receiver has a pre-approval: it joins the context under its key', async () => {
    const r = await transferFactory(transferArgs(alice, bob));
    expect(r.status).toBe(200);
    const f = factoryOf(r.body);
    expect(f.transferKind).toBe('direct');
    expect(contextValues(f.choiceContext.choiceContextData)[K.preapproval]).toEqual({ tag: 'AV_ContractId', value: cids.bobPreapproval });
    expect(disclosedIds(f.choiceContext)).toContain(cids.bobPreapproval);
  });

  it('follows the ledger: a pre-approval created after start makes the transfer direct', async () => {
    expect(factoryOf((await transferFactory(transferArgs(alice, carol))).body).transferKind).toBe('offer');
    const pre = await create('Acme.Preapproval:Preapproval', { admin, receiver: carol });
    const r = await eventually(
      () => transferFactory(transferArgs(alice, carol)),
      (x) => x.status === 200 && factoryOf(x.body).transferKind === 'direct',
    );
    const f = factoryOf(r.body);
    expect(f.transferKind).toBe('direct');
    expect(jsonAt(contextValues(f.choiceContext.choiceContextData), K.preapproval, 'value')).toBe(pre);
  });

  it('404 naming the key and the match when a required entry has no contract', async () => {
    const r = await transferFactory(transferArgs(alice, carol, 'NOCFG'));
    expect(r.status).toBe(404);
    expect(errorOf(r.body)).toBe(
      `No contract found for the required context entry "${K.config}": the registry admin sees no active #acme-token:Acme.Config:InstrumentConfig ` +
        `with admin = "${admin}" ($admin), instrumentId = "NOCFG" ($args.transfer.instrumentId.id)`,
    );
  });

  it('500 naming the contracts when an entry expecting one contract matches several', async () => {
    const r = await transferFactory(transferArgs(alice, carol, 'DUP'));
    expect(r.status).toBe(500);
    const error = errorOf(r.body);
    expect(error).toContain(`Context entry "${K.config}" expects one contract, but 2 contracts are #acme-token:Acme.Config:InstrumentConfig with`);
    expect(error).toContain(cids.dup1);
    expect(error).toContain(cids.dup2);
    expect(error).toMatch(/"pick": "newest"/);
  });

  it('the worked example of docs/recipes.md (docs/examples/acme-token.registry.json) answers its own context entries, v1 and v2', async () => {
    const config = parseRegistryConfig({ ...ACME_EXAMPLE, adminParty: admin });
    const example = createRegistry({
      admin,
      instruments: config.instruments,
      recipes: declarativeRecipes(config.recipes),
      ledger: new LedgerClient({ baseUrl: 'http://ledger', tokenProvider: noAuth, fetch: inProcessFetch }),
      cache: new MemoryCache({ defaultTtlSeconds: 600, logger }),
      clock,
      logger,
    });
    await example.start();
    try {
      const ask = async (v: 1 | 2, args: unknown) => {
        const r = await example.app.request(`/registry/transfer-instruction/v${v}/transfer-factory`, {
          method: 'POST',
          body: JSON.stringify({ choiceArguments: args, excludeDebugFields: true }),
          headers: { 'content-type': 'application/json' },
        });
        const body: unknown = await r.json();
        expect(r.status, JSON.stringify(body)).toBe(200);
        return factoryOf(body);
      };
      const v1 = await ask(1, transferArgs(alice, bob));
      expect(v1.transferKind).toBe('direct');
      expect(contextValues(v1.choiceContext.choiceContextData)).toEqual({
        [K.config]: { tag: 'AV_ContractId', value: cids.config },
        [K.credentials]: { tag: 'AV_List', value: [cids.kyc1, cids.kyc2].map((c) => ({ tag: 'AV_ContractId', value: c })) },
        [K.preapproval]: { tag: 'AV_ContractId', value: cids.bobPreapproval },
      });
      const { expectedAdmin: _v1Only, ...args } = transferArgs(alice, bob);
      const account = (p: string) => ({ owner: p, provider: null, id: '' });
      const v2 = await ask(2, { ...args, transfer: { ...args.transfer, sender: account(alice), receiver: account(bob) }, actors: [alice] });
      expect(v2.transferKind).toBe('direct');
      expect(Object.keys(contextValues(v2.choiceContext.choiceContextData)).sort()).toEqual([K.config, K.preapproval].sort());
    } finally {
      await example.stop();
    }
  });

  it('factory refusals: a computed message (sort, join, matching, default), and per-element checks with a lookup of any template, in order', async () => {
    const args = transferArgs(alice, carol);
    const meta = (values: Record<string, string>) => ({ ...args, transfer: { ...args.transfer, meta: { values } } });
    const r = await transferFactory(meta({ 'z.example.com/a': '1', 'acme.example.com/refuse': 'yes', 'acme.example.com/b': '2' }));
    expect(r).toEqual({ status: 404, body: { error: 'keys acme.example.com/b | acme.example.com/refuse | z.example.com/a; acme keys acme.example.com/refuse,acme.example.com/b; note none; raw ["z.example.com/a","acme.example.com/refuse","acme.example.com/b"]' } });
    // the rule does not apply: the request is answered
    expect((await transferFactory(meta({ 'z.example.com/a': '1' }))).status).toBe(200);
    const missing = `00${'ab'.repeat(33)}`;
    const withInputs = (inputs: string[]) => ({ ...args, transfer: { ...args.transfer, inputHoldingCids: inputs } });
    // elements in order, each through every check: the rules contract first, then the missing one
    expect(await transferFactory(withInputs([cids.rules!, missing]))).toEqual({ status: 400, body: { error: `${cids.rules!} is a #acme-token:Acme.Rules:TransferRules of ${admin}, not a holding` } });
    expect(await transferFactory(withInputs([missing, cids.rules!]))).toEqual({ status: 404, body: { error: `Holding ${missing} not found` } });
    expect(await transferFactory(withInputs(['nope']))).toEqual({ status: 400, body: { error: 'transfer: "nope" is not a contract id' } });
    // a contract of a template no check refuses passes
    expect((await transferFactory(withInputs([cids.config!]))).status).toBe(200);
  });

  it('400 for an endpoint the recipe does not configure', async () => {
    // the V1 arguments made V2: no expectedAdmin, accounts for parties, and the actors
    const { expectedAdmin: _v1Only, ...v1 } = transferArgs(alice, carol);
    const a = {
      ...v1,
      transfer: { ...v1.transfer, sender: { owner: alice, provider: null, id: '' }, receiver: { owner: carol, provider: null, id: '' } },
      actors: [alice],
    };
    const r = await post('/registry/transfer-instruction/v2/transfer-factory', { choiceArguments: a });
    expect(r.status).toBe(400);
    // the built-in TestTokenV1 recipe's words, naming the token by its templates' package
    expect(errorOf(r.body)).toBe('acme-token implements only the V1 transfer instruction API; use /v1');
    const s = await post('/registry/allocation/v2/settlement-factory', { choiceArguments: { settlement: {}, transferLegs: [], allocations: [], actors: [], extraArgs: {} } });
    expect(s.status, JSON.stringify(s.body)).toBe(400);
  });

  it('finds a factory by interface (allocation factory v1)', async () => {
    const r = await post('/registry/allocation-instruction/v1/allocation-factory', {
      choiceArguments: {
        expectedAdmin: admin,
        allocation: {
          settlement: {
            executor: carol,
            settlementRef: { id: 'trade-1', cid: null },
            requestedAt: '2026-05-01T09:00:00Z',
            allocateBefore: '2026-05-01T11:00:00Z',
            settleBefore: '2026-05-01T12:00:00Z',
            meta: { values: {} },
          },
          transferLegId: 'leg-0',
          transferLeg: { sender: alice, receiver: bob, amount: '1', instrumentId: { admin, id: 'ACME' }, meta: { values: {} } },
        },
        requestedAt: '2026-05-01T09:30:00Z',
        inputHoldingCids: [],
        extraArgs: { context: { values: {} }, meta: { values: {} } },
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const f = factoryOf(r.body);
    expect(f.factoryId).toBe(cids.allocRules);
    expect(contextValues(f.choiceContext.choiceContextData)).toEqual({ [K.config]: { tag: 'AV_ContractId', value: cids.config } });
    expect(disclosedIds(f.choiceContext)).toEqual([cids.allocRules, cids.config]);
    expect(f.choiceContext.disclosedContracts[0]!.templateId).toMatch(/:Acme\.Rules:AllocationRules$/);
  });

  it('per-contract contexts of a declared offer template: entries from its payload, by field and by id', async () => {
    const lock = await create('Acme.Holding:LockedHolding', { admin, owner: alice, amount: '5.0' });
    const offer = await create('Acme.Transfer:TransferOffer', {
      admin,
      transfer: { sender: alice, receiver: carol, instrumentId: { admin, id: 'ACME' }, amount: '5.0' },
      lockedHoldingCid: lock,
    });
    // created a moment ago: the registry must not 404 (ledger fallback)
    const answer = await post(`/registry/transfer-instruction/v1/${offer}/choice-contexts/accept`, {});
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const accept = contextOf(answer.body);
    expect(contextValues(accept.choiceContextData)).toEqual({
      [K.config]: { tag: 'AV_ContractId', value: cids.config },
      [K.lock]: { tag: 'AV_ContractId', value: lock },
    });
    expect(disclosedIds(accept)).toEqual([cids.config, lock]);
    expect(accept.disclosedContracts[1]!.debugPayload).toEqual({ admin, owner: alice, amount: '5.0' });
    // reject does not take the lock (endpoints: accept, withdraw)
    const reject = await post(`/registry/transfer-instruction/v1/${offer}/choice-contexts/reject`, { excludeDebugFields: true });
    expect(reject.status).toBe(200);
    expect(Object.keys(contextValues(contextOf(reject.body).choiceContextData))).toEqual([K.config]);
    // the token implements only the V1 transfer-instruction API (supportedApis): no v2 context
    for (const action of ['accept', 'reject', 'withdraw']) {
      const v2 = await post(`/registry/transfer-instruction/v2/${offer}/choice-contexts/${action}`, {});
      expect(v2.status, action).toBe(400);
      expect(errorOf(v2.body)).toBe('acme-token implements only the V1 transfer instruction API; use /v1');
    }
    // an optional by-id entry whose contract is gone is left out
    await emu.app.request('/v2/commands/submit-and-wait-for-transaction', {
      method: 'POST',
      body: JSON.stringify({
        commands: {
          commands: [{ ExerciseCommand: { templateId: '#acme-token:Acme.Holding:LockedHolding', contractId: lock, choice: 'Archive', choiceArgument: {} } }],
          commandId: `c-${n++}`,
          actAs: [admin],
          userId: 'admin',
        },
      }),
    });
    const withdraw = await eventually(
      () => post(`/registry/transfer-instruction/v1/${offer}/choice-contexts/withdraw`, {}),
      // done when the lock is left out (or the answer is no context: the status check below fails)
      (x) => x.status !== 200 || !(K.lock in contextValues(contextOf(x.body).choiceContextData)),
    );
    expect(withdraw.status).toBe(200);
    expect(Object.keys(contextValues(contextOf(withdraw.body).choiceContextData))).toEqual([K.config]);
  });

  it('404 for an offer of another admin, and for allocations the recipe does not configure', async () => {
    const foreign = await create('Acme.Transfer:TransferOffer', {
      admin,
      transfer: { sender: alice, receiver: carol, instrumentId: { admin: other, id: 'ACME' }, amount: '1.0' },
      lockedHoldingCid: null,
    });
    const r = await post(`/registry/transfer-instruction/v1/${foreign}/choice-contexts/accept`, {});
    expect(r.status).toBe(404);
    expect(errorOf(r.body)).toContain(`it is for instrument ACME of ${other}`);
    const a = await post(`/registry/allocations/v1/${cids.rules}/choice-contexts/withdraw`, {});
    expect(a.status).toBe(404);
    expect(errorOf(a.body)).toMatch(/TransferRules\) is not a allocation of a token this registry serves/);
  });
});
