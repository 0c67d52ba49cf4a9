/**
 * The registry's behaviour at the edges:
 *  - lenient where real clients are sloppy: unknown fields (the Splice CLI's `transfer.lock: null`),
 *    an empty or missing body on context calls, `meta`, a Content-Type on GETs, an Authorization
 *    header on these public endpoints, URL-encoded ids;
 *  - strict where it helps: a choiceArguments the token would reject anyway is a 400 that says why,
 *    and what the token accepts is never rejected;
 *  - never a 500 for bad input (a structural fuzz of every factory's arguments and garbage bodies,
 *    ids and query strings on every endpoint);
 *  - `excludeDebugFields` (default false), debug fields equal to what the blob and the ledger hold;
 *  - paging of instruments;
 *  - a ledger that is down or slow: 503 with a clear message and Retry-After.
 * Every error answer is checked to be exactly `{"error": string}` with a message that says what.
 * Status codes and schemas against the official files: test/conformance/registry.test.ts.
 */
import { createServer, type AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryCache } from '../../../src/cache/memory-cache.js';
import { buildEmulator } from '../../../src/emulator/index.js';
import { ManualClock } from '../../../src/canton/clock.js';
import { createTestTokenV2Account, createTestTokenV2Rules, mintTestTokenV2, registerTestTokenV2 } from '../../../src/emulator/templates/test-token-v2/index.js';
import { noAuth, TokenProviderError, type TokenProvider } from '../../../src/ledger-client/auth.js';
import { LedgerClient } from '../../../src/ledger-client/client.js';
import { createRegistry, type Registry } from '../../../src/registry/index.js';
import type { InstrumentConfig } from '../../../src/registry/instrument-config.js';
import { TestTokenV2Recipe, TestTokenV2Templates } from '../../../src/registry/recipes/test-token-v2.js';
import type { Account, AllocationSpecificationV2, TransferLegSide } from '../../../src/emulator/templates/test-token-v2/values.js';
import type { JsActiveContract } from '../../../src/ledger-client/schemas/events.js';
import { ErrorResponseSchema, GetRegistryInfoResponseSchema, InstrumentSchema, type DisclosedContract } from '../../../src/registry/schemas.js';
import { contextOf, disclosedIds, errorOf, factoryOf, outputCid } from '../../support/registry-wire.js';
import { activeContracts, jsonAt } from '../../support/ledger-wire.js';
import { walletExercise } from '../../support/wallet-submit.js';

// ---- the world ------------------------------------------------------------------------------------

const logger = pino({ level: 'silent' });
const clock = new ManualClock('2026-05-01T10:00:00Z');
const emu = buildEmulator({ config: { demoWorld: false, logLevel: 'silent' }, clock });
const engine = emu.engine;
registerTestTokenV2(engine.templates);
const admin = engine.parties.allocate('admin').party;
const alice = engine.parties.allocate('alice').party;
const bob = engine.parties.allocate('bob').party;
const erin = engine.parties.allocate('erin').party;
const provider = engine.parties.allocate('provider').party;
const executor = engine.parties.allocate('executor').party;
const other = engine.parties.allocate('otherAdmin').party;

const NOW = '2026-05-01T10:00:00Z';
const REQUESTED_AT = '2026-05-01T09:59:00Z';
const EXECUTE_BEFORE = '2026-05-02T10:00:00Z';
const DEADLINE = '2026-05-03T10:00:00Z';
const noMeta = { values: {} };
const emptyExtraArgs = () => ({ context: { values: {} }, meta: { values: {} } });
const basic = (owner: string): Account => ({ owner, provider: null, id: '' });
/** Well-formed (Canton V1 shape) but on no ledger. */
const UNKNOWN_CID = `00${'ab'.repeat(32)}ca101220${'cd'.repeat(32)}`;
const PAUSE = { reason: 'maintenance', until: '2026-06-01T00:00:00Z' };

const INSTRUMENTS: InstrumentConfig[] = [
  { id: 'X2', name: 'Test token two', symbol: 'TT2', decimals: 4, recipe: 'splice-test-token-v2', totalSupply: 'ledger' },
  { id: 'Y2', name: 'Second test token', symbol: 'TT2B', decimals: 0, recipe: 'splice-test-token-v2' },
  { id: 'P2', name: 'Paused token', symbol: 'PTT', decimals: 2, recipe: 'splice-test-token-v2', paused: true, pauseInfo: PAUSE },
];

const inProcess = (input: Parameters<typeof fetch>[0], init?: RequestInit) => emu.app.request(input instanceof Request ? input : String(input), init);

type LedgerMode = 'up' | 'down' | 'slow';

/** A port nothing listens on: a ledger that is down refuses the connection. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A registry over the emulated ledger whose ledger connection can be switched: `up` (in process),
 * `down` (a real fetch to a closed port: ECONNREFUSED), `slow` (a fetch that never answers; like a
 * real fetch it gives up when the client's timeout aborts it).
 */
async function makeRegistry(opts: { instruments?: InstrumentConfig[]; timeoutMs?: number; start?: boolean; port?: number; tokenProvider?: TokenProvider } = {}) {
  const state = { mode: 'up' as LedgerMode };
  const port = opts.port ?? (await closedPort());
  const ledgerFetch = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    if (state.mode === 'up') return inProcess(input, init);
    if (state.mode === 'down') {
      const url = new URL(input instanceof Request ? input.url : String(input));
      return fetch(`http://127.0.0.1:${port}${url.pathname}${url.search}`, init);
    }
    return new Promise<Response>((_, reject) => {
      const signal = init?.signal;
      if (signal?.aborted) return reject(signal.reason);
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  }) as typeof fetch;
  const registry = createRegistry({
    admin,
    instruments: opts.instruments ?? INSTRUMENTS,
    recipes: [new TestTokenV2Recipe()],
    ledger: new LedgerClient({
      baseUrl: 'http://ledger',
      tokenProvider: opts.tokenProvider ?? noAuth,
      fetch: ledgerFetch,
      timeoutMs: opts.timeoutMs,
      retry: { maxAttempts: 2, baseDelayMs: 5 },
    }),
    cache: new MemoryCache({ defaultTtlSeconds: 600, logger }),
    clock,
    logger,
    pollIdleMs: 20,
  });
  if (opts.start !== false) await registry.start();
  return { registry, state, port };
}

interface Answer {
  status: number;
  /** The parsed JSON (the text when it is not JSON, undefined when empty): read with registry-wire's readers. */
  body: unknown;
  text: string;
  headers: Headers;
}

async function req(
  app: Registry['app'],
  method: string,
  path: string,
  opts: { body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  let body: string | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  const r = await app.request(path, { method, headers, body });
  const text = await r.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: r.status, body: parsed, text, headers: r.headers };
}

