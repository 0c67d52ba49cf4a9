/**
 * Wire schemas of the JSON Ledger API v2 RESPONSES the registry's client parses: events, active
 * contracts, updates, errors, ledger end, connected synchronizers and the version (Canton's JSON
 * Ledger API `openapi.yaml` of release-line-3.5 and 3.4; its codecs in `http/json/v2/JsSchema.scala`).
 *
 * Parsing is lenient in the way a client of several Canton versions has to be:
 * - unknown keys are dropped (zod's default), so fields added by later versions do no harm;
 * - fields that one version emits and another omits (3.5's `contractKeyHash` and
 *   `implementationPackageId`, 3.4's `representativePackageId`/`acsDelta`, 3.4's
 *   `paidTrafficCost`) are optional;
 * - "can be empty" strings and arrays accept `null` or absence and come out as `""` / `[]`, since
 *   Canton writes every field (`null`, `""`, `[]`: its circe codecs in `JsSchema.scala`) but the specs mark
 *   most of them optional;
 * - what identifies a thing (contract id, template id, offsets, synchronizer id) is required: a
 *   response without it is not one we can use.
 * Daml values (`createArgument`, `viewValue`, `choiceArgument`, ...) are `unknown`: LF JSON (Canton transcode `JsonCodec.scala`).
 */
import { z } from 'zod';
import { Int64Schema } from './common.js';

// ---- helpers ----------------------------------------------------------------------------------

/** A string the API may send as `""`, `null` or not at all; parsed to a string. */
const emptyableString = z
  .string()
  .nullish()
  .transform((v) => v ?? '');

/** An array the API may send as `[]`, `null` or not at all; parsed to an array. */
function list<T extends z.ZodType>(item: T) {
  return z
    .array(item)
    .nullish()
    .transform((v): z.output<T>[] => v ?? []);
}

/** An optional field that Canton writes as `null` when unset; parsed to `undefined`. */
function optional<T extends z.ZodType>(schema: T) {
  return schema.nullish().transform((v): z.output<T> | undefined => v ?? undefined);
}

const PartiesSchema = list(z.string());

// ---- events (openapi.yaml `CreatedEvent`, `ArchivedEvent`, `ExercisedEvent`) --------------------

/** `JsStatus` of an interface view: code 0 when the view was computed. */
export const JsStatusSchema = z.object({
  code: z.number().int().default(0),
  message: emptyableString,
  details: list(z.unknown()),
});
export type JsStatus = z.output<typeof JsStatusSchema>;

export const JsInterfaceViewSchema = z.object({
  interfaceId: z.string(),
  viewStatus: JsStatusSchema.default({ code: 0, message: '', details: [] }),
  /** The view (LF JSON); `null` when the view failed (see `viewStatus`). */
  viewValue: z.unknown(),
  /** 3.5 only. */
  implementationPackageId: optional(z.string()),
});
export type JsInterfaceView = z.output<typeof JsInterfaceViewSchema>;

export const CreatedEventSchema = z.object({
  offset: Int64Schema,
  nodeId: z.number().int(),
  contractId: z.string().min(1),
  /** Package-id form `<pkgId>:<Module>:<Entity>` (Canton `ProtocolConverters.scala` `IdentifierConverter`). */
  templateId: z.string().min(1),
  contractKey: z.unknown(),
  /** 3.5 only; `""` when the template has no key. */
  contractKeyHash: emptyableString,
  createArgument: z.unknown(),
  /** Base64; `""` unless a matching filter set `includeCreatedEventBlob`. */
  createdEventBlob: emptyableString,
  interfaceViews: list(JsInterfaceViewSchema),
  witnessParties: PartiesSchema,
  signatories: PartiesSchema,
  observers: PartiesSchema,
  createdAt: z.string(),
  packageName: z.string(),
  /** 3.4+. */
  representativePackageId: optional(z.string()),
  /** 3.4+. */
  acsDelta: optional(z.boolean()),
});
export type CreatedEvent = z.output<typeof CreatedEventSchema>;

