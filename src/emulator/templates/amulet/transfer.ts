/**
 * The Amulet transfer (`Splice.AmuletRules.executeTransfer`) and the two-step transfer used by
 * the token-standard implementation (`Splice.Amulet.TwoStepTransfer`), as the emulator runs them.
 * Behaviour follows the Daml code of splice-amulet (see LIMITATIONS in ./index.ts):
 *  - the transfer context is read from the token-standard choice context: the
 *    `external-party-config-state` where the choice takes it (`Payment`, `paymentOf`), else
 *    `amulet-rules` and `open-round`; optional `featured-app-right` (Scan's `ChoiceContextBuilder`);
 *  - inputs are Amulets of the sender (fetched, checked, archived); outputs are new Amulets or
 *    LockedAmulets created in the open round with the round's holding fee rate; the rest goes
 *    back to the sender as one change Amulet;
 *  - fees come from the open round's `transferConfigUsd` scaled by `1 / amuletPrice` (create fee,
 *    lock-holder fee, stepped transfer fee; all zero since CIP-78 but honoured when configured);
 *    holding fees accrue per round on the amulet (`ratePerRound`) and are charged on transfer
 *    only when the emulator is configured so (the pre-2025-09 behaviour); by default, as in
 *    splice-amulet 0.1.22, an input counts at its `initialAmount`.
 * All amounts are exact (scaled bigints; products and quotients rounded half-even at scale 10).
 */
import type { FetchedContract, TemplateRegistry, UpdateContext } from '../../participant/templates.js';
import { nameKey } from '../../participant/types.js';
import { TS } from '../token-standard.js';
import { parseTime } from '../../../canton/lf-value.js';
import { configStateFromContext, type ExternalPartyConfigStatePayload } from './external-party-config-state.js';
import { fetchForDso, fetchOpenRound, groupMismatch, showForOwner } from './fetch-checked.js';
import {
  AMULET_INSTRUMENT_ID,
  AmuletIds,
  CTX,
  META,
  amuletValueAtRound,
  assertDeadlineExceeded,
  assertWithinDeadline,
  dec,
  decText,
  divDec,
  emptyMeta,
  failError,
  failGeneral,
  minDec,
  mulDec,
  require,
  showDecimal,
  showParty,
  type AmuletPayload,
  type AmuletRulesPayload,
  type AmuletTransferV,
  type ExtraArgsV,
  type FeaturedAppRightPayload,
  type LockedAmuletPayload,
  type MetadataV,
  type OpenMiningRoundPayload,
  type PaymentTransferContextV,
  type RoundV,
  type TimeLockV,
  type TransferConfigV,
  type TransferContextV,
  type TransferInputV,
  type TransferOutputV,
} from './values.js';

export interface AmuletBehaviour {
  /**
   * Charge holding fees on transfer inputs (`initialAmount - rate * rounds held`), as
   * splice-amulet did before "do not charge holding fees on transfer" (2025-09). Default false.
   */
  holdingFeesOnTransfer: boolean;
}

// ---- checked fetches: fetch-checked.ts (below this module and external-party-config-state.ts) ----

// ---- fees ----------------------------------------------------------------------------------------

/** `scaleFees (1.0 / amuletPrice)`: the round's USD transfer config in Amulet. */
export interface AmuletFees {
  createFee: bigint;
  holdingFeeRate: bigint;
  lockHolderFee: bigint;
  transferFeeInitialRate: bigint;
  transferFeeSteps: Array<[bigint, bigint]>;
  maxNumInputs: number;
  maxNumOutputs: number;
  maxNumLockHolders: number;
}

