/**
 * A recipe from configuration, for a Daml token model that has no built-in recipe.
 * The configuration (validation.ts beside it, validated at start-up) says, per endpoint:
 *  - which contract is the factory: by template or interface, field matches against the choice
 *    arguments (e.g. the instrument), optionally a synchronizer;
 *  - which contracts form the choice context, each under a key, found by template plus field
 *    matches (`$args.<path>` for factories, `$contract.<path>` for per-contract contexts),
 *    required or optional, one contract id or a list;
 *  - `transferKind`: `self` when a `transferKind.self` predicate for the endpoint holds (over the
 *    arguments and the named entries, selected first), else without such rules when sender =
 *    receiver (whole Account records in v2, as Scan compares,
 *    Splice `HttpTokenStandardTransferInstructionHandler.scala`); `direct` when a configured rule finds a contract (a
 *    pre-approval; the index is caught up once before answering `offer`), else `offer`.
 * Every contract put into the context is disclosed, in entry order, and so is the factory (first,
 * or after the entry its `discloseAfter` names), as Scan's `ChoiceContextBuilder` does: the service
 * then checks synchronizers and adds the debug fields.
 *
 * Within one request each entry's selection is made once, when first needed: entries may read
 * other entries' selections (`$ref`, `$found`) and depend on them (`when`) whatever the order;
 * the context is then assembled in list order. A selector matched against a list expression
 * (`*`, `{a,b}`, a `$ref` list, a `$id` list) runs once per element, in order; `required: "each"`
 * wants a contract for every element. Value entries put an `AV_Bool` or `AV_Text` into the context.
 * Per-contract sections may refuse some templates / versions / choices with a fixed status; factory
 * `refuse` rules answer a 400 or 404 when a predicate over the arguments (and named selections)
 * holds, once per element of a list with `forEach` (each element looked up by id, any template,
 * and a check's `whenMissing` lookup of the element's own contracts made in the element's turn),
 * before the factory is looked up, as the built-in recipes check their arguments first; a refusal's
 * `after` names entries looked up (their 404s answered) before it, so that a recipe orders its
 * checks among its lookups as the token's own registry does. Per-contract refusals may also test a
 * predicate (`when`) and come `after` entries. A refusal
 * or `self` rule may first compute named values (`let`: value expressions or computed values, e.g.
 * the sorted groups of parties an account lets initiate); `definitions` were expanded at load.
 *
 * Lookups go to the contract index (`find`, in memory: no ledger call on a warm request) or, for
 * a `$id` match, to `getById` (cache, then one ledger lookup).
 *
 * Several contracts matching where the configuration expects one (an entry `as: "contractId"`
 * or a factory, with `pick: "unique"`) is a 500: the admin's ledger disagrees with the recipe,
 * which is neither the wallet's fault (not a 4xx) nor transient. 409 is what the token standard
 * reserves for reassignment ("retry when assigned"): wallets would retry a request that can never
 * succeed. The message names the contracts and how to fix the recipe (a further match field, or
 * `pick: "newest"`).
 */
import { templateKey, type IndexedContract } from '../../../contracts/indexed-contract.js';
import {
  ALLOCATION_ACTIONS,
  ALLOCATION_INSTRUCTION_ACTIONS,
  FACTORY_ENDPOINTS,
  expressionsOf,
  parseValueExpr,
  splitPath,
  templateParts,
  TRANSFER_INSTRUCTION_ACTIONS,
  matchCondition,
  WHOLE_NUMBER,
  type Operand,
  operandExpressions,
  type MatchOp,
  type MatchValue,
  validateDeclarativeRecipe,
  type ContractSelector,
  type DeclarativeRecipeConfig,
  type DirectRule,
  type FactoryContextEntry,
  type FactoryEndpoint,
  type PerContractConfig,
  type PerContractContextEntry,
  type PerContractKind,
  type Predicate,
  predicateExpressions,
  type TemplateTerm,
  termExpressions,
  type ValueExpr,
} from './validation.js';
import type { AnyValue } from '../../../canton/lf-value.js';
import { formatInstant, parseInstant } from '../../../canton/clock.js';
import type { AllocationAction, AllocationInstructionAction, ApiVersion, TransferInstructionAction } from '../../api.js';
import { badRequest, notFound, RegistryError } from '../../errors.js';
import {
  contractIdValue,
  instrumentIdOf,
  UnsupportedOperation,
  type ContextParts,
  type ContractKind,
  type ContractRequest,
  type FactoryParts,
  type Recipe,
  type RecipeEnv,
  type TransferFactoryParts,
} from '../recipe.js';

export { DeclarativeRecipeSchema, validateDeclarativeRecipe, RecipeConfigError } from './validation.js';
export type { DeclarativeRecipeConfig, ValidatedRecipe } from './validation.js';

