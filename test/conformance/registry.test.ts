/**
 * Conformance of the registry: every operation of the seven
 * official token-standard files (Splice `token-standard/splice-api-token-<api>-v<n>/openapi/`: metadata v1,
 * transfer-instruction v1/v2, allocation-instruction v1/v2, allocation v1/v2) is driven through
 * the in-process registry app over the emulated ledger, with a success case and the error cases
 * we can provoke (bad input, unknown contracts, a contract being reassigned, a ledger that is
 * down), and EVERY response is validated with ajv against the matching OFFICIAL file (DESIGN.md
 * rule 1), never against our own openapi.yaml.
 *
 * A status the official file does not document for the operation is allowed only when it is in
 * `UNDOCUMENTED` below, with the reason; its body must still validate against that file's
 * `ErrorResponse` schema. Every error body must moreover be exactly `{"error": string}` (a
 * 4xx says what was wrong and nothing else), and nothing may be a 500.
 *
 * The world: one instrument admin with TestTokenV2 (`X2`, and `P2` paused) and TestTokenV1 (`X1`,
 * deliberately without its TokenRules, so its factories 404). The per-contract objects are
 * created through the registry's own factories and the emulated ledger, as a wallet would.
 * A 409 is provoked by marking the admin's TokenRules (disclosed in every TestTokenV2 context) as
 * being reassigned in the contract index: the emulator has one synchronizer, so a real
 * reassignment cannot happen here; the 409 path under test is the service's, which is the same.
 */
import { AssertionError } from 'node:assert';
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { MemoryCache } from '../../src/cache/memory-cache.js';
import { buildEmulator } from '../../src/emulator/index.js';
import { ManualClock } from '../../src/canton/clock.js';
import { registerTestTokenV1 } from '../../src/emulator/templates/test-token-v1/index.js';
import {
  createTestTokenV2Account,
  createTestTokenV2Rules,
  mintTestTokenV2,
  registerTestTokenV2,
} from '../../src/emulator/templates/test-token-v2/index.js';
import { noAuth } from '../../src/ledger-client/auth.js';
import { LedgerClient } from '../../src/ledger-client/client.js';
import { createRegistry, type Registry } from '../../src/registry/index.js';
import { TestTokenV1Recipe } from '../../src/registry/recipes/test-token-v1.js';
import { TestTokenV2Recipe, TestTokenV2Templates } from '../../src/registry/recipes/test-token-v2.js';
import { SPECS, createSpecValidator, specPath, type SpecValidator } from '../support/openapi-conformance.js';
import { ListInstrumentsResponseSchema } from '../../src/registry/schemas.js';
import { contextOf, contextValues, disclosedIds, errorOf, factoryOf, outputCid, outputTag } from '../support/registry-wire.js';
import { walletExercise } from '../support/wallet-submit.js';

// ---- the official files, and the statuses they do not document -----------------------------------

const SPEC_KEYS = [
  'tokenMetadataV1',
  'transferInstructionV1',
  'transferInstructionV2',
  'allocationInstructionV1',
  'allocationInstructionV2',
  'allocationV1',
  'allocationV2',
] as const;
type SpecKey = (typeof SPEC_KEYS)[number];
const POST_SPECS = SPEC_KEYS.filter((k) => k !== 'tokenMetadataV1');
const V1_POST_SPECS: SpecKey[] = ['transferInstructionV1', 'allocationInstructionV1', 'allocationV1'];

/**
 * Statuses we return that the official file does not list for the operation. Each is a deliberate
 * choice; the body is still the file's ErrorResponse.
 */
const UNDOCUMENTED: Array<{ specs: readonly SpecKey[]; status: number; operationIds?: string[]; reason: string }> = [
  {
    specs: ['tokenMetadataV1'],
    status: 400,
    operationIds: ['listInstruments'],
    reason:
      'a pageSize that is not a positive integer, or a pageToken we never issued, is a client mistake: 400 says so. ' +
      'token-metadata-v1.yaml declares the 400 response component but lists only 200/404/500 for listInstruments',
  },
  {
    specs: ['tokenMetadataV1'],
    status: 503,
    operationIds: ['listInstruments', 'getInstrument'],
    reason: 'totalSupply is computed from the ledger: a ledger that is down gives 503 with Retry-After, not a 500',
  },
  {
    specs: V1_POST_SPECS,
    status: 409,
    reason:
      'a disclosed contract in the middle of a reassignment (or contracts on different synchronizers): the v2 files document ' +
      'this 409 for the same operations, the v1 files predate it; a v1 wallet gets the same retryable answer',
  },
  {
    specs: POST_SPECS,
    status: 503,
    reason: 'the ledger node is down or too slow while the contract must be read from it: 503 with Retry-After',
  },
];

