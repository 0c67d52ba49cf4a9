import { describe, expect, it } from 'vitest';
import { buildEmulator } from '../../../../src/emulator/index.js';
import { DEFAULT_DEMO_WORLD, DemoWorldSchema, setUpValidatorUser } from '../../../../src/emulator/world/seed.js';
import { LedgerEngine } from '../../../../src/emulator/participant/engine.js';
import { mintDevToken } from '../../../../src/emulator/ledger-api/auth.js';
import { PING_TEMPLATE_REF } from '../../../../src/emulator/templates/admin-workflows/ping.js';

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

describe('further users in the world file (`users`)', () => {
  const world = (users: unknown[], extra: Record<string, unknown> = {}) => DemoWorldSchema.parse({ ...DEFAULT_DEMO_WORLD, ...extra, users });

  it('a second operator user on an existing party, with its rights and primary party, as a Canton bootstrap creates one', () => {
    const w = world([
      { id: 'operator2', primaryParty: 'alice', rights: { actAs: ['alice'], readAs: ['bob'], executeAs: ['executor'], participantAdmin: true } },
      { id: 'auditor', rights: { readAsAnyParty: true } },
      { id: 'signer', rights: { executeAsAnyParty: true, identityProviderAdmin: true } },
    ]);
    const { engine, seeded } = buildEmulator({ config: { logLevel: 'silent' }, world: w });
    const party = (hint: string) => seeded!.parties.find((p) => p.hint === hint)!.party;
    expect(engine.users.details('operator2')?.primaryParty).toBe(party('alice'));
    expect(engine.users.rights('operator2')).toEqual([
      { kind: 'ParticipantAdmin' },
      { kind: 'CanActAs', party: party('alice') },
      { kind: 'CanReadAs', party: party('bob') },
      { kind: 'CanExecuteAs', party: party('executor') },
    ]);
    expect(engine.users.details('auditor')?.primaryParty).toBe('');
    expect(engine.users.rights('auditor')).toEqual([{ kind: 'CanReadAsAnyParty' }]);
    expect(engine.users.rights('signer')).toEqual([{ kind: 'IdentityProviderAdmin' }, { kind: 'CanExecuteAsAnyParty' }]);
    // The party's own user is untouched.
    expect(engine.users.rights('alice')).toEqual([{ kind: 'CanActAs', party: party('alice') }]);
  });

  it('an existing user (a party\'s own, the validator\'s) gets the declared rights added and its primary party set', () => {
    const w = world([
      { id: 'alice', rights: { readAs: ['bob'] } },
      { id: 'ledger-api-user', primaryParty: 'DSO', rights: { readAs: ['DSO'] } },
    ]);
    const { engine, seeded } = buildEmulator({ config: { logLevel: 'silent' }, world: w });
    const party = (hint: string) => seeded!.parties.find((p) => p.hint === hint)!.party;
    expect(engine.users.rights('alice')).toEqual([{ kind: 'CanActAs', party: party('alice') }, { kind: 'CanReadAs', party: party('bob') }]);
    expect(engine.users.details('alice')?.primaryParty).toBe(party('alice'));
    expect(engine.users.details('ledger-api-user')?.primaryParty).toBe(party('DSO'));
    expect(engine.users.rights('ledger-api-user')).toEqual([
      { kind: 'ParticipantAdmin' },
      { kind: 'CanActAs', party: party('validator') },
      { kind: 'CanReadAs', party: party('DSO') },
    ]);
  });

  it('a user of participant2 (PARTICIPANTS=2); naming a participant that is not running is a configuration error', () => {
    const w = world([{ id: 'observer', participant: 'participant2', primaryParty: 'bob', rights: { readAs: ['bob'] } }]);
    const emu = buildEmulator({ config: { logLevel: 'silent', participants: 2 }, world: w });
    const p2 = emu.participants[1]!.engine;
    const bob = emu.seeded!.parties.find((p) => p.hint === 'bob')!.party;
    expect(p2.users.rights('observer')).toEqual([{ kind: 'CanReadAs', party: bob }]);
    expect(emu.engine.users.has('observer')).toBe(false);
    expect(() => buildEmulator({ config: { logLevel: 'silent' }, world: w })).toThrow(
      'demo world: user "observer" is a user of participant2, which is not running (participant1 are; PARTICIPANTS=2 starts participant2)',
    );
  });

  it('the declared user logs in with a JWT and acts as its party (LEDGER_AUTH=localnet); without the right it is refused', async () => {
    const w = world([
      { id: 'operator2', primaryParty: 'alice', rights: { actAs: ['alice'] } },
      { id: 'reader2', rights: { readAs: ['alice'] } },
    ]);
    const emu = buildEmulator({ config: { logLevel: 'silent', auth: { mode: 'localnet' } }, world: w });
    const alice = emu.seeded!.parties.find((p) => p.hint === 'alice')!.party;
    const call = async (user: string, method: 'GET' | 'POST', path: string, body?: unknown) => {
      const token = await mintDevToken({ secret: 'unsafe', sub: user, audience: 'https://canton.network.global', nowSeconds: Number(emu.clock.nowMicros() / 1_000_000n) });
      const res = await emu.app.request(path, { method, headers: { Authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    expect(await call('operator2', 'GET', '/v2/authenticated-user')).toMatchObject({ status: 200, body: { user: { id: 'operator2', primaryParty: alice } } });
    const ping = (user: string) =>
      call(user, 'POST', '/v2/commands/submit-and-wait', {
        commands: [{ CreateCommand: { templateId: PING_TEMPLATE_REF, createArguments: { id: 'p1', initiator: alice, responder: alice } } }],
        commandId: `ping-${user}`,
        actAs: [alice],
        userId: user,
      });
    expect((await ping('operator2')).status).toBe(200);
    // PERMISSION_DENIED, redacted on the wire as Canton redacts security-sensitive errors.
    expect((await ping('reader2')).status).toBe(403);
  });
});
