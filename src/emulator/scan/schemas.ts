/**
 * Request bodies of the scan endpoints we serve, one zod schema per wire type of scan.yaml (Splice 0.7.5)
 * and of the V2 ACS/holdings part of canton-network/splice main's scan.yaml. Lenient like the generated server: unknown keys are ignored,
 * optional fields may be absent (or null). Int64 fields take a JSON number or a numeric string, as
 * circe's `Decoder[Long]` does. `format: date-time` fields are parsed as circe parses an
 * `OffsetDateTime`.
 *
 * A body that does not decode is answered 400 `{"error": "The request content was malformed:\n
 * DecodingFailure at .<field>: <reason>"}` (akka-http's MalformedRequestContentRejection text
 * with circe's DecodingFailure, in scan's JSON error body). `minItems` is validated while
 * decoding, with guardrail's message; `maxItems` (Splice main) is checked by the handler (errors.ts).
 */
import { z } from 'zod';
import { parseRequestTime, type RequestTime } from './encode.js';
import { badRequest } from './errors.js';
import { jsonDepthExceeds, showJson } from '../../http/body-limit.js';
import { MAX_JSON_DEPTH } from '../../http/limits.js';

/** circe's `Decoder[Long]`: a JSON number, or a string holding one. */
export const int64 = z.union([z.number(), z.string()]).transform((v, ctx) => {
  const n = typeof v === 'number' ? v : /^-?\d+$/.test(v.trim()) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n)) {
    ctx.addIssue({ code: 'custom', message: `Got value '${showJson(v)}' with wrong type, expecting number` });
    return z.NEVER;
  }
  return n;
});

const int32 = int64.refine((n) => n >= -2147483648 && n <= 2147483647, { message: 'Int32 out of range' });

const dateTime = z.string().transform((s, ctx): RequestTime => {
  const t = parseRequestTime(s);
  if (!t) {
    ctx.addIssue({ code: 'custom', message: `Text '${s}' could not be parsed at index 0` });
    return z.NEVER;
  }
  return t;
});

const opt = <T extends z.ZodType>(t: T) => t.nullish().transform((v) => v ?? undefined);

const recordTimeMatch = opt(z.enum(['exact', 'at_or_before']));
const stringArray = z.array(z.string());

/** `AcsRequest` (v0, v1): int64 `after`. */
export const AcsRequest = z.object({
  migration_id: int64,
  record_time: dateTime,
  record_time_match: recordTimeMatch,
  after: opt(int64),
  page_size: int32,
  party_ids: opt(stringArray),
  templates: opt(stringArray),
});
export type AcsRequest = z.infer<typeof AcsRequest>;

/** `AcsRequestV2`: opaque string `after`. */
export const AcsRequestV2 = AcsRequest.extend({ after: opt(z.string()) });
export type AcsRequestV2 = z.infer<typeof AcsRequestV2>;

const ownerPartyIds = stringArray.refine((a) => a.length >= 1, {
  // guardrail's generated minItems check (camelCase, as Splice's scan answers it)
  message: "Expected 'ownerPartyIds' to contain at least one item, but contained none.",
  abort: true,
});

/** `HoldingsStateRequest` (v0, v1). */
export const HoldingsStateRequest = z.object({
  migration_id: int64,
  record_time: dateTime,
  record_time_match: recordTimeMatch,
  after: opt(int64),
  page_size: int32,
  owner_party_ids: ownerPartyIds,
});
export type HoldingsStateRequest = z.infer<typeof HoldingsStateRequest>;

/** `HoldingsStateRequestV2`. */
export const HoldingsStateRequestV2 = HoldingsStateRequest.extend({ after: opt(z.string()) });
export type HoldingsStateRequestV2 = z.infer<typeof HoldingsStateRequestV2>;

/** `UpdateHistoryRequestV2`. */
export const UpdateHistoryRequestV2 = z.object({
  after: opt(
    z.object({
      after_migration_id: int64,
      after_record_time: z.string(),
    }),
  ),
  page_size: int32,
  daml_value_encoding: opt(z.enum(['compact_json', 'protobuf_json'])),
});
export type UpdateHistoryRequestV2 = z.infer<typeof UpdateHistoryRequestV2>;

/** `GetOpenAndIssuingMiningRoundsRequest`: both arrays required (may be empty). */
export const OpenAndIssuingMiningRoundsRequest = z.object({
  cached_open_mining_round_contract_ids: stringArray,
  cached_issuing_round_contract_ids: stringArray,
});
export type OpenAndIssuingMiningRoundsRequest = z.infer<typeof OpenAndIssuingMiningRoundsRequest>;

/** `GetAmuletRulesRequest`. */
export const AmuletRulesRequest = z.object({
  cached_amulet_rules_contract_id: opt(z.string()),
  cached_amulet_rules_domain_id: opt(z.string()),
});
export type AmuletRulesRequest = z.infer<typeof AmuletRulesRequest>;

/** `GetExternalPartyAmuletRulesRequest`. */
export const ExternalPartyAmuletRulesRequest = z.object({
  cached_external_party_amulet_rules_contract_id: opt(z.string()),
  cached_external_party_amulet_rules_domain_id: opt(z.string()),
});
export type ExternalPartyAmuletRulesRequest = z.infer<typeof ExternalPartyAmuletRulesRequest>;

/** `ListBulkUpdateHistoryObjectsRequest` (page_size 1..1000 is a schema bound there). */
export const ListBulkUpdateHistoryObjectsRequest = z.object({
  start_record_time: dateTime,
  end_record_time: dateTime,
  next_page_token: opt(z.string()),
  page_size: int32,
});

const MALFORMED = 'The request content was malformed:\n';

/** Parses a request body text as JSON and decodes it; throws the 400 scan answers. */
export function decodeBody<S extends z.ZodType>(text: string, schema: S): z.infer<S> {
  if (text.trim() === '') throw badRequest(`${MALFORMED}exhausted input`);
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) throw badRequest(`${MALFORMED}JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest(`${MALFORMED}expected json value got '${text.trim().slice(0, 10)}'`);
  }
  return decodeValue(value, schema);
}

export function decodeValue<S extends z.ZodType>(value: unknown, schema: S): z.infer<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  if (issue.message.startsWith("Expected 'ownerPartyIds'")) throw badRequest(issue.message);
  const path = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
  throw badRequest(`${MALFORMED}DecodingFailure at ${path === '' ? '' : path}: ${issueText(issue, value)}`);
}

function issueText(issue: z.core.$ZodIssue, root: unknown): string {
  let got: unknown = root;
  for (const seg of issue.path) got = got !== null && typeof got === 'object' ? (got as Record<PropertyKey, unknown>)[seg] : undefined;
  if (issue.code === 'invalid_type') {
    if (got === undefined) return 'Missing required field';
    const expected = issue.expected === 'array' ? 'json array' : issue.expected === 'object' ? 'json object' : issue.expected;
    return `Got value '${showJson(got)}' with wrong type, expecting ${expected}`;
  }
  if (issue.code === 'invalid_union') {
    if (got === undefined) return 'Missing required field';
    return `Got value '${showJson(got)}' with wrong type, expecting number`;
  }
  if (issue.code === 'invalid_value') return `Unknown value ${showJson(got)}, expected one of: ${issue.values.join(', ')}`;
  return issue.message;
}

