/**
 * TestTokenV1's four templates as native emulator templates: the behaviour of
 * `Splice.Testing.Tokens.TestTokenV1` (canton-network/splice main @f819bd6f, `TestTokenV1.daml`),
 * choice by choice, with the same validations in the same order, the same results and the same
 * failure messages (see LIMITATIONS in ./index.ts for where and why this deviates).
 */
import { TS } from '../token-standard.js';
import { expectContractId, expectList, expectParty, formatDecimal, parseDecimal, parseTime, variant, type ExtraArgs } from '../../../canton/lf-value.js';
import type { ChoiceDef, InterfaceImpl, TemplateDef, TemplateRegistry, UpdateContext, FetchedContract } from '../../participant/templates.js';
import { archiveChoice, ArgumentError } from '../../participant/templates.js';
import { nameKey, type QualifiedId } from '../../participant/types.js';
import {
  argExtraArgs,
  argField,
  argRecord,
  emptyMeta,
  parseAllocationSpecification,
  parseHoldingView,
  parseTransfer,
  requireMatchExpectedMessage,
  requireMessage,
  requirePrimeMessage,
  sameInstrument,
  showDecimal,
  showInstrumentId,
  showLock,
  showOptional,
  showParty,
  showTime,
  timeText,
  type AllocationSpecification,
  type HoldingView,
  type InstrumentId,
  type Transfer,
  Tt1Types,
} from './values.js';

export const TEST_TOKEN_V1_PACKAGE_ID = 'aaa0b576b5a3db49b3a4f7a4710fe6f8ae462aabbde4da89f639eb87fd62e90c';
export const TEST_TOKEN_V1_PACKAGE_NAME = 'splice-test-token-v1';
export const TEST_TOKEN_V1_MODULE = 'Splice.Testing.Tokens.TestTokenV1';

const tid = (entityName: string): QualifiedId => ({
  packageId: TEST_TOKEN_V1_PACKAGE_ID,
  packageName: TEST_TOKEN_V1_PACKAGE_NAME,
  moduleName: TEST_TOKEN_V1_MODULE,
  entityName,
});

/** The template ids of `splice-test-token-v1` (package id from the DAR in splice `daml/dars`). */
export const TestTokenV1Ids = {
  Token: tid('Token'),
  TokenTransferOffer: tid('TokenTransferOffer'),
  TokenAllocation: tid('TokenAllocation'),
  TokenRules: tid('TokenRules'),
} as const;

// ---- payloads -------------------------------------------------------------------------------

export interface TokenPayload {
  holding: HoldingView;
}
export interface TokenTransferOfferPayload {
  transfer: Transfer;
}
export interface TokenAllocationPayload {
  allocation: AllocationSpecification;
}
export interface TokenRulesPayload {
  admin: string;
}

// ---- Daml failures as the reference code raises them ---------------------------------------

/** `fail`/`abort` in Update throws `GeneralError`. */
const GENERAL_ERROR = 'UNHANDLED_EXCEPTION/DA.Exception.GeneralError:GeneralError';

function failGeneral(ctx: UpdateContext, message: string): never {
  return ctx.fail(message, { errorId: GENERAL_ERROR, category: 9 });
}
/** `require msg cond` = `assertMsg` (AssertionFailed). */
function require(ctx: UpdateContext, msg: string, cond: boolean): void {
  if (!cond) ctx.fail(requireMessage(msg));
}
function requireMatchExpected<T>(ctx: UpdateContext, desc: string, actual: T, expected: T, eq: (a: T, b: T) => boolean, show: (x: T) => string): void {
  if (!eq(actual, expected)) failGeneral(ctx, requireMatchExpectedMessage(desc, show(actual), show(expected)));
}
/** DA.Assert.assertWithinDeadline: ledger time must be strictly before the deadline. */
function assertWithinDeadline(ctx: UpdateContext, name: string, deadline: string): void {
  const d = parseTime(deadline);
  if (ctx.nowMicros >= d) {
    ctx.fail(`Ledger time is at or past deadline '${name}' at ${showTime(d)}`, { errorId: 'stdlib.daml.com/deadline-exceeded', category: 9, metadata: { deadline: showTime(d) } });
  }
}
/** DA.Assert.assertDeadlineExceeded: ledger time must be at or after the deadline. */
function assertDeadlineExceeded(ctx: UpdateContext, name: string, deadline: string): void {
  const d = parseTime(deadline);
  if (ctx.nowMicros < d) {
    ctx.fail(`Ledger time is strictly before deadline '${name}' at ${showTime(d)}`, { errorId: 'stdlib.daml.com/deadline-not-exceeded', category: 9, metadata: { deadline: showTime(d) } });
  }
}

