/**
 * Pre-approvals bought through the ledger (preapproval.ts): TransferPreapprovalProposal and its
 * acceptance by the provider through AmuletRules_CreateTransferPreapproval (free within the
 * 90-day base duration, paid by the provider beyond it), TransferPreapproval_Renew, and the
 * wallet operations CO_AcceptTransferPreapprovalProposal / CO_RenewTransferPreapproval.
 */
import { describe, expect, it } from 'vitest';
import { AmuletIds, installWallet, TransferPreapprovalProposalId } from '../../../../../src/emulator/templates/amulet/index.js';
import type { MetadataV } from '../../../../../src/emulator/templates/amulet/values.js';
import { AMULET, amuletLedger, create, exercise, trace, type AmuletLedger, type ExecuteBatchResult, type TransferResultV } from './fixture.js';
import { createdOf, exercisedOf, type LedgerResponse } from '../wire.js';

/** The result of `TransferPreapprovalProposal_Accept`, `AmuletRules_CreateTransferPreapproval` and `TransferPreapproval_Renew`. */
interface PreapprovalResult {
  transferPreapprovalCid: string;
  transferResult: TransferResultV;
  amuletPaid: string;
  meta: MetadataV;
}

/** The root exercise result of a successful submission. */
const preapprovalResult = (r: LedgerResponse) => exercisedOf(r.transaction.events[0]).exerciseResult as PreapprovalResult;

const PROPOSAL = '#splice-wallet:Splice.Wallet.TransferPreapproval:TransferPreapprovalProposal';
const DAY_MS = 24 * 3600_000;

const paymentContext = (c: { amuletRulesCid: string; openRoundCid: string }) => ({
  amuletRules: c.amuletRulesCid,
  context: { openMiningRound: c.openRoundCid, issuingMiningRounds: [], validatorRights: [], featuredAppRight: null },
});

async function propose(l: AmuletLedger, receiver: string, provider: string, expectedDso: string | null = l.dso): Promise<string> {
  const r = await l.client.ok([receiver], [create(PROPOSAL, { receiver, provider, expectedDso })]);
  return createdOf(r.events[0]).contractId;
}

async function accept(l: AmuletLedger, provider: string, proposal: string, expiresInMs: number, inputs: string[] = []) {
  const c = l.ctx();
  return l.client.submit(
    [provider],
    [
      exercise(PROPOSAL, proposal, 'TransferPreapprovalProposal_Accept', {
        context: paymentContext(c),
        inputs: inputs.map((cid) => ({ tag: 'InputAmulet', value: cid })),
        expiresAt: l.at(expiresInMs),
      }),
    ],
    c.disclosed.slice(0, 2),
  );
}

