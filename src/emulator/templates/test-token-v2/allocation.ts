/**
 * `Splice.Testing.Tokens.TestTokenV2.Allocation` (canton-network/splice
 * `token-standard/examples/splice-test-token-v2/.../Allocation.daml`): the V2 allocation instruction and allocation templates,
 * their V1 compatibility wrappers, and the allocate / settle / cancel / withdraw bodies.
 *
 * Basic path: `AllocationFactory_Allocate` by the authorizer's owner locks the required funding
 * (the net outflow of its leg sides plus next-iteration funding) in Tokens locked to the admin and
 * the account until the settlement deadline, and creates the allocation at once (Completed).
 * `Allocation_Settle` (admin + executors) archives the locks and pays out the net result to the
 * authorizer; cancel (executors) and withdraw (the authorizer) unlock.
 */
import { archiveChoice, type ChoiceDef, type TemplateDef, type UpdateContext } from '../../participant/templates.js';
import { parseTime, type ExtraArgs } from '../../../canton/lf-value.js';
import { TS } from '../token-standard.js';
import {
  allocationInstructionStateMachine,
  allocationStateMachine,
  applyStateMachineTransitions,
  extractAccountConfigMap,
  mkAvailableActions,
  tryUseAccountAuthority,
  type AccountConfigMap,
} from './account-config.js';
import { eventLogFromContext, logAllocationSettlement, logReason } from './events.js';
import { createToken, fetchAndArchiveLockedToken, fetchAndArchiveUnlockedToken, type FetchAndArchive, type TokenPayload } from './holding.js';
import { registerView, TestTokenV2Ids } from './ids.js';
import type { CallSource } from './transfer.js';
import {
  accountParties,
  accountPrincipal,
  allocationSettlementMeta,
  assertWithinDeadline,
  availableToPendingActions,
  downcastSettlementInfo,
  downcastTransferLeg,
  expiresAtToMeta,
  extractTransferLegForV1,
  fail,
  isValidAllocationSpecificationV2,
  netAllocationCredit,
  receiverSide,
  requireMatchExpected,
  requireR,
  transferLegFromSide,
  validAllocateBefore,
} from './utils.js';
import {
  AA,
  AIA,
  action,
  compareText,
  dec,
  decText,
  dedupSortParties,
  pActionAuthorizers,
  pAllocationSpecificationV2,
  pArg,
  pAvailableActions,
  pCid,
  pExtraArgs,
  pInt,
  pList,
  pParty,
  pPayload,
  pSettlementInfoV2,
  pTextMap,
  pTime,
  pTransferLegSide,
  pDecimal,
  sameAccount,
  showAccount,
  showDecimal,
  showInstrumentId,
  showList,
  type Action,
  type ActionAuthorizers,
  type AllocationSpecificationV2,
  type AvailableActions,
  type SettlementInfoV2,
  type TransferLegSide,
} from './values.js';
import { Tt2Types } from './types.js';

type CidMap = Record<string, string[]>;

export interface TokenAllocationInstructionV2Payload {
  originalInstructionCid: string | null;
  actionAuthorizers: ActionAuthorizers;
  availableActions: AvailableActions;
  inputHoldingCids: CidMap;
  settlement: SettlementInfoV2;
  allocation: AllocationSpecificationV2;
  admin: string;
  requestedAt: string;
  allocateBefore: string | null;
}

export interface TokenAllocationV2Payload {
  originalAllocationCid: string | null;
  actionAuthorizers: ActionAuthorizers;
  availableActions: AvailableActions;
  lockedTokens: CidMap;
  settlement: SettlementInfoV2;
  allocation: AllocationSpecificationV2;
  requestedAt: string;
  allocateBefore: string | null;
  numIterations: string;
}

export type AllocationKind = 'V1' | 'V2';

const emptyMeta = () => ({ values: {} as Record<string, string> });
const concatValues = (m: CidMap): string[] => Object.keys(m).sort(compareText).flatMap((k) => m[k]!);

function toCidMap(entries: Array<[string, string]>): CidMap {
  const out: CidMap = {};
  for (const [k, cid] of entries) out[k] = [...(out[k] ?? []), cid];
  const sorted: CidMap = {};
  for (const k of Object.keys(out).sort(compareText)) sorted[k] = out[k]!;
  return sorted;
}

// ---- results (LF JSON) ----------------------------------------------------------------------------

export interface AllocationInstructionResultV2 {
  output: { tag: string; value: Record<string, unknown> };
  authorizerChangeCids: CidMap;
  meta: { values: Record<string, string> };
}
export interface AllocationResultV2 {
  output: { tag: string; value: Record<string, unknown> };
  authorizerHoldingCids: CidMap;
  meta: { values: Record<string, string> };
}

// ---- views ----------------------------------------------------------------------------------------

export function instructionViewV2(p: TokenAllocationInstructionV2Payload) {
  return {
    originalInstructionCid: p.originalInstructionCid,
    settlement: p.settlement,
    allocation: p.allocation,
    requestedAt: p.requestedAt,
    inputHoldingCids: concatValues(p.inputHoldingCids),
    expiresAt: p.allocation.settlementDeadline,
    availableActions: p.availableActions,
    meta: emptyMeta(),
  };
}

