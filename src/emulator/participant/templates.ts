/**
 * The emulator's "Daml": a registry of template and interface implementations.
 *
 * The emulator cannot evaluate Daml-LF, so each template's behaviour (signatories, observers,
 * ensure, key, choices and their bodies, interface views) is given in TypeScript:
 *  - *native* templates are written by hand (the token implementations in src/emulator/templates);
 *  - *declared* templates are configured or registered at runtime for Daml models the emulator
 *    does not implement: signatories and observers are payload field paths, and the only choice
 *    is `Archive`.
 * Interfaces are declared with their package and choice names; a template that implements an
 * interface provides the view and the implementation of each interface choice.
 */
import type { NativeValueType } from '../lf-value/native-type.js';
import { normalizeValue, type DataTypeResolver } from '../lf-value/json-codec.js';
import type { PackageStore } from './packages.js';
import type { LfValue, QualifiedId } from './types.js';
import { nameKey } from './types.js';
import { ArgumentError } from '../../canton/lf-value.js';

/** What a choice body can do: the update actions of Daml, checked by the command interpreter. */
export interface UpdateContext {
  /** Ledger time of the transaction (epoch micros). */
  readonly nowMicros: bigint;
  /** Parties whose authority the current action carries. */
  readonly authorizers: ReadonlySet<string>;
  create(templateId: QualifiedId | string, payload: LfValue): string;
  exercise(contractId: string, choice: string, argument: LfValue, opts?: { interfaceId?: QualifiedId | string; templateId?: QualifiedId | string }): LfValue;
  /** Fetches an active contract (visible to the submission), optionally asserting its template or interface. */
  fetch(contractId: string, expected?: QualifiedId | string): FetchedContract;
  /**
   * Aborts the whole command with a Daml failure (`fail`/`assertMsg` by default; pass the error
   * id and category of a `failWithStatus`, e.g. `stdlib.daml.com/deadline-exceeded`).
   */
  fail(message: string, opts?: { errorId?: string; category?: 2 | 3 | 8 | 9 | 10 | 11 | 12; metadata?: Record<string, string> }): never;
  /**
   * Runs `body` as Daml's `try` block: when it throws, its effects on the transaction are rolled
   * back before the error is rethrown (for the catch handler).
   */
  rollbackScope<T>(body: () => T): T;
}

export interface FetchedContract {
  contractId: string;
  templateId: QualifiedId;
  payload: LfValue;
  signatories: string[];
  observers: string[];
  /**
   * The contract's view as `interfaceId` (by package name), computed by its template's
   * implementation; undefined when the template does not implement that interface. Lets
   * evaluated Daml code view contracts of native templates.
   */
  interfaceView?(interfaceId: QualifiedId): LfValue | undefined;
}

/**
 * A choice of a template with payload `P`. The registry and the command interpreter hold
 * templates as `TemplateDef` (payload `unknown`) whatever their `P`: that works because the
 * functions taking a `P` or an `A` here, in `InterfaceImpl` and in `TemplateDef` are declared as
 * methods, whose parameters TypeScript checks bivariantly. Keep them methods: as function-typed
 * properties (`controllers: (p: P) => ...`) a `TemplateDef<Specific>` would no longer be a
 * `TemplateDef`.
 */
export interface ChoiceDef<P = unknown, A = unknown, R = unknown> {
  name: string;
  consuming: boolean;
  controllers(payload: P, argument: A): string[];
  /** Choice observers (they become informees of the exercise node). */
  observers?(payload: P, argument: A): string[];
  /** Validates/normalises the argument before the body runs; throw `ArgumentError` to reject. */
  parseArgument?(argument: unknown): A;
  /** The argument's LF type, when described (prepared transactions encode the argument with it). */
  argumentType?: NativeValueType;
  body(ctx: UpdateContext, self: { contractId: string; payload: P }, argument: A): R;
}

export interface InterfaceDef {
  id: QualifiedId;
  /** Names of the interface's choices (implementations come from each template). */
  choices: readonly string[];
}

export interface InterfaceImpl<P = unknown> {
  interface: InterfaceDef;
  view(payload: P): LfValue;
  /** Implementation of each interface choice for this template. */
  choices: Record<string, ChoiceDef<P>>;
}