const validators = Object.fromEntries(SPEC_KEYS.map((k) => [k, createSpecValidator(SPECS[k])])) as Record<SpecKey, SpecValidator>;

/** Each file's own `components.schemas.ErrorResponse` (a plain JSON schema in all seven files). */
const errorSchemas = Object.fromEntries(
  SPEC_KEYS.map((k) => {
    const doc = parseYaml(readFileSync(specPath(SPECS[k]), 'utf8')) as { components: { schemas: { ErrorResponse: object } } };
    return [k, new Ajv({ strict: false }).compile(doc.components.schemas.ErrorResponse)];
  }),
) as Record<SpecKey, ValidateFunction>;

function specOf(path: string): SpecKey {
  const p = path.split('?')[0]!;
  if (p.startsWith('/registry/metadata/v1/')) return 'tokenMetadataV1';
  if (p.startsWith('/registry/transfer-instruction/v1/')) return 'transferInstructionV1';
  if (p.startsWith('/registry/transfer-instruction/v2/')) return 'transferInstructionV2';
  if (p.startsWith('/registry/allocation-instruction/v1/')) return 'allocationInstructionV1';
  if (p.startsWith('/registry/allocation-instruction/v2/')) return 'allocationInstructionV2';
  if (p.startsWith('/registry/allocations/v1/')) return 'allocationV1';
  if (p.startsWith('/registry/allocations/v2/') || p.startsWith('/registry/allocation/v2/')) return 'allocationV2';
  throw new Error(`no token-standard file serves ${path}`);
}

interface Seen {
  spec: SpecKey;
  operationId: string;
  method: string;
  pathTemplate: string;
  status: number;
  /** Undefined when the file documents the status; else the UNDOCUMENTED reason. */
  undocumented?: string;
}
const seen: Seen[] = [];

interface Answer {
  status: number;
  /** The parsed JSON (conformant: checked against the official file); read with registry-wire's readers. */
  body: unknown;
  headers: Headers;
}

/** One request to `app`; its response must conform to the official file (see the header). */
async function call(method: 'GET' | 'POST', path: string, opts: { body?: unknown; raw?: string; app?: Registry['app'] } = {}): Promise<Answer> {
  const init: RequestInit = { method };
  if (opts.raw !== undefined) init.body = opts.raw;
  else if (opts.body !== undefined) init.body = JSON.stringify(opts.body);
  if (init.body !== undefined) init.headers = { 'content-type': 'application/json' };
  const r = await (opts.app ?? registry.app).request(path, init);
  const text = await r.text();
  const spec = specOf(path);
  const v = validators[spec].validateResponse({ method, path, status: r.status, contentType: r.headers.get('content-type'), body: text });
  const label = `${method} ${path} -> ${r.status}`;
  let undocumented: string | undefined;
  if (!v.ok) {
    if (v.operation === undefined || v.responseKey !== undefined) {
      throw new AssertionError({ message: [`${label} does not conform to ${SPECS[spec]}:`, ...v.errors.map((e) => `  - ${e}`), `  body: ${text}`].join('\n') });
    }
    const allowed = UNDOCUMENTED.find((u) => u.specs.includes(spec) && u.status === r.status && (!u.operationIds || u.operationIds.includes(v.operation!)));
    if (!allowed) throw new AssertionError({ message: `${label}: status ${r.status} is not documented by ${SPECS[spec]} for ${v.operation} and not listed in UNDOCUMENTED; body: ${text}` });
    expect(r.headers.get('content-type'), label).toMatch(/^application\/json/);
    const validate = errorSchemas[spec];
    expect(validate(JSON.parse(text)), `${label}: not an ErrorResponse of ${SPECS[spec]}: ${JSON.stringify(validate.errors)}; body: ${text}`).toBe(true);
    undocumented = allowed.reason;
  }
  const body: unknown = text === '' ? undefined : JSON.parse(text);
  expect(r.status, `${label}: never a 500; body: ${text}`).not.toBe(500);
  if (r.status >= 400) {
    // exactly {"error": string}, with something in it
    expect(Object.keys(body ?? {}), `${label}: ${text}`).toEqual(['error']);
    const error = errorOf(body); // fails unless the error is a string
    expect(error.length, label).toBeGreaterThan(10);
  }
  seen.push({ spec, operationId: v.operation!, method: method.toLowerCase(), pathTemplate: v.pathTemplate!, status: r.status, undocumented });
  return { status: r.status, body, headers: r.headers };
}

