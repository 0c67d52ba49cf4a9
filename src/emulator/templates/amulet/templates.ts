/**
 * The Amulet templates of `splice-amulet` as native emulator templates: AmuletRules (transfer,
 * DevNet tap and mint, featured-app self-grant, round bootstrap and advance), OpenMiningRound,
 * SummarizingMiningRound, Amulet and LockedAmulet (HoldingV1/V2), FeaturedAppRight (with the
 * featured-app API's activity markers, ./featured-app-activity.ts),
 * TransferPreapproval, ExternalPartyAmuletRules (the token-standard TransferFactory V1/V2,
 * AllocationFactory V1/V2 and SettlementFactory V2), AmuletTransferInstruction (TransferInstruction
 * V1/V2), AmuletAllocation (Allocation V1) and AmuletAllocationV2 (Allocation V2, in
 * ./allocation-v2.ts). Choice by choice as the Daml code does it, with its checks, results and
 * failure messages; see LIMITATIONS in ./index.ts for the deviations.
 */
import type { InterfaceImpl, TemplateDef, TemplateRegistry, UpdateContext } from '../../ledger/templates.js';
import { archiveChoice } from '../../ledger/templates.js';
import type { QualifiedId } from '../../ledger/types.js';
import { formatTime, parseTime } from '../../../canton/lf.js';
import { TokenStandardTypes, TS } from '../token-standard.js';
import { amuletAllocationV2Template, externalPartyAmuletRulesV2 } from './allocation-v2.js';
import { featuredAppActivityMarkerTemplate, featuredAppRightV1 } from './featured-app-activity.js';
import { externalPartyConfigStateChoices, externalPartyConfigStateTemplate } from './external-party-config-state.js';
import { list, opt, rec, recordParser } from '../lf-types.js';
import { nativeChoice } from '../native-choice.js';
import {
  abortTwoStepTransfer,
  amuletInstrument,
  copyOnlyBurnMeta,
  paymentResultMeta,
  executeTransfer,
  executeTwoStepTransfer,
  exercisePayment,
  exercisePaymentTransfer,
  holdingToTransferInputs,
  holdingTxMeta,
  optionalContextCid,
  paymentFromChoiceContext,
  paymentOf,
  prepareTwoStepTransfer,
  rulesPayment,
  transferConfigAmulet,
  transferControllers,
  type AmuletBehaviour,
  type TwoStepTransfer,
} from './transfer.js';
import { fetchOpenRound } from './fetch-checked.js';
import {
  AMULET_INSTRUMENT_ID,
  AmuletIds,
  CTX,
  META,
  SPLICE_AMULET_PACKAGE_ID,
  SPLICE_AMULET_PACKAGE_NAME,
  T,
  amuletExpiresAtRound,
  amuletMetadata,
  assertDeadlineExceeded,
  assertWithinDeadline,
  checkActors,
  dec,
  decText,
  emptyMeta,
  failGeneral,
  require,
  showParty,
  showText,
  type AllocationSpecificationV1,
  type AmuletAllocationPayload,
  type AmuletPayload,
  type AmuletRulesPayload,
  type AmuletTransferInstructionPayload,
  type AmuletTransferV,
  type ExtraArgsV,
  type FeaturedAppRightPayload,
  type LockedAmuletPayload,
  type MetadataV,
  type OpenMiningRoundPayload,
  type PaymentTransferContextV,
  type TransferContextV,
  type TransferInputV,
  type TransferPreapprovalPayload,
  type TransferV1,
} from './values.js';

export const SummarizingMiningRoundId: QualifiedId = {
  packageId: SPLICE_AMULET_PACKAGE_ID,
  packageName: SPLICE_AMULET_PACKAGE_NAME,
  moduleName: 'Splice.Round',
  entityName: 'SummarizingMiningRound',
};
const AccountT = rec(['owner', opt('party')], ['provider', opt('party')], ['id', 'text']);
const TransferV2T = rec(
  ['sender', AccountT],
  ['receiver', AccountT],
  ['amount', 'decimal'],
  ['instrumentId', T.InstrumentId],
  ['requestedAt', 'time'],
  ['executeBefore', 'time'],
  ['inputHoldingCids', list('cid')],
  ['meta', T.Metadata],
);
const SummarizingMiningRoundT = rec(
  ['dso', 'party'],
  ['round', T.Round],
  ['amuletPrice', 'decimal'],
  ['issuanceConfig', T.IssuanceConfig],
  ['tickDuration', T.RelTime],
  ['trafficPrice', opt('decimal')],
  ['rewardConfig', opt(T.RewardConfig)],
);


const NO_ARGS = rec();
const P_ARG = rec(['p', 'party']);
const EXTRA_ARGS_ONLY = rec(['extraArgs', T.ExtraArgs]);

/** `checkExpectedDso`. */
function checkExpectedDso(ctx: UpdateContext, dso: string, expected: string | null): void {
  if (expected === null) failGeneral(ctx, 'Expected DSO party not set by caller. Please change your code to set it as a prudent security measure.');
  if (expected !== dso) failGeneral(ctx, `DSO party expected by caller ${showParty(expected)} does not match actual DSO party ${showParty(dso)}`);
}

const showInstrumentId = (i: { admin: string; id: string }) => `InstrumentId {admin = ${showParty(i.admin)}, id = ${showText(i.id)}}`;

