/**
 * The TransferPreapproval template of splice-amulet `Splice.AmuletRules`: fetch, send (a payment
 * transfer to the pre-approved receiver), cancel and expire. Buying and renewing one is in
 * ./preapproval.ts.
 */
import type { TemplateDef } from '../../participant/templates.js';
import { parseTime } from '../../../canton/lf-value.js';
import { recordParser } from '../../lf-value/native-json-codec.js';
import { list, opt, rec } from '../../lf-value/native-type.js';
import { nativeChoice } from '../native-choice.js';
import { fetchByPartyChoice, NO_ARGS, P_ARG, sortObject } from './choice-helpers.js';
import { exercisePaymentTransfer } from './transfer.js';
import {
  AmuletIds,
  META,
  T,
  assertWithinDeadline,
  decText,
  require,
  showParty,
  type PaymentTransferContextV,
  type TransferInputV,
  type TransferPreapprovalPayload,
} from './values.js';

interface SendArg {
  context: PaymentTransferContextV;
  inputs: TransferInputV[];
  amount: string;
  sender: string;
  description: string | null;
}

export function transferPreapprovalTemplate(): TemplateDef<TransferPreapprovalPayload> {
  return {
    id: AmuletIds.TransferPreapproval,
    kind: 'native',
    signatories: (p) => [p.receiver, p.provider, p.dso],
    observers: () => [],
    ensure: (p) =>
      parseTime(p.expiresAt) > parseTime(p.validFrom) && parseTime(p.lastRenewedAt) >= parseTime(p.validFrom)
        ? undefined
        : '(expiresAt > validFrom) && (lastRenewedAt >= validFrom)',
    parsePayload: recordParser(T.TransferPreapproval, 'createArguments'),
    payloadType: T.TransferPreapproval,
    choices: {
      TransferPreapproval_Fetch: fetchByPartyChoice<TransferPreapprovalPayload>('TransferPreapproval_Fetch'),
      TransferPreapproval_Send: nativeChoice<TransferPreapprovalPayload, SendArg>(
        'TransferPreapproval_Send',
        rec(['context', T.PaymentTransferContext], ['inputs', list(T.TransferInput)], ['amount', 'decimal'], ['sender', 'party'], ['description', opt('text')]),
        {
          consuming: false,
          controllers: (_p, a) => [a.sender],
          body: (ctx, self, a) => {
            const p = self.payload;
            assertWithinDeadline(ctx, 'TransferPreapproval.expiresAt', p.expiresAt);
            const r = exercisePaymentTransfer(ctx, p.dso, a.context, {
              sender: a.sender,
              provider: p.provider,
              inputs: a.inputs,
              outputs: [{ receiver: p.receiver, receiverFeeRatio: decText(0n), amount: a.amount, lock: null, meta: null }],
              beneficiaries: null,
            });
            const values = { ...r.meta.values };
            if (a.description !== null) values[META.reason] = a.description;
            return { result: { ...r.result, meta: null }, meta: { values: sortObject(values) } };
          },
        },
      ),
      TransferPreapproval_Cancel: nativeChoice<TransferPreapprovalPayload, { p: string }>('TransferPreapproval_Cancel', P_ARG, {
        consuming: true,
        controllers: (_p, a) => [a.p],
        body: (ctx, self, a) => {
          require(ctx, `Controller ${showParty(a.p)} is either receiver or provider`, a.p === self.payload.receiver || a.p === self.payload.provider);
          assertWithinDeadline(ctx, 'TransferPreapproval.expiresAt', self.payload.expiresAt);
          return {};
        },
      }),
      TransferPreapproval_Expire: nativeChoice<TransferPreapprovalPayload, Record<string, never>>('TransferPreapproval_Expire', NO_ARGS, {
        consuming: true,
        controllers: (p) => [p.dso],
        body: (ctx, self) => {
          require(ctx, 'Contract has expired', ctx.nowMicros >= parseTime(self.payload.expiresAt));
          return {};
        },
      }),
    },
    implements: [],
  };
}
