/**
 * What TestTokenV2 uses from `Splice.TokenStandard.Utils` (splice-token-standard-utils 2.0.0,
 * Splice `token-standard/splice-token-standard-utils/daml/`): requirement checks with the reference's failure
 * texts, the actors pattern, ledger-time deadline assertions (DA.Assert), account helpers, the
 * metadata keys of CIP-56/CIP-112, and the V1 <-> V2 conversions the V1 adapters rely on.
 */
import type { UpdateContext } from '../../participant/templates.js';
import { parseTime, type ExtraArgs, type Metadata } from '../../../canton/lf-value.js';
import {
  compareText,
  dec,
  dedupSortParties,
  lfEqual,
  showList,
  showParty,
  showTime,
  type Account,
  type AllocationSpecificationV1,
  type AllocationSpecificationV2,
  type AvailableActions,
  type HoldingView,
  type InstrumentId,
  type SettlementInfoV1,
  type SettlementInfoV2,
  type TransferLegSide,
  type TransferLegV1,
  type TransferLegV2,
  type TransferV1,
  type TransferV2,
} from './values.js';

// ---- failures -----------------------------------------------------------------------------------

/** `fail`/`abort`/`error` in Daml raise GeneralError; `assertMsg`/`require` raise AssertionFailed. */
export const GENERAL_ERROR = 'UNHANDLED_EXCEPTION/DA.Exception.GeneralError:GeneralError';
export const ASSERTION_FAILED = 'UNHANDLED_EXCEPTION/DA.Exception.AssertionFailed:AssertionFailed';

export function fail(ctx: UpdateContext, message: string): never {
  return ctx.fail(message, { errorId: GENERAL_ERROR, category: 9 });
}

/** `require msg cond`: "The requirement '<msg>' was not met." */
export function require(ctx: UpdateContext, msg: string, cond: boolean): void {
  if (!cond) ctx.fail(`The requirement '${msg}' was not met.`, { errorId: ASSERTION_FAILED, category: 9 });
}

/** `assertMsg`. */
export function assertMsg(ctx: UpdateContext, msg: string, cond: boolean): void {
  if (!cond) ctx.fail(msg, { errorId: ASSERTION_FAILED, category: 9 });
}

/**
 * `require' (d1, v1) (what, pred) (d2, v2)`: fails with
 * "'d1' <what> 'd2'.\nd1: <show v1>\nd2: <show v2>\n" (T.unlines).
 */
export function requireR(ctx: UpdateContext, ok: boolean, d1: string, shown1: string, what: string, d2: string, shown2: string): void {
  if (!ok) fail(ctx, `'${d1}' ${what} '${d2}'.\n${d1}: ${shown1}\n${d2}: ${shown2}\n`);
}

/** `requireMatchExpected (desc, actual) expected`. */
export function requireMatchExpected<T>(ctx: UpdateContext, desc: string, actual: T, expected: T, show: (v: T) => string): void {
  requireR(ctx, lfEqual(actual, expected), desc, show(actual), 'is not equal to', 'expected value', show(expected));
}

/** `checkActors actors allowed`: the actors (as a set) equal one of the allowed groups. */
export function checkActors(ctx: UpdateContext, actors: readonly string[], allowed: readonly string[][]): void {
  const set = dedupSortParties(actors).join('\u0000');
  const ok = allowed.some((g) => dedupSortParties(g).join('\u0000') === set);
  const showGroup = (g: readonly string[]) => showList(g, showParty);
  requireR(ctx, ok, 'actors', showGroup(actors), 'does not have the same elements as one of', 'allowed actors', showList(allowed, showGroup));
}

/** `DA.Assert.assertWithinDeadline label t`: ledger time must be strictly before `t`. */
export function assertWithinDeadline(ctx: UpdateContext, label: string, deadline: string): void {
  if (!(ctx.nowMicros < parseTime(deadline))) {
    ctx.fail(`Ledger time is at or past deadline '${label}' at ${showTime(deadline)}`, { errorId: 'stdlib.daml.com/deadline-exceeded', category: 9, metadata: { deadline: showTime(deadline) } });
  }
}

/** `DA.Assert.assertDeadlineExceeded label t`: ledger time must be at or after `t`. */
export function assertDeadlineExceeded(ctx: UpdateContext, label: string, deadline: string): void {
  if (!(ctx.nowMicros >= parseTime(deadline))) {
    ctx.fail(`Ledger time is before deadline '${label}' at ${showTime(deadline)}`, { errorId: 'stdlib.daml.com/deadline-not-exceeded', category: 9, metadata: { deadline: showTime(deadline) } });
  }
}

// ---- accounts -----------------------------------------------------------------------------------