function requireExpectedAdminMatch(ctx: UpdateContext, expected: string, actual: string): void {
  require(ctx, `Expected admin ${showParty(expected)} matches actual admin ${showParty(actual)}`, expected === actual);
}

const relTime = (micros: bigint) => ({ microseconds: micros.toString() });
const addRel = (t: string, rel: { microseconds: string }) => formatTime(parseTime(t) + BigInt(rel.microseconds));

// ---- views ----------------------------------------------------------------------------------------

export function amuletHoldingView(a: AmuletPayload) {
  return { owner: a.owner, instrumentId: amuletInstrument(a.dso), amount: a.amount.initialAmount, lock: null, meta: amuletMetadata(a) };
}
export function lockedAmuletHoldingView(l: LockedAmuletPayload) {
  return {
    owner: l.amulet.owner,
    instrumentId: amuletInstrument(l.amulet.dso),
    amount: l.amulet.amount.initialAmount,
    lock: { holders: l.lock.holders, expiresAt: l.lock.expiresAt, expiresAfter: null, context: l.lock.optContext },
    meta: amuletMetadata(l.amulet),
  };
}
/** `upcast` of a V1 holding view to V2: a basic account of the owner. */
function holdingV2(v: ReturnType<typeof amuletHoldingView> | ReturnType<typeof lockedAmuletHoldingView>) {
  return { account: { owner: v.owner, provider: null, id: '' }, instrumentId: v.instrumentId, amount: v.amount, lock: v.lock, meta: v.meta };
}

// ---- two-step transfer specifications ---------------------------------------------------------------

export function standardTransferToTwoStepTransfer(t: TransferV1): TwoStepTransfer {
  return {
    dso: t.instrumentId.admin,
    sender: t.sender,
    provider: t.sender,
    receiver: t.receiver,
    amount: t.amount,
    transferBefore: t.executeBefore,
    transferBeforeDeadline: 'Transfer.executeBefore',
    allowFeaturing: false,
    lockContext: `transfer to ${showParty(t.receiver)}`,
  };
}

export function allocationToTwoStepTransfer(a: AllocationSpecificationV1): TwoStepTransfer {
  return {
    dso: a.transferLeg.instrumentId.admin,
    sender: a.transferLeg.sender,
    receiver: a.transferLeg.receiver,
    amount: a.transferLeg.amount,
    provider: a.settlement.executor,
    transferBefore: a.settlement.settleBefore,
    transferBeforeDeadline: 'allocation.settlement.settleBefore',
    allowFeaturing: true,
    // 0.1.22's text (what splice-amulet-0.1.22.dar's V1 allocation factory writes in the lock)
    lockContext: `allocation for settlement of ${a.settlement.settlementRef.id}`,
  };
}

// ---- the templates ------------------------------------------------------------------------------------

