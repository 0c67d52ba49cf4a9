/**
 * The emulated Splice scan app's behaviour, endpoint by endpoint, without HTTP: each method takes
 * a decoded request and returns the response body as scan prints it, or throws a `ScanError` with
 * scan's status and message (Splice scan.yaml; `HttpScanHandler`,
 * `AcsSnapshotStore`). The Hono routes (routes.ts) and the validator's scan-proxy call these.
 *
 * Everything is read from the emulated ledger through `ScanStore`, by template NAME key
 * (`splice-amulet:Splice.Amulet:Amulet`), so any package id of the Amulet templates works.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../../canton/clock.js';
import { SpliceInstanceNamesSchema, type SpliceInstanceNames } from './options.js';
import type { LedgerEngine } from '../participant/engine.js';
import type { ContractRecord } from '../participant/types.js';
import { formatId, nameKey } from '../participant/types.js';
import type { CreateNode, ExerciseNode, TransactionRecord } from '../participant/updates.js';
import {
  activeContractJson,
  contractJson,
  contractWithStateJson,
  createdEventJson,
  dateTimeString,
  instantString,
  type Json,
  type JsonObject,
  parseRequestTime,
  partyIdError,
  recordTimeString,
  type RequestTime,
} from './encode.js';
import { badRequest, checkMaxItems, checkPageSize, notFound } from './errors.js';
import type {
  AcsRequest,
  AcsRequestV2,
  AmuletRulesRequest,
  ExternalPartyAmuletRulesRequest,
  HoldingsStateRequest,
  HoldingsStateRequestV2,
  OpenAndIssuingMiningRoundsRequest,
  UpdateHistoryRequestV2,
} from './schemas.js';
import { ScanStore, type Snapshot, type SnapshotPage } from './store.js';
import { MEMBER_TRAFFIC_TEMPLATE, memberTrafficStatus } from './traffic.js';

/** Template name keys (`package-name:Module:Entity`, as scan.yaml's `templates` filter takes them) scan reads. */
export const SCAN_TEMPLATES = {
  amulet: 'splice-amulet:Splice.Amulet:Amulet',
  lockedAmulet: 'splice-amulet:Splice.Amulet:LockedAmulet',
  featuredAppRight: 'splice-amulet:Splice.Amulet:FeaturedAppRight',
  amuletRules: 'splice-amulet:Splice.AmuletRules:AmuletRules',
  transferPreapproval: 'splice-amulet:Splice.AmuletRules:TransferPreapproval',
  externalPartyAmuletRules: 'splice-amulet:Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules',
  openMiningRound: 'splice-amulet:Splice.Round:OpenMiningRound',
  issuingMiningRound: 'splice-amulet:Splice.Round:IssuingMiningRound',
  summarizingMiningRound: 'splice-amulet:Splice.Round:SummarizingMiningRound',
  dsoRules: 'splice-dso-governance:Splice.DsoRules:DsoRules',
  svNodeState: 'splice-dso-governance:Splice.DSO.SvState:SvNodeState',
} as const;

export interface ScanServiceOptions {
  engine: LedgerEngine;
  /** The DSO party: scan ingests what it sees. */
  dsoParty: string;
  /** The domain migration id (0 on a fresh network). */
  migrationId?: number;
  /** Drives the snapshot grid; the engine's clock by default. */
  clock?: Clock;
  /** `enableForcedAcsSnapshots` (off in production, on for tests): default true. */
  enableForcedSnapshots?: boolean;
  /** The SV operating this scan (`/v0/dso` `sv_party_id`); the DSO party by default. */
  svParty?: string;
  /** `/v0/dso` `sv_user`. */
  svUser?: string;
  /** `/version` `version`. */
  version?: string;
  /** `/v0/splice-instance-names` (the scan app's `splice-instance-names`); MainNet's by default. */
  instanceNames?: SpliceInstanceNames;
  logger?: Logger;
}

type RecordTimeMatch = 'exact' | 'at_or_before' | undefined;