/** The answer is `status` with exactly `{"error": string}` whose message matches every pattern. */
function expectError(a: Answer, status: number, ...patterns: Array<RegExp | string>): void {
  expect(a.status, a.text).toBe(status);
  expect(a.headers.get('content-type'), a.text).toMatch(/^application\/json/);
  expect(Object.keys(a.body ?? {}), a.text).toEqual(['error']);
  // `{error: string}`: fails unless the error is a string
  const error = errorOf(a.body);
  for (const p of patterns) {
    if (typeof p === 'string') expect(error).toContain(p);
    else expect(error).toMatch(p);
  }
}

/** Bad input: a 4xx with exactly `{"error": string}`, never a 5xx. */
function expectClientError(a: Answer, what: string): void {
  expect(a.status, `${what} -> ${a.status} ${a.text}`).toBeGreaterThanOrEqual(400);
  expect(a.status, `${what} -> ${a.status} ${a.text}`).toBeLessThan(500);
  expect(Object.keys(a.body ?? {}), `${what}: ${a.text}`).toEqual(['error']);
  const { data, success } = ErrorResponseSchema.safeParse(a.body);
  expect(success, `${what}: the error is a string`).toBe(true);
  expect(data?.error.length, `${what}: ${a.text}`).toBeGreaterThan(5);
}

function transferV1(overrides: { sender?: string; receiver?: string; amount?: string; instrument?: string } = {}) {
  return {
    expectedAdmin: admin,
    transfer: {
      sender: overrides.sender ?? alice,
      receiver: overrides.receiver ?? bob,
      amount: overrides.amount ?? '1',
      instrumentId: { admin, id: overrides.instrument ?? 'X2' },
      requestedAt: REQUESTED_AT,
      executeBefore: EXECUTE_BEFORE,
      inputHoldingCids: [] as string[],
      meta: noMeta,
    },
    extraArgs: emptyExtraArgs(),
  };
}

function transferV2(overrides: { amount?: string; instrument?: string; inputs?: string[] } = {}) {
  return {
    transfer: {
      sender: basic(alice),
      receiver: basic(bob),
      amount: overrides.amount ?? '1',
      instrumentId: { admin, id: overrides.instrument ?? 'X2' },
      requestedAt: REQUESTED_AT,
      executeBefore: EXECUTE_BEFORE,
      inputHoldingCids: overrides.inputs ?? [],
      meta: noMeta,
    },
    actors: [alice],
    extraArgs: emptyExtraArgs(),
  };
}

function allocateV1(overrides: { amount?: string; instrument?: string } = {}) {
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
      transferLeg: { sender: alice, receiver: bob, amount: overrides.amount ?? '1', instrumentId: { admin, id: overrides.instrument ?? 'X2' }, meta: noMeta },
    },
    requestedAt: REQUESTED_AT,
    inputHoldingCids: [] as string[],
    extraArgs: emptyExtraArgs(),
  };
}

const side = (i: number, amount = '1', instrument = 'X2'): TransferLegSide => ({
  transferLegId: `leg-${i}`,
  side: 'SenderSide',
  otherside: basic(bob),
  amount,
  instrumentId: instrument,
  meta: noMeta,
});

function allocateV2(overrides: { sides?: TransferLegSide[]; amount?: string; instrument?: string } = {}) {
  const allocation: AllocationSpecificationV2 = {
    admin,
    authorizer: basic(alice),
    transferLegSides: overrides.sides ?? [side(1, overrides.amount, overrides.instrument)],
    settlementDeadline: DEADLINE,
    nextIterationFunding: null,
    committed: false,
    meta: noMeta,
  };
  return {
    settlement: { executors: [executor], id: 'trade-1', cid: null, meta: noMeta },
    allocation,
    requestedAt: REQUESTED_AT,
    inputHoldingCids: [] as string[],
    actors: [alice],
    extraArgs: emptyExtraArgs(),
  };
}

const leg = (i: number, amount = '1', instrument = 'X2') => ({ transferLegId: `leg-${i}`, sender: basic(alice), receiver: basic(bob), amount, instrumentId: instrument, meta: noMeta });

function settle(overrides: { legs?: unknown[]; allocations?: string[]; amount?: string; instrument?: string } = {}) {
  return {
    settlement: { executors: [executor], id: 'trade-2', cid: null, meta: noMeta },
    transferLegs: overrides.legs ?? [leg(1, overrides.amount, overrides.instrument)],
    allocations: (overrides.allocations ?? []).map((allocationCid) => ({ allocationCid, extraTransferLegSides: [], nextIterationFunding: null })),
    actors: [executor],
    extraArgs: emptyExtraArgs(),
  };
}

const F = {
  transferV1: '/registry/transfer-instruction/v1/transfer-factory',
  transferV2: '/registry/transfer-instruction/v2/transfer-factory',
  allocateV1: '/registry/allocation-instruction/v1/allocation-factory',
  allocateV2: '/registry/allocation-instruction/v2/allocation-factory',
  settle: '/registry/allocation/v2/settlement-factory',
} as const;

let main: Awaited<ReturnType<typeof makeRegistry>>;
let app: Registry['app'];
let rules: string;
let offer: string;
let allocation: string;
let accountConfig: string;

const post = (path: string, body?: unknown, headers?: Record<string, string>) => req(app, 'POST', path, { body, headers });
const get = (path: string, headers?: Record<string, string>) => req(app, 'GET', path, { headers });

const exercise = walletExercise(emu.app, 'edges');

beforeAll(async () => {
  rules = createTestTokenV2Rules(engine, admin);
  accountConfig = createTestTokenV2Account(engine, { admin, owner: erin, provider, ownerConfig: { canInitiate: true, mustApprove: true }, providerConfig: { canInitiate: false, mustApprove: false } });
  main = await makeRegistry();
  app = main.registry.app;
  const mint = (amount: string) => mintTestTokenV2(engine, { admin, owner: alice, instrumentId: 'X2', amount, tokenRulesCid: rules });

  const args = transferV2({ amount: '5', inputs: [mint('5')] });
  const f = factoryOf((await post(F.transferV2, { choiceArguments: args })).body);
  const r = await exercise([alice], '#splice-api-token-transfer-instruction-v2:Splice.Api.Token.TransferInstructionV2:TransferFactory', f.factoryId, 'TransferFactory_Transfer', { ...args, extraArgs: { context: f.choiceContext.choiceContextData, meta: noMeta } }, f.choiceContext.disclosedContracts);
  offer = outputCid(r, 'transferInstructionCid');

  const alloc = { ...allocateV2(), inputHoldingCids: [mint('1')] };
  const fa = factoryOf((await post(F.allocateV2, { choiceArguments: alloc })).body);
  const ra = await exercise([alice], '#splice-api-token-allocation-instruction-v2:Splice.Api.Token.AllocationInstructionV2:AllocationFactory', fa.factoryId, 'AllocationFactory_Allocate', { ...alloc, extraArgs: { context: fa.choiceContext.choiceContextData, meta: noMeta } }, fa.choiceContext.disclosedContracts);
  allocation = outputCid(ra, 'allocationCid');
});
afterAll(async () => main?.registry.stop());

