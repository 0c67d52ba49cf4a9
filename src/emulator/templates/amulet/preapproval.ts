/**
 * Transfer pre-approvals bought through the ledger, as Splice does it (splice-wallet
 * `Splice.Wallet.TransferPreapproval`, splice-amulet `Splice.AmuletRules`):
 *  - the `TransferPreapprovalProposal` template (splice-wallet; signatory receiver, observer
 *    provider) with `TransferPreapprovalProposal_Accept` (controller provider), which is what the
 *    wallet SDK's `amulet.preapproval.command.create` builds and the provider's validator
 *    automation accepts (src/emulator/validator/wallet-preapprovals.ts);
 *  - `AmuletRules_CreateTransferPreapproval` (controllers provider and receiver) and
 *    `TransferPreapproval_Renew` (controller provider), added to the AmuletRules and
 *    TransferPreapproval templates (./amulet-rules.ts, ./transfer-preapproval.ts) when those lack them;
 *  - `payForTransferPreapproval`: the provider pays for the part of the pre-approval's lifetime
 *    beyond `transferPreapprovalBaseDuration` (default 90 days, so the validator's default 90-day
 *    pre-approvals are free) at `transferPreapprovalFee` USD per day (default 0.00274), converted
 *    at the open round's amulet price, by splitting that amount off the provider's inputs with a
 *    self-transfer and burning (archiving) the split amulet.
 *
 * Behaviour learnt from the Daml of canton-network/splice (obsidiansystems fork), re-written here.
 *
 * LIMITATIONS (deviations from Splice, and why):
 *  1. The burn creates no ValidatorRewardCoupon and logs no TransferEventsV2 burn event (rewards and
 *     the V2 event log are not modelled; ./index.ts LIMITATIONS 3).
 *  2. The split is done with the emulator's `executeTransfer` (output metadata is not stored on
 *     amulets there either), so the self-transfer's `meta` is the emulator's merge-split meta.
 *  3. `AmuletRules_CreateExternalPartySetupProposal` and `TransferPreapproval_SendV2` are not
 *     implemented (external-party setup is not modelled; the ExternalPartyConfigState is, see
 *     ./external-party-config-state.ts).
 */
import type { TemplateDef, TemplateRegistry, UpdateContext } from '../../participant/templates.js';
import type { QualifiedId } from '../../participant/types.js';
import { formatTime, parseTime } from '../../../canton/lf-value.js';
import { recordParser } from '../../lf-value/native-json-codec.js';
import { list, opt, rec } from '../../lf-value/native-type.js';
import { nativeChoice } from '../native-choice.js';
import { executeTransfer, holdingTxMeta, type AmuletBehaviour } from './transfer.js';
import { fetchForDso } from './fetch-checked.js';
import {
  AmuletIds,
  META,
  SPLICE_WALLET_PACKAGE_ID,
  SPLICE_WALLET_PACKAGE_NAME,
  T,
  assertDeadlineExceeded,
  assertWithinDeadline,
  dec,
  decText,
  divDec,
  failGeneral,
  mulDec,
  require,
  showParty,
  type AmuletPayload,
  type AmuletRulesPayload,
  type MetadataV,
  type OpenMiningRoundPayload,
  type PaymentTransferContextV,
  type TransferInputV,
  type TransferPreapprovalPayload,
} from './values.js';

export const TransferPreapprovalProposalId: QualifiedId = {
  packageId: SPLICE_WALLET_PACKAGE_ID,
  packageName: SPLICE_WALLET_PACKAGE_NAME,
  moduleName: 'Splice.Wallet.TransferPreapproval',
  entityName: 'TransferPreapprovalProposal',
};

export interface TransferPreapprovalProposalPayload {
  receiver: string;
  provider: string;
  /** Optional only for upgrade reasons; AmuletRules_CreateTransferPreapproval requires it set. */
  expectedDso: string | null;
}

/** `defaultTransferPreapprovalFee` (USD per day) and `defaultTransferPreapprovalBaseDuration` (Splice.AmuletConfig). */
export const DEFAULT_TRANSFER_PREAPPROVAL_FEE_USD = '0.00274';
export const DEFAULT_TRANSFER_PREAPPROVAL_BASE_DURATION_MICROS = 90n * 24n * 3600n * 1_000_000n;
const MICROS_PER_DAY = 24n * 3600n * 1_000_000n;