export const ArchivedEventSchema = z.object({
  offset: Int64Schema,
  nodeId: z.number().int(),
  contractId: z.string().min(1),
  templateId: z.string().min(1),
  witnessParties: PartiesSchema,
  packageName: z.string(),
  implementedInterfaces: list(z.string()),
});
export type ArchivedEvent = z.output<typeof ArchivedEventSchema>;

export const ExercisedEventSchema = z.object({
  offset: Int64Schema,
  nodeId: z.number().int(),
  contractId: z.string().min(1),
  templateId: z.string().min(1),
  interfaceId: optional(z.string()),
  choice: z.string(),
  choiceArgument: z.unknown(),
  actingParties: PartiesSchema,
  consuming: z.boolean(),
  witnessParties: PartiesSchema,
  lastDescendantNodeId: z.number().int(),
  exerciseResult: z.unknown(),
  packageName: z.string(),
  implementedInterfaces: list(z.string()),
  /** 3.4+. */
  acsDelta: optional(z.boolean()),
});
export type ExercisedEvent = z.output<typeof ExercisedEventSchema>;

/** `Event` of a flat transaction: ACS_DELTA has Created/Archived, LEDGER_EFFECTS Created/Exercised. */
export const EventSchema = z.union([
  z.object({ CreatedEvent: CreatedEventSchema }),
  z.object({ ArchivedEvent: ArchivedEventSchema }),
  z.object({ ExercisedEvent: ExercisedEventSchema }),
]);
export type Event = z.output<typeof EventSchema>;

export const UnassignedEventSchema = z.object({
  reassignmentId: z.string(),
  contractId: z.string().min(1),
  templateId: z.string().min(1),
  source: z.string(),
  target: z.string(),
  submitter: emptyableString,
  reassignmentCounter: Int64Schema,
  assignmentExclusivity: optional(z.string()),
  witnessParties: PartiesSchema,
  packageName: z.string(),
  offset: Int64Schema,
  nodeId: z.number().int(),
});
export type UnassignedEvent = z.output<typeof UnassignedEventSchema>;

/** `JsAssignedEvent` (ACS) and `JsAssignmentEvent` (updates) have the same fields. */
export const JsAssignedEventSchema = z.object({
  source: z.string(),
  target: z.string(),
  reassignmentId: z.string(),
  submitter: emptyableString,
  reassignmentCounter: Int64Schema,
  createdEvent: CreatedEventSchema,
});
export type JsAssignedEvent = z.output<typeof JsAssignedEventSchema>;

// ---- active contracts (openapi.yaml `JsGetActiveContractsResponse`) ---------------------------

export const JsActiveContractSchema = z.object({
  createdEvent: CreatedEventSchema,
  /** The synchronizer the contract is assigned to: the one a disclosed contract must name. */
  synchronizerId: z.string().min(1),
  reassignmentCounter: Int64Schema.default(0),
});
export type JsActiveContract = z.output<typeof JsActiveContractSchema>;

export const JsIncompleteAssignedSchema = z.object({ assignedEvent: JsAssignedEventSchema });
export type JsIncompleteAssigned = z.output<typeof JsIncompleteAssignedSchema>;

export const JsIncompleteUnassignedSchema = z.object({
  createdEvent: CreatedEventSchema,
  unassignedEvent: UnassignedEventSchema,
});
export type JsIncompleteUnassigned = z.output<typeof JsIncompleteUnassignedSchema>;

/** `JsContractEntry`: a one-key wrapper (no `value` level: a `Js*` ADT of Canton's `JsSchema.scala`). */
export const JsContractEntrySchema = z.union([
  z.object({ JsActiveContract: JsActiveContractSchema }),
  z.object({ JsIncompleteAssigned: JsIncompleteAssignedSchema }),
  z.object({ JsIncompleteUnassigned: JsIncompleteUnassignedSchema }),
  z.object({ JsEmpty: z.object({}) }),
]);
export type JsContractEntry = z.output<typeof JsContractEntrySchema>;

