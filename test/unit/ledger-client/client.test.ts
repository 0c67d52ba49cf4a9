import { describe, expect, it } from 'vitest';
import { noAuth, staticToken, type TokenProvider } from '../../../src/ledger-client/auth.js';
import { LedgerClient, buildEventFormat, type LedgerClientOptions } from '../../../src/ledger-client/client.js';
import { LedgerError, LedgerUnavailableError } from '../../../src/ledger-client/errors.js';
import type { EventFormat } from '../../../src/ledger-client/schemas/common.js';
import { offsetOfUpdate } from '../../../src/ledger-client/schemas/events.js';

interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Headers;
  /** The parsed JSON body (undefined without one). */
  body: SeenBody | undefined;
}

/** The fields of the client's request bodies that the fake routes and the assertions read. */
interface SeenBody {
  contractId?: string;
  pageToken?: string;
  streamContinuationToken?: string;
  activeAtOffset?: number;
  eventFormat?: EventFormat;
}

type Handler = (req: Seen, n: number) => Response | Promise<Response>;

/** A fake node: `routes["POST /v2/..."]` answers; `n` counts calls to that route (1-based). */
function fakeNode(routes: Record<string, Handler>) {
  const seen: Seen[] = [];
  const counts = new Map<string, number>();
  const fetchFn: typeof fetch = async (input, init) => {
    const url = new URL(String(input));
    const req: Seen = {
      method: init?.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: new Headers(init?.headers),
      body: init?.body ? (JSON.parse(String(init.body)) as SeenBody) : undefined,
    };
    seen.push(req);
    const key = `${req.method} ${req.path}`;
    const n = (counts.get(key) ?? 0) + 1;
    counts.set(key, n);
    const h = routes[key];
    if (!h) return new Response('The requested resource could not be found.', { status: 404, headers: { 'content-type': 'text/plain' } });
    return h(req, n);
  };
  return { seen, fetch: fetchFn, calls: (key: string) => counts.get(key) ?? 0 };
}

function client(fetchFn: typeof fetch, extra: Partial<LedgerClientOptions> = {}) {
  return new LedgerClient({ baseUrl: 'http://ledger.test:7575/', tokenProvider: staticToken('tkn'), fetch: fetchFn, retry: { baseDelayMs: 1, maxDelayMs: 2 }, ...extra });
}

const cantonError = (code: string, errorCategory: number, status: number, grpcCodeValue?: number) =>
  Response.json({ code, cause: `${code} cause`, correlationId: null, traceId: null, context: {}, resources: [], errorCategory, grpcCodeValue, retryInfo: null, definiteAnswer: null }, { status });

const SYNC = 'global-domain::1220' + 'ab'.repeat(32);

function createdEvent(i: number) {
  return {
    offset: 3,
    nodeId: i,
    contractId: `00${String(i).padStart(64, '0')}ca10`,
    templateId: `${'a'.repeat(64)}:M:T`,
    contractKey: null,
    createArgument: { n: String(i) },
    createdEventBlob: '',
    interfaceViews: [],
    witnessParties: ['p::1220'],
    signatories: ['p::1220'],
    observers: [],
    createdAt: '2026-01-01T00:00:00Z',
    packageName: 'pkg',
    unknownFutureField: 1,
  };
}
const entry = (i: number, token?: string) => ({
  workflowId: '',
  contractEntry: { JsActiveContract: { createdEvent: createdEvent(i), synchronizerId: SYNC, reassignmentCounter: 0 } },
  ...(token !== undefined ? { streamContinuationToken: token } : {}),
});
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => from + k);

