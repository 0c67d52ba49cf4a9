/** Wire schemas of the state and update services (3.5 spec, legacy forms accepted). */
import { z } from 'zod';
import { EventFormatSchema, Int64Schema, JsonBytesSchema, TransactionFilterSchema, TransactionFormatSchema, UpdateFormatSchema } from './common.js';

export const GetActiveContractsRequestSchema = z.object({
  filter: TransactionFilterSchema.optional(),
  verbose: z.boolean().optional(),
  activeAtOffset: Int64Schema.default(0),
  eventFormat: EventFormatSchema.optional(),
  streamContinuationToken: z.string().optional(),
});

export const GetActiveContractsPageRequestSchema = z.object({
  activeAtOffset: Int64Schema.optional(),
  eventFormat: EventFormatSchema,
  maxPageSize: z.number().int().optional(),
  pageToken: z.string().optional(),
});

export const GetUpdatesRequestSchema = z.object({
  beginExclusive: Int64Schema.default(0),
  endInclusive: Int64Schema.optional(),
  filter: TransactionFilterSchema.optional(),
  verbose: z.boolean().optional(),
  updateFormat: UpdateFormatSchema.optional(),
  descendingOrder: z.boolean().default(false),
});

export const GetUpdateByIdRequestSchema = z.object({ updateId: z.string(), updateFormat: UpdateFormatSchema });
/**
 * 3.6 `GetUpdateByHashRequest`: `transactionHash` is protobuf `bytes` (base64 in JSON); a missing one
 * decodes as empty, which the service rejects as MISSING_FIELD (digital-asset/canton:
 * community/ledger/ledger-api-core/.../validation/UpdateServiceRequestValidator.scala, validateUpdateByHash).
 */
export const GetUpdateByHashRequestSchema = z.object({ transactionHash: JsonBytesSchema.default(''), updateFormat: UpdateFormatSchema });
export const GetUpdateByOffsetRequestSchema = z.object({ offset: Int64Schema, updateFormat: UpdateFormatSchema });
export const GetTransactionByIdRequestSchema = z.object({
  updateId: z.string(),
  requestingParties: z.array(z.string()).default([]),
  transactionFormat: TransactionFormatSchema.optional(),
});
export const GetTransactionByOffsetRequestSchema = z.object({
  offset: Int64Schema,
  requestingParties: z.array(z.string()).default([]),
  transactionFormat: TransactionFormatSchema.optional(),
});

export const GetEventsByContractIdRequestSchema = z.object({ contractId: z.string(), eventFormat: EventFormatSchema });
export const GetContractRequestSchema = z.object({ contractId: z.string(), queryingParties: z.array(z.string()).default([]) });
