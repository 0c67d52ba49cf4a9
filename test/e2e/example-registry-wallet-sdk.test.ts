/**
 * End to end: the official wallet SDK (@canton-network/wallet-sdk 1.4.0) against the emulated
 * example test-token registry of the wallet repository (`examples/test-token-v1-registry`, on a
 * free port here, LocalNet's 5634 in the localnet profile), configured with nothing but the
 * ledger URL and that registry's URL, as a LocalNet test would be:
 *  - the SDK lists the example's instruments;
 *  - `POST /admin/v2/offer-mint` mints TestTokenV2 to alice, who accepts the offer with the SDK;
 *  - a TT2 transfer alice → bob through the registry (SDK `transfer.create`, bob's `accept`);
 *  - the paused instrument is refused as the SDK refuses it (alice holds none of it), and the
 *    registry refuses its factory too;
 *  - a V2 allocation of each side and `SettlementFactory_SettleBatch` with the settlement
 *    factory's context: SDK 1.4.0 has no V2 calls, so the factory calls are raw JSON and the
 *    commands go through the SDK's own submission (`ledger.internal.submit`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type RunningStack } from '../../src/stack.js';
import { ALLOCATION_V2, allocateV2, askTransferFactory, postJson, settleBatchV2, v2Settlement, type OfferMint, type SubmitAs } from './support/example-registry.js';
import { balanceOf, createWalletSdk, plus, type WalletSdk } from './support/wallet-sdk.js';

describe('wallet SDK 1.4.0 against the emulated example test-token registry', () => {
  let stack: RunningStack;
  let url: string;
  let operator: string;
  let alice: string;
  let bob: string;
  let executor: string;
  let aliceSdk: WalletSdk;
  let bobSdk: WalletSdk;
  let executorSdk: WalletSdk;
  const tt2 = () => ({ admin: operator, id: 'test-token-v2' });

  /** The transfer instructions of test-token-v2 that `party` sees (SDK: TransferInstruction interface ACS). */
  async function pendingTt2(sdk: WalletSdk, party: string) {
    return (await sdk.token.transfer.pending(party)).filter((p) => p.interfaceViewValue.transfer.instrumentId.id === 'test-token-v2');
  }

  beforeAll(async () => {
    stack = await startStack({ config: { port: 0, logLevel: 'silent' }, registryPort: 0, scanPort: 0, validatorPort: 0, exampleRegistryPort: 0 });
    url = stack.exampleRegistry!.url;
    operator = stack.exampleRegistry!.admin;
    const party = (hint: string) => stack.seeded!.parties.find((p) => p.hint === hint)!.party;
    [alice, bob, executor] = [party('alice'), party('bob'), party('executor')];
    const wallet = (userId: string) => createWalletSdk(stack.ledgerUrl, url, userId);
    [aliceSdk, bobSdk, executorSdk] = await Promise.all([wallet('alice'), wallet('bob'), wallet('executor')]);
  });

  afterAll(async () => {
    await stack?.close();
  });

  it("lists the example's three instruments, administered by its operator", async () => {
    const registryUrl = new URL(url);
    // the SDK's asset: id, symbol, admin (and the registry it came from)
    for (const [id, symbol] of [
      ['test-token-v1', 'tt'],
      ['test-token-v2', 'tt2'],
      ['test-token-paused', 'ttp'],
    ] as const) {
      expect(await aliceSdk.asset.find(id, registryUrl)).toMatchObject({ id, symbol, admin: operator });
    }
  });

  it('offer-mint: alice accepts the mint offer with the SDK and holds 100.0 test-token-v2', async () => {
    const offer = await postJson<OfferMint>(url, '/admin/v2/offer-mint', { receiver: alice });
    expect(offer.status).toBe(200);
    const pending = await pendingTt2(aliceSdk, alice);
    expect(pending.map((p) => p.contractId)).toEqual([offer.body.offerCid]);
    expect(pending[0]!.interfaceViewValue.transfer).toMatchObject({ receiver: alice, amount: '100.0000000000', instrumentId: tt2() });

    // accept: POST /registry/transfer-instruction/v1/{cid}/choice-contexts/accept, then the V1 exercise.
    const [command, disclosed] = await aliceSdk.token.transfer.accept({ transferInstructionCid: offer.body.offerCid, registryUrl: new URL(url) });
    await aliceSdk.ledger.internal.submit({ commands: [command], actAs: [alice], disclosedContracts: disclosed });
    expect(await balanceOf(aliceSdk, alice, tt2())).toEqual({ unlocked: '100', locked: '0' });
    expect(await pendingTt2(aliceSdk, alice)).toEqual([]);
  });

  it('a TT2 transfer alice -> bob through the registry: an offer bob accepts with the SDK', async () => {
    const [command, disclosed] = await aliceSdk.token.transfer.create({ sender: alice, recipient: bob, amount: '30', instrumentId: 'test-token-v2', registryUrl: new URL(url), memo: 'tt2 to bob' });
    await aliceSdk.ledger.internal.submit({ commands: [command], actAs: [alice], disclosedContracts: disclosed });
    expect(await balanceOf(aliceSdk, alice, tt2())).toEqual({ unlocked: '70', locked: '30' });

    const [instruction] = await pendingTt2(bobSdk, bob);
    expect(instruction!.interfaceViewValue.transfer).toMatchObject({ sender: alice, receiver: bob, amount: '30.0000000000' });
    const [accept, acceptDisclosed] = await bobSdk.token.transfer.accept({ transferInstructionCid: instruction!.contractId, registryUrl: new URL(url) });
    await bobSdk.ledger.internal.submit({ commands: [accept], actAs: [bob], disclosedContracts: acceptDisclosed });
    expect(await balanceOf(bobSdk, bob, tt2())).toEqual({ unlocked: '30', locked: '0' });
    expect(await balanceOf(aliceSdk, alice, tt2())).toEqual({ unlocked: '70', locked: '0' });
  });

  it('the paused instrument is refused: the SDK finds nothing to send, the registry refuses its factory', async () => {
    const refused = await aliceSdk.token.transfer
      .create({ sender: alice, recipient: bob, amount: '1', instrumentId: 'test-token-paused', registryUrl: new URL(url) })
      .then(() => undefined, (e: unknown) => e);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toMatch(/doesn't have any unlocked holdings/);

    const factory = await askTransferFactory(url, { admin: operator, sender: alice, receiver: bob, amount: '1', instrumentId: 'test-token-paused' });
    expect(factory).toEqual({ status: 400, body: { error: 'Instrument test-token-paused is paused until 2099-01-01T00:00:00.000Z: CIP-0112 solvency fixture' } });
  });

  it("V2 allocations of both sides, settled by the executor with the settlement factory's context", async () => {
    const s = v2Settlement({ id: 'example-registry-dvp', executor, sender: alice, receiver: bob, amount: '20.0', instrumentId: 'test-token-v2' });
    const utxos = await aliceSdk.token.utxos.list({ partyId: alice, includeLocked: false });
    const inputs = utxos.filter((u) => u.interfaceViewValue.instrumentId.id === 'test-token-v2' && u.interfaceViewValue.instrumentId.admin === operator).map((u) => u.contractId);
    /** Local parties: the SDK's own submission. */
    const submitWith =
      (sdk: WalletSdk): SubmitAs =>
      (party, command, disclosed) =>
        sdk.ledger.internal.submit({ commands: [command], actAs: [party], disclosedContracts: disclosed });

    for (const [sdk, who, side, holdings] of [
      [aliceSdk, alice, 'SenderSide', inputs],
      [bobSdk, bob, 'ReceiverSide', []],
    ] as const) {
      const f = await allocateV2(url, { admin: operator, s, who, side, holdings: [...holdings], submit: submitWith(sdk) });
      expect(Object.keys(f.choiceContext.choiceContextData.values)).toEqual(['testTokenV2/tokenRules']);
    }
    expect(await balanceOf(aliceSdk, alice, tt2())).toEqual({ unlocked: '50', locked: '20' });

    // The executor sees both allocations (V2 Allocation interface) and settles them.
    const allocations = await executorSdk.ledger.acs.read({ parties: [executor], filterByParty: true, interfaceIds: [ALLOCATION_V2] });
    const allocationCids = allocations.map((a) => a.contractId);
    expect(allocationCids).toHaveLength(2);
    const settled = await settleBatchV2(url, { s, executor, allocationCids, submit: submitWith(executorSdk) });
    // TokenRules, both allocations, then alice's locked holding.
    const disclosedIds = settled.choiceContext.disclosedContracts.map((d) => d.contractId);
    expect(disclosedIds.slice(1, 3).sort()).toEqual([...allocationCids].sort());
    expect(disclosedIds).toHaveLength(4);
    expect(await balanceOf(aliceSdk, alice, tt2())).toEqual({ unlocked: '50', locked: '0' });
    expect(await balanceOf(bobSdk, bob, tt2())).toEqual({ unlocked: plus('30', '20'), locked: '0' });
  });
});
