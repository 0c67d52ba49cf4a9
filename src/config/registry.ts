/**
 * Configuration of the registry service (`serve`, and the registry of the emulated stack):
 * the admin, its instruments and their token implementations (recipes), the ledger node it
 * reads and how it authenticates, and the cache.
 */
import { z } from 'zod';
import { parseRedisUrl } from '../cache/redis-cache.js';
import { RegistryLimitsSchema } from '../http/limits.js';
import { OperationsConfigShape } from './operations.js';
import { DeclarativeRecipeSchema } from '../registry/recipes/declarative/schema/document.js';
import { AmuletRegistryCompatSchema } from '../registry/recipes/amulet-compat.js';

export const InstrumentConfigSchema = z
  .object({
    id: z.string().min(1).describe('The instrument id (`instrumentId.id` on the ledger, and the id in the registry paths).'),
    name: z.string().min(1).describe('Display name in the instrument metadata.'),
    symbol: z.string().min(1).describe('Ticker symbol in the instrument metadata.'),
    decimals: z.number().int().min(0).max(10).default(10).describe('Decimal places an amount may have; more is a 400.'),
    recipe: z.string().min(1).describe('The token implementation: `splice-test-token-v1`, `splice-test-token-v2`, `splice-amulet`, or the `name` of one of `recipes`.'),
    supportedApis: z.record(z.string(), z.number().int().nonnegative()).optional().describe("The instrument's `supportedApis` (API name to major version); the recipe's when absent."),
    paused: z.boolean().optional().describe('A paused instrument answers its metadata, and a 400 to factory requests.'),
    pauseInfo: z
      .object({ reason: z.string().optional().describe('Why it is paused.'), until: z.iso.datetime().optional().describe('Until when (ISO 8601).') })
      .strict()
      .optional()
      .describe('Reported with a paused instrument.'),
    accountInputFieldsToShow: z.array(z.enum(['provider', 'accountId'])).optional().describe('Account fields a wallet should ask for (metadata).'),
    totalSupply: z.enum(['ledger', 'none']).default('ledger').describe("`ledger`: computed from the admin's holdings (HoldingV1 views); `none`: not reported."),
  })
  .strict();
export type InstrumentConfigInput = z.input<typeof InstrumentConfigSchema>;

export const LedgerAuthSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('none') }).strict(),
  z.object({ kind: z.literal('static'), token: z.string().min(1).describe('The bearer token sent as it is (env LEDGER_TOKEN).') }).strict(),
  z
    .object({
      kind: z.literal('oauth2'),
      tokenUrl: z.url().describe("The identity provider's token endpoint (client-credentials grant; the token is refreshed before expiry)."),
      clientId: z.string().min(1).describe('OAuth2 client id.'),
      clientSecret: z.string().min(1).describe('OAuth2 client secret (env LEDGER_OAUTH2_CLIENT_SECRET overrides it).'),
      audience: z.string().optional().describe('`audience` asked for.'),
      scope: z.string().optional().describe('`scope` asked for.'),
    })
    .strict(),
  z
    .object({
      kind: z.literal('hs256'),
      secret: z.string().min(1).describe('HS256 secret of self-signed tokens (development only).'),
      userId: z.string().min(1).describe('Ledger user in `sub`.'),
      audience: z.string().optional().describe('`aud` of the token.'),
      scope: z.string().optional().describe('`scope` of the token.'),
    })
    .strict(),
]);
export type LedgerAuthConfig = z.infer<typeof LedgerAuthSchema>;

export const RegistryConfigSchema = z
  .object({
    adminParty: z.string().min(1).describe('The instrument admin party this registry serves.'),
    instruments: z.array(InstrumentConfigSchema).min(1).describe('The instruments served (at least one; ids unique).'),
    /**
     * Declarative recipes (docs/recipes.md): structure checked here, how the parts fit together
     * by validateDeclarativeRecipe when the configuration is loaded.
     */
    recipes: z.array(DeclarativeRecipeSchema).default([]).describe('Declarative recipes (docs/recipes.md); an instrument uses one by its `name`.'),
    ledger: z
      .object({
        url: z.url().describe("The admin's participant: its JSON Ledger API v2 root."),
        auth: LedgerAuthSchema.default({ kind: 'none' }).describe('How the registry authenticates to the ledger: `none`, `static`, `oauth2` (client credentials) or `hs256` (self-signed, development).'),
        timeoutMs: z.number().int().positive().default(10_000).describe('Timeout of one ledger request.'),
      })
      .strict()
      .describe('The ledger the registry reads (it never writes).'),
    port: z.number().int().min(0).max(65535).default(7576).describe('Port of the registry.'),
    host: z.string().min(1).default('0.0.0.0').describe('Interface to bind.'),
    basePath: z.string().regex(/^(\/[^/]+)*$/, 'a base path starts with / and has no trailing /').default('').describe('Serve the registry under this prefix (e.g. behind a gateway).'),
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
      })
      .describe('Redis for the cache of disclosed contracts (one server, a Sentinel group or a Cluster); in memory when unset.'),
    /**
     * How long the registry waits for Redis: a command not answered within `commandTimeoutMs` is a
     * miss (the ledger answers), and Redis is then skipped for `breakerCooldownMs` before one
     * command probes it again (src/cache/redis-cache.ts), so a hung Redis does not slow requests.
     */
    redis: z
      .object({
        commandTimeoutMs: z.number().int().positive().default(250).describe('A Redis command not answered within this is a miss (the ledger answers).'),
        breakerCooldownMs: z.number().int().nonnegative().default(1000).describe('After a miss by timeout, Redis is skipped this long before one command probes it again.'),
      })
      .strict()
      .prefault({})
      .describe('How long the registry waits for Redis.'),
    cacheTtlSeconds: z.number().int().positive().default(3600).describe('TTL of cached disclosed contracts (archives delete them earlier).'),
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info').describe('pino level (`info`: one access-log line per request).'),
    amuletCompat: AmuletRegistryCompatSchema.default('current').describe('Amulet registry contexts: `current` (newest scan) or `legacy` (`amulet-rules` / `open-round` everywhere).'),
    limits: RegistryLimitsSchema.prefault({}).describe('What the server reads from clients: body size, JSON depth, timeouts, connections, rate limit.'),
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