async function expectStatus(status: number, method: 'GET' | 'POST', path: string, opts: Parameters<typeof call>[2] = {}): Promise<Answer> {
  const a = await call(method, path, opts);
  expect(a.status, `${method} ${path}: ${JSON.stringify(a.body)}`).toBe(status);
  return a;
}

// ---- the world ------------------------------------------------------------------------------------

const logger = pino({ level: 'silent' });
const clock = new ManualClock('2026-05-01T10:00:00Z');
const emu = buildEmulator({ config: { demoWorld: false, logLevel: 'silent' }, clock });
const engine = emu.engine;
registerTestTokenV1(engine.templates);
registerTestTokenV2(engine.templates);
const admin = engine.parties.allocate('admin').party;
const alice = engine.parties.allocate('alice').party;
const bob = engine.parties.allocate('bob').party;
const erin = engine.parties.allocate('erin').party;
const provider = engine.parties.allocate('provider').party;
const executor = engine.parties.allocate('executor').party;

const REQUESTED_AT = '2026-05-01T09:59:00Z';
const EXECUTE_BEFORE = '2026-05-02T10:00:00Z';
const DEADLINE = '2026-05-03T10:00:00Z';
const noMeta = { values: {} };
const emptyExtraArgs = () => ({ context: { values: {} }, meta: { values: {} } });
const basic = (owner: string) => ({ owner, provider: null, id: '' });
/** Well-formed (Canton V1 shape) but on no ledger. */
const UNKNOWN_CID = `00${'ab'.repeat(32)}ca101220${'cd'.repeat(32)}`;

const IFACE = {
  TransferFactoryV2: '#splice-api-token-transfer-instruction-v2:Splice.Api.Token.TransferInstructionV2:TransferFactory',
  AllocationFactoryV1: '#splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationFactory',
  AllocationFactoryV2: '#splice-api-token-allocation-instruction-v2:Splice.Api.Token.AllocationInstructionV2:AllocationFactory',
} as const;

/** While true, every ledger call of the registry fails as a refused connection would. */
let ledgerDown = false;
const ledgerFetch = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
  if (ledgerDown) throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:7575') });
  return emu.app.request(input instanceof Request ? input : String(input), init);
}) as typeof fetch;

let registry: Registry;
let rules: string;
let accountConfig: string;
/** Per-contract objects, created through the registry's factories. */
const objects = { offer: '', allocationV1: '', allocationV2: '', instruction: '' };

function transferV1(sender: string, receiver: string, amount: string, inputs: string[], instrument = 'X2') {
  return {
    expectedAdmin: admin,
    transfer: {
      sender,
      receiver,
      amount,
      instrumentId: { admin, id: instrument },
      requestedAt: REQUESTED_AT,
      executeBefore: EXECUTE_BEFORE,
      inputHoldingCids: inputs,
      meta: noMeta,
    },
    extraArgs: emptyExtraArgs(),
  };
}

function transferV2(sender: unknown, receiver: unknown, amount: string, inputs: string[], actors: string[], instrument = 'X2') {
  return {
    transfer: {
      sender,
      receiver,
      amount,
      instrumentId: { admin, id: instrument },
      requestedAt: REQUESTED_AT,
      executeBefore: EXECUTE_BEFORE,
      inputHoldingCids: inputs,
      meta: noMeta,
    },
    actors,
    extraArgs: emptyExtraArgs(),
  };
}

