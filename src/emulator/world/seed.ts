/**
 * The demo world `emulate` starts with: data, not code paths. Each party gets a user of the
 * same name holding CanActAs (and its primary party), so a wallet can log in as `alice` with a
 * dev token and act at once. Instruments of both reference test tokens are created with their
 * rules contracts and holdings minted through the ledger's command service (the path every
 * wallet command takes).
 */
import { ConfigError } from '../../canton/config-error.js';
import type { LedgerEngine } from '../participant/engine.js';
import type { Right } from '../participant/types.js';
import { createTestTokenV1Rules, mintTestTokenV1, registerTestTokenV1 } from '../templates/test-token-v1/index.js';
import { createTestTokenV2Rules, findTestTokenV2Rules, mintTestTokenV2, registerTestTokenV2 } from '../templates/test-token-v2/index.js';
import { createFeaturedAppRight, installWallet, seedAmuletWorld, tapAmulet } from '../templates/amulet/index.js';

// The demo world's types and schema (the configuration) are in options.ts: config/ assembles
// them without loading the seeding code.
export { DemoWorldSchema } from './options.js';
export type { DemoAmulet, DemoHosting, DemoInstrument, DemoUser, DemoWorld, TokenImplementation } from './options.js';
import type { DemoInstrument, DemoUser, DemoWorld } from './options.js';

export const DEFAULT_DEMO_WORLD: DemoWorld = {
  parties: [
    { hint: 'token-admin', role: 'instrument admin' },
    { hint: 'alice', role: 'holder' },
    { hint: 'bob', role: 'holder' },
    { hint: 'executor', role: 'settlement executor' },
    { hint: 'DSO', role: 'Canton Coin DSO (admin of Amulet)' },
    { hint: 'validator', role: 'validator operator (hosts the wallets)' },
  ],
  amulet: {
    dso: 'DSO',
    validator: 'validator',
    holdings: [
      { owner: 'alice', amount: '1000' },
      { owner: 'bob', amount: '500' },
    ],
    wallets: ['alice', 'bob'],
    featuredApps: ['validator'],
  },
  instruments: [
    {
      token: 'splice-test-token-v1',
      admin: 'token-admin',
      id: 'TT1',
      name: 'Test Token One',
      symbol: 'TT1',
      decimals: 10,
      holdings: [
        { owner: 'alice', amount: '1000' },
        { owner: 'bob', amount: '500' },
      ],
    },
    {
      token: 'splice-test-token-v2',
      admin: 'token-admin',
      id: 'TT2-USD',
      name: 'Test Token Two (USD)',
      symbol: 'TUSD',
      decimals: 2,
      holdings: [
        { owner: 'alice', amount: '800' },
        { owner: 'bob', amount: '200' },
      ],
    },
    {
      token: 'splice-test-token-v2',
      admin: 'token-admin',
      id: 'TT2-EUR',
      name: 'Test Token Two (EUR)',
      symbol: 'TEUR',
      decimals: 2,
      holdings: [{ owner: 'alice', amount: '300' }],
    },
  ],
};

export interface SeededParty {
  hint: string;
  role: string;
  party: string;
  userId: string;
}

export interface SeededWorld {
  parties: SeededParty[];
  instruments: Array<DemoInstrument & { adminParty: string }>;
  amulet?: { dso: string; validator: string; validatorUser: string; amuletRulesCid: string; externalPartyAmuletRulesCid: string };
}

/** LocalNet's validator ledger API user (the validator app's `ledger-api-user`). */
export const DEFAULT_VALIDATOR_USER = 'ledger-api-user';

/**
 * Sets up the validator's own ledger API user as the Splice validator app does at start-up
 * (`ValidatorApp` with its `ledger-api-user`): primary party = the validator operator party,
 * CanActAs it, and ParticipantAdmin (it onboards users and allocates parties). An existing user
 * (e.g. one of LEDGER_ADMIN_USERS) keeps its other rights.
 */
export function setUpValidatorUser(engine: LedgerEngine, userId: string, validatorParty: string): void {
  const rights: Right[] = [{ kind: 'ParticipantAdmin' }, { kind: 'CanActAs', party: validatorParty }];
  if (engine.users.has(userId)) {
    engine.users.update({ id: userId, primaryParty: validatorParty }, ['primary_party']);
    engine.users.grant(userId, rights);
  } else {
    engine.users.create({ id: userId, primaryParty: validatorParty }, rights);
  }
}

/**
 * Seeds `world` on `engine` (the first participant). `others` are the other participants of its
 * synchronizer by name, for parties hosted on several (`hostedOn`); they are hosted there before
 * anything is created, so every participant hosting a party sees all of its transactions.
 */
