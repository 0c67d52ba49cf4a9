/**
 * The emulated Splice scan HTTP API: a Hono app serving scan's paths exactly as the real app does
 * under `/api/scan` (servers url of scan.yaml), so that a client configured with
 * `http://<host>/api/scan` works unchanged. Mount it at the root of the scan port.
 *
 * Scan has no auth (Splice `ScanApp.scala`), and allows cross-origin calls. Every error is `{"error": "..."}`:
 * - the handlers' ScanErrors (service.ts) with scan's status and message;
 * - a body or query parameter that does not decode: 400, akka-http's rejection text;
 * - a known path with another method: 405 "HTTP method not allowed, supported methods: X";
 * - an unknown path: 404 "The requested resource could not be found: <uri>" (HttpAdminService);
 * - anything unexpected: 500 "An unexpected error occurred." (logged).
 *
 * LIMITATIONS (what differs from the real scan; README lists them too). Bulk history
 * (`listBulkAcsSnapshotObjects`, `listBulkUpdateHistoryObjects`) answers the real node's 400
 * "Bulk storage or public URL is not configured". Not served (404): ANS (`ans-entries`,
 * `ans-rules`), holdings summary (v0, v1), closed rounds, transfer-command counter and status,
 * other update and event history (`/v0|v1/updates`, `/v2/updates/hash`, `/v0/events`,
 * `/v0/acs/{party}`), party-to-participant, SV and network state (scans, sequencers, votes,
 * amulet price votes, migrations, LSU, synchronizer identities, validator licenses and faucets),
 * backfilling, reward accounting, development-fund coupons, feature-support, bulk checksums and
 * download. Simplified (service.ts, store.ts): one migration, never a backfilling 503; `/v0/dso`
 * invents a one-SV DsoRules when none exists; snapshots exist as soon as the clock reaches a grid
 * point, forced ones are on by default, none is persisted; updates are transactions only (no
 * reassignments, no `external_transaction_hash`, `compact_json` only); traffic status knows only
 * the emulated participant.
 */
import { Hono, type Context } from 'hono';
import { cors } from 'hono/cors';
import { parseRequestTime, type RequestTime } from './encode.js';
import { badRequest, ScanError } from './errors.js';
import { jsonErrorBodyLimit } from '../../http/body-limit.js';
import { SPLICE_MAX_BODY_BYTES } from '../../http/limits.js';
import {
  AcsRequest,
  AcsRequestV2,
  AmuletRulesRequest,
  decodeBody,
  ExternalPartyAmuletRulesRequest,
  HoldingsStateRequest,
  HoldingsStateRequestV2,
  ListBulkUpdateHistoryObjectsRequest,
  OpenAndIssuingMiningRoundsRequest,
  UpdateHistoryRequestV2,
} from './schemas.js';
import { ScanService, type ScanServiceOptions } from './service.js';

export const SCAN_BASE_PATH = '/api/scan';

export type ScanAppOptions = (ScanServiceOptions | { service: ScanService; logger?: ScanServiceOptions['logger'] }) & {
  /** Request body limit (default: pekko-http's 8 MiB). */
  maxBodyBytes?: number;
};

type Handler = (c: Context) => Promise<unknown> | unknown;

interface Route {
  method: 'GET' | 'POST';
  path: string;
  handler: Handler;
}