const acceptPath = () => `/registry/transfer-instruction/v2/${offer}/choice-contexts/accept`;
const contextPaths = () => [
  ...['accept', 'reject', 'withdraw'].flatMap((a) => [1, 2].map((v) => `/registry/transfer-instruction/v${v}/{id}/choice-contexts/${a}`)),
  '/registry/allocation-instruction/v2/{id}/choice-contexts/accept',
  '/registry/allocation-instruction/v2/{id}/choice-contexts/withdraw',
  '/registry/allocations/v1/{id}/choice-contexts/execute-transfer',
  '/registry/allocations/v1/{id}/choice-contexts/withdraw',
  '/registry/allocations/v1/{id}/choice-contexts/cancel',
  '/registry/allocations/v2/{id}/choice-contexts/withdraw',
  '/registry/allocations/v2/{id}/choice-contexts/cancel',
];
const validFactoryCalls = () => [
  { path: F.transferV1, args: transferV1() },
  { path: F.transferV2, args: transferV2() },
  { path: F.allocateV1, args: allocateV1() },
  { path: F.allocateV2, args: allocateV2() },
  { path: F.settle, args: settle({ allocations: [allocation] }) },
];

// ---- lenient ---------------------------------------------------------------------------------------

describe('lenient where clients are sloppy', () => {
  it('ignores unknown fields: transfer.lock: null (the Splice CLI), unknown request and argument fields', async () => {
    for (const [path, args] of [
      [F.transferV1, transferV1()],
      [F.transferV2, transferV2()],
    ] as const) {
      const plain = await post(path, { choiceArguments: args });
      expect(plain.status, plain.text).toBe(200);
      const sloppy = await post(path, {
        choiceArguments: { ...args, transfer: { ...args.transfer, lock: null, somethingNew: { x: 1 } }, futureField: [1, 2] },
        excludeDebugFields: false,
        clientVersion: '1.2.3',
      });
      expect(sloppy.status, sloppy.text).toBe(200);
      expect(sloppy.body).toEqual(plain.body);
    }
    const ctx = await post(acceptPath(), { excludeDebugFields: false, somethingElse: true });
    expect(ctx.status, ctx.text).toBe(200);
  });

  it('accepts an empty or missing body on context calls, with or without a JSON content type', async () => {
    const reference = await post(acceptPath(), {});
    expect(reference.status, reference.text).toBe(200);
    const variants: Array<{ raw?: string; headers?: Record<string, string> }> = [
      {},
      { raw: '' },
      { raw: '   \n' },
      { raw: '', headers: { 'content-type': 'application/json' } },
      { raw: '{}', headers: { 'content-type': 'text/plain' } },
      { raw: '{}', headers: { 'content-type': 'application/json; charset=utf-8' } },
    ];
    for (const v of variants) {
      for (const path of contextPaths().filter((p) => p.startsWith('/registry/transfer-instruction/'))) {
        const a = await req(app, 'POST', path.replace('{id}', offer), v);
        expect(a.status, `${JSON.stringify(v)} ${path}: ${a.text}`).toBe(200);
        expect(a.body).toEqual(reference.body);
      }
    }
    // a factory needs its choiceArguments: an empty body says which field is missing
    expectError(await req(app, 'POST', F.transferV1), 400, 'choiceArguments');
  });

  it('accepts meta on context calls and in choice arguments', async () => {
    for (const meta of [{}, { 'splice.lfdecentralizedtrust.org/reason': 'paying rent', 'example.com/ref': '42' }]) {
      const a = await post(acceptPath(), { meta });
      expect(a.status, a.text).toBe(200);
    }
    const args = transferV2();
    const withMeta = await post(F.transferV2, { choiceArguments: { ...args, transfer: { ...args.transfer, meta: { values: { 'splice.lfdecentralizedtrust.org/reason': 'rent' } } } } });
    expect(withMeta.status, withMeta.text).toBe(200);
    // meta absent altogether in the arguments (Daml JSON would default it)
    const { meta: _m, ...noMetaTransfer } = args.transfer;
    expect((await post(F.transferV2, { choiceArguments: { ...args, transfer: noMetaTransfer } })).status).toBe(200);
    // meta values are strings (GetChoiceContextRequest.meta: additionalProperties string)
    expectError(await post(acceptPath(), { meta: { n: 1 } }), 400, 'meta');
  });

  it('answers GETs that carry a Content-Type (and even an empty body)', async () => {
    for (const path of ['/registry/metadata/v1/info', '/registry/metadata/v1/instruments', '/registry/metadata/v1/instruments/X2']) {
      const bare = await get(path);
      expect(bare.status, bare.text).toBe(200);
      for (const ct of ['application/json', 'text/plain', 'application/x-www-form-urlencoded']) {
        const a = await get(path, { 'content-type': ct });
        expect(a.status, `${ct} ${a.text}`).toBe(200);
        expect(a.body).toEqual(bare.body);
      }
    }
  });

  it('ignores an Authorization header: these endpoints are public', async () => {
    for (const auth of ['Bearer not-a-jwt', 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.x', 'Basic dXNlcjpwYXNz']) {
      const h = { authorization: auth };
      expect((await get('/registry/metadata/v1/info', h)).status).toBe(200);
      expect((await get('/registry/metadata/v1/instruments/X2', h)).status).toBe(200);
      expect((await post(F.transferV1, { choiceArguments: transferV1() }, h)).status).toBe(200);
      expect((await post(acceptPath(), {}, h)).status).toBe(200);
    }
  });

  it('the same over a real socket (@hono/node-server reads the body from the Node request)', async () => {
    const server = await new Promise<ServerType>((resolve, reject) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
      s.once('error', reject);
    });
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const http = async (method: string, path: string, init: { body?: string; headers?: Record<string, string> } = {}) => {
        const r = await fetch(`${base}${path}`, { method, body: init.body, headers: init.headers });
        const text = await r.text();
        return { status: r.status, text, body: text === '' ? undefined : JSON.parse(text), headers: r.headers } as Answer;
      };
      const reference = await post(acceptPath(), {});
      for (const init of [{}, { body: '' }, { body: '{}' }, { body: '{}', headers: { 'content-type': 'text/plain' } }, { body: '{"meta":{"a":"b"},"unknown":1}', headers: { 'content-type': 'application/json' } }]) {
        const a = await http('POST', acceptPath(), init);
        expect(a.status, `${JSON.stringify(init)}: ${a.text}`).toBe(200);
        expect(a.body).toEqual(reference.body);
      }
      const f = await http('POST', F.transferV1, { body: JSON.stringify({ choiceArguments: transferV1() }), headers: { 'content-type': 'application/json', authorization: 'Bearer x' } });
      expect(f.status, f.text).toBe(200);
      expectError(await http('POST', F.transferV1, { body: '{"choiceArguments":', headers: { 'content-type': 'application/json' } }), 400);
      expectError(await http('POST', F.transferV1), 400, 'choiceArguments');
      const g = await http('GET', '/registry/metadata/v1/instruments/X2', { headers: { 'content-type': 'application/json' } });
      expect(g.status, g.text).toBe(200);
      const encoded = await http('POST', `/registry/transfer-instruction/v2/${encodeURIComponent(offer).replace(/[0-9a-f]/g, (c) => `%${c.charCodeAt(0).toString(16)}`)}/choice-contexts/accept`);
      expect(encoded.status, encoded.text).toBe(200);
    } finally {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // an http.Server (what serve() makes here) has closeAllConnections; the http2 servers of ServerType do not
        if ('closeAllConnections' in server) server.closeAllConnections();
      });
    }
  });

  it('decodes URL-encoded contract ids and instrument ids', async () => {
    const plain = await post(acceptPath(), {});
    const encodeAll = (s: string) => [...s].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
    for (const id of [encodeAll(offer), encodeAll(offer).toUpperCase(), `${offer.slice(0, 10)}${encodeAll(offer.slice(10, 20))}${offer.slice(20)}`]) {
      const a = await post(`/registry/transfer-instruction/v2/${id}/choice-contexts/accept`, {});
      expect(a.status, a.text).toBe(200);
      expect(a.body).toEqual(plain.body);
    }
    const x2 = await get(`/registry/metadata/v1/instruments/${encodeAll('X2')}`);
    expect(x2.status, x2.text).toBe(200);
    expect(InstrumentSchema.parse(x2.body).id).toBe('X2');
    // an encoded id of an unknown instrument is named decoded in the 404
    expectError(await get('/registry/metadata/v1/instruments/no%20such%3Atoken'), 404, 'no such:token');
  });
});

