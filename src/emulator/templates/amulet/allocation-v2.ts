/**
 * The V2 allocations of `splice-amulet` 0.1.22 (canton-network/splice
 * `Splice/AmuletAllocationV2.daml`, `ExternalPartyAmuletRules.daml`): the `AmuletAllocationV2` template (Allocation V2) and
 * the AllocationFactory V2 and SettlementFactory V2 of ExternalPartyAmuletRules, choice by choice
 * as Splice's `Splice.AmuletAllocationV2` and `Splice.ExternalPartyAmuletRules` do it, with the
 * token-standard utilities they use (`settlementFactoryV2_settleBatchDefaultImpl`,
 * `allocationV2_cancelDefaultImpl`, `fetchAndValidateAllocations`, …).
 *
 * How Amulet settles V2 allocations (what makes it different from the V1 execute-transfer):
 *  - allocating locks only the authorizer's *net* outflow (sender-side legs minus receiver-side
 *    legs, plus next-iteration funding) in one LockedAmulet held by the DSO until the allocation
 *    expires; an allocation that needs no funding (e.g. receipt-only) locks nothing and returns
 *    its input holdings unused as change;
 *  - settling an allocation archives its LockedAmulet and creates one Amulet for the authorizer
 *    worth `locked + net credit − next-iteration funding`; so a batch that covers both sides of
 *    every leg moves exactly the leg amounts, with no AmuletRules transfer (and no fees);
 *  - withdraw (authorizer) and cancel (executors; the DSO once expired) unlock the LockedAmulet.
 *
 * Deviations (see LIMITATIONS in ./index.ts): the factory and settlement read the
 * ExternalPartyConfigState from the `external-party-config-state` context entry (holding-fee
 * rate, round, maximum TTL) as 0.1.22 does, but also accept the older `amulet-rules` /
 * `open-round` context in its place (wallets pinned to older Splice); no
 * TransferEventsV2 events are logged; `SettlementFactory_SettleBatch` insists on at least one
 * transfer leg (the interface's MUST, which Splice's default implementation does not check).
 */
import type { ChoiceDef, FetchedContract, InterfaceDef, InterfaceImpl, TemplateDef, TemplateRegistry, UpdateContext } from '../../participant/templates.js';
import { archiveChoice } from '../../participant/templates.js';
import { nameKey } from '../../participant/types.js';
import { formatTime, parseTime } from '../../../canton/lf-value.js';
import { TS } from '../token-standard.js';
import { recordParser } from '../../lf-value/native-json-codec.js';
import { list, opt, rec, tuple2, type NativeValueType } from '../../lf-value/native-type.js';
import { nativeChoice } from '../native-choice.js';
import {
  configStateReference,
  contextCid,
  optionalContextBool,
  paymentOf,
  prepareTwoStepTransfer,
  transferConfigAmulet,
  type Payment,
  type TransferReference,
  type TwoStepTransfer,
} from './transfer.js';
import { fetchOpenRound } from './fetch-checked.js';
import { configStateFromContext } from './external-party-config-state.js';
import {
  AMULET_INSTRUMENT_ID,
  AmuletIds,
  META,
  T,
  accountParties,
  assertDeadlineExceeded,
  assertWithinDeadline,
  basicAccount,
  burnAccount,
  checkActors,
  dec,
  decText,
  emptyMeta,
  failGeneral,
  isBasicAccount,
  mintAccount,
  require,
  requireR,
  sameAccount,
  showAccount,
  showDecimal,
  showParty,
  showText,
  CTX,
  type AccountV,
  type AllocationSpecificationV2,
  type AmuletAllocationV2Payload,
  type AmuletPayload,
  type ExtraArgsV,
  type FinalizedAllocationV,
  type LockedAmuletPayload,
  type RelTimeV,
  type MetadataV,
  type SettlementInfoV2,
  type TransferLegSideV2,
  type TransferLegV2,
} from './values.js';

type Factory = { dso: string };
type CidMap = Record<string, string[]>;

// ---- plumbing ------------------------------------------------------------------------------------

/** The V2 interface choices here are all non-consuming (archiving, where any, happens in the body). */
const choice = <P, A>(name: string, argT: NativeValueType, def: Omit<Parameters<typeof nativeChoice<P, A>>[2], 'consuming'>): ChoiceDef<P, A> =>
  nativeChoice<P, A>(name, argT, { ...def, consuming: false });

const ACTORS_ARGS = rec(['actors', list('party')], ['extraArgs', T.ExtraArgs]);
const SETTLE_ARGS = rec(
  ['actors', list('party')],
  ['extraTransferLegSides', list(T.TransferLegSideV2)],
  ['nextIterationFunding', opt({ textMap: 'decimal' })],
  ['extraArgs', T.ExtraArgs],
);
const ALLOCATE_ARGS = rec(
  ['settlement', T.SettlementInfoV2],
  ['allocation', T.AllocationSpecificationV2],
  ['requestedAt', 'time'],
  ['inputHoldingCids', list('cid')],
  ['extraArgs', T.ExtraArgs],
  ['actors', list('party')],
);
const SETTLE_BATCH_ARGS = rec(
  ['settlement', T.SettlementInfoV2],
  ['transferLegs', list(T.TransferLegV2)],
  ['allocations', list(T.FinalizedAllocation)],
  ['actors', list('party')],
  ['extraArgs', T.ExtraArgs],
);
const PUBLIC_FETCH_ARGS = rec(['actors', list('party')]);

