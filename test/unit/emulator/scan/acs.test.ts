/**
 * ACS and holdings pages (scan.yaml `getAcsSnapshotAtV1`, `getHoldingsStateAtV1` and v2): ordering, filters, page sizes,
 * the v1 int64 and v2 opaque tokens (set only on a full page, checked against the snapshot's
 * row range), holdings post-filtered by owner, and the exact 400 messages.
 */
import { describe, expect, it } from 'vitest';
import { buildWorld, IDS, json, type AcsPage, type CreatedEvent, type ScanError, type World } from './fixture.js';

const T = '2026-05-01T03:00:00Z';
const req = (extra: Record<string, unknown> = {}) => ({ migration_id: 0, record_time: T, page_size: 100, ...extra });
const cids = (body: { created_events: Array<{ contract_id: string }> }) => body.created_events.map((e) => e.contract_id);

/** Rules, a round, 5 amulets of alice created in one transaction (same created_at), bob's, a note. */
function world(): World & { aliceAmulets: string[]; rules: string; round: string; bobAmulet: string } {
  const w = buildWorld({ start: '2026-05-01T01:00:00Z' });
  const rules = w.amuletRules();
  w.clock.advance(1000);
  const round = w.openRound(1);
  w.clock.advance(1000);
  const tx = w.submit(
    [w.dso, w.alice],
    [1, 2, 3, 4, 5].map((i) => ({ template: IDS.Amulet, createArguments: { dso: w.dso, owner: w.alice, amount: { initialAmount: `${i}.0000000000`, createdAt: { number: '1' }, ratePerRound: { rate: '0.0038051800' } } } })),
  );
  const aliceAmulets = tx.nodes.map((n) => (n.kind === 'create' ? n.contract.contractId : ''));
  w.clock.advance(1000);
  const bobAmulet = w.amulet(w.bob, '9.0000000000');
  w.create(IDS.Other, { owner: w.alice, text: 'not for the DSO' }, [w.alice]);
  w.clock.set('2026-05-01T04:00:00Z');
  return Object.assign(w, { aliceAmulets, rules, round, bobAmulet });
}

