/**
 * Typed reading of JSON Ledger API responses for the template tests' clients (TestTokenV1,
 * TestTokenV2, Amulet, admin workflows): each response is parsed with the registry's own wire
 * schemas (src/ledger-client/schemas), so a test also checks the response's shape. Daml values in it
 * (`createArgument`, `exerciseResult`, `viewValue`, `choiceArgument`) stay `unknown`: a test names
 * the LF JSON shape it reads (the payload and view types of src/emulator/templates, or the
 * token-standard result shapes below).
 */
import { z } from 'zod';
import type { Metadata } from '../../../../src/canton/lf-value.js';
import type { AllocationInstructionResultV2 as SrcAllocationInstructionResultV2, AllocationResultV2 as SrcAllocationResultV2 } from '../../../../src/emulator/templates/test-token-v2/allocation.js';
import type { TransferInstructionResultV2 } from '../../../../src/emulator/templates/test-token-v2/transfer.js';
import {
  JsCantonErrorSchema,
  JsGetUpdatesListResponseSchema,
  type ArchivedEvent,
  type CreatedEvent,
  type ExercisedEvent,
  type JsActiveContract,
  type JsCantonError,
  type JsTransaction,
} from '../../../../src/ledger-client/schemas/events.js';
import { TransactionResponseSchema, activeContracts as activeContractsIn } from '../../../support/ledger-wire.js';

/**
 * An event of a transaction. The wire form is a one-key wrapper (`{CreatedEvent}`,
 * `{ExercisedEvent}` or `{ArchivedEvent}`); here each key is optional, so a test reads
 * `events[1]!.ExercisedEvent` as it would in JSON.
 */
export interface TxEvent {
  CreatedEvent?: CreatedEvent;
  ExercisedEvent?: ExercisedEvent;
  ArchivedEvent?: ArchivedEvent;
}

/** A `JsTransaction` with its events as `TxEvent`s. */
export interface Tx extends Omit<JsTransaction, 'events'> {
  events: TxEvent[];
}

function parseAs<S extends z.ZodType>(schema: S, what: string, status: number, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new Error(`expected ${what}, got ${status}: ${JSON.stringify(body)}\n${parsed.error.message}`);
  return parsed.data;
}

/**
 * A response of the JSON Ledger API: its status and raw body, read as the transaction of a
 * successful submission (`transaction`) or as the Canton error of a failed one (`error`). Reading
 * the one it is not fails the test with the body.
 */
export class LedgerResponse {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}

  /** The transaction of a `submit-and-wait-for-transaction` response. */
  get transaction(): Tx {
    return parseAs(TransactionResponseSchema, 'a transaction', this.status, this.body).transaction;
  }

  /** The `JsCantonError` of a failed request. */
  get error(): JsCantonError {
    return parseAs(JsCantonErrorSchema, 'a Canton error', this.status, this.body);
  }
}

/** POSTs `body` as JSON; the response body is parsed JSON (`null` when empty). */
export async function postJson(request: (path: string, init?: RequestInit) => Promise<Response>, path: string, body: unknown): Promise<LedgerResponse> {
  const r = await request(path, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  const text = await r.text();
  const parsed: unknown = text === '' ? null : JSON.parse(text);
  return new LedgerResponse(r.status, parsed);
}

/** The active contracts of a `/v2/state/active-contracts` list response (any other entry fails the test). */
export function activeContracts(r: LedgerResponse): JsActiveContract[] {
  return activeContractsIn(r.body);
}

/**
 * The transactions of a `/v2/updates` list response. `others`: what to do with the other updates
 * (offset checkpoints, reassignments, topology): skip them, or fail the test.
 */
export function transactions(r: LedgerResponse, others: 'skip' | 'fail'): Tx[] {
  return parseAs(JsGetUpdatesListResponseSchema, 'updates', r.status, r.body).flatMap(({ update }) => {
    if ('Transaction' in update) return [update.Transaction.value];
    if (others === 'fail') throw new Error(`expected a transaction, got ${JSON.stringify(update)}`);
    return [];
  });
}

// ---- events ------------------------------------------------------------------------------------

/** The `CreatedEvent` of `e`; fails the test when `e` is missing or another kind of event. */
export function createdOf(e: TxEvent | undefined): CreatedEvent {
  if (e?.CreatedEvent === undefined) throw new Error(`expected a CreatedEvent, got ${JSON.stringify(e)}`);
  return e.CreatedEvent;
}

/** The `ExercisedEvent` of `e`; fails the test when `e` is missing or another kind of event. */
export function exercisedOf(e: TxEvent | undefined): ExercisedEvent {
  if (e?.ExercisedEvent === undefined) throw new Error(`expected an ExercisedEvent, got ${JSON.stringify(e)}`);
  return e.ExercisedEvent;
}

// ---- LF JSON shapes of the token standard's choice results ---------------------------------------

/** A Daml variant; `V` is the value of the constructor the test expects (it checks `tag` where that matters). */
export interface Variant<V> {
  tag: string;
  value: V;
}

/** The value of `TransferInstructionResult_Pending`. */
export interface PendingTransfer {
  transferInstructionCid: string;
}
/** The value of `TransferInstructionResult_Completed`. */
export interface CompletedTransfer {
  receiverHoldingCids: string[];
}

/** `TransferInstructionResult` (V1 and V2 have the same shape), its output's value typed `V`. */
export type TransferInstructionResult<V = unknown> = Omit<TransferInstructionResultV2, 'output'> & { output: Variant<V> };

/** The value of `AllocationInstructionResult_Completed`. */
export interface CompletedAllocation {
  allocationCid: string;
}
/** The value of `AllocationInstructionResult_Pending` (V2). */
export interface PendingAllocation {
  allocationInstructionCid: string;
}

/** V1 `AllocationInstructionResult`. */
export interface AllocationInstructionResultV1<V = unknown> {
  output: Variant<V>;
  senderChangeCids: string[];
  meta: Metadata;
}

/** V2 `AllocationInstructionResult` (the change per instrument id), its output's value typed `V`. */
export type AllocationInstructionResultV2<V = unknown> = Omit<SrcAllocationInstructionResultV2, 'output'> & { output: Variant<V> };

/** V1 `Allocation_ExecuteTransferResult` / `Allocation_CancelResult` / `Allocation_WithdrawResult`. */
export interface AllocationResultV1 {
  senderHoldingCids: string[];
  receiverHoldingCids?: string[];
  meta: Metadata;
}

/** The value of `AllocationResult_Settled` (V2). */
export interface SettledAllocation {
  nextIterationAllocationCid: string | null;
}

/** V2 `AllocationResult`, its output's value typed `V`. */
export type AllocationResultV2<V = unknown> = Omit<SrcAllocationResultV2, 'output'> & { output: Variant<V> };

/** V2 `SettlementFactory_SettleBatchResult`. */
export interface SettleBatchResult {
  allocationSettleResults: Array<AllocationResultV2<SettledAllocation>>;
}
