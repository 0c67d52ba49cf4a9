/**
 * End to end: the flow of the wallet SDK's integration-guide example 13, "rewards for deposits"
 * (canton-network/wallet, docs/wallet-integration-guide/examples/scripts/13-rewards-for-deposits),
 * with @canton-network/wallet-sdk@1.4.0 against the emulated stack (LocalNet JWT auth, the
 * validator's scan-proxy as the Canton Coin registry, as the example configures it), written here
 * step by step as the example takes them:
 *  1. two external parties, alice (the depositor) and treasury (the exchange); the
 *     `splice-util-featured-app-proxies` DAR uploaded (its DelegateProxy runs through the Daml-LF
 *     evaluator and calls the Amulet transfer instruction's interface choices);
 *  2. alice signs a TransferPreapprovalProposal naming the validator as provider
 *     (`amulet.preapproval.command.create`);
 *  3. the validator's featured-app right (`amulet.featuredApp.grant`); taps of 20,000,000 CC to
 *     each;
 *  4. `_withdraw`: the validator creates a DelegateProxy for treasury; treasury sends alice 100 CC
 *     through the registry; the example then looks for that transfer among treasury's pending
 *     instructions, to withdraw it through the proxy.
 *
 * Step 4 is where the example breaks, on LocalNet as here: Splice's validator automation
 * (`AcceptTransferPreapprovalProposalTrigger`, registered unconditionally by
 * `ValidatorAutomationService` when the wallet is enabled) has accepted alice's proposal, for free
 * since splice-amulet 0.1.20 (CIP-119: `transferPreapprovalBaseDuration`, default 90 days, equal
 * to the validator's default `preapprovalLifetime`); Scan's transfer factory
 * (`HttpTokenStandardTransferInstructionHandler.getTransferFactory`) then answers `direct` with
 * the `transfer-preapproval` in the context, the transfer completes at once and no
 * TransferInstruction exists, so `token.transfer.pending(treasury)` is empty. The wallet
 * repository's example runner skips this example (`scripts/src/test-example-scripts.ts`,
 * `EXCEPTIONS_DIR_NAMES`). The test asserts that outcome, then runs the withdrawal the example
 * means on an offer that stays pending (to a receiver without a pre-approval), and the rest of the
 * example as written:
 *  5. twice (reject, then accept): a DelegateProxy again; alice sends treasury 100 CC (an offer:
 *     treasury has no pre-approval); treasury rejects / accepts it through the proxy, with the
 *     featured-app right, which marks the activity (a FeaturedAppActivityMarker for the validator).
 *
 * A second suite runs the example exactly as written on a world configured as networks were before
 * CIP-0119 (`transferPreapprovalBaseDurationDays: 0`): there the unfunded validator cannot buy
 * alice's pre-approval, so the transfer is an offer and every step of the example succeeds. That
 * is the behaviour of a LocalNet whose splice-amulet predates 0.1.20 and whose validator holds no
 * Canton Coin (the example taps no coin for the validator, unlike example 05-preapproval).
 *
 * The SDK's delegate-proxy commands default their registry to LocalNet's address
 * (`localNetStaticConfig.LOCALNET_REGISTRY_API_URL`); this stack listens on free ports, so the test
 * passes the registry the example would reach there (the validator's scan-proxy).
 */
import { readFile } from 'node:fs/promises';
import type { FeaturedAppRight } from '@canton-network/wallet-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type RunningStack } from '../../src/stack.js';
import { DEFAULT_DEMO_WORLD, DemoWorldSchema } from '../../src/emulator/world/seed.js';
import { amuletUrls, createAmuletSdk, type AmuletSdk } from './support/amulet.js';
import { SHARED_DARS_DIR } from '../support/shared-dars.js';

/** LocalNet's ledger user, as the SDK's LocalNet examples use it. */
const ADMIN_USER = 'ledger-api-user';
const PROXIES_DAR = new URL('../../../shared/dars/splice-util-featured-app-proxies-1.1.0.dar', import.meta.url);
/** The main package id of that DAR (the example uploads it under this id). */
const PROXIES_PACKAGE_ID = '81dd5a9e5c02d0de03208522a895fb85eeb12fbea4aca7c4ad0ad106f3b0bfce';
const DELEGATE_PROXY = '#splice-util-featured-app-proxies:Splice.Util.FeaturedApp.DelegateProxy:DelegateProxy';
const ACTIVITY_MARKER = '#splice-amulet:Splice.Amulet:FeaturedAppActivityMarker';
const STARTING_AMOUNT = 20_000_000;
const AMOUNT = 100;

