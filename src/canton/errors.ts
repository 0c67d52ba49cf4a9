/**
 * Canton's error model as the JSON Ledger API puts it on the wire (digital-asset/canton `ErrorCategory.scala`, `JsSchema.scala`).
 *
 * Every failure the emulator reports is a `LedgerApiError` carrying a Canton error code id; the
 * category (and through it the gRPC code, HTTP status, retry info and redaction) is looked up in
 * one table, so a code can never be emitted with the wrong status.
 *
 * Malformed request bodies are different: Canton's tapir layer rejects them before any Canton
 * logic with a text/plain 400 (tapir's `DefaultDecodeFailureHandler`). Those are `PlainTextBadRequest`.
 */

/** Error categories (`ErrorCategory.scala`) with their gRPC code, HTTP status and redaction. */
export const CATEGORIES = {
  1: { name: 'TransientServerFailure', grpc: 14, http: 503, retry: '1 second', redacted: false },
  2: { name: 'ContentionOnSharedResources', grpc: 10, http: 409, retry: '1 second', redacted: false },
  3: { name: 'DeadlineExceededRequestStateUnknown', grpc: 4, http: 504, retry: '1 second', redacted: false },
  4: { name: 'SystemInternalAssumptionViolated', grpc: 13, http: 500, retry: null, redacted: true },
  5: { name: 'MaliciousOrFaultyBehaviour', grpc: 3, http: 400, retry: null, redacted: true },
  6: { name: 'AuthInterceptorInvalidAuthenticationCredentials', grpc: 16, http: 401, retry: null, redacted: true },
  7: { name: 'InsufficientPermission', grpc: 7, http: 403, retry: null, redacted: true },
  8: { name: 'InvalidIndependentOfSystemState', grpc: 3, http: 400, retry: null, redacted: false },
  9: { name: 'InvalidGivenCurrentSystemStateOther', grpc: 9, http: 400, retry: null, redacted: false },
  10: { name: 'InvalidGivenCurrentSystemStateResourceExists', grpc: 6, http: 409, retry: null, redacted: false },
  11: { name: 'InvalidGivenCurrentSystemStateResourceMissing', grpc: 5, http: 404, retry: null, redacted: false },
  12: { name: 'InvalidGivenCurrentSystemStateSeekAfterEnd', grpc: 11, http: 400, retry: '1 second', redacted: false },
  14: { name: 'InternalUnsupportedOperation', grpc: 12, http: 501, retry: null, redacted: true },
} as const;
export type Category = keyof typeof CATEGORIES;

/** gRPC status code → HTTP status, as `GrpcHttpErrorCodes` maps it. */
export function httpStatusOfGrpc(grpc: number): number {
  switch (grpc) {
    case 3: return 400; // INVALID_ARGUMENT
    case 4: return 504; // DEADLINE_EXCEEDED
    case 5: return 404; // NOT_FOUND
    case 6: return 409; // ALREADY_EXISTS
    case 7: return 403; // PERMISSION_DENIED
    case 8: return 429; // RESOURCE_EXHAUSTED
    case 9: return 400; // FAILED_PRECONDITION
    case 10: return 409; // ABORTED
    case 11: return 400; // OUT_OF_RANGE
    case 12: return 501; // UNIMPLEMENTED
    case 13: return 500; // INTERNAL
    case 14: return 503; // UNAVAILABLE
    case 16: return 401; // UNAUTHENTICATED
    case 1: return 499; // CANCELLED
    default: return 500;
  }
}

/**
 * The error codes the emulator emits, each with its category (Canton `ledger-common/.../ledger/error/`).
 * Adding a code here is the only way to emit it.
 */