// ---- strict ----------------------------------------------------------------------------------------

describe('strict where it helps: choice arguments the token would reject get a 400 that says why', () => {
  /** A copy of the arguments `v`, edited by `f`; a mistake its type rules out is marked `@ts-expect-error`. */
  const mutate = <T>(v: T, f: (a: T) => void): T => {
    const c = structuredClone(v);
    f(c);
    return c;
  };
  const factory = (path: string, args: unknown) => post(path, { choiceArguments: args });

  it('wrong expectedAdmin or instrument admin', async () => {
    expectError(await factory(F.transferV1, mutate(transferV1(), (a) => (a.expectedAdmin = other))), 400, 'expectedAdmin', other, admin);
    expectError(await factory(F.allocateV1, mutate(allocateV1(), (a) => (a.expectedAdmin = other))), 400, 'expectedAdmin', other);
    expectError(await factory(F.transferV1, mutate(transferV1(), (a) => (a.transfer.instrumentId.admin = other))), 400, 'instrumentId.admin', other);
    expectError(await factory(F.transferV2, mutate(transferV2(), (a) => (a.transfer.instrumentId.admin = other))), 400, 'instrumentId.admin', other);
    expectError(await factory(F.allocateV1, mutate(allocateV1(), (a) => (a.allocation.transferLeg.instrumentId.admin = other))), 400, 'instrumentId.admin');
    expectError(await factory(F.allocateV2, mutate(allocateV2(), (a) => (a.allocation.admin = other))), 400, 'allocation.admin', other);
  });

  it('unknown or paused instrument', async () => {
    expectError(await factory(F.transferV1, transferV1({ instrument: 'NOPE' })), 400, 'Unknown instrument NOPE', 'X2');
    expectError(await factory(F.transferV2, transferV2({ instrument: 'NOPE' })), 400, 'Unknown instrument NOPE');
    expectError(await factory(F.allocateV1, allocateV1({ instrument: 'NOPE' })), 400, 'Unknown instrument NOPE');
    expectError(await factory(F.allocateV2, allocateV2({ instrument: 'NOPE' })), 400, 'Unknown instrument NOPE');
    expectError(await factory(F.settle, settle({ instrument: 'NOPE' })), 400, 'Unknown instrument NOPE');
    const paused = ['Instrument P2 is paused', PAUSE.until, PAUSE.reason];
    expectError(await factory(F.transferV1, transferV1({ instrument: 'P2' })), 400, ...paused);
    expectError(await factory(F.transferV2, transferV2({ instrument: 'P2' })), 400, ...paused);
    expectError(await factory(F.allocateV1, allocateV1({ instrument: 'P2' })), 400, ...paused);
    expectError(await factory(F.allocateV2, allocateV2({ instrument: 'P2' })), 400, ...paused);
    expectError(await factory(F.settle, settle({ instrument: 'P2' })), 400, ...paused);
    // the metadata says so too
    expect((await get('/registry/metadata/v1/instruments/P2')).body).toMatchObject({ paused: true, pauseInfo: PAUSE });
  });

  it('amount <= 0, with more decimals than the instrument allows, or not a Decimal', async () => {
    const calls = [
      (amount: string) => factory(F.transferV1, transferV1({ amount })),
      (amount: string) => factory(F.transferV2, transferV2({ amount })),
      (amount: string) => factory(F.allocateV1, allocateV1({ amount })),
      (amount: string) => factory(F.allocateV2, allocateV2({ amount })),
      (amount: string) => factory(F.settle, settle({ amount, allocations: [allocation] })),
    ];
    for (const call of calls) {
      for (const amount of ['0', '-1', '0.0000', '-0.5']) expectError(await call(amount), 400, 'must be positive', amount);
      // X2 has 4 decimals
      expectError(await call('1.00001'), 400, 'decimal places', '1.00001', '(4)');
      for (const amount of ['abc', '', '1e5', '1,5', '0x10']) expectError(await call(amount), 400, /amount/);
      // beyond Numeric 10: what the ledger could not represent
      expectError(await call('1.00000000001'), 400, /amount/);
      expectError(await call('1'.repeat(29)), 400, /out of bounds/);
      // what the Ledger API cannot read at all: more than 38 digits, white space
      for (const amount of ['1'.repeat(40), ' 1', '1 ']) expectError(await call(amount), 400, /Could not read Numeric string/);
      // as the Ledger API, a sign and a bare point are fine
      for (const amount of ['+1', '1.']) expect((await call(amount)).status, amount).toBe(200);
      // never stricter than the ledger: trailing zeros are the same number
      for (const amount of ['1.00000000', '0.0001', '12345678.1234']) {
        const ok = await call(amount);
        expect(ok.status, `${amount}: ${ok.text}`).toBe(200);
      }
    }
    // an instrument with 0 decimals takes only whole units
    expectError(await factory(F.transferV2, transferV2({ instrument: 'Y2', amount: '1.5' })), 400, 'decimal places', '(0)');
    expect((await factory(F.transferV2, transferV2({ instrument: 'Y2', amount: '2.0' }))).status).toBe(200);
  });

  it('requestedAt in the future, executeBefore (and the allocation deadlines) in the past, unreadable times', async () => {
    const future = '2026-05-01T10:00:01Z';
    const past = '2026-05-01T09:59:59Z';
    expectError(await factory(F.transferV1, mutate(transferV1(), (a) => (a.transfer.requestedAt = future))), 400, 'transfer.requestedAt', 'in the future');
    expectError(await factory(F.transferV2, mutate(transferV2(), (a) => (a.transfer.requestedAt = future))), 400, 'transfer.requestedAt', 'in the future');
    expectError(await factory(F.transferV1, mutate(transferV1(), (a) => (a.transfer.executeBefore = past))), 400, 'transfer.executeBefore', 'in the past');
    expectError(await factory(F.transferV2, mutate(transferV2(), (a) => (a.transfer.executeBefore = past))), 400, 'transfer.executeBefore', 'in the past');
    // now is not before now: the token requires executeBefore > now
    expectError(await factory(F.transferV2, mutate(transferV2(), (a) => (a.transfer.executeBefore = NOW))), 400, 'in the past');
    // requestedAt == now is fine (not in the future)
    expect((await factory(F.transferV2, mutate(transferV2(), (a) => (a.transfer.requestedAt = NOW)))).status).toBe(200);
    expectError(await factory(F.allocateV1, mutate(allocateV1(), (a) => (a.requestedAt = future))), 400, 'requestedAt', 'in the future');
    expectError(await factory(F.allocateV1, mutate(allocateV1(), (a) => (a.allocation.settlement.requestedAt = future))), 400, 'allocation.settlement.requestedAt');
    expectError(await factory(F.allocateV1, mutate(allocateV1(), (a) => (a.allocation.settlement.allocateBefore = past))), 400, 'allocateBefore', 'in the past');
    expectError(await factory(F.allocateV1, mutate(allocateV1(), (a) => (a.allocation.settlement.settleBefore = '2026-05-01T12:00:00Z'))), 400, 'allocateBefore must not be after');
    expectError(await factory(F.allocateV2, mutate(allocateV2(), (a) => (a.requestedAt = future))), 400, 'requestedAt', 'in the future');
    expectError(await factory(F.allocateV2, mutate(allocateV2(), (a) => (a.allocation.settlementDeadline = past))), 400, 'settlementDeadline', 'in the past');
    // no deadline at all is allowed (Optional in V2)
    expect((await factory(F.allocateV2, mutate(allocateV2(), (a) => (a.allocation.settlementDeadline = null)))).status).toBe(200);
    for (const bad of ['tomorrow', '2026-05-01', '2026-13-01T00:00:00Z', '']) {
      expectError(await factory(F.transferV2, mutate(transferV2(), (a) => (a.transfer.executeBefore = bad))), 400, 'executeBefore', 'not an ISO-8601 timestamp');
    }
  });

  it('v2 size limits: 25 transfer legs and 50 allocations are served, more are a 400', async () => {
    const sides = (n: number) => Array.from({ length: n }, (_, i) => side(i));
    expect((await factory(F.allocateV2, allocateV2({ sides: sides(25) }))).status).toBe(200);
    expectError(await factory(F.allocateV2, allocateV2({ sides: sides(26) })), 400, 'Too many transfer legs: 26', '25');
    expectError(await factory(F.allocateV2, allocateV2({ sides: [] })), 400, 'transferLegSides must not be empty');
    const legs = (n: number) => Array.from({ length: n }, (_, i) => leg(i));
    expect((await factory(F.settle, settle({ legs: legs(25), allocations: [allocation] }))).status).toBe(200);
    expectError(await factory(F.settle, settle({ legs: legs(26), allocations: [allocation] })), 400, 'Too many transfer legs: 26', '25');
    expectError(await factory(F.settle, settle({ allocations: Array.from({ length: 51 }, () => allocation) })), 400, 'Too many allocations: 51', '50');
    expectError(await factory(F.settle, settle({ legs: [] })), 400, 'transferLegs must not be empty');
  });

  it('a malformed choiceArguments names the choice and the field', async () => {
    // @ts-expect-error a required field left out: what the 400 must name
    expectError(await factory(F.transferV1, mutate(transferV1(), (a) => delete a.transfer.sender)), 400, 'TransferFactory_Transfer', 'transfer.sender');
    // @ts-expect-error a party where V2 takes an account: what the 400 must name
    expectError(await factory(F.transferV2, mutate(transferV2(), (a) => (a.transfer.receiver = 'bob'))), 400, 'TransferFactory_Transfer', 'transfer.receiver');
    // @ts-expect-error a required field left out: what the 400 must name
    expectError(await factory(F.allocateV1, mutate(allocateV1(), (a) => delete a.allocation.settlement)), 400, 'AllocationFactory_Allocate', 'allocation.settlement');
    // @ts-expect-error a string where a list is due: what the 400 must name
    expectError(await factory(F.settle, mutate(settle(), (a) => (a.allocations = 'x'))), 400, 'SettlementFactory_SettleBatch', 'allocations');
    expectError(await post(F.transferV1, { choiceArguments: transferV1(), excludeDebugFields: 'true' }), 400, 'excludeDebugFields');
  });
});

