/**
 * Transfer pre-approvals on the validator: the automation accepting TransferPreapprovalProposals
 * whose provider is the validator (`AcceptTransferPreapprovalProposalTrigger`), `POST
 * /v0/wallet/transfer-preapproval` (200 / 409 / 429) and `POST /v0/wallet/transfer-preapproval/send`
 * (CO_TransferPreapprovalSend, dedup on deduplication_id, 400s).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ExerciseNode } from '../../../../src/emulator/participant/updates.js';
import { createFeaturedAppRight, installWallet, tapAmulet, TransferPreapprovalProposalId } from '../../../../src/emulator/templates/amulet/index.js';
import { formatTime } from '../../../../src/canton/lf-value.js';
import { createValidatorApp, preapprovalAutomationName } from '../../../../src/emulator/validator/routes.js';
import type { Json } from '../../../../src/emulator/scan/encode.js';
import type { TransferPreapprovalByParty } from '../scan/fixture.js';
import { buildValidatorWorld, type CreatedTransferPreapproval, type ErrorBody, type ValidatorWorld, type WalletBalance } from './fixture.js';

let w: ValidatorWorld;
afterEach(async () => w?.close());

const DAY = 24n * 3600n * 1_000_000n;
const byName = { package: { name: TransferPreapprovalProposalId.packageName }, moduleName: TransferPreapprovalProposalId.moduleName, entityName: TransferPreapprovalProposalId.entityName };

/** What the wallet SDK's `preapproval.command.create` submits, as the receiver. */
function propose(w: ValidatorWorld, receiver: string, provider = w.validator): string {
  const tx = w.engine.commands.submit({
    userId: 'sdk',
    actAs: [receiver],
    readAs: [],
    commandId: w.engine.ids.uuid(),
    workflowId: '',
    submissionId: w.engine.ids.uuid(),
    commands: [{ kind: 'create', template: byName, createArguments: { receiver, provider, expectedDso: w.dso } }],
    disclosedContracts: [],
  });
  return (tx.nodes[0] as { contract: { contractId: string } }).contract.contractId;
}

const preapprovalsOf = (w: ValidatorWorld, receiver: string) => w.scan.transferPreapprovalByParty(receiver) as { transfer_preapproval: { contract: { contract_id: string; payload: Json } } };
const lastTx = (w: ValidatorWorld) => [...w.engine.updates.range(w.engine.ledgerEnd() - 1, w.engine.ledgerEnd(), new Set([w.dso, w.validator, w.alice, w.bob]))].at(-1)!;

async function balance(w: ValidatorWorld, user: string): Promise<string> {
  const r = await w.json<WalletBalance>('GET', '/v0/wallet/balance', { user });
  expect(r.status).toBe(200);
  return r.body.effective_unlocked_qty;
}

describe('the validator accepts TransferPreapprovalProposals', () => {
  it('a proposal to this validator is accepted at the next ledger activity: 90 days, free, proposal archived', async () => {
    w = await buildValidatorWorld();
    const proposal = propose(w, w.bob);
    // the automation runs lazily: scan's read runs it
    const pre = preapprovalsOf(w, w.bob).transfer_preapproval.contract;
    const now = w.clock.nowMicros();
    expect(pre.payload).toEqual({ dso: w.dso, receiver: w.bob, provider: w.validator, validFrom: formatTime(now), lastRenewedAt: formatTime(now), expiresAt: formatTime(now + 90n * DAY) });
    expect(w.engine.contracts.getActive(proposal)).toBeUndefined();
    // without an own WalletAppInstall the validator exercises the proposal directly
    const root = lastTx(w).nodes[0] as ExerciseNode;
    expect([root.choice, root.actingParties]).toEqual(['TransferPreapprovalProposal_Accept', [w.validator]]);
    expect(w.engine.automations.lastErrors.size).toBe(0);
  });

  it("through the validator's own wallet (CO_AcceptTransferPreapprovalProposal) when it has one", async () => {
    w = await buildValidatorWorld();
    installWallet(w.engine, { dso: w.dso, user: w.validator, validator: w.validator, endUserName: 'ledger-api-user' });
    propose(w, w.alice);
    const cid = preapprovalsOf(w, w.alice).transfer_preapproval.contract.contract_id;
    const root = lastTx(w).nodes[0] as ExerciseNode;
    expect(root.choice).toBe('WalletAppInstall_ExecuteBatch');
    expect(root.exerciseResult).toMatchObject({ outcomes: [{ tag: 'COO_AcceptTransferPreapprovalProposal', value: cid }] });
  });

  it('ignores proposals to other providers, and leaves a proposal alone while the receiver has an unexpired pre-approval', async () => {
    w = await buildValidatorWorld();
    const other = propose(w, w.bob, w.alice);
    const first = propose(w, w.bob);
    const cid = preapprovalsOf(w, w.bob).transfer_preapproval.contract.contract_id;
    expect(w.engine.contracts.getActive(first)).toBeUndefined();
    expect(w.engine.contracts.getActive(other)).toBeDefined();
    const second = propose(w, w.bob);
    w.engine.automations.run();
    expect(w.engine.contracts.getActive(second)).toBeDefined();
    expect(preapprovalsOf(w, w.bob).transfer_preapproval.contract.contract_id).toBe(cid);
    // once it has expired, the pending proposal is accepted
    w.clock.advance(Number(91n * DAY / 1000n));
    w.engine.automations.run();
    expect(w.engine.contracts.getActive(second)).toBeUndefined();
  });
});

