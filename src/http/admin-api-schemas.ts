/**
 * Wire types of the emulator's admin API (src/emulator/admin), one zod schema each; the OpenAPI
 * document is built from them. Here, not under src/emulator, because the testcontainers client
 * (src/testcontainers/admin-client.ts) reads the same answers and must never load the emulator.
 */
import { z } from '@hono/zod-openapi';

export const AdminErrorSchema = z.object({ error: z.string() }).openapi('AdminError');

const LedgerEnds = z
  .array(z.number().int().nonnegative())
  .openapi({ description: "Each participant's ledger end (offset), in participant order." });

export const SnapshotCreatedSchema = z.object({ id: z.string(), ledgerEnds: LedgerEnds }).openapi('SnapshotCreated');
export const RestoredSchema = z.object({ id: z.string(), ledgerEnds: LedgerEnds }).openapi('Restored');
export const ResetDoneSchema = z.object({ ledgerEnds: LedgerEnds }).openapi('ResetDone');

export const ClockSchema = z
  .object({
    now: z.string().openapi({ description: 'Ledger time (ISO-8601 instant).', example: '2026-01-01T00:00:00Z' }),
    skewSeconds: z.number().openapi({ description: 'How far the world has been moved ahead of its base clock.' }),
  })
  .openapi('Clock');

export const AdvanceClockRequestSchema = z
  .object({ seconds: z.number().positive().finite().openapi({ description: 'How far to move ledger time forward (never back).', example: 3600 }) })
  .strict()
  .openapi('AdvanceClockRequest');

const PartyOrName = z.string().min(1).openapi({ description: "A party id, or a seeded party's name (`alice`).", example: 'alice' });
const InstrumentIdText = z.string().min(1).openapi({ description: 'An instrument the seeded registries serve (`TT1`, `TT2-USD`, `TT2-EUR`, `Amulet`).', example: 'TT1' });
const AmountText = z.string().min(1).openapi({ description: 'A decimal amount, as text.', example: '100' });
const InstrumentRef = z.object({ admin: z.string(), id: z.string() }).openapi('InstrumentRef');

export const MintRequestSchema = z.object({ instrument: InstrumentIdText, owner: PartyOrName, amount: AmountText }).strict().openapi('MintRequest');
const MintedShape = z.object({ contractId: z.string(), updateId: z.string() });
export const MintedSchema = MintedShape.openapi('Minted');

export const FundRequestSchema = z.object({ owner: PartyOrName, instrument: InstrumentIdText, atLeast: AmountText }).strict().openapi('FundRequest');
export const FundedSchema = z
  .object({
    party: z.string(),
    instrument: InstrumentRef,
    balance: z.string().openapi({ description: 'Unlocked balance after funding.' }),
    // inline, not a $ref: OpenAPI 3.0 ignores `nullable` next to a $ref
    minted: MintedShape.nullable().openapi({ description: 'The holding minted to reach `atLeast`; null when nothing was needed.' }),
  })
  .openapi('Funded');

export const HoldingsQuerySchema = z.object({
  party: z.string().min(1).openapi({ param: { name: 'party', in: 'query', required: true }, description: "A party id, or a seeded party's name.", example: 'alice' }),
});
export const HoldingsSchema = z
  .object({
    party: z.string(),
    balances: z.array(z.object({ instrument: InstrumentRef, amount: z.string(), locked: z.string() })),
    holdings: z.array(z.object({ contractId: z.string(), instrument: InstrumentRef, amount: z.string(), locked: z.boolean(), templateId: z.string() })),
  })
  .openapi('Holdings');

export const SnapshotIdParamSchema = z.object({ id: z.string().min(1).openapi({ param: { name: 'id', in: 'path', required: true } }) });

// ---- the explorer's reads (what the web page at `/` shows; any test suite may read them too) ----

const ParticipantQuery = z
  .string()
  .min(1)
  .optional()
  .openapi({ param: { name: 'participant', in: 'query', required: false }, description: 'A participant id (`participant1::1220...`) or name (`participant1`); default: the first.' });

export const ParticipantQuerySchema = z.object({ participant: ParticipantQuery });

const HostingPermission = z.enum(['Submission', 'Confirmation', 'Observation']);

export const PartiesSchema = z
  .object({
    parties: z.array(
      z.object({
        party: z.string(),
        /** The seeded party's name (`alice`), when it is one. */
        name: z.string().nullable(),
        hostedOn: z.array(z.object({ participantId: z.string(), permission: HostingPermission })),
        threshold: z.number().int(),
        external: z
          .object({
            threshold: z.number().int(),
            keys: z.array(z.object({ fingerprint: z.string(), spec: z.string() })),
          })
          .nullable()
          .openapi({ description: "The party's signing keys when it is an external party (signs its own transactions); null otherwise." }),
      }),
    ),
  })
  .openapi('Parties');

export const UsersSchema = z
  .object({
    users: z.array(
      z.object({
        participantId: z.string(),
        id: z.string(),
        primaryParty: z.string(),
        isDeactivated: z.boolean(),
        rights: z.array(z.object({ kind: z.string(), party: z.string().nullable() })),
      }),
    ),
  })
  .openapi('Users');