interface External {
  partyId: string;
  privateKey: string;
}

/** How the example acts as its external parties, over the SDK a suite has started (read when called). */
function externalPartySteps(sdkOf: () => AmuletSdk) {
  type Prepare = Parameters<AmuletSdk['ledger']['prepare']>[0];
  return {
    /** Prepare, sign with the party's key, execute: how the example submits every external-party command. */
    execute: async (party: External, commands: Prepare['commands'], disclosedContracts?: Prepare['disclosedContracts']) =>
      sdkOf()
        .ledger.prepare({ partyId: party.partyId, commands, ...(disclosedContracts ? { disclosedContracts } : {}) })
        .sign(party.privateKey)
        .execute({ partyId: party.partyId }),
    /** The example's `partiesUtxos`: the sum of a party's unlocked holdings, as the SDK lists them by default. */
    utxoSum: async (party: External) => (await sdkOf().token.utxos.list({ partyId: party.partyId })).reduce((acc, u) => acc + Number(u.interfaceViewValue.amount), 0),
    newExternal: async (hint: string): Promise<External> => {
      const keys = sdkOf().keys.generate();
      const created = await sdkOf().party.external.create(keys.publicKey, { partyHint: hint }).sign(keys.privateKey).execute();
      return { partyId: created.partyId, privateKey: keys.privateKey };
    },
  };
}

