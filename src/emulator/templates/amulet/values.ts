/**
 * Ids, record types and helpers of the emulated Splice Amulet (`splice-amulet`) and wallet
 * (`splice-wallet`) packages.
 *
 * Package ids are those of the real DARs `daml/dars/splice-amulet-0.1.22.dar` and
 * `splice-wallet-0.1.23.dar` in canton-network/splice (obsidiansystems fork @f819bd6f, the
 * versions in its `daml/<package>/daml.yaml`), computed with our own DAR reader
 * (`decodeDar(...).mainPackageId`). Record shapes follow those packages' Daml types
 * (JSON as Canton's transcode `JsonCodec` prints it: Decimal at scale 10, Int as a string, RelTime as
 * `{"microseconds": "…"}`, tuples as `{_1, _2}`, Set as `{"map": [[k, {}]]}`).
 */
import { formatInstant } from '../../../canton/clock.js';
import type { UpdateContext } from '../../participant/templates.js';
import type { QualifiedId } from '../../participant/types.js';
import { formatDecimal, parseDecimal, parseTime } from '../../../canton/lf-value.js';
import { list, opt, rec, tuple2, type NativeValueType } from '../../lf-value/native-type.js';
import { TokenStandardTypes } from '../token-standard.js';

export const SPLICE_AMULET_PACKAGE_ID = 'fb10433a48c24f30076a7aee03a3e314b7ab02fe9a22e2069e3af92d2b6ac88a';
export const SPLICE_AMULET_PACKAGE_NAME = 'splice-amulet';
export const SPLICE_AMULET_VERSION = '0.1.22';
export const SPLICE_WALLET_PACKAGE_ID = '727c0fb9711d59b506fbb3cff2342e55eb583bb88682a946220525c304feca4a';
export const SPLICE_WALLET_PACKAGE_NAME = 'splice-wallet';
export const SPLICE_WALLET_VERSION = '0.1.23';

const amuletId = (moduleName: string, entityName: string): QualifiedId => ({
  packageId: SPLICE_AMULET_PACKAGE_ID,
  packageName: SPLICE_AMULET_PACKAGE_NAME,
  moduleName,
  entityName,
});
const walletId = (moduleName: string, entityName: string): QualifiedId => ({
  packageId: SPLICE_WALLET_PACKAGE_ID,
  packageName: SPLICE_WALLET_PACKAGE_NAME,
  moduleName,
  entityName,
});

/** Template ids of the emulated Amulet world (modules of `daml/splice-amulet`, `daml/splice-wallet`). */
export const AmuletIds = {
  AmuletRules: amuletId('Splice.AmuletRules', 'AmuletRules'),
  TransferPreapproval: amuletId('Splice.AmuletRules', 'TransferPreapproval'),
  ExternalPartyAmuletRules: amuletId('Splice.ExternalPartyAmuletRules', 'ExternalPartyAmuletRules'),
  OpenMiningRound: amuletId('Splice.Round', 'OpenMiningRound'),
  Amulet: amuletId('Splice.Amulet', 'Amulet'),
  LockedAmulet: amuletId('Splice.Amulet', 'LockedAmulet'),
  FeaturedAppRight: amuletId('Splice.Amulet', 'FeaturedAppRight'),
  AmuletTransferInstruction: amuletId('Splice.AmuletTransferInstruction', 'AmuletTransferInstruction'),
  AmuletAllocation: amuletId('Splice.AmuletAllocation', 'AmuletAllocation'),
  AmuletAllocationV2: amuletId('Splice.AmuletAllocationV2', 'AmuletAllocationV2'),
  TransferOffer: walletId('Splice.Wallet.TransferOffer', 'TransferOffer'),
  AcceptedTransferOffer: walletId('Splice.Wallet.TransferOffer', 'AcceptedTransferOffer'),
  WalletAppInstall: walletId('Splice.Wallet.Install', 'WalletAppInstall'),
} as const;
export type AmuletEntity = keyof typeof AmuletIds;

/** `#package-name:Module:Entity`, the by-name template id clients use. */
export function amuletTemplateId(entity: AmuletEntity): string {
  const id = AmuletIds[entity];
  return `#${id.packageName}:${id.moduleName}:${id.entityName}`;
}

