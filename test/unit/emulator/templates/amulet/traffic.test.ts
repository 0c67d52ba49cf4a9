/**
 * Synchronizer traffic bought with Amulet (traffic.ts): AmuletRules_BuyMemberTraffic prices the
 * bytes at extraTrafficPrice $/MB and the round's amulet price, burns that from the provider's
 * inputs and records a MemberTraffic; its checks fail with Splice's InvalidTransfer reasons;
 * AmuletRules_MergeMemberTrafficContracts folds a member's purchases.
 */
import { describe, expect, it } from 'vitest';
import { MemberTrafficId, synchronizerFees } from '../../../../../src/emulator/templates/amulet/index.js';
import type { MemberTrafficPayload } from '../../../../../src/emulator/templates/amulet/traffic.js';
import { AMULET, amuletLedger, exercise, trace, type AmuletLedger } from './fixture.js';
import { exercisedOf, type LedgerResponse } from '../wire.js';

/** The fields of `AmuletRules_BuyMemberTrafficResult` read here. */
interface BuyResult {
  amuletPaid: string;
  summary: { amuletPrice: string };
  meta: { values: Record<string, string> };
  purchasedTraffic: string;
  senderChangeAmulet: string;
}

/** The root exercise result of a successful `AmuletRules_BuyMemberTraffic`. */
const buyResult = (r: LedgerResponse) => exercisedOf(r.transaction.events[0]).exerciseResult as BuyResult;

const MEMBER_TRAFFIC = '#splice-amulet:Splice.DecentralizedSynchronizer:MemberTraffic';

function buy(l: AmuletLedger, provider: string, inputs: string[], over: Partial<Record<string, unknown>> = {}) {
  const c = l.ctx();
  return l.client.submit(
    [provider],
    [
      exercise(AMULET.AmuletRules, c.amuletRulesCid, 'AmuletRules_BuyMemberTraffic', {
        context: { openMiningRound: c.openRoundCid, issuingMiningRounds: [], validatorRights: [], featuredAppRight: null },
        inputs: inputs.map((cid) => ({ tag: 'InputAmulet', value: cid })),
        provider,
        memberId: `PAR::${l.engine.participantId}`,
        synchronizerId: l.engine.synchronizerId,
        migrationId: '0',
        trafficAmount: '200000',
        expectedDso: l.dso,
        ...over,
      }),
    ],
    c.disclosed.slice(0, 2),
  );
}

describe('synchronizerFees (computeSynchronizerFees)', () => {
  it('is bytes / 1e6 * $/MB, divided by the amulet price', () => {
    const d = (s: string) => BigInt(s) * 10n ** 10n;
    // 200 kB at 16.67 $/MB = 3.334 USD = 666.8 CC at 0.005 $/CC
    expect(synchronizerFees(200_000n, 1667n * 10n ** 8n, 5n * 10n ** 7n)).toEqual({ usd: 33_340_000_000n, amulet: 6_668_000_000_000n });
    expect(synchronizerFees(1_000_000n, d('1'), d('1'))).toEqual({ usd: d('1'), amulet: d('1') });
  });
});

