/**
 * The demo world `emulate` starts with: data, not code paths. Each party gets a user of the
 * same name holding CanActAs (and its primary party), so a wallet can log in as `alice` with a
 * dev token and act at once. Token instruments and holdings join this world with the token
 * implementations (issue 3).
 */
import type { LedgerEngine } from './ledger/engine.js';
import type { Right } from './ledger/types.js';

export interface DemoWorld {
  /** Party hints; each becomes `hint::<participant namespace>` and a user `hint`. */
  parties: Array<{ hint: string; role: string }>;
}

export const DEFAULT_DEMO_WORLD: DemoWorld = {
  parties: [
    { hint: 'token-admin', role: 'instrument admin' },
    { hint: 'alice', role: 'holder' },
    { hint: 'bob', role: 'holder' },
    { hint: 'executor', role: 'settlement executor' },
  ],
};

export interface SeededParty {
  hint: string;
  role: string;
  party: string;
  userId: string;
}

export function seedDemoWorld(engine: LedgerEngine, world: DemoWorld = DEFAULT_DEMO_WORLD): SeededParty[] {
  return world.parties.map(({ hint, role }) => {
    const party = engine.parties.allocate(hint).party;
    const rights: Right[] = [{ kind: 'CanActAs', party }];
    engine.users.create({ id: hint, primaryParty: party }, rights);
    return { hint, role, party, userId: hint };
  });
}
