/**
 * The emulator's whole configuration, as one zod schema. It is parsed once at start-up (from the
 * environment, see load.ts), frozen, and passed down; nothing else reads `process.env`.
 *
 * Each emulated service declares its own fields in its `options.ts` (zod only, no behaviour):
 * this module holds the fields of the stack as a whole and assembles the rest.
 */
import { z } from 'zod';
import { AdminOptionsShape } from '../emulator/admin/options.js';
import { ExampleRegistryOptionsShape } from '../emulator/example-registry/options.js';
import { LedgerApiOptionsShape } from '../emulator/ledger-api/options.js';
import { ParticipantOptionsShape } from '../emulator/participant/options.js';
import { ScanOptionsShape } from '../emulator/scan/options.js';
import { SeedOptionsShape } from '../emulator/world/options.js';
import { ValidatorOptionsShape } from '../emulator/validator/options.js';
import { OperationsConfigShape } from './operations.js';
import { PROFILE_NAMES, type ProfileName } from '../canton/localnet.js';

export const LogLevelSchema = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/** The named sets of defaults `emulate` can start with (profiles.ts): `localnet` is Splice LocalNet's topology and addresses. */
export const ProfileNameSchema = z.enum(PROFILE_NAMES);
export type { ProfileName };

/** The fields of the stack as a whole: its profile, where it listens, the demo registry, the registries' cache, logging. */
const StackOptionsShape = {
  profile: ProfileNameSchema.optional().describe('The profile whose defaults were applied (`localnet`); settings given explicitly override them one by one.'),
  host: z.string().min(1).default('127.0.0.1').describe('Interface to listen on (0.0.0.0 inside containers).'),
  registryPort: z.number().int().min(0).max(65535).default(7576).describe("Port of the demo admin's token-standard registry."),
  redisUrl: z.string().optional().describe("Redis for the registries' cache of disclosed contracts; in memory when unset."),
  logLevel: LogLevelSchema.default('info').describe('pino level (`info`: one access-log line per request).'),
};

export const EmulatorConfigSchema = z.object({
  ...StackOptionsShape,
  ...LedgerApiOptionsShape,
  ...ParticipantOptionsShape,
  ...SeedOptionsShape,
  ...ScanOptionsShape,
  ...ValidatorOptionsShape,
  ...ExampleRegistryOptionsShape,
  ...AdminOptionsShape,
  ...OperationsConfigShape,
});
export type EmulatorConfig = z.infer<typeof EmulatorConfigSchema>;
/** The configuration as given (defaults optional, `auth` may be the `localnet` preset). */
export type EmulatorConfigInput = z.input<typeof EmulatorConfigSchema>;
