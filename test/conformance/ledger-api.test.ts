/**
 * Conformance of the emulated JSON Ledger API: every operation we serve is driven through
 * the in-process app with a success case and the typical client mistakes, and EVERY response is
 * validated with ajv against Canton's official openapi.yaml of 3.5 (`../shared/specs/ledger-api/openapi-3.5.yaml`)
 * (DESIGN.md rule 1), with only the harness's two documented ledger-spec relaxations
 * (`allowNullForOptional`, `jsonCantonErrorFor400`; test/support/openapi-conformance.ts).
 *
 * A response that does not conform is a bug in the server, never a reason to loosen this test.
 *
 * Requests without an Authorization header run with wildcard claims (auth off, the sandbox
 * default); a `Bearer` header goes through the real JWT authenticator (auth.ts) so that bad
 * tokens and missing rights answer as they do on a participant with auth on.
 */
import { createKeyPair, signTransactionHash } from '@canton-network/core-signing-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAuthenticator, mintDevToken, type Authenticator } from '../../src/emulator/ledger-api/auth.js';
import { WILDCARD } from '../../src/emulator/participant/claims.js';
import { buildDar } from '../support/dar-builder.js';
import {
  ASSET,
  HOLDING,
  IOU,
  acsRequest,
  cmds,
  create,
  exercise,
  testLedger,
  type TestLedger,
} from '../support/ledger-fixtures.js';
import { executeBody, prepareBody, registerExternal, type ExternalKey } from '../support/interactive.js';
import { SPECS, createSpecValidator, expectConformant, type CoverageRequirement } from '../support/openapi-conformance.js';
import { BEYOND_35 } from '../support/ledger-api-3.6.js';
import { jsonArray, jsonAt, jsonKeys, jsonText } from '../support/ledger-wire.js';
import { AllocateExternalPartyResponseSchema, GenerateExternalPartyTopologyResponseSchema } from '../../src/ledger-client/schemas/external-parties.js';

const SECRET = 'conformance-secret';

/**
 * Operations of openapi-3.5.yaml the emulator deliberately does not serve, with the reason. The
 * test below checks this list against the routes the app really registers, and that each of them
 * answers 404 here.
 */
const UNSERVED: Array<{ method: string; pathTemplate: string; reason: string }> = [
  {
    method: 'get',
    pathTemplate: '/v2/state/active-contracts-page',
    reason: 'deprecated GET-with-a-body form; the POST form (3.5.10) is served',
  },
  {
    method: 'post',
    pathTemplate: '/v2/commands/submit-and-wait-for-reassignment',
    reason: 'one synchronizer: there is nothing to reassign',
  },
  { method: 'post', pathTemplate: '/v2/commands/async/submit-reassignment', reason: 'one synchronizer: there is nothing to reassign' },
  { method: 'get', pathTemplate: '/v2/package-vetting', reason: 'deprecated form; POST /v2/package-vetting/list is served' },
  { method: 'post', pathTemplate: '/v2/package-vetting', reason: 'deprecated form; packages are vetted on upload' },
  {
    method: 'post',
    pathTemplate: '/v2/package-vetting/update',
    reason: 'explicit (un)vetting is not emulated; DARs are vetted on upload (vetAllPackages)',
  },
];

/**
 * Served operations for which no success response exists by design, with the reason; they are
 * required to be covered by conformant error responses only.
 */
const ERROR_ONLY: Array<{ method: string; pathTemplate: string; reason: string }> = [
  {
    method: 'post',
    pathTemplate: '/v2/idps',
    reason: 'only the default IDP exists; creation answers TOO_MANY_IDENTITY_PROVIDER_CONFIGS (users.ts header)',
  },
  { method: 'get', pathTemplate: '/v2/idps/{idp-id}', reason: 'no non-default IDP exists: IDP_CONFIG_NOT_FOUND' },
  { method: 'patch', pathTemplate: '/v2/idps/{idp-id}', reason: 'no non-default IDP exists: IDP_CONFIG_NOT_FOUND' },
  { method: 'delete', pathTemplate: '/v2/idps/{idp-id}', reason: 'no non-default IDP exists: IDP_CONFIG_NOT_FOUND' },
];

/** Served operations without any client error: the health endpoints take no input and no token. */
const NO_ERROR_CASE: Array<{ method: string; pathTemplate: string; reason: string }> = [
  { method: 'get', pathTemplate: '/livez', reason: 'public, no input: always 200' },
  { method: 'get', pathTemplate: '/readyz', reason: 'public, no input: 200 while the engine serves' },
];

const key = (o: { method: string; pathTemplate: string }) => `${o.method.toLowerCase()} ${o.pathTemplate}`;
/** `/v2/users/{user-id}` and `/v2/users/:userId` both become `/v2/users/{}`. */
const shape = (template: string) => template.replace(/\{[^}]+\}/g, '{}').replace(/:[A-Za-z]+/g, '{}');

const v = createSpecValidator(SPECS.ledgerApi35);

let l: TestLedger;
let realAuth: Authenticator;
const tokens: Record<string, string> = {};
let bank: string;
let alice: string;
let bob: string;
let carol: string;
/** An Iou bank/alice that stays active, with bob as observer. */
let activeIou: string;
/** An Iou that was split (archived). */
let archivedIou: string;
let firstTx: { updateId: string; offset: number };
let dar: ReturnType<typeof buildDar>;

interface CallOptions {
  body?: unknown;
  /** Raw body (bytes or text) sent as is. */
  raw?: string | Uint8Array;
  /** A token name from `tokens`, or a literal `Bearer ...` value. */
  token?: string;
  headers?: Record<string, string>;
}

async function call(method: string, path: string, o: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.token !== undefined) headers.authorization = o.token.startsWith('Bearer') ? o.token : `Bearer ${tokens[o.token]}`;
  let body: RequestInit['body'];
  if (o.raw !== undefined) body = typeof o.raw === 'string' ? o.raw : new Uint8Array(o.raw);
  else if (o.body !== undefined) {
    body = JSON.stringify(o.body);
    headers['content-type'] ??= 'application/json';
  }
  return l.app.request(path, { method, headers, body });
}

/**
 * Calls, checks the status, validates the response against the spec and returns its body: the
 * JSON as sent (read with `jsonAt` & co., so the wire form is what is checked), or the text.
 */
async function check(method: string, path: string, status: number, o: CallOptions = {}): Promise<unknown> {
  const res = await call(method, path, o);
  const text = await res.clone().text();
  expect(res.status, `${method} ${path} -> ${res.status}: ${text.slice(0, 600)}`).toBe(status);
  return expectConformant(v, res, method, path);
}

/**
 * An error case: status, a conformant body, and what it must say: Canton's error code for a JSON
 * JsCantonError (`NA` for redacted auth errors), or a pattern for tapir's text/plain 400.
 */
async function checkError(method: string, path: string, status: number, expected: string | RegExp, o: CallOptions = {}): Promise<unknown> {
  const body = await check(method, path, status, o);
  if (expected instanceof RegExp) {
    expect(typeof body, JSON.stringify(body)).toBe('string');
    expect(body).toMatch(expected);
  } else {
    expect(jsonAt(body, 'code'), JSON.stringify(body)).toBe(expected);
  }
  return body;
}