/** One element of the ACS list form, and of a page's `activeContracts`. */
export const JsGetActiveContractsResponseSchema = z.object({
  workflowId: emptyableString,
  contractEntry: JsContractEntrySchema,
  /** 3.5: resumes the list form after this element; absent on 3.4. */
  streamContinuationToken: optional(z.string()),
});
export type JsGetActiveContractsResponse = z.output<typeof JsGetActiveContractsResponseSchema>;

export const JsGetActiveContractsListResponseSchema = z.array(JsGetActiveContractsResponseSchema);

/** `POST /v2/state/active-contracts-page` (3.5.10). `nextPageToken` absent (or "") on the last page. */
export const JsGetActiveContractsPageResponseSchema = z.object({
  activeContracts: list(JsGetActiveContractsResponseSchema),
  activeAtOffset: Int64Schema,
  nextPageToken: optional(z.string()),
});
export type JsGetActiveContractsPageResponse = z.output<typeof JsGetActiveContractsPageResponseSchema>;

// ---- updates (openapi.yaml `JsGetUpdatesResponse`) --------------------------------------------

export const TraceContextSchema = z.object({
  traceparent: optional(z.string()),
  tracestate: optional(z.string()),
});

export const JsTransactionSchema = z.object({
  updateId: z.string().min(1),
  commandId: emptyableString,
  workflowId: emptyableString,
  effectiveAt: z.string(),
  events: list(EventSchema),
  offset: Int64Schema,
  synchronizerId: z.string().min(1),
  traceContext: optional(TraceContextSchema),
  recordTime: z.string(),
  externalTransactionHash: optional(z.string()),
  /** 3.4+. */
  paidTrafficCost: optional(Int64Schema),
});
export type JsTransaction = z.output<typeof JsTransactionSchema>;

export const JsReassignmentEventSchema = z.union([
  z.object({ JsAssignmentEvent: JsAssignedEventSchema }),
  z.object({ JsUnassignedEvent: z.object({ value: UnassignedEventSchema }) }),
]);
export type JsReassignmentEvent = z.output<typeof JsReassignmentEventSchema>;

export const JsReassignmentSchema = z.object({
  updateId: z.string().min(1),
  commandId: emptyableString,
  workflowId: emptyableString,
  offset: Int64Schema,
  events: list(JsReassignmentEventSchema),
  traceContext: optional(TraceContextSchema),
  recordTime: z.string(),
  synchronizerId: z.string().min(1),
  paidTrafficCost: optional(Int64Schema),
});
export type JsReassignment = z.output<typeof JsReassignmentSchema>;

export const SynchronizerTimeSchema = z.object({ synchronizerId: z.string(), recordTime: z.string() });

export const OffsetCheckpointSchema = z.object({
  offset: Int64Schema,
  synchronizerTimes: list(SynchronizerTimeSchema),
});
export type OffsetCheckpoint = z.output<typeof OffsetCheckpointSchema>;

/** Topology events are not interpreted by the registry: kept as the offset plus the raw value. */
export const JsTopologyTransactionSchema = z.looseObject({ offset: Int64Schema });

/** `Update` oneof: each case has the extra `value` level (a proto oneof in Canton's `JsSchema.scala`). */
export const UpdateSchema = z.union([
  z.object({ Transaction: z.object({ value: JsTransactionSchema }) }),
  z.object({ Reassignment: z.object({ value: JsReassignmentSchema }) }),
  z.object({ OffsetCheckpoint: z.object({ value: OffsetCheckpointSchema }) }),
  z.object({ TopologyTransaction: z.object({ value: JsTopologyTransactionSchema }) }),
]);
export type Update = z.output<typeof UpdateSchema>;

export const JsGetUpdatesResponseSchema = z.object({ update: UpdateSchema });
export type JsGetUpdatesResponse = z.output<typeof JsGetUpdatesResponseSchema>;

export const JsGetUpdatesListResponseSchema = z.array(JsGetUpdatesResponseSchema);

/** The offset an element of the update stream stands for (every case carries one). */
export function offsetOfUpdate(u: JsGetUpdatesResponse): number {
  const up = u.update;
  if ('Transaction' in up) return up.Transaction.value.offset;
  if ('Reassignment' in up) return up.Reassignment.value.offset;
  if ('OffsetCheckpoint' in up) return up.OffsetCheckpoint.value.offset;
  return up.TopologyTransaction.value.offset;
}