export const ERROR_CODES = {
  // auth
  UNAUTHENTICATED: 6,
  PERMISSION_DENIED: 7,
  INVALID_TOKEN: 8,
  // ongoing stream authorization (canton: community/base/.../auth/AuthorizationChecksErrors.scala):
  // both ContentionOnSharedResources, so ABORTED / 409 and retryable
  ACCESS_TOKEN_EXPIRED: 2,
  STALE_STREAM_AUTHORIZATION: 2,
  // request validation
  INVALID_ARGUMENT: 8,
  INVALID_FIELD: 8,
  MISSING_FIELD: 8,
  INVALID_DEDUPLICATION_PERIOD: 9,
  OFFSET_AFTER_LEDGER_END: 12,
  OFFSET_OUT_OF_RANGE: 9,
  NEGATIVE_OFFSET: 8,
  NON_POSITIVE_OFFSET: 8,
  // not found
  UPDATE_NOT_FOUND: 11,
  // 3.6 look-ups (digital-asset/canton: community/ledger/ledger-api-core/.../error/groups/RequestValidationErrors.scala, NotFound)
  COMPLETION_NOT_FOUND: 11,
  SYNCHRONIZER_NOT_FOUND: 11,
  PARTY_SIGNING_KEYS_NOT_FOUND: 11,
  CONTRACT_EVENTS_NOT_FOUND: 11,
  CONTRACT_PAYLOAD_NOT_FOUND: 11,
  TEMPLATES_OR_INTERFACES_NOT_FOUND: 11,
  PACKAGE_NOT_FOUND: 11,
  UNKNOWN_RESOURCE: 11,
  USER_NOT_FOUND: 11,
  PARTY_NOT_FOUND: 11,
  PARTY_NOT_KNOWN_ON_LEDGER: 11,
  SUBMITTING_PARTY_NOT_KNOWN_ON_LEDGER: 11,
  CONTRACT_KEY_NOT_FOUND: 11,
  UNRESOLVED_PACKAGE_NAME: 11,
  IDP_CONFIG_NOT_FOUND: 11,
  // command execution
  CONTRACT_NOT_FOUND: 11,
  CONTRACT_NOT_ACTIVE: 11,
  DUPLICATE_COMMAND: 10,
  DUPLICATE_CONTRACT_KEY: 10,
  SUBMISSION_ALREADY_IN_FLIGHT: 2,
  DAML_AUTHORIZATION_ERROR: 8,
  COMMAND_PREPROCESSING_FAILED: 8,
  DAML_INTERPRETATION_ERROR: 9,
  INTERPRETATION_USER_ERROR: 9,
  UNHANDLED_EXCEPTION: 9,
  TEMPLATE_PRECONDITION_VIOLATED: 8,
  DAML_FAILURE: 9,
  DISCLOSED_CONTRACT_INVALID: 8,
  PACKAGE_SELECTION_FAILED: 9,
  // interactive submission (CommandExecutionErrors.InteractiveSubmissionExecuteError and the
  // rejections an externally signed transaction meets after it was handed to the synchronizer)
  FAILED_TO_EXECUTE_TRANSACTION: 8,
  LOCAL_VERDICT_INACTIVE_CONTRACTS: 2,
  LOCAL_VERDICT_LEDGER_TIME_OUT_OF_BOUND: 9,
  NOT_SEQUENCED_TIMEOUT: 2,
  // preferred packages (RequestValidationErrors.NotFound.PackageNamesNotFound,
  // TransactionRoutingError.TopologyErrors.UnknownInformees)
  PACKAGE_NAMES_NOT_FOUND: 11,
  UNKNOWN_INFORMEES: 9,
  // routing (TransactionRoutingError.TopologyErrors.NoSynchronizerOnWhichAllSubmittersCanSubmit)
  NO_SYNCHRONIZER_ON_WHICH_ALL_SUBMITTERS_CAN_SUBMIT: 11,
  INVALID_PRESCRIBED_SYNCHRONIZER_ID: 9,
  // user management
  USER_ALREADY_EXISTS: 10,
  CONCURRENT_USER_UPDATE_DETECTED: 2,
  INVALID_USER_UPDATE_REQUEST: 8,
  MAX_USER_ANNOTATIONS_SIZE_EXCEEDED: 9,
  TOO_MANY_USER_RIGHTS: 9,
  // party management
  CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED: 2,
  INVALID_PARTY_DETAILS_UPDATE_REQUEST: 8,
  MAX_PARTY_DETAILS_ANNOTATIONS_SIZE_EXCEEDED: 9,
  PARTY_ALLOCATION_WITHOUT_CONNECTED_SYNCHRONIZER: 9,
  // topology manager (`TopologyManagerError`), raised by external party allocation; both are
  // AlarmErrorCodes (MaliciousOrFaultyBehaviour), so the wire shows the redacted body
  INVALID_TOPOLOGY_TX_SIGNATURE_ERROR: 5,
  UNAUTHORIZED_TOPOLOGY_TRANSACTION: 5,
  // identity provider configs
  TOO_MANY_IDENTITY_PROVIDER_CONFIGS: 9,
  // packages
  DAR_PARSE_ERROR: 8,
  INVALID_DAR: 8,
  INVALID_ZIP_ENTRY: 8,
  ZIP_BOMB: 8,
  DAR_VALIDATION_ERROR: 8,
  KNOWN_PACKAGE_VERSION: 8,
  // infrastructure and limits
  JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED: 2,
  PARTICIPANT_BACKPRESSURE: 2,
  SERVICE_NOT_RUNNING: 1,
  // IndexErrors.DatabaseErrors.SqlTransientError: the participant cannot write its store
  INDEX_DB_SQL_TRANSIENT_ERROR: 1,
  REQUEST_TIME_OUT: 3,
  LEDGER_API_INTERNAL_ERROR: 4,
  UNSUPPORTED_OPERATION: 14,
} as const satisfies Record<string, Category>;
export type ErrorCodeId = keyof typeof ERROR_CODES;