/** The V1 owner stub for special accounts (owner = None). */
export const SPECIAL_ACCOUNT_OWNER_STUB_V1 = 'cip-112_no-owner::1220000000000000000000000000000000000000000000000000000000000000abcd';
const NS = 'cip-112/';
export const mintAccount = (): Account => ({ owner: null, provider: null, id: `${NS}mint` });
export const burnAccount = (): Account => ({ owner: null, provider: null, id: `${NS}burn` });
export const basicAccount = (owner: string): Account => ({ owner, provider: null, id: '' });
export const isBasicAccount = (a: Account): boolean => a.owner !== null && a.provider === null && a.id === '';
export const accountPrincipal = (admin: string, a: Account): string => a.owner ?? admin;
/** `accountParties admin acc`: the principal, and the provider when set and different. */
export function accountParties(admin: string, a: Account): string[] {
  const principal = accountPrincipal(admin, a);
  return a.provider !== null && a.provider !== principal ? [principal, a.provider] : [principal];
}
export const accountOwnerForV1 = (a: Account): string => a.owner ?? SPECIAL_ACCOUNT_OWNER_STUB_V1;

// ---- metadata -----------------------------------------------------------------------------------

export const REASON_KEY = 'splice.lfdecentralizedtrust.org/reason';
export const TX_KIND_KEY = 'splice.lfdecentralizedtrust.org/tx-kind';
export const SENDER_KEY = 'splice.lfdecentralizedtrust.org/sender';
export const RECEIVER_KEY = 'splice.lfdecentralizedtrust.org/receiver';
export const EXPIRES_AT_KEY = `${NS}expiresAt`;
export const EXTRA_EXECUTORS_KEY = `${NS}extra-executors`;
const providerKey = (field: string) => `${NS}${field}.provider`;
const accountIdKey = (field: string) => `${NS}${field}.id`;

function sortedMeta(values: Record<string, string>): Metadata {
  const out: Record<string, string> = {};
  for (const k of Object.keys(values).sort(compareText)) out[k] = values[k]!;
  return { values: out };
}

export function reasonToMeta(reason: string, meta: Metadata = { values: {} }): Metadata {
  return reason === '' ? meta : sortedMeta({ ...meta.values, [REASON_KEY]: reason });
}

/** Whether `meta` has no `cip-112/<field>.provider` / `.id` keys. */
export const validateNoAccountMeta = (field: string, meta: Metadata): boolean =>
  !(providerKey(field) in meta.values) && !(accountIdKey(field) in meta.values);

export function accountToMeta(field: string, a: Account, meta: Metadata): Metadata {
  const values = { ...meta.values };
  if (a.provider !== null) values[providerKey(field)] = a.provider;
  if (a.id !== '') values[accountIdKey(field)] = a.id;
  return sortedMeta(values);
}

export function accountFromMeta(owner: string, field: string, meta: Metadata): Account {
  return {
    owner: owner === SPECIAL_ACCOUNT_OWNER_STUB_V1 ? null : owner,
    provider: meta.values[providerKey(field)] ?? null,
    id: meta.values[accountIdKey(field)] ?? '',
  };
}

export function dropAccountMeta(field: string, meta: Metadata): Metadata {
  const values = { ...meta.values };
  delete values[providerKey(field)];
  delete values[accountIdKey(field)];
  return { values };
}

/** `expiresAtToMeta`: microseconds since the epoch as decimal text. */
export function expiresAtToMeta(expiresAt: string | null, meta: Metadata): Metadata {
  return expiresAt === null ? meta : sortedMeta({ ...meta.values, [EXPIRES_AT_KEY]: parseTime(expiresAt).toString() });
}

export function partiesFromMeta(field: string, meta: Metadata): string[] {
  const txt = meta.values[field];
  return txt === undefined ? [] : txt.split(',');
}

// ---- holdings and transfers: V2 -> V1 and V1 -> V2 ------------------------------------------------

export function downcastHolding(h: HoldingView): unknown {
  return {
    owner: accountOwnerForV1(h.account),
    instrumentId: h.instrumentId,
    amount: h.amount,
    lock: h.lock,
    meta: accountToMeta('account', h.account, h.meta),
  };
}

export function downcastTransfer(t: TransferV2): TransferV1 {
  return {
    sender: accountOwnerForV1(t.sender),
    receiver: accountOwnerForV1(t.receiver),
    amount: t.amount,
    instrumentId: t.instrumentId,
    requestedAt: t.requestedAt,
    executeBefore: t.executeBefore,
    inputHoldingCids: t.inputHoldingCids,
    meta: accountToMeta('sender', t.sender, accountToMeta('receiver', t.receiver, t.meta)),
  };
}