// ---- views ----------------------------------------------------------------------------------

/** `transferHoldingView`: the offer as a Holding locked to sender and admin until executeBefore. */
export function transferHoldingView(t: Transfer): HoldingView {
  return {
    owner: t.sender,
    instrumentId: t.instrumentId,
    amount: t.amount,
    lock: {
      holders: [t.sender, t.instrumentId.admin],
      expiresAt: t.executeBefore,
      expiresAfter: null,
      context: `transfer to ${showParty(t.receiver)}`,
    },
    meta: emptyMeta(),
  };
}

/** `allocationHoldingView`: the allocation as a Holding locked until settleBefore. */
export function allocationHoldingView(a: AllocationSpecification): HoldingView {
  const leg = a.transferLeg;
  return {
    owner: leg.sender,
    instrumentId: leg.instrumentId,
    amount: leg.amount,
    lock: {
      holders: [leg.sender, leg.instrumentId.admin],
      expiresAt: a.settlement.settleBefore,
      expiresAfter: null,
      context: `allocation for settlement of ${a.settlement.settlementRef.id}`,
    },
    meta: emptyMeta(),
  };
}

/** An unlocked `Token` payload. */
export function tokenPayload(owner: string, instrumentId: InstrumentId, amount: string): TokenPayload {
  return { holding: { owner, instrumentId, amount, lock: null, meta: emptyMeta() } };
}

// ---- result records -------------------------------------------------------------------------

const transferResult = (output: { tag: string; value: unknown }, senderChangeCids: string[]) => ({ output, senderChangeCids, meta: emptyMeta() });

// ---- choice argument parsers ------------------------------------------------------------------

const parseExtraArgsOnly = (raw: unknown): { extraArgs: ExtraArgs } => ({ extraArgs: argExtraArgs(argRecord(raw)) });

interface PublicFetchArg {
  expectedAdmin: string;
  actor: string;
}
function parsePublicFetch(raw: unknown): PublicFetchArg {
  const r = argRecord(raw);
  return { expectedAdmin: expectParty(argField(r, 'expectedAdmin'), 'expectedAdmin'), actor: expectParty(argField(r, 'actor'), 'actor') };
}

interface TransferArg {
  expectedAdmin: string;
  transfer: Transfer;
  extraArgs: ExtraArgs;
}
interface AllocateArg {
  expectedAdmin: string;
  allocation: AllocationSpecification;
  requestedAt: string;
  inputHoldingCids: string[];
  extraArgs: ExtraArgs;
}
interface UpdateArg {
  extraActors: string[];
  extraArgs: ExtraArgs;
}

// ---- the templates ------------------------------------------------------------------------

/**
 * Builds the template definitions. `templates` is the registry they are registered in: holdings
 * of any template implementing HoldingV1 can fund a transfer (the Daml code fetches them through
 * the interface), so the factory reads their view and their archive choice from it.
 */
