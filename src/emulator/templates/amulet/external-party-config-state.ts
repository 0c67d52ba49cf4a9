/**
 * `Splice.ExternalPartyConfigState:ExternalPartyConfigState` of splice-amulet 0.1.22 and the two
 * AmuletRules choices that create it, as native templates / choices.
 *
 * The config state carries the subset of an OpenMiningRound that transfers, allocations and their
 * settlement need (the round whose number stamps new holdings, the amulet price, the transfer
 * config without fees: `TransferConfigV2`) and lives far longer than a round, so that an external
 * party can prepare a transaction and sign it up to a day later. There are two at a time, created
 * about one `externalPartyConfigStateTickDuration` apart (AmuletConfig; 24 h when unset), each
 * standing for two ticks (`targetArchiveAfter`):
 *  - `AmuletRules_BootstrapExternalPartyConfigState` (once; Splice's SV automation runs it through
 *    the BootstrapExternalPartyConfigStateInstruction) creates both from a validated open-round
 *    triple, the second one tick later than the first;
 *  - `AmuletRules_UpdateExternalPartyConfigStates` (Splice: the DSO's
 *    UpdateExternalPartyConfigStateTrigger) archives the older one once its `targetArchiveAfter`
 *    has passed and creates a new one lasting two ticks from now.
 * The holding-fee round is the *oldest* open round (so the state never runs ahead of the rounds)
 * and price, transfer config and reward version come from the latest usable round, as
 * `validateOpenMiningRoundTriple` in Splice.AmuletRules.
 *
 * Deviation: the template's `TransferEventsV2.EventLog` interface instance is not declared (the
 * emulated Amulet logs no transfer events, LIMITATIONS 3 in ./index.ts).
 */
import type { TemplateDef, UpdateContext } from '../../participant/templates.js';
import type { QualifiedId } from '../../participant/types.js';
import { formatTime, parseTime } from '../../../canton/lf-value.js';
import { recordParser } from '../../lf-value/native-json-codec.js';
import { opt, rec, type NativeValueType } from '../../lf-value/native-type.js';
import { nativeChoice } from '../native-choice.js';
import { fetchForDso, fetchOpenRound } from './fetch-checked.js';
import {
  assertDeadlineExceeded,
  failGeneral,
  require,
  showParty,
  SPLICE_AMULET_PACKAGE_ID,
  SPLICE_AMULET_PACKAGE_NAME,
  T,
  type AmuletRulesPayload,
  type ExtraArgsV,
  type OpenMiningRoundPayload,
  type RelTimeV,
  type RoundV,
} from './values.js';

export const ExternalPartyConfigStateId: QualifiedId = {
  packageId: SPLICE_AMULET_PACKAGE_ID,
  packageName: SPLICE_AMULET_PACKAGE_NAME,
  moduleName: 'Splice.ExternalPartyConfigState',
  entityName: 'ExternalPartyConfigState',
};

/** `externalPartyConfigStateContextKey` (Splice.Amulet.TokenApiUtils). */
export const EXTERNAL_PARTY_CONFIG_STATE_KEY = 'external-party-config-state';

/** `getExternalPartyConfigStateTickDuration`: 24 hours when the AmuletConfig leaves it unset. */
export const DEFAULT_CONFIG_STATE_TICK_MICROS = 24n * 3600n * 1_000_000n;

/** `TransferConfigV2 USD` (Splice.AmuletConfig): the transfer config stripped of the CIP-78 fees. */
export interface TransferConfigV2V {
  holdingFee: { rate: string };
  maxNumInputs: string;
  maxNumOutputs: string;
  maxNumLockHolders: string;
  tokenStandardMaxTTL: RelTimeV | null;
}

export interface ExternalPartyConfigStatePayload {
  dso: string;
  holdingFeesOpenRoundNumber: RoundV;
  amuletPrice: string;
  transferConfig: TransferConfigV2V;
  targetArchiveAfter: string;
  rewardCalculationVersion: string | null;
}

const TransferConfigV2: NativeValueType = rec(
  ['holdingFee', rec(['rate', 'decimal'])],
  ['maxNumInputs', 'int'],
  ['maxNumOutputs', 'int'],
  ['maxNumLockHolders', 'int'],
  ['tokenStandardMaxTTL', opt(T.RelTime)],
);
const RewardVersion: NativeValueType = { enum: ['RewardVersion_FeaturedAppMarkers', 'RewardVersion_TrafficBasedAppRewards'] };

