/**
 * Synchronizer traffic bought with Amulet, as splice-amulet 0.1.22 does it
 * (`Splice.DecentralizedSynchronizer`, `Splice.AmuletRules` in canton-network/splice `daml/splice-amulet`):
 *  - the `MemberTraffic` template (signatory dso): one contract per purchase for a sequencer
 *    member (`PAR::…` / `MED::…`), synchronizer and migration id, with the bytes bought and what
 *    they cost; Scan sums them per member and synchronizer (`getTotalPurchasedMemberTraffic`);
 *  - `AmuletRules_BuyMemberTraffic` (controller provider), which the wallet SDK's
 *    `amulet.traffic.buy` builds: validates the synchronizer and the minimum top-up, prices the
 *    traffic (`computeSynchronizerFees`: `trafficAmount / 1e6 * extraTrafficPrice` USD, the price
 *    being $/MB, converted at the open round's amulet price), splits that amount off the
 *    provider's inputs and burns it (`splitAndBurn`, ./preapproval.ts), and creates a
 *    MemberTraffic for the purchase;
 *  - `AmuletRules_MergeMemberTrafficContracts` (controller dso): folds a member's contracts into one.
 *
 * Behaviour learnt from the Daml of hyperledger-labs/splice, re-written here.
 *
 * LIMITATIONS (deviations from Splice, and why):
 *  1. As for every burn here, no ValidatorRewardCoupon is created (rewards are not modelled;
 *     ./index.ts LIMITATIONS 3).
 *  2. The price is the open round's `trafficPrice` when set, else the configuration's
 *     `extraTrafficPrice` (the round's field, added with `trafficPrice` in 0.1.22's
 *     OpenMiningRound, takes precedence in Splice); the seeded rounds leave it unset.
 *  3. The wallet's `BuyTrafficRequest` flow (`WalletAppInstall_CreateBuyTrafficRequest`,
 *     `BuyTrafficRequest_Complete`) and the validator's automatic top-ups
 *     (`CO_BuyMemberTraffic`, `ValidatorTopUpState`) are not implemented.
 */
import type { TemplateDef, TemplateRegistry, UpdateContext } from '../../participant/templates.js';
import type { TrafficControlParameters } from '../../participant/traffic.js';
import type { QualifiedId } from '../../participant/types.js';
import { recordParser } from '../../lf-value/native-json-codec.js';
import { list, opt, rec } from '../../lf-value/native-type.js';
import { nativeChoice } from '../native-choice.js';
import { checkExpectedDso, splitAndBurn } from './preapproval.js';
import { transferConfigAmulet, type AmuletBehaviour } from './transfer.js';
import { fetchForDso, fetchOpenRound } from './fetch-checked.js';
import {
  AmuletIds,
  SPLICE_AMULET_PACKAGE_ID,
  SPLICE_AMULET_PACKAGE_NAME,
  T,
  dec,
  decText,
  divDec,
  failGeneral,
  intToDec,
  mulDec,
  showParty,
  type AmuletConfigV,
  type AmuletRulesPayload,
  type TransferContextV,
  type TransferInputV,
} from './values.js';

export const MemberTrafficId: QualifiedId = {
  packageId: SPLICE_AMULET_PACKAGE_ID,
  packageName: SPLICE_AMULET_PACKAGE_NAME,
  moduleName: 'Splice.DecentralizedSynchronizer',
  entityName: 'MemberTraffic',
};

export interface MemberTrafficPayload {
  dso: string;
  /** The sequencer member, `PAR::<uid>` or `MED::<uid>`. */
  memberId: string;
  synchronizerId: string;
  migrationId: string;
  /** Bytes of extra traffic bought. */
  totalPurchased: string;
  numPurchases: string;
  amuletSpent: string;
  usdSpent: string;
}

export const MemberTrafficT = rec(
  ['dso', 'party'],
  ['memberId', 'text'],
  ['synchronizerId', 'text'],
  ['migrationId', 'int'],
  ['totalPurchased', 'int'],
  ['numPurchases', 'int'],
  ['amuletSpent', 'decimal'],
  ['usdSpent', 'decimal'],
);

interface BuyMemberTrafficArg {
  inputs: TransferInputV[];
  context: TransferContextV;
  provider: string;
  memberId: string;
  synchronizerId: string;
  migrationId: string;
  trafficAmount: string;
  expectedDso: string | null;
}

const BuyMemberTrafficT = rec(
  ['inputs', list(T.TransferInput)],
  ['context', T.TransferContext],
  ['provider', 'party'],
  ['memberId', 'text'],
  ['synchronizerId', 'text'],
  ['migrationId', 'int'],
  ['trafficAmount', 'int'],
  ['expectedDso', opt('party')],
);

