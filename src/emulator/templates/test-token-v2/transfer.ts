/**
 * `Splice.Testing.Tokens.TestTokenV2.Transfer`: the `TokenTransferOffer` template (a V2 and V1
 * TransferInstruction) and the transfer state machine's transition bodies
 * (Splice `token-standard/examples/splice-test-token-v2/.../Transfer.daml`, and
 * the V1 interface on `TokenTransferOffer`).
 *
 * Basic path (alice → bob): the factory locks the amount in a Token of alice (lock holders admin
 * and alice, expiring at executeBefore), returns alice's change, and creates an offer whose
 * `transfer.inputHoldingCids` is the locked token; bob's accept archives the locked token and
 * creates bob's Token; bob's reject or alice's withdraw return the locked amount to alice.
 */
import { archiveChoice, type ChoiceDef, type TemplateDef, type UpdateContext } from '../../participant/templates.js';
import type { ExtraArgs } from '../../../canton/lf-value.js';
import { TS } from '../token-standard.js';
import {
  applyStateMachineTransitions,
  extractAccountConfigMap,
  getState,
  insertWithUnion,
  mkAvailableActions,
  transferInstructionStateMachine,
  tryUseAccountAuthority,
  type AccountConfigMap,
  type TransferInstructionState,
} from './account-config.js';
import { eventLogChoice, eventLogFromContext, logReason, logTransfer } from './events.js';
import { createToken, fetchAndArchiveLockedToken, fetchAndArchiveUnlockedToken, type FetchAndArchive } from './holding.js';
import { registerView, TestTokenV2Ids } from './ids.js';
import {
  accountOwnerForV1,
  accountParties,
  assertWithinDeadline,
  availableToPendingActions,
  downcastTransfer,
  expiresAtToMeta,
  fail,
  isValidTransferV2,
  requireR,
  transferAcceptanceMeta,
} from './utils.js';
import {
  action,
  dec,
  decText,
  dedupSortParties,
  pActionAuthorizers,
  pArg,
  pAvailableActions,
  pCid,
  pDecimal,
  pExtraArgs,
  pList,
  pParty,
  pPayload,
  pTransferV2,
  showAccount,
  showDecimal,
  showInstrumentId,
  TIA,
  type Action,
  type ActionAuthorizers,
  type AvailableActions,
  type TransferV2,
} from './values.js';
import { Tt2Types } from './types.js';

export interface TokenTransferOfferPayload {
  actionAuthorizers: ActionAuthorizers;
  availableActions: AvailableActions;
  transfer: TransferV2;
  originalInstructionCid: string | null;
  mintAmount: string;
}

export type CallSource = 'V1' | 'V2';

/** The V2 `TransferInstructionResult` (LF JSON). */
export interface TransferInstructionResultV2 {
  output: { tag: 'TransferInstructionResult_Pending' | 'TransferInstructionResult_Completed' | 'TransferInstructionResult_Failed'; value: Record<string, unknown> };
  senderChangeCids: string[];
  meta: { values: Record<string, string> };
}

const pending = (cid: string, senderChangeCids: string[] = []): TransferInstructionResultV2 => ({
  output: { tag: 'TransferInstructionResult_Pending', value: { transferInstructionCid: cid } },
  senderChangeCids,
  meta: { values: {} },
});
const failed = (senderChangeCids: string[]): TransferInstructionResultV2 => ({
  output: { tag: 'TransferInstructionResult_Failed', value: {} },
  senderChangeCids,
  meta: { values: {} },
});

/** V2 → V1 result: same shape, the contract ids are coerced. */
export const downcastTransferResult = (r: TransferInstructionResultV2): unknown => r;

// ---- views ----------------------------------------------------------------------------------------

export function offerViewV2(p: TokenTransferOfferPayload) {
  return {
    originalInstructionCid: p.originalInstructionCid,
    transfer: p.transfer,
    // the reference reports the transfer deadline as the instruction's expiry
    expiresAt: p.transfer.executeBefore,
    availableActions: p.availableActions,
    meta: { values: {} },
  };
}

const actionNameTIA = (tag: string, id: string) =>
  ({ TIA_Accept: 'accept', TIA_Reject: 'reject', TIA_Withdraw: 'withdraw' })[tag as 'TIA_Accept'] ?? id;