describe('LedgerClient requests', () => {
  it('joins the base URL, sends the bearer token and JSON headers, and validates the body', async () => {
    const node = fakeNode({ 'GET /v2/version': () => Response.json({ version: '3.4.11', features: { userManagement: {} }, extra: true }) });
    const c = client(node.fetch);
    expect(await c.version()).toEqual({ version: '3.4.11', features: { userManagement: {} } });
    const r = node.seen[0]!;
    expect(r.path).toBe('/v2/version');
    expect(r.headers.get('authorization')).toBe('Bearer tkn');
    expect(r.headers.get('accept')).toBe('application/json');
    expect(r.headers.get('content-type')).toBeNull();
  });

  it('sends no Authorization header with noAuth, and Content-Type on bodies', async () => {
    const node = fakeNode({ 'POST /v2/contracts/contract-by-id': () => Response.json({ createdEvent: createdEvent(1) }) });
    const c = client(node.fetch, { tokenProvider: noAuth });
    const ev = await c.contractById('cid', ['p']);
    expect(ev?.contractId).toBe(createdEvent(1).contractId);
    expect(ev).not.toHaveProperty('unknownFutureField');
    expect(node.seen[0]!.headers.get('authorization')).toBeNull();
    expect(node.seen[0]!.headers.get('content-type')).toBe('application/json');
    expect(node.seen[0]!.body).toEqual({ contractId: 'cid', queryingParties: ['p'] });
  });

  it('keeps a base path prefix', async () => {
    const node = fakeNode({ 'GET /api/json/v2/state/ledger-end': () => Response.json({ offset: 42 }) });
    const c = new LedgerClient({ baseUrl: 'http://ledger.test/api/json', tokenProvider: noAuth, fetch: node.fetch });
    expect(await c.ledgerEnd()).toBe(42);
  });

  it('passes the party to connected-synchronizers and defaults missing fields', async () => {
    const node = fakeNode({
      'GET /v2/state/connected-synchronizers': () => Response.json({ connectedSynchronizers: [{ synchronizerAlias: 'global', synchronizerId: SYNC, permission: null }] }),
    });
    const list = await client(node.fetch).connectedSynchronizers('alice::1220');
    expect(list).toEqual([{ synchronizerAlias: 'global', synchronizerId: SYNC, permission: 'PARTICIPANT_PERMISSION_UNSPECIFIED' }]);
    expect(node.seen[0]!.query.get('party')).toBe('alice::1220');
  });

  it('answers INVALID_RESPONSE for a body of the wrong shape', async () => {
    const node = fakeNode({ 'GET /v2/state/ledger-end': () => Response.json({ offset: '42' }) });
    const err = (await client(node.fetch).ledgerEnd().catch((e: unknown) => e)) as LedgerError;
    expect(err).toBeInstanceOf(LedgerError);
    expect(err.code).toBe('INVALID_RESPONSE');
    expect(err.cause).toContain('offset');
    expect(node.calls('GET /v2/state/ledger-end')).toBe(1); // not retried
  });
});

