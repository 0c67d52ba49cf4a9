/** Wire schemas of the interactive submission service (Canton 3.5 `JsPrepareSubmissionRequest` and friends). */
import { z } from 'zod';
import { DurationSchema, Int64Schema, TransactionFormatSchema } from './common.js';
import { CommandSchema, DeduplicationPeriodSchema, DisclosedContractSchema } from './commands.js';
import { SignatureSchema } from './external-parties.js';

export const HashingSchemeVersionSchema = z.enum(['HASHING_SCHEME_VERSION_UNSPECIFIED', 'HASHING_SCHEME_VERSION_V2', 'HASHING_SCHEME_VERSION_V3']);

export const MinLedgerTimeSchema = z.object({
  time: z
    .union([
      z.object({ Empty: z.object({}) }),
      z.object({ MinLedgerTimeAbs: z.object({ value: z.string() }) }),
      z.object({ MinLedgerTimeRel: z.object({ value: DurationSchema }) }),
    ])
    .optional(),
});
export type MinLedgerTime = z.infer<typeof MinLedgerTimeSchema>;

export const CostEstimationHintsSchema = z.object({
  disabled: z.boolean().optional(),
  expectedSignatures: z.array(z.string()).default([]),
});

export const JsPrepareSubmissionRequestSchema = z.object({
  userId: z.string().default(''),
  commandId: z.string(),
  commands: z.array(CommandSchema),
  minLedgerTime: MinLedgerTimeSchema.optional(),
  actAs: z.array(z.string()),
  readAs: z.array(z.string()).default([]),
  disclosedContracts: z.array(DisclosedContractSchema).default([]),
  synchronizerId: z.string().default(''),
  packageIdSelectionPreference: z.array(z.string()).default([]),
  verboseHashing: z.boolean().default(false),
  prefetchContractKeys: z.array(z.unknown()).default([]),
  maxRecordTime: z.string().optional(),
  estimateTrafficCost: CostEstimationHintsSchema.optional(),
  tapsMaxPasses: z.number().int().optional(),
  hashingSchemeVersion: HashingSchemeVersionSchema.optional(),
});
export type JsPrepareSubmissionRequest = z.infer<typeof JsPrepareSubmissionRequestSchema>;

// The two Option fields: Canton's JSON encoder writes None as null (not an absent key), so the
// answer of a prepare without verboseHashing or a traffic estimate carries both as null.
export const JsPrepareSubmissionResponseSchema = z.object({
  preparedTransaction: z.string(),
  preparedTransactionHash: z.string(),
  hashingSchemeVersion: HashingSchemeVersionSchema,
  hashingDetails: z.string().nullish(),
  costEstimation: z
    .object({
      estimationTimestamp: z.string(),
      confirmationRequestTrafficCostEstimation: Int64Schema,
      confirmationResponseTrafficCostEstimation: Int64Schema,
      totalTrafficCostEstimation: Int64Schema,
    })
    .nullish(),
});
export type JsPrepareSubmissionResponse = z.infer<typeof JsPrepareSubmissionResponseSchema>;

export const SinglePartySignaturesSchema = z.object({ party: z.string(), signatures: z.array(SignatureSchema) });
export const PartySignaturesSchema = z.object({ signatures: z.array(SinglePartySignaturesSchema) });

export const JsExecuteSubmissionRequestSchema = z.object({
  preparedTransaction: z.string(),
  partySignatures: PartySignaturesSchema,
  deduplicationPeriod: DeduplicationPeriodSchema.optional(),
  submissionId: z.string(),
  userId: z.string().default(''),
  hashingSchemeVersion: HashingSchemeVersionSchema,
  minLedgerTime: MinLedgerTimeSchema.optional(),
});
export type JsExecuteSubmissionRequest = z.infer<typeof JsExecuteSubmissionRequestSchema>;

/** `JsExecuteSubmissionAndWaitRequest` has the same fields as `JsExecuteSubmissionRequest`. */
export const JsExecuteSubmissionAndWaitRequestSchema = JsExecuteSubmissionRequestSchema;

export const JsExecuteSubmissionAndWaitForTransactionRequestSchema = JsExecuteSubmissionRequestSchema.extend({
  transactionFormat: TransactionFormatSchema.optional(),
});

export const ExecuteSubmissionAndWaitResponseSchema = z.object({ updateId: z.string(), completionOffset: Int64Schema });

export const PackageReferenceSchema = z.object({ packageId: z.string(), packageName: z.string(), packageVersion: z.string() });

export const GetPreferredPackageVersionResponseSchema = z.object({
  packagePreference: z.object({ packageReference: PackageReferenceSchema, synchronizerId: z.string() }).optional(),
});

export const PackageVettingRequirementSchema = z.object({ parties: z.array(z.string()), packageName: z.string() });

export const GetPreferredPackagesRequestSchema = z.object({
  packageVettingRequirements: z.array(PackageVettingRequirementSchema),
  synchronizerId: z.string().default(''),
  vettingValidAt: z.string().optional(),
});

export const GetPreferredPackagesResponseSchema = z.object({
  packageReferences: z.array(PackageReferenceSchema),
  synchronizerId: z.string(),
});