/** `amuletInstrumentIdName` (Splice.Amulet.TokenApiUtils). */
export const AMULET_INSTRUMENT_ID = 'Amulet';

// ---- context and metadata keys (`daml/splice-amulet/daml/Splice/Amulet/TokenApiUtils.daml`) ------

export const CTX = {
  amuletRules: 'amulet-rules',
  openRound: 'open-round',
  featuredAppRight: 'featured-app-right',
  transferPreapproval: 'transfer-preapproval',
  expireLock: 'expire-lock',
} as const;

const SPLICE_PREFIX = 'splice.lfdecentralizedtrust.org/';
const AMULET_PREFIX = `amulet.${SPLICE_PREFIX}`;
export const META = {
  reason: `${SPLICE_PREFIX}reason`,
  txKind: `${SPLICE_PREFIX}tx-kind`,
  sender: `${SPLICE_PREFIX}sender`,
  burned: `${SPLICE_PREFIX}burned`,
  createdInRound: `${AMULET_PREFIX}created-in-round`,
  ratePerRound: `${AMULET_PREFIX}rate-per-round`,
} as const;

// ---- LF types ---------------------------------------------------------------------------------

export const T = (() => {
  const Round = rec(['number', 'int']);
  const RelTime = rec(['microseconds', 'int']);
  const RatePerRound = rec(['rate', 'decimal']);
  const FixedFee = rec(['fee', 'decimal']);
  const SteppedRate = rec(['initialRate', 'decimal'], ['steps', list(tuple2('decimal', 'decimal'))]);
  const ExpiringAmount = rec(['initialAmount', 'decimal'], ['createdAt', Round], ['ratePerRound', RatePerRound]);
  const Amulet = rec(['dso', 'party'], ['owner', 'party'], ['amount', ExpiringAmount]);
  const TimeLock = rec(['holders', list('party')], ['expiresAt', 'time'], ['optContext', opt('text')]);
  const TransferConfig = rec(
    ['createFee', FixedFee],
    ['holdingFee', RatePerRound],
    ['transferFee', SteppedRate],
    ['lockHolderFee', FixedFee],
    ['extraFeaturedAppRewardAmount', 'decimal'],
    ['maxNumInputs', 'int'],
    ['maxNumOutputs', 'int'],
    ['maxNumLockHolders', 'int'],
    ['tokenStandardMaxTTL', opt(RelTime)],
  );
  const IssuanceConfig = rec(
    ['amuletToIssuePerYear', 'decimal'],
    ['validatorRewardPercentage', 'decimal'],
    ['appRewardPercentage', 'decimal'],
    ['validatorRewardCap', 'decimal'],
    ['featuredAppRewardCap', 'decimal'],
    ['unfeaturedAppRewardCap', 'decimal'],
    ['optValidatorFaucetCap', opt('decimal')],
    ['optDevelopmentFundPercentage', opt('decimal')],
  );
  const RewardVersion: NativeValueType = { enum: ['RewardVersion_FeaturedAppMarkers', 'RewardVersion_TrafficBasedAppRewards'] };
  const RewardConfig = rec(
    ['mintingVersion', RewardVersion],
    ['dryRunVersion', opt(RewardVersion)],
    ['batchSize', 'int'],
    ['rewardCouponTimeToLive', RelTime],
    ['appRewardCouponThreshold', 'decimal'],
  );
  const OpenMiningRound = rec(
    ['dso', 'party'],
    ['round', Round],
    ['amuletPrice', 'decimal'],
    ['opensAt', 'time'],
    ['targetClosesAt', 'time'],
    ['issuingFor', RelTime],
    ['transferConfigUsd', TransferConfig],
    ['issuanceConfig', IssuanceConfig],
    ['tickDuration', RelTime],
    ['trafficPrice', opt('decimal')],
    ['rewardConfig', opt(RewardConfig)],
  );
  const schedule = (t: NativeValueType, a: NativeValueType) => rec(['initialValue', a], ['futureValues', list(tuple2(t, a))]);
  const PackageConfig = rec(
    ['amulet', 'text'],
    ['amuletNameService', 'text'],
    ['dsoGovernance', 'text'],
    ['validatorLifecycle', 'text'],
    ['wallet', 'text'],
    ['walletPayments', 'text'],
  );
  const SynchronizerFeesConfig = rec(
    ['baseRateTrafficLimits', rec(['burstAmount', 'int'], ['burstWindow', RelTime])],
    ['extraTrafficPrice', 'decimal'],
    ['readVsWriteScalingFactor', 'int'],
    ['minTopupAmount', 'int'],
  );
  const DecentralizedSynchronizerConfig = rec(
    ['requiredSynchronizers', { set: 'text' }],
    ['activeSynchronizer', 'text'],
    ['fees', SynchronizerFeesConfig],
  );
  const AmuletConfig = rec(
    ['transferConfig', TransferConfig],
    ['issuanceCurve', schedule(RelTime, IssuanceConfig)],
    ['decentralizedSynchronizer', DecentralizedSynchronizerConfig],
    ['tickDuration', RelTime],
    ['packageConfig', PackageConfig],
    ['transferPreapprovalFee', opt('decimal')],
    ['featuredAppActivityMarkerAmount', opt('decimal')],
    ['optDevelopmentFundManager', opt('party')],
    ['externalPartyConfigStateTickDuration', opt(RelTime)],
    ['rewardConfig', opt(RewardConfig)],
    ['transferPreapprovalBaseDuration', opt(RelTime)],
  );
  const AmuletRules = rec(['dso', 'party'], ['configSchedule', schedule('time', AmuletConfig)], ['isDevNet', 'bool'], ['contractStateSchemaVersion', opt('int')]);
  // The token-standard records (token-standard.ts), with `AnyValue` as the recursive variant it is.
  const { Metadata, InstrumentId, TransferV1, AllocationSpecificationV1, ExtraArgs } = TokenStandardTypes;
  const TransferContext = rec(
    ['openMiningRound', 'cid'],
    ['issuingMiningRounds', { map: [Round, 'cid'] }],
    ['validatorRights', { map: ['party', 'cid'] }],
    ['featuredAppRight', opt('cid')],
  );
  const PaymentTransferContext = rec(['amuletRules', 'cid'], ['context', TransferContext]);
  const TransferInput: NativeValueType = {
    variant: {
      InputAppRewardCoupon: 'cid',
      InputValidatorRewardCoupon: 'cid',
      InputSvRewardCoupon: 'cid',
      InputAmulet: 'cid',
      ExtTransferInput: rec(['dummyUnitField', 'unit'], ['optInputValidatorFaucetCoupon', opt('cid')]),
      InputValidatorLivenessActivityRecord: 'cid',
      InputUnclaimedActivityRecord: 'cid',
      InputDevelopmentFundCoupon: 'cid',
      InputRewardCouponV2: 'cid',
    },
  };
  const TransferOutput = rec(['receiver', 'party'], ['receiverFeeRatio', 'decimal'], ['amount', 'decimal'], ['lock', opt(TimeLock)], ['meta', opt(Metadata)]);
  const AppRewardBeneficiary = rec(['beneficiary', 'party'], ['weight', 'decimal']);
  const Transfer = rec(
    ['sender', 'party'],
    ['provider', 'party'],
    ['inputs', list(TransferInput)],
    ['outputs', list(TransferOutput)],
    ['beneficiaries', opt(list(AppRewardBeneficiary))],
  );
  const PaymentAmount = rec(['amount', 'decimal'], ['unit', { enum: ['USDUnit', 'AmuletUnit', 'ExtUnit'] }]);
  // token-standard V2 (splice-api-token-holding-v2 / -allocation-v2 1.0.0, the versions splice-amulet 0.1.22 depends on)
  const {
    Account: AccountV2,
    SettlementInfoV2,
    TransferLegV2,
    TransferLegSide: TransferLegSideV2,
    AllocationSpecificationV2,
    FinalizedAllocation,
  } = TokenStandardTypes;
  return {
    Round,
    RewardConfig,
    RelTime,
    ExpiringAmount,
    Amulet,
    TimeLock,
    LockedAmulet: rec(['amulet', Amulet], ['lock', TimeLock]),
    TransferConfig,
    IssuanceConfig,
    OpenMiningRound,
    AmuletConfig,
    AmuletRules,
    ExternalPartyAmuletRules: rec(['dso', 'party']),
    FeaturedAppRight: rec(['dso', 'party'], ['provider', 'party'], ['activityWeight', opt('decimal')]),
    TransferPreapproval: rec(['dso', 'party'], ['receiver', 'party'], ['provider', 'party'], ['validFrom', 'time'], ['lastRenewedAt', 'time'], ['expiresAt', 'time']),
    Metadata,
    InstrumentId,
    TransferV1,
    AllocationSpecificationV1,
    AmuletTransferInstruction: rec(['lockedAmulet', 'cid'], ['transfer', TransferV1]),
    AmuletAllocation: rec(['lockedAmulet', 'cid'], ['allocation', AllocationSpecificationV1], ['expiresAt', opt('time')]),
    AccountV2,
    SettlementInfoV2,
    TransferLegV2,
    TransferLegSideV2,
    AllocationSpecificationV2,
    FinalizedAllocation,
    AmuletAllocationV2: rec(
      ['lockedAmulet', opt('cid')],
      ['settlement', SettlementInfoV2],
      ['allocation', AllocationSpecificationV2],
      ['expiresAt', 'time'],
      ['numIterations', 'int'],
      ['createdAt', 'time'],
    ),
    ExtraArgs,
    TransferContext,
    PaymentTransferContext,
    TransferInput,
    TransferOutput,
    Transfer,
    PaymentAmount,
    TransferOffer: rec(
      ['sender', 'party'],
      ['receiver', 'party'],
      ['dso', 'party'],
      ['amount', PaymentAmount],
      ['description', 'text'],
      ['expiresAt', 'time'],
      ['trackingId', 'text'],
    ),
    AcceptedTransferOffer: rec(['sender', 'party'], ['receiver', 'party'], ['dso', 'party'], ['amount', PaymentAmount], ['expiresAt', 'time'], ['trackingId', 'text']),
    WalletAppInstall: rec(['dsoParty', 'party'], ['validatorParty', 'party'], ['endUserName', 'text'], ['endUserParty', 'party']),
  };
})();

