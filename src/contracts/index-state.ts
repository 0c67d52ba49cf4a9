/** The states of the contract index, and the errors that move it between them. */
import { LedgerError, LedgerUnavailableError } from '../ledger-client/errors.js';

/** What the index is doing; only `ready` answers reads. */
export type IndexState = 'loading' | 'ready' | 'unreachable' | 'reloading' | 'failed' | 'stopped';

/** A read while the index is not ready: the registry answers 503 with Retry-After. */
export class IndexNotReadyError extends LedgerUnavailableError {
  constructor(readonly state: IndexState) {
    super({
      reason: 'status',
      message:
        state === 'reloading' || state === 'loading'
          ? "the registry is loading the admin's contracts from its ledger node"
          : state === 'unreachable'
            ? 'the ledger node cannot be reached'
            : 'the registry is not running',
      retryAfterSeconds: 1,
    });
  }
}

/** The node's error codes that say the index's offset does not exist on it (Canton's `ledger/error/` codes). */
export const RESET_CODES = ['OFFSET_AFTER_LEDGER_END', 'PARTICIPANT_PRUNED_DATA_ACCESSED', 'OFFSET_OUT_OF_RANGE'];

/** Rejected credentials: no retry can fix them (401/403 from the node, a refused token request). */
export function isConfigurationFailure(err: unknown): boolean {
  if (err instanceof LedgerError) return err.status === 401 || err.status === 403;
  if (err instanceof LedgerUnavailableError) return err.reason === 'auth' && !err.retryable;
  return false;
}

/** The ledger is not the one the index was loaded from (ledger-identity.ts): the index reloads. */
export class LedgerResetError extends Error {}

/** An error for logs: the code and status of a ledger error, the message otherwise (never a token). */
export function describeError(err: unknown): string {
  if (err instanceof LedgerError) return `${err.status} ${err.code}${err.method ? ` (${err.method} ${err.path})` : ''}`;
  return err instanceof Error ? err.message : String(err);
}
