/**
 * Featured-app activity markers (CIP-0047), as splice-amulet's `Splice.Amulet` and the
 * `splice-api-featured-app-v1` API (hyperledger-labs/splice, daml/splice-api-featured-app-v1,
 * `Splice.Api.FeaturedAppRightV1`) define them:
 *  - the `FeaturedAppRight` template implements the API's `FeaturedAppRight` interface (view `dso`,
 *    `provider`) with the nonconsuming `FeaturedAppRight_CreateActivityMarker` (controller: the
 *    view's provider), which checks the beneficiaries (each weight in (0, 1], the weights adding up
 *    to exactly 1.0, at most 20 of them: `validateAppRewardBeneficiaries`), adds up the weights of
 *    a beneficiary named twice, and creates one `FeaturedAppActivityMarker` per beneficiary, in
 *    party order (`Map.fromListWithR`); the result lists them as interface contract ids;
 *  - the `FeaturedAppActivityMarker` template (signatory dso; observers provider and beneficiary;
 *    `ensure 0.0 < weight && weight <= 10000.0`), implementing the API's marker interface.
 * This is what the featured-app proxies (`splice-util-featured-app-proxies`: DelegateProxy,
 * WalletUserProxy) call on every proxied token-standard choice.
 *
 * LIMITATIONS: the markers stay on the ledger. The SVs' automation that turns them into
 * AppRewardCoupons, and the V2 interface (`Splice.Api.FeaturedAppRightV2`, with its extra
 * `weight` multiplier and choice observers), are not emulated (rewards are not modelled, see
 * ./index.ts LIMITATIONS 3).
 */
import type { InterfaceDef, InterfaceImpl, TemplateDef } from '../../participant/templates.js';
import { archiveChoice } from '../../participant/templates.js';
import type { QualifiedId } from '../../participant/types.js';
import { recordParser } from '../../lf-value/native-json-codec.js';
import { list, rec } from '../../lf-value/native-type.js';
import { nativeChoice } from '../native-choice.js';
import { NO_ARGS } from './choice-helpers.js';
import {
  AmuletIds,
  T,
  dec,
  decText,
  require,
  SPLICE_AMULET_PACKAGE_ID,
  SPLICE_AMULET_PACKAGE_NAME,
  type FeaturedAppRightPayload,
} from './values.js';

/** `splice-api-featured-app-v1` 1.0.0 (its package id, as bundled in the DARs that use it). */
const FEATURED_APP_API = {
  packageId: '7804375fe5e4c6d5afe067bd314c42fe0b7d005a1300019c73154dd939da4dda',
  packageName: 'splice-api-featured-app-v1',
  moduleName: 'Splice.Api.FeaturedAppRightV1',
} as const;

/** The interfaces of `Splice.Api.FeaturedAppRightV1`, with their choices. */
export const FeaturedAppApiV1 = {
  FeaturedAppRight: { id: { ...FEATURED_APP_API, entityName: 'FeaturedAppRight' }, choices: ['FeaturedAppRight_CreateActivityMarker'] },
  FeaturedAppActivityMarker: { id: { ...FEATURED_APP_API, entityName: 'FeaturedAppActivityMarker' }, choices: [] },
} as const satisfies Record<string, InterfaceDef>;

export const FeaturedAppActivityMarkerId: QualifiedId = {
  packageId: SPLICE_AMULET_PACKAGE_ID,
  packageName: SPLICE_AMULET_PACKAGE_NAME,
  moduleName: 'Splice.Amulet',
  entityName: 'FeaturedAppActivityMarker',
};

export interface FeaturedAppActivityMarkerPayload {
  dso: string;
  provider: string;
  beneficiary: string;
  weight: string;
}

const MarkerT = rec(['dso', 'party'], ['provider', 'party'], ['beneficiary', 'party'], ['weight', 'decimal']);
const CreateActivityMarkerT = rec(['beneficiaries', list(rec(['beneficiary', 'party'], ['weight', 'decimal']))]);

const ONE = dec('1.0');
const MAX_MARKER_WEIGHT = dec('10000.0');
const MAX_BENEFICIARIES = 20;