// ---- TypeScript shapes of the normalised payloads ------------------------------------------------

export interface RoundV {
  number: string;
}
export interface RelTimeV {
  microseconds: string;
}
export interface ExpiringAmountV {
  initialAmount: string;
  createdAt: RoundV;
  ratePerRound: { rate: string };
}
export interface AmuletPayload {
  dso: string;
  owner: string;
  amount: ExpiringAmountV;
}
export interface TimeLockV {
  holders: string[];
  expiresAt: string;
  optContext: string | null;
}
export interface LockedAmuletPayload {
  amulet: AmuletPayload;
  lock: TimeLockV;
}
export interface TransferConfigV {
  createFee: { fee: string };
  holdingFee: { rate: string };
  transferFee: { initialRate: string; steps: Array<{ _1: string; _2: string }> };
  lockHolderFee: { fee: string };
  extraFeaturedAppRewardAmount: string;
  maxNumInputs: string;
  maxNumOutputs: string;
  maxNumLockHolders: string;
  tokenStandardMaxTTL: RelTimeV | null;
}
export interface OpenMiningRoundPayload {
  dso: string;
  round: RoundV;
  amuletPrice: string;
  opensAt: string;
  targetClosesAt: string;
  issuingFor: RelTimeV;
  transferConfigUsd: TransferConfigV;
  issuanceConfig: Record<string, unknown>;
  tickDuration: RelTimeV;
  trafficPrice: string | null;
  rewardConfig: unknown;
}
export interface AmuletConfigV {
  transferConfig: TransferConfigV;
  issuanceCurve: { initialValue: Record<string, unknown>; futureValues: Array<{ _1: RelTimeV; _2: Record<string, unknown> }> };
  decentralizedSynchronizer: { requiredSynchronizers: { map: Array<[string, object]> }; activeSynchronizer: string; fees: SynchronizerFeesConfigV };
  tickDuration: RelTimeV;
  packageConfig: Record<string, string>;
  transferPreapprovalFee: string | null;
  featuredAppActivityMarkerAmount: string | null;
  optDevelopmentFundManager: string | null;
  externalPartyConfigStateTickDuration: RelTimeV | null;
  rewardConfig: unknown;
  transferPreapprovalBaseDuration: RelTimeV | null;
}
export interface AmuletRulesPayload {
  dso: string;
  configSchedule: { initialValue: AmuletConfigV; futureValues: unknown[] };
  isDevNet: boolean;
  contractStateSchemaVersion: string | null;
}
export interface FeaturedAppRightPayload {
  dso: string;
  provider: string;
  activityWeight: string | null;
}
export interface TransferPreapprovalPayload {
  dso: string;
  receiver: string;
  provider: string;
  validFrom: string;
  lastRenewedAt: string;
  expiresAt: string;
}
export interface MetadataV {
  values: Record<string, string>;
}
export interface InstrumentIdV {
  admin: string;
  id: string;
}
export interface TransferV1 {
  sender: string;
  receiver: string;
  amount: string;
  instrumentId: InstrumentIdV;
  requestedAt: string;
  executeBefore: string;
  inputHoldingCids: string[];
  meta: MetadataV;
}
export interface AllocationSpecificationV1 {
  settlement: {
    executor: string;
    settlementRef: { id: string; cid: string | null };
    requestedAt: string;
    allocateBefore: string;
    settleBefore: string;
    meta: MetadataV;
  };
  transferLegId: string;
  transferLeg: { sender: string; receiver: string; amount: string; instrumentId: InstrumentIdV; meta: MetadataV };
}
export interface AmuletTransferInstructionPayload {
  lockedAmulet: string;
  transfer: TransferV1;
}
export interface AmuletAllocationPayload {
  lockedAmulet: string;
  allocation: AllocationSpecificationV1;
  expiresAt: string | null;
}
/** HoldingV2.Account (`owner = None`: the admin's special accounts). */
export interface AccountV {
  owner: string | null;
  provider: string | null;
  id: string;
}
export interface SettlementInfoV2 {
  executors: string[];
  id: string;
  cid: string | null;
  meta: MetadataV;
}
export interface TransferLegV2 {
  transferLegId: string;
  sender: AccountV;
  receiver: AccountV;
  amount: string;
  instrumentId: string;
  meta: MetadataV;
}
export interface TransferLegSideV2 {
  transferLegId: string;
  side: 'SenderSide' | 'ReceiverSide';
  otherside: AccountV;
  amount: string;
  instrumentId: string;
  meta: MetadataV;
}
export interface AllocationSpecificationV2 {
  admin: string;
  authorizer: AccountV;
  transferLegSides: TransferLegSideV2[];
  settlementDeadline: string | null;
  nextIterationFunding: Record<string, string> | null;
  committed: boolean;
  meta: MetadataV;
}
export interface FinalizedAllocationV {
  allocationCid: string;
  extraTransferLegSides: TransferLegSideV2[];
  nextIterationFunding: Record<string, string> | null;
}
export interface AmuletAllocationV2Payload {
  lockedAmulet: string | null;
  settlement: SettlementInfoV2;
  allocation: AllocationSpecificationV2;
  expiresAt: string;
  numIterations: string;
  createdAt: string;
}
export interface AnyValueV {
  tag: string;
  value: unknown;
}
export interface ExtraArgsV {
  context: { values: Record<string, AnyValueV> };
  meta: MetadataV;
}
/** `SynchronizerFeesConfig` (Splice.DecentralizedSynchronizer) as LF JSON. */
export interface SynchronizerFeesConfigV {
  baseRateTrafficLimits: { burstAmount: string; burstWindow: { microseconds: string } };
  /** $/MB. */
  extraTrafficPrice: string;
  /** Parts per 10,000. */
  readVsWriteScalingFactor: string;
  minTopupAmount: string;
}
export interface TransferContextV {
  openMiningRound: string;
  issuingMiningRounds: Array<[RoundV, string]>;
  validatorRights: Array<[string, string]>;
  featuredAppRight: string | null;
}
export interface PaymentTransferContextV {
  amuletRules: string;
  context: TransferContextV;
}
export type TransferInputV = { tag: string; value: unknown };
export interface TransferOutputV {
  receiver: string;
  receiverFeeRatio: string;
  amount: string;
  lock: TimeLockV | null;
  meta: MetadataV | null;
}
export interface AmuletTransferV {
  sender: string;
  provider: string;
  inputs: TransferInputV[];
  outputs: TransferOutputV[];
  beneficiaries: Array<{ beneficiary: string; weight: string }> | null;
}
export interface PaymentAmountV {
  amount: string;
  unit: 'USDUnit' | 'AmuletUnit' | 'ExtUnit';
}
export interface TransferOfferPayload {
  sender: string;
  receiver: string;
  dso: string;
  amount: PaymentAmountV;
  description: string;
  expiresAt: string;
  trackingId: string;
}
export interface AcceptedTransferOfferPayload {
  sender: string;
  receiver: string;
  dso: string;
  amount: PaymentAmountV;
  expiresAt: string;
  trackingId: string;
}
export interface WalletAppInstallPayload {
  dsoParty: string;
  validatorParty: string;
  endUserName: string;
  endUserParty: string;
}

