/**
 * Scan's lookups (Splice scan.yaml and common-external.yaml): DSO info,
 * rounds, AmuletRules, amulet config per round, featured apps, transfer pre-approvals, bulk
 * storage, health, unknown routes.
 */
import { describe, expect, it } from 'vitest';
import { buildWorld, IDS, json, type AmuletRulesUpdate, type DsoInfo, type FeaturedAppRight, type FeaturedApps, type OpenAndIssuingMiningRounds, type ScanError, type TransferPreapprovalByParty } from './fixture.js';

describe('DSO and rounds', () => {
  it('serves the DSO party id and /v0/dso (latest round, AmuletRules, a synthetic DsoRules)', async () => {
    const w = buildWorld();
    expect(await json(w.get('/api/scan/v0/dso-party-id'))).toEqual({ status: 200, body: { dso_party_id: w.dso } });
    expect(await json(w.get('/api/scan/v0/dso'))).toEqual({ status: 404, body: { error: 'No active OpenMiningRound contract' } });
    w.openRound(1);
    expect(await json(w.get('/api/scan/v0/dso'))).toEqual({ status: 404, body: { error: 'No active AmuletRules contract' } });
    const rules = w.amuletRules();
    w.openRound(3);
    const r2 = w.openRound(2);
    const r = await json<DsoInfo>(w.get('/api/scan/v0/dso'));
    expect(r.status).toBe(200);
    expect(r.body.latest_mining_round.contract.payload.round).toEqual({ number: '3' });
    expect(r.body.latest_mining_round.domain_id).toBe(w.engine.synchronizerId);
    expect(r.body.amulet_rules.contract.contract_id).toBe(rules);
    expect(r.body.amulet_rules.contract.payload.configSchedule.initialValue.decentralizedSynchronizer.activeSynchronizer).toBe(w.engine.synchronizerId);
    expect(r.body.dso_rules.contract.template_id).toMatch(/^[0-9a-f]{64}:Splice\.DsoRules:DsoRules$/);
    expect(r.body).toMatchObject({ dso_party_id: w.dso, sv_party_id: w.dso, voting_threshold: 1, sv_node_states: [], initial_round: '0' });
    expect(r2).toBeTruthy();
  });

  it('lists open and issuing rounds as MaybeCachedContractWithStateMaps with a tick-based TTL', async () => {
    const w = buildWorld();
    const empty = await json(w.post('/api/scan/v0/open-and-issuing-mining-rounds', { cached_open_mining_round_contract_ids: [], cached_issuing_round_contract_ids: [] }));
    expect(empty).toEqual({ status: 200, body: { time_to_live_in_microseconds: 0, open_mining_rounds: {}, issuing_mining_rounds: {} } });
    const r1 = w.openRound(1);
    const r2 = w.openRound(2);
    const body = { cached_open_mining_round_contract_ids: [r1], cached_issuing_round_contract_ids: [] };
    const r = await json<OpenAndIssuingMiningRounds>(w.post('/api/scan/v0/open-and-issuing-mining-rounds', body));
    expect(r.status).toBe(200);
    expect(r.body.time_to_live_in_microseconds).toBe(600_000_000);
    expect(Object.keys(r.body.open_mining_rounds)).toEqual([r1, r2]);
    expect(r.body.open_mining_rounds[r1]).toEqual({ domain_id: w.engine.synchronizerId }); // cached: no contract
    expect(r.body.open_mining_rounds[r2]!.contract!.contract_id).toBe(r2);
    // an issuing round's TTL is half its window (targetClosesAt - opensAt)
    w.create(IDS.IssuingMiningRound, { dso: w.dso, round: { number: '0' }, opensAt: '2026-01-01T00:00:00Z', targetClosesAt: '2026-01-01T00:04:00Z' }, [w.dso]);
    expect((await json<OpenAndIssuingMiningRounds>(w.post('/api/scan/v0/open-and-issuing-mining-rounds', body))).body.time_to_live_in_microseconds).toBe(120_000_000);
    expect(await json(w.post('/api/scan/v0/open-and-issuing-mining-rounds', { cached_open_mining_round_contract_ids: [] }))).toEqual({
      status: 400,
      body: { error: 'The request content was malformed:\nDecodingFailure at .cached_issuing_round_contract_ids: Missing required field' },
    });
    const many = Array.from({ length: 1001 }, (_, i) => `00${i}`);
    expect((await json(w.post('/api/scan/v0/open-and-issuing-mining-rounds', { ...body, cached_issuing_round_contract_ids: many }))).body).toEqual({
      error: "Expected 'cached_issuing_round_contract_ids' to contain at most 1000 items, but contained 1001.",
    });
  });

  it('serves AmuletRules, leaving the contract out when the cached id is current', async () => {
    const w = buildWorld();
    expect(await json(w.post('/api/scan/v0/amulet-rules', {}))).toEqual({ status: 404, body: { error: 'No active AmuletRules contract' } });
    const rules = w.amuletRules();
    const full = await json<AmuletRulesUpdate>(w.post('/api/scan/v0/amulet-rules', {}));
    expect(full.body.amulet_rules_update.contract).toMatchObject({ contract_id: rules, template_id: expect.stringMatching(/:Splice\.AmuletRules:AmuletRules$/) });
    expect(Object.keys(full.body.amulet_rules_update.contract!)).toEqual(['template_id', 'contract_id', 'payload', 'created_event_blob', 'created_at']);
    expect(full.body.amulet_rules_update.contract!.created_event_blob).toBe(w.engine.contracts.get(rules)!.blob);
    expect((await json(w.post('/api/scan/v0/amulet-rules', { cached_amulet_rules_contract_id: rules }))).body).toEqual({
      amulet_rules_update: { domain_id: w.engine.synchronizerId },
    });
    expect((await json<AmuletRulesUpdate>(w.post('/api/scan/v0/amulet-rules', { cached_amulet_rules_contract_id: '00old' }))).body.amulet_rules_update.contract!.contract_id).toBe(rules);
  });

  it('reads the amulet config of a round from its OpenMiningRound, also after the round closed', async () => {
    const w = buildWorld();
    const r1 = w.openRound(1);
    w.archive(IDS.OpenMiningRound, r1, [w.dso]);
    expect(await json(w.get('/api/scan/v0/amulet-config-for-round?round=1'))).toEqual({
      status: 200,
      body: {
        amulet_create_fee: '0.0',
        holding_fee: '0.0000190259',
        lock_holder_fee: '0.005',
        transfer_fee: { initial: '0.01', steps: [{ amount: '100.0', rate: '0.001' }, { amount: '1000.0', rate: '0.0001' }] },
      },
    });
    expect(await json(w.get('/api/scan/v0/amulet-config-for-round?round=99'))).toEqual({ status: 404, body: { error: 'Round 99 not found' } });
    expect(await json(w.get('/api/scan/v0/amulet-config-for-round'))).toEqual({ status: 400, body: { error: "Request is missing required query parameter 'round'" } });
    expect((await json(w.get('/api/scan/v0/amulet-config-for-round?round=one'))).status).toBe(400);
  });
});

