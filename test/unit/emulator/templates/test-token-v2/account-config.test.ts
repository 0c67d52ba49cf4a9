import { describe, expect, it } from 'vitest';
import { createTestTokenV2Account, mintTestTokenV2, type PartyConfig } from '../../../../../src/emulator/templates/test-token-v2/index.js';
import type { instructionViewV2 } from '../../../../../src/emulator/templates/test-token-v2/allocation.js';
import type { offerViewV1, offerViewV2 } from '../../../../../src/emulator/templates/test-token-v2/transfer.js';
import { basic, context, exercise, extraArgs, holdingsChanges, IFACE, TT2 } from './client.js';
import { tt2Ledger, type TT2Ledger } from './fixture.js';
import {
  exercisedOf,
  type AllocationInstructionResultV2,
  type PendingAllocation,
  type PendingTransfer,
  type TransferInstructionResult,
} from '../wire.js';
import { interfaceView } from '../../../../support/ledger-wire.js';

type OfferViewV2 = ReturnType<typeof offerViewV2>;
type OfferViewV1 = ReturnType<typeof offerViewV1>;
type AllocationInstructionViewV2 = ReturnType<typeof instructionViewV2>;

const meta = { values: {} };

function providerAccount(l: TT2Ledger, bank: string, opts: { ownerConfig?: PartyConfig; providerConfig?: PartyConfig } = {}) {
  const account = { owner: l.alice, provider: bank, id: 'acc-1' };
  const configCid = createTestTokenV2Account(l.engine, { admin: l.admin, owner: l.alice, provider: bank, id: 'acc-1', ...opts });
  return { account, configCid };
}

function transfer(l: TT2Ledger, sender: unknown, receiver: unknown, amount: string, inputs: string[]) {
  return {
    sender,
    receiver,
    amount,
    instrumentId: { admin: l.admin, id: 'X2' },
    requestedAt: l.at(-1000),
    executeBefore: l.at(3_600_000),
    inputHoldingCids: inputs,
    meta,
  };
}

