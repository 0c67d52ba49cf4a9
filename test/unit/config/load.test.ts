import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadEmulatorConfig } from '../../../src/config/load.js';
import { buildEmulator } from '../../../src/emulator/index.js';
import { builtInRecipes } from '../../../src/registry/recipes/index.js';
import type { AmuletRecipe } from '../../../src/registry/recipes/amulet.js';

const dir = mkdtempSync(join(tmpdir(), 'tr-config-'));
function file(name: string, content: unknown): string {
  const p = join(dir, name);
  writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content));
  return p;
}

describe('emulator configuration from the environment', () => {
  it('AMULET_REGISTRY_COMPAT: the emulated scan answers as the newest Scan unless set to legacy', () => {
    expect(loadEmulatorConfig({}).amuletRegistryCompat).toBe('current');
    expect(loadEmulatorConfig({ AMULET_REGISTRY_COMPAT: 'legacy' }).amuletRegistryCompat).toBe('legacy');
    expect(() => loadEmulatorConfig({ AMULET_REGISTRY_COMPAT: 'old' })).toThrow(/amuletRegistryCompat/);
    const recipe = (compat?: 'current' | 'legacy') => builtInRecipes({ amuletCompat: compat }).find((r) => r.name === 'splice-amulet') as AmuletRecipe;
    expect(recipe().compat).toBe('current');
    expect(recipe('legacy').compat).toBe('legacy');
    expect(recipe('legacy').supportedApis['splice-api-token-transfer-events-v2']).toBeUndefined();
    expect(recipe().supportedApis['splice-api-token-transfer-events-v2']).toBe(1);
  });

  it('TEMPLATE_ENGINE and DARS_DIR: native by default; daml needs a DARS_DIR with the demo world\'s tokens', () => {
    expect(loadEmulatorConfig({}).templateEngine).toBe('native');
    const c = loadEmulatorConfig({ TEMPLATE_ENGINE: 'daml', DARS_DIR: '/somewhere' });
    expect([c.templateEngine, c.darsDir]).toEqual(['daml', '/somewhere']);
    expect(() => loadEmulatorConfig({ TEMPLATE_ENGINE: 'speedy' })).toThrow(/templateEngine/);
    expect(() => buildEmulator({ config: { templateEngine: 'daml', logLevel: 'silent' } })).toThrow(/TEMPLATE_ENGINE=daml needs DARS_DIR/);
    expect(() => buildEmulator({ config: { darsDir: join(dir, 'no-such-dir'), logLevel: 'silent' } })).toThrow(/DARS_DIR: cannot read/);
    // a folder without the tokens' DARs cannot seed the demo world through the evaluator
    const empty = mkdtempSync(join(tmpdir(), 'tr-dars-'));
    expect(() => buildEmulator({ config: { templateEngine: 'daml', darsDir: empty, logLevel: 'silent' } })).toThrow(/DARS_DIR has no DAR with it/);
    expect(buildEmulator({ config: { templateEngine: 'daml', darsDir: empty, demoWorld: false, logLevel: 'silent' } }).engine).toBeDefined();
  });

  it('has working defaults (the demo world on, auth off, Canton ports)', () => {
    const c = loadEmulatorConfig({});
    expect(c).toMatchObject({ port: 7575, registryPort: 7576, demoWorld: true, auth: { mode: 'none' } });
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('replaces the demo world from DEMO_WORLD_FILE, and seeds it', () => {
    const world = {
      parties: [{ hint: 'issuer', role: 'admin' }, { hint: 'carol' }],
      instruments: [{ token: 'splice-test-token-v1', admin: 'issuer', id: 'GOLD', name: 'Gold', symbol: 'XAU', decimals: 4, holdings: [{ owner: 'carol', amount: '12.5' }] }],
    };
    const c = loadEmulatorConfig({ DEMO_WORLD_FILE: file('world.json', world) });
    const emu = buildEmulator({ config: { ...c, logLevel: 'silent' } });
    expect(emu.seeded?.parties.map((p) => p.hint)).toEqual(['issuer', 'carol']);
    expect(emu.seeded?.instruments.map((i) => i.id)).toEqual(['GOLD']);
    expect(emu.engine.contracts.activeCount).toBe(2); // TokenRules + carol's Token
  });

  it('DEMO_WORLD_FILE users: each mistake is one `<path>: <what>` problem', () => {
    const world = {
      parties: [{ hint: 'alice' }, { hint: 'bob' }],
      users: [
        { id: 'operator2', primaryParty: 'carol', rights: { actAs: ['alice', 'zed'], readAs: ['bob'] } },
        { id: 'operator2', rights: { executeAs: ['nobody'] } },
        { id: 'bad user!', rights: {} },
        { id: 'x', rights: { admin: true } },
        { id: 'y', rights: { actAs: 'alice' } },
        { id: 'z', participant: 'participant 2' },
      ],
    };
    let error: unknown;
    try {
      loadEmulatorConfig({ DEMO_WORLD_FILE: file('users.json', world) });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toEqual([
      'world.users[3].rights: Unrecognized key: "admin"',
      'world.users[4].rights.actAs: Invalid input: expected array, received string',
      expect.stringMatching(/^world\.users\[5\]\.participant: Invalid string: must match pattern /),
    ]);
    // Once the shapes are right, the references are checked.
    const shaped = { ...world, users: world.users.slice(0, 3) };
    let refs: unknown;
    try {
      loadEmulatorConfig({ DEMO_WORLD_FILE: file('users-refs.json', shaped) });
    } catch (e) {
      refs = e;
    }
    expect((refs as ConfigError).problems).toEqual([
      'world.users[0].primaryParty: unknown party hint "carol"',
      'world.users[0].rights.actAs[1]: unknown party hint "zed"',
      'world.users[1].id: user "operator2" is declared twice',
      'world.users[1].rights.executeAs[0]: unknown party hint "nobody"',
      expect.stringMatching(/^world\.users\[2\]\.id: User ID "bad user!" does not match regex /),
    ]);
  });

  it('LEDGER_AUTH=localnet: LocalNet\'s HS256 secret `unsafe` and audience, each overridable', () => {
    expect(loadEmulatorConfig({ LEDGER_AUTH: 'localnet' }).auth).toEqual({
      mode: 'jwt',
      hs256Secret: 'unsafe',
      targetAudience: 'https://canton.network.global',
    });
    expect(
      loadEmulatorConfig({ LEDGER_AUTH: 'localnet', LEDGER_AUTH_HS256_SECRET: 's3cret', LEDGER_AUTH_TARGET_AUDIENCE: 'https://ledger.example', LEDGER_AUTH_LEEWAY_SECONDS: '5' }).auth,
    ).toEqual({ mode: 'jwt', hs256Secret: 's3cret', targetAudience: 'https://ledger.example', leewaySeconds: 5 });
    expect(() => loadEmulatorConfig({ LEDGER_AUTH: 'localnet', LEDGER_AUTH_JWKS_URL: 'https://idp.example/jwks' })).toThrow(
      /LEDGER_AUTH_JWKS_URL needs LEDGER_AUTH=jwt/,
    );
    // The same preset given as configuration (startStack/startEmulator options).
    const emu = buildEmulator({ config: { auth: { mode: 'localnet' }, demoWorld: false, logLevel: 'silent' } });
    expect(emu.config.auth).toEqual({ mode: 'jwt', hs256Secret: 'unsafe', targetAudience: 'https://canton.network.global' });
  });

  it('names the variable and the problem for every mistake', () => {
    expect(() => loadEmulatorConfig({ PORT: 'abc' })).toThrow(/PORT must be a whole number/);
    expect(() => loadEmulatorConfig({ LEDGER_AUTH: 'magic' })).toThrow(/LEDGER_AUTH must be "none", "jwt" or "localnet"/);
    expect(() => loadEmulatorConfig({ LEDGER_AUTH: 'jwt' })).toThrow(ConfigError);
    expect(() => loadEmulatorConfig({ DEMO_WORLD_FILE: join(dir, 'missing.json') })).toThrow(/DEMO_WORLD_FILE: cannot read/);
    expect(() => loadEmulatorConfig({ DEMO_WORLD_FILE: file('bad.json', '{not json') })).toThrow(/DEMO_WORLD_FILE: not valid JSON/);
    const unknownOwner = { parties: [{ hint: 'a' }], instruments: [{ token: 'splice-test-token-v2', admin: 'a', id: 'X', name: 'X', symbol: 'X', holdings: [{ owner: 'zed', amount: '1' }] }] };
    expect(() => loadEmulatorConfig({ DEMO_WORLD_FILE: file('owner.json', unknownOwner) })).toThrow(/unknown party hint "zed"/);
    expect(() => loadEmulatorConfig({ DECLARED_TEMPLATES: '[{"packageName":"p"}]' })).toThrow(/moduleName/);
  });
});
