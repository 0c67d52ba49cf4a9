/**
 * The AmuletAllocation template of splice-amulet `Splice.AmuletAllocation`: Allocation V1
 * (execute transfer, cancel, withdraw). V2 allocations are in ./allocation-v2.ts.
 */
import type { InterfaceImpl, TemplateDef } from '../../participant/templates.js';
import { archiveChoice } from '../../participant/templates.js';
import { parseTime } from '../../../canton/lf-value.js';
import { TS } from '../token-standard.js';
import { recordParser } from '../../lf-value/native-json-codec.js';
import { nativeChoice } from '../native-choice.js';
import { EXTRA_ARGS_ONLY } from './choice-helpers.js';
import { allocationToTwoStepTransfer } from './two-step-transfer-specs.js';
import { abortTwoStepTransfer, executeTwoStepTransfer } from './transfer.js';
import {
  AMULET_INSTRUMENT_ID,
  AmuletIds,
  T,
  dec,
  emptyMeta,
  type AmuletAllocationPayload,
  type ExtraArgsV,
} from './values.js';

export function amuletAllocationTemplate(): TemplateDef<AmuletAllocationPayload> {
  const allocSignatories = (p: AmuletAllocationPayload) => [p.allocation.transferLeg.instrumentId.admin, p.allocation.transferLeg.sender];
  const allocControllers = (p: AmuletAllocationPayload) => [p.allocation.settlement.executor, p.allocation.transferLeg.sender, p.allocation.transferLeg.receiver];
  const unlockAllocation = (name: string, controllers: (p: AmuletAllocationPayload) => string[]) =>
    nativeChoice<AmuletAllocationPayload, { extraArgs: ExtraArgsV }>(name, EXTRA_ARGS_ONLY, {
      consuming: true,
      controllers,
      body: (ctx, self, a) => ({
        senderHoldingCids: abortTwoStepTransfer(ctx, allocationToTwoStepTransfer(self.payload.allocation), self.payload.lockedAmulet, a.extraArgs),
        meta: emptyMeta(),
      }),
    });
  const allocationV1: InterfaceImpl<AmuletAllocationPayload> = {
    interface: TS.AllocationV1,
    view: (p) => ({ allocation: p.allocation, holdingCids: [p.lockedAmulet], meta: emptyMeta() }),
    choices: {
      Allocation_ExecuteTransfer: nativeChoice<AmuletAllocationPayload, { extraArgs: ExtraArgsV }>('Allocation_ExecuteTransfer', EXTRA_ARGS_ONLY, {
        consuming: true,
        controllers: allocControllers,
        body: (ctx, self, a) => {
          const r = executeTwoStepTransfer(ctx, allocationToTwoStepTransfer(self.payload.allocation), self.payload.lockedAmulet, a.extraArgs, null);
          return { senderHoldingCids: r.senderHoldingCids, receiverHoldingCids: r.receiverHoldingCids, meta: r.meta };
        },
      }),
      Allocation_Cancel: unlockAllocation('Allocation_Cancel', allocControllers),
      Allocation_Withdraw: unlockAllocation('Allocation_Withdraw', (p) => [p.allocation.transferLeg.sender]),
      Archive: archiveChoice(allocSignatories),
    },
  };
  return {
    id: AmuletIds.AmuletAllocation,
    kind: 'native',
    signatories: allocSignatories,
    observers: (p) => [p.allocation.settlement.executor],
    ensure: (p) => {
      const s = p.allocation.settlement;
      const ok =
        parseTime(s.requestedAt) <= parseTime(s.allocateBefore) &&
        parseTime(s.allocateBefore) <= parseTime(s.settleBefore) &&
        dec(p.allocation.transferLeg.amount) > 0n &&
        p.allocation.transferLeg.instrumentId.id === AMULET_INSTRUMENT_ID;
      return ok ? undefined : 'isValidAllocationSpecificationV1 allocation && allocation.transferLeg.instrumentId.id == amuletInstrumentIdName';
    },
    parsePayload: recordParser(T.AmuletAllocation, 'createArguments'),
    payloadType: T.AmuletAllocation,
    choices: {},
    implements: [allocationV1],
  };
}