/** `downcast` of the V2 view: the receiver-acceptance status when the receiver alone can accept. */
export function offerViewV1(p: TokenTransferOfferPayload) {
  const v2 = offerViewV2(p);
  const transfer = downcastTransfer(p.transfer);
  const acceptGroups = p.availableActions.find(([a]) => a.tag === 'TIA_Accept')?.[1] ?? [];
  const status = acceptGroups.some((g) => g.length === 1 && g[0] === transfer.receiver)
    ? { tag: 'TransferPendingReceiverAcceptance', value: {} }
    : { tag: 'TransferPendingInternalWorkflow', value: { pendingActions: availableToPendingActions(actionNameTIA, p.availableActions) } };
  return { originalInstructionCid: v2.originalInstructionCid, transfer, status, meta: expiresAtToMeta(v2.expiresAt, v2.meta) };
}

// ---- transitions ----------------------------------------------------------------------------------

function sumAndArchive(ctx: UpdateContext, fetchAndArchive: FetchAndArchive, t: TransferV2): bigint {
  let sum = 0n;
  for (const cid of t.inputHoldingCids) sum += dec(fetchAndArchive(ctx, t.instrumentId, t.sender, cid).holding.amount);
  return sum;
}

/** `debitHoldings`: archives the inputs, checks they cover the amount, returns the change token. */
function debitHoldings(ctx: UpdateContext, fetchAndArchive: FetchAndArchive, offer: TokenTransferOfferPayload): string[] {
  const t = offer.transfer;
  const input = sumAndArchive(ctx, fetchAndArchive, t);
  const available = input + dec(offer.mintAmount);
  const d1 = `inputAmount + mintAmount for ${showInstrumentId(t.instrumentId)}`;
  requireR(ctx, available >= dec(t.amount), d1, showDecimal(available), 'is less than', 'transfer.amount', showDecimal(t.amount));
  const remainder = input - dec(t.amount);
  if (remainder <= 0n) return [];
  return [createToken(ctx, { account: t.sender, instrumentId: t.instrumentId, amount: decText(remainder), lock: null, meta: { values: {} } })];
}

/** `createLockedInputs`: the transferred amount, locked to the admin and the sender until executeBefore. */
function createLockedInputs(ctx: UpdateContext, t: TransferV2): string[] {
  const admin = t.instrumentId.admin;
  return [
    createToken(ctx, {
      account: t.sender,
      instrumentId: t.instrumentId,
      amount: t.amount,
      lock: { holders: [admin, ...accountParties(admin, t.sender)], expiresAt: t.executeBefore, expiresAfter: null, context: `transfer to ${showAccount(t.receiver)}` },
      meta: { values: {} },
    }),
  ];
}

/** `unlockTokenTransferOffer`: the locked amount goes back to the sender. */
function unlockOffer(ctx: UpdateContext, reason: string, offer: TokenTransferOfferPayload, extraArgs: ExtraArgs): string[] {
  const t = offer.transfer;
  sumAndArchive(ctx, fetchAndArchiveLockedToken, t);
  const token = createToken(ctx, { account: t.sender, instrumentId: t.instrumentId, amount: t.amount, lock: null, meta: { values: {} } });
  logReason(ctx, eventLogFromContext(ctx, extraArgs), t.instrumentId.admin, t.sender, t.inputHoldingCids, [token], reason);
  return [token];
}

