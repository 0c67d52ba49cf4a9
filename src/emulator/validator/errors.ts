/**
 * The validator's error answers (canton-network/splice `HttpErrorHandler`,
 * `AuthExtractor`, `HttpAdminService`, pekko-http's `RejectionHandler.default`):
 *  - handler errors: `{"error": "<message>"}` with the HTTP status `HttpErrorHandler` maps the gRPC
 *    status to (NOT_FOUND 404, ALREADY_EXISTS 409, ABORTED 429, UNAVAILABLE 503, INVALID_ARGUMENT
 *    and UNIMPLEMENTED 400, FAILED_PRECONDITION 400 or 409 for interpretation errors, else 500);
 *  - a failed ledger submission: the same mapping applied to the Canton error, the body carrying
 *    the gRPC status description Canton writes (`CODE(category,correlation): cause`);
 *  - missing or invalid token: 401, pekko's plain-text rejection with `WWW-Authenticate`
 *    (`authenticateOAuth2`, not the JSON error body);
 *  - unknown path: 404 JSON `The requested resource could not be found: <uri>`; a known path with
 *    another method: 405 JSON with pekko's MethodRejection message and the Allow header.
 */
import { createHash } from 'node:crypto';
import type { LedgerApiError } from '../../canton/errors.js';

export type ValidatorErrorStatus = 400 | 403 | 404 | 409 | 429 | 500 | 503;

/** An answer `{"error": message}` with this status. */
export class ValidatorError extends Error {
  constructor(
    readonly status: ValidatorErrorStatus,
    message: string,
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new ValidatorError(400, message);
export const notFound = (message: string) => new ValidatorError(404, message);
export const conflict = (message: string) => new ValidatorError(409, message);

/**
 * Canton's interpretation-error codes that `HttpErrorHandler` answers with 409 Conflict when they
 * come as FAILED_PRECONDITION (`GenericInterpretationError`, `UnhandledException`,
 * `InterpretationUserError`, `TemplatePreconditionViolated`). DAML_FAILURE is Canton 3.x's code
 * for the same thing (a Daml `fail`/`failWithStatus`/uncaught exception: what UNHANDLED_EXCEPTION
 * reported before), so it is treated alike.
 */
const CONFLICT_CODES = new Set(['DAML_INTERPRETATION_ERROR', 'UNHANDLED_EXCEPTION', 'INTERPRETATION_USER_ERROR', 'TEMPLATE_PRECONDITION_VIOLATED', 'DAML_FAILURE']);

/** gRPC status → HTTP status, as `HttpErrorHandler.mapToStatusCode`. */
export function httpStatusOfLedgerError(err: LedgerApiError): ValidatorErrorStatus {
  switch (err.grpcCode) {
    case 5: // NOT_FOUND
      return 404;
    case 6: // ALREADY_EXISTS
      return 409;
    case 10: // ABORTED
      return 429;
    case 14: // UNAVAILABLE
      return 503;
    case 3: // INVALID_ARGUMENT
    case 12: // UNIMPLEMENTED
      return 400;
    case 9: // FAILED_PRECONDITION
      return CONFLICT_CODES.has(err.code) ? 409 : 400;
    default:
      return 500;
  }
}

/**
 * The description of the gRPC status a Canton error travels in (`CODE(category,corrId): cause`),
 * which the validator puts in its `{"error": ...}` body. The correlation id is derived from the
 * cause, so answers are deterministic.
 */
export function ledgerErrorDescription(err: LedgerApiError): string {
  const corr = createHash('sha256').update(err.causeText).digest('hex').slice(0, 8);
  return `${err.code}(${err.category},${corr}): ${err.causeText}`;
}

/** The ledger failure as the validator answers it. */
export function fromLedgerError(err: LedgerApiError): ValidatorError {
  return new ValidatorError(httpStatusOfLedgerError(err), ledgerErrorDescription(err));
}

// ---- pekko rejections ------------------------------------------------------------------------

/** `RejectionHandler.default` texts for `AuthenticationFailedRejection`. */
export const CREDENTIALS_MISSING = 'The resource requires authentication, which was not supplied with the request';
export const CREDENTIALS_REJECTED = 'The supplied authentication is invalid';
