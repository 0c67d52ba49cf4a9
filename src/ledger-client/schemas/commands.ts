/** Wire schemas of the command service (JsCommands and friends, 3.5 spec). */
import { z } from 'zod';
import { DurationSchema, IdentifierSchema, Int64Schema, JsonBytesSchema, TransactionFormatSchema } from './common.js';

export const CreateCommandSchema = z.object({
  CreateCommand: z.object({ templateId: IdentifierSchema, createArguments: z.unknown() }),
});
export const ExerciseCommandSchema = z.object({
  ExerciseCommand: z.object({
    templateId: IdentifierSchema,
    contractId: z.string(),
    choice: z.string(),
    choiceArgument: z.unknown(),
  }),
});
export const CreateAndExerciseCommandSchema = z.object({
  CreateAndExerciseCommand: z.object({
    templateId: IdentifierSchema,
    createArguments: z.unknown(),
    choice: z.string(),
    choiceArgument: z.unknown(),
  }),
});
export const ExerciseByKeyCommandSchema = z.object({
  ExerciseByKeyCommand: z.object({
    templateId: IdentifierSchema,
    contractKey: z.unknown(),
    choice: z.string(),
    choiceArgument: z.unknown(),
  }),
});
export const CommandSchema = z.union([
  CreateCommandSchema,
  ExerciseCommandSchema,
  CreateAndExerciseCommandSchema,
  ExerciseByKeyCommandSchema,
]);
export type Command = z.infer<typeof CommandSchema>;

export const DisclosedContractSchema = z.object({
  templateId: z.string().optional(),
  contractId: z.string().optional(),
  createdEventBlob: z.string(),
  synchronizerId: z.string().optional(),
});

export const DeduplicationPeriodSchema = z.union([
  z.object({ DeduplicationDuration: z.object({ value: DurationSchema }) }),
  z.object({ DeduplicationOffset: z.object({ value: Int64Schema }) }),
  z.object({ Empty: z.object({}) }),
]);

/** `JsCommands`: `commands`, `commandId` and `actAs` are truly required (JsCommandService). */
export const JsCommandsSchema = z.object({
  commands: z.array(CommandSchema),
  commandId: z.string(),
  actAs: z.array(z.string()),
  userId: z.string().default(''),
  readAs: z.array(z.string()).default([]),
  workflowId: z.string().default(''),
  deduplicationPeriod: DeduplicationPeriodSchema.optional(),
  minLedgerTimeAbs: z.string().optional(),
  minLedgerTimeRel: DurationSchema.optional(),
  submissionId: z.string().default(''),
  disclosedContracts: z.array(DisclosedContractSchema).default([]),
  synchronizerId: z.string().default(''),
  packageIdSelectionPreference: z.array(z.string()).default([]),
  prefetchContractKeys: z.array(z.unknown()).default([]),
  tapsMaxPasses: z.number().int().optional(),
});
export type JsCommands = z.infer<typeof JsCommandsSchema>;

export const JsSubmitAndWaitForTransactionRequestSchema = z.object({
  commands: JsCommandsSchema,
  transactionFormat: TransactionFormatSchema.optional(),
});

export const CompletionStreamRequestSchema = z.object({
  userId: z.string().default(''),
  parties: z.array(z.string()).default([]),
  beginExclusive: Int64Schema.default(0),
});

/** 3.5.7 `GetCompletionsRequest` (command-completions): no user id, parties optional. */
export const GetCompletionsRequestSchema = z.object({
  parties: z.array(z.string()).default([]),
  beginExclusive: Int64Schema.default(0),
});

/**
 * 3.6 `GetCompletionByHashRequest`: the prepared transaction's hash as protobuf `bytes` (base64);
 * missing decodes as empty, which the service rejects (digital-asset/canton:
 * community/ledger/ledger-api-core/.../validation/CompletionServiceRequestValidator.scala).
 */
export const GetCompletionByHashRequestSchema = z.object({
  transactionHash: JsonBytesSchema.default(''),
});
