/**
 * State service: the active contract set, as a list and as pages (openapi.yaml
 * `GetActiveContractsRequest`, 3.5's active-contracts-page; `JsStateService.scala`). Answered from the contract store's
 * indexes by party and template, never by scanning every contract.
 */
import type { Context } from 'hono';
import type { RouteModule } from './route-module.js';
import { decodeBody, decodeValue, readJsonBody } from './decode.js';
import { activeContractJson, compileEventFormat, templateKeysOf, type EventFilter } from './events.js';
import { listOf, listParams } from './lists.js';
import type { StreamOpener } from './streams.js';
import { requireReadAs, requireReadAsAnyParty, type Claims } from '../participant/claims.js';
import type { LedgerEngine } from '../participant/engine.js';
import { errors, LedgerApiError } from '../../canton/errors.js';
import { GetActiveContractsPageRequestSchema, GetActiveContractsRequestSchema } from '../../ledger-client/schemas/state.js';

/** Server default page size of active-contracts-page. */
const DEFAULT_PAGE_SIZE = 1000;

export const stateRoutes: RouteModule = (app) => {
  app.post('/v2/state/active-contracts', async (c) => {
    const opened = openActiveContracts(c.get('engine'), c.get('claims'), await readJsonBody(c));
    return c.json(await listOf(c.get('engine'), c.get('claims'), opened, listParams(c)));
  });

  app.post('/v2/state/active-contracts-page', async (c) => {
    const engine = c.get('engine');
    const req = await decodeBody(c, GetActiveContractsPageRequestSchema);
    const filter = compileEventFormat(engine, req.eventFormat, 'eventFormat');
    authorizeRead(c, filter);
    let offset: number;
    let start = 0;
    if (req.pageToken) {
      const t = decodeToken(req.pageToken);
      if (!t || (req.activeAtOffset !== undefined && req.activeAtOffset !== t.offset)) {
        throw errors.invalidArgument('Invalid page token');
      }
      offset = checkActiveAt(engine, t.offset);
      start = t.index;
    } else {
      offset = checkActiveAt(engine, req.activeAtOffset ?? engine.readableEnd());
    }
    const size = req.maxPageSize && req.maxPageSize > 0 ? Math.min(req.maxPageSize, DEFAULT_PAGE_SIZE) : DEFAULT_PAGE_SIZE;
    const all = acsAt(engine, filter, offset);
    const page = all.slice(start, start + size);
    const body: Record<string, unknown> = { activeContracts: page, activeAtOffset: offset };
    if (start + size < all.length) body.nextPageToken = token(offset, start + size);
    return c.json(body);
  });
};

/** `/v2/state/active-contracts`: the ACS at `activeAtOffset`, each element with its continuation token. */
export const openActiveContracts: StreamOpener = (engine, claims, body) => {
  const req = decodeValue(body, GetActiveContractsRequestSchema);
  if (req.eventFormat && req.filter) {
    throw errors.invalidArgument('Both event_format and filter are set. Please use either backwards compatible arguments (filter and verbose) or event_format, but not both.');
  }
  if (req.eventFormat && req.verbose) {
    throw errors.invalidArgument('Both event_format and verbose are set. Please use either backwards compatible arguments (filter and verbose) or event_format, but not both.');
  }
  if (!req.eventFormat && !req.filter) {
    throw errors.invalidArgument('Either filter/verbose or event_format is required. Please use either backwards compatible arguments (filter and verbose) or event_format.');
  }
  const format = req.eventFormat ?? { ...req.filter!, verbose: req.verbose ?? false };
  const filter = compileEventFormat(engine, format, req.eventFormat ? 'eventFormat' : 'filter');
  authorizeClaims(claims, filter);
  const offset = checkActiveAt(engine, req.activeAtOffset);
  let start = 0;
  if (req.streamContinuationToken) start = parseToken(req.streamContinuationToken, offset);
  const items = acsAt(engine, filter, offset).slice(start);
  return { kind: 'snapshot', items: items.map((item, i) => ({ ...item, streamContinuationToken: token(offset, start + i + 1) })) };
};

function authorizeRead(c: Context, f: EventFilter): void {
  authorizeClaims(c.get('claims'), f);
}
function authorizeClaims(claims: Claims, f: EventFilter): void {
  requireReadAs(claims, f.parties);
  if (f.anyParty) requireReadAsAnyParty(claims);
}

function checkActiveAt(engine: LedgerEngine, offset: number): number {
  if (offset < 0) {
    throw new LedgerApiError('NEGATIVE_OFFSET', `Offset ${offset} in active_at_offset is a negative integer: the offset has to be either a positive integer or zero`);
  }
  const end = engine.readableEnd();
  if (offset > end) throw errors.offsetAfterLedgerEnd('ACS', offset, end);
  return offset;
}

function acsAt(engine: LedgerEngine, f: EventFilter, offset: number): Record<string, unknown>[] {
  if (offset === 0) return [];
  const parties = f.anyParty ? undefined : f.parties;
  const contracts = engine.contracts.activeAt(offset, engine.ledgerEnd(), parties, templateKeysOf(engine, f));
  const out: Record<string, unknown>[] = [];
  for (const ct of contracts) {
    const item = activeContractJson(engine, ct, f);
    if (item) out.push(item);
  }
  return out;
}

function token(offset: number, index: number): string {
  return Buffer.from(`acs:${offset}:${index}`).toString('base64');
}
function decodeToken(t: string): { offset: number; index: number } | undefined {
  const m = /^acs:(\d+):(\d+)$/.exec(Buffer.from(t, 'base64').toString('utf8'));
  return m ? { offset: Number(m[1]), index: Number(m[2]) } : undefined;
}
function parseToken(t: string, offset: number): number {
  const d = decodeToken(t);
  if (!d || d.offset !== offset) throw errors.invalidArgument('Invalid stream continuation token');
  return d.index;
}