/** What value expressions can read while resolving one request. */
interface Scope {
  admin: string;
  now: string;
  args?: Record<string, unknown>;
  contract?: IndexedContract;
  /** Named selections made so far (`$ref`, `$found`, `when`); `many`: a list, not one contract. */
  refs: Map<string, { contracts: IndexedContract[]; many: boolean }>;
  /** The element of a list expression being selected for or checked (`$item` in missingError and forEach refusals). */
  item?: unknown;
  /** The contract of that id, of any template (`$itemContract` in forEach refusals). */
  itemContract?: { contractId: string; templateId: string; template: string; payload: unknown };
  /** The element a check's `whenMissing` lookup found nothing for (`$missing` in its error). */
  missing?: unknown;
  /** The values the `let` of the refusal or `transferKind.self` rule being checked computed (`$let.<name>`). */
  lets?: Map<string, unknown>;
}

type Template = ReadonlyArray<string | { term: TemplateTerm; text: string }>;

/** A selector with its value expressions parsed once. */
interface CompiledSelector {
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

interface CompiledEntry extends CompiledSelector {
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

interface CompiledDirect extends CompiledSelector {
  contextKey?: string;
  name?: string;
  endpoints: readonly string[];
}

interface CompiledRefusal {
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

interface CompiledCheck {
  when?: Predicate;
  /** The check applies only when this lookup (of the element's own contracts) finds nothing. */
  whenMissing?: CompiledSelector;
  status: 400 | 404;
  error: Template;
}

interface CompiledFactoryRefusal {
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

interface CompiledPerContract {
  kind: ContractKind;
  what: string;
  templateKeys: Set<string>;
  instrumentIdPath: string[];
  instrumentAdminPath?: string[];
  byTemplate: Map<string, { instrumentIdPath?: string[]; instrumentAdminPath?: string[]; instrumentId?: string }>;
  refusals: CompiledRefusal[];
  entries: CompiledEntry[];
}

const KIND_OF: Record<PerContractKind, { kind: ContractKind; what: string; actions: readonly string[] }> = {
  transferInstructions: { kind: 'transfer-instruction', what: 'transfer instruction', actions: TRANSFER_INSTRUCTION_ACTIONS },
  allocationInstructions: { kind: 'allocation-instruction', what: 'allocation instruction', actions: ALLOCATION_INSTRUCTION_ACTIONS },
  allocations: { kind: 'allocation', what: 'allocation', actions: ALLOCATION_ACTIONS },
};

export class DeclarativeRecipe implements Recipe {
  readonly name: string;
  readonly supportedApis: Readonly<Record<string, number>>;
  readonly indexedTemplates: readonly string[];
  readonly indexedInterfaces: readonly string[];
  readonly cachedTemplates: readonly string[];

  private readonly factories = new Map<FactoryEndpoint, CompiledSelector & { discloseAfter?: string }>();
  private readonly entries: CompiledEntry[];
  private readonly direct: CompiledDirect[];
  private readonly self: Array<{ when: Predicate; lets: Array<[string, Operand]>; endpoints: readonly string[]; deps: string[] }>;
  private readonly perContract = new Map<ContractKind, CompiledPerContract>();
  private readonly refusals: CompiledFactoryRefusal[];
  /**
   * How errors name the token: the package of its templates (the first factory `templateId`, else
   * the first per-contract template), else the recipe's name. A recipe of Splice's TestTokenV1
   * thus says "splice-test-token-v1 implements only the V1 ...", word for word as the built-in.
   */
  readonly tokenName: string;

  /** Validates a recipe document (throws `RecipeConfigError` listing every problem). */
  static fromJson(json: unknown): { recipe: DeclarativeRecipe; warnings: string[] } {
    const { config, warnings } = validateDeclarativeRecipe(json);
    return { recipe: new DeclarativeRecipe(config), warnings };
  }

