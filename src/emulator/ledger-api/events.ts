/**
 * Projection of the ledger's records onto the JSON API's event shapes, per event format:
 * which events a request sees (filters by party, template, interface; ACS_DELTA vs
 * LEDGER_EFFECTS), their witness parties, interface views and blobs (Canton
 * openapi.yaml `EventFormat`, `CreatedEvent`; `LfValueTranslation.scala`). Every field is emitted, as Canton does.
 */
import { formatInstant } from '../../canton/clock.js';
import type { LedgerEngine } from '../participant/engine.js';
import { errors, invalidBody, LedgerApiError } from '../../canton/errors.js';
import { parseIdRef, resolveRef } from '../participant/identifiers.js';
import type { InterfaceDef, InterfaceImpl } from '../participant/templates.js';
import { damlErrorToLedger, internalEvaluationError, isDamlError } from '../daml-lf/ledger-errors.js';
import type { ContractRecord, QualifiedId } from '../participant/types.js';
import { formatId, nameKey, stakeholdersOf } from '../participant/types.js';
import type { CreateNode, ExerciseNode, TransactionRecord } from '../participant/updates.js';
import type { EventFormat, Filters } from '../../ledger-client/schemas/common.js';

export type Shape = 'ACS_DELTA' | 'LEDGER_EFFECTS';

interface PartyFilter {
  /** Template wildcard: every template matches. */
  wildcard: boolean;
  wildcardBlob: boolean;
  templates: Map<string, { blob: boolean }>;
  interfaces: Map<string, { def: InterfaceDef; view: boolean; blob: boolean }>;
}

export interface EventFilter {
  byParty: Map<string, PartyFilter>;
  anyParty?: PartyFilter;
  /** Parties named in filtersByParty. */
  parties: ReadonlySet<string>;
}

/**
 * A party's filter that names no template or interface (`cumulative` empty, or only Empty
 * filters): every template. Shared, not rebuilt per party: a request may name tens of thousands
 * of parties with this filter (Canton bounds a request only by its size), and the filter is
 * read, never changed, once compiled.
 */
const ALL_TEMPLATES: PartyFilter = Object.freeze({ wildcard: true, wildcardBlob: false, templates: new Map(), interfaces: new Map() });

/**
 * Compiles an EventFormat, resolving template and interface ids. `path` is the JSON path of the
 * format in the request, for tapir-style decode errors. Linear in the size of the format, with a
 * small constant per party (see ALL_TEMPLATES).
 */
export function compileEventFormat(engine: LedgerEngine, format: Pick<EventFormat, 'filtersByParty' | 'filtersForAnyParty'>, path: string): EventFilter {
  const byParty = new Map<string, PartyFilter>();
  const missing: string[] = [];
  const filtersByParty = format.filtersByParty ?? {};
  for (const party of Object.keys(filtersByParty)) {
    const filters = filtersByParty[party]!;
    byParty.set(party, filters.cumulative.length === 0 ? ALL_TEMPLATES : compileFilters(engine, filters, `${path}.filtersByParty.${party}`, missing));
  }
  const anyParty = format.filtersForAnyParty ? compileFilters(engine, format.filtersForAnyParty, `${path}.filtersForAnyParty`, missing) : undefined;
  if (missing.length > 0) throw errors.templatesOrInterfacesNotFound(missing);
  if (byParty.size === 0 && !anyParty) {
    throw errors.invalidArgument('filtersByParty and filtersForAnyParty cannot be empty simultaneously');
  }
  return { byParty, anyParty, parties: new Set(byParty.keys()) };
}

function compileFilters(engine: LedgerEngine, filters: Filters, path: string, missing: string[]): PartyFilter {
  if (filters.cumulative.every((cf) => !cf.identifierFilter || 'Empty' in cf.identifierFilter)) return ALL_TEMPLATES;
  const pf: PartyFilter = { wildcard: false, wildcardBlob: false, templates: new Map(), interfaces: new Map() };
  filters.cumulative.forEach((cf, i) => {
    const f = cf.identifierFilter;
    if (!f || 'Empty' in f) return;
    if ('WildcardFilter' in f) {
      pf.wildcard = true;
      pf.wildcardBlob ||= f.WildcardFilter.value.includeCreatedEventBlob;
    } else if ('TemplateFilter' in f) {
      const id = f.TemplateFilter.value.templateId;
      const ref = parseIdRef(id);
      if (!ref) throw invalidIdentifier(id, `${path}.cumulative[${i}].identifierFilter.TemplateFilter.value.templateId`);
      const r = resolveRef(ref, engine.templates);
      if (!r || r.kind !== 'template') {
        missing.push(id);
        return;
      }
      const k = nameKey(r.def.id);
      pf.templates.set(k, { blob: (pf.templates.get(k)?.blob ?? false) || f.TemplateFilter.value.includeCreatedEventBlob });
    } else {
      const v = f.InterfaceFilter.value;
      const ref = parseIdRef(v.interfaceId);
      if (!ref) throw invalidIdentifier(v.interfaceId, `${path}.cumulative[${i}].identifierFilter.InterfaceFilter.value.interfaceId`);
      const r = resolveRef(ref, engine.templates);
      if (!r || r.kind !== 'interface') {
        missing.push(v.interfaceId);
        return;
      }
      const k = nameKey(r.def.id);
      const prev = pf.interfaces.get(k);
      pf.interfaces.set(k, {
        def: r.def,
        view: (prev?.view ?? false) || v.includeInterfaceView,
        blob: (prev?.blob ?? false) || v.includeCreatedEventBlob,
      });
    }
  });
  return pf;
}

