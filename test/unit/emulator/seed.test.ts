import { describe, expect, it } from 'vitest';
import { buildEmulator } from '../../../src/emulator/index.js';
import { DEFAULT_DEMO_WORLD, DemoWorldSchema, setUpValidatorUser } from '../../../src/emulator/seed.js';
import { LedgerEngine } from '../../../src/emulator/ledger/engine.js';

describe("the demo world's validator user", () => {
  it('ledger-api-user (a LEDGER_ADMIN_USERS admin) gets the validator party as primary party and CanActAs it', () => {
    const { engine, seeded } = buildEmulator({ config: { logLevel: 'silent' } });
    const validator = seeded!.amulet!.validator;
    expect(validator).toMatch(/^validator::1220[0-9a-f]{64}$/);
    expect(seeded!.amulet!.validatorUser).toBe('ledger-api-user');
    expect(engine.users.details('ledger-api-user')?.primaryParty).toBe(validator);
    expect(engine.users.rights('ledger-api-user')).toEqual([{ kind: 'ParticipantAdmin' }, { kind: 'CanActAs', party: validator }]);
  });

  it('is created when no admin users are configured, and can be renamed in the world file', () => {
    const world = DemoWorldSchema.parse({ ...DEFAULT_DEMO_WORLD, amulet: { ...DEFAULT_DEMO_WORLD.amulet, validatorUser: 'validator-app' } });
    const { engine, seeded } = buildEmulator({ config: { logLevel: 'silent', adminUsers: [] }, world });
    const validator = seeded!.amulet!.validator;
    expect(seeded!.amulet!.validatorUser).toBe('validator-app');
    expect(engine.users.details('validator-app')?.primaryParty).toBe(validator);
    expect(engine.users.rights('validator-app')).toEqual([{ kind: 'ParticipantAdmin' }, { kind: 'CanActAs', party: validator }]);
    expect(engine.users.has('ledger-api-user')).toBe(false);
  });

  it('keeps the other rights of an existing user', () => {
    const engine = new LedgerEngine({ seed: 'seed-test' });
    const v = engine.parties.allocate('validator').party;
    const other = engine.parties.allocate('other').party;
    engine.users.create({ id: 'ops', primaryParty: other }, [{ kind: 'CanReadAs', party: other }]);
    setUpValidatorUser(engine, 'ops', v);
    expect(engine.users.details('ops')?.primaryParty).toBe(v);
    expect(engine.users.rights('ops')).toEqual([{ kind: 'CanReadAs', party: other }, { kind: 'ParticipantAdmin' }, { kind: 'CanActAs', party: v }]);
  });

  it('is not created without an Amulet world (no validator then)', () => {
    const { engine } = buildEmulator({ config: { logLevel: 'silent', demoWorld: false } });
    expect(engine.users.rights('ledger-api-user')).toEqual([{ kind: 'ParticipantAdmin' }]);
    expect(engine.users.details('ledger-api-user')?.primaryParty).toBe('');
  });
});
