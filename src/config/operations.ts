/**
 * Operational settings shared by both modes (`serve` and `emulate`): who may call the registry
 * from a browser, and how long a shutdown waits for requests in flight.
 */
import { z } from 'zod';

/** An origin as browsers send it: scheme, host, optional port; no path. `*` allows any. */
export const CorsOriginSchema = z.union([z.literal('*'), z.string().regex(/^https?:\/\/[^/\s]+$/, 'an origin is scheme://host[:port], without a path')]);

export const OperationsConfigShape = {
  corsOrigins: z.array(CorsOriginSchema).default([]).describe('Browser origins allowed to call the registry (CORS), or `*`; none by default.'),
  shutdownDrainMs: z.number().int().min(0).max(300_000).default(10_000).describe('On SIGTERM/SIGINT: longest wait for requests in flight before connections are cut.'),
};

/** CORS_ORIGINS and SHUTDOWN_DRAIN_MS from the environment, as raw config fields. */
export function operationsFromEnv(env: Record<string, string | undefined>): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  if (env.CORS_ORIGINS !== undefined) raw.corsOrigins = env.CORS_ORIGINS.split(',').map((s) => s.trim()).filter(Boolean);
  if (env.SHUTDOWN_DRAIN_MS !== undefined && env.SHUTDOWN_DRAIN_MS !== '') {
    raw.shutdownDrainMs = /^\d+$/.test(env.SHUTDOWN_DRAIN_MS) ? Number(env.SHUTDOWN_DRAIN_MS) : env.SHUTDOWN_DRAIN_MS;
  }
  return raw;
}

const PARSED = Symbol('token-registry parsed configuration');

/**
 * Marks a configuration as the product of its schema and freezes it all the way down: the loaders
 * call this once, and `buildEmulator` takes such a configuration as it is instead of parsing it again.
 */
export function parsedConfig<T extends object>(config: T): Readonly<T> {
  Object.defineProperty(config, PARSED, { value: true, enumerable: false });
  return deepFreeze(config);
}

/** Whether `config` came out of parsedConfig (so out of its schema). */
export function isParsedConfig<T extends object>(config: object | undefined): config is Readonly<T> {
  return config !== undefined && PARSED in config;
}

/** Freezes a value all the way down, so no part of the process can change it. */
export function deepFreeze<T>(value: T): Readonly<T> {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