export interface TemplateDef<P = unknown> {
  id: QualifiedId;
  /**
   * `native`: hand-written TypeScript; `declared`: configured (create/archive only); `daml`: the
   * template of an uploaded DAR run by the Daml-LF evaluator (src/emulator/daml-lf-bridge).
   */
  kind: 'native' | 'declared' | 'daml';
  signatories(payload: P): string[];
  observers(payload: P): string[];
  /** Returns an error message when the contract's `ensure` clause fails. */
  ensure?(payload: P): string | undefined;
  /** Validates and normalises a create argument (numeric scale, field presence); throws ArgumentError. */
  parsePayload?(payload: unknown): P;
  /** The payload's LF type, when described (prepared transactions encode the payload with it). */
  payloadType?: NativeValueType;
  key?: { of(payload: P): LfValue; maintainers(key: LfValue): string[] };
  choices: Record<string, ChoiceDef<P>>;
  implements: InterfaceImpl<P>[];
}

// A request value the template rejects (→ COMMAND_PREPROCESSING_FAILED): the value codecs' error.
export { ArgumentError };

/** The implicit `Archive` choice every template has: consuming, controlled by the signatories. */
export function archiveChoice<P>(signatories: (p: P) => string[]): ChoiceDef<P, unknown, Record<string, never>> {
  return {
    name: 'Archive',
    consuming: true,
    controllers: (p) => signatories(p),
    // `DA.Internal.Template.Archive`: a record without fields.
    argumentType: { rec: [] },
    body: () => ({}),
  };
}

export interface TemplateRegistryOptions {
  /**
   * Uploaded packages: a declared template whose package is among them gets its create argument
   * type-checked and normalised against the template's record type (lf-value/json-codec.ts).
   */
  packages?: PackageStore;
}

export class TemplateRegistry {
  private readonly byName = new Map<string, TemplateDef>();
  private readonly byId = new Map<string, TemplateDef>();
  private readonly interfacesByName = new Map<string, InterfaceDef>();
  private readonly interfacesById = new Map<string, InterfaceDef>();
  /** package name → package ids of the registered templates/interfaces. */
  private readonly packageIdsByName = new Map<string, Set<string>>();
  /** interface name key → templates implementing it. */
  private readonly implementors = new Map<string, TemplateDef[]>();

  constructor(private readonly opts: TemplateRegistryOptions = {}) {}

  registerInterface(def: InterfaceDef): void {
    this.interfacesByName.set(nameKey(def.id), def);
    this.interfacesById.set(idKey(def.id), def);
    this.notePackage(def.id);
  }

  /**
   * Registers a template. `preferred: false` registers it by package id only: another version of
   * its package is the one by-name references (`#name:...`) and interface filters resolve to.
   */
  register(def: TemplateDef, opts: { preferred?: boolean } = {}): void {
    if (!def.choices.Archive) def.choices.Archive = archiveChoice(def.signatories);
    this.byId.set(idKey(def.id), def);
    this.notePackage(def.id);
    if (opts.preferred === false) return;
    const previous = this.byName.get(nameKey(def.id));
    if (previous && previous !== def) {
      // another version of the package was preferred until now: it no longer answers by name
      for (const [k, list] of this.implementors) this.implementors.set(k, list.filter((t) => t !== previous));
    }
    this.byName.set(nameKey(def.id), def);
    for (const impl of def.implements) {
      this.registerInterface(impl.interface);
      const k = nameKey(impl.interface.id);
      const list = this.implementors.get(k) ?? [];
      list.push(def);
      this.implementors.set(k, list);
    }
  }

  /** Registers a template of a model the emulator does not implement (§ declared templates). */
  declare(spec: DeclaredTemplateSpec): TemplateDef {
    const packages = this.opts.packages;
    const def: TemplateDef<Record<string, unknown>> = {
      id: spec.id,
      kind: 'declared',
      signatories: (p) => partiesAt(p, spec.signatories),
      observers: (p) => partiesAt(p, spec.observers ?? []),
      // Looked up at create time, so a DAR uploaded after the declaration counts; without the
      // package the payload is stored verbatim (no type info to check it against).
      ...(packages ? { parsePayload: (p: unknown) => normalizeDeclaredPayload(packages, spec.id, p) as Record<string, unknown> } : {}),
      choices: {},
      implements: (spec.implements ?? []).map((i) => ({
        interface: this.interfacesByName.get(nameKey(i.interfaceId)) ?? { id: i.interfaceId, choices: [] },
        view: (p) => (i.view ? Object.fromEntries(Object.entries(i.view).map(([field, path]) => [field, valueAt(p, path)])) : p),
        choices: {},
      })),
    };
    this.register(def);
    return def;
  }