export function invalidIdentifier(id: string, path: string) {
  return invalidBody(
    `Invalid identifier format (${id}) not matching the expected format (<package>:<moduleName>:<entityName>)`,
    path,
  );
}

/** Template name keys that bound a query, or undefined when some filter is a wildcard. */
export function templateKeysOf(engine: LedgerEngine, f: EventFilter): Set<string> | undefined {
  const out = new Set<string>();
  const all = [...f.byParty.values(), ...(f.anyParty ? [f.anyParty] : [])];
  for (const pf of all) {
    if (pf.wildcard) return undefined;
    for (const k of pf.templates.keys()) out.add(k);
    for (const k of pf.interfaces.keys()) for (const t of engine.templates.implementorsOf(k)) out.add(nameKey(t.id));
  }
  return out;
}

interface Match {
  blob: boolean;
  views: Map<string, InterfaceDef>;
}

function matchTemplate(engine: LedgerEngine, pf: PartyFilter, templateId: QualifiedId, acc: Match): boolean {
  let matched = false;
  if (pf.wildcard) {
    matched = true;
    acc.blob ||= pf.wildcardBlob;
  }
  const t = pf.templates.get(nameKey(templateId));
  if (t) {
    matched = true;
    acc.blob ||= t.blob;
  }
  if (pf.interfaces.size > 0) {
    const def = engine.templates.templateById(templateId);
    for (const impl of def?.implements ?? []) {
      const i = pf.interfaces.get(nameKey(impl.interface.id));
      if (!i) continue;
      matched = true;
      acc.blob ||= i.blob;
      if (i.view) acc.views.set(nameKey(i.def.id), i.def);
    }
  }
  return matched;
}

/**
 * Which requesting parties see an event about `templateId` whose visible-to set is `visibleTo`,
 * and what the matching filters ask for. Returns undefined when the event is filtered out.
 */
export function matchEvent(
  engine: LedgerEngine,
  f: EventFilter,
  templateId: QualifiedId,
  visibleTo: readonly string[] | ReadonlySet<string>,
): { witnesses: string[]; match: Match } | undefined {
  const match: Match = { blob: false, views: new Map() };
  // A participant reports only what the parties it hosts see (another participant's parties see
  // nothing here, wildcard or not).
  const hosted = engine.hostedFilter();
  // Witnesses are a set on the participant: reported in party order.
  const visible = (hosted ? [...visibleTo].filter(hosted) : [...visibleTo]).sort();
  if (f.anyParty && matchTemplate(engine, f.anyParty, templateId, match)) {
    // party-wildcard filters: the witness set is not restricted by a party list (as Canton's ACS and update services)
    for (const p of visible) {
      const pf = f.byParty.get(p);
      if (pf) matchTemplate(engine, pf, templateId, match);
    }
    return visible.length > 0 ? { witnesses: visible, match } : undefined;
  }
  const witnesses: string[] = [];
  for (const p of visible) {
    const pf = f.byParty.get(p);
    if (pf && matchTemplate(engine, pf, templateId, match)) witnesses.push(p);
  }
  return witnesses.length > 0 ? { witnesses, match } : undefined;
}

