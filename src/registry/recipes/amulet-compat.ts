/**
 * Which Scan generation the Amulet recipe answers as: `current` (the newest Scan, contexts built
 * on the ExternalPartyConfigState) or `legacy` (`amulet-rules` / `open-round` everywhere, for
 * wallets pinned to older Splice). Env AMULET_REGISTRY_COMPAT. Zod only, beside the recipe that
 * owns it: the registry's configuration (config/registry.ts) and the emulated scan's options read
 * it without loading the recipe.
 */
import { z } from 'zod';

export const AmuletRegistryCompatSchema = z.enum(['current', 'legacy']);
export type AmuletRegistryCompat = z.infer<typeof AmuletRegistryCompatSchema>;