describe('TestTokenV2 provider accounts (AccountConfig)', () => {
  it('opens an account through AccountProposal and mints into it with the joint accept of owner and provider', async () => {
    const l = tt2Ledger();
    const bank = l.party('bank');
    const { account, configCid } = providerAccount(l, bank);
    const configs = await l.client.acs(l.admin, { TemplateFilter: { value: { templateId: TT2.AccountConfig, includeCreatedEventBlob: false } } });
    expect(configs.map((c) => c.contractId)).toEqual([configCid]);
    expect(configs[0]!.signatories.sort()).toEqual([l.alice, bank].sort());
    const cid = mintTestTokenV2(l.engine, { admin: l.admin, account, instrumentId: 'X2', amount: '50', tokenRulesCid: l.rules });
    const hs = await l.client.holdings(bank);
    expect(hs).toEqual([{ contractId: cid, view: expect.objectContaining({ account, amount: '50.0000000000' }) }]);
    // the V1 view carries the account in the metadata
    const [v1] = await l.client.holdings(l.alice, 'V1');
    expect(v1!.view.meta.values).toEqual({ 'cip-112/account.provider': bank, 'cip-112/account.id': 'acc-1' });
  });

  it('a transfer from an account where both must approve goes through owner, provider, then receiver', async () => {
    const l = tt2Ledger();
    const bank = l.party('bank');
    const { account, configCid } = providerAccount(l, bank);
    const input = mintTestTokenV2(l.engine, { admin: l.admin, account, instrumentId: 'X2', amount: '50', tokenRulesCid: l.rules });
    const rulesD = await l.client.disclosed(l.admin, l.rules);
    const ctx = context(l.rules, [configCid]);
    const t = transfer(l, account, basic(l.bob), '20', [input]);

    // without the AccountConfig in the context the provider account cannot be used
    const noConfig = await l.client.submit([l.alice], [exercise(IFACE.TransferFactoryV2, l.rules, 'TransferFactory_Transfer', { transfer: t, actors: [l.alice], extraArgs: extraArgs(context(l.rules)) })], [rulesD]);
    expect(noConfig.error.cause).toContain('No account config supplied for account Account');

    const step1 = await l.client.ok<TransferInstructionResult<PendingTransfer>>([l.alice], [exercise(IFACE.TransferFactoryV2, l.rules, 'TransferFactory_Transfer', { transfer: t, actors: [l.alice], extraArgs: extraArgs(ctx) })], [rulesD]);
    expect(step1.result.output.tag).toBe('TransferInstructionResult_Pending');
    expect(holdingsChanges(step1.events)).toEqual([]); // nothing locked yet
    const pending1 = step1.result.output.value.transferInstructionCid;
    const [p1] = await l.client.acs(bank, { InterfaceFilter: { value: { interfaceId: IFACE.TransferInstructionV2, includeInterfaceView: true } } });
    expect(p1!.contractId).toBe(pending1);
    expect((interfaceView(p1) as OfferViewV2).availableActions).toEqual([
      [{ tag: 'TIA_Accept', value: {} }, [[bank]]],
      [{ tag: 'TIA_Withdraw', value: {} }, [[l.alice]]],
    ]);
    // the V1 view reports the internal workflow
    const [p1v1] = await l.client.acs(bank, { InterfaceFilter: { value: { interfaceId: IFACE.TransferInstructionV1, includeInterfaceView: true } } });
    expect((interfaceView(p1v1) as OfferViewV1).status).toEqual({
      tag: 'TransferPendingInternalWorkflow',
      value: { pendingActions: [[l.alice, 'withdraw'], [bank, 'accept']].sort((a, b) => (a[0]! < b[0]! ? -1 : 1)) },
    });

    // bob cannot act yet
    const bobEarly = await l.client.submit([l.bob], [exercise(IFACE.TransferInstructionV2, pending1, 'TransferInstruction_Accept', { actors: [l.bob], extraArgs: extraArgs(ctx) })], [
      rulesD,
      await l.client.disclosed(bank, pending1),
      await l.client.disclosed(bank, configCid),
    ]);
    expect(bobEarly.error.code).toBe('DAML_FAILURE');

    const step2 = await l.client.ok<TransferInstructionResult<PendingTransfer>>([bank], [exercise(IFACE.TransferInstructionV2, pending1, 'TransferInstruction_Accept', { actors: [bank], extraArgs: extraArgs(ctx) })], [rulesD]);
    expect(step2.result.output.tag).toBe('TransferInstructionResult_Pending');
    expect(holdingsChanges(step2.events).map((c) => c.reason)).toEqual([expect.stringMatching(/^lock for transfer to/)]);
    const offer = step2.result.output.value.transferInstructionCid;
    const [o] = await l.client.acs(l.bob, { InterfaceFilter: { value: { interfaceId: IFACE.TransferInstructionV2, includeInterfaceView: true } } });
    const ov = interfaceView(o) as OfferViewV2;
    expect(ov.originalInstructionCid).toBe(pending1);
    expect(ov.availableActions).toEqual([
      [{ tag: 'TIA_Accept', value: {} }, [[l.bob]]],
      [{ tag: 'TIA_Reject', value: {} }, [[l.bob]]],
      [{ tag: 'TIA_Withdraw', value: {} }, [[l.alice], [l.alice, bank].sort(), [bank]].sort()],
    ]);
    const locked = ov.transfer.inputHoldingCids[0]!;
    const step3 = await l.client.ok<TransferInstructionResult>([l.bob], [exercise(IFACE.TransferInstructionV2, offer, 'TransferInstruction_Accept', { actors: [l.bob], extraArgs: extraArgs(ctx) })], [
      rulesD,
      await l.client.disclosed(bank, locked),
      await l.client.disclosed(bank, configCid),
    ]);
    expect(step3.result.output.tag).toBe('TransferInstructionResult_Completed');
    expect(await l.client.balance(l.bob)).toBe(20);
    expect(await l.client.balance(l.alice)).toBe(30);
  });

  it('uses the AccountConfig authority transfer when the provider need not approve', async () => {
    const l = tt2Ledger();
    const bank = l.party('bank');
    const { account, configCid } = providerAccount(l, bank, {
      ownerConfig: { canInitiate: true, mustApprove: true },
      providerConfig: { canInitiate: false, mustApprove: false },
    });
    const input = mintTestTokenV2(l.engine, { admin: l.admin, account, instrumentId: 'X2', amount: '50', tokenRulesCid: l.rules });
    const rulesD = await l.client.disclosed(l.admin, l.rules);
    const ctx = context(l.rules, [configCid]);
    const r = await l.client.ok<TransferInstructionResult<PendingTransfer>>(
      [l.alice],
      [exercise(IFACE.TransferFactoryV2, l.rules, 'TransferFactory_Transfer', { transfer: transfer(l, account, basic(l.bob), '20', [input]), actors: [l.alice], extraArgs: extraArgs(ctx) })],
      [rulesD],
    );
    // one command: alice's part, then the bank's part through AuthorizeTransferInstructionAction
    expect(r.result.output.tag).toBe('TransferInstructionResult_Pending');
    expect(r.events.filter((e) => e.ExercisedEvent).map((e) => exercisedOf(e).choice)).toContain('AuthorizeTransferInstructionAction');
    const [o] = await l.client.acs(l.bob, { InterfaceFilter: { value: { interfaceId: IFACE.TransferInstructionV2, includeInterfaceView: true } } });
    expect(o!.contractId).toBe(r.result.output.value.transferInstructionCid);
    expect((interfaceView(o) as OfferViewV2).availableActions[0]).toEqual([{ tag: 'TIA_Accept', value: {} }, [[l.bob]]]);
    expect(await l.client.balance(l.alice, { locked: true })).toBe(20);
  });

  it('an allocation from a provider account needs the provider to accept the instruction', async () => {
    const l = tt2Ledger();
    const bank = l.party('bank');
    const { account, configCid } = providerAccount(l, bank);
    const input = mintTestTokenV2(l.engine, { admin: l.admin, account, instrumentId: 'X2', amount: '50', tokenRulesCid: l.rules });
    const rulesD = await l.client.disclosed(l.admin, l.rules);
    const ctx = context(l.rules, [configCid]);
    const lg = { transferLegId: 'leg-1', sender: account, receiver: basic(l.bob), amount: '10', instrumentId: 'X2', meta };
    const r = await l.client.ok<AllocationInstructionResultV2<PendingAllocation>>(
      [l.alice],
      [
        exercise(IFACE.AllocationFactoryV2, l.rules, 'AllocationFactory_Allocate', {
          settlement: { executors: [l.executor], id: 's-1', cid: null, meta },
          allocation: {
            admin: l.admin,
            authorizer: account,
            transferLegSides: [{ transferLegId: 'leg-1', side: 'SenderSide', otherside: lg.receiver, amount: '10', instrumentId: 'X2', meta }],
            settlementDeadline: l.at(3_600_000),
            nextIterationFunding: null,
            committed: false,
            meta,
          },
          requestedAt: l.at(-1000),
          inputHoldingCids: [input],
          extraArgs: extraArgs(ctx),
          actors: [l.alice],
        }),
      ],
      [rulesD],
    );
    expect(r.result.output.tag).toBe('AllocationInstructionResult_Pending');
    const instr = r.result.output.value.allocationInstructionCid;
    const [iv] = await l.client.acs(bank, { InterfaceFilter: { value: { interfaceId: IFACE.AllocationInstructionV2, includeInterfaceView: true } } });
    expect((interfaceView(iv) as AllocationInstructionViewV2).availableActions).toEqual([
      [{ tag: 'AIA_Withdraw', value: {} }, [[l.alice]]],
      [{ tag: 'AIA_Accept', value: {} }, [[bank]]],
    ]);
    const acc = await l.client.ok<AllocationInstructionResultV2>([bank], [exercise(IFACE.AllocationInstructionV2, instr, 'AllocationInstruction_Accept', { actors: [bank], extraArgs: extraArgs(ctx) })], [rulesD]);
    expect(acc.result.output.tag).toBe('AllocationInstructionResult_Completed');
    expect(await l.client.balance(bank, { locked: true })).toBe(0); // bank is not the owner
    const locked = (await l.client.holdings(l.alice)).filter((h) => h.view.lock !== null);
    expect(locked.map((h) => [h.view.amount, h.view.lock!.holders])).toEqual([['10.0000000000', [l.admin, l.alice, bank].sort()]]);

    // a second instruction can be withdrawn by whoever already authorised it
    const change = (await l.client.holdings(l.alice)).filter((h) => h.view.lock === null).map((h) => h.contractId);
    const r2 = await l.client.ok<AllocationInstructionResultV2<PendingAllocation>>(
      [l.alice],
      [
        exercise(IFACE.AllocationFactoryV2, l.rules, 'AllocationFactory_Allocate', {
          settlement: { executors: [l.executor], id: 's-2', cid: null, meta },
          allocation: {
            admin: l.admin,
            authorizer: account,
            transferLegSides: [{ transferLegId: 'leg-1', side: 'SenderSide', otherside: lg.receiver, amount: '10', instrumentId: 'X2', meta }],
            settlementDeadline: null,
            nextIterationFunding: null,
            committed: false,
            meta,
          },
          requestedAt: l.at(-1000),
          inputHoldingCids: change,
          extraArgs: extraArgs(ctx),
          actors: [l.alice],
        }),
      ],
      [rulesD],
    );
    const wd = await l.client.ok<AllocationInstructionResultV2>(
      [l.alice],
      [exercise(IFACE.AllocationInstructionV2, r2.result.output.value.allocationInstructionCid, 'AllocationInstruction_Withdraw', { actors: [l.alice], extraArgs: extraArgs(ctx) })],
      [rulesD],
    );
    expect(wd.result.output.tag).toBe('AllocationInstructionResult_Failed');
    expect(wd.result.authorizerChangeCids).toEqual({ X2: change });
  });

  it('rejects invalid configs and a config supplied for a basic account', async () => {
    const l = tt2Ledger();
    const bank = l.party('bank');
    const bad = await l.client.submit([bank], [
      exercise(TT2.AccountProposal, '00', 'AccountProposal_Accept', {}),
    ]);
    expect(bad.status).toBeGreaterThanOrEqual(400);
    const invalid = await l.client.submit([l.alice, bank], [
      { CreateCommand: { templateId: TT2.AccountConfig, createArguments: { admin: l.admin, account: { owner: l.alice, provider: bank, id: '' }, ownerConfig: { canInitiate: false, mustApprove: true }, providerConfig: { canInitiate: false, mustApprove: false } } } },
    ]);
    expect(invalid.error.code).toBe('DAML_FAILURE');
    const { configCid } = providerAccount(l, bank);
    const a = l.mint(l.alice, '10');
    // the registry never sends a config for a basic account; if one is sent for an account in the
    // transfer, it must belong to that account: here it is for another account, which is fine,
    // but a provider account missing from the context is not.
    const r = await l.client.ok<TransferInstructionResult>(
      [l.alice],
      [exercise(IFACE.TransferFactoryV2, l.rules, 'TransferFactory_Transfer', { transfer: transfer(l, basic(l.alice), basic(l.bob), '1', [a]), actors: [l.alice], extraArgs: extraArgs(context(l.rules, [configCid])) })],
      [await l.client.disclosed(l.admin, l.rules)],
    );
    expect(r.result.output.tag).toBe('TransferInstructionResult_Pending');
  });
});
