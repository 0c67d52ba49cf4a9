/**
 * The registry's error model: one code enum, mapped to an HTTP status in one exhaustive switch.
 * On the wire every error is the token standard's `{"error": string}` (ErrorResponse).
 */
export type RegistryErrorCode =
  | 'BAD_REQUEST'
  | 'NOT_FOUND'
  /** A contract is being reassigned, or a context spans synchronizers (spec: 409). */
  | 'CONFLICT'
  /** The ledger node is down or too slow (503 + Retry-After). */
  | 'LEDGER_UNAVAILABLE'
  | 'INTERNAL';

export class RegistryError extends Error {
  constructor(
    readonly code: RegistryErrorCode,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

export function statusOf(code: RegistryErrorCode): 400 | 404 | 409 | 500 | 503 {
  switch (code) {
    case 'BAD_REQUEST':
      return 400;
    case 'NOT_FOUND':
      return 404;
    case 'CONFLICT':
      return 409;
    case 'LEDGER_UNAVAILABLE':
      return 503;
    case 'INTERNAL':
      return 500;
    default: {
      const never: never = code;
      return never;
    }
  }
}

export const badRequest = (message: string) => new RegistryError('BAD_REQUEST', message);
export const notFound = (message: string) => new RegistryError('NOT_FOUND', message);
export const conflict = (message: string) => new RegistryError('CONFLICT', message, 1);
