/**
 * The AmuletRules template of splice-amulet `Splice.AmuletRules`: transfer, DevNet tap and mint,
 * the DevNet featured-app self-grant, round bootstrap and advance, fetch, and the external-party
 * config-state choices (./external-party-config-state.ts).
 */
import type { TemplateDef } from '../../participant/templates.js';
import { formatTime, parseTime } from '../../../canton/lf-value.js';
import { recordParser } from '../../lf-value/native-json-codec.js';
import { opt, rec } from '../../lf-value/native-type.js';
import { nativeChoice } from '../native-choice.js';
import { fetchByPartyChoice } from './choice-helpers.js';
import { fetchOpenRound } from './fetch-checked.js';
import {
  executeTransfer,
  holdingTxMeta,
  transferConfigAmulet,
  transferControllers,
  type AmuletBehaviour,
} from './transfer.js';
import {
  AmuletIds,
  T,
  dec,
  decText,
  require,
  type AmuletRulesPayload,
  type AmuletTransferV,
  type OpenMiningRoundPayload,
  type TransferContextV,
} from './values.js';
import { checkExpectedDso } from './preapproval.js';
import { SummarizingMiningRoundId } from './mining-rounds.js';
import { externalPartyConfigStateChoices } from './external-party-config-state.js';

const relTime = (micros: bigint) => ({ microseconds: micros.toString() });
const addRel = (t: string, rel: { microseconds: string }) => formatTime(parseTime(t) + BigInt(rel.microseconds));

interface TransferChoiceArg {
  transfer: AmuletTransferV;
  context: TransferContextV;
  expectedDso: string | null;
}
interface MintArg {
  receiver: string;
  amount: string;
  openRound: string;
  reason: string | null;
}
interface BootstrapArg {
  amuletPrice: string;
  round0Duration: { microseconds: string };
  initialRound: string | null;
}
interface AdvanceArg {
  amuletPrice: string;
  roundToArchiveCid: string;
  middleRoundCid: string;
  latestRoundCid: string;
}

const configOf = (p: AmuletRulesPayload) => p.configSchedule.initialValue;
const newRound = (
  dso: string,
  p: AmuletRulesPayload,
  number: bigint,
  amuletPrice: string,
  opensAt: string,
  targetClosesAt: string,
  issuingFor: bigint,
): OpenMiningRoundPayload => {
  const cfg = configOf(p);
  // getValueAsOf issuingFor issuanceCurve: the last future value whose time has come
  let issuance = cfg.issuanceCurve.initialValue;
  for (const fv of cfg.issuanceCurve.futureValues) if (BigInt(fv._1.microseconds) <= issuingFor) issuance = fv._2;
  return {
    dso,
    round: { number: number.toString() },
    amuletPrice,
    opensAt,
    targetClosesAt,
    issuingFor: relTime(issuingFor),
    transferConfigUsd: cfg.transferConfig,
    issuanceConfig: issuance,
    tickDuration: cfg.tickDuration,
    trafficPrice: null,
    rewardConfig: null,
  };
};

