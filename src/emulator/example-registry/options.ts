/**
 * The example test-token registry's options (zod only, no behaviour): config/schema.ts assembles
 * them into the emulator's configuration without loading the registry.
 */
import { z } from 'zod';

/** The example registry's fields of the emulator configuration. */
export const ExampleRegistryOptionsShape = {
  exampleRegistryPort: z
    .number()
    .int()
    .min(0)
    .max(65535)
    .optional()
    .describe("Port of the emulated example test-token registry of canton-network/wallet (`examples/test-token-v1-registry`; LocalNet serves it on 5634). Unset: not started, and its operator and TokenRules are not seeded."),
};
