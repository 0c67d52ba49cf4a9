/**
 * The whole configuration, as one zod schema. It is parsed once at start-up (from the
 * environment, see load.ts), frozen, and passed down; nothing else reads `process.env`.
 */
import { z } from 'zod';
import { AuthConfigSchema } from '../emulator/ledger-api/auth.js';
import { DemoWorldSchema } from '../emulator/seed.js';
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
  packageName: z.string().min(1),
  /** Defaults to a stable id derived from the package name (SHA-256 of `declared/<name>`). */
  packageId: PackageIdSchema.optional(),
  moduleName: z.string().min(1),
  entityName: z.string().min(1),
});

export const DeclaredTemplateConfigSchema = DeclaredIdSchema.extend({
  signatories: z.array(z.string().min(1)).min(1),
  observers: z.array(z.string().min(1)).default([]),
  implements: z
    .array(z.object({ interface: DeclaredIdSchema, view: z.record(z.string(), z.string()).optional() }))
    .default([]),
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
    hs256Secret: z.string().min(1).default(LOCALNET_LEDGER_AUTH.hs256Secret),
    targetAudience: z.string().min(1).default(LOCALNET_LEDGER_AUTH.targetAudience),
    targetScope: z.string().min(1).optional(),
    leewaySeconds: z.number().int().nonnegative().optional(),
  })
  .strict()
  .transform(({ mode: _preset, ...jwt }) => ({ mode: 'jwt' as const, ...jwt }));

/** The ledger's auth: `none`, `jwt` (any Canton auth service), or the `localnet` preset of `jwt`. */
export const EmulatorAuthConfigSchema = z.union([AuthConfigSchema, LocalnetAuthConfigSchema]);

