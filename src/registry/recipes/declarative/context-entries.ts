/** Context entries compiled once, and their resolution in one request: each selection made once, the context assembled in list order. */
import type { AnyValue } from '../../../canton/lf-value.js';
import type { IndexedContract } from '../../../contracts/indexed-contract.js';
import { show } from './json-values.js';
import { render } from './messages.js';
import { holds } from './predicates.js';
import { notFound, RegistryError } from '../../errors.js';
import { contractIdValue, type RecipeEnv } from '../recipe.js';
import type { FactoryContextEntry, PerContractContextEntry } from './schema/document.js';
import { parseValueExpr, type ValueExpr } from './schema/paths-and-values.js';
import { type Predicate, predicateExpressions } from './schema/predicates.js';
import type { Scope } from './scope.js';
import { type CompiledSelector, compileSelector, flat, missing, pickOne, select } from './selection.js';
import { evaluate } from './value-expressions.js';

export interface CompiledEntry extends CompiledSelector {
  /** Absent for `as: "disclose"` and `"select"`. */
  contextKey?: string;
  name?: string;
  /** A value entry: no selector (its `key` is the empty template key). */
  value?: ValueExpr;
  when?: { found: boolean; name: string };
  /** The entry's `if` predicate. */
  if?: Predicate;
  required: boolean | 'each';
  as: 'contractId' | 'list' | 'disclose' | 'select';
  endpoints: readonly string[];
  /** Per-contract entries restricted to some templates (index keys). */
  templates?: ReadonlySet<string>;
}

/** What one entry (or the matched direct rule) contributes, in the order of the entries. */
export interface Slot {
  name?: string;
  values: Record<string, AnyValue>;
  disclose: IndexedContract[];
}

/**
 * The entries of one request: each entry's selection is made once, when first needed (an entry
 * may read a selection named later in the list, `when` or `$ref`), then the context is assembled
 * in list order.
 */
export class Resolution {
  private readonly memo = new Map<CompiledEntry, Promise<{ applies: boolean; found: IndexedContract[] }>>();
  private readonly pending = new Set<CompiledEntry>();

  constructor(
    private readonly entries: readonly CompiledEntry[],
    private readonly scope: Scope,
    private readonly env: RecipeEnv,
  ) {}

  async slots(): Promise<Slot[]> {
    const out: Slot[] = [];
    const lists = new Map<string, { ids: Set<string>; items: AnyValue[] }>();
    for (const e of this.entries) {
      const { applies, found } = await this.selected(e);
      const slot: Slot = { ...(e.name !== undefined ? { name: e.name } : {}), values: {}, disclose: [] };
      out.push(slot);
      if (!applies) continue;
      if (e.value !== undefined) {
        slot.values[e.contextKey!] = anyValueOf(evaluate(e.value, this.scope), e.contextKey!);
      } else if (e.as === 'select') {
        continue;
      } else if (e.as === 'disclose' || e.contextKey === undefined) {
        slot.disclose.push(...found);
      } else if (e.as === 'list') {
        // entries sharing a list key add to one list, each contract once
        let list = lists.get(e.contextKey);
        if (!list) lists.set(e.contextKey, (list = { ids: new Set(), items: [] }));
        for (const c of found) {
          if (list.ids.has(c.contractId)) continue;
          list.ids.add(c.contractId);
          list.items.push(contractIdValue(c.contractId));
          slot.disclose.push(c);
        }
        slot.values[e.contextKey] = { tag: 'AV_List', value: list.items };
      } else if (found.length > 0) {
        const one = pickOne(e, found, this.scope, `Context entry "${e.contextKey}"`);
        slot.values[e.contextKey] = contractIdValue(one.contractId);
        slot.disclose.push(one);
      }
    }
    return out;
  }

  /** Makes the named selections (before the context is assembled), e.g. for a `transferKind.self` predicate. */
  async need(names: readonly string[]): Promise<void> {
    for (const name of names) {
      if (this.scope.refs.has(name)) continue;
      const named = this.entries.find((x) => x.name === name);
      const r = named ? await this.selected(named) : { applies: false, found: [] };
      this.scope.refs.set(name, { contracts: r.applies ? r.found : [], many: named !== undefined && named.as !== 'contractId' });
    }
  }