export function transferConfigAmulet(round: OpenMiningRoundPayload): AmuletFees {
  const s = divDec(dec('1'), dec(round.amuletPrice));
  const c: TransferConfigV = round.transferConfigUsd;
  return {
    createFee: mulDec(s, dec(c.createFee.fee)),
    holdingFeeRate: mulDec(s, dec(c.holdingFee.rate)),
    lockHolderFee: mulDec(s, dec(c.lockHolderFee.fee)),
    transferFeeInitialRate: dec(c.transferFee.initialRate),
    transferFeeSteps: c.transferFee.steps.map((st) => [mulDec(dec(st._1), s), dec(st._2)]),
    maxNumInputs: Number(c.maxNumInputs),
    maxNumOutputs: Number(c.maxNumOutputs),
    maxNumLockHolders: Number(c.maxNumLockHolders),
  };
}

/** `chargeSteppedRate`: the rate applies per band of the amount, bands given by cumulative steps. */
export function chargeSteppedRate(initialRate: bigint, steps: Array<[bigint, bigint]>, amount: bigint): bigint {
  // step differences: [(s1 - 0, r1), (s2 - s1, r2), ...]
  const diffs: Array<[bigint, bigint]> = [];
  let total = 0n;
  for (const [step, rate] of steps) {
    diffs.push([step - total, rate]);
    total += step;
  }
  let remainder = amount;
  let currentRate = initialRate;
  let charged = 0n;
  for (const [step, steppedRate] of diffs) {
    if (remainder <= 0n) return charged;
    const band = remainder < step ? remainder : step;
    charged += mulDec(band, currentRate);
    remainder -= step;
    currentRate = steppedRate;
  }
  if (remainder <= 0n) return charged;
  return charged + mulDec(remainder, currentRate);
}

function dedupLockHolders(receiver: string, lock: TimeLockV): TimeLockV {
  const holders = [...new Set(lock.holders.filter((h) => h !== receiver))].sort();
  return { holders, expiresAt: lock.expiresAt, optContext: lock.optContext };
}

function outputFee(fees: AmuletFees, sender: string, out: TransferOutputV): bigint {
  const lock = out.lock ? dedupLockHolders(out.receiver, out.lock) : null;
  const locking = lock ? fees.lockHolderFee * BigInt(lock.holders.length) : 0n;
  const transfer = sender === out.receiver ? 0n : chargeSteppedRate(fees.transferFeeInitialRate, fees.transferFeeSteps, dec(out.amount));
  return fees.createFee + locking + transfer;
}

// ---- executeTransfer ----------------------------------------------------------------------------

/** The controllers of `AmuletRules_Transfer`: sender, provider, every receiver and lock holder. */
export function transferControllers(t: AmuletTransferV): string[] {
  const s = new Set([t.sender, t.provider]);
  for (const o of t.outputs) {
    for (const h of o.lock?.holders ?? []) s.add(h);
    s.add(o.receiver);
  }
  return [...s].sort();
}

export interface TransferOutcome {
  /** The `TransferResult` record (LF JSON). */
  result: Record<string, unknown>;
  createdAmulets: Array<{ tag: 'TransferResultAmulet' | 'TransferResultLockedAmulet'; value: string }>;
  senderChangeAmulet: string | null;
  meta: MetadataV;
}

function invalidTransfer(ctx: UpdateContext, reason: string): never {
  return ctx.fail(reason, { errorId: 'UNHANDLED_EXCEPTION/Splice.AmuletRules:InvalidTransfer', category: 9 });
}

/** `executeTransfer` (without reward issuance: see LIMITATIONS). */
/**
 * What a transfer reads from its context (`TransferContextSummaryV2`): the round that stamps new
 * holdings, the amulet price and the fees in Amulet. AmuletRules_Transfer takes them from the open
 * round; `executeExternalPartyTransfer` from an ExternalPartyConfigState.
 */
export interface TransferReference {
  round: RoundV;
  amuletPrice: string;
  fees: AmuletFees;
}

export function executeTransfer(ctx: UpdateContext, behaviour: AmuletBehaviour, dso: string, context: TransferContextV, t: AmuletTransferV): TransferOutcome {
  // summarizeAndValidateContext
  const openRound = fetchOpenRound(ctx, dso, context.openMiningRound);
  assertDeadlineExceeded(ctx, 'openRound.opensAt', openRound.opensAt);
  return executeTransferWith(ctx, behaviour, dso, { round: openRound.round, amuletPrice: openRound.amuletPrice, fees: transferConfigAmulet(openRound) }, context.featuredAppRight, t);
}

