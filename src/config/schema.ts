/**
 * The whole configuration, as one zod schema. It is parsed once at start-up (from the
 * environment, see load.ts), frozen, and passed down; nothing else reads `process.env`.
 */
import { z } from 'zod';
import { AuthConfigSchema } from '../emulator/ledger-api/auth-options.js';
import { DemoWorldSchema } from '../emulator/seed-options.js';
import { AmuletRegistryCompatSchema } from './registry.js';
import { OperationsConfigShape } from './operations.js';
import { LOCALNET_LEDGER_AUTH, PROFILE_NAMES, type ProfileName } from './localnet.js';
import { SpliceInstanceNamesSchema, type SpliceInstanceNames } from './instance-names.js';

export const LogLevelSchema = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/** The named sets of defaults `emulate` can start with (profiles.ts): `localnet` is Splice LocalNet's topology and addresses. */
export const ProfileNameSchema = z.enum(PROFILE_NAMES);
export type { ProfileName };

/** A Canton unique identifier `<identifier>::<namespace>` (a participant or synchronizer id), namespace `1220` + 64 hex. */
const UniqueIdentifierSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,185}::1220[0-9a-f]{64}$/, 'a Canton id is <identifier>::1220<64 lowercase hex> (e.g. participant1::1220d44f...)');

export { SpliceInstanceNamesSchema, type SpliceInstanceNames };

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

export { LOCALNET_LEDGER_AUTH };

/**
 * `LEDGER_AUTH=localnet`: the ledger accepts LocalNet's tokens as they are (HS256, secret `unsafe`,
 * `aud` = `https://canton.network.global`, user in `sub`), which is exactly what the wallet SDK's
 * `self_signed` auth mints. A preset of `jwt`: secret and audience can still be overridden.
 */
const LocalnetAuthConfigSchema = z
  .object({
    mode: z.literal('localnet'),
    hs256Secret: z.string().min(1).default(LOCALNET_LEDGER_AUTH.hs256Secret).describe("HS256 secret (LocalNet's `unsafe`)."),
    targetAudience: z.string().min(1).default(LOCALNET_LEDGER_AUTH.targetAudience).describe('`target-audience`: `aud` must contain exactly this string.'),
    targetScope: z.string().min(1).optional().describe('`target-scope`: `scope`/`scp` must contain this string.'),
    leewaySeconds: z.number().int().nonnegative().optional().describe('`jwt-timestamp-leeway` (seconds) applied to `exp`, `nbf` and `iat`.'),
  })
  .strict()
  .transform(({ mode: _preset, ...jwt }) => ({ mode: 'jwt' as const, ...jwt }));

/** The ledger's auth: `none`, `jwt` (any Canton auth service), or the `localnet` preset of `jwt`. */
export const EmulatorAuthConfigSchema = z.union([AuthConfigSchema, LocalnetAuthConfigSchema]);

