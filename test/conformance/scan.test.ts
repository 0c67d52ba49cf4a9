/**
 * Conformance of the emulated scan: every endpoint we
 * serve is driven through `createScanApp` over an emulated Canton Coin world, with success cases
 * and the error cases we can provoke, and EVERY response is validated with ajv against the
 * OFFICIAL file (DESIGN.md rule 1): `splice/apps/scan/src/main/openapi/scan.yaml` (Splice 0.7.5, with its
 * relative refs into common-external/common-internal), and for `/v2/state/acs` and
 * `/v2/holdings/state`, which 0.7.5 does not have, `splice/scan-v2-acs-holdings-excerpt.yaml`
 * (from canton-network/splice main's scan.yaml). The excerpt documents its 400/404/500 responses without content ("identical to
 * splice-0.7.5-src", i.e. ErrorResponse), so those bodies are checked against scan.yaml's
 * ErrorResponse shape here.
 *
 * A status the official file does not document for the operation is allowed only when it is in
 * `UNDOCUMENTED` below, with the reason; its body must still be exactly `{"error": string}`.
 * Nothing may be a 500.
 *
 * The world uses stand-ins of the Amulet templates (test/unit/emulator/scan/fixture.ts); scan
 * reads by template name, so the native templates behave the same for it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { LedgerEngine } from '../../src/emulator/participant/engine.js';
import { createScanApp } from '../../src/emulator/scan/routes.js';
import { ManualClock } from '../../src/canton/clock.js';
import { amuletContext, createFeaturedAppRight, createTransferPreapproval, seedAmuletWorld, tapAmulet } from '../../src/emulator/templates/amulet/index.js';
import { buildWorld, IDS, type World } from '../unit/emulator/scan/fixture.js';
import type { AmuletPayload, AmuletRulesPayload, OpenMiningRoundPayload } from '../../src/emulator/templates/amulet/values.js';
import { SPECS, createSpecValidator, specPath, type CoverageRequirement } from '../support/openapi-conformance.js';
import { errorOf } from '../support/registry-wire.js';

const scanSpec = createSpecValidator(specPath(SPECS.scan), { basePath: '/api/scan' });
const v2Spec = createSpecValidator(specPath(SPECS.scanV2AcsHoldingsExcerpt), { basePath: '/api/scan' });
const V2_PATHS = new Set(['/api/scan/v2/state/acs', '/api/scan/v2/holdings/state']);
/** The excerpt's documented error statuses (content: ErrorResponse of 0.7.5's scan.yaml). */
const V2_ERROR_STATUSES = new Set([400, 404, 500]);

/** Statuses we return that the official file does not list for the operation, and why. */
const UNDOCUMENTED: Array<{ operationId: string; status: number; reason: string }> = [
  { operationId: 'getDsoInfo', status: 404, reason: 'no OpenMiningRound/AmuletRules yet: the store getters fail NOT_FOUND ("No active … contract")' },
  { operationId: 'getAmuletRules', status: 404, reason: 'no AmuletRules yet ("No active AmuletRules contract"); the real handler has no documented error either' },
  { operationId: 'getExternalPartyAmuletRules', status: 404, reason: 'no ExternalPartyAmuletRules yet' },
  { operationId: 'getOpenAndIssuingMiningRounds', status: 400, reason: 'a body that does not decode, or maxItems 1000 (canton-network/splice main scan.yaml) on the cached id arrays' },
  { operationId: 'getAmuletRules', status: 400, reason: 'a body that does not decode' },
  { operationId: 'lookupFeaturedAppRight', status: 400, reason: 'a malformed party id: PartyId.tryFromProtoPrimitive throws IllegalArgumentException → 400' },
  { operationId: 'listFeaturedAppRightsByProvider', status: 400, reason: 'a malformed party id (as above)' },
  { operationId: 'lookupTransferPreapprovalByParty', status: 400, reason: 'a malformed party id (as above)' },
  { operationId: 'getAmuletConfigForRound', status: 400, reason: 'a missing or malformed `round` query parameter (akka-http rejection)' },
  { operationId: 'listBulkAcsSnapshotObjects', status: 400, reason: 'bulk storage not configured: gRPC UNIMPLEMENTED, which HttpErrorHandler maps to 400 (Splice HttpErrorHandler.scala), not the 501 the spec lists' },
];