/** tapir's decode failure (`DefaultDecodeFailureHandler`; sample in Canton's `JsonV2Tests.scala`). */
const PLAIN = /^Invalid value for: /;

const iou = (issuer: string, owner: string, amount = '10', observers: string[] = []) => ({ issuer, owner, amount, observers });
const allFor = (...parties: string[]) => ({ filtersByParty: Object.fromEntries(parties.map((p) => [p, { cumulative: [] }])), verbose: true });
const txFormat = (shape: 'ACS_DELTA' | 'LEDGER_EFFECTS', ...parties: string[]) => ({
  eventFormat: allFor(...parties),
  transactionShape: `TRANSACTION_SHAPE_${shape}`,
});
const holdingViews = (party: string) => ({
  filtersByParty: {
    [party]: { cumulative: [{ identifierFilter: { InterfaceFilter: { value: { interfaceId: HOLDING, includeInterfaceView: true, includeCreatedEventBlob: true } } } }] },
  },
  verbose: true,
});

beforeAll(async () => {
  l = testLedger({
    // no header: auth off (wildcard); a header: the real JWT authenticator
    authenticate: async (h) => (h === undefined ? WILDCARD : realAuth(h)),
  });
  realAuth = createAuthenticator({ mode: 'jwt', hs256Secret: SECRET }, { engine: l.engine });
  bank = l.party('bank');
  alice = l.party('alice');
  bob = l.party('bob');
  carol = l.party('carol');
  const users = l.engine.users;
  users.create({ id: 'admin' }, [{ kind: 'ParticipantAdmin' }]);
  users.create({ id: 'alice-user', primaryParty: alice }, [{ kind: 'CanActAs', party: alice }]);
  users.create({ id: 'nobody' }, []);
  const nowSeconds = Number(l.engine.clock.nowMicros() / 1_000_000n);
  for (const sub of ['admin', 'alice-user', 'nobody', 'ghost']) tokens[sub] = await mintDevToken({ secret: SECRET, sub, nowSeconds });
  tokens.garbage = 'not-a-jwt';

  // History: create (offset 1), create + split (offsets 2, 3), a declared-template create (offset 4).
  const first = await l.post('/v2/commands/submit-and-wait', cmds([bank, alice], [create(IOU, iou(bank, alice, '10', [bob]))]));
  expect(first.status).toBe(200);
  const submitted = (await first.json()) as { updateId: string; completionOffset: number };
  firstTx = { updateId: submitted.updateId, offset: submitted.completionOffset };
  const acs: unknown = await (await l.post('/v2/state/active-contracts', acsRequest(alice, null, { activeAtOffset: l.engine.ledgerEnd() }))).json();
  activeIou = jsonText(acs, 0, 'contractEntry', 'JsActiveContract', 'createdEvent', 'contractId');

  const second = await l.post('/v2/commands/submit-and-wait-for-transaction', {
    commands: cmds([bank, alice], [create(IOU, iou(bank, alice, '5'))]),
  });
  archivedIou = jsonText(await second.json(), 'transaction', 'events', 0, 'CreatedEvent', 'contractId');
  const split = await l.post('/v2/commands/submit-and-wait', cmds([alice], [exercise(IOU, archivedIou, 'Split', { amount: '2' })]));
  expect(split.status).toBe(200);

  dar = buildDar({
    name: 'conformance-pkg',
    version: '1.0.0',
    modules: [
      {
        name: 'Main',
        templates: [
          {
            name: 'Thing',
            fields: [['owner', 'Party'], ['amount', 'Numeric 10']],
            choices: [{ name: 'Give', consuming: true, arg: [['newOwner', 'Party']], returnType: 'ContractId Main:Thing' }],
          },
        ],
      },
    ],
  });
});

