/**
 * End to end: the OFFICIAL Splice clients against the
 * emulated stack (`startStack`: ledger, scan with the Amulet registry at its host root, validator)
 * over real loopback HTTP, in the seeded Canton Coin world (DSO, validator, alice 1000 CC, bob
 * 500 CC, wallets for alice and bob, a FeaturedAppRight for the validator).
 *
 * Clients:
 *  - `ScanClient` (@canton-network/core-splice-client@1.8.0) at `<scan>/api/scan`, no token:
 *    DSO, rounds, AmuletRules, featured apps, pre-approvals, and the ACS/holdings at a forced
 *    snapshot (`POST /v0/state/acs/force`, then `/v1/holdings/state` and `/v1/state/acs` at that
 *    record time with `record_time_match: exact`);
 *  - `ScanProxyClient` and `ValidatorInternalClient` at `<validator>/api/validator`, with a
 *    validator JWT (HS256 `unsafe`, LocalNet);
 *  - the wallet SDK (@canton-network/wallet-sdk@1.4.0): its `amulet` namespace (tap and
 *    tapInternal, featured app rights, pre-approval create, status and cancel) and its `token`
 *    namespace against the Amulet registry (transfer offer then accept; direct transfer when the
 *    receiver has a pre-approval). Commands the SDK builds are submitted unchanged with its own
 *    `ledger.internal.submit`.
 *
 * The pre-approval is bought as on Splice: `amulet.preapproval.command.create` builds a
 * TransferPreapprovalProposal (receiver bob, provider the validator), bob submits it, the
 * validator's automation accepts it (AmuletRules_CreateTransferPreapproval, free within the 90-day
 * base duration), and `preapproval.fetchStatus` then finds the TransferPreapproval.
 *
 * The steps share one stack and run in order; balances are read from scan at a fresh forced
 * snapshot after each step.
 */
import { ScanClient, ScanProxyClient, ValidatorInternalClient } from '@canton-network/core-splice-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type RunningStack } from '../../src/stack.js';
import {
  amuletUrls,
  createAmuletSdk,
  holdingsAtForcedSnapshot,
  silentLogger,
  staticTokenProvider,
  validatorJwt,
  type AcsResponseV1Json,
  type AmuletSdk,
  type ContractJson,
  type ContractWithStateJson,
  type DsoInfoJson,
} from './support/amulet.js';
import { plus } from './support/wallet-sdk.js';

const TRANSFER_FACTORY = '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory';
const TRANSFER_INSTRUCTION = '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction';

interface Exercise {
  templateId: string;
  contractId: string;
  choice: string;
  choiceArgument: unknown;
}
function exerciseOf(command: unknown): Exercise {
  if (typeof command !== 'object' || command === null || !('ExerciseCommand' in command)) throw new Error(`expected an ExerciseCommand, got ${JSON.stringify(command)}`);
  return (command as { ExerciseCommand: Exercise }).ExerciseCommand;
}
/** `GET /v0/featured-apps/{provider}` and `/by-contract-id/{cid}`: `{}` when there is none. */
type FeaturedAppRightJson = { featured_app_right?: ContractJson };
/** `GET /v0/transfer-preapprovals/by-party/{party}`. */
type PreapprovalJson = { transfer_preapproval: ContractWithStateJson };
const contextKeys = (e: Exercise) => Object.keys((e.choiceArgument as { extraArgs: { context: { values: object } } }).extraArgs.context.values).sort();

