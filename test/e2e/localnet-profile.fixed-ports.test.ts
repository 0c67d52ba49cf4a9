/**
 * End to end: the `localnet` profile is a drop-in for Splice LocalNet. `startStack({ profile:
 * 'localnet' })` serves LocalNet's addresses, and the official wallet SDK (1.4.0) runs with its
 * `localNetStaticConfig` exactly as published, no address changed:
 *  - the ledger of the app-user participant at `localhost:2975`, the validator at
 *    `localhost:2000/api/validator`, the Canton Coin registry through its scan-proxy, scan at
 *    `scan.localhost:4000/api/scan` (the Amulet registry at that host's root), each answering;
 *  - LocalNet's user `ledger-api-user` (the SDK's `LOCALNET_USER_ID`) allocates external
 *    parties, taps Canton Coin to one and it transfers to the other through the scan-proxy
 *    registry (offer, accept), each command prepared, signed by the party's own key and executed;
 *  - the Amulet instrument carries LocalNet's instance names (Amulet / AMT);
 *  - the app-provider participant at `localhost:3975` hosts its validator party, with its own
 *    `ledger-api-user`;
 *  - the example test-token registry at `localhost:5634`, added to the SDK's token registries as
 *    LocalNet tests add it: `POST /admin/v2/offer-mint` to an external party, who accepts; a
 *    test-token-v2 transfer to another external party, who accepts; `test-token-paused` refused
 *    as the SDK refuses it; V2 allocations of both sides of a leg and `SettlementFactory_SettleBatch`
 *    with the settlement factory's context (raw JSON: SDK 1.4.0 has no V2 call), every command
 *    prepared, signed by the acting party's key and executed.
 * This file binds LocalNet's fixed ports: vitest.config.ts runs it in the `fixed-ports` project,
 * one file at a time.
 */
import { CustomLogAdapter, localNetStaticConfig, SDK } from '@canton-network/wallet-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCALNET_APP_PROVIDER_PARTY_HINT, LOCALNET_APP_USER_PARTY_HINT } from '../../src/canton/localnet.js';
import { startStack, type RunningStack } from '../../src/stack.js';
import { resolveLocalhostNames } from '../support/localhost-names.js';
import { validatorJwt } from './support/amulet.js';
import { ALLOCATION_V2, allocateV2, askTransferFactory, postJson, settleBatchV2, v2Settlement, type OfferMint, type SubmitAs } from './support/example-registry.js';
import { balanceOf, plus, selfSignedAuth } from './support/wallet-sdk.js';

const {
  LOCALNET_APP_USER_LEDGER_URL: LEDGER,
  LOCALNET_APP_VALIDATOR_URL: VALIDATOR,
  LOCALNET_REGISTRY_API_URL: REGISTRY,
  LOCALNET_SCAN_API_URL: SCAN,
  LOCALNET_USER_ID: USER,
} = localNetStaticConfig;
/**
 * The example test-token registry as LocalNet runs it (the wallet repository's
 * `examples/test-token-v1-registry`, its `localhost:5634`); not in `localNetStaticConfig`, so
 * LocalNet tests add it to the token registries.
 */
const TEST_TOKEN_REGISTRY = new URL('http://localhost:5634');

/** The SDK as LocalNet examples create it: every URL from `localNetStaticConfig`, plus the test-token registry. */
function createLocalNetSdk(userId: string) {
  const auth = selfSignedAuth(userId);
  return SDK.create({
    auth,
    ledgerClientUrl: LEDGER,
    logAdapter: new CustomLogAdapter(() => {}),
    amulet: { auth, scanApiUrl: SCAN, validatorUrl: VALIDATOR, registryUrl: REGISTRY },
    token: { auth, registries: [REGISTRY, TEST_TOKEN_REGISTRY], validatorUrl: VALIDATOR },
  });
}
type LocalNetSdk = Awaited<ReturnType<typeof createLocalNetSdk>>;

interface ExternalParty {
  partyId: string;
  privateKey: string;
}

