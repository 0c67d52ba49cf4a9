/**
 * Differential test of TestTokenV1: the native templates (src/emulator/templates/test-token-v1)
 * against splice-test-token-v1-1.0.0.dar run by the Daml-LF evaluator, through the same random
 * wallet flows (./differential/flows.ts). The seed is printed; DIFF_SEED replays a run, DIFF_FLOWS
 * sets how many flows run.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { Pair, Prng, flowCount, runSeed, type Side } from './differential/harness.js';
import { TokenFlows, type TokenUnderTest } from './differential/flows.js';

const TOKEN = '#splice-test-token-v1:Splice.Testing.Tokens.TestTokenV1:Token';

const tt1: TokenUnderTest = {
  label: 'tt1',
  registry: 'admin',
  admin: (s: Side) => s.party('token-admin'),
  instrumentId: 'TT1',
  allocations: true,
  nativeAcceptChecksExecuteBefore: true,
  // Minting as the reference registry's test utility does: a Token created by owner and admin.
  mint: (s, owner, amount) =>
    s.submit([owner, s.party('token-admin')], [
      { CreateCommand: { templateId: TOKEN, createArguments: { holding: { owner, instrumentId: { admin: s.party('token-admin'), id: 'TT1' }, amount, lock: null, meta: { values: {} } } } } },
    ]),
};

let pair: Pair;
beforeAll(async () => {
  pair = await Pair.start();
}, 30_000);
afterAll(async () => {
  await pair?.close();
});

describe('TestTokenV1: native templates vs the evaluated DAR', () => {
  it('random wallet flows give the same answers', async () => {
    const flows = new TokenFlows(pair, new Prng(runSeed('tt1')), tt1);
    for (let i = flowCount(8); i > 0; i--) await flows.run();
    pair.expectNoDifferences();
  }, 120_000);
});
