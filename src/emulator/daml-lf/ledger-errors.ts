/**
 * Daml evaluation errors as the Canton errors a participant returns for them, worded like the
 * native templates' (../participant/commands.ts) so that a client sees the same error whichever
 * kind of template ran:
 *  - an exception nobody caught (`DamlThrow` reaching the command, or the evaluator's
 *    `unhandledException`) → DAML_FAILURE "Interpretation error: Error: User failure:
 *    UNHANDLED_EXCEPTION/<Module>:<Entity> (error category 9): <message>", as Canton reports an
 *    unhandled exception whose type has a `message` (the native TestTokenV1 code's AssertionFailed);
 *  - `failWithStatus` → DAML_FAILURE with the status's error id, category and metadata (the
 *    metadata go to the error's context next to `error_id`, as Canton's `FailureStatus` does);
 *  - Daml's `error` → DAML_FAILURE of `DA.Exception.GeneralError:GeneralError` (LF 2 raises it as
 *    that exception);
 *  - a failed precondition → DAML_FAILURE `DA.Exception.PreconditionFailed:PreconditionFailed`,
 *    the native templates' path;
 *  - a contract of the wrong template / not implementing an interface → DAML_INTERPRETATION_ERROR
 *    with the command interpreter's wording;
 *  - an unsupported feature, a spent step budget, or an internal evaluator error →
 *    DAML_INTERPRETATION_ERROR with a message that says so (never an HTTP 500).
 */
import { LedgerApiError, type Category } from '../../canton/errors.js';
import { DamlFailure, DamlThrow, type DamlFailureDetail } from './runtime.js';
import type { TypeConRef } from './ast.js';
import type { Value } from '../lf-value/runtime-value.js';

const INTERPRETATION = 'Interpretation error: Error:';

/** Whether an error comes from Daml evaluation (and `damlErrorToLedger` maps it). */
export function isDamlError(e: unknown): e is DamlThrow | DamlFailure {
  return e instanceof DamlThrow || e instanceof DamlFailure;
}

/** The Canton error for a Daml evaluation error. */
export function damlErrorToLedger(e: DamlThrow | DamlFailure): LedgerApiError {
  if (e instanceof DamlThrow) return unhandled(exceptionTycon(e.exception.value, e.exception.type), e.exceptionMessage);
  return failureToLedger(e.detail);
}

/** An error of the evaluator itself (a bug, or a value of the wrong shape): reported, not a 500. */
export function internalEvaluationError(e: unknown): LedgerApiError {
  const message = e instanceof Error ? e.message : String(e);
  return new LedgerApiError('DAML_INTERPRETATION_ERROR', `${INTERPRETATION} Daml-LF evaluation failed in the emulator: ${message}`);
}

function failureToLedger(d: DamlFailureDetail): LedgerApiError {
  switch (d.kind) {
    case 'failureStatus':
      return userFailure(d.errorId, categoryOf(d.category), d.message, d.metadata);
    case 'userError':
      return userFailure('UNHANDLED_EXCEPTION/DA.Exception.GeneralError:GeneralError', 9, d.message);
    case 'unhandledException':
      return unhandled(d.exceptionType, d.message);
    case 'templatePreconditionViolated':
      return userFailure(
        'UNHANDLED_EXCEPTION/DA.Exception.PreconditionFailed:PreconditionFailed',
        9,
        `Template precondition violated: ${formatRef(d.template)}`,
      );
    case 'wronglyTypedContract':
      return new LedgerApiError(
        'DAML_INTERPRETATION_ERROR',
        `${INTERPRETATION} Contract ${d.cid} was expected to be of template ${formatRef(d.expected)} but is of template ${formatRef(d.actual)}`,
        { resources: [['CONTRACT_ID', d.cid]] },
      );
    case 'contractDoesNotImplementInterface':
      return new LedgerApiError(
        'DAML_INTERPRETATION_ERROR',
        `${INTERPRETATION} Contract ${d.cid} of template ${formatRef(d.template)} does not implement interface ${formatRef(d.iface)}`,
        { resources: [['CONTRACT_ID', d.cid]] },
      );
    case 'unsupported':
    case 'budgetExceeded':
    case 'other':
      return new LedgerApiError('DAML_INTERPRETATION_ERROR', `${INTERPRETATION} ${new DamlFailure(d).message}`);
  }
}

function unhandled(tycon: TypeConRef | undefined, message: string): LedgerApiError {
  const name = tycon ? `${tycon.moduleName}:${tycon.entityName}` : 'unknown';
  return userFailure(`UNHANDLED_EXCEPTION/${name}`, 9, message);
}

/** DAML_FAILURE as commands.ts words it (`damlFailureError`), with a failure status's metadata. */
function userFailure(errorId: string, category: Category, message: string, metadata: Record<string, string> = {}): LedgerApiError {
  return new LedgerApiError('DAML_FAILURE', `${INTERPRETATION} User failure: ${errorId} (error category ${category}): ${message}`, {
    category,
    context: { ...metadata, error_id: errorId },
  });
}

/** The exception's type constructor: its record's, else its type's. */
function exceptionTycon(value: Value, type: { kind: string; tycon?: TypeConRef }): TypeConRef | undefined {
  if (value.tag === 'record') return value.tycon;
  return type.kind === 'con' ? type.tycon : undefined;
}

/** Daml's `FailureCategory` values are Canton categories 8 and 9; anything else reads as 9. */
function categoryOf(n: number): Category {
  return n === 8 ? 8 : 9;
}

function formatRef(r: TypeConRef): string {
  return `${r.packageId}:${r.moduleName}:${r.entityName}`;
}
