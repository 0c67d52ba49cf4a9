/**
 * The ExternalPartyAmuletRules template of splice-amulet `Splice.ExternalPartyAmuletRules`: the
 * token-standard TransferFactory V1/V2 and AllocationFactory V1 (`amulet_transferFactory_transferImpl`,
 * `amulet_allocationFactory_allocateImpl`), with AllocationFactory V2 and SettlementFactory V2 from
 * ./allocation-v2.ts.
 */
import type { InterfaceImpl, TemplateDef, TemplateRegistry, UpdateContext } from '../../participant/templates.js';
import { archiveChoice } from '../../participant/templates.js';
import { parseTime } from '../../../canton/lf-value.js';
import { TokenStandardTypes, TS } from '../token-standard.js';
import { recordParser } from '../../lf-value/native-json-codec.js';
import { list, opt, rec } from '../../lf-value/native-type.js';
import { nativeChoice } from '../native-choice.js';
import { completedTransfer, requireExpectedAdminMatch, sortObject } from './choice-helpers.js';
import { allocationToTwoStepTransfer, standardTransferToTwoStepTransfer } from './two-step-transfer-specs.js';
import {
  amuletInstrument,
  copyOnlyBurnMeta,
  paymentResultMeta,
  exercisePayment,
  holdingToTransferInputs,
  optionalContextCid,
  paymentFromChoiceContext,
  paymentOf,
  prepareTwoStepTransfer,
  rulesPayment,
} from './transfer.js';
import {
  AMULET_INSTRUMENT_ID,
  AmuletIds,
  CTX,
  META,
  T,
  assertDeadlineExceeded,
  assertWithinDeadline,
  checkActors,
  dec,
  decText,
  emptyMeta,
  failGeneral,
  require,
  showParty,
  showText,
  type AllocationSpecificationV1,
  type ExtraArgsV,
  type MetadataV,
  type TransferPreapprovalPayload,
  type TransferV1,
} from './values.js';
import { externalPartyAmuletRulesV2 } from './allocation-v2.js';

const AccountT = rec(['owner', opt('party')], ['provider', opt('party')], ['id', 'text']);
const TransferV2T = rec(
  ['sender', AccountT],
  ['receiver', AccountT],
  ['amount', 'decimal'],
  ['instrumentId', T.InstrumentId],
  ['requestedAt', 'time'],
  ['executeBefore', 'time'],
  ['inputHoldingCids', list('cid')],
  ['meta', T.Metadata],
);

const showInstrumentId = (i: { admin: string; id: string }) => `InstrumentId {admin = ${showParty(i.admin)}, id = ${showText(i.id)}}`;

interface TransferFactoryArg {
  expectedAdmin: string;
  transfer: TransferV1;
  extraArgs: ExtraArgsV;
}
interface AccountV {
  owner: string | null;
  provider: string | null;
  id: string;
}
interface TransferFactoryV2Arg {
  transfer: Omit<TransferV1, 'sender' | 'receiver'> & { sender: AccountV; receiver: AccountV };
  actors: string[];
  extraArgs: ExtraArgsV;
}
interface AllocateArg {
  expectedAdmin: string;
  allocation: AllocationSpecificationV1;
  requestedAt: string;
  inputHoldingCids: string[];
  extraArgs: ExtraArgsV;
}

const epSignatories = (p: { dso: string }) => [p.dso];
const factoryView = (p: { dso: string }) => ({ admin: p.dso, meta: emptyMeta() });
const publicFetch = (name: string) =>
  nativeChoice<{ dso: string }, { expectedAdmin: string; actor: string }>(name, rec(['expectedAdmin', 'party'], ['actor', 'party']), {
    consuming: false,
    controllers: (_p, a) => [a.actor],
    body: (ctx, self, a) => {
      requireExpectedAdminMatch(ctx, a.expectedAdmin, self.payload.dso);
      return factoryView(self.payload);
    },
  });

