/**
 * A recipe from configuration, for a Daml token model that has no built-in recipe.
 * The configuration (src/config/recipe-schema.ts, validated at start-up) says, per endpoint:
 *  - which contract is the factory: by template or interface, field matches against the choice
 *    arguments (e.g. the instrument), optionally a synchronizer;
 *  - which contracts form the choice context, each under a key, found by template plus field
 *    matches (`$args.<path>` for factories, `$contract.<path>` for per-contract contexts),
 *    required or optional, one contract id or a list;
 *  - `transferKind`: `self` when sender = receiver (whole Account records in v2, as Scan compares,
 *    Splice `HttpTokenStandardTransferInstructionHandler.scala`), `direct` when a configured pre-approval exists, else `offer`.
 * Every contract put into the context is disclosed, and so is the factory (as Scan's `ChoiceContextBuilder`: the service
 * then checks synchronizers and adds the debug fields).
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
import { templateKey, type IndexedContract } from '../../contracts/contract-index.js';
import {
  ALLOCATION_ACTIONS,
  ALLOCATION_INSTRUCTION_ACTIONS,
  FACTORY_ENDPOINTS,
  parseValueExpr,
  TRANSFER_INSTRUCTION_ACTIONS,
  validateDeclarativeRecipe,
  type ContractSelector,
  type DeclarativeRecipeConfig,
  type DirectRule,
  type FactoryContextEntry,
  type FactoryEndpoint,
  type PerContractConfig,
  type PerContractContextEntry,
  type PerContractKind,
  type ValueExpr,
} from '../../config/recipe-schema.js';
import type { AnyValue } from '../../canton/lf.js';
import { parseInstant } from '../../canton/clock.js';
import type { AllocationAction, AllocationInstructionAction, ApiVersion, TransferInstructionAction } from '../api.js';
import { notFound, RegistryError } from '../errors.js';
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
} from './recipe.js';

export { DeclarativeRecipeSchema, validateDeclarativeRecipe, RecipeConfigError } from '../../config/recipe-schema.js';
export type { DeclarativeRecipeConfig, ValidatedRecipe } from '../../config/recipe-schema.js';

/** What value expressions can read while resolving one request. */
interface Scope {
  admin: string;
  args?: Record<string, unknown>;
  contract?: IndexedContract;
}

/** A selector with its value expressions parsed once. */
interface CompiledSelector {
  /** `#package-name:Module:Entity` as configured. */
  ref: string;
  /** Index key: `package-name:Module:Entity`. */
  key: string;
  byInterface: boolean;
  fields: Array<{ path: string[]; text: string; expr: ValueExpr }>;
  id?: { text: string; expr: ValueExpr };
  synchronizerId?: string;
  pick: 'unique' | 'newest' | 'oldest';
}

interface CompiledEntry extends CompiledSelector {
  /** Absent for `as: "disclose"`. */
  contextKey?: string;
  required: boolean;
  as: 'contractId' | 'list' | 'disclose';
  endpoints: readonly string[];
}

interface CompiledDirect extends CompiledSelector {
  contextKey?: string;
  endpoints: readonly string[];
}

interface CompiledPerContract {
  kind: ContractKind;
  what: string;
  templateKeys: Set<string>;
  instrumentIdPath: string[];
  instrumentAdminPath?: string[];
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

  private readonly factories = new Map<FactoryEndpoint, CompiledSelector>();
  private readonly entries: CompiledEntry[];
  private readonly direct: CompiledDirect[];
  private readonly perContract = new Map<ContractKind, CompiledPerContract>();
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
    for (const ep of configured) this.factories.set(ep, compileSelector(config.factories[ep]!));
    this.entries = config.contextEntries.map((e: FactoryContextEntry) => compileEntry(e, e.endpoints ?? configured));
    const direct = config.transferKind?.direct;
    const rules: DirectRule[] = direct === undefined ? [] : Array.isArray(direct) ? direct : [direct];
    this.direct = rules.map((r) => ({
      ...compileSelector(r),
      ...(r.key !== undefined ? { contextKey: r.key } : {}),
      endpoints: r.endpoints ?? ['transferFactory.v1', 'transferFactory.v2'],
    }));
    for (const k of ['transferInstructions', 'allocationInstructions', 'allocations'] as const) {
      const pc: PerContractConfig | undefined = config[k];
      if (!pc) continue;
      const meta = KIND_OF[k];
      this.perContract.set(meta.kind, {
        kind: meta.kind,
        what: meta.what,
        templateKeys: new Set(pc.templateIds.map((t) => t.slice(1))),
        instrumentIdPath: pc.instrumentIdPath.split('.'),
        ...(pc.instrumentAdminPath ? { instrumentAdminPath: pc.instrumentAdminPath.split('.') } : {}),
        entries: pc.contextEntries.map((e: PerContractContextEntry) => compileEntry(e, e.endpoints ?? meta.actions)),
      });
    }