  /** Builds the recipe from a configuration that `validateDeclarativeRecipe` accepted. */
  constructor(readonly config: DeclarativeRecipeConfig) {
    this.name = config.name;
    this.supportedApis = { ...config.supportedApis };
    const configured = FACTORY_ENDPOINTS.filter((e) => config.factories[e] !== undefined);
    for (const ep of configured) {
      const f = config.factories[ep]!;
      this.factories.set(ep, { ...compileSelector(f), ...(f.discloseAfter !== undefined ? { discloseAfter: f.discloseAfter } : {}) });
    }
    this.entries = config.contextEntries.map((e: FactoryContextEntry) => compileEntry(e, e.endpoints ?? configured));
    const direct = config.transferKind?.direct;
    const rules: DirectRule[] = direct === undefined ? [] : Array.isArray(direct) ? direct : [direct];
    this.direct = rules.map((r) => ({
      ...compileSelector(r),
      ...(r.key !== undefined ? { contextKey: r.key } : {}),
      ...(r.name !== undefined ? { name: r.name } : {}),
      endpoints: r.endpoints ?? ['transferFactory.v1', 'transferFactory.v2'],
    }));
    this.self = (config.transferKind?.self ?? []).map((r) => {
      const lets = Object.entries(r.let ?? {});
      const exprs = [...lets.flatMap(([, o]) => operandExpressions(o, '')), ...predicateExpressions(r.when, '')];
      return {
        when: r.when,
        lets,
        endpoints: r.endpoints ?? ['transferFactory.v1', 'transferFactory.v2'],
        deps: unique(exprs.flatMap(({ expr }) => (typeof expr !== 'string' && (expr.kind === 'ref' || expr.kind === 'found') ? [expr.name] : []))),
      };
    });
    this.refusals = config.refuse.map((r) => {
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
    });
    for (const k of ['transferInstructions', 'allocationInstructions', 'allocations'] as const) {
      const pc: PerContractConfig | undefined = config[k];
      if (!pc) continue;
      const meta = KIND_OF[k];
      this.perContract.set(meta.kind, {
        kind: meta.kind,
        what: meta.what,
        templateKeys: new Set(pc.templateIds.map((t) => t.slice(1))),
        instrumentIdPath: splitPath(pc.instrumentIdPath),
        ...(pc.instrumentAdminPath ? { instrumentAdminPath: splitPath(pc.instrumentAdminPath) } : {}),
        byTemplate: new Map(
          Object.entries(pc.instrumentByTemplate ?? {}).map(([t, o]) => [
            t.slice(1),
            {
              ...(o.instrumentIdPath !== undefined ? { instrumentIdPath: splitPath(o.instrumentIdPath) } : {}),
              ...(o.instrumentAdminPath !== undefined ? { instrumentAdminPath: splitPath(o.instrumentAdminPath) } : {}),
              ...(o.instrumentId !== undefined ? { instrumentId: o.instrumentId } : {}),
            },
          ]),
        ),
        refusals: pc.refuse.map((r) => ({
          ...(r.templates ? { templates: new Set(r.templates.map((t) => t.slice(1))) } : {}),
          ...(r.versions ? { versions: r.versions } : {}),
          ...(r.endpoints ? { actions: r.endpoints } : {}),
          ...(r.when ? { when: r.when } : {}),
          after: r.after ?? [],
          deps: namesIn([...(r.when ? predicateExpressions(r.when, '') : []), ...messageExpressions(compileTemplate(r.error))]),
          status: r.status,
          error: compileTemplate(r.error),
        })),
        entries: pc.contextEntries.map((e: PerContractContextEntry) => compileEntry(e, e.endpoints ?? meta.actions)),
      });
    }

    const firstTemplate =
      FACTORY_ENDPOINTS.map((e) => config.factories[e]?.templateId).find((t) => t !== undefined) ??
      (['transferInstructions', 'allocationInstructions', 'allocations'] as const).map((k) => config[k]?.templateIds[0]).find((t) => t !== undefined);
    this.tokenName = firstTemplate !== undefined ? firstTemplate.slice(1, firstTemplate.indexOf(':')) : config.name;

    // Contracts found by field are held in memory; those found by id (and the per-contract
    // objects) only need the shared cache.
    const lookups = this.refusals.flatMap((r) => r.checks.flatMap((c) => (c.whenMissing ? [c.whenMissing] : [])));
    const selectors: CompiledSelector[] = [...this.factories.values(), ...this.entries, ...this.direct, ...[...this.perContract.values()].flatMap((p) => p.entries), ...lookups];
    const byField = selectors.filter((s) => s.id === undefined && s.key !== '');
    this.indexedTemplates = unique(byField.filter((s) => !s.byInterface).flatMap((s) => [s.ref, ...s.orKeys.map((k) => `#${k}`)]));
    this.indexedInterfaces = unique(byField.filter((s) => s.byInterface).map((s) => s.ref));
    this.cachedTemplates = unique([
      ...[...this.perContract.values()].flatMap((p) => [...p.templateKeys].map((k) => `#${k}`)),
      ...selectors.filter((s) => s.id !== undefined && s.key !== '').flatMap((s) => [s.ref, ...s.orKeys.map((k) => `#${k}`)]),
    ]);
  }

  kindOf(c: IndexedContract): ContractKind | undefined {
    const key = templateKey(c.packageName, c.templateId);
    for (const p of this.perContract.values()) if (p.templateKeys.has(key)) return p.kind;
    return undefined;
  }

  instrumentOf(c: IndexedContract): { admin: string; id: string } | undefined {
    const kind = this.kindOf(c);
    const p = kind && this.perContract.get(kind);
    if (!p) return undefined;
    const o = p.byTemplate.get(templateKey(c.packageName, c.templateId));
    const adminPath = o?.instrumentAdminPath ?? p.instrumentAdminPath;
    const v = o?.instrumentId ?? valueAt(c.payload, o?.instrumentIdPath ?? p.instrumentIdPath);
    if (v !== null && typeof v === 'object') return instrumentIdOf(v);
    if (typeof v === 'string' && adminPath) {
      const admin = valueAt(c.payload, adminPath);
      return typeof admin === 'string' ? { admin, id: v } : undefined;
    }
    return undefined;
  }

