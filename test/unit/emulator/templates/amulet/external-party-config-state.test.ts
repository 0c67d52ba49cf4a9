/**
 * ExternalPartyConfigState (splice-amulet 0.1.22): bootstrapped with the Amulet world, advanced by
 * the DSO automation (AmuletRules_UpdateExternalPartyConfigStates) with the clock, checked by the
 * Daml preconditions, and read by the token-standard choices through `external-party-config-state`.
 */
import { describe, expect, it } from 'vitest';
import {
  externalPartyConfigStates,
  openMiningRounds,
  updateExternalPartyConfigStates,
  EXTERNAL_PARTY_CONFIG_STATE_KEY,
} from '../../../../../src/emulator/templates/amulet/index.js';
import type { AmuletTransferInstructionPayload } from '../../../../../src/emulator/templates/amulet/values.js';
import { AMULET, IFACE, amuletLedger, exercise, trace, transferArg, type AmuletLedger } from './fixture.js';
import type { CompletedTransfer, PendingTransfer, TransferInstructionResult } from '../wire.js';

/** A transfer requested a second ago, valid for an hour. */
const SHORT_WINDOW = (l: AmuletLedger) => ({ requestedAt: l.at(-1000), executeBefore: l.at(3600_000) });

const DAY_MS = 24 * 3600_000;

