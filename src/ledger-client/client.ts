/**
 * The registry's client of its ledger node's JSON Ledger API v2: a real Canton participant
 * (3.4.x or 3.5.x) in production, the emulator in tests. Read-only by design: there is no
 * submission method; the registry reads the instrument admin's contracts with the admin's rights.
 *
 * Wire facts it relies on (Canton `http/json/v2/`): offsets are JSON numbers (`JsSchema.scala`); identifiers
 * are `#<package-name>:<Module>:<Entity>` in filters and come back in package-id form (`IdentifierConverter`); the
 * list endpoints answer a JSON array capped by the node's `http-list-max-elements-limit` (200 by
 * default, 413 beyond it unless `limit` caps it, `JsonApiConfig.scala`); errors are JsCantonError JSON or tapir's
 * text/plain 400 (`Endpoints.scala`).
 *
 * Reading the whole ACS, by node version:
 * - 3.5.10+: `POST /v2/state/active-contracts-page`, following `nextPageToken` at a pinned
 *   `activeAtOffset`.
 * - older nodes answer that path with a plain 404/405 (unknown path / GET-only before 3.5.10);
 *   the client then uses the list form `POST /v2/state/active-contracts?limit=N`:
 *   - 3.5.0-3.5.9 put a `streamContinuationToken` on each element: the client pages with it;
 *   - 3.4 has no continuation token, so the list form cannot page. The client then asks for the
 *     whole set in one list; if it holds more contracts than the node's list limit, the node
 *     answers 413 and the client throws that `LedgerError` (code
 *     `JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED`). LIMITATION: on 3.4 the matching ACS must
 *     fit in `http-list-max-elements-limit`; raise it on the node, narrow the filter (templates,
 *     interfaces), or upgrade to 3.5.10+.
 * The choice is remembered per client after the first ACS read.
 *
 * Retries: idempotent requests (GETs, and every read this class makes, POSTs included) are retried
 * on `LedgerUnavailableError` and on retryable `LedgerError`s (categories 1 and 2), with a short
 * exponential backoff, at most `retry.maxAttempts` tries. A 401 makes the client drop the cached
 * token (`TokenProvider.invalidate`) and try once more with a fresh one.
 */
import type { Logger } from 'pino';
import { outgoingHeadersOf, type RequestContext } from '../http/request-context.js';
import type { z } from 'zod';
import type { TokenProvider } from './auth.js';
import { TokenProviderError } from './auth.js';
import { LIST_LIMIT_CODE, LedgerError, LedgerUnavailableError, errorFromResponse, hasCode, isRetryable } from './errors.js';
import type { EventFormat, Filters, IdentifierFilter, UpdateFormat } from './schemas/common.js';
import {
  GetConnectedSynchronizersResponseSchema,
  GetContractResponseSchema,
  GetLedgerApiVersionResponseSchema,
  GetLedgerEndResponseSchema,
  JsGetActiveContractsListResponseSchema,
  JsGetActiveContractsPageResponseSchema,
  JsGetEventsByContractIdResponseSchema,
  JsGetUpdatesListResponseSchema,
  type ConnectedSynchronizer,
  type CreatedEvent,
  type GetLedgerApiVersionResponse,
  type JsActiveContract,
  type JsArchived,
  type JsCreated,
  type JsGetActiveContractsResponse,
  type JsGetUpdatesResponse,
  type JsIncompleteAssigned,
  type JsIncompleteUnassigned,
} from './schemas/events.js';
import { GetParticipantIdResponseSchema } from './schemas/parties.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';

export interface RetryOptions {
  /** Tries per idempotent request, the first included (default 3; 1 disables retries). */
  maxAttempts?: number;
  /** Delay before the first retry (default 100 ms); doubles each time, with jitter. */
  baseDelayMs?: number;
  /** Cap of one delay (default 1000 ms). */
  maxDelayMs?: number;
}