/** Builds the scan app; pass `{ service }` to share one ScanService (e.g. with the validator's scan-proxy). */
export function createScanApp(opts: ScanAppOptions): Hono {
  const scan = 'service' in opts ? opts.service : new ScanService(opts);
  const logger = opts.logger;
  const body = async <S extends Parameters<typeof decodeBody>[1]>(c: Context, schema: S) => decodeBody(await c.req.text(), schema);

  const routes: Route[] = [
    // health (common-external.yaml): empty 200 bodies, NodeStatus, Version
    { method: 'GET', path: '/readyz', handler: (c) => c.body(null, 200) },
    { method: 'GET', path: '/livez', handler: (c) => c.body(null, 200) },
    { method: 'GET', path: '/status', handler: () => scan.status() },
    { method: 'GET', path: '/version', handler: () => scan.versionInfo() },

    // DSO and rounds
    { method: 'GET', path: '/v0/dso', handler: () => scan.dsoInfo() },
    { method: 'GET', path: '/v0/dso-party-id', handler: () => scan.dsoPartyId() },
    { method: 'GET', path: '/v0/splice-instance-names', handler: () => scan.spliceInstanceNames() },
    { method: 'POST', path: '/v0/open-and-issuing-mining-rounds', handler: async (c) => scan.openAndIssuingMiningRounds(await body(c, OpenAndIssuingMiningRoundsRequest)) },
    { method: 'POST', path: '/v0/amulet-rules', handler: async (c) => scan.amuletRules(await body(c, AmuletRulesRequest)) },
    { method: 'POST', path: '/v0/external-party-amulet-rules', handler: async (c) => scan.externalPartyAmuletRules(await body(c, ExternalPartyAmuletRulesRequest)) },
    { method: 'GET', path: '/v0/amulet-config-for-round', handler: (c) => scan.amuletConfigForRound(queryInt64(c, 'round')) },

    // featured apps, pre-approvals
    { method: 'GET', path: '/v0/featured-apps', handler: () => scan.featuredApps() },
    { method: 'GET', path: '/v0/featured-apps/by-provider/:provider_party_id', handler: (c) => scan.featuredAppsByProvider(c.req.param('provider_party_id')!) },
    { method: 'GET', path: '/v0/featured-apps/by-contract-id/:contract_id', handler: (c) => scan.featuredAppRightByContractId(c.req.param('contract_id')!) },
    { method: 'GET', path: '/v0/featured-apps/:provider_party_id', handler: (c) => scan.featuredAppRight(c.req.param('provider_party_id')!) },
    { method: 'GET', path: '/v0/transfer-preapprovals/by-party/:party', handler: (c) => scan.transferPreapprovalByParty(c.req.param('party')!) },

    // synchronizer traffic
    {
      method: 'GET',
      path: '/v0/domains/:domain_id/members/:member_id/traffic-status',
      handler: (c) => scan.memberTrafficStatus(c.req.param('domain_id')!, c.req.param('member_id')!),
    },

    // ACS snapshots and holdings
    {
      method: 'GET',
      path: '/v0/state/acs/snapshot-timestamp',
      handler: (c) => scan.snapshotTimestampBefore(queryDateTime(c, 'before'), Number(queryInt64(c, 'migration_id'))),
    },
    {
      method: 'GET',
      path: '/v0/state/acs/snapshot-timestamp-after',
      handler: (c) => scan.snapshotTimestampAfter(queryDateTime(c, 'after'), Number(queryInt64(c, 'migration_id'))),
    },
    { method: 'POST', path: '/v0/state/acs/force', handler: () => scan.forceSnapshot() },
    { method: 'POST', path: '/v0/state/acs', handler: async (c) => scan.acsV0(await body(c, AcsRequest)) },
    { method: 'POST', path: '/v1/state/acs', handler: async (c) => scan.acsV1(await body(c, AcsRequest)) },
    { method: 'POST', path: '/v2/state/acs', handler: async (c) => scan.acsV2(await body(c, AcsRequestV2)) },
    { method: 'POST', path: '/v0/holdings/state', handler: async (c) => scan.holdingsV0(await body(c, HoldingsStateRequest)) },
    { method: 'POST', path: '/v1/holdings/state', handler: async (c) => scan.holdingsV1(await body(c, HoldingsStateRequest)) },
    { method: 'POST', path: '/v2/holdings/state', handler: async (c) => scan.holdingsV2(await body(c, HoldingsStateRequestV2)) },

    // update history
    { method: 'POST', path: '/v2/updates', handler: async (c) => scan.updatesV2(await body(c, UpdateHistoryRequestV2)) },
    { method: 'GET', path: '/v2/updates/:update_id', handler: (c) => scan.updateByIdV2(c.req.param('update_id')!, c.req.query('daml_value_encoding')) },

    // bulk storage (pre-alpha): not configured, as on a node without bulk storage
    {
      method: 'POST',
      path: '/v0/history/bulk/updates',
      handler: async (c) => {
        await body(c, ListBulkUpdateHistoryObjectsRequest);
        return scan.bulkNotConfigured();
      },
    },
    {
      method: 'GET',
      path: '/v0/history/bulk/acs',
      handler: (c) => {
        queryDateTime(c, 'at_or_before_record_time');
        return scan.bulkNotConfigured();
      },
    },
  ];

  const api = new Hono();
  for (const r of routes) {
    const run = async (c: Context) => {
      const out = await r.handler(c);
      return out instanceof Response ? out : c.json(out as object, 200);
    };
    if (r.method === 'GET') api.get(r.path, run);
    else api.post(r.path, run);
  }
  // akka-http's MethodRejection for a known path with another method
  const methodsByPath = new Map<string, string[]>();
  for (const r of routes) methodsByPath.set(r.path, [...(methodsByPath.get(r.path) ?? []), r.method]);
  for (const [path, methods] of methodsByPath) {
    api.all(path, (c) => c.json({ error: `HTTP method not allowed, supported methods: ${methods.join(', ')}` }, 405));
  }

  const notFound = (c: Context) => c.json({ error: `The requested resource could not be found: ${c.req.url}` }, 404);
  const onError = (err: Error, c: Context) => {
    if (err instanceof ScanError) return c.json({ error: err.message }, err.status);
    logger?.error({ err }, 'unhandled error in scan API');
    return c.json({ error: 'An unexpected error occurred.' }, 500);
  };
  api.notFound(notFound);
  api.onError(onError);

  const app = new Hono();
  app.use('*', jsonErrorBodyLimit(opts.maxBodyBytes ?? SPLICE_MAX_BODY_BYTES));
  // ScanApp mounts its routes inside akka-http-cors' `cors()` (default: any origin), so browser
  // dApps can call scan directly.
  app.use(`${SCAN_BASE_PATH}/*`, cors());
  app.route(SCAN_BASE_PATH, api);
  app.notFound(notFound);
  app.onError(onError);
  return app;
}

/** A required int64 query parameter, with akka-http's rejection texts. */
function queryInt64(c: Context, name: string): bigint {
  const raw = c.req.query(name);
  if (raw === undefined) throw badRequest(`Request is missing required query parameter '${name}'`);
  if (!/^-?\d+$/.test(raw) || BigInt(raw) > 9223372036854775807n || BigInt(raw) < -9223372036854775808n) {
    throw badRequest(`The query parameter '${name}' was malformed:\n'${raw}' is not a valid 64-bit signed integer value`);
  }
  return BigInt(raw);
}

/** A required `date-time` query parameter. */
function queryDateTime(c: Context, name: string): RequestTime {
  const raw = c.req.query(name);
  if (raw === undefined) throw badRequest(`Request is missing required query parameter '${name}'`);
  const t = parseRequestTime(raw);
  if (!t) throw badRequest(`The query parameter '${name}' was malformed:\nText '${raw}' could not be parsed at index 0`);
  return t;
}
