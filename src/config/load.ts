/**
 * Reads the configuration from the environment: each variable maps to one config path. Errors
 * name the variable and what is wrong with it, so a mistyped deployment fails at start.
 */
import { readFileSync } from 'node:fs';
import { EmulatorConfigSchema, ProfileNameSchema, type EmulatorConfig, type ProfileName } from './schema.js';
import { applyProfile } from './profiles.js';

import { ConfigError, zodProblems } from '../canton/config-error.js';
import { operationsFromEnv, parsedConfig } from './operations.js';

export { ConfigError };

type Env = Record<string, string | undefined>;

export function loadEmulatorConfig(env: Env = process.env): Readonly<EmulatorConfig> {
  const raw: Record<string, unknown> = {};
  const num = (name: string) => {
    const v = env[name];
    if (v === undefined || v === '') return undefined;
    if (!/^\d+$/.test(v)) throw new ConfigError(`${name} must be a whole number, got "${v}"`);
    return Number(v);
  };
  raw.port = num('PORT');
  raw.registryPort = num('REGISTRY_PORT');
  raw.scanPort = num('SCAN_PORT');
  raw.validatorPort = num('VALIDATOR_PORT');
  raw.adminPort = num('ADMIN_PORT');
  raw.exampleRegistryPort = num('EXAMPLE_REGISTRY_PORT');
  if (env.VALIDATOR_AUTH_SECRET || env.VALIDATOR_AUTH_AUDIENCE || env.VALIDATOR_AUTH_JWKS_URL) {
    raw.validatorAuth = {
      secret: env.VALIDATOR_AUTH_SECRET || undefined,
      audience: env.VALIDATOR_AUTH_AUDIENCE || undefined,
      jwksUrl: env.VALIDATOR_AUTH_JWKS_URL || undefined,
    };
  }
  raw.redisUrl = env.REDIS_URL || undefined;
  raw.host = env.HOST || undefined;
  raw.seed = env.EMULATOR_SEED || undefined;
  raw.participantName = env.PARTICIPANT_NAME || undefined;
  raw.participantId = env.PARTICIPANT_ID || undefined;
  raw.synchronizerId = env.SYNCHRONIZER_ID || undefined;
  raw.participants = num('PARTICIPANTS');
  raw.participant2Port = num('PARTICIPANT2_PORT');
  raw.participant2Name = env.PARTICIPANT2_NAME || undefined;
  raw.participant2Id = env.PARTICIPANT2_ID || undefined;
  const profile = profileOf(env);
  const names = { networkName: env.NETWORK_NAME, networkFaviconUrl: env.NETWORK_FAVICON_URL, amuletName: env.AMULET_NAME, amuletNameAcronym: env.AMULET_NAME_ACRONYM, nameServiceName: env.NAME_SERVICE_NAME, nameServiceNameAcronym: env.NAME_SERVICE_NAME_ACRONYM };
  if (Object.values(names).some((v) => v !== undefined && v !== '')) {
    // One name given keeps the others of the profile (or MainNet's defaults).
    raw.instanceNames = { ...applyProfile(profile).instanceNames, ...Object.fromEntries(Object.entries(names).filter(([, v]) => v !== undefined && v !== '')) };
  }
  raw.stateDir = env.STATE_DIR || undefined;
  raw.snapshotEvery = num('STATE_SNAPSHOT_EVERY');
  raw.stateProbeEveryMs = num('STATE_PROBE_EVERY_MS');
  if (env.LEDGER_ADMIN_USERS !== undefined) raw.adminUsers = env.LEDGER_ADMIN_USERS.split(',').map((s) => s.trim()).filter(Boolean);
  if (env.DEMO_WORLD !== undefined) raw.demoWorld = !['false', '0', 'no', 'off'].includes(env.DEMO_WORLD.toLowerCase());
  raw.listMaxElements = num('LEDGER_LIST_MAX_ELEMENTS');
  raw.logLevel = env.LOG_LEVEL || undefined;
  raw.amuletRegistryCompat = env.AMULET_REGISTRY_COMPAT || undefined;
  raw.templateEngine = env.TEMPLATE_ENGINE || undefined;
  raw.darsDir = env.DARS_DIR || undefined;
  if (env.DEMO_WORLD_FILE) raw.world = readJson('DEMO_WORLD_FILE', readText('DEMO_WORLD_FILE', env.DEMO_WORLD_FILE));
  if (env.DECLARED_TEMPLATES_FILE) raw.declaredTemplates = readJson('DECLARED_TEMPLATES_FILE', readText('DECLARED_TEMPLATES_FILE', env.DECLARED_TEMPLATES_FILE));
  else if (env.DECLARED_TEMPLATES) raw.declaredTemplates = readJson('DECLARED_TEMPLATES', env.DECLARED_TEMPLATES);

  // A profile's own auth is the default mode, so LEDGER_AUTH_* settings refine it.
  const mode = env.LEDGER_AUTH ?? applyProfile(profile).auth?.mode ?? 'none';
  if (mode === 'jwt') {
    const pemFile = env.LEDGER_AUTH_PUBLIC_KEY_FILE;
    raw.auth = {
      mode: 'jwt',
      hs256Secret: env.LEDGER_AUTH_HS256_SECRET || undefined,
      jwksUrl: env.LEDGER_AUTH_JWKS_URL || undefined,
      publicKeyPem: pemFile ? readText('LEDGER_AUTH_PUBLIC_KEY_FILE', pemFile) : undefined,
      targetAudience: env.LEDGER_AUTH_TARGET_AUDIENCE || undefined,
      targetScope: env.LEDGER_AUTH_TARGET_SCOPE || undefined,
      leewaySeconds: num('LEDGER_AUTH_LEEWAY_SECONDS'),
    };
  } else if (mode === 'localnet') {
    // LocalNet's participants take HS256 tokens only: a key source of another kind means `jwt`.
    for (const name of ['LEDGER_AUTH_JWKS_URL', 'LEDGER_AUTH_PUBLIC_KEY_FILE']) {
      if (env[name]) throw new ConfigError(`${name} needs LEDGER_AUTH=jwt (LEDGER_AUTH=localnet verifies HS256 tokens only)`);
    }
    raw.auth = {
      mode: 'localnet',
      hs256Secret: env.LEDGER_AUTH_HS256_SECRET || undefined,
      targetAudience: env.LEDGER_AUTH_TARGET_AUDIENCE || undefined,
      targetScope: env.LEDGER_AUTH_TARGET_SCOPE || undefined,
      leewaySeconds: num('LEDGER_AUTH_LEEWAY_SECONDS'),
    };
  } else if (mode === 'none') {
    raw.auth = { mode: 'none' };
  } else {
    throw new ConfigError(`LEDGER_AUTH must be "none", "jwt" or "localnet", got "${mode}"`);
  }

  Object.assign(raw, operationsFromEnv(env));
  // The profile's defaults under what the environment gives (profiles.ts).
  const parsed = EmulatorConfigSchema.safeParse(applyProfile(profile, raw));
  if (!parsed.success) throw new ConfigError(zodProblems(parsed.error));
  return parsedConfig(parsed.data);
}

/** PROFILE, checked. */
function profileOf(env: Env): ProfileName | undefined {
  if (env.PROFILE === undefined || env.PROFILE === '') return undefined;
  const parsed = ProfileNameSchema.safeParse(env.PROFILE);
  if (!parsed.success) throw new ConfigError(`PROFILE must be one of ${ProfileNameSchema.options.map((o) => `"${o}"`).join(', ')}, got "${env.PROFILE}"`);
  return parsed.data;
}

function readText(variable: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(`${variable}: cannot read ${path}: ${(e as Error).message}`);
  }
}

function readJson(variable: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`${variable}: not valid JSON: ${(e as Error).message}`);
  }
}