/** `amulet_transferFactory_transferImpl` (`Splice/ExternalPartyAmuletRules.daml` uses it). */
function transferImpl(ctx: UpdateContext, templates: TemplateRegistry, dso: string, actors: string[], arg: TransferFactoryArg) {
  const t = arg.transfer;
  const extra = arg.extraArgs;
  checkActors(ctx, actors, [[t.sender], [t.sender, t.receiver]]);
  requireExpectedAdminMatch(ctx, arg.expectedAdmin, dso);
  const preapprovalCid = optionalContextCid(ctx, extra, CTX.transferPreapproval);
  if (preapprovalCid !== null) {
    const pre = ctx.fetch(preapprovalCid, AmuletIds.TransferPreapproval).payload as TransferPreapprovalPayload;
    if (pre.dso !== dso || pre.receiver !== t.receiver) {
      failGeneral(
        ctx,
        `Contract group identifier mismatch: expected ForOwner {dso = ${showParty(dso)}, owner = ${showParty(t.receiver)}}, got ForOwner {dso = ${showParty(pre.dso)}, owner = ${showParty(pre.receiver)}} for ${preapprovalCid}`,
      );
    }
  }
  const expected = amuletInstrument(dso);
  require(
    ctx,
    `Expected instrumentId ${showInstrumentId(expected)} matches actual instrumentId ${showInstrumentId(t.instrumentId)}`,
    t.instrumentId.admin === expected.admin && t.instrumentId.id === expected.id,
  );
  require(ctx, 'Amount must be positive', dec(t.amount) > 0n);
  assertDeadlineExceeded(ctx, 'Transfer.requestedAt', t.requestedAt);
  assertWithinDeadline(ctx, 'Transfer.executeBefore', t.executeBefore);
  require(ctx, 'At least one holding must be provided', t.inputHoldingCids.length > 0);
  const reason = t.meta.values[META.reason] ?? null;

  // self transfer, or sender and receiver both authorize: complete at once
  if (actors.includes(t.receiver)) {
    const payment = paymentOf(ctx, dso, extra, false);
    const inputs = holdingToTransferInputs(ctx, templates, dso, t.sender, payment, t.inputHoldingCids);
    const r = exercisePayment(ctx, dso, payment, {
      sender: t.sender,
      provider: t.sender,
      inputs,
      outputs: [{ receiver: t.receiver, receiverFeeRatio: decText(0n), amount: t.amount, lock: null, meta: t.meta }],
      beneficiaries: null,
    });
    return completedTransfer(
      r.createdAmulets.map((c) => c.value),
      r.senderChangeAmulet ? [r.senderChangeAmulet] : [],
      paymentResultMeta(payment, r.meta),
    );
  }
  if (preapprovalCid === null) {
    const payment = paymentOf(ctx, dso, extra, false);
    const prepared = prepareTwoStepTransfer(ctx, templates, standardTransferToTwoStepTransfer(t), t.requestedAt, t.inputHoldingCids, payment);
    const transferInstructionCid = ctx.create(AmuletIds.AmuletTransferInstruction, {
      transfer: { ...t, inputHoldingCids: [prepared.lockedAmulet] },
      lockedAmulet: prepared.lockedAmulet,
    });
    return {
      output: { tag: 'TransferInstructionResult_Pending', value: { transferInstructionCid } },
      senderChangeCids: prepared.senderChangeCids,
      meta: prepared.meta,
    };
  }
  // TransferPreapproval_Send takes a PaymentTransferContext (TransferPreapproval_SendV2, which
  // takes the config state, is not emulated: LIMITATIONS 3), so the direct path needs the rules
  const pctx = paymentFromChoiceContext(ctx, dso, extra, true);
  const inputs = holdingToTransferInputs(ctx, templates, dso, t.sender, rulesPayment(pctx), t.inputHoldingCids);
  const r = ctx.exercise(preapprovalCid, 'TransferPreapproval_Send', { sender: t.sender, context: pctx, inputs, amount: t.amount, description: reason }) as {
    result: { createdAmulets: Array<{ value: string }>; senderChangeAmulet: string | null };
    meta: MetadataV | null;
  };
  return completedTransfer(
    r.result.createdAmulets.map((c) => c.value),
    r.result.senderChangeAmulet ? [r.result.senderChangeAmulet] : [],
    copyOnlyBurnMeta(r.meta),
  );
}

/** `amulet_allocationFactory_allocateImpl`. */
function allocateImpl(ctx: UpdateContext, templates: TemplateRegistry, dso: string, arg: AllocateArg) {
  requireExpectedAdminMatch(ctx, arg.expectedAdmin, dso);
  const payment = paymentOf(ctx, dso, arg.extraArgs, false);
  const s = arg.allocation.settlement;
  const leg = arg.allocation.transferLeg;
  assertDeadlineExceeded(ctx, 'Allocation.settlement.requestedAt', s.requestedAt);
  assertWithinDeadline(ctx, 'Allocation.settlement.allocateBefore', s.allocateBefore);
  require(ctx, 'Allocation.settlement.allocateBefore <= Allocation.settlement.settleBefore', parseTime(s.allocateBefore) <= parseTime(s.settleBefore));
  require(ctx, 'Transfer amount must be positive', dec(leg.amount) > 0n);
  require(ctx, 'Instrument-id must match the factory', leg.instrumentId.admin === dso && leg.instrumentId.id === AMULET_INSTRUMENT_ID);
  assertDeadlineExceeded(ctx, 'requestedAt', arg.requestedAt);
  require(ctx, 'At least one input holding must be provided', arg.inputHoldingCids.length > 0);
  const prepared = prepareTwoStepTransfer(ctx, templates, allocationToTwoStepTransfer(arg.allocation), arg.requestedAt, arg.inputHoldingCids, payment);
  const allocationCid = ctx.create(AmuletIds.AmuletAllocation, {
    lockedAmulet: prepared.lockedAmulet,
    allocation: arg.allocation,
    expiresAt: s.settleBefore,
  });
  return {
    output: { tag: 'AllocationInstructionResult_Completed', value: { allocationCid } },
    senderChangeCids: prepared.senderChangeCids,
    meta: prepared.meta,
  };
}