const ProposalT = rec(['receiver', 'party'], ['provider', 'party'], ['expectedDso', opt('party')]);


/** `checkExpectedDso` (Splice.AmuletRules). */
export function checkExpectedDso(ctx: UpdateContext, dso: string, expected: string | null): void {
  if (expected === null) failGeneral(ctx, 'Expected DSO party not set by caller. Please change your code to set it as a prudent security measure.');
  if (expected !== dso) failGeneral(ctx, `DSO party expected by caller ${showParty(expected)} does not match actual DSO party ${showParty(dso)}`);
}

/** `getAndValidateCreatedAt`: the caller's time must not be in the future; default: ledger time. */
function createdAtOf(ctx: UpdateContext, optCreatedAt: string | null): string {
  if (optCreatedAt === null) return formatTime(ctx.nowMicros);
  assertDeadlineExceeded(ctx, 'createdAt', optCreatedAt);
  return optCreatedAt;
}

export interface PreapprovalPayment {
  amuletPaid: string;
  transferResult: Record<string, unknown>;
  meta: MetadataV;
}

/**
 * `payForTransferPreapproval reason dso provider context inputs from to`: free up to the base
 * duration (a zero TransferResult at the context's round); beyond it the provider splits the fee
 * off its inputs and burns it (`splitAndBurn`).
 */
export function payForTransferPreapproval(
  ctx: UpdateContext,
  behaviour: AmuletBehaviour,
  reason: string,
  dso: string,
  provider: string,
  context: PaymentTransferContextV,
  inputs: TransferInputV[],
  from: string,
  to: string,
): PreapprovalPayment {
  const rules = fetchForDso<AmuletRulesPayload>(ctx, dso, context.amuletRules, AmuletIds.AmuletRules);
  const config = rules.configSchedule.initialValue; // futureValues is empty (AmuletRules' ensure)
  const base = config.transferPreapprovalBaseDuration ? BigInt(config.transferPreapprovalBaseDuration.microseconds) : DEFAULT_TRANSFER_PREAPPROVAL_BASE_DURATION_MICROS;
  const paidExtension = parseTime(to) - parseTime(from) - base;
  if (paidExtension <= 0n) {
    const round = fetchForDso<OpenMiningRoundPayload>(ctx, dso, context.context.openMiningRound, AmuletIds.OpenMiningRound);
    const zero = decText(0n);
    return {
      amuletPaid: zero,
      transferResult: {
        round: round.round,
        summary: {
          inputAppRewardAmount: zero,
          inputValidatorRewardAmount: zero,
          inputSvRewardAmount: zero,
          inputAmuletAmount: zero,
          balanceChanges: [],
          holdingFees: zero,
          outputFees: [],
          senderChangeFee: zero,
          senderChangeAmount: zero,
          amuletPrice: round.amuletPrice,
          inputValidatorFaucetAmount: null,
          inputUnclaimedActivityRecordAmount: null,
          inputDevelopmentFundAmount: null,
        },
        createdAmulets: [],
        senderChangeAmulet: null,
        meta: null,
      },
      meta: { values: {} },
    };
  }
  // computeTransferPreapprovalFee
  const feePerDayUsd = dec(config.transferPreapprovalFee ?? DEFAULT_TRANSFER_PREAPPROVAL_FEE_USD);
  const days = divDec(paidExtension, MICROS_PER_DAY);
  const feeUsd = mulDec(days, feePerDayUsd);
  const round = ctx.exercise(context.context.openMiningRound, 'OpenMiningRound_Fetch', { p: dso }) as OpenMiningRoundPayload;
  if (round.dso !== dso) failGeneral(ctx, `Contract group identifier mismatch: expected ForDso {dso = ${showParty(dso)}}, got ForDso {dso = ${showParty(round.dso)}} for ${context.context.openMiningRound}`);
  const amuletPaid = divDec(feeUsd, dec(round.amuletPrice));
  const r = splitAndBurn(ctx, behaviour, provider, amuletPaid, inputs, context, dso, reason);
  return { amuletPaid: decText(amuletPaid), transferResult: r.result, meta: r.meta };
}

