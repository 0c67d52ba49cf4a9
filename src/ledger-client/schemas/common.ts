/**
 * Wire schemas shared by the JSON Ledger API's request types (3.5 spec, with 3.4 and legacy
 * forms still accepted). Decoding is lenient as Canton's circe codecs are: unknown keys are
 * ignored and missing optional fields take protobuf defaults (digital-asset/canton `.../http/json/v2/CirceRelaxedCodec.scala`).
 */
import { z } from 'zod';
import { isPlainObject } from '../../canton/json-shape.js';

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

/** zod's own reading of a party → Filters map: the reference, and the source of its errors. */
const FiltersByPartyRecordSchema = z.record(z.string(), FiltersSchema);

/**
 * `filtersByParty`: exactly FiltersByPartyRecordSchema's result and errors, fast for big maps.
 *
 * Canton bounds such a map only by the request's size (its JSON API takes bodies up to
 * `maxInboundMessageSize`, 10 MiB by default; digital-asset/canton
 * `community/app/src/test/.../jsonapi/JsonMaxInboundMessageSizeTest.scala`), so a request may
 * name tens of thousands of parties, and zod's per-entry work then blocked the event loop for
 * longer than parsing the JSON did. Nearly every entry of such a map is the party wildcard
 * (`{}` or `{"cumulative": []}`): those are read here directly; any other entry goes through
 * FiltersSchema, and the first failing one hands the whole map to zod for its exact issues.
 */
/** The result for each such entry, shared (frozen: a map's entries are read, never changed). */
const PARTY_WILDCARD: Filters = { cumulative: [] };
Object.freeze(PARTY_WILDCARD.cumulative);
Object.freeze(PARTY_WILDCARD);

export const FiltersByPartySchema = z.unknown().transform((input, ctx): Record<string, Filters> => {
  if (input === undefined) return {}; // the field's default
  if (!isPlainObject(input)) return fail(input, ctx);
  const out: Record<string, Filters> = {};
  for (const party of Object.keys(input)) {
    if (party === '__proto__') continue; // as zod: never the result's prototype
    const f = input[party];
    if (isPlainObject(f) && (f.cumulative === undefined || (Array.isArray(f.cumulative) && f.cumulative.length === 0))) {
      out[party] = PARTY_WILDCARD;
      continue;
    }
    const r = FiltersSchema.safeParse(f);
    if (!r.success) return fail(input, ctx);
    out[party] = r.data;
  }
  return out;
});

function fail(input: unknown, ctx: z.RefinementCtx): never {
  const r = FiltersByPartyRecordSchema.safeParse(input);
  for (const issue of r.error?.issues ?? []) ctx.addIssue({ ...issue });
  return z.NEVER;
}

export const EventFormatSchema = z.object({
  filtersByParty: FiltersByPartySchema.default({}),
  filtersForAnyParty: FiltersSchema.optional(),
  verbose: z.boolean().default(false),
});
export type EventFormat = z.infer<typeof EventFormatSchema>;

/** Legacy `TransactionFilter` (3.3 form, still accepted by 3.4/3.5 list endpoints). */
export const TransactionFilterSchema = z.object({
  filtersByParty: FiltersByPartySchema.default({}),
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

/** google.protobuf.Duration as the JSON API writes it: an object, not "30s" (seen on Canton 3.4's `GET /v2/version`). */
export const DurationSchema = z.object({
  seconds: Int64Schema.default(0),
  nanos: z.number().int().default(0),
  unknownFields: z.unknown().optional(),
});

/**
 * A protobuf `bytes` field as the JSON Ledger API reads it: `java.util.Base64.getDecoder` (standard
 * alphabet, padding optional but exact when present); anything else fails the body decode with
 * "The string is not a valid Base64: <value>" (digital-asset/canton:
 * community/ledger/ledger-json-api/src/main/scala/com/digitalasset/canton/http/json/v2/JsSchema.scala,
 * `BYTE_STRING_PARSE_ERROR_TEMPLATE`).
 */
export const JsonBytesSchema = z.string().refine((s) => isJavaBase64(s), {
  error: (iss) => `The string is not a valid Base64: ${String(iss.input)}`,
});

function isJavaBase64(s: string): boolean {
  const m = /^([A-Za-z0-9+/]*)(={0,2})$/.exec(s);
  if (!m) return false;
  const body = m[1]!.length;
  const pad = m[2]!.length;
  if (pad === 0) return body % 4 !== 1;
  return (body + pad) % 4 === 0 && body % 4 === 4 - pad;
}
