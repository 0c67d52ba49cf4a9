/**
 * The emulated validator's options (zod only, no behaviour): config/schema.ts assembles them into
 * the emulator's configuration without loading the validator.
 */
import { z } from 'zod';

/** The validator's fields of the emulator configuration. */
export const ValidatorOptionsShape = {
  validatorPort: z.number().int().min(0).max(65535).default(7578).describe('Port of the emulated Splice validator (`/api/validator`).'),
  validatorAuth: z
    .object({
      secret: z.string().min(1).default('unsafe').describe('HS256 secret.'),
      audience: z.string().min(1).default('https://canton.network.global').describe('`aud` a token must carry.'),
      jwksUrl: z.url().optional().describe('JWKS URL for RS256/ES256 tokens.'),
    })
    .default({ secret: 'unsafe', audience: 'https://canton.network.global' })
    .describe('JWT verification of the emulated validator (LocalNet: HS256 secret `unsafe`, this audience).'),
};