describe('TransferPreapprovalProposal', () => {
  it('is a splice-wallet template: signatory receiver, observer provider', async () => {
    const l = amuletLedger();
    const cid = await propose(l, l.bob, l.provider);
    const c = l.engine.contracts.get(cid)!;
    expect(c.templateId).toEqual(TransferPreapprovalProposalId);
    expect(c.templateId.packageId).toBe(AmuletIds.WalletAppInstall.packageId);
    expect(c.payload).toEqual({ receiver: l.bob, provider: l.provider, expectedDso: l.dso });
    expect(c.signatories).toEqual([l.bob]);
    expect(c.observers).toEqual([l.provider]);
    const seen = await l.client.acs(l.provider, { TemplateFilter: { value: { templateId: PROPOSAL, includeCreatedEventBlob: false } } });
    expect(seen.map((e) => e.contractId)).toEqual([cid]);
    // only the receiver can create it
    const forged = await l.client.submit([l.provider], [create(PROPOSAL, { receiver: l.bob, provider: l.provider, expectedDso: l.dso })]);
    expect(forged.error.code).toBe('DAML_AUTHORIZATION_ERROR');
  });

  it('accepted by the provider within the base duration: the pre-approval is free, inputs untouched', async () => {
    const l = amuletLedger();
    const funds = l.tap(l.provider, '10');
    const proposal = await propose(l, l.bob, l.provider);
    const r = await accept(l, l.provider, proposal, 90 * DAY_MS, [funds]);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const events = r.transaction.events;
    expect(trace(events)).toEqual([
      'consume TransferPreapprovalProposal.TransferPreapprovalProposal_Accept',
      'exercise AmuletRules.AmuletRules_CreateTransferPreapproval',
      'create TransferPreapproval',
    ]);
    const result = preapprovalResult(r);
    expect(result.amuletPaid).toBe('0.0000000000');
    expect(result.transferResult).toMatchObject({ createdAmulets: [], senderChangeAmulet: null, meta: null, summary: { inputAmuletAmount: '0.0000000000', balanceChanges: [] } });
    const pre = l.engine.contracts.get(result.transferPreapprovalCid)!;
    const now = l.at(0);
    expect(pre.payload).toEqual({ dso: l.dso, receiver: l.bob, provider: l.provider, validFrom: now, lastRenewedAt: now, expiresAt: l.at(90 * DAY_MS) });
    expect(pre.signatories.sort()).toEqual([l.bob, l.provider, l.dso].sort());
    expect(l.engine.contracts.getActive(proposal)).toBeUndefined();
    expect(l.engine.contracts.getActive(funds)).toBeDefined();
    expect(await l.client.balance(l.provider)).toBe('10.0000000000');
  });

  it('beyond the base duration the provider pays transferPreapprovalFee per day, burnt from its inputs', async () => {
    const l = amuletLedger();
    const funds = l.tap(l.provider, '100');
    const proposal = await propose(l, l.bob, l.provider);
    // 190 days: 100 paid days * 0.00274 USD = 0.274 USD = 54.8 CC at 0.005 USD/CC
    const r = await accept(l, l.provider, proposal, 190 * DAY_MS, [funds]);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const events = r.transaction.events;
    const result = preapprovalResult(r);
    expect(result.amuletPaid).toBe('54.8000000000');
    expect(trace(events)).toEqual([
      'consume TransferPreapprovalProposal.TransferPreapprovalProposal_Accept',
      'exercise AmuletRules.AmuletRules_CreateTransferPreapproval',
      'exercise OpenMiningRound.OpenMiningRound_Fetch',
      'consume Amulet.Archive',
      'create Amulet',
      'create Amulet',
      'consume Amulet.Archive',
      'create TransferPreapproval',
    ]);
    expect(await l.client.balance(l.provider)).toBe('45.2000000000');
    const change = result.transferResult.senderChangeAmulet!;
    expect(l.engine.contracts.getActive(change)!.payload).toMatchObject({ owner: l.provider, amount: { initialAmount: '45.2000000000' } });
    // the burnt split is not in the balance changes any more: only the change remains
    const [party, bc] = result.transferResult.summary.balanceChanges[0]!;
    expect(party).toBe(l.provider);
    expect(bc.changeToInitialAmountAsOfRoundZero).toBe('-54.8000000000');
    const create = exercisedOf(events.find((e) => e.ExercisedEvent?.choice === 'AmuletRules_CreateTransferPreapproval')).exerciseResult as PreapprovalResult;
    expect(create.meta.values).toMatchObject({
      'splice.lfdecentralizedtrust.org/tx-kind': 'burn',
      'splice.lfdecentralizedtrust.org/reason': 'create TransferPreapproval',
      'splice.lfdecentralizedtrust.org/burned': '54.8',
    });
  });

  it('a provider without enough funds cannot accept (ITR_InsufficientFunds); nothing changes', async () => {
    const l = amuletLedger();
    const funds = l.tap(l.provider, '10');
    const proposal = await propose(l, l.bob, l.provider);
    const end = await l.client.ledgerEnd();
    const r = await accept(l, l.provider, proposal, 190 * DAY_MS, [funds]);
    expect(r.error.code).toBe('DAML_FAILURE');
    expect(r.error.cause).toContain('ITR_InsufficientFunds {missingAmount = 44.8}');
    expect(await l.client.ledgerEnd()).toBe(end);
    expect(l.engine.contracts.getActive(proposal)).toBeDefined();
  });

  it('checks: only the provider accepts, expectedDso must be set and match, expiresAt in the future', async () => {
    const l = amuletLedger();
    const proposal = await propose(l, l.bob, l.provider);
    expect((await accept(l, l.bob, proposal, DAY_MS)).error.code).toBe('DAML_AUTHORIZATION_ERROR');
    expect((await accept(l, l.carol, proposal, DAY_MS)).error.code).toBe('CONTRACT_NOT_FOUND'); // not a stakeholder
    const past = await accept(l, l.provider, proposal, -1000);
    expect(past.error.cause).toContain("Ledger time is at or past deadline 'expiresAt is not in the past'");

    const unset = await propose(l, l.bob, l.provider, null);
    expect((await accept(l, l.provider, unset, DAY_MS)).error.cause).toContain('Expected DSO party not set by caller');
    const wrong = await propose(l, l.bob, l.provider, l.carol);
    expect((await accept(l, l.provider, wrong, DAY_MS)).error.cause).toContain(`DSO party expected by caller '${l.carol}' does not match actual DSO party '${l.dso}'`);
  });
});

