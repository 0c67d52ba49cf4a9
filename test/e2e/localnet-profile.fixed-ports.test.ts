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
 *    `ledger-api-user`.
 * This file binds LocalNet's fixed ports: vitest.config.ts runs it in the `fixed-ports` project,
 * one file at a time.
 */
import { CustomLogAdapter, localNetStaticConfig, SDK } from '@canton-network/wallet-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCALNET_APP_PROVIDER_PARTY_HINT, LOCALNET_APP_USER_PARTY_HINT } from '../../src/config/localnet.js';
import { startStack, type RunningStack } from '../../src/stack.js';
import { resolveLocalhostNames } from '../support/localhost-names.js';
import { validatorJwt } from './support/amulet.js';
import { balanceOf, selfSignedAuth } from './support/wallet-sdk.js';

const {
  LOCALNET_APP_USER_LEDGER_URL: LEDGER,
  LOCALNET_APP_VALIDATOR_URL: VALIDATOR,
  LOCALNET_REGISTRY_API_URL: REGISTRY,
  LOCALNET_SCAN_API_URL: SCAN,
  LOCALNET_USER_ID: USER,
} = localNetStaticConfig;

/** The SDK as LocalNet examples create it: every URL from `localNetStaticConfig`. */
function createLocalNetSdk(userId: string) {
  const auth = selfSignedAuth(userId);
  return SDK.create({
    auth,
    ledgerClientUrl: LEDGER,
    logAdapter: new CustomLogAdapter(() => {}),
    amulet: { auth, scanApiUrl: SCAN, validatorUrl: VALIDATOR, registryUrl: REGISTRY },
    token: { auth, registries: [REGISTRY], validatorUrl: VALIDATOR },
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
});