    const firstTemplate =
      FACTORY_ENDPOINTS.map((e) => config.factories[e]?.templateId).find((t) => t !== undefined) ??
      (['transferInstructions', 'allocationInstructions', 'allocations'] as const).map((k) => config[k]?.templateIds[0]).find((t) => t !== undefined);
    this.tokenName = firstTemplate !== undefined ? firstTemplate.slice(1, firstTemplate.indexOf(':')) : config.name;

    // Contracts found by field are held in memory; those found by id (and the per-contract
    // objects) only need the shared cache.
    const selectors: CompiledSelector[] = [...this.factories.values(), ...this.entries, ...this.direct, ...[...this.perContract.values()].flatMap((p) => p.entries)];
    const byField = selectors.filter((s) => s.id === undefined);
    this.indexedTemplates = unique(byField.filter((s) => !s.byInterface).map((s) => s.ref));
    this.indexedInterfaces = unique(byField.filter((s) => s.byInterface).map((s) => s.ref));
    this.cachedTemplates = unique([
      ...[...this.perContract.values()].flatMap((p) => [...p.templateKeys].map((k) => `#${k}`)),
      ...selectors.filter((s) => s.id !== undefined).map((s) => s.ref),
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
    const v = valueAt(c.payload, p.instrumentIdPath);
    if (v !== null && typeof v === 'object') return instrumentIdOf(v);
    if (typeof v === 'string' && p.instrumentAdminPath) {
      const admin = valueAt(c.payload, p.instrumentAdminPath);
      return typeof admin === 'string' ? { admin, id: v } : undefined;
    }
    return undefined;
  }

  async transferFactory(version: ApiVersion, args: Record<string, unknown>, env: RecipeEnv): Promise<TransferFactoryParts> {
    const endpoint: FactoryEndpoint = version === 1 ? 'transferFactory.v1' : 'transferFactory.v2';
    const scope: Scope = { admin: env.admin, args };
    const parts = await this.factoryParts(endpoint, scope, env);
    const transfer = (args.transfer ?? {}) as { sender?: unknown; receiver?: unknown };
    if (jsonEqual(transfer.sender, transfer.receiver)) return { ...parts, transferKind: 'self' };
    for (const rule of this.direct) {
      if (!rule.endpoints.includes(endpoint)) continue;
      const found = await select(rule, scope, env);
      if (found.length === 0) continue;
      if (rule.contextKey !== undefined) {
        const one = pickOne(rule, found, scope, `Transfer pre-approval "${rule.contextKey}"`);
        parts.values[rule.contextKey] = contractIdValue(one.contractId);
        parts.disclose.push(one);
      }
      return { ...parts, transferKind: 'direct' };
    }
    return { ...parts, transferKind: 'offer' };
  }

  async allocationFactory(version: ApiVersion, args: Record<string, unknown>, env: RecipeEnv): Promise<FactoryParts> {
    return this.factoryParts(version === 1 ? 'allocationFactory.v1' : 'allocationFactory.v2', { admin: env.admin, args }, env);
  }

  async settlementFactory(args: Record<string, unknown>, env: RecipeEnv): Promise<FactoryParts> {
    return this.factoryParts('settlementFactory', { admin: env.admin, args }, env);
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

  private async factoryParts(endpoint: FactoryEndpoint, scope: Scope, env: RecipeEnv): Promise<FactoryParts> {
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
    const found = await select(sel, scope, env);
    if (found.length === 0) throw notFound(`No ${endpoint} factory found: ${missing(sel, scope)}`);
    const factory = pickOne(sel, found, scope, `The ${endpoint} factory`);
    const ctx = await resolveEntries(this.entries.filter((e) => e.endpoints.includes(endpoint)), scope, env);
    return { factory, values: ctx.values, disclose: [factory, ...ctx.disclose] };
  }

  private async contractParts(kind: ContractKind, req: ContractRequest<string>, env: RecipeEnv): Promise<ContextParts> {
    const p = this.perContract.get(kind);
    if (!p) throw new UnsupportedOperation(`Token implementation "${this.name}" has no ${kind}s: its recipe does not configure them`);
    // Allocation-instruction contexts exist only under /v2 (allocation-instruction-v1.yaml has the
    // factory alone), so there is no version to choose between.
    if (kind !== 'allocation-instruction') this.checkVersion(kind, req.version, req.supportedApis ?? this.supportedApis);
    return resolveEntries(
      p.entries.filter((e) => e.endpoints.includes(req.action)),
      { admin: env.admin, contract: req.contract },
      env,
    );
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

async function resolveEntries(entries: readonly CompiledEntry[], scope: Scope, env: RecipeEnv): Promise<ContextParts> {
  const values: Record<string, AnyValue> = {};
  const disclose: IndexedContract[] = [];
  const lists = new Map<string, { ids: Set<string>; items: AnyValue[] }>();
  for (const e of entries) {
    const found = await select(e, scope, env);
    const what = e.contextKey !== undefined ? `context entry "${e.contextKey}"` : 'disclosed contracts';
    if (found.length === 0 && e.required) {
      throw notFound(`No contract found for the required ${what}: ${missing(e, scope)}`);
    }
    if (e.as === 'disclose' || e.contextKey === undefined) {
      disclose.push(...found);
    } else if (e.as === 'list') {
      // entries sharing a list key add to one list, each contract once
      let list = lists.get(e.contextKey);
      if (!list) lists.set(e.contextKey, (list = { ids: new Set(), items: [] }));
      for (const c of found) {
        if (list.ids.has(c.contractId)) continue;
        list.ids.add(c.contractId);
        list.items.push(contractIdValue(c.contractId));
        disclose.push(c);
      }
      values[e.contextKey] = { tag: 'AV_List', value: list.items };
    } else if (found.length > 0) {
      const one = pickOne(e, found, scope, `Context entry "${e.contextKey}"`);
      values[e.contextKey] = contractIdValue(one.contractId);
      disclose.push(one);
    }
  }
  return { values, disclose };
}

/** The active contracts a selector matches, in the index's order. */
async function select(sel: CompiledSelector, scope: Scope, env: RecipeEnv): Promise<IndexedContract[]> {
  const matches = (c: IndexedContract) =>
    (sel.synchronizerId === undefined || c.synchronizerId === sel.synchronizerId) &&
    sel.fields.every((f) => jsonEqual(valueAt(c.payload, f.path), evaluate(f.expr, scope)));
  if (!sel.id) return env.index.find(sel.key, matches);
  const ids = evaluate(sel.id.expr, scope);
  const list = (Array.isArray(ids) ? ids : [ids]).filter((id): id is string => typeof id === 'string' && id !== '');
  const out: IndexedContract[] = [];
  for (const id of new Set(list)) {
    const c = await env.index.getById(id);
    if (c && templateKey(c.packageName, c.templateId) === sel.key && matches(c)) out.push(c);
  }
  return out;
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
  const time = (c: IndexedContract) => parseInstant(c.createdAt) ?? 0n;
  const sorted = [...found].sort((a, b) => (time(a) < time(b) ? -1 : time(a) > time(b) ? 1 : a.contractId < b.contractId ? -1 : 1));
  return sel.pick === 'newest' ? sorted[sorted.length - 1]! : sorted[0]!;
}

/** `#pkg:Mod:Ent with admin = "…", instrumentId = "X" ($args.transfer.instrumentId.id)` */
function describe(sel: CompiledSelector, scope: Scope): string {
  const conds = sel.fields.map((f) => `${f.path.join('.')} = ${show(evaluate(f.expr, scope))}${f.expr.kind === 'literal' ? '' : ` (${f.text})`}`);
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

function evaluate(e: ValueExpr, scope: Scope): unknown {
  switch (e.kind) {
    case 'literal':
      return e.value;
    case 'admin':
      return scope.admin;
    case 'args':
      return valueAt(scope.args, e.path);
    case 'contract':
      return valueAt(scope.contract?.payload, e.path);
    default: {
      const never: never = e;
      return never;
    }
  }
}

function valueAt(v: unknown, path: readonly string[]): unknown {
  let cur = v;
  for (const seg of path) cur = cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[seg] : undefined;
  return cur;
}

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

function compileSelector(s: ContractSelector | DirectRule | FactoryContextEntry | PerContractContextEntry): CompiledSelector {
  const ref = (s.templateId ?? s.interfaceId)!;
  const out: CompiledSelector = { ref, key: ref.slice(1), byInterface: s.templateId === undefined, fields: [], pick: s.pick };
  for (const [field, raw] of Object.entries(s.match)) {
    const expr = parseValueExpr(raw);
    // validateDeclarativeRecipe rejects these; a hand-built config gets the same message.
    if (typeof expr === 'string') throw new Error(`declarative recipe: ${field}: ${expr}`);
    if (field === '$id') out.id = { text: String(raw), expr };
    else out.fields.push({ path: field.split('.'), text: String(raw), expr });
  }
  if (s.synchronizerId !== undefined) out.synchronizerId = s.synchronizerId;
  return out;
}

function compileEntry(e: FactoryContextEntry | PerContractContextEntry, endpoints: readonly string[]): CompiledEntry {
  return { ...compileSelector(e), ...(e.key !== undefined ? { contextKey: e.key } : {}), required: e.required, as: e.as, endpoints };
}

function unique(xs: string[]): string[] {
  return [...new Set(xs)];
}