/**
 * The fields of an OpenMiningRound's `transferConfigUsd` (LF JSON) that `/v0/amulet-config-for-round`
 * reads. All optional: scan answers with defaults for what a round's payload lacks.
 */
interface RoundTransferConfigUsd {
  createFee?: { fee?: unknown };
  holdingFee?: { rate?: unknown };
  lockHolderFee?: { fee?: unknown };
  transferFee?: { initialRate?: unknown; steps?: Array<{ _1?: unknown; _2?: unknown }> };
}

export class ScanService {
  readonly engine: LedgerEngine;
  readonly dsoParty: string;
  readonly migrationId: number;
  readonly clock: Clock;
  readonly store: ScanStore;
  readonly enableForcedSnapshots: boolean;
  readonly svParty: string;
  readonly svUser: string;
  readonly version: string;
  readonly instanceNames: SpliceInstanceNames;
  private readonly startedAtMicros: bigint;

  constructor(opts: ScanServiceOptions) {
    this.engine = opts.engine;
    this.dsoParty = opts.dsoParty;
    this.migrationId = opts.migrationId ?? 0;
    this.clock = opts.clock ?? opts.engine.clock;
    this.enableForcedSnapshots = opts.enableForcedSnapshots ?? true;
    this.svParty = opts.svParty ?? opts.dsoParty;
    this.svUser = opts.svUser ?? 'sv1';
    this.version = opts.version ?? '0.7.5';
    this.instanceNames = opts.instanceNames ?? SpliceInstanceNamesSchema.parse({});
    this.store = new ScanStore(this.engine, this.dsoParty, this.clock, SCAN_TEMPLATES.openMiningRound);
    this.startedAtMicros = this.clock.nowMicros();
  }

  // ---- health ----------------------------------------------------------------------------------

  status(): JsonObject {
    const uptimeSecs = Number(this.clock.nowMicros() - this.startedAtMicros) / 1e6;
    return { success: { id: `scan::${this.dsoParty.split('::')[1] ?? ''}`, uptime: `${Math.max(0, uptimeSecs).toFixed(3)}s`, ports: {}, active: true } };
  }

  versionInfo(): JsonObject {
    return { version: this.version, commit_ts: '2026-01-01T00:00:00Z' };
  }

  // ---- DSO and rounds (scan.yaml `getDsoInfo`, `getOpenAndIssuingMiningRounds`) ----------------

  dsoPartyId(): JsonObject {
    return { dso_party_id: this.dsoParty };
  }

  /** `getSpliceInstanceNames`: what this network calls itself, Amulet and the name service. */
  spliceInstanceNames(): JsonObject {
    const n = this.instanceNames;
    return {
      network_name: n.networkName,
      network_favicon_url: n.networkFaviconUrl,
      amulet_name: n.amuletName,
      amulet_name_acronym: n.amuletNameAcronym,
      name_service_name: n.nameServiceName,
      name_service_name_acronym: n.nameServiceNameAcronym,
    };
  }

  /**
   * `GET /v0/dso`. The emulator implements no DSO governance (splice-dso-governance): when no
   * DsoRules contract exists, a synthetic one-SV DsoRules view is returned so that clients reading
   * `amulet_rules` or the latest round from here (ScanClient.getAmuletSynchronizerId) work. It is
   * not on the ledger; its blob cannot be disclosed.
   */
  dsoInfo(): JsonObject {
    const latest = this.latestOpenRound();
    if (!latest) throw notFound('No active OpenMiningRound contract');
    const rules = this.store.activeNow(SCAN_TEMPLATES.amuletRules)[0];
    if (!rules) throw notFound('No active AmuletRules contract');
    const dsoRules = this.store.activeNow(SCAN_TEMPLATES.dsoRules)[0];
    return {
      sv_user: this.svUser,
      sv_party_id: this.svParty,
      dso_party_id: this.dsoParty,
      voting_threshold: 1,
      latest_mining_round: contractWithStateJson(latest),
      amulet_rules: contractWithStateJson(rules),
      dso_rules: dsoRules ? contractWithStateJson(dsoRules) : this.syntheticDsoRules(),
      sv_node_states: dsoRules ? this.store.activeNow(SCAN_TEMPLATES.svNodeState).map(contractWithStateJson) : [],
      initial_round: '0',
    };
  }

