/**
 * splice-wallet's BuyTrafficRequest (buy-traffic-request.ts): created through the user's
 * WalletAppInstall by the validator, completed with CO_CompleteBuyTrafficRequest (buying the
 * traffic from the user's amulets with AmuletRules_BuyMemberTraffic), cancelled before and expired
 * after `expiresAt`, with Splice's requirement texts.
 */
import { describe, expect, it } from 'vitest';
import { BuyTrafficRequestId, installWallet } from '../../../../../src/emulator/templates/amulet/index.js';
import { AMULET, amuletLedger, exercise, trace, type ExecuteBatchResult } from './fixture.js';
import { exercisedOf } from '../wire.js';

const HOUR_MS = 3600_000;

function world() {
  const l = amuletLedger();
  const validator = l.party('validator');
  const install = installWallet(l.engine, { dso: l.dso, user: l.alice, validator });
  const create = async (trackingId: string, expiresInMs = HOUR_MS, trafficAmount = '200000') => {
    const r = await l.client.ok<{ buyTrafficRequest: string }>(
      [validator],
      [
        exercise(AMULET.WalletAppInstall, install, 'WalletAppInstall_CreateBuyTrafficRequest', {
          memberId: l.engine.participantMember,
          synchronizerId: l.engine.synchronizerId,
          migrationId: '0',
          trafficAmount,
          expiresAt: l.at(expiresInMs),
          trackingId,
        }),
      ],
      [],
      [l.alice],
    );
    return r.result.buyTrafficRequest;
  };
  const batch = (requestCid: string, inputs: string[]) => {
    const c = l.ctx();
    return l.client.submit(
      [validator],
      [
        exercise(AMULET.WalletAppInstall, install, 'WalletAppInstall_ExecuteBatch', {
          context: { amuletRules: c.amuletRulesCid, context: { openMiningRound: c.openRoundCid, issuingMiningRounds: [], validatorRights: [], featuredAppRight: null } },
          inputs: inputs.map((cid) => ({ tag: 'InputAmulet', value: cid })),
          operations: [{ tag: 'CO_CompleteBuyTrafficRequest', value: { trafficRequestCid: requestCid } }],
        }),
      ],
      c.disclosed.slice(0, 2),
      [l.alice],
    );
  };
  return { l, validator, install, create, batch };
}

describe('BuyTrafficRequest', () => {
  it('is created by the validator for the user (signatory the user) and completed from the user’s amulets', async () => {
    const { l, create, batch } = world();
    const cid = await create('t1');
    const c = l.engine.contracts.get(cid)!;
    expect(c.templateId).toEqual(BuyTrafficRequestId);
    expect(c.signatories).toEqual([l.alice]);
    expect(c.payload).toEqual({
      dso: l.dso,
      endUserParty: l.alice,
      expiresAt: l.at(HOUR_MS),
      trackingId: 't1',
      trafficAmount: '200000',
      memberId: l.engine.participantMember,
      synchronizerId: l.engine.synchronizerId,
      migrationId: '0',
    });
    const funds = l.tap(l.alice, '700');
    const r = await batch(cid, [funds]);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const events = r.transaction.events;
    expect(trace(events).slice(0, 3)).toEqual([
      'exercise WalletAppInstall.WalletAppInstall_ExecuteBatch',
      'consume BuyTrafficRequest.BuyTrafficRequest_Complete',
      'exercise AmuletRules.AmuletRules_BuyMemberTraffic',
    ]);
    const outcome = (exercisedOf(events[0]).exerciseResult as ExecuteBatchResult<{ _1: string; _2: unknown }>).outcomes[0]!;
    expect(outcome.tag).toBe('COO_CompleteBuyTrafficRequest');
    expect(outcome.value._2).toEqual({ trackingId: 't1', endUserParty: l.alice });
    expect(l.engine.contracts.get(outcome.value._1)!.payload).toMatchObject({ memberId: l.engine.participantMember, totalPurchased: '200000', amuletSpent: '666.8000000000' });
    expect(await l.client.balance(l.alice)).toBe('33.2000000000');
    expect(l.engine.contracts.getActive(cid)).toBeUndefined();
  });

  it('cannot be completed or cancelled once expired, nor expired before', async () => {
    const { l, validator, install, create, batch } = world();
    const cid = await create('t2', 1000);
    const expire = () => l.client.submit([validator], [exercise(AMULET.WalletAppInstall, install, 'WalletAppInstall_BuyTrafficRequest_Expire', { requestCid: cid })], [], [l.alice]);
    const early = await expire();
    expect(early.error.cause).toContain("The requirement 'Contract has expired' was not met.");
    l.clock.advance(2000);
    const late = await batch(cid, [l.tap(l.alice, '700')]);
    expect(late.error.cause).toContain("The requirement 'Contract has not expired' was not met.");
    const cancel = await l.client.submit([validator], [exercise(AMULET.WalletAppInstall, install, 'WalletAppInstall_BuyTrafficRequest_Cancel', { requestCid: cid, reason: 'x' })], [], [l.alice]);
    expect(cancel.error.cause).toContain("The requirement 'Contract has not expired' was not met.");
    const expired = await expire();
    expect(expired.status, JSON.stringify(expired.body)).toBe(200);
    expect(exercisedOf(expired.transaction.events[0]).exerciseResult).toEqual({ trackingInfo: { trackingId: 't2', endUserParty: l.alice } });
  });

  it('cancelled with a reason before it expires', async () => {
    const { l, validator, install, create } = world();
    const cid = await create('t3');
    const r = await l.client.ok([validator], [exercise(AMULET.WalletAppInstall, install, 'WalletAppInstall_BuyTrafficRequest_Cancel', { requestCid: cid, reason: 'no' })], [], [l.alice]);
    expect(r.result).toEqual({ trackingInfo: { trackingId: 't3', endUserParty: l.alice } });
    expect(l.engine.contracts.getActive(cid)).toBeUndefined();
  });
});