interface ActorsArg {
  actors: string[];
  extraArgs: ExtraArgsV;
}
interface SettleArg extends ActorsArg {
  extraTransferLegSides: TransferLegSideV2[];
  nextIterationFunding: Record<string, string> | null;
}
interface AllocateArg {
  settlement: SettlementInfoV2;
  allocation: AllocationSpecificationV2;
  requestedAt: string;
  inputHoldingCids: string[];
  extraArgs: ExtraArgsV;
  actors: string[];
}
interface SettleBatchArg {
  settlement: SettlementInfoV2;
  transferLegs: TransferLegV2[];
  allocations: FinalizedAllocationV[];
  actors: string[];
  extraArgs: ExtraArgsV;
}
interface AllocationViewV2 {
  originalAllocationCid: string | null;
  settlement: SettlementInfoV2;
  allocation: AllocationSpecificationV2;
  holdingCids: string[];
  createdAt: string;
  numIterations: string;
  expiresAt: string | null;
  availableActions: unknown;
  meta: MetadataV;
}

const MAX_TIME = parseTime('9999-12-31T23:59:59.999999Z');
const DAYS_90 = 90n * 24n * 3600n * 1_000_000n;
const CANNOT_WITHDRAW = 'splice.lfdecentralizedtrust.org/cannot-withdraw-committed-allocation';
const NS = 'cip-112/';

const showList = <X>(xs: readonly X[], show: (x: X) => string) => `[${xs.map(show).join(',')}]`;
const showParties = (ps: readonly string[]) => showList(ps, showParty);
const dedupSort = (ps: readonly string[]) => [...new Set(ps)].sort();
const sameSet = (a: readonly string[], b: readonly string[]) => dedupSort(a).join('\u0000') === dedupSort(b).join('\u0000');
const sortedTextMap = <V>(entries: Array<[string, V]>): Record<string, V> => Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** The view of any contract implementing `iface` (`view <$> fetch @I cid`), computed by its template. */
function fetchInterfaceView<V>(ctx: UpdateContext, templates: TemplateRegistry, cid: string, iface: InterfaceDef): { contract: FetchedContract; view: V } {
  const contract = ctx.fetch(cid, iface.id);
  const impl = templates.templateById(contract.templateId)?.implements.find((i) => nameKey(i.interface.id) === nameKey(iface.id));
  if (!impl) failGeneral(ctx, `Contract ${cid} does not implement ${iface.id.entityName}`);
  return { contract, view: impl.view(contract.payload) as V };
}

// ---- token-standard utilities (splice-token-standard-utils) -------------------------------------------

/** `ensureBasicAccount`. */
function ensureBasicAccount(ctx: UpdateContext, field: string, a: AccountV): void {
  if (!isBasicAccount(a)) failGeneral(ctx, `Expected a basic account for field '${field}', but got: ${showAccount(a)}`);
}

/** `ensureNoAccountMeta path field meta`: no `cip-112/<field>.provider` / `.id` keys. */
function ensureNoAccountMeta(ctx: UpdateContext, path: string, field: string, meta: MetadataV): void {
  for (const k of [`${NS}${field}.provider`, `${NS}${field}.id`]) {
    const v = meta.values[k];
    if (v !== undefined) failGeneral(ctx, `Unexpected account information in metadata of '${path}' in metadata key '${k}': ${showText(v)}`);
  }
}
const hasNoAccountMeta = (field: string, meta: MetadataV) => meta.values[`${NS}${field}.provider`] === undefined && meta.values[`${NS}${field}.id`] === undefined;

/** `netAllocationCreditAmounts`: per instrument id, receipts minus payments (mint senders and burn receivers count zero). */
export function netAllocationCredit(authorizer: AccountV, sides: readonly TransferLegSideV2[]): Map<string, bigint> {
  const isMint = sameAccount(authorizer, mintAccount());
  const isBurn = sameAccount(authorizer, burnAccount());
  const out = new Map<string, bigint>();
  for (const s of sides) {
    const amount = s.side === 'SenderSide' ? (isMint ? 0n : -dec(s.amount)) : isBurn ? 0n : dec(s.amount);
    out.set(s.instrumentId, (out.get(s.instrumentId) ?? 0n) + amount);
  }
  return out;
}
/** `netAmuletCreditAmount`. */
const netAmuletCredit = (authorizer: AccountV, sides: readonly TransferLegSideV2[]) => netAllocationCredit(authorizer, sides).get(AMULET_INSTRUMENT_ID) ?? 0n;

/** `isValidSettlementInfoV2`: executors given, no `extra-executors` meta key (a V1-conversion artifact). */
const isValidSettlementInfoV2 = (s: SettlementInfoV2) => s.executors.length > 0 && s.meta.values[`${NS}extra-executors`] === undefined;

