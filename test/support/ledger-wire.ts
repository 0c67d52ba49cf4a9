/**
 * Typed reads of JSON Ledger API answers for tests. Answers are parsed with the ledger client's
 * own wire schemas (src/ledger-client/schemas), so reading a field also checks the answer's shape; an
 * event of the `Event` oneof is narrowed to the kind the test expects, and anything else fails
 * the test with the value printed. Daml values inside (create arguments, choice results, views)
 * are LF JSON of unknown shape: read with `jsonAt` and friends, or named by the test's own type.
 *
 * Parsing drops keys a schema does not know and fills defaults: an assertion on a whole raw answer
 * (`toEqual` of two answers, a field the schema rewrites) reads the raw JSON instead.
 */
import { z } from 'zod';
import { isObject } from '../../src/canton/json-shape.js';
import {
  JsCantonErrorSchema,
  JsGetActiveContractsListResponseSchema,
  JsTransactionSchema,
  type ArchivedEvent,
  type CreatedEvent,
  type Event,
  type ExercisedEvent,
  type JsActiveContract,
  type JsCantonError,
  type JsTransaction,
} from '../../src/ledger-client/schemas/events.js';

/** The answer of submit-and-wait-for-transaction, executeAndWaitForTransaction, transaction-by-id. */
export const TransactionResponseSchema = z.object({ transaction: JsTransactionSchema });

/** The transaction of a `{ transaction }` answer. */
export function transactionOf(body: unknown): JsTransaction {
  return TransactionResponseSchema.parse(body).transaction;
}

/** A `JsCantonError` answer. */
export function cantonError(body: unknown): JsCantonError {
  return JsCantonErrorSchema.parse(body);
}

/** The active contracts of an ACS answer (list form); every entry must be a `JsActiveContract`. */
export function activeContracts(body: unknown): JsActiveContract[] {
  return JsGetActiveContractsListResponseSchema.parse(body).map(({ contractEntry }) => {
    if (!('JsActiveContract' in contractEntry)) throw new Error(`expected an active contract, got ${JSON.stringify(contractEntry)}`);
    return contractEntry.JsActiveContract;
  });
}

export function createdEvent(e: Event | undefined): CreatedEvent {
  if (e !== undefined && 'CreatedEvent' in e) return e.CreatedEvent;
  throw new Error(`expected a CreatedEvent, got ${JSON.stringify(e)}`);
}

export function exercisedEvent(e: Event | undefined): ExercisedEvent {
  if (e !== undefined && 'ExercisedEvent' in e) return e.ExercisedEvent;
  throw new Error(`expected an ExercisedEvent, got ${JSON.stringify(e)}`);
}

export function archivedEvent(e: Event | undefined): ArchivedEvent {
  if (e !== undefined && 'ArchivedEvent' in e) return e.ArchivedEvent;
  throw new Error(`expected an ArchivedEvent, got ${JSON.stringify(e)}`);
}

/** The exercise result of the root event of a one-exercise submission (LEDGER_EFFECTS). */
export function rootExerciseResult(body: unknown): unknown {
  return exercisedEvent(transactionOf(body).events[0]).exerciseResult;
}

/** The choices exercised in a transaction, in event order. */
export function exercisedChoices(tx: JsTransaction): string[] {
  return tx.events.flatMap((e) => ('ExercisedEvent' in e ? [e.ExercisedEvent.choice] : []));
}

/**
 * The interface view of a created event read through an interface filter (its first view), as
 * LF JSON; fails the test when there is none or it was not computed.
 */
export function interfaceView(e: CreatedEvent | undefined): unknown {
  const iv = e?.interfaceViews[0];
  if (iv === undefined) throw new Error(`expected an interface view, got ${JSON.stringify(e)}`);
  if (iv.viewStatus.code !== 0) throw new Error(`the view of ${e?.contractId} failed: ${JSON.stringify(iv.viewStatus)}`);
  return iv.viewValue;
}

// ---- JSON values of unknown shape ----------------------------------------------------------------

/** A Daml record (or map) of LF JSON (a create argument, a view, a choice result) as its fields. */
export function fieldsOf(v: unknown): Record<string, unknown> {
  if (isObject(v)) return v;
  throw new Error(`not a JSON object: ${JSON.stringify(v)}`);
}

/**
 * The part of a JSON value at `path`: a Daml value in LF JSON (records and maps are objects, lists
 * arrays), or an answer whose shape the test checks field by field. Fails when a step is missing
 * (a field that is absent, an index past the end, a step into a non-container).
 */
export function jsonAt(value: unknown, ...path: Array<string | number>): unknown {
  let v = value;
  for (const [i, step] of path.entries()) {
    const here = typeof step === 'number' ? (Array.isArray(v) ? v[step] : undefined) : isObject(v) ? v[step] : undefined;
    if (here === undefined) throw new Error(`no ${path.slice(0, i + 1).join('.')} in ${JSON.stringify(value)}`);
    v = here;
  }
  return v;
}

/** The string at `path` of a JSON value (in LF JSON: a Text, Party, ContractId, Numeric or Time). */
export function jsonText(value: unknown, ...path: Array<string | number>): string {
  const v = jsonAt(value, ...path);
  if (typeof v !== 'string') throw new Error(`${path.join('.') || 'the value'} is not a string: ${JSON.stringify(v)}`);
  return v;
}

/** The array at `path` of a JSON value. */
export function jsonArray(value: unknown, ...path: Array<string | number>): unknown[] {
  const v = jsonAt(value, ...path);
  if (!Array.isArray(v)) throw new Error(`${path.join('.') || 'the value'} is not an array: ${JSON.stringify(v)}`);
  return v;
}

/** The keys of the object at `path` of a JSON value. */
export function jsonKeys(value: unknown, ...path: Array<string | number>): string[] {
  return Object.keys(fieldsOf(jsonAt(value, ...path)));
}
