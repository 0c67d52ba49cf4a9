/**
 * Selectors compiled once (their value expressions parsed), the contracts one selects in a request
 * (from the contract index, or by id), and picking one where one is expected.
 */
import { parseInstant } from '../../../canton/clock.js';
import { type IndexedContract, templateKey } from '../../../contracts/indexed-contract.js';
import { asList, compare, jsonEqual, show } from './json-values.js';
import { compileTemplate, type Template } from './messages.js';
import { valueAt } from './paths.js';
import { badRequest, RegistryError } from '../../errors.js';
import type { RecipeEnv } from '../recipe.js';
import type { FactoryContextEntry, PerContractContextEntry } from './schema/document.js';
import { parseValueExpr, splitPath, type ValueExpr } from './schema/paths-and-values.js';
import { type ContractSelector, expressionsOf, matchCondition, type MatchOp, type MatchValue } from './schema/selectors.js';
import type { DirectRule } from './schema/transfer-kind.js';
import type { Scope } from './scope.js';
import { evaluate, evaluateMany } from './value-expressions.js';

/** A selector with its value expressions parsed once. */
export interface CompiledSelector {
  /** `#package-name:Module:Entity` as configured. */
  ref: string;
  /** Index key: `package-name:Module:Entity`. */
  key: string;
  /** Index keys of `orTemplateIds`. */
  orKeys: string[];
  byInterface: boolean;
  fields: Array<{ path: string[]; text: string; expr: ValueExpr; op: MatchOp; default?: ValueExpr }>;
  id?: { text: string; expr: ValueExpr };
  synchronizerId?: string;
  pick: 'unique' | 'newest' | 'oldest' | { max: string } | { min: string };
  missingError?: Template;
  /** The names of the selections the selector's expressions read. */
  deps: string[];
}

export function flat(perItem: ReadonlyArray<{ found: IndexedContract[] }>): IndexedContract[] {
  const seen = new Set<string>();
  const out: IndexedContract[] = [];
  for (const { found } of perItem) for (const c of found) if (!seen.has(c.contractId)) (seen.add(c.contractId), out.push(c));
  return out;
}

/**
 * The active contracts a selector matches, in the index's order: one result for the selector,
 * or one per element when a match value is a list expression (a `*` path, a `$ref` to a list,
 * or a `$id` list).
 */
export async function select(sel: CompiledSelector, scope: Scope, env: RecipeEnv): Promise<Array<{ item: unknown; found: IndexedContract[] }>> {
  const values = sel.fields.map((f) => fieldValue(f, scope));
  const idValue = sel.id ? evaluateMany(sel.id.expr, scope) : undefined;
  // the list to iterate: the $id's (a list of ids always finds each), else the first list-valued field
  const listField = values.findIndex((v) => v.many);
  const items: unknown[] | undefined = idValue ? (idValue.many || Array.isArray(idValue.value) ? asList(idValue.value) : [idValue.value]) : listField >= 0 ? asList(values[listField]!.value) : undefined;
  const once = async (item: unknown): Promise<IndexedContract[]> => {
    const want = values.map((v, i) => (i === listField && !idValue ? item : v.value));
    const matches = (c: IndexedContract) =>
      (sel.synchronizerId === undefined || c.synchronizerId === sel.synchronizerId) &&
      sel.fields.every((f, i) => {
        const have = valueAt(c.payload, f.path);
        if (f.op === 'eq') return jsonEqual(have, want[i]);
        const c0 = compare(have, want[i]);
        return c0 !== undefined && (f.op === 'lt' ? c0 < 0 : f.op === 'lte' ? c0 <= 0 : f.op === 'gt' ? c0 > 0 : c0 >= 0);
      });
    if (!sel.id) return [sel.key, ...sel.orKeys].flatMap((k) => env.index.find(k, matches));
    if (typeof item !== 'string' || item === '') return [];
    if (sel.id.expr.kind === 'args' && !/^[0-9a-f]{2,}$/.test(item)) throw badRequest(`${sel.id.expr.path[0]!}: "${item}" is not a contract id`);
    const c = await env.index.getById(item);
    const key = c && templateKey(c.packageName, c.templateId);
    return c && (key === sel.key || sel.orKeys.includes(key!)) && matches(c) ? [c] : [];
  };
  if (items === undefined) return [{ item: undefined, found: await once(undefined) }];
  const out: Array<{ item: unknown; found: IndexedContract[] }> = [];
  for (const item of items) {
    if (item === null || item === undefined) continue;
    out.push({ item, found: await once(item) });
  }
  return out;
}

