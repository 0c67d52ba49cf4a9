/**
 * Differential test of Amulet (Canton Coin): the native templates (src/emulator/templates/amulet)
 * against splice-amulet-0.1.22.dar run by the Daml-LF evaluator, through the same random wallet
 * flows (./differential/flows.ts) with the Amulet registry that Scan serves at its host root:
 * factory (ExternalPartyAmuletRules) and choice contexts with their disclosed contracts, as a
 * wallet gets them. Coin is minted with the DevNet tap (`AmuletRules_DevNet_Tap`, rules and the
 * latest usable round disclosed, read from the DSO's ACS). The seed is printed; DIFF_SEED replays
 * a run, DIFF_FLOWS sets how many flows run.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { z } from 'zod';
import { formatTime, parseTime } from '../../../src/canton/lf-value.js';
import { Pair, Prng, flowCount, runSeed, type Answer, type DisclosedJson, type Side } from './differential/harness.js';
import { activeContracts } from '../../support/ledger-wire.js';
import { isObject } from '../../../src/canton/json-shape.js';
import { TokenFlows, type TokenUnderTest } from './differential/flows.js';

const AMULET_RULES = '#splice-amulet:Splice.AmuletRules:AmuletRules';
const OPEN_MINING_ROUND = '#splice-amulet:Splice.Round:OpenMiningRound';

/** A disclosed contract with its create arguments (LF JSON). */
type WithPayload = DisclosedJson & { payload: unknown };

async function dsoContracts(s: Side, templateId: string): Promise<WithPayload[]> {
  const r = await s.acs(s.party('DSO'), { TemplateFilter: { value: { templateId, includeCreatedEventBlob: true } } });
  return activeContracts(r.body).map((row) => {
    const ev = row.createdEvent;
    return { templateId: ev.templateId, contractId: ev.contractId, createdEventBlob: ev.createdEventBlob, synchronizerId: row.synchronizerId, payload: ev.createArgument };
  });
}

/** The fields of an OpenMiningRound's create arguments read here. */
const OpenMiningRoundFields = z.object({ opensAt: z.string(), round: z.object({ number: z.string() }) });

async function tap(s: Side, receiver: string, amount: string): Promise<Answer> {
  const [rules] = await dsoContracts(s, AMULET_RULES);
  const now = s.clock.nowMicros();
  const rounds = (await dsoContracts(s, OPEN_MINING_ROUND))
    .map((r) => ({ ...r, round: OpenMiningRoundFields.parse(r.payload) }))
    .filter((r) => parseTime(r.round.opensAt) <= now)
    .sort((a, b) => Number(BigInt(b.round.round.number) - BigInt(a.round.round.number)));
  const round = rounds[0];
  if (!rules || !round) return { status: 0, body: `no rules or usable round at ${formatTime(now)}` };
  const strip = ({ templateId, contractId, createdEventBlob, synchronizerId }: DisclosedJson): DisclosedJson => ({ templateId, contractId, createdEventBlob, synchronizerId });
  return s.submit(
    [receiver],
    [{ ExerciseCommand: { templateId: AMULET_RULES, contractId: rules.contractId, choice: 'AmuletRules_DevNet_Tap', choiceArgument: { receiver, amount, openRound: round.contractId } } }],
    [strip(rules), strip(round)],
  );
}

const amulet: TokenUnderTest = {
  label: 'amulet',
  registry: 'amulet',
  admin: (s: Side) => s.party('DSO'),
  instrumentId: 'Amulet',
  allocations: true,
  mint: tap,
};

/**
 * The one known gap, left out of the comparison: splice-amulet 0.1.22 reports every holdings
 * change as a non-consuming `EventLog_HoldingsChange` exercise (TransferEventsV2, CIP-112) on
 * AmuletRules, which the native Amulet does not emulate (its LIMITATIONS, item 3). Those nodes are
 * dropped, and with them the node numbering they shift; everything else is compared.
 */
function withoutEventLog(v: unknown): unknown {
  if (Array.isArray(v)) {
    return v.filter((x) => !(isObject(x) && isObject(x.ExercisedEvent) && x.ExercisedEvent.choice === 'EventLog_HoldingsChange')).map(withoutEventLog);
  }
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (k !== 'nodeId' && k !== 'lastDescendantNodeId') out[k] = withoutEventLog(x);
    return out;
  }
  return v;
}

let pair: Pair;
beforeAll(async () => {
  pair = await Pair.start(withoutEventLog);
}, 30_000);
afterAll(async () => {
  await pair?.close();
});

describe('Amulet: native templates vs the evaluated DAR', () => {
  it('random wallet flows through the Amulet registry give the same answers', async () => {
    const flows = new TokenFlows(pair, new Prng(runSeed('amulet')), amulet);
    for (let i = flowCount(6); i > 0; i--) await flows.run();
    pair.expectNoDifferences();
  }, 120_000);
});
