/**
 * Wire schemas shared by the JSON Ledger API's request types (3.5 spec, with 3.4 and legacy
 * forms still accepted). Decoding is lenient as Canton's circe codecs are: unknown keys are
 * ignored and missing optional fields take protobuf defaults (research/ledger-api.md §1.2).
 */
import { z } from 'zod';

/** int64 fields are JSON numbers on this API (never strings). */
export const Int64Schema = z.number().int();

/** A template/interface identifier string; its 3-part format is checked where it is used. */
export const IdentifierSchema = z.string();

export const WildcardFilterSchema = z.object({
  WildcardFilter: z.object({ value: z.object({ includeCreatedEventBlob: z.boolean().default(false) }).default({ includeCreatedEventBlob: false }) }),
});
export const TemplateFilterSchema = z.object({
  TemplateFilter: z.object({
    value: z.object({ templateId: IdentifierSchema, includeCreatedEventBlob: z.boolean().default(false) }),
  }),
});
export const InterfaceFilterSchema = z.object({
  InterfaceFilter: z.object({
    value: z.object({
      interfaceId: IdentifierSchema,
      includeInterfaceView: z.boolean().default(false),
      includeCreatedEventBlob: z.boolean().default(false),
    }),
  }),
});
export const EmptyFilterSchema = z.object({ Empty: z.object({}) });

export const IdentifierFilterSchema = z.union([WildcardFilterSchema, TemplateFilterSchema, InterfaceFilterSchema, EmptyFilterSchema]);
export type IdentifierFilter = z.infer<typeof IdentifierFilterSchema>;

export const CumulativeFilterSchema = z.object({ identifierFilter: IdentifierFilterSchema.optional() });
export const FiltersSchema = z.object({ cumulative: z.array(CumulativeFilterSchema).default([]) });
export type Filters = z.infer<typeof FiltersSchema>;

export const EventFormatSchema = z.object({
  filtersByParty: z.record(z.string(), FiltersSchema).default({}),
  filtersForAnyParty: FiltersSchema.optional(),
  verbose: z.boolean().default(false),
});
export type EventFormat = z.infer<typeof EventFormatSchema>;

/** Legacy `TransactionFilter` (3.3 form, still accepted by 3.4/3.5 list endpoints). */
export const TransactionFilterSchema = z.object({
  filtersByParty: z.record(z.string(), FiltersSchema).default({}),
  filtersForAnyParty: FiltersSchema.optional(),
});

export const TransactionShapeSchema = z.enum([
  'TRANSACTION_SHAPE_UNSPECIFIED',
  'TRANSACTION_SHAPE_ACS_DELTA',
  'TRANSACTION_SHAPE_LEDGER_EFFECTS',
]);

export const TransactionFormatSchema = z.object({
  eventFormat: EventFormatSchema,
  transactionShape: TransactionShapeSchema,
});
export type TransactionFormat = z.infer<typeof TransactionFormatSchema>;

export const UpdateFormatSchema = z.object({
  includeTransactions: TransactionFormatSchema.optional(),
  includeReassignments: EventFormatSchema.optional(),
  includeTopologyEvents: z
    .object({ includeParticipantAuthorizationEvents: z.object({ parties: z.array(z.string()).default([]) }).optional() })
    .optional(),
});
export type UpdateFormat = z.infer<typeof UpdateFormatSchema>;

/** google.protobuf.Duration as the JSON API writes it: an object, not "30s" (§1.6). */
export const DurationSchema = z.object({
  seconds: Int64Schema.default(0),
  nanos: z.number().int().default(0),
  unknownFields: z.unknown().optional(),
});