  /** `POST /v0/open-and-issuing-mining-rounds`. */
  openAndIssuingMiningRounds(req: OpenAndIssuingMiningRoundsRequest): JsonObject {
    checkMaxItems('cached_open_mining_round_contract_ids', req.cached_open_mining_round_contract_ids);
    checkMaxItems('cached_issuing_round_contract_ids', req.cached_issuing_round_contract_ids);
    const open = byRound(this.store.activeNow(SCAN_TEMPLATES.openMiningRound));
    const issuing = byRound(this.store.activeNow(SCAN_TEMPLATES.issuingMiningRound));
    const summarizing = this.store.activeNow(SCAN_TEMPLATES.summarizingMiningRound);
    // tryComputeTimeToLive: the smallest tick of the non-closed rounds (issuing: half its window).
    // Scan fails (500) on a network with no round at all; the emulator answers TTL 0 (do not cache).
    const ttls: bigint[] = [
      ...[...open, ...summarizing].map((c) => relTimeMicros((c.payload as { tickDuration?: unknown }).tickDuration)),
      ...issuing.map((c) => {
        const p = c.payload as { opensAt?: unknown; targetClosesAt?: unknown };
        const a = typeof p.opensAt === 'string' ? parseRequestTime(p.opensAt)?.micros : undefined;
        const b = typeof p.targetClosesAt === 'string' ? parseRequestTime(p.targetClosesAt)?.micros : undefined;
        return a !== undefined && b !== undefined ? (b - a) / 2n : undefined;
      }),
    ].filter((x): x is bigint => x !== undefined);
    const ttl = ttls.length === 0 ? 0n : ttls.reduce((a, b) => (a < b ? a : b));
    return {
      time_to_live_in_microseconds: Number(ttl),
      open_mining_rounds: maybeCachedMap(open, new Set(req.cached_open_mining_round_contract_ids)),
      issuing_mining_rounds: maybeCachedMap(issuing, new Set(req.cached_issuing_round_contract_ids)),
    };
  }

  /** `POST /v0/amulet-rules`: `contract` left out when the client's cached id is current. */
  amuletRules(req: AmuletRulesRequest): JsonObject {
    const rules = this.store.activeNow(SCAN_TEMPLATES.amuletRules)[0];
    if (!rules) throw notFound('No active AmuletRules contract');
    return { amulet_rules_update: maybeCached(rules, req.cached_amulet_rules_contract_id) };
  }

  /** `POST /v0/external-party-amulet-rules`. */
  externalPartyAmuletRules(req: ExternalPartyAmuletRulesRequest): JsonObject {
    const rules = this.store.activeNow(SCAN_TEMPLATES.externalPartyAmuletRules)[0];
    if (!rules) throw notFound('No active ExternalPartyAmuletRules contract');
    return { external_party_amulet_rules_update: maybeCached(rules, req.cached_external_party_amulet_rules_contract_id) };
  }

  /**
   * `GET /v0/amulet-config-for-round?round=`: from the creation of that round's OpenMiningRound
   * (scan's tx log keeps it after the round closes), its `transferConfigUsd`, with the HTTP
   * view's SteppedRate `{initial, steps[{amount, rate}]}`. 404 `Round <n> not found`.
   */
  amuletConfigForRound(round: bigint): JsonObject {
    const c = this.store.openRoundCreation(round);
    const cfg = (c?.payload as { transferConfigUsd?: RoundTransferConfigUsd } | undefined)?.transferConfigUsd;
    if (!c || !cfg) throw notFound(`Round ${round} not found`);
    const fee = cfg.transferFee;
    return {
      amulet_create_fee: String(cfg.createFee?.fee ?? '0.0'),
      holding_fee: String(cfg.holdingFee?.rate ?? '0.0'),
      lock_holder_fee: String(cfg.lockHolderFee?.fee ?? '0.0'),
      transfer_fee: {
        initial: String(fee?.initialRate ?? '0.0'),
        steps: (Array.isArray(fee?.steps) ? fee.steps : []).map((s) => ({ amount: String(s._1), rate: String(s._2) })),
      },
    };
  }