describe('official Splice clients and the wallet SDK amulet path against the emulated stack', () => {
  let stack: RunningStack;
  let urls: ReturnType<typeof amuletUrls>;
  let dso: string;
  let validator: string;
  let alice: string;
  let bob: string;
  let scan: ScanClient;
  let scanProxy: ScanProxyClient;
  /** alice's wallet: amulet namespace through the validator (scan-proxy), registry at the scan host. */
  let aliceSdk: AmuletSdk;
  /** bob's wallet: amulet namespace on scan directly, registry through the validator's scan-proxy. */
  let bobSdk: AmuletSdk;
  /** Expected balances, updated step by step. */
  const expected = { alice: '1000', bob: '500' };

  beforeAll(async () => {
    stack = await startStack({ config: { port: 0, logLevel: 'silent' }, registryPort: 0, scanPort: 0, validatorPort: 0 });
    urls = amuletUrls(stack);
    const party = (hint: string) => stack.seeded!.parties.find((p) => p.hint === hint)!.party;
    dso = stack.seeded!.amulet!.dso;
    validator = stack.seeded!.amulet!.validator;
    alice = party('alice');
    bob = party('bob');
    scan = new ScanClient(new URL(urls.scanApi), silentLogger, staticTokenProvider(''));
    scanProxy = new ScanProxyClient(new URL(urls.validatorApi), silentLogger, staticTokenProvider(await validatorJwt('alice')));
    [aliceSdk, bobSdk] = await Promise.all([
      createAmuletSdk(stack, 'alice', { viaValidator: true, registry: urls.registry }),
      createAmuletSdk(stack, 'bob', { viaValidator: false, registry: urls.scanProxyRegistry }),
    ]);
  });

  afterAll(async () => {
    await stack?.close();
  });

  describe('ScanClient (scan, no auth)', () => {
    it('DSO party, DSO info and the Amulet synchronizer', async () => {
      expect(await scan.get('/v0/dso-party-id')).toEqual({ dso_party_id: dso });
      const info = (await scan.get('/v0/dso')) as DsoInfoJson;
      expect(info.dso_party_id).toBe(dso);
      expect(info.amulet_rules.contract.template_id).toMatch(/:Splice\.AmuletRules:AmuletRules$/);
      expect(info.latest_mining_round.contract.template_id).toMatch(/:Splice\.Round:OpenMiningRound$/);
      // getAmuletSynchronizerId reads AmuletConfig.decentralizedSynchronizer from /v0/dso.
      expect(await scan.getAmuletSynchronizerId()).toBe(stack.engine.synchronizerId);
    });

    it('AmuletRules (POST /v0/amulet-rules), DevNet, open rounds and the active one', async () => {
      const rules = await scan.getAmuletRules();
      expect(rules.contract_id).toBe(stack.seeded!.amulet!.amuletRulesCid);
      expect(rules.template_id).toMatch(/^[0-9a-f]{64}:Splice\.AmuletRules:AmuletRules$/);
      expect(rules.created_event_blob).toMatch(/^[A-Za-z0-9+/]+=*$/);
      expect((rules.payload as { dso: string }).dso).toBe(dso);
      expect(await scan.isDevNet()).toBe(true);

      // POST /v0/open-and-issuing-mining-rounds: the three open rounds
      const rounds = await scan.getOpenMiningRounds();
      expect(rounds).toHaveLength(3);
      for (const r of rounds) expect(r.template_id).toMatch(/:Splice\.Round:OpenMiningRound$/);
      const active = await scan.getActiveOpenMiningRound();
      expect(active).not.toBeNull();
      expect(rounds.map((r) => r.contract_id)).toContain(active!.contract_id);
    });

    it('featured apps: the validator has a right, alice none ({}), by contract id', async () => {
      const all = (await scan.get('/v0/featured-apps')) as { featured_apps: ContractJson[] };
      expect(all.featured_apps.map((c) => (c.payload as { provider: string }).provider)).toEqual([validator]);
      const { featured_app_right: right } = (await scan.get('/v0/featured-apps/{provider_party_id}', { path: { provider_party_id: validator } })) as FeaturedAppRightJson;
      expect(right?.contract_id).toBe(all.featured_apps[0]!.contract_id);
      expect(await scan.get('/v0/featured-apps/{provider_party_id}', { path: { provider_party_id: alice } })).toEqual({});
      const byCid = (await scan.get('/v0/featured-apps/by-contract-id/{contract_id}', { path: { contract_id: right!.contract_id } })) as FeaturedAppRightJson;
      expect(byCid.featured_app_right?.contract_id).toBe(right!.contract_id);
    });

    it('transfer pre-approval by party: none yet → 404 in scan\'s {error} shape (the client rejects with it)', async () => {
      const err = await scan.get('/v0/transfer-preapprovals/by-party/{party}', { path: { party: bob } }).catch((e: unknown) => e);
      expect(err).toEqual({ error: `No TransferPreapproval found for party: ${bob}` });
    });

    it('ACS and holdings at a forced snapshot (record_time_match exact): alice 1000 CC, bob 500 CC', async () => {
      const snap = await holdingsAtForcedSnapshot(scan, [alice, bob]);
      expect(snap.balances).toEqual({ [alice]: { unlocked: '1000', locked: '0' }, [bob]: { unlocked: '500', locked: '0' } });
      expect(snap.holdings.map((h) => [h.owner, h.amount])).toEqual(
        expect.arrayContaining([
          [alice, '1000.0000000000'],
          [bob, '500.0000000000'],
        ]),
      );

      // The same snapshot through the ACS endpoint, filtered by template and party.
      const acs = (await scan.post('/v1/state/acs', {
        migration_id: 0,
        record_time: snap.recordTime,
        record_time_match: 'exact',
        page_size: 100,
        party_ids: [alice],
        templates: ['splice-amulet:Splice.Amulet:Amulet'],
      })) as AcsResponseV1Json;
      expect(acs.record_time).toBe(snap.recordTime);
      expect(acs.created_events.map((c) => c.contract_id).sort()).toEqual(snap.holdings.filter((h) => h.owner === alice).map((h) => h.contractId).sort());
      expect(acs.next_page_token).toBeUndefined();

      // A time that is not a snapshot, matched exactly, is scan's 404.
      const missing = await scan
        .post('/v1/holdings/state', { migration_id: 0, record_time: '2020-01-01T00:00:00Z', record_time_match: 'exact', page_size: 10, owner_party_ids: [alice] })
        .catch((e: unknown) => e);
      expect(missing).toEqual({ error: 'Failed to find ACS snapshot for migration id 0 at 2020-01-01T00:00:00Z' });
    });
  });

  describe('ScanProxyClient and ValidatorInternalClient (validator, JWT)', () => {
    it('validator-user (public) gives the validator party', async () => {
      const client = new ValidatorInternalClient(new URL(urls.validatorApi), silentLogger, staticTokenProvider(''));
      expect(await client.get('/v0/validator-user')).toMatchObject({ party_id: validator });
    });

    it('scan-proxy reads: DSO, AmuletRules, rounds, featured app right, pre-approval', async () => {
      expect(await scanProxy.get('/v0/scan-proxy/dso-party-id')).toEqual({ dso_party_id: dso });
      expect(((await scanProxy.get('/v0/scan-proxy/dso')) as DsoInfoJson).dso_party_id).toBe(dso);
      const rules = await scanProxy.getAmuletRules();
      expect(rules.contract_id).toBe(stack.seeded!.amulet!.amuletRulesCid);
      expect(await scanProxy.getAmuletSynchronizerId()).toBe(stack.engine.synchronizerId);
      expect(await scanProxy.isDevNet()).toBe(true);
      const rounds = await scanProxy.getOpenMiningRounds();
      expect(rounds.map((r) => r.contract_id).sort()).toEqual((await scan.getOpenMiningRounds()).map((r) => r.contract_id).sort());
      expect(await scanProxy.getActiveOpenMiningRound()).not.toBeNull();
      const featured = (await scanProxy.get('/v0/scan-proxy/featured-apps/{provider_party_id}', { path: { provider_party_id: validator } })) as FeaturedAppRightJson;
      expect(featured.featured_app_right?.payload.provider).toBe(validator);
      const none = await scanProxy.get('/v0/scan-proxy/transfer-preapprovals/by-party/{party}', { path: { party: bob } }).catch((e: unknown) => e);
      expect(none).toEqual({ error: `No TransferPreapproval found for party: ${bob}` });
    });

    it('scan-proxy without a token: 401 (the client rejects with pekko\'s plain-text body)', async () => {
      const anonymous = new ScanProxyClient(new URL(urls.validatorApi), silentLogger, staticTokenProvider(''));
      const err = await anonymous.get('/v0/scan-proxy/dso-party-id').catch((e: unknown) => e);
      expect(err).toBe('The resource requires authentication, which was not supplied with the request');
    });
  });

  describe('wallet SDK amulet namespace and the Amulet registry', () => {
    it('featured app rights of the validator (through scan-proxy and through scan)', async () => {
      const viaProxy = await aliceSdk.amulet.featuredApp.rights({ partyId: validator, maxRetries: 1 });
      // The SDK types the payload `Record<string, never>`; it is the FeaturedAppRight's LF JSON record.
      const payload: Record<string, unknown> | undefined = viaProxy?.payload;
      expect(payload?.provider).toBe(validator);
      const viaScan = await bobSdk.amulet.featuredApp.rights({ partyId: validator, maxRetries: 1 });
      expect(viaScan?.contract_id).toBe(viaProxy?.contract_id);
    });

    it('tap: alice mints 100 CC with AmuletRules_DevNet_Tap (registry disclosures + scan-proxy rules and round)', async () => {
      const [command, disclosed] = await aliceSdk.amulet.tap(alice, '100');
      const exercise = exerciseOf(command);
      expect(exercise).toMatchObject({ contractId: stack.seeded!.amulet!.amuletRulesCid, choice: 'AmuletRules_DevNet_Tap' });
      expect(exercise.choiceArgument).toMatchObject({ receiver: alice, amount: '100.0000000000' });
      await aliceSdk.ledger.internal.submit({ commands: [command], actAs: [alice], disclosedContracts: disclosed });
      expected.alice = plus(expected.alice, '100');

      // tapInternal (build + submit in one call) on bob's scan-only amulet service.
      const submitted = await bobSdk.amulet.tapInternal('5', { partyId: bob });
      expect(submitted.completionOffset).toBeGreaterThan(0);
      expected.bob = plus(expected.bob, '5');

      const snap = await holdingsAtForcedSnapshot(scan, [alice, bob]);
      expect(snap.balances).toEqual({ [alice]: { unlocked: expected.alice, locked: '0' }, [bob]: { unlocked: expected.bob, locked: '0' } });
      expect(snap.holdings.filter((h) => h.owner === alice).map((h) => h.amount)).toContain('100.0000000000');
      expect(snap.holdings.filter((h) => h.owner === bob).map((h) => h.amount)).toContain('5.0000000000');
    });

    it('offer: alice → bob 50 CC through the registry (transferKind offer), bob accepts through the scan-proxy registry', async () => {
      const [command, disclosed] = await aliceSdk.token.transfer.create({
        sender: alice,
        recipient: bob,
        amount: '50',
        instrumentId: 'Amulet',
        registryUrl: new URL(urls.registry),
        memo: 'cc offer',
      });
      const exercise = exerciseOf(command);
      expect(exercise).toMatchObject({ templateId: TRANSFER_FACTORY, contractId: stack.seeded!.amulet!.externalPartyAmuletRulesCid, choice: 'TransferFactory_Transfer' });
      // the newest Scan's transfer factory context: rules and round, plus the config state
      expect(contextKeys(exercise)).toEqual(['amulet-rules', 'external-party-config-state', 'open-round']);
      await aliceSdk.ledger.internal.submit({ commands: [command], actAs: [alice], disclosedContracts: disclosed });

      // Pending: the 50 CC are locked on alice's side; bob sees the instruction.
      let snap = await holdingsAtForcedSnapshot(scan, [alice, bob]);
      expect(snap.balances[alice]).toEqual({ unlocked: plus(expected.alice, '-50'), locked: '50' });
      expect(snap.balances[bob]).toEqual({ unlocked: expected.bob, locked: '0' });
      const pending = await bobSdk.token.transfer.pending(bob);
      expect(pending).toHaveLength(1);
      expect(pending[0]!.interfaceViewValue.transfer).toMatchObject({ sender: alice, receiver: bob, amount: '50.0000000000' });

      // Bob accepts with the accept context from the registry behind the validator's scan-proxy.
      const [accept, acceptDisclosed] = await bobSdk.token.transfer.accept({
        transferInstructionCid: pending[0]!.contractId,
        registryUrl: new URL(urls.scanProxyRegistry),
      });
      const acceptExercise = exerciseOf(accept);
      expect(acceptExercise).toMatchObject({ templateId: TRANSFER_INSTRUCTION, contractId: pending[0]!.contractId, choice: 'TransferInstruction_Accept' });
      // the newest Scan's two-step context: the config state and expire-lock only
      expect(contextKeys(acceptExercise)).toEqual(['expire-lock', 'external-party-config-state']);
      await bobSdk.ledger.internal.submit({ commands: [accept], actAs: [bob], disclosedContracts: acceptDisclosed });
      expected.alice = plus(expected.alice, '-50');
      expected.bob = plus(expected.bob, '50');

      snap = await holdingsAtForcedSnapshot(scan, [alice, bob]);
      expect(snap.balances).toEqual({ [alice]: { unlocked: expected.alice, locked: '0' }, [bob]: { unlocked: expected.bob, locked: '0' } });
      expect(await bobSdk.token.transfer.pending(bob)).toEqual([]);
    });

    it('direct: bob asks for a pre-approval with the SDK, the validator accepts it; alice → bob 30 CC completes in one step', async () => {
      // The SDK's proposal (provider defaults to the validator party, read from validator-user), submitted by bob.
      const proposal = await aliceSdk.amulet.preapproval.command.create({ parties: { receiver: bob } });
      expect(proposal.CreateCommand).toMatchObject({
        templateId: '#splice-wallet:Splice.Wallet.TransferPreapproval:TransferPreapprovalProposal',
        createArguments: { provider: validator, receiver: bob, expectedDso: dso },
      });
      const submitted = await bobSdk.ledger.internal.submit({ commands: [proposal], actAs: [bob] });
      expect(submitted.completionOffset).toBeGreaterThan(0);

      // The validator's automation accepts it; the SDK's status poll (scan-proxy) finds the pre-approval at once.
      const status = await aliceSdk.amulet.preapproval.fetchStatus(bob, { timeoutMs: 2_000, intervalMs: 100 });
      expect(status).toMatchObject({ dso, templateId: expect.stringMatching(/:Splice\.AmuletRules:TransferPreapproval$/) });
      const preapprovalCid = status!.contractId;
      // validator's default lifetime: 90 days (free: within transferPreapprovalBaseDuration)
      expect(status!.expiresAt.getTime() - Date.now()).toBeGreaterThan(89 * 24 * 3600_000);
      expect(status!.expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(90 * 24 * 3600_000);

      // Scan and the scan-proxy see it, with provider = the validator.
      const viaScan = (await scan.get('/v0/transfer-preapprovals/by-party/{party}', { path: { party: bob } })) as PreapprovalJson;
      expect(viaScan.transfer_preapproval.contract.contract_id).toBe(preapprovalCid);
      expect(viaScan.transfer_preapproval.contract.payload).toMatchObject({ receiver: bob, provider: validator, dso });
      const viaProxy = (await scanProxy.get('/v0/scan-proxy/transfer-preapprovals/by-party/{party}', { path: { party: bob } })) as PreapprovalJson;
      expect(viaProxy.transfer_preapproval.contract.contract_id).toBe(preapprovalCid);
      expect((await bobSdk.amulet.preapproval.fetchQuick(bob))?.contract.contract_id).toBe(preapprovalCid);

      // The registry now answers `direct`, with the pre-approval and the provider's featured app right.
      const factory = await fetch(`${urls.registry}/registry/transfer-instruction/v1/transfer-factory`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          choiceArguments: {
            expectedAdmin: dso,
            transfer: {
              sender: alice,
              receiver: bob,
              amount: '30.0',
              instrumentId: { admin: dso, id: 'Amulet' },
              requestedAt: new Date(Date.now() - 60_000).toISOString(),
              executeBefore: new Date(Date.now() + 3_600_000).toISOString(),
              inputHoldingCids: [],
              meta: { values: {} },
            },
            extraArgs: { context: { values: {} }, meta: { values: {} } },
          },
          excludeDebugFields: true,
        }),
      });
      expect(factory.status).toBe(200);
      expect(await factory.json()).toMatchObject({ transferKind: 'direct' });

      const [command, disclosed] = await aliceSdk.token.transfer.create({
        sender: alice,
        recipient: bob,
        amount: '30',
        instrumentId: 'Amulet',
        registryUrl: new URL(urls.registry),
        memo: 'cc direct',
      });
      const exercise = exerciseOf(command);
      expect(contextKeys(exercise)).toEqual(['amulet-rules', 'external-party-config-state', 'featured-app-right', 'open-round', 'transfer-preapproval']);
      expect(disclosed.map((d) => d.contractId)).toContain(preapprovalCid);
      await aliceSdk.ledger.internal.submit({ commands: [command], actAs: [alice], disclosedContracts: disclosed });
      expected.alice = plus(expected.alice, '-30');
      expected.bob = plus(expected.bob, '30');

      // One step: no instruction left, bob holds the 30 CC, nothing locked.
      expect(await bobSdk.token.transfer.pending(bob)).toEqual([]);
      const snap = await holdingsAtForcedSnapshot(scan, [alice, bob]);
      expect(snap.balances).toEqual({ [alice]: { unlocked: expected.alice, locked: '0' }, [bob]: { unlocked: expected.bob, locked: '0' } });
      expect(snap.holdings.filter((h) => h.owner === bob).map((h) => h.amount)).toContain('30.0000000000');
    });

    it('pre-approval cancelled by bob through the SDK (TransferPreapproval_Cancel); scan then answers 404', async () => {
      const [command, disclosed] = await bobSdk.amulet.preapproval.command.cancel({ parties: { receiver: bob } });
      expect(exerciseOf(command)).toMatchObject({ choice: 'TransferPreapproval_Cancel', choiceArgument: { p: bob } });
      await bobSdk.ledger.internal.submit({ commands: [command!], actAs: [bob], disclosedContracts: [...disclosed] });
      expect(await aliceSdk.amulet.preapproval.fetchStatus(bob, { cancelled: true, timeoutMs: 2_000, intervalMs: 100 })).toBeNull();
      const err = await scan.get('/v0/transfer-preapprovals/by-party/{party}', { path: { party: bob } }).catch((e: unknown) => e);
      expect(err).toEqual({ error: `No TransferPreapproval found for party: ${bob}` });
    });
  });
});
