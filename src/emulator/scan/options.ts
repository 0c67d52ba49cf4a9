/**
 * The emulated scan's options (zod only, no behaviour): config/schema.ts assembles them into the
 * emulator's configuration without loading the scan.
 */
import { z } from 'zod';
import { AmuletRegistryCompatSchema } from '../../registry/recipes/amulet-compat.js';

/**
 * Splice's instance names (`splice-instance-names` of the SV and scan apps; scan.yaml
 * `getSpliceInstanceNames`): what the network calls itself, Amulet and the name service. The
 * defaults are MainNet's (the values Splice's validator compose tooling falls back to when a scan
 * lacks that endpoint); LocalNet's `env/common.env` sets Splice, Amulet / AMT and Amulet Name
 * Service / ANS (config/profiles.ts).
 */
export const SpliceInstanceNamesSchema = z
  .object({
    networkName: z.string().min(1).default('Canton Network').describe('What the network calls itself.'),
    networkFaviconUrl: z.string().min(1).default('https://www.canton.network/hubfs/cn-favicon-05%201-1.png').describe("The network's favicon."),
    amuletName: z.string().min(1).default('Canton Coin').describe("Amulet's name (the Amulet registry's instrument `name`)."),
    amuletNameAcronym: z.string().min(1).default('CC').describe("Amulet's symbol (the Amulet registry's instrument `symbol`)."),
    nameServiceName: z.string().min(1).default('Canton Name Service').describe("The name service's name."),
    nameServiceNameAcronym: z.string().min(1).default('CNS').describe("The name service's acronym."),
  })
  .strict();
export type SpliceInstanceNames = z.infer<typeof SpliceInstanceNamesSchema>;

/** The scan's fields of the emulator configuration. */
export const ScanOptionsShape = {
  scanPort: z.number().int().min(0).max(65535).default(7577).describe('Port of the emulated Splice scan (`/api/scan`, and the Amulet registry at `/registry`).'),
  instanceNames: SpliceInstanceNamesSchema.default({
    networkName: 'Canton Network',
    networkFaviconUrl: 'https://www.canton.network/hubfs/cn-favicon-05%201-1.png',
    amuletName: 'Canton Coin',
    amuletNameAcronym: 'CC',
    nameServiceName: 'Canton Name Service',
    nameServiceNameAcronym: 'CNS',
  }).describe("What the network calls itself, Amulet and its name service (scan's `/v0/splice-instance-names`; the Amulet registry's instrument name and symbol). MainNet's names by default; LocalNet's are Amulet / AMT, Amulet Name Service / ANS."),
  amuletRegistryCompat: AmuletRegistryCompatSchema.default('current').describe("Which Scan generation the emulated scan's Amulet registry answers as (`legacy`: before the external-party config state)."),
};
