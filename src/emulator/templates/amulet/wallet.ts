/**
 * The wallet templates of `splice-wallet` that the validator's wallet API works with, as native
 * emulator templates (Splice.Wallet.TransferOffer, Splice.Wallet.Install):
 *  - TransferOffer (signatory sender, observer receiver): accept → AcceptedTransferOffer,
 *    reject, withdraw, expire;
 *  - AcceptedTransferOffer (signatories sender and receiver): `AcceptedTransferOffer_Complete`
 *    turns it into an Amulet transfer (what the sender's wallet automation does), withdraw,
 *    abort, expire;
 *  - WalletAppInstall (signatories endUserParty and validatorParty): the validator operates the
 *    end user's wallet through it: create/accept/reject/withdraw/expire transfer offers, abort or
 *    withdraw accepted ones, and `WalletAppInstall_ExecuteBatch` with the Amulet operations the
 *    emulator models (CO_CompleteAcceptedTransfer, CO_MergeTransferInputs, CO_Tap,
 *    CO_TransferPreapprovalSend, CO_AcceptTransferPreapprovalProposal, CO_RenewTransferPreapproval;
 *    the others fail saying so).
 */
import type { ChoiceDef, TemplateDef, UpdateContext } from '../../participant/templates.js';
import { parseTime } from '../../../canton/lf-value.js';
import { recordParser } from '../../lf-value/native-json-codec.js';
import { list, opt, rec, type NativeValueType } from '../../lf-value/native-type.js';
import { nativeChoice } from '../native-choice.js';
import { exercisePaymentTransfer } from './transfer.js';
import {
  AmuletIds,
  META,
  T,
  dec,
  decText,
  divDec,
  failError,
  failGeneral,
  require,
  type AcceptedTransferOfferPayload,
  type PaymentAmountV,
  type PaymentTransferContextV,
  type TransferInputV,
  type TransferOfferPayload,
  type WalletAppInstallPayload,
} from './values.js';


const trackingInfo = (p: { trackingId: string; sender: string; receiver: string }) => ({ trackingId: p.trackingId, sender: p.sender, receiver: p.receiver });

type Offer = { trackingId: string; sender: string; receiver: string; expiresAt: string };

/** A consuming choice that only archives the offer and reports its tracking info (Reject/Withdraw/Abort). */
function closeChoice<P extends Offer>(name: string, by: 'sender' | 'receiver', withReason: boolean): ChoiceDef<P, unknown> {
  return nativeChoice<P, unknown>(name, withReason ? rec(['reason', 'text']) : rec(), {
    consuming: true,
    controllers: (p) => [p[by]],
    body: (_ctx, self) => ({ trackingInfo: trackingInfo(self.payload) }),
  });
}

/** `*_Expire`: any stakeholder archives the offer once `expiresAt` has passed. */
function expireChoice<P extends Offer>(name: string): ChoiceDef<P, { actor: string }> {
  return nativeChoice<P, { actor: string }>(name, rec(['actor', 'party']), {
    consuming: true,
    controllers: (_p, a) => [a.actor],
    body: (ctx, self, a) => {
      require(ctx, 'Contract has expired', parseTime(self.payload.expiresAt) <= ctx.nowMicros);
      require(ctx, 'Actor is a stakeholder', a.actor === self.payload.sender || a.actor === self.payload.receiver);
      return { trackingInfo: trackingInfo(self.payload) };
    },
  });
}

/** `paymentAmountToAmulet`. */
function paymentAmountToAmulet(ctx: UpdateContext, dso: string, round: { dso: string; amuletPrice: string }, amount: PaymentAmountV): string {
  switch (amount.unit) {
    case 'USDUnit':
      require(ctx, 'matching DSO party', round.dso === dso);
      return decText(divDec(dec(amount.amount), dec(round.amuletPrice)));
    case 'AmuletUnit':
      return amount.amount;
    default:
      return failError(ctx, 'ExtUnit: bare extension constructors are not allowed at runtime');
  }
}