// ---- Decimal arithmetic as Daml does it (Numeric 10, banker's rounding) ---------------------------

const SCALE = 10n ** 10n;
export const dec = (text: string): bigint => parseDecimal(text);
export const decText = (scaled: bigint): string => formatDecimal(scaled);
export const ONE = SCALE;

function roundHalfEven(num: bigint, den: bigint): bigint {
  if (den < 0n) {
    num = -num;
    den = -den;
  }
  const q = num / den;
  const r = num % den;
  const twice = 2n * (r < 0n ? -r : r);
  if (twice < den) return q;
  const away = num < 0n ? q - 1n : q + 1n;
  if (twice > den) return away;
  return q % 2n === 0n ? q : away;
}
/** Numeric multiplication rounded to scale 10 (half even, as Daml's `*` on Decimal). */
export const mulDec = (a: bigint, b: bigint): bigint => roundHalfEven(a * b, SCALE);
/** Numeric division rounded to scale 10 (half even, as Daml's `/` on Decimal). */
export const divDec = (a: bigint, b: bigint): bigint => roundHalfEven(a * SCALE, b);
export const intToDec = (n: bigint): bigint => n * SCALE;
export const minDec = (a: bigint, b: bigint): bigint => (a < b ? a : b);
export const maxDec = (a: bigint, b: bigint): bigint => (a > b ? a : b);