/** `splitAndBurn`: a self-transfer of `amount` to the provider, whose output is archived. */
export function splitAndBurn(
  ctx: UpdateContext,
  behaviour: AmuletBehaviour,
  sender: string,
  amount: bigint,
  inputs: TransferInputV[],
  context: PaymentTransferContextV,
  dso: string,
  usage: string,
): { result: Record<string, unknown>; meta: MetadataV } {
  const t = executeTransfer(ctx, behaviour, dso, context.context, {
    sender,
    provider: sender,
    inputs,
    outputs: [{ receiver: sender, receiverFeeRatio: decText(0n), amount: decText(amount), lock: null, meta: { values: { [META.reason]: `split for ${usage}` } } }],
    beneficiaries: null,
  });
  const amuletCid = t.createdAmulets[0]!.value;
  const amulet = ctx.fetch(amuletCid, AmuletIds.Amulet).payload as AmuletPayload;
  ctx.exercise(amuletCid, 'Archive', {});
  const rate = dec(amulet.amount.ratePerRound.rate);
  const asOfRoundZero = dec(amulet.amount.initialAmount) + rate * BigInt(amulet.amount.createdAt.number);
  const summary = t.result.summary as {
    balanceChanges: Array<[string, { changeToInitialAmountAsOfRoundZero: string; changeToHoldingFeesRate: string }]>;
    outputFees: string[];
    holdingFees: string;
    senderChangeFee: string;
  };
  // Map.insertWith (+) sender (BalanceChange (-amuletAsOfRoundZero) (-rate))
  const changes = new Map(summary.balanceChanges.map(([p, c]) => [p, { a: dec(c.changeToInitialAmountAsOfRoundZero), r: dec(c.changeToHoldingFeesRate) }]));
  const prev = changes.get(sender) ?? { a: 0n, r: 0n };
  changes.set(sender, { a: prev.a - asOfRoundZero, r: prev.r - rate });
  const balanceChanges = [...changes.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([p, c]) => [p, { changeToInitialAmountAsOfRoundZero: decText(c.a), changeToHoldingFeesRate: decText(c.r) }]);
  const totalBurn = summary.outputFees.reduce((s, f) => s + dec(f), 0n) + dec(summary.holdingFees) + dec(summary.senderChangeFee);
  // simpleHoldingTxMeta TxKind_Burn (Some usage) (Some burnAmount) <> transferResult.meta (TextMap union, left-biased)
  const burnMeta = holdingTxMeta('burn', usage, null, totalBurn + amount);
  const values = { ...t.meta.values, ...burnMeta.values };
  const meta = { values: Object.fromEntries(Object.entries(values).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) };
  return { result: { ...t.result, summary: { ...t.result.summary as object, balanceChanges }, meta: null }, meta };
}

interface CreatePreapprovalArg {
  context: PaymentTransferContextV;
  inputs: TransferInputV[];
  receiver: string;
  provider: string;
  expiresAt: string;
  expectedDso: string | null;
  optCreatedAt: string | null;
}

/**
 * Registers TransferPreapprovalProposal and adds `AmuletRules_CreateTransferPreapproval` and
 * `TransferPreapproval_Renew` to the registered AmuletRules and TransferPreapproval templates
 * (only where missing). Call after the Amulet templates are registered.
 */