describe('ACS pages', () => {
  it('lists the DSO-visible ACS ordered by created_at, then contract id', async () => {
    const w = world();
    const r = await json<AcsPage>(w.post('/api/scan/v1/state/acs', req()));
    expect(r.status).toBe(200);
    expect(cids(r.body)).toEqual([w.rules, w.round, ...[...w.aliceAmulets].sort(), w.bobAmulet]);
    expect(r.body.next_page_token).toBeUndefined();
    const ac = r.body.created_events[0]!;
    expect(Object.keys(ac)).toEqual(['created_in_update_id', 'contract_id', 'template_id', 'package_name', 'create_arguments', 'created_at', 'signatories', 'observers']);
    expect(ac.template_id).toMatch(/^[0-9a-f]{64}:Splice\.AmuletRules:AmuletRules$/);
    expect(ac.package_name).toBe('splice-amulet');
    expect(ac.created_at).toBe('2026-05-01T01:00:00Z');
    expect(r.body.created_events[3]!.signatories).toEqual([w.dso, w.alice].sort());
  });

  it('filters by stakeholder party and by package_name:module:entity', async () => {
    const w = world();
    expect(cids((await json<AcsPage>(w.post('/api/scan/v1/state/acs', req({ party_ids: [w.bob] })))).body)).toEqual([w.bobAmulet]);
    const byTemplate = await json<AcsPage>(w.post('/api/scan/v1/state/acs', req({ templates: ['splice-amulet:Splice.Round:OpenMiningRound', 'splice-amulet:Splice.AmuletRules:AmuletRules'] })));
    expect(cids(byTemplate.body)).toEqual([w.rules, w.round]);
    // the filter is by package NAME: a package id matches nothing
    const byPkgId = await json<AcsPage>(w.post('/api/scan/v1/state/acs', req({ templates: [`${IDS.Amulet.packageId}:Splice.Amulet:Amulet`] })));
    expect(cids(byPkgId.body)).toEqual([]);
  });

  it('pages with an int64 row-id token set only on a full page (v1)', async () => {
    const w = world(); // 8 DSO-visible contracts
    const seen: string[] = [];
    const tokens: number[] = [];
    let after: number | undefined;
    for (;;) {
      const r = await json<AcsPage>(w.post('/api/scan/v1/state/acs', req({ page_size: 4, ...(after !== undefined ? { after } : {}) })));
      expect(r.status).toBe(200);
      seen.push(...cids(r.body));
      if (r.body.next_page_token === undefined) {
        expect(r.body.created_events).toEqual([]); // the exactly-full last page had a token; this one is empty
        break;
      }
      expect(typeof r.body.next_page_token).toBe('number');
      tokens.push(r.body.next_page_token);
      after = r.body.next_page_token;
    }
    expect(tokens).toHaveLength(2);
    expect(seen).toEqual(cids((await json<AcsPage>(w.post('/api/scan/v1/state/acs', req()))).body));
    // a short last page carries no token
    const short = await json<AcsPage>(w.post('/api/scan/v1/state/acs', req({ page_size: 5, after: tokens[0] })));
    expect(short.body.created_events).toHaveLength(4);
    expect(short.body.next_page_token).toBeUndefined();
  });

  it('checks the v1 token against the snapshot row range', async () => {
    const w = world();
    const s = w.scan.store.snapshotAt(BigInt(Date.parse(T)) * 1000n)!;
    expect(s.lastRowId - s.firstRowId + 1).toBe(8);
    expect(await json(w.post('/api/scan/v1/state/acs', req({ after: s.lastRowId + 1 })))).toEqual({
      status: 400,
      body: { error: `Invalid after token, outside of snapshot range (${s.firstRowId} to ${s.lastRowId}).` },
    });
    expect((await json<AcsPage>(w.post('/api/scan/v1/state/acs', req({ after: s.lastRowId })))).body.created_events).toEqual([]);
    // row ids are global: a token of the first snapshot is outside the second one's range
    w.clock.set('2026-05-01T06:00:00Z');
    const first = await json<AcsPage>(w.post('/api/scan/v1/state/acs', req({ page_size: 2 })));
    const r = await json<ScanError>(w.post('/api/scan/v1/state/acs', req({ record_time: '2026-05-01T06:00:00Z', after: first.body.next_page_token })));
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/^Invalid after token, outside of snapshot range \(9 to 16\)\.$/);
  });

  it('pages with an opaque string token in v2, and rejects a token it did not issue', async () => {
    const w = world();
    const p1 = await json<AcsPage<string>>(w.post('/api/scan/v2/state/acs', req({ page_size: 3 })));
    expect(typeof p1.body.next_page_token).toBe('string');
    const p2 = await json<AcsPage<string>>(w.post('/api/scan/v2/state/acs', req({ page_size: 3, after: p1.body.next_page_token })));
    const v1 = await json<AcsPage>(w.post('/api/scan/v1/state/acs', req({ page_size: 6 })));
    expect([...cids(p1.body), ...cids(p2.body)]).toEqual(cids(v1.body));
    expect(await json(w.post('/api/scan/v2/state/acs', req({ after: 'not a token' })))).toEqual({ status: 400, body: { error: 'Invalid pagination token: not a token' } });
    const v1Number = await json<ScanError>(w.post('/api/scan/v2/state/acs', req({ after: 3 })));
    expect(v1Number.status).toBe(400);
    expect(v1Number.body.error).toBe("The request content was malformed:\nDecodingFailure at .after: Got value '3' with wrong type, expecting string");
    const outside = Buffer.from(JSON.stringify({ row_id: 999 })).toString('base64');
    expect((await json<ScanError>(w.post('/api/scan/v2/state/acs', req({ after: outside })))).body.error).toBe('Invalid after token, outside of snapshot range (1 to 8).');
  });

  it('caps v2 request arrays at 1000 items', async () => {
    const w = world();
    const many = Array.from({ length: 1001 }, (_, i) => `p${i}::1220ab`);
    expect(await json(w.post('/api/scan/v2/state/acs', req({ party_ids: many })))).toEqual({
      status: 400,
      body: { error: "Expected 'party_ids' to contain at most 1000 items, but contained 1001." },
    });
    expect((await json<ScanError>(w.post('/api/scan/v2/state/acs', req({ templates: many.map(() => 'a:b:c') })))).body.error).toBe(
      "Expected 'templates' to contain at most 1000 items, but contained 1001.",
    );
    expect((await json(w.post('/api/scan/v2/holdings/state', { ...req(), owner_party_ids: many })))).toEqual({
      status: 400,
      body: { error: "Expected 'owner_party_ids' to contain at most 1000 items, but contained 1001." },
    });
    expect((await json(w.post('/api/scan/v2/state/acs', req({ party_ids: many.slice(0, 1000) })))).status).toBe(200);
  });

  it('answers bad page sizes, templates, parties and bodies with scan 400s', async () => {
    const w = world();
    const err = async (body: unknown, path = '/api/scan/v1/state/acs') => json(w.post(path, body));
    expect(await err(req({ page_size: 0 }))).toEqual({ status: 400, body: { error: 'Limit must be at least 1.' } });
    expect(await err(req({ page_size: 1001 }))).toEqual({ status: 400, body: { error: 'Exceeded limit maximum (1001 > 1000).' } });
    expect((await err(req({ page_size: 1000 }))).status).toBe(200);
    for (const t of ['splice-amulet:Splice.Amulet', 'a:b:c:d', 'splice-amulet:Splice.Amulet:Amulet:', '']) {
      const r = await err(req({ templates: [t] }));
      if (t === 'splice-amulet:Splice.Amulet:Amulet:') {
        expect(r.status, t).toBe(200); // Java's split drops the trailing empty part
      } else {
        expect(r, t).toEqual({ status: 400, body: { error: "Malformed template_id, expected 'package_name:module_name:entity_name'" } });
      }
    }
    expect(await err(req({ party_ids: ['alice'] }))).toEqual({ status: 400, body: { error: 'Invalid unique identifier `alice` with missing namespace.' } });
    expect(await err({ migration_id: 0, record_time: T })).toEqual({
      status: 400,
      body: { error: 'The request content was malformed:\nDecodingFailure at .page_size: Missing required field' },
    });
    expect(await err(req({ record_time: 'now' }))).toEqual({
      status: 400,
      body: { error: "The request content was malformed:\nDecodingFailure at .record_time: Text 'now' could not be parsed at index 0" },
    });
    expect((await err('{not json')).status).toBe(400);
    expect((await err('')).body).toEqual({ error: 'The request content was malformed:\nexhausted input' });
    // validation order of the exact query: page size before the missing snapshot
    expect((await err(req({ record_time: '2026-05-01T03:30:00Z', page_size: 0 }))).body).toEqual({ error: 'Limit must be at least 1.' });
  });

  it('serves the deprecated v0 with CreatedEvents and legacy #-event ids', async () => {
    const w = world();
    const r = await json<AcsPage<number, CreatedEvent>>(w.post('/api/scan/v0/state/acs', req({ page_size: 1 })));
    expect(r.status).toBe(200);
    const ev = r.body.created_events[0]!;
    expect(ev.event_type).toBe('created_event');
    expect(ev.event_id).toMatch(/^#1220[0-9a-f]{64}:0$/);
    expect(ev.contract_id).toBe(w.rules);
    expect(typeof r.body.next_page_token).toBe('number');
  });
});

