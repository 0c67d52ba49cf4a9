/**
 * The mining-round templates of splice-amulet `Splice.Round`: OpenMiningRound (with
 * `OpenMiningRound_Fetch`) and SummarizingMiningRound (no choices emulated). AmuletRules
 * (./amulet-rules.ts) creates and advances them.
 */
import type { TemplateDef } from '../../participant/templates.js';
import type { QualifiedId } from '../../participant/types.js';
import { recordParser } from '../../lf-value/native-json-codec.js';
import { opt, rec } from '../../lf-value/native-type.js';
import { fetchByPartyChoice } from './choice-helpers.js';
import {
  AmuletIds,
  SPLICE_AMULET_PACKAGE_ID,
  SPLICE_AMULET_PACKAGE_NAME,
  T,
  type OpenMiningRoundPayload,
} from './values.js';

export const SummarizingMiningRoundId: QualifiedId = {
  packageId: SPLICE_AMULET_PACKAGE_ID,
  packageName: SPLICE_AMULET_PACKAGE_NAME,
  moduleName: 'Splice.Round',
  entityName: 'SummarizingMiningRound',
};
const SummarizingMiningRoundT = rec(
  ['dso', 'party'],
  ['round', T.Round],
  ['amuletPrice', 'decimal'],
  ['issuanceConfig', T.IssuanceConfig],
  ['tickDuration', T.RelTime],
  ['trafficPrice', opt('decimal')],
  ['rewardConfig', opt(T.RewardConfig)],
);

export function openMiningRoundTemplate(): TemplateDef<OpenMiningRoundPayload> {
  return {
    id: AmuletIds.OpenMiningRound,
    kind: 'native',
    signatories: (p) => [p.dso],
    observers: () => [],
    ensure: (p) => (BigInt(p.round.number) >= 0n ? undefined : 'isDefinedRound round'),
    parsePayload: recordParser(T.OpenMiningRound, 'createArguments'),
    payloadType: T.OpenMiningRound,
    choices: {
      OpenMiningRound_Fetch: fetchByPartyChoice<OpenMiningRoundPayload>('OpenMiningRound_Fetch'),
    },
    implements: [],
  };
}

export function summarizingMiningRoundTemplate(): TemplateDef<{ dso: string }> {
  return {
    id: SummarizingMiningRoundId,
    kind: 'native',
    signatories: (p) => [p.dso],
    observers: () => [],
    parsePayload: recordParser(SummarizingMiningRoundT, 'createArguments'),
    payloadType: SummarizingMiningRoundT,
    choices: {},
    implements: [],
  };
}
