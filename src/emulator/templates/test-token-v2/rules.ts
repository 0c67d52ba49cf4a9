/**
 * `Splice.Testing.Tokens.TestTokenV2`: the `TokenRules` template (Splice
 * `.../Testing/Tokens/TestTokenV2.daml`): the admin's single contract that serves the V1 and V2 TransferFactory, the V1 and V2
 * AllocationFactory, the V2 SettlementFactory and the EventLog, plus `TokenRules_OfferMint`.
 * It has no observers: wallets use it as a disclosed contract.
 */
import type { ChoiceDef, TemplateDef, UpdateContext } from '../../participant/templates.js';
import { formatTime, parseTime, type ExtraArgs } from '../../../canton/lf-value.js';
import { TS } from '../token-standard.js';
import { extractAccountConfigMap, mkAvailableActions, storeAccountConfigFor, transferInstructionStateMachine, type AccountConfigMap } from './account-config.js';
import {
  applyAllocationInstructionTransitions,
  validateNextIterationArgs,
  type AllocationInstructionResultV2,
  type AllocationKind,
  type TokenAllocationInstructionV2Payload,
} from './allocation.js';
import { eventLogChoice } from './events.js';
import { fetchView, TestTokenV2Ids } from './ids.js';
import { applyTransferInstructionTransitions, type CallSource, type TokenTransferOfferPayload } from './transfer.js';
import {
  accountParties,
  assertDeadlineExceeded,
  assertWithinDeadline,
  checkActors,
  fail,
  mintAccount,
  netAllocationCredit,
  reasonToMeta,
  receiverSide,
  requireMatchExpected,
  senderSide,
  requireR,
  upcastAllocationSpecification,
  upcastSettlementInfo,
  upcastTransfer,
} from './utils.js';
import {
  accountKey,
  action,
  compareAccount,
  dec,
  pAccount,
  pAccountConfig,
  pAllocationSpecificationV1,
  pAllocationSpecificationV2,
  pArg,
  pCid,
  pDecimal,
  pExtraArgs,
  pFinalizedAllocation,
  pInstrumentId,
  pList,
  pParty,
  pPayload,
  pSettlementInfoV2,
  pTime,
  pTransferLegV2,
  pTransferV1,
  pTransferV2,
  showAccount,
  showDecimal,
  showList,
  showParty,
  showText,
  type Account,
  type AccountConfig,
  type AllocationSpecificationV1,
  type AllocationSpecificationV2,
  type FinalizedAllocation,
  type InstrumentId,
  type SettlementInfoV2,
  type TransferLegSide,
  type TransferLegV2,
  type TransferV1,
  type TransferV2,
} from './values.js';
import type { AllocationResultV2 } from './allocation.js';
import { Tt2Types } from './types.js';

export interface TokenRulesPayload {
  admin: string;
}

const factoryView = (p: TokenRulesPayload) => ({ admin: p.admin, meta: { values: {} } });
const emptyMeta = () => ({ values: {} as Record<string, string> });

// ---- transfers ------------------------------------------------------------------------------------

/**
 * `token_transferFactory_transferImpl`: a virtual offer with nothing authorised yet, on which the
 * actors take `TIA_Accept` (for a basic sender: the sender's owner alone).
 */
function transferImpl(ctx: UpdateContext, admin: string, actors: string[], transfer: TransferV2, extraArgs: ExtraArgs) {
  requireR(
    ctx,
    transfer.instrumentId.admin === admin,
    'transfer.instrumentId.admin',
    showParty(transfer.instrumentId.admin),
    'is not equal to',
    'transferFactory.admin',
    showParty(admin),
  );
  assertDeadlineExceeded(ctx, 'transfer.requestedAt', transfer.requestedAt);
  // DEVIATION (LIMITATIONS 1): the interface says the factory MUST fail when executeBefore is in
  // the past; the reference token does not check it.
  assertWithinDeadline(ctx, 'transfer.executeBefore', transfer.executeBefore);
  const offer: TokenTransferOfferPayload = { actionAuthorizers: [], availableActions: [], transfer, originalInstructionCid: null, mintAmount: '0.0000000000' };
  return applyTransferInstructionTransitions(ctx, 'V2', offer, null, actors, action('TIA_Accept'), extraArgs);
}