export function createdEventJson(
  engine: LedgerEngine,
  c: ContractRecord,
  witnesses: string[],
  match: Match,
  acsDelta: boolean,
): Record<string, unknown> {
  const def = engine.templates.templateById(c.templateId);
  const interfaceViews = [...match.views.values()].map((iface) => {
    const impl = def?.implements.find((i) => nameKey(i.interface.id) === nameKey(iface.id));
    const view = viewOf(impl, c.payload, def?.kind === 'daml');
    return {
      interfaceId: formatId(iface.id),
      viewStatus: view.status,
      viewValue: view.value,
      implementationPackageId: c.templateId.packageId,
    };
  });
  return {
    offset: c.createdOffset,
    nodeId: c.createdNodeId,
    contractId: c.contractId,
    templateId: formatId(c.templateId),
    contractKey: c.key ? c.key.value : null,
    contractKeyHash: c.key ? Buffer.from(c.key.hash, 'hex').toString('base64') : '',
    createArgument: c.payload,
    createdEventBlob: match.blob ? c.blob : '',
    interfaceViews,
    witnessParties: witnesses,
    signatories: c.signatories,
    observers: c.observers,
    createdAt: formatInstant(c.createdAtMicros),
    packageName: c.templateId.packageName,
    representativePackageId: c.templateId.packageId,
    acsDelta,
  };
}

/** A `JsGetActiveContractsResponse` element for an active contract. */
export function activeContractJson(engine: LedgerEngine, c: ContractRecord, f: EventFilter): Record<string, unknown> | undefined {
  const m = matchEvent(engine, f, c.templateId, stakeholdersOf(c));
  if (!m) return undefined;
  return {
    workflowId: '',
    contractEntry: {
      JsActiveContract: {
        createdEvent: createdEventJson(engine, c, m.witnesses, m.match, true),
        synchronizerId: c.synchronizerId,
        reassignmentCounter: 0,
      },
    },
  };
}

/** Events of one transaction as seen through `f` in `shape`; empty when nothing is visible. */
export function transactionEvents(engine: LedgerEngine, tx: TransactionRecord, f: EventFilter, shape: Shape): Array<{ nodeId: number; event: Record<string, unknown> }> {
  const out: Array<{ nodeId: number; event: Record<string, unknown> }> = [];
  for (const node of tx.nodes) {
    if (node.kind === 'create') {
      const ev = createdNodeEvent(engine, tx, node, f, shape);
      if (ev) out.push({ nodeId: node.nodeId, event: { CreatedEvent: ev } });
    } else {
      const ev = exerciseNodeEvent(engine, tx, node, f, shape);
      if (ev) out.push({ nodeId: node.nodeId, event: ev });
    }
  }
  return out;
}

function createdNodeEvent(engine: LedgerEngine, tx: TransactionRecord, node: CreateNode, f: EventFilter, shape: Shape) {
  const c = node.contract;
  const stakeholders = stakeholdersOf(c);
  if (shape === 'ACS_DELTA') {
    if (node.transient) return undefined;
    const m = matchEvent(engine, f, c.templateId, stakeholders);
    return m && createdEventJson(engine, c, m.witnesses, m.match, true);
  }
  const m = matchEvent(engine, f, c.templateId, node.witnesses);
  if (!m) return undefined;
  const acsDelta = !node.transient && stakeholders.some((p) => f.anyParty !== undefined || f.parties.has(p));
  void tx;
  return createdEventJson(engine, c, m.witnesses, m.match, acsDelta);
}

function exerciseNodeEvent(engine: LedgerEngine, tx: TransactionRecord, node: ExerciseNode, f: EventFilter, shape: Shape) {
  if (shape === 'ACS_DELTA') {
    if (!node.consuming || node.onTransient) return undefined;
    const m = matchEvent(engine, f, node.templateId, node.stakeholders);
    if (!m) return undefined;
    return {
      ArchivedEvent: {
        offset: tx.offset,
        nodeId: node.nodeId,
        contractId: node.contractId,
        templateId: formatId(node.templateId),
        witnessParties: m.witnesses,
        packageName: node.templateId.packageName,
        implementedInterfaces: m.match.views.size > 0 ? node.implementedInterfaces.filter((i) => m.match.views.has(nameKey(i))).map(formatId) : [],
      },
    };
  }
  const m = matchEvent(engine, f, node.templateId, node.witnesses);
  if (!m) return undefined;
  const acsDelta = node.consuming && !node.onTransient && node.stakeholders.some((p) => f.anyParty !== undefined || f.parties.has(p));
  return {
    ExercisedEvent: {
      offset: tx.offset,
      nodeId: node.nodeId,
      contractId: node.contractId,
      templateId: formatId(node.templateId),
      interfaceId: node.interfaceId ? formatId(node.interfaceId) : null,
      choice: node.choice,
      choiceArgument: node.choiceArgument,
      actingParties: node.actingParties,
      consuming: node.consuming,
      witnessParties: m.witnesses,
      lastDescendantNodeId: node.lastDescendantNodeId,
      exerciseResult: node.exerciseResult,
      packageName: node.templateId.packageName,
      implementedInterfaces: m.match.views.size > 0 ? node.implementedInterfaces.filter((i) => m.match.views.has(nameKey(i))).map(formatId) : [],
      acsDelta,
    },
  };
}