  // ---- featured apps, pre-approvals (`lookupFeaturedAppRight`, `lookupTransferPreapprovalByParty`) ---

  featuredApps(): JsonObject {
    return { featured_apps: this.store.activeNow(SCAN_TEMPLATES.featuredAppRight).map(contractJson) };
  }

  /** `GET /v0/featured-apps/{provider}`: `{}` (never 404) when the provider has none. */
  featuredAppRight(provider: string): JsonObject {
    requireParty(provider);
    const c = this.store.activeNow(SCAN_TEMPLATES.featuredAppRight).find((x) => field(x, 'provider') === provider);
    return c ? { featured_app_right: contractJson(c) } : {};
  }

  featuredAppsByProvider(provider: string): JsonObject {
    requireParty(provider);
    return {
      featured_apps: this.store
        .activeNow(SCAN_TEMPLATES.featuredAppRight)
        .filter((x) => field(x, 'provider') === provider)
        .map(contractJson),
    };
  }

  /** `GET /v0/featured-apps/by-contract-id/{cid}`: `lookupContractById` in the ACS store, `{}` when absent. */
  featuredAppRightByContractId(contractId: string): JsonObject {
    const c = this.engine.contracts.getActive(contractId);
    const ok = c && nameKey(c.templateId) === SCAN_TEMPLATES.featuredAppRight && [...c.signatories, ...c.observers].includes(this.dsoParty);
    return ok ? { featured_app_right: contractJson(c) } : {};
  }

  /** `GET /v0/transfer-preapprovals/by-party/{party}` (looked up by `receiver`). */
  transferPreapprovalByParty(party: string): JsonObject {
    requireParty(party);
    const c = this.store.activeNow(SCAN_TEMPLATES.transferPreapproval).find((x) => field(x, 'receiver') === party);
    if (!c) throw notFound(`No TransferPreapproval found for party: ${party}`);
    return { transfer_preapproval: contractWithStateJson(c) };
  }

  /** `GET /v0/domains/{domain_id}/members/{member_id}/traffic-status` (./traffic.ts). */
  memberTrafficStatus(domainId: string, memberId: string): JsonObject {
    return memberTrafficStatus(this.engine, this.store.activeNow(MEMBER_TRAFFIC_TEMPLATE), domainId, memberId);
  }

  // ---- ACS snapshots (`getAcsSnapshotAt`, `getHoldingsStateAt`; `AcsSnapshotStore.scala`) ------

  /** `GET /v0/state/acs/snapshot-timestamp`: latest snapshot `<=` before. */
  snapshotTimestampBefore(before: RequestTime, migrationId: number): JsonObject {
    const s = migrationId === this.migrationId ? this.store.snapshotAtOrBefore(before.micros) : undefined;
    if (!s) throw notFound(`No snapshots found before ${before.text}`);
    return { record_time: dateTimeString(s.recordTimeMicros) };
  }

  /** `GET /v0/state/acs/snapshot-timestamp-after`: first snapshot `>` after, or any of a higher migration. */
  snapshotTimestampAfter(after: RequestTime, migrationId: number): JsonObject {
    let s: Snapshot | undefined;
    if (migrationId === this.migrationId) s = this.store.snapshotAfter(after.micros);
    else if (migrationId < this.migrationId) s = this.store.listSnapshots()[0];
    if (!s) throw notFound(`No snapshots found after ${after.text}`);
    return { record_time: dateTimeString(s.recordTimeMicros) };
  }