// ---- point lookups ------------------------------------------------------------------------------

export const JsCreatedSchema = z.object({ createdEvent: CreatedEventSchema, synchronizerId: z.string().min(1) });
export type JsCreated = z.output<typeof JsCreatedSchema>;
export const JsArchivedSchema = z.object({ archivedEvent: ArchivedEventSchema, synchronizerId: z.string().min(1) });
export type JsArchived = z.output<typeof JsArchivedSchema>;

/** `POST /v2/events/events-by-contract-id`: `created`/`archived` are `null` when absent. */
export const JsGetEventsByContractIdResponseSchema = z.object({
  created: optional(JsCreatedSchema),
  archived: optional(JsArchivedSchema),
});
export type JsGetEventsByContractIdResponse = z.output<typeof JsGetEventsByContractIdResponseSchema>;

/** `POST /v2/contracts/contract-by-id` (3.4+). */
export const GetContractResponseSchema = z.object({ createdEvent: CreatedEventSchema });
export type GetContractResponse = z.output<typeof GetContractResponseSchema>;

// ---- state and system ---------------------------------------------------------------------------

/** `GET /v2/state/ledger-end`: 0 on an empty ledger (3.6 adds `synchronizerTimes`). */
export const GetLedgerEndResponseSchema = z.object({
  offset: Int64Schema.default(0),
  synchronizerTimes: list(SynchronizerTimeSchema),
});
export type GetLedgerEndResponse = z.output<typeof GetLedgerEndResponseSchema>;

export const ConnectedSynchronizerSchema = z.object({
  synchronizerAlias: emptyableString,
  synchronizerId: z.string().min(1),
  /** `PARTICIPANT_PERMISSION_*`; `..._UNSPECIFIED` when the request named no party. Kept as a string. */
  permission: z
    .string()
    .nullish()
    .transform((v) => v ?? 'PARTICIPANT_PERMISSION_UNSPECIFIED'),
});
export type ConnectedSynchronizer = z.output<typeof ConnectedSynchronizerSchema>;

export const GetConnectedSynchronizersResponseSchema = z.object({
  connectedSynchronizers: list(ConnectedSynchronizerSchema),
});
export type GetConnectedSynchronizersResponse = z.output<typeof GetConnectedSynchronizersResponseSchema>;

/** `GET /v2/version`: `{"version":"3.4.11","features":{...}}`; features kept as raw JSON. */
export const GetLedgerApiVersionResponseSchema = z.object({
  version: z.string().min(1),
  features: z
    .record(z.string(), z.unknown())
    .nullish()
    .transform((v) => v ?? {}),
});
export type GetLedgerApiVersionResponse = z.output<typeof GetLedgerApiVersionResponseSchema>;

// ---- errors (`JsCantonError`, Canton `JsSchema.scala`) -----------------------------------------

/**
 * `JsCantonError`. `errorCategory` is -1 for redacted (security-sensitive) and legacy gRPC errors;
 * then only `grpcCodeValue` says what happened.
 */
export const JsCantonErrorSchema = z.object({
  code: z.string(),
  cause: emptyableString,
  correlationId: optional(z.string()),
  traceId: optional(z.string()),
  context: z
    .record(z.string(), z.unknown())
    .nullish()
    .transform((v) => v ?? {}),
  /** `Tuple2[String,String]` on the wire: 2-element arrays. */
  resources: list(z.tuple([z.string(), z.string()]).or(z.array(z.string()).transform((a): [string, string] => [a[0] ?? '', a[1] ?? '']))),
  errorCategory: z.number().int(),
  grpcCodeValue: optional(z.number().int()),
  /** A Scala duration string such as "1 second"; set for retryable categories. */
  retryInfo: optional(z.string()),
  definiteAnswer: optional(z.boolean()),
});
export type JsCantonError = z.output<typeof JsCantonErrorSchema>;