/** `isValidAllocationSpecificationV2 (== amuletInstrumentIdName)`. */
function isValidAmuletAllocationSpecificationV2(a: AllocationSpecificationV2): boolean {
  const keys = a.transferLegSides.map((s) => JSON.stringify([s.transferLegId, s.side]));
  return (
    (a.transferLegSides.length > 0 || a.nextIterationFunding !== null) &&
    new Set(keys).size === keys.length &&
    a.transferLegSides.every((s) => dec(s.amount) > 0n && s.instrumentId === AMULET_INSTRUMENT_ID && hasNoAccountMeta('sender', s.meta) && hasNoAccountMeta('receiver', s.meta)) &&
    Object.entries(a.nextIterationFunding ?? {}).every(([id, amount]) => id === AMULET_INSTRUMENT_ID && dec(amount) >= 0n) &&
    hasNoAccountMeta('authorizer', a.meta)
  );
}

/** `allocationV2_availableActionsDefault`: a DA.Map ordered by constructor (AA_Settle < AA_Cancel < AA_Withdraw). */
function availableActions(executors: string[], a: AllocationSpecificationV2) {
  const out: Array<[{ tag: string; value: Record<string, never> }, string[][]]> = [
    [{ tag: 'AA_Settle', value: {} }, [dedupSort([a.admin, ...executors])]],
    [{ tag: 'AA_Cancel', value: {} }, [dedupSort(executors)]],
  ];
  if (!a.committed || a.settlementDeadline !== null) out.push([{ tag: 'AA_Withdraw', value: {} }, [[a.authorizer.owner ?? a.admin]]]);
  return out;
}

/** `ensureWithdrawIsAllowed`: a committed allocation may only be withdrawn after its settlement deadline. */
function ensureWithdrawIsAllowed(ctx: UpdateContext, a: AllocationSpecificationV2): void {
  if (!a.committed) return;
  if (a.settlementDeadline === null) {
    ctx.fail('Cannot withdraw a committed allocation that has no settlement deadline.', { errorId: CANNOT_WITHDRAW, category: 8 });
  }
  if (!(ctx.nowMicros > parseTime(a.settlementDeadline))) {
    ctx.fail('Cannot withdraw a committed allocation before its settlement deadline.', { errorId: CANNOT_WITHDRAW, category: 9 });
  }
}

/** `requireUnique desc xs`. */
function requireUnique(ctx: UpdateContext, desc: string, shown: string[]): void {
  const dups = [...new Set(shown.filter((x, i) => shown.indexOf(x) !== i))].sort();
  if (dups.length > 0) failGeneral(ctx, [`Expected unique ${desc}, but found duplicates:`, ...dups, ''].join('\n'));
}

const showSide = (s: TransferLegSideV2) =>
  `TransferLegSide {transferLegId = ${showText(s.transferLegId)}, side = ${s.side}, otherside = ${showAccount(s.otherside)}, amount = ${showDecimal(dec(s.amount))}, instrumentId = ${showText(s.instrumentId)}, meta = Metadata {values = TextMap ${JSON.stringify(Object.entries(s.meta.values))}}}`;
const senderSide = (l: TransferLegV2): TransferLegSideV2 => ({ transferLegId: l.transferLegId, side: 'SenderSide', otherside: l.receiver, amount: l.amount, instrumentId: l.instrumentId, meta: l.meta });
const receiverSide = (l: TransferLegV2): TransferLegSideV2 => ({ transferLegId: l.transferLegId, side: 'ReceiverSide', otherside: l.sender, amount: l.amount, instrumentId: l.instrumentId, meta: l.meta });
const authorizationKey = (authorizer: AccountV, s: TransferLegSideV2) =>
  JSON.stringify([[authorizer.owner, authorizer.provider, authorizer.id], s.transferLegId, s.side, [s.otherside.owner, s.otherside.provider, s.otherside.id], dec(s.amount).toString(), s.instrumentId, Object.entries(s.meta.values).sort()]);

// ---- Amulet-specific validation (Splice.AmuletAllocationV2) -----------------------------------------

/** `validateAmuletTransferLegSides`. */
function validateAmuletTransferLegSides(ctx: UpdateContext, sides: readonly TransferLegSideV2[]): void {
  requireUnique(
    ctx,
    'transferLegSides (id + side)',
    sides.map((s) => `(${showText(s.transferLegId)},${s.side})`),
  );
  for (const s of sides) {
    if (!(s.side === 'SenderSide' && sameAccount(s.otherside, burnAccount()))) ensureBasicAccount(ctx, 'transferLeg.otherside', s.otherside);
    requireR(ctx, dec(s.amount) > 0n, 'transferLeg.amount', showDecimal(dec(s.amount)), 'is not greater than', 'zero', '0.0');
    requireR(ctx, s.instrumentId === AMULET_INSTRUMENT_ID, 'transferLeg.instrumentId', showText(s.instrumentId), 'is not equal to', 'expected value', showText(AMULET_INSTRUMENT_ID));
    ensureNoAccountMeta(ctx, 'transferLeg', 'sender', s.meta);
    ensureNoAccountMeta(ctx, 'transferLeg', 'receiver', s.meta);
  }
}

