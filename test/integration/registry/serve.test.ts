/**
 * `serve` as an operator runs it: a registry configured from a JSON file, reading a ledger node
 * over real HTTP with a JWT (the emulator stands in for the participant), health endpoints, and
 * start-up failing with a clear message on a broken configuration.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';
import { loadRegistryConfig, startRegistry, type RunningRegistry } from '../../../src/serve.js';
import { ConfigError } from '../../../src/canton/config-error.js';

const SECRET = 'serve-test-secret';
const AUDIENCE = 'https://canton.network.global';
let emu: RunningEmulator;
let running: RunningRegistry;
const dir = mkdtempSync(join(tmpdir(), 'tr-serve-'));

function configFile(name: string, config: unknown): string {
  const p = join(dir, name);
  writeFileSync(p, JSON.stringify(config));
  return p;
}

beforeAll(async () => {
  emu = await startEmulator({ config: { port: 0, logLevel: 'silent', auth: { mode: 'jwt', hs256Secret: SECRET, targetAudience: AUDIENCE } } });
  const admin = emu.seeded!.parties.find((p) => p.hint === 'token-admin')!.party;
  const file = configFile('registry.json', {
    adminParty: admin,
    ledger: { url: 'http://placeholder.invalid', auth: { kind: 'hs256', secret: SECRET, userId: 'token-admin', audience: AUDIENCE } },
    instruments: [{ id: 'TT2-USD', name: 'Test Token Two (USD)', symbol: 'TUSD', decimals: 2, recipe: 'splice-test-token-v2' }],
    port: 0,
    host: '127.0.0.1',
  });
  // LEDGER_URL overrides the file, as in a deployment
  const config = loadRegistryConfig({ REGISTRY_CONFIG_FILE: file, LEDGER_URL: emu.ledgerUrl, LOG_LEVEL: 'silent' });
  running = await startRegistry(config, { logger: pino({ level: 'silent' }) });
});
afterAll(async () => {
  await running?.close();
  await emu?.close();
});

describe('serve', () => {
  it('answers health and registry requests from the configured ledger', async () => {
    expect((await fetch(`${running.url}/livez`)).status).toBe(200);
    expect((await fetch(`${running.url}/readyz`)).status).toBe(200);
    const inst = (await (await fetch(`${running.url}/registry/metadata/v1/instruments/TT2-USD`)).json()) as Record<string, unknown>;
    expect(inst).toMatchObject({ id: 'TT2-USD', decimals: 2, totalSupply: '1000.0000000000' });
  });

  it('AMULET_REGISTRY_COMPAT overrides amuletCompat of the file (default current)', () => {
    const base = { adminParty: 'a', ledger: { url: 'http://x' }, instruments: [{ id: 'A', name: 'a', symbol: 'A', recipe: 'splice-amulet' }] };
    expect(loadRegistryConfig({ REGISTRY_CONFIG_FILE: configFile('cc.json', base) }).amuletCompat).toBe('current');
    const legacyFile = configFile('cc-legacy.json', { ...base, amuletCompat: 'legacy' });
    expect(loadRegistryConfig({ REGISTRY_CONFIG_FILE: legacyFile }).amuletCompat).toBe('legacy');
    expect(loadRegistryConfig({ REGISTRY_CONFIG_FILE: legacyFile, AMULET_REGISTRY_COMPAT: 'current' }).amuletCompat).toBe('current');
    expect(() => loadRegistryConfig({ REGISTRY_CONFIG_FILE: legacyFile, AMULET_REGISTRY_COMPAT: 'v1' })).toThrow(/amuletCompat/);
  });

  it('refuses a broken configuration with a message that says what is wrong', () => {
    expect(() => loadRegistryConfig({})).toThrow(/REGISTRY_CONFIG_FILE is not set/);
    const bad = configFile('bad.json', { adminParty: 'a', ledger: { url: 'not a url' }, instruments: [] });
    expect(() => loadRegistryConfig({ REGISTRY_CONFIG_FILE: bad })).toThrow(/instruments: [\s\S]*ledger\.url: Invalid URL/);
    const dup = configFile('dup.json', {
      adminParty: 'a',
      ledger: { url: 'http://x' },
      instruments: [
        { id: 'A', name: 'a', symbol: 'A', recipe: 'splice-test-token-v1' },
        { id: 'A', name: 'a', symbol: 'A', recipe: 'splice-test-token-v1' },
      ],
    });
    expect(() => loadRegistryConfig({ REGISTRY_CONFIG_FILE: dup })).toThrow(/duplicate instrument id "A"/);
  });

  it('refuses an instrument whose recipe does not exist, and a broken declarative recipe, when the configuration is loaded', async () => {
    const base = { adminParty: 'a', ledger: { url: emu.ledgerUrl }, port: 0, host: '127.0.0.1', logLevel: 'silent' as const };
    const load = (doc: Record<string, unknown>) => () => loadRegistryConfig({ REGISTRY_CONFIG_FILE: configFile('u.json', { ...base, ...doc }) });
    const problemsOf = (f: () => unknown): readonly string[] => {
      try {
        f();
      } catch (e) {
        if (e instanceof ConfigError) return e.problems;
        throw e;
      }
      throw new Error('no ConfigError');
    };
    expect(problemsOf(load({ instruments: [{ id: 'A', name: 'a', symbol: 'A', recipe: 'nope' }] }))).toEqual([
      'instruments[0].recipe: unknown recipe "nope" for instrument A; known recipes: splice-test-token-v1, splice-test-token-v2, splice-amulet',
    ]);
    const acme = { name: 'acme', supportedApis: {}, factories: { 'transferFactory.v1': { templateId: '#acme:Acme.Rules:TransferRules' } } };
    expect(problemsOf(load({ instruments: [{ id: 'A', name: 'a', symbol: 'A', recipe: 'declarative:acme' }], recipes: [acme] }))).toEqual([
      'instruments[0].recipe: unknown recipe "declarative:acme" for instrument A (did you mean "acme"? a recipe is named by its "name" alone); known recipes: splice-test-token-v1, splice-test-token-v2, splice-amulet, acme',
    ]);
    const broken = { ...acme, factories: { 'transferFactory.v1': { templateId: 'Acme.Rules:TransferRules' } } };
    expect(problemsOf(load({ instruments: [{ id: 'A', name: 'a', symbol: 'A', recipe: 'acme' }], recipes: [broken] }))).toEqual([
      'recipes[0].factories.transferFactory.v1.templateId: "Acme.Rules:TransferRules" is not of the form "#<package-name>:<Module>:<Entity>" (e.g. "#acme-token:Acme.Rules:TransferRules")',
    ]);
    // a configuration built in code is checked as well when the registry starts
    const config = loadRegistryConfig({ REGISTRY_CONFIG_FILE: configFile('ok.json', { ...base, instruments: [{ id: 'A', name: 'a', symbol: 'A', recipe: 'splice-test-token-v1' }] }) });
    await expect(startRegistry({ ...config, instruments: [{ ...config.instruments[0]!, recipe: 'nope' }] }, { logger: pino({ level: 'silent' }) })).rejects.toThrow(ConfigError);
  });
});