function allocateV1(sender: string, receiver: string, amount: string, inputs: string[], instrument = 'X2') {
  return {
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
      transferLeg: { sender, receiver, amount, instrumentId: { admin, id: instrument }, meta: noMeta },
    },
    requestedAt: REQUESTED_AT,
    inputHoldingCids: inputs,
    extraArgs: emptyExtraArgs(),
  };
}

function allocateV2(settlementId: string, authorizer: unknown, actor: string, other: string, amount: string, inputs: string[], instrument = 'X2') {
  return {
    settlement: { executors: [executor], id: settlementId, cid: null, meta: noMeta },
    allocation: {
      admin,
      authorizer,
      transferLegSides: [{ transferLegId: 'leg-1', side: 'SenderSide', otherside: basic(other), amount, instrumentId: instrument, meta: noMeta }],
      settlementDeadline: DEADLINE,
      nextIterationFunding: null,
      committed: false,
      meta: noMeta,
    },
    requestedAt: REQUESTED_AT,
    inputHoldingCids: inputs,
    actors: [actor],
    extraArgs: emptyExtraArgs(),
  };
}

function settleArgs(allocationCids: string[], instrument = 'X2') {
  return {
    settlement: { executors: [executor], id: 'trade-2', cid: null, meta: noMeta },
    transferLegs: [{ transferLegId: 'leg-1', sender: basic(alice), receiver: basic(bob), amount: '5', instrumentId: instrument, meta: noMeta }],
    allocations: allocationCids.map((allocationCid) => ({ allocationCid, extraTransferLegSides: [], nextIterationFunding: null })),
    actors: [executor],
    extraArgs: emptyExtraArgs(),
  };
}

/** Submits one exercise as a wallet does, with the registry's disclosed contracts; returns the root result. */
const exercise = walletExercise(emu.app, 'conformance');

/** Factory call through the registry (conformance-checked), then the wallet's submission. */
async function throughFactory<A extends object>(path: string, actAs: string[], iface: string, choice: string, args: A) {
  const f = factoryOf((await expectStatus(200, 'POST', path, { body: { choiceArguments: args } })).body);
  return exercise(actAs, iface, f.factoryId, choice, { ...args, extraArgs: { context: f.choiceContext.choiceContextData, meta: noMeta } }, f.choiceContext.disclosedContracts);
}

beforeAll(async () => {
  rules = createTestTokenV2Rules(engine, admin);
  // a two-party account: both must approve, so the owner's allocation stays an instruction
  accountConfig = createTestTokenV2Account(engine, { admin, owner: erin, provider });
  const ledger = new LedgerClient({ baseUrl: 'http://ledger', tokenProvider: noAuth, fetch: ledgerFetch, retry: { maxAttempts: 2, baseDelayMs: 5 } });
  registry = createRegistry({
    admin,
    instruments: [
      { id: 'X2', name: 'Test token two', symbol: 'TT2', decimals: 4, recipe: 'splice-test-token-v2', totalSupply: 'ledger' },
      { id: 'P2', name: 'Paused token', symbol: 'PTT', decimals: 2, recipe: 'splice-test-token-v2', paused: true, pauseInfo: { reason: 'maintenance', until: '2026-06-01T00:00:00Z' } },
      { id: 'X1', name: 'Test token one', symbol: 'TT1', decimals: 2, recipe: 'splice-test-token-v1', accountInputFieldsToShow: ['provider'] },
    ],
    recipes: [new TestTokenV1Recipe(), new TestTokenV2Recipe()],
    ledger,
    cache: new MemoryCache({ defaultTtlSeconds: 600, logger }),
    clock,
    logger,
    pollIdleMs: 20,
  });
  await registry.start();

  const mint = (owner: string, amount: string) => mintTestTokenV2(engine, { admin, owner, instrumentId: 'X2', amount, tokenRulesCid: rules });
  const offer = await throughFactory('/registry/transfer-instruction/v2/transfer-factory', [alice], IFACE.TransferFactoryV2, 'TransferFactory_Transfer', transferV2(basic(alice), basic(bob), '10', [mint(alice, '10')], [alice]));
  objects.offer = outputCid(offer, 'transferInstructionCid');
  const v1 = await throughFactory('/registry/allocation-instruction/v1/allocation-factory', [alice], IFACE.AllocationFactoryV1, 'AllocationFactory_Allocate', allocateV1(alice, bob, '3', [mint(alice, '3')]));
  objects.allocationV1 = outputCid(v1, 'allocationCid');
  const v2 = await throughFactory('/registry/allocation-instruction/v2/allocation-factory', [alice], IFACE.AllocationFactoryV2, 'AllocationFactory_Allocate', allocateV2('trade-1', basic(alice), alice, bob, '4', [mint(alice, '4')]));
  objects.allocationV2 = outputCid(v2, 'allocationCid');
  const account = { owner: erin, provider, id: '' };
  const held = mintTestTokenV2(engine, { admin, account, instrumentId: 'X2', amount: '7', tokenRulesCid: rules });
  const instr = await throughFactory('/registry/allocation-instruction/v2/allocation-factory', [erin], IFACE.AllocationFactoryV2, 'AllocationFactory_Allocate', allocateV2('trade-3', account, erin, bob, '2', [held]));
  expect(outputTag(instr)).toBe('AllocationInstructionResult_Pending');
  objects.instruction = outputCid(instr, 'allocationInstructionCid');
  for (const cid of Object.values(objects)) expect(cid).toMatch(/^00[0-9a-f]+$/);
});
afterAll(async () => registry?.stop());