export const InstrumentsSchema = z
  .object({
    instruments: z.array(
      z.object({
        instrument: InstrumentRef,
        kind: z.string().openapi({ description: '`splice-test-token-v1`, `splice-test-token-v2`, `amulet`, or `other` (a HoldingV1 of an instrument no seeded registry serves).' }),
        decimals: z.number().int().nullable(),
        supply: z.string().openapi({ description: 'Sum of the active holdings (locked ones included).' }),
        holders: z.number().int(),
      }),
    ),
  })
  .openapi('Instruments');

export const BalancesSchema = z
  .object({
    balances: z.array(z.object({ party: z.string(), instrument: InstrumentRef, amount: z.string(), locked: z.string() })),
  })
  .openapi('Balances');

export const TransactionsQuerySchema = z.object({
  participant: ParticipantQuery,
  before: z
    .string()
    .regex(/^\d+$/, 'before must be an offset (a non-negative integer)')
    .optional()
    .openapi({ param: { name: 'before', in: 'query', required: false }, description: 'Only transactions at offsets below this one (the `nextBefore` of the previous page).' }),
  limit: z
    .string()
    .regex(/^\d+$/, 'limit must be a positive integer')
    .optional()
    .openapi({ param: { name: 'limit', in: 'query', required: false }, description: 'Page size, 1 to 200 (default 50).' }),
  party: z
    .string()
    .min(1)
    .optional()
    .openapi({ param: { name: 'party', in: 'query', required: false }, description: "Only the transactions this party (id or seeded name) witnesses." }),
});

const TemplateRef = z.object({ templateId: z.string().openapi({ description: '`packageId:Module:Entity`' }), packageName: z.string() });

export const TransactionSummarySchema = z
  .object({
    participantId: z.string(),
    offset: z.number().int(),
    updateId: z.string(),
    commandId: z.string(),
    workflowId: z.string(),
    userId: z.string(),
    actAs: z.array(z.string()),
    recordTime: z.string(),
    effectiveAt: z.string(),
    eventCount: z.number().int(),
    /** The root events, in short: what the transaction did. */
    roots: z.array(
      TemplateRef.extend({
        kind: z.enum(['created', 'exercised']),
        contractId: z.string(),
        choice: z.string().nullable(),
      }),
    ),
  })
  .openapi('TransactionSummary');

export const TransactionsPageSchema = z
  .object({
    participantId: z.string(),
    ledgerEnd: z.number().int(),
    transactions: z.array(TransactionSummarySchema),
    nextBefore: z.number().int().nullable().openapi({ description: 'Pass as `before` for the next (older) page; null on the last page.' }),
  })
  .openapi('TransactionsPage');

const CreatedEvent = TemplateRef.extend({
  kind: z.literal('created'),
  nodeId: z.number().int(),
  parentNodeId: z.number().int().nullable(),
  contractId: z.string(),
  payload: z.unknown(),
  signatories: z.array(z.string()),
  observers: z.array(z.string()),
  /** Archived within the same transaction. */
  transient: z.boolean(),
});
const ExercisedEvent = TemplateRef.extend({
  kind: z.literal('exercised'),
  nodeId: z.number().int(),
  parentNodeId: z.number().int().nullable(),
  contractId: z.string(),
  interfaceId: z.string().nullable(),
  choice: z.string(),
  choiceArgument: z.unknown(),
  actingParties: z.array(z.string()),
  /** A consuming choice archives the contract. */
  consuming: z.boolean(),
  exerciseResult: z.unknown(),
  lastDescendantNodeId: z.number().int(),
});

export const TransactionDetailSchema = TransactionSummarySchema.extend({
  events: z.array(z.discriminatedUnion('kind', [CreatedEvent, ExercisedEvent])).openapi({
    description: 'Every event in pre-order (the ledger-effects tree): an exercise is the parent of the events up to its `lastDescendantNodeId`.',
  }),
}).openapi('TransactionDetail');

export const UpdateIdParamSchema = z.object({ updateId: z.string().min(1).openapi({ param: { name: 'updateId', in: 'path', required: true } }) });
export const ContractIdParamSchema = z.object({ contractId: z.string().min(1).openapi({ param: { name: 'contractId', in: 'path', required: true } }) });

const TxRef = z.object({ updateId: z.string(), offset: z.number().int() });

export const ContractSchema = z
  .object({
    participantId: z.string(),
    contractId: z.string(),
    templateId: z.string(),
    packageName: z.string(),
    payload: z.unknown(),
    signatories: z.array(z.string()),
    observers: z.array(z.string()),
    key: z.object({ value: z.unknown(), maintainers: z.array(z.string()) }).nullable(),
    createdAt: z.string(),
    createdBy: TxRef,
    archivedBy: TxRef.extend({ choice: z.string().nullable(), actingParties: z.array(z.string()) }).nullable(),
  })
  .openapi('Contract');

export const RecordedRequestSchema = z
  .object({
    service: z.enum(['registry', 'scan', 'validator']),
    method: z.string(),
    path: z.string().openapi({ description: 'Without the query string.' }),
    status: z.number().int(),
    time: z.string().openapi({ description: 'When the answer was done (wall time, ISO-8601).' }),
    ms: z.number(),
  })
  .openapi('RecordedRequest');

export const RequestsSchema = z.object({ requests: z.array(RecordedRequestSchema).openapi({ description: 'Newest first.' }) }).openapi('Requests');