interface TransferV2Arg {
  transfer: TransferV2;
  actors: string[];
  extraArgs: ExtraArgs;
}
interface TransferV1Arg {
  expectedAdmin: string;
  transfer: TransferV1;
  extraArgs: ExtraArgs;
}

// ---- allocations ----------------------------------------------------------------------------------

interface AllocateV2Arg {
  settlement: SettlementInfoV2;
  allocation: AllocationSpecificationV2;
  requestedAt: string;
  inputHoldingCids: string[];
  extraArgs: ExtraArgs;
  actors: string[];
}
interface AllocateV1Arg {
  expectedAdmin: string;
  allocation: AllocationSpecificationV1;
  requestedAt: string;
  inputHoldingCids: string[];
  extraArgs: ExtraArgs;
}

/** `token_allocationFactoryV2_allocateImpl`: a virtual instruction on which the actors take `AIA_Accept`. */
function allocateImpl(
  ctx: UpdateContext,
  callSource: CallSource,
  kind: AllocationKind,
  admin: string,
  allocateBefore: string | null,
  arg: AllocateV2Arg,
): AllocationInstructionResultV2 {
  requireMatchExpected(ctx, 'allocation.admin', arg.allocation.admin, admin, showParty);
  assertDeadlineExceeded(ctx, 'requestedAt', arg.requestedAt);
  const inputs: Record<string, string[]> = {};
  for (const cid of arg.inputHoldingCids) {
    const holding = (ctx.fetch(cid, TestTokenV2Ids.Token).payload as { holding: { account: Account; instrumentId: InstrumentId } }).holding;
    requireR(
      ctx,
      compareAccount(holding.account, arg.allocation.authorizer) === 0,
      'inputHolding.account',
      showAccount(holding.account),
      'is not equal to',
      'allocation.authorizer',
      showAccount(arg.allocation.authorizer),
    );
    requireMatchExpected(ctx, 'inputHolding.instrumentId.admin', holding.instrumentId.admin, admin, showParty);
    inputs[holding.instrumentId.id] = [...(inputs[holding.instrumentId.id] ?? []), cid];
  }
  const sortedInputs: Record<string, string[]> = {};
  for (const k of Object.keys(inputs).sort()) sortedInputs[k] = inputs[k]!;
  const instr: TokenAllocationInstructionV2Payload = {
    originalInstructionCid: null,
    actionAuthorizers: [],
    availableActions: [],
    inputHoldingCids: sortedInputs,
    settlement: arg.settlement,
    allocation: arg.allocation,
    admin,
    requestedAt: arg.requestedAt,
    allocateBefore,
  };
  return applyAllocationInstructionTransitions(ctx, callSource, kind, instr, null, arg.actors, action('AIA_Accept'), arg.extraArgs);
}

/** `allocationFactoryV2_privateAsset_allocateExtraObserversDefaultImpl`. */
function allocateObservers(arg: AllocateV2Arg): string[] {
  const a = arg.allocation;
  const credit = [...netAllocationCredit(a.authorizer, a.transferLegSides).values()];
  const noFundingRequired = credit.every((c) => c >= 0n) && Object.values(a.nextIterationFunding ?? {}).every((f) => dec(f) <= 0n);
  return [...accountParties(a.admin, a.authorizer), ...(noFundingRequired ? arg.settlement.executors : [])];
}

// ---- batch settlement -----------------------------------------------------------------------------

interface SettleBatchArg {
  settlement: SettlementInfoV2;
  transferLegs: TransferLegV2[];
  allocations: FinalizedAllocation[];
  actors: string[];
  extraArgs: ExtraArgs;
}

