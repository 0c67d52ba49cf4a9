/**
 * The official wallet SDK (@canton-network/wallet-sdk) against a registry that serves TestTokenV1
 * and TestTokenV2 through the declarative recipes of docs/examples/ (loaded as `serve` loads them,
 * started with `startRegistry` over the emulated stack's ledger node, demo world): the SDK builds
 * a transfer and an accept from that registry's answers alone, and both commit. The SDK speaks
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

describe('wallet SDK over the declarative TestTokenV1 recipe (docs/examples)', () => {
  let stack: RunningStack;
  let registry: RunningRegistry;
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
    [aliceSdk, bobSdk] = await Promise.all([createWalletSdk(stack.ledgerUrl, registry.url, 'alice'), createWalletSdk(stack.ledgerUrl, registry.url, 'bob')]);
  });

  afterAll(async () => {
    await registry?.close();
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
});
