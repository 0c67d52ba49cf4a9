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