interface AllocationViewV2 {
  settlement: SettlementInfoV2;
  allocation: AllocationSpecificationV2;
}

const sideKey = (authorizer: Account, s: TransferLegSide) => JSON.stringify([accountKey(authorizer), s.transferLegId, s.side, accountKey(s.otherside), s.amount, s.instrumentId, s.meta]);
const showSide = (authorizer: Account, s: TransferLegSide) =>
  `(${showAccount(authorizer)},TransferLegSide {transferLegId = ${showText(s.transferLegId)}, side = ${s.side}, otherside = ${showAccount(s.otherside)}, amount = ${showDecimal(s.amount)}, instrumentId = ${showText(s.instrumentId)}})`;

/** `fetchAndValidateAllocations`: the allocations must cover exactly both sides of every leg. */
function fetchAndValidateAllocations(ctx: UpdateContext, admin: string, arg: SettleBatchArg): Array<[FinalizedAllocation, AllocationViewV2]> {
  const ids = arg.transferLegs.map((l) => l.transferLegId);
  const dups = [...new Set(ids.filter((id, i) => ids.indexOf(id) !== i))].sort();
  if (dups.length > 0) fail(ctx, ['Expected unique SettleBatch.transferLegsIds, but found duplicates:', ...dups.map(showText), ''].join('\n'));
  for (const leg of arg.transferLegs) requireR(ctx, dec(leg.amount) > 0n, 'transferLeg.amount', showDecimal(leg.amount), 'is not greater than', 'zero', '0.0');
  const out: Array<[FinalizedAllocation, AllocationViewV2]> = [];
  for (const fin of arg.allocations) {
    const { view } = fetchView<AllocationViewV2>(ctx, fin.allocationCid, TS.AllocationV2);
    requireMatchExpected(ctx, 'allocation.settlement', view.settlement, arg.settlement, (v) => JSON.stringify(v));
    requireMatchExpected(ctx, 'allocation.admin', view.allocation.admin, admin, showParty);
    validateNextIterationArgs(ctx, 'finalizedAllocation', view.allocation.nextIterationFunding !== null, fin.extraTransferLegSides, view.allocation.nextIterationFunding);
    out.push([fin, { ...view, allocation: { ...view.allocation, transferLegSides: [...view.allocation.transferLegSides, ...fin.extraTransferLegSides] } }]);
  }
  const allocated = out.flatMap(([, v]) => v.allocation.transferLegSides.map((s) => [v.allocation.authorizer, s] as [Account, TransferLegSide]));
  const triples = allocated.map(([auth, s]) => JSON.stringify([accountKey(auth), s.transferLegId, s.side]));
  const dupTriples = [...new Set(triples.filter((t, i) => triples.indexOf(t) !== i))];
  if (dupTriples.length > 0) fail(ctx, ['Expected unique transferLegIds of allocated authorizations, but found duplicates:', ...dupTriples, ''].join('\n'));
  const requiredSides: Array<[Account, TransferLegSide]> = arg.transferLegs.flatMap((l) => [
    [l.sender, senderSide(l)] as [Account, TransferLegSide],
    [l.receiver, receiverSide(l)] as [Account, TransferLegSide],
  ]);
  const required = new Map(requiredSides.map(([a, s]) => [sideKey(a, s), showSide(a, s)]));
  const have = new Map(allocated.map(([a, s]) => [sideKey(a, s), showSide(a, s)]));
  const missing = [...required].filter(([k]) => !have.has(k)).map(([, v]) => v);
  const superfluous = [...have].filter(([k]) => !required.has(k)).map(([, v]) => v);
  requireR(ctx, missing.length === 0, 'missing authorizations', `fromList ${showList(missing, (x) => x)}`, 'is not equal to', 'empty set', 'fromList []');
  requireR(ctx, superfluous.length === 0, 'superfluous authorizations', `fromList ${showList(superfluous, (x) => x)}`, 'is not equal to', 'empty set', 'fromList []');
  return out;
}