  /** `POST /v0/state/acs/force` (`forceAcsSnapshotNow`). */
  forceSnapshot(): JsonObject {
    if (!this.enableForcedSnapshots) throw badRequest('Forced ACS snapshots are disabled.');
    if (this.store.activeNow(SCAN_TEMPLATES.amuletRules).length === 0) throw badRequest('No amulet rules.');
    const s = this.store.force();
    if (!s) throw badRequest('No updates ever happened for a snapshot.');
    return { record_time: dateTimeString(s.recordTimeMicros), migration_id: this.migrationId };
  }

  /** `POST /v0/state/acs` (deprecated): `CreatedEvent`s with legacy `#`-event ids, int64 token. */
  acsV0(req: AcsRequest): JsonObject {
    const { snapshot, page } = this.acsQuery(req, req.after);
    return this.acsResponse(snapshot, page.rows.map((r) => v0CreatedEvent(r.contract)), page.nextRowId);
  }

  /** `POST /v1/state/acs`: `ActiveContract`s, int64 token (a snapshot row id). */
  acsV1(req: AcsRequest): JsonObject {
    const { snapshot, page } = this.acsQuery(req, req.after);
    return this.acsResponse(snapshot, page.rows.map((r) => activeContractJson(r.contract)), page.nextRowId);
  }

  /** `POST /v2/state/acs`: as v1 with an opaque string token; arrays capped at 1000. */
  acsV2(req: AcsRequestV2): JsonObject {
    checkMaxItems('party_ids', req.party_ids);
    checkMaxItems('templates', req.templates);
    const after = req.after === undefined ? undefined : decodeV2Token(req.after);
    const { snapshot, page } = this.acsQuery(req, after);
    return this.acsResponse(snapshot, page.rows.map((r) => activeContractJson(r.contract)), page.nextRowId, encodeV2Token);
  }

  holdingsV0(req: HoldingsStateRequest): JsonObject {
    const { snapshot, page } = this.holdingsQuery(req, req.after);
    return this.acsResponse(snapshot, page.rows.map((r) => v0CreatedEvent(r.contract)), page.nextRowId);
  }

  /** `POST /v1/holdings/state`. */
  holdingsV1(req: HoldingsStateRequest): JsonObject {
    const { snapshot, page } = this.holdingsQuery(req, req.after);
    return this.acsResponse(snapshot, page.rows.map((r) => activeContractJson(r.contract)), page.nextRowId);
  }

  /** `POST /v2/holdings/state`. */
  holdingsV2(req: HoldingsStateRequestV2): JsonObject {
    checkMaxItems('owner_party_ids', req.owner_party_ids);
    const after = req.after === undefined ? undefined : decodeV2Token(req.after);
    const { snapshot, page } = this.holdingsQuery(req, after);
    return this.acsResponse(snapshot, page.rows.map((r) => activeContractJson(r.contract)), page.nextRowId, encodeV2Token);
  }

  // ---- update history (`getUpdateHistoryV2`, `getUpdateByIdV2`) ---------------------------------