/**
 * Choices whose Daml result is an enum: Scan renders a result of any Daml type as its JSON value
 * (an enum as its constructor's name), while the file types `exercise_result` as an object, which
 * holds only for record results. splice-amulet 0.1.22's
 * `AmuletRules_BootstrapExternalPartyConfigState` returns the single-constructor enum
 * `AmuletRules_BootstrapExternalPartyConfigStateResult` (the DSO runs it once, when the world is
 * seeded). Such an event is checked with that one value replaced by `{}`: everything else must conform.
 */
const ENUM_RESULTS = new Set(['AmuletRules_BootstrapExternalPartyConfigStateResult']);

function withoutEnumResults(text: string): string {
  return JSON.stringify(JSON.parse(text), (key, value: unknown) => (key === 'exercise_result' && typeof value === 'string' && ENUM_RESULTS.has(value) ? {} : value));
}

function isErrorBody(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 1 && typeof (body as { error?: unknown }).error === 'string';
}

let checked = 0;

// Scan's wire shapes, as far as these tests read them: `call` has validated each body against the
// official file, so a body is read as the shape that file gives it (one step from unknown).
/** `Contract` (common-external.yaml), with the payload of its template. */
interface ScanContract<P = unknown> {
  contract_id: string;
  payload: P;
}
/** `ContractWithState`. */
interface ScanContractWithState<P = unknown> {
  contract: ScanContract<P>;
}
interface DsoInfo {
  dso_party_id: string;
  amulet_rules: ScanContractWithState<AmuletRulesPayload>;
  latest_mining_round: ScanContractWithState<OpenMiningRoundPayload>;
}
interface MiningRounds {
  open_mining_rounds: Record<string, unknown>;
  issuing_mining_rounds: Record<string, unknown>;
  time_to_live_in_microseconds: number;
}
interface TrafficStatus {
  traffic_status: { actual: { total_consumed: number; total_limit: number }; target: { total_purchased: number } };
}
interface RecordTime {
  record_time: string;
}
/** An ACS or holdings page (v0/v1 page tokens are numbers, v2's strings). */
interface AcsPage<P = unknown> {
  created_events: Array<{ contract_id: string; create_arguments: P }>;
  next_page_token?: number | string;
}
interface UpdatesPage {
  transactions: Array<{ update_id: string; record_time: string; events_by_id: Record<string, { event_type: string }> }>;
}

/** Sends a request, validates the response against the official file, returns status and body. */
async function call(w: Pick<World, 'get' | 'post'>, method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const res = await (method === 'GET' ? w.get(path) : w.post(path, body ?? ''));
  const text = await res.text();
  const parsed = text === '' ? undefined : (JSON.parse(text) as unknown);
  expect(res.status, `${method} ${path}: never a 500`).not.toBe(500);
  if (res.status >= 400) expect(isErrorBody(parsed), `${method} ${path}: error body ${text}`).toBe(true);
  const pathOnly = path.split('?')[0]!;
  const validator = V2_PATHS.has(pathOnly) ? v2Spec : scanSpec;
  if (validator === v2Spec && res.status >= 400) {
    expect(V2_ERROR_STATUSES.has(res.status), `${method} ${path}: ${res.status} not in the excerpt`).toBe(true);
    // record coverage of the documented status (the excerpt gives it no content)
    v2Spec.validateResponse({ method, path, status: res.status, contentType: null, body: '' });
  } else {
    let r = validator.validateResponse({ method, path, status: res.status, contentType: res.headers.get('content-type'), body: text });
    if (!r.ok && r.errors.some((e) => /exercise_result must be object, got "[A-Za-z_]+"/.test(e))) {
      r = validator.validateResponse({ method, path, status: res.status, contentType: res.headers.get('content-type'), body: withoutEnumResults(text) });
    }
    if (!r.ok) {
      const allowed = UNDOCUMENTED.find((u) => u.operationId === r.operation && u.status === res.status);
      const undocumentedOnly = r.errors.length === 1 && r.errors[0]!.includes('is not documented');
      if (!(allowed && undocumentedOnly)) throw new Error(`${method} ${path} → ${res.status} does not conform:\n${r.errors.join('\n')}\nbody: ${text.slice(0, 1500)}`);
    }
  }
  checked++;
  return { status: res.status, body: parsed };
}