/** Every per-contract endpoint with the object it takes. */
const contextEndpoints = () => [
  ...['accept', 'reject', 'withdraw'].flatMap((a) => [`/registry/transfer-instruction/v1/{id}/choice-contexts/${a}`, `/registry/transfer-instruction/v2/{id}/choice-contexts/${a}`].map((p) => ({ path: p, cid: objects.offer }))),
  ...['accept', 'withdraw'].map((a) => ({ path: `/registry/allocation-instruction/v2/{id}/choice-contexts/${a}`, cid: objects.instruction })),
  ...['execute-transfer', 'withdraw', 'cancel'].map((a) => ({ path: `/registry/allocations/v1/{id}/choice-contexts/${a}`, cid: objects.allocationV1 })),
  ...['withdraw', 'cancel'].map((a) => ({ path: `/registry/allocations/v2/{id}/choice-contexts/${a}`, cid: objects.allocationV2 })),
];
const at = (path: string, cid: string) => path.replace('{id}', cid);

/** Every factory endpoint with valid choice arguments for X2. */
const factoryEndpoints = () => [
  { path: '/registry/transfer-instruction/v1/transfer-factory', args: transferV1(alice, bob, '1', []) },
  { path: '/registry/transfer-instruction/v2/transfer-factory', args: transferV2(basic(alice), basic(bob), '1', [], [alice]) },
  { path: '/registry/allocation-instruction/v1/allocation-factory', args: allocateV1(alice, bob, '1', []) },
  { path: '/registry/allocation-instruction/v2/allocation-factory', args: allocateV2('trade-9', basic(alice), alice, bob, '1', []) },
  { path: '/registry/allocation/v2/settlement-factory', args: settleArgs([objects.allocationV2]) },
];