/** `throw (InvalidTransfer reason)`: the exception's message is the derived `show` of the reason. */
function invalidTransfer(ctx: UpdateContext, reason: string): never {
  return ctx.fail(reason, { errorId: 'UNHANDLED_EXCEPTION/Splice.AmuletRules:InvalidTransfer', category: 9 });
}

/** The USD and Amulet price of `trafficAmount` bytes (`computeSynchronizerFees`), as scaled decimals. */
export function synchronizerFees(trafficAmount: bigint, pricePerMbUsd: bigint, amuletPriceUsd: bigint): { usd: bigint; amulet: bigint } {
  const usd = mulDec(divDec(intToDec(trafficAmount), intToDec(1_000_000n)), pricePerMbUsd);
  return { usd, amulet: divDec(usd, amuletPriceUsd) };
}

/**
 * Registers MemberTraffic and adds `AmuletRules_BuyMemberTraffic` and
 * `AmuletRules_MergeMemberTrafficContracts` to the registered AmuletRules (only where missing).
 * Call after the Amulet templates are registered.
 */
export function registerMemberTraffic(templates: TemplateRegistry, behaviour: AmuletBehaviour): void {
  const rules = templates.templateById(AmuletIds.AmuletRules) as TemplateDef<AmuletRulesPayload> | undefined;
  if (!rules) throw new Error('registerMemberTraffic: register the Amulet templates first');

  if (!templates.templateById(MemberTrafficId)) {
    const memberTraffic: TemplateDef<MemberTrafficPayload> = {
      id: MemberTrafficId,
      kind: 'native',
      signatories: (p) => [p.dso],
      observers: () => [],
      ensure: (p) =>
        BigInt(p.totalPurchased) >= 0n &&
        BigInt(p.numPurchases) >= 0n &&
        dec(p.amuletSpent) >= 0n &&
        dec(p.usdSpent) >= 0n &&
        BigInt(p.migrationId) >= 0n &&
        p.memberId !== '' &&
        p.synchronizerId !== ''
          ? undefined
          : 'totalPurchased >= 0 && numPurchases >= 0 && amuletSpent >= 0.0 && usdSpent >= 0.0 && migrationId >= 0 && not (T.isEmpty memberId) && not (T.isEmpty synchronizerId)',
      parsePayload: recordParser(MemberTrafficT, 'createArguments'),
      payloadType: MemberTrafficT,
      choices: {},
      implements: [],
    };
    templates.register(memberTraffic as TemplateDef);
  }

  rules.choices.AmuletRules_BuyMemberTraffic ??= nativeChoice<AmuletRulesPayload, BuyMemberTrafficArg>('AmuletRules_BuyMemberTraffic', BuyMemberTrafficT, {
    consuming: false,
    controllers: (_p, a) => [a.provider],
    body: (ctx, self, a) => {
      const dso = self.payload.dso;
      checkExpectedDso(ctx, dso, a.expectedDso);
      const config = self.payload.configSchedule.initialValue; // futureValues is empty (AmuletRules' ensure)
      // validateBuyMemberTrafficInputs
      const sync = config.decentralizedSynchronizer;
      const fees = sync.fees;
      const required = sync.requiredSynchronizers.map.map(([id]) => id);
      if (!required.includes(a.synchronizerId)) invalidTransfer(ctx, `ITR_UnknownSynchronizer {synchronizerId = ${JSON.stringify(a.synchronizerId)}}`);
      const minTopup = BigInt(fees.minTopupAmount);
      if (BigInt(a.trafficAmount) < minTopup) {
        invalidTransfer(ctx, `ITR_InsufficientTopupAmount {requestedTopupAmount = ${a.trafficAmount}, minTopupAmount = ${minTopup}}`);
      }
      const round = fetchOpenRound(ctx, dso, a.context.openMiningRound);
      const createFee = transferConfigAmulet(round).createFee;
      const price = dec(round.trafficPrice ?? fees.extraTrafficPrice);
      // computeSynchronizerFees reads the amulet price through `OpenMiningRound_Fetch provider`
      // (a node of the transaction); its result is the round fetched above.
      ctx.exercise(a.context.openMiningRound, 'OpenMiningRound_Fetch', { p: a.provider }, { templateId: AmuletIds.OpenMiningRound });
      const cost = synchronizerFees(BigInt(a.trafficAmount), price, dec(round.amuletPrice));
      // The self-transfer of splitAndBurn burns the create fee itself: split off the rest.
      const burnt = splitAndBurn(ctx, behaviour, a.provider, cost.amulet - createFee, a.inputs, { amuletRules: self.contractId, context: a.context }, dso, 'traffic purchase');
      const purchasedTraffic = ctx.create(MemberTrafficId, {
        dso,
        memberId: a.memberId,
        synchronizerId: a.synchronizerId,
        migrationId: a.migrationId,
        totalPurchased: a.trafficAmount,
        numPurchases: '1',
        amuletSpent: decText(cost.amulet),
        usdSpent: decText(cost.usd),
      });
      const result = burnt.result as { round: unknown; summary: unknown; senderChangeAmulet: string | null };
      return {
        round: result.round,
        summary: result.summary,
        amuletPaid: decText(cost.amulet),
        purchasedTraffic,
        senderChangeAmulet: result.senderChangeAmulet,
        meta: burnt.meta,
      };
    },
  });

  rules.choices.AmuletRules_MergeMemberTrafficContracts ??= nativeChoice<AmuletRulesPayload, { trafficCids: string[] }>(
    'AmuletRules_MergeMemberTrafficContracts',
    rec(['trafficCids', list('cid')]),
    {
      consuming: false,
      controllers: (p) => [p.dso],
      body: (ctx, self, a) => {
        const dso = self.payload.dso;
        // `let firstCid::remainingCids = trafficCids`: an empty list is a pattern-match failure.
        const [firstCid, ...rest] = a.trafficCids;
        if (firstCid === undefined) return ctx.fail('Irrefutable pattern match failure', { errorId: 'UNHANDLED_EXCEPTION/GHC.Err:ErrorCall', category: 9 });
        const first = fetchTraffic(ctx, dso, firstCid);
        ctx.exercise(firstCid, 'Archive', {});
        let totalPurchased = BigInt(first.totalPurchased);
        let numPurchases = BigInt(first.numPurchases);
        let usdSpent = dec(first.usdSpent);
        let amuletSpent = dec(first.amuletSpent);
        for (const cid of rest) {
          const t = fetchTraffic(ctx, dso, cid);
          if (t.memberId !== first.memberId || t.synchronizerId !== first.synchronizerId || t.migrationId !== first.migrationId) {
            failGeneral(
              ctx,
              `Contract group identifier mismatch: expected ${showForMemberTraffic(dso, first)}, got ${showForMemberTraffic(t.dso, t)} for ${cid}`,
            );
          }
          ctx.exercise(cid, 'Archive', {});
          totalPurchased += BigInt(t.totalPurchased);
          numPurchases += BigInt(t.numPurchases);
          usdSpent += dec(t.usdSpent);
          amuletSpent += dec(t.amuletSpent);
        }
        const mergedTrafficCid = ctx.create(MemberTrafficId, {
          dso,
          memberId: first.memberId,
          synchronizerId: first.synchronizerId,
          migrationId: first.migrationId,
          totalPurchased: totalPurchased.toString(),
          numPurchases: numPurchases.toString(),
          amuletSpent: decText(amuletSpent),
          usdSpent: decText(usdSpent),
        });
        return { mergedTrafficCid };
      },
    },
  );
}