  templateByNameKey(key: string): TemplateDef | undefined {
    return this.byName.get(key);
  }
  templateById(id: QualifiedId): TemplateDef | undefined {
    return this.byId.get(idKey(id)) ?? this.byName.get(nameKey(id));
  }
  interfaceByNameKey(key: string): InterfaceDef | undefined {
    return this.interfacesByName.get(key);
  }
  implementorsOf(interfaceNameKey: string): readonly TemplateDef[] {
    return this.implementors.get(interfaceNameKey) ?? [];
  }
  packageIdsOf(packageName: string): ReadonlySet<string> {
    return this.packageIdsByName.get(packageName) ?? new Set();
  }
  /** package id → package name, for every registered template/interface package. */
  packageNameOf(packageId: string): string | undefined {
    for (const [name, ids] of this.packageIdsByName) if (ids.has(packageId)) return name;
    return undefined;
  }
  allTemplates(): TemplateDef[] {
    return [...this.byName.values()];
  }

  /**
   * Registers every native template and interface of `other` not registered here: another
   * participant running the same native implementations (declared templates are configuration,
   * declared on each participant against its own packages).
   */
  adoptNative(other: TemplateRegistry): void {
    for (const def of other.interfacesById.values()) if (!this.interfacesById.has(idKey(def.id))) this.registerInterface(def);
    for (const def of other.byId.values()) if (def.kind === 'native' && !this.byId.has(idKey(def.id))) this.register(def);
  }

  private notePackage(id: QualifiedId): void {
    const set = this.packageIdsByName.get(id.packageName) ?? new Set();
    set.add(id.packageId);
    this.packageIdsByName.set(id.packageName, set);
  }
}

export interface DeclaredTemplateSpec {
  id: QualifiedId;
  /** Payload field paths (dot-separated) holding a party or a list of parties. */
  signatories: string[];
  observers?: string[];
  /**
   * Interfaces the template implements, so interface filters and views work on its contracts.
   * The view maps each view field to a payload field path (the whole payload when omitted).
   * Interface choices cannot be declared: they need behaviour.
   */
  implements?: Array<{ interfaceId: QualifiedId; view?: Record<string, string> }>;
}

function valueAt(payload: unknown, path: string): unknown {
  let v: unknown = payload;
  for (const seg of path.split('.')) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[seg] : undefined;
  return v ?? null;
}

function idKey(id: QualifiedId): string {
  return `${id.packageId}:${id.moduleName}:${id.entityName}`;
}

/** Reads parties from payload field paths; a path may hold a Party, a list of parties, or null. */
export function partiesAt(payload: unknown, paths: readonly string[]): string[] {
  const out: string[] = [];
  for (const path of paths) {
    let v: unknown = payload;
    for (const seg of path.split('.')) {
      v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[seg] : undefined;
    }
    if (typeof v === 'string') {
      out.push(v);
    } else if (Array.isArray(v)) {
      for (const x of v) if (typeof x === 'string') out.push(x);
    } else if (v === undefined) {
      throw new ArgumentError(`Missing non-optional field: ${path}`);
    }
  }
  return [...new Set(out)];
}

/** A resolver over the packages of a PackageStore (dependencies included). */
function packageStoreResolver(packages: PackageStore): DataTypeResolver {
  return (r) => packages.findDataType(r.packageId, r.moduleName, r.entityName)?.dataType;
}

/**
 * A declared template's create argument, normalised against the template's record type when its
 * package (by id, else by name: the preferred version) has been uploaded. Without type info the
 * payload stays verbatim: the emulator then cannot know field types, so it stores what it got.
 */
function normalizeDeclaredPayload(packages: PackageStore, id: QualifiedId, payload: unknown): unknown {
  const found =
    packages.findTemplate(id.packageId, id.moduleName, id.entityName) ??
    packages.findTemplate(`#${id.packageName}`, id.moduleName, id.entityName);
  if (found?.dataType?.kind !== 'record') return payload;
  const tycon = { packageId: found.id.packageId, moduleName: id.moduleName, entityName: id.entityName };
  return normalizeValue({ kind: 'con', tycon, args: [] }, payload, packageStoreResolver(packages), '');
}
