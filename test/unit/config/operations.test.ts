/** The operational settings of both modes, and configurations frozen all the way down. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadEmulatorConfig } from '../../../src/config/load.js';
import { loadRegistryConfig } from '../../../src/serve.js';
import { buildEmulator } from '../../../src/emulator/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const dir = mkdtempSync(join(tmpdir(), 'tr-ops-config-'));
const registryFile = join(dir, 'registry.json');
writeFileSync(registryFile, JSON.stringify({ adminParty: 'a', ledger: { url: 'http://x' }, instruments: [{ id: 'A', name: 'a', symbol: 'A', recipe: 'splice-test-token-v1' }] }));

describe('CORS_ORIGINS and SHUTDOWN_DRAIN_MS', () => {
  it('default to no CORS and a 10 s drain in both modes', () => {
    for (const c of [loadEmulatorConfig({}), loadRegistryConfig({ REGISTRY_CONFIG_FILE: registryFile })]) {
      expect(c.corsOrigins).toEqual([]);
      expect(c.shutdownDrainMs).toBe(10_000);
    }
  });

  it('are read from the environment and checked', () => {
    const env = { CORS_ORIGINS: 'https://wallet.example.com, http://localhost:3000', SHUTDOWN_DRAIN_MS: '2500' };
    for (const c of [loadEmulatorConfig(env), loadRegistryConfig({ REGISTRY_CONFIG_FILE: registryFile, ...env })]) {
      expect(c.corsOrigins).toEqual(['https://wallet.example.com', 'http://localhost:3000']);
      expect(c.shutdownDrainMs).toBe(2500);
    }
    expect(loadEmulatorConfig({ CORS_ORIGINS: '*' }).corsOrigins).toEqual(['*']);
    expect(() => loadEmulatorConfig({ CORS_ORIGINS: 'https://wallet.example.com/path' })).toThrow(/^corsOrigins\[0\]: an origin is/);
    expect(() => loadEmulatorConfig({ CORS_ORIGINS: 'wallet.example.com' })).toThrow(/corsOrigins/);
    expect(() => loadRegistryConfig({ REGISTRY_CONFIG_FILE: registryFile, SHUTDOWN_DRAIN_MS: 'soon' })).toThrow(/shutdownDrainMs/);
  });
});

describe('configurations are frozen deeply', () => {
  it('in both modes: nested objects and arrays cannot be changed', () => {
    const emu = loadEmulatorConfig({ CORS_ORIGINS: 'https://a.example' });
    expect(Object.isFrozen(emu.auth)).toBe(true);
    expect(() => (emu.corsOrigins as string[]).push('https://b.example')).toThrow(TypeError);
    const reg = loadRegistryConfig({ REGISTRY_CONFIG_FILE: registryFile });
    expect(Object.isFrozen(reg)).toBe(true);
    expect(Object.isFrozen(reg.ledger)).toBe(true);
    expect(Object.isFrozen(reg.instruments[0])).toBe(true);
    expect(() => Object.assign(reg.ledger, { url: 'http://elsewhere' })).toThrow(TypeError);
  });
});

describe('parsed once', () => {
  it('the emulator takes the configuration the CLI loaded as it is; input given by a library caller is parsed and frozen', () => {
    const loaded = loadEmulatorConfig({ DEMO_WORLD: 'false', LOG_LEVEL: 'silent' });
    expect(buildEmulator({ config: loaded }).config).toBe(loaded);
    const fromInput = buildEmulator({ config: { demoWorld: false, logLevel: 'silent' } }).config;
    expect(fromInput.port).toBe(7575);
    expect(Object.isFrozen(fromInput.auth)).toBe(true);
  });
});

describe('`config schema`', () => {
  it('prints the JSON Schema of both modes, or of one', () => {
    const run = (...args: string[]) => JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', join(root, 'src/main.ts'), 'config', 'schema', ...args], { cwd: root, encoding: 'utf8' }));
    const both = run();
    expect(Object.keys(both).sort()).toEqual(['emulate', 'serve']);
    expect(both.serve.required).toEqual(expect.arrayContaining(['adminParty', 'instruments', 'ledger']));
    expect(Object.keys(both.serve.properties)).toEqual(expect.arrayContaining(['corsOrigins', 'shutdownDrainMs', 'redisUrl']));
    expect(Object.keys(both.emulate.properties)).toEqual(expect.arrayContaining(['corsOrigins', 'shutdownDrainMs', 'registryPort', 'demoWorld']));
    expect(run('serve')).toEqual(both.serve);
  });
});