describe.each([
  { engine: 'native' as const, what: 'native Amulet' },
  { engine: 'daml' as const, what: 'Amulet evaluated from its DAR too (TEMPLATE_ENGINE=daml)' },
])('wallet SDK 1.4.0: example 13 (rewards for deposits) against the emulated stack, $what', ({ engine }) => {
  let stack: RunningStack;
  let sdk: AmuletSdk;
  let registry: URL;
  let validator: string;
  let dso: string;
  let alice: External;
  let treasury: External;
  let featuredAppRight: FeaturedAppRight;

  const { execute, utxoSum, newExternal } = externalPartySteps(() => sdk);
  // The example reads them with `acsReader.readJsContracts` (newer SDKs); 1.4.0's equivalent read:
  const proxies = () => sdk.ledger.acs.read({ parties: [treasury.partyId], templateIds: [DELEGATE_PROXY], filterByParty: true });
  const markers = () => sdk.ledger.acs.read({ parties: [validator], templateIds: [ACTIVITY_MARKER], filterByParty: true });

  beforeAll(async () => {
    stack = await startStack({
      config: { port: 0, logLevel: 'silent', auth: { mode: 'localnet' }, ...(engine === 'daml' ? { templateEngine: engine, darsDir: SHARED_DARS_DIR } : {}) },
      registryPort: 0,
      scanPort: 0,
      validatorPort: 0,
    });
    registry = new URL(amuletUrls(stack).scanProxyRegistry);
    validator = stack.seeded!.amulet!.validator;
    dso = stack.seeded!.amulet!.dso;
    sdk = await createAmuletSdk(stack, ADMIN_USER, { viaValidator: true, registry: registry.href, tokenViaValidator: true });
  }, 60_000);

  afterAll(async () => {
    await stack?.close();
  });

  it('1. alice and treasury are external parties; the featured-app proxies DAR is uploaded', async () => {
    alice = await newExternal('v1-13-alice');
    treasury = await newExternal('v1-13-treasury');
    await sdk.ledger.dar.upload(await readFile(PROXIES_DAR), PROXIES_PACKAGE_ID);
    expect(await sdk.ledger.dar.check(PROXIES_PACKAGE_ID)).toBe(true);
    expect(stack.engine.templates.templateByNameKey('splice-util-featured-app-proxies:Splice.Util.FeaturedApp.DelegateProxy:DelegateProxy')?.kind).toBe('daml');
  });

  it('2. alice proposes a pre-approval with the validator as provider; the validator automation accepts it', async () => {
    const proposal = await sdk.amulet.preapproval.command.create({ parties: { receiver: alice.partyId } });
    expect(proposal.CreateCommand.createArguments).toMatchObject({ provider: validator, receiver: alice.partyId });
    await execute(alice, proposal);
    // AcceptTransferPreapprovalProposalTrigger: the validator's wallet buys alice's pre-approval
    // (free: 90 days is within transferPreapprovalBaseDuration), visible through the scan-proxy.
    const status = await sdk.amulet.preapproval.fetchStatus(alice.partyId);
    expect(status?.templateId).toMatch(/:Splice\.AmuletRules:TransferPreapproval$/);
    // preapprovalLifetime: 90 days from the acceptance.
    const days = (status!.expiresAt.getTime() - Number(stack.clock.nowMicros() / 1000n)) / 86_400_000;
    expect(Math.round(days)).toBe(90);
    const [preapproval] = await sdk.ledger.acs.read({ parties: [alice.partyId], templateIds: ['#splice-amulet:Splice.AmuletRules:TransferPreapproval'], filterByParty: true });
    expect(preapproval?.createArgument).toMatchObject({ receiver: alice.partyId, provider: validator });
    expect(preapproval?.contractId).toBe(status!.contractId);
  });

  it('3. the validator\'s featured-app right; taps of 20,000,000 CC to alice and to treasury', async () => {
    featuredAppRight = (await sdk.amulet.featuredApp.grant())!;
    expect(featuredAppRight).toMatchObject({ payload: { provider: validator } });
    for (const party of [alice, treasury]) {
      const [tap, disclosed] = await sdk.amulet.tap(party.partyId, STARTING_AMOUNT.toString());
      await execute(party, tap, disclosed);
      expect(await utxoSum(party)).toBe(STARTING_AMOUNT);
    }
  });

  it('4. _withdraw: treasury -> alice is a direct transfer (alice is pre-approved), so treasury has no pending instruction to withdraw, as on LocalNet', async () => {
    await sdk.token.transfer.delegatedProxy.create(treasury.partyId);
    expect(await proxies()).toHaveLength(1);

    const [transfer, disclosed] = await sdk.token.transfer.create({ sender: treasury.partyId, recipient: alice.partyId, amount: String(AMOUNT), instrumentId: 'Amulet', registryUrl: registry });
    // The registry's context carries alice's pre-approval: Scan's `direct` transfer kind.
    if (!('ExerciseCommand' in transfer)) throw new Error('expected an ExerciseCommand');
    const context = (transfer.ExerciseCommand.choiceArgument as { extraArgs: { context: { values: Record<string, unknown> } } }).extraArgs.context.values;
    expect(Object.keys(context)).toContain('transfer-preapproval');
    await execute(treasury, transfer, disclosed);

    // Where the example reads `(await sdk.token.transfer.pending(treasury))[0].contractId`: nothing.
    expect(await sdk.token.transfer.pending(treasury.partyId)).toEqual([]);
    expect(await sdk.token.transfer.pending(alice.partyId)).toEqual([]);
    expect(await utxoSum(alice)).toBe(STARTING_AMOUNT + AMOUNT);
    expect(await utxoSum(treasury)).toBe(STARTING_AMOUNT - AMOUNT);
  });

  it('4b. the withdrawal the example means, on an offer that stays pending: treasury withdraws it through the proxy', async () => {
    const carol = await newExternal('v1-13-carol');
    const [transfer, disclosed] = await sdk.token.transfer.create({ sender: treasury.partyId, recipient: carol.partyId, amount: String(AMOUNT), instrumentId: 'Amulet', registryUrl: registry });
    await execute(treasury, transfer, disclosed);
    const [proxy] = await proxies();
    const [instruction] = await sdk.token.transfer.pending(treasury.partyId);
    expect(instruction?.interfaceViewValue.transfer).toMatchObject({ sender: treasury.partyId, receiver: carol.partyId });
    expect(await utxoSum(treasury)).toBe(STARTING_AMOUNT - 2 * AMOUNT); // 100 locked in the offer

    const markersBefore = (await markers()).length;
    const [withdraw, withdrawDisclosed] = await sdk.token.transfer.delegatedProxy.commands.withdraw({
      proxyCid: proxy!.contractId,
      transferInstructionCid: instruction!.contractId,
      featuredAppRight,
      registryUrl: registry,
    });
    await execute(treasury, withdraw, withdrawDisclosed);

    expect(await sdk.token.transfer.pending(treasury.partyId)).toEqual([]);
    expect(await utxoSum(treasury)).toBe(STARTING_AMOUNT - AMOUNT);
    // The proxy marked the featured app's activity for its provider (the validator, weight 1).
    const all = await markers();
    expect(all.length).toBe(markersBefore + 1);
    expect(all.at(-1)?.createArgument).toEqual({ dso, provider: validator, beneficiary: validator, weight: '1.0000000000' });
  });

  /** The example's `setupIteration`: a proxy for treasury, alice sends treasury 100 CC, the pending instruction as alice sees it. */
  const setupIteration = async () => {
    await sdk.token.transfer.delegatedProxy.create(treasury.partyId);
    const [transfer, disclosed] = await sdk.token.transfer.create({ sender: alice.partyId, recipient: treasury.partyId, amount: String(AMOUNT), instrumentId: 'Amulet', registryUrl: registry });
    await execute(alice, transfer, disclosed);
    const proxyCid = (await proxies())[0]!.contractId;
    const pending = await sdk.token.transfer.pending(alice.partyId);
    expect(pending).toHaveLength(1);
    return { proxyCid, transferInstructionCid: pending[0]!.contractId, featuredAppRight, registryUrl: registry };
  };

  it('5a. _reject: alice -> treasury is an offer (treasury has no pre-approval); treasury rejects it through the proxy', async () => {
    const args = await setupIteration();
    const aliceBefore = STARTING_AMOUNT + AMOUNT;
    expect(await utxoSum(alice)).toBe(aliceBefore - AMOUNT); // locked in the offer
    const markersBefore = (await markers()).length;
    const [reject, disclosed] = await sdk.token.transfer.delegatedProxy.commands.reject(args);
    await execute(treasury, reject, disclosed);
    expect(await sdk.token.transfer.pending(alice.partyId)).toEqual([]);
    expect(await utxoSum(alice)).toBe(aliceBefore);
    expect(await utxoSum(treasury)).toBe(STARTING_AMOUNT - AMOUNT);
    expect((await markers()).length).toBe(markersBefore + 1);
  });

  it('5b. _accept: another offer; treasury accepts it through the proxy and receives the 100 CC', async () => {
    const args = await setupIteration();
    const markersBefore = (await markers()).length;
    const [accept, disclosed] = await sdk.token.transfer.delegatedProxy.commands.accept(args);
    await execute(treasury, accept, disclosed);
    expect(await sdk.token.transfer.pending(alice.partyId)).toEqual([]);
    // The example's own check, shifted by step 4's direct transfer (alice +100, treasury -100).
    expect(await utxoSum(alice)).toBe(STARTING_AMOUNT + AMOUNT - AMOUNT);
    expect(await utxoSum(treasury)).toBe(STARTING_AMOUNT - AMOUNT + AMOUNT);
    expect((await markers()).length).toBe(markersBefore + 1);
    // Three proxies now exist (one per `delegatedProxy.create`), all the validator's for treasury.
    const all = await proxies();
    expect(all).toHaveLength(3);
    for (const p of all) expect(p.createArgument).toEqual({ provider: validator, delegate: treasury.partyId });
  });
});