/** `allocationV2_availableActionsDefault`: cancel by the executors, settle by admin + executors, withdraw by the principal. */
function defaultAllocationActions(executors: string[], a: AllocationSpecificationV2): AvailableActions {
  const out: AvailableActions = [
    [action('AA_Settle'), [dedupSortParties([a.admin, ...executors])]],
    [action('AA_Cancel'), [dedupSortParties(executors)]],
  ];
  if (!a.committed || a.settlementDeadline !== null) out.push([action('AA_Withdraw'), [[accountPrincipal(a.admin, a.authorizer)]]]);
  return out;
}

export function allocationViewV2(p: TokenAllocationV2Payload) {
  return {
    originalAllocationCid: p.originalAllocationCid,
    settlement: p.settlement,
    allocation: p.allocation,
    holdingCids: concatValues(p.lockedTokens),
    createdAt: p.requestedAt,
    numIterations: p.numIterations,
    // the reference token has no admin expiry of allocations
    expiresAt: null,
    availableActions: defaultAllocationActions(p.settlement.executors, p.allocation),
    meta: emptyMeta(),
  };
}

const actionNameAIA = (tag: string, id: string) => ({ AIA_Accept: 'accept', AIA_Withdraw: 'withdraw' })[tag as 'AIA_Accept'] ?? id;

/** `tryDowncast_v2_v1_AllocationInstructionView`; undefined when the instruction has no V1 shape. */
export function instructionViewV1(instr: TokenAllocationInstructionV2Payload) {
  const v2 = instructionViewV2(instr);
  const leg = extractTransferLegForV1(instr.allocation);
  const settlement = downcastSettlementInfo(v2.requestedAt, instr.allocateBefore, instr.allocation.settlementDeadline, instr.settlement);
  if (!leg || !settlement) return undefined;
  return {
    originalInstructionCid: v2.originalInstructionCid,
    allocation: { settlement, transferLegId: leg.transferLegId, transferLeg: downcastTransferLeg(instr.allocation.admin, leg) },
    pendingActions: availableToPendingActions(actionNameAIA, v2.availableActions),
    requestedAt: v2.requestedAt,
    inputHoldingCids: v2.inputHoldingCids,
    meta: expiresAtToMeta(v2.expiresAt, v2.meta),
  };
}

/** `tryDowncast_v2_v1_AllocationView`; undefined when the allocation has no V1 shape. */
export function allocationViewV1(alloc: TokenAllocationV2Payload) {
  const v2 = allocationViewV2(alloc);
  const leg = extractTransferLegForV1(alloc.allocation);
  const settlement = downcastSettlementInfo(v2.createdAt, alloc.allocateBefore, alloc.allocation.settlementDeadline, alloc.settlement);
  if (!leg || !settlement) return undefined;
  return {
    allocation: { settlement, transferLegId: leg.transferLegId, transferLeg: downcastTransferLeg(alloc.allocation.admin, leg) },
    holdingCids: v2.holdingCids,
    meta: expiresAtToMeta(v2.expiresAt, v2.meta),
  };
}

// ---- funds ----------------------------------------------------------------------------------------

/** `debitInputTokens`: archives the tokens (per instrument id) and returns the amounts debited. */
function debitInputTokens(ctx: UpdateContext, fetchAndArchive: FetchAndArchive, admin: string, authorizer: AllocationSpecificationV2['authorizer'], cids: CidMap): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const id of Object.keys(cids).sort(compareText)) {
    let sum = 0n;
    for (const cid of cids[id]!) sum += dec(fetchAndArchive(ctx, { admin, id }, authorizer, cid).holding.amount);
    out.set(id, (out.get(id) ?? 0n) + sum);
  }
  return out;
}

/**
 * `lockAllocationFunds`: per instrument, locks `lockAmount` (to the admin and the account until the
 * settlement deadline) and returns `input − lock` to the authorizer; fails when the input is short.
 */
function lockAllocationFunds(
  ctx: UpdateContext,
  settlement: SettlementInfoV2,
  deadline: string | null,
  admin: string,
  authorizer: AllocationSpecificationV2['authorizer'],
  inputAmounts: Map<string, bigint>,
  lockAmounts: Map<string, bigint>,
): { locked: CidMap; change: CidMap } {
  if (deadline !== null) assertWithinDeadline(ctx, 'allocation.settlementDeadline', deadline);
  const ids = [...new Set([...inputAmounts.keys(), ...lockAmounts.keys()])].sort(compareText);
  const locked: Array<[string, string]> = [];
  const change: Array<[string, string]> = [];
  for (const id of ids) {
    const input = inputAmounts.get(id) ?? 0n;
    const lock = lockAmounts.get(id) ?? 0n;
    const rest = input - lock;
    if (rest < 0n) {
      fail(
        ctx,
        [
          `Not enough funds for allocation of ${showAccount(authorizer)}`,
          `Instrument: ${showInstrumentId({ admin, id })}`,
          `Missing amount: ${showDecimal(-rest)}`,
          `Input amount from locked tokens and net transfers: ${showDecimal(input)}`,
          `Required funding amount: ${showDecimal(lock)}`,
          '',
        ].join('\n'),
      );
    }
    if (lock > 0n) {
      locked.push([
        id,
        createToken(ctx, {
          account: authorizer,
          amount: decText(lock),
          instrumentId: { admin, id },
          lock: {
            holders: dedupSortParties([admin, ...accountParties(admin, authorizer)]),
            expiresAt: deadline,
            expiresAfter: null,
            context: `allocation for settlement of ${settlement.id}`,
          },
          meta: emptyMeta(),
        }),
      ]);
    }
    if (rest > 0n) {
      change.push([id, createToken(ctx, { account: authorizer, amount: decText(rest), instrumentId: { admin, id }, lock: null, meta: emptyMeta() })]);
    }
  }
  return { locked: toCidMap(locked), change: toCidMap(change) };
}

