/**
 * The two-step transfer specifications of splice-amulet (`Splice.AmuletTransferInstruction`,
 * `Splice.AmuletAllocation`): what a V1 transfer instruction and a V1 allocation lock and later
 * execute or abort (./transfer.ts runs them).
 */
import type { TwoStepTransfer } from './transfer.js';
import { showParty, type AllocationSpecificationV1, type TransferV1 } from './values.js';

export function standardTransferToTwoStepTransfer(t: TransferV1): TwoStepTransfer {
  return {
    dso: t.instrumentId.admin,
    sender: t.sender,
    provider: t.sender,
    receiver: t.receiver,
    amount: t.amount,
    transferBefore: t.executeBefore,
    transferBeforeDeadline: 'Transfer.executeBefore',
    allowFeaturing: false,
    lockContext: `transfer to ${showParty(t.receiver)}`,
  };
}

export function allocationToTwoStepTransfer(a: AllocationSpecificationV1): TwoStepTransfer {
  return {
    dso: a.transferLeg.instrumentId.admin,
    sender: a.transferLeg.sender,
    receiver: a.transferLeg.receiver,
    amount: a.transferLeg.amount,
    provider: a.settlement.executor,
    transferBefore: a.settlement.settleBefore,
    transferBeforeDeadline: 'allocation.settlement.settleBefore',
    allowFeaturing: true,
    // 0.1.22's text (what splice-amulet-0.1.22.dar's V1 allocation factory writes in the lock)
    lockContext: `allocation for settlement of ${a.settlement.settlementRef.id}`,
  };
}
