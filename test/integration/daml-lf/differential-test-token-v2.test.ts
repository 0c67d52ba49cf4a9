/**
 * Differential test of TestTokenV2: the native templates (src/emulator/templates/test-token-v2)
 * against splice-test-token-v2-1.0.0.dar run by the Daml-LF evaluator, through the same random
 * wallet flows (./differential/flows.ts: the token-standard V1 API, which TestTokenV2 serves
 * through its V1 adapters). Minting is the reference registry's: the admin offers
 * (`TokenRules_OfferMint`), the owner accepts through the V2 TransferInstruction. The seed is
 * printed; DIFF_SEED replays a run, DIFF_FLOWS sets how many flows run.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { Pair, Prng, flowCount, runSeed, type Answer, type DisclosedJson, type Side } from './differential/harness.js';
import { activeContracts, transactionOf } from '../../support/ledger-wire.js';
import { TokenFlows, type TokenUnderTest } from './differential/flows.js';

const TOKEN_RULES = '#splice-test-token-v2:Splice.Testing.Tokens.TestTokenV2:TokenRules';
const TRANSFER_INSTRUCTION_V2 = '#splice-api-token-transfer-instruction-v2:Splice.Api.Token.TransferInstructionV2:TransferInstruction';

/** The admin's TokenRules as a disclosed contract (the admin's ACS read with the blob). */
async function rulesOf(s: Side): Promise<DisclosedJson> {
  const r = await s.acs(s.party('token-admin'), { TemplateFilter: { value: { templateId: TOKEN_RULES, includeCreatedEventBlob: true } } });
  const row = activeContracts(r.body)[0];
  if (row === undefined) throw new Error(`no TokenRules on the ${s.engine} side`);
  const ev = row.createdEvent;
  return { templateId: ev.templateId, contractId: ev.contractId, createdEventBlob: ev.createdEventBlob, synchronizerId: row.synchronizerId };
}

async function mint(s: Side, owner: string, amount: string): Promise<Answer> {
  const admin = s.party('token-admin');
  const rules = await rulesOf(s);
  const account = { owner, provider: null, id: '' };
  const offer = await s.submit([admin], [
    {
      ExerciseCommand: {
        templateId: TOKEN_RULES,
        contractId: rules.contractId,
        choice: 'TokenRules_OfferMint',
        choiceArgument: {
          receiver: account,
          amount,
          instrumentId: { admin, id: 'TT2' },
          offeredAt: s.at(0),
          receiverConfig: { admin, account, ownerConfig: { canInitiate: true, mustApprove: true }, providerConfig: { canInitiate: false, mustApprove: false } },
        },
      },
    },
  ]);
  if (offer.status !== 200) return offer;
  const root = transactionOf(offer.body).events.find((e) => 'ExercisedEvent' in e && e.ExercisedEvent.nodeId === 0);
  if (root === undefined || !('ExercisedEvent' in root)) throw new Error(`TokenRules_OfferMint: no root exercise in ${JSON.stringify(offer.body)}`);
  // TokenRules_OfferMint's result (the field read here)
  const { offerCid } = root.ExercisedEvent.exerciseResult as { offerCid: string };
  const context = {
    values: {
      'testTokenV2/accountConfigs': { tag: 'AV_List', value: [] },
      'testTokenV2/tokenRules': { tag: 'AV_ContractId', value: rules.contractId },
    },
  };
  return s.submit(
    [owner],
    [{ ExerciseCommand: { templateId: TRANSFER_INSTRUCTION_V2, contractId: offerCid, choice: 'TransferInstruction_Accept', choiceArgument: { actors: [owner], extraArgs: { context, meta: { values: {} } } } } }],
    [rules],
  );
}

const tt2: TokenUnderTest = {
  label: 'tt2',
  registry: 'admin',
  admin: (s: Side) => s.party('token-admin'),
  instrumentId: 'TT2',
  allocations: true,
  // TestTokenV2's native accept refuses an offer past executeBefore (its LIMITATIONS), the Daml does not
  nativeAcceptChecksExecuteBefore: true,
  mint,
};

let pair: Pair;
beforeAll(async () => {
  pair = await Pair.start();
}, 30_000);
afterAll(async () => {
  await pair?.close();
});

describe('TestTokenV2: native templates vs the evaluated DAR', () => {
  it('random wallet flows give the same answers', async () => {
    const flows = new TokenFlows(pair, new Prng(runSeed('tt2')), tt2);
    for (let i = flowCount(6); i > 0; i--) await flows.run();
    pair.expectNoDifferences();
  }, 120_000);
});