export function registerTransferPreapprovals(templates: TemplateRegistry, behaviour: AmuletBehaviour): void {
  const rules = templates.templateById(AmuletIds.AmuletRules) as TemplateDef<AmuletRulesPayload> | undefined;
  const preapproval = templates.templateById(AmuletIds.TransferPreapproval) as TemplateDef<TransferPreapprovalPayload> | undefined;
  if (!rules || !preapproval) throw new Error('registerTransferPreapprovals: register the Amulet templates first');

  rules.choices.AmuletRules_CreateTransferPreapproval ??= nativeChoice<AmuletRulesPayload, CreatePreapprovalArg>(
    'AmuletRules_CreateTransferPreapproval',
    rec(
      ['context', T.PaymentTransferContext],
      ['inputs', list(T.TransferInput)],
      ['receiver', 'party'],
      ['provider', 'party'],
      ['expiresAt', 'time'],
      ['expectedDso', opt('party')],
      ['optCreatedAt', opt('time')],
    ),
    {
      consuming: false,
      controllers: (_p, a) => [a.provider, a.receiver],
      body: (ctx, self, a) => {
        const dso = self.payload.dso;
        checkExpectedDso(ctx, dso, a.expectedDso);
        const createdAt = createdAtOf(ctx, a.optCreatedAt);
        assertWithinDeadline(ctx, 'expiresAt', a.expiresAt);
        const paid = payForTransferPreapproval(ctx, behaviour, 'create TransferPreapproval', dso, a.provider, a.context, a.inputs, createdAt, a.expiresAt);
        const transferPreapprovalCid = ctx.create(AmuletIds.TransferPreapproval, {
          dso,
          receiver: a.receiver,
          provider: a.provider,
          validFrom: createdAt,
          lastRenewedAt: createdAt,
          expiresAt: a.expiresAt,
        });
        return { transferPreapprovalCid, transferResult: paid.transferResult, amuletPaid: paid.amuletPaid, meta: paid.meta };
      },
    },
  );

  preapproval.choices.TransferPreapproval_Renew ??= nativeChoice<TransferPreapprovalPayload, { context: PaymentTransferContextV; inputs: TransferInputV[]; newExpiresAt: string }>(
    'TransferPreapproval_Renew',
    rec(['context', T.PaymentTransferContext], ['inputs', list(T.TransferInput)], ['newExpiresAt', 'time']),
    {
      consuming: true,
      controllers: (p) => [p.provider],
      body: (ctx, self, a) => {
        const p = self.payload;
        assertWithinDeadline(ctx, 'TransferPreapproval.expiresAt', p.expiresAt);
        require(ctx, 'newExpiresAt is after expiresAt', parseTime(a.newExpiresAt) > parseTime(p.expiresAt));
        const paid = payForTransferPreapproval(ctx, behaviour, 'renew TransferPreapproval', p.dso, p.provider, a.context, a.inputs, p.expiresAt, a.newExpiresAt);
        const transferPreapprovalCid = ctx.create(AmuletIds.TransferPreapproval, { ...p, lastRenewedAt: p.expiresAt, expiresAt: a.newExpiresAt });
        return { transferPreapprovalCid, transferResult: paid.transferResult, receiver: p.receiver, provider: p.provider, amuletPaid: paid.amuletPaid, meta: paid.meta };
      },
    },
  );

  if (templates.templateById(TransferPreapprovalProposalId)) return;
  const proposal: TemplateDef<TransferPreapprovalProposalPayload> = {
    id: TransferPreapprovalProposalId,
    kind: 'native',
    signatories: (p) => [p.receiver],
    observers: (p) => [p.provider],
    parsePayload: recordParser(ProposalT, 'createArguments'),
    payloadType: ProposalT,
    choices: {
      TransferPreapprovalProposal_Accept: nativeChoice<TransferPreapprovalProposalPayload, { context: PaymentTransferContextV; inputs: TransferInputV[]; expiresAt: string }>(
        'TransferPreapprovalProposal_Accept',
        rec(['context', T.PaymentTransferContext], ['inputs', list(T.TransferInput)], ['expiresAt', 'time']),
        {
          consuming: true,
          controllers: (p) => [p.provider],
          body: (ctx, self, a) => {
            const p = self.payload;
            assertWithinDeadline(ctx, 'expiresAt is not in the past', a.expiresAt);
            const r = ctx.exercise(
              a.context.amuletRules,
              'AmuletRules_CreateTransferPreapproval',
              {
                context: a.context,
                inputs: a.inputs,
                receiver: p.receiver,
                provider: p.provider,
                expiresAt: a.expiresAt,
                expectedDso: p.expectedDso,
                optCreatedAt: formatTime(ctx.nowMicros),
              },
              { templateId: AmuletIds.AmuletRules },
            ) as { transferPreapprovalCid: string; transferResult: unknown; amuletPaid: string };
            return { transferPreapprovalCid: r.transferPreapprovalCid, transferResult: r.transferResult, amuletPaid: r.amuletPaid };
          },
        },
      ),
    },
    implements: [],
  };
  templates.register(proposal as TemplateDef);
}