function world() {
  const w = buildWorld({ start: '2026-05-01T01:00:00Z' });
  const rules = w.amuletRules();
  w.clock.advance(1000);
  const round = w.openRound(7);
  w.create(IDS.IssuingMiningRound, { dso: w.dso, round: { number: '6' }, opensAt: '2026-05-01T00:00:00Z', targetClosesAt: '2026-05-01T00:20:00Z' }, [w.dso]);
  w.create(IDS.ExternalPartyAmuletRules, { dso: w.dso }, [w.dso]);
  w.clock.advance(1000);
  const amulets = [w.amulet(w.alice, '100.0000000000'), w.amulet(w.alice, '50.0000000000'), w.amulet(w.bob, '20.0000000000')];
  const locked = w.lockedAmulet(w.alice, '5.0000000000');
  const right = w.create(IDS.FeaturedAppRight, { dso: w.dso, provider: w.provider, activityWeight: null }, [w.dso]);
  const pre = w.create(
    IDS.TransferPreapproval,
    { dso: w.dso, receiver: w.bob, provider: w.validator, validFrom: '2026-05-01T00:00:00Z', lastRenewedAt: '2026-05-01T00:00:00Z', expiresAt: '2026-08-01T00:00:00Z' },
    [w.dso, w.bob, w.validator],
  );
  w.archive(IDS.Amulet, amulets[1]!, [w.dso, w.alice]);
  return { w, rules, round, amulets, locked, right, pre };
}