function createTokenAllocation(ctx: UpdateContext, kind: AllocationKind, allocationV2: TokenAllocationV2Payload): string {
  return kind === 'V2' ? ctx.create(TestTokenV2Ids.TokenAllocationV2, allocationV2) : ctx.create(TestTokenV2Ids.TokenAllocationV1, { allocationV2 });
}
function createTokenAllocationInstruction(ctx: UpdateContext, kind: AllocationKind, instrV2: TokenAllocationInstructionV2Payload): string {
  return kind === 'V2' ? ctx.create(TestTokenV2Ids.TokenAllocationInstructionV2, instrV2) : ctx.create(TestTokenV2Ids.TokenAllocationInstructionV1, { instrV2 });
}

function mkAvailableAllocationActions(ctx: UpdateContext, settlement: SettlementInfoV2, a: AllocationSpecificationV2, accountMap: AccountConfigMap): AvailableActions {
  return mkAvailableActions(ctx, allocationStateMachine(a.authorizer, settlement.executors, a.admin), a.admin, [], accountMap);
}

/** `allocateTokenAllocation`: lock the funding, create the allocation, log "lock holdings for allocation". */
function allocateTokenAllocation(
  ctx: UpdateContext,
  eventLogCid: string,
  accountMap: AccountConfigMap,
  instr: TokenAllocationInstructionV2Payload,
  kind: AllocationKind,
): AllocationInstructionResultV2 {
  const { settlement, allocation } = instr;
  const required = new Map<string, bigint>();
  for (const [id, net] of netAllocationCredit(allocation.authorizer, allocation.transferLegSides)) required.set(id, net >= 0n ? 0n : -net);
  for (const [id, amt] of Object.entries(allocation.nextIterationFunding ?? {})) required.set(id, (required.get(id) ?? 0n) + dec(amt));
  const inputs = debitInputTokens(ctx, fetchAndArchiveUnlockedToken, allocation.admin, allocation.authorizer, instr.inputHoldingCids);
  const { locked, change } = lockAllocationFunds(ctx, settlement, allocation.settlementDeadline, allocation.admin, allocation.authorizer, inputs, required);
  const allocationCid = createTokenAllocation(ctx, kind, {
    originalAllocationCid: null,
    actionAuthorizers: [],
    availableActions: mkAvailableAllocationActions(ctx, settlement, allocation, accountMap),
    lockedTokens: locked,
    settlement,
    allocation,
    requestedAt: instr.requestedAt,
    allocateBefore: instr.allocateBefore,
    numIterations: '0',
  });
  logReason(ctx, eventLogCid, allocation.admin, allocation.authorizer, concatValues(instr.inputHoldingCids), [...concatValues(locked), ...concatValues(change)], 'lock holdings for allocation');
  return { output: { tag: 'AllocationInstructionResult_Completed', value: { allocationCid } }, authorizerChangeCids: change, meta: emptyMeta() };
}

// ---- allocation instruction transitions ----------------------------------------------------------

export function applyAllocationInstructionTransitions(
  ctx: UpdateContext,
  callSource: CallSource,
  kind: AllocationKind,
  instr: TokenAllocationInstructionV2Payload,
  oSelf: string | null,
  actors: string[],
  act: Action,
  extraArgs: ExtraArgs,
): AllocationInstructionResultV2 {
  if (callSource === 'V2' && oSelf !== null) ctx.exercise(oSelf, 'Archive', {}, { interfaceId: TS.AllocationInstructionV2.id });
  const accountMap = extractAccountConfigMap(ctx, instr.admin, extraArgs, [instr.allocation.authorizer]);
  return applyStateMachineTransitions(ctx, {
    admin: instr.admin,
    authState: instr.actionAuthorizers,
    actors,
    action: act,
    sm: allocationInstructionStateMachine(instr.allocation.authorizer),
    accountMap,
    transition: (from, to) => {
      if (from === 'AIS_Init' && to === 'AIS_Withdrawn') {
        return { output: { tag: 'AllocationInstructionResult_Failed', value: {} }, authorizerChangeCids: instr.inputHoldingCids, meta: emptyMeta() };
      }
      if (from === 'AIS_Init' && to === 'AIS_Accepted') return allocateTokenAllocation(ctx, eventLogFromContext(ctx, extraArgs), accountMap, instr, kind);
      return fail(ctx, `Unsupported state transition: (${from},${to})`);
    },
    mkPending: (newAuth, newAvailable) => {
      const cid = createTokenAllocationInstruction(ctx, kind, { ...instr, originalInstructionCid: oSelf, actionAuthorizers: newAuth, availableActions: newAvailable });
      return { output: { tag: 'AllocationInstructionResult_Pending', value: { allocationInstructionCid: cid } }, authorizerChangeCids: {}, meta: emptyMeta() };
    },
    tryUseAccountAuthority: (as, a, res, newAuth, map) => {
      if (res.output.tag !== 'AllocationInstructionResult_Pending') return undefined;
      return tryUseAccountAuthority(ctx, 'allocationInstruction', res.output.value.allocationInstructionCid as string, as, a, newAuth, map, extraArgs, (view: ReturnType<typeof instructionViewV2>) => ({
        admin: view.allocation.admin,
        sm: allocationInstructionStateMachine(view.allocation.authorizer),
      })) as AllocationInstructionResultV2 | undefined;
    },
  });
}

