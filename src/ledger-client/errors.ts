/**
 * What can go wrong when the registry reads its ledger node, as two error classes:
 *
 * - `LedgerError`: the node answered, and said no. Parsed from a `JsCantonError` body
 *   (Canton `JsSchema.scala`), from tapir's text/plain 400 (code `BAD_REQUEST`), or from
 *   any other non-2xx body (code `HTTP_<status>`, e.g. Pekko's plain-text 404 for an unknown path).
 *   Callers decide on `code`, `category` and `grpcCode`, never on the message text.
 * - `LedgerUnavailableError`: the node could not be asked or did not answer in time: network
 *   failure, timeout, a 502/503/504 from the node or a proxy in front of it, or no access token
 *   could be obtained. The registry maps it to 503 with `Retry-After`.
 *
 * `retryable` follows Canton's categories (`ErrorCategory.scala`): 1 (TransientServerFailure) and 2
 * (ContentionOnSharedResources) may succeed when retried; for redacted and legacy errors
 * (category -1) the gRPC code says the same (UNAVAILABLE, ABORTED). The list-limit error
 * `JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED` is category 2 but retrying it gives the same 413.
 */
import { JsCantonErrorSchema, type JsCantonError } from './schemas/events.js';

/** The list endpoints' 413 (Canton `Endpoints.asList`); the client pages around it. */
export const LIST_LIMIT_CODE = 'JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED';

/** Categories whose errors may succeed on retry (ErrorCategory.scala: TransientServerFailure, Contention). */
const RETRYABLE_CATEGORIES: ReadonlySet<number> = new Set([1, 2]);
/** gRPC UNAVAILABLE (14) and ABORTED (10): the retryable categories' codes, for category -1 bodies. */
const RETRYABLE_GRPC: ReadonlySet<number> = new Set([14, 10]);
/** Statuses that mean "the node (or its proxy) is not there right now". */
const UNAVAILABLE_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

export interface LedgerErrorInit {
  status: number;
  code: string;
  cause: string;
  /** Canton error category (1-14), or -1 when the body had none (redacted, legacy, non-Canton). */
  category: number;
  grpcCode?: number;
  correlationId?: string;
  traceId?: string;
  context?: Record<string, unknown>;
  resources?: Array<[string, string]>;
  retryInfo?: string;
  definiteAnswer?: boolean;
  method?: string;
  path?: string;
}

/** The ledger node answered with an error. */
export class LedgerError extends Error {
  override readonly name = 'LedgerError';
  /** HTTP status of the answer. */
  readonly status: number;
  /** Canton error code id (e.g. `CONTRACT_EVENTS_NOT_FOUND`), `NA` when redacted, `BAD_REQUEST`, or `HTTP_<status>`. */
  readonly code: string;
  /** Canton's cause text (or the plain-text body). For humans and logs only. */
  override readonly cause: string;
  readonly category: number;
  readonly grpcCode: number | undefined;
  readonly retryable: boolean;
  readonly correlationId: string | undefined;
  readonly traceId: string | undefined;
  readonly context: Record<string, unknown>;
  readonly resources: Array<[string, string]>;
  readonly retryInfo: string | undefined;
  readonly definiteAnswer: boolean | undefined;
  /** The request that failed (never its body or headers). */
  readonly method: string | undefined;
  readonly path: string | undefined;

  constructor(init: LedgerErrorInit) {
    const where = init.method && init.path ? ` (${init.method} ${init.path})` : '';
    super(`ledger answered ${init.status} ${init.code}: ${init.cause}${where}`);
    this.status = init.status;
    this.code = init.code;
    this.cause = init.cause;
    this.category = init.category;
    this.grpcCode = init.grpcCode;
    this.correlationId = init.correlationId;
    this.traceId = init.traceId;
    this.context = init.context ?? {};
    this.resources = init.resources ?? [];
    this.retryInfo = init.retryInfo;
    this.definiteAnswer = init.definiteAnswer;
    this.method = init.method;
    this.path = init.path;
    this.retryable = isRetryableCantonError(init.code, init.category, init.grpcCode, init.status);
  }
}

function isRetryableCantonError(code: string, category: number, grpcCode: number | undefined, status: number): boolean {
  if (code === LIST_LIMIT_CODE) return false;
  if (RETRYABLE_CATEGORIES.has(category)) return true;
  if (category === -1 && grpcCode !== undefined && RETRYABLE_GRPC.has(grpcCode)) return true;
  return status === 429; // RESOURCE_EXHAUSTED (backpressure)
}

export type UnavailableReason = 'network' | 'timeout' | 'status' | 'auth';

export interface LedgerUnavailableInit {
  reason: UnavailableReason;
  message: string;
  status?: number;
  /** Seconds a caller should wait before retrying (the registry's `Retry-After`). */
  retryAfterSeconds?: number;
  /** The parsed body when the node itself answered 503 with a JsCantonError. */
  ledgerError?: LedgerError;
  method?: string;
  path?: string;
  /** The underlying failure (network error, abort reason, token provider error). */
  error?: unknown;
  /** Default true; false for a token provider failure that retrying cannot fix (bad client secret). */
  retryable?: boolean;
}