describe('served operations match the spec minus the documented unserved list', () => {
  it('registers exactly the spec operations that are not listed as unserved', () => {
    const specOps = v.operations();
    const unserved = new Set(UNSERVED.map(key));
    for (const u of UNSERVED) expect(specOps.map(key), `unserved ${key(u)} is a spec operation`).toContain(key(u));
    const expected = [...specOps.filter((op) => !unserved.has(key(op))), ...BEYOND_35].map((op) => `${op.method} ${shape(op.pathTemplate)}`);
    const served = [
      ...new Set(
        l.app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method.toLowerCase()} ${shape(r.path)}`),
      ),
    ];
    expect(served.sort()).toEqual(expected.sort());
  });

  it('answers the unserved operations with 404', async () => {
    for (const u of UNSERVED) {
      const path = u.pathTemplate.replace(/\{[^}]+\}/g, 'x');
      const res = await call(u.method.toUpperCase(), path, u.method === 'get' ? {} : { body: {} });
      expect(res.status, key(u)).toBe(404);
    }
  });
});

describe('system and state', () => {
  it('GET /v2/version', async () => {
    const body = await check('GET', '/v2/version', 200);
    expect(jsonAt(body, 'version')).toMatch(/^3\.5\./);
    // the version service does not authorize: a bad token passes ...
    await check('GET', '/v2/version', 200, { token: 'garbage' });
    // ... but claim resolution fails on every path (unknown user), with the token context
    const err = await checkError('GET', '/v2/version', 403, 'NA', { token: 'ghost' });
    expect(jsonAt(err, 'context')).toEqual({ ledger_api_error: 'invalid token' });
  });

  it('GET /livez and /readyz', async () => {
    expect(await check('GET', '/livez', 200)).toBe('');
    expect(await check('GET', '/readyz', 200)).toContain('readyz check passed');
  });

  it('GET /v2/state/ledger-end', async () => {
    expect(await check('GET', '/v2/state/ledger-end', 200)).toEqual({ offset: l.engine.ledgerEnd() });
    await checkError('GET', '/v2/state/ledger-end', 401, 'NA', { token: 'garbage' });
  });

  it('GET /v2/state/latest-pruned-offsets', async () => {
    await check('GET', '/v2/state/latest-pruned-offsets', 200);
    await checkError('GET', '/v2/state/latest-pruned-offsets', 401, 'NA', { token: 'garbage' });
  });

  it('GET /v2/state/connected-synchronizers', async () => {
    const all = await check('GET', '/v2/state/connected-synchronizers', 200);
    expect(jsonAt(all, 'connectedSynchronizers', 0, 'permission')).toBe('PARTICIPANT_PERMISSION_UNSPECIFIED');
    const mine = await check('GET', `/v2/state/connected-synchronizers?party=${encodeURIComponent(alice)}`, 200, { token: 'alice-user' });
    expect(jsonAt(mine, 'connectedSynchronizers', 0, 'permission')).toBe('PARTICIPANT_PERMISSION_SUBMISSION');
    // asking about a party one may not read
    await checkError('GET', `/v2/state/connected-synchronizers?party=${encodeURIComponent(bob)}`, 403, 'NA', { token: 'alice-user' });
  });
});

describe('command submission', () => {
  it('POST /v2/commands/submit-and-wait', async () => {
    const body = await check('POST', '/v2/commands/submit-and-wait', 200, { body: cmds([bank, carol], [create(IOU, iou(bank, carol, '3'))]) });
    expect(jsonAt(body, 'completionOffset')).toBe(l.engine.ledgerEnd());
    const end = l.engine.ledgerEnd();
    // malformed body (missing commandId): tapir's text/plain 400
    await checkError('POST', '/v2/commands/submit-and-wait', 400, PLAIN, { body: { commands: [], actAs: [alice] } });
    await checkError('POST', '/v2/commands/submit-and-wait', 400, PLAIN, { raw: '{"commands": [' });
    // a create that needs the issuer too: Canton's JSON 400
    await checkError('POST', '/v2/commands/submit-and-wait', 400, 'DAML_AUTHORIZATION_ERROR', { body: cmds([alice], [create(IOU, iou(bank, alice))]) });
    // exercising an archived contract
    await checkError('POST', '/v2/commands/submit-and-wait', 404, 'CONTRACT_NOT_FOUND', {
      body: cmds([alice], [exercise(IOU, archivedIou, 'Split', { amount: '1' })]),
    });
    // acting as a party the token has no right for
    await checkError('POST', '/v2/commands/submit-and-wait', 403, 'NA', {
      token: 'alice-user',
      body: cmds([bob], [create(IOU, iou(bob, bob))], { userId: 'alice-user' }),
    });
    expect(l.engine.ledgerEnd()).toBe(end);
  });

  it('POST /v2/commands/submit-and-wait-for-transaction', async () => {
    const flat = await check('POST', '/v2/commands/submit-and-wait-for-transaction', 200, {
      body: { commands: cmds([bank, carol], [create(IOU, iou(bank, carol, '4'))]) },
    });
    const cid = jsonText(flat, 'transaction', 'events', 0, 'CreatedEvent', 'contractId');
    // LEDGER_EFFECTS: exercised + created events
    const tx = await check('POST', '/v2/commands/submit-and-wait-for-transaction', 200, {
      body: {
        commands: cmds([carol], [exercise(IOU, cid, 'Split', { amount: '1' })]),
        transactionFormat: txFormat('LEDGER_EFFECTS', carol),
      },
    });
    expect(jsonKeys(tx, 'transaction', 'events', 0)).toEqual(['ExercisedEvent']);
    // an identifier that is not 3 parts: tapir's text/plain 400
    await checkError('POST', '/v2/commands/submit-and-wait-for-transaction', 400, /Invalid identifier format/, {
      body: { commands: cmds([alice], [create('not-a-valid-template-id', {})]) },
    });
    // an unknown template in the format
    await checkError('POST', '/v2/commands/submit-and-wait-for-transaction', 404, 'TEMPLATES_OR_INTERFACES_NOT_FOUND', {
      body: {
        commands: cmds([bank, alice], [create(IOU, iou(bank, alice))]),
        transactionFormat: {
          eventFormat: { filtersByParty: { [alice]: { cumulative: [{ identifierFilter: { TemplateFilter: { value: { templateId: '#nope:No:Pe' } } } }] } } },
          transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
        },
      },
    });
  });

  it('POST /v2/commands/submit-and-wait-for-transaction-tree', async () => {
    const body = await check('POST', '/v2/commands/submit-and-wait-for-transaction-tree', 200, {
      body: cmds([alice], [exercise(IOU, activeIou, 'Observe', { reader: carol })]),
    });
    expect(jsonKeys(body, 'transactionTree', 'eventsById')).toEqual(['0']);
    await checkError('POST', '/v2/commands/submit-and-wait-for-transaction-tree', 400, PLAIN, { body: { commandId: 'x', actAs: [alice] } });
    await checkError('POST', '/v2/commands/submit-and-wait-for-transaction-tree', 404, 'CONTRACT_NOT_FOUND', {
      body: cmds([alice], [exercise(IOU, '00' + 'f'.repeat(136), 'Observe', { reader: carol })]),
    });
  });

  it('POST /v2/commands/async/submit', async () => {
    expect(await check('POST', '/v2/commands/async/submit', 200, { body: cmds([bank, carol], [create(ASSET, { owner: carol, observers: [] })]) })).toEqual({});
    await checkError('POST', '/v2/commands/async/submit', 400, 'MISSING_FIELD', { body: cmds([], [create(IOU, iou(bank, alice))]) });
  });

  it('POST /v2/commands/completions', async () => {
    const list = jsonArray(
      await check('POST', '/v2/commands/completions?stream_idle_timeout_ms=10', 200, {
        body: { userId: 'tester', parties: [alice], beginExclusive: 0 },
      }),
    );
    expect(list.length).toBeGreaterThan(0);
    expect(jsonKeys(list, 0, 'completionResponse')).toEqual(['Completion']);
    await checkError('POST', '/v2/commands/completions?stream_idle_timeout_ms=10', 400, 'MISSING_FIELD', { body: { userId: 'tester', parties: [] } });
    await checkError('POST', '/v2/commands/completions?stream_idle_timeout_ms=10', 400, 'OFFSET_AFTER_LEDGER_END', {
      body: { userId: 'tester', parties: [alice], beginExclusive: 10_000 },
    });
    await checkError('POST', '/v2/commands/completions', 400, PLAIN, { body: { userId: 'tester', parties: [alice], beginExclusive: 'zero' } });
  });

  it('POST /v2/commands/command-completions (3.5.7: every user; parties optional)', async () => {
    const all = jsonArray(await check('POST', '/v2/commands/command-completions?stream_idle_timeout_ms=10', 200, { body: {} }));
    const mine = jsonArray(await check('POST', '/v2/commands/command-completions?stream_idle_timeout_ms=10', 200, { body: { parties: [alice] } }));
    expect(all.length).toBeGreaterThan(mine.length);
    expect(mine.length).toBeGreaterThan(0);
    for (const m of mine) expect(jsonAt(m, 'completionResponse', 'Completion', 'value', 'actAs')).toEqual([alice]);
    await checkError('POST', '/v2/commands/command-completions?stream_idle_timeout_ms=10', 400, 'OFFSET_AFTER_LEDGER_END', {
      body: { beginExclusive: 10_000 },
    });
    await checkError('POST', '/v2/commands/command-completions', 400, PLAIN, { body: { parties: 'alice' } });
  });
});

describe('active contracts', () => {
  it('POST /v2/state/active-contracts with eventFormat (interface views and blobs) and the legacy filter', async () => {
    const end = l.engine.ledgerEnd();
    const views = jsonArray(await check('POST', '/v2/state/active-contracts', 200, { body: { eventFormat: holdingViews(alice), activeAtOffset: end } }));
    expect(views.length).toBeGreaterThan(0);
    const ev = jsonAt(views, 0, 'contractEntry', 'JsActiveContract', 'createdEvent');
    expect(jsonAt(ev, 'interfaceViews', 0, 'viewValue')).toMatchObject({ owner: alice });
    expect(jsonAt(ev, 'createdEventBlob')).not.toBe('');
    const legacy = jsonArray(
      await check('POST', '/v2/state/active-contracts?limit=2', 200, {
        body: { filter: { filtersByParty: { [alice]: { cumulative: [] } } }, verbose: true, activeAtOffset: end },
      }),
    );
    expect(legacy.length).toBeLessThanOrEqual(2);
    const anyParty = jsonArray(
      await check('POST', '/v2/state/active-contracts', 200, {
        body: { eventFormat: { filtersForAnyParty: { cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: false } } } }] } }, activeAtOffset: end },
      }),
    );
    expect(anyParty.length).toBeGreaterThan(views.length);

    await checkError('POST', '/v2/state/active-contracts', 400, 'INVALID_ARGUMENT', { body: { activeAtOffset: end } });
    await checkError('POST', '/v2/state/active-contracts', 400, 'OFFSET_AFTER_LEDGER_END', { body: acsRequest(alice, null, { activeAtOffset: end + 100 }) });
    await checkError('POST', '/v2/state/active-contracts', 404, 'TEMPLATES_OR_INTERFACES_NOT_FOUND', {
      body: acsRequest(alice, { TemplateFilter: { value: { templateId: '#nope:No:Pe' } } }, { activeAtOffset: end }),
    });
    await checkError('POST', '/v2/state/active-contracts', 400, PLAIN, { body: acsRequest(alice, { Bogus: {} }, { activeAtOffset: end }) });
    await checkError('POST', '/v2/state/active-contracts', 403, 'NA', { token: 'alice-user', body: acsRequest(bob, null, { activeAtOffset: end }) });
  });

  it('POST /v2/state/active-contracts beyond the node list limit: 413', async () => {
    const small = testLedger({ listMaxElements: 1 });
    const [b, a] = [small.party('bank'), small.party('alice')];
    for (const amount of ['1', '2']) {
      expect((await small.post('/v2/commands/submit-and-wait', cmds([b, a], [create(IOU, iou(b, a, amount))]))).status).toBe(200);
    }
    const res = await small.post('/v2/state/active-contracts', acsRequest(a, null, { activeAtOffset: small.engine.ledgerEnd() }));
    expect(res.status).toBe(413);
    const body = (await expectConformant(v, res, 'POST', '/v2/state/active-contracts')) as { code: string };
    expect(body.code).toBe('JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED');
  });

  it('POST /v2/state/active-contracts-page', async () => {
    const page1 = await check('POST', '/v2/state/active-contracts-page', 200, { body: { eventFormat: allFor(alice), maxPageSize: 1 } });
    expect(jsonAt(page1, 'activeContracts')).toHaveLength(1);
    expect(typeof jsonAt(page1, 'nextPageToken')).toBe('string');
    const page2 = await check('POST', '/v2/state/active-contracts-page', 200, {
      body: { eventFormat: allFor(alice), maxPageSize: 100, pageToken: jsonAt(page1, 'nextPageToken') },
    });
    expect(jsonAt(page2, 'activeAtOffset')).toBe(jsonAt(page1, 'activeAtOffset'));
    await checkError('POST', '/v2/state/active-contracts-page', 400, 'INVALID_ARGUMENT', {
      body: { eventFormat: allFor(alice), pageToken: 'bm90LWEtdG9rZW4=' },
    });
    await checkError('POST', '/v2/state/active-contracts-page', 400, PLAIN, { body: { maxPageSize: 1 } });
  });
});

describe('updates', () => {
  const updateFormat = (shape: 'ACS_DELTA' | 'LEDGER_EFFECTS', ...parties: string[]) => ({ includeTransactions: txFormat(shape, ...parties) });

  it('POST /v2/updates', async () => {
    const end = l.engine.ledgerEnd();
    const acsDelta = jsonArray(await check('POST', '/v2/updates', 200, { body: { beginExclusive: 0, endInclusive: end, updateFormat: updateFormat('ACS_DELTA', alice) } }));
    expect(acsDelta.length).toBeGreaterThan(0);
    const effects = jsonArray(
      await check('POST', '/v2/updates', 200, {
        body: { beginExclusive: 0, endInclusive: end, updateFormat: updateFormat('LEDGER_EFFECTS', alice), descendingOrder: true },
      }),
    );
    const offsetOf = (u: unknown): number => {
      const offset = jsonAt(u, 'update', 'Transaction', 'value', 'offset');
      if (typeof offset !== 'number') throw new Error(`offset ${JSON.stringify(offset)} is not a number`);
      return offset;
    };
    expect(offsetOf(effects[0])).toBeGreaterThan(offsetOf(effects.at(-1)));
    const open = await check('POST', '/v2/updates?stream_idle_timeout_ms=10', 200, {
      body: { beginExclusive: end - 1, filter: { filtersByParty: { [alice]: { cumulative: [] } } }, verbose: true },
    });
    expect(Array.isArray(open)).toBe(true);
    await checkError('POST', '/v2/updates', 400, 'INVALID_ARGUMENT', {
      body: { beginExclusive: 0, endInclusive: end, filter: { filtersByParty: { [alice]: {} } }, updateFormat: updateFormat('ACS_DELTA', alice) },
    });
    await checkError('POST', '/v2/updates', 400, 'OFFSET_AFTER_LEDGER_END', { body: { beginExclusive: end + 5, updateFormat: updateFormat('ACS_DELTA', alice) } });
    await checkError('POST', '/v2/updates', 400, PLAIN, { body: { beginExclusive: '0', updateFormat: updateFormat('ACS_DELTA', alice) } });
  });

  it('POST /v2/updates/flats', async () => {
    const end = l.engine.ledgerEnd();
    const list = jsonArray(
      await check('POST', '/v2/updates/flats', 200, {
        body: { beginExclusive: 0, endInclusive: end, filter: { filtersByParty: { [alice]: { cumulative: [] } } }, verbose: true },
      }),
    );
    expect(list.length).toBeGreaterThan(0);
    await checkError('POST', '/v2/updates/flats', 400, 'INVALID_ARGUMENT', { body: { beginExclusive: 0, endInclusive: end } });
  });

  it('POST /v2/updates/trees', async () => {
    const end = l.engine.ledgerEnd();
    const list = await check('POST', '/v2/updates/trees', 200, {
      body: { beginExclusive: 0, endInclusive: end, filter: { filtersByParty: { [alice]: { cumulative: [] } } }, verbose: true },
    });
    expect(jsonKeys(list, 0, 'update')).toEqual(['TransactionTree']);
    await checkError('POST', '/v2/updates/trees', 400, 'OFFSET_OUT_OF_RANGE', {
      body: { beginExclusive: 3, endInclusive: 2, filter: { filtersByParty: { [alice]: { cumulative: [] } } } },
    });
  });

  it('POST /v2/updates/update-by-id and update-by-offset', async () => {
    const byId = await check('POST', '/v2/updates/update-by-id', 200, { body: { updateId: firstTx.updateId, updateFormat: updateFormat('LEDGER_EFFECTS', alice) } });
    expect(jsonAt(byId, 'update', 'Transaction', 'value', 'updateId')).toBe(firstTx.updateId);
    await checkError('POST', '/v2/updates/update-by-id', 404, 'UPDATE_NOT_FOUND', { body: { updateId: '1220' + '0'.repeat(64), updateFormat: updateFormat('ACS_DELTA', alice) } });
    // visible only to its stakeholders: carol does not see alice's first transaction
    await checkError('POST', '/v2/updates/update-by-id', 404, 'UPDATE_NOT_FOUND', { body: { updateId: firstTx.updateId, updateFormat: updateFormat('ACS_DELTA', carol) } });

    await check('POST', '/v2/updates/update-by-offset', 200, { body: { offset: firstTx.offset, updateFormat: updateFormat('ACS_DELTA', alice) } });
    await checkError('POST', '/v2/updates/update-by-offset', 400, 'NON_POSITIVE_OFFSET', { body: { offset: 0, updateFormat: updateFormat('ACS_DELTA', alice) } });
    await checkError('POST', '/v2/updates/update-by-offset', 404, 'UPDATE_NOT_FOUND', { body: { offset: 10_000, updateFormat: updateFormat('ACS_DELTA', alice) } });
  });

  it('POST /v2/updates/transaction-by-id and transaction-by-offset', async () => {
    await check('POST', '/v2/updates/transaction-by-id', 200, { body: { updateId: firstTx.updateId, requestingParties: [alice] } });
    await check('POST', '/v2/updates/transaction-by-id', 200, { body: { updateId: firstTx.updateId, transactionFormat: txFormat('LEDGER_EFFECTS', bob) } });
    await checkError('POST', '/v2/updates/transaction-by-id', 404, 'UPDATE_NOT_FOUND', { body: { updateId: 'nope', requestingParties: [alice] } });

    await check('POST', '/v2/updates/transaction-by-offset', 200, { body: { offset: firstTx.offset, transactionFormat: txFormat('ACS_DELTA', alice) } });
    await checkError('POST', '/v2/updates/transaction-by-offset', 400, 'INVALID_ARGUMENT', {
      body: { offset: firstTx.offset, requestingParties: [alice], transactionFormat: txFormat('ACS_DELTA', alice) },
    });
    await checkError('POST', '/v2/updates/transaction-by-offset', 400, PLAIN, { body: { requestingParties: [alice] } });
  });

  it('GET /v2/updates/transaction-tree-by-id/{update-id} and transaction-tree-by-offset/{offset}', async () => {
    const q = `?parties=${encodeURIComponent(alice)}`;
    const byId = await check('GET', `/v2/updates/transaction-tree-by-id/${firstTx.updateId}${q}`, 200);
    expect(jsonAt(byId, 'transaction', 'updateId')).toBe(firstTx.updateId);
    await checkError('GET', `/v2/updates/transaction-tree-by-id/${'1220' + '0'.repeat(64)}${q}`, 404, 'UPDATE_NOT_FOUND');
    await checkError('GET', `/v2/updates/transaction-tree-by-id/${firstTx.updateId}`, 400, 'MISSING_FIELD');

    await check('GET', `/v2/updates/transaction-tree-by-offset/${firstTx.offset}${q}`, 200);
    await checkError('GET', `/v2/updates/transaction-tree-by-offset/abc${q}`, 400, PLAIN);
    await checkError('GET', `/v2/updates/transaction-tree-by-offset/10000${q}`, 404, 'UPDATE_NOT_FOUND');
  });

  it('POST /v2/updates/get-updates-page', async () => {
    const page = await check('POST', '/v2/updates/get-updates-page', 200, {
      body: { beginOffsetExclusive: 0, maxPageSize: 2, updateFormat: updateFormat('ACS_DELTA', alice) },
    });
    expect(jsonArray(page, 'updates').length).toBeLessThanOrEqual(2);
    await check('POST', '/v2/updates/get-updates-page', 200, {
      body: { beginOffsetExclusive: 0, endOffsetInclusive: l.engine.ledgerEnd(), updateFormat: updateFormat('LEDGER_EFFECTS', alice), pageToken: jsonAt(page, 'nextPageToken') },
    });
    await checkError('POST', '/v2/updates/get-updates-page', 400, 'MISSING_FIELD', { body: { beginOffsetExclusive: 0 } });
    await checkError('POST', '/v2/updates/get-updates-page', 400, 'INVALID_ARGUMENT', {
      body: { updateFormat: updateFormat('ACS_DELTA', alice), pageToken: 'bm9wZQ==' },
    });
  });
});

describe('events and contracts', () => {
  it('POST /v2/events/events-by-contract-id', async () => {
    const archived = await check('POST', '/v2/events/events-by-contract-id', 200, { body: { contractId: archivedIou, eventFormat: holdingViews(alice) } });
    expect(jsonAt(archived, 'archived')).not.toBeNull();
    const active = await check('POST', '/v2/events/events-by-contract-id', 200, { body: { contractId: activeIou, eventFormat: allFor(bob) } });
    expect(jsonAt(active, 'archived')).toBeNull();
    await checkError('POST', '/v2/events/events-by-contract-id', 404, 'CONTRACT_EVENTS_NOT_FOUND', { body: { contractId: activeIou, eventFormat: allFor(carol) } });
    await checkError('POST', '/v2/events/events-by-contract-id', 400, 'INVALID_ARGUMENT', { body: { contractId: activeIou, eventFormat: { verbose: true } } });
  });

  it('POST /v2/contracts/contract-by-id', async () => {
    const body = await check('POST', '/v2/contracts/contract-by-id', 200, { body: { contractId: activeIou, queryingParties: [bob] } });
    expect(jsonAt(body, 'createdEvent', 'contractId')).toBe(activeIou);
    await check('POST', '/v2/contracts/contract-by-id', 200, { body: { contractId: archivedIou } });
    await checkError('POST', '/v2/contracts/contract-by-id', 404, 'CONTRACT_PAYLOAD_NOT_FOUND', { body: { contractId: activeIou, queryingParties: [carol] } });
    await checkError('POST', '/v2/contracts/contract-by-id', 400, PLAIN, { body: { queryingParties: [carol] } });
  });
});

describe('packages', () => {
  it('POST /v2/dars/validate', async () => {
    expect(await check('POST', '/v2/dars/validate', 200, { raw: dar.bytes, headers: { 'content-type': 'application/octet-stream' } })).toBe('');
    await checkError('POST', '/v2/dars/validate', 400, 'INVALID_DAR', { raw: 'not a zip' });
  });

  it('POST /v2/dars and POST /v2/packages', async () => {
    expect(await check('POST', '/v2/dars', 200, { raw: dar.bytes, headers: { 'content-type': 'application/octet-stream' } })).toEqual({});
    expect(await check('POST', '/v2/packages', 200, { raw: dar.bytes, headers: { 'content-type': 'application/octet-stream' } })).toEqual({});
    await checkError('POST', '/v2/dars', 400, 'INVALID_DAR', { raw: 'not a zip' });
    await checkError('POST', '/v2/dars', 403, 'NA', { raw: dar.bytes, token: 'alice-user' });
    await checkError('POST', '/v2/packages', 400, 'DAR_PARSE_ERROR', { raw: new Uint8Array([0x50, 0x4b, 3, 4, 0, 0]) });
    await checkError('POST', '/v2/packages?vetAllPackages=maybe', 400, PLAIN, { raw: dar.bytes });
  });

  it('GET /v2/packages, /v2/packages/{package-id} and its status', async () => {
    const list = await check('GET', '/v2/packages', 200);
    expect(jsonAt(list, 'packageIds')).toContain(dar.mainPackageId);
    await checkError('GET', '/v2/packages', 401, 'NA', { token: 'garbage' });

    const res = await call('GET', `/v2/packages/${dar.mainPackageId}`);
    expect(res.status).toBe(200);
    await expectConformant(v, res, 'GET', `/v2/packages/${dar.mainPackageId}`);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(dar.main.payload);
    await checkError('GET', `/v2/packages/${'0'.repeat(64)}`, 404, 'PACKAGE_NOT_FOUND');

    expect(await check('GET', `/v2/packages/${dar.mainPackageId}/status`, 200)).toEqual({ packageStatus: 'PACKAGE_STATUS_REGISTERED' });
    expect(await check('GET', `/v2/packages/${'0'.repeat(64)}/status`, 200)).toEqual({ packageStatus: 'PACKAGE_STATUS_UNSPECIFIED' });
    await checkError('GET', `/v2/packages/${dar.mainPackageId}/status`, 401, 'NA', { token: 'garbage' });
  });

  it('POST /v2/package-vetting/list', async () => {
    const body = await check('POST', '/v2/package-vetting/list', 200, { body: {} });
    expect(jsonArray(body, 'vettedPackages', 0, 'packages').map((p) => jsonAt(p, 'packageId'))).toContain(dar.mainPackageId);
    await check('POST', '/v2/package-vetting/list', 200, {
      body: { packageMetadataFilter: { packageNamePrefixes: ['conformance'] }, topologyStateFilter: { participantIds: ['elsewhere::1220'] } },
    });
    await checkError('POST', '/v2/package-vetting/list', 400, 'INVALID_FIELD', { body: { pageSize: 100_000 } });
  });
});

describe('interactive submission', () => {
  let aliceKey: ExternalKey;
  /** A prepared transaction: what executeBody takes of the prepare answer (circe writes its unset optionals as null). */
  const prepared = async (amount: string) => {
    const body = await check('POST', '/v2/interactive-submission/prepare', 200, { body: prepareBody([alice], [create(IOU, iou(alice, alice, amount))]) });
    return { preparedTransaction: jsonText(body, 'preparedTransaction'), preparedTransactionHash: jsonText(body, 'preparedTransactionHash') };
  };

  beforeAll(() => {
    aliceKey = registerExternal(l.engine, alice);
  });

  it('POST /v2/interactive-submission/prepare', async () => {
    const end = l.engine.ledgerEnd();
    const body = await check('POST', '/v2/interactive-submission/prepare', 200, {
      body: prepareBody([alice], [create(IOU, iou(alice, alice, '1'))], { verboseHashing: true }),
    });
    expect(jsonAt(body, 'hashingSchemeVersion')).toBe('HASHING_SCHEME_VERSION_V2');
    expect(jsonAt(body, 'hashingDetails')).toContain('Prepared transaction hash');
    await checkError('POST', '/v2/interactive-submission/prepare', 400, PLAIN, { body: { commands: [], actAs: [alice] } });
    await checkError('POST', '/v2/interactive-submission/prepare', 404, 'CONTRACT_NOT_FOUND', {
      body: prepareBody([alice], [exercise(IOU, archivedIou, 'Split', { amount: '1' })]),
    });
    await checkError('POST', '/v2/interactive-submission/prepare', 403, 'NA', { token: 'nobody', body: prepareBody([alice], [create(IOU, iou(alice, alice))], { userId: 'nobody' }) });
    expect(l.engine.ledgerEnd()).toBe(end);
  });

  it('POST /v2/interactive-submission/execute', async () => {
    const p = await prepared('2');
    expect(await check('POST', '/v2/interactive-submission/execute', 200, { body: executeBody(p, [aliceKey]) })).toEqual({});
    const q = await prepared('3');
    const end = l.engine.ledgerEnd();
    await checkError('POST', '/v2/interactive-submission/execute', 400, 'FAILED_TO_EXECUTE_TRANSACTION', { body: executeBody(q, []) });
    await checkError('POST', '/v2/interactive-submission/execute', 400, PLAIN, { body: { preparedTransaction: q.preparedTransaction } });
    expect(l.engine.ledgerEnd()).toBe(end);
  });

  it('POST /v2/interactive-submission/executeAndWait', async () => {
    const p = await prepared('4');
    const body = await check('POST', '/v2/interactive-submission/executeAndWait', 200, { body: executeBody(p, [aliceKey]) });
    expect(jsonAt(body, 'completionOffset')).toBe(l.engine.ledgerEnd());
    await checkError('POST', '/v2/interactive-submission/executeAndWait', 409, 'DUPLICATE_COMMAND', { body: executeBody(p, [aliceKey]) });
    await checkError('POST', '/v2/interactive-submission/executeAndWait', 403, 'NA', { token: 'nobody', body: executeBody(await prepared('5'), [aliceKey], { userId: 'nobody' }) });
  });

  it('POST /v2/interactive-submission/executeAndWaitForTransaction', async () => {
    const p = await prepared('6');
    const body = await check('POST', '/v2/interactive-submission/executeAndWaitForTransaction', 200, {
      body: { ...executeBody(p, [aliceKey]), transactionFormat: txFormat('LEDGER_EFFECTS', alice) },
    });
    expect(jsonAt(body, 'transaction', 'externalTransactionHash')).toBe(p.preparedTransactionHash);
    await checkError('POST', '/v2/interactive-submission/executeAndWaitForTransaction', 400, 'INVALID_FIELD', {
      body: { ...executeBody(p, [aliceKey]), preparedTransaction: Buffer.from('garbage').toString('base64') },
    });
  });

  it('GET /v2/interactive-submission/preferred-package-version', async () => {
    const body = await check('GET', `/v2/interactive-submission/preferred-package-version?package-name=conformance-pkg&parties=${encodeURIComponent(alice)}`, 200);
    expect(jsonAt(body, 'packagePreference', 'packageReference')).toEqual({ packageId: dar.mainPackageId, packageName: 'conformance-pkg', packageVersion: '1.0.0' });
    await checkError('GET', '/v2/interactive-submission/preferred-package-version?package-name=NoSuchPackage', 404, 'PACKAGE_NAMES_NOT_FOUND');
  });

  it('POST /v2/interactive-submission/preferred-packages', async () => {
    const body = await check('POST', '/v2/interactive-submission/preferred-packages', 200, {
      body: { packageVettingRequirements: [{ packageName: 'conformance-pkg', parties: [alice] }] },
    });
    expect(jsonAt(body, 'packageReferences')).toEqual([{ packageId: dar.mainPackageId, packageName: 'conformance-pkg', packageVersion: '1.0.0' }]);
    await checkError('POST', '/v2/interactive-submission/preferred-packages', 400, PLAIN, { body: {} });
    await checkError('POST', '/v2/interactive-submission/preferred-packages', 400, 'UNKNOWN_INFORMEES', {
      body: { packageVettingRequirements: [{ packageName: 'conformance-pkg', parties: ['unknownParty::ns'] }] },
    });
  });
});

describe('parties', () => {
  it('GET /v2/parties and /v2/parties/participant-id', async () => {
    const list = await check('GET', '/v2/parties?pageSize=2', 200);
    expect(jsonAt(list, 'partyDetails')).toHaveLength(2);
    expect(jsonAt(list, 'nextPageToken')).not.toBe('');
    await check('GET', `/v2/parties?pageToken=${encodeURIComponent(jsonText(list, 'nextPageToken'))}`, 200, { token: 'admin' });
    await checkError('GET', '/v2/parties', 403, 'NA', { token: 'alice-user' });

    expect(jsonAt(await check('GET', '/v2/parties/participant-id', 200), 'participantId')).toBe(l.engine.participantId);
    await checkError('GET', '/v2/parties/participant-id', 401, 'NA', { token: 'garbage' });
  });

  it('POST /v2/parties', async () => {
    const body = await check('POST', '/v2/parties', 200, { body: { partyIdHint: 'dave', localMetadata: { annotations: { team: 'x' } } } });
    expect(jsonAt(body, 'partyDetails', 'party')).toMatch(/^dave::1220/);
    // allocating for a user grants it CanActAs
    await check('POST', '/v2/parties', 200, { body: { partyIdHint: 'erin', userId: 'nobody' }, token: 'admin' });
    expect(l.engine.users.rights('nobody')).toHaveLength(1);
    await checkError('POST', '/v2/parties', 400, 'INVALID_ARGUMENT', { body: { partyIdHint: 'dave' } });
    await checkError('POST', '/v2/parties', 403, 'NA', { body: { partyIdHint: 'frank' }, token: 'alice-user' });
    await checkError('POST', '/v2/parties', 400, PLAIN, { raw: '{"partyIdHint": 7}' });
  });

  it('GET and PATCH /v2/parties/{party}', async () => {
    const got = await check('GET', `/v2/parties/${encodeURIComponent(alice)}?parties=${encodeURIComponent(bob)}`, 200);
    expect(jsonAt(got, 'partyDetails')).toHaveLength(2);
    expect(jsonAt(await check('GET', `/v2/parties/${encodeURIComponent(alice)}`, 200, { token: 'alice-user' }), 'partyDetails')).toHaveLength(1);
    await checkError('GET', `/v2/parties/${encodeURIComponent(bob)}`, 403, 'NA', { token: 'alice-user' });
    await checkError('GET', '/v2/parties/not%20a%20party%21', 400, 'INVALID_ARGUMENT');

    const patched = await check('PATCH', `/v2/parties/${encodeURIComponent(alice)}`, 200, {
      body: { partyDetails: { party: alice, localMetadata: { annotations: { k: 'v' }, resourceVersion: '' } }, updateMask: { paths: ['local_metadata'] } },
    });
    expect(jsonAt(patched, 'partyDetails', 'localMetadata', 'annotations')).toEqual({ k: 'v' });
    await checkError('PATCH', `/v2/parties/${encodeURIComponent(alice)}`, 400, 'INVALID_ARGUMENT', {
      body: { partyDetails: { party: bob }, updateMask: { paths: ['local_metadata'] } },
    });
  });
});

describe('external parties', () => {
  const topologyRequest = (publicKey: string, partyHint: string) => ({
    synchronizer: l.engine.synchronizerId,
    partyHint,
    publicKey: { format: 'CRYPTO_KEY_FORMAT_RAW', keyData: publicKey, keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519' },
    localParticipantObservationOnly: false,
    otherConfirmingParticipantUids: [],
    confirmationThreshold: 1,
    observingParticipantUids: [],
  });

  it('POST /v2/parties/external/generate-topology', async () => {
    const { publicKey } = createKeyPair();
    const body = await check('POST', '/v2/parties/external/generate-topology', 200, { body: topologyRequest(publicKey, 'ext-gen') });
    expect(jsonAt(body, 'partyId')).toBe(`ext-gen::${jsonText(body, 'publicKeyFingerprint')}`);
    await checkError('POST', '/v2/parties/external/generate-topology', 400, 'INVALID_ARGUMENT', {
      body: { ...topologyRequest(publicKey, 'ext-gen'), confirmationThreshold: 2 },
    });
    await checkError('POST', '/v2/parties/external/generate-topology', 401, 'NA', { body: topologyRequest(publicKey, 'ext-gen'), token: 'garbage' });
    await checkError('POST', '/v2/parties/external/generate-topology', 400, PLAIN, { raw: '{"partyHint": 7}' });
  });

  it('POST /v2/parties/external/allocate', async () => {
    const { publicKey, privateKey } = createKeyPair();
    const g = GenerateExternalPartyTopologyResponseSchema.parse(await check('POST', '/v2/parties/external/generate-topology', 200, { body: topologyRequest(publicKey, 'ext-alloc') }));
    const allocate = (signature: string) => ({
      synchronizer: l.engine.synchronizerId,
      identityProviderId: '',
      onboardingTransactions: g.topologyTransactions.map((transaction) => ({ transaction })),
      multiHashSignatures: [{ format: 'SIGNATURE_FORMAT_CONCAT', signature, signedBy: g.publicKeyFingerprint, signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ED25519' }],
    });
    const good = allocate(signTransactionHash(g.multiHash, privateKey));
    // a regular user may not allocate for someone else (AdminOrIdpAdminOrSelfAdmin(userId))
    await checkError('POST', '/v2/parties/external/allocate', 403, 'NA', { body: good, token: 'alice-user' });
    // a signature over something else: INVALID_TOPOLOGY_TX_SIGNATURE_ERROR, an alarm, redacted
    await checkError('POST', '/v2/parties/external/allocate', 400, 'NA', { body: allocate(signTransactionHash(Buffer.alloc(34).toString('base64'), privateKey)) });
    await checkError('POST', '/v2/parties/external/allocate', 400, 'INVALID_FIELD', { body: { ...good, onboardingTransactions: [] } });
    expect(AllocateExternalPartyResponseSchema.parse(await check('POST', '/v2/parties/external/allocate', 200, { body: good, token: 'admin' })).partyId).toBe(g.partyId);
    await checkError('POST', '/v2/parties/external/allocate', 400, 'INVALID_ARGUMENT', { body: good });
    await checkError('POST', '/v2/parties/external/allocate', 400, PLAIN, { raw: '{"onboardingTransactions": {}}' });
    const listed = await check('GET', `/v2/parties/${encodeURIComponent(g.partyId)}`, 200);
    expect(jsonAt(listed, 'partyDetails', 0, 'isLocal')).toBe(true);
  });
});

describe('users and identity providers', () => {
  const ACT = (party: string) => ({ kind: { CanActAs: { value: { party } } } });
  const READ = (party: string) => ({ kind: { CanReadAs: { value: { party } } } });

  it('GET and POST /v2/users', async () => {
    const created = await check('POST', '/v2/users', 200, { body: { user: { id: 'bob-user', primaryParty: bob }, rights: [ACT(bob)] } });
    expect(jsonAt(created, 'user', 'id')).toBe('bob-user');
    await checkError('POST', '/v2/users', 409, 'USER_ALREADY_EXISTS', { body: { user: { id: 'bob-user' } } });
    await checkError('POST', '/v2/users', 404, 'UNKNOWN_RESOURCE', { body: { user: { id: 'x-user' }, rights: [ACT('ghost::1220ab')] } });
    await checkError('POST', '/v2/users', 400, PLAIN, { raw: '{"user":' });

    const list = await check('GET', '/v2/users?pageSize=2', 200);
    expect(jsonAt(list, 'users')).toHaveLength(2);
    await check('GET', `/v2/users?pageToken=${encodeURIComponent(jsonText(list, 'nextPageToken'))}`, 200, { token: 'admin' });
    await checkError('GET', '/v2/users', 403, 'NA', { token: 'alice-user' });
  });

  it('GET, PATCH and DELETE /v2/users/{user-id}', async () => {
    await check('GET', '/v2/users/bob-user', 200);
    await check('GET', '/v2/users/alice-user', 200, { token: 'alice-user' });
    await checkError('GET', '/v2/users/ghost', 404, 'USER_NOT_FOUND');
    await checkError('GET', '/v2/users/bob-user', 403, 'NA', { token: 'alice-user' });

    const patched = await check('PATCH', '/v2/users/bob-user', 200, {
      body: { user: { id: 'bob-user', metadata: { annotations: { a: 'b' } } }, updateMask: { paths: ['metadata'] } },
    });
    expect(jsonAt(patched, 'user', 'metadata', 'annotations')).toEqual({ a: 'b' });
    await checkError('PATCH', '/v2/users/bob-user', 400, 'INVALID_ARGUMENT', { body: { user: { id: 'alice-user' }, updateMask: { paths: ['metadata'] } } });
    await checkError('PATCH', '/v2/users/bob-user', 400, 'INVALID_USER_UPDATE_REQUEST', { body: { user: { id: 'bob-user' }, updateMask: { paths: [] } } });

    await check('POST', '/v2/users', 200, { body: { user: { id: 'temp-user' } } });
    expect(await check('DELETE', '/v2/users/temp-user', 200)).toEqual({});
    await checkError('DELETE', '/v2/users/temp-user', 404, 'USER_NOT_FOUND');
  });

  it('/v2/users/{user-id}/rights', async () => {
    const rights = await check('GET', '/v2/users/alice-user/rights', 200, { token: 'alice-user' });
    expect(jsonAt(rights, 'rights')).toEqual([ACT(alice)]);
    await checkError('GET', '/v2/users/ghost/rights', 404, 'USER_NOT_FOUND');

    const granted = await check('POST', '/v2/users/bob-user/rights', 200, {
      body: { userId: 'bob-user', rights: [READ(alice), { kind: { ParticipantAdmin: { value: {} } } }, { kind: { CanReadAsAnyParty: { value: {} } } }] },
    });
    expect(jsonAt(granted, 'newlyGrantedRights')).toHaveLength(3);
    await checkError('POST', '/v2/users/bob-user/rights', 404, 'UNKNOWN_RESOURCE', { body: { userId: 'bob-user', rights: [READ('ghost::1220ab')] } });
    await checkError('POST', '/v2/users/bob-user/rights', 400, 'INVALID_ARGUMENT', { body: { userId: 'alice-user', rights: [READ(alice)] } });

    const revoked = await check('PATCH', '/v2/users/bob-user/rights', 200, { body: { userId: 'bob-user', rights: [READ(alice)] } });
    expect(jsonAt(revoked, 'newlyRevokedRights')).toEqual([READ(alice)]);
    await checkError('PATCH', '/v2/users/bob-user/rights', 403, 'NA', { token: 'alice-user', body: { userId: 'bob-user', rights: [READ(alice)] } });
  });

  it('PATCH /v2/users/{user-id}/identity-provider-id', async () => {
    expect(
      await check('PATCH', '/v2/users/bob-user/identity-provider-id', 200, { body: { userId: 'bob-user', sourceIdentityProviderId: '', targetIdentityProviderId: '' } }),
    ).toEqual({});
    await checkError('PATCH', '/v2/users/bob-user/identity-provider-id', 400, 'INVALID_ARGUMENT', {
      body: { userId: 'bob-user', sourceIdentityProviderId: '', targetIdentityProviderId: 'other-idp' },
    });
    await checkError('PATCH', '/v2/users/ghost/identity-provider-id', 404, 'USER_NOT_FOUND', { body: { userId: 'ghost' } });
    await checkError('PATCH', '/v2/users/bob-user/identity-provider-id', 403, 'NA', { token: 'alice-user', body: { userId: 'bob-user' } });
  });

  it('GET /v2/authenticated-user', async () => {
    expect(jsonAt(await check('GET', '/v2/authenticated-user', 200, { token: 'alice-user' }), 'user', 'id')).toBe('alice-user');
    await checkError('GET', '/v2/authenticated-user', 400, 'INVALID_TOKEN');
    await checkError('GET', '/v2/authenticated-user', 401, 'NA', { token: 'garbage' });
  });

  it('/v2/idps and /v2/idps/{idp-id}', async () => {
    expect(await check('GET', '/v2/idps', 200)).toEqual({ identityProviderConfigs: [] });
    await checkError('GET', '/v2/idps', 403, 'NA', { token: 'alice-user' });

    const cfg = { identityProviderId: 'other-idp', isDeactivated: false, issuer: 'https://idp.example', jwksUrl: 'https://idp.example/jwks', audience: '' };
    await checkError('POST', '/v2/idps', 400, 'TOO_MANY_IDENTITY_PROVIDER_CONFIGS', { body: { identityProviderConfig: cfg } });
    await checkError('POST', '/v2/idps', 400, 'INVALID_FIELD', { body: { identityProviderConfig: { ...cfg, jwksUrl: 'not a url' } } });
    await checkError('GET', '/v2/idps/other-idp', 404, 'IDP_CONFIG_NOT_FOUND');
    await checkError('PATCH', '/v2/idps/other-idp', 404, 'IDP_CONFIG_NOT_FOUND', { body: { identityProviderConfig: cfg, updateMask: { paths: ['issuer'] } } });
    await checkError('PATCH', '/v2/idps/other-idp', 400, 'INVALID_ARGUMENT', { body: { identityProviderConfig: { ...cfg, identityProviderId: 'x' }, updateMask: { paths: ['issuer'] } } });
    await checkError('DELETE', '/v2/idps/other-idp', 404, 'IDP_CONFIG_NOT_FOUND');
    await checkError('DELETE', '/v2/idps/other-idp', 403, 'NA', { token: 'alice-user' });
  });
});

describe('coverage', () => {
  it('every served operation has a conformant success response and a conformant error response', () => {
    const unserved = new Set(UNSERVED.map(key));
    const implementedOps: CoverageRequirement[] = v
      .operations()
      .filter((op) => !unserved.has(key(op)))
      .map(({ method, pathTemplate }) => ({ method, pathTemplate }));
    expect(implementedOps).toHaveLength(67 - UNSERVED.length);
    expect(v.uncovered(implementedOps)).toEqual([]);

    const errorOnly = new Set(ERROR_ONLY.map(key));
    const noError = new Set(NO_ERROR_CASE.map(key));
    const coverage = v.coverage();
    expect(coverage.filter((e) => !e.ok)).toEqual([]);
    const lacking = implementedOps.flatMap((op) => {
      const mine = coverage.filter((e) => e.ok && key(e) === key(op));
      const out: string[] = [];
      if (!errorOnly.has(key(op)) && !mine.some((e) => e.status >= 200 && e.status < 300)) out.push(`${key(op)}: no success`);
      if (!noError.has(key(op)) && !mine.some((e) => e.status >= 400)) out.push(`${key(op)}: no error`);
      return out;
    });
    expect(lacking).toEqual([]);
  });
});