// ---- allocation transitions -----------------------------------------------------------------------

interface SettleArg {
  actors: string[];
  extraTransferLegSides: TransferLegSide[];
  nextIterationFunding: Record<string, string> | null;
  extraArgs: ExtraArgs;
}

/** `validateNextIterationArgs`. */
export function validateNextIterationArgs(
  ctx: UpdateContext,
  name: string,
  allowed: boolean,
  extraLegs: TransferLegSide[],
  funding: Record<string, string> | null,
): void {
  if (!allowed) {
    requireMatchExpected(ctx, `${name}.extraTransferLegSides`, extraLegs, [], (v: unknown[]) => (v.length === 0 ? '[]' : JSON.stringify(v)));
    requireMatchExpected(ctx, `${name}.nextIterationFunding`, funding, null, (v: unknown) => (v === null ? 'None' : `Some ${JSON.stringify(v)}`));
  }
  for (const amt of Object.values(funding ?? {})) requireR(ctx, dec(amt) > 0n, `${name}.nextIterationFunding.amount`, showDecimal(amt), 'is not greater than', 'zero', '0.0');
  for (const leg of extraLegs) requireR(ctx, dec(leg.amount) > 0n, `${name}.extraTransferLegSides.amount`, showDecimal(leg.amount), 'is not greater than', 'zero', '0.0');
}

/** `ensureWithdrawIsAllowed`: a committed allocation can only be withdrawn after its deadline. */
export function ensureWithdrawIsAllowed(ctx: UpdateContext, a: AllocationSpecificationV2): void {
  if (!a.committed) return;
  const errorId = 'splice.lfdecentralizedtrust.org/cannot-withdraw-committed-allocation';
  if (a.settlementDeadline === null) ctx.fail('Cannot withdraw a committed allocation that has no settlement deadline.', { errorId, category: 8 });
  else if (!(ctx.nowMicros > parseTime(a.settlementDeadline))) ctx.fail('Cannot withdraw a committed allocation before its settlement deadline.', { errorId, category: 9 });
}

/** `unlockTokenAllocationV2`: re-creates every locked token without its lock. */
function unlockAllocation(ctx: UpdateContext, reason: string, alloc: TokenAllocationV2Payload, extraArgs: ExtraArgs): CidMap {
  const out: CidMap = {};
  for (const id of Object.keys(alloc.lockedTokens).sort(compareText)) {
    out[id] = alloc.lockedTokens[id]!.map((cid) => {
      const holding = (ctx.fetch(cid, TS.HoldingV2.id).payload as TokenPayload).holding;
      ctx.exercise(cid, 'Archive', {}, { interfaceId: TS.HoldingV2.id });
      requireR(ctx, sameAccount(holding.account, alloc.allocation.authorizer), 'lockedToken', showAccount(holding.account), 'is not equal to', 'allocation.authorizer', showAccount(alloc.allocation.authorizer));
      return createToken(ctx, { ...holding, lock: null });
    });
  }
  const admin = alloc.allocation.admin;
  logReason(ctx, eventLogFromContext(ctx, extraArgs), admin, alloc.allocation.authorizer, concatValues(alloc.lockedTokens), concatValues(out), reason);
  return out;
}

/** `settleTokenAllocationV2`: pays out the net amounts of the (extended) leg sides to the authorizer. */
function settleAllocation(ctx: UpdateContext, accountMap: AccountConfigMap, alloc: TokenAllocationV2Payload, self: string, arg: SettleArg): AllocationResultV2 {
  const a = alloc.allocation;
  const entries = [...accountMap.values()];
  if (entries.length === 1) {
    requireR(ctx, sameAccount(a.authorizer, entries[0]!.account), 'allocation.authorizer', showAccount(a.authorizer), 'is not equal to', 'accountMap key', showAccount(entries[0]!.account));
  } else if (entries.length > 1) {
    fail(ctx, `Expected at most one account in accountMap for allocation settlement, but got: ${showList(entries.map((e) => e.account), showAccount)}`);
  }
  validateNextIterationArgs(ctx, 'Allocation_Settle', a.nextIterationFunding !== null, arg.extraTransferLegSides, arg.nextIterationFunding);
  const debited = debitInputTokens(ctx, fetchAndArchiveLockedToken, a.admin, a.authorizer, alloc.lockedTokens);
  const legs = [...a.transferLegSides, ...arg.extraTransferLegSides];
  const netInput = new Map(debited);
  for (const [id, net] of netAllocationCredit(a.authorizer, legs)) netInput.set(id, (netInput.get(id) ?? 0n) + net);
  const funding = new Map(Object.entries(arg.nextIterationFunding ?? {}).map(([k, v]) => [k, dec(v)] as [string, bigint]));
  const { locked, change } = lockAllocationFunds(ctx, alloc.settlement, a.settlementDeadline, a.admin, a.authorizer, netInput, funding);
  let next: string | null = null;
  if (arg.nextIterationFunding !== null) {
    next = ctx.create(TestTokenV2Ids.TokenAllocationV2, {
      originalAllocationCid: alloc.originalAllocationCid ?? self,
      actionAuthorizers: [],
      availableActions: mkAvailableAllocationActions(ctx, alloc.settlement, a, accountMap),
      lockedTokens: locked,
      settlement: alloc.settlement,
      allocation: { ...a, transferLegSides: [], nextIterationFunding: arg.nextIterationFunding },
      requestedAt: alloc.requestedAt,
      allocateBefore: alloc.allocateBefore,
      numIterations: (BigInt(alloc.numIterations) + 1n).toString(),
    } satisfies TokenAllocationV2Payload);
  }
  logAllocationSettlement(ctx, eventLogFromContext(ctx, arg.extraArgs), concatValues(alloc.lockedTokens), a.admin, a.authorizer, legs, [...concatValues(locked), ...concatValues(change)]);
  return {
    output: { tag: 'AllocationResult_Settled', value: { nextIterationAllocationCid: next } },
    authorizerHoldingCids: change,
    meta: allocationSettlementMeta(emptyMeta()),
  };
}