/** `validateAmuletNextIterationFunding`: the total funding to keep locked for the next iteration. */
function validateAmuletNextIterationFunding(ctx: UpdateContext, funding: Record<string, string> | null): bigint {
  let total = 0n;
  for (const [id, amount] of Object.entries(funding ?? {})) {
    requireR(ctx, id === AMULET_INSTRUMENT_ID, 'nextIterationFunding.instrumentId', showText(id), 'is not equal to', 'expected value', showText(AMULET_INSTRUMENT_ID));
    requireR(ctx, dec(amount) >= 0n, 'nextIterationFunding.amount', showDecimal(dec(amount)), 'is less than', 'zero', '0.0');
    total += dec(amount);
  }
  return total;
}

/**
 * `computeAllocationExpiry`: `oldExpiresAt + tokenStandardMaxTTL` (90 days when unset; `maxTime`
 * when that would overflow), capped at the settlement deadline; it must lie in the future.
 */
function computeAllocationExpiry(ctx: UpdateContext, maxTTL: RelTimeV | null, oldExpiresAt: string, settlementDeadline: string | null): string {
  const ttl = maxTTL ? BigInt(maxTTL.microseconds) : DAYS_90;
  const old = parseTime(oldExpiresAt);
  const candidate = MAX_TIME - old <= ttl ? MAX_TIME : old + ttl;
  const expiresAt = settlementDeadline === null ? candidate : parseTime(settlementDeadline) < candidate ? parseTime(settlementDeadline) : candidate;
  const text = formatTime(expiresAt);
  assertWithinDeadline(ctx, 'allocation.expiresAt', text);
  return text;
}

/** `mkAllocationLockContext (downcast settlement)`. */
const allocationLockContext = (s: SettlementInfoV2) => `allocation for settlement of ${s.id}`;

/**
 * The reference data of a V2 allocation choice: the context's ExternalPartyConfigState (0.1.22);
 * with the older context (wallets pinned to older Splice) the open round stands in for it.
 */
function referenceData(ctx: UpdateContext, dso: string, extra: ExtraArgsV): { ref: TransferReference; maxTTL: RelTimeV | null } {
  const cs = configStateFromContext(ctx, dso, extra);
  if (cs !== null) return { ref: configStateReference(cs.state), maxTTL: cs.state.transferConfig.tokenStandardMaxTTL };
  const round = fetchOpenRound(ctx, dso, contextCid(ctx, extra, CTX.openRound));
  return { ref: { round: round.round, amuletPrice: round.amuletPrice, fees: transferConfigAmulet(round) }, maxTTL: round.transferConfigUsd.tokenStandardMaxTTL };
}

/** `getTokenStandardMaxTTL` of the payment's transfer config. */
function maxTTLOf(payment: Payment, dso: string, ctx: UpdateContext): RelTimeV | null {
  if (payment.via === 'external-party-config-state') return payment.state.transferConfig.tokenStandardMaxTTL;
  return fetchOpenRound(ctx, dso, payment.pctx.context.openMiningRound).transferConfigUsd.tokenStandardMaxTTL;
}

/**
 * `unlockAmuletAllocationV2` (0.1.22's `abortTwoStepTransfer`): nothing for an unfunded
 * allocation; else with `expire-lock` true or absent (chained in one transaction) the lock is
 * released now; with false (the registry found the LockedAmulet gone) the lock must have expired.
 */
function unlockAmuletAllocationV2(ctx: UpdateContext, p: AmuletAllocationV2Payload, extra: ExtraArgsV): CidMap {
  if (p.lockedAmulet === null) return {};
  const expire = optionalContextBool(ctx, extra, CTX.expireLock) ?? true;
  if (expire) {
    const r = ctx.exercise(p.lockedAmulet, 'LockedAmulet_UnlockV2', {}) as { amuletCid: string };
    return { [AMULET_INSTRUMENT_ID]: [r.amuletCid] };
  }
  assertDeadlineExceeded(ctx, 'lockedAmulet.lockExpiresAt', p.expiresAt);
  return { [AMULET_INSTRUMENT_ID]: [] };
}

const withTxKind = (meta: MetadataV, kind: string) => ({ values: sortedTextMap(Object.entries({ ...meta.values, [META.txKind]: kind })) });

// ---- AmuletAllocationV2 -----------------------------------------------------------------------------

export function amuletAllocationV2View(p: AmuletAllocationV2Payload): AllocationViewV2 {
  return {
    originalAllocationCid: null,
    settlement: p.settlement,
    allocation: p.allocation,
    holdingCids: p.lockedAmulet === null ? [] : [p.lockedAmulet],
    createdAt: p.createdAt,
    numIterations: p.numIterations,
    expiresAt: p.expiresAt,
    availableActions: availableActions(p.settlement.executors, p.allocation),
    meta: emptyMeta(),
  };
}

// (the ensure clause rejects a non-basic authorizer; a missing owner adds no signatory)
const allocSignatories = (p: AmuletAllocationV2Payload) => [p.allocation.admin, ...(p.allocation.authorizer.owner === null ? [] : [p.allocation.authorizer.owner])];
const allocObservers = (p: AmuletAllocationV2Payload) => p.settlement.executors;
/** `observer this`: every stakeholder observes the nonconsuming choices, whoever the actors are. */
const allocStakeholders = (p: AmuletAllocationV2Payload) => [...allocSignatories(p), ...allocObservers(p)];

