/** Refusals compiled once, and checked in a request: a factory's `refuse` rules and a per-contract section's. */
import { templateKey } from '../../../contracts/indexed-contract.js';
import type { ApiVersion } from '../../api.js';
import { badRequest, notFound } from '../../errors.js';
import { type RecipeEnv, UnsupportedOperation } from '../recipe.js';
import type { Resolution } from './context-entries.js';
import { asList } from './json-values.js';
import { compileTemplate, messageExpressions, render, type Template } from './messages.js';
import { holds, letValues } from './predicates.js';
import type { PerContractConfig } from './schema/document.js';
import type { FactoryEndpoint } from './schema/endpoints.js';
import { termExpressions } from './schema/messages.js';
import type { ValueExpr } from './schema/paths-and-values.js';
import { type Operand, operandExpressions, type Predicate, predicateExpressions } from './schema/predicates.js';
import type { FactoryRefusal } from './schema/refusals.js';
import type { Scope } from './scope.js';
import { type CompiledSelector, compileSelector, select } from './selection.js';
import { evaluateMany, namesIn, parsed, unique } from './value-expressions.js';

export interface CompiledRefusal {
  templates?: ReadonlySet<string>;
  versions?: readonly number[];
  actions?: readonly string[];
  when?: Predicate;
  /** Entries looked up (their 404s answered) before the rule is checked, then those `when` reads. */
  after: readonly string[];
  deps: string[];
  status: 400 | 404;
  error: Template;
}

export interface CompiledCheck {
  when?: Predicate;
  /** The check applies only when this lookup (of the element's own contracts) finds nothing. */
  whenMissing?: CompiledSelector;
  status: 400 | 404;
  error: Template;
}

export interface CompiledFactoryRefusal {
  /** Its `let` values, computed in order before the checks. */
  lets: Array<[string, Operand]>;
  endpoints: readonly string[];
  transferKinds?: readonly string[];
  /** One check, or (with `forEach`) the checks of each element in order. */
  checks: CompiledCheck[];
  forEach?: ValueExpr;
  /** Whether a check reads `$itemContract` (each element is then looked up by id). */
  lookup: boolean;
  /** The names of the selections the checks read. */
  deps: string[];
  /** Entries looked up (their 404s answered) before the rule is checked. */
  after: readonly string[];
}

/** A factory's `refuse` rule, compiled; `configured`: the factory endpoints of a rule without `endpoints`. */
export function compileFactoryRefusal(r: FactoryRefusal, configured: readonly string[]): CompiledFactoryRefusal {
  const checks: CompiledCheck[] = (r.checks ?? [{ when: r.when, status: r.status ?? 400, error: r.error ?? '' }]).map((c) => ({
    ...(c.when ? { when: c.when } : {}),
    ...('whenMissing' in c && c.whenMissing ? { whenMissing: compileSelector({ ...c.whenMissing, pick: 'unique' }) } : {}),
    status: c.status,
    error: compileTemplate(c.error),
  }));
  const exprs = checks.flatMap((c) => [
    ...(c.when ? predicateExpressions(c.when, '').flatMap(({ expr }) => (typeof expr === 'string' ? [] : [expr])) : []),
    ...c.error.flatMap((p) => (typeof p === 'string' ? [] : termExpressions(p.term).map((x) => x.expr))),
    ...(c.whenMissing ? [...c.whenMissing.fields.flatMap((f) => (f.default ? [f.expr, f.default] : [f.expr])), ...(c.whenMissing.id ? [c.whenMissing.id.expr] : [])] : []),
  ]);
  const forEach = r.forEach === undefined ? undefined : parsed(r.forEach);
  if (forEach) exprs.push(forEach);
  const lets = Object.entries(r.let ?? {});
  for (const [, o] of lets) for (const { expr } of operandExpressions(o, '')) if (typeof expr !== 'string') exprs.push(expr);
  return {
    lets,
    endpoints: r.endpoints ?? configured,
    ...(r.transferKinds ? { transferKinds: r.transferKinds } : {}),
    checks,
    ...(forEach ? { forEach } : {}),
    lookup: exprs.some((e) => e.kind === 'itemContract'),
    deps: unique(exprs.flatMap((e) => (e.kind === 'ref' || e.kind === 'found' ? [e.name] : []))),
    after: r.after ?? [],
  };
}