describe('ExternalPartyConfigState', () => {
  it('the world starts with two, one tick (24 h) apart, from the oldest and the latest usable round', () => {
    const l = amuletLedger();
    const states = externalPartyConfigStates(l.engine, l.dso);
    expect(states.map((s) => s.payload.targetArchiveAfter)).toEqual(['2026-05-02T10:00:00Z', '2026-05-03T10:00:00Z']);
    const rounds = openMiningRounds(l.engine, l.dso);
    expect(states[0]!.payload).toEqual({
      dso: l.dso,
      holdingFeesOpenRoundNumber: { number: '0' },
      amuletPrice: rounds[1]!.payload.amuletPrice,
      transferConfig: {
        holdingFee: { rate: '0.0000190259' },
        maxNumInputs: '100',
        maxNumOutputs: '100',
        maxNumLockHolders: '50',
        tokenStandardMaxTTL: null,
      },
      targetArchiveAfter: '2026-05-02T10:00:00Z',
      rewardCalculationVersion: null,
    });
    // nothing to do before the older one's targetArchiveAfter
    expect(updateExternalPartyConfigStates(l.engine, l.dso)).toBe(0);
  });

  it('the automation replaces the older one once its targetArchiveAfter has passed', async () => {
    const l = amuletLedger();
    const [old0, old1] = externalPartyConfigStates(l.engine, l.dso);
    l.clock.advance(DAY_MS + 1000);
    const end = await l.client.ledgerEnd();
    l.tap(l.alice, '1'); // any submission runs the automations first
    const states = externalPartyConfigStates(l.engine, l.dso);
    expect(states.map((s) => s.contractId)).toEqual([old1!.contractId, expect.any(String)]);
    expect(states.map((s) => s.contractId)).not.toContain(old0!.contractId);
    expect(states[1]!.payload.targetArchiveAfter).toBe('2026-05-04T10:00:01Z');
    // the oldest open round after the rounds advanced
    expect(states[1]!.payload.holdingFeesOpenRoundNumber).toEqual(openMiningRounds(l.engine, l.dso)[0]!.payload.round);
    const traces = (await l.client.updates(l.dso, end)).map((u) => trace(u.events));
    expect(traces).toContainEqual([
      'exercise AmuletRules.AmuletRules_UpdateExternalPartyConfigStates',
      'consume ExternalPartyConfigState.Archive',
      'create ExternalPartyConfigState',
    ]);
  });

  it('AmuletRules_UpdateExternalPartyConfigStates fails before the older state is due', async () => {
    const l = amuletLedger({ automateRounds: false });
    const [s0, s1] = externalPartyConfigStates(l.engine, l.dso);
    const rounds = openMiningRounds(l.engine, l.dso);
    const r = await l.client.submit(
      [l.dso],
      [
        exercise(AMULET.AmuletRules, l.world.amuletRulesCid, 'AmuletRules_UpdateExternalPartyConfigStates', {
          externalPartyConfigStateCid0: s0!.contractId,
          externalPartyConfigStateCid1: s1!.contractId,
          openMiningRoundTriple: { round0Cid: rounds[0]!.contractId, round1Cid: rounds[1]!.contractId, round2Cid: rounds[2]!.contractId },
        }),
      ],
    );
    expect(r.status).toBe(400);
    expect(r.error.cause).toContain('ExternalPartyConfigState0.targetArchiveAfter');
    // nothing was archived
    expect(externalPartyConfigStates(l.engine, l.dso).map((s) => s.contractId)).toEqual([s0!.contractId, s1!.contractId]);
  });

  it('a two-step transfer accepted with only the config state in its context: no AmuletRules, holdings in its round', async () => {
    const l = amuletLedger();
    const h = l.tap(l.alice, '10');
    const c = l.ctx();
    const offered = await l.client.ok<TransferInstructionResult<PendingTransfer>>(
      [l.alice],
      [exercise(IFACE.TransferFactoryV1, c.externalPartyAmuletRulesCid, 'TransferFactory_Transfer', transferArg(l, l.alice, l.bob, '4', [h], c.context, SHORT_WINDOW(l)))],
      c.disclosed,
    );
    const instr = offered.result.output.value.transferInstructionCid;
    const locked = (l.engine.contracts.get(instr)!.payload as AmuletTransferInstructionPayload).lockedAmulet;
    const state = externalPartyConfigStates(l.engine, l.dso)[1]!;
    const context = { values: { [EXTERNAL_PARTY_CONFIG_STATE_KEY]: { tag: 'AV_ContractId', value: state.contractId }, 'expire-lock': { tag: 'AV_Bool', value: true } } };
    const accepted = await l.client.ok<TransferInstructionResult<CompletedTransfer>>(
      [l.bob],
      [exercise(IFACE.TransferInstructionV1, instr, 'TransferInstruction_Accept', { extraArgs: { context, meta: { values: {} } } })],
      [l.disclose(state.contractId), l.disclose(locked)],
    );
    expect(trace(accepted.events)).not.toContain('exercise AmuletRules.AmuletRules_Transfer');
    expect(trace(accepted.events)).toContain('consume LockedAmulet.LockedAmulet_UnlockV2');
    const received = accepted.result.output.value.receiverHoldingCids;
    expect(received).toHaveLength(1);
    expect(l.engine.contracts.get(received[0]!)!.payload).toMatchObject({
      owner: l.bob,
      amount: { initialAmount: '4.0000000000', createdAt: state.payload.holdingFeesOpenRoundNumber },
    });
    expect(await l.client.balance(l.bob)).toBe('4.0000000000');
  });

  it('a contract of another template under external-party-config-state is rejected', async () => {
    const l = amuletLedger();
    const h = l.tap(l.alice, '3');
    const c = l.ctx();
    const bogus = { values: { ...c.context.values, [EXTERNAL_PARTY_CONFIG_STATE_KEY]: { tag: 'AV_ContractId', value: c.openRoundCid } } };
    const r = await l.client.submit(
      [l.alice, l.bob],
      [
        exercise(IFACE.TransferFactoryV1, c.externalPartyAmuletRulesCid, 'TransferFactory_Transfer', transferArg(l, l.alice, l.bob, '1', [h], bogus, SHORT_WINDOW(l))),
      ],
      c.disclosed,
    );
    // an OpenMiningRound where a config state is expected: the fetch fails on its template
    expect(r.status).not.toBe(200);
    expect(await l.client.balance(l.bob)).toBe('0.0000000000');
  });
});