describe('LedgerClient retries', () => {
  it('retries idempotent reads on 503 and succeeds', async () => {
    const node = fakeNode({
      'GET /v2/state/ledger-end': (_r, n) => (n < 3 ? new Response('unavailable', { status: 503 }) : Response.json({ offset: 7 })),
    });
    expect(await client(node.fetch).ledgerEnd()).toBe(7);
    expect(node.calls('GET /v2/state/ledger-end')).toBe(3);
  });

  it('gives up after maxAttempts with LedgerUnavailableError', async () => {
    const node = fakeNode({ 'GET /v2/state/ledger-end': () => cantonError('SERVICE_NOT_RUNNING', 1, 503, 14) });
    const err = (await client(node.fetch, { retry: { maxAttempts: 4, baseDelayMs: 1 } }).ledgerEnd().catch((e: unknown) => e)) as LedgerUnavailableError;
    expect(err).toBeInstanceOf(LedgerUnavailableError);
    expect(err.ledgerError?.code).toBe('SERVICE_NOT_RUNNING');
    expect(node.calls('GET /v2/state/ledger-end')).toBe(4);
  });

  it('retries category 2 (contention) errors on read POSTs', async () => {
    const node = fakeNode({
      'POST /v2/contracts/contract-by-id': (_r, n) => (n === 1 ? cantonError('PARTICIPANT_BACKPRESSURE', 2, 409, 10) : Response.json({ createdEvent: createdEvent(2) })),
    });
    expect((await client(node.fetch).contractById('c', ['p']))?.nodeId).toBe(2);
    expect(node.calls('POST /v2/contracts/contract-by-id')).toBe(2);
  });

  it('does not retry client errors', async () => {
    const node = fakeNode({ 'POST /v2/contracts/contract-by-id': () => new Response("Invalid value for: body (Missing required field at 'contractId')", { status: 400, headers: { 'content-type': 'text/plain' } }) });
    const err = (await client(node.fetch).contractById('c', ['p']).catch((e: unknown) => e)) as LedgerError;
    expect(err).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    expect(node.calls('POST /v2/contracts/contract-by-id')).toBe(1);
  });

  it('does not retry a generic non-idempotent request unless told so', async () => {
    const node = fakeNode({ 'POST /v2/something': () => new Response('', { status: 503 }) });
    const c = client(node.fetch);
    await expect(c.request('POST', '/v2/something', {})).rejects.toBeInstanceOf(LedgerUnavailableError);
    expect(node.calls('POST /v2/something')).toBe(1);
    await expect(c.request('POST', '/v2/something', {}, { idempotent: true })).rejects.toBeInstanceOf(LedgerUnavailableError);
    expect(node.calls('POST /v2/something')).toBe(4);
  });

  it('maps network failures to LedgerUnavailableError(network) and retries them', async () => {
    let n = 0;
    const fetchFn: typeof fetch = async () => {
      n++;
      throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:1') });
    };
    const err = (await client(fetchFn).ledgerEnd().catch((e: unknown) => e)) as LedgerUnavailableError;
    expect(err).toBeInstanceOf(LedgerUnavailableError);
    expect(err.reason).toBe('network');
    expect(err.message).toContain('ECONNREFUSED');
    expect(n).toBe(3);
  });

  it('times out a slow answer with LedgerUnavailableError(timeout)', async () => {
    let n = 0;
    const hang: typeof fetch = (_input, init) => {
      n++;
      return new Promise((_resolve, reject) => {
        init!.signal!.addEventListener('abort', () => reject(init!.signal!.reason));
      });
    };
    const started = Date.now();
    const err = (await client(hang, { timeoutMs: 30, retry: { maxAttempts: 2, baseDelayMs: 1 } }).ledgerEnd().catch((e: unknown) => e)) as LedgerUnavailableError;
    expect(err).toBeInstanceOf(LedgerUnavailableError);
    expect(err.reason).toBe('timeout');
    expect(err.message).toContain('within 30 ms');
    expect(n).toBe(2);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("stops at once when the caller's signal aborts", async () => {
    let n = 0;
    const hang: typeof fetch = (_input, init) => {
      n++;
      return new Promise((_resolve, reject) => init!.signal!.addEventListener('abort', () => reject(init!.signal!.reason)));
    };
    const ac = new AbortController();
    const p = client(hang).ledgerEnd({ signal: ac.signal });
    setTimeout(() => ac.abort(new Error('shutting down')), 10);
    await expect(p).rejects.toThrow('shutting down');
    expect(n).toBe(1);
  });

  it('on a 401 drops the cached token and tries once more', async () => {
    let issued = 0;
    let invalidated = 0;
    const provider: TokenProvider = {
      token: async () => `t${issued || ++issued}`,
      invalidate: () => {
        invalidated++;
        issued++;
      },
    };
    const node = fakeNode({
      'GET /v2/state/ledger-end': (r) =>
        r.headers.get('authorization') === 'Bearer t2' ? Response.json({ offset: 1 }) : cantonError('NA', -1, 401, 16),
    });
    expect(await client(node.fetch, { tokenProvider: provider }).ledgerEnd()).toBe(1);
    expect(invalidated).toBe(1);

    // still 401 with the fresh token: surfaced as a LedgerError 401, not retried further
    const always401 = fakeNode({ 'GET /v2/state/ledger-end': () => cantonError('NA', -1, 401, 16) });
    const err = (await client(always401.fetch, { tokenProvider: provider }).ledgerEnd().catch((e: unknown) => e)) as LedgerError;
    expect(err).toBeInstanceOf(LedgerError);
    expect(err).toMatchObject({ status: 401, grpcCode: 16 });
    expect(always401.calls('GET /v2/state/ledger-end')).toBe(2);
  });

  it('reports a token provider failure as LedgerUnavailableError(auth)', async () => {
    const node = fakeNode({});
    const broken: TokenProvider = {
      token: async () => {
        throw new Error('idp down');
      },
    };
    const err = (await client(node.fetch, { tokenProvider: broken }).ledgerEnd().catch((e: unknown) => e)) as LedgerUnavailableError;
    expect(err).toBeInstanceOf(LedgerUnavailableError);
    expect(err.reason).toBe('auth');
    expect(err.retryable).toBe(false);
    expect(node.seen).toHaveLength(0);
  });
});

describe('LedgerClient ACS', () => {
  it('reads every page of active-contracts-page at one offset', async () => {
    const node = fakeNode({
      'POST /v2/state/active-contracts-page': (r) => {
        const start = r.body?.pageToken ? Number(r.body.pageToken) : 0;
        const page = range(start, Math.min(start + 2, 5)).map((i) => entry(i));
        return Response.json({ activeContracts: page, activeAtOffset: 9, ...(start + 2 < 5 ? { nextPageToken: String(start + 2) } : {}) });
      },
    });
    const c = client(node.fetch, { acsPageSize: 2 });
    const set = await c.activeContracts({ parties: ['p::1220'], templateIds: ['#pkg:M:T'], includeCreatedEventBlob: true });
    expect(set.activeAtOffset).toBe(9);
    expect(set.contracts.map((x) => x.createdEvent.nodeId)).toEqual([0, 1, 2, 3, 4]);
    expect(c.acsPaging).toBe('page');
    const bodies = node.seen.map((s) => s.body);
    expect(bodies[0]).toEqual({
      activeAtOffset: undefined,
      eventFormat: {
        filtersByParty: { 'p::1220': { cumulative: [{ identifierFilter: { TemplateFilter: { value: { templateId: '#pkg:M:T', includeCreatedEventBlob: true } } } }] } },
        verbose: false,
      },
      maxPageSize: 2,
    });
    // later pages pin the offset the first one reported
    expect(bodies[1]).toMatchObject({ activeAtOffset: 9, pageToken: '2' });
    expect(bodies[2]).toMatchObject({ activeAtOffset: 9, pageToken: '4' });
  });

  it('falls back to the list form with continuation tokens (3.5.0-3.5.9) when the page endpoint is missing', async () => {
    const node = fakeNode({
      'POST /v2/state/active-contracts-page': () => new Response('HTTP method not allowed, supported methods: GET', { status: 405 }),
      'GET /v2/state/ledger-end': () => Response.json({ offset: 12 }),
      'POST /v2/state/active-contracts': (r) => {
        const start = r.body?.streamContinuationToken ? Number(r.body.streamContinuationToken) : 0;
        const limit = Number(r.query.get('limit'));
        return Response.json(range(start, Math.min(start + limit, 7)).map((i) => entry(i, String(i + 1))));
      },
    });
    const c = client(node.fetch, { listPageSize: 3 });
    const set = await c.activeContracts({ parties: ['p::1220'] });
    expect(set.activeAtOffset).toBe(12);
    expect(set.contracts).toHaveLength(7);
    expect(c.acsPaging).toBe('list-token');
    const lists = node.seen.filter((s) => s.path === '/v2/state/active-contracts');
    expect(lists.map((s) => s.body!.streamContinuationToken)).toEqual([undefined, '3', '6']);
    expect(lists.every((s) => s.body?.activeAtOffset === 12)).toBe(true);
    // the wildcard filter is used when no template or interface is named
    expect(lists[0]!.body?.eventFormat?.filtersByParty['p::1220']?.cumulative).toEqual([{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: false } } } }]);
    // the next read goes straight to the list form
    await c.activeContracts({ parties: ['p::1220'] });
    expect(node.calls('POST /v2/state/active-contracts-page')).toBe(1);
  });

  it('reads the whole list on 3.4 (no continuation tokens), and explains a 413', async () => {
    let size = 5;
    const node = fakeNode({
      'POST /v2/state/active-contracts-page': () => new Response('The requested resource could not be found.', { status: 404 }),
      'GET /v2/state/ledger-end': () => Response.json({ offset: 4 }),
      'POST /v2/state/active-contracts': (r) => {
        const limit = r.query.get('limit');
        if (limit === null && size > 6) return cantonError('JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED', 2, 413, 10);
        return Response.json(range(0, limit === null ? size : Math.min(Number(limit), size)).map((i) => entry(i)));
      },
    });
    const c = client(node.fetch, { listPageSize: 2 });
    const set = await c.activeContracts({ anyParty: true });
    expect(set.contracts).toHaveLength(5);
    expect(c.acsPaging).toBe('list-whole');
    expect(node.seen.filter((s) => s.path === '/v2/state/active-contracts').map((s) => s.query.get('limit'))).toEqual(['2', null]);
    // filtersForAnyParty for anyParty
    expect(node.seen.find((s) => s.path === '/v2/state/active-contracts')!.body?.eventFormat).toMatchObject({ filtersByParty: {}, filtersForAnyParty: { cumulative: [{}] } });

    size = 9;
    const err = (await c.activeContracts({ anyParty: true }).catch((e: unknown) => e)) as LedgerError;
    expect(err).toBeInstanceOf(LedgerError);
    expect(err).toMatchObject({ status: 413, code: 'JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED' });
    expect(err.cause).toContain('http-list-max-elements-limit');
  });

  it('halves the list page size when the node limit is lower', async () => {
    const node = fakeNode({
      'POST /v2/state/active-contracts-page': () => new Response('', { status: 404 }),
      'POST /v2/state/active-contracts': (r) => {
        const limit = Number(r.query.get('limit'));
        if (limit > 4) return cantonError('JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED', 2, 413, 10);
        const start = r.body?.streamContinuationToken ? Number(r.body.streamContinuationToken) : 0;
        return Response.json(range(start, Math.min(start + limit, 10)).map((i) => entry(i, String(i + 1))));
      },
    });
    const c = client(node.fetch, { listPageSize: 16 });
    const set = await c.activeContracts({ parties: ['p'], activeAtOffset: 3 });
    expect(set.contracts).toHaveLength(10);
    expect(node.seen.filter((s) => s.path === '/v2/state/active-contracts').map((s) => s.query.get('limit'))).toEqual(['16', '8', '4', '4', '4']);
  });

  it('does not fall back on a Canton 404 (e.g. an unknown template)', async () => {
    const node = fakeNode({ 'POST /v2/state/active-contracts-page': () => cantonError('TEMPLATES_OR_INTERFACES_NOT_FOUND', 11, 404, 5) });
    const c = client(node.fetch);
    await expect(c.activeContracts({ parties: ['p'], templateIds: ['#nope:M:T'] })).rejects.toMatchObject({ code: 'TEMPLATES_OR_INTERFACES_NOT_FOUND' });
    expect(c.acsPaging).toBe('unknown');
  });

  it('returns entries of contracts in reassignment separately', async () => {
    const unassigned = {
      reassignmentId: 'r1',
      contractId: 'c9',
      templateId: 'p:M:T',
      source: SYNC,
      target: 'other::1220',
      submitter: 'p',
      reassignmentCounter: 1,
      assignmentExclusivity: null,
      witnessParties: ['p'],
      packageName: 'pkg',
      offset: 5,
      nodeId: 0,
    };
    const node = fakeNode({
      'POST /v2/state/active-contracts-page': () =>
        Response.json({
          activeContracts: [entry(1), { workflowId: '', contractEntry: { JsIncompleteUnassigned: { createdEvent: createdEvent(9), unassignedEvent: unassigned } } }],
          activeAtOffset: 5,
        }),
    });
    const set = await client(node.fetch).activeContracts({ parties: ['p'] });
    expect(set.contracts).toHaveLength(1);
    expect(set.incompleteUnassigned[0]!.unassignedEvent.target).toBe('other::1220');
  });

  it('needs parties or anyParty', () => {
    expect(() => buildEventFormat({})).toThrow(TypeError);
  });
});