/** `executeTransfer'`: the transfer proper, once its reference data is known. */
export function executeTransferWith(
  ctx: UpdateContext,
  behaviour: AmuletBehaviour,
  dso: string,
  ref: TransferReference,
  featuredAppRight: string | null,
  t: AmuletTransferV,
  /**
   * How a shortfall fails: AmuletRules' `InvalidTransfer` exception (`ITR_InsufficientFunds`), or
   * the `failWithStatus` of 0.1.22's external-party transfer (`splice.lfdecentralizedtrust.org/
   * insufficient-funds`, as splice-amulet-0.1.22.dar evaluates it).
   */
  insufficientFunds: 'invalid-transfer' | 'status' = 'invalid-transfer',
): TransferOutcome {
  if (featuredAppRight !== null) {
    const far = fetchForDso<FeaturedAppRightPayload>(ctx, dso, featuredAppRight, AmuletIds.FeaturedAppRight);
    if (far.provider !== t.provider) {
      failGeneral(
        ctx,
        `Contract mismatch: expected FeaturedAppRight {dso = ${showParty(dso)}, provider = ${showParty(t.provider)}}, got FeaturedAppRight {dso = ${showParty(far.dso)}, provider = ${showParty(far.provider)}} referenced by ${featuredAppRight}`,
      );
    }
  }
  const fees = ref.fees;
  const round = BigInt(ref.round.number);

  // summarizeAndConsumeInputs
  let totalAmulet = 0n;
  let holdingFees = 0n;
  let archivedAsOfRoundZero = 0n;
  let changeToHoldingFeesRate = 0n;
  for (const input of t.inputs) {
    if (input.tag !== 'InputAmulet') {
      failGeneral(ctx, `${input.tag}: only InputAmulet transfer inputs are supported by the emulated AmuletRules (reward coupons are not modelled)`);
    }
    const cid = input.value as string;
    const amulet = ctx.fetch(cid, AmuletIds.Amulet).payload as AmuletPayload;
    if (amulet.dso !== dso || amulet.owner !== t.sender) {
      groupMismatch(ctx, `ForOwner {dso = ${showParty(dso)}, owner = ${showParty(t.sender)}}`, `ForOwner {dso = ${showParty(amulet.dso)}, owner = ${showParty(amulet.owner)}}`, cid);
    }
    ctx.exercise(cid, 'Archive', {});
    const initial = dec(amulet.amount.initialAmount);
    totalAmulet += initial;
    if (behaviour.holdingFeesOnTransfer) holdingFees += initial - amuletValueAtRound(amulet.amount, round);
    archivedAsOfRoundZero += initial + dec(amulet.amount.ratePerRound.rate) * BigInt(amulet.amount.createdAt.number);
    changeToHoldingFeesRate -= dec(amulet.amount.ratePerRound.rate);
  }

  // preprocessOutputs
  const outputs = t.outputs.map((o) => {
    const ratio = dec(o.receiverFeeRatio);
    if (!(ratio >= 0n && ratio <= dec('1'))) failError(ctx, `Receiver fee ratio ${showDecimal(ratio)} is not between 0.0 and 1.0`);
    const lock = o.lock ? dedupLockHolders(o.receiver, o.lock) : null;
    if (lock) {
      assertWithinDeadline(ctx, 'lock.expiresAt', lock.expiresAt);
      require(ctx, 'Fewer than the allowed number of lock holders', lock.holders.length <= fees.maxNumLockHolders);
    }
    const fee = outputFee(fees, t.sender, o);
    const receiverFee = mulDec(fee, ratio);
    require(ctx, 'Amount is larger than receiver output fee', receiverFee < dec(o.amount));
    return { owner: o.receiver, outputFee: fee, amount: dec(o.amount) - receiverFee, lock };
  });

  // summarizeTransfer
  const totalOutput = outputs.reduce((s, o) => s + o.amount, 0n);
  const totalOutputFees = outputs.reduce((s, o) => s + o.outputFee, 0n);
  const leftOver = totalAmulet - holdingFees - totalOutput - totalOutputFees;
  const senderChangeFee = minDec(fees.createFee, leftOver);
  const senderChangeAmount = leftOver - senderChangeFee;
  const roundZeroAdjustment = round * fees.holdingFeeRate;
  const balanceChanges = new Map<string, { a: bigint; r: bigint }>();
  const addChange = (p: string, a: bigint, r: bigint) => {
    const prev = balanceChanges.get(p) ?? { a: 0n, r: 0n };
    balanceChanges.set(p, { a: prev.a + a, r: prev.r + r });
  };
  if (senderChangeAmount > 0n) {
    addChange(t.sender, senderChangeAmount + roundZeroAdjustment - archivedAsOfRoundZero, fees.holdingFeeRate + changeToHoldingFeesRate);
  } else {
    addChange(t.sender, -archivedAsOfRoundZero, changeToHoldingFeesRate);
  }
  for (const o of outputs) addChange(o.owner, o.amount + roundZeroAdjustment, fees.holdingFeeRate);

  // checkTransferConstraints
  if (t.inputs.length > fees.maxNumInputs) invalidTransfer(ctx, 'ITR_Other {description = "More than the maximum number of inputs"}');
  if (t.outputs.length > fees.maxNumOutputs) invalidTransfer(ctx, 'ITR_Other {description = "More than the maximum number of outputs"}');
  if (senderChangeFee < 0n) {
    if (insufficientFunds === 'status') {
      ctx.fail(`Insufficient funds: you are missing ${showDecimal(-senderChangeFee)} to complete this transfer.`, {
        errorId: 'splice.lfdecentralizedtrust.org/insufficient-funds',
        category: 9,
        metadata: { requiredAmount: showDecimal(-senderChangeFee) },
      });
    }
    invalidTransfer(ctx, `ITR_InsufficientFunds {missingAmount = ${showDecimal(-senderChangeFee)}}`);
  }

  // createTransferOutputs
  const expiring = (amount: bigint) => ({
    initialAmount: decText(amount),
    createdAt: { number: ref.round.number },
    ratePerRound: { rate: decText(fees.holdingFeeRate) },
  });
  const createdAmulets: TransferOutcome['createdAmulets'] = outputs.map((o) => {
    const amulet: AmuletPayload = { dso, owner: o.owner, amount: expiring(o.amount) };
    if (o.lock === null) return { tag: 'TransferResultAmulet' as const, value: ctx.create(AmuletIds.Amulet, amulet) };
    const locked: LockedAmuletPayload = { amulet, lock: o.lock };
    return { tag: 'TransferResultLockedAmulet' as const, value: ctx.create(AmuletIds.LockedAmulet, locked) };
  });
  const senderChangeAmulet = senderChangeAmount > 0n ? ctx.create(AmuletIds.Amulet, { dso, owner: t.sender, amount: expiring(senderChangeAmount) }) : null;

  const senderRetainsControl = (o: TransferOutputV) => t.sender === o.receiver && (o.lock === null || o.lock.holders.every((h) => h === t.sender));
  const mergeSplit = t.outputs.every(senderRetainsControl);
  const totalBurn = totalOutputFees + holdingFees + senderChangeFee;
  const meta = holdingTxMeta(mergeSplit ? 'merge-split' : 'transfer', null, mergeSplit ? null : t.sender, totalBurn);

  const summary = {
    inputAppRewardAmount: decText(0n),
    inputValidatorRewardAmount: decText(0n),
    inputSvRewardAmount: decText(0n),
    inputAmuletAmount: decText(totalAmulet),
    balanceChanges: [...balanceChanges.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([p, c]) => [p, { changeToInitialAmountAsOfRoundZero: decText(c.a), changeToHoldingFeesRate: decText(c.r) }]),
    holdingFees: decText(holdingFees),
    outputFees: outputs.map((o) => decText(o.outputFee)),
    senderChangeFee: decText(senderChangeFee),
    senderChangeAmount: decText(senderChangeAmount),
    amuletPrice: ref.amuletPrice,
    inputValidatorFaucetAmount: decText(0n),
    inputUnclaimedActivityRecordAmount: decText(0n),
    inputDevelopmentFundAmount: decText(0n),
  };
  const result = { round: ref.round, summary, createdAmulets, senderChangeAmulet, meta };
  return { result, createdAmulets, senderChangeAmulet, meta };
}