/** `archiveAndCheckActors self actors allowed`. */
function archiveAndCheckActors(ctx: UpdateContext, self: string, actors: string[], allowed: string[][]): void {
  ctx.exercise(self, 'Archive', {}, { interfaceId: TS.AllocationV2.id });
  checkActors(ctx, actors, allowed);
}

function settleImpl(ctx: UpdateContext, self: { contractId: string; payload: AmuletAllocationV2Payload }, arg: SettleArg) {
  const p = self.payload;
  const { allocation, settlement } = p;
  const dso = allocation.admin;
  archiveAndCheckActors(ctx, self.contractId, arg.actors, [[dso, ...settlement.executors]]);
  if (allocation.settlementDeadline !== null) assertWithinDeadline(ctx, 'allocation.settlement.settlementDeadline', allocation.settlementDeadline);

  const sides = [...allocation.transferLegSides, ...arg.extraTransferLegSides];
  if (allocation.nextIterationFunding === null) {
    require(ctx, 'no extra transfer legs allowed when iterated settlement is disabled', arg.extraTransferLegSides.length === 0);
    require(ctx, 'no next iteration funding allowed when iterated settlement is disabled', arg.nextIterationFunding === null);
  }
  validateAmuletTransferLegSides(ctx, sides);
  const outputFunding = validateAmuletNextIterationFunding(ctx, arg.nextIterationFunding);

  // archive the locked amulet (fetchAndArchive ForOwner)
  const authorizer = allocation.authorizer.owner ?? dso;
  let inputFunding = 0n;
  if (p.lockedAmulet !== null) {
    const locked = ctx.fetch(p.lockedAmulet, AmuletIds.LockedAmulet).payload as LockedAmuletPayload;
    if (locked.amulet.dso !== dso || locked.amulet.owner !== authorizer) {
      failGeneral(
        ctx,
        `Contract group identifier mismatch: expected ForOwner {dso = ${showParty(dso)}, owner = ${showParty(authorizer)}}, got ForOwner {dso = ${showParty(locked.amulet.dso)}, owner = ${showParty(locked.amulet.owner)}} for ${p.lockedAmulet}`,
      );
    }
    ctx.exercise(p.lockedAmulet, 'Archive', {});
    inputFunding = dec(locked.amulet.amount.initialAmount);
  }

  // the funds to move
  const input = inputFunding + netAmuletCredit(basicAccount(authorizer), sides);
  const payout = input - outputFunding;
  requireR(ctx, input >= outputFunding, 'inputAmount', showDecimal(input), 'is less than', 'minimal outputAmount', showDecimal(outputFunding));

  // reference data, then the payout
  const { ref, maxTTL } = referenceData(ctx, dso, arg.extraArgs);
  const fees = ref.fees;
  const amulet = (amount: bigint): AmuletPayload => ({
    dso,
    owner: authorizer,
    amount: { initialAmount: decText(amount), createdAt: ref.round, ratePerRound: { rate: decText(fees.holdingFeeRate) } },
  });
  const payoutCids = payout > 0n ? [ctx.create(AmuletIds.Amulet, amulet(payout))] : [];

  // the next iteration's lock and allocation (the expiry is bumped from the old one)
  const newExpiresAt = computeAllocationExpiry(ctx, maxTTL, p.expiresAt, allocation.settlementDeadline);
  const nextLocked =
    outputFunding > 0n
      ? ctx.create(AmuletIds.LockedAmulet, {
          lock: { holders: [authorizer, dso], expiresAt: newExpiresAt, optContext: allocationLockContext(settlement) },
          amulet: amulet(outputFunding),
        })
      : null;
  const nextIterationAllocationCid =
    arg.nextIterationFunding === null
      ? null
      : ctx.create(AmuletIds.AmuletAllocationV2, {
          lockedAmulet: nextLocked,
          settlement,
          allocation: { ...allocation, transferLegSides: [], nextIterationFunding: arg.nextIterationFunding },
          expiresAt: newExpiresAt,
          numIterations: (BigInt(p.numIterations) + 1n).toString(),
          createdAt: p.createdAt,
        } satisfies AmuletAllocationV2Payload);

  const outputs = [...(nextLocked === null ? [] : [nextLocked]), ...payoutCids];
  return {
    output: { tag: 'AllocationResult_Settled', value: { nextIterationAllocationCid } },
    authorizerHoldingCids: outputs.length > 0 ? { [AMULET_INSTRUMENT_ID]: outputs } : {},
    // allocationSettlementTxHistoryV1ToMeta
    meta: { values: sortedTextMap([[META.reason, 'settle V2 allocation'], [META.txKind, 'settle-V2-allocation']]) },
  };
}

