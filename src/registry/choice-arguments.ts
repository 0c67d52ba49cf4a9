/**
 * The factory choices' arguments as wallets send them in `choiceArguments` (Daml JSON), parsed
 * only as far as the registry needs: to pick the recipe and to pre-check what the token would
 * reject anyway (Amulet's `amulet_transferFactory_transferImpl`, the test tokens' factories). Unknown fields are ignored (the Splice CLI
 * sends `transfer.lock: null`); decimals and times are checked by the service.
 */
import { z } from 'zod';

const Party = z.string().min(1);
const Metadata = z.object({ values: z.record(z.string(), z.string()).default({}) }).optional();
const InstrumentId = z.object({ admin: Party, id: z.string() });
const Decimal = z.union([z.string(), z.number()]);
const Time = z.string();
export const AccountSchema = z.object({ owner: Party.nullable().optional(), provider: Party.nullable().optional(), id: z.string().default('') });
export type Account = z.infer<typeof AccountSchema>;

/** TransferFactory_Transfer (V1). */
export const TransferV1ArgsSchema = z.object({
  expectedAdmin: Party,
  transfer: z.object({
    sender: Party,
    receiver: Party,
    amount: Decimal,
    instrumentId: InstrumentId,
    requestedAt: Time,
    executeBefore: Time,
    inputHoldingCids: z.array(z.string()).default([]),
    meta: Metadata,
  }),
});

/** TransferFactory_Transfer (V2): accounts instead of parties, no expectedAdmin, actors. */
export const TransferV2ArgsSchema = z.object({
  transfer: z.object({
    sender: AccountSchema,
    receiver: AccountSchema,
    amount: Decimal,
    instrumentId: InstrumentId,
    requestedAt: Time,
    executeBefore: Time,
    inputHoldingCids: z.array(z.string()).default([]),
    meta: Metadata,
  }),
  actors: z.array(Party).default([]),
});

/** AllocationFactory_Allocate (V1). */
export const AllocateV1ArgsSchema = z.object({
  expectedAdmin: Party,
  allocation: z.object({
    settlement: z.object({ executor: Party, requestedAt: Time, allocateBefore: Time, settleBefore: Time }),
    transferLegId: z.string(),
    transferLeg: z.object({ sender: Party, receiver: Party, amount: Decimal, instrumentId: InstrumentId }),
  }),
  requestedAt: Time,
  inputHoldingCids: z.array(z.string()).default([]),
});

const TransferLegSide = z.object({
  transferLegId: z.string(),
  side: z.string(),
  otherside: AccountSchema,
  amount: Decimal,
  instrumentId: z.string(),
});

/** AllocationFactory_Allocate (V2). */
export const AllocateV2ArgsSchema = z.object({
  settlement: z.object({ executors: z.array(Party).default([]), id: z.string() }),
  allocation: z.object({
    admin: Party,
    authorizer: AccountSchema,
    transferLegSides: z.array(TransferLegSide),
    settlementDeadline: Time.nullable().optional(),
  }),
  requestedAt: Time,
  inputHoldingCids: z.array(z.string()).default([]),
  actors: z.array(Party).default([]),
});

/** SettlementFactory_SettleBatch (V2). */
export const SettleBatchArgsSchema = z.object({
  settlement: z.object({ executors: z.array(Party).default([]), id: z.string() }),
  transferLegs: z.array(
    z.object({ transferLegId: z.string(), sender: AccountSchema, receiver: AccountSchema, amount: Decimal, instrumentId: z.string() }),
  ),
  allocations: z.array(z.object({ allocationCid: z.string() })),
  actors: z.array(Party).default([]),
});

/** The v2 size limits every registry MUST support (allocation-instruction-v2.yaml, allocation-v2.yaml). */
export const V2_LIMITS = { transferLegs: 25, instrumentIds: 25, accounts: 50, parties: 100, allocations: 50 } as const;

/** First zod issue as `path: message`, for a 400 that says what is wrong. */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0]!;
  const path = issue.path.join('.');
  return path === '' ? issue.message : `${path}: ${issue.message}`;
}