export interface LedgerApiErrorOptions {
  /** `[resourceType, value]` pairs, e.g. `['CONTRACT_ID', cid]` (`ErrorResource.scala`). */
  resources?: Array<[string, string]>;
  /** Error-specific context entries added to the JsCantonError `context` map. */
  context?: Record<string, string>;
  /** Override the HTTP status (only the JSON layer's 413 list limit needs this). */
  httpStatus?: number;
  /** Override the category (DAML_FAILURE carries a category chosen by Daml code). */
  category?: Category;
  definiteAnswer?: boolean;
}

export class LedgerApiError extends Error {
  readonly category: Category;
  constructor(
    readonly code: ErrorCodeId,
    /** The bare cause, without Canton's `CODE(cat,corr): ` prefix. */
    readonly causeText: string,
    readonly options: LedgerApiErrorOptions = {},
  ) {
    super(`${code}: ${causeText}`);
    this.category = options.category ?? ERROR_CODES[code];
  }
  get grpcCode(): number {
    return CATEGORIES[this.category].grpc;
  }
  get httpStatus(): number {
    return this.options.httpStatus ?? httpStatusOfGrpc(this.grpcCode);
  }
  get redacted(): boolean {
    return CATEGORIES[this.category].redacted;
  }
}

/** A tapir decode failure: answered as `400 text/plain` before any Canton logic runs (tapir's decode failure handler). */
export class PlainTextBadRequest extends Error {
  constructor(readonly body: string) {
    super(body);
  }
}

/** `Invalid value for: body (<message> at '<path>')`, the tapir/circe decode-failure text. */
export function invalidBody(message: string, path?: string): PlainTextBadRequest {
  return new PlainTextBadRequest(
    path === undefined || path === '' ? `Invalid value for: body (${message})` : `Invalid value for: body (${message} at '${path}')`,
  );
}

export interface JsCantonError {
  code: string;
  cause: string;
  correlationId: string | null;
  traceId: string;
  context: Record<string, string>;
  resources: Array<[string, string]>;
  errorCategory: number;
  grpcCodeValue: number;
  retryInfo: string | null;
  definiteAnswer: boolean | null;
}

export interface ErrorRenderContext {
  participant: string;
  /** 32 hex trace id of the request. */
  traceId: string;
  /** The submission id of a command submission; null elsewhere, as on Canton. */
  correlationId: string | null;
  /** Set when the failure happened while reading the token (Endpoints.validateJwtToken). */
  tokenFailure?: boolean;
  /**
   * The error is built from the error code in the JSON layer itself (`JsCantonError.fromErrorCode`
   * in `Endpoints.handleError`), not decoded from a gRPC status, so nothing redacts it.
   */
  unredacted?: boolean;
}

/**
 * Renders an error as the JSON API does. Security-sensitive categories are redacted to the
 * `NA` shape that `DecodedCantonError.redactedError` produces (Canton `base/error/utils/DecodedCantonError.scala`).
 *
 * Every field is written, `null` when absent, as circe prints Canton's `Option`s (the spec types
 * them as optional strings/booleans). A real submit-and-wait rejection reads
 * `..."correlationId":"<submissionId>",...,"retryInfo":null,"definiteAnswer":null}` with
 * `"definite_answer":"false"` in its context (the cn-quickstart JSON API walkthrough shows one):
 * - correlationId: the submission id of a command submission, null for other requests;
 * - retryInfo: the category's retry delay, else null;
 * - definiteAnswer: null for errors decoded from a gRPC status (the context keeps
 *   `definite_answer`, the error's own value); false for the errors the JSON layer builds
 *   itself (the 413 list limit, `JsCantonError.fromErrorCode`).
 */
