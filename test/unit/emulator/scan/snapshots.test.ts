/**
 * ACS snapshots of the emulated scan (Splice `AcsSnapshotStore.scala`, `AcsSnapshotTriggerBase.scala`): the 3-hour UTC grid of
 * the emulated clock, what a snapshot holds, exact / at_or_before matching with scan's 404s, the
 * snapshot-timestamp lookups, and forced snapshots.
 */
import { describe, expect, it } from 'vitest';
import { buildWorld, IDS, json, type AcsPage, type UpdateHistory } from './fixture.js';

const acs = (record_time: string, extra: Record<string, unknown> = {}) => ({ migration_id: 0, record_time, page_size: 100, ...extra });
const ids = (body: { created_events: Array<{ contract_id: string }> }) => body.created_events.map((e) => e.contract_id);

describe('snapshot grid', () => {
  it('has no snapshot before the first update, nor until the first boundary after it', async () => {
    const w = buildWorld({ start: '2026-05-01T01:00:00Z' });
    expect(await json(w.get('/api/scan/v0/state/acs/snapshot-timestamp?before=2026-05-09T00:00:00Z&migration_id=0'))).toEqual({
      status: 404,
      body: { error: 'No snapshots found before 2026-05-09T00:00Z' },
    });
    w.clock.set('2026-05-01T09:00:00Z'); // time alone makes no snapshot: there is no update yet
    expect((await json(w.get('/api/scan/v0/state/acs/snapshot-timestamp?before=2026-05-09T00:00:00Z&migration_id=0'))).status).toBe(404);

    w.clock.set('2026-05-01T10:15:00Z');
    w.amuletRules();
    w.clock.set('2026-05-01T11:59:59.999999Z');
    expect((await json(w.get('/api/scan/v0/state/acs/snapshot-timestamp?before=2026-05-09T00:00:00Z&migration_id=0'))).status).toBe(404);
    w.clock.set('2026-05-01T12:00:00Z'); // the boundary is reached: the 12:00 snapshot exists
    expect(await json(w.get('/api/scan/v0/state/acs/snapshot-timestamp?before=2026-05-09T00:00:00Z&migration_id=0'))).toEqual({
      status: 200,
      body: { record_time: '2026-05-01T12:00:00Z' },
    });
    w.clock.set('2026-05-02T01:00:00Z'); // 15:00, 18:00, 21:00, 00:00 follow
    expect((await json(w.get('/api/scan/v0/state/acs/snapshot-timestamp?before=2026-05-01T23:00:00Z&migration_id=0'))).body).toEqual({
      record_time: '2026-05-01T21:00:00Z',
    });
    expect(w.scan.store.listSnapshots().map((s) => s.recordTimeMicros)).toEqual(
      ['12', '15', '18', '21'].map((h) => BigInt(Date.parse(`2026-05-01T${h}:00:00Z`)) * 1000n).concat(BigInt(Date.parse('2026-05-02T00:00:00Z')) * 1000n),
    );
  });

  it('starts after the hour bucket of the first update (computeSnapshotTimeAfter): 03:00 → 06:00', async () => {
    const w = buildWorld({ start: '2026-05-01T03:00:00Z' });
    w.amuletRules();
    w.clock.set('2026-05-01T07:00:00Z');
    expect((await json(w.get('/api/scan/v0/state/acs/snapshot-timestamp?before=2026-05-01T07:00:00Z&migration_id=0'))).body).toEqual({
      record_time: '2026-05-01T06:00:00Z',
    });
    expect(w.scan.store.listSnapshots()).toHaveLength(1);
  });

  it('holds the contracts active after every update with record time <= the boundary', async () => {
    const w = buildWorld({ start: '2026-05-01T01:00:00Z' });
    w.amuletRules();
    const a1 = w.amulet(w.alice, '10.0000000000');
    w.clock.set('2026-05-01T03:00:00Z');
    const a2 = w.amulet(w.alice, '20.0000000000'); // at the boundary: included
    w.clock.set('2026-05-01T04:00:00Z');
    const a3 = w.amulet(w.alice, '30.0000000000'); // after: not in the 03:00 snapshot
    w.archive(IDS.Amulet, a1, [w.dso, w.alice]); // archived after 03:00: still in it
    w.clock.set('2026-05-01T06:00:00Z');

    const at3 = await json<AcsPage>(w.post('/api/scan/v1/state/acs', acs('2026-05-01T03:00:00Z', { templates: ['splice-amulet:Splice.Amulet:Amulet'] })));
    expect(at3.status).toBe(200);
    expect(at3.body.record_time).toBe('2026-05-01T03:00:00Z');
    expect(ids(at3.body)).toEqual([a1, a2]);
    const at6 = await json<AcsPage>(w.post('/api/scan/v1/state/acs', acs('2026-05-01T06:00:00Z', { templates: ['splice-amulet:Splice.Amulet:Amulet'] })));
    expect(ids(at6.body)).toEqual([a2, a3]);
  });

  it('a snapshot taken never changes: an update committed at the boundary instant afterwards comes after it', async () => {
    const w = buildWorld({ start: '2026-05-01T02:00:00Z' });
    w.amuletRules();
    w.clock.set('2026-05-01T03:00:00Z');
    const before = await json(w.post('/api/scan/v1/state/acs', acs('2026-05-01T03:00:00Z')));
    const late = w.amulet(w.alice, '1.0000000000'); // ledger record time 03:00:00 exactly
    const after = await json(w.post('/api/scan/v1/state/acs', acs('2026-05-01T03:00:00Z')));
    expect(after.body).toEqual(before.body);
    const upd = await json<UpdateHistory>(w.post('/api/scan/v2/updates', { page_size: 10 }));
    const lateTx = upd.body.transactions.at(-1)!;
    expect(Object.values(lateTx.events_by_id).map((e) => e.contract_id)).toEqual([late]);
    expect(lateTx.record_time).toBe('2026-05-01T03:00:00.000001Z');
  });
});

