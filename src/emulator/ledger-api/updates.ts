/**
 * Update service: update streams (list form), point lookups by id and offset, the deprecated
 * flat/tree variants, 3.5's paged updates (openapi.yaml, `JsUpdateService.scala`) and 3.6's
 * update-by-hash.
 */
import type { Context } from 'hono';
import type { RouteModule } from './route-module.js';
import { decodeBody, decodeValue, readJsonBody } from './decode.js';
import { compileEventFormat, shapeOf, transactionJson, transactionTreeJson, wildcardFilterFor, type EventFilter, type Shape } from './events.js';
import { listOf, listParams } from './lists.js';
import type { LogStream, StreamOpener } from './streams.js';
import { requireReadAs, requireReadAsAnyParty, type Claims } from '../participant/claims.js';
import type { LedgerEngine } from '../participant/engine.js';
import { errors, LedgerApiError, PlainTextBadRequest } from '../../canton/errors.js';
import type { TransactionRecord } from '../participant/updates.js';
import { UpdateFormatSchema, type TransactionFormat, type UpdateFormat } from '../../ledger-client/schemas/common.js';
import {
  GetTransactionByIdRequestSchema,
  GetTransactionByOffsetRequestSchema,
  GetUpdateByHashRequestSchema,
  GetUpdateByIdRequestSchema,
  GetUpdateByOffsetRequestSchema,
  GetUpdatesRequestSchema,
} from '../../ledger-client/schemas/state.js';
import { z } from 'zod';

interface TxView {
  filter: EventFilter;
  shape: Shape;
}

const GetUpdatesPageRequestSchema = z.object({
  beginOffsetExclusive: z.number().int().default(0),
  endOffsetInclusive: z.number().int().optional(),
  maxPageSize: z.number().int().optional(),
  updateFormat: z.unknown().optional(),
  descendingOrder: z.boolean().default(false),
  pageToken: z.string().optional(),
});