/** `interface instance Splice.Api.FeaturedAppRightV1.FeaturedAppRight for FeaturedAppRight`. */
export function featuredAppRightV1(): InterfaceImpl<FeaturedAppRightPayload> {
  return {
    interface: FeaturedAppApiV1.FeaturedAppRight,
    view: (p) => ({ dso: p.dso, provider: p.provider }),
    choices: {
      FeaturedAppRight_CreateActivityMarker: nativeChoice<FeaturedAppRightPayload, { beneficiaries: Array<{ beneficiary: string; weight: string }> }>(
        'FeaturedAppRight_CreateActivityMarker',
        CreateActivityMarkerT,
        {
          consuming: false,
          controllers: (p) => [p.provider],
          body: (ctx, self, a) => {
            const weights = a.beneficiaries.map((b) => dec(b.weight));
            require(ctx, 'Beneficiary weights are between 0.0 and 1.0', weights.every((w) => w > 0n && w <= ONE));
            require(ctx, 'Beneficiary weights add up to 1.0', weights.reduce((s, w) => s + w, 0n) === ONE);
            require(ctx, 'There are at most 20 beneficiaries', a.beneficiaries.length <= MAX_BENEFICIARIES);
            const grouped = new Map<string, bigint>();
            for (const b of a.beneficiaries) grouped.set(b.beneficiary, (grouped.get(b.beneficiary) ?? 0n) + dec(b.weight));
            // Map.toList: ascending party order.
            const parties = [...grouped.keys()].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
            const activityMarkerCids = parties.map((beneficiary) =>
              ctx.create(FeaturedAppActivityMarkerId, { dso: self.payload.dso, provider: self.payload.provider, beneficiary, weight: decText(grouped.get(beneficiary)!) }),
            );
            return { activityMarkerCids };
          },
        },
      ),
      Archive: archiveChoice((p: FeaturedAppRightPayload) => [p.dso]),
    },
  };
}

/** `template FeaturedAppActivityMarker` of `Splice.Amulet`. */
export function featuredAppActivityMarkerTemplate(): TemplateDef<FeaturedAppActivityMarkerPayload> {
  const signatories = (p: FeaturedAppActivityMarkerPayload) => [p.dso];
  return {
    id: FeaturedAppActivityMarkerId,
    kind: 'native',
    signatories,
    observers: (p) => [p.provider, p.beneficiary],
    ensure: (p) => {
      const w = dec(p.weight);
      return w > 0n && w <= MAX_MARKER_WEIGHT ? undefined : '0.0 < weight && weight <= 10000.0';
    },
    parsePayload: recordParser(MarkerT, 'createArguments'),
    payloadType: MarkerT,
    choices: {},
    implements: [
      {
        interface: FeaturedAppApiV1.FeaturedAppActivityMarker,
        view: (p) => ({ dso: p.dso, provider: p.provider, beneficiary: p.beneficiary, weight: p.weight }),
        choices: { Archive: archiveChoice(signatories) },
      },
    ],
  };
}

/** The `FeaturedAppRight` template: withdrawn by the DSO, cancelled by the provider. */
export function featuredAppRightTemplate(): TemplateDef<FeaturedAppRightPayload> {
  return {
    id: AmuletIds.FeaturedAppRight,
    kind: 'native',
    signatories: (p) => [p.dso],
    observers: (p) => [p.provider],
    ensure: (p) => (p.activityWeight === null || dec(p.activityWeight) >= 0n ? undefined : '0.0 <= fromOptional defaultAppActivityWeight activityWeight'),
    parsePayload: recordParser(T.FeaturedAppRight, 'createArguments'),
    payloadType: T.FeaturedAppRight,
    choices: {
      FeaturedAppRight_Withdraw: nativeChoice<FeaturedAppRightPayload, { reason: string }>('FeaturedAppRight_Withdraw', rec(['reason', 'text']), {
        consuming: true,
        controllers: (p) => [p.dso],
        body: () => ({}),
      }),
      FeaturedAppRight_Cancel: nativeChoice<FeaturedAppRightPayload, Record<string, never>>('FeaturedAppRight_Cancel', NO_ARGS, {
        consuming: true,
        controllers: (p) => [p.provider],
        body: () => ({}),
      }),
    },
    implements: [featuredAppRightV1()],
  };
}
