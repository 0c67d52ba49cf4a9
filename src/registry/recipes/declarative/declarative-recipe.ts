/**
 * A recipe from configuration, for a Daml token model that has no built-in recipe.
 * The configuration (`schema/` beside it, validated at start-up by `validation.ts`) says, per endpoint:
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
import type { AnyValue } from '../../../canton/lf-value.js';
import { type IndexedContract, templateKey } from '../../../contracts/indexed-contract.js';
import type { AllocationAction, AllocationInstructionAction, ApiVersion, TransferInstructionAction } from '../../api.js';
import { notFound } from '../../errors.js';
import { type ContextParts, type ContractKind, type ContractRequest, type FactoryParts, instrumentIdOf, type Recipe, type RecipeEnv, type TransferFactoryParts, UnsupportedOperation } from '../recipe.js';
import { type CompiledEntry, compileEntry, Resolution, type Slot } from './context-entries.js';
import { render } from './messages.js';
import { valueAt } from './paths.js';
import { type CompiledFactoryRefusal, type CompiledRefusal, compileFactoryRefusal, compilePerContractRefusal, refuseFactory, refusePerContract } from './refusals.js';
import type { DeclarativeRecipeConfig, FactoryContextEntry, PerContractConfig, PerContractContextEntry, PerContractKind } from './schema/document.js';
import { ALLOCATION_ACTIONS, ALLOCATION_INSTRUCTION_ACTIONS, FACTORY_ENDPOINTS, type FactoryEndpoint, TRANSFER_INSTRUCTION_ACTIONS } from './schema/endpoints.js';
import { splitPath } from './schema/paths-and-values.js';
import { newScope, type Scope } from './scope.js';
import { type CompiledSelector, compileSelector, flat, missing, pickOne, select } from './selection.js';
import { type CompiledDirect, type CompiledSelfRule, compileDirectRules, compileSelfRules, directSlots, firstDirect, isSelf } from './transfer-kind.js';
import { validateDeclarativeRecipe } from './validation.js';
import { unique } from './value-expressions.js';

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
  private readonly self: CompiledSelfRule[];
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
    this.direct = compileDirectRules(config.transferKind?.direct);
    this.self = compileSelfRules(config.transferKind?.self ?? []);
    this.refusals = config.refuse.map((r) => compileFactoryRefusal(r, configured));
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
        refusals: pc.refuse.map(compilePerContractRefusal),
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
    const unmatched = () => {
      for (const r of rules) if (r.name !== undefined && !scope.refs.has(r.name)) scope.refs.set(r.name, { contracts: [], many: false });
    };
    const resolution = new Resolution(this.entries.filter((e) => e.endpoints.includes(endpoint)), scope, env);
    const self = await isSelf(this.self.filter((r) => r.endpoints.includes(endpoint)), transfer, scope, resolution);
    if (self) {
      unmatched();
      return { ...(await this.factoryParts(endpoint, scope, env, directSlots(rules), resolution, 'self')), transferKind: 'self' };
    }
    let matched = await firstDirect(rules, scope, env);
    if (!matched && rules.length > 0) {
      // The contract that makes a transfer direct (a pre-approval) may have been created a moment
      // ago, and the wallet saw it through another service reading the same ledger: catch the
      // index up before answering `offer` (at most every PREAPPROVAL_CATCH_UP_MS).
      await env.index.catchUp({ skipIfCaughtUpWithinMs: PREAPPROVAL_CATCH_UP_MS });
      matched = await firstDirect(rules, scope, env);
    }
    unmatched();
    const kind = matched ? 'direct' : 'offer';
    return { ...(await this.factoryParts(endpoint, scope, env, directSlots(rules, matched), resolution, kind)), transferKind: kind };
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

  private async factoryParts(endpoint: FactoryEndpoint, scope: Scope, env: RecipeEnv, ruleSlots: Slot[] = [], given?: Resolution, transferKind?: string): Promise<FactoryParts> {
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
    await refuseFactory(this.refusals, endpoint, transferKind, scope, resolution, env);
    const found = flat(await select(sel, scope, env));
    if (found.length === 0) throw notFound(sel.missingError ? render(sel.missingError, scope) : `No ${endpoint} factory found: ${missing(sel, scope)}`);
    const factory = pickOne(sel, found, scope, `The ${endpoint} factory`);
    const slots = await resolution.slots();
    slots.push(...ruleSlots);
    const values = Object.assign({}, ...slots.map((s) => s.values)) as Record<string, AnyValue>;
    // the factory goes first, or after the named slot (its last one, whether or not it found anything)
    let at = 0;
    if (sel.discloseAfter !== undefined) {
      for (let i = 0; i < slots.length; i++) if (slots[i]!.name === sel.discloseAfter) at = i + 1;
    }
    const disclose = [...slots.slice(0, at).flatMap((s) => s.disclose), factory, ...slots.slice(at).flatMap((s) => s.disclose)];
    return { factory, values, disclose };
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
    await refusePerContract(p.refusals, { template, version: req.version, action: req.action }, scope, resolution);
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