export const ExternalPartyConfigStateTypes = {
  TransferConfigV2,
  ExternalPartyConfigState: rec(
    ['dso', 'party'],
    ['holdingFeesOpenRoundNumber', T.Round],
    ['amuletPrice', 'decimal'],
    ['transferConfig', TransferConfigV2],
    ['targetArchiveAfter', 'time'],
    ['rewardCalculationVersion', opt(RewardVersion)],
  ),
  OpenMiningRoundTriple: rec(['round0Cid', 'cid'], ['round1Cid', 'cid'], ['round2Cid', 'cid']),
} as const;

export function externalPartyConfigStateTemplate(): TemplateDef<ExternalPartyConfigStatePayload> {
  return {
    id: ExternalPartyConfigStateId,
    kind: 'native',
    signatories: (p) => [p.dso],
    observers: () => [],
    parsePayload: recordParser(ExternalPartyConfigStateTypes.ExternalPartyConfigState, 'createArguments'),
    payloadType: ExternalPartyConfigStateTypes.ExternalPartyConfigState,
    choices: {},
    implements: [],
  };
}

// ---- the AmuletRules choices ----------------------------------------------------------------------

export interface OpenMiningRoundTripleV {
  round0Cid: string;
  round1Cid: string;
  round2Cid: string;
}

/** `validateOpenMiningRoundTriple`: three consecutive rounds; the oldest and the latest opened one. */
function validateOpenMiningRoundTriple(ctx: UpdateContext, dso: string, t: OpenMiningRoundTripleV) {
  const rounds = [t.round0Cid, t.round1Cid, t.round2Cid].map((cid) => fetchOpenRound(ctx, dso, cid));
  const [r0, r1, r2] = rounds as [OpenMiningRoundPayload, OpenMiningRoundPayload, OpenMiningRoundPayload];
  require(ctx, 'round1 = round0 + 1', BigInt(r1.round.number) === BigInt(r0.round.number) + 1n);
  require(ctx, 'round2 = round1 + 1', BigInt(r2.round.number) === BigInt(r1.round.number) + 1n);
  const usable = rounds.filter((r) => parseTime(r.opensAt) <= ctx.nowMicros);
  // Daml's `maximumOn` on an empty list fails; no usable round cannot happen on a live network
  if (usable.length === 0) failGeneral(ctx, 'maximumOn: empty list');
  const latestUsable = usable.reduce((a, b) => (BigInt(b.round.number) > BigInt(a.round.number) ? b : a));
  return { oldestRound: r0, latestUsableRound: latestUsable };
}

const tickMicros = (rules: AmuletRulesPayload): bigint => {
  const d = rules.configSchedule.initialValue.externalPartyConfigStateTickDuration;
  return d === null ? DEFAULT_CONFIG_STATE_TICK_MICROS : BigInt(d.microseconds);
};

/** `(.mintingVersion) <$> round.rewardConfig`. */
function mintingVersionOf(round: OpenMiningRoundPayload): string | null {
  const rc = round.rewardConfig;
  if (rc === null || typeof rc !== 'object' || !('mintingVersion' in rc) || typeof rc.mintingVersion !== 'string') return null;
  return rc.mintingVersion;
}

function configStateFrom(dso: string, rounds: ReturnType<typeof validateOpenMiningRoundTriple>, targetArchiveAfter: bigint): ExternalPartyConfigStatePayload {
  const tc = rounds.latestUsableRound.transferConfigUsd;
  return {
    dso,
    holdingFeesOpenRoundNumber: rounds.oldestRound.round,
    amuletPrice: rounds.latestUsableRound.amuletPrice,
    // transferConfigToTransferConfigV2
    transferConfig: {
      holdingFee: tc.holdingFee,
      maxNumInputs: tc.maxNumInputs,
      maxNumOutputs: tc.maxNumOutputs,
      maxNumLockHolders: tc.maxNumLockHolders,
      tokenStandardMaxTTL: tc.tokenStandardMaxTTL,
    },
    targetArchiveAfter: formatTime(targetArchiveAfter),
    rewardCalculationVersion: mintingVersionOf(rounds.latestUsableRound),
  };
}