function transition(
  ctx: UpdateContext,
  offer: TokenTransferOfferPayload,
  oSelf: string | null,
  actors: string[],
  accountMap: AccountConfigMap,
  extraArgs: ExtraArgs,
  from: TransferInstructionState,
  to: TransferInstructionState,
): TransferInstructionResultV2 {
  const t = offer.transfer;
  const admin = t.instrumentId.admin;
  if (from === 'TIS_Init' && to === 'TIS_Withdrawn') return failed(t.inputHoldingCids);
  if (from === 'TIS_Authorized' && to === 'TIS_Withdrawn') return failed(unlockOffer(ctx, 'transfer withdrawn', offer, extraArgs));
  if (from === 'TIS_Authorized' && to === 'TIS_Rejected') return failed(unlockOffer(ctx, 'transfer rejected', offer, extraArgs));
  if (from === 'TIS_Init' && (to === 'TIS_Authorized' || to === 'TIS_Accepted')) {
    const senderChangeCids = debitHoldings(ctx, fetchAndArchiveUnlockedToken, offer);
    const locked = createLockedInputs(ctx, t);
    logReason(ctx, eventLogFromContext(ctx, extraArgs), admin, t.sender, t.inputHoldingCids, [...locked, ...senderChangeCids], `lock for transfer to ${showAccount(t.receiver)}`);
    const newAuth = insertWithUnion(TIA, offer.actionAuthorizers, action('TIA_Accept'), actors);
    const sm = transferInstructionStateMachine(t.sender, t.receiver);
    const state = getState(sm, admin, newAuth);
    if (state === 'TIS_Authorized') {
      const cid = ctx.create(TestTokenV2Ids.TokenTransferOffer, {
        ...offer,
        actionAuthorizers: newAuth,
        availableActions: mkAvailableActions(ctx, sm, admin, newAuth, accountMap),
        transfer: { ...t, inputHoldingCids: locked },
        originalInstructionCid: oSelf,
      });
      return pending(cid, senderChangeCids);
    }
    if (state === 'TIS_Accepted') {
      const res = transition(ctx, { ...offer, transfer: { ...t, inputHoldingCids: locked } }, oSelf, actors, accountMap, extraArgs, 'TIS_Authorized', 'TIS_Accepted');
      return { ...res, senderChangeCids: [...senderChangeCids, ...res.senderChangeCids] };
    }
    return fail(ctx, `Unexpected state after authorizing transfer instruction: ${state}`);
  }
  if (from === 'TIS_Authorized' && to === 'TIS_Accepted') {
    // DEVIATION (LIMITATIONS 2): the interface says registries SHOULD NOT execute a transfer after
    // executeBefore; the reference token accepts at any time. Reject/withdraw stay possible.
    assertWithinDeadline(ctx, 'transfer.executeBefore', t.executeBefore);
    const senderChangeCids = debitHoldings(ctx, fetchAndArchiveLockedToken, offer);
    const token = createToken(ctx, { account: t.receiver, instrumentId: t.instrumentId, amount: t.amount, lock: null, meta: { values: {} } });
    logTransfer(ctx, eventLogFromContext(ctx, extraArgs), t, senderChangeCids, [token]);
    return {
      output: { tag: 'TransferInstructionResult_Completed', value: { receiverHoldingCids: [token] } },
      senderChangeCids,
      meta: transferAcceptanceMeta(t),
    };
  }
  return fail(ctx, `Unsupported state transition: (${from},${to})`);
}

/**
 * `applyTransferInstructionTransitions`: archives the offer when called through a V2 choice (V1
 * choices are consuming already), then advances the transfer state machine by `action`.
 */
export function applyTransferInstructionTransitions(
  ctx: UpdateContext,
  callSource: CallSource,
  offer: TokenTransferOfferPayload,
  oSelf: string | null,
  actors: string[],
  act: Action,
  extraArgs: ExtraArgs,
): TransferInstructionResultV2 {
  if (callSource === 'V2' && oSelf !== null) ctx.exercise(oSelf, 'Archive', {}, { interfaceId: TS.TransferInstructionV2.id });
  const t = offer.transfer;
  const admin = t.instrumentId.admin;
  const accountMap = extractAccountConfigMap(ctx, admin, extraArgs, [t.sender, t.receiver]);
  const sm = transferInstructionStateMachine(t.sender, t.receiver);
  return applyStateMachineTransitions(ctx, {
    admin,
    authState: offer.actionAuthorizers,
    actors,
    action: act,
    sm,
    accountMap,
    transition: (from, to) => transition(ctx, offer, oSelf, actors, accountMap, extraArgs, from, to),
    mkPending: (newAuth, newAvailable) =>
      pending(
        ctx.create(TestTokenV2Ids.TokenTransferOffer, {
          ...offer,
          originalInstructionCid: oSelf,
          actionAuthorizers: newAuth,
          availableActions: newAvailable,
        }),
      ),
    tryUseAccountAuthority: (as, a, res, newAuth, map) => {
      if (res.output.tag !== 'TransferInstructionResult_Pending') return undefined;
      const cid = res.output.value.transferInstructionCid as string;
      return tryUseAccountAuthority(ctx, 'transferInstruction', cid, as, a, newAuth, map, extraArgs, (view: ReturnType<typeof offerViewV2>) => ({
        admin: view.transfer.instrumentId.admin,
        sm: transferInstructionStateMachine(view.transfer.sender, view.transfer.receiver),
      })) as TransferInstructionResultV2 | undefined;
    },
  });
}

// ---- template -------------------------------------------------------------------------------------

const signatories = (p: TokenTransferOfferPayload) => [...(p.actionAuthorizers.find(([a]) => a.tag === 'TIA_Accept')?.[1] ?? []), p.transfer.instrumentId.admin];
/** Everyone who has authorised or can authorise an action. */
const observers = (p: TokenTransferOfferPayload) =>
  dedupSortParties([...p.availableActions.flatMap(([, gs]) => gs.flat()), ...p.actionAuthorizers.flatMap(([, ps]) => ps)]);