export function upcastTransfer(t: TransferV1): TransferV2 {
  return {
    sender: accountFromMeta(t.sender, 'sender', t.meta),
    receiver: accountFromMeta(t.receiver, 'receiver', t.meta),
    amount: t.amount,
    instrumentId: t.instrumentId,
    requestedAt: t.requestedAt,
    executeBefore: t.executeBefore,
    inputHoldingCids: t.inputHoldingCids,
    meta: dropAccountMeta('sender', dropAccountMeta('receiver', t.meta)),
  };
}

/** `isValidTransferV2`. */
export function isValidTransferV2(t: TransferV2): boolean {
  return (
    dec(t.amount) > 0n &&
    parseTime(t.requestedAt) <= parseTime(t.executeBefore) &&
    validateNoAccountMeta('sender', t.meta) &&
    validateNoAccountMeta('receiver', t.meta)
  );
}

/**
 * `availableToPendingActions`: party → action names joined with " or " (sorted, deduplicated),
 * a name prefixed `joint-` when its group has several parties.
 */
export function availableToPendingActions(actionName: (tag: string, id: string) => string, available: AvailableActions): Array<[string, string]> {
  const byParty = new Map<string, string[]>();
  for (const [a, groups] of available) {
    for (const g0 of groups) {
      const g = dedupSortParties(g0);
      const name = `${g.length > 1 ? 'joint-' : ''}${actionName(a.tag, String(a.value.id ?? ''))}`;
      for (const p of g) byParty.set(p, [...(byParty.get(p) ?? []), name]);
    }
  }
  return [...byParty.keys()].sort(compareText).map((p) => [p, dedupSortParties(byParty.get(p)!).join(' or ')]);
}

/** `transferAcceptanceTxHistoryV1ToMeta`: tx-kind transfer/mint/burn plus sender and receiver. */
export function transferAcceptanceMeta(t: TransferV2): Metadata {
  let kind: Record<string, string>;
  if (t.sender.owner !== null && t.receiver.owner !== null) {
    kind = { [TX_KIND_KEY]: 'transfer', [SENDER_KEY]: t.sender.owner, [RECEIVER_KEY]: t.receiver.owner };
  } else if (t.sender.owner === null) {
    kind = { [TX_KIND_KEY]: 'mint' };
  } else {
    kind = { [TX_KIND_KEY]: 'burn' };
  }
  // TextMap `<>` is left-biased: the tx-history keys win over the transfer's own metadata.
  return sortedMeta({ ...t.meta.values, ...kind });
}

// ---- allocations: legs, sides, conversions ----------------------------------------------------------

export const senderSide = (l: TransferLegV2): TransferLegSide => ({
  transferLegId: l.transferLegId,
  side: 'SenderSide',
  otherside: l.receiver,
  amount: l.amount,
  instrumentId: l.instrumentId,
  meta: l.meta,
});
export const receiverSide = (l: TransferLegV2): TransferLegSide => ({
  transferLegId: l.transferLegId,
  side: 'ReceiverSide',
  otherside: l.sender,
  amount: l.amount,
  instrumentId: l.instrumentId,
  meta: l.meta,
});
export function transferLegFromSide(authorizer: Account, s: TransferLegSide): TransferLegV2 {
  const [sender, receiver] = s.side === 'SenderSide' ? [authorizer, s.otherside] : [s.otherside, authorizer];
  return { transferLegId: s.transferLegId, sender, receiver, amount: s.amount, instrumentId: s.instrumentId, meta: s.meta };
}

const sameAcc = (a: Account, b: Account) => a.owner === b.owner && a.provider === b.provider && a.id === b.id;

/**
 * `netAllocationCreditAmounts`: per instrument id, +amount for receiver sides and −amount for
 * sender sides; the mint account's sends and the burn account's receipts count as 0.
 */
export function netAllocationCredit(authorizer: Account, sides: readonly TransferLegSide[]): Map<string, bigint> {
  const isMint = sameAcc(authorizer, mintAccount());
  const isBurn = sameAcc(authorizer, burnAccount());
  const out = new Map<string, bigint>();
  for (const s of sides) {
    const amt = s.side === 'SenderSide' ? (isMint ? 0n : -dec(s.amount)) : isBurn ? 0n : dec(s.amount);
    out.set(s.instrumentId, (out.get(s.instrumentId) ?? 0n) + amt);
  }
  return out;
}

/** `isValidAllocationSpecificationV2 (const True)`. */
export function isValidAllocationSpecificationV2(a: AllocationSpecificationV2): boolean {
  const pairs = a.transferLegSides.map((l) => `${l.transferLegId}\u0000${l.side}`);
  return (
    (a.transferLegSides.length > 0 || a.nextIterationFunding !== null) &&
    new Set(pairs).size === pairs.length &&
    a.transferLegSides.every((l) => dec(l.amount) > 0n && validateNoAccountMeta('sender', l.meta) && validateNoAccountMeta('receiver', l.meta)) &&
    Object.values(a.nextIterationFunding ?? {}).every((amt) => dec(amt) >= 0n) &&
    validateNoAccountMeta('authorizer', a.meta)
  );
}