// ---- never a 500 -----------------------------------------------------------------------------------

describe('never a 500 for bad input', () => {
  /** Every leaf (and inner node) path of a JSON value. */
  function paths(v: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> {
    if (v === null || typeof v !== 'object') return [prefix];
    const children = Array.isArray(v) ? v.map((x, i) => [i, x] as const) : Object.entries(v);
    return [prefix, ...children.flatMap(([k, x]) => paths(x, [...prefix, k]))].filter((p) => p.length > 0);
  }
  function setAt(v: unknown, path: Array<string | number>, value: unknown): unknown {
    const c = JSON.parse(JSON.stringify(v));
    let node = c;
    for (const k of path.slice(0, -1)) node = node[k];
    node[path[path.length - 1]!] = value;
    return c;
  }
  function deleteAt(v: unknown, path: Array<string | number>): unknown {
    const c = JSON.parse(JSON.stringify(v));
    let node = c;
    for (const k of path.slice(0, -1)) node = node[k];
    if (Array.isArray(node)) node.splice(Number(path[path.length - 1]), 1);
    else delete node[path[path.length - 1]!];
    return c;
  }
  const JUNK: unknown[] = [null, {}, [], 0, -1, 1.5, 1e300, '', 'x', '00zz', true, { values: null }, [null], 'a'.repeat(5000)];

  it('a structural fuzz of every factory\'s choice arguments answers 200 or a 4xx {error}', async () => {
    let requests = 0;
    for (const { path, args } of validFactoryCalls()) {
      for (const p of paths(args)) {
        for (const junk of JUNK) {
          const a = await post(path, { choiceArguments: setAt(args, p, junk) });
          requests++;
          if (a.status !== 200) expectClientError(a, `${path} ${p.join('.')}=${JSON.stringify(junk).slice(0, 40)}`);
        }
        const a = await post(path, { choiceArguments: deleteAt(args, p) });
        requests++;
        if (a.status !== 200) expectClientError(a, `${path} without ${p.join('.')}`);
      }
    }
    expect(requests).toBeGreaterThan(1000);
  });

  it('garbage bodies on every POST endpoint', async () => {
    const bodies = ['{', '{"choiceArguments":', 'null', '[]', '"x"', '1', 'true', '{"choiceArguments":null}', '{"choiceArguments":[]}', '{"choiceArguments":"x"}',
      '{"excludeDebugFields":"yes"}', '{"meta":null}', '{"meta":[]}', '{"meta":{"a":{}}}', '\u0000', '\ufeff{}', '{"a":1,"a":2}', 'x'.repeat(100_000)];
    const posts = [...Object.values(F), ...contextPaths().map((p) => p.replace('{id}', offer))];
    for (const path of posts) {
      for (const raw of bodies) {
        const a = await req(app, 'POST', path, { raw });
        // a context call ignores what it does not need: some of these are fine there
        if (a.status !== 200) expectClientError(a, `${path} ${JSON.stringify(raw.slice(0, 30))}`);
      }
    }
  });

  it('garbage contract ids, instrument ids, query strings and methods', async () => {
    const ids = ['x', '..', '%2e%2e', '%00', '%FF', '%', 'ABCDEF', '0', '00', 'ff', 'abc', `${'0'.repeat(10_000)}`, UNKNOWN_CID.toUpperCase(), `${UNKNOWN_CID}%20`, '%F0%9F%92%A9'];
    for (const template of contextPaths()) {
      for (const id of ids) {
        const path = template.replace('{id}', id);
        const a = await post(path, {});
        expectClientError(a, path);
      }
    }
    for (const id of ['%FF', '%', '%00', 'x'.repeat(10_000), '%F0%9F%92%A9']) {
      const a = await get(`/registry/metadata/v1/instruments/${id}`);
      expectClientError(a, `instrument ${id.slice(0, 20)}`);
    }
    for (const q of ['pageSize=', 'pageSize=1e3', 'pageSize=99999999999999999999999', 'pageSize=%FF', 'pageSize=1&pageSize=2', 'pageToken=%FF', 'pageToken=YWZ0ZXI', 'pageToken=' + 'A'.repeat(10_000)]) {
      const a = await get(`/registry/metadata/v1/instruments?${q}`);
      if (a.status !== 200) expectClientError(a, q);
    }
    // wrong methods and unknown paths: a 4xx {error}, not an HTML page
    expectClientError(await req(app, 'GET', F.transferV1), 'GET on a POST endpoint');
    expectClientError(await req(app, 'POST', '/registry/metadata/v1/info', { body: {} }), 'POST on a GET endpoint');
    expectClientError(await req(app, 'DELETE', acceptPath()), 'DELETE');
    expectError(await get('/registry/transfer-instruction/v3/transfer-factory'), 404, 'No such endpoint');
  });

  it('under a base path (behind a gateway): the same answers there, a 404 {error} elsewhere', async () => {
    const prefixed = createRegistry({
      admin,
      instruments: INSTRUMENTS,
      recipes: [new TestTokenV2Recipe()],
      ledger: new LedgerClient({ baseUrl: 'http://ledger', tokenProvider: noAuth, fetch: inProcess as typeof fetch }),
      cache: new MemoryCache({ defaultTtlSeconds: 600, logger }),
      clock,
      logger,
      basePath: '/api/token-standard/',
    });
    const info = await req(prefixed.app, 'GET', '/api/token-standard/registry/metadata/v1/info');
    expect(info.status, info.text).toBe(200);
    expect(GetRegistryInfoResponseSchema.parse(info.body).adminId).toBe(admin);
    expectError(await req(prefixed.app, 'GET', '/registry/metadata/v1/info'), 404, 'No such endpoint');
    expectError(await req(prefixed.app, 'GET', '/api/token-standard/registry/metadata/v1/instruments/NOPE'), 404, 'NOPE');
    expectError(await req(prefixed.app, 'POST', '/api/token-standard/registry/transfer-instruction/v1/transfer-factory', { raw: '{' }), 400);
  });

  it('a contract id the ledger itself rejects as malformed is a 400 naming it, not a 503', async () => {
    // A real participant validates `contractId` of events-by-contract-id (INVALID_FIELD, category 8,
    // HTTP 400) where the emulator just answers "not found": model that node.
    const strict = createRegistry({
      admin,
      instruments: INSTRUMENTS,
      recipes: [new TestTokenV2Recipe()],
      ledger: new LedgerClient({
        baseUrl: 'http://ledger',
        tokenProvider: noAuth,
        fetch: (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
          const url = String(input instanceof Request ? input.url : input);
          const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { contractId?: string }) : {};
          if (url.endsWith('/v2/events/events-by-contract-id') && body.contractId && !/^00([0-9a-f]{2}){33,}$/.test(body.contractId)) {
            return new Response(
              JSON.stringify({
                code: 'INVALID_FIELD',
                cause: `The submitted command has a field with invalid value: Invalid field contract_id: cannot parse ContractId "${body.contractId}"`,
                correlationId: null,
                traceId: null,
                context: { participant: 'participant1', category: '8' },
                resources: [],
                errorCategory: 8,
                grpcCodeValue: 3,
                retryInfo: null,
                definiteAnswer: null,
              }),
              { status: 400, headers: { 'content-type': 'application/json' } },
            );
          }
          return inProcess(input, init);
        }) as typeof fetch,
      }),
      cache: new MemoryCache({ defaultTtlSeconds: 600, logger }),
      clock,
      logger,
      pollIdleMs: 20,
    });
    await strict.start();
    try {
      for (const id of ['abc', 'ff', `01${'ab'.repeat(40)}`]) {
        expectError(await req(strict.app, 'POST', `/registry/transfer-instruction/v2/${id}/choice-contexts/accept`, { body: {} }), 400, id);
        expectError(await req(strict.app, 'POST', F.settle, { body: { choiceArguments: settle({ allocations: [id] }) } }), 400, id);
      }
      // a well-formed id still works, and an unknown one is still a 404
      expect((await req(strict.app, 'POST', acceptPath(), { body: {} })).status).toBe(200);
      expectError(await req(strict.app, 'POST', `/registry/transfer-instruction/v2/${UNKNOWN_CID}/choice-contexts/accept`, { body: {} }), 404, UNKNOWN_CID);
    } finally {
      await strict.stop();
    }
  });
});

