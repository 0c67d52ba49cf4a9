/**
 * The Daml-LF world of an emulated synchronizer: the decoded packages (decoded lazily, on first
 * use, from the archives the participants' package stores hold), one DamlEngine over them, and
 * the conversion between the ledger's JSON values and the engine's values, with caches so that
 * a contract's payload is converted once, not on every use.
 *
 * Package ids are content hashes, so one runtime can serve several participants: a package is
 * decoded once whichever participant uploaded it.
 */
import type { DamlPackage, DefInterface, DefTemplate, LfType, PackageLookup, TemplateChoice, TypeConRef } from '../daml-lf/ast.js';
import { showType } from '../dar/lf2.js';
import type { PackageStore } from '../participant/packages.js';
import type { LfValue, QualifiedId } from '../participant/types.js';
import { normalizeValue, type DataTypeResolver } from '../lf-value/json-codec.js';
import { LfJsonCodec } from '../lf-value/runtime-json-codec.js';
import type { DamlEngine } from '../daml-lf/runtime.js';
import type { RecordV, Value } from '../lf-value/runtime-value.js';

/** The pieces of the Daml-LF engine: the package decoder and the evaluator. */
export interface DamlEngineParts {
  decode(packageId: string, payload: Buffer): DamlPackage;
  createEngine(packages: PackageLookup): DamlEngine;
}

export class DamlRuntime implements PackageLookup {
  readonly codec: LfJsonCodec;
  readonly engine: DamlEngine;
  private readonly decoded = new Map<string, DamlPackage>();
  private readonly stores: PackageStore[] = [];
  /** Payload object → its record (a payload is converted once per template type). */
  private readonly records = new WeakMap<object, { key: string; value: RecordV }>();
  /** Canonical JSON object → its value, by type (choice arguments and results). */
  private readonly values = new WeakMap<object, { key: string; value: Value }>();
  private readonly typeKeys = new WeakMap<LfType, string>();
  readonly resolver: DataTypeResolver = (tycon) => this.codec.dataType(tycon);

  constructor(private readonly parts: DamlEngineParts) {
    this.codec = new LfJsonCodec(this);
    this.engine = parts.createEngine(this);
  }

  /** Packages uploaded to `store` become reachable (decoded when first needed). */
  addSource(store: PackageStore): void {
    if (!this.stores.includes(store)) this.stores.push(store);
  }

  get(packageId: string): DamlPackage | undefined {
    const done = this.decoded.get(packageId);
    if (done) return done;
    for (const store of this.stores) {
      const payload = store.payload(packageId);
      if (payload) {
        const pkg = this.parts.decode(packageId, payload);
        this.decoded.set(packageId, pkg);
        return pkg;
      }
    }
    return undefined;
  }

  /** The template/interface id as the ledger names it (with its package's name). */
  qualifiedId(r: TypeConRef): QualifiedId {
    const packageName = this.get(r.packageId)?.name ?? this.stores.map((s) => s.nameOf(r.packageId)).find((n) => n !== undefined) ?? '';
    return { packageId: r.packageId, packageName, moduleName: r.moduleName, entityName: r.entityName };
  }

  template(r: TypeConRef): DefTemplate | undefined {
    return this.get(r.packageId)?.modules.get(r.moduleName)?.templates.get(r.entityName);
  }
  interface(r: TypeConRef): DefInterface | undefined {
    return this.get(r.packageId)?.modules.get(r.moduleName)?.interfaces.get(r.entityName);
  }
  /** A choice of a template, else of an interface. */
  choice(owner: TypeConRef, name: string): TemplateChoice | undefined {
    return this.template(owner)?.choices.get(name) ?? this.interface(owner)?.choices.get(name);
  }

  // ---- values --------------------------------------------------------------------------------

  /** A contract payload (canonical JSON) as the record of template `tycon`. */
  record(tycon: TypeConRef, payload: LfValue): RecordV {
    const key = `${tycon.packageId}:${tycon.moduleName}:${tycon.entityName}`;
    const obj = asObject(payload);
    const hit = obj && this.records.get(obj);
    if (hit && hit.key === key) return hit.value;
    const value = this.codec.toRecord(tycon, payload);
    if (obj) this.records.set(obj, { key, value });
    return value;
  }

  /** A record as the canonical JSON payload of template `tycon` (remembered, so reading it back is free). */
  recordJson(tycon: TypeConRef, value: RecordV): LfValue {
    const json = this.codec.toJson({ kind: 'con', tycon, args: [] }, value);
    const obj = asObject(json);
    if (obj) this.records.set(obj, { key: `${tycon.packageId}:${tycon.moduleName}:${tycon.entityName}`, value });
    return json;
  }

  /** Whether `payload` is a canonical payload of `tycon` this runtime already read or wrote. */
  knowsPayload(tycon: TypeConRef, payload: unknown): boolean {
    const obj = asObject(payload);
    const hit = obj && this.records.get(obj);
    return hit !== undefined && hit.key === `${tycon.packageId}:${tycon.moduleName}:${tycon.entityName}`;
  }

  /** A canonical JSON value of `type` as an evaluator value. */
  value(type: LfType, json: LfValue): Value {
    const obj = asObject(json);
    if (!obj) return this.codec.toValue(type, json);
    const key = this.typeKey(type);
    const hit = this.values.get(obj);
    if (hit && hit.key === key) return hit.value;
    const value = this.codec.toValue(type, json);
    this.values.set(obj, { key, value });
    return value;
  }

  /** An evaluator value of `type` as canonical JSON (remembered, so reading it back is free). */
  json(type: LfType, value: Value): LfValue {
    const json = this.codec.toJson(type, value);
    const obj = asObject(json);
    if (obj) this.values.set(obj, { key: this.typeKey(type), value });
    return json;
  }

  /** Whether `json` is a canonical value of `type` this runtime already read or wrote. */
  knowsValue(type: LfType, json: unknown): boolean {
    const obj = asObject(json);
    const hit = obj && this.values.get(obj);
    return hit !== undefined && hit.key === this.typeKey(type);
  }

  /** Checks and normalises request JSON against `type` (lf-value/json-codec.ts, as declared templates do). */
  normalize(type: LfType, json: unknown): LfValue {
    return normalizeValue(type, json, this.resolver, '');
  }

  private typeKey(t: LfType): string {
    let k = this.typeKeys.get(t);
    if (k === undefined) {
      k = showType(t);
      this.typeKeys.set(t, k);
    }
    return k;
  }
}

function asObject(v: unknown): object | undefined {
  return v !== null && typeof v === 'object' ? v : undefined;
}