describe('scan conformance (scan.yaml of Splice 0.7.5 + the V2 excerpt)', () => {
  afterAll(() => {
    // every operation we serve was covered by at least one conformant response
    const required: CoverageRequirement[] = [
      ['get', '/readyz'],
      ['get', '/livez'],
      ['get', '/status'],
      ['get', '/version'],
      ['get', '/v0/dso'],
      ['get', '/v0/dso-party-id'],
      ['get', '/v0/splice-instance-names'],
      ['post', '/v0/open-and-issuing-mining-rounds'],
      ['post', '/v0/amulet-rules'],
      ['post', '/v0/external-party-amulet-rules'],
      ['get', '/v0/amulet-config-for-round'],
      ['get', '/v0/featured-apps'],
      ['get', '/v0/featured-apps/{provider_party_id}'],
      ['get', '/v0/featured-apps/by-provider/{provider_party_id}'],
      ['get', '/v0/featured-apps/by-contract-id/{contract_id}'],
      ['get', '/v0/transfer-preapprovals/by-party/{party}'],
      ['get', '/v0/domains/{domain_id}/members/{member_id}/traffic-status'],
      ['get', '/v0/state/acs/snapshot-timestamp'],
      ['get', '/v0/state/acs/snapshot-timestamp-after'],
      ['post', '/v0/state/acs/force'],
      ['post', '/v0/state/acs'],
      ['post', '/v1/state/acs'],
      ['post', '/v0/holdings/state'],
      ['post', '/v1/holdings/state'],
      ['post', '/v2/updates'],
      ['get', '/v2/updates/{update_id}'],
      ['post', '/v0/history/bulk/updates'],
    ].map(([method, pathTemplate]) => ({ method: method!, pathTemplate: pathTemplate! }));
    expect(scanSpec.uncovered(required)).toEqual([]);
    expect(v2Spec.uncovered()).toEqual([]);
    expect(checked).toBeGreaterThan(80);
  });

  it('health, DSO, rounds and rules', async () => {
    const empty = buildWorld();
    expect((await call(empty, 'GET', '/api/scan/v0/dso')).status).toBe(404);
    expect((await call(empty, 'POST', '/api/scan/v0/amulet-rules', {})).status).toBe(404);
    expect((await call(empty, 'POST', '/api/scan/v0/external-party-amulet-rules', {})).status).toBe(404);
    expect((await call(empty, 'POST', '/api/scan/v0/open-and-issuing-mining-rounds', { cached_open_mining_round_contract_ids: [], cached_issuing_round_contract_ids: [] })).status).toBe(200);

    const { w, rules, round } = world();
    for (const p of ['readyz', 'livez', 'status', 'version', 'v0/dso', 'v0/dso-party-id']) expect((await call(w, 'GET', `/api/scan/${p}`)).status).toBe(200);
    // MainNet's instance names unless configured (the localnet profile sets LocalNet's).
    expect((await call(w, 'GET', '/api/scan/v0/splice-instance-names')).body).toEqual({
      network_name: 'Canton Network',
      network_favicon_url: 'https://www.canton.network/hubfs/cn-favicon-05%201-1.png',
      amulet_name: 'Canton Coin',
      amulet_name_acronym: 'CC',
      name_service_name: 'Canton Name Service',
      name_service_name_acronym: 'CNS',
    });
    const rounds = (await call(w, 'POST', '/api/scan/v0/open-and-issuing-mining-rounds', { cached_open_mining_round_contract_ids: [round], cached_issuing_round_contract_ids: [] })).body as MiningRounds;
    expect(Object.keys(rounds.issuing_mining_rounds)).toHaveLength(1);
    expect((await call(w, 'POST', '/api/scan/v0/open-and-issuing-mining-rounds', { cached_open_mining_round_contract_ids: [] })).status).toBe(400);
    expect(((await call(w, 'POST', '/api/scan/v0/amulet-rules', {})).body as { amulet_rules_update: ScanContractWithState }).amulet_rules_update.contract.contract_id).toBe(rules);
    expect((await call(w, 'POST', '/api/scan/v0/amulet-rules', { cached_amulet_rules_contract_id: rules })).status).toBe(200);
    expect((await call(w, 'POST', '/api/scan/v0/amulet-rules', '[')).status).toBe(400);
    expect((await call(w, 'POST', '/api/scan/v0/external-party-amulet-rules', {})).status).toBe(200);
    expect((await call(w, 'GET', '/api/scan/v0/amulet-config-for-round?round=7')).status).toBe(200);
    expect((await call(w, 'GET', '/api/scan/v0/amulet-config-for-round?round=8')).status).toBe(404);
    expect((await call(w, 'GET', '/api/scan/v0/amulet-config-for-round?round=x')).status).toBe(400);
  });

  it('featured apps and transfer pre-approvals', async () => {
    const { w, right } = world();
    expect(((await call(w, 'GET', '/api/scan/v0/featured-apps')).body as { featured_apps: unknown[] }).featured_apps).toHaveLength(1);
    expect(((await call(w, 'GET', `/api/scan/v0/featured-apps/${w.provider}`)).body as { featured_app_right: ScanContract }).featured_app_right.contract_id).toBe(right);
    expect((await call(w, 'GET', `/api/scan/v0/featured-apps/${w.alice}`)).body).toEqual({});
    expect((await call(w, 'GET', '/api/scan/v0/featured-apps/nobody')).status).toBe(400);
    expect((await call(w, 'GET', `/api/scan/v0/featured-apps/by-provider/${w.provider}`)).status).toBe(200);
    expect((await call(w, 'GET', '/api/scan/v0/featured-apps/by-provider/x')).status).toBe(400);
    expect((await call(w, 'GET', `/api/scan/v0/featured-apps/by-contract-id/${right}`)).status).toBe(200);
    expect((await call(w, 'GET', '/api/scan/v0/featured-apps/by-contract-id/00ff')).body).toEqual({});
    expect((await call(w, 'GET', `/api/scan/v0/transfer-preapprovals/by-party/${w.bob}`)).status).toBe(200);
    expect((await call(w, 'GET', `/api/scan/v0/transfer-preapprovals/by-party/${w.alice}`)).status).toBe(404);
    expect((await call(w, 'GET', '/api/scan/v0/transfer-preapprovals/by-party/alice')).status).toBe(400);
  });

  it('member traffic status: purchases, consumption and the errors', async () => {
    const clock = new ManualClock('2026-05-01T01:00:00Z');
    const engine = new LedgerEngine({ clock, seed: 'scan-traffic' });
    const { dso } = seedAmuletWorld(engine);
    const provider = engine.parties.allocate('provider').party;
    const app = createScanApp({ engine, dsoParty: dso, clock });
    const w = { get: (path: string) => Promise.resolve(app.request(`http://scan.local${path}`)), post: () => Promise.reject(new Error('unused')) };
    const member = engine.participantMember;
    const status = (domain: string, m: string) => call(w, 'GET', `/api/scan/v0/domains/${encodeURIComponent(domain)}/members/${encodeURIComponent(m)}/traffic-status`);
    /** A 200 answer's traffic status. */
    const traffic = async (domain: string, m: string) => {
      const r = await status(domain, m);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return (r.body as TrafficStatus).traffic_status;
    };

    const before = await traffic(engine.synchronizerId, member);
    expect(before.target).toEqual({ total_purchased: 0 });
    expect(before.actual.total_limit).toBe(0);

    const funds = tapAmulet(engine, { dso, receiver: provider, amount: '1000' });
    const ctx = amuletContext(engine, dso);
    engine.commands.submit({
      userId: 'tester',
      actAs: [provider],
      readAs: [],
      commandId: 'buy-traffic',
      workflowId: '',
      submissionId: 'buy-traffic',
      commands: [
        {
          kind: 'exercise',
          template: { package: { name: 'splice-amulet' }, moduleName: 'Splice.AmuletRules', entityName: 'AmuletRules' },
          contractId: ctx.amuletRulesCid,
          choice: 'AmuletRules_BuyMemberTraffic',
          choiceArgument: {
            inputs: [{ tag: 'InputAmulet', value: funds }],
            context: { openMiningRound: ctx.openRoundCid, issuingMiningRounds: [], validatorRights: [], featuredAppRight: null },
            provider,
            memberId: member,
            synchronizerId: engine.synchronizerId,
            migrationId: '0',
            trafficAmount: '250000',
            expectedDso: dso,
          },
        },
      ],
      disclosedContracts: ctx.disclosed.slice(0, 2),
    });
    const after = await traffic(engine.synchronizerId, member);
    expect(after.target).toEqual({ total_purchased: 250000 });
    expect(after.actual.total_limit).toBe(250000);
    // within the free base rate nothing extra is consumed yet
    expect(after.actual.total_consumed).toBe(0);
    // another (well-formed) synchronizer: the sequencer's state, no purchases
    const other = await traffic('other-domain::1220aa', member);
    expect(other.target).toEqual({ total_purchased: 0 });

    // beyond the free base rate the participant's requests consume the extra traffic it bought
    engine.traffic.setParameters({ maxBaseTrafficAmount: 0n, maxBaseTrafficAccumulationDurationMicros: 1_200_000_000n, readVsWriteScalingFactor: 4n, baseEventCost: 0n });
    tapAmulet(engine, { dso, receiver: provider, amount: '1' });
    const tx = engine.updates.range(engine.ledgerEnd() - 1, engine.ledgerEnd())[0]!;
    const consumed = await traffic(engine.synchronizerId, member);
    expect(consumed.actual.total_consumed).toBe(Number(tx.paidTrafficCost));
    expect(consumed.actual.total_consumed).toBeGreaterThan(0);

    const unknown = await status(engine.synchronizerId, 'PAR::someone::1220abcdef0123456789');
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown.body)).toBe('No traffic state found for member PAR::someone::1220abcdef01...');
    const badMember = await status(engine.synchronizerId, 'PAR::x');
    expect(badMember.status).toBe(400);
    expect(errorOf(badMember.body)).toBe('Could not decode member ID: Invalid member `PAR::x`, expecting <three-letter-code>::id::fingerprint.');
    expect(errorOf((await status(engine.synchronizerId, 'participant1')).body)).toBe('Could not decode member ID: Expected delimiter :: after three letter code of `participant1`');
    expect(errorOf((await status(engine.synchronizerId, 'XYZ::a::b')).body)).toBe('Could not decode member ID: Unknown three letter type XYZ');
    expect(errorOf((await status(engine.synchronizerId, 'PAR:-a::b')).body)).toBe('Could not decode member ID: Expected delimiter :: after three letter code of `PAR:-a::b`');
    const badDomain = await status('global-domain', member);
    expect(badDomain.status).toBe(400);
    expect(errorOf(badDomain.body)).toBe('Could not decode domain ID: Invalid unique identifier `global-domain` with missing namespace.');
  });

  it('ACS snapshots, holdings and their errors', async () => {
    const { w } = world();
    const snap = (q: string) => call(w, 'GET', `/api/scan/v0/state/acs/snapshot-timestamp${q}`);
    expect((await snap('?before=2026-05-01T02:00:00Z&migration_id=0')).status).toBe(404);
    expect((await snap('?before=bad&migration_id=0')).status).toBe(400);
    expect((await snap('-after?after=2026-05-01T02:00:00Z&migration_id=0')).status).toBe(404);
    expect((await snap('-after?migration_id=0')).status).toBe(400);
    const forced = await call(w, 'POST', '/api/scan/v0/state/acs/force');
    expect(forced.status).toBe(200);
    w.clock.set('2026-05-01T04:00:00Z');
    expect((await snap('?before=2026-05-01T04:00:00Z&migration_id=0')).body).toEqual({ record_time: '2026-05-01T03:00:00Z' });
    expect((await snap('-after?after=2026-05-01T01:00:00Z&migration_id=0')).body).toEqual({ record_time: (forced.body as RecordTime).record_time });

    const base = { migration_id: 0, record_time: '2026-05-01T03:00:00Z', page_size: 2 };
    for (const v of ['v0', 'v1', 'v2']) {
      const acs = `/api/scan/${v}/state/acs`;
      const holdings = `/api/scan/${v}/holdings/state`;
      const p1 = (await call(w, 'POST', acs, base)).body as AcsPage;
      expect(p1.created_events).toHaveLength(2);
      expect((await call(w, 'POST', acs, { ...base, after: p1.next_page_token })).status).toBe(200);
      expect((await call(w, 'POST', acs, { ...base, record_time: '2026-05-01T03:59:00Z', record_time_match: 'at_or_before', party_ids: [w.alice], templates: ['splice-amulet:Splice.Amulet:Amulet'] })).status).toBe(200);
      expect((await call(w, 'POST', acs, { ...base, record_time: '2026-05-01T02:00:00Z' })).status).toBe(404);
      expect((await call(w, 'POST', acs, { ...base, record_time: '2026-05-01T00:30:00Z', record_time_match: 'at_or_before' })).status).toBe(404);
      expect((await call(w, 'POST', acs, { ...base, page_size: 0 })).status).toBe(400);
      expect((await call(w, 'POST', acs, { ...base, templates: ['bad'] })).status).toBe(400);
      expect((await call(w, 'POST', acs, { ...base, after: v === 'v2' ? 'garbage' : 123456 })).status).toBe(400);
      const h1 = (await call(w, 'POST', holdings, { ...base, page_size: 1, owner_party_ids: [w.alice] })).body as AcsPage;
      expect(h1.next_page_token).toBeDefined();
      expect((await call(w, 'POST', holdings, { ...base, owner_party_ids: [w.alice], after: h1.next_page_token })).status).toBe(200);
      expect((await call(w, 'POST', holdings, { ...base, owner_party_ids: [] })).status).toBe(400);
      expect((await call(w, 'POST', holdings, { ...base, record_time: '2026-05-01T03:00:01Z', owner_party_ids: [w.alice] })).status).toBe(404);
    }
    const off = buildWorld({ enableForcedSnapshots: false });
    expect((await call(off, 'POST', '/api/scan/v0/state/acs/force')).status).toBe(400);
  });

  it('update history and bulk storage', async () => {
    const { w } = world();
    const all = (await call(w, 'POST', '/api/scan/v2/updates', { page_size: 100, daml_value_encoding: 'compact_json' })).body as UpdatesPage;
    expect(all.transactions.length).toBeGreaterThan(5);
    const withArchive = all.transactions.at(-1)!;
    expect(Object.values(withArchive.events_by_id)[0]!.event_type).toBe('exercised_event');
    const mid = all.transactions[2]!;
    expect(((await call(w, 'POST', '/api/scan/v2/updates', { page_size: 2, after: { after_migration_id: 0, after_record_time: mid.record_time } })).body as UpdatesPage).transactions).toHaveLength(2);
    expect((await call(w, 'POST', '/api/scan/v2/updates', { page_size: 1001 })).status).toBe(400);
    expect((await call(w, 'GET', `/api/scan/v2/updates/${withArchive.update_id}`)).status).toBe(200);
    expect((await call(w, 'GET', '/api/scan/v2/updates/1220dead')).status).toBe(404);
    expect((await call(w, 'GET', `/api/scan/v2/updates/${withArchive.update_id}?daml_value_encoding=protobuf_json`)).status).toBe(400);
    const bulk = { start_record_time: '2026-05-01T00:00:00Z', end_record_time: '2026-05-02T00:00:00Z', page_size: 10 };
    expect((await call(w, 'POST', '/api/scan/v0/history/bulk/updates', bulk)).status).toBe(400);
    expect((await call(w, 'GET', '/api/scan/v0/history/bulk/acs?at_or_before_record_time=2026-05-01T00:00:00Z')).status).toBe(400);
  });

  it('unknown routes and methods answer with scan error bodies', async () => {
    const w = buildWorld();
    for (const [method, path, status] of [
      ['GET', '/api/scan/v0/unknown', 404],
      ['GET', '/api/scan/v2/updates', 405],
      ['POST', '/api/scan/v0/featured-apps', 405],
    ] as const) {
      const res = await (method === 'GET' ? w.get(path) : w.post(path, {}));
      expect(res.status).toBe(status);
      expect(isErrorBody(await res.json())).toBe(true);
    }
  });
});