export function renderJsCantonError(err: LedgerApiError, ctx: ErrorRenderContext): JsCantonError {
  if (err.redacted && !ctx.unredacted) {
    return {
      code: 'NA',
      cause: 'A security-sensitive error has been received',
      correlationId: ctx.correlationId,
      traceId: ctx.traceId,
      context: ctx.tokenFailure ? { ledger_api_error: 'invalid token' } : {},
      resources: [],
      errorCategory: -1,
      grpcCodeValue: err.grpcCode,
      retryInfo: null,
      definiteAnswer: false,
    };
  }
  const builtByJsonLayer = ctx.unredacted === true || err.code === 'JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED';
  const retry = CATEGORIES[err.category].retry;
  const body: JsCantonError = {
    code: err.code,
    cause: err.causeText,
    correlationId: ctx.correlationId,
    traceId: ctx.traceId,
    context: {
      participant: ctx.participant,
      tid: ctx.traceId,
      category: String(err.category),
      definite_answer: String(err.options.definiteAnswer ?? false),
      ...err.options.context,
      // Endpoints.validateJwtToken appends this to any claim-extraction failure (e.g. INVALID_TOKEN).
      ...(ctx.tokenFailure ? { ledger_api_error: 'invalid token' } : {}),
    },
    resources: err.options.resources ?? [],
    errorCategory: err.category,
    grpcCodeValue: err.grpcCode,
    retryInfo: retry,
    definiteAnswer: builtByJsonLayer ? (err.options.definiteAnswer ?? false) : null,
  };
  return body;
}

// ---- constructors for the errors raised in more than one place -------------------------------

export const errors = {
  invalidArgument: (what: string) =>
    new LedgerApiError('INVALID_ARGUMENT', `The submitted request has invalid arguments: ${what}`),
  invalidField: (field: string, message: string) =>
    new LedgerApiError('INVALID_FIELD', `The submitted command has a field with invalid value: Invalid field ${field}: ${message}`),
  missingField: (field: string) =>
    new LedgerApiError('MISSING_FIELD', `The submitted command is missing a mandatory field: ${field}`),
  unauthenticated: () =>
    new LedgerApiError('UNAUTHENTICATED', 'The command is missing a (valid) JWT token'),
  permissionDenied: (why: string) =>
    new LedgerApiError(
      'PERMISSION_DENIED',
      `The provided authorization token is not sufficient to authorize the intended command: ${why}`,
    ),
  contractNotFound: (cid: string) =>
    new LedgerApiError('CONTRACT_NOT_FOUND', `Contract could not be found with id ${cid}`, {
      resources: [['CONTRACT_ID', cid]],
    }),
  templatesOrInterfacesNotFound: (ids: string[]) =>
    new LedgerApiError(
      'TEMPLATES_OR_INTERFACES_NOT_FOUND',
      `The following template or interface ids don't exist: ${ids.join(', ')}`,
      { resources: ids.map((id) => ['TEMPLATE_ID', id] as [string, string]) },
    ),
  offsetAfterLedgerEnd: (kind: string, offset: number | bigint, end: number | bigint) =>
    new LedgerApiError(
      'OFFSET_AFTER_LEDGER_END',
      `${kind} offset (${offset}) is after ledger end (${end})`,
    ),
  userNotFound: (operation: string, userId: string) =>
    new LedgerApiError('USER_NOT_FOUND', `${operation} failed for unknown user "${userId}"`, {
      resources: [['USER', userId]],
    }),
  internal: (what: string) => new LedgerApiError('LEDGER_API_INTERNAL_ERROR', what),
  /**
   * The participant's store refused a write (Canton: `INDEX_DB_SQL_TRANSIENT_ERROR`, category
   * TransientServerFailure, 503, retryable); nothing of the request was kept.
   */
  cannotPersist: (why: string) =>
    new LedgerApiError('INDEX_DB_SQL_TRANSIENT_ERROR', `Processing the request failed due to a transient database error: ${why}`, {
      definiteAnswer: true,
    }),
};