describe('featured apps and transfer pre-approvals', () => {
  it('lists and looks up FeaturedAppRights ({} rather than 404)', async () => {
    const w = buildWorld();
    const right = w.create(IDS.FeaturedAppRight, { dso: w.dso, provider: w.provider, activityWeight: null }, [w.dso]);
    expect((await json<FeaturedApps>(w.get('/api/scan/v0/featured-apps'))).body.featured_apps.map((c) => c.contract_id)).toEqual([right]);
    expect((await json<FeaturedAppRight>(w.get(`/api/scan/v0/featured-apps/${w.provider}`))).body.featured_app_right!.contract_id).toBe(right);
    expect(await json(w.get(`/api/scan/v0/featured-apps/${w.alice}`))).toEqual({ status: 200, body: {} });
    expect(await json(w.get('/api/scan/v0/featured-apps/alice'))).toEqual({ status: 400, body: { error: 'Invalid unique identifier `alice` with missing namespace.' } });
    expect((await json<FeaturedApps>(w.get(`/api/scan/v0/featured-apps/by-provider/${w.provider}`))).body.featured_apps).toHaveLength(1);
    expect((await json<FeaturedAppRight>(w.get(`/api/scan/v0/featured-apps/by-contract-id/${right}`))).body.featured_app_right!.payload).toEqual({
      dso: w.dso,
      provider: w.provider,
      activityWeight: null,
    });
    const rules = w.amuletRules();
    expect(await json(w.get(`/api/scan/v0/featured-apps/by-contract-id/${rules}`))).toEqual({ status: 200, body: {} }); // not a FeaturedAppRight
    expect(await json(w.get('/api/scan/v0/featured-apps/by-contract-id/00unknown'))).toEqual({ status: 200, body: {} });
    w.archive(IDS.FeaturedAppRight, right, [w.dso]);
    expect(await json(w.get(`/api/scan/v0/featured-apps/by-contract-id/${right}`))).toEqual({ status: 200, body: {} });
  });

  it('looks up a TransferPreapproval by receiver, 404 with the exact message', async () => {
    const w = buildWorld();
    const t = '2026-01-01T00:00:00Z';
    const pre = w.create(
      IDS.TransferPreapproval,
      { dso: w.dso, receiver: w.alice, provider: w.validator, validFrom: t, lastRenewedAt: t, expiresAt: '2026-04-01T00:00:00Z' },
      [w.dso, w.alice, w.validator],
    );
    const r = await json<TransferPreapprovalByParty>(w.get(`/api/scan/v0/transfer-preapprovals/by-party/${encodeURIComponent(w.alice)}`));
    expect(r.status).toBe(200);
    expect(r.body.transfer_preapproval.contract.contract_id).toBe(pre);
    expect(r.body.transfer_preapproval.domain_id).toBe(w.engine.synchronizerId);
    expect(await json(w.get(`/api/scan/v0/transfer-preapprovals/by-party/${w.bob}`))).toEqual({
      status: 404,
      body: { error: `No TransferPreapproval found for party: ${w.bob}` },
    });
    expect((await json(w.get('/api/scan/v0/transfer-preapprovals/by-party/bob'))).status).toBe(400);
  });
});