describe('record_time_match', () => {
  async function world() {
    const w = buildWorld({ start: '2026-05-01T01:00:00Z' });
    w.amuletRules();
    w.clock.set('2026-05-01T07:00:00Z');
    return w;
  }

  it('exact (the default) must hit a snapshot to the microsecond', async () => {
    const w = await world();
    expect((await json(w.post('/api/scan/v1/state/acs', acs('2026-05-01T03:00:00Z')))).status).toBe(200);
    expect((await json(w.post('/api/scan/v1/state/acs', acs('2026-05-01T05:00:00+02:00', { record_time_match: 'exact' })))).status).toBe(200);
    expect(await json(w.post('/api/scan/v1/state/acs', acs('2026-05-01T03:00:00.000001Z')))).toEqual({
      status: 404,
      body: { error: 'Failed to find ACS snapshot for migration id 0 at 2026-05-01T03:00:00.000001Z' },
    });
    expect(await json(w.post('/api/scan/v1/state/acs', acs('2026-05-01T03:00:00Z', { migration_id: 1 })))).toEqual({
      status: 404,
      body: { error: 'Failed to find ACS snapshot for migration id 1 at 2026-05-01T03:00:00Z' },
    });
  });

  it('at_or_before resolves to the latest snapshot <= record_time and answers with its time', async () => {
    const w = await world();
    const r = await json<AcsPage>(w.post('/api/scan/v1/state/acs', acs('2026-05-01T05:59:59.999999Z', { record_time_match: 'at_or_before' })));
    expect(r.status).toBe(200);
    expect(r.body.record_time).toBe('2026-05-01T03:00:00Z');
    const exact = await json<AcsPage>(w.post('/api/scan/v1/state/acs', acs('2026-05-01T06:00:00Z', { record_time_match: 'at_or_before' })));
    expect(exact.body.record_time).toBe('2026-05-01T06:00:00Z');
    expect(await json(w.post('/api/scan/v1/state/acs', acs('2026-05-01T02:59:00+00:00', { record_time_match: 'at_or_before' })))).toEqual({
      status: 404,
      body: { error: 'No snapshots found before 2026-05-01T02:59Z' },
    });
    expect(
      await json(w.post('/api/scan/v1/holdings/state', { ...acs('2026-05-01T04:00:00Z', { record_time_match: 'at_or_before', migration_id: 3 }), owner_party_ids: [w.alice] })),
    ).toEqual({ status: 404, body: { error: 'No snapshots found before 2026-05-01T04:00Z' } });
  });
});

