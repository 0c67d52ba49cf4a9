/**
 * Profiles (src/config/profiles.ts): `PROFILE=localnet` / `startStack({ profile: 'localnet' })`
 * gives LocalNet's topology and addresses as defaults; every setting given explicitly wins.
 * The pinned-id and instance-name settings work with or without a profile.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadEmulatorConfig } from '../../../src/config/load.js';
import { LOCALNET_APP_PROVIDER_PARTY_HINT, LOCALNET_APP_USER_PARTY_HINT } from '../../../src/canton/localnet.js';
import { applyProfile, portInUseMessage } from '../../../src/config/profiles.js';
import { buildEmulator } from '../../../src/emulator/index.js';

const NS = `1220${'d4'.repeat(32)}`;
const SYNC_NS = `1220${'e7'.repeat(32)}`;

describe('PROFILE=localnet', () => {
  it("resolves to LocalNet's addresses, participants, auth, instance names and CORS", () => {
    const c = loadEmulatorConfig({ PROFILE: 'localnet' });
    expect(c).toMatchObject({
      profile: 'localnet',
      port: 2975,
      participants: 2,
      participant2Port: 3975,
      validatorPort: 2000,
      scanPort: 4000,
      participantName: 'app-user',
      participant2Name: 'app-provider',
      auth: { mode: 'jwt', hs256Secret: 'unsafe', targetAudience: 'https://canton.network.global' },
      adminUsers: ['ledger-api-user'],
      instanceNames: {
        networkName: 'Splice',
        networkFaviconUrl: 'https://www.hyperledger.org/hubfs/hyperledgerfavicon.png',
        amuletName: 'Amulet',
        amuletNameAcronym: 'AMT',
        nameServiceName: 'Amulet Name Service',
        nameServiceNameAcronym: 'ANS',
      },
      corsOrigins: ['*'],
    });
    expect(c.participantId).toMatch(/^participant::1220[0-9a-f]{64}$/);
    expect(c.participant2Id).toMatch(/^participant::1220[0-9a-f]{64}$/);
    expect(c.participant2Id).not.toBe(c.participantId);
    expect(c.synchronizerId).toMatch(/^global-domain::1220[0-9a-f]{64}$/);
    // The state stays in memory unless STATE_DIR, as without a profile.
    expect(c.stateDir).toBeUndefined();
  });

  it('settings given explicitly override the profile, one by one', () => {
    const c = loadEmulatorConfig({
      PROFILE: 'localnet',
      PORT: '12975',
      SCAN_PORT: '14000',
      CORS_ORIGINS: 'http://localhost:5173',
      AMULET_NAME: 'Test Coin',
      LEDGER_AUTH_TARGET_AUDIENCE: 'https://other.example',
      PARTICIPANT_ID: `participant1::${NS}`,
    });
    expect(c).toMatchObject({ port: 12975, scanPort: 14000, validatorPort: 2000, participant2Port: 3975, corsOrigins: ['http://localhost:5173'] });
    // One instance name given keeps the profile's others.
    expect(c.instanceNames).toMatchObject({ networkName: 'Splice', amuletName: 'Test Coin', amuletNameAcronym: 'AMT', nameServiceName: 'Amulet Name Service', nameServiceNameAcronym: 'ANS' });
    // LEDGER_AUTH_* refine the profile's auth (LocalNet's), LEDGER_AUTH replaces it.
    expect(c.auth).toMatchObject({ mode: 'jwt', hs256Secret: 'unsafe', targetAudience: 'https://other.example' });
    expect(loadEmulatorConfig({ PROFILE: 'localnet', LEDGER_AUTH: 'none' }).auth).toEqual({ mode: 'none' });
    expect(c.participantId).toBe(`participant1::${NS}`);
  });

  it('an unknown profile is a configuration error naming the ones there are', () => {
    expect(() => loadEmulatorConfig({ PROFILE: 'devnet' })).toThrow(ConfigError);
    expect(() => loadEmulatorConfig({ PROFILE: 'devnet' })).toThrow('PROFILE must be one of "localnet", got "devnet"');
  });

  it('without a profile nothing changes: Canton ports, one participant, MainNet instance names, no CORS', () => {
    const c = loadEmulatorConfig({});
    expect(c).toMatchObject({ port: 7575, scanPort: 7577, validatorPort: 7578, participants: 1, corsOrigins: [], auth: { mode: 'none' } });
    expect(c.profile).toBeUndefined();
    expect(c.instanceNames).toEqual({
      networkName: 'Canton Network',
      networkFaviconUrl: 'https://www.canton.network/hubfs/cn-favicon-05%201-1.png',
      amuletName: 'Canton Coin',
      amuletNameAcronym: 'CC',
      nameServiceName: 'Canton Name Service',
      nameServiceNameAcronym: 'CNS',
    });
  });

  it('applyProfile (startStack options): a field given wins whole, an undefined one does not', () => {
    const input = applyProfile('localnet', { port: 0, scanPort: undefined, auth: { mode: 'none' } });
    expect(input).toMatchObject({ profile: 'localnet', port: 0, scanPort: 4000, auth: { mode: 'none' } });
    expect(applyProfile(undefined, { port: 1 })).toEqual({ port: 1 });
  });

  it('names the port in use, with what it likely means under the profile', () => {
    expect(portInUseMessage(2975, 'localnet')).toBe('port 2975 is in use: is LocalNet running?');
    expect(portInUseMessage(7575, undefined)).toBe('port 7575 is in use');
  });
});

describe("the localnet profile's world", () => {
  const emu = buildEmulator({ profile: 'localnet', config: { logLevel: 'silent' } });
  const [appUser, appProvider] = emu.participants.map((p) => p.engine);
  const party = (hint: string) => emu.seeded!.parties.find((p) => p.hint === hint)!.party;

  it('app-user and app-provider on one synchronizer, with the pinned ids', () => {
    expect([appUser!.participantName, appProvider!.participantName]).toEqual(['app-user', 'app-provider']);
    expect(appUser!.participantId).toBe(emu.config.participantId);
    expect(appProvider!.participantId).toBe(emu.config.participant2Id);
    expect(appUser!.synchronizerId).toBe(emu.config.synchronizerId);
    expect(appProvider!.synchronizer).toBe(appUser!.synchronizer);
  });

  it('each participant hosts its validator party; ledger-api-user and the wallet user act as it there', () => {
    const userParty = party(LOCALNET_APP_USER_PARTY_HINT);
    const providerParty = party(LOCALNET_APP_PROVIDER_PARTY_HINT);
    expect(userParty).toBe(`${LOCALNET_APP_USER_PARTY_HINT}::${appUser!.namespace}`);
    expect(providerParty).toBe(`${LOCALNET_APP_PROVIDER_PARTY_HINT}::${appProvider!.namespace}`);
    expect(appUser!.hosts(userParty)).toBe(true);
    expect(appProvider!.hosts(providerParty)).toBe(true);
    expect(appUser!.hosts(providerParty)).toBe(false);
    for (const [engine, p, wallet] of [[appUser!, userParty, 'app-user'], [appProvider!, providerParty, 'app-provider']] as const) {
      expect(engine.users.get('ledger-api-user')).toMatchObject({ primaryParty: p });
      expect(engine.users.rights('ledger-api-user')).toEqual(expect.arrayContaining([{ kind: 'ParticipantAdmin' }, { kind: 'CanActAs', party: p }]));
      expect(engine.users.get(wallet)).toMatchObject({ primaryParty: p });
    }
    expect(emu.seeded!.amulet).toMatchObject({ validator: userParty, validatorUser: 'ledger-api-user' });
    expect(emu.seeded!.instruments).toEqual([]);
  });

  it('a config given to startStack/buildEmulator wins over the profile', () => {
    const small = buildEmulator({ profile: 'localnet', config: { logLevel: 'silent', participants: 1, world: { parties: [{ hint: 'carol', role: '' }], instruments: [] } } });
    expect(small.participants).toHaveLength(1);
    expect(small.seeded!.parties.map((p) => p.hint)).toEqual(['carol']);
    expect(small.engine.participantName).toBe('app-user');
  });

  it('a world party on a participant that is not running is refused with a clear message', () => {
    const world = { parties: [{ hint: 'carol', role: '', participant: 'elsewhere' }], instruments: [] };
    expect(() => buildEmulator({ config: { logLevel: 'silent', world } })).toThrow(/party "carol" is allocated on elsewhere, which is not running \(participant1 are/);
  });
});

describe('pinned ids (PARTICIPANT_ID, PARTICIPANT2_ID, SYNCHRONIZER_ID) without a profile', () => {
  it("the participant's id and namespace (its parties' too) and the synchronizer's id are the ones given", () => {
    const c = loadEmulatorConfig({ PARTICIPANT_ID: `participant1::${NS}`, SYNCHRONIZER_ID: `wallet::${SYNC_NS}`, LOG_LEVEL: 'silent' });
    const emu = buildEmulator({ config: c });
    expect(emu.engine.participantId).toBe(`participant1::${NS}`);
    expect(emu.engine.synchronizerId).toBe(`wallet::${SYNC_NS}`);
    expect(emu.seeded!.parties.find((p) => p.hint === 'alice')!.party).toBe(`alice::${NS}`);
  });

  it('a malformed id is refused with what the form is', () => {
    expect(() => loadEmulatorConfig({ PARTICIPANT_ID: 'participant1' })).toThrow(/participantId: a Canton id is <identifier>::1220<64 lowercase hex>/);
    expect(() => loadEmulatorConfig({ SYNCHRONIZER_ID: `wallet::${NS.slice(0, 20)}` })).toThrow(/synchronizerId/);
    expect(() => buildEmulator({ config: { participants: 2, participant2Name: 'participant1', logLevel: 'silent' } })).toThrow(/PARTICIPANT_NAME must differ from PARTICIPANT2_NAME/);
  });
});