export function amuletRulesTemplate(behaviour: AmuletBehaviour): TemplateDef<AmuletRulesPayload> {
  const rulesSignatories = (p: AmuletRulesPayload) => [p.dso];
  return {
    id: AmuletIds.AmuletRules,
    kind: 'native',
    signatories: rulesSignatories,
    observers: () => [],
    ensure: (p) => {
      const c = configOf(p);
      const ok =
        p.configSchedule.futureValues.length === 0 &&
        BigInt(c.tickDuration.microseconds) > 0n &&
        dec(c.transferConfig.holdingFee.rate) >= 0n &&
        BigInt(c.transferConfig.maxNumInputs) >= 1n &&
        BigInt(c.transferConfig.maxNumOutputs) >= 1n &&
        BigInt(p.contractStateSchemaVersion ?? '0') >= 0n;
      return ok ? undefined : 'validAmuletConfig configSchedule.initialValue && null configSchedule.futureValues';
    },
    parsePayload: recordParser(T.AmuletRules, 'createArguments'),
    payloadType: T.AmuletRules,
    choices: {
      AmuletRules_Transfer: nativeChoice<AmuletRulesPayload, TransferChoiceArg>(
        'AmuletRules_Transfer',
        rec(['transfer', T.Transfer], ['context', T.TransferContext], ['expectedDso', opt('party')]),
        {
          consuming: false,
          controllers: (_p, a) => transferControllers(a.transfer),
          body: (ctx, self, a) => {
            checkExpectedDso(ctx, self.payload.dso, a.expectedDso);
            return executeTransfer(ctx, behaviour, self.payload.dso, a.context, a.transfer).result;
          },
        },
      ),
      AmuletRules_Mint: nativeChoice<AmuletRulesPayload, MintArg>(
        'AmuletRules_Mint',
        rec(['receiver', 'party'], ['amount', 'decimal'], ['openRound', 'cid'], ['reason', opt('text')]),
        {
          consuming: false,
          controllers: (p, a) => [p.dso, a.receiver],
          body: (ctx, self, a) => {
            const dso = self.payload.dso;
            require(ctx, 'isDevNet flag is true', self.payload.isDevNet);
            const round = fetchOpenRound(ctx, dso, a.openRound);
            const fees = transferConfigAmulet(round);
            const cid = ctx.create(AmuletIds.Amulet, {
              dso,
              owner: a.receiver,
              amount: { initialAmount: a.amount, createdAt: round.round, ratePerRound: { rate: decText(fees.holdingFeeRate) } },
            });
            return { amuletSum: { amulet: cid, amuletPrice: round.amuletPrice, round: round.round } };
          },
        },
      ),
      AmuletRules_DevNet_Tap: nativeChoice<AmuletRulesPayload, Omit<MintArg, 'reason'>>(
        'AmuletRules_DevNet_Tap',
        rec(['receiver', 'party'], ['amount', 'decimal'], ['openRound', 'cid']),
        {
          consuming: false,
          controllers: (_p, a) => [a.receiver],
          body: (ctx, self, a) => {
            require(ctx, 'isDevNet flag is true', self.payload.isDevNet);
            require(ctx, 'Tapped amount <= 100,000,000', dec(a.amount) <= dec('100000000'));
            const reason = 'tapped DevNet faucet';
            const r = ctx.exercise(self.contractId, 'AmuletRules_Mint', { ...a, reason }) as { amuletSum: unknown };
            return { amuletSum: r.amuletSum, meta: holdingTxMeta('mint', reason, null, 0n) };
          },
        },
      ),
      AmuletRules_DevNet_FeatureApp: nativeChoice<AmuletRulesPayload, { provider: string; activityWeight: string | null }>(
        'AmuletRules_DevNet_FeatureApp',
        rec(['provider', 'party'], ['activityWeight', opt('decimal')]),
        {
          consuming: false,
          controllers: (_p, a) => [a.provider],
          body: (ctx, self, a) => {
            require(ctx, 'isDevNet flag is true', self.payload.isDevNet);
            const featuredAppRightCid = ctx.create(AmuletIds.FeaturedAppRight, { dso: self.payload.dso, provider: a.provider, activityWeight: a.activityWeight });
            return { featuredAppRightCid };
          },
        },
      ),
      AmuletRules_Bootstrap_Rounds: nativeChoice<AmuletRulesPayload, BootstrapArg>(
        'AmuletRules_Bootstrap_Rounds',
        rec(['amuletPrice', 'decimal'], ['round0Duration', T.RelTime], ['initialRound', opt('int')]),
        {
          consuming: false,
          controllers: (p) => [p.dso],
          body: (ctx, self, a) => {
            const p = self.payload;
            const tick = BigInt(configOf(p).tickDuration.microseconds);
            const nr0 = BigInt(a.initialRound ?? '0');
            const round0 = BigInt(a.round0Duration.microseconds);
            require(ctx, 'Round0 duration is larger or equal to tick duration', tick <= round0);
            const now = formatTime(ctx.nowMicros);
            const closes0 = formatTime(ctx.nowMicros + round0);
            const closes1 = formatTime(ctx.nowMicros + round0 + tick);
            const closes2 = formatTime(ctx.nowMicros + round0 + 2n * tick);
            const issuing0 = nr0 * tick;
            ctx.create(AmuletIds.OpenMiningRound, newRound(p.dso, p, nr0, a.amuletPrice, now, closes0, issuing0));
            ctx.create(AmuletIds.OpenMiningRound, newRound(p.dso, p, nr0 + 1n, a.amuletPrice, now, closes1, issuing0 + tick));
            const last = ctx.create(AmuletIds.OpenMiningRound, newRound(p.dso, p, nr0 + 2n, a.amuletPrice, closes0, closes2, issuing0 + 2n * tick));
            return { openMiningRoundCid: last, initialRound: { number: nr0.toString() } };
          },
        },
      ),
      AmuletRules_AdvanceOpenMiningRounds: nativeChoice<AmuletRulesPayload, AdvanceArg>(
        'AmuletRules_AdvanceOpenMiningRounds',
        rec(['amuletPrice', 'decimal'], ['roundToArchiveCid', 'cid'], ['middleRoundCid', 'cid'], ['latestRoundCid', 'cid']),
        {
          consuming: false,
          controllers: (p) => [p.dso],
          body: (ctx, self, a) => {
            const p = self.payload;
            const dso = p.dso;
            const toArchive = fetchOpenRound(ctx, dso, a.roundToArchiveCid);
            ctx.exercise(a.roundToArchiveCid, 'Archive', {});
            const middle = fetchOpenRound(ctx, dso, a.middleRoundCid);
            const latest = fetchOpenRound(ctx, dso, a.latestRoundCid);
            const now = ctx.nowMicros;
            require(ctx, 'middleRound is one after roundToArchive', BigInt(middle.round.number) === BigInt(toArchive.round.number) + 1n);
            require(ctx, 'latestRound is one after middleRound', BigInt(latest.round.number) === BigInt(middle.round.number) + 1n);
            require(ctx, 'roundToArchive is past targetCloseAt', parseTime(toArchive.targetClosesAt) <= now);
            require(ctx, 'latestRound is open', parseTime(latest.opensAt) <= now);
            require(ctx, 'middle round has been open for >= 1 tick', parseTime(addRel(middle.opensAt, middle.tickDuration)) <= now);
            const summarizingRoundCid = ctx.create(SummarizingMiningRoundId, {
              dso,
              round: toArchive.round,
              amuletPrice: toArchive.amuletPrice,
              issuanceConfig: toArchive.issuanceConfig,
              tickDuration: toArchive.tickDuration,
              trafficPrice: toArchive.trafficPrice,
              rewardConfig: toArchive.rewardConfig,
            });
            const tick = BigInt(configOf(p).tickDuration.microseconds);
            const latestOpens = parseTime(latest.opensAt);
            const opensAt = (now > latestOpens ? now : latestOpens) + tick;
            const issuingFor = BigInt(latest.issuingFor.microseconds) + BigInt(latest.tickDuration.microseconds);
            const openRoundCid = ctx.create(
              AmuletIds.OpenMiningRound,
              newRound(dso, p, BigInt(latest.round.number) + 1n, a.amuletPrice, formatTime(opensAt), formatTime(opensAt + 2n * tick), issuingFor),
            );
            return { summarizingRoundCid, openRoundCid };
          },
        },
      ),
      ...externalPartyConfigStateChoices(),
      AmuletRules_Fetch: fetchByPartyChoice<AmuletRulesPayload>('AmuletRules_Fetch'),
    },
    implements: [],
  };
}
