/**
 * The demo world seeded through the Daml-LF evaluator (TEMPLATE_ENGINE=daml, DARS_DIR = the
 * Splice DARs): TestTokenV1, TestTokenV2 and Amulet are the DARs' own templates, and the seeded
 * holdings read back over HTTP through the HoldingV1 interface, whose views the evaluator computes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';
import { Tt1Client } from '../../unit/emulator/templates/test-token-v1/tt1-client.js';
import { SHARED_DARS_DIR } from '../../support/shared-dars.js';


let emu: RunningEmulator;
let client: Tt1Client;

beforeAll(async () => {
  emu = await startEmulator({ config: { port: 0, logLevel: 'silent', templateEngine: 'daml', darsDir: SHARED_DARS_DIR } });
  client = new Tt1Client((path, init) => fetch(emu.ledgerUrl + path, init));
}, 120_000);

afterAll(async () => {
  await emu?.close();
});

describe('the demo world with TEMPLATE_ENGINE=daml', () => {
  it('runs the token and Amulet templates from their DARs', () => {
    for (const key of [
      'splice-test-token-v1:Splice.Testing.Tokens.TestTokenV1:Token',
      'splice-test-token-v2:Splice.Testing.Tokens.TestTokenV2.Holding:Token',
      'splice-amulet:Splice.Amulet:Amulet',
      'splice-amulet:Splice.AmuletRules:AmuletRules',
    ]) {
      expect(emu.engine.templates.templateByNameKey(key)?.kind, key).toBe('daml');
    }
  });

  it('seeds the holdings of every instrument, read through the evaluated HoldingV1 views', async () => {
    const party = (hint: string) => emu.seeded!.parties.find((p) => p.hint === hint)!.party;
    const admin = party('token-admin');
    const dso = party('DSO');
    const alice = party('alice');
    expect(await client.balance(alice, { admin, id: 'TT1' })).toEqual({ unlocked: '1000.0000000000', locked: '0.0000000000', count: 1 });
    expect((await client.balance(alice, { admin, id: 'TT2-USD' })).unlocked).toBe('800.0000000000');
    expect((await client.balance(alice, { admin: dso, id: 'Amulet' })).unlocked).toBe('1000.0000000000');
  });
});