/** A per-contract section's `refuse` rule, compiled. */
export function compilePerContractRefusal(r: PerContractConfig['refuse'][number]): CompiledRefusal {
  return {
  ...(r.templates ? { templates: new Set(r.templates.map((t) => t.slice(1))) } : {}),
  ...(r.versions ? { versions: r.versions } : {}),
  ...(r.endpoints ? { actions: r.endpoints } : {}),
  ...(r.when ? { when: r.when } : {}),
  after: r.after ?? [],
  deps: namesIn([...(r.when ? predicateExpressions(r.when, '') : []), ...messageExpressions(compileTemplate(r.error))]),
  status: r.status,
  error: compileTemplate(r.error),
  };
}

/** The first factory refusal that applies (its checks read after the selections they name), thrown. */
export async function refuseFactory(refusals: readonly CompiledFactoryRefusal[], endpoint: FactoryEndpoint, transferKind: string | undefined, scope: Scope, resolution: Resolution, env: RecipeEnv): Promise<void> {
  const fail = (c: CompiledCheck, at: Scope) => {
    const text = render(c.error, at);
    return c.status === 404 ? notFound(text) : badRequest(text);
  };
  for (const r of refusals) {
    if (!r.endpoints.includes(endpoint)) continue;
    if (r.transferKinds && (transferKind === undefined || !r.transferKinds.includes(transferKind))) continue;
    // the lookups the rule comes after, in their order, then those it reads
    await resolution.need(r.after);
    await resolution.need(r.deps);
    if (r.lets.length > 0) scope.lets = letValues(r.lets, scope);
    if (!r.forEach) {
      const c = r.checks[0]!;
      if (!c.when || holds(c.when, scope)) throw fail(c, scope);
      continue;
    }
    for (const item of asList(evaluateMany(r.forEach, scope).value)) {
      const at: Scope = { ...scope, item };
      if (r.lookup) {
        if (typeof item !== 'string' || !/^[0-9a-f]{2,}$/.test(item)) {
          // as a `$id` match over the arguments answers (select)
          if (r.forEach.kind === 'args') throw badRequest(`${r.forEach.path[0]!}: "${String(item)}" is not a contract id`);
        } else {
          const c = await env.index.getById(item);
          if (c) at.itemContract = { contractId: c.contractId, templateId: c.templateId, template: `#${templateKey(c.packageName, c.templateId)}`, payload: c.payload };
        }
      }
      for (const c of r.checks) {
        if (c.when && !holds(c.when, at)) continue;
        if (!c.whenMissing) throw fail(c, at);
        // the element's own contracts, looked up in its turn (each element of a list: the first that finds nothing)
        const none = (await select(c.whenMissing, at, env)).find((x) => x.found.length === 0);
        if (none) throw fail(c, { ...at, missing: none.item });
      }
    }
  }
}

/**
 * The first refusal of a per-contract section that applies to the request (its templates, versions,
 * choices and `when`; its `after` entries looked up first), thrown.
 */
export async function refusePerContract(refusals: readonly CompiledRefusal[], req: { template: string; version: ApiVersion; action: string }, scope: Scope, resolution: Resolution): Promise<void> {
  for (const r of refusals) {
    if (r.templates && !r.templates.has(req.template)) continue;
    if (r.versions && !r.versions.includes(req.version)) continue;
    if (r.actions && !r.actions.includes(req.action)) continue;
    await resolution.need(r.after);
    await resolution.need(r.deps);
    if (r.when && !holds(r.when, scope)) continue;
    const text = render(r.error, scope);
    throw r.status === 404 ? notFound(text) : new UnsupportedOperation(text);
  }
}