export function testTokenV1Templates(templates: TemplateRegistry): TemplateDef[] {
  const holdingViewOf = (c: FetchedContract, ctx: UpdateContext): HoldingView => {
    const impl = templates.templateById(c.templateId)?.implements.find((i) => nameKey(i.interface.id) === nameKey(TS.HoldingV1.id));
    if (!impl) return failGeneral(ctx, `Contract ${c.contractId} does not implement ${nameKey(TS.HoldingV1.id)}`);
    try {
      return parseHoldingView(impl.view(c.payload), 'view');
    } catch (e) {
      if (e instanceof ArgumentError) return failGeneral(ctx, `Malformed HoldingV1 view of ${c.contractId}: ${e.message}`);
      throw e;
    }
  };

  /** `archive (cid : ContractId Holding)`: the interface's implicit Archive choice. */
  const archiveHolding = (ctx: UpdateContext, c: FetchedContract): void => {
    const impl = templates.templateById(c.templateId)?.implements.find((i) => nameKey(i.interface.id) === nameKey(TS.HoldingV1.id));
    if (impl?.choices.Archive) ctx.exercise(c.contractId, 'Archive', {}, { interfaceId: TS.HoldingV1.id });
    else ctx.exercise(c.contractId, 'Archive', {}); // a foreign template without the interface Archive wired: its own Archive
  };

  /**
   * `consumeHoldingAmount`: fetch each input through HoldingV1, check owner, instrument and that it
   * is unlocked, archive it; the inputs must cover the amount; the remainder goes back to the
   * sender as one new Token. Returns the change Token's cid, if any.
   */
  const consumeHoldingAmount = (ctx: UpdateContext, sender: string, inputCids: string[], amount: string, instrumentId: InstrumentId): string | null => {
    let total = 0n;
    for (const cid of inputCids) {
      const c = ctx.fetch(cid, TS.HoldingV1.id);
      const hv = holdingViewOf(c, ctx);
      requireMatchExpected(ctx, 'holding owner', hv.owner, sender, (a, b) => a === b, showParty);
      requireMatchExpected(ctx, 'holding.instrumentId', hv.instrumentId, instrumentId, sameInstrument, showInstrumentId);
      requireMatchExpected(ctx, 'holding.lock', hv.lock, null, (a, b) => a === b, (l) => showOptional(l, showLock, false));
      archiveHolding(ctx, c);
      total += parseDecimal(hv.amount);
    }
    const want = parseDecimal(amount);
    if (!(total >= want)) {
      failGeneral(ctx, requirePrimeMessage('input amount', showDecimal(total), 'is less than', 'transfer.amount', showDecimal(want)));
    }
    const remainder = total - want;
    if (remainder === 0n) return null;
    return ctx.create(TestTokenV1Ids.Token, tokenPayload(sender, instrumentId, formatDecimal(remainder)));
  };

  /** PublicFetch of either factory (see LIMITATIONS: expectedAdmin is checked, as the interface requires). */
  const publicFetch = (name: string): ChoiceDef<TokenRulesPayload, PublicFetchArg> => ({
    name,
    consuming: false,
    controllers: (_p, a) => [a.actor],
    parseArgument: parsePublicFetch,
    argumentType: Tt1Types.PublicFetch,
    body: (ctx, self, arg) => {
      requireMatchExpected(ctx, 'expectedAdmin', arg.expectedAdmin, self.payload.admin, (a, b) => a === b, showParty);
      return { admin: self.payload.admin, meta: emptyMeta() };
    },
  });

  // -- Token --------------------------------------------------------------------------------
  const tokenSignatories = (p: TokenPayload) => [p.holding.owner, p.holding.instrumentId.admin];
  const token: TemplateDef<TokenPayload> = {
    id: TestTokenV1Ids.Token,
    kind: 'native',
    signatories: tokenSignatories,
    observers: () => [],
    ensure: (p) => (parseDecimal(p.holding.amount) > 0n && p.holding.lock === null ? undefined : 'holding.amount > 0.0 && isNone holding.lock'),
    payloadType: Tt1Types.Token,
    parsePayload: (raw) => ({ holding: parseHoldingView(argField(argRecord(raw), 'holding'), 'holding') }),
    choices: {},
    implements: [{ interface: TS.HoldingV1, view: (p) => p.holding, choices: { Archive: archiveChoice(tokenSignatories) } }],
  };

  // -- TokenTransferOffer -------------------------------------------------------------------
  const offerSignatories = (p: TokenTransferOfferPayload) => [p.transfer.sender, p.transfer.instrumentId.admin];
  /** Reject and Withdraw: the locked amount goes back to the sender as a fresh Token. */
  const returnToSender = (name: string, controller: (t: Transfer) => string): ChoiceDef<TokenTransferOfferPayload, { extraArgs: ExtraArgs }> => ({
    name,
    consuming: true,
    controllers: (p) => [controller(p.transfer)],
    parseArgument: parseExtraArgsOnly,
    argumentType: Tt1Types.ExtraArgsOnly,
    body: (ctx, self) => {
      const t = self.payload.transfer;
      const cid = ctx.create(TestTokenV1Ids.Token, tokenPayload(t.sender, t.instrumentId, t.amount));
      return transferResult(variant('TransferInstructionResult_Failed'), [cid]);
    },
  });
  const offerInstruction: InterfaceImpl<TokenTransferOfferPayload> = {
    interface: TS.TransferInstructionV1,
    view: (p) => ({
      originalInstructionCid: null,
      transfer: p.transfer,
      status: variant('TransferPendingReceiverAcceptance'),
      meta: emptyMeta(),
    }),
    choices: {
      TransferInstruction_Accept: {
        name: 'TransferInstruction_Accept',
        consuming: true,
        controllers: (p) => [p.transfer.receiver],
        parseArgument: parseExtraArgsOnly,
        argumentType: Tt1Types.ExtraArgsOnly,
        body: (ctx, self) => {
          const t = self.payload.transfer;
          // Not in the reference token: the interface says registries SHOULD NOT
          // execute after executeBefore, and the token brief asks for it. See LIMITATIONS.
          assertWithinDeadline(ctx, 'Transfer.executeBefore', t.executeBefore);
          const cid = ctx.create(TestTokenV1Ids.Token, tokenPayload(t.receiver, t.instrumentId, t.amount));
          return transferResult(variant('TransferInstructionResult_Completed', { receiverHoldingCids: [cid] }), []);
        },
      },
      TransferInstruction_Reject: returnToSender('TransferInstruction_Reject', (t) => t.receiver),
      TransferInstruction_Withdraw: returnToSender('TransferInstruction_Withdraw', (t) => t.sender),
      TransferInstruction_Update: {
        name: 'TransferInstruction_Update',
        consuming: true,
        controllers: (p, a: UpdateArg) => [p.transfer.instrumentId.admin, ...a.extraActors],
        argumentType: Tt1Types.Update,
        parseArgument: (raw): UpdateArg => {
          const r = argRecord(raw);
          return { extraActors: expectList(argField(r, 'extraActors'), 'extraActors', expectParty), extraArgs: argExtraArgs(r) };
        },
        body: (ctx) => failGeneral(ctx, 'V1.TransferInstruction_Update: not supported by TokenTransferOffer'),
      },
      Archive: archiveChoice(offerSignatories),
    },
  };
  const offer: TemplateDef<TokenTransferOfferPayload> = {
    id: TestTokenV1Ids.TokenTransferOffer,
    kind: 'native',
    signatories: offerSignatories,
    observers: (p) => [p.transfer.receiver],
    ensure: (p) =>
      parseDecimal(p.transfer.amount) > 0n && parseTime(p.transfer.requestedAt) <= parseTime(p.transfer.executeBefore)
        ? undefined
        : 'transfer.amount > 0.0 && transfer.requestedAt <= transfer.executeBefore',
    payloadType: Tt1Types.TokenTransferOffer,
    parsePayload: (raw) => ({ transfer: parseTransfer(argField(argRecord(raw), 'transfer'), 'transfer') }),
    choices: {},
    implements: [
      { interface: TS.HoldingV1, view: (p) => transferHoldingView(p.transfer), choices: { Archive: archiveChoice(offerSignatories) } },
      offerInstruction,
    ],
  };

  // -- TokenAllocation ----------------------------------------------------------------------
  const allocSignatories = (p: TokenAllocationPayload) => [p.allocation.transferLeg.sender, p.allocation.transferLeg.instrumentId.admin];
  const allocationControllers = (p: TokenAllocationPayload) => [
    p.allocation.settlement.executor,
    p.allocation.transferLeg.sender,
    p.allocation.transferLeg.receiver,
  ];
  const releaseToSender = (name: string, controllers: (p: TokenAllocationPayload) => string[]): ChoiceDef<TokenAllocationPayload, { extraArgs: ExtraArgs }> => ({
    name,
    consuming: true,
    controllers: (p) => controllers(p),
    parseArgument: parseExtraArgsOnly,
    argumentType: Tt1Types.ExtraArgsOnly,
    body: (ctx, self) => {
      const leg = self.payload.allocation.transferLeg;
      const cid = ctx.create(TestTokenV1Ids.Token, tokenPayload(leg.sender, leg.instrumentId, leg.amount));
      return { senderHoldingCids: [cid], meta: emptyMeta() };
    },
  });
  const allocationImpl: InterfaceImpl<TokenAllocationPayload> = {
    interface: TS.AllocationV1,
    view: (p) => ({ allocation: p.allocation, holdingCids: [], meta: emptyMeta() }),
    choices: {
      Allocation_ExecuteTransfer: {
        name: 'Allocation_ExecuteTransfer',
        consuming: true,
        controllers: allocationControllers,
        parseArgument: parseExtraArgsOnly,
        argumentType: Tt1Types.ExtraArgsOnly,
        body: (ctx, self) => {
          const a = self.payload.allocation;
          assertWithinDeadline(ctx, 'Allocation.settlement.settleBefore', a.settlement.settleBefore);
          const cid = ctx.create(TestTokenV1Ids.Token, tokenPayload(a.transferLeg.receiver, a.transferLeg.instrumentId, a.transferLeg.amount));
          return { senderHoldingCids: [], receiverHoldingCids: [cid], meta: emptyMeta() };
        },
      },
      Allocation_Cancel: releaseToSender('Allocation_Cancel', allocationControllers),
      Allocation_Withdraw: releaseToSender('Allocation_Withdraw', (p) => [p.allocation.transferLeg.sender]),
      Archive: archiveChoice(allocSignatories),
    },
  };
  const allocation: TemplateDef<TokenAllocationPayload> = {
    id: TestTokenV1Ids.TokenAllocation,
    kind: 'native',
    signatories: allocSignatories,
    observers: (p) => [p.allocation.settlement.executor],
    ensure: (p) => {
      const s = p.allocation.settlement;
      const ok =
        parseTime(s.requestedAt) <= parseTime(s.allocateBefore) &&
        parseTime(s.allocateBefore) <= parseTime(s.settleBefore) &&
        parseDecimal(p.allocation.transferLeg.amount) > 0n;
      return ok ? undefined : 'isValidAllocationSpecificationV1 allocation';
    },
    payloadType: Tt1Types.TokenAllocation,
    parsePayload: (raw) => ({ allocation: parseAllocationSpecification(argField(argRecord(raw), 'allocation'), 'allocation') }),
    choices: {},
    implements: [
      { interface: TS.HoldingV1, view: (p) => allocationHoldingView(p.allocation), choices: { Archive: archiveChoice(allocSignatories) } },
      allocationImpl,
    ],
  };

  // -- TokenRules -----------------------------------------------------------------------------
  const rulesSignatories = (p: TokenRulesPayload) => [p.admin];
  const factoryView = (p: TokenRulesPayload) => ({ admin: p.admin, meta: emptyMeta() });
  const transferFactory: InterfaceImpl<TokenRulesPayload> = {
    interface: TS.TransferFactoryV1,
    view: factoryView,
    choices: {
      TransferFactory_Transfer: {
        name: 'TransferFactory_Transfer',
        consuming: false,
        controllers: (_p, a: TransferArg) => [a.transfer.sender],
        argumentType: Tt1Types.Transfer,
        parseArgument: (raw): TransferArg => {
          const r = argRecord(raw);
          return {
            expectedAdmin: expectParty(argField(r, 'expectedAdmin'), 'expectedAdmin'),
            transfer: parseTransfer(argField(r, 'transfer'), 'transfer'),
            extraArgs: argExtraArgs(r),
          };
        },
        body: (ctx, self, arg: TransferArg) => {
          const admin = self.payload.admin;
          requireMatchExpected(ctx, 'expectedAdmin', arg.expectedAdmin, admin, (a, b) => a === b, showParty);
          const t = arg.transfer;
          require(ctx, 'Instrument-admin must match the factory', t.instrumentId.admin === admin);
          require(ctx, 'Amount must be positive', parseDecimal(t.amount) > 0n);
          assertDeadlineExceeded(ctx, 'Transfer.requestedAt', t.requestedAt);
          assertWithinDeadline(ctx, 'Transfer.executeBefore', t.executeBefore);
          const change = consumeHoldingAmount(ctx, t.sender, t.inputHoldingCids, t.amount, t.instrumentId);
          const senderChangeCids = change === null ? [] : [change];
          if (t.receiver === t.sender) {
            const cid = ctx.create(TestTokenV1Ids.Token, tokenPayload(t.sender, t.instrumentId, t.amount));
            return transferResult(variant('TransferInstructionResult_Completed', { receiverHoldingCids: [cid] }), senderChangeCids);
          }
          const instr = ctx.create(TestTokenV1Ids.TokenTransferOffer, { transfer: t });
          return transferResult(variant('TransferInstructionResult_Pending', { transferInstructionCid: instr }), senderChangeCids);
        },
      },
      TransferFactory_PublicFetch: publicFetch('TransferFactory_PublicFetch'),
      Archive: archiveChoice(rulesSignatories),
    },
  };
  const allocationFactory: InterfaceImpl<TokenRulesPayload> = {
    interface: TS.AllocationFactoryV1,
    view: factoryView,
    choices: {
      AllocationFactory_Allocate: {
        name: 'AllocationFactory_Allocate',
        consuming: false,
        controllers: (_p, a: AllocateArg) => [a.allocation.transferLeg.sender],
        argumentType: Tt1Types.Allocate,
        parseArgument: (raw): AllocateArg => {
          const r = argRecord(raw);
          return {
            expectedAdmin: expectParty(argField(r, 'expectedAdmin'), 'expectedAdmin'),
            allocation: parseAllocationSpecification(argField(r, 'allocation'), 'allocation'),
            requestedAt: timeText(argField(r, 'requestedAt'), 'requestedAt'),
            inputHoldingCids: expectList(argField(r, 'inputHoldingCids'), 'inputHoldingCids', expectContractId),
            extraArgs: argExtraArgs(r),
          };
        },
        body: (ctx, self, arg: AllocateArg) => {
          const admin = self.payload.admin;
          requireMatchExpected(ctx, 'expectedAdmin', arg.expectedAdmin, admin, (a, b) => a === b, showParty);
          const s = arg.allocation.settlement;
          const leg = arg.allocation.transferLeg;
          assertDeadlineExceeded(ctx, 'Allocation.settlement.requestedAt', s.requestedAt);
          assertWithinDeadline(ctx, 'Allocation.settlement.allocateBefore', s.allocateBefore);
          require(
            ctx,
            'Allocation.settlement.allocateBefore <= Allocation.settlement.settleBefore',
            parseTime(s.allocateBefore) <= parseTime(s.settleBefore),
          );
          require(ctx, 'Transfer amount must be positive', parseDecimal(leg.amount) > 0n);
          require(ctx, 'Instrument-admin must match the factory', leg.instrumentId.admin === admin);
          assertDeadlineExceeded(ctx, 'requestedAt', arg.requestedAt);
          require(ctx, 'At least one input holding must be provided', arg.inputHoldingCids.length > 0);
          const change = consumeHoldingAmount(ctx, leg.sender, arg.inputHoldingCids, leg.amount, leg.instrumentId);
          const allocationCid = ctx.create(TestTokenV1Ids.TokenAllocation, { allocation: arg.allocation });
          return {
            output: variant('AllocationInstructionResult_Completed', { allocationCid }),
            senderChangeCids: change === null ? [] : [change],
            meta: emptyMeta(),
          };
        },
      },
      AllocationFactory_PublicFetch: publicFetch('AllocationFactory_PublicFetch'),
      Archive: archiveChoice(rulesSignatories),
    },
  };
  const rules: TemplateDef<TokenRulesPayload> = {
    id: TestTokenV1Ids.TokenRules,
    kind: 'native',
    signatories: rulesSignatories,
    observers: () => [],
    payloadType: Tt1Types.TokenRules,
    parsePayload: (raw) => ({ admin: expectParty(argField(argRecord(raw), 'admin'), 'admin') }),
    choices: {},
    implements: [transferFactory, allocationFactory],
  };

  return [token, offer, allocation, rules];
}