// ---- excludeDebugFields ----------------------------------------------------------------------------

describe('excludeDebugFields', () => {
  /** The admin's active contracts as the ledger reports them, with blobs. */
  async function adminAcs(): Promise<Map<string, JsActiveContract>> {
    const r = await emu.app.request('/v2/state/active-contracts', {
      method: 'POST',
      body: JSON.stringify({
        eventFormat: { filtersByParty: { [admin]: { cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: true } } } }] } }, verbose: true },
        activeAtOffset: engine.ledgerEnd(),
      }),
    });
    expect(r.status).toBe(200);
    const out = new Map<string, JsActiveContract>();
    for (const ac of activeContracts(await r.json())) out.set(ac.createdEvent.contractId, ac);
    return out;
  }

  function checkDisclosed(disclosed: DisclosedContract[], acs: Map<string, JsActiveContract>): void {
    expect(disclosed.length).toBeGreaterThan(0);
    for (const d of disclosed) {
      const entry = acs.get(d.contractId);
      expect(entry, `disclosed ${d.contractId} is not active for the admin`).toBeDefined();
      const ev = entry!.createdEvent;
      // what the ledger said
      expect(d.templateId).toBe(ev.templateId);
      expect(d.createdEventBlob).toBe(ev.createdEventBlob);
      expect(d.synchronizerId).toBe(entry!.synchronizerId);
      expect(d.debugPayload).toEqual(ev.createArgument);
      expect(d.debugCreatedAt).toBe(ev.createdAt);
      expect(d.debugPackageName).toBe(ev.packageName);
      // what the blob holds (the emulator's blob is base64 JSON)
      const blob: unknown = JSON.parse(Buffer.from(d.createdEventBlob, 'base64').toString('utf8'));
      expect(jsonAt(blob, 'cid')).toBe(d.contractId);
      expect(jsonAt(blob, 'tid')).toBe(d.templateId);
      expect(jsonAt(blob, 'pkg')).toBe(d.debugPackageName);
      expect(d.debugPayload).toEqual(jsonAt(blob, 'arg'));
      expect(jsonAt(blob, 'sync')).toBe(d.synchronizerId);
    }
  }

  it('default false: every disclosed contract carries debug fields equal to the blob and the ledger', async () => {
    const acs = await adminAcs();
    const f = await post(F.transferV2, { choiceArguments: transferV2() });
    const fFalse = await post(F.transferV2, { choiceArguments: transferV2(), excludeDebugFields: false });
    expect(fFalse.body).toEqual(f.body);
    checkDisclosed(factoryOf(f.body).choiceContext.disclosedContracts, acs);
    // a context with the locked Token (cached by id from the ledger) and with an AccountConfig (indexed)
    const accept = contextOf((await post(acceptPath(), {})).body);
    expect(accept.disclosedContracts).toHaveLength(2);
    checkDisclosed(accept.disclosedContracts, acs);
    const cancel = contextOf((await post(`/registry/allocations/v2/${allocation}/choice-contexts/cancel`, {})).body);
    checkDisclosed(cancel.disclosedContracts, acs);
    const provided = await post(F.transferV2, {
      choiceArguments: { ...transferV2(), transfer: { ...transferV2().transfer, sender: { owner: erin, provider, id: '' } }, actors: [erin] },
    });
    expect(provided.status, provided.text).toBe(200);
    const providedFactory = factoryOf(provided.body);
    expect(disclosedIds(providedFactory.choiceContext)).toEqual([rules, accountConfig]);
    checkDisclosed(providedFactory.choiceContext.disclosedContracts, acs);
  });

  it('true: no debug fields anywhere, everything else identical', async () => {
    // the raw answers (every key as sent, none dropped by a schema)
    interface RawContext {
      disclosedContracts: Array<Record<string, unknown>>;
    }
    interface RawFactory {
      choiceContext: RawContext;
    }
    const strip = (d: Record<string, unknown>) => ({ templateId: d.templateId, contractId: d.contractId, createdEventBlob: d.createdEventBlob, synchronizerId: d.synchronizerId });
    for (const { path, args } of validFactoryCalls()) {
      const full = (await post(path, { choiceArguments: args })).body as RawFactory;
      const lean = await post(path, { choiceArguments: args, excludeDebugFields: true });
      expect(lean.status, lean.text).toBe(200);
      for (const d of (lean.body as RawFactory).choiceContext.disclosedContracts) expect(Object.keys(d).sort()).toEqual(['contractId', 'createdEventBlob', 'synchronizerId', 'templateId']);
      expect(lean.body).toEqual({ ...full, choiceContext: { ...full.choiceContext, disclosedContracts: full.choiceContext.disclosedContracts.map(strip) } });
    }
    for (const path of [acceptPath(), `/registry/allocations/v2/${allocation}/choice-contexts/cancel`]) {
      const full = (await post(path, {})).body as RawContext;
      const lean = await post(path, { excludeDebugFields: true });
      expect(lean.body).toEqual({ ...full, disclosedContracts: full.disclosedContracts.map(strip) });
    }
  });
});