export function amuletTemplates(templates: TemplateRegistry, behaviour: AmuletBehaviour): TemplateDef[] {
  // -- OpenMiningRound / SummarizingMiningRound ----------------------------------------------------
  const openMiningRound: TemplateDef<OpenMiningRoundPayload> = {
    id: AmuletIds.OpenMiningRound,
    kind: 'native',
    signatories: (p) => [p.dso],
    observers: () => [],
    ensure: (p) => (BigInt(p.round.number) >= 0n ? undefined : 'isDefinedRound round'),
    parsePayload: recordParser(T.OpenMiningRound, 'createArguments'),
    payloadType: T.OpenMiningRound,
    choices: {
      OpenMiningRound_Fetch: nativeChoice<OpenMiningRoundPayload, { p: string }>('OpenMiningRound_Fetch', P_ARG, {
        consuming: false,
        controllers: (_p, a) => [a.p],
        body: (_ctx, self) => self.payload,
      }),
    },
    implements: [],
  };
  const summarizingMiningRound: TemplateDef<{ dso: string }> = {
    id: SummarizingMiningRoundId,
    kind: 'native',
    signatories: (p) => [p.dso],
    observers: () => [],
    parsePayload: recordParser(SummarizingMiningRoundT, 'createArguments'),
    payloadType: SummarizingMiningRoundT,
    choices: {},
    implements: [],
  };

  // -- Amulet ----------------------------------------------------------------------------------------
  const amuletSignatories = (p: AmuletPayload) => [p.dso, p.owner];
  const amuletExpired = (ctx: UpdateContext, roundCid: string, a: AmuletPayload) => {
    const round = fetchOpenRound(ctx, a.dso, roundCid);
    const expiresAt = amuletExpiresAtRound(a.amount);
    require(ctx, 'Amulet is expired', expiresAt !== undefined && expiresAt <= BigInt(round.round.number));
  };
  const expireSummary = (a: AmuletPayload) => ({
    owner: a.owner,
    round: a.amount.createdAt,
    changeToInitialAmountAsOfRoundZero: decText(-(dec(a.amount.initialAmount) + dec(a.amount.ratePerRound.rate) * BigInt(a.amount.createdAt.number))),
    changeToHoldingFeesRate: decText(-dec(a.amount.ratePerRound.rate)),
  });
  const amulet: TemplateDef<AmuletPayload> = {
    id: AmuletIds.Amulet,
    kind: 'native',
    signatories: amuletSignatories,
    observers: () => [],
    ensure: (p) =>
      dec(p.amount.initialAmount) > 0n && dec(p.amount.ratePerRound.rate) >= 0n && BigInt(p.amount.createdAt.number) >= 0n ? undefined : 'validExpiringAmount amount',
    parsePayload: recordParser(T.Amulet, 'createArguments'),
    payloadType: T.Amulet,
    choices: {
      Amulet_Expire: nativeChoice<AmuletPayload, { roundCid: string }>('Amulet_Expire', rec(['roundCid', 'cid']), {
        consuming: true,
        controllers: (p) => [p.dso],
        body: (ctx, self, a) => {
          amuletExpired(ctx, a.roundCid, self.payload);
          return { expireSum: expireSummary(self.payload), meta: holdingTxMeta('expire-dust', null, null, dec(self.payload.amount.initialAmount)) };
        },
      }),
    },
    implements: [
      { interface: TS.HoldingV1, view: amuletHoldingView, choices: { Archive: archiveChoice(amuletSignatories) } },
      { interface: TS.HoldingV2, view: (p) => holdingV2(amuletHoldingView(p)), choices: { Archive: archiveChoice(amuletSignatories) } },
    ],
  };

  // -- LockedAmulet ----------------------------------------------------------------------------------
  const lockedSignatories = (p: LockedAmuletPayload) => [...p.lock.holders, p.amulet.dso, p.amulet.owner];
  const unlockResult = (ctx: UpdateContext, p: LockedAmuletPayload, round: OpenMiningRoundPayload, reason: string) => {
    const cid = ctx.create(AmuletIds.Amulet, p.amulet);
    return { amuletSum: { amulet: cid, amuletPrice: round.amuletPrice, round: round.round }, meta: holdingTxMeta('unlock', reason, null, 0n) };
  };
  const lockedAmulet: TemplateDef<LockedAmuletPayload> = {
    id: AmuletIds.LockedAmulet,
    kind: 'native',
    signatories: lockedSignatories,
    observers: () => [],
    parsePayload: recordParser(T.LockedAmulet, 'createArguments'),
    payloadType: T.LockedAmulet,
    choices: {
      LockedAmulet_Unlock: nativeChoice<LockedAmuletPayload, { openRoundCid: string }>('LockedAmulet_Unlock', rec(['openRoundCid', 'cid']), {
        consuming: true,
        controllers: (p) => [p.amulet.owner, ...p.lock.holders],
        body: (ctx, self, a) => unlockResult(ctx, self.payload, fetchOpenRound(ctx, self.payload.amulet.dso, a.openRoundCid), 'holders released lock'),
      }),
      LockedAmulet_OwnerExpireLock: nativeChoice<LockedAmuletPayload, { openRoundCid: string }>('LockedAmulet_OwnerExpireLock', rec(['openRoundCid', 'cid']), {
        consuming: true,
        controllers: (p) => [p.amulet.owner],
        body: (ctx, self, a) => {
          const round = fetchOpenRound(ctx, self.payload.amulet.dso, a.openRoundCid);
          assertDeadlineExceeded(ctx, 'Lock.expiresAt', self.payload.lock.expiresAt);
          return unlockResult(ctx, self.payload, round, 'lock expired');
        },
      }),
      LockedAmulet_UnlockV2: nativeChoice<LockedAmuletPayload, Record<string, never>>('LockedAmulet_UnlockV2', NO_ARGS, {
        consuming: true,
        controllers: (p) => [p.amulet.owner, ...p.lock.holders],
        body: (ctx, self) => ({
          amuletCid: ctx.create(AmuletIds.Amulet, self.payload.amulet),
          meta: holdingTxMeta('unlock', 'holders released lock', null, 0n),
        }),
      }),
      LockedAmulet_OwnerExpireLockV2: nativeChoice<LockedAmuletPayload, Record<string, never>>('LockedAmulet_OwnerExpireLockV2', NO_ARGS, {
        consuming: true,
        controllers: (p) => [p.amulet.owner],
        body: (ctx, self) => {
          assertDeadlineExceeded(ctx, 'Lock.expiresAt', self.payload.lock.expiresAt);
          return { amuletCid: ctx.create(AmuletIds.Amulet, self.payload.amulet), meta: holdingTxMeta('unlock', 'lock expired', null, 0n) };
        },
      }),
      LockedAmulet_ExpireAmulet: nativeChoice<LockedAmuletPayload, { roundCid: string }>('LockedAmulet_ExpireAmulet', rec(['roundCid', 'cid']), {
        consuming: true,
        controllers: (p) => [p.amulet.dso],
        body: (ctx, self, a) => {
          assertDeadlineExceeded(ctx, 'Lock.expiresAt', self.payload.lock.expiresAt);
          amuletExpired(ctx, a.roundCid, self.payload.amulet);
          return {
            expireSum: expireSummary(self.payload.amulet),
            meta: holdingTxMeta('expire-dust', null, null, dec(self.payload.amulet.amount.initialAmount)),
          };
        },
      }),
    },
    implements: [
      { interface: TS.HoldingV1, view: lockedAmuletHoldingView, choices: { Archive: archiveChoice(lockedSignatories) } },
      { interface: TS.HoldingV2, view: (p) => holdingV2(lockedAmuletHoldingView(p)), choices: { Archive: archiveChoice(lockedSignatories) } },
    ],
  };

  // -- FeaturedAppRight ------------------------------------------------------------------------------
  const featuredAppRight: TemplateDef<FeaturedAppRightPayload> = {
    id: AmuletIds.FeaturedAppRight,
    kind: 'native',
    signatories: (p) => [p.dso],
    observers: (p) => [p.provider],
    ensure: (p) => (p.activityWeight === null || dec(p.activityWeight) >= 0n ? undefined : '0.0 <= fromOptional defaultAppActivityWeight activityWeight'),
    parsePayload: recordParser(T.FeaturedAppRight, 'createArguments'),
    payloadType: T.FeaturedAppRight,
    choices: {
      FeaturedAppRight_Withdraw: nativeChoice<FeaturedAppRightPayload, { reason: string }>('FeaturedAppRight_Withdraw', rec(['reason', 'text']), {
        consuming: true,
        controllers: (p) => [p.dso],
        body: () => ({}),
      }),
      FeaturedAppRight_Cancel: nativeChoice<FeaturedAppRightPayload, Record<string, never>>('FeaturedAppRight_Cancel', NO_ARGS, {
        consuming: true,
        controllers: (p) => [p.provider],
        body: () => ({}),
      }),
    },
    implements: [featuredAppRightV1()],
  };

  // -- TransferPreapproval -----------------------------------------------------------------------------
  interface SendArg {
    context: PaymentTransferContextV;
    inputs: TransferInputV[];
    amount: string;
    sender: string;
    description: string | null;
  }
  const transferPreapproval: TemplateDef<TransferPreapprovalPayload> = {
    id: AmuletIds.TransferPreapproval,
    kind: 'native',
    signatories: (p) => [p.receiver, p.provider, p.dso],
    observers: () => [],
    ensure: (p) =>
      parseTime(p.expiresAt) > parseTime(p.validFrom) && parseTime(p.lastRenewedAt) >= parseTime(p.validFrom)
        ? undefined
        : '(expiresAt > validFrom) && (lastRenewedAt >= validFrom)',
    parsePayload: recordParser(T.TransferPreapproval, 'createArguments'),
    payloadType: T.TransferPreapproval,
    choices: {
      TransferPreapproval_Fetch: nativeChoice<TransferPreapprovalPayload, { p: string }>('TransferPreapproval_Fetch', P_ARG, {
        consuming: false,
        controllers: (_p, a) => [a.p],
        body: (_ctx, self) => self.payload,
      }),
      TransferPreapproval_Send: nativeChoice<TransferPreapprovalPayload, SendArg>(
        'TransferPreapproval_Send',
        rec(['context', T.PaymentTransferContext], ['inputs', list(T.TransferInput)], ['amount', 'decimal'], ['sender', 'party'], ['description', opt('text')]),
        {
          consuming: false,
          controllers: (_p, a) => [a.sender],
          body: (ctx, self, a) => {
            const p = self.payload;
            assertWithinDeadline(ctx, 'TransferPreapproval.expiresAt', p.expiresAt);
            const r = exercisePaymentTransfer(ctx, p.dso, a.context, {
              sender: a.sender,
              provider: p.provider,
              inputs: a.inputs,
              outputs: [{ receiver: p.receiver, receiverFeeRatio: decText(0n), amount: a.amount, lock: null, meta: null }],
              beneficiaries: null,
            });
            const values = { ...r.meta.values };
            if (a.description !== null) values[META.reason] = a.description;
            return { result: { ...r.result, meta: null }, meta: { values: sortObject(values) } };
          },
        },
      ),
      TransferPreapproval_Cancel: nativeChoice<TransferPreapprovalPayload, { p: string }>('TransferPreapproval_Cancel', P_ARG, {
        consuming: true,
        controllers: (_p, a) => [a.p],
        body: (ctx, self, a) => {
          require(ctx, `Controller ${showParty(a.p)} is either receiver or provider`, a.p === self.payload.receiver || a.p === self.payload.provider);
          assertWithinDeadline(ctx, 'TransferPreapproval.expiresAt', self.payload.expiresAt);
          return {};
        },
      }),
      TransferPreapproval_Expire: nativeChoice<TransferPreapprovalPayload, Record<string, never>>('TransferPreapproval_Expire', NO_ARGS, {
        consuming: true,
        controllers: (p) => [p.dso],
        body: (ctx, self) => {
          require(ctx, 'Contract has expired', ctx.nowMicros >= parseTime(self.payload.expiresAt));
          return {};
        },
      }),
    },
    implements: [],
  };

  // -- AmuletRules ------------------------------------------------------------------------------------------
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
  const rulesSignatories = (p: AmuletRulesPayload) => [p.dso];
  const amuletRules: TemplateDef<AmuletRulesPayload> = {
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
      AmuletRules_Fetch: nativeChoice<AmuletRulesPayload, { p: string }>('AmuletRules_Fetch', P_ARG, {
        consuming: false,
        controllers: (_p, a) => [a.p],
        body: (_ctx, self) => self.payload,
      }),
    },
    implements: [],
  };

  // -- ExternalPartyAmuletRules: the token-standard factories ------------------------------------------------
  interface TransferFactoryArg {
    expectedAdmin: string;
    transfer: TransferV1;
    extraArgs: ExtraArgsV;
  }
  interface AccountV {
    owner: string | null;
    provider: string | null;
    id: string;
  }
  interface TransferFactoryV2Arg {
    transfer: Omit<TransferV1, 'sender' | 'receiver'> & { sender: AccountV; receiver: AccountV };
    actors: string[];
    extraArgs: ExtraArgsV;
  }
  interface AllocateArg {
    expectedAdmin: string;
    allocation: AllocationSpecificationV1;
    requestedAt: string;
    inputHoldingCids: string[];
    extraArgs: ExtraArgsV;
  }
  const epSignatories = (p: { dso: string }) => [p.dso];
  const factoryView = (p: { dso: string }) => ({ admin: p.dso, meta: emptyMeta() });
  const publicFetch = (name: string) =>
    nativeChoice<{ dso: string }, { expectedAdmin: string; actor: string }>(name, rec(['expectedAdmin', 'party'], ['actor', 'party']), {
      consuming: false,
      controllers: (_p, a) => [a.actor],
      body: (ctx, self, a) => {
        requireExpectedAdminMatch(ctx, a.expectedAdmin, self.payload.dso);
        return factoryView(self.payload);
      },
    });
  const completed = (receiverHoldingCids: string[], senderChangeCids: string[], meta: MetadataV) => ({
    output: { tag: 'TransferInstructionResult_Completed', value: { receiverHoldingCids } },
    senderChangeCids,
    meta,
  });

  /** `amulet_transferFactory_transferImpl` (`Splice/ExternalPartyAmuletRules.daml` uses it). */
  const transferImpl = (ctx: UpdateContext, dso: string, actors: string[], arg: TransferFactoryArg) => {
    const t = arg.transfer;
    const extra = arg.extraArgs;
    checkActors(ctx, actors, [[t.sender], [t.sender, t.receiver]]);
    requireExpectedAdminMatch(ctx, arg.expectedAdmin, dso);
    const preapprovalCid = optionalContextCid(ctx, extra, CTX.transferPreapproval);
    if (preapprovalCid !== null) {
      const pre = ctx.fetch(preapprovalCid, AmuletIds.TransferPreapproval).payload as TransferPreapprovalPayload;
      if (pre.dso !== dso || pre.receiver !== t.receiver) {
        failGeneral(
          ctx,
          `Contract group identifier mismatch: expected ForOwner {dso = ${showParty(dso)}, owner = ${showParty(t.receiver)}}, got ForOwner {dso = ${showParty(pre.dso)}, owner = ${showParty(pre.receiver)}} for ${preapprovalCid}`,
        );
      }
    }
    const expected = amuletInstrument(dso);
    require(
      ctx,
      `Expected instrumentId ${showInstrumentId(expected)} matches actual instrumentId ${showInstrumentId(t.instrumentId)}`,
      t.instrumentId.admin === expected.admin && t.instrumentId.id === expected.id,
    );
    require(ctx, 'Amount must be positive', dec(t.amount) > 0n);
    assertDeadlineExceeded(ctx, 'Transfer.requestedAt', t.requestedAt);
    assertWithinDeadline(ctx, 'Transfer.executeBefore', t.executeBefore);
    require(ctx, 'At least one holding must be provided', t.inputHoldingCids.length > 0);
    const reason = t.meta.values[META.reason] ?? null;

    // self transfer, or sender and receiver both authorize: complete at once
    if (actors.includes(t.receiver)) {
      const payment = paymentOf(ctx, dso, extra, false);
      const inputs = holdingToTransferInputs(ctx, templates, dso, t.sender, payment, t.inputHoldingCids);
      const r = exercisePayment(ctx, dso, payment, {
        sender: t.sender,
        provider: t.sender,
        inputs,
        outputs: [{ receiver: t.receiver, receiverFeeRatio: decText(0n), amount: t.amount, lock: null, meta: t.meta }],
        beneficiaries: null,
      });
      return completed(
        r.createdAmulets.map((c) => c.value),
        r.senderChangeAmulet ? [r.senderChangeAmulet] : [],
        paymentResultMeta(payment, r.meta),
      );
    }
    if (preapprovalCid === null) {
      const payment = paymentOf(ctx, dso, extra, false);
      const prepared = prepareTwoStepTransfer(ctx, templates, standardTransferToTwoStepTransfer(t), t.requestedAt, t.inputHoldingCids, payment);
      const transferInstructionCid = ctx.create(AmuletIds.AmuletTransferInstruction, {
        transfer: { ...t, inputHoldingCids: [prepared.lockedAmulet] },
        lockedAmulet: prepared.lockedAmulet,
      });
      return {
        output: { tag: 'TransferInstructionResult_Pending', value: { transferInstructionCid } },
        senderChangeCids: prepared.senderChangeCids,
        meta: prepared.meta,
      };
    }
    // TransferPreapproval_Send takes a PaymentTransferContext (TransferPreapproval_SendV2, which
    // takes the config state, is not emulated: LIMITATIONS 3), so the direct path needs the rules
    const pctx = paymentFromChoiceContext(ctx, dso, extra, true);
    const inputs = holdingToTransferInputs(ctx, templates, dso, t.sender, rulesPayment(pctx), t.inputHoldingCids);
    const r = ctx.exercise(preapprovalCid, 'TransferPreapproval_Send', { sender: t.sender, context: pctx, inputs, amount: t.amount, description: reason }) as {
      result: { createdAmulets: Array<{ value: string }>; senderChangeAmulet: string | null };
      meta: MetadataV | null;
    };
    return completed(
      r.result.createdAmulets.map((c) => c.value),
      r.result.senderChangeAmulet ? [r.result.senderChangeAmulet] : [],
      copyOnlyBurnMeta(r.meta),
    );
  };

  /** `amulet_allocationFactory_allocateImpl`. */
  const allocateImpl = (ctx: UpdateContext, dso: string, arg: AllocateArg) => {
    requireExpectedAdminMatch(ctx, arg.expectedAdmin, dso);
    const payment = paymentOf(ctx, dso, arg.extraArgs, false);
    const s = arg.allocation.settlement;
    const leg = arg.allocation.transferLeg;
    assertDeadlineExceeded(ctx, 'Allocation.settlement.requestedAt', s.requestedAt);
    assertWithinDeadline(ctx, 'Allocation.settlement.allocateBefore', s.allocateBefore);
    require(ctx, 'Allocation.settlement.allocateBefore <= Allocation.settlement.settleBefore', parseTime(s.allocateBefore) <= parseTime(s.settleBefore));
    require(ctx, 'Transfer amount must be positive', dec(leg.amount) > 0n);
    require(ctx, 'Instrument-id must match the factory', leg.instrumentId.admin === dso && leg.instrumentId.id === AMULET_INSTRUMENT_ID);
    assertDeadlineExceeded(ctx, 'requestedAt', arg.requestedAt);
    require(ctx, 'At least one input holding must be provided', arg.inputHoldingCids.length > 0);
    const prepared = prepareTwoStepTransfer(ctx, templates, allocationToTwoStepTransfer(arg.allocation), arg.requestedAt, arg.inputHoldingCids, payment);
    const allocationCid = ctx.create(AmuletIds.AmuletAllocation, {
      lockedAmulet: prepared.lockedAmulet,
      allocation: arg.allocation,
      expiresAt: s.settleBefore,
    });
    return {
      output: { tag: 'AllocationInstructionResult_Completed', value: { allocationCid } },
      senderChangeCids: prepared.senderChangeCids,
      meta: prepared.meta,
    };
  };

  const transferFactoryV1: InterfaceImpl<{ dso: string }> = {
    interface: TS.TransferFactoryV1,
    view: factoryView,
    choices: {
      TransferFactory_Transfer: nativeChoice<{ dso: string }, TransferFactoryArg>(
        'TransferFactory_Transfer',
        rec(['expectedAdmin', 'party'], ['transfer', T.TransferV1], ['extraArgs', T.ExtraArgs]),
        { consuming: false, controllers: (_p, a) => [a.transfer.sender], body: (ctx, self, a) => transferImpl(ctx, self.payload.dso, [a.transfer.sender], a) },
      ),
      TransferFactory_PublicFetch: publicFetch('TransferFactory_PublicFetch'),
      Archive: archiveChoice(epSignatories),
    },
  };
  const allocationFactoryV1: InterfaceImpl<{ dso: string }> = {
    interface: TS.AllocationFactoryV1,
    view: factoryView,
    choices: {
      AllocationFactory_Allocate: nativeChoice<{ dso: string }, AllocateArg>(
        'AllocationFactory_Allocate',
        rec(
          ['expectedAdmin', 'party'],
          ['allocation', T.AllocationSpecificationV1],
          ['requestedAt', 'time'],
          ['inputHoldingCids', list('cid')],
          ['extraArgs', T.ExtraArgs],
        ),
        { consuming: false, controllers: (_p, a) => [a.allocation.transferLeg.sender], body: (ctx, self, a) => allocateImpl(ctx, self.payload.dso, a) },
      ),
      AllocationFactory_PublicFetch: publicFetch('AllocationFactory_PublicFetch'),
      Archive: archiveChoice(epSignatories),
    },
  };
  /** `transferFactoryV2_transferDefaultImplUsingV1`: basic accounts only, then the V1 body with the actors. */
  const transferFactoryV2: InterfaceImpl<{ dso: string }> = {
    interface: TS.TransferFactoryV2,
    view: factoryView,
    choices: {
      TransferFactory_Transfer: nativeChoice<{ dso: string }, TransferFactoryV2Arg>(
        'TransferFactory_Transfer',
        rec(['transfer', TransferV2T], ['actors', list('party')], ['extraArgs', T.ExtraArgs]),
        {
          consuming: false,
          controllers: (_p, a) => a.actors,
          observers: (_p, a) => [a.transfer.sender.owner, a.transfer.receiver.owner].filter((x): x is string => x !== null),
          body: (ctx, self, a) => {
            const t = a.transfer;
            for (const [field, acc] of [['sender', t.sender], ['receiver', t.receiver]] as const) {
              if (acc.owner === null || acc.provider !== null || acc.id !== '') {
                failGeneral(ctx, `Amulet supports only basic accounts, but transfer.${field} is ${JSON.stringify(acc)}`);
              }
            }
            const v1: TransferV1 = { ...t, sender: t.sender.owner!, receiver: t.receiver.owner! };
            const r = transferImpl(ctx, self.payload.dso, a.actors, { expectedAdmin: t.instrumentId.admin, transfer: v1, extraArgs: a.extraArgs });
            const values: Record<string, string> = { ...r.meta.values, [META.txKind]: v1.sender === v1.receiver ? 'merge-split' : 'transfer' };
            if (v1.sender !== v1.receiver) values[META.sender] = v1.sender;
            return { ...r, meta: { values: sortObject(values) } };
          },
        },
      ),
      // V2's `TransferFactory_PublicFetch` takes `actors` (no expected admin) and returns the view.
      TransferFactory_PublicFetch: nativeChoice<{ dso: string }, { actors: string[] }>(
        'TransferFactory_PublicFetch',
        TokenStandardTypes.choiceArgs.TransferFactoryV2.TransferFactory_PublicFetch,
        { consuming: false, controllers: (_p, a) => a.actors, body: (_ctx, self) => factoryView(self.payload) },
      ),
      Archive: archiveChoice(epSignatories),
    },
  };
  const v2 = externalPartyAmuletRulesV2(templates, epSignatories);
  const externalPartyAmuletRules: TemplateDef<{ dso: string }> = {
    id: AmuletIds.ExternalPartyAmuletRules,
    kind: 'native',
    signatories: epSignatories,
    observers: () => [],
    parsePayload: recordParser(T.ExternalPartyAmuletRules, 'createArguments'),
    payloadType: T.ExternalPartyAmuletRules,
    choices: { ExternalPartyAmuletRules_ExpireAmuletAllocationsV2: v2.expireAllocationsV2 },
    implements: [transferFactoryV1, transferFactoryV2, allocationFactoryV1, v2.allocationFactoryV2, v2.settlementFactoryV2],
  };

  // -- AmuletTransferInstruction ------------------------------------------------------------------------------
  const instrSignatories = (p: AmuletTransferInstructionPayload) => [p.transfer.instrumentId.admin, p.transfer.sender];
  const abortInstruction = (name: string, controller: (t: TransferV1) => string) =>
    nativeChoice<AmuletTransferInstructionPayload, { extraArgs: ExtraArgsV }>(name, EXTRA_ARGS_ONLY, {
      consuming: true,
      controllers: (p) => [controller(p.transfer)],
      body: (ctx, self, a) => {
        const senderChangeCids = abortTwoStepTransfer(ctx, standardTransferToTwoStepTransfer(self.payload.transfer), self.payload.lockedAmulet, a.extraArgs);
        return { output: { tag: 'TransferInstructionResult_Failed', value: {} }, senderChangeCids, meta: emptyMeta() };
      },
    });
  const transferInstructionV1: InterfaceImpl<AmuletTransferInstructionPayload> = {
    interface: TS.TransferInstructionV1,
    view: (p) => ({ originalInstructionCid: null, transfer: p.transfer, status: { tag: 'TransferPendingReceiverAcceptance', value: {} }, meta: emptyMeta() }),
    choices: {
      TransferInstruction_Accept: nativeChoice<AmuletTransferInstructionPayload, { extraArgs: ExtraArgsV }>('TransferInstruction_Accept', EXTRA_ARGS_ONLY, {
        consuming: true,
        controllers: (p) => [p.transfer.receiver],
        body: (ctx, self, a) => {
          const r = executeTwoStepTransfer(ctx, standardTransferToTwoStepTransfer(self.payload.transfer), self.payload.lockedAmulet, a.extraArgs, null);
          return completed(r.receiverHoldingCids, r.senderHoldingCids, r.meta);
        },
      }),
      TransferInstruction_Reject: abortInstruction('TransferInstruction_Reject', (t) => t.receiver),
      TransferInstruction_Withdraw: abortInstruction('TransferInstruction_Withdraw', (t) => t.sender),
      TransferInstruction_Update: nativeChoice<AmuletTransferInstructionPayload, { extraActors: string[]; extraArgs: ExtraArgsV }>(
        'TransferInstruction_Update',
        rec(['extraActors', list('party')], ['extraArgs', T.ExtraArgs]),
        {
          consuming: true,
          controllers: (p, a) => [p.transfer.instrumentId.admin, ...a.extraActors],
          body: (ctx) => failGeneral(ctx, 'AmuletTransferInstruction.updateImpl: not used, and thus not implemented'),
        },
      ),
      Archive: archiveChoice(instrSignatories),
    },
  };
  const basicAccount = (owner: string) => ({ owner, provider: null, id: '' });
  /** V2 choices call the consuming V1 choice after checking the actors (…DefaultImplUsingV1). */
  const viaV1 = (name: string, actor: (t: TransferV1) => string) =>
    nativeChoice<AmuletTransferInstructionPayload, { actors: string[]; extraArgs: ExtraArgsV }>(name, rec(['actors', list('party')], ['extraArgs', T.ExtraArgs]), {
      consuming: false,
      controllers: (_p, a) => a.actors,
      observers: (p) => [p.transfer.receiver],
      body: (ctx, self, a) => {
        checkActors(ctx, a.actors, [[actor(self.payload.transfer)]]);
        return ctx.exercise(self.contractId, name, { extraArgs: a.extraArgs }, { interfaceId: TS.TransferInstructionV1.id });
      },
    });
  const transferInstructionV2: InterfaceImpl<AmuletTransferInstructionPayload> = {
    interface: TS.TransferInstructionV2,
    view: (p) => ({
      originalInstructionCid: null,
      transfer: { ...p.transfer, sender: basicAccount(p.transfer.sender), receiver: basicAccount(p.transfer.receiver) },
      expiresAt: p.transfer.executeBefore,
      availableActions: [
        [{ tag: 'TIA_Accept', value: {} }, [[p.transfer.receiver]]],
        [{ tag: 'TIA_Reject', value: {} }, [[p.transfer.receiver]]],
        [{ tag: 'TIA_Withdraw', value: {} }, [[p.transfer.sender]]],
      ],
      meta: emptyMeta(),
    }),
    choices: {
      TransferInstruction_Accept: viaV1('TransferInstruction_Accept', (t) => t.receiver),
      TransferInstruction_Reject: viaV1('TransferInstruction_Reject', (t) => t.receiver),
      TransferInstruction_Withdraw: viaV1('TransferInstruction_Withdraw', (t) => t.sender),
      Archive: archiveChoice(instrSignatories),
    },
  };
  const amuletTransferInstruction: TemplateDef<AmuletTransferInstructionPayload> = {
    id: AmuletIds.AmuletTransferInstruction,
    kind: 'native',
    signatories: instrSignatories,
    observers: (p) => [p.transfer.receiver],
    parsePayload: recordParser(T.AmuletTransferInstruction, 'createArguments'),
    payloadType: T.AmuletTransferInstruction,
    choices: {},
    implements: [transferInstructionV1, transferInstructionV2],
  };

  // -- AmuletAllocation -----------------------------------------------------------------------------------
  const allocSignatories = (p: AmuletAllocationPayload) => [p.allocation.transferLeg.instrumentId.admin, p.allocation.transferLeg.sender];
  const allocControllers = (p: AmuletAllocationPayload) => [p.allocation.settlement.executor, p.allocation.transferLeg.sender, p.allocation.transferLeg.receiver];
  const unlockAllocation = (name: string, controllers: (p: AmuletAllocationPayload) => string[]) =>
    nativeChoice<AmuletAllocationPayload, { extraArgs: ExtraArgsV }>(name, EXTRA_ARGS_ONLY, {
      consuming: true,
      controllers,
      body: (ctx, self, a) => ({
        senderHoldingCids: abortTwoStepTransfer(ctx, allocationToTwoStepTransfer(self.payload.allocation), self.payload.lockedAmulet, a.extraArgs),
        meta: emptyMeta(),
      }),
    });
  const allocationV1: InterfaceImpl<AmuletAllocationPayload> = {
    interface: TS.AllocationV1,
    view: (p) => ({ allocation: p.allocation, holdingCids: [p.lockedAmulet], meta: emptyMeta() }),
    choices: {
      Allocation_ExecuteTransfer: nativeChoice<AmuletAllocationPayload, { extraArgs: ExtraArgsV }>('Allocation_ExecuteTransfer', EXTRA_ARGS_ONLY, {
        consuming: true,
        controllers: allocControllers,
        body: (ctx, self, a) => {
          const r = executeTwoStepTransfer(ctx, allocationToTwoStepTransfer(self.payload.allocation), self.payload.lockedAmulet, a.extraArgs, null);
          return { senderHoldingCids: r.senderHoldingCids, receiverHoldingCids: r.receiverHoldingCids, meta: r.meta };
        },
      }),
      Allocation_Cancel: unlockAllocation('Allocation_Cancel', allocControllers),
      Allocation_Withdraw: unlockAllocation('Allocation_Withdraw', (p) => [p.allocation.transferLeg.sender]),
      Archive: archiveChoice(allocSignatories),
    },
  };
  const amuletAllocation: TemplateDef<AmuletAllocationPayload> = {
    id: AmuletIds.AmuletAllocation,
    kind: 'native',
    signatories: allocSignatories,
    observers: (p) => [p.allocation.settlement.executor],
    ensure: (p) => {
      const s = p.allocation.settlement;
      const ok =
        parseTime(s.requestedAt) <= parseTime(s.allocateBefore) &&
        parseTime(s.allocateBefore) <= parseTime(s.settleBefore) &&
        dec(p.allocation.transferLeg.amount) > 0n &&
        p.allocation.transferLeg.instrumentId.id === AMULET_INSTRUMENT_ID;
      return ok ? undefined : 'isValidAllocationSpecificationV1 allocation && allocation.transferLeg.instrumentId.id == amuletInstrumentIdName';
    },
    parsePayload: recordParser(T.AmuletAllocation, 'createArguments'),
    payloadType: T.AmuletAllocation,
    choices: {},
    implements: [allocationV1],
  };

  return [
    amuletRules,
    externalPartyAmuletRules,
    openMiningRound,
    summarizingMiningRound,
    amulet,
    lockedAmulet,
    featuredAppRight,
    featuredAppActivityMarkerTemplate(),
    transferPreapproval,
    amuletTransferInstruction,
    amuletAllocation,
    amuletAllocationV2Template(),
    externalPartyConfigStateTemplate(),
  ] as TemplateDef[];
}

function sortObject(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