export function applyAllocationTransitions(
  ctx: UpdateContext,
  callSource: CallSource,
  kind: AllocationKind,
  alloc: TokenAllocationV2Payload,
  oSelf: string | null,
  actors: string[],
  act: Action,
  settle: SettleArg | null,
  extraArgs: ExtraArgs,
): AllocationResultV2 {
  if (callSource === 'V2' && oSelf !== null) ctx.exercise(oSelf, 'Archive', {}, { interfaceId: TS.AllocationV2.id });
  const a = alloc.allocation;
  const accountMap = extractAccountConfigMap(ctx, a.admin, extraArgs, [a.authorizer]);
  return applyStateMachineTransitions(ctx, {
    admin: a.admin,
    authState: alloc.actionAuthorizers,
    actors,
    action: act,
    sm: allocationStateMachine(a.authorizer, alloc.settlement.executors, a.admin),
    accountMap,
    transition: (from, to) => {
      if (from === 'AS_Init' && to === 'AS_Withdrawn') {
        ensureWithdrawIsAllowed(ctx, a);
        return { output: { tag: 'AllocationResult_Withdrawn', value: {} }, authorizerHoldingCids: unlockAllocation(ctx, 'allocation withdrawn', alloc, extraArgs), meta: emptyMeta() };
      }
      if (from === 'AS_Init' && to === 'AS_Cancelled') {
        return { output: { tag: 'AllocationResult_Cancelled', value: {} }, authorizerHoldingCids: unlockAllocation(ctx, 'allocation cancelled', alloc, extraArgs), meta: emptyMeta() };
      }
      if (from === 'AS_Init' && to === 'AS_Settled' && oSelf !== null && settle !== null) return settleAllocation(ctx, accountMap, alloc, oSelf, settle);
      return fail(ctx, `Unsupported state transition: (${from},${to})`);
    },
    mkPending: (newAuth, newAvailable) => {
      const cid = createTokenAllocation(ctx, kind, { ...alloc, originalAllocationCid: oSelf, actionAuthorizers: newAuth, availableActions: newAvailable });
      return { output: { tag: 'AllocationResult_Pending', value: { allocationCid: cid } }, authorizerHoldingCids: {}, meta: emptyMeta() };
    },
    tryUseAccountAuthority: (as, ac, res, newAuth, map) => {
      if (res.output.tag !== 'AllocationResult_Pending') return undefined;
      return tryUseAccountAuthority(ctx, 'allocation', res.output.value.allocationCid as string, as, ac, newAuth, map, extraArgs, (view: ReturnType<typeof allocationViewV2>) => ({
        admin: view.allocation.admin,
        sm: allocationStateMachine(view.allocation.authorizer, view.settlement.executors, view.allocation.admin),
      })) as AllocationResultV2 | undefined;
    },
  });
}

// ---- templates ------------------------------------------------------------------------------------

const instrSignatories = (p: TokenAllocationInstructionV2Payload) => [...(p.actionAuthorizers.find(([a]) => a.tag === 'AIA_Accept')?.[1] ?? []), p.admin];
const instrObservers = (p: TokenAllocationInstructionV2Payload) =>
  dedupSortParties([...p.availableActions.flatMap(([, gs]) => gs.flat()), ...p.actionAuthorizers.flatMap(([, ps]) => ps)]);
const allocSignatories = (p: TokenAllocationV2Payload) => [...accountParties(p.allocation.admin, p.allocation.authorizer), p.allocation.admin];
const allocObservers = (p: TokenAllocationV2Payload) => p.settlement.executors;

function ensureInstr(p: TokenAllocationInstructionV2Payload): string | undefined {
  return isValidAllocationSpecificationV2(p.allocation) && validAllocateBefore(p.requestedAt, p.allocateBefore, p.allocation.settlementDeadline)
    ? undefined
    : 'isValidAllocationSpecificationV2 allocation && validAllocateBefore requestedAt allocateBefore allocation.settlementDeadline';
}
function ensureAlloc(p: TokenAllocationV2Payload): string | undefined {
  return isValidAllocationSpecificationV2(p.allocation) && validAllocateBefore(p.requestedAt, p.allocateBefore, p.allocation.settlementDeadline)
    ? undefined
    : 'isValidAllocationSpecificationV2 allocation && validAllocateBefore requestedAt allocateBefore allocation.settlementDeadline';
}

