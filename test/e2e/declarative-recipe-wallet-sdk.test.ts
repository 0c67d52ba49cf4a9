/**
 * The official wallet SDK (@canton-network/wallet-sdk) against registries that serve TestTokenV1,
 * TestTokenV2 and Canton Coin (Amulet, a second registry whose admin is the DSO) through the
 * declarative recipes of docs/examples/ (loaded as `serve` loads them, started with
 * `startRegistry` over the emulated stack's ledger node, demo world): the SDK builds transfers,
 * accepts, rejects and withdrawals from those registries' answers alone, and they commit. The SDK speaks
 * the V1 registry API, so TestTokenV2 is driven through its V1 adapters.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type RunningStack } from '../../src/stack.js';
import { parseRegistryConfig, startRegistry, type RunningRegistry } from '../../src/serve.js';
import { isObject } from '../../src/canton/json-shape.js';
import { balanceOf, createWalletSdk, plus, type WalletSdk } from './support/wallet-sdk.js';

const example = (name: string): Record<string, unknown> => {
  const doc: unknown = JSON.parse(readFileSync(fileURLToPath(new URL(`../../docs/examples/${name}`, import.meta.url)), 'utf8'));
  if (!isObject(doc) || !Array.isArray(doc.instruments) || !Array.isArray(doc.recipes)) throw new Error(`${name}: not a registry configuration`);
  return doc;
};

describe('wallet SDK over the declarative recipes of docs/examples (TT1, TT2, Amulet)', () => {
  let stack: RunningStack;
  let registry: RunningRegistry;
  let amuletRegistry: RunningRegistry;
  let dso: string;
  let admin: string;
  let alice: string;
  let bob: string;
  let aliceSdk: WalletSdk;
  let bobSdk: WalletSdk;

  beforeAll(async () => {
    stack = await startStack({ config: { port: 0, logLevel: 'silent' }, registryPort: 0 });
    const party = (hint: string) => stack.seeded!.parties.find((p) => p.hint === hint)!.party;
    admin = party('token-admin');
    alice = party('alice');
    bob = party('bob');
    const [tt1, tt2] = [example('test-token-v1.registry.json'), example('test-token-v2.registry.json')];
    const both = <K extends 'instruments' | 'recipes'>(k: K): unknown[] => [tt1[k], tt2[k]].flatMap((v) => (Array.isArray(v) ? v : []));
    const config = parseRegistryConfig({
      adminParty: admin,
      ledger: { url: stack.ledgerUrl },
      instruments: both('instruments'),
      recipes: both('recipes'),
      port: 0,
      host: '127.0.0.1',
      logLevel: 'silent',
    });
    registry = await startRegistry(config, { logger: pino({ level: 'silent' }) });
    dso = stack.seeded!.amulet!.dso;
    const amulet = example('amulet.registry.json');
    amuletRegistry = await startRegistry(
      parseRegistryConfig({ adminParty: dso, ledger: { url: stack.ledgerUrl }, instruments: amulet.instruments, recipes: amulet.recipes, port: 0, host: '127.0.0.1', logLevel: 'silent' }),
      { logger: pino({ level: 'silent' }) },
    );
    [aliceSdk, bobSdk] = await Promise.all([createWalletSdk(stack.ledgerUrl, registry.url, 'alice'), createWalletSdk(stack.ledgerUrl, registry.url, 'bob')]);
  });

  afterAll(async () => {
    await registry?.close();
    await amuletRegistry?.close();
    await stack?.close();
  });

  it.each(['TT1', 'TT2-USD'])('%s alice -> bob: the transfer and the accept built from the declarative answers commit', async (id) => {
    const instrument = { admin, id };
    const aliceBefore = await balanceOf(aliceSdk, alice, instrument);
    const bobBefore = await balanceOf(bobSdk, bob, instrument);

    const [transfer, transferDisclosed] = await aliceSdk.token.transfer.create({ sender: alice, recipient: bob, amount: '7', instrumentId: id, registryUrl: new URL(registry.url) });
    const submitted = await aliceSdk.ledger.internal.submit({ commands: [transfer], actAs: [alice], disclosedContracts: transferDisclosed });
    expect(submitted.completionOffset).toBeGreaterThan(0);

    const pending = (await bobSdk.token.transfer.pending(bob)).filter((p) => p.interfaceViewValue.transfer.instrumentId.id === id);
    expect(pending).toHaveLength(1);
    const [accept, acceptDisclosed] = await bobSdk.token.transfer.accept({ transferInstructionCid: pending[0]!.contractId, registryUrl: new URL(registry.url) });
    await bobSdk.ledger.internal.submit({ commands: [accept], actAs: [bob], disclosedContracts: acceptDisclosed });

    expect(await balanceOf(bobSdk, bob, instrument)).toEqual({ unlocked: plus(bobBefore.unlocked, '7'), locked: bobBefore.locked });
    expect(await balanceOf(aliceSdk, alice, instrument)).toEqual({ unlocked: plus(aliceBefore.unlocked, '-7'), locked: aliceBefore.locked });
  });

  it.each(['TT1', 'TT2-USD'])('%s: an offer bob rejects and an offer alice withdraws, built from the declarative answers, commit', async (id) => {
    const instrument = { admin, id };
    const url = new URL(registry.url);
    const aliceBefore = await balanceOf(aliceSdk, alice, instrument);
    const pendingOf = async (sdk: WalletSdk, party: string) => (await sdk.token.transfer.pending(party)).filter((p) => p.interfaceViewValue.transfer.instrumentId.id === id);

    const [offer, offerDisclosed] = await aliceSdk.token.transfer.create({ sender: alice, recipient: bob, amount: '2', instrumentId: id, registryUrl: url });
    await aliceSdk.ledger.internal.submit({ commands: [offer], actAs: [alice], disclosedContracts: offerDisclosed });
    const toReject = await pendingOf(bobSdk, bob);
    expect(toReject).toHaveLength(1);
    const [reject, rejectDisclosed] = await bobSdk.token.transfer.reject({ transferInstructionCid: toReject[0]!.contractId, registryUrl: url });
    await bobSdk.ledger.internal.submit({ commands: [reject], actAs: [bob], disclosedContracts: rejectDisclosed });
    expect(await pendingOf(bobSdk, bob)).toHaveLength(0);

    const [again, againDisclosed] = await aliceSdk.token.transfer.create({ sender: alice, recipient: bob, amount: '3', instrumentId: id, registryUrl: url });
    await aliceSdk.ledger.internal.submit({ commands: [again], actAs: [alice], disclosedContracts: againDisclosed });
    const toWithdraw = await pendingOf(aliceSdk, alice);
    expect(toWithdraw).toHaveLength(1);
    const [withdraw, withdrawDisclosed] = await aliceSdk.token.transfer.withdraw({ transferInstructionCid: toWithdraw[0]!.contractId, registryUrl: url });
    await aliceSdk.ledger.internal.submit({ commands: [withdraw], actAs: [alice], disclosedContracts: withdrawDisclosed });
    expect(await pendingOf(aliceSdk, alice)).toHaveLength(0);
    // both came back to alice, unlocked
    expect(await balanceOf(aliceSdk, alice, instrument)).toEqual(aliceBefore);
  });

  it('Amulet alice -> bob through the declarative Amulet recipe: the offer, the accept and a withdrawn offer commit', async () => {
    const instrument = { admin: dso, id: 'Amulet' };
    const url = new URL(amuletRegistry.url);
    // wallets that know the Amulet registry (the SDK lists the assets of the registries it is given)
    const [aliceSdk, bobSdk] = await Promise.all([createWalletSdk(stack.ledgerUrl, amuletRegistry.url, 'alice'), createWalletSdk(stack.ledgerUrl, amuletRegistry.url, 'bob')]);
    const aliceBefore = await balanceOf(aliceSdk, alice, instrument);
    const bobBefore = await balanceOf(bobSdk, bob, instrument);

    const [transfer, transferDisclosed] = await aliceSdk.token.transfer.create({ sender: alice, recipient: bob, amount: '11', instrumentId: 'Amulet', registryUrl: url });
    await aliceSdk.ledger.internal.submit({ commands: [transfer], actAs: [alice], disclosedContracts: transferDisclosed });
    const pending = (await bobSdk.token.transfer.pending(bob)).filter((p) => p.interfaceViewValue.transfer.instrumentId.id === 'Amulet');
    expect(pending).toHaveLength(1);
    const [accept, acceptDisclosed] = await bobSdk.token.transfer.accept({ transferInstructionCid: pending[0]!.contractId, registryUrl: url });
    await bobSdk.ledger.internal.submit({ commands: [accept], actAs: [bob], disclosedContracts: acceptDisclosed });
    expect(await balanceOf(bobSdk, bob, instrument)).toEqual({ unlocked: plus(bobBefore.unlocked, '11'), locked: bobBefore.locked });

    // a second offer, withdrawn by alice: its LockedAmulet comes back to her
    const [again, againDisclosed] = await aliceSdk.token.transfer.create({ sender: alice, recipient: bob, amount: '3', instrumentId: 'Amulet', registryUrl: url });
    await aliceSdk.ledger.internal.submit({ commands: [again], actAs: [alice], disclosedContracts: againDisclosed });
    const mine = (await aliceSdk.token.transfer.pending(alice)).filter((p) => p.interfaceViewValue.transfer.instrumentId.id === 'Amulet');
    expect(mine).toHaveLength(1);
    const [withdraw, withdrawDisclosed] = await aliceSdk.token.transfer.withdraw({ transferInstructionCid: mine[0]!.contractId, registryUrl: url });
    await aliceSdk.ledger.internal.submit({ commands: [withdraw], actAs: [alice], disclosedContracts: withdrawDisclosed });
    expect(await aliceSdk.token.transfer.pending(alice).then((ps) => ps.filter((p) => p.interfaceViewValue.transfer.instrumentId.id === 'Amulet'))).toHaveLength(0);
    // a third offer, rejected by bob: its LockedAmulet comes back to alice too
    const [third, thirdDisclosed] = await aliceSdk.token.transfer.create({ sender: alice, recipient: bob, amount: '4', instrumentId: 'Amulet', registryUrl: url });
    await aliceSdk.ledger.internal.submit({ commands: [third], actAs: [alice], disclosedContracts: thirdDisclosed });
    const theirs = (await bobSdk.token.transfer.pending(bob)).filter((p) => p.interfaceViewValue.transfer.instrumentId.id === 'Amulet');
    expect(theirs).toHaveLength(1);
    const [reject, rejectDisclosed] = await bobSdk.token.transfer.reject({ transferInstructionCid: theirs[0]!.contractId, registryUrl: url });
    await bobSdk.ledger.internal.submit({ commands: [reject], actAs: [bob], disclosedContracts: rejectDisclosed });
    expect(await bobSdk.token.transfer.pending(bob).then((ps) => ps.filter((p) => p.interfaceViewValue.transfer.instrumentId.id === 'Amulet'))).toHaveLength(0);
    // alice paid the 11 (fees are zero in the seeded world's config); the withdrawn 3 and the rejected 4 are hers again
    expect(await balanceOf(aliceSdk, alice, instrument)).toEqual({ unlocked: plus(aliceBefore.unlocked, '-11'), locked: aliceBefore.locked });
  });
});
