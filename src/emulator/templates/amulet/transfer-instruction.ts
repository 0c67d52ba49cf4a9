/**
 * The AmuletTransferInstruction template of splice-amulet `Splice.AmuletTransferInstruction`:
 * TransferInstruction V1 (accept, reject, withdraw; update is not implemented upstream either) and
 * V2 (its choices check the actors, then call the V1 choice).
 */
import type { InterfaceImpl, TemplateDef } from '../../participant/templates.js';
import { archiveChoice } from '../../participant/templates.js';
import { TS } from '../token-standard.js';
import { recordParser } from '../../lf-value/native-json-codec.js';
import { list, rec } from '../../lf-value/native-type.js';
import { nativeChoice } from '../native-choice.js';
import { completedTransfer, EXTRA_ARGS_ONLY } from './choice-helpers.js';
import { standardTransferToTwoStepTransfer } from './two-step-transfer-specs.js';
import { abortTwoStepTransfer, executeTwoStepTransfer } from './transfer.js';
import {
  AmuletIds,
  T,
  checkActors,
  emptyMeta,
  failGeneral,
  type AmuletTransferInstructionPayload,
  type ExtraArgsV,
  type TransferV1,
} from './values.js';

export function amuletTransferInstructionTemplate(): TemplateDef<AmuletTransferInstructionPayload> {
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
          return completedTransfer(r.receiverHoldingCids, r.senderHoldingCids, r.meta);
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
  return {
    id: AmuletIds.AmuletTransferInstruction,
    kind: 'native',
    signatories: instrSignatories,
    observers: (p) => [p.transfer.receiver],
    parsePayload: recordParser(T.AmuletTransferInstruction, 'createArguments'),
    payloadType: T.AmuletTransferInstruction,
    choices: {},
    implements: [transferInstructionV1, transferInstructionV2],
  };
}