export interface LedgerClientOptions {
  /** Base URL of the JSON API, with the node's `path-prefix` if any, e.g. `http://participant:7575`. */
  baseUrl: string;
  tokenProvider: TokenProvider;
  /** Injected for tests (e.g. the emulator's `app.request`); the global fetch by default. */
  fetch?: typeof fetch;
  /** Timeout of one attempt, in ms (default 10 000). Open-ended update lists get their idle time on top. */
  timeoutMs?: number;
  logger?: Logger;
  retry?: RetryOptions;
  /**
   * `limit` of list-form requests (default 200, Canton's default `http-list-max-elements-limit`).
   * Halved automatically when the node answers 413 because its limit is lower.
   */
  listPageSize?: number;
  /** `maxPageSize` of `active-contracts-page` requests (default 1000). */
  acsPageSize?: number;
  /**
   * Headers that carry the caller's request context (`x-request-id`, `traceparent`) to the node,
   * read on every attempt; see http/request-context.ts.
   */
  contextHeaders?: () => Record<string, string>;
  /** Observes every attempt (metrics). */
  onCall?: (call: LedgerCall) => void;
}

/** One attempt of a call, as reported to `onCall`. */
export interface LedgerCall {
  method: string;
  /** The endpoint path without query string (`/v2/updates`): never carries an id. */
  path: string;
  /** The HTTP status, or `network` / `timeout` / `auth` when no answer came. */
  outcome: string;
  seconds: number;
}

/** Which parties' view to read, and which contracts. */
export interface ContractFilter {
  /** Read as these parties (each needs CanReadAs/CanActAs for the token's user). */
  parties?: readonly string[];
  /** Read as any party hosted on the node (needs CanReadAsAnyParty). */
  anyParty?: boolean;
  /** `#<package-name>:<Module>:<Entity>` (preferred) or `<package-id>:<Module>:<Entity>`. */
  templateIds?: readonly string[];
  interfaceIds?: readonly string[];
  /** Fill `createdEventBlob` (needed for disclosed contracts). Default false. */
  includeCreatedEventBlob?: boolean;
  /** Compute interface views for `interfaceIds`. Default false. */
  includeInterfaceView?: boolean;
}

export interface CallOptions {
  /** Aborts the call (and its retries); the abort reason is thrown as is. */
  signal?: AbortSignal;
  /**
   * The request this call is made for: its id and trace context are sent to the node (instead of
   * what `contextHeaders` reads), so a registry answer can be followed into the node's logs.
   */
  context?: RequestContext;
}

export interface ActiveContractsQuery extends ContractFilter, CallOptions {
  /** Snapshot offset; the ledger end when absent. */
  activeAtOffset?: number;
}

export interface ActiveContractSet {
  /** The offset the snapshot is taken at: tail updates from here. */
  activeAtOffset: number;
  /** Active contracts with the synchronizer each is assigned to. */
  contracts: JsActiveContract[];
  /** Contracts whose reassignment was in flight at the offset (multi-synchronizer nodes only). */
  incompleteAssigned: JsIncompleteAssigned[];
  incompleteUnassigned: JsIncompleteUnassigned[];
}

export type TransactionShape = 'ACS_DELTA' | 'LEDGER_EFFECTS';

export interface UpdatesQuery extends ContractFilter, CallOptions {
  beginExclusive: number;
  /** Absent: open-ended; the node returns what arrives until `idleTimeoutMs` passes without news. */
  endInclusive?: number;
  /** Default `ACS_DELTA` (creates and archives). */
  shape?: TransactionShape;
  /** Most elements to return (default `listPageSize`). Continue from the last element's offset. */
  limit?: number;
  /** `stream_idle_timeout_ms`; the node's `http-list-wait-time` (500 ms) when absent. */
  idleTimeoutMs?: number;
  /** Also return reassignments (un/assign events) for the same filter. Default true. */
  includeReassignments?: boolean;
}

export interface EventsByContractIdOptions extends CallOptions {
  /** Fill `createdEventBlob`. Default false. */
  includeBlob?: boolean;
  /** Also compute these interface views (the contract is found whatever its template). */
  interfaceIds?: readonly string[];
}

export interface ContractEvents {
  created: JsCreated | undefined;
  archived: JsArchived | undefined;
}