describe('LedgerClient updates and lookups', () => {
  it('sends the updateFormat list request with limit and idle timeout', async () => {
    const tx = {
      update: {
        Transaction: {
          value: {
            updateId: '1220' + 'cd'.repeat(32),
            commandId: '',
            workflowId: '',
            effectiveAt: '2026-01-01T00:00:00Z',
            events: [{ CreatedEvent: createdEvent(0) }, { ArchivedEvent: { offset: 5, nodeId: 1, contractId: 'c', templateId: 'p:M:T', witnessParties: ['p'], packageName: 'pkg', implementedInterfaces: [] } }],
            offset: 5,
            synchronizerId: SYNC,
            traceContext: null,
            recordTime: '2026-01-01T00:00:00Z',
            externalTransactionHash: null,
            paidTrafficCost: null,
          },
        },
      },
    };
    const node = fakeNode({ 'POST /v2/updates': () => Response.json([tx, { update: { OffsetCheckpoint: { value: { offset: 6, synchronizerTimes: [] } } } }]) });
    const c = client(node.fetch, { listPageSize: 50 });
    const updates = await c.updates({ beginExclusive: 4, parties: ['p'], interfaceIds: ['#api:M:I'], includeInterfaceView: true, shape: 'LEDGER_EFFECTS', idleTimeoutMs: 100 });
    expect(updates.map(offsetOfUpdate)).toEqual([5, 6]);
    const r = node.seen[0]!;
    expect(r.query.get('limit')).toBe('50');
    expect(r.query.get('stream_idle_timeout_ms')).toBe('100');
    const ef = {
      filtersByParty: { p: { cumulative: [{ identifierFilter: { InterfaceFilter: { value: { interfaceId: '#api:M:I', includeInterfaceView: true, includeCreatedEventBlob: false } } } }] } },
      verbose: false,
    };
    expect(r.body).toEqual({
      beginExclusive: 4,
      updateFormat: { includeTransactions: { eventFormat: ef, transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS' }, includeReassignments: ef },
    });
    const first = updates[0]!.update;
    expect('Transaction' in first && first.Transaction.value.traceContext).toBeUndefined();
  });

  it('events-by-contract-id: found, archived, or undefined on CONTRACT_EVENTS_NOT_FOUND', async () => {
    const node = fakeNode({
      'POST /v2/events/events-by-contract-id': (r) =>
        r.body?.contractId === 'gone' ? cantonError('CONTRACT_EVENTS_NOT_FOUND', 11, 404, 5) : Response.json({ created: { createdEvent: createdEvent(1), synchronizerId: SYNC }, archived: null }),
    });
    const c = client(node.fetch);
    const ev = await c.eventsByContractId('c1', ['p', 'q'], { includeBlob: true, interfaceIds: ['#api:M:I'] });
    expect(ev?.created?.synchronizerId).toBe(SYNC);
    expect(ev?.archived).toBeUndefined();
    const cumulative = [
      { identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: true } } } },
      { identifierFilter: { InterfaceFilter: { value: { interfaceId: '#api:M:I', includeInterfaceView: true, includeCreatedEventBlob: true } } } },
    ];
    expect(node.seen[0]!.body).toEqual({ contractId: 'c1', eventFormat: { filtersByParty: { p: { cumulative }, q: { cumulative } }, verbose: false } });
    expect(await c.eventsByContractId('gone', [])).toBeUndefined();
    expect(node.seen[1]!.body?.eventFormat?.filtersForAnyParty).toBeDefined();
  });

  it('contract-by-id: undefined on CONTRACT_PAYLOAD_NOT_FOUND, other errors thrown', async () => {
    const node = fakeNode({
      'POST /v2/contracts/contract-by-id': (r) => (r.body?.contractId === 'x' ? cantonError('CONTRACT_PAYLOAD_NOT_FOUND', 11, 404, 5) : cantonError('NA', -1, 403, 7)),
    });
    const c = client(node.fetch);
    expect(await c.contractById('x', ['p'])).toBeUndefined();
    await expect(c.contractById('y', ['p'])).rejects.toMatchObject({ status: 403, grpcCode: 7 });
  });
});