/** `AmuletRules_BootstrapExternalPartyConfigState` and `AmuletRules_UpdateExternalPartyConfigStates`. */
export function externalPartyConfigStateChoices() {
  const Triple = ExternalPartyConfigStateTypes.OpenMiningRoundTriple;
  return {
    AmuletRules_BootstrapExternalPartyConfigState: nativeChoice<AmuletRulesPayload, { openMiningRoundTriple: OpenMiningRoundTripleV; expectedDso: string }>(
      'AmuletRules_BootstrapExternalPartyConfigState',
      rec(['openMiningRoundTriple', Triple], ['expectedDso', 'party']),
      {
        consuming: false,
        controllers: (p) => [p.dso],
        body: (ctx, self, a) => {
          const dso = self.payload.dso;
          // checkExpectedDso
          if (a.expectedDso !== dso) failGeneral(ctx, `DSO party expected by caller ${showParty(a.expectedDso)} does not match actual DSO party ${showParty(dso)}`);
          const rounds = validateOpenMiningRoundTriple(ctx, dso, a.openMiningRoundTriple);
          const tick = tickMicros(self.payload);
          ctx.create(ExternalPartyConfigStateId, configStateFrom(dso, rounds, ctx.nowMicros + tick));
          ctx.create(ExternalPartyConfigStateId, configStateFrom(dso, rounds, ctx.nowMicros + 2n * tick));
          // the result is a single-constructor enum
          return 'AmuletRules_BootstrapExternalPartyConfigStateResult';
        },
      },
    ),
    AmuletRules_UpdateExternalPartyConfigStates: nativeChoice<
      AmuletRulesPayload,
      { externalPartyConfigStateCid0: string; externalPartyConfigStateCid1: string; openMiningRoundTriple: OpenMiningRoundTripleV }
    >(
      'AmuletRules_UpdateExternalPartyConfigStates',
      rec(['externalPartyConfigStateCid0', 'cid'], ['externalPartyConfigStateCid1', 'cid'], ['openMiningRoundTriple', Triple]),
      {
        consuming: false,
        controllers: (p) => [p.dso],
        body: (ctx, self, a) => {
          const dso = self.payload.dso;
          const rounds = validateOpenMiningRoundTriple(ctx, dso, a.openMiningRoundTriple);
          const s0 = fetchConfigState(ctx, dso, a.externalPartyConfigStateCid0);
          ctx.exercise(a.externalPartyConfigStateCid0, 'Archive', {});
          const s1 = fetchConfigState(ctx, dso, a.externalPartyConfigStateCid1);
          assertDeadlineExceeded(ctx, 'ExternalPartyConfigState0.targetArchiveAfter', s0.targetArchiveAfter);
          require(
            ctx,
            'ExternalPartyConfigState0.targetArchiveAfter <= ExternalPartyConfigState1.targetArchiveAfter',
            parseTime(s0.targetArchiveAfter) <= parseTime(s1.targetArchiveAfter),
          );
          const newExternalPartyConfigStateCid = ctx.create(ExternalPartyConfigStateId, configStateFrom(dso, rounds, ctx.nowMicros + 2n * tickMicros(self.payload)));
          return { newExternalPartyConfigStateCid };
        },
      },
    ),
  };
}

// ---- reading it (getExternalPartyConfigStateFromChoiceContext) --------------------------------------

export function fetchConfigState(ctx: UpdateContext, dso: string, cid: string): ExternalPartyConfigStatePayload {
  return fetchForDso<ExternalPartyConfigStatePayload>(ctx, dso, cid, ExternalPartyConfigStateId);
}

/** The context's `external-party-config-state`, fetched and checked to be the DSO's; null when absent. */
export function configStateFromContext(ctx: UpdateContext, dso: string, extra: ExtraArgsV): { cid: string; state: ExternalPartyConfigStatePayload } | null {
  const av = extra.context.values[EXTERNAL_PARTY_CONFIG_STATE_KEY];
  if (av === undefined) return null;
  if (av.tag !== 'AV_ContractId') failGeneral(ctx, `Failed to decode context value for '${EXTERNAL_PARTY_CONFIG_STATE_KEY}': expected contract id, got: ${av.tag} ${JSON.stringify(av.value)}`);
  const cid = av.value as string;
  return { cid, state: fetchConfigState(ctx, dso, cid) };
}