const parseInstr = pPayload<TokenAllocationInstructionV2Payload & Record<string, unknown>>({
  originalInstructionCid: [pCid, 'opt'],
  actionAuthorizers: [pActionAuthorizers(AIA), 'req'],
  availableActions: [pAvailableActions(AIA), 'req'],
  inputHoldingCids: [pTextMap(pList(pCid)), 'req'],
  settlement: [pSettlementInfoV2, 'req'],
  allocation: [pAllocationSpecificationV2, 'req'],
  admin: [pParty, 'req'],
  requestedAt: [pTime, 'req'],
  allocateBefore: [pTime, 'opt'],
});
const parseAlloc = pPayload<TokenAllocationV2Payload & Record<string, unknown>>({
  originalAllocationCid: [pCid, 'opt'],
  actionAuthorizers: [pActionAuthorizers(AA), 'req'],
  availableActions: [pAvailableActions(AA), 'req'],
  lockedTokens: [pTextMap(pList(pCid)), 'req'],
  settlement: [pSettlementInfoV2, 'req'],
  allocation: [pAllocationSpecificationV2, 'req'],
  requestedAt: [pTime, 'req'],
  allocateBefore: [pTime, 'opt'],
  numIterations: [pInt, 'req'],
});

interface ActorsArg {
  actors: string[];
  extraArgs: ExtraArgs;
}
const parseActorsArg = pArg<ActorsArg & Record<string, unknown>>({ actors: [pList(pParty), 'req'], extraArgs: [pExtraArgs, 'req'] });
const parseSettleArg = pArg<SettleArg & Record<string, unknown>>({
  actors: [pList(pParty), 'req'],
  extraTransferLegSides: [pList(pTransferLegSide), 'req'],
  nextIterationFunding: [pTextMap(pDecimal), 'opt'],
  extraArgs: [pExtraArgs, 'req'],
});
const parseExtraArgsArg = pArg<{ extraArgs: ExtraArgs }>({ extraArgs: [pExtraArgs, 'req'] });

/** V2 AllocationInstruction choices of an instruction (`get` extracts the V2 instruction from the payload). */
function instrV2Choices<P>(get: (p: P) => TokenAllocationInstructionV2Payload, kind: AllocationKind): Record<string, ChoiceDef<P>> {
  const mk = (name: string, tag: string): ChoiceDef<P, ActorsArg> => ({
    name,
    consuming: false,
    controllers: (_p, arg) => arg.actors,
    observers: (p) => instrObservers(get(p)),
    parseArgument: parseActorsArg,
    body: (ctx, self, arg) => applyAllocationInstructionTransitions(ctx, 'V2', kind, get(self.payload), self.contractId, arg.actors, action(tag), arg.extraArgs),
  });
  return { AllocationInstruction_Accept: mk('AllocationInstruction_Accept', 'AIA_Accept'), AllocationInstruction_Withdraw: mk('AllocationInstruction_Withdraw', 'AIA_Withdraw') };
}

function allocV2Choices<P>(get: (p: P) => TokenAllocationV2Payload, kind: AllocationKind): Record<string, ChoiceDef<P>> {
  const mk = (name: string, tag: string): ChoiceDef<P, ActorsArg> => ({
    name,
    consuming: false,
    controllers: (_p, arg) => arg.actors,
    observers: (p) => allocObservers(get(p)),
    parseArgument: parseActorsArg,
    body: (ctx, self, arg) => applyAllocationTransitions(ctx, 'V2', kind, get(self.payload), self.contractId, arg.actors, action(tag), null, arg.extraArgs),
  });
  const settle: ChoiceDef<P, SettleArg> = {
    name: 'Allocation_Settle',
    consuming: false,
    controllers: (_p, arg) => arg.actors,
    observers: (p) => allocObservers(get(p)),
    parseArgument: parseSettleArg,
    body: (ctx, self, arg) => applyAllocationTransitions(ctx, 'V2', kind, get(self.payload), self.contractId, arg.actors, action('AA_Settle'), arg, arg.extraArgs),
  };
  return { Allocation_Settle: settle, Allocation_Cancel: mk('Allocation_Cancel', 'AA_Cancel'), Allocation_Withdraw: mk('Allocation_Withdraw', 'AA_Withdraw') };
}

export const tokenAllocationInstructionV2Template: TemplateDef<TokenAllocationInstructionV2Payload> = {
  id: TestTokenV2Ids.TokenAllocationInstructionV2,
  kind: 'native',
  signatories: instrSignatories,
  observers: instrObservers,
  ensure: ensureInstr,
  parsePayload: parseInstr,
  payloadType: Tt2Types.TokenAllocationInstructionV2,
  choices: {},
  implements: [
    {
      interface: TS.AllocationInstructionV2,
      view: instructionViewV2,
      choices: { ...instrV2Choices<TokenAllocationInstructionV2Payload>((p) => p, 'V2'), Archive: archiveChoice(instrSignatories) },
    },
  ],
};

export const tokenAllocationV2Template: TemplateDef<TokenAllocationV2Payload> = {
  id: TestTokenV2Ids.TokenAllocationV2,
  kind: 'native',
  signatories: allocSignatories,
  observers: allocObservers,
  ensure: ensureAlloc,
  parsePayload: parseAlloc,
  payloadType: Tt2Types.TokenAllocationV2,
  choices: {},
  implements: [
    {
      interface: TS.AllocationV2,
      view: allocationViewV2,
      choices: { ...allocV2Choices<TokenAllocationV2Payload>((p) => p, 'V2'), Archive: archiveChoice(allocSignatories) },
    },
  ],
};