// ---- Daml `show` ------------------------------------------------------------------------------------

export const showParty = (p: string): string => `'${p}'`;
export const showText = (t: string): string => JSON.stringify(t);
/** `show` of a Decimal: trailing zeros stripped, at least one fractional digit ("1.0"). */
export function showDecimal(scaled: bigint): string {
  const s = formatDecimal(scaled).replace(/0+$/, '');
  return s.endsWith('.') ? `${s}0` : s;
}
export const showDecimalText = (t: string): string => showDecimal(dec(t));
export const showTime = (t: string): string => formatInstant(parseTime(t));

// ---- failures as the Daml code raises them ---------------------------------------------------------

const GENERAL_ERROR = 'UNHANDLED_EXCEPTION/DA.Exception.GeneralError:GeneralError';

/** `fail`/`abort`. */
export function failGeneral(ctx: UpdateContext, message: string): never {
  return ctx.fail(message, { errorId: GENERAL_ERROR, category: 9 });
}
/** Splice.Util `require`: `assertMsg ("The requirement '" <> msg <> "' was not met.")`. */
export function require(ctx: UpdateContext, msg: string, cond: boolean): void {
  if (!cond) ctx.fail(`The requirement '${msg}' was not met.`);
}
/** `error`: a Daml `ErrorCall`. */
export function failError(ctx: UpdateContext, message: string): never {
  return ctx.fail(message, { errorId: 'UNHANDLED_EXCEPTION/GHC.Err:ErrorCall', category: 9 });
}
/** DA.Assert.assertWithinDeadline: ledger time must be strictly before the deadline. */
export function assertWithinDeadline(ctx: UpdateContext, name: string, deadline: string): void {
  if (ctx.nowMicros >= parseTime(deadline)) {
    ctx.fail(`Ledger time is at or past deadline '${name}' at ${showTime(deadline)}`, { errorId: 'stdlib.daml.com/deadline-exceeded', category: 9, metadata: { deadline: showTime(deadline) } });
  }
}
/** DA.Assert.assertDeadlineExceeded: ledger time must be at or after the deadline. */
export function assertDeadlineExceeded(ctx: UpdateContext, name: string, deadline: string): void {
  if (ctx.nowMicros < parseTime(deadline)) {
    ctx.fail(`Ledger time is strictly before deadline '${name}' at ${showTime(deadline)}`, {
      errorId: 'stdlib.daml.com/deadline-not-exceeded',
      category: 9,
      metadata: { deadline: showTime(deadline) },
    });
  }
}