/** `validAllocateBefore requestedAt allocateBefore deadline`. */
export function validAllocateBefore(requestedAt: string, allocateBefore: string | null, deadline: string | null): boolean {
  if (allocateBefore === null) return true;
  return parseTime(requestedAt) < parseTime(allocateBefore) && (deadline === null || parseTime(allocateBefore) <= parseTime(deadline));
}

export const MAX_TIME = '9999-12-31T23:59:59.999999Z';

/** `downcast_v2_v1_SettlementInfo requestedAt allocateBefore deadline`. Undefined when there is no executor. */
export function downcastSettlementInfo(
  requestedAt: string,
  allocateBefore: string | null,
  deadline: string | null,
  s: SettlementInfoV2,
): SettlementInfoV1 | undefined {
  const [executor, ...extra] = s.executors;
  if (executor === undefined) return undefined;
  const settleBefore = deadline ?? MAX_TIME;
  const meta = extra.length === 0 ? s.meta : sortedMeta({ ...s.meta.values, [EXTRA_EXECUTORS_KEY]: extra.join(',') });
  return {
    executor,
    settlementRef: { id: s.id, cid: s.cid },
    requestedAt,
    allocateBefore: allocateBefore ?? settleBefore,
    settleBefore,
    meta,
  };
}

export function upcastSettlementInfo(s: SettlementInfoV1): SettlementInfoV2 {
  const meta = { ...s.meta.values };
  delete meta[EXTRA_EXECUTORS_KEY];
  return {
    executors: [s.executor, ...partiesFromMeta(EXTRA_EXECUTORS_KEY, s.meta)],
    id: s.settlementRef.id,
    cid: s.settlementRef.cid,
    meta: { values: meta },
  };
}

export function downcastTransferLeg(admin: string, l: TransferLegV2): TransferLegV1 {
  return {
    sender: accountOwnerForV1(l.sender),
    receiver: accountOwnerForV1(l.receiver),
    amount: l.amount,
    instrumentId: { admin, id: l.instrumentId },
    meta: accountToMeta('sender', l.sender, accountToMeta('receiver', l.receiver, l.meta)),
  };
}

export function upcastTransferLeg(transferLegId: string, l: TransferLegV1): TransferLegV2 {
  return {
    transferLegId,
    sender: accountFromMeta(l.sender, 'sender', l.meta),
    receiver: accountFromMeta(l.receiver, 'receiver', l.meta),
    amount: l.amount,
    instrumentId: l.instrumentId.id,
    meta: dropAccountMeta('sender', dropAccountMeta('receiver', l.meta)),
  };
}

export function upcastAllocationSpecification(a: AllocationSpecificationV1): AllocationSpecificationV2 {
  return {
    admin: a.transferLeg.instrumentId.admin,
    authorizer: accountFromMeta(a.transferLeg.sender, 'sender', a.transferLeg.meta),
    transferLegSides: [senderSide(upcastTransferLeg(a.transferLegId, a.transferLeg))],
    settlementDeadline: a.settlement.settleBefore,
    nextIterationFunding: null,
    committed: false,
    meta: { values: {} },
  };
}

/** `extractTransferLegForV1`: the single sender-side leg of a V1-shaped allocation. */
export function extractTransferLegForV1(a: AllocationSpecificationV2): TransferLegV2 | undefined {
  if (a.nextIterationFunding !== null || a.committed) return undefined;
  const [only, ...rest] = a.transferLegSides;
  if (only === undefined || rest.length > 0 || only.side !== 'SenderSide') return undefined;
  return transferLegFromSide(a.authorizer, only);
}

/** `allocationSettlementTxHistoryV1ToMeta`. */
export function allocationSettlementMeta(meta: Metadata): Metadata {
  return sortedMeta({ ...meta.values, [TX_KIND_KEY]: 'settle-V2-allocation', [REASON_KEY]: 'settle V2 allocation' });
}

export function instrumentOf(admin: string, id: string): InstrumentId {
  return { admin, id };
}

/** Replaces (or adds) one choice-context value, keeping the others. */
export function withContextValue(extraArgs: ExtraArgs, key: string, value: { tag: string; value: unknown }): ExtraArgs {
  const values = { ...extraArgs.context.values, [key]: value };
  const sorted: typeof values = {};
  for (const k of Object.keys(values).sort(compareText)) sorted[k] = values[k]!;
  return { context: { values: sorted }, meta: extraArgs.meta };
}