export function pickOne(sel: CompiledSelector, found: IndexedContract[], scope: Scope, what: string): IndexedContract {
  if (found.length === 1) return found[0]!;
  if (sel.pick === 'unique') {
    throw new RegistryError(
      'INTERNAL',
      `${what} expects one contract, but ${found.length} contracts are ${describe(sel, scope)}: ${found.map((c) => c.contractId).join(', ')}. ` +
        'Add a match field that tells them apart, or set "pick": "newest" in the recipe',
    );
  }
  const by = sel.pick;
  if (typeof by === 'object') {
    const path = splitPath('max' in by ? by.max : by.min);
    const sign = 'max' in by ? 1 : -1;
    return found.reduce((best, c) => ((compare(valueAt(c.payload, path), valueAt(best.payload, path)) ?? 0) * sign > 0 ? c : best));
  }
  const time = (c: IndexedContract) => parseInstant(c.createdAt) ?? 0n;
  const sorted = [...found].sort((a, b) => (time(a) < time(b) ? -1 : time(a) > time(b) ? 1 : a.contractId < b.contractId ? -1 : 1));
  return by === 'newest' ? sorted[sorted.length - 1]! : sorted[0]!;
}

/** `#pkg:Mod:Ent with admin = "…", instrumentId = "X" ($args.transfer.instrumentId.id)` */
function describe(sel: CompiledSelector, scope: Scope): string {
  const OPS = { eq: '=', lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;
  const conds = sel.fields.map((f) => `${f.path.join('.')} ${OPS[f.op]} ${show(fieldValue(f, scope).value)}${f.expr.kind === 'literal' ? '' : ` (${f.text})`}`);
  if (sel.id) conds.unshift(`contract id ${show(evaluate(sel.id.expr, scope))} (${sel.id.text})`);
  if (sel.synchronizerId !== undefined) conds.push(`synchronizer ${sel.synchronizerId}`);
  const subject = `${sel.byInterface ? 'a contract implementing ' : ''}${sel.ref}`;
  return conds.length > 0 ? `${subject} with ${conds.join(', ')}` : subject;
}

export function missing(sel: CompiledSelector, scope: Scope): string {
  return `the registry admin sees no active ${describe(sel, scope)}`;
}

/** The value a match field compares with: its expression's, or its `default` when that is absent. */
function fieldValue(f: CompiledSelector['fields'][number], scope: Scope): { many: boolean; value: unknown } {
  const v = evaluateMany(f.expr, scope);
  return v.value === undefined && f.default !== undefined ? evaluateMany(f.default, scope) : v;
}

export function compileSelector(s: (ContractSelector | DirectRule | FactoryContextEntry | PerContractContextEntry) & { value?: string | boolean | null | undefined }): CompiledSelector {
  const ref = s.templateId ?? s.interfaceId ?? '';
  const out: CompiledSelector = { ref, key: ref.slice(1), orKeys: ('orTemplateIds' in s ? (s.orTemplateIds ?? []) : []).map((t) => t.slice(1)), byInterface: s.templateId === undefined && s.interfaceId !== undefined, fields: [], pick: s.pick, deps: [] };
  const deps = new Set<string>();
  for (const [field, raw] of Object.entries(s.match) as Array<[string, MatchValue]>) {
    const { op, value: v, default: d } = matchCondition(raw);
    const expr = parseValueExpr(v);
    const dflt = d === undefined ? undefined : parseValueExpr(d);
    // validateDeclarativeRecipe rejects these; a hand-built config gets the same message.
    if (typeof expr === 'string') throw new Error(`declarative recipe: ${field}: ${expr}`);
    if (typeof dflt === 'string') throw new Error(`declarative recipe: ${field}.default: ${dflt}`);
    if (field === '$id') out.id = { text: String(v), expr };
    else out.fields.push({ path: field.split('.'), text: String(v), expr, op, ...(dflt !== undefined ? { default: dflt } : {}) });
  }
  for (const { expr } of expressionsOf(s)) if (typeof expr !== 'string' && (expr.kind === 'ref' || expr.kind === 'found')) deps.add(expr.name);
  if (s.synchronizerId !== undefined) out.synchronizerId = s.synchronizerId;
  if (s.missingError !== undefined) out.missingError = compileTemplate(s.missingError);
  out.deps = [...deps];
  return out;
}