/**
 * The same example on a network before CIP-0119 (`amulet.transferPreapprovalBaseDurationDays: 0`
 * in the world file: every pre-approval is paid by its provider): the validator holds no Canton
 * Coin, so its automation cannot buy alice's pre-approval (Splice's trigger logs "Insufficient
 * funds to create transfer pre-approval" and retries), the proposal stays, and the example runs
 * exactly as written: treasury's transfer to alice is an offer that treasury withdraws through the
 * proxy, then the reject and accept iterations with the example's own balance checks.
 */
describe('wallet SDK 1.4.0: example 13 as written, on a pre-CIP-0119 world (paid pre-approvals, an unfunded validator)', () => {
  let stack: RunningStack;
  let sdk: AmuletSdk;
  let registry: URL;
  let validator: string;
  let alice: External;
  let treasury: External;
  let featuredAppRight: FeaturedAppRight;

  const { execute, utxoSum, newExternal } = externalPartySteps(() => sdk);
  const proxies = () => sdk.ledger.acs.read({ parties: [treasury.partyId], templateIds: [DELEGATE_PROXY], filterByParty: true });

  beforeAll(async () => {
    const world = DemoWorldSchema.parse({ ...DEFAULT_DEMO_WORLD, amulet: { ...DEFAULT_DEMO_WORLD.amulet, transferPreapprovalBaseDurationDays: 0 } });
    stack = await startStack({ config: { port: 0, logLevel: 'silent', auth: { mode: 'localnet' } }, world, registryPort: 0, scanPort: 0, validatorPort: 0 });
    registry = new URL(amuletUrls(stack).scanProxyRegistry);
    validator = stack.seeded!.amulet!.validator;
    sdk = await createAmuletSdk(stack, ADMIN_USER, { viaValidator: true, registry: registry.href, tokenViaValidator: true });
  }, 60_000);

  afterAll(async () => {
    await stack?.close();
  });

  it('setup: parties, DAR, alice\'s proposal (left pending: the validator cannot pay), the featured-app right, taps', async () => {
    alice = await newExternal('v1-13-alice');
    treasury = await newExternal('v1-13-treasury');
    await sdk.ledger.dar.upload(await readFile(PROXIES_DAR), PROXIES_PACKAGE_ID);
    await execute(alice, await sdk.amulet.preapproval.command.create({ parties: { receiver: alice.partyId } }));
    featuredAppRight = (await sdk.amulet.featuredApp.grant())!;
    for (const party of [alice, treasury]) {
      const [tap, disclosed] = await sdk.amulet.tap(party.partyId, STARTING_AMOUNT.toString());
      await execute(party, tap, disclosed);
    }
    // Still a proposal, no pre-approval (the automation has run before every submission since).
    const read = (template: string) => sdk.ledger.acs.read({ parties: [alice.partyId], templateIds: [template], filterByParty: true });
    expect(await read('#splice-wallet:Splice.Wallet.TransferPreapproval:TransferPreapprovalProposal')).toHaveLength(1);
    expect(await read('#splice-amulet:Splice.AmuletRules:TransferPreapproval')).toEqual([]);
    expect(await sdk.amulet.preapproval.fetchQuick(alice.partyId)).toBeNull();
    expect((await sdk.token.utxos.list({ partyId: validator })).length).toBe(0);
  });

  it('_withdraw: treasury -> alice is an offer; treasury withdraws it through the proxy; both keep their 20,000,000', async () => {
    await sdk.token.transfer.delegatedProxy.create(treasury.partyId);
    const [transfer, disclosed] = await sdk.token.transfer.create({ sender: treasury.partyId, recipient: alice.partyId, amount: '100', instrumentId: 'Amulet', registryUrl: registry });
    await execute(treasury, transfer, disclosed);
    const proxyCid = (await proxies())[0]!.contractId;
    const transferInstructionCid = (await sdk.token.transfer.pending(treasury.partyId))[0]!.contractId;
    const [withdraw, withdrawDisclosed] = await sdk.token.transfer.delegatedProxy.commands.withdraw({ proxyCid, transferInstructionCid, featuredAppRight, registryUrl: registry });
    await execute(treasury, withdraw, withdrawDisclosed);
    expect(await utxoSum(alice)).toBe(STARTING_AMOUNT);
    expect(await utxoSum(treasury)).toBe(STARTING_AMOUNT);
  });

  const setupIteration = async () => {
    await sdk.token.transfer.delegatedProxy.create(treasury.partyId);
    const [transfer, disclosed] = await sdk.token.transfer.create({ sender: alice.partyId, recipient: treasury.partyId, amount: String(AMOUNT), instrumentId: 'Amulet', registryUrl: registry });
    await execute(alice, transfer, disclosed);
    const proxyCid = (await proxies())[0]!.contractId;
    const transferInstructionCid = (await sdk.token.transfer.pending(alice.partyId))[0]!.contractId;
    return { proxyCid, transferInstructionCid, featuredAppRight, registryUrl: registry };
  };

  it('_reject then _accept, with the example\'s own checks', async () => {
    const [reject, rejectDisclosed] = await sdk.token.transfer.delegatedProxy.commands.reject(await setupIteration());
    await execute(treasury, reject, rejectDisclosed);
    expect(await utxoSum(alice)).toBe(STARTING_AMOUNT);
    expect(await utxoSum(treasury)).toBe(STARTING_AMOUNT);

    const [accept, acceptDisclosed] = await sdk.token.transfer.delegatedProxy.commands.accept(await setupIteration());
    await execute(treasury, accept, acceptDisclosed);
    expect(await utxoSum(alice)).toBe(STARTING_AMOUNT - AMOUNT);
    expect(await utxoSum(treasury)).toBe(STARTING_AMOUNT + AMOUNT);
  });
});