export function seedDemoWorld(engine: LedgerEngine, world: DemoWorld = DEFAULT_DEMO_WORLD, others: ReadonlyMap<string, LedgerEngine> = new Map()): SeededWorld {
  const participant = (name: string, hint: string, how: 'allocated' | 'hosted'): LedgerEngine => {
    const found = name === engine.participantName ? engine : others.get(name);
    if (!found) {
      throw new ConfigError(`demo world: party "${hint}" is ${how} on ${name}, which is not running (${[engine, ...others.values()].map((e) => e.participantName).join(', ')} are; PARTICIPANTS=2 starts a second one)`);
    }
    return found;
  };
  const parties = world.parties.map(({ hint, role, participant: on, userId = hint, operatorUser, hostedOn }) => {
    const home = on === undefined ? engine : participant(on, hint, 'allocated');
    const party = home.parties.allocate(hint).party;
    const rights: Right[] = [{ kind: 'CanActAs', party }];
    home.users.create({ id: userId, primaryParty: party }, rights);
    if (operatorUser !== undefined) setUpValidatorUser(home, operatorUser, party);
    for (const h of hostedOn ?? []) {
      const other = participant(h.participant, hint, 'hosted');
      other.parties.allocateHosted(party, '', h.permission);
      const right: Right = h.permission === 'Submission' ? { kind: 'CanActAs', party } : { kind: 'CanReadAs', party };
      if (!other.users.has(userId)) other.users.create({ id: userId, primaryParty: party }, [right]);
      else other.users.grant(userId, [right]);
    }
    return { hint, role, party, userId };
  });
  const partyOf = (hint: string): string => {
    const p = parties.find((x) => x.hint === hint);
    if (!p) throw new Error(`demo world: unknown party hint "${hint}"`);
    return p.party;
  };
  const rulesDone = new Set<string>();
  const instruments = world.instruments.map((inst) => {
    const admin = partyOf(inst.admin);
    const key = `${inst.token}/${admin}`;
    if (inst.token === 'splice-test-token-v1') {
      registerTestTokenV1(engine.templates);
      if (!rulesDone.has(key)) createTestTokenV1Rules(engine, admin);
      for (const h of inst.holdings) mintTestTokenV1(engine, { admin, owner: partyOf(h.owner), instrumentId: inst.id, amount: h.amount });
    } else {
      registerTestTokenV2(engine.templates);
      if (!rulesDone.has(key) && findTestTokenV2Rules(engine, admin).length === 0) createTestTokenV2Rules(engine, admin);
      for (const h of inst.holdings) mintTestTokenV2(engine, { admin, owner: partyOf(h.owner), instrumentId: inst.id, amount: h.amount });
    }
    rulesDone.add(key);
    return { ...inst, adminParty: admin };
  });
  let amulet: SeededWorld['amulet'];
  if (world.amulet) {
    const a = world.amulet;
    const dso = partyOf(a.dso);
    const validator = partyOf(a.validator);
    const validatorUser = a.validatorUser ?? DEFAULT_VALIDATOR_USER;
    setUpValidatorUser(engine, validatorUser, validator);
    const days = a.transferPreapprovalBaseDurationDays;
    const w = seedAmuletWorld(engine, { dso, ...(days === undefined ? {} : { transferPreapprovalBaseDurationMicros: BigInt(days) * 86_400_000_000n }) });
    for (const h of a.holdings) tapAmulet(engine, { dso, receiver: partyOf(h.owner), amount: h.amount });
    for (const hint of a.wallets) installWallet(engine, { dso, user: partyOf(hint), validator });
    for (const hint of a.featuredApps) createFeaturedAppRight(engine, { dso, provider: partyOf(hint) });
    amulet = { ...w, validator, validatorUser };
  }
  for (const u of world.users ?? []) seedUser(u, engine, others, partyOf);
  return { parties, instruments, amulet };
}

/** Creates (or extends) one declared user on its participant. */
function seedUser(u: DemoUser, engine: LedgerEngine, others: ReadonlyMap<string, LedgerEngine>, partyOf: (hint: string) => string): void {
  const target = u.participant === undefined || u.participant === engine.participantName ? engine : others.get(u.participant);
  if (!target) {
    throw new ConfigError(`demo world: user "${u.id}" is a user of ${u.participant}, which is not running (${[engine, ...others.values()].map((e) => e.participantName).join(', ')} are; PARTICIPANTS=2 starts participant2)`);
  }
  const r = u.rights;
  const rights: Right[] = [
    ...(r.participantAdmin ? [{ kind: 'ParticipantAdmin' } as const] : []),
    ...(r.identityProviderAdmin ? [{ kind: 'IdentityProviderAdmin' } as const] : []),
    ...(r.readAsAnyParty ? [{ kind: 'CanReadAsAnyParty' } as const] : []),
    ...(r.executeAsAnyParty ? [{ kind: 'CanExecuteAsAnyParty' } as const] : []),
    ...r.actAs.map((h) => ({ kind: 'CanActAs' as const, party: partyOf(h) })),
    ...r.readAs.map((h) => ({ kind: 'CanReadAs' as const, party: partyOf(h) })),
    ...r.executeAs.map((h) => ({ kind: 'CanExecuteAs' as const, party: partyOf(h) })),
  ];
  const primaryParty = u.primaryParty === undefined ? undefined : partyOf(u.primaryParty);
  if (target.users.has(u.id)) {
    if (primaryParty !== undefined) target.users.update({ id: u.id, primaryParty }, ['primary_party']);
    target.users.grant(u.id, rights);
  } else {
    target.users.create({ id: u.id, ...(primaryParty === undefined ? {} : { primaryParty }) }, rights);
  }
}
