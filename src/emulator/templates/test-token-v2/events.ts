/**
 * Transfer events V2 (`Splice.Api.Token.TransferEventsV2.EventLog_HoldingsChange`) as TestTokenV2
 * emits them (`TestTokenV2.daml`, the `TransferEventsV2` interface): every holding change of a regular
 * account is explained by an exercise on the TokenRules contract (the EventLog), found through
 * the choice-context key `testTokenV2/tokenRules`.
 */
import type { ChoiceDef, UpdateContext } from '../../participant/templates.js';
import { TS } from '../token-standard.js';
import type { ExtraArgs, Metadata } from '../../../canton/lf-value.js';
import { TOKEN_RULES_CONTEXT_KEY } from './ids.js';
import { accountParties, fail, reasonToMeta, requireMatchExpected } from './utils.js';
import {
  emptyExtraArgs,
  pAccount,
  pArg,
  pCid,
  pExtraArgs,
  pList,
  pParty,
  pTransferLegSide,
  showParty,
  type Account,
  type TransferLegSide,
  type TransferV2,
} from './values.js';

export interface HoldingsChange {
  admin: string;
  account: Account;
  inputHoldingCids: string[];
  transferLegSides: TransferLegSide[];
  outputHoldingCids: string[];
  observers: string[];
  extraArgs: ExtraArgs;
}

const parseHoldingsChange = pArg<HoldingsChange & Record<string, unknown>>({
  admin: [pParty, 'req'],
  account: [pAccount, 'req'],
  inputHoldingCids: [pList(pCid), 'req'],
  transferLegSides: [pList(pTransferLegSide), 'req'],
  outputHoldingCids: [pList(pCid), 'req'],
  observers: [pList(pParty), 'req'],
  extraArgs: [pExtraArgs, 'req'],
});

/** `EventLog_HoldingsChange` with `eventLog_holdingsChangeDefaultImpl admin`. */
export function eventLogChoice<P>(adminOf: (p: P) => string): ChoiceDef<P, HoldingsChange> {
  return {
    name: 'EventLog_HoldingsChange',
    consuming: false,
    controllers: (_p, arg) => [arg.admin],
    observers: (_p, arg) => arg.observers,
    parseArgument: parseHoldingsChange,
    body: (ctx, self, arg) => {
      requireMatchExpected(ctx, 'admin', arg.admin, adminOf(self.payload), showParty);
      return {};
    },
  };
}

/** `getEventLogFromContext`: the `testTokenV2/tokenRules` context value. */
export function eventLogFromContext(ctx: UpdateContext, extraArgs: ExtraArgs): string {
  const v = extraArgs.context.values[TOKEN_RULES_CONTEXT_KEY];
  if (v === undefined) return fail(ctx, `Context value for '${TOKEN_RULES_CONTEXT_KEY}' not found`);
  if (v.tag !== 'AV_ContractId' || typeof v.value !== 'string') {
    return fail(ctx, `Failed to decode context value for '${TOKEN_RULES_CONTEXT_KEY}': ${JSON.stringify(v)}`);
  }
  return v.value;
}

/**
 * `logHoldingsChange`: exercises the event on the EventLog, unless the account is special (no
 * owner) or nothing changed (no legs, no inputs, no outputs).
 */
export function logHoldingsChange(ctx: UpdateContext, eventLogCid: string, change: HoldingsChange): void {
  const empty = change.transferLegSides.length === 0 && change.inputHoldingCids.length === 0 && change.outputHoldingCids.length === 0;
  if (empty || change.account.owner === null) return;
  ctx.exercise(eventLogCid, 'EventLog_HoldingsChange', change as unknown, { interfaceId: TS.EventLogV2.id });
}

/** An account-local change with a reason (locking, unlocking, returning funds). */
export function logReason(
  ctx: UpdateContext,
  eventLogCid: string,
  admin: string,
  account: Account,
  inputHoldingCids: string[],
  outputHoldingCids: string[],
  reason: string,
): void {
  logHoldingsChange(ctx, eventLogCid, {
    admin,
    account,
    inputHoldingCids,
    transferLegSides: [],
    outputHoldingCids,
    observers: accountParties(admin, account),
    extraArgs: { context: { values: {} }, meta: reasonToMeta(reason) },
  });
}

/** `logTransfer`: both sides of a single-leg transfer (one event when sender == receiver). */
export function logTransfer(ctx: UpdateContext, eventLogCid: string, t: TransferV2, senderOutputs: string[], receiverOutputs: string[]): void {
  const admin = t.instrumentId.admin;
  const leg = (side: 'SenderSide' | 'ReceiverSide', otherside: Account): TransferLegSide => ({
    transferLegId: '',
    side,
    otherside,
    amount: t.amount,
    instrumentId: t.instrumentId.id,
    meta: t.meta,
  });
  const transferIn = leg('ReceiverSide', t.sender);
  const transferOut = leg('SenderSide', t.receiver);
  const same = t.sender.owner === t.receiver.owner && t.sender.provider === t.receiver.provider && t.sender.id === t.receiver.id;
  if (same) {
    logHoldingsChange(ctx, eventLogCid, {
      admin,
      account: t.sender,
      inputHoldingCids: t.inputHoldingCids,
      transferLegSides: [transferOut, transferIn],
      outputHoldingCids: [...senderOutputs, ...receiverOutputs],
      observers: accountParties(admin, t.sender),
      extraArgs: emptyExtraArgs(),
    });
    return;
  }
  logHoldingsChange(ctx, eventLogCid, {
    admin,
    account: t.sender,
    inputHoldingCids: t.inputHoldingCids,
    transferLegSides: [transferOut],
    outputHoldingCids: senderOutputs,
    observers: accountParties(admin, t.sender),
    extraArgs: emptyExtraArgs(),
  });
  logHoldingsChange(ctx, eventLogCid, {
    admin,
    account: t.receiver,
    inputHoldingCids: [],
    transferLegSides: [transferIn],
    outputHoldingCids: receiverOutputs,
    observers: accountParties(admin, t.receiver),
    extraArgs: emptyExtraArgs(),
  });
}

/** `logAllocationSettlement`: reason "settle allocation", with all settled leg sides. */
export function logAllocationSettlement(
  ctx: UpdateContext,
  eventLogCid: string,
  inputs: string[],
  admin: string,
  authorizer: Account,
  legs: TransferLegSide[],
  outputs: string[],
): void {
  const meta: Metadata = reasonToMeta('settle allocation');
  logHoldingsChange(ctx, eventLogCid, {
    admin,
    account: authorizer,
    inputHoldingCids: inputs,
    transferLegSides: legs,
    outputHoldingCids: outputs,
    observers: accountParties(admin, authorizer),
    extraArgs: { context: { values: {} }, meta },
  });
}