describe('AmuletRules_BuyMemberTraffic', () => {
  it('burns the price from the provider and creates a MemberTraffic for the member', async () => {
    const l = amuletLedger();
    const funds = l.tap(l.provider, '2000');
    const r = await buy(l, l.provider, [funds]);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(trace(r.transaction.events)).toEqual([
      'exercise AmuletRules.AmuletRules_BuyMemberTraffic',
      'exercise OpenMiningRound.OpenMiningRound_Fetch',
      // splitAndBurn: the self-transfer (executeTransfer) and the burn of the split amulet
      'consume Amulet.Archive',
      'create Amulet',
      'create Amulet',
      'consume Amulet.Archive',
      'create MemberTraffic',
    ]);
    const result = buyResult(r);
    expect(result.amuletPaid).toBe('666.8000000000');
    expect(result.summary.amuletPrice).toBe('0.0050000000');
    expect(result.meta.values['splice.lfdecentralizedtrust.org/tx-kind']).toBe('burn');
    expect(result.meta.values['splice.lfdecentralizedtrust.org/reason']).toBe('traffic purchase');
    expect(result.meta.values['splice.lfdecentralizedtrust.org/burned']).toBe('666.8');
    const traffic = l.engine.contracts.get(result.purchasedTraffic)!;
    expect(traffic.templateId).toEqual(MemberTrafficId);
    expect(traffic.payload).toEqual({
      dso: l.dso,
      memberId: `PAR::${l.engine.participantId}`,
      synchronizerId: l.engine.synchronizerId,
      migrationId: '0',
      totalPurchased: '200000',
      numPurchases: '1',
      amuletSpent: '666.8000000000',
      usdSpent: '3.3340000000',
    });
    expect(traffic.signatories).toEqual([l.dso]);
    expect(traffic.observers).toEqual([]);
    expect(await l.client.balance(l.provider)).toBe('1333.2000000000');
    expect(result.senderChangeAmulet).not.toBeNull();
    // a second purchase is a second contract (Splice merges them with MergeMemberTrafficContracts)
    const again = await buy(l, l.provider, [result.senderChangeAmulet], { trafficAmount: '300000' });
    expect(buyResult(again).amuletPaid).toBe('1000.2000000000');
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(await l.client.balance(l.provider)).toBe('333.0000000000');
    const all = await l.client.acs(l.dso, { TemplateFilter: { value: { templateId: MEMBER_TRAFFIC, includeCreatedEventBlob: false } } });
    expect(all.map((e) => (e.createArgument as MemberTrafficPayload).totalPurchased).sort()).toEqual(['200000', '300000']);
  });

  it('rejects an unknown synchronizer, a top-up below minTopupAmount, missing funds and a wrong DSO, changing nothing', async () => {
    const l = amuletLedger();
    const funds = l.tap(l.provider, '100');
    const end = await l.client.ledgerEnd();
    const unknown = await buy(l, l.provider, [funds], { synchronizerId: 'other::1220abcd' });
    expect(unknown.status).toBe(400);
    expect(unknown.error.code).toBe('DAML_FAILURE');
    expect(unknown.error.context.error_id).toBe('UNHANDLED_EXCEPTION/Splice.AmuletRules:InvalidTransfer');
    expect(unknown.error.cause).toContain('ITR_UnknownSynchronizer {synchronizerId = "other::1220abcd"}');
    const small = await buy(l, l.provider, [funds], { trafficAmount: '199999' });
    expect(small.error.cause).toContain('ITR_InsufficientTopupAmount {requestedTopupAmount = 199999, minTopupAmount = 200000}');
    const poor = await buy(l, l.provider, [funds]);
    expect(poor.error.cause).toContain('ITR_InsufficientFunds {missingAmount = 566.8}');
    const unset = await buy(l, l.provider, [funds], { expectedDso: null });
    expect(unset.error.cause).toContain('Expected DSO party not set by caller');
    const wrong = await buy(l, l.provider, [funds], { expectedDso: l.carol });
    expect(wrong.error.cause).toContain(`DSO party expected by caller '${l.carol}' does not match actual DSO party '${l.dso}'`);
    // only the provider controls it
    const forged = await l.client.submit([l.alice], [exercise(AMULET.AmuletRules, l.ctx().amuletRulesCid, 'AmuletRules_BuyMemberTraffic', {
      context: { openMiningRound: l.ctx().openRoundCid, issuingMiningRounds: [], validatorRights: [], featuredAppRight: null },
      inputs: [{ tag: 'InputAmulet', value: funds }],
      provider: l.provider,
      memberId: 'PAR::x::1220ab',
      synchronizerId: l.engine.synchronizerId,
      migrationId: '0',
      trafficAmount: '200000',
      expectedDso: l.dso,
    })], l.ctx().disclosed.slice(0, 2));
    expect(forged.error.code).toBe('DAML_AUTHORIZATION_ERROR');
    expect(await l.client.ledgerEnd()).toBe(end);
    expect(l.engine.contracts.getActive(funds)).toBeDefined();
  });

  it('MemberTraffic ensure: an empty memberId is rejected', async () => {
    const l = amuletLedger();
    const funds = l.tap(l.provider, '1000');
    const r = await buy(l, l.provider, [funds], { memberId: '' });
    expect(r.status).toBe(400);
    expect(r.error.cause).toContain('not (T.isEmpty memberId)');
    expect(l.engine.contracts.getActive(funds)).toBeDefined();
  });
});

describe('AmuletRules_MergeMemberTrafficContracts', () => {
  it('folds the purchases of one member into one contract (controller dso)', async () => {
    const l = amuletLedger();
    const a = buyResult(await buy(l, l.provider, [l.tap(l.provider, '700')])).purchasedTraffic;
    const b = buyResult(await buy(l, l.provider, [l.tap(l.provider, '700')])).purchasedTraffic;
    const c = l.ctx();
    const r = await l.client.ok<{ mergedTrafficCid: string }>([l.dso], [exercise(AMULET.AmuletRules, c.amuletRulesCid, 'AmuletRules_MergeMemberTrafficContracts', { trafficCids: [a, b] })]);
    const merged = l.engine.contracts.get(r.result.mergedTrafficCid)!;
    expect(merged.payload).toMatchObject({ totalPurchased: '400000', numPurchases: '2', amuletSpent: '1333.6000000000', usdSpent: '6.6680000000' });
    expect(l.engine.contracts.getActive(a)).toBeUndefined();
    expect(l.engine.contracts.getActive(b)).toBeUndefined();
  });
});