  /** `POST /v2/updates`: ascending by (migration id, record time), strict `>` cursor. */
  updatesV2(req: UpdateHistoryRequestV2): JsonObject {
    checkPageSize(req.page_size);
    requireCompactJson(req.daml_value_encoding);
    const history = this.store.updates();
    let start = 0;
    if (req.after) {
      const t = parseInstantText(req.after.after_record_time);
      if (t === undefined) throw badRequest(`Text '${req.after.after_record_time}' could not be parsed at index 0`);
      if (req.after.after_migration_id > this.migrationId) start = history.length;
      else if (req.after.after_migration_id === this.migrationId) {
        let lo = 0;
        let hi = history.length;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (history[mid]!.recordTimeMicros <= t) lo = mid + 1;
          else hi = mid;
        }
        start = lo;
      }
    }
    return { transactions: history.slice(start, start + req.page_size).map((e) => this.updateJson(e.tx, e.recordTimeMicros)) };
  }

  /** `GET /v2/updates/{update_id}`. */
  updateByIdV2(updateId: string, encoding?: string): JsonObject {
    requireCompactJson(encoding);
    const e = this.store.update(updateId);
    if (!e) throw notFound(`Transaction with id ${updateId} not found`);
    return this.updateJson(e.tx, e.recordTimeMicros);
  }

  /** `POST /v0/history/bulk/updates`: bulk storage is not configured (the real node's 400). */
  bulkNotConfigured(): never {
    throw badRequest('Bulk storage or public URL is not configured');
  }

  // ---- internals -------------------------------------------------------------------------------

  private acsResponse(s: Snapshot, events: JsonObject[], next: number | undefined, encodeToken?: (rowId: number) => string): JsonObject {
    const out: JsonObject = {
      record_time: dateTimeString(s.recordTimeMicros),
      migration_id: this.migrationId,
      created_events: events,
    };
    if (next !== undefined) out.next_page_token = encodeToken ? encodeToken(next) : next;
    return out;
  }

  /**
   * `acsSnapshotQuery` → `AcsSnapshotStore.queryAcsSnapshot`, with the real order of checks:
   * at_or_before resolves the snapshot first (404); then page size, party ids and templates are
   * validated (400); then the exact snapshot must exist (404); then the token must lie in the
   * snapshot's row range (400).
   */
  private acsQuery(req: { migration_id: number; record_time: RequestTime; record_time_match: RecordTimeMatch; page_size: number; party_ids?: string[]; templates?: string[] }, after: number | undefined) {
    const snapshotTime = this.resolveRecordTime(req.migration_id, req.record_time, req.record_time_match);
    checkPageSize(req.page_size);
    const parties = req.party_ids && req.party_ids.length > 0 ? new Set(req.party_ids.map(requireParty)) : undefined;
    const templates = req.templates && req.templates.length > 0 ? new Set(req.templates.map(parseTemplateFilter)) : undefined;
    const snapshot = this.exactSnapshot(req.migration_id, snapshotTime);
    checkAfter(snapshot, after);
    return { snapshot, page: this.store.page(snapshot, after, req.page_size, parties, templates) };
  }

  /**
   * `getHoldingsState`: the ACS query with `party_ids = owners` and the Amulet/LockedAmulet
   * templates, then post-filtered by owner. The token is the unfiltered page's, so a page may be
   * short (even empty) and still carry one.
   */
  private holdingsQuery(req: { migration_id: number; record_time: RequestTime; record_time_match: RecordTimeMatch; page_size: number; owner_party_ids: string[] }, after: number | undefined) {
    const snapshotTime = this.resolveRecordTime(req.migration_id, req.record_time, req.record_time_match);
    checkPageSize(req.page_size);
    const owners = new Set(req.owner_party_ids.map(requireParty));
    const snapshot = this.exactSnapshot(req.migration_id, snapshotTime);
    checkAfter(snapshot, after);
    const raw = this.store.page(snapshot, after, req.page_size, owners, new Set([SCAN_TEMPLATES.amulet, SCAN_TEMPLATES.lockedAmulet]));
    const page: SnapshotPage = { ...raw, rows: raw.rows.filter((r) => owners.has(amuletOwner(r.contract) ?? '')) };
    return { snapshot, page };
  }

  /** `queryWithOptionalAtOrBefore`: the snapshot time to query exactly. */
  private resolveRecordTime(migrationId: number, t: RequestTime, match: RecordTimeMatch): bigint {
    if (match !== 'at_or_before') return t.micros;
    const s = migrationId === this.migrationId ? this.store.snapshotAtOrBefore(t.micros) : undefined;
    if (!s) throw notFound(`No snapshots found before ${t.text}`);
    return s.recordTimeMicros;
  }

  private exactSnapshot(migrationId: number, micros: bigint): Snapshot {
    const s = migrationId === this.migrationId ? this.store.snapshotAt(micros) : undefined;
    if (!s) throw notFound(`Failed to find ACS snapshot for migration id ${migrationId} at ${instantString(micros)}`);
    return s;
  }

  private latestOpenRound(): ContractRecord | undefined {
    const open = byRound(this.store.activeNow(SCAN_TEMPLATES.openMiningRound));
    return open.at(-1);
  }

  /**
   * A transaction as `UpdateHistoryTransactionV2`, in the DSO's view: the nodes the DSO
   * witnesses (a witness of a node witnesses its whole subtree), event ids `updateId:nodeId`,
   * `events_by_id` sorted by id, `root_event_ids`/`child_event_ids` in execution order.
   */
  private updateJson(tx: TransactionRecord, recordTimeMicros: bigint): JsonObject {
    const visible = (n: { witnesses: ReadonlySet<string> }) => n.witnesses.has(this.dsoParty);
    const parent: (number | undefined)[] = [];
    const stack: ExerciseNode[] = [];
    for (const n of tx.nodes) {
      while (stack.length > 0 && stack.at(-1)!.lastDescendantNodeId < n.nodeId) stack.pop();
      parent[n.nodeId] = stack.at(-1)?.nodeId;
      if (n.kind === 'exercise') stack.push(n);
    }
    const id = (nodeId: number) => `${tx.updateId}:${nodeId}`;
    const roots: string[] = [];
    const events: Array<[string, JsonObject]> = [];
    for (const n of tx.nodes) {
      if (!visible(n)) continue;
      const p = parent[n.nodeId];
      if (p === undefined || !visible(tx.nodes[p]!)) roots.push(id(n.nodeId));
      events.push([id(n.nodeId), n.kind === 'create' ? createdEventJson(id(n.nodeId), (n as CreateNode).contract) : this.exercisedJson(tx, n, parent, id)]);
    }
    events.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return {
      update_id: tx.updateId,
      migration_id: this.migrationId,
      workflow_id: tx.workflowId,
      record_time: recordTimeString(recordTimeMicros),
      synchronizer_id: tx.synchronizerId,
      effective_at: instantString(tx.effectiveAtMicros),
      root_event_ids: roots,
      events_by_id: Object.fromEntries(events),
    };
  }

  private exercisedJson(tx: TransactionRecord, n: ExerciseNode, parent: (number | undefined)[], id: (nodeId: number) => string): JsonObject {
    const children: string[] = [];
    for (let i = n.nodeId + 1; i <= n.lastDescendantNodeId; i++) if (parent[i] === n.nodeId) children.push(id(i));
    const out: JsonObject = {
      event_type: 'exercised_event',
      event_id: id(n.nodeId),
      contract_id: n.contractId,
      template_id: formatId(n.templateId),
      package_name: n.templateId.packageName,
      choice: n.choice,
      choice_argument: n.choiceArgument as Json,
      child_event_ids: children,
      exercise_result: n.exerciseResult as Json,
      consuming: n.consuming,
      acting_parties: n.actingParties,
    };
    if (n.interfaceId) out.interface_id = formatId(n.interfaceId);
    return out;
  }

  private syntheticDsoRules(): JsonObject {
    const pkg = stableHex(`splice-dso-governance/${this.dsoParty}`, 64);
    const contractId = `00${stableHex(`dso-rules/${this.dsoParty}`, 64)}ca10${stableHex(`dso-rules-suffix/${this.dsoParty}`, 68)}`;
    const payload = {
      dso: this.dsoParty,
      epoch: '0',
      svs: [[this.svParty, { name: this.svUser, joinedAsOfRound: { number: '0' }, svRewardWeight: '10', participantId: this.engine.participantId }]],
      offboardedSvs: [],
      dsoDelegate: this.svParty,
      isDevNet: true,
    };
    return {
      contract: {
        template_id: `${pkg}:Splice.DsoRules:DsoRules`,
        contract_id: contractId,
        payload,
        created_event_blob: '',
        created_at: instantString(this.startedAtMicros),
      },
      domain_id: this.engine.synchronizerId,
    };
  }
}

