/**
 * The emulator's admin API over HTTP (`emulate` only, on ADMIN_PORT): thin routes over
 * AdminService (./service.ts), documented by the OpenAPI document they generate
 * (`GET /admin/openapi.json`). Errors are `{"error": "..."}` (400 bad input, 401/403 auth,
 * 404 unknown snapshot, party or instrument), and a refused request changes nothing.
 *
 * Auth follows the ledger's: with LEDGER_AUTH=jwt or localnet, each request needs a token the
 * first participant accepts, of a user holding ParticipantAdmin (as Canton's admin services
 * require); the OpenAPI document is public.
 */
import { createRoute, OpenAPIHono, type z } from '@hono/zod-openapi';
import { HTTPException } from 'hono/http-exception';
import type { Logger } from 'pino';
import { jsonErrorBodyLimit } from '../../http/body-limit.js';
import { validationMessage } from '../../registry/dispatch.js';
import { LedgerApiError } from '../../canton/errors.js';
import { isAdmin } from '../participant/claims.js';
import { plainRefusal } from '../participant/durability/durable-state.js';
import type { Authenticator } from '../ledger-api/auth.js';
import {
  AdminErrorSchema,
  BalancesSchema,
  ContractIdParamSchema,
  ContractSchema,
  InstrumentsSchema,
  ParticipantQuerySchema,
  PartiesSchema,
  RequestsSchema,
  TransactionDetailSchema,
  TransactionsPageSchema,
  TransactionsQuerySchema,
  UpdateIdParamSchema,
  UsersSchema,
  AdvanceClockRequestSchema,
  ClockSchema,
  FundedSchema,
  FundRequestSchema,
  HoldingsQuerySchema,
  HoldingsSchema,
  MintedSchema,
  MintRequestSchema,
  ResetDoneSchema,
  RestoredSchema,
  SnapshotCreatedSchema,
  SnapshotIdParamSchema,
} from '../../http/admin-api-schemas.js';
import { AdminError, type AdminService } from './service.js';
import type { LiveEvents } from './live-events.js';
import type { RequestLog } from './request-log.js';
import type { WorldView } from './world-view.js';

/** Admin requests are small JSON objects. */
const ADMIN_MAX_BODY_BYTES = 64 * 1024;

export interface AdminAppDeps {
  service: AdminService;
  /** The first participant's authenticator; absent when the ledger's auth is off. */
  authenticate?: Authenticator;
  logger?: Logger;
  /** The explorer's reads: parties, users, instruments, balances, transactions, contracts. */
  view?: WorldView;
  /** The live feed (server-sent events) of transactions, requests and world changes. */
  live?: LiveEvents;
  /** The registry, scan and validator requests of the last minutes. */
  requests?: RequestLog;
  /** Serves the explorer's web page at `/` and its assets (src/emulator/explorer). */
  page?: (app: OpenAPIHono) => void;
}

// 503: a write the ledger cannot persist now (STATE_DIR on a full disk), with Retry-After.
const errors = (statuses: ReadonlyArray<400 | 401 | 403 | 404 | 503>) =>
  Object.fromEntries(statuses.map((s) => [s, { description: 'error', content: { 'application/json': { schema: AdminErrorSchema } } }]));

const jsonBody = <T extends z.ZodType>(schema: T) => ({ body: { required: true, content: { 'application/json': { schema } } } });
const ok = <T extends z.ZodType>(schema: T) => ({ 200: { description: 'ok', content: { 'application/json': { schema } } } });