/** `holdingTxMeta kind reason sender burned`. */
export function holdingTxMeta(kind: string, reason: string | null, sender: string | null, burned: bigint): MetadataV {
  const values: Record<string, string> = { [META.txKind]: kind };
  if (reason !== null) values[META.reason] = reason;
  if (sender !== null) values[META.sender] = sender;
  if (burned !== 0n) values[META.burned] = showDecimal(burned);
  return { values: sortKeys(values) };
}

export function sortKeys(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** `copyOnlyBurnMeta`: keep only the burned amount of a transfer's metadata. */
export function copyOnlyBurnMeta(meta: MetadataV | null): MetadataV {
  const burned = meta?.values[META.burned];
  return burned === undefined ? emptyMeta() : { values: { [META.burned]: burned } };
}

/**
 * The metadata a token-standard result reports for the transfer it made: the burn only (the
 * AmuletRules path, `copyOnlyBurnMeta`), or the whole holding-transaction metadata (tx-kind,
 * sender, burned) on 0.1.22's external-party path, as splice-amulet-0.1.22.dar returns it.
 */
export function paymentResultMeta(payment: Payment, meta: MetadataV | null): MetadataV {
  return payment.via === 'external-party-config-state' ? (meta ?? emptyMeta()) : copyOnlyBurnMeta(meta);
}

/** `exercisePaymentTransfer`: `AmuletRules_Transfer` on the context's rules, expecting `dso`. */
export function exercisePaymentTransfer(ctx: UpdateContext, dso: string, pctx: PaymentTransferContextV, transfer: AmuletTransferV): TransferOutcome {
  const r = ctx.exercise(pctx.amuletRules, 'AmuletRules_Transfer', { transfer, context: pctx.context, expectedDso: dso }) as TransferOutcome['result'];
  return {
    result: r,
    createdAmulets: r.createdAmulets as TransferOutcome['createdAmulets'],
    senderChangeAmulet: r.senderChangeAmulet as string | null,
    meta: (r.meta as MetadataV | null) ?? emptyMeta(),
  };
}

// ---- choice-context parsing (paymentFromChoiceContext) ----------------------------------------------

function contextValue(ctx: UpdateContext, extra: ExtraArgsV, key: string, tag: string, what: string, required: true): unknown;
function contextValue(ctx: UpdateContext, extra: ExtraArgsV, key: string, tag: string, what: string, required: false): unknown | undefined;
function contextValue(ctx: UpdateContext, extra: ExtraArgsV, key: string, tag: string, what: string, required: boolean): unknown | undefined {
  const av = extra.context.values[key];
  if (av === undefined) {
    if (required) failGeneral(ctx, `Missing context entry for: ${key}`);
    return undefined;
  }
  if (av.tag !== tag) failGeneral(ctx, `Failed to decode context value for '${key}': expected ${what}, got: ${av.tag} ${JSON.stringify(av.value)}`);
  return av.value;
}

export const contextCid = (ctx: UpdateContext, extra: ExtraArgsV, key: string): string =>
  contextValue(ctx, extra, key, 'AV_ContractId', 'contract id', true) as string;
export const optionalContextCid = (ctx: UpdateContext, extra: ExtraArgsV, key: string): string | null =>
  (contextValue(ctx, extra, key, 'AV_ContractId', 'contract id', false) as string | undefined) ?? null;
export const optionalContextBool = (ctx: UpdateContext, extra: ExtraArgsV, key: string): boolean | null => {
  const v = contextValue(ctx, extra, key, 'AV_Bool', 'bool', false);
  return v === undefined ? null : v === true;
};

/**
 * `paymentFromChoiceContext`: AmuletRules and OpenMiningRound from the context (checked to be the
 * DSO's), and the featured app right when `featured` (the unfeatured variant drops it).
 */
export function paymentFromChoiceContext(ctx: UpdateContext, dso: string, extra: ExtraArgsV, featured: boolean): PaymentTransferContextV {
  const amuletRules = contextCid(ctx, extra, CTX.amuletRules);
  const openMiningRound = contextCid(ctx, extra, CTX.openRound);
  const featuredAppRight = optionalContextCid(ctx, extra, CTX.featuredAppRight);
  fetchForDso<AmuletRulesPayload>(ctx, dso, amuletRules, AmuletIds.AmuletRules);
  return {
    amuletRules,
    context: { openMiningRound, issuingMiningRounds: [], validatorRights: [], featuredAppRight: featured ? featuredAppRight : null },
  };
}

/**
 * How a token-standard choice pays: through `AmuletRules_Transfer` with the context's AmuletRules
 * and open round (the ≤ 0.1.17 choice context, still served to wallets pinned to older Splice), or
 * through `executeExternalPartyTransfer` with the context's ExternalPartyConfigState (0.1.22's
 * choice context; Scan's two-step, V2 allocation and settlement contexts carry nothing else).
 */
export type Payment =
  | { via: 'amulet-rules'; pctx: PaymentTransferContextV }
  | { via: 'external-party-config-state'; configStateCid: string; state: ExternalPartyConfigStatePayload; featuredAppRight: string | null };

/**
 * The context's payment: the `external-party-config-state` when the context has one (0.1.22's
 * `externalPartyTransferFromChoiceContext`; the unfeatured variant drops the featured app right),
 * else `amulet-rules` / `open-round` (`paymentFromChoiceContext`).
 */
export function paymentOf(ctx: UpdateContext, dso: string, extra: ExtraArgsV, featured: boolean): Payment {
  const cs = configStateFromContext(ctx, dso, extra);
  if (cs === null) return { via: 'amulet-rules', pctx: paymentFromChoiceContext(ctx, dso, extra, featured) };
  const featuredAppRight = optionalContextCid(ctx, extra, CTX.featuredAppRight);
  return { via: 'external-party-config-state', configStateCid: cs.cid, state: cs.state, featuredAppRight: featured ? featuredAppRight : null };
}

export const rulesPayment = (pctx: PaymentTransferContextV): Payment => ({ via: 'amulet-rules', pctx });

/**
 * Pay `transfer`: `AmuletRules_Transfer` (an exercise node), or `executeExternalPartyTransfer`
 * (inline, no AmuletRules involved), whose transfer config has no fees (TransferConfigV2) and which
 * charges no holding fee on its inputs (0.1.22).
 */
export function exercisePayment(ctx: UpdateContext, dso: string, payment: Payment, transfer: AmuletTransferV): TransferOutcome {
  if (payment.via === 'amulet-rules') return exercisePaymentTransfer(ctx, dso, payment.pctx, transfer);
  return executeTransferWith(ctx, { holdingFeesOnTransfer: false }, dso, configStateReference(payment.state), payment.featuredAppRight, transfer, 'status');
}

/** The transfer reference data of a config state: its holding-fee round, price and fee-less config. */
export function configStateReference(s: ExternalPartyConfigStatePayload): TransferReference {
  const scale = divDec(dec('1'), dec(s.amuletPrice));
  const c = s.transferConfig;
  return {
    round: s.holdingFeesOpenRoundNumber,
    amuletPrice: s.amuletPrice,
    fees: {
      createFee: 0n,
      holdingFeeRate: mulDec(scale, dec(c.holdingFee.rate)),
      lockHolderFee: 0n,
      transferFeeInitialRate: 0n,
      transferFeeSteps: [],
      maxNumInputs: Number(c.maxNumInputs),
      maxNumOutputs: Number(c.maxNumOutputs),
      maxNumLockHolders: Number(c.maxNumLockHolders),
    },
  };
}

/** Release a lock held with the owner (`LockedAmulet_Unlock` needs the open round; the V2 choice does not). */
function unlockHeld(ctx: UpdateContext, payment: Payment, lockedAmuletCid: string): string {
  if (payment.via === 'amulet-rules') {
    const r = ctx.exercise(lockedAmuletCid, 'LockedAmulet_Unlock', { openRoundCid: payment.pctx.context.openMiningRound }) as { amuletSum: { amulet: string } };
    return r.amuletSum.amulet;
  }
  return (ctx.exercise(lockedAmuletCid, 'LockedAmulet_UnlockV2', {}) as { amuletCid: string }).amuletCid;
}

// ---- holdings as transfer inputs ---------------------------------------------------------------------

/** The HoldingV1 view of any contract implementing the interface (or undefined). */
export function holdingViewOf(templates: TemplateRegistry, c: FetchedContract): { owner: string; instrumentId: { admin: string; id: string } } | undefined {
  const impl = templates.templateById(c.templateId)?.implements.find((i) => nameKey(i.interface.id) === nameKey(TS.HoldingV1.id));
  return impl ? (impl.view(c.payload) as { owner: string; instrumentId: { admin: string; id: string } }) : undefined;
}

/**
 * `holdingToTransferInputs`: each holding must be the owner's (checked on its HoldingV1 view); a
 * LockedAmulet is unlocked on the fly (which fails unless its lock has expired).
 */
export function holdingToTransferInputs(
  ctx: UpdateContext,
  templates: TemplateRegistry,
  dso: string,
  owner: string,
  payment: Payment,
  cids: string[],
): TransferInputV[] {
  return cids.map((cid) => {
    const c = ctx.fetch(cid, TS.HoldingV1.id);
    const view = holdingViewOf(templates, c);
    if (view && (view.instrumentId.admin !== dso || view.owner !== owner)) {
      groupMismatch(ctx, showForOwner(dso, owner), showForOwner(view.instrumentId.admin, view.owner), cid);
    }
    if (nameKey(c.templateId) === nameKey(AmuletIds.LockedAmulet)) {
      if (payment.via === 'external-party-config-state') {
        const r = ctx.exercise(cid, 'LockedAmulet_OwnerExpireLockV2', {}) as { amuletCid: string };
        return { tag: 'InputAmulet', value: r.amuletCid };
      }
      const r = ctx.exercise(cid, 'LockedAmulet_OwnerExpireLock', { openRoundCid: payment.pctx.context.openMiningRound }) as { amuletSum: { amulet: string } };
      return { tag: 'InputAmulet', value: r.amuletSum.amulet };
    }
    return { tag: 'InputAmulet', value: cid };
  });
}

// ---- two-step transfers ---------------------------------------------------------------------------

export interface TwoStepTransfer {
  dso: string;
  sender: string;
  receiver: string;
  amount: string;
  lockContext: string;
  transferBefore: string;
  transferBeforeDeadline: string;
  provider: string;
  allowFeaturing: boolean;
}

/** `prepareTwoStepTransfer`: lock the amount for the sender, held by the DSO until `transferBefore`. */
export function prepareTwoStepTransfer(
  ctx: UpdateContext,
  templates: TemplateRegistry,
  s: TwoStepTransfer,
  requestedAt: string,
  inputHoldingCids: string[],
  payment: Payment,
): { lockedAmulet: string; senderChangeCids: string[]; meta: MetadataV } {
  require(ctx, 'requestedAt < transferBefore', parseTime(requestedAt) < parseTime(s.transferBefore));
  const inputs = holdingToTransferInputs(ctx, templates, s.dso, s.sender, payment, inputHoldingCids);
  const r = exercisePayment(ctx, s.dso, payment, {
    sender: s.sender,
    provider: s.sender,
    inputs,
    outputs: [
      {
        receiver: s.sender,
        receiverFeeRatio: decText(0n),
        amount: s.amount,
        lock: { holders: [s.dso], expiresAt: s.transferBefore, optContext: s.lockContext },
        meta: { values: { [META.reason]: `lock for ${s.lockContext}` } },
      },
    ],
    beneficiaries: null,
  });
  const locked = r.createdAmulets[0];
  if (r.createdAmulets.length !== 1 || locked?.tag !== 'TransferResultLockedAmulet') failError(ctx, 'unexpected: the lock did not create exactly one LockedAmulet');
  return { lockedAmulet: locked.value, senderChangeCids: r.senderChangeAmulet ? [r.senderChangeAmulet] : [], meta: paymentResultMeta(payment, r.meta) };
}

/** `executeTwoStepTransfer`: unlock and transfer to the receiver, before the deadline. */
export function executeTwoStepTransfer(
  ctx: UpdateContext,
  s: TwoStepTransfer,
  lockedAmuletCid: string,
  extra: ExtraArgsV,
  transferMeta: MetadataV | null,
): { senderHoldingCids: string[]; receiverHoldingCids: string[]; meta: MetadataV } {
  assertWithinDeadline(ctx, s.transferBeforeDeadline, s.transferBefore);
  const payment = paymentOf(ctx, s.dso, extra, s.allowFeaturing);
  const unlocked = unlockHeld(ctx, payment, lockedAmuletCid);
  const r = exercisePayment(ctx, s.dso, payment, {
    sender: s.sender,
    provider: s.provider,
    inputs: [{ tag: 'InputAmulet', value: unlocked }],
    outputs: [{ receiver: s.receiver, receiverFeeRatio: decText(0n), amount: s.amount, lock: null, meta: transferMeta }],
    beneficiaries: null,
  });
  return {
    senderHoldingCids: r.senderChangeAmulet ? [r.senderChangeAmulet] : [],
    receiverHoldingCids: r.createdAmulets.map((c) => c.value),
    meta: copyOnlyBurnMeta(r.meta),
  };
}

/**
 * `abortTwoStepTransfer`: with `expire-lock = true` the DSO-held lock is released now (with the
 * context's config state: `LockedAmulet_UnlockV2`; with the older context: `LockedAmulet_Unlock`
 * on its `open-round`); with `false` (the registry says the LockedAmulet is gone) only check that
 * the transfer's deadline has passed, and return no holdings.
 */
export function abortTwoStepTransfer(ctx: UpdateContext, s: TwoStepTransfer, lockedAmuletCid: string, extra: ExtraArgsV): string[] {
  const expire = optionalContextBool(ctx, extra, CTX.expireLock);
  if (expire === null) failGeneral(ctx, `Missing context entry for: ${CTX.expireLock}`);
  if (expire) {
    if (configStateFromContext(ctx, s.dso, extra) !== null) return [(ctx.exercise(lockedAmuletCid, 'LockedAmulet_UnlockV2', {}) as { amuletCid: string }).amuletCid];
    const openRoundCid = contextCid(ctx, extra, CTX.openRound);
    fetchOpenRound(ctx, s.dso, openRoundCid);
    const r = ctx.exercise(lockedAmuletCid, 'LockedAmulet_Unlock', { openRoundCid }) as { amuletSum: { amulet: string } };
    return [r.amuletSum.amulet];
  }
  assertDeadlineExceeded(ctx, s.transferBeforeDeadline, s.transferBefore);
  return [];
}

export const amuletInstrument = (dso: string) => ({ admin: dso, id: AMULET_INSTRUMENT_ID });