/**
 * The same surface over the NATIVE Amulet templates (src/emulator/templates/amulet): real
 * payloads (AmuletRules config, rounds bootstrapped and advanced by the round automation as the
 * clock moves, DevNet taps, a pre-approval, a featured app right), validated the same way.
 */
describe('scan conformance over the native Amulet world', () => {
  it('serves the seeded Canton Coin world', async () => {
    const clock = new ManualClock('2026-05-01T01:00:00Z');
    const engine = new LedgerEngine({ clock, seed: 'scan-native' });
    const { dso } = seedAmuletWorld(engine);
    const alice = engine.parties.allocate('alice').party;
    const bob = engine.parties.allocate('bob').party;
    const provider = engine.parties.allocate('provider').party;
    clock.advance(1000);
    const tapped = tapAmulet(engine, { dso, receiver: alice, amount: '100' });
    tapAmulet(engine, { dso, receiver: bob, amount: '20' });
    const pre = createTransferPreapproval(engine, { dso, receiver: bob });
    const right = createFeaturedAppRight(engine, { dso, provider });
    const app = createScanApp({ engine, dsoParty: dso, clock });
    const w = {
      get: (path: string) => Promise.resolve(app.request(`http://scan.local${path}`)),
      post: (path: string, body: unknown) =>
        Promise.resolve(app.request(`http://scan.local${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) })),
    };

    const dsoInfo = (await call(w, 'GET', '/api/scan/v0/dso')).body as DsoInfo;
    expect(dsoInfo.dso_party_id).toBe(dso);
    expect(dsoInfo.amulet_rules.contract.payload.configSchedule.initialValue.decentralizedSynchronizer.activeSynchronizer).toBe(engine.synchronizerId);
    const rounds = (await call(w, 'POST', '/api/scan/v0/open-and-issuing-mining-rounds', { cached_open_mining_round_contract_ids: [], cached_issuing_round_contract_ids: [] })).body as MiningRounds;
    expect(Object.keys(rounds.open_mining_rounds)).toHaveLength(3);
    expect(rounds.time_to_live_in_microseconds).toBeGreaterThan(0);
    expect((await call(w, 'POST', '/api/scan/v0/amulet-rules', {})).status).toBe(200);
    expect((await call(w, 'POST', '/api/scan/v0/external-party-amulet-rules', {})).status).toBe(200);
    expect((await call(w, 'GET', '/api/scan/v0/amulet-config-for-round?round=0')).status).toBe(200);
    expect(((await call(w, 'GET', `/api/scan/v0/featured-apps/${provider}`)).body as { featured_app_right: ScanContract }).featured_app_right.contract_id).toBe(right);
    expect(((await call(w, 'GET', `/api/scan/v0/transfer-preapprovals/by-party/${bob}`)).body as { transfer_preapproval: ScanContractWithState }).transfer_preapproval.contract.contract_id).toBe(pre);

    // the rounds advance with the clock (the round automation runs when scan reads)
    const latestBefore = BigInt(dsoInfo.latest_mining_round.contract.payload.round.number);
    clock.advance(30 * 60 * 1000);
    const later = (await call(w, 'GET', '/api/scan/v0/dso')).body as DsoInfo;
    expect(BigInt(later.latest_mining_round.contract.payload.round.number)).toBeGreaterThan(latestBefore);

    const forced = (await call(w, 'POST', '/api/scan/v0/state/acs/force')).body as RecordTime;
    const holdings = (await call(w, 'POST', '/api/scan/v2/holdings/state', { migration_id: 0, record_time: forced.record_time, page_size: 10, owner_party_ids: [alice] })).body as AcsPage<AmuletPayload>;
    expect(holdings.created_events.map((e) => e.contract_id)).toEqual([tapped]);
    expect(holdings.created_events[0]!.create_arguments.amount.initialAmount).toMatch(/^100\.0+$/);
    expect((await call(w, 'POST', '/api/scan/v1/state/acs', { migration_id: 0, record_time: forced.record_time, page_size: 1000 })).status).toBe(200);

    const updates = (await call(w, 'POST', '/api/scan/v2/updates', { page_size: 1000 })).body as UpdatesPage;
    expect(updates.transactions.length).toBeGreaterThan(5);
    for (const t of updates.transactions.slice(0, 3)) expect((await call(w, 'GET', `/api/scan/v2/updates/${t.update_id}`)).status).toBe(200);
  });
});