export const EmulatorConfigSchema = z.object({
  /** The profile whose defaults were applied (profiles.ts); settings given explicitly override them. */
  profile: ProfileNameSchema.optional().describe('PROFILE (or emulate --profile): localnet'),
  /** Port of the emulated ledger node's JSON API (Canton's default is 7575). */
  port: z.number().int().min(0).max(65535).default(7575).describe('PORT: ledger JSON API port'),
  /** Port of the demo admin's token-standard registry. */
  registryPort: z.number().int().min(0).max(65535).default(7576).describe('REGISTRY_PORT'),
  /** Port of the emulated Splice scan (`/api/scan`, and the Amulet registry at `/registry`). */
  scanPort: z.number().int().min(0).max(65535).default(7577).describe('SCAN_PORT'),
  /** Port of the emulated Splice validator (`/api/validator`). */
  validatorPort: z.number().int().min(0).max(65535).default(7578).describe('VALIDATOR_PORT'),
  /** Port of the emulator's admin API (`/admin/v1/...`: snapshots, restore, reset, clock, mint, fund, holdings). */
  adminPort: z.number().int().min(0).max(65535).default(7580).describe('ADMIN_PORT'),
  /** JWT verification of the emulated validator (LocalNet: HS256 secret `unsafe`, this audience). */
  validatorAuth: z
    .object({
      secret: z.string().min(1).default('unsafe'),
      audience: z.string().min(1).default('https://canton.network.global'),
      jwksUrl: z.url().optional(),
    })
    .default({ secret: 'unsafe', audience: 'https://canton.network.global' })
    .describe('VALIDATOR_AUTH_SECRET, VALIDATOR_AUTH_AUDIENCE, VALIDATOR_AUTH_JWKS_URL'),
  /** Redis for the registry's cache of disclosed contracts; in memory when unset. */
  redisUrl: z.string().optional().describe('REDIS_URL'),
  /** Interface to listen on. 127.0.0.1 by default; 0.0.0.0 inside containers. */
  host: z.string().min(1).default('127.0.0.1').describe('HOST: interface to bind'),
  /** Seed of every generated id: the same seed and commands give the same ledger. */
  seed: z.string().min(1).default('token-registry').describe('EMULATOR_SEED'),
  participantName: z.string().regex(/^[A-Za-z0-9_-]+$/).default('participant1').describe('PARTICIPANT_NAME'),
  /**
   * The first participant's id, pinned (`<identifier>::<namespace>`; its parties are
   * `hint::<namespace>`). Default: `<participantName>::<a namespace derived from EMULATOR_SEED>`.
   * For clients whose configuration holds a participant id a real Canton bootstrap fixed.
   */
  participantId: UniqueIdentifierSchema.optional().describe('PARTICIPANT_ID'),
  /** The synchronizer's id, pinned (default `global-domain::<a namespace derived from EMULATOR_SEED>`). */
  synchronizerId: UniqueIdentifierSchema.optional().describe('SYNCHRONIZER_ID'),
  /**
   * How many participants the emulated synchronizer has. The second one (`participant2`) has its
   * own ledger API on `participant2Port`, its own users, rights, packages, hosted parties and offsets.
   */
  participants: z.union([z.literal(1), z.literal(2)]).default(1).describe('PARTICIPANTS: 1 or 2'),
  /** Port of the second participant's ledger API (with `participants: 2`). */
  participant2Port: z.number().int().min(0).max(65535).default(7579).describe('PARTICIPANT2_PORT'),
  /** The second participant's node name (with `participants: 2`). */
  participant2Name: z.string().regex(/^[A-Za-z0-9_-]+$/).default('participant2').describe('PARTICIPANT2_NAME'),
  /** The second participant's id, pinned (default `<participant2Name>::<a namespace derived from EMULATOR_SEED>`). */
  participant2Id: UniqueIdentifierSchema.optional().describe('PARTICIPANT2_ID'),
  /**
   * Keep the emulated world across restarts in this directory (journal + snapshots); in memory
   * only when unset.
   */
  stateDir: z.string().min(1).optional().describe('STATE_DIR'),
  /** Journaled changes between two snapshots of STATE_DIR. */
  snapshotEvery: z.number().int().positive().default(10_000).describe('STATE_SNAPSHOT_EVERY'),
  /** While STATE_DIR cannot be written (a full disk), how often a probe write checks whether it can again. */
  stateProbeEveryMs: z.number().int().positive().default(1000).describe('STATE_PROBE_EVERY_MS'),
  /** Extra users holding ParticipantAdmin (LocalNet configures `ledger-api-user`). */
  adminUsers: z.array(z.string().min(1)).default(['ledger-api-user']).describe('LEDGER_ADMIN_USERS (comma separated)'),
  auth: EmulatorAuthConfigSchema.default({ mode: 'none' }).describe(
    'LEDGER_AUTH=none|jwt|localnet; LEDGER_AUTH_HS256_SECRET, LEDGER_AUTH_JWKS_URL, LEDGER_AUTH_PUBLIC_KEY_FILE, LEDGER_AUTH_TARGET_AUDIENCE, LEDGER_AUTH_TARGET_SCOPE, LEDGER_AUTH_LEEWAY_SECONDS',
  ),
  /** Seed the demo world at start (parties, users, instruments, holdings). */
  demoWorld: z.boolean().default(true).describe('DEMO_WORLD=false turns the demo world off'),
  /** Replace the default demo world (see DemoWorldSchema in src/emulator/seed.ts). */
  world: DemoWorldSchema.optional().describe('DEMO_WORLD_FILE (JSON)'),
  /** `http-list-max-elements-limit` of the JSON API. */
  listMaxElements: z.number().int().positive().default(200).describe('LEDGER_LIST_MAX_ELEMENTS'),
  logLevel: LogLevelSchema.default('info').describe('LOG_LEVEL'),
  /** Which Scan generation the emulated scan's Amulet registry answers as (`legacy`: pre config state). */
  /** What the network calls itself, Amulet and its name service (scan's splice-instance-names; the Amulet registry's instrument name and symbol). */
  instanceNames: SpliceInstanceNamesSchema.default({
    networkName: 'Canton Network',
    networkFaviconUrl: 'https://www.canton.network/hubfs/cn-favicon-05%201-1.png',
    amuletName: 'Canton Coin',
    amuletNameAcronym: 'CC',
    nameServiceName: 'Canton Name Service',
    nameServiceNameAcronym: 'CNS',
  }).describe('NETWORK_NAME, NETWORK_FAVICON_URL, AMULET_NAME, AMULET_NAME_ACRONYM, NAME_SERVICE_NAME, NAME_SERVICE_NAME_ACRONYM'),
  amuletRegistryCompat: AmuletRegistryCompatSchema.default('current').describe('AMULET_REGISTRY_COMPAT: current or legacy'),
  /**
   * How the token templates run: `native` (hand-written TypeScript, the default) or `daml` (the
   * Daml-LF evaluator runs TestTokenV1/V2 and Amulet from their DARs in `darsDir`, and the demo
   * world is seeded through it). Templates of other uploaded DARs are evaluated either way.
   */
  templateEngine: z.enum(['native', 'daml']).default('native').describe('TEMPLATE_ENGINE: native or daml'),
  /** A folder whose `*.dar` files every participant uploads at start (needed by `templateEngine: daml`). */
  darsDir: z.string().min(1).optional().describe('DARS_DIR: upload every *.dar of this folder at start'),
  /** Templates of Daml models the emulator does not implement (signatories/observers by field path). */
  declaredTemplates: z.array(DeclaredTemplateConfigSchema).default([]).describe('DECLARED_TEMPLATES (JSON) or DECLARED_TEMPLATES_FILE'),
  ...OperationsConfigShape,
});
export type EmulatorConfig = z.infer<typeof EmulatorConfigSchema>;
/** The configuration as given (defaults optional, `auth` may be the `localnet` preset). */
export type EmulatorConfigInput = z.input<typeof EmulatorConfigSchema>;