export const EmulatorConfigSchema = z.object({
  profile: ProfileNameSchema.optional().describe('The profile whose defaults were applied (`localnet`); settings given explicitly override them one by one.'),
  port: z.number().int().min(0).max(65535).default(7575).describe("Port of the emulated ledger node's JSON API (Canton's default is 7575)."),
  registryPort: z.number().int().min(0).max(65535).default(7576).describe("Port of the demo admin's token-standard registry."),
  scanPort: z.number().int().min(0).max(65535).default(7577).describe('Port of the emulated Splice scan (`/api/scan`, and the Amulet registry at `/registry`).'),
  validatorPort: z.number().int().min(0).max(65535).default(7578).describe('Port of the emulated Splice validator (`/api/validator`).'),
  exampleRegistryPort: z
    .number()
    .int()
    .min(0)
    .max(65535)
    .optional()
    .describe("Port of the emulated example test-token registry of canton-network/wallet (`examples/test-token-v1-registry`; LocalNet serves it on 5634). Unset: not started, and its operator and TokenRules are not seeded."),
  adminPort: z.number().int().min(0).max(65535).default(7580).describe("Port of the emulator's admin API (`/admin/v1/...`: snapshots, restore, reset, clock, mint, fund, holdings)."),
  validatorAuth: z
    .object({
      secret: z.string().min(1).default('unsafe').describe('HS256 secret.'),
      audience: z.string().min(1).default('https://canton.network.global').describe('`aud` a token must carry.'),
      jwksUrl: z.url().optional().describe('JWKS URL for RS256/ES256 tokens.'),
    })
    .default({ secret: 'unsafe', audience: 'https://canton.network.global' })
    .describe('JWT verification of the emulated validator (LocalNet: HS256 secret `unsafe`, this audience).'),
  redisUrl: z.string().optional().describe("Redis for the registries' cache of disclosed contracts; in memory when unset."),
  host: z.string().min(1).default('127.0.0.1').describe('Interface to listen on (0.0.0.0 inside containers).'),
  seed: z.string().min(1).default('token-registry').describe('Seed of every generated id: the same seed and commands give the same ledger.'),
  participantName: z.string().regex(/^[A-Za-z0-9_-]+$/).default('participant1').describe('Name of the first participant.'),
  participantId: UniqueIdentifierSchema.optional().describe("The first participant's id, pinned (`<identifier>::<namespace>`; its parties are `hint::<namespace>`), for clients whose configuration holds an id a real Canton bootstrap fixed. Default: `<participantName>::<a namespace derived from the seed>`."),
  synchronizerId: UniqueIdentifierSchema.optional().describe("The synchronizer's id, pinned. Default: `global-domain::<a namespace derived from the seed>`."),
  participants: z.union([z.literal(1), z.literal(2)]).default(1).describe('How many participants the emulated synchronizer has; the second (`participant2`) has its own ledger API, users, rights, packages, hosted parties and offsets.'),
  participant2Port: z.number().int().min(0).max(65535).default(7579).describe("Port of the second participant's ledger API (with `participants: 2`)."),
  participant2Name: z.string().regex(/^[A-Za-z0-9_-]+$/).default('participant2').describe("The second participant's node name (with `participants: 2`)."),
  participant2Id: UniqueIdentifierSchema.optional().describe("The second participant's id, pinned. Default: `<participant2Name>::<a namespace derived from the seed>`."),
  stateDir: z.string().min(1).optional().describe('Keep the emulated world across restarts in this directory (journal + snapshots); in memory only when unset.'),
  snapshotEvery: z.number().int().positive().default(10_000).describe('Journaled changes between two snapshots of the state directory.'),
  stateProbeEveryMs: z.number().int().positive().default(1000).describe('While the state directory cannot be written (a full disk), how often a probe write checks whether it can again.'),
  adminUsers: z.array(z.string().min(1)).default(['ledger-api-user']).describe('Extra users holding ParticipantAdmin (LocalNet configures `ledger-api-user`).'),
  auth: EmulatorAuthConfigSchema.default({ mode: 'none' }).describe(
    "The ledger's auth: `none` (the sandbox default), `jwt` (as Canton's auth services), or `localnet` (`jwt` with LocalNet's secret and audience).",
  ),
  demoWorld: z.boolean().default(true).describe('Seed the demo world at start (parties, users, instruments, holdings).'),
  world: DemoWorldSchema.optional().describe('Replace the default demo world.'),
  listMaxElements: z.number().int().positive().default(200).describe('`http-list-max-elements-limit` of the JSON API.'),
  logLevel: LogLevelSchema.default('info').describe('pino level (`info`: one access-log line per request).'),
  instanceNames: SpliceInstanceNamesSchema.default({
    networkName: 'Canton Network',
    networkFaviconUrl: 'https://www.canton.network/hubfs/cn-favicon-05%201-1.png',
    amuletName: 'Canton Coin',
    amuletNameAcronym: 'CC',
    nameServiceName: 'Canton Name Service',
    nameServiceNameAcronym: 'CNS',
  }).describe("What the network calls itself, Amulet and its name service (scan's `/v0/splice-instance-names`; the Amulet registry's instrument name and symbol). MainNet's names by default; LocalNet's are Amulet / AMT, Amulet Name Service / ANS."),
  amuletRegistryCompat: AmuletRegistryCompatSchema.default('current').describe("Which Scan generation the emulated scan's Amulet registry answers as (`legacy`: before the external-party config state)."),
  templateEngine: z.enum(['native', 'daml']).default('native').describe('How the token templates run: `native` (TypeScript) or `daml` (the Daml-LF evaluator runs TestTokenV1/V2 and Amulet from their DARs in `darsDir`; the demo world is seeded through it). Templates of other uploaded DARs are evaluated either way.'),
  darsDir: z.string().min(1).optional().describe('A folder whose `*.dar` files every participant uploads at start (needed by `templateEngine: daml`).'),
  declaredTemplates: z.array(DeclaredTemplateConfigSchema).default([]).describe('Templates of Daml models the emulator does not implement (signatories/observers by field path).'),
  ...OperationsConfigShape,
});
export type EmulatorConfig = z.infer<typeof EmulatorConfigSchema>;
/** The configuration as given (defaults optional, `auth` may be the `localnet` preset). */
export type EmulatorConfigInput = z.input<typeof EmulatorConfigSchema>;