describe('holdings', () => {
  it('returns the owners Amulet and LockedAmulet contracts', async () => {
    const w = world();
    const r = await json<AcsPage>(w.post('/api/scan/v1/holdings/state', { ...req(), owner_party_ids: [w.alice, w.bob] }));
    expect(cids(r.body)).toEqual([...[...w.aliceAmulets].sort(), w.bobAmulet]);
  });

  it('post-filters by owner: a page may be short, even empty, and still carry a token', async () => {
    const w = buildWorld({ start: '2026-05-01T01:00:00Z' });
    // bob's LockedAmulet with alice as lock holder: alice is a stakeholder but not the owner
    const lockedForBob = w.create(
      IDS.LockedAmulet,
      {
        amulet: { dso: w.dso, owner: w.bob, amount: { initialAmount: '3.0000000000', createdAt: { number: '1' }, ratePerRound: { rate: '0.0038051800' } } },
        lock: { holders: [w.alice], expiresAt: '2026-06-01T00:00:00Z', optContext: null },
      },
      [w.dso, w.bob, w.alice],
    );
    w.clock.advance(1);
    const mine = w.amulet(w.alice, '1.0000000000');
    w.clock.advance(1);
    const myLocked = w.lockedAmulet(w.alice, '2.0000000000');
    w.clock.set('2026-05-01T03:00:00Z');

    const body = (after?: number) => ({ ...req({ page_size: 1 }), owner_party_ids: [w.alice], ...(after !== undefined ? { after } : {}) });
    const p1 = await json<AcsPage>(w.post('/api/scan/v1/holdings/state', body()));
    expect(p1.body.created_events).toEqual([]); // bob's locked amulet was the page's row
    expect(typeof p1.body.next_page_token).toBe('number');
    const p2 = await json<AcsPage>(w.post('/api/scan/v1/holdings/state', body(p1.body.next_page_token)));
    expect(cids(p2.body)).toEqual([mine]);
    const p3 = await json<AcsPage>(w.post('/api/scan/v1/holdings/state', body(p2.body.next_page_token)));
    expect(cids(p3.body)).toEqual([myLocked]);
    const p4 = await json<AcsPage>(w.post('/api/scan/v1/holdings/state', body(p3.body.next_page_token)));
    expect(p4.body).toEqual({ record_time: T, migration_id: 0, created_events: [] });
    // bob sees his locked amulet
    expect(cids((await json<AcsPage<string>>(w.post('/api/scan/v2/holdings/state', { ...req(), owner_party_ids: [w.bob] }))).body)).toEqual([lockedForBob]);
  });

  it('needs at least one owner', async () => {
    const w = world();
    for (const path of ['/api/scan/v1/holdings/state', '/api/scan/v2/holdings/state']) {
      expect(await json(w.post(path, { ...req(), owner_party_ids: [] }))).toEqual({
        status: 400,
        body: { error: "Expected 'ownerPartyIds' to contain at least one item, but contained none." },
      });
    }
  });

  it('pages v2 holdings with string tokens', async () => {
    const w = world();
    const p1 = await json<AcsPage<string>>(w.post('/api/scan/v2/holdings/state', { ...req({ page_size: 5 }), owner_party_ids: [w.alice] }));
    expect(cids(p1.body)).toEqual([...w.aliceAmulets].sort());
    expect(typeof p1.body.next_page_token).toBe('string');
    const p2 = await json<AcsPage<string>>(w.post('/api/scan/v2/holdings/state', { ...req({ page_size: 5, after: p1.body.next_page_token }), owner_party_ids: [w.alice] }));
    expect(p2.body.created_events).toEqual([]);
    expect(p2.body.next_page_token).toBeUndefined();
  });
});