// ---- V1 wrappers ----------------------------------------------------------------------------------

export interface TokenAllocationInstructionV1Payload {
  instrV2: TokenAllocationInstructionV2Payload;
}
export interface TokenAllocationV1Payload {
  allocationV2: TokenAllocationV2Payload;
}

const v1InstrSignatories = (p: TokenAllocationInstructionV1Payload) => instrSignatories(p.instrV2);

export const tokenAllocationInstructionV1Template: TemplateDef<TokenAllocationInstructionV1Payload> = {
  id: TestTokenV2Ids.TokenAllocationInstructionV1,
  kind: 'native',
  signatories: v1InstrSignatories,
  observers: (p) => instrObservers(p.instrV2),
  ensure: (p) => ensureInstr(p.instrV2) ?? (instructionViewV1(p.instrV2) ? undefined : 'canViewAsAllocationInstructionV1 (instrV2.allocateBefore, instrV2)'),
  parsePayload: pPayload<TokenAllocationInstructionV1Payload & Record<string, unknown>>({ instrV2: [(v) => parseInstr(v), 'req'] }),
  payloadType: Tt2Types.TokenAllocationInstructionV1,
  choices: {},
  implements: [
    {
      interface: TS.AllocationInstructionV1,
      view: (p) => instructionViewV1(p.instrV2),
      choices: {
        AllocationInstruction_Withdraw: {
          name: 'AllocationInstruction_Withdraw',
          consuming: true,
          controllers: (p: TokenAllocationInstructionV1Payload) => [instructionViewV1(p.instrV2)?.allocation.transferLeg.sender ?? p.instrV2.admin],
          parseArgument: parseExtraArgsArg,
          body: (ctx, self, arg: { extraArgs: ExtraArgs }) => {
            const instr = self.payload.instrV2;
            ensureWithdrawIsAllowed(ctx, instr.allocation);
            const owner = instr.allocation.authorizer.owner;
            if (owner === null) return fail(ctx, `Expected a regular account, but got the special account: ${showAccount(instr.allocation.authorizer)}`);
            const r = applyAllocationInstructionTransitions(ctx, 'V1', 'V1', instr, self.contractId, [owner], action('AIA_Withdraw'), arg.extraArgs);
            return { output: r.output, senderChangeCids: concatValues(r.authorizerChangeCids), meta: r.meta };
          },
        },
        AllocationInstruction_Update: {
          name: 'AllocationInstruction_Update',
          consuming: true,
          controllers: (p: TokenAllocationInstructionV1Payload, arg: { extraActors: string[] }) => [p.instrV2.admin, ...arg.extraActors],
          parseArgument: pArg<{ extraActors: string[]; extraArgs: ExtraArgs }>({ extraActors: [pList(pParty), 'req'], extraArgs: [pExtraArgs, 'req'] }),
          body: (ctx) => fail(ctx, 'allocationInstruction_updateImpl: update is not used on allocation instruction compatibility wrappers'),
        },
      },
    },
    {
      interface: TS.AllocationInstructionV2,
      view: (p) => instructionViewV2(p.instrV2),
      choices: { ...instrV2Choices<TokenAllocationInstructionV1Payload>((p) => p.instrV2, 'V1'), Archive: archiveChoice(v1InstrSignatories) },
    },
  ],
};

const v1AllocSignatories = (p: TokenAllocationV1Payload) => allocSignatories(p.allocationV2);
/** V1 `allocationControllers`: executor, sender and receiver of the V1 view. */
function v1Controllers(p: TokenAllocationV1Payload): string[] {
  const v = allocationViewV1(p.allocationV2);
  return v ? [v.allocation.settlement.executor, v.allocation.transferLeg.sender, v.allocation.transferLeg.receiver] : allocSignatories(p.allocationV2);
}

export const tokenAllocationV1Template: TemplateDef<TokenAllocationV1Payload> = {
  id: TestTokenV2Ids.TokenAllocationV1,
  kind: 'native',
  signatories: v1AllocSignatories,
  observers: (p) => allocObservers(p.allocationV2),
  ensure: (p) => ensureAlloc(p.allocationV2) ?? (allocationViewV1(p.allocationV2) ? undefined : 'canViewAsAllocationV1 (allocationV2.allocateBefore, allocationV2)'),
  parsePayload: pPayload<TokenAllocationV1Payload & Record<string, unknown>>({ allocationV2: [(v) => parseAlloc(v), 'req'] }),
  payloadType: Tt2Types.TokenAllocationV1,
  choices: {},
  implements: [
    {
      interface: TS.AllocationV1,
      view: (p) => allocationViewV1(p.allocationV2),
      choices: {
        Allocation_ExecuteTransfer: {
          name: 'Allocation_ExecuteTransfer',
          consuming: true,
          controllers: v1Controllers,
          parseArgument: parseExtraArgsArg,
          body: (ctx, self, arg: { extraArgs: ExtraArgs }) => executeTransferV1(ctx, self.contractId, self.payload, arg.extraArgs),
        },
        Allocation_Cancel: {
          name: 'Allocation_Cancel',
          consuming: true,
          controllers: v1Controllers,
          parseArgument: parseExtraArgsArg,
          body: (ctx, self, arg: { extraArgs: ExtraArgs }) => {
            const executor = allocationViewV1(self.payload.allocationV2)!.allocation.settlement.executor;
            const r = applyAllocationTransitions(ctx, 'V1', 'V1', self.payload.allocationV2, self.contractId, [executor], action('AA_Cancel'), null, arg.extraArgs);
            return { senderHoldingCids: concatValues(r.authorizerHoldingCids), meta: r.meta };
          },
        },
        Allocation_Withdraw: {
          name: 'Allocation_Withdraw',
          consuming: true,
          controllers: (p: TokenAllocationV1Payload) => [allocationViewV1(p.allocationV2)?.allocation.transferLeg.sender ?? p.allocationV2.allocation.admin],
          parseArgument: parseExtraArgsArg,
          body: (ctx, self, arg: { extraArgs: ExtraArgs }) => {
            const sender = allocationViewV1(self.payload.allocationV2)!.allocation.transferLeg.sender;
            const r = applyAllocationTransitions(ctx, 'V1', 'V1', self.payload.allocationV2, self.contractId, [sender], action('AA_Withdraw'), null, arg.extraArgs);
            return { senderHoldingCids: concatValues(r.authorizerHoldingCids), meta: r.meta };
          },
        },
      },
    },
    {
      interface: TS.AllocationV2,
      view: (p) => allocationViewV2(p.allocationV2),
      choices: { ...allocV2Choices<TokenAllocationV1Payload>((p) => p.allocationV2, 'V1'), Archive: archiveChoice(v1AllocSignatories) },
    },
  ],
};