export interface RequestOptions<T = unknown> extends CallOptions {
  query?: Record<string, string | number | boolean | undefined>;
  /** Validates and types the 2xx body (unknown fields dropped). Without it the parsed JSON is returned. */
  schema?: z.ZodType<T>;
  /** Retry on transient failures. Default: true for GET/HEAD, false otherwise. */
  idempotent?: boolean;
  /** Overrides the client's per-attempt timeout. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;
/** Canton's `http-list-wait-time` default: open-ended lists return after this much idleness. */
const NODE_DEFAULT_IDLE_MS = 500;

/** How this node serves the ACS, learned on the first read. */
export type AcsPaging = 'unknown' | 'page' | 'list-token' | 'list-whole';

export class LedgerClient {
  private readonly baseUrl: string;
  private readonly tokenProvider: TokenProvider;
  private readonly doFetch: typeof fetch;
  private readonly timeoutMs: number;
  private readonly logger: Logger | undefined;
  private readonly maxAttempts: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private listPageSize: number;
  private readonly acsPageSize: number;
  private acs: AcsPaging = 'unknown';
  private readonly contextHeaders: (() => Record<string, string>) | undefined;
  private readonly onCall: ((call: LedgerCall) => void) | undefined;

  constructor(opts: LedgerClientOptions) {
    let url: URL;
    try {
      url = new URL(opts.baseUrl);
    } catch {
      throw new Error(`LedgerClient: baseUrl is not a URL: ${opts.baseUrl}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`LedgerClient: baseUrl must be http(s): ${opts.baseUrl}`);
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.tokenProvider = opts.tokenProvider;
    this.doFetch = opts.fetch ?? fetch;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.logger = opts.logger;
    this.maxAttempts = Math.max(1, Math.floor(opts.retry?.maxAttempts ?? 3));
    this.baseDelayMs = Math.max(0, opts.retry?.baseDelayMs ?? 100);
    this.maxDelayMs = Math.max(this.baseDelayMs, opts.retry?.maxDelayMs ?? 1000);
    this.listPageSize = Math.max(1, Math.floor(opts.listPageSize ?? 200));
    this.acsPageSize = Math.max(1, Math.floor(opts.acsPageSize ?? 1000));
    this.contextHeaders = opts.contextHeaders;
    this.onCall = opts.onCall;
  }

  /** How the ACS is read from this node: `page` (3.5.10+), `list-token` (3.5.0-3.5.9), `list-whole` (3.4), or not yet known. */
  get acsPaging(): AcsPaging {
    return this.acs;
  }

  // ---- system and state ----------------------------------------------------------------------

  /** `GET /v2/version`: e.g. `{version: "3.4.11", features: {...}}`. */
  version(opts: CallOptions = {}): Promise<GetLedgerApiVersionResponse> {
    return this.request('GET', '/v2/version', undefined, { ...opts, schema: GetLedgerApiVersionResponseSchema });
  }

  /** `GET /v2/state/ledger-end`: the offset of the last update (0 on an empty ledger). */
  async ledgerEnd(opts: CallOptions = {}): Promise<number> {
    return (await this.request('GET', '/v2/state/ledger-end', undefined, { ...opts, schema: GetLedgerEndResponseSchema })).offset;
  }

  /**
   * `GET /v2/parties/participant-id`: the node's identity (`name::namespace`). A node rebuilt from
   * scratch usually gets a new one, which is how the registry tells a reset node from a restart.
   */
  async participantId(opts: CallOptions = {}): Promise<string> {
    return (await this.request('GET', '/v2/parties/participant-id', undefined, { ...opts, schema: GetParticipantIdResponseSchema })).participantId;
  }

  /** `GET /v2/state/connected-synchronizers[?party=]`. With a party: only its synchronizers, with its permission. */
  async connectedSynchronizers(party?: string, opts: CallOptions = {}): Promise<ConnectedSynchronizer[]> {
    const res = await this.request('GET', '/v2/state/connected-synchronizers', undefined, {
      ...opts,
      query: { party },
      schema: GetConnectedSynchronizersResponseSchema,
    });
    return res.connectedSynchronizers;
  }

  // ---- active contracts ----------------------------------------------------------------------

  /** Every active contract matching the filter at one offset (all pages). */
  async activeContracts(q: ActiveContractsQuery): Promise<ActiveContractSet> {
    const eventFormat = buildEventFormat(q);
    if (this.acs === 'unknown' || this.acs === 'page') {
      try {
        const set = await this.acsByPages(eventFormat, q);
        this.acs = 'page';
        return set;
      } catch (e) {
        if (this.acs === 'page' || !isMissingEndpoint(e)) throw e;
        this.logger?.info(
          { status: (e as LedgerError).status },
          'ledger node has no POST /v2/state/active-contracts-page (Canton < 3.5.10): reading the ACS through the list form',
        );
        this.acs = 'list-token';
      }
    }
    return this.acsByList(eventFormat, q);
  }

  private async acsByPages(eventFormat: EventFormat, q: ActiveContractsQuery): Promise<ActiveContractSet> {
    const out = emptySet(0);
    let activeAtOffset = q.activeAtOffset;
    let pageToken: string | undefined;
    for (;;) {
      const page = await this.request(
        'POST',
        '/v2/state/active-contracts-page',
        { activeAtOffset, eventFormat, maxPageSize: this.acsPageSize, ...(pageToken ? { pageToken } : {}) },
        { schema: JsGetActiveContractsPageResponseSchema, idempotent: true, signal: q.signal, context: q.context },
      );
      // Later pages must name the same snapshot as the first (the token is bound to it).
      activeAtOffset = page.activeAtOffset;
      out.activeAtOffset = page.activeAtOffset;
      addEntries(out, page.activeContracts);
      const next = page.nextPageToken || undefined;
      if (next === undefined) return out;
      if (next === pageToken) throw invalidResponse('POST', '/v2/state/active-contracts-page', 'the node returned the same page token twice');
      pageToken = next;
    }
  }

  private async acsByList(eventFormat: EventFormat, q: ActiveContractsQuery): Promise<ActiveContractSet> {
    // The list form requires an offset; 0 would mean the empty snapshot.
    const activeAtOffset = q.activeAtOffset ?? (await this.ledgerEnd(q));
    const out = emptySet(activeAtOffset);
    if (activeAtOffset === 0) return out;
    const path = '/v2/state/active-contracts';
    const ask = (limit: number | undefined, token: string | undefined) =>
      this.request(
        'POST',
        path,
        { eventFormat, activeAtOffset, ...(token ? { streamContinuationToken: token } : {}) },
        { schema: JsGetActiveContractsListResponseSchema, idempotent: true, signal: q.signal, context: q.context, query: { limit } },
      );

    if (this.acs === 'list-token') {
      let token: string | undefined;
      let first = true;
      for (;;) {
        const { result: page, limit } = await this.shrinkOn413(this.listPageSize, (l) => ask(l, token));
        addEntries(out, page);
        if (page.length < limit) return out;
        const next = page[page.length - 1]!.streamContinuationToken || undefined;
        if (next === undefined) {
          if (!first) throw invalidResponse('POST', path, 'the node stopped sending stream continuation tokens');
          // 3.4: no continuation tokens, so the list cannot be paged; ask for the whole set.
          this.logger?.info('ledger node sends no ACS stream continuation tokens (Canton 3.4): reading the ACS in one list');
          this.acs = 'list-whole';
          break;
        }
        if (next === token) throw invalidResponse('POST', path, 'the node returned the same continuation token twice');
        token = next;
        first = false;
      }
    }

    const whole = emptySet(activeAtOffset);
    try {
      addEntries(whole, await ask(undefined, undefined));
    } catch (e) {
      if (hasCode(e, LIST_LIMIT_CODE)) {
        throw new LedgerError({
          status: e.status,
          code: e.code,
          cause:
            `${e.cause} This node cannot page the active contract set (no active-contracts-page endpoint and no ` +
            'stream continuation tokens: Canton 3.4), so the matching contracts must fit in one list: raise the ' +
            "node's http-list-max-elements-limit, narrow the filter, or upgrade the node to Canton 3.5.10 or later.",
          category: e.category,
          grpcCode: e.grpcCode,
          correlationId: e.correlationId,
          traceId: e.traceId,
          context: e.context,
          resources: e.resources,
          retryInfo: e.retryInfo,
          definiteAnswer: e.definiteAnswer,
          method: e.method,
          path: e.path,
        });
      }
      throw e;
    }
    return whole;
  }

  /**
   * Runs a list request with `limit`; on the list-limit 413 (the node's limit is below it), halves
   * the limit and tries again. A smaller size is kept as the client's list page size.
   */
  private async shrinkOn413<T>(initialLimit: number, run: (limit: number) => Promise<T>): Promise<{ result: T; limit: number }> {
    let limit = initialLimit;
    for (;;) {
      try {
        return { result: await run(limit), limit };
      } catch (e) {
        if (!hasCode(e, LIST_LIMIT_CODE) || limit <= 1) throw e;
        limit = Math.max(1, Math.floor(limit / 2));
        if (limit < this.listPageSize) this.listPageSize = limit;
        this.logger?.info({ limit }, 'ledger node list limit is below the requested limit: halving it');
      }
    }
  }

  // ---- updates -------------------------------------------------------------------------------

  /**
   * One list of updates after `beginExclusive` (`POST /v2/updates`, updateFormat form): at most
   * `limit` elements. To read a range, call again from the last element's offset
   * (`offsetOfUpdate`) until fewer than `limit` come back.
   */
  async updates(q: UpdatesQuery): Promise<JsGetUpdatesResponse[]> {
    const updateFormat = buildUpdateFormat(q);
    const body: Record<string, unknown> = { beginExclusive: q.beginExclusive, updateFormat };
    if (q.endInclusive !== undefined) body.endInclusive = q.endInclusive;
    const idle = q.endInclusive === undefined ? (q.idleTimeoutMs ?? NODE_DEFAULT_IDLE_MS) : 0;
    const { result } = await this.shrinkOn413(q.limit ?? this.listPageSize, (limit) =>
      this.request('POST', '/v2/updates', body, {
        schema: JsGetUpdatesListResponseSchema,
        idempotent: true,
        signal: q.signal,
        context: q.context,
        query: { limit, stream_idle_timeout_ms: q.idleTimeoutMs },
        timeoutMs: this.timeoutMs + idle,
      }),
    );
    return result;
  }

  // ---- point lookups -------------------------------------------------------------------------

  /**
   * `POST /v2/events/events-by-contract-id` (3.4+ form, with an eventFormat): the create (and the
   * archive, if archived) of a contract as `parties` see it (`[]`: any party). Undefined when the
   * node does not know the contract or the parties cannot see it (`CONTRACT_EVENTS_NOT_FOUND`).
   */
  async eventsByContractId(contractId: string, parties: readonly string[], opts: EventsByContractIdOptions = {}): Promise<ContractEvents | undefined> {
    const blob = opts.includeBlob ?? false;
    const filters: Filters = {
      cumulative: [
        // The wildcard finds the contract whatever its template; interface filters add views.
        { identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: blob } } } },
        ...(opts.interfaceIds ?? []).map((interfaceId) => ({
          identifierFilter: { InterfaceFilter: { value: { interfaceId, includeInterfaceView: true, includeCreatedEventBlob: blob } } },
        })),
      ],
    };
    const eventFormat: EventFormat =
      parties.length > 0
        ? { filtersByParty: Object.fromEntries(parties.map((p) => [p, filters])), verbose: false }
        : { filtersByParty: {}, filtersForAnyParty: filters, verbose: false };
    try {
      const res = await this.request(
        'POST',
        '/v2/events/events-by-contract-id',
        { contractId, eventFormat },
        { schema: JsGetEventsByContractIdResponseSchema, idempotent: true, signal: opts.signal, context: opts.context },
      );
      return { created: res.created, archived: res.archived };
    } catch (e) {
      if (hasCode(e, 'CONTRACT_EVENTS_NOT_FOUND')) return undefined;
      throw e;
    }
  }

  /**
   * `POST /v2/contracts/contract-by-id` (Canton 3.4+): the contract's create event as
   * `queryingParties` see it (`[]`: any party, needs CanReadAsAnyParty). Carries no synchronizer
   * id and no blob: use `eventsByContractId` for disclosure. Undefined when not found or not visible.
   */
  async contractById(contractId: string, queryingParties: readonly string[], opts: CallOptions = {}): Promise<CreatedEvent | undefined> {
    try {
      const res = await this.request(
        'POST',
        '/v2/contracts/contract-by-id',
        { contractId, queryingParties },
        { schema: GetContractResponseSchema, idempotent: true, signal: opts.signal, context: opts.context },
      );
      return res.createdEvent;
    } catch (e) {
      if (hasCode(e, 'CONTRACT_PAYLOAD_NOT_FOUND', 'CONTRACT_NOT_FOUND')) return undefined;
      throw e;
    }
  }

  // ---- the generic request -------------------------------------------------------------------

  /**
   * One JSON request to the node, with auth, timeout, error parsing and (when idempotent) retries.
   * Returns the parsed JSON body (validated by `schema` if given), the text for non-JSON bodies,
   * or undefined for an empty body.
   */
  async request<T = unknown>(method: HttpMethod, path: string, body?: unknown, opts: RequestOptions<T> = {}): Promise<T> {
    const idempotent = opts.idempotent ?? (method === 'GET' || method === 'HEAD');
    const attempts = idempotent ? this.maxAttempts : 1;
    let reauthorized = false;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.once(method, path, body, opts);
      } catch (e) {
        if (opts.signal?.aborted) throw e;
        // A 401 may be a revoked or rotated token: one more try with a fresh token. The node
        // rejected the request before running it, so this is safe for any method.
        if (e instanceof LedgerError && e.status === 401 && !reauthorized && this.tokenProvider.invalidate) {
          reauthorized = true;
          this.tokenProvider.invalidate();
          attempt--;
          continue;
        }
        if (attempt >= attempts || !isRetryable(e)) throw e;
        const delay = this.backoff(attempt);
        this.logger?.warn(
          { method, path, attempt, delayMs: Math.round(delay), error: e instanceof LedgerError ? e.code : (e as Error).message },
          'ledger request failed, retrying',
        );
        await sleep(delay, opts.signal);
      }
    }
  }

  private backoff(attempt: number): number {
    const exp = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (attempt - 1));
    return exp / 2 + (Math.random() * exp) / 2;
  }

  private async once<T>(method: HttpMethod, path: string, body: unknown, opts: RequestOptions<T>): Promise<T> {
    const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
    const where = { method, path };
    let token: string | undefined;
    try {
      token = await this.tokenProvider.token();
    } catch (e) {
      this.onCall?.({ method, path: endpointOf(path), outcome: 'auth', seconds: 0 });
      throw new LedgerUnavailableError({
        reason: 'auth',
        message: `could not obtain a ledger access token: ${(e as Error).message}`,
        retryable: e instanceof TokenProviderError ? e.transient : false,
        error: e,
        ...where,
      });
    }
    const headers: Record<string, string> = { Accept: 'application/json', ...(opts.context ? outgoingHeadersOf(opts.context) : this.contextHeaders?.()) };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';

    const url = this.url(path, opts.query);
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
    const started = performance.now();
    let res: Response;
    let text: string;
    try {
      res = await this.doFetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal });
      text = await res.text();
    } catch (e) {
      this.onCall?.({ method, path: endpointOf(path), outcome: timeout.aborted ? 'timeout' : opts.signal?.aborted ? 'aborted' : 'network', seconds: (performance.now() - started) / 1000 });
      if (opts.signal?.aborted) throw opts.signal.reason ?? e;
      if (timeout.aborted) {
        throw new LedgerUnavailableError({ reason: 'timeout', message: `ledger did not answer ${method} ${path} within ${timeoutMs} ms`, error: e, ...where });
      }
      const detail = e instanceof Error ? ((e.cause as Error | undefined)?.message ?? e.message) : String(e);
      throw new LedgerUnavailableError({ reason: 'network', message: `ledger unreachable for ${method} ${path}: ${detail}`, error: e, ...where });
    }
    this.logger?.debug({ method, path, status: res.status, ms: Math.round(performance.now() - started) }, 'ledger request');
    this.onCall?.({ method, path: endpointOf(path), outcome: String(res.status), seconds: (performance.now() - started) / 1000 });

    if (!res.ok) {
      throw errorFromResponse({
        status: res.status,
        contentType: res.headers.get('content-type'),
        bodyText: text,
        retryAfter: res.headers.get('retry-after'),
        ...where,
      });
    }
    let data: unknown;
    if (text === '') data = undefined;
    else if (/json/i.test(res.headers.get('content-type') ?? 'application/json')) {
      try {
        data = JSON.parse(text);
      } catch {
        throw invalidResponse(method, path, 'the body is not JSON', res.status);
      }
    } else data = text;
    if (!opts.schema) return data as T;
    const parsed = opts.schema.safeParse(data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const at = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
      throw invalidResponse(method, path, `unexpected response shape${at}: ${issue?.message ?? 'invalid'}`, res.status);
    }
    return parsed.data;
  }

  private url(path: string, query: RequestOptions['query']): string {
    const p = path.startsWith('/') ? path : `/${path}`;
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) params.set(k, String(v));
    const qs = params.toString();
    return `${this.baseUrl}${p}${qs ? `${p.includes('?') ? '&' : '?'}${qs}` : ''}`;
  }
}

// ---- helpers -------------------------------------------------------------------------------------

function endpointOf(path: string): string {
  const q = path.indexOf('?');
  const p = q < 0 ? path : path.slice(0, q);
  return p.startsWith('/') ? p : `/${p}`;
}

/**
 * The EventFormat for a filter: one `cumulative` list per party (and/or for any party) with a
 * TemplateFilter per template, an InterfaceFilter per interface, or a WildcardFilter when neither
 * is given (openapi.yaml `EventFormat`, `Filters`).
 */
export function buildEventFormat(f: ContractFilter): EventFormat {
  const parties = f.parties ?? [];
  if (parties.length === 0 && !f.anyParty) throw new TypeError('a ledger query needs parties or anyParty');
  const blob = f.includeCreatedEventBlob ?? false;
  const cumulative: Array<{ identifierFilter: IdentifierFilter }> = [];
  for (const templateId of f.templateIds ?? []) {
    cumulative.push({ identifierFilter: { TemplateFilter: { value: { templateId, includeCreatedEventBlob: blob } } } });
  }
  for (const interfaceId of f.interfaceIds ?? []) {
    cumulative.push({
      identifierFilter: {
        InterfaceFilter: { value: { interfaceId, includeInterfaceView: f.includeInterfaceView ?? false, includeCreatedEventBlob: blob } },
      },
    });
  }
  if (cumulative.length === 0) cumulative.push({ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: blob } } } });
  const filters: Filters = { cumulative };
  const format: EventFormat = { filtersByParty: Object.fromEntries(parties.map((p) => [p, filters])), verbose: false };
  if (f.anyParty) format.filtersForAnyParty = filters;
  return format;
}

/** The UpdateFormat of an update query (transactions of `shape`, and reassignments unless excluded). */
export function buildUpdateFormat(q: ContractFilter & { shape?: TransactionShape; includeReassignments?: boolean }): UpdateFormat {
  const eventFormat = buildEventFormat(q);
  const updateFormat: UpdateFormat = {
    includeTransactions: { eventFormat, transactionShape: `TRANSACTION_SHAPE_${q.shape ?? 'ACS_DELTA'}` },
  };
  if (q.includeReassignments ?? true) updateFormat.includeReassignments = eventFormat;
  return updateFormat;
}

/** An unknown path (404) or a path without POST (405) answered by the server, not by Canton. */
function isMissingEndpoint(e: unknown): e is LedgerError {
  return e instanceof LedgerError && (e.code === 'HTTP_404' || e.code === 'HTTP_405');
}

function invalidResponse(method: string, path: string, cause: string, status = 200): LedgerError {
  return new LedgerError({ status, code: 'INVALID_RESPONSE', cause, category: -1, method, path });
}

function emptySet(activeAtOffset: number): ActiveContractSet {
  return { activeAtOffset, contracts: [], incompleteAssigned: [], incompleteUnassigned: [] };
}

function addEntries(set: ActiveContractSet, items: readonly JsGetActiveContractsResponse[]): void {
  for (const { contractEntry: e } of items) {
    if ('JsActiveContract' in e) set.contracts.push(e.JsActiveContract);
    else if ('JsIncompleteAssigned' in e) set.incompleteAssigned.push(e.JsIncompleteAssigned);
    else if ('JsIncompleteUnassigned' in e) set.incompleteUnassigned.push(e.JsIncompleteUnassigned);
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
