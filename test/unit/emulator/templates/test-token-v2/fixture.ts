/**
 * An in-process ledger with TestTokenV2 registered, an admin with TokenRules and instrument "X2",
 * and a few parties; driven through the JSON API with `app.request` (no network).
 */
import { LedgerEngine } from '../../../../../src/emulator/participant/engine.js';
import { createLedgerApiApp, ledgerApiRoutes } from '../../../../../src/emulator/ledger-api/routes.js';
import { ManualClock } from '../../../../../src/canton/clock.js';
import { formatTime } from '../../../../../src/canton/lf-value.js';
import { createTestTokenV2Rules, mintTestTokenV2, registerTestTokenV2 } from '../../../../../src/emulator/templates/test-token-v2/index.js';
import { LedgerClient } from './client.js';

export const START = '2026-03-01T12:00:00Z';

export function tt2Ledger() {
  const clock = new ManualClock(START);
  const engine = new LedgerEngine({ seed: 'tt2', clock });
  registerTestTokenV2(engine.templates);
  const app = createLedgerApiApp({ engine }, ledgerApiRoutes);
  const client = new LedgerClient((path, init) => Promise.resolve(app.request(path, init)));
  const party = (hint: string) => engine.parties.allocate(hint).party;
  const admin = party('adminTT2');
  const alice = party('alice');
  const bob = party('bob');
  const carol = party('carol');
  const executor = party('executor');
  const rules = createTestTokenV2Rules(engine, admin);
  const mint = (owner: string, amount: string | number, id = 'X2') => mintTestTokenV2(engine, { admin, owner, instrumentId: id, amount, tokenRulesCid: rules });
  /** Ledger time shifted by `ms` (for requestedAt / deadlines). */
  const at = (ms: number) => formatTime(clock.nowMicros() + BigInt(ms) * 1000n);
  return { clock, engine, app, client, party, admin, alice, bob, carol, executor, rules, mint, at };
}
export type TT2Ledger = ReturnType<typeof tt2Ledger>;
