import { z } from 'zod';

/**
 * Splice's instance names (`splice-instance-names` of the SV and scan apps; scan.yaml
 * `getSpliceInstanceNames`): what the network calls itself, Amulet and the name service. The
 * defaults are MainNet's (the values Splice's validator compose tooling falls back to when a scan
 * lacks that endpoint); LocalNet's `env/common.env` sets Splice, Amulet / AMT and Amulet Name
 * Service / ANS (profiles.ts).
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
