/**
 * Traffic bought through a user's wallet, as splice-wallet 0.1.23 does it
 * (`Splice.Wallet.BuyTrafficRequest`, `Splice.Wallet.Install`): the validator's
 * `POST /v0/wallet/buy-traffic-requests` creates a `BuyTrafficRequest` (signatory the end user)
 * with `WalletAppInstall_CreateBuyTrafficRequest`; the wallet automation completes it with
 * `WalletAppInstall_ExecuteBatch [CO_CompleteBuyTrafficRequest]` (./wallet.ts), whose
 * `BuyTrafficRequest_Complete` buys the traffic with `AmuletRules_BuyMemberTraffic` (./traffic.ts)
 * from the user's amulets; or it cancels it (`WalletAppInstall_BuyTrafficRequest_Cancel`, e.g. out
 * of funds) or expires it (`WalletAppInstall_BuyTrafficRequest_Expire`).
 *
 * Behaviour learnt from the Daml of hyperledger-labs/splice, re-written here. `BuyTrafficRequest_Complete`
 * passes `expectedDso = Some dso` to AmuletRules_BuyMemberTraffic, as 0.1.22's choice requires it set.
 */
import type { TemplateDef, TemplateRegistry } from '../../participant/templates.js';
import type { QualifiedId } from '../../participant/types.js';
import { formatTime, parseTime } from '../../../canton/lf-value.js';
import { recordParser } from '../../lf-value/native-json-codec.js';
import { list, rec } from '../../lf-value/native-type.js';
import { nativeChoice } from '../native-choice.js';
import { AmuletIds, SPLICE_WALLET_PACKAGE_ID, SPLICE_WALLET_PACKAGE_NAME, T, require, type PaymentTransferContextV, type TransferInputV, type WalletAppInstallPayload } from './values.js';

export const BuyTrafficRequestId: QualifiedId = {
  packageId: SPLICE_WALLET_PACKAGE_ID,
  packageName: SPLICE_WALLET_PACKAGE_NAME,
  moduleName: 'Splice.Wallet.BuyTrafficRequest',
  entityName: 'BuyTrafficRequest',
};

export interface BuyTrafficRequestPayload {
  dso: string;
  endUserParty: string;
  expiresAt: string;
  trackingId: string;
  trafficAmount: string;
  memberId: string;
  synchronizerId: string;
  migrationId: string;
}

const BuyTrafficRequestT = rec(
  ['dso', 'party'],
  ['endUserParty', 'party'],
  ['expiresAt', 'time'],
  ['trackingId', 'text'],
  ['trafficAmount', 'int'],
  ['memberId', 'text'],
  ['synchronizerId', 'text'],
  ['migrationId', 'int'],
);

const trackingInfo = (p: BuyTrafficRequestPayload) => ({ trackingId: p.trackingId, endUserParty: p.endUserParty });

interface CreateArg {
  memberId: string;
  synchronizerId: string;
  migrationId: string;
  trafficAmount: string;
  expiresAt: string;
  trackingId: string;
}

/**
 * Registers BuyTrafficRequest and adds the WalletAppInstall choices that create, cancel and
 * expire it (only where missing). Call after the wallet templates are registered.
 */