  async transferFactory(version: ApiVersion, args: Record<string, unknown>, env: RecipeEnv): Promise<TransferFactoryParts> {
    const endpoint: FactoryEndpoint = version === 1 ? 'transferFactory.v1' : 'transferFactory.v2';
    const scope = newScope(env, { args });
    const transfer = (args.transfer ?? {}) as { sender?: unknown; receiver?: unknown };
    const rules = this.direct.filter((r) => r.endpoints.includes(endpoint));
    // each rule has its place in the disclosures (after the context entries), matched or not
    const slots = (matched?: { rule: CompiledDirect; contract: IndexedContract }): Slot[] =>
      rules.map((r) => {
        const slot: Slot = { ...(r.name !== undefined ? { name: r.name } : {}), values: {}, disclose: [] };
        if (matched?.rule === r && r.contextKey !== undefined) {
          slot.values[r.contextKey] = contractIdValue(matched.contract.contractId);
          slot.disclose.push(matched.contract);
        }
        return slot;
      });
    const unmatched = () => {
      for (const r of rules) if (r.name !== undefined && !scope.refs.has(r.name)) scope.refs.set(r.name, { contracts: [], many: false });
    };
    const resolution = new Resolution(this.entries.filter((e) => e.endpoints.includes(endpoint)), scope, env);
    const selfRules = this.self.filter((r) => r.endpoints.includes(endpoint));
    let self: boolean;
    if (selfRules.length === 0) self = jsonEqual(transfer.sender, transfer.receiver);
    else {
      await resolution.need(selfRules.flatMap((r) => r.deps));
      self = selfRules.some((r) => {
        if (r.lets.length > 0) scope.lets = letValues(r.lets, scope);
        return holds(r.when, scope);
      });
    }
    if (self) {
      unmatched();
      return { ...(await this.factoryParts(endpoint, scope, env, slots(), resolution, 'self')), transferKind: 'self' };
    }
    let matched = await this.firstDirect(rules, scope, env);
    if (!matched && rules.length > 0) {
      // The contract that makes a transfer direct (a pre-approval) may have been created a moment
      // ago, and the wallet saw it through another service reading the same ledger: catch the
      // index up before answering `offer` (at most every PREAPPROVAL_CATCH_UP_MS).
      await env.index.catchUp({ skipIfCaughtUpWithinMs: PREAPPROVAL_CATCH_UP_MS });
      matched = await this.firstDirect(rules, scope, env);
    }
    unmatched();
    const kind = matched ? 'direct' : 'offer';
    return { ...(await this.factoryParts(endpoint, scope, env, slots(matched), resolution, kind)), transferKind: kind };
  }

  /** The first `transferKind.direct` rule that finds a contract, and the contract (named in `scope`). */
  private async firstDirect(rules: readonly CompiledDirect[], scope: Scope, env: RecipeEnv): Promise<{ rule: CompiledDirect; contract: IndexedContract } | undefined> {
    for (const rule of rules) {
      const found = flat(await select(rule, scope, env));
      if (found.length === 0) continue;
      const contract = pickOne(rule, found, scope, `Transfer pre-approval "${rule.contextKey ?? rule.name ?? rule.ref}"`);
      if (rule.name !== undefined) scope.refs.set(rule.name, { contracts: [contract], many: false });
      return { rule, contract };
    }
    return undefined;
  }

  async allocationFactory(version: ApiVersion, args: Record<string, unknown>, env: RecipeEnv): Promise<FactoryParts> {
    return this.factoryParts(version === 1 ? 'allocationFactory.v1' : 'allocationFactory.v2', newScope(env, { args }), env);
  }

  async settlementFactory(args: Record<string, unknown>, env: RecipeEnv): Promise<FactoryParts> {
    return this.factoryParts('settlementFactory', newScope(env, { args }), env);
  }

  async transferInstructionContext(req: ContractRequest<TransferInstructionAction>, env: RecipeEnv): Promise<ContextParts> {
    return this.contractParts('transfer-instruction', req, env);
  }

  async allocationInstructionContext(req: ContractRequest<AllocationInstructionAction>, env: RecipeEnv): Promise<ContextParts> {
    return this.contractParts('allocation-instruction', req, env);
  }

  async allocationContext(req: ContractRequest<AllocationAction>, env: RecipeEnv): Promise<ContextParts> {
    return this.contractParts('allocation', req, env);
  }

  // ---- resolution ------------------------------------------------------------------------------