export function amuletAllocationV2Template(): TemplateDef<AmuletAllocationV2Payload> {
  const impl: InterfaceImpl<AmuletAllocationV2Payload> = {
    interface: TS.AllocationV2,
    view: amuletAllocationV2View,
    choices: {
      Allocation_Settle: choice<AmuletAllocationV2Payload, SettleArg>('Allocation_Settle', SETTLE_ARGS, {
        controllers: (_p, a) => a.actors,
        observers: allocStakeholders,
        body: settleImpl,
      }),
      Allocation_Cancel: choice<AmuletAllocationV2Payload, ActorsArg>('Allocation_Cancel', ACTORS_ARGS, {
        controllers: (_p, a) => a.actors,
        observers: allocStakeholders,
        // allocationV2_cancelDefaultImpl: the executors, or the admin once the allocation expired
        body: (ctx, self, a) => {
          const p = self.payload;
          archiveAndCheckActors(ctx, self.contractId, a.actors, [p.settlement.executors, [p.allocation.admin]]);
          const authorizerHoldingCids = unlockAmuletAllocationV2(ctx, p, a.extraArgs);
          let meta = emptyMeta();
          if (!sameSet(a.actors, p.settlement.executors)) {
            assertDeadlineExceeded(ctx, 'allocation.expiresAt', p.expiresAt);
            meta = { values: { [META.reason]: 'cancelled expired allocation' } };
          }
          return { output: { tag: 'AllocationResult_Cancelled', value: {} }, authorizerHoldingCids, meta: withTxKind(meta, 'unlock') };
        },
      }),
      Allocation_Withdraw: choice<AmuletAllocationV2Payload, ActorsArg>('Allocation_Withdraw', ACTORS_ARGS, {
        controllers: (_p, a) => a.actors,
        observers: allocStakeholders,
        body: (ctx, self, a) => {
          const p = self.payload;
          archiveAndCheckActors(ctx, self.contractId, a.actors, [[p.allocation.authorizer.owner ?? p.allocation.admin]]);
          ensureWithdrawIsAllowed(ctx, p.allocation);
          const authorizerHoldingCids = unlockAmuletAllocationV2(ctx, p, a.extraArgs);
          return { output: { tag: 'AllocationResult_Withdrawn', value: {} }, authorizerHoldingCids, meta: emptyMeta() };
        },
      }),
      Archive: archiveChoice(allocSignatories),
    },
  };
  return {
    id: AmuletIds.AmuletAllocationV2,
    kind: 'native',
    signatories: allocSignatories,
    observers: allocObservers,
    ensure: (p) =>
      isBasicAccount(p.allocation.authorizer) && isValidSettlementInfoV2(p.settlement) && isValidAmuletAllocationSpecificationV2(p.allocation)
        ? undefined
        : 'isBasicAccount allocation.authorizer && isValidSettlementInfoV2 settlement && isValidAllocationSpecificationV2 (== amuletInstrumentIdName) allocation',
    parsePayload: recordParser(T.AmuletAllocationV2, 'createArguments'),
    payloadType: T.AmuletAllocationV2,
    choices: {},
    implements: [impl],
  };
}

// ---- ExternalPartyAmuletRules: AllocationFactory V2 and SettlementFactory V2 -------------------------------

const factoryView = (p: Factory) => ({ admin: p.dso, meta: emptyMeta() });
const publicFetch = (name: string) =>
  choice<Factory, { actors: string[] }>(name, PUBLIC_FETCH_ARGS, { controllers: (_p, a) => a.actors, body: (_ctx, self) => factoryView(self.payload) });

/** `amulet_allocationFactoryV2_allocateImpl` with `…ImplCore`. */
function allocateImpl(ctx: UpdateContext, templates: TemplateRegistry, dso: string, arg: AllocateArg) {
  const { settlement, allocation } = arg;
  const net = netAmuletCredit(allocation.authorizer, allocation.transferLegSides);
  const outputFunding = validateAmuletNextIterationFunding(ctx, allocation.nextIterationFunding);
  const funding = outputFunding - net;

  // an unfeatured payment context: locking to oneself is not featured
  const payment = paymentOf(ctx, dso, arg.extraArgs, false);
  ensureBasicAccount(ctx, 'allocation.authorizer', allocation.authorizer);
  const authorizer = allocation.authorizer.owner!;
  checkActors(ctx, arg.actors, [[authorizer]]);
  if (allocation.settlementDeadline !== null) assertWithinDeadline(ctx, 'Allocation.settlementDeadline', allocation.settlementDeadline);
  requireR(ctx, allocation.admin === dso, 'allocation.admin', showParty(allocation.admin), 'is not equal to', 'expected value', showParty(dso));
  if (allocation.nextIterationFunding === null) {
    requireR(ctx, allocation.transferLegSides.length > 0, 'transferLegSides', showList(allocation.transferLegSides, showSide), 'is equal to', 'empty list', '[]');
  }
  validateAmuletTransferLegSides(ctx, allocation.transferLegSides);
  ensureNoAccountMeta(ctx, 'allocation', 'authorizer', allocation.meta);
  assertDeadlineExceeded(ctx, 'requestedAt', arg.requestedAt);
  const expiresAt = computeAllocationExpiry(ctx, maxTTLOf(payment, dso, ctx), arg.requestedAt, allocation.settlementDeadline);

  let lockedAmulet: string | null = null;
  let changeCids: string[];
  let meta: MetadataV;
  if (funding <= 0n) {
    // nothing to lock: the inputs come back as change, to be reused when chaining
    changeCids = arg.inputHoldingCids;
    meta = emptyMeta();
  } else {
    require(ctx, 'At least one input holding must be provided for allocations that require funding', arg.inputHoldingCids.length > 0);
    const twoStep: TwoStepTransfer = {
      dso,
      sender: authorizer,
      receiver: authorizer,
      provider: authorizer,
      amount: decText(funding),
      lockContext: allocationLockContext(settlement),
      transferBefore: expiresAt,
      transferBeforeDeadline: 'allocation.expiresAt',
      allowFeaturing: false,
    };
    const prepared = prepareTwoStepTransfer(ctx, templates, twoStep, arg.requestedAt, arg.inputHoldingCids, payment);
    lockedAmulet = prepared.lockedAmulet;
    changeCids = prepared.senderChangeCids;
    meta = prepared.meta;
  }
  const allocationCid = ctx.create(AmuletIds.AmuletAllocationV2, {
    lockedAmulet,
    settlement,
    allocation,
    expiresAt,
    numIterations: '0',
    createdAt: arg.requestedAt,
  } satisfies AmuletAllocationV2Payload);
  return {
    output: { tag: 'AllocationInstructionResult_Completed', value: { allocationCid } },
    authorizerChangeCids: { [AMULET_INSTRUMENT_ID]: changeCids },
    meta,
  };
}