/**
 * `Allocation_ExecuteTransfer` of a V1 allocation (`allocationV1_executeTransferDefaultImplUsingV2`):
 * re-create the (just archived) sender allocation, create the receiver's receipt allocation
 * through the V2 factory, and settle both through the V2 SettlementFactory of the TokenRules
 * found in the context.
 */
function executeTransferV1(ctx: UpdateContext, self: string, p: TokenAllocationV1Payload, extraArgs: ExtraArgs) {
  const rulesCid = eventLogFromContext(ctx, extraArgs);
  const allocV2 = p.allocationV2;
  const newSelf = ctx.create(TestTokenV2Ids.TokenAllocationV1, {
    allocationV2: { ...allocV2, originalAllocationCid: allocV2.originalAllocationCid ?? self },
  } satisfies TokenAllocationV1Payload);
  const v1 = allocationViewV1(allocV2)!;
  const a = allocV2.allocation;
  const [side] = a.transferLegSides;
  if (!side || a.transferLegSides.length !== 1) return fail(ctx, 'allocationV1_executeTransferDefaultImplUsingV2: sender allocation has not exactly one transfer leg side');
  if (side.side !== 'SenderSide') return fail(ctx, 'allocationV1_executeTransferDefaultImplUsingV2: sender allocation is not for sender side');
  const leg = transferLegFromSide(a.authorizer, side);
  const receiverAlloc: AllocationSpecificationV2 = {
    admin: a.admin,
    authorizer: leg.receiver,
    transferLegSides: [receiverSide(leg)],
    settlementDeadline: a.settlementDeadline,
    nextIterationFunding: null,
    committed: false,
    meta: emptyMeta(),
  };
  const allocResult = ctx.exercise(
    rulesCid,
    'AllocationFactory_Allocate',
    {
      settlement: allocV2.settlement,
      allocation: receiverAlloc,
      requestedAt: v1.allocation.settlement.requestedAt,
      inputHoldingCids: [],
      extraArgs,
      actors: [v1.allocation.transferLeg.receiver],
    },
    { interfaceId: TS.AllocationFactoryV2.id },
  ) as AllocationInstructionResultV2;
  if (allocResult.output.tag !== 'AllocationInstructionResult_Completed') {
    return fail(ctx, `failed to create receiver allocation for V1 transfer execution, unexpected output: \n${JSON.stringify(allocResult.output)}\n`);
  }
  const receiverAllocCid = allocResult.output.value.allocationCid as string;
  const result = ctx.exercise(
    rulesCid,
    'SettlementFactory_SettleBatch',
    {
      settlement: allocV2.settlement,
      transferLegs: [leg],
      allocations: [
        { allocationCid: newSelf, extraTransferLegSides: [], nextIterationFunding: null },
        { allocationCid: receiverAllocCid, extraTransferLegSides: [], nextIterationFunding: null },
      ],
      actors: [v1.allocation.settlement.executor],
      extraArgs,
    },
    { interfaceId: TS.SettlementFactoryV2.id },
  ) as { allocationSettleResults: AllocationResultV2[]; meta: { values: Record<string, string> } };
  const [senderResult, receiverResult] = result.allocationSettleResults;
  return {
    senderHoldingCids: concatValues(senderResult!.authorizerHoldingCids),
    receiverHoldingCids: concatValues(receiverResult!.authorizerHoldingCids),
    meta: result.meta,
  };
}

registerView(TestTokenV2Ids.TokenAllocationInstructionV2, TS.AllocationInstructionV2, instructionViewV2);
registerView(TestTokenV2Ids.TokenAllocationInstructionV1, TS.AllocationInstructionV2, (p: TokenAllocationInstructionV1Payload) => instructionViewV2(p.instrV2));
registerView(TestTokenV2Ids.TokenAllocationV2, TS.AllocationV2, allocationViewV2);
registerView(TestTokenV2Ids.TokenAllocationV1, TS.AllocationV2, (p: TokenAllocationV1Payload) => allocationViewV2(p.allocationV2));

