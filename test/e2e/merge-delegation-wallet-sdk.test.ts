/**
 * End to end: the wallet helper's merge delegation, as the official wallet SDK's
 * LocalNet example does it (splice-wallet-kernel, docs/wallet-integration-guide/examples/scripts,
 * "merge-delegation"), with @canton-network/wallet-sdk@1.4.0 against the emulated stack
 * (`startStack`, LocalNet JWT auth, over loopback HTTP).
 *
 * `splice-util-token-standard-wallet-1.0.0.dar` (module Splice.Util.Token.Wallet.MergeDelegation
 * of hyperledger-labs/splice) has no native implementation here: the wallet uploads it and its
 * templates (MergeDelegationProposal, MergeDelegation, BatchMergeUtility) run through the
 * Daml-LF evaluator. Merging calls into the token's own templates: MergeDelegation_Merge
 * exercises `TransferFactory_Transfer` (the token-standard interface) on the Amulet registry's
 * factory with the owner's authority, which the delegation carries.
 *
 * The steps of the SDK script:
 *  1. upload the DAR; an external party (alice) with her own key; 15 taps of 20 CC (15 holdings);
 *  2. the wallet operator (the validator party, which the SDK learns from the validator's
 *     `GET /v0/validator-user`) creates its BatchMergeUtility (`utxos.delegatedMerge.setup`);
 *  3. alice proposes the delegation (`delegatedMerge.command.propose`, a MergeDelegationProposal
 *     she signs through interactive submission), the operator accepts it (`approve`);
 *  4. the operator merges (`delegatedMerge.execute`): the SDK lists alice's holdings, asks the
 *     Amulet registry for a self-transfer of all of them (POST /registry/transfer-instruction/v1/
 *     transfer-factory) and submits BatchMergeUtility_BatchMerge → MergeDelegation_Merge →
 *     TransferFactory_Transfer as the operator alone, with the delegation, the utility, the
 *     holdings and the registry's contracts disclosed;
 *  5. alice has one holding of 300 CC.
 *
 * Each flow runs twice: with the native (TypeScript) Amulet and test tokens, and with
 * TEMPLATE_ENGINE=daml + DARS_DIR, where the tokens' own Daml (allocation factories, execute
 * transfer, transfer factory) runs through the evaluator as well.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type RunningStack } from '../../src/stack.js';
import { amuletUrls, createAmuletSdk } from './support/amulet.js';
import { balanceOf } from './support/wallet-sdk.js';
import { SHARED_DARS_DIR } from '../support/shared-dars.js';

/** LocalNet's admin user, as in the SDK's LocalNet examples. */
const ADMIN_USER = 'ledger-api-user';
const WALLET_DAR = new URL('../../../shared/dars/splice-util-token-standard-wallet-1.0.0.dar', import.meta.url);
/** The package id of that DAR's main package (the SDK example uploads it under this id). */
const WALLET_PACKAGE_ID = '1da198cb7968fa478cfa12aba9fdf128a63a8af6ab284ea6be238cf92a3733ac';
const MODULE = '#splice-util-token-standard-wallet:Splice.Util.Token.Wallet.MergeDelegation';

function createSdk(stack: RunningStack, userId: string) {
  // tokenViaValidator: the token namespace's merge delegation acts as the validator party.
  return createAmuletSdk(stack, userId, { viaValidator: true, registry: amuletUrls(stack).registry, tokenViaValidator: true });
}
type Sdk = Awaited<ReturnType<typeof createSdk>>;