export const emptyMeta = (): MetadataV => ({ values: {} });

/** `amuletMetadata`: the HoldingV1 view's metadata of an amulet. */
export function amuletMetadata(a: AmuletPayload): MetadataV {
  return { values: { [META.createdInRound]: a.amount.createdAt.number, [META.ratePerRound]: showDecimalText(a.amount.ratePerRound.rate) } };
}

/**
 * The value of an amulet at `round`: `initialAmount - ratePerRound * (round - createdAt)`, never
 * below zero (`Splice.Fees` `actualAmount`, `daml/splice-amulet/daml/Splice/Fees.daml`).
 */
export function amuletValueAtRound(amount: ExpiringAmountV, round: bigint): bigint {
  const initial = dec(amount.initialAmount);
  const created = BigInt(amount.createdAt.number);
  if (round <= created) return initial;
  const v = initial - dec(amount.ratePerRound.rate) * (round - created);
  return v > 0n ? v : 0n;
}

/**
 * The round from which an amulet is worth nothing (Splice.Expiry `amountExpiresAt`):
 * `createdAt + ceiling(initialAmount / rate)`; undefined when the rate is zero.
 */
export function amuletExpiresAtRound(amount: ExpiringAmountV): bigint | undefined {
  const rate = dec(amount.ratePerRound.rate);
  if (rate <= 0n) return undefined;
  const initial = dec(amount.initialAmount);
  const rounds = (initial + rate - 1n) / rate;
  return BigInt(amount.createdAt.number) + rounds;
}

