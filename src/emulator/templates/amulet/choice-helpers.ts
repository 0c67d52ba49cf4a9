/**
 * Choice-argument record types, checks and result shapes that several Amulet templates share
 * (splice-amulet `Splice.AmuletRules`, `Splice.ExternalPartyAmuletRules`, `Splice.AmuletTransferInstruction`).
 */
import type { UpdateContext } from '../../participant/templates.js';
import { rec } from '../../lf-value/native-type.js';
import { nativeChoice } from '../native-choice.js';
import { T, require, showParty, type MetadataV } from './values.js';

export const NO_ARGS = rec();
export const P_ARG = rec(['p', 'party']);
export const EXTRA_ARGS_ONLY = rec(['extraArgs', T.ExtraArgs]);

/** The nonconsuming `…_Fetch` choice with controller `p` that returns the contract's payload. */
export const fetchByPartyChoice = <P>(name: string) =>
  nativeChoice<P, { p: string }>(name, P_ARG, {
    consuming: false,
    controllers: (_p, a) => [a.p],
    body: (_ctx, self) => self.payload,
  });

export function requireExpectedAdminMatch(ctx: UpdateContext, expected: string, actual: string): void {
  require(ctx, `Expected admin ${showParty(expected)} matches actual admin ${showParty(actual)}`, expected === actual);
}

/** A `TransferInstructionResult` whose output is `TransferInstructionResult_Completed`. */
export const completedTransfer = (receiverHoldingCids: string[], senderChangeCids: string[], meta: MetadataV) => ({
  output: { tag: 'TransferInstructionResult_Completed', value: { receiverHoldingCids } },
  senderChangeCids,
  meta,
});

/** Metadata values in key order. */
export function sortObject(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