// ---- paging ----------------------------------------------------------------------------------------

describe('paging of instruments', () => {
  const ids = Array.from({ length: 30 }, (_, i) => `I${String(i).padStart(2, '0')}`);
  let paged: Registry['app'];
  beforeAll(async () => {
    // configured in a scrambled order: the listing order is the registry's, stable
    const scrambled = [...ids].sort((a, b) => ((Number(a.slice(1)) * 7) % 30) - ((Number(b.slice(1)) * 7) % 30));
    const { registry } = await makeRegistry({
      instruments: scrambled.map((id) => ({ id, name: `Token ${id}`, symbol: id, decimals: 2, recipe: 'splice-test-token-v2' })),
      start: false,
    });
    paged = registry.app;
  });
  const list = async (q = '') => {
    const a = await req(paged, 'GET', `/registry/metadata/v1/instruments${q}`);
    expect(a.status, a.text).toBe(200);
    return a.body as { instruments: Array<{ id: string }>; nextPageToken?: string };
  };
  const token = (t: string) => `pageToken=${encodeURIComponent(t)}`;

  it('pageSize defaults to 25; the last page has no nextPageToken', async () => {
    const p1 = await list();
    expect(p1.instruments.map((i) => i.id)).toEqual(ids.slice(0, 25));
    expect(p1.nextPageToken).toEqual(expect.any(String));
    const p2 = await list(`?${token(p1.nextPageToken!)}`);
    expect(p2.instruments.map((i) => i.id)).toEqual(ids.slice(25));
    expect('nextPageToken' in p2).toBe(false);
  });

  it('walks every page exactly once in a stable order, whatever the page size', async () => {
    for (const size of [1, 7, 10, 29, 30, 31]) {
      const seen: string[] = [];
      let q = `?pageSize=${size}`;
      for (let pages = 0; ; pages++) {
        expect(pages).toBeLessThan(40);
        const page = await list(q);
        // asking again for the same page gives the same page
        expect(await list(q)).toEqual(page);
        expect(page.instruments.length).toBeLessThanOrEqual(size);
        seen.push(...page.instruments.map((i) => i.id));
        if (page.nextPageToken === undefined) break;
        expect(page.instruments).toHaveLength(size);
        q = `?pageSize=${size}&${token(page.nextPageToken)}`;
      }
      expect(seen).toEqual(ids);
    }
  });

  it('a full last page (30 = 3 x 10) has no nextPageToken; a page size beyond the total gives one page', async () => {
    const p3 = await list(`?pageSize=10&${token((await list(`?pageSize=10&${token((await list('?pageSize=10')).nextPageToken!)}`)).nextPageToken!)}`);
    expect(p3.instruments).toHaveLength(10);
    expect(p3.nextPageToken).toBeUndefined();
    expect((await list('?pageSize=1000000')).instruments).toHaveLength(30);
    expect((await list('?pageToken=')).instruments).toHaveLength(25);
  });

  it('a pageSize that is not a positive integer is a 400; a token we did not issue names no page: 404 (the spec lists no 400 for it)', async () => {
    for (const q of ['pageSize=0', 'pageSize=-3', 'pageSize=abc', 'pageSize=2.5']) expectError(await req(paged, 'GET', `/registry/metadata/v1/instruments?${q}`), 400, 'pageSize');
    for (const t of ['bogus', 'YWZ0ZXI']) expectError(await req(paged, 'GET', `/registry/metadata/v1/instruments?pageToken=${t}`), 404, 'pageToken');
  });
});