describe.each([
  { engine: 'native' as const, what: 'native Amulet' },
  { engine: 'daml' as const, what: 'Amulet evaluated too (TEMPLATE_ENGINE=daml)' },
])('wallet SDK 1.4.0: merge delegation (evaluated wallet-helper DAR) against the emulated stack, $what', ({ engine }) => {
  let stack: RunningStack;
  let sdk: Sdk;
  let dso: string;
  let validator: string;
  let alice: { partyId: string; privateKey: string };

  beforeAll(async () => {
    stack = await startStack({
      config: { port: 0, logLevel: 'silent', auth: { mode: 'localnet' }, ...(engine === 'daml' ? { templateEngine: engine, darsDir: SHARED_DARS_DIR } : {}) },
      registryPort: 0,
      scanPort: 0,
      validatorPort: 0,
    });
    dso = stack.seeded!.amulet!.dso;
    validator = stack.seeded!.amulet!.validator;
    sdk = await createSdk(stack, ADMIN_USER);
  }, 120_000);

  afterAll(async () => {
    await stack?.close();
  });

  const acs = (template: string, party: string) => sdk.ledger.acs.read({ templateIds: [`${MODULE}:${template}`], parties: [party], filterByParty: true });
  const amulets = async () => (await sdk.token.utxos.list({ partyId: alice.partyId, includeLocked: true })).filter((u) => u.interfaceViewValue.instrumentId.id === 'Amulet');

  it('uploads the wallet helper DAR through the SDK: its templates are evaluated', async () => {
    await sdk.ledger.dar.upload(await readFile(WALLET_DAR), WALLET_PACKAGE_ID);
    expect(await sdk.ledger.dar.check(WALLET_PACKAGE_ID)).toBe(true);
    for (const entity of ['MergeDelegationProposal', 'MergeDelegation', 'BatchMergeUtility']) {
      const def = stack.engine.templates.templateByNameKey(`splice-util-token-standard-wallet:Splice.Util.Token.Wallet.MergeDelegation:${entity}`);
      expect(def?.kind).toBe('daml');
    }
  });

  it('gives an external alice 15 holdings of 20 CC (taps through interactive submission)', async () => {
    const { publicKey, privateKey } = sdk.keys.generate();
    const created = await sdk.party.external.create(publicKey, { partyHint: 'merge-alice' }).sign(privateKey).execute();
    alice = { partyId: created.partyId, privateKey };
    for (let i = 0; i < 15; i++) {
      const [tap, disclosed] = await sdk.amulet.tap(alice.partyId, '20');
      await sdk.ledger.prepare({ partyId: alice.partyId, commands: tap, disclosedContracts: disclosed }).sign(privateKey).execute({ partyId: alice.partyId });
    }
    expect(await amulets()).toHaveLength(15);
    expect(await balanceOf(sdk, alice.partyId, { admin: dso, id: 'Amulet' })).toEqual({ unlocked: '300', locked: '0' });
  }, 60_000);

  it('the operator sets up its BatchMergeUtility; alice proposes the delegation and the operator accepts it', async () => {
    const setup = await sdk.token.utxos.delegatedMerge.setup();
    expect(setup.completionOffset).toBeGreaterThan(0);
    const [utility] = await acs('BatchMergeUtility', validator);
    expect(utility?.createArgument).toEqual({ operator: validator });

    const propose = sdk.token.utxos.delegatedMerge.command.propose({ owner: alice.partyId });
    expect(propose.CreateCommand.createArguments.delegation).toEqual({ operator: validator, owner: alice.partyId, meta: { values: {} } });
    await sdk.ledger.prepare({ partyId: alice.partyId, commands: propose }).sign(alice.privateKey).execute({ partyId: alice.partyId });
    expect(await acs('MergeDelegationProposal', alice.partyId)).toHaveLength(1);

    await sdk.token.utxos.delegatedMerge.approve({ owner: alice.partyId });
    expect(await acs('MergeDelegationProposal', alice.partyId)).toEqual([]);
    const delegations = await acs('MergeDelegation', alice.partyId);
    expect(delegations.map((d) => d.createArgument)).toEqual([{ operator: validator, owner: alice.partyId, meta: { values: {} } }]);
  });

  it('the operator merges her 15 holdings into one of 300 CC through the delegation, acting alone', async () => {
    const before = await amulets();
    const merged = await sdk.token.utxos.delegatedMerge.execute({ party: alice.partyId });
    expect(merged.completionOffset).toBeGreaterThan(0);

    const after = await amulets();
    expect(after).toHaveLength(1);
    expect(after[0]!.interfaceViewValue).toMatchObject({ owner: alice.partyId, amount: '300.0000000000', lock: null });
    for (const u of before) expect(after[0]!.contractId).not.toBe(u.contractId);
    // The delegation and the utility are nonconsuming: both still there for the next merge.
    expect(await acs('MergeDelegation', alice.partyId)).toHaveLength(1);
    expect(await acs('BatchMergeUtility', validator)).toHaveLength(1);
  });

  it('a merge with fewer than 10 holdings is refused by the SDK before anything is submitted', async () => {
    await expect(sdk.token.utxos.delegatedMerge.execute({ party: alice.partyId })).rejects.toMatchObject({ context: { type: 'SDKOperationUnsupported' } });
  });

  it('MergeDelegation_Merge refuses a self-transfer that merges nothing (the Daml requirement, evaluated), and changes nothing', async () => {
    const [holding] = await amulets();
    // The self-transfer of the one holding, built by the registry as the SDK's merge does.
    const [transfer, transferDisclosed] = await sdk.token.transfer.create({
      sender: alice.partyId,
      recipient: alice.partyId,
      amount: '300',
      instrumentId: 'Amulet',
      registryUrl: new URL(amuletUrls(stack).registry),
      inputUtxos: [holding!.contractId],
    });
    if (!('ExerciseCommand' in transfer)) throw new Error('expected an ExerciseCommand');
    const [delegation] = await acs('MergeDelegation', alice.partyId);
    const event = holding!.activeContract.createdEvent;
    const disclosed = [
      ...transferDisclosed,
      { templateId: event.templateId, contractId: event.contractId, createdEventBlob: event.createdEventBlob!, synchronizerId: holding!.activeContract.synchronizerId },
    ];
    const end = await sdk.ledger.ledgerEnd();
    const refused = await sdk.ledger.internal
      .submit({
        commands: [
          {
            ExerciseCommand: {
              templateId: `${MODULE}:MergeDelegation`,
              contractId: delegation!.contractId,
              choice: 'MergeDelegation_Merge',
              choiceArgument: {
                optMergeTransfer: { factoryCid: transfer.ExerciseCommand.contractId, choiceArg: transfer.ExerciseCommand.choiceArgument },
                optExtraTransfer: null,
                optFeaturedAppRight: null,
              },
            },
          },
        ],
        actAs: [validator],
        disclosedContracts: disclosed,
      })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'DAML_FAILURE' });
    expect(JSON.stringify(refused)).toContain("The requirement 'Number of sender input holdings 1 >  number of sender output holdings 1' was not met.");
    expect(await sdk.ledger.ledgerEnd()).toEqual(end);
    expect((await amulets()).map((u) => u.contractId)).toEqual([holding!.contractId]);
  });
});