function settleBatch(ctx: UpdateContext, admin: string, arg: SettleBatchArg) {
  const accountMap: AccountConfigMap = extractAccountConfigMap(ctx, admin, arg.extraArgs, []);
  checkActors(ctx, arg.actors, [arg.settlement.executors]);
  // DEVIATION (LIMITATIONS 3): the interface says there MUST be at least one transfer leg; the
  // reference token would settle an empty batch.
  if (arg.transferLegs.length === 0) fail(ctx, 'SettlementFactory_SettleBatch: there must be at least one transfer leg');
  const allocations = fetchAndValidateAllocations(ctx, admin, arg);
  const allocationSettleResults = allocations.map(([fin, view]) => {
    const extraArgs = storeAccountConfigFor(view.allocation.authorizer, accountMap, arg.extraArgs);
    return ctx.exercise(
      fin.allocationCid,
      'Allocation_Settle',
      {
        actors: [view.allocation.admin, ...view.settlement.executors],
        extraTransferLegSides: fin.extraTransferLegSides,
        nextIterationFunding: fin.nextIterationFunding,
        extraArgs,
      },
      { interfaceId: TS.AllocationV2.id },
    ) as AllocationResultV2;
  });
  return { allocationSettleResults, meta: emptyMeta() };
}

// ---- mint -----------------------------------------------------------------------------------------

interface OfferMintArg {
  receiver: Account;
  amount: string;
  instrumentId: InstrumentId;
  offeredAt: string;
  receiverConfig: AccountConfig;
}

const SEVEN_DAYS_MICROS = 7n * 24n * 3600n * 1_000_000n;

/**
 * `TokenRules_OfferMint`: the admin offers freshly minted tokens; the offer's sender is the mint
 * account, already authorised by the admin, so the receiver's accept completes the mint.
 */
function offerMint(ctx: UpdateContext, admin: string, arg: OfferMintArg) {
  requireMatchExpected(ctx, 'instrumentId.admin', arg.instrumentId.admin, admin, showParty);
  assertDeadlineExceeded(ctx, 'offeredAt', arg.offeredAt);
  const mint = mintAccount();
  const mintConfig: AccountConfig = { admin, account: mint, ownerConfig: { canInitiate: true, mustApprove: true }, providerConfig: { canInitiate: false, mustApprove: false } };
  const accountMap: AccountConfigMap = new Map([
    [accountKey(arg.receiverConfig.account), { account: arg.receiverConfig.account, config: arg.receiverConfig, cid: null }],
    [accountKey(mint), { account: mint, config: mintConfig, cid: null }],
  ]);
  const adminApproved: Array<[{ tag: string; value: Record<string, unknown> }, string[]]> = [[action('TIA_Accept'), [admin]]];
  const transfer: TransferV2 = {
    sender: mint,
    receiver: arg.receiver,
    amount: arg.amount,
    instrumentId: arg.instrumentId,
    inputHoldingCids: [],
    requestedAt: arg.offeredAt,
    executeBefore: formatTime(parseTime(arg.offeredAt) + SEVEN_DAYS_MICROS),
    meta: reasonToMeta('mint offer'),
  };
  const sm = transferInstructionStateMachine(transfer.sender, transfer.receiver);
  const offerCid = ctx.create(TestTokenV2Ids.TokenTransferOffer, {
    originalInstructionCid: null,
    actionAuthorizers: adminApproved,
    availableActions: mkAvailableActions(ctx, sm, admin, adminApproved, accountMap),
    mintAmount: arg.amount,
    transfer,
  });
  return { offerCid, meta: emptyMeta() };
}

// ---- template -------------------------------------------------------------------------------------