describe('AmuletRules_CreateTransferPreapproval', () => {
  it('self-managed (provider = receiver), optCreatedAt sets validFrom and must not be in the future', async () => {
    const l = amuletLedger();
    const c = l.ctx();
    const arg = (optCreatedAt: string | null) => ({
      context: paymentContext(c),
      inputs: [],
      receiver: l.carol,
      provider: l.carol,
      expiresAt: l.at(30 * DAY_MS),
      expectedDso: l.dso,
      optCreatedAt,
    });
    const future = await l.client.submit([l.carol], [exercise(AMULET.AmuletRules, c.amuletRulesCid, 'AmuletRules_CreateTransferPreapproval', arg(l.at(60_000)))], c.disclosed.slice(0, 2));
    expect(future.error.cause).toContain("Ledger time is strictly before deadline 'createdAt'");
    const r = await l.client.ok<PreapprovalResult>([l.carol], [exercise(AMULET.AmuletRules, c.amuletRulesCid, 'AmuletRules_CreateTransferPreapproval', arg(l.at(-60_000)))], c.disclosed.slice(0, 2));
    expect(l.engine.contracts.get(r.result.transferPreapprovalCid)!.payload).toMatchObject({ receiver: l.carol, provider: l.carol, validFrom: l.at(-60_000), lastRenewedAt: l.at(-60_000) });
    // receiver and provider are both controllers
    const other = await l.client.submit([l.provider], [exercise(AMULET.AmuletRules, c.amuletRulesCid, 'AmuletRules_CreateTransferPreapproval', { ...arg(null), provider: l.provider })], c.disclosed.slice(0, 2));
    expect(other.error.code).toBe('DAML_AUTHORIZATION_ERROR');
  });
});