interface ActorsArg {
  actors: string[];
  extraArgs: ExtraArgs;
}
const parseActorsArg = pArg<ActorsArg & Record<string, unknown>>({ actors: [pList(pParty), 'req'], extraArgs: [pExtraArgs, 'req'] });
const parseExtraArgsArg = pArg<{ extraArgs: ExtraArgs }>({ extraArgs: [pExtraArgs, 'req'] });

function v2Choice(name: string, tag: string): ChoiceDef<TokenTransferOfferPayload, ActorsArg> {
  return {
    name,
    consuming: false,
    controllers: (_p, arg) => arg.actors,
    observers: (p) => observers(p),
    parseArgument: parseActorsArg,
    body: (ctx, self, arg) => applyTransferInstructionTransitions(ctx, 'V2', self.payload, self.contractId, arg.actors, action(tag), arg.extraArgs),
  };
}

/** V1 choices run the V2 body with the single V1 actor (receiver or sender owner); consuming already. */
function v1Choice(name: string, tag: string, actor: 'sender' | 'receiver'): ChoiceDef<TokenTransferOfferPayload, { extraArgs: ExtraArgs }> {
  return {
    name,
    consuming: true,
    controllers: (p) => [accountOwnerForV1(p.transfer[actor])],
    parseArgument: parseExtraArgsArg,
    body: (ctx, self, arg) => {
      const owner = self.payload.transfer[actor].owner;
      if (owner === null) return fail(ctx, `Expected a regular account, but got the special account: ${showAccount(self.payload.transfer[actor])}`);
      return downcastTransferResult(applyTransferInstructionTransitions(ctx, 'V1', self.payload, self.contractId, [owner], action(tag), arg.extraArgs));
    },
  };
}

export const tokenTransferOfferTemplate: TemplateDef<TokenTransferOfferPayload> = {
  id: TestTokenV2Ids.TokenTransferOffer,
  kind: 'native',
  signatories,
  observers,
  ensure: (p) => (isValidTransferV2(p.transfer) ? undefined : 'isValidTransferV2 transfer'),
  parsePayload: pPayload<TokenTransferOfferPayload & Record<string, unknown>>({
    actionAuthorizers: [pActionAuthorizers(TIA), 'req'],
    availableActions: [pAvailableActions(TIA), 'req'],
    transfer: [pTransferV2, 'req'],
    originalInstructionCid: [pCid, 'opt'],
    mintAmount: [pDecimal, 'req'],
  }),
  payloadType: Tt2Types.TokenTransferOffer,
  choices: {},
  implements: [
    {
      interface: TS.TransferInstructionV1,
      view: offerViewV1,
      choices: {
        TransferInstruction_Accept: v1Choice('TransferInstruction_Accept', 'TIA_Accept', 'receiver'),
        TransferInstruction_Reject: v1Choice('TransferInstruction_Reject', 'TIA_Reject', 'receiver'),
        TransferInstruction_Withdraw: v1Choice('TransferInstruction_Withdraw', 'TIA_Withdraw', 'sender'),
        TransferInstruction_Update: {
          name: 'TransferInstruction_Update',
          consuming: true,
          controllers: (p, arg: { extraActors: string[] }) => [p.transfer.instrumentId.admin, ...arg.extraActors],
          parseArgument: pArg<{ extraActors: string[]; extraArgs: ExtraArgs }>({ extraActors: [pList(pParty), 'req'], extraArgs: [pExtraArgs, 'req'] }),
          body: (ctx) => fail(ctx, 'transferInstruction_updateImpl: update is not used on transfer instruction compatibility wrappers'),
        },
      },
    },
    {
      interface: TS.TransferInstructionV2,
      view: offerViewV2,
      choices: {
        TransferInstruction_Accept: v2Choice('TransferInstruction_Accept', 'TIA_Accept'),
        TransferInstruction_Reject: v2Choice('TransferInstruction_Reject', 'TIA_Reject'),
        TransferInstruction_Withdraw: v2Choice('TransferInstruction_Withdraw', 'TIA_Withdraw'),
        Archive: archiveChoice(signatories),
      },
    },
    {
      interface: TS.EventLogV2,
      view: (p) => ({ admin: p.transfer.instrumentId.admin, meta: { values: {} } }),
      choices: { EventLog_HoldingsChange: eventLogChoice<TokenTransferOfferPayload>((p) => p.transfer.instrumentId.admin) },
    },
  ],
};
registerView(TestTokenV2Ids.TokenTransferOffer, TS.TransferInstructionV2, offerViewV2);
registerView(TestTokenV2Ids.TokenTransferOffer, TS.TransferInstructionV1, offerViewV1);