describe('POST /v0/wallet/transfer-preapproval', () => {
  it('200 with the new pre-approval (provider = the validator), then 409 with the same id', async () => {
    w = await buildValidatorWorld();
    const r = await w.json<CreatedTransferPreapproval>('POST', '/v0/wallet/transfer-preapproval', { user: 'alice' });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['transfer_preapproval_contract_id']);
    const cid = r.body.transfer_preapproval_contract_id;
    expect(w.engine.contracts.getActive(cid)!.payload).toMatchObject({ receiver: w.alice, provider: w.validator, dso: w.dso });
    // the scan-proxy sees it too
    const proxy = await w.json<TransferPreapprovalByParty>('GET', `/v0/scan-proxy/transfer-preapprovals/by-party/${encodeURIComponent(w.alice)}`, { user: 'alice' });
    expect(proxy.body.transfer_preapproval.contract.contract_id).toBe(cid);

    const again = await w.json('POST', '/v0/wallet/transfer-preapproval', { user: 'alice' });
    expect(again).toMatchObject({ status: 409, body: { transfer_preapproval_contract_id: cid } });
  });

  it('429 when the validator cannot pay for a lifetime beyond the free base duration; accepted once it can', async () => {
    w = await buildValidatorWorld();
    // a validator buying 190-day pre-approvals: 100 paid days * 0.00274 USD = 54.8 CC
    createValidatorApp({ engine: w.engine, dso: w.dso, scan: w.scan, validatorParty: w.validator, preapprovalLifetimeMicros: 190n * DAY });
    expect(w.engine.automations.names()).toContain(preapprovalAutomationName(w.validator));
    const r = await w.json<ErrorBody>('POST', '/v0/wallet/transfer-preapproval', { user: 'bob' });
    expect(r.status).toBe(429);
    expect(r.body.error).toMatch(/^Transfer preapproval creation request timed out because validator automation did not complete it in time\. /);
    // funded, the automation accepts the pending proposal in the background: the next call finds it (409)
    tapAmulet(w.engine, { dso: w.dso, receiver: w.validator, amount: '100' });
    const cid = preapprovalsOf(w, w.bob).transfer_preapproval.contract.contract_id;
    expect(await w.json('POST', '/v0/wallet/transfer-preapproval', { user: 'bob' })).toMatchObject({ status: 409, body: { transfer_preapproval_contract_id: cid } });
    expect(w.engine.contracts.activeAt(w.engine.ledgerEnd(), w.engine.ledgerEnd(), new Set([w.bob]), new Set(['splice-wallet:Splice.Wallet.TransferPreapproval:TransferPreapprovalProposal']))).toEqual([]);
    const validatorAmulets = w.engine.contracts
      .activeAt(w.engine.ledgerEnd(), w.engine.ledgerEnd(), new Set([w.validator]), new Set(['splice-amulet:Splice.Amulet:Amulet']))
      .map((c) => (c.payload as { amount: { initialAmount: string } }).amount.initialAmount);
    expect(validatorAmulets).toEqual(['45.2000000000']);
  });
});