// ---- helpers ---------------------------------------------------------------------------------------

function requireParty(p: string): string {
  const err = partyIdError(p);
  if (err) throw badRequest(err);
  return p;
}

/** Scan splits on ':' like Java's `String.split` (trailing empty parts dropped) and wants 3 parts. */
function parseTemplateFilter(t: string): string {
  const parts = t.split(':');
  while (parts.length > 0 && parts.at(-1) === '') parts.pop();
  if (parts.length !== 3) throw badRequest("Malformed template_id, expected 'package_name:module_name:entity_name'");
  return parts.join(':');
}

function checkAfter(s: Snapshot, after: number | undefined): void {
  if (after !== undefined && (after < s.firstRowId || after > s.lastRowId)) {
    throw badRequest(`Invalid after token, outside of snapshot range (${s.firstRowId} to ${s.lastRowId}).`);
  }
}

/**
 * The v2 token: base64 of a JSON row-id token, like newest Splice's `RowIdQueryAcsSnapshotPaginationToken`
 * (canton-network/splice `AcsSnapshotStore.scala`). Clients must treat it as opaque.
 */
export function encodeV2Token(rowId: number): string {
  return Buffer.from(JSON.stringify({ row_id: rowId }), 'utf8').toString('base64');
}

export function decodeV2Token(token: string): number {
  if (/^[A-Za-z0-9+/]+={0,2}$/.test(token) && token.length % 4 === 0) {
    try {
      const doc = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as { row_id?: unknown };
      if (typeof doc.row_id === 'number' && Number.isSafeInteger(doc.row_id)) return doc.row_id;
    } catch {
      // fall through
    }
  }
  throw badRequest(`Invalid pagination token: ${token}`);
}