describe('registry responses conform to the official token-standard files', () => {
  it('metadata v1: info, instruments (paged), one instrument; unknown instrument 404, bad pageSize 400, a pageToken we never issued 404', async () => {
    const info = await expectStatus(200, 'GET', '/registry/metadata/v1/info');
    expect(info.body).toEqual({ adminId: admin, supportedApis: { 'splice-api-token-metadata-v1': 1 } });

    const instruments = (a: Answer) => ListInstrumentsResponseSchema.parse(a.body);
    const all = instruments(await expectStatus(200, 'GET', '/registry/metadata/v1/instruments'));
    expect(all.instruments.map((i) => i.id)).toEqual(['P2', 'X1', 'X2']);
    expect(all.nextPageToken).toBeUndefined();
    const x2 = all.instruments[2];
    expect(x2).toMatchObject({ id: 'X2', decimals: 4, totalSupply: expect.any(String), totalSupplyAsOf: expect.any(String) });
    expect(all.instruments[0]).toMatchObject({ paused: true, pauseInfo: { reason: 'maintenance', until: '2026-06-01T00:00:00Z' } });
    expect(all.instruments[1]).toMatchObject({ accountInputFieldsToShow: ['provider'] });

    const p1 = instruments(await expectStatus(200, 'GET', '/registry/metadata/v1/instruments?pageSize=2'));
    expect(p1.instruments).toHaveLength(2);
    expect(p1.nextPageToken).toEqual(expect.any(String));
    const p2 = instruments(await expectStatus(200, 'GET', `/registry/metadata/v1/instruments?pageSize=2&pageToken=${encodeURIComponent(p1.nextPageToken!)}`));
    expect(p2.instruments.map((i) => i.id)).toEqual(['X2']);
    expect(p2.nextPageToken).toBeUndefined();

    await expectStatus(200, 'GET', '/registry/metadata/v1/instruments/X2');
    await expectStatus(200, 'GET', '/registry/metadata/v1/instruments/P2');
    const missing = await expectStatus(404, 'GET', '/registry/metadata/v1/instruments/NOPE');
    expect(errorOf(missing.body)).toContain('NOPE');
    for (const q of ['pageSize=abc', 'pageSize=0', 'pageSize=-1', 'pageSize=1.5']) {
      const bad = await expectStatus(400, 'GET', `/registry/metadata/v1/instruments?${q}`);
      expect(errorOf(bad.body)).toMatch(/pageSize/);
    }
    // token-metadata-v1.yaml lists 200, 404 and 500 for listInstruments: a token that names no page is a 404
    expect(errorOf((await expectStatus(404, 'GET', '/registry/metadata/v1/instruments?pageToken=not-a-token')).body)).toMatch(/pageToken/);
  });

  it('every factory: 200 with a valid choiceArguments', async () => {
    for (const { path, args } of factoryEndpoints()) {
      const ok = factoryOf((await expectStatus(200, 'POST', path, { body: { choiceArguments: args } })).body);
      expect(ok.factoryId).toBe(rules);
      expect(ok.choiceContext.disclosedContracts[0]!.contractId).toBe(rules);
    }
  });

  it('every factory: 400 for malformed or invalid input', async () => {
    for (const { path, args } of factoryEndpoints()) {
      await expectStatus(400, 'POST', path, { raw: '{"choiceArguments": ' });
      await expectStatus(400, 'POST', path, { body: {} });
      await expectStatus(400, 'POST', path, { body: { choiceArguments: 'x' } });
      await expectStatus(400, 'POST', path, { body: { choiceArguments: {} } });
      await expectStatus(400, 'POST', path, { body: { choiceArguments: args, excludeDebugFields: 'yes' } });
      const json = JSON.parse(JSON.stringify(args));
      // an amount the token would reject
      if (json.transfer) json.transfer.amount = '0';
      else if (json.allocation?.transferLeg) json.allocation.transferLeg.amount = '-1';
      else if (json.allocation?.transferLegSides) json.allocation.transferLegSides[0].amount = '0.00001';
      else json.transferLegs[0].amount = '0';
      const bad = await expectStatus(400, 'POST', path, { body: { choiceArguments: json } });
      expect(errorOf(bad.body)).toMatch(/amount/);
    }
    // the paused instrument, on each factory that names an instrument
    const paused = await expectStatus(400, 'POST', '/registry/transfer-instruction/v2/transfer-factory', {
      body: { choiceArguments: transferV2(basic(alice), basic(bob), '1', [], [alice], 'P2') },
    });
    expect(errorOf(paused.body)).toMatch(/P2 is paused/);
    // TestTokenV1 implements no v2 API
    const tt1 = await expectStatus(400, 'POST', '/registry/transfer-instruction/v2/transfer-factory', {
      body: { choiceArguments: transferV2(basic(alice), basic(bob), '1', [], [alice], 'X1') },
    });
    expect(errorOf(tt1.body)).toMatch(/only the V1/);
  });

  it('factories: 404 when the factory or a named allocation is not on the ledger', async () => {
    // X1's token (TestTokenV1) has no TokenRules on this ledger
    const t = await expectStatus(404, 'POST', '/registry/transfer-instruction/v1/transfer-factory', { body: { choiceArguments: transferV1(alice, bob, '1', [], 'X1') } });
    expect(errorOf(t.body)).toMatch(/No TokenRules/);
    await expectStatus(404, 'POST', '/registry/allocation-instruction/v1/allocation-factory', { body: { choiceArguments: allocateV1(alice, bob, '1', [], 'X1') } });
    const s = await expectStatus(404, 'POST', '/registry/allocation/v2/settlement-factory', { body: { choiceArguments: settleArgs([UNKNOWN_CID]) } });
    expect(errorOf(s.body)).toContain(UNKNOWN_CID);
  });

  it('every per-contract context: 200 with an empty, a missing and a full body', async () => {
    for (const { path, cid } of contextEndpoints()) {
      const a = await expectStatus(200, 'POST', at(path, cid), { body: {} });
      const b = await expectStatus(200, 'POST', at(path, cid));
      const c = await expectStatus(200, 'POST', at(path, cid), { body: { meta: { 'example.com/note': 'x' }, excludeDebugFields: true } });
      expect(b.body).toEqual(a.body);
      expect(contextValues(contextOf(a.body).choiceContextData)['testTokenV2/tokenRules']).toEqual({ tag: 'AV_ContractId', value: rules });
      expect(contextOf(c.body).disclosedContracts.every((d) => d.debugPayload === undefined)).toBe(true);
    }
    // the instruction's account has an AccountConfig: it is in the context
    const accept = await call('POST', at('/registry/allocation-instruction/v2/{id}/choice-contexts/accept', objects.instruction));
    expect(disclosedIds(contextOf(accept.body))).toEqual([rules, accountConfig]);
  });

  it('every per-contract context: 400 for a malformed id or body, 404 for an unknown or wrong-kind contract', async () => {
    for (const { path, cid } of contextEndpoints()) {
      const badId = await expectStatus(400, 'POST', at(path, 'not-a-contract-id'), { body: {} });
      expect(errorOf(badId.body)).toContain('not-a-contract-id');
      await expectStatus(400, 'POST', at(path, cid), { raw: '{"meta":' });
      await expectStatus(400, 'POST', at(path, cid), { body: { excludeDebugFields: 'no' } });
      await expectStatus(400, 'POST', at(path, cid), { body: { meta: { n: 1 } } });
      await expectStatus(400, 'POST', at(path, cid), { body: [] });
      const unknown = await expectStatus(404, 'POST', at(path, UNKNOWN_CID), { body: {} });
      expect(errorOf(unknown.body)).toContain(UNKNOWN_CID);
      // the factory (TokenRules) is a contract of this admin, but not one these endpoints take
      const wrongKind = await expectStatus(404, 'POST', at(path, rules), { body: {} });
      expect(errorOf(wrongKind.body)).toContain(rules);
    }
    // a V2 allocation has no V1 interface: the v1 endpoint says so
    const v2OnV1 = await expectStatus(400, 'POST', at('/registry/allocations/v1/{id}/choice-contexts/execute-transfer', objects.allocationV2), { body: {} });
    expect(errorOf(v2OnV1.body)).toMatch(/V2 allocation/);
  });

  it('409 on every TestTokenV2 endpoint while a disclosed contract is being reassigned', async () => {
    const [tokenRules] = registry.index.find(TestTokenV2Templates.TokenRules);
    expect(tokenRules?.contractId).toBe(rules);
    tokenRules!.inReassignment = true;
    try {
      for (const { path, args } of factoryEndpoints()) {
        const r = await call('POST', path, { body: { choiceArguments: args } });
        expect(r.status, JSON.stringify(r.body)).toBe(409);
        expect(errorOf(r.body)).toContain(rules);
        expect(r.headers.get('retry-after')).toMatch(/^\d+$/);
      }
      for (const { path, cid } of contextEndpoints()) {
        const r = await expectStatus(409, 'POST', at(path, cid), { body: {} });
        expect(errorOf(r.body)).toMatch(/reassigned/);
      }
    } finally {
      tokenRules!.inReassignment = false;
    }
  });

  it('503 with Retry-After when the ledger is down and a contract must be read from it', async () => {
    ledgerDown = true;
    try {
      for (const { path } of contextEndpoints()) {
        const r = await expectStatus(503, 'POST', at(path, UNKNOWN_CID), { body: {} });
        expect(errorOf(r.body)).toMatch(/ledger node is unavailable/);
        expect(r.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      }
      const s = await expectStatus(503, 'POST', '/registry/allocation/v2/settlement-factory', { body: { choiceArguments: settleArgs([UNKNOWN_CID]) } });
      expect(s.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      // known contracts and warm factories are answered from the index and cache meanwhile
      await expectStatus(200, 'POST', at('/registry/transfer-instruction/v2/{id}/choice-contexts/accept', objects.offer), { body: {} });
      await expectStatus(200, 'POST', '/registry/transfer-instruction/v1/transfer-factory', { body: { choiceArguments: transferV1(alice, bob, '1', []) } });
    } finally {
      ledgerDown = false;
    }
  });

  it('metadata: 503 with Retry-After when the total supply cannot be read from a ledger that is down', async () => {
    // A replica that has not computed the total supply yet (its cache of it is per service).
    const down = createRegistry({
      admin,
      instruments: [{ id: 'X2', name: 'Test token two', symbol: 'TT2', decimals: 4, recipe: 'splice-test-token-v2', totalSupply: 'ledger' }],
      recipes: [new TestTokenV2Recipe()],
      ledger: new LedgerClient({
        baseUrl: 'http://ledger',
        tokenProvider: noAuth,
        fetch: (async () => {
          throw new TypeError('fetch failed');
        }) as typeof fetch,
        retry: { maxAttempts: 1 },
      }),
      cache: new MemoryCache({ defaultTtlSeconds: 600, logger }),
      clock,
      logger,
    });
    for (const path of ['/registry/metadata/v1/instruments', '/registry/metadata/v1/instruments/X2']) {
      const r = await expectStatus(503, 'GET', path, { app: down.app });
      expect(r.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    }
    // info needs no ledger
    await expectStatus(200, 'GET', '/registry/metadata/v1/info', { app: down.app });
  });

  it('coverage: every operation of the seven files has a conformant 200 and a conformant 4xx', () => {
    // getRegistryInfo takes no input at all (no parameters, no body): there is no bad input for a
    // 4xx, and it reads nothing from the ledger. It is the only operation exempt from the 4xx rule.
    const NO_4XX = new Set(['tokenMetadataV1 getRegistryInfo']);
    const missing: string[] = [];
    for (const spec of SPEC_KEYS) {
      const ops = validators[spec].operations();
      expect(ops.length).toBeGreaterThan(0);
      for (const op of ops) {
        const mine = seen.filter((s) => s.spec === spec && s.method === op.method && s.pathTemplate === op.pathTemplate);
        if (!mine.some((s) => s.status === 200)) missing.push(`${spec} ${op.operationId} ${op.method.toUpperCase()} ${op.pathTemplate}: no 200`);
        if (!NO_4XX.has(`${spec} ${op.operationId}`) && !mine.some((s) => s.status >= 400 && s.status < 500)) {
          missing.push(`${spec} ${op.operationId} ${op.method.toUpperCase()} ${op.pathTemplate}: no 4xx`);
        }
      }
      // the harness's own record agrees for the documented statuses
      expect(validators[spec].uncovered(ops.map((op) => ({ ...op, status: 200 })))).toEqual([]);
    }
    expect(missing).toEqual([]);
    // 21 operations in all (3 + 4 + 4 + 1 + 3 + 3 + 3)
    expect(SPEC_KEYS.reduce((n, k) => n + validators[k].operations().length, 0)).toBe(21);
    // every UNDOCUMENTED allowance was exercised (the list does not rot), and nothing else was
    for (const u of UNDOCUMENTED) {
      expect(seen.some((s) => s.undocumented === u.reason && s.status === u.status), `${u.status} for ${u.specs.join(', ')}`).toBe(true);
    }
    const undocumentedStatuses = [...new Set(seen.filter((s) => s.undocumented).map((s) => `${s.spec} ${s.status}`))].sort();
    expect(undocumentedStatuses).toEqual(
      [
        'tokenMetadataV1 400',
        'tokenMetadataV1 503',
        'transferInstructionV1 409',
        'transferInstructionV1 503',
        'allocationInstructionV1 409',
        'allocationV1 409',
        'allocationV1 503',
        'allocationV2 503',
        'allocationInstructionV2 503',
        'transferInstructionV2 503',
      ].sort(),
    );
    expect(seen.every((s) => s.status !== 500)).toBe(true);
  });
});