const transferFactoryV1 = (templates: TemplateRegistry): InterfaceImpl<{ dso: string }> => ({
  interface: TS.TransferFactoryV1,
  view: factoryView,
  choices: {
    TransferFactory_Transfer: nativeChoice<{ dso: string }, TransferFactoryArg>(
      'TransferFactory_Transfer',
      rec(['expectedAdmin', 'party'], ['transfer', T.TransferV1], ['extraArgs', T.ExtraArgs]),
      { consuming: false, controllers: (_p, a) => [a.transfer.sender], body: (ctx, self, a) => transferImpl(ctx, templates, self.payload.dso, [a.transfer.sender], a) },
    ),
    TransferFactory_PublicFetch: publicFetch('TransferFactory_PublicFetch'),
    Archive: archiveChoice(epSignatories),
  },
});

const allocationFactoryV1 = (templates: TemplateRegistry): InterfaceImpl<{ dso: string }> => ({
  interface: TS.AllocationFactoryV1,
  view: factoryView,
  choices: {
    AllocationFactory_Allocate: nativeChoice<{ dso: string }, AllocateArg>(
      'AllocationFactory_Allocate',
      rec(
        ['expectedAdmin', 'party'],
        ['allocation', T.AllocationSpecificationV1],
        ['requestedAt', 'time'],
        ['inputHoldingCids', list('cid')],
        ['extraArgs', T.ExtraArgs],
      ),
      { consuming: false, controllers: (_p, a) => [a.allocation.transferLeg.sender], body: (ctx, self, a) => allocateImpl(ctx, templates, self.payload.dso, a) },
    ),
    AllocationFactory_PublicFetch: publicFetch('AllocationFactory_PublicFetch'),
    Archive: archiveChoice(epSignatories),
  },
});

/** `transferFactoryV2_transferDefaultImplUsingV1`: basic accounts only, then the V1 body with the actors. */
const transferFactoryV2 = (templates: TemplateRegistry): InterfaceImpl<{ dso: string }> => ({
  interface: TS.TransferFactoryV2,
  view: factoryView,
  choices: {
    TransferFactory_Transfer: nativeChoice<{ dso: string }, TransferFactoryV2Arg>(
      'TransferFactory_Transfer',
      rec(['transfer', TransferV2T], ['actors', list('party')], ['extraArgs', T.ExtraArgs]),
      {
        consuming: false,
        controllers: (_p, a) => a.actors,
        observers: (_p, a) => [a.transfer.sender.owner, a.transfer.receiver.owner].filter((x): x is string => x !== null),
        body: (ctx, self, a) => {
          const t = a.transfer;
          for (const [field, acc] of [['sender', t.sender], ['receiver', t.receiver]] as const) {
            if (acc.owner === null || acc.provider !== null || acc.id !== '') {
              failGeneral(ctx, `Amulet supports only basic accounts, but transfer.${field} is ${JSON.stringify(acc)}`);
            }
          }
          const v1: TransferV1 = { ...t, sender: t.sender.owner!, receiver: t.receiver.owner! };
          const r = transferImpl(ctx, templates, self.payload.dso, a.actors, { expectedAdmin: t.instrumentId.admin, transfer: v1, extraArgs: a.extraArgs });
          const values: Record<string, string> = { ...r.meta.values, [META.txKind]: v1.sender === v1.receiver ? 'merge-split' : 'transfer' };
          if (v1.sender !== v1.receiver) values[META.sender] = v1.sender;
          return { ...r, meta: { values: sortObject(values) } };
        },
      },
    ),
    // V2's `TransferFactory_PublicFetch` takes `actors` (no expected admin) and returns the view.
    TransferFactory_PublicFetch: nativeChoice<{ dso: string }, { actors: string[] }>(
      'TransferFactory_PublicFetch',
      TokenStandardTypes.choiceArgs.TransferFactoryV2.TransferFactory_PublicFetch,
      { consuming: false, controllers: (_p, a) => a.actors, body: (_ctx, self) => factoryView(self.payload) },
    ),
    Archive: archiveChoice(epSignatories),
  },
});

export function externalPartyAmuletRulesTemplate(templates: TemplateRegistry): TemplateDef<{ dso: string }> {
  const v2 = externalPartyAmuletRulesV2(templates, epSignatories);
  return {
    id: AmuletIds.ExternalPartyAmuletRules,
    kind: 'native',
    signatories: epSignatories,
    observers: () => [],
    parsePayload: recordParser(T.ExternalPartyAmuletRules, 'createArguments'),
    payloadType: T.ExternalPartyAmuletRules,
    choices: { ExternalPartyAmuletRules_ExpireAmuletAllocationsV2: v2.expireAllocationsV2 },
    implements: [transferFactoryV1(templates), transferFactoryV2(templates), allocationFactoryV1(templates), v2.allocationFactoryV2, v2.settlementFactoryV2],
  };
}
