/**
 * Where each upstream API comes from: emulated in this process, or proxied to a real service
 * (DESIGN.md rule 3 "Mode is data"). The mode is a tagged union, as in Prism's
 * `isProxy` config (stoplightio/prism): the routes are the same in both modes, only the
 * thing behind them changes, and the proxy URL is validated up front so a typo fails at start.
 *
 * Environment form (one variable per upstream):
 *   LEDGER_UPSTREAM=emulate                          (the default)
 *   LEDGER_UPSTREAM=proxy:http://participant:7575
 *   SCAN_UPSTREAM=proxy:https://scan.sv.example/api/scan
 *   VALIDATOR_UPSTREAM=proxy:https://validator.example/api/validator
 *   UPSTREAM_TIMEOUT_MS=30000                        (applies to every proxied upstream)
 *
 * The URL is the API's base URL, the same one a client of that API is configured with: the
 * participant's JSON API root for the ledger (paths `/v2/...` are appended), and the URL ending
 * in `/api/scan` or `/api/validator` for scan and validator (paths `/v0/...` are appended). See
 * src/proxy/forward.ts for the path rule.
 */
import { z } from 'zod';
import { ConfigError } from '../canton/config-error.js';

export const UPSTREAM_APIS = ['ledger', 'scan', 'validator'] as const;
export type UpstreamApi = (typeof UPSTREAM_APIS)[number];

export const DEFAULT_UPSTREAM_TIMEOUT_MS = 30_000;

/**
 * An http(s) base URL, normalised: no trailing slash, no query or fragment. Credentials in the
 * URL are refused: fetch cannot send them (it throws on such a URL), and the proxy forwards the
 * client's own Authorization header instead.
 */
export const UpstreamUrlSchema = z.string().transform((value, ctx) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: `not a URL: "${value}" (expected e.g. http://participant:7575)` });
    return z.NEVER;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    ctx.addIssue({ code: 'custom', message: `must be an http or https URL, got ${url.protocol.replace(/:$/, '')}: "${value}"` });
    return z.NEVER;
  }
  if (url.username !== '' || url.password !== '') {
    ctx.addIssue({
      code: 'custom',
      message: 'must not contain credentials (user:password@): the proxy forwards the client\'s Authorization header',
    });
    return z.NEVER;
  }
  if (url.search !== '' || url.hash !== '') {
    ctx.addIssue({ code: 'custom', message: `must not have a query or fragment: "${value}"` });
    return z.NEVER;
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
});

export const UpstreamModeSchema = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('emulate') }).strict(),
  z
    .object({
      mode: z.literal('proxy'),
      url: UpstreamUrlSchema,
      /** Bound on waiting for the upstream's response head, and on each idle gap in its body. */
      timeoutMs: z.number().int().positive().default(DEFAULT_UPSTREAM_TIMEOUT_MS),
    })
    .strict(),
]);
export type UpstreamMode = z.infer<typeof UpstreamModeSchema>;
export type ProxyUpstream = Extract<UpstreamMode, { mode: 'proxy' }>;

export const UpstreamsConfigSchema = z
  .object({
    ledger: UpstreamModeSchema.default({ mode: 'emulate' }),
    scan: UpstreamModeSchema.default({ mode: 'emulate' }),
    validator: UpstreamModeSchema.default({ mode: 'emulate' }),
  })
  .strict();
export type UpstreamsConfig = z.infer<typeof UpstreamsConfigSchema>;

/** The environment variable that configures each upstream. */
export const UPSTREAM_ENV: Record<UpstreamApi, string> = {
  ledger: 'LEDGER_UPSTREAM',
  scan: 'SCAN_UPSTREAM',
  validator: 'VALIDATOR_UPSTREAM',
};

const EXAMPLE_URL: Record<UpstreamApi, string> = {
  ledger: 'http://participant:7575',
  scan: 'https://scan.sv.example/api/scan',
  validator: 'https://validator.example/api/validator',
};

type Env = Record<string, string | undefined>;

/**
 * Parses one `emulate` | `proxy:<url>` value (`proxy <url>` is accepted too, as the issue writes
 * it). `variable` names the setting in error messages. Throws ConfigError.
 */
export function parseUpstreamSpec(
  variable: string,
  value: string,
  timeoutMs: number = DEFAULT_UPSTREAM_TIMEOUT_MS,
  api?: UpstreamApi,
): UpstreamMode {
  const v = value.trim();
  const example = EXAMPLE_URL[api ?? 'ledger'];
  if (v === 'emulate') return { mode: 'emulate' };
  const m = /^proxy(?:\s*:\s*|\s+)(.*)$/s.exec(v);
  if (m === null) {
    if (v === 'proxy') throw new ConfigError(`${variable}=proxy needs the upstream URL: ${variable}=proxy:${example}`);
    if (/^https?:\/\//i.test(v)) throw new ConfigError(`${variable} must be "emulate" or "proxy:<url>"; did you mean ${variable}=proxy:${v}?`);
    throw new ConfigError(`${variable} must be "emulate" or "proxy:<url>" (e.g. proxy:${example}), got "${value}"`);
  }
  const urlText = m[1]!.trim();
  if (urlText === '') throw new ConfigError(`${variable}=proxy needs the upstream URL: ${variable}=proxy:${example}`);
  const parsed = UpstreamModeSchema.safeParse({ mode: 'proxy', url: urlText, timeoutMs });
  if (!parsed.success) {
    const msg = parsed.error.issues.map((i) => i.message).join('; ');
    throw new ConfigError(`${variable}: the upstream URL ${msg}`);
  }
  return parsed.data;
}

/**
 * Reads LEDGER_UPSTREAM, SCAN_UPSTREAM, VALIDATOR_UPSTREAM and UPSTREAM_TIMEOUT_MS. An unset or
 * empty variable means `emulate`, unless `defaults` says otherwise (e.g. `serve` may require
 * proxies). Returns a frozen config; throws ConfigError naming the variable at fault.
 */
export function loadUpstreamsConfig(env: Env = process.env, defaults: Partial<UpstreamsConfig> = {}): Readonly<UpstreamsConfig> {
  const timeoutMs = parseTimeout(env.UPSTREAM_TIMEOUT_MS);
  const out = {} as UpstreamsConfig;
  for (const api of UPSTREAM_APIS) {
    const variable = UPSTREAM_ENV[api];
    const value = env[variable];
    out[api] =
      value === undefined || value.trim() === ''
        ? (defaults[api] ?? { mode: 'emulate' })
        : parseUpstreamSpec(variable, value, timeoutMs, api);
  }
  return Object.freeze(out);
}

function parseTimeout(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return DEFAULT_UPSTREAM_TIMEOUT_MS;
  const v = value.trim();
  if (!/^\d+$/.test(v) || Number(v) <= 0) {
    throw new ConfigError(`UPSTREAM_TIMEOUT_MS must be a whole number of milliseconds greater than 0, got "${value}"`);
  }
  return Number(v);
}

/** One line for the start-up URL table: `emulated` or `proxy -> <url> (timeout 30000 ms)`. */
export function describeUpstream(mode: UpstreamMode): string {
  return mode.mode === 'emulate' ? 'emulated' : `proxy -> ${mode.url} (timeout ${mode.timeoutMs} ms)`;
}