  private async factoryParts(endpoint: FactoryEndpoint, scope: Scope, env: RecipeEnv, directSlots: Slot[] = [], given?: Resolution, transferKind?: string): Promise<FactoryParts> {
    const sel = this.factories.get(endpoint);
    if (!sel) {
      const configured = [...this.factories.keys()];
      // The built-in recipes' words for a token of one standard version (e.g. TestTokenV1).
      const other = OTHER_VERSION[endpoint];
      if (other && this.factories.has(other.endpoint)) {
        throw new UnsupportedOperation(`${this.tokenName} implements only the V${other.version} ${other.api} API; use /v${other.version}`);
      }
      if (endpoint === 'settlementFactory' && !Object.keys(this.supportedApis).some((api) => api.endsWith('-v2'))) {
        throw new UnsupportedOperation(`${this.tokenName} implements only the V1 token standard: it has no settlement factory`);
      }
      throw new UnsupportedOperation(
        `Token implementation "${this.name}" has no ${endpoint}: its recipe configures ${configured.length > 0 ? configured.join(', ') : 'no factory'}`,
      );
    }
    const resolution = given ?? new Resolution(this.entries.filter((e) => e.endpoints.includes(endpoint)), scope, env);
    await this.refuse(endpoint, transferKind, scope, resolution, env);
    const found = flat(await select(sel, scope, env));
    if (found.length === 0) throw notFound(sel.missingError ? render(sel.missingError, scope) : `No ${endpoint} factory found: ${missing(sel, scope)}`);
    const factory = pickOne(sel, found, scope, `The ${endpoint} factory`);
    const slots = await resolution.slots();
    slots.push(...directSlots);
    const values = Object.assign({}, ...slots.map((s) => s.values)) as Record<string, AnyValue>;
    // the factory goes first, or after the named slot (its last one, whether or not it found anything)
    let at = 0;
    if (sel.discloseAfter !== undefined) {
      for (let i = 0; i < slots.length; i++) if (slots[i]!.name === sel.discloseAfter) at = i + 1;
    }
    const disclose = [...slots.slice(0, at).flatMap((s) => s.disclose), factory, ...slots.slice(at).flatMap((s) => s.disclose)];
    return { factory, values, disclose };
  }