function requireCompactJson(encoding: string | undefined): void {
  if (encoding === 'protobuf_json') {
    throw badRequest('daml_value_encoding protobuf_json is not supported by this emulated scan; use compact_json');
  }
  if (encoding !== undefined && encoding !== 'compact_json') {
    throw badRequest(`Unknown value ${JSON.stringify(encoding)}, expected one of: compact_json, protobuf_json`);
  }
}

function v0CreatedEvent(c: ContractRecord): JsonObject {
  return createdEventJson(`#${c.createdUpdateId}:${c.createdNodeId}`, c);
}

function field(c: ContractRecord, name: string): unknown {
  return (c.payload as Record<string, unknown> | null)?.[name];
}

/** `amulet.owner` for Amulet, `amulet.amulet.owner` for LockedAmulet. */
function amuletOwner(c: ContractRecord): string | undefined {
  const p = c.payload as { owner?: unknown; amulet?: { owner?: unknown } } | null;
  const owner = nameKey(c.templateId) === SCAN_TEMPLATES.lockedAmulet ? p?.amulet?.owner : p?.owner;
  return typeof owner === 'string' ? owner : undefined;
}

function roundNumber(c: ContractRecord): bigint {
  const n = (c.payload as { round?: { number?: unknown } } | null)?.round?.number;
  try {
    return BigInt(String(n));
  } catch {
    return -1n;
  }
}

function byRound(cs: ContractRecord[]): ContractRecord[] {
  return [...cs].sort((a, b) => {
    const x = roundNumber(a);
    const y = roundNumber(b);
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

function relTimeMicros(v: unknown): bigint | undefined {
  const m = (v as { microseconds?: unknown } | null | undefined)?.microseconds;
  try {
    return m === undefined ? undefined : BigInt(String(m));
  } catch {
    return undefined;
  }
}

function maybeCached(c: ContractRecord, cachedId: string | undefined): JsonObject {
  return cachedId === c.contractId ? { domain_id: c.synchronizerId } : contractWithStateJson(c);
}

function maybeCachedMap(cs: ContractRecord[], cached: ReadonlySet<string>): JsonObject {
  return Object.fromEntries(cs.map((c) => [c.contractId, cached.has(c.contractId) ? { domain_id: c.synchronizerId } : contractWithStateJson(c)]));
}

/** `Instant.parse` (the `after_record_time` cursor is a plain string in the spec). */
function parseInstantText(text: string): bigint | undefined {
  return parseRequestTime(text)?.micros;
}

function stableHex(seed: string, len: number): string {
  let out = '';
  for (let i = 0; out.length < len; i++) out += createHash('sha256').update(`${seed}/${i}`).digest('hex');
  return out.slice(0, len);
}