describe('TransferPreapproval_Renew', () => {
  it('the provider extends it: a new contract with lastRenewedAt = the old expiresAt; free up to 90 days of extension', async () => {
    const l = amuletLedger();
    const proposal = await propose(l, l.bob, l.provider);
    const created = preapprovalResult(await accept(l, l.provider, proposal, 30 * DAY_MS));
    const old = l.engine.contracts.get(created.transferPreapprovalCid)!.payload as { validFrom: string; expiresAt: string };
    const c = l.ctx();
    const renew = (actAs: string, newExpiresAt: string, inputs: string[] = []) =>
      l.client.submit(
        [actAs],
        [exercise(AMULET.TransferPreapproval, created.transferPreapprovalCid, 'TransferPreapproval_Renew', { context: paymentContext(c), inputs: inputs.map((v) => ({ tag: 'InputAmulet', value: v })), newExpiresAt })],
        c.disclosed.slice(0, 2),
      );
    expect((await renew(l.bob, l.at(60 * DAY_MS))).error.code).toBe('DAML_AUTHORIZATION_ERROR');
    expect((await renew(l.provider, l.at(10 * DAY_MS))).error.cause).toContain("The requirement 'newExpiresAt is after expiresAt' was not met.");
    // 30 → 200 days: 170 days of extension, 80 paid = 0.2192 USD = 43.84 CC
    expect((await renew(l.provider, l.at(200 * DAY_MS))).error.cause).toContain('ITR_InsufficientFunds');
    const funds = l.tap(l.provider, '50');
    const paid = await renew(l.provider, l.at(200 * DAY_MS), [funds]);
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    const result = preapprovalResult(paid);
    expect(result).toMatchObject({ receiver: l.bob, provider: l.provider, amuletPaid: '43.8400000000' });
    expect(l.engine.contracts.getActive(created.transferPreapprovalCid)).toBeUndefined();
    expect(l.engine.contracts.get(result.transferPreapprovalCid)!.payload).toEqual({
      dso: l.dso,
      receiver: l.bob,
      provider: l.provider,
      validFrom: old.validFrom,
      lastRenewedAt: old.expiresAt,
      expiresAt: l.at(200 * DAY_MS),
    });
    expect(await l.client.balance(l.provider)).toBe('6.1600000000');
  });
});

describe('wallet operations', () => {
  it("CO_AcceptTransferPreapprovalProposal through the validator's own install; CO_RenewTransferPreapproval", async () => {
    const l = amuletLedger();
    const validator = l.party('validator');
    const own = installWallet(l.engine, { dso: l.dso, user: validator, validator });
    const aliceInstall = installWallet(l.engine, { dso: l.dso, user: l.alice, validator });
    const proposal = await propose(l, l.bob, validator);
    const c = l.ctx();
    const batch = (install: string, operations: unknown[], readAs: string[] = []) =>
      l.client.submit([validator], [exercise(AMULET.WalletAppInstall, install, 'WalletAppInstall_ExecuteBatch', { context: paymentContext(c), inputs: [], operations })], c.disclosed.slice(0, 2), readAs);

    const viaAlice = await batch(aliceInstall, [{ tag: 'CO_AcceptTransferPreapprovalProposal', value: { preapprovalProposalCid: proposal, expiresAt: l.at(DAY_MS) } }], [l.alice]);
    expect(viaAlice.error.cause).toContain("The requirement 'Only a validator can accept a proposal to create a transfer preapproval' was not met.");

    const accepted = await batch(own, [{ tag: 'CO_AcceptTransferPreapprovalProposal', value: { preapprovalProposalCid: proposal, expiresAt: l.at(DAY_MS) } }]);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    const outcome = (exercisedOf(accepted.transaction.events[0]).exerciseResult as ExecuteBatchResult<string>).outcomes[0]!;
    expect(outcome.tag).toBe('COO_AcceptTransferPreapprovalProposal');
    expect(l.engine.contracts.getActive(outcome.value)!.payload).toMatchObject({ receiver: l.bob, provider: validator, expiresAt: l.at(DAY_MS) });

    const renewed = await batch(own, [{ tag: 'CO_RenewTransferPreapproval', value: { previousApprovalCid: outcome.value, newExpiresAt: l.at(2 * DAY_MS) } }]);
    expect(renewed.status, JSON.stringify(renewed.body)).toBe(200);
    const r = (exercisedOf(renewed.transaction.events[0]).exerciseResult as ExecuteBatchResult<string>).outcomes[0]!;
    expect(r.tag).toBe('COO_RenewTransferPreapproval');
    expect(l.engine.contracts.getActive(r.value)!.payload).toMatchObject({ lastRenewedAt: l.at(DAY_MS), expiresAt: l.at(2 * DAY_MS) });
  });
});