export const updateRoutes: RouteModule = (app) => {
  const stream = (tree: boolean) => async (c: Context) => {
    const opened = (tree ? openUpdateTrees : openUpdates)(c.get('engine'), c.get('claims'), await readJsonBody(c));
    return c.json(await listOf(c.get('engine'), c.get('claims'), opened, listParams(c)));
  };
  app.post('/v2/updates', stream(false));
  app.post('/v2/updates/flats', stream(false));
  app.post('/v2/updates/trees', stream(true));

  app.post('/v2/updates/update-by-id', async (c) => {
    const engine = c.get('engine');
    const req = await decodeBody(c, GetUpdateByIdRequestSchema);
    const view = viewOf(engine, req.updateFormat, 'updateFormat');
    return c.json({ update: { Transaction: { value: lookup(c, view, engine.updates.byId(req.updateId), ['UPDATE_ID', req.updateId]) } } });
  });
  // 3.6: the update of an interactive submission, by its prepared-transaction hash (base64 in the
  // request, hex in the not-found resource), with update-by-id's format handling and visibility
  // (digital-asset/canton: community/ledger/ledger-api-core/.../apiserver/services/ApiUpdateService.scala,
  // getUpdateByHash; .../auth/services/UpdateServiceAuthorization.scala).
  app.post('/v2/updates/update-by-hash', async (c) => {
    const engine = c.get('engine');
    const req = await decodeBody(c, GetUpdateByHashRequestSchema);
    const view = viewOf(engine, req.updateFormat, 'updateFormat');
    if (view) authorize(c, view.filter);
    const hash = Buffer.from(req.transactionHash, 'base64');
    if (hash.length === 0) throw errors.missingField('transaction_hash');
    const tx = engine.updates.byExternalHash(hash.toString('base64'));
    return c.json({ update: { Transaction: { value: lookup(c, view, tx, ['TRANSACTION_HASH', hash.toString('hex')]) } } });
  });
  app.post('/v2/updates/update-by-offset', async (c) => {
    const engine = c.get('engine');
    const req = await decodeBody(c, GetUpdateByOffsetRequestSchema);
    const view = viewOf(engine, req.updateFormat, 'updateFormat');
    const tx = offsetTx(engine, req.offset);
    return c.json({ update: { Transaction: { value: lookup(c, view, tx, ['OFFSET', String(req.offset)]) } } });
  });
  app.post('/v2/updates/transaction-by-id', async (c) => {
    const engine = c.get('engine');
    const req = await decodeBody(c, GetTransactionByIdRequestSchema);
    const view = legacyView(engine, req.requestingParties, req.transactionFormat);
    return c.json({ transaction: lookup(c, view, engine.updates.byId(req.updateId), ['UPDATE_ID', req.updateId]) });
  });
  app.post('/v2/updates/transaction-by-offset', async (c) => {
    const engine = c.get('engine');
    const req = await decodeBody(c, GetTransactionByOffsetRequestSchema);
    const view = legacyView(engine, req.requestingParties, req.transactionFormat);
    return c.json({ transaction: lookup(c, view, offsetTx(engine, req.offset), ['OFFSET', String(req.offset)]) });
  });

  const treeBy = (find: (engine: LedgerEngine, c: Context) => { tx: TransactionRecord | undefined; resource: [string, string] }) => async (c: Context) => {
    const engine: LedgerEngine = c.get('engine');
    const parties = c.req.queries('parties') ?? [];
    if (parties.length === 0) throw errors.missingField('requesting_parties');
    const filter = wildcardFilterFor(parties);
    requireReadAs(c.get('claims'), filter.parties);
    const { tx, resource } = find(engine, c);
    const tree = tx && transactionTreeJson(engine, tx, filter);
    if (!tree) throw notFound(resource);
    return c.json({ transaction: tree });
  };
  app.get('/v2/updates/transaction-tree-by-id/:updateId', treeBy((engine, c) => {
    const id = c.req.param('updateId')!;
    return { tx: engine.updates.byId(id), resource: ['UPDATE_ID', id] };
  }));
  app.get('/v2/updates/transaction-tree-by-offset/:offset', treeBy((engine, c) => {
    const raw = c.req.param('offset')!;
    if (!/^\d+$/.test(raw)) throw new PlainTextBadRequest('Invalid value for: path parameter offset');
    return { tx: offsetTx(engine, Number(raw)), resource: ['OFFSET', raw] };
  }));

  app.post('/v2/updates/get-updates-page', async (c) => {
    const engine = c.get('engine');
    const req = await decodeBody(c, GetUpdatesPageRequestSchema);
    if (req.updateFormat === undefined) throw errors.missingField('update_format');
    const format = decodeValue(req.updateFormat, UpdateFormatSchema);
    const view = viewOf(engine, format, 'updateFormat');
    if (view) authorize(c, view.filter);
    let begin = req.beginOffsetExclusive;
    const end = Math.min(req.endOffsetInclusive ?? engine.readableEnd(), engine.readableEnd());
    if (req.pageToken) {
      const m = /^upd:(\d+)$/.exec(Buffer.from(req.pageToken, 'base64').toString('utf8'));
      if (!m) throw errors.invalidArgument('Invalid page token');
      begin = Number(m[1]);
    }
    const size = req.maxPageSize && req.maxPageSize > 0 ? Math.min(req.maxPageSize, 1000) : 100;
    const parties = view && !view.filter.anyParty ? view.filter.parties : undefined;
    const txs = engine.updates.range(begin, end, parties);
    const updates: unknown[] = [];
    let highest = begin;
    for (const tx of txs) {
      if (updates.length >= size) break;
      const t = view && transactionJson(engine, tx, view.filter, view.shape);
      highest = tx.offset;
      if (t) updates.push({ update: { Transaction: { value: t } } });
    }
    if (updates.length < size) highest = end;
    const body: Record<string, unknown> = { updates, lowestPageOffsetExclusive: begin, highestPageOffsetInclusive: highest };
    if (req.endOffsetInclusive === undefined || highest < end) body.nextPageToken = Buffer.from(`upd:${highest}`).toString('base64');
    return c.json(body);
  });
};

/** `/v2/updates` and `/v2/updates/flats`: `update_format`, or the legacy `filter`/`verbose` (ACS_DELTA). */
export const openUpdates: StreamOpener = (engine, claims, body) => openUpdateStream(engine, claims, body, false);
/** `/v2/updates/trees`: the legacy `filter`/`verbose`, rendered as LEDGER_EFFECTS transaction trees. */
export const openUpdateTrees: StreamOpener = (engine, claims, body) => openUpdateStream(engine, claims, body, true);