describe('PROFILE=localnet: the wallet SDK with localNetStaticConfig as published', () => {
  let stack: RunningStack;
  let sdk: LocalNetSdk;
  let dso: string;
  let alice: ExternalParty;
  let bob: ExternalParty;
  let executor: ExternalParty;

  beforeAll(async () => {
    resolveLocalhostNames();
    // The admin API is the emulator's own (not LocalNet's): a free port, so it meets no other suite.
    stack = await startStack({ profile: 'localnet', config: { logLevel: 'silent' }, adminPort: 0 });
    dso = stack.seeded!.amulet!.dso;
    sdk = await createLocalNetSdk(USER);
  });

  afterAll(async () => {
    await stack?.close();
  });

  /** prepare → sign with the party's own key → execute, as an external party's wallet does. */
  function submitAs(p: ExternalParty, commands: unknown, disclosedContracts: Parameters<LocalNetSdk['ledger']['prepare']>[0]['disclosedContracts'] = []) {
    return sdk.ledger.prepare({ partyId: p.partyId, commands, disclosedContracts }).sign(p.privateKey).execute({ partyId: p.partyId });
  }

  /** The example registry's helpers' submission: the external party whose id is `party`. */
  const submitExternal: SubmitAs = (party, command, disclosed) => submitAs([alice, bob, executor].find((p) => p.partyId === party)!, command, disclosed);

  async function createExternalParty(hint: string): Promise<ExternalParty> {
    const { publicKey, privateKey } = sdk.keys.generate();
    const created = await sdk.party.external.create(publicKey, { partyHint: hint }).sign(privateKey).execute();
    return { partyId: created.partyId, privateKey };
  }

  it("serves LocalNet's addresses: every service the SDK's localNetStaticConfig names answers there", async () => {
    expect(stack.ledgerUrl).toBe('http://127.0.0.1:2975');
    expect(stack.participants.map((p) => p.ledgerUrl)).toEqual(['http://127.0.0.1:2975', 'http://127.0.0.1:3975']);
    expect(stack.validatorUrl).toBe('http://127.0.0.1:2000');
    expect(stack.scanUrl).toBe('http://127.0.0.1:4000');
    const token = await validatorJwt(USER);
    const auth = { Authorization: `Bearer ${token}` };
    const version = await fetch(new URL('/v2/version', LEDGER), { headers: auth });
    expect(version.status).toBe(200);
    const validatorUser = await fetch(`${VALIDATOR.href}/v0/validator-user`).then((r) => r.json());
    expect(validatorUser).toMatchObject({ user_name: USER, party_id: expect.stringMatching(new RegExp(`^${LOCALNET_APP_USER_PARTY_HINT}::1220`)) });
    // Scan by its host name, as LocalNet's gateway routes it.
    const dsoParty = await fetch(`${SCAN.href}/v0/dso-party-id`).then((r) => r.json());
    expect(dsoParty).toEqual({ dso_party_id: dso });
    const info = await fetch(`${REGISTRY.href}/registry/metadata/v1/info`, { headers: auth }).then((r) => r.json());
    expect(info).toMatchObject({ adminId: dso });
  });

  it("names Amulet as LocalNet does (Amulet / AMT): the registry at the scan host and through the scan-proxy, and scan's instance names", async () => {
    const auth = { Authorization: `Bearer ${await validatorJwt(USER)}` };
    const viaProxy = await fetch(`${REGISTRY.href}/registry/metadata/v1/instruments/Amulet`, { headers: auth }).then((r) => r.json());
    expect(viaProxy).toMatchObject({ id: 'Amulet', name: 'Amulet', symbol: 'AMT' });
    const atScanHost = await fetch(new URL('/registry/metadata/v1/instruments/Amulet', SCAN)).then((r) => r.json());
    expect(atScanHost).toMatchObject({ id: 'Amulet', name: 'Amulet', symbol: 'AMT' });
    // What LocalNet's wallet UI reads (its common.env: "can be obtained from .../api/scan/v0/splice-instance-names").
    const names = await fetch(`${SCAN.href}/v0/splice-instance-names`).then((r) => r.json());
    expect(names).toMatchObject({ network_name: 'Splice', amulet_name: 'Amulet', amulet_name_acronym: 'AMT', name_service_name: 'Amulet Name Service', name_service_name_acronym: 'ANS' });
  });

  it('ledger-api-user creates two external parties on the app-user participant', async () => {
    alice = await createExternalParty('alice');
    bob = await createExternalParty('bob');
    expect(alice.partyId).toMatch(/^alice::1220[0-9a-f]{64}$/);
    expect(await sdk.party.list()).toEqual(expect.arrayContaining([alice.partyId, bob.partyId]));
  });

  it('taps Canton Coin to alice through the validator (DevNet tap), signed by her key', async () => {
    const [tap, disclosed] = await sdk.amulet.tap(alice.partyId, '500');
    const done = await submitAs(alice, tap, disclosed);
    expect(done.completionOffset).toBeGreaterThan(0);
    expect(await balanceOf(sdk, alice.partyId, { admin: dso, id: 'Amulet' })).toEqual({ unlocked: '500', locked: '0' });
  });

  it('alice transfers 120 to bob through the scan-proxy registry: an offer, which bob accepts', async () => {
    const [offer, disclosed] = await sdk.token.transfer.create({
      sender: alice.partyId,
      recipient: bob.partyId,
      amount: '120',
      instrumentId: 'Amulet',
      registryUrl: REGISTRY,
      memo: 'localnet profile',
    });
    await submitAs(alice, offer, disclosed);
    expect((await balanceOf(sdk, alice.partyId, { admin: dso, id: 'Amulet' })).locked).toBe('120');
    const pending = (await sdk.token.transfer.pending(bob.partyId)).filter((i) => i.interfaceViewValue.transfer.receiver === bob.partyId);
    expect(pending).toHaveLength(1);
    const [accept, acceptDisclosed] = await sdk.token.transfer.accept({ transferInstructionCid: pending[0]!.contractId, registryUrl: REGISTRY });
    await submitAs(bob, accept, acceptDisclosed);
    expect(await balanceOf(sdk, bob.partyId, { admin: dso, id: 'Amulet' })).toEqual({ unlocked: '120', locked: '0' });
    expect(await balanceOf(sdk, alice.partyId, { admin: dso, id: 'Amulet' })).toEqual({ unlocked: '380', locked: '0' });
  });

  it("the app-provider participant (localhost:3975) hosts its validator party, its ledger-api-user's primary party", async () => {
    const auth = { Authorization: `Bearer ${await validatorJwt(USER)}` };
    const user = await fetch('http://localhost:3975/v2/users/ledger-api-user', { headers: auth }).then((r) => r.json());
    const provider = stack.seeded!.parties.find((p) => p.hint === LOCALNET_APP_PROVIDER_PARTY_HINT)!;
    expect(user).toMatchObject({ user: { id: USER, primaryParty: provider.party } });
    expect(stack.participants[1]!.engine.hosts(provider.party)).toBe(true);
    expect(stack.engine.hosts(provider.party)).toBe(false);
  });

  describe('the example test-token registry on localhost:5634', () => {
    let operator: string;
    const tt2 = () => ({ admin: operator, id: 'test-token-v2' });
    /** The test-token-v2 transfer instructions `party` sees through the SDK. */
    const pendingTt2 = async (party: string) => (await sdk.token.transfer.pending(party)).filter((p) => p.interfaceViewValue.transfer.instrumentId.id === 'test-token-v2');

    beforeAll(async () => {
      executor = await createExternalParty('executor');
      const info = await fetch(new URL('/registry/metadata/v1/info', TEST_TOKEN_REGISTRY)).then((r) => r.json() as Promise<{ adminId: string }>);
      operator = info.adminId;
      expect(operator).toBe(stack.exampleRegistry!.admin);
    });

    it('offer-mint to alice (an external party): she accepts the offer, prepared and signed with her key, and holds 100 test-token-v2', async () => {
      const offer = await postJson<OfferMint>(TEST_TOKEN_REGISTRY.href, '/admin/v2/offer-mint', { receiver: alice.partyId });
      expect(offer.status, JSON.stringify(offer.body)).toBe(200);
      const pending = await pendingTt2(alice.partyId);
      expect(pending.map((p) => p.contractId)).toEqual([offer.body.offerCid]);
      expect(pending[0]!.interfaceViewValue.transfer).toMatchObject({ receiver: alice.partyId, amount: '100.0000000000', instrumentId: tt2() });
      const [accept, disclosed] = await sdk.token.transfer.accept({ transferInstructionCid: offer.body.offerCid, registryUrl: TEST_TOKEN_REGISTRY });
      await submitAs(alice, accept, disclosed);
      expect(await balanceOf(sdk, alice.partyId, tt2())).toEqual({ unlocked: '100', locked: '0' });
      expect(await pendingTt2(alice.partyId)).toEqual([]);
    });

    it('alice transfers 30 test-token-v2 to bob through the 5634 registry: an offer, which bob accepts', async () => {
      const [offer, disclosed] = await sdk.token.transfer.create({
        sender: alice.partyId,
        recipient: bob.partyId,
        amount: '30',
        instrumentId: 'test-token-v2',
        registryUrl: TEST_TOKEN_REGISTRY,
        memo: 'tt2 on localnet',
      });
      await submitAs(alice, offer, disclosed);
      expect(await balanceOf(sdk, alice.partyId, tt2())).toEqual({ unlocked: '70', locked: '30' });
      const [instruction] = await pendingTt2(bob.partyId);
      expect(instruction!.interfaceViewValue.transfer).toMatchObject({ sender: alice.partyId, receiver: bob.partyId, amount: '30.0000000000' });
      const [accept, acceptDisclosed] = await sdk.token.transfer.accept({ transferInstructionCid: instruction!.contractId, registryUrl: TEST_TOKEN_REGISTRY });
      await submitAs(bob, accept, acceptDisclosed);
      expect(await balanceOf(sdk, bob.partyId, tt2())).toEqual({ unlocked: '30', locked: '0' });
      expect(await balanceOf(sdk, alice.partyId, tt2())).toEqual({ unlocked: '70', locked: '0' });
    });

    it('test-token-paused is refused: the SDK finds nothing to send, the registry refuses its factory', async () => {
      const refused = await sdk.token.transfer
        .create({ sender: alice.partyId, recipient: bob.partyId, amount: '1', instrumentId: 'test-token-paused', registryUrl: TEST_TOKEN_REGISTRY })
        .then(() => undefined, (e: unknown) => e);
      expect(refused).toBeInstanceOf(Error);
      expect((refused as Error).message).toMatch(/doesn't have any unlocked holdings/);
      const factory = await askTransferFactory(TEST_TOKEN_REGISTRY.href, { admin: operator, sender: alice.partyId, receiver: bob.partyId, amount: '1', instrumentId: 'test-token-paused' });
      expect(factory).toEqual({ status: 400, body: { error: 'Instrument test-token-paused is paused until 2099-01-01T00:00:00.000Z: CIP-0112 solvency fixture' } });
    });

    it("V2 allocations of both sides (external parties), settled by an external executor with the settlement factory's context", async () => {
      const s = v2Settlement({ id: 'localnet-dvp', executor: executor.partyId, sender: alice.partyId, receiver: bob.partyId, amount: '20.0', instrumentId: 'test-token-v2' });
      const utxos = await sdk.token.utxos.list({ partyId: alice.partyId, includeLocked: false });
      const inputs = utxos.filter((u) => u.interfaceViewValue.instrumentId.id === 'test-token-v2' && u.interfaceViewValue.instrumentId.admin === operator).map((u) => u.contractId);
      expect(inputs.length).toBeGreaterThan(0);
      for (const [who, side, holdings] of [
        [alice.partyId, 'SenderSide', inputs],
        [bob.partyId, 'ReceiverSide', []],
      ] as const) {
        const f = await allocateV2(TEST_TOKEN_REGISTRY.href, { admin: operator, s, who, side, holdings: [...holdings], submit: submitExternal });
        expect(Object.keys(f.choiceContext.choiceContextData.values)).toEqual(['testTokenV2/tokenRules']);
      }
      expect(await balanceOf(sdk, alice.partyId, tt2())).toEqual({ unlocked: '50', locked: '20' });

      // The executor (a stakeholder of both allocations) sees them through the V2 Allocation interface.
      const allocations = await sdk.ledger.acs.read({ parties: [executor.partyId], filterByParty: true, interfaceIds: [ALLOCATION_V2] });
      const allocationCids = allocations.map((a) => a.contractId);
      expect(allocationCids).toHaveLength(2);
      const settled = await settleBatchV2(TEST_TOKEN_REGISTRY.href, { s, executor: executor.partyId, allocationCids, submit: submitExternal });
      expect(settled.choiceContext.choiceContextData.values).toEqual({ 'testTokenV2/tokenRules': { tag: 'AV_ContractId', value: expect.any(String) } });
      // TokenRules, both allocations, then alice's locked holding.
      const disclosedIds = settled.choiceContext.disclosedContracts.map((d) => d.contractId);
      expect(disclosedIds.slice(1, 3).sort()).toEqual([...allocationCids].sort());
      expect(disclosedIds).toHaveLength(4);
      expect(await balanceOf(sdk, alice.partyId, tt2())).toEqual({ unlocked: '50', locked: '0' });
      expect(await balanceOf(sdk, bob.partyId, tt2())).toEqual({ unlocked: plus('30', '20'), locked: '0' });
    });
  });
});
