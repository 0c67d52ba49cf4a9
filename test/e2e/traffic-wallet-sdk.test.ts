/**
 * End to end: synchronizer traffic bought with the OFFICIAL wallet SDK
 * (@canton-network/wallet-sdk@1.4.0, `amulet.traffic`) against the emulated stack (`startStack`,
 * real loopback HTTP). `traffic.status()` asks the ledger for its participant id
 * (`GET /v2/parties/participant-id`) and scan for `PAR::<participant>`'s traffic status;
 * `traffic.buy()` builds `AmuletRules_BuyMemberTraffic` from scan-proxy's AmuletRules and open
 * round, which alice submits with the SDK's own `ledger.internal.submit`. Scan then reports the
 * bytes bought (target and the sequencer's limit), alice's balance drops by the price, and the
 * transaction reports the traffic its request cost (`paidTrafficCost`).
 *
 * Note: the SDK passes its `ccAmount` parameter as the choice's `trafficAmount`, which is in
 * bytes (as splice-amulet's choice and Splice's `buy-traffic-requests` define it).
 */
import { ScanClient } from '@canton-network/core-splice-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type RunningStack } from '../../src/stack.js';
import { amuletUrls, createAmuletSdk, holdingsAtForcedSnapshot, silentLogger, staticTokenProvider, type AmuletSdk } from './support/amulet.js';

interface TrafficStatusJson {
  traffic_status: { actual: { total_consumed: number; total_limit: number }; target: { total_purchased: number } };
}

describe('wallet SDK amulet.traffic against the emulated stack', () => {
  let stack: RunningStack;
  let sdk: AmuletSdk;
  let scan: ScanClient;
  let alice: string;
  let dso: string;

  beforeAll(async () => {
    stack = await startStack({ config: { port: 0, logLevel: 'silent' }, registryPort: 0, scanPort: 0, validatorPort: 0 });
    const urls = amuletUrls(stack);
    alice = stack.seeded!.parties.find((p) => p.hint === 'alice')!.party;
    dso = stack.seeded!.amulet!.dso;
    sdk = await createAmuletSdk(stack, 'alice', { viaValidator: true, registry: urls.registry });
    scan = new ScanClient(new URL(urls.scanApi), silentLogger, staticTokenProvider(''));
  });

  /** alice's unlocked Amulet holdings (she also holds test tokens of another registry). */
  async function amuletInputs(): Promise<string[]> {
    const utxos = await sdk.token.utxos.list({ partyId: alice, includeLocked: false });
    return utxos
      .filter((u) => u.interfaceViewValue.owner === alice && u.interfaceViewValue.instrumentId.admin === dso && u.interfaceViewValue.instrumentId.id === 'Amulet')
      .map((u) => u.contractId);
  }

  afterAll(async () => {
    await stack?.close();
  });

  it('buy changes the traffic status scan reports; the price is burnt from the buyer', async () => {
    const member = `PAR::${stack.engine.participantId}`;
    const before = await sdk.amulet.traffic.status();
    expect(before.traffic_status.target.total_purchased).toBe(0);
    expect(before.traffic_status.actual.total_limit).toBe(0);
    const balanceBefore = (await holdingsAtForcedSnapshot(scan, [alice])).balances[alice]!.unlocked;

    const inputs = await amuletInputs();
    const [command, disclosed] = await sdk.amulet.traffic.buy({ buyer: alice, ccAmount: 250_000, inputUtxos: inputs });
    const exercise = (command as { ExerciseCommand: { choice: string; choiceArgument: Record<string, unknown> } }).ExerciseCommand;
    expect(exercise.choice).toBe('AmuletRules_BuyMemberTraffic');
    expect(exercise.choiceArgument).toMatchObject({ provider: alice, memberId: member, synchronizerId: stack.engine.synchronizerId, migrationId: '0', trafficAmount: '250000', expectedDso: dso });
    const submitted = await sdk.ledger.internal.submit({ commands: [command], actAs: [alice], disclosedContracts: disclosed });
    expect(submitted.completionOffset).toBeGreaterThan(0);

    const after = await sdk.amulet.traffic.status();
    expect(after.traffic_status.target.total_purchased).toBe(250_000);
    expect(after.traffic_status.actual.total_limit).toBe(250_000);
    // the same through scan directly, for the participant id the SDK looked up
    const res = await fetch(`${amuletUrls(stack).scanApi}/v0/domains/${encodeURIComponent(stack.engine.synchronizerId)}/members/${encodeURIComponent(member)}/traffic-status`);
    expect(res.status).toBe(200);
    const direct = (await res.json()) as TrafficStatusJson;
    expect(direct.traffic_status.target.total_purchased).toBe(250_000);

    // 250 kB at 16.67 $/MB = 4.1675 USD = 833.5 CC at 0.005 $/CC, burnt from alice's holdings
    const price = 833.5;
    const balanceAfter = (await holdingsAtForcedSnapshot(scan, [alice])).balances[alice]!.unlocked;
    expect(Number(balanceBefore) - Number(balanceAfter)).toBeCloseTo(price, 6);

    // the purchase's transaction reports the traffic its confirmation request cost
    const tx = stack.engine.updates.range(submitted.completionOffset - 1, submitted.completionOffset)[0]!;
    expect(tx.paidTrafficCost).toBeGreaterThan(0n);
  });

  it('a purchase below minTopupAmount fails with Splice reason and changes nothing', async () => {
    const inputs = await amuletInputs();
    const [command, disclosed] = await sdk.amulet.traffic.buy({ buyer: alice, ccAmount: 1000, inputUtxos: inputs });
    const failure = await sdk.ledger.internal.submit({ commands: [command], actAs: [alice], disclosedContracts: disclosed }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(JSON.stringify(failure)).toContain('ITR_InsufficientTopupAmount {requestedTopupAmount = 1000, minTopupAmount = 200000}');
    expect((await sdk.amulet.traffic.status()).traffic_status.target.total_purchased).toBe(250_000);
  });
});
