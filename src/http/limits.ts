/**
 * How much each API reads from a client. Defaults follow the real services where they have one;
 * `serve` takes overrides from its configuration (`limits` in registry.json).
 */
import { z } from 'zod';

const KiB = 1024;
const MiB = 1024 * KiB;

/** The registry's own requests are a few hundred bytes of JSON; 64 KiB leaves room for big choice arguments. */
export const REGISTRY_MAX_BODY_BYTES = 64 * KiB;
/**
 * Canton's JSON API runs on pekko-http, whose `pekko.http.server.parsing.max-content-length`
 * defaults to 8m; the Splice apps (scan, validator) run on the same server defaults.
 */
export const LEDGER_MAX_BODY_BYTES = 8 * MiB;
export const SPLICE_MAX_BODY_BYTES = 8 * MiB;
/**
 * DAR uploads (`POST /v2/packages`, `/v2/dars`): the JSON API hands the DAR to the gRPC package
 * service, whose `max-inbound-message-size` defaults to 10 MiB, so a larger DAR cannot be
 * uploaded to a participant with default settings either. Splice's own DARs are 1-2 MiB.
 */
export const LEDGER_MAX_DAR_BYTES = 10 * MiB;
/**
 * Maximum nesting of a JSON body. protobuf-java (the gRPC layer behind Canton's JSON API) stops
 * at a recursion depth of 100, so deeper values cannot reach a real participant anyway.
 */
export const MAX_JSON_DEPTH = 100;

/** Upper bound on a list endpoint's `stream_idle_timeout_ms` and on the whole wait of one open-ended list request (Canton's JSON API `request-timeout` defaults to 20 s). */
export const LEDGER_MAX_LIST_WAIT_MS = 20_000;

export const RateLimitSchema = z
  .object({
    requestsPerSecond: z.number().nonnegative().default(50).describe('Sustained requests per second per client (by remote address); 0 turns rate limiting off.'),
    burst: z.number().int().positive().default(100).describe('Bucket size: how many requests a client may send at once after being idle.'),
    maxClients: z.number().int().positive().default(100_000).describe('Clients tracked at once; the least recently seen are forgotten beyond it.'),
  })
  .strict()
  .describe('A token bucket per client address; a client over its rate gets 429 with Retry-After.');
export type RateLimitConfig = z.infer<typeof RateLimitSchema>;

export const RegistryLimitsSchema = z
  .object({
    maxBodyBytes: z.number().int().positive().default(REGISTRY_MAX_BODY_BYTES).describe('Larger bodies get 413, refused before they are read.'),
    maxJsonDepth: z.number().int().positive().default(MAX_JSON_DEPTH).describe('Deeper JSON gets 400.'),
    headersTimeoutMs: z.number().int().positive().default(20_000).describe('Time to send the request head (a socket that sends nothing is closed after it too).'),
    requestTimeoutMs: z.number().int().positive().default(60_000).describe('Time to send the whole request.'),
    keepAliveTimeoutMs: z.number().int().positive().default(65_000).describe('Idle keep-alive connections are closed after this.'),
    maxConnections: z.number().int().positive().default(2_000).describe('Open sockets at most.'),
    maxConnectionsPerAddress: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("One client address's share of maxConnections; a quarter of it when absent. Behind a load balancer, every client shares its address: raise it up to maxConnections."),
    rateLimit: RateLimitSchema.prefault({}),
  })
  .strict();
export type RegistryLimits = z.infer<typeof RegistryLimitsSchema>;