export function registerBuyTrafficRequests(templates: TemplateRegistry): void {
  const install = templates.templateById(AmuletIds.WalletAppInstall) as TemplateDef<WalletAppInstallPayload> | undefined;
  if (!install) throw new Error('registerBuyTrafficRequests: register the wallet templates first');

  if (!templates.templateById(BuyTrafficRequestId)) {
    const request: TemplateDef<BuyTrafficRequestPayload> = {
      id: BuyTrafficRequestId,
      kind: 'native',
      signatories: (p) => [p.endUserParty],
      observers: () => [],
      parsePayload: recordParser(BuyTrafficRequestT, 'createArguments'),
      payloadType: BuyTrafficRequestT,
      choices: {
        BuyTrafficRequest_Complete: nativeChoice<BuyTrafficRequestPayload, { inputs: TransferInputV[]; context: PaymentTransferContextV; walletProvider: string }>(
          'BuyTrafficRequest_Complete',
          rec(['inputs', list(T.TransferInput)], ['context', T.PaymentTransferContext], ['walletProvider', 'party']),
          {
            consuming: true,
            controllers: (p, a) => [p.endUserParty, a.walletProvider],
            body: (ctx, self, a) => {
              const p = self.payload;
              require(ctx, 'Contract has not expired', ctx.nowMicros < parseTime(p.expiresAt));
              const r = ctx.exercise(
                a.context.amuletRules,
                'AmuletRules_BuyMemberTraffic',
                {
                  inputs: a.inputs,
                  context: a.context.context,
                  provider: p.endUserParty,
                  memberId: p.memberId,
                  synchronizerId: p.synchronizerId,
                  migrationId: p.migrationId,
                  trafficAmount: p.trafficAmount,
                  expectedDso: p.dso,
                },
                { templateId: AmuletIds.AmuletRules },
              ) as { purchasedTraffic: string; senderChangeAmulet: string | null };
              return { purchasedTraffic: r.purchasedTraffic, trackingInfo: trackingInfo(p), senderChangeAmulet: r.senderChangeAmulet };
            },
          },
        ),
        BuyTrafficRequest_Cancel: nativeChoice<BuyTrafficRequestPayload, { reason: string }>('BuyTrafficRequest_Cancel', rec(['reason', 'text']), {
          consuming: true,
          controllers: (p) => [p.endUserParty],
          body: (ctx, self) => {
            require(ctx, 'Contract has not expired', ctx.nowMicros < parseTime(self.payload.expiresAt));
            return { trackingInfo: trackingInfo(self.payload) };
          },
        }),
        BuyTrafficRequest_Expire: nativeChoice<BuyTrafficRequestPayload, Record<string, never>>('BuyTrafficRequest_Expire', rec(), {
          consuming: true,
          controllers: (p) => [p.endUserParty],
          body: (ctx, self) => {
            require(ctx, 'Contract has expired', ctx.nowMicros >= parseTime(self.payload.expiresAt));
            return { trackingInfo: trackingInfo(self.payload) };
          },
        }),
      },
      implements: [],
    };
    templates.register(request as TemplateDef);
  }

  const viaValidator = <A>(name: string, argT: Parameters<typeof nativeChoice>[1], body: Parameters<typeof nativeChoice<WalletAppInstallPayload, A>>[2]['body']) =>
    nativeChoice<WalletAppInstallPayload, A>(name, argT, { consuming: false, controllers: (p) => [p.validatorParty], body });

  install.choices.WalletAppInstall_CreateBuyTrafficRequest ??= viaValidator<CreateArg>(
    'WalletAppInstall_CreateBuyTrafficRequest',
    rec(['memberId', 'text'], ['synchronizerId', 'text'], ['migrationId', 'int'], ['trafficAmount', 'int'], ['expiresAt', 'time'], ['trackingId', 'text']),
    (ctx, self, a) => ({
      buyTrafficRequest: ctx.create(BuyTrafficRequestId, {
        dso: self.payload.dsoParty,
        endUserParty: self.payload.endUserParty,
        expiresAt: formatTime(parseTime(a.expiresAt)),
        trackingId: a.trackingId,
        trafficAmount: a.trafficAmount,
        memberId: a.memberId,
        synchronizerId: a.synchronizerId,
        migrationId: a.migrationId,
      }),
    }),
  );
  install.choices.WalletAppInstall_BuyTrafficRequest_Cancel ??= viaValidator<{ requestCid: string; reason: string }>(
    'WalletAppInstall_BuyTrafficRequest_Cancel',
    rec(['requestCid', 'cid'], ['reason', 'text']),
    (ctx, _self, a) => ({ trackingInfo: (ctx.exercise(a.requestCid, 'BuyTrafficRequest_Cancel', { reason: a.reason }) as { trackingInfo: unknown }).trackingInfo }),
  );
  install.choices.WalletAppInstall_BuyTrafficRequest_Expire ??= viaValidator<{ requestCid: string }>(
    'WalletAppInstall_BuyTrafficRequest_Expire',
    rec(['requestCid', 'cid']),
    (ctx, _self, a) => ({ trackingInfo: (ctx.exercise(a.requestCid, 'BuyTrafficRequest_Expire', {}) as { trackingInfo: unknown }).trackingInfo }),
  );
}