export function walletTemplates(): TemplateDef[] {
  // -- TransferOffer -----------------------------------------------------------------------------------
  const transferOffer: TemplateDef<TransferOfferPayload> = {
    id: AmuletIds.TransferOffer,
    kind: 'native',
    signatories: (p) => [p.sender],
    observers: (p) => [p.receiver],
    ensure: (p) => ([...p.description].length < 280 && [...p.trackingId].length < 280 ? undefined : 'DA.Text.length description < 280 && DA.Text.length trackingId < 280'),
    parsePayload: recordParser(T.TransferOffer, 'createArguments'),
    payloadType: T.TransferOffer,
    choices: {
      TransferOffer_Accept: nativeChoice<TransferOfferPayload, Record<string, never>>('TransferOffer_Accept', rec(), {
        consuming: true,
        controllers: (p) => [p.receiver],
        body: (ctx, self) => {
          const p = self.payload;
          require(ctx, 'Offer has not expired', ctx.nowMicros < parseTime(p.expiresAt));
          const acceptedTransferOffer = ctx.create(AmuletIds.AcceptedTransferOffer, {
            sender: p.sender,
            receiver: p.receiver,
            dso: p.dso,
            amount: p.amount,
            expiresAt: p.expiresAt,
            trackingId: p.trackingId,
          });
          return { acceptedTransferOffer };
        },
      }),
      TransferOffer_Reject: closeChoice('TransferOffer_Reject', 'receiver', false),
      TransferOffer_Withdraw: closeChoice('TransferOffer_Withdraw', 'sender', true),
      TransferOffer_Expire: expireChoice('TransferOffer_Expire'),
    },
    implements: [],
  };

  // -- AcceptedTransferOffer ------------------------------------------------------------------------------
  interface CompleteArg {
    inputs: TransferInputV[];
    transferContext: PaymentTransferContextV;
    walletProvider: string;
  }
  const complete = (ctx: UpdateContext, p: AcceptedTransferOfferPayload, a: CompleteArg) => {
    require(ctx, 'Offer has not expired', ctx.nowMicros < parseTime(p.expiresAt));
    // fetchPublicReferenceData (OpenMiningRound_Fetch sender): the round must be the DSO's
    const round = ctx.exercise(a.transferContext.context.openMiningRound, 'OpenMiningRound_Fetch', { p: p.sender }) as { dso: string; amuletPrice: string };
    if (round.dso !== p.dso) failGeneral(ctx, `Contract group identifier mismatch: expected ForDso {dso = '${p.dso}'}, got ForDso {dso = '${round.dso}'} for ${a.transferContext.context.openMiningRound}`);
    const amount = paymentAmountToAmulet(ctx, p.dso, round, p.amount);
    const r = exercisePaymentTransfer(ctx, p.dso, a.transferContext, {
      sender: p.sender,
      provider: a.walletProvider,
      inputs: a.inputs,
      outputs: [{ receiver: p.receiver, receiverFeeRatio: decText(0n), amount, lock: null, meta: { values: { [META.reason]: 'transfer offer accepted' } } }],
      beneficiaries: null,
    });
    return { transferResult: r.result, trackingInfo: trackingInfo(p), senderChangeAmulet: r.senderChangeAmulet };
  };
  const acceptedTransferOffer: TemplateDef<AcceptedTransferOfferPayload> = {
    id: AmuletIds.AcceptedTransferOffer,
    kind: 'native',
    signatories: (p) => [p.sender, p.receiver],
    observers: () => [],
    parsePayload: recordParser(T.AcceptedTransferOffer, 'createArguments'),
    payloadType: T.AcceptedTransferOffer,
    choices: {
      AcceptedTransferOffer_Complete: nativeChoice<AcceptedTransferOfferPayload, CompleteArg>(
        'AcceptedTransferOffer_Complete',
        rec(['inputs', list(T.TransferInput)], ['transferContext', T.PaymentTransferContext], ['walletProvider', 'party']),
        { consuming: true, controllers: (p, a) => [p.sender, a.walletProvider], body: (ctx, self, a) => complete(ctx, self.payload, a) },
      ),
      AcceptedTransferOffer_Withdraw: closeChoice('AcceptedTransferOffer_Withdraw', 'receiver', true),
      AcceptedTransferOffer_Abort: closeChoice('AcceptedTransferOffer_Abort', 'sender', true),
      AcceptedTransferOffer_Expire: expireChoice('AcceptedTransferOffer_Expire'),
    },
    implements: [],
  };

  // -- WalletAppInstall ---------------------------------------------------------------------------------------
  const AmuletOperation: NativeValueType = {
    variant: {
      CO_AppPayment: 'cid',
      CO_CompleteAcceptedTransfer: 'cid',
      CO_SubscriptionAcceptAndMakeInitialPayment: 'cid',
      CO_SubscriptionMakePayment: 'cid',
      CO_MergeTransferInputs: 'unit',
      CO_BuyMemberTraffic: rec(
        ['trafficAmount', 'int'],
        ['memberId', 'text'],
        ['synchronizerId', 'text'],
        ['migrationId', 'int'],
        ['minTopupInterval', T.RelTime],
        ['topupStateCid', opt('cid')],
      ),
      CO_CompleteBuyTrafficRequest: rec(['trafficRequestCid', 'cid']),
      CO_Tap: rec(['tapAmount', 'decimal']),
      ExtAmuletOperation: rec(['dummyUnitField', 'unit']),
      CO_CreateExternalPartySetupProposal: rec(['externalParty', 'party'], ['preapprovalExpiresAt', 'time']),
      CO_AcceptTransferPreapprovalProposal: rec(['preapprovalProposalCid', 'cid'], ['expiresAt', 'time']),
      CO_RenewTransferPreapproval: rec(['previousApprovalCid', 'cid'], ['newExpiresAt', 'time']),
      CO_TransferPreapprovalSend: rec(
        ['transferPreapprovalCid', 'cid'],
        ['providerFeaturedAppRightCid', opt('cid')],
        ['amount', 'decimal'],
        ['description', opt('text')],
      ),
    },
  };
  /** An `AmuletOperation` (the NativeValueType above) as the argument parser returns it; only the operations the batch runs have a typed value. */
  type AmuletOperationV =
    | { tag: 'CO_CompleteAcceptedTransfer'; value: string }
    | { tag: 'CO_CompleteBuyTrafficRequest'; value: { trafficRequestCid: string } }
    | { tag: 'CO_MergeTransferInputs'; value: Record<string, never> }
    | { tag: 'CO_Tap'; value: { tapAmount: string } }
    | { tag: 'CO_AcceptTransferPreapprovalProposal'; value: { preapprovalProposalCid: string; expiresAt: string } }
    | { tag: 'CO_RenewTransferPreapproval'; value: { previousApprovalCid: string; newExpiresAt: string } }
    | { tag: 'CO_TransferPreapprovalSend'; value: { transferPreapprovalCid: string; providerFeaturedAppRightCid: string | null; amount: string; description: string | null } }
    | {
        tag: 'CO_AppPayment' | 'CO_SubscriptionAcceptAndMakeInitialPayment' | 'CO_SubscriptionMakePayment' | 'CO_BuyMemberTraffic' | 'ExtAmuletOperation' | 'CO_CreateExternalPartySetupProposal';
        value: unknown;
      };
  interface BatchArg {
    context: PaymentTransferContextV;
    inputs: TransferInputV[];
    operations: AmuletOperationV[];
  }
  const installSignatories = (p: WalletAppInstallPayload) => [p.endUserParty, p.validatorParty];
  const viaValidator = <A>(name: string, argT: NativeValueType, body: (ctx: UpdateContext, p: WalletAppInstallPayload, a: A) => unknown) =>
    nativeChoice<WalletAppInstallPayload, A>(name, argT, { consuming: false, controllers: (p) => [p.validatorParty], body: (ctx, self, a) => body(ctx, self.payload, a) });

  type PreapprovalOutcome = { transferPreapprovalCid: string; amuletPaid: string; transferResult: { senderChangeAmulet: string | null } };
  /** `inputsFromPreapprovalOperation`: unchanged when nothing was paid, else the change. */
  const inputsAfterPreapprovalPayment = (inputs: TransferInputV[], r: PreapprovalOutcome): TransferInputV[] =>
    dec(r.amuletPaid) <= 0n ? inputs : r.transferResult.senderChangeAmulet === null ? [] : [{ tag: 'InputAmulet', value: r.transferResult.senderChangeAmulet }];
  /** `executeAmuletOperationRec`: operations run in order, each one's change feeding the next. */
  const executeBatch = (ctx: UpdateContext, p: WalletAppInstallPayload, a: BatchArg) => {
    let inputs = a.inputs;
    const outcomes: unknown[] = [];
    const changeInputs = (cid: string | null): TransferInputV[] => (cid === null ? [] : [{ tag: 'InputAmulet', value: cid }]);
    for (const op of a.operations) {
      switch (op.tag) {
        case 'CO_CompleteAcceptedTransfer': {
          const r = ctx.exercise(op.value, 'AcceptedTransferOffer_Complete', {
            inputs,
            transferContext: a.context,
            walletProvider: p.validatorParty,
          }) as { transferResult: unknown; trackingInfo: unknown; senderChangeAmulet: string | null };
          outcomes.push({ tag: 'COO_CompleteAcceptedTransfer', value: { _1: r.transferResult, _2: r.trackingInfo } });
          inputs = changeInputs(r.senderChangeAmulet);
          break;
        }
        case 'CO_CompleteBuyTrafficRequest': {
          // ./buy-traffic-request.ts: the request buys the traffic from the user's inputs
          const r = ctx.exercise(op.value.trafficRequestCid, 'BuyTrafficRequest_Complete', {
            inputs,
            context: a.context,
            walletProvider: p.validatorParty,
          }) as { purchasedTraffic: string; trackingInfo: unknown; senderChangeAmulet: string | null };
          outcomes.push({ tag: 'COO_CompleteBuyTrafficRequest', value: { _1: r.purchasedTraffic, _2: r.trackingInfo } });
          inputs = changeInputs(r.senderChangeAmulet);
          break;
        }
        case 'CO_MergeTransferInputs': {
          const r = exercisePaymentTransfer(ctx, p.dsoParty, a.context, { sender: p.endUserParty, provider: p.endUserParty, inputs, outputs: [], beneficiaries: null });
          outcomes.push({ tag: 'COO_MergeTransferInputs', value: r.senderChangeAmulet });
          inputs = changeInputs(r.senderChangeAmulet);
          break;
        }
        case 'CO_Tap': {
          const r = ctx.exercise(a.context.amuletRules, 'AmuletRules_DevNet_Tap', {
            receiver: p.endUserParty,
            amount: op.value.tapAmount,
            openRound: a.context.context.openMiningRound,
          }) as { amuletSum: { amulet: string } };
          outcomes.push({ tag: 'COO_Tap', value: r.amuletSum.amulet });
          inputs = [{ tag: 'InputAmulet', value: r.amuletSum.amulet }, ...inputs];
          break;
        }
        case 'CO_AcceptTransferPreapprovalProposal': {
          // handleAcceptTransferPreapprovalProposal: only the validator's own wallet accepts
          require(ctx, 'Only a validator can accept a proposal to create a transfer preapproval', p.endUserParty === p.validatorParty);
          const v = op.value;
          const r = ctx.exercise(v.preapprovalProposalCid, 'TransferPreapprovalProposal_Accept', { context: a.context, inputs, expiresAt: v.expiresAt }) as PreapprovalOutcome;
          outcomes.push({ tag: 'COO_AcceptTransferPreapprovalProposal', value: r.transferPreapprovalCid });
          inputs = inputsAfterPreapprovalPayment(inputs, r);
          break;
        }
        case 'CO_RenewTransferPreapproval': {
          const v = op.value;
          const r = ctx.exercise(v.previousApprovalCid, 'TransferPreapproval_Renew', { context: a.context, inputs, newExpiresAt: v.newExpiresAt }) as PreapprovalOutcome;
          outcomes.push({ tag: 'COO_RenewTransferPreapproval', value: r.transferPreapprovalCid });
          inputs = inputsAfterPreapprovalPayment(inputs, r);
          break;
        }
        case 'CO_TransferPreapprovalSend': {
          const v = op.value;
          const context = { ...a.context, context: { ...a.context.context, featuredAppRight: v.providerFeaturedAppRightCid } };
          const r = ctx.exercise(v.transferPreapprovalCid, 'TransferPreapproval_Send', {
            sender: p.endUserParty,
            context,
            inputs,
            amount: v.amount,
            description: v.description,
          }) as { result: { senderChangeAmulet: string | null } };
          outcomes.push({ tag: 'COO_TransferPreapprovalSend', value: r.result.senderChangeAmulet });
          inputs = changeInputs(r.result.senderChangeAmulet);
          break;
        }
        default:
          failGeneral(ctx, `${op.tag}: this wallet operation is not modelled by the emulator`);
      }
    }
    return { endUserName: p.endUserName, outcomes, optEndUserParty: p.endUserParty };
  };
  const walletAppInstall: TemplateDef<WalletAppInstallPayload> = {
    id: AmuletIds.WalletAppInstall,
    kind: 'native',
    signatories: installSignatories,
    observers: () => [],
    parsePayload: recordParser(T.WalletAppInstall, 'createArguments'),
    payloadType: T.WalletAppInstall,
    choices: {
      WalletAppInstall_ExecuteBatch: viaValidator<BatchArg>(
        'WalletAppInstall_ExecuteBatch',
        rec(['context', T.PaymentTransferContext], ['inputs', list(T.TransferInput)], ['operations', list(AmuletOperation)]),
        executeBatch,
      ),
      WalletAppInstall_CreateTransferOffer: viaValidator<{ receiver: string; amount: PaymentAmountV; description: string; expiresAt: string; trackingId: string }>(
        'WalletAppInstall_CreateTransferOffer',
        rec(['receiver', 'party'], ['amount', T.PaymentAmount], ['description', 'text'], ['expiresAt', 'time'], ['trackingId', 'text']),
        (ctx, p, a) => ({
          transferOffer: ctx.create(AmuletIds.TransferOffer, {
            sender: p.endUserParty,
            receiver: a.receiver,
            dso: p.dsoParty,
            amount: a.amount,
            description: a.description,
            expiresAt: a.expiresAt,
            trackingId: a.trackingId,
          }),
        }),
      ),
      WalletAppInstall_TransferOffer_Accept: viaValidator<{ cid: string }>('WalletAppInstall_TransferOffer_Accept', rec(['cid', 'cid']), (ctx, _p, a) => {
        const r = ctx.exercise(a.cid, 'TransferOffer_Accept', {}) as { acceptedTransferOffer: string };
        return { acceptedTransferOffer: r.acceptedTransferOffer };
      }),
      WalletAppInstall_TransferOffer_Reject: viaValidator<{ cid: string }>('WalletAppInstall_TransferOffer_Reject', rec(['cid', 'cid']), (ctx, _p, a) => ({
        trackingInfo: (ctx.exercise(a.cid, 'TransferOffer_Reject', {}) as { trackingInfo: unknown }).trackingInfo,
      })),
      WalletAppInstall_TransferOffer_Withdraw: viaValidator<{ cid: string; reason: string }>(
        'WalletAppInstall_TransferOffer_Withdraw',
        rec(['cid', 'cid'], ['reason', 'text']),
        (ctx, _p, a) => ({ trackingInfo: (ctx.exercise(a.cid, 'TransferOffer_Withdraw', { reason: a.reason }) as { trackingInfo: unknown }).trackingInfo }),
      ),
      WalletAppInstall_TransferOffer_Expire: viaValidator<{ cid: string }>('WalletAppInstall_TransferOffer_Expire', rec(['cid', 'cid']), (ctx, p, a) => ({
        trackingInfo: (ctx.exercise(a.cid, 'TransferOffer_Expire', { actor: p.endUserParty }) as { trackingInfo: unknown }).trackingInfo,
      })),
      WalletAppInstall_AcceptedTransferOffer_Abort: viaValidator<{ cid: string; reason: string }>(
        'WalletAppInstall_AcceptedTransferOffer_Abort',
        rec(['cid', 'cid'], ['reason', 'text']),
        (ctx, _p, a) => ({ trackingInfo: (ctx.exercise(a.cid, 'AcceptedTransferOffer_Abort', { reason: a.reason }) as { trackingInfo: unknown }).trackingInfo }),
      ),
      WalletAppInstall_AcceptedTransferOffer_Withdraw: viaValidator<{ cid: string; reason: string }>(
        'WalletAppInstall_AcceptedTransferOffer_Withdraw',
        rec(['cid', 'cid'], ['reason', 'text']),
        (ctx, _p, a) => ({ trackingInfo: (ctx.exercise(a.cid, 'AcceptedTransferOffer_Withdraw', { reason: a.reason }) as { trackingInfo: unknown }).trackingInfo }),
      ),
      WalletAppInstall_AcceptedTransferOffer_Expire: viaValidator<{ cid: string }>('WalletAppInstall_AcceptedTransferOffer_Expire', rec(['cid', 'cid']), (ctx, p, a) => ({
        trackingInfo: (ctx.exercise(a.cid, 'AcceptedTransferOffer_Expire', { actor: p.endUserParty }) as { trackingInfo: unknown }).trackingInfo,
      })),
    },
    implements: [],
  };

  return [transferOffer, acceptedTransferOffer, walletAppInstall] as TemplateDef[];
}