/** Whether the requester sees the command id: only the submitting parties do, on the submitting participant (a delivered copy has none). */
function commandIdFor(tx: TransactionRecord, f: EventFilter): string {
  if (f.anyParty) return tx.commandId;
  return tx.actAs.some((p) => f.parties.has(p)) ? tx.commandId : '';
}

/** `JsTransaction`, or undefined when no event is visible through `f`. */
export function transactionJson(engine: LedgerEngine, tx: TransactionRecord, f: EventFilter, shape: Shape): Record<string, unknown> | undefined {
  const events = transactionEvents(engine, tx, f, shape);
  if (events.length === 0) return undefined;
  return transactionEnvelope(tx, commandIdFor(tx, f), events.map((e) => e.event));
}

/** The `JsTransaction` fields around a list of events (every field emitted, as Canton does). */
export function transactionEnvelope(tx: TransactionRecord, commandId: string, events: unknown[]): Record<string, unknown> {
  return {
    updateId: tx.updateId,
    commandId,
    workflowId: tx.workflowId,
    effectiveAt: formatInstant(tx.effectiveAtMicros),
    events,
    offset: tx.offset,
    synchronizerId: tx.synchronizerId,
    traceContext: null,
    recordTime: formatInstant(tx.recordTimeMicros),
    externalTransactionHash: tx.externalTransactionHash ?? null,
    // The cost this participant paid for the request (every transaction of the emulated ledger is
    // submitted here), when the synchronizer meters traffic; like the command id, only for a
    // reader among the submitting parties (JsTransaction.paidTrafficCost: "Not set for
    // transactions … returned as part of a query filtering for a non submitting party").
    paidTrafficCost: tx.paidTrafficCost === undefined || commandId === '' ? null : Number(tx.paidTrafficCost),
  };
}

/** Deprecated `JsTransactionTree` (LEDGER_EFFECTS events keyed by node id). */
export function transactionTreeJson(engine: LedgerEngine, tx: TransactionRecord, f: EventFilter): Record<string, unknown> | undefined {
  const events = transactionEvents(engine, tx, f, 'LEDGER_EFFECTS');
  if (events.length === 0) return undefined;
  const eventsById: Record<string, unknown> = {};
  for (const { nodeId, event } of events) {
    eventsById[String(nodeId)] =
      'CreatedEvent' in event ? { CreatedTreeEvent: { value: event.CreatedEvent } } : { ExercisedTreeEvent: { value: event.ExercisedEvent } };
  }
  return {
    updateId: tx.updateId,
    commandId: commandIdFor(tx, f),
    workflowId: tx.workflowId,
    effectiveAt: formatInstant(tx.effectiveAtMicros),
    offset: tx.offset,
    eventsById,
    synchronizerId: tx.synchronizerId,
    traceContext: null,
    recordTime: formatInstant(tx.recordTimeMicros),
  };
}

/** Wildcard filters for the given parties (used when a request names parties but no format). */
export function wildcardFilterFor(parties: Iterable<string>): EventFilter {
  const byParty = new Map<string, PartyFilter>();
  for (const p of parties) byParty.set(p, ALL_TEMPLATES);
  return { byParty, parties: new Set(byParty.keys()) };
}

export function shapeOf(s: string): Shape {
  if (s === 'TRANSACTION_SHAPE_ACS_DELTA') return 'ACS_DELTA';
  if (s === 'TRANSACTION_SHAPE_LEDGER_EFFECTS') return 'LEDGER_EFFECTS';
  throw new LedgerApiError('MISSING_FIELD', 'The submitted command is missing a mandatory field: transaction_shape');
}

/**
 * An interface view, or the status of its failure: an evaluated view (Daml code) can fail, and
 * Canton then reports the error in `viewStatus` with no value instead of failing the read.
 */
function viewOf(impl: InterfaceImpl | undefined, payload: unknown, evaluated: boolean): { status: { code: number; message: string; details: [] }; value: unknown } {
  if (!impl) return { status: { code: 0, message: '', details: [] }, value: null };
  if (!evaluated) return { status: { code: 0, message: '', details: [] }, value: impl.view(payload) };
  try {
    return { status: { code: 0, message: '', details: [] }, value: impl.view(payload) };
  } catch (e) {
    const err = isDamlError(e) ? damlErrorToLedger(e) : e instanceof LedgerApiError ? e : internalEvaluationError(e);
    return { status: { code: err.grpcCode, message: err.message, details: [] }, value: null };
  }
}
