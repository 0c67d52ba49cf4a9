/**
 * The synchronizer's traffic metering (src/emulator/participant/traffic.ts): Canton's event cost
 * (size plus the recipients' read cost in parts per 10,000), the base rate that refills
 * linearly and pays first, extra traffic beyond it; and `paidTrafficCost` on the Ledger API's
 * transactions and completions once the Amulet world turns metering on.
 */
import { describe, expect, it } from 'vitest';
import { LedgerEngine } from '../../../../src/emulator/participant/engine.js';
import { REQUEST_OVERHEAD_BYTES, SequencerTraffic } from '../../../../src/emulator/participant/traffic.js';
import { createLedgerApiApp, ledgerApiRoutes } from '../../../../src/emulator/ledger-api/routes.js';
import type { ContractRecord } from '../../../../src/emulator/participant/types.js';
import { ManualClock } from '../../../../src/canton/clock.js';
import { seedAmuletWorld, tapAmulet } from '../../../../src/emulator/templates/amulet/index.js';

const params = { maxBaseTrafficAmount: 1000n, maxBaseTrafficAccumulationDurationMicros: 10_000_000n, readVsWriteScalingFactor: 4n, baseEventCost: 0n };

describe('SequencerTraffic', () => {
  it('costs nothing and reports no cost while traffic control is off', () => {
    const t = new SequencerTraffic();
    expect(t.enabled).toBe(false);
    expect(t.eventCost(5000n, 1n)).toBe(0n);
    expect(t.consume('PAR::p::1220', 100n, 0n)).toBeUndefined();
  });

  it('EventCostCalculator: size + size * recipients * factor / 10000 (integer), + baseEventCost', () => {
    const t = new SequencerTraffic();
    t.setParameters(params);
    expect(t.eventCost(10_000n, 1n)).toBe(10_004n);
    expect(t.eventCost(10_000n, 3n)).toBe(10_012n);
    expect(t.eventCost(2_499n, 1n)).toBe(2_499n); // 2499 * 4 / 10000 rounds down to 0
    t.setParameters({ ...params, baseEventCost: 50n });
    expect(t.eventCost(100n, 1n)).toBe(150n);
  });

  it('spends the base rate first, then extra traffic; the base rate refills linearly up to its maximum', () => {
    const t = new SequencerTraffic();
    t.setParameters(params);
    const m = 'PAR::p::1220';
    expect(t.state(m, 0n)).toMatchObject({ extraTrafficConsumed: 0n, baseTrafficRemainder: 1000n });
    expect(t.consume(m, 600n, 0n)).toBe(600n);
    expect(t.state(m, 0n)).toMatchObject({ extraTrafficConsumed: 0n, baseTrafficRemainder: 400n, lastConsumedCost: 600n });
    t.consume(m, 700n, 0n);
    expect(t.state(m, 0n)).toMatchObject({ extraTrafficConsumed: 300n, baseTrafficRemainder: 0n });
    // 2.5 s of a 10 s window refill a quarter of 1000 bytes
    expect(t.state(m, 2_500_000n).baseTrafficRemainder).toBe(250n);
    expect(t.state(m, 60_000_000n).baseTrafficRemainder).toBe(1000n);
    t.consume(m, 100n, 2_500_000n);
    expect(t.state(m, 2_500_000n)).toMatchObject({ extraTrafficConsumed: 300n, baseTrafficRemainder: 150n });
    // other members are metered apart
    expect(t.state('PAR::q::1220', 2_500_000n).extraTrafficConsumed).toBe(0n);
  });

  it('a request is its contract instances and exercise arguments plus a fixed overhead', () => {
    const t = new SequencerTraffic();
    const blob = Buffer.alloc(300).toString('base64');
    const c = { blob } as ContractRecord;
    expect(t.requestSize([], [c], [c, c])).toBe(REQUEST_OVERHEAD_BYTES + 900n);
  });
});

describe('paidTrafficCost on the Ledger API', () => {
  it('is null / 0 without metering, and the request cost once the Amulet world meters traffic', async () => {
    const clock = new ManualClock('2026-05-01T10:00:00Z');
    const engine = new LedgerEngine({ clock, seed: 'traffic' });
    const app = createLedgerApiApp({ engine }, ledgerApiRoutes);
    const { dso } = seedAmuletWorld(engine);
    expect(engine.traffic.enabled).toBe(true);
    const alice = engine.parties.allocate('alice').party;
    tapAmulet(engine, { dso, receiver: alice, amount: '10' }, { userId: 'tester' });
    const end = engine.ledgerEnd();
    const tx = engine.updates.range(end - 1, end)[0]!;
    expect(tx.paidTrafficCost).toBeGreaterThan(REQUEST_OVERHEAD_BYTES);
    const byId = async (party: string) => {
      const r = await app.request('/v2/updates/transaction-by-id', {
        method: 'POST',
        body: JSON.stringify({ updateId: tx.updateId, transactionFormat: { eventFormat: { filtersByParty: { [party]: { cumulative: [] } }, verbose: false }, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' } }),
      });
      expect(r.status).toBe(200);
      return ((await r.json()) as { transaction: { commandId: string; paidTrafficCost: number | null } }).transaction;
    };
    // alice submitted the tap: she sees the cost; the DSO (a stakeholder, not a submitter) does not
    expect((await byId(alice)).paidTrafficCost).toBe(Number(tx.paidTrafficCost));
    expect(await byId(dso)).toMatchObject({ commandId: '', paidTrafficCost: null });
    const completions = await app.request('/v2/commands/completions?stream_idle_timeout_ms=10', {
      method: 'POST',
      body: JSON.stringify({ userId: 'tester', parties: [alice], beginExclusive: 0 }),
    });
    const list = (await completions.json()) as Array<{ completionResponse: { Completion?: { value: { paidTrafficCost: number } } } }>;
    const paid = list.flatMap((c) => (c.completionResponse.Completion ? [c.completionResponse.Completion.value.paidTrafficCost] : []));
    expect(paid).toEqual([Number(tx.paidTrafficCost)]);
    // the participant's base rate paid for it
    const state = engine.traffic.state(engine.participantMember, clock.nowMicros());
    expect(state.extraTrafficConsumed).toBe(0n);
    expect(state.baseTrafficRemainder).toBeLessThan(400_000n);

    const plain = new LedgerEngine({ clock, seed: 'plain' });
    expect(plain.traffic.enabled).toBe(false);
  });
});