// ---- a ledger that is down or slow -----------------------------------------------------------------

describe('a ledger that is down or slow', () => {
  it('down (connection refused): 503 with Retry-After for what needs the ledger; the cache and index keep serving', async () => {
    const { registry, state, port } = await makeRegistry();
    try {
      // warm: a factory and a known contract's context
      expect((await req(registry.app, 'POST', F.transferV2, { body: { choiceArguments: transferV2() } })).status).toBe(200);
      expect((await req(registry.app, 'POST', acceptPath(), { body: {} })).status).toBe(200);
      state.mode = 'down';

      const unknown = await req(registry.app, 'POST', `/registry/transfer-instruction/v2/${UNKNOWN_CID}/choice-contexts/accept`, { body: {} });
      expectError(unknown, 503, 'The ledger node is unavailable', 'retry', `127.0.0.1:${port}`);
      expect(unknown.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      // the total supply was never computed on this replica: it needs the ledger
      const instruments = await req(registry.app, 'GET', '/registry/metadata/v1/instruments');
      expectError(instruments, 503, 'The ledger node is unavailable');
      expect(instruments.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      // served from memory meanwhile
      expect((await req(registry.app, 'POST', acceptPath(), { body: {} })).status).toBe(200);
      expect((await req(registry.app, 'POST', F.transferV2, { body: { choiceArguments: transferV2() } })).status).toBe(200);
      expect((await req(registry.app, 'GET', '/registry/metadata/v1/info')).status).toBe(200);

      // back up: the same request is answered from the ledger again
      state.mode = 'up';
      expectError(await req(registry.app, 'POST', `/registry/transfer-instruction/v2/${UNKNOWN_CID}/choice-contexts/accept`, { body: {} }), 404, UNKNOWN_CID);
      expect((await req(registry.app, 'GET', '/registry/metadata/v1/instruments')).status).toBe(200);
    } finally {
      await registry.stop();
    }
  });

  it('no access token (the identity provider fails): 503 that repeats nothing of what the provider said', async () => {
    const idp = { failing: false };
    const tokenProvider: TokenProvider = {
      token: async () => {
        if (!idp.failing) return undefined;
        throw new TokenProviderError('token endpoint https://idp.internal/token answered 503: temporarily_unavailable (realm secret-realm is down)', true, 503);
      },
    };
    const { registry } = await makeRegistry({ tokenProvider });
    try {
      idp.failing = true;
      const a = await req(registry.app, 'POST', `/registry/transfer-instruction/v2/${UNKNOWN_CID}/choice-contexts/accept`, { body: {} });
      expectError(a, 503, 'could not authenticate');
      expect(a.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      for (const leak of ['idp.internal', 'secret-realm', 'temporarily_unavailable']) expect(a.text).not.toContain(leak);
    } finally {
      await registry.stop();
    }
  });

  it('slow (never answers): 503 with Retry-After once the client timeout passes', async () => {
    const { registry, state } = await makeRegistry({ timeoutMs: 150 });
    try {
      state.mode = 'slow';
      const started = Date.now();
      const a = await req(registry.app, 'POST', `/registry/allocations/v2/${UNKNOWN_CID}/choice-contexts/cancel`, { body: {} });
      expectError(a, 503, 'The ledger node is unavailable', 'did not answer', '150 ms');
      expect(a.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      expect(Date.now() - started).toBeLessThan(5000);
      const s = await req(registry.app, 'GET', '/registry/metadata/v1/instruments/X2');
      expectError(s, 503, 'did not answer');
    } finally {
      state.mode = 'up';
      await registry.stop();
    }
  });

  it('409 names the contract: one being reassigned, or contracts on different synchronizers', async () => {
    const [tokenRules] = main.registry.index.find(TestTokenV2Templates.TokenRules);
    const saved = { ...tokenRules! };
    try {
      tokenRules!.inReassignment = true;
      const a = await post(F.transferV2, { choiceArguments: transferV2() });
      expectError(a, 409, rules, 'being reassigned');
      expect(a.headers.get('retry-after')).toMatch(/^\d+$/);
      tokenRules!.inReassignment = false;
      tokenRules!.synchronizerId = 'other-sync::1220abcd';
      // the accept context also discloses the offer's locked Token, on the real synchronizer
      const b = await post(acceptPath(), {});
      expectError(b, 409, 'different synchronizers', `${rules} on other-sync::1220abcd`);
    } finally {
      Object.assign(tokenRules!, saved);
    }
    expect((await post(acceptPath(), {})).status).toBe(200);
  });
});