function openUpdateStream(engine: LedgerEngine, claims: Claims, body: unknown, tree: boolean): LogStream {
  const req = decodeValue(body, GetUpdatesRequestSchema);
  if (req.filter && req.updateFormat) {
    throw errors.invalidArgument('Both update_format and filter are set. Please use either backwards compatible arguments (filter and verbose) or update_format, but not both.');
  }
  let view: TxView | undefined;
  if (req.filter || tree) {
    if (!req.filter) throw errors.invalidArgument('Either filter/verbose or update_format is required. Please use either backwards compatible arguments (filter and verbose) or update_format.');
    view = { filter: compileEventFormat(engine, req.filter, 'filter'), shape: tree ? 'LEDGER_EFFECTS' : 'ACS_DELTA' };
  } else if (req.updateFormat) {
    view = viewOf(engine, req.updateFormat, 'updateFormat');
  } else {
    throw errors.invalidArgument('Either filter/verbose or update_format is required. Please use either backwards compatible arguments (filter and verbose) or update_format.');
  }
  if (view) authorizeClaims(claims, view.filter);
  const begin = req.beginExclusive;
  if (begin < 0) throw new LedgerApiError('NEGATIVE_OFFSET', `Offset ${begin} in begin_exclusive is a negative integer: the offset has to be either a positive integer or zero`);
  const end = engine.readableEnd();
  if (begin > end) throw errors.offsetAfterLedgerEnd('Begin', begin, end);
  if (req.endInclusive !== undefined) {
    if (req.endInclusive > end) throw errors.offsetAfterLedgerEnd('End', req.endInclusive, end);
    if (req.endInclusive < begin) {
      throw new LedgerApiError('OFFSET_OUT_OF_RANGE', `Begin offset ${begin} is after end offset ${req.endInclusive}`);
    }
  }
  const render = (tx: TransactionRecord): unknown[] => {
    if (!view) return [];
    if (tree) {
      const t = transactionTreeJson(engine, tx, view.filter);
      return t ? [{ update: { TransactionTree: { value: t } } }] : [];
    }
    const t = transactionJson(engine, tx, view.filter, view.shape);
    return t ? [{ update: { Transaction: { value: t } } }] : [];
  };
  return {
    kind: 'log',
    beginExclusive: begin,
    endInclusive: req.endInclusive,
    parties: view && !view.filter.anyParty ? view.filter.parties : undefined,
    descending: req.endInclusive !== undefined && req.descendingOrder,
    render,
  };
}

function viewOf(engine: LedgerEngine, f: UpdateFormat, path: string): TxView | undefined {
  if (!f.includeTransactions) return undefined;
  return txView(engine, f.includeTransactions, `${path}.includeTransactions`);
}
function txView(engine: LedgerEngine, f: TransactionFormat, path: string): TxView {
  return { filter: compileEventFormat(engine, f.eventFormat, `${path}.eventFormat`), shape: shapeOf(f.transactionShape) };
}

/** Legacy point lookups take either `requestingParties` or `transactionFormat` (Canton `JsUpdateService.scala`). */
function legacyView(engine: LedgerEngine, requestingParties: string[], format: TransactionFormat | undefined): TxView {
  if (requestingParties.length > 0 && format) {
    throw errors.invalidArgument('Both transaction_format and requesting_parties are set. Please use either backwards compatible arguments (requesting_parties) or transaction_format, but not both.');
  }
  if (format) return txView(engine, format, 'transactionFormat');
  if (requestingParties.length === 0) {
    throw errors.invalidArgument('Either transaction_format or requesting_parties is required. Please use either backwards compatible arguments (requesting_parties) or transaction_format.');
  }
  return { filter: wildcardFilterFor(requestingParties), shape: 'ACS_DELTA' };
}

function authorize(c: Context, f: EventFilter): void {
  authorizeClaims(c.get('claims'), f);
}
function authorizeClaims(claims: Claims, f: EventFilter): void {
  requireReadAs(claims, f.parties);
  if (f.anyParty) requireReadAsAnyParty(claims);
}

function offsetTx(engine: LedgerEngine, offset: number): TransactionRecord | undefined {
  if (offset <= 0) throw new LedgerApiError('NON_POSITIVE_OFFSET', `Offset ${offset} in offset is not a positive integer: the offset has to be a positive integer (>0)`);
  return engine.updates.atOffset(offset);
}

function notFound(resource: [string, string]): LedgerApiError {
  return new LedgerApiError('UPDATE_NOT_FOUND', 'Update not found, or not visible.', { resources: [resource] });
}

/** A transaction as seen through `view`; missing and invisible are the same 404 (`UPDATE_NOT_FOUND`). */
function lookup(c: Context, view: TxView | undefined, tx: TransactionRecord | undefined, resource: [string, string]): Record<string, unknown> {
  if (view) authorize(c, view.filter);
  const t = tx && view && transactionJson(c.get('engine'), tx, view.filter, view.shape);
  if (!t) throw notFound(resource);
  return t;
}