  private selected(e: CompiledEntry): Promise<{ applies: boolean; found: IndexedContract[] }> {
    let r = this.memo.get(e);
    if (!r) {
      if (this.pending.has(e)) throw new RegistryError('INTERNAL', `Context entry "${e.name ?? e.contextKey ?? e.ref}" reads itself through $ref, $found or when`);
      this.pending.add(e);
      r = this.select(e);
      this.memo.set(e, r);
    }
    return r;
  }

  private async select(e: CompiledEntry): Promise<{ applies: boolean; found: IndexedContract[] }> {
    await this.need(e.deps);
    if (e.when && (this.scope.refs.get(e.when.name)?.contracts.length ?? 0) > 0 !== e.when.found) return { applies: false, found: [] };
    if (e.if && !holds(e.if, this.scope)) return { applies: false, found: [] };
    if (e.value !== undefined) return { applies: true, found: [] };
    const perItem = await select(e, this.scope, this.env);
    const found = flat(perItem);
    const what = e.contextKey !== undefined ? `context entry "${e.contextKey}"` : e.name !== undefined ? `selection "${e.name}"` : 'disclosed contracts';
    if (e.required === 'each') {
      const none = perItem.find((x) => x.found.length === 0);
      if (none) {
        const scope = { ...this.scope, item: none.item };
        throw notFound(e.missingError ? render(e.missingError, scope) : `No contract found for ${show(none.item)} in the required ${what}: ${missing(e, scope)}`);
      }
    } else if (found.length === 0 && e.required) {
      throw notFound(e.missingError ? render(e.missingError, this.scope) : `No contract found for the required ${what}: ${missing(e, this.scope)}`);
    }
    return { applies: true, found: e.as === 'contractId' && found.length > 0 ? [pickOne(e, found, this.scope, `Context entry "${e.contextKey}"`)] : found };
  }
}

/** A value entry's value as an AnyValue: a boolean, a text, or (absent) None-like `AV_Optional`. */
function anyValueOf(v: unknown, key: string): AnyValue {
  if (typeof v === 'boolean') return { tag: 'AV_Bool', value: v };
  if (typeof v === 'string') return { tag: 'AV_Text', value: v };
  throw new RegistryError('INTERNAL', `Context entry "${key}": its value ${show(v)} is neither a boolean nor a text`);
}

export function compileEntry(e: FactoryContextEntry | PerContractContextEntry, endpoints: readonly string[]): CompiledEntry {
  const sel = compileSelector(e);
  const when = e.when?.found !== undefined ? { found: true, name: e.when.found } : e.when?.missing !== undefined ? { found: false, name: e.when.missing } : undefined;
  if (when && !sel.deps.includes(when.name)) sel.deps.push(when.name);
  if (e.if) for (const { expr } of predicateExpressions(e.if, '')) if (typeof expr !== 'string' && (expr.kind === 'ref' || expr.kind === 'found') && !sel.deps.includes(expr.name)) sel.deps.push(expr.name);
  let value: ValueExpr | undefined;
  if (e.value !== undefined) {
    const v = parseValueExpr(e.value);
    if (typeof v === 'string') throw new Error(`declarative recipe: value: ${v}`);
    value = v;
  }
  const templates: unknown = 'templates' in e ? e.templates : undefined;
  return {
    ...sel,
    ...(e.key !== undefined ? { contextKey: e.key } : {}),
    ...(e.name !== undefined ? { name: e.name } : {}),
    ...(value !== undefined ? { value } : {}),
    ...(when ? { when } : {}),
    ...(e.if ? { if: e.if } : {}),
    ...(Array.isArray(templates) ? { templates: new Set(templates.filter((t): t is string => typeof t === 'string').map((t) => t.slice(1))) } : {}),
    required: e.required,
    as: e.as,
    endpoints,
  };
}
