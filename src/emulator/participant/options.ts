/**
 * The emulated participant's options (zod only, no behaviour): its identity, the second
 * participant, the durable state, its admin users, and how templates run. config/schema.ts
 * assembles them into the emulator's configuration without loading the engine.
 */
import { z } from 'zod';

/** A Canton unique identifier `<identifier>::<namespace>` (a participant or synchronizer id), namespace `1220` + 64 hex. */
const UniqueIdentifierSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,185}::1220[0-9a-f]{64}$/, 'a Canton id is <identifier>::1220<64 lowercase hex> (e.g. participant1::1220d44f...)');

const PackageIdSchema = z.string().regex(/^[0-9a-f]{64}$/, 'a package id is 64 lowercase hex characters');

/** A template or interface of a Daml model the emulator does not implement. */
export const DeclaredIdSchema = z.object({
  packageName: z.string().min(1).describe('Package name of the Daml model.'),
  packageId: PackageIdSchema.optional().describe('Package id; defaults to a stable id derived from the package name (SHA-256 of `declared/<name>`).'),
  moduleName: z.string().min(1).describe('Module of the template or interface.'),
  entityName: z.string().min(1).describe('Name of the template or interface.'),
});

export const DeclaredTemplateConfigSchema = DeclaredIdSchema.extend({
  signatories: z.array(z.string().min(1)).min(1).describe('Payload fields (paths) holding the signatories.'),
  observers: z.array(z.string().min(1)).default([]).describe('Payload fields (paths) holding the observers.'),
  implements: z
    .array(
      z.object({
        interface: DeclaredIdSchema.describe('The interface implemented.'),
        view: z.record(z.string(), z.string()).optional().describe('Interface view: each view field taken from this payload field.'),
      }),
    )
    .default([])
    .describe('Interfaces the template implements.'),
});
export type DeclaredTemplateConfig = z.infer<typeof DeclaredTemplateConfigSchema>;

/** The participant's fields of the emulator configuration. */
export const ParticipantOptionsShape = {
  seed: z.string().min(1).default('token-registry').describe('Seed of every generated id: the same seed and commands give the same ledger.'),
  participantName: z.string().regex(/^[A-Za-z0-9_-]+$/).default('participant1').describe('Name of the first participant.'),
  participantId: UniqueIdentifierSchema.optional().describe("The first participant's id, pinned (`<identifier>::<namespace>`; its parties are `hint::<namespace>`), for clients whose configuration holds an id a real Canton bootstrap fixed. Default: `<participantName>::<a namespace derived from the seed>`."),
  synchronizerId: UniqueIdentifierSchema.optional().describe("The synchronizer's id, pinned. Default: `global-domain::<a namespace derived from the seed>`."),
  participants: z.union([z.literal(1), z.literal(2)]).default(1).describe('How many participants the emulated synchronizer has; the second (`participant2`) has its own ledger API, users, rights, packages, hosted parties and offsets.'),
  participant2Name: z.string().regex(/^[A-Za-z0-9_-]+$/).default('participant2').describe("The second participant's node name (with `participants: 2`)."),
  participant2Id: UniqueIdentifierSchema.optional().describe("The second participant's id, pinned. Default: `<participant2Name>::<a namespace derived from the seed>`."),
  stateDir: z.string().min(1).optional().describe('Keep the emulated world across restarts in this directory (journal + snapshots); in memory only when unset.'),
  snapshotEvery: z.number().int().positive().default(10_000).describe('Journaled changes between two snapshots of the state directory.'),
  stateProbeEveryMs: z.number().int().positive().default(1000).describe('While the state directory cannot be written (a full disk), how often a probe write checks whether it can again.'),
  adminUsers: z.array(z.string().min(1)).default(['ledger-api-user']).describe('Extra users holding ParticipantAdmin (LocalNet configures `ledger-api-user`).'),
  templateEngine: z.enum(['native', 'daml']).default('native').describe('How the token templates run: `native` (TypeScript) or `daml` (the Daml-LF evaluator runs TestTokenV1/V2 and Amulet from their DARs in `darsDir`; the demo world is seeded through it). Templates of other uploaded DARs are evaluated either way.'),
  darsDir: z.string().min(1).optional().describe('A folder whose `*.dar` files every participant uploads at start (needed by `templateEngine: daml`).'),
  declaredTemplates: z.array(DeclaredTemplateConfigSchema).default([]).describe('Templates of Daml models the emulator does not implement (signatories/observers by field path).'),
};