/** `fetchAndValidateAllocations`: each allocation is of this settlement and admin; together they authorize exactly both sides of every leg. */
function fetchAndValidateAllocations(ctx: UpdateContext, templates: TemplateRegistry, dso: string, arg: SettleBatchArg): Array<[FinalizedAllocationV, AllocationViewV2]> {
  requireUnique(
    ctx,
    'SettleBatch.transferLegsIds',
    arg.transferLegs.map((l) => showText(l.transferLegId)),
  );
  for (const l of arg.transferLegs) requireR(ctx, dec(l.amount) > 0n, 'transferLeg.amount', showDecimal(dec(l.amount)), 'is not greater than', 'zero', '0.0');
  const out: Array<[FinalizedAllocationV, AllocationViewV2]> = [];
  for (const fin of arg.allocations) {
    const { view } = fetchInterfaceView<AllocationViewV2>(ctx, templates, fin.allocationCid, TS.AllocationV2);
    const a = view.allocation;
    requireR(ctx, JSON.stringify(view.settlement) === JSON.stringify(arg.settlement), 'allocation.settlement', JSON.stringify(view.settlement), 'is not equal to', 'expected value', JSON.stringify(arg.settlement));
    requireR(ctx, a.admin === dso, 'allocation.admin', showParty(a.admin), 'is not equal to', 'expected value', showParty(dso));
    // validateNextIterationArgs
    if (a.nextIterationFunding === null) {
      requireR(ctx, fin.extraTransferLegSides.length === 0, 'finalizedAllocation.extraTransferLegSides', showList(fin.extraTransferLegSides, showSide), 'is not equal to', 'expected value', '[]');
      requireR(ctx, fin.nextIterationFunding === null, 'finalizedAllocation.nextIterationFunding', 'Some (…)', 'is not equal to', 'expected value', 'None');
    }
    for (const amount of Object.values(fin.nextIterationFunding ?? {})) {
      requireR(ctx, dec(amount) > 0n, 'finalizedAllocation.nextIterationFunding.amount', showDecimal(dec(amount)), 'is not greater than', 'zero', '0.0');
    }
    for (const s of fin.extraTransferLegSides) {
      requireR(ctx, dec(s.amount) > 0n, 'finalizedAllocation.extraTransferLegSides.amount', showDecimal(dec(s.amount)), 'is not greater than', 'zero', '0.0');
    }
    out.push([fin, { ...view, allocation: { ...a, transferLegSides: [...a.transferLegSides, ...fin.extraTransferLegSides] } }]);
  }
  const allocated = out.flatMap(([, v]) => v.allocation.transferLegSides.map((s) => [v.allocation.authorizer, s] as const));
  requireUnique(
    ctx,
    'transferLegIds of allocated authorizations',
    allocated.map(([auth, s]) => `(${showAccount(auth)},${showText(s.transferLegId)},${s.side})`),
  );
  const show = ([auth, s]: readonly [AccountV, TransferLegSideV2]) => `(${showAccount(auth)},${showSide(s)})`;
  const required = new Map(arg.transferLegs.flatMap((l) => [[l.sender, senderSide(l)] as const, [l.receiver, receiverSide(l)] as const]).map((x) => [authorizationKey(x[0], x[1]), show(x)]));
  const have = new Map(allocated.map((x) => [authorizationKey(x[0], x[1]), show(x)]));
  const missing = [...required].filter(([k]) => !have.has(k)).map(([, v]) => v);
  const superfluous = [...have].filter(([k]) => !required.has(k)).map(([, v]) => v);
  requireR(ctx, missing.length === 0, 'missing authorizations', `fromList [${missing.join(',')}]`, 'is not equal to', 'empty set', 'fromList []');
  requireR(ctx, superfluous.length === 0, 'superfluous authorizations', `fromList [${superfluous.join(',')}]`, 'is not equal to', 'empty set', 'fromList []');
  return out;
}