describe('snapshot-timestamp lookups', () => {
  it('before uses <=, after uses > (and any snapshot of a higher migration)', async () => {
    const w = buildWorld({ start: '2026-05-01T01:00:00Z' });
    w.amuletRules();
    w.clock.set('2026-05-01T07:00:00Z');
    const get = (q: string) => json(w.get(`/api/scan/v0/state/acs/snapshot-timestamp${q}`));
    expect((await get('?before=2026-05-01T03:00:00Z&migration_id=0')).body).toEqual({ record_time: '2026-05-01T03:00:00Z' });
    expect((await get('-after?after=2026-05-01T03:00:00Z&migration_id=0')).body).toEqual({ record_time: '2026-05-01T06:00:00Z' });
    expect((await get('-after?after=2026-05-01T02:00:00Z&migration_id=0')).body).toEqual({ record_time: '2026-05-01T03:00:00Z' });
    expect(await get('-after?after=2026-05-01T06:00:00Z&migration_id=0')).toEqual({ status: 404, body: { error: 'No snapshots found after 2026-05-01T06:00Z' } });
    // a lower migration id: scan unions "later in that migration" with "any in a higher one"
    expect((await get('-after?after=2030-01-01T00:00:00Z&migration_id=-1')).body).toEqual({ record_time: '2026-05-01T03:00:00Z' });
    expect(await get('?before=2026-05-01T07:00:00Z&migration_id=2')).toEqual({ status: 404, body: { error: 'No snapshots found before 2026-05-01T07:00Z' } });
  });

  it('answers bad or missing query parameters with akka-http rejections in scan JSON', async () => {
    const w = buildWorld();
    expect(await json(w.get('/api/scan/v0/state/acs/snapshot-timestamp?migration_id=0'))).toEqual({
      status: 400,
      body: { error: "Request is missing required query parameter 'before'" },
    });
    expect(await json(w.get('/api/scan/v0/state/acs/snapshot-timestamp?before=tomorrow&migration_id=0'))).toEqual({
      status: 400,
      body: { error: "The query parameter 'before' was malformed:\nText 'tomorrow' could not be parsed at index 0" },
    });
    expect(await json(w.get('/api/scan/v0/state/acs/snapshot-timestamp-after?after=2026-05-01T00:00:00Z&migration_id=zero'))).toEqual({
      status: 400,
      body: { error: "The query parameter 'migration_id' was malformed:\n'zero' is not a valid 64-bit signed integer value" },
    });
  });
});

describe('forced snapshots', () => {
  it('are taken at the record time of the latest update, idempotently, and hold everything up to it', async () => {
    const w = buildWorld({ start: '2026-05-01T01:00:00Z' });
    w.amuletRules();
    w.clock.advance(1500);
    const a = w.amulet(w.alice, '5.0000000000');
    w.clock.advance(60_000);
    const forced = await json<{ record_time: string; migration_id: number }>(w.post('/api/scan/v0/state/acs/force', ''));
    expect(forced).toEqual({ status: 200, body: { record_time: '2026-05-01T01:00:01.5Z', migration_id: 0 } });
    expect((await json(w.post('/api/scan/v0/state/acs/force', ''))).body).toEqual(forced.body);

    w.amulet(w.bob, '7.0000000000'); // later than the forced snapshot
    const snap = await json<AcsPage>(w.post('/api/scan/v1/holdings/state', { ...acs(forced.body.record_time), owner_party_ids: [w.alice, w.bob] }));
    expect(ids(snap.body)).toEqual([a]);
    expect((await json(w.get('/api/scan/v0/state/acs/snapshot-timestamp?before=2026-05-01T02:00:00Z&migration_id=0'))).body).toEqual({
      record_time: '2026-05-01T01:00:01.5Z',
    });
    // the grid goes on independently
    w.clock.set('2026-05-01T03:00:00Z');
    expect(w.scan.store.listSnapshots().map((s) => s.forced)).toEqual([true, false]);
  });

  it('are refused when disabled, and without AmuletRules', async () => {
    const off = buildWorld({ enableForcedSnapshots: false });
    off.amuletRules();
    expect(await json(off.post('/api/scan/v0/state/acs/force', ''))).toEqual({ status: 400, body: { error: 'Forced ACS snapshots are disabled.' } });
    const w = buildWorld();
    w.amulet(w.alice, '1.0000000000');
    expect(await json(w.post('/api/scan/v0/state/acs/force', ''))).toEqual({ status: 400, body: { error: 'No amulet rules.' } });
  });
});
