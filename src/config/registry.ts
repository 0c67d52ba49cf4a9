/**
 * Configuration of the registry service (`serve`, and the registry of the emulated stack):
 * the admin, its instruments and their token implementations (recipes), the ledger node it
 * reads and how it authenticates, and the cache.
 */
import { z } from 'zod';
import { parseRedisUrl } from '../cache/redis-cache.js';
import { RegistryLimitsSchema } from '../http/limits.js';
import { OperationsConfigShape } from './operations.js';
import { DeclarativeRecipeSchema } from './recipe-schema.js';

/**
 * Which Scan generation the Amulet recipe answers as: `current` (the newest Scan, contexts built
 * on the ExternalPartyConfigState) or `legacy` (`amulet-rules` / `open-round` everywhere, for
 * wallets pinned to older Splice). Env AMULET_REGISTRY_COMPAT.
 */
export const AmuletRegistryCompatSchema = z.enum(['current', 'legacy']);

export const InstrumentConfigSchema = z
  .object({
    id: z.string().min(1),
    name: z.string().min(1),
    symbol: z.string().min(1),
    decimals: z.number().int().min(0).max(10).default(10),
    /** `splice-test-token-v1`, `splice-test-token-v2`, `splice-amulet`, or the `name` of a declarative recipe. */
    recipe: z.string().min(1).describe('The token implementation: `splice-test-token-v1`, `splice-test-token-v2`, `splice-amulet`, or the `name` of one of `recipes`.'),
    supportedApis: z.record(z.string(), z.number().int().nonnegative()).optional(),
    paused: z.boolean().optional(),
    pauseInfo: z.object({ reason: z.string().optional(), until: z.iso.datetime().optional() }).strict().optional(),
    accountInputFieldsToShow: z.array(z.enum(['provider', 'accountId'])).optional(),
    /** `ledger`: computed from the admin's holdings (HoldingV1 views); `none`: not reported. */
    totalSupply: z.enum(['ledger', 'none']).default('ledger'),
  })
  .strict();
export type InstrumentConfigInput = z.input<typeof InstrumentConfigSchema>;

export const LedgerAuthSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('none') }).strict(),
  z.object({ kind: z.literal('static'), token: z.string().min(1) }).strict(),
  z
    .object({
      kind: z.literal('oauth2'),
      tokenUrl: z.url(),
      clientId: z.string().min(1),
      clientSecret: z.string().min(1),
      audience: z.string().optional(),
      scope: z.string().optional(),
    })
    .strict(),
  z
    .object({
      kind: z.literal('hs256'),
      secret: z.string().min(1),
      userId: z.string().min(1),
      audience: z.string().optional(),
      scope: z.string().optional(),
    })
    .strict(),
]);
export type LedgerAuthConfig = z.infer<typeof LedgerAuthSchema>;

export const RegistryConfigSchema = z
  .object({
    /** The instrument admin party this registry serves. */
    adminParty: z.string().min(1),
    instruments: z.array(InstrumentConfigSchema).min(1),
    /**
     * Declarative recipes (docs/recipes.md): structure checked here, how the parts fit together
     * by validateDeclarativeRecipe when the configuration is loaded.
     */
    recipes: z.array(DeclarativeRecipeSchema).default([]).describe('Declarative recipes (docs/recipes.md); an instrument uses one by its `name`.'),
    ledger: z
      .object({
        url: z.url(),
        auth: LedgerAuthSchema.default({ kind: 'none' }),
        timeoutMs: z.number().int().positive().default(10_000),
      })
      .strict(),
    port: z.number().int().min(0).max(65535).default(7576),
    host: z.string().min(1).default('0.0.0.0'),
    /** Serve the registry under this prefix (e.g. behind a gateway). */
    basePath: z.string().regex(/^(\/[^/]+)*$/, 'a base path starts with / and has no trailing /').default(''),
    /** One server, a Sentinel group or a Cluster (parseRedisUrl in src/cache/redis-cache.ts). */
    redisUrl: z
      .string()
      .optional()
      .superRefine((url, ctx) => {
        if (!url) return;
        try {
          parseRedisUrl(url);
        } catch (e) {
          ctx.addIssue({ code: 'custom', message: (e as Error).message });
        }
      }),
    /**
     * How long the registry waits for Redis: a command not answered within `commandTimeoutMs` is a
     * miss (the ledger answers), and Redis is then skipped for `breakerCooldownMs` before one
     * command probes it again (src/cache/redis-cache.ts), so a hung Redis does not slow requests.
     */
    redis: z
      .object({
        commandTimeoutMs: z.number().int().positive().default(250),
        breakerCooldownMs: z.number().int().nonnegative().default(1000),
      })
      .strict()
      .prefault({}),
    /** TTL of cached disclosed contracts (archives delete them earlier). */
    cacheTtlSeconds: z.number().int().positive().default(3600),
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    amuletCompat: AmuletRegistryCompatSchema.default('current'),
    /** What the server reads from clients: body size, JSON depth, timeouts, connections, rate limit. */
    limits: RegistryLimitsSchema.prefault({}),
    ...OperationsConfigShape,
  })
  .strict()
  .superRefine((c, ctx) => {
    const ids = new Set<string>();
    c.instruments.forEach((i, n) => {
      if (ids.has(i.id)) ctx.addIssue({ code: 'custom', path: ['instruments', n, 'id'], message: `duplicate instrument id "${i.id}"` });
      ids.add(i.id);
    });
  });
export type RegistryConfig = z.infer<typeof RegistryConfigSchema>;