/** `settlementFactoryV2_settleBatchDefaultImpl` (Amulet passes the extra args on unfiltered). */
function settleBatch(ctx: UpdateContext, templates: TemplateRegistry, dso: string, arg: SettleBatchArg) {
  checkActors(ctx, arg.actors, [arg.settlement.executors]);
  // DEVIATION (LIMITATIONS 3): the interface's MUST; Splice's default implementation does not check it
  if (arg.transferLegs.length === 0) failGeneral(ctx, 'SettlementFactory_SettleBatch: there must be at least one transfer leg');
  const allocations = fetchAndValidateAllocations(ctx, templates, dso, arg);
  const allocationSettleResults = allocations.map(([fin, view]) =>
    ctx.exercise(
      fin.allocationCid,
      'Allocation_Settle',
      {
        actors: [view.allocation.admin, ...view.settlement.executors],
        extraTransferLegSides: fin.extraTransferLegSides,
        nextIterationFunding: fin.nextIterationFunding,
        extraArgs: arg.extraArgs,
      },
      { interfaceId: TS.AllocationV2.id },
    ),
  );
  return { allocationSettleResults, meta: emptyMeta() };
}

export function externalPartyAmuletRulesV2(templates: TemplateRegistry, signatories: (p: Factory) => string[]) {
  const allocationFactoryV2: InterfaceImpl<Factory> = {
    interface: TS.AllocationFactoryV2,
    view: factoryView,
    choices: {
      AllocationFactory_Allocate: choice<Factory, AllocateArg>('AllocationFactory_Allocate', ALLOCATE_ARGS, {
        controllers: (_p, a) => a.actors,
        // allocationFactoryV2_publicAsset_allocateExtraObserversDefaultImpl
        observers: (_p, a) => [...a.settlement.executors, ...accountParties(a.allocation.admin, a.allocation.authorizer)],
        body: (ctx, self, a) => allocateImpl(ctx, templates, self.payload.dso, a),
      }),
      AllocationFactory_PublicFetch: publicFetch('AllocationFactory_PublicFetch'),
      Archive: archiveChoice(signatories),
    },
  };
  const settlementFactoryV2: InterfaceImpl<Factory> = {
    interface: TS.SettlementFactoryV2,
    view: factoryView,
    choices: {
      SettlementFactory_SettleBatch: choice<Factory, SettleBatchArg>('SettlementFactory_SettleBatch', SETTLE_BATCH_ARGS, {
        controllers: (_p, a) => a.actors,
        // settlementFactoryV2_publicAsset_settleBatchExtraObserversDefaultImpl: every leg's account parties
        observers: (p, a) => a.transferLegs.flatMap((l) => [...accountParties(p.dso, l.sender), ...accountParties(p.dso, l.receiver)]),
        body: (ctx, self, a) => settleBatch(ctx, templates, self.payload.dso, a),
      }),
      SettlementFactory_PublicFetch: publicFetch('SettlementFactory_PublicFetch'),
      Archive: archiveChoice(signatories),
    },
  };
  /**
   * `ExternalPartyAmuletRules_ExpireAmuletAllocationsV2`: the DSO cancels expired V2 allocations
   * (each `Allocation_Cancel` with actors `[dso]`); no results, to save storage in Scan.
   */
  const expireAllocationsV2 = choice<Factory, { cancellations: Array<{ _1: string; _2: ActorsArg }>; observers: string[] }>(
    'ExternalPartyAmuletRules_ExpireAmuletAllocationsV2',
    rec(['cancellations', list(tuple2('cid', ACTORS_ARGS))], ['observers', list('party')]),
    {
      controllers: (p) => [p.dso],
      observers: (_p, a) => a.observers,
      body: (ctx, self, a) => {
        const dso = self.payload.dso;
        for (const { _1: cid, _2: cancel } of a.cancellations) {
          requireR(ctx, cancel.actors.length === 1 && cancel.actors[0] === dso, 'choiceArg.actors', showParties(cancel.actors), 'is not equal to', 'expected value', showParties([dso]));
          const { view } = fetchInterfaceView<AllocationViewV2>(ctx, templates, cid, TS.AllocationV2);
          if (view.allocation.admin !== dso) {
            failGeneral(ctx, `Contract group identifier mismatch: expected ForDso {dso = ${showParty(dso)}}, got ForDso {dso = ${showParty(view.allocation.admin)}} for ${cid}`);
          }
          if (view.expiresAt === null) failGeneral(ctx, 'Cannot expire allocation without an expiry time');
          assertDeadlineExceeded(ctx, 'allocation.expiresAt', view.expiresAt);
          ctx.exercise(cid, 'Allocation_Cancel', cancel, { interfaceId: TS.AllocationV2.id });
        }
        return {};
      },
    },
  );
  return { allocationFactoryV2, settlementFactoryV2, expireAllocationsV2 };
}