const parseActors = pArg<{ actors: string[] }>({ actors: [pList(pParty), 'req'] });
const parseV1PublicFetch = pArg<{ expectedAdmin: string; actor: string }>({ expectedAdmin: [pParty, 'req'], actor: [pParty, 'req'] });

function v2PublicFetch(name: string): ChoiceDef<TokenRulesPayload, { actors: string[] }> {
  return { name, consuming: false, controllers: (_p, a) => a.actors, parseArgument: parseActors, body: (_ctx, self) => factoryView(self.payload) };
}
function v1PublicFetch(name: string): ChoiceDef<TokenRulesPayload, { expectedAdmin: string; actor: string }> {
  return { name, consuming: false, controllers: (_p, a) => [a.actor], parseArgument: parseV1PublicFetch, body: (_ctx, self) => factoryView(self.payload) };
}

/** V1 results: the V2 result with contract ids coerced; allocation change cids flattened. */
function downcastAllocationInstructionResult(r: AllocationInstructionResultV2) {
  return { output: r.output, senderChangeCids: Object.keys(r.authorizerChangeCids).sort().flatMap((k) => r.authorizerChangeCids[k]!), meta: r.meta };
}

export const tokenRulesTemplate: TemplateDef<TokenRulesPayload> = {
  id: TestTokenV2Ids.TokenRules,
  kind: 'native',
  signatories: (p) => [p.admin],
  observers: () => [],
  parsePayload: pPayload<TokenRulesPayload & Record<string, unknown>>({ admin: [pParty, 'req'] }),
  payloadType: Tt2Types.TokenRules,
  choices: {
    TokenRules_OfferMint: {
      name: 'TokenRules_OfferMint',
      consuming: false,
      controllers: (p) => [p.admin],
      parseArgument: pArg<OfferMintArg & Record<string, unknown>>({
        receiver: [pAccount, 'req'],
        amount: [pDecimal, 'req'],
        instrumentId: [pInstrumentId, 'req'],
        offeredAt: [pTime, 'req'],
        receiverConfig: [pAccountConfig, 'req'],
      }),
      argumentType: Tt2Types.OfferMint,
      body: (ctx, self, arg: OfferMintArg) => offerMint(ctx, self.payload.admin, arg),
    },
  },
  implements: [
    {
      interface: TS.TransferFactoryV1,
      view: factoryView,
      choices: {
        TransferFactory_Transfer: {
          name: 'TransferFactory_Transfer',
          consuming: false,
          controllers: (_p, a: TransferV1Arg) => [a.transfer.sender],
          parseArgument: pArg<TransferV1Arg & Record<string, unknown>>({ expectedAdmin: [pParty, 'req'], transfer: [pTransferV1, 'req'], extraArgs: [pExtraArgs, 'req'] }),
          body: (ctx, self, a: TransferV1Arg) => {
            requireMatchExpected(ctx, 'arg.expectedAdmin', a.expectedAdmin, self.payload.admin, showParty);
            return transferImpl(ctx, self.payload.admin, [a.transfer.sender], upcastTransfer(a.transfer), a.extraArgs);
          },
        },
        TransferFactory_PublicFetch: v1PublicFetch('TransferFactory_PublicFetch'),
      },
    },
    {
      interface: TS.TransferFactoryV2,
      view: factoryView,
      choices: {
        TransferFactory_Transfer: {
          name: 'TransferFactory_Transfer',
          consuming: false,
          controllers: (_p, a: TransferV2Arg) => a.actors,
          // private asset: only the sender's account parties observe the factory call
          observers: (_p, a: TransferV2Arg) => accountParties(a.transfer.instrumentId.admin, a.transfer.sender),
          parseArgument: pArg<TransferV2Arg & Record<string, unknown>>({ transfer: [pTransferV2, 'req'], actors: [pList(pParty), 'req'], extraArgs: [pExtraArgs, 'req'] }),
          body: (ctx, self, a: TransferV2Arg) => transferImpl(ctx, self.payload.admin, a.actors, a.transfer, a.extraArgs),
        },
        TransferFactory_PublicFetch: v2PublicFetch('TransferFactory_PublicFetch'),
      },
    },
    {
      interface: TS.EventLogV2,
      view: factoryView,
      choices: { EventLog_HoldingsChange: eventLogChoice<TokenRulesPayload>((p) => p.admin) },
    },
    {
      interface: TS.SettlementFactoryV2,
      view: factoryView,
      choices: {
        SettlementFactory_SettleBatch: {
          name: 'SettlementFactory_SettleBatch',
          consuming: false,
          controllers: (_p, a: SettleBatchArg) => a.actors,
          // no extra observers: the other authorizers must not learn about each other's settlement
          observers: () => [],
          parseArgument: pArg<SettleBatchArg & Record<string, unknown>>({
            settlement: [pSettlementInfoV2, 'req'],
            transferLegs: [pList(pTransferLegV2), 'req'],
            allocations: [pList(pFinalizedAllocation), 'req'],
            actors: [pList(pParty), 'req'],
            extraArgs: [pExtraArgs, 'req'],
          }),
          body: (ctx, self, a: SettleBatchArg) => settleBatch(ctx, self.payload.admin, a),
        },
        SettlementFactory_PublicFetch: v2PublicFetch('SettlementFactory_PublicFetch'),
      },
    },
    {
      interface: TS.AllocationFactoryV1,
      view: factoryView,
      choices: {
        AllocationFactory_Allocate: {
          name: 'AllocationFactory_Allocate',
          consuming: false,
          controllers: (_p, a: AllocateV1Arg) => [a.allocation.transferLeg.sender],
          parseArgument: pArg<AllocateV1Arg & Record<string, unknown>>({
            expectedAdmin: [pParty, 'req'],
            allocation: [pAllocationSpecificationV1, 'req'],
            requestedAt: [pTime, 'req'],
            inputHoldingCids: [pList(pCid), 'req'],
            extraArgs: [pExtraArgs, 'req'],
          }),
          body: (ctx, self, a: AllocateV1Arg) => {
            requireMatchExpected(ctx, 'arg.expectedAdmin', a.expectedAdmin, self.payload.admin, showParty);
            const r = allocateImpl(ctx, 'V1', 'V1', self.payload.admin, a.allocation.settlement.allocateBefore, {
              actors: [a.allocation.transferLeg.sender],
              requestedAt: a.requestedAt,
              inputHoldingCids: a.inputHoldingCids,
              settlement: upcastSettlementInfo(a.allocation.settlement),
              allocation: upcastAllocationSpecification(a.allocation),
              extraArgs: a.extraArgs,
            });
            return downcastAllocationInstructionResult(r);
          },
        },
        AllocationFactory_PublicFetch: v1PublicFetch('AllocationFactory_PublicFetch'),
      },
    },
    {
      interface: TS.AllocationFactoryV2,
      view: factoryView,
      choices: {
        AllocationFactory_Allocate: {
          name: 'AllocationFactory_Allocate',
          consuming: false,
          controllers: (_p, a: AllocateV2Arg) => a.actors,
          observers: (_p, a: AllocateV2Arg) => allocateObservers(a),
          parseArgument: pArg<AllocateV2Arg & Record<string, unknown>>({
            settlement: [pSettlementInfoV2, 'req'],
            allocation: [pAllocationSpecificationV2, 'req'],
            requestedAt: [pTime, 'req'],
            inputHoldingCids: [pList(pCid), 'req'],
            extraArgs: [pExtraArgs, 'req'],
            actors: [pList(pParty), 'req'],
          }),
          body: (ctx, self, a: AllocateV2Arg) => allocateImpl(ctx, 'V2', 'V2', self.payload.admin, null, a),
        },
        AllocationFactory_PublicFetch: v2PublicFetch('AllocationFactory_PublicFetch'),
      },
    },
  ],
};