/** The ledger node could not be reached, did not answer in time, or answered 502/503/504. */
export class LedgerUnavailableError extends Error {
  override readonly name = 'LedgerUnavailableError';
  readonly reason: UnavailableReason;
  readonly status: number | undefined;
  readonly retryAfterSeconds: number;
  readonly ledgerError: LedgerError | undefined;
  readonly method: string | undefined;
  readonly path: string | undefined;
  readonly retryable: boolean;

  constructor(init: LedgerUnavailableInit) {
    super(init.message, init.error === undefined ? undefined : { cause: init.error });
    this.retryable = init.retryable ?? true;
    this.reason = init.reason;
    this.status = init.status;
    this.retryAfterSeconds = init.retryAfterSeconds ?? 1;
    this.ledgerError = init.ledgerError;
    this.method = init.method;
    this.path = init.path;
  }
}

/** True for errors the client's retry policy retries (on idempotent requests). */
export function isRetryable(err: unknown): boolean {
  if (err instanceof LedgerUnavailableError) return err.retryable;
  if (err instanceof LedgerError) return err.retryable;
  return false;
}

/** True when `err` is a LedgerError with one of the given codes. */
export function hasCode(err: unknown, ...codes: string[]): err is LedgerError {
  return err instanceof LedgerError && codes.includes(err.code);
}

/** Reads a JsCantonError from a parsed JSON body, or undefined if it is not one. */
export function parseJsCantonError(body: unknown): JsCantonError | undefined {
  // Same test as the official client's `isJsCantonError`: code, cause and errorCategory present.
  if (typeof body !== 'object' || body === null || !('code' in body) || !('errorCategory' in body)) return undefined;
  const parsed = JsCantonErrorSchema.safeParse(body);
  return parsed.success ? parsed.data : undefined;
}

/** `retryInfo` is a Scala duration ("1 second", "500 milliseconds"); whole seconds, at least 1. */
function retryInfoSeconds(retryInfo: string | undefined): number | undefined {
  const m = retryInfo && /^\s*(\d+(?:\.\d+)?)\s*([a-z]+)\s*$/i.exec(retryInfo);
  if (!m) return undefined;
  const unit = m[2]!.toLowerCase();
  const scale = /^(ms|millis?|milliseconds?)$/.test(unit) ? 0.001 : /^(s|seconds?)$/.test(unit) ? 1 : /^(min|minutes?)$/.test(unit) ? 60 : undefined;
  return scale === undefined ? undefined : Math.max(1, Math.ceil(Number(m[1]) * scale));
}

/** `Retry-After` in seconds (delta form only; an HTTP date is ignored). */
function retryAfterHeader(value: string | null | undefined): number | undefined {
  if (!value || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Math.max(1, Number(value));
}

export interface ErrorResponse {
  status: number;
  contentType: string | null;
  bodyText: string;
  retryAfter?: string | null;
  method?: string;
  path?: string;
}

/**
 * Turns a non-2xx answer into the error it stands for: `LedgerUnavailableError` for 502/503/504,
 * `LedgerError` otherwise.
 */
export function errorFromResponse(r: ErrorResponse): LedgerError | LedgerUnavailableError {
  const where = { method: r.method, path: r.path };
  let json: unknown;
  try {
    json = r.bodyText === '' ? undefined : JSON.parse(r.bodyText);
  } catch {
    json = undefined;
  }
  const canton = parseJsCantonError(json);
  let err: LedgerError;
  if (canton) {
    err = new LedgerError({
      status: r.status,
      code: canton.code,
      cause: canton.cause,
      category: canton.errorCategory,
      grpcCode: canton.grpcCodeValue,
      correlationId: canton.correlationId,
      traceId: canton.traceId,
      context: canton.context,
      resources: canton.resources,
      retryInfo: canton.retryInfo,
      definiteAnswer: canton.definiteAnswer,
      ...where,
    });
  } else {
    // tapir's decode failures are text/plain 400s (`DefaultDecodeFailureHandler`); anything else
    // non-Canton (Pekko's 404/405, a proxy's HTML page) keeps its status as the code.
    const text = r.bodyText.length > 500 ? `${r.bodyText.slice(0, 500)}...` : r.bodyText;
    err = new LedgerError({
      status: r.status,
      code: r.status === 400 ? 'BAD_REQUEST' : `HTTP_${r.status}`,
      cause: text.trim(),
      category: -1,
      ...where,
    });
  }
  if (UNAVAILABLE_STATUSES.has(r.status)) {
    return new LedgerUnavailableError({
      reason: 'status',
      status: r.status,
      message: `ledger unavailable: ${r.method ?? ''} ${r.path ?? ''} answered ${r.status}${canton ? ` ${canton.code}` : ''}`.replace(/\s+/g, ' '),
      retryAfterSeconds: retryAfterHeader(r.retryAfter) ?? retryInfoSeconds(err.retryInfo),
      ledgerError: canton ? err : undefined,
      ...where,
    });
  }
  return err;
}