  /** The first factory refusal that applies (its checks read after the selections they name), thrown. */
  private async refuse(endpoint: FactoryEndpoint, transferKind: string | undefined, scope: Scope, resolution: Resolution, env: RecipeEnv): Promise<void> {
    const fail = (c: CompiledCheck, at: Scope) => {
      const text = render(c.error, at);
      return c.status === 404 ? notFound(text) : badRequest(text);
    };
    for (const r of this.refusals) {
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

  private async contractParts(kind: ContractKind, req: ContractRequest<string>, env: RecipeEnv): Promise<ContextParts> {
    const p = this.perContract.get(kind);
    if (!p) throw new UnsupportedOperation(`Token implementation "${this.name}" has no ${kind}s: its recipe does not configure them`);
    // Allocation-instruction contexts exist only under /v2 (allocation-instruction-v1.yaml has the
    // factory alone), so there is no version to choose between.
    if (kind !== 'allocation-instruction') this.checkVersion(kind, req.version, req.supportedApis ?? this.supportedApis);
    const template = templateKey(req.contract.packageName, req.contract.templateId);
    const scope = newScope(env, { contract: req.contract });
    const entries = p.entries.filter((e) => e.endpoints.includes(req.action) && (e.templates === undefined || e.templates.has(template)));
    const resolution = new Resolution(entries, scope, env);
    for (const r of p.refusals) {
      if (r.templates && !r.templates.has(template)) continue;
      if (r.versions && !r.versions.includes(req.version)) continue;
      if (r.actions && !r.actions.includes(req.action)) continue;
      await resolution.need(r.after);
      await resolution.need(r.deps);
      if (r.when && !holds(r.when, scope)) continue;
      const text = render(r.error, scope);
      throw r.status === 404 ? notFound(text) : new UnsupportedOperation(text);
    }
    const slots = await resolution.slots();
    return { values: Object.assign({}, ...slots.map((s) => s.values)) as Record<string, AnyValue>, disclose: slots.flatMap((s) => s.disclose) };
  }

  /**
   * A per-contract context is answered for a version only when the token implements that version
   * of the API (its instrument's `supportedApis`, else the recipe's): a V1-only token answers its
   * v2 contexts with the 400 the built-in TestTokenV1 recipe gives, not an empty context.
   */
  private checkVersion(kind: Exclude<ContractKind, 'allocation-instruction'>, version: ApiVersion, supported: Readonly<Record<string, number>>): void {
    const { api, label } = API_OF_KIND[kind];
    const has = (v: number) => supported[`${api}-v${v}`] !== undefined;
    if (has(version)) return;
    const other = version === 1 ? 2 : 1;
    if (has(other)) throw new UnsupportedOperation(`${this.tokenName} implements only the V${other} ${label} API; use /v${other}`);
    throw new UnsupportedOperation(`${this.tokenName} does not implement the ${label} API: neither ${api}-v1 nor ${api}-v2 is in its supportedApis`);
  }
}

/** The API (without its `-v1`/`-v2` suffix) a per-contract context belongs to, and how errors name it. */
const API_OF_KIND: Record<Exclude<ContractKind, 'allocation-instruction'>, { api: string; label: string }> = {
  'transfer-instruction': { api: 'splice-api-token-transfer-instruction', label: 'transfer instruction' },
  allocation: { api: 'splice-api-token-allocation', label: 'allocation' },
};

/** The same factory in the other standard version. */
const OTHER_VERSION: Partial<Record<FactoryEndpoint, { endpoint: FactoryEndpoint; version: ApiVersion; api: string }>> = {
  'transferFactory.v1': { endpoint: 'transferFactory.v2', version: 2, api: 'transfer instruction' },
  'transferFactory.v2': { endpoint: 'transferFactory.v1', version: 1, api: 'transfer instruction' },
  'allocationFactory.v1': { endpoint: 'allocationFactory.v2', version: 2, api: 'allocation instruction' },
  'allocationFactory.v2': { endpoint: 'allocationFactory.v1', version: 1, api: 'allocation instruction' },
};

/** Minimum interval between the catch-ups an `offer` answer triggers (see transferFactory). */
const PREAPPROVAL_CATCH_UP_MS = 250;

/** What one entry (or the matched direct rule) contributes, in the order of the entries. */
interface Slot {
  name?: string;
  values: Record<string, AnyValue>;
  disclose: IndexedContract[];
}

function newScope(env: RecipeEnv, o: { args?: Record<string, unknown>; contract?: IndexedContract }): Scope {
  return { admin: env.admin, now: formatInstant(env.nowMicros()), refs: new Map(), ...o };
}

/**
 * The entries of one request: each entry's selection is made once, when first needed (an entry
 * may read a selection named later in the list, `when` or `$ref`), then the context is assembled
 * in list order.
 */
class Resolution {
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

/** Whether a predicate holds (`transferKind.self`, an entry's `if`, a refusal's `when`). */
function holds(p: Predicate, scope: Scope): boolean {
  const present = (v: unknown) => v !== undefined && v !== null;
  const member = (x: unknown, list: unknown) => present(x) && asList(list).some((y) => jsonEqual(x, y));
  if ('eq' in p) return jsonEqual(operandValue(p.eq[0], scope), operandValue(p.eq[1], scope));
  if ('in' in p) return member(operandValue(p.in[0], scope), operandValue(p.in[1], scope));
  if ('subsetOf' in p) {
    const b = operandValue(p.subsetOf[1], scope);
    return asList(operandValue(p.subsetOf[0], scope)).every((x) => !present(x) || member(x, b));
  }
  if ('exists' in p) return present(operandValue(p.exists, scope));
  if ('lt' in p) return (compare(operandValue(p.lt[0], scope), operandValue(p.lt[1], scope)) ?? 0) < 0;
  if ('count' in p) {
    const n = operandValue(p.count[1], scope);
    return typeof n === 'string' && WHOLE_NUMBER.test(n) && asList(operandValue(p.count[0], scope)).filter(present).length === Number(n);
  }
  if ('consecutive' in p) {
    const numbers = asList(operandValue(p.consecutive, scope)).map(wholeNumber);
    if (numbers.some((x) => x === undefined)) return false;
    const sorted = (numbers as bigint[]).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return sorted.every((x, i) => i === 0 || x === sorted[i - 1]! + 1n);
  }
  if ('matches' in p) {
    const re = new RegExp(`^(?:${p.matches[1]})$`);
    return asList(operandValue(p.matches[0], scope)).some((x) => typeof x === 'string' && re.test(x));
  }
  if ('not' in p) return !holds(p.not, scope);
  if ('all' in p) return p.all.every((q) => holds(q, scope));
  return p.any.some((q) => holds(q, scope));
}

/** A whole number (an Int64 text, or a JSON integer), else undefined. */
function wholeNumber(v: unknown): bigint | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? BigInt(v) : undefined;
  return typeof v === 'string' && /^-?[0-9]+$/.test(v) ? BigInt(v) : undefined;
}

/**
 * The value of a predicate operand: a value expression's, or a computed value's (`list`: the
 * present values in order; `union`: the elements of each, distinct, ascending; `if`).
 */
function operandValue(o: Operand, scope: Scope): unknown {
  if (o === null || typeof o !== 'object') return evaluate(parsed(o), scope);
  const present = (v: unknown) => v !== undefined && v !== null;
  if ('list' in o) return o.list.map((x) => operandValue(x, scope)).filter(present);
  if ('union' in o) {
    const out: unknown[] = [];
    for (const x of o.union.flatMap((y) => asList(operandValue(y, scope)))) if (present(x) && !out.some((z) => jsonEqual(x, z))) out.push(x);
    return out.sort(orderValues);
  }
  if ('record' in o) {
    const fields = Object.entries(o.record).map(([k, x]) => [k, operandValue(x, scope)] as const);
    return Object.fromEntries(fields.filter(([, v]) => present(v)));
  }
  return holds(o.if, scope) ? operandValue(o.then, scope) : o.else === undefined ? undefined : operandValue(o.else, scope);
}

/** A rule's `let` values, each computed in order (it may read those before it). */
function letValues(lets: ReadonlyArray<[string, Operand]>, scope: Scope): Map<string, unknown> {
  const out = new Map<string, unknown>();
  scope.lets = out;
  for (const [name, o] of lets) out.set(name, operandValue(o, scope));
  return out;
}

/** Ascending order of `union`: texts by code unit, lists element by element (a prefix first), other values by their JSON. */
function orderValues(a: unknown, b: unknown): number {
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = orderValues(a[i], b[i]);
      if (c !== 0) return c;
    }
    return a.length - b.length;
  }
  const [x, y] = [typeof a === 'string' ? a : JSON.stringify(a), typeof b === 'string' ? b : JSON.stringify(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

/** A predicate operand, parsed (validateDeclarativeRecipe has checked it). */
function parsed(raw: string | boolean | null): ValueExpr {
  const e = parseValueExpr(raw);
  if (typeof e === 'string') throw new Error(`declarative recipe: ${e}`);
  return e;
}

/** A value entry's value as an AnyValue: a boolean, a text, or (absent) None-like `AV_Optional`. */
function anyValueOf(v: unknown, key: string): AnyValue {
  if (typeof v === 'boolean') return { tag: 'AV_Bool', value: v };
  if (typeof v === 'string') return { tag: 'AV_Text', value: v };
  throw new RegistryError('INTERNAL', `Context entry "${key}": its value ${show(v)} is neither a boolean nor a text`);
}

function flat(perItem: ReadonlyArray<{ found: IndexedContract[] }>): IndexedContract[] {
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
async function select(sel: CompiledSelector, scope: Scope, env: RecipeEnv): Promise<Array<{ item: unknown; found: IndexedContract[] }>> {
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

const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]);

const DECIMAL = /^-?\d+(\.\d+)?$/;
/** Orders two payload values: decimal texts as numbers, timestamps as times, other texts as text; undefined when they do not compare. */
function compare(a: unknown, b: unknown): number | undefined {
  if (typeof a !== 'string' || typeof b !== 'string') return typeof a === 'number' && typeof b === 'number' ? a - b : undefined;
  if (DECIMAL.test(a) && DECIMAL.test(b)) {
    const scale = (x: string) => {
      const [int, frac = ''] = x.replace('-', '').split('.');
      return { neg: x.startsWith('-'), int: int!, frac };
    };
    const [x, y] = [scale(a), scale(b)];
    const digits = Math.max(x.frac.length, y.frac.length);
    const n = (v: { neg: boolean; int: string; frac: string }) => BigInt(v.int + v.frac.padEnd(digits, '0')) * (v.neg ? -1n : 1n);
    const d = n(x) - n(y);
    return d < 0n ? -1 : d > 0n ? 1 : 0;
  }
  const [ia, ib] = [parseInstant(a), parseInstant(b)];
  if (ia !== undefined && ib !== undefined) return ia < ib ? -1 : ia > ib ? 1 : 0;
  return a < b ? -1 : a > b ? 1 : 0;
}

function pickOne(sel: CompiledSelector, found: IndexedContract[], scope: Scope, what: string): IndexedContract {
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

function missing(sel: CompiledSelector, scope: Scope): string {
  return `the registry admin sees no active ${describe(sel, scope)}`;
}

function show(v: unknown): string {
  return v === undefined ? '(absent)' : JSON.stringify(v);
}

/** The value a match field compares with: its expression's, or its `default` when that is absent. */
function fieldValue(f: CompiledSelector['fields'][number], scope: Scope): { many: boolean; value: unknown } {
  const v = evaluateMany(f.expr, scope);
  return v.value === undefined && f.default !== undefined ? evaluateMany(f.default, scope) : v;
}

function evaluate(e: ValueExpr, scope: Scope): unknown {
  return evaluateMany(e, scope).value;
}

/** A value expression's value; `many`: it is a list of values (a `*` step, or a `$ref` to a list). */
function evaluateMany(e: ValueExpr, scope: Scope): { many: boolean; value: unknown } {
  switch (e.kind) {
    case 'literal':
      return { many: false, value: e.value };
    case 'admin':
      return { many: false, value: scope.admin };
    case 'now':
      return { many: false, value: scope.now };
    case 'contractId':
      return { many: false, value: scope.contract?.contractId };
    case 'item':
      return { many: false, value: scope.item };
    case 'missing':
      return { many: false, value: scope.missing };
    case 'itemContract':
      return walk(scope.itemContract, e.path);
    case 'args':
      return walk(scope.args, e.path);
    case 'contract':
      return walk(scope.contract?.payload, e.path);
    case 'found':
      return { many: false, value: (scope.refs.get(e.name)?.contracts.length ?? 0) > 0 };
    case 'let':
      return walk(scope.lets?.get(e.name), e.path);
    case 'ref': {
      const r = scope.refs.get(e.name);
      if (!r) return { many: false, value: undefined };
      if (!r.many) return walk(r.contracts[0]?.payload, e.path);
      return walk(r.contracts.map((c) => c.payload), ['*', ...e.path]);
    }
    default: {
      const never: never = e;
      return never;
    }
  }
}

/**
 * The value at a payload path. A `*` step goes into every element of a list, or every value of a
 * map (in key order); the result is then the list of what the rest of the path finds, lists
 * among them flattened.
 */
function walk(root: unknown, path: readonly string[]): { many: boolean; value: unknown } {
  let many = false;
  let cur: unknown[] = [root];
  for (const seg of path) {
    const field = (v: unknown, k: string) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined);
    if (seg === '*') {
      many = true;
      cur = cur.flatMap((v) => (Array.isArray(v) ? v : v !== null && typeof v === 'object' ? Object.keys(v).sort().map((k) => (v as Record<string, unknown>)[k]) : []));
    } else if (seg === '~') {
      // the keys of a map, as one list value (so that `~.0` is the first), in the payload's order
      cur = cur.map(keysOf);
    } else if (seg.startsWith('(')) {
      // the first alternative sub-path that is present (neither absent nor null), per element
      const alternatives = seg.slice(1, -1).split('|').map((a) => a.split('.'));
      cur = cur.map((v) => {
        for (const alt of alternatives) {
          const x = alt.reduce<unknown>((o, k) => (k === '~' ? keysOf(o) : field(o, k)), v);
          if (x !== undefined && x !== null) return x;
        }
        return undefined;
      });
    } else if (seg.startsWith('{')) {
      many = true;
      const names = seg.slice(1, -1).split(',');
      cur = cur.flatMap((v) => names.map((k) => k.split('.').reduce<unknown>((o, f) => field(o, f), v)));
    } else {
      const k = seg.startsWith('[') ? seg.slice(1, -1) : seg;
      cur = cur.map((v) => field(v, k));
    }
  }
  return many ? { many, value: cur.flatMap((v) => (Array.isArray(v) ? v : [v])) } : { many, value: cur[0] };
}

/** The keys of a map (a JSON object), in its order; undefined for anything else. */
function keysOf(v: unknown): string[] | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v) : undefined;
}

function valueAt(v: unknown, path: readonly string[]): unknown {
  return walk(v, path).value;
}

function compileTemplate(text: string): Template {
  return templateParts(text).map((p) => {
    if (typeof p === 'string') return p;
    // validateDeclarativeRecipe rejects these; a hand-built config gets the same message.
    if ('error' in p) throw new Error(`declarative recipe: ${p.error}`);
    return p;
  });
}

function render(t: Template, scope: Scope): string {
  return t.map((p) => (typeof p === 'string' ? p : text(term(p.term, scope)))).join('');
}

/** The value of a placeholder's term (a list stays a list until `join` makes it a text). */
function term(t: TemplateTerm, scope: Scope): unknown {
  if (t.kind === 'text') return t.value;
  if (t.kind === 'expr') return evaluate(t.expr, scope);
  const args = t.args.map((a) => term(a, scope));
  switch (t.fn) {
    case 'join':
      // an element that is itself a list (e.g. a group of parties of a computed `union`) shows as [a, b]
      return asList(args[0])
        .map((x) => (Array.isArray(x) ? `[${x.map(text).join(', ')}]` : text(x)))
        .join(String(args[1]));
    case 'sort':
      return asList(args[0]).map(text).sort();
    case 'matching': {
      const re = new RegExp(`^(?:${String(args[1])})$`);
      return asList(args[0]).filter((x): x is string => typeof x === 'string' && re.test(x));
    }
    case 'default':
      return args[0] === undefined || args[0] === null ? args[1] : args[0];
  }
}

const text = (v: unknown): string => (typeof v === 'string' ? v : v === undefined ? '(absent)' : JSON.stringify(v));

/** Equality of Daml-JSON values: an absent optional field equals `null` (None). */
function jsonEqual(a: unknown, b: unknown): boolean {
  const x = a === undefined ? null : a;
  const y = b === undefined ? null : b;
  if (x === null || y === null || typeof x !== 'object' || typeof y !== 'object') return x === y;
  if (Array.isArray(x) !== Array.isArray(y)) return false;
  if (Array.isArray(x)) return x.length === (y as unknown[]).length && x.every((v, i) => jsonEqual(v, (y as unknown[])[i]));
  const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
  for (const k of keys) if (!jsonEqual((x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k])) return false;
  return true;
}

function compileSelector(s: (ContractSelector | DirectRule | FactoryContextEntry | PerContractContextEntry) & { value?: string | boolean | null | undefined }): CompiledSelector {
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

function compileEntry(e: FactoryContextEntry | PerContractContextEntry, endpoints: readonly string[]): CompiledEntry {
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

/** The value expressions of a message's `{...}` placeholders. */
function messageExpressions(t: Template): Array<{ expr: ValueExpr }> {
  return t.flatMap((p) => (typeof p === 'string' ? [] : termExpressions(p.term).map((x) => ({ expr: x.expr }))));
}

/** The names of the selections these expressions read (`$ref`, `$found`). */
function namesIn(exprs: ReadonlyArray<{ expr: ValueExpr | string }>): string[] {
  return unique(exprs.flatMap(({ expr }) => (typeof expr !== 'string' && (expr.kind === 'ref' || expr.kind === 'found') ? [expr.name] : [])));
}

function unique(xs: string[]): string[] {
  return [...new Set(xs)];
}