const routes = {
  snapshot: createRoute({
    method: 'post',
    path: '/admin/v1/snapshots',
    operationId: 'createSnapshot',
    description: "Saves the whole world in memory (every participant's ledger, users, rights, parties, topology, scan, clock).",
    responses: { ...ok(SnapshotCreatedSchema), ...errors([401, 403]) },
  }),
  restore: createRoute({
    method: 'post',
    path: '/admin/v1/snapshots/{id}/restore',
    operationId: 'restoreSnapshot',
    description: 'Puts the world back as it was at the snapshot; open ledger streams end with SERVICE_NOT_RUNNING.',
    request: { params: SnapshotIdParamSchema },
    responses: { ...ok(RestoredSchema), ...errors([400, 401, 403, 404, 503]) },
  }),
  reset: createRoute({
    method: 'post',
    path: '/admin/v1/reset',
    operationId: 'reset',
    description: 'Puts the world back as the emulator started it (the seeded demo world).',
    responses: { ...ok(ResetDoneSchema), ...errors([401, 403, 503]) },
  }),
  clock: createRoute({
    method: 'get',
    path: '/admin/v1/clock',
    operationId: 'getClock',
    description: "The world's ledger time.",
    responses: { ...ok(ClockSchema), ...errors([401, 403]) },
  }),
  advance: createRoute({
    method: 'post',
    path: '/admin/v1/clock/advance',
    operationId: 'advanceClock',
    description: 'Moves ledger time forward; deadlines pass and the Amulet round automation runs at the new time.',
    request: jsonBody(AdvanceClockRequestSchema),
    responses: { ...ok(ClockSchema), ...errors([400, 401, 403, 503]) },
  }),
  mint: createRoute({
    method: 'post',
    path: '/admin/v1/mint',
    operationId: 'mint',
    description: 'Mints a holding of a seeded instrument to a party (Canton Coin with the DevNet tap).',
    request: jsonBody(MintRequestSchema),
    responses: { ...ok(MintedSchema), ...errors([400, 401, 403, 404, 503]) },
  }),
  fund: createRoute({
    method: 'post',
    path: '/admin/v1/fund',
    operationId: 'fund',
    description: "Tops a party's unlocked balance of an instrument up to at least `atLeast`.",
    request: jsonBody(FundRequestSchema),
    responses: { ...ok(FundedSchema), ...errors([400, 401, 403, 404, 503]) },
  }),
  holdings: createRoute({
    method: 'get',
    path: '/admin/v1/holdings',
    operationId: 'getHoldings',
    description: "A party's balances per instrument and the holdings (HoldingV1 views) behind them.",
    request: { query: HoldingsQuerySchema },
    responses: { ...ok(HoldingsSchema), ...errors([400, 401, 403, 404]) },
  }),
  parties: createRoute({
    method: 'get',
    path: '/admin/v1/parties',
    operationId: 'listParties',
    description: 'Every party any participant knows: its seeded name, hosting participants with their permissions, and its signing keys when external.',
    responses: { ...ok(PartiesSchema), ...errors([401, 403]) },
  }),
  users: createRoute({
    method: 'get',
    path: '/admin/v1/users',
    operationId: 'listUsers',
    description: "Every participant's users with their primary party and rights.",
    responses: { ...ok(UsersSchema), ...errors([401, 403]) },
  }),
  instruments: createRoute({
    method: 'get',
    path: '/admin/v1/instruments',
    operationId: 'listInstruments',
    description: 'The seeded instruments, and any other instrument with holdings, with their supply (sum of the active HoldingV1 views) and holder count.',
    responses: { ...ok(InstrumentsSchema), ...errors([401, 403]) },
  }),
  balances: createRoute({
    method: 'get',
    path: '/admin/v1/balances',
    operationId: 'listBalances',
    description: "Every party's balance of every instrument it holds (unlocked and locked).",
    responses: { ...ok(BalancesSchema), ...errors([401, 403]) },
  }),
  transactions: createRoute({
    method: 'get',
    path: '/admin/v1/transactions',
    operationId: 'listTransactions',
    description: "A participant's transactions, newest first, one page at a time (pass `nextBefore` as `before`).",
    request: { query: TransactionsQuerySchema },
    responses: { ...ok(TransactionsPageSchema), ...errors([400, 401, 403, 404]) },
  }),
  events: createRoute({
    method: 'get',
    path: '/admin/v1/events',
    operationId: 'streamEvents',
    description:
      'Server-sent events: `hello` (each participant\'s ledger end) on connect, then `transaction` (a TransactionSummary, as each participant publishes it), ' +
      '`request` (a RecordedRequest) and `world` (`{"change": "restored"|"reset"|"clock", "ledgerEnds": {...}}`).',
    responses: { 200: { description: 'an event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } }, ...errors([401, 403]) },
  }),
  transaction: createRoute({
    method: 'get',
    path: '/admin/v1/transactions/{updateId}',
    operationId: 'getTransaction',
    description: 'One transaction with all its events (created and exercised, with payloads, choices and results), in pre-order.',
    request: { params: UpdateIdParamSchema, query: ParticipantQuerySchema },
    responses: { ...ok(TransactionDetailSchema), ...errors([400, 401, 403, 404]) },
  }),
  contract: createRoute({
    method: 'get',
    path: '/admin/v1/contracts/{contractId}',
    operationId: 'getContract',
    description: 'One contract (active or archived): payload, signatories, observers, key, and the transactions that created and archived it.',
    request: { params: ContractIdParamSchema, query: ParticipantQuerySchema },
    responses: { ...ok(ContractSchema), ...errors([400, 401, 403, 404]) },
  }),
  requests: createRoute({
    method: 'get',
    path: '/admin/v1/requests',
    operationId: 'listRequests',
    description: 'The registry, scan and validator requests of the last minutes (method, path without query, status, time), newest first.',
    responses: { ...ok(RequestsSchema), ...errors([401, 403]) },
  }),
};

const SSE_KEEPALIVE_MS = 15_000;

export function createAdminApp(deps: AdminAppDeps): OpenAPIHono {
  const { service } = deps;
  const app = new OpenAPIHono({
    defaultHook: (result, c) => {
      if (!result.success) return c.json({ error: validationMessage(result.error) }, 400);
    },
  });

  app.use('*', jsonErrorBodyLimit(ADMIN_MAX_BODY_BYTES));
  let document: string | undefined;
  app.get('/admin/openapi.json', (c) => {
    document ??= JSON.stringify(adminOpenApiDocument(app));
    return c.body(document, 200, { 'content-type': 'application/json' });
  });
  app.use('/admin/v1/*', async (c, next) => {
    if (deps.authenticate) {
      let admin: boolean;
      try {
        admin = isAdmin(await deps.authenticate(c.req.header('authorization')));
      } catch (e) {
        return c.json({ error: `unauthenticated: ${e instanceof Error ? e.message : String(e)}` }, 401);
      }
      if (!admin) return c.json({ error: 'the admin API needs a user with ParticipantAdmin' }, 403);
    }
    await next();
  });

  app.openapi(routes.snapshot, (c) => c.json(service.snapshot(), 200));
  app.openapi(routes.restore, async (c) => c.json(await service.restore(c.req.valid('param').id), 200));
  app.openapi(routes.reset, async (c) => c.json(await service.reset(), 200));
  app.openapi(routes.clock, (c) => c.json(service.clock(), 200));
  app.openapi(routes.advance, (c) => c.json(service.advanceClock(c.req.valid('json').seconds), 200));
  app.openapi(routes.mint, (c) => c.json(service.mint(c.req.valid('json')), 200));
  app.openapi(routes.fund, (c) => c.json(service.fund(c.req.valid('json')), 200));
  app.openapi(routes.holdings, (c) => c.json(service.holdings(c.req.valid('query').party), 200));

  const { view, live, requests } = deps;
  if (view) {
    app.openapi(routes.parties, (c) => c.json(view.parties(), 200));
    app.openapi(routes.users, (c) => c.json(view.users(), 200));
    app.openapi(routes.instruments, (c) => c.json(view.instruments(), 200));
    app.openapi(routes.balances, (c) => c.json(view.balances(), 200));
    app.openapi(routes.transactions, (c) => c.json(view.transactions(c.req.valid('query')), 200));
    app.openapi(routes.transaction, (c) => c.json(view.transaction(c.req.valid('param').updateId, c.req.valid('query').participant), 200));
    app.openapi(routes.contract, (c) => c.json(view.contract(c.req.valid('param').contractId, c.req.valid('query').participant), 200));
  }
  if (live) app.openapi(routes.events, () => eventStream(live));
  if (requests) app.openapi(routes.requests, (c) => c.json({ requests: requests.recent() }, 200));
  deps.page?.(app);

  app.notFound((c) => c.json({ error: `no such admin endpoint: ${c.req.method} ${c.req.path}` }, 404));
  app.onError((err, c) => {
    if (err instanceof AdminError) return c.json({ error: err.message }, err.status);
    // The ledger unavailable for now (e.g. STATE_DIR cannot persist a change: a full disk): the
    // 503 with Retry-After every refused write gets (answerWhenDurable), not an unexpected error.
    if (err instanceof LedgerApiError && err.httpStatus === 503) return plainRefusal(err);
    // A body that is not JSON, or not sent as JSON (curl's `-d` says form data): bad input, 400.
    if (err instanceof HTTPException && err.status === 415) return c.json({ error: 'send the body as JSON, with content-type: application/json' }, 400);
    // Malformed JSON, a body too large: Hono's validator and body limit say so with a 4xx.
    if (err instanceof HTTPException && err.status < 500) return c.json({ error: err.message || 'bad request' }, err.status);
    deps.logger?.error({ err, path: c.req.path }, 'unexpected error in the admin API');
    return c.json({ error: 'An unexpected error occurred.' }, 500);
  });
  return app;
}

/** The live feed as server-sent events (the WHATWG HTML `text/event-stream` format). */
function eventStream(live: LiveEvents): Response {
  const encoder = new TextEncoder();
  let cleanup = () => {};
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let open = true;
      const write = (text: string) => {
        if (open) controller.enqueue(encoder.encode(text));
      };
      const event = (type: string, data: unknown) => write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
      const timer = setInterval(() => write(': keep-alive\n\n'), SSE_KEEPALIVE_MS);
      timer.unref();
      const unsubscribe = live.subscribe(
        (e) => event(e.type, e.data),
        () => {
          cleanup();
          controller.close();
        },
      );
      cleanup = () => {
        open = false;
        clearInterval(timer);
        unsubscribe();
      };
      event('hello', { ledgerEnds: live.ledgerEnds() });
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } });
}

export function adminOpenApiDocument(app: OpenAPIHono) {
  return app.getOpenAPIDocument({
    openapi: '3.0.3',
    info: {
      title: 'token-registry emulator: admin API',
      version: '1.0.0',
      description:
        'Sets up and resets the emulated Canton world between tests: snapshots and restores, ledger time, minting and funding ' +
        'with the seeded instruments, holdings. Served by `emulate` only.',
    },
  });
}