describe('bulk storage, health and routing', () => {
  it('answers bulk history with the real node-without-bulk-storage 400', async () => {
    const w = buildWorld();
    const body = { start_record_time: '2026-01-01T00:00:00Z', end_record_time: '2026-01-02T00:00:00Z', page_size: 10 };
    expect(await json(w.post('/api/scan/v0/history/bulk/updates', body))).toEqual({ status: 400, body: { error: 'Bulk storage or public URL is not configured' } });
    expect((await json<ScanError>(w.post('/api/scan/v0/history/bulk/updates', { page_size: 10 }))).body.error).toMatch(/^The request content was malformed:\n/);
    expect(await json(w.get('/api/scan/v0/history/bulk/acs?at_or_before_record_time=2026-01-01T00:00:00Z'))).toEqual({
      status: 400,
      body: { error: 'Bulk storage or public URL is not configured' },
    });
  });

  it('serves the health endpoints', async () => {
    const w = buildWorld();
    for (const p of ['/api/scan/readyz', '/api/scan/livez']) {
      const r = await w.get(p);
      expect(r.status).toBe(200);
      expect(await r.text()).toBe('');
    }
    expect((await json<{ success: unknown }>(w.get('/api/scan/status'))).body.success).toMatchObject({ active: true, ports: {} });
    expect((await json(w.get('/api/scan/version'))).body).toEqual({ version: '0.7.5', commit_ts: '2026-01-01T00:00:00Z' });
  });

  it('answers unknown routes with 404 and known routes with another method with 405', async () => {
    const w = buildWorld();
    expect(await json(w.get('/api/scan/v0/nothing-here'))).toEqual({
      status: 404,
      body: { error: 'The requested resource could not be found: http://scan.local/api/scan/v0/nothing-here' },
    });
    expect((await json(w.get('/v0/dso'))).status).toBe(404); // the paths live under /api/scan
    expect(await json(w.get('/api/scan/v0/amulet-rules'))).toEqual({ status: 405, body: { error: 'HTTP method not allowed, supported methods: POST' } });
    expect((await json(w.post('/api/scan/v0/dso', {}))).status).toBe(405);
  });
});