/**
 * Splice.Util `require'`: "'<d1>' <what> '<d2>'." and the two values shown on their own lines
 * (`T.unlines`, hence the trailing newline).
 */
export function requireR(ctx: UpdateContext, ok: boolean, d1: string, shown1: string, what: string, d2: string, shown2: string): void {
  if (!ok) failGeneral(ctx, `'${d1}' ${what} '${d2}'.\n${d1}: ${shown1}\n${d2}: ${shown2}\n`);
}

const showOptionalParty = (p: string | null) => (p === null ? 'None' : `Some ${showParty(p)}`);
/** Derived `Show` of a HoldingV2.Account. */
export const showAccount = (a: AccountV): string => `Account {owner = ${showOptionalParty(a.owner)}, provider = ${showOptionalParty(a.provider)}, id = ${showText(a.id)}}`;
export const basicAccount = (owner: string): AccountV => ({ owner, provider: null, id: '' });
export const isBasicAccount = (a: AccountV): boolean => a.owner !== null && a.provider === null && a.id === '';
export const sameAccount = (a: AccountV, b: AccountV): boolean => a.owner === b.owner && a.provider === b.provider && a.id === b.id;
/** `accountParties admin acc`: the principal (owner, or the admin for special accounts) and a distinct provider. */
export function accountParties(admin: string, a: AccountV): string[] {
  const principal = a.owner ?? admin;
  return a.provider !== null && a.provider !== principal ? [principal, a.provider] : [principal];
}
/** The special accounts of splice-token-standard-utils (`cip-112/` namespace). */
export const mintAccount = (): AccountV => ({ owner: null, provider: null, id: 'cip-112/mint' });
export const burnAccount = (): AccountV => ({ owner: null, provider: null, id: 'cip-112/burn' });

/** `show` of a list of parties. */
const showParties = (ps: readonly string[]) => `[${ps.map(showParty).join(',')}]`;

/**
 * `checkActors actors allowed` (splice-token-standard-utils): the actors, as a set, must equal
 * one of the allowed groups (`require'` with `oneOfR isEqualSetR`).
 */
export function checkActors(ctx: UpdateContext, actors: readonly string[], allowed: readonly string[][]): void {
  const key = (g: readonly string[]) => [...new Set(g)].sort().join('\u0000');
  if (allowed.some((g) => key(g) === key(actors))) return;
  failGeneral(
    ctx,
    `'actors' does not have the same elements as one of 'allowed actors'.\nactors: ${showParties(actors)}\nallowed actors: [${allowed.map(showParties).join(',')}]\n`,
  );
}