describe('POST /v0/wallet/transfer-preapproval/send', () => {
  it('sends to a receiver with a pre-approval, with the provider featured; dedup on deduplication_id', async () => {
    w = await buildValidatorWorld();
    const featured = createFeaturedAppRight(w.engine, { dso: w.dso, provider: w.validator });
    tapAmulet(w.engine, { dso: w.dso, receiver: w.alice, amount: '100' });
    expect((await w.json('POST', '/v0/wallet/transfer-preapproval', { user: 'bob' })).status).toBe(200);

    const send = (deduplication_id: string, amount = '20') =>
      w.json('POST', '/v0/wallet/transfer-preapproval/send', { user: 'alice', body: { receiver_party_id: w.bob, amount, deduplication_id, description: 'thanks' } });
    const r = await send('d1');
    expect(r).toMatchObject({ status: 200, body: '' });
    const tx = lastTx(w);
    const root = tx.nodes[0] as ExerciseNode;
    expect(root.choice).toBe('WalletAppInstall_ExecuteBatch');
    const sendNode = tx.nodes.find((n) => n.kind === 'exercise' && n.choice === 'TransferPreapproval_Send') as ExerciseNode;
    expect(sendNode.choiceArgument).toMatchObject({ sender: w.alice, amount: '20.0000000000', description: 'thanks', context: { context: { featuredAppRight: featured } } });
    expect(await balance(w, 'alice')).toBe('80.0000000000');
    expect(await balance(w, 'bob')).toBe('20.0000000000');

    // the same deduplication id: 200 again, nothing sent
    expect((await send('d1')).status).toBe(200);
    expect(await balance(w, 'bob')).toBe('20.0000000000');
    // after 24 hours it may be used again; another id sends at once
    expect((await send('d2', '5')).status).toBe(200);
    expect(await balance(w, 'bob')).toBe('25.0000000000');
  });

  it('400s: no pre-approval, insufficient funds, bad party, bad amount, malformed body; nothing moves', async () => {
    w = await buildValidatorWorld();
    tapAmulet(w.engine, { dso: w.dso, receiver: w.alice, amount: '10' });
    const post = (body: unknown) => w.json('POST', '/v0/wallet/transfer-preapproval/send', { user: 'alice', body });
    expect(await post({ receiver_party_id: w.bob, amount: '1', deduplication_id: 'x' })).toMatchObject({
      status: 400,
      body: { error: `Receiver ${w.bob} does not have a TransferPreapproval` },
    });
    expect((await w.json('POST', '/v0/wallet/transfer-preapproval', { user: 'bob' })).status).toBe(200);
    expect(await post({ receiver_party_id: w.bob, amount: '50', deduplication_id: 'x' })).toMatchObject({
      status: 400,
      body: { error: 'the amulet operation failed with a Daml exception: COO_Error(ITR_InsufficientFunds(40.0000000000)).' },
    });
    expect(await post({ receiver_party_id: 'bob', amount: '1', deduplication_id: 'x' })).toMatchObject({ status: 400, body: { error: 'Invalid unique identifier `bob` with missing namespace.' } });
    expect(await post({ receiver_party_id: w.bob, amount: 'one', deduplication_id: 'x' })).toMatchObject({ status: 400, body: { error: 'Could not read Numeric string "one"' } });
    expect(await post({ receiver_party_id: w.bob, amount: '1' })).toMatchObject({
      status: 400,
      body: { error: 'The request content was malformed:\nDecodingFailure at .deduplication_id: Missing required field' },
    });
    expect(await balance(w, 'alice')).toBe('10.0000000000');
    expect(await balance(w, 'bob')).toBe('0.0000000000');
    // the failed id was not spent: it still works
    expect((await post({ receiver_party_id: w.bob, amount: '1', deduplication_id: 'x' })).status).toBe(200);
    expect(await balance(w, 'bob')).toBe('1.0000000000');
  });
});