/** `fetchAndArchive (ForDso with dso)`'s checked fetch. */
const fetchTraffic = (ctx: UpdateContext, dso: string, cid: string) => fetchForDso<MemberTrafficPayload>(ctx, dso, cid, MemberTrafficId);

const showForMemberTraffic = (dso: string, t: MemberTrafficPayload) =>
  `ForMemberTraffic {dso = ${showParty(dso)}, memberId = ${JSON.stringify(t.memberId)}, synchronizerId = ${JSON.stringify(t.synchronizerId)}, migrationId = ${t.migrationId}}`;

/**
 * The synchronizer's traffic control parameters as the SVs set them from the AmuletConfig
 * (Splice's `ReconcileDynamicSynchronizerParametersTrigger`): the base rate is `burstAmount`
 * bytes per `burstWindow`, the read scaling factor `readVsWriteScalingFactor`.
 */
export function trafficControlParametersOf(config: AmuletConfigV): TrafficControlParameters {
  const fees = config.decentralizedSynchronizer.fees;
  return {
    maxBaseTrafficAmount: BigInt(fees.baseRateTrafficLimits.burstAmount),
    maxBaseTrafficAccumulationDurationMicros: BigInt(fees.baseRateTrafficLimits.burstWindow.microseconds),
    readVsWriteScalingFactor: BigInt(fees.readVsWriteScalingFactor),
    baseEventCost: 0n,
  };
}
