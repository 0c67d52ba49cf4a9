/**
 * Conversion between the ledger's JSON values (the JSON Ledger API's transcode encoding, as
 * `normalizeValue` in json-codec.ts produces it; Canton transcode `JsonCodec.scala`) and the
 * evaluator's runtime values (runtime-value.ts), driven by the value's LF type.
 *
 * The JSON side is always the canonical form (`normalizeValue`'s output): the ledger normalises a
 * request's values before they reach Daml code, so `toValue` reads only that form, and `toJson`
 * writes exactly it, so a value written here is accepted by `normalizeValue` unchanged:
 *  - records: an object with every field in declaration order (an absent field reads as None);
 *    the runtime record carries its type constructor and field names in declaration order;
 *  - variants `{"tag", "value"}`, enums the constructor name; the runtime value's `rank` is the
 *    constructor's index in the data type's declaration (LF orders them by it);
 *  - Unit `{}`, Int64 a decimal string, Numeric n a string with exactly n decimals (scale 0 ends
 *    in "."), Date `yyyy-mm-dd`, Timestamp ISO 8601 at UTC (fraction without trailing zeros);
 *  - Optional: `null`/the value; a chain of Optionals written in the type (`Optional (Optional a)`)
 *    uses arrays at every level, as transcode does, decided on the type as written (a variable
 *    bound to an Optional does not count), exactly as `normalizeValue` decides it;
 *  - TextMap an object (keys in code-point order), GenMap `[[k, v], ...]` in LF's key order.
 *
 * Data types and synonyms are resolved through an `LfTypeLookup` (the evaluator's PackageLookup is one); type variables are bound lazily
 * with the environment of their use site (as json-codec.ts does), so that the nested Optional form
 * is chosen from the type as written.
 *
 * LIMITS: only serializable types convert (no functions, Any, TypeRep, structs or interface
 * values); a value that does not fit its type is an internal error (`LfJsonError`): the ledger
 * normalises JSON before it gets here, and evaluator values are well typed by LF's type checking.
 */
import type { DecodedDataType, LfType, TypeConRef } from '../dar/lf2.js';
import { formatDamlTimestamp } from '../../canton/clock.js';
import { formatNumeric } from '../../canton/numeric.js';
import {
  EMPTY_TYPE_ENV,
  bind,
  compareText,
  flatten,
  formatDate,
  isOptionalSyntax,
  numericScale,
  parseDate,
  parseTimestamp,
  preview,
  type TypeBinding,
  type TypeEnv,
} from './json-codec.js';
import {
  date,
  list,
  NONE,
  numeric,
  some,
  text,
  timestamp,
  UNIT,
  bool,
  int64,
  party,
  contractId,
  type RecordV,
  type Value,
} from './runtime-value.js';

/**
 * The part of the evaluator's package world the codec reads: each package's data types and type
 * synonyms by module (daml-lf/ast.ts's `PackageLookup` is one). Declared here, so that the
 * conversion sits below the evaluator, beside the values it converts.
 */
export interface LfTypeLookup {
  get(packageId: string): { readonly modules: ReadonlyMap<string, LfTypeModule> } | undefined;
}
/** A module's type-level definitions, by name. */
export interface LfTypeModule {
  readonly dataTypes: ReadonlyMap<string, DecodedDataType>;
  readonly synonyms: ReadonlyMap<string, { readonly params: readonly string[]; readonly type: LfType }>;
}

/** A value that does not fit its LF type, or a type that cannot be converted. */
export class LfJsonError extends Error {}

/** Converts values of one package world (every package the lookup can reach). */
export class LfJsonCodec {
  /** Field names of each record data type, shared by every record value of the type. */
  private readonly fieldNames = new WeakMap<DecodedDataType, readonly string[]>();

  constructor(private readonly packages: LfTypeLookup) {}

  /** The JSON value of `type` as an evaluator value. */
  toValue(type: LfType, json: unknown): Value {
    return this.read(type, EMPTY_TYPE_ENV, json);
  }

  /** A record of the type constructor `tycon` (no type arguments), e.g. a template's payload. */
  toRecord(tycon: TypeConRef, json: unknown): RecordV {
    const v = this.read({ kind: 'con', tycon, args: [] }, EMPTY_TYPE_ENV, json);
    if (v.tag !== 'record') throw new LfJsonError(`${tycon.moduleName}:${tycon.entityName} is not a record type`);
    return v;
  }

  /** An evaluator value of `type` in the canonical JSON encoding. */
  toJson(type: LfType, value: Value): unknown {
    return this.write(type, EMPTY_TYPE_ENV, value);
  }

  /** The data type a type constructor names, if its package is known. */
  dataType(tycon: TypeConRef): DecodedDataType | undefined {
    return this.module(tycon)?.dataTypes.get(tycon.entityName);
  }

  private module(tycon: TypeConRef): LfTypeModule | undefined {
    return this.packages.get(tycon.packageId)?.modules.get(tycon.moduleName);
  }

  private requireDataType(tycon: TypeConRef): DecodedDataType {
    const dt = this.dataType(tycon);
    if (!dt) throw new LfJsonError(`unknown data type ${tycon.packageId}:${tycon.moduleName}:${tycon.entityName}`);
    return dt;
  }

  private namesOf(dt: Extract<DecodedDataType, { kind: 'record' }>): readonly string[] {
    let names = this.fieldNames.get(dt);
    if (!names) {
      names = Object.freeze(dt.fields.map((f) => f.name));
      this.fieldNames.set(dt, names);
    }
    return names;
  }

  // ---- JSON → Value -------------------------------------------------------------------------------

  private read(type: LfType, env: TypeEnv, json: unknown): Value {
    const head = this.head(type, env);
    return head.type.kind === 'builtin' ? this.readBuiltin(head.type, head.env, json) : this.readData(head.type.tycon, head.type.args, head.env, json);
  }

  private readBuiltin(t: Extract<LfType, { kind: 'builtin' }>, env: TypeEnv, json: unknown): Value {
    const [a0, a1] = t.args;
    switch (t.name) {
      case 'Unit':
        return UNIT;
      case 'Bool':
        if (typeof json !== 'boolean') throw mismatch('Bool', json);
        return bool(json);
      case 'Text':
        return text(str('Text', json));
      case 'Party':
        return party(str('Party', json));
      case 'ContractId':
        return contractId(str('ContractId', json));
      case 'Int64': {
        const s = str('Int64', json);
        if (!/^-?\d+$/.test(s)) throw mismatch('Int64', json);
        return int64(BigInt(s));
      }
      case 'Numeric': {
        const scale = scaleOf(a0, env);
        return numeric(scale, parseNumeric(str('Numeric', json), scale));
      }
      case 'Date':
        return date(parseDate(json, ''));
      case 'Timestamp':
        return timestamp(parseTimestamp(json, ''));
      case 'Optional':
        if (!a0) throw new LfJsonError('Optional without its argument');
        if (isOptionalSyntax(a0)) return this.readNested(a0, env, json);
        return json === null || json === undefined ? NONE : some(this.read(a0, env, json));
      case 'List': {
        if (!a0) throw new LfJsonError('List without its argument');
        if (!Array.isArray(json)) throw mismatch('List', json);
        return list(json.map((x) => this.read(a0, env, x)));
      }
      case 'TextMap': {
        if (!a0) throw new LfJsonError('TextMap without its argument');
        const obj = object('TextMap', json);
        const entries = new Map<string, Value>();
        for (const k of Object.keys(obj)) entries.set(k, this.read(a0, env, obj[k]));
        return { tag: 'textMap', entries };
      }
      case 'GenMap': {
        if (!a0 || !a1) throw new LfJsonError('GenMap without its arguments');
        if (!Array.isArray(json)) throw mismatch('GenMap', json);
        // Canonical JSON lists the entries sorted by key in LF's order, keys unique (json-codec.ts).
        const entries = json.map((e): readonly [Value, Value] => {
          if (!Array.isArray(e) || e.length !== 2) throw mismatch('GenMap entry', e);
          return [this.read(a0, env, e[0]), this.read(a1, env, e[1])];
        });
        return { tag: 'genMap', entries };
      }
      default:
        throw new LfJsonError(`builtin type ${t.name} is not serializable`);
    }
  }

  private readNested(elem: LfType, env: TypeEnv, json: unknown): Value {
    if (json === null || json === undefined) return NONE;
    if (!Array.isArray(json)) throw mismatch('nested Optional', json);
    if (json.length === 0) return NONE;
    const f = flatten(elem);
    if (f.kind === 'builtin' && f.name === 'Optional' && f.args[0]) return some(this.readNested(f.args[0], env, json[0]));
    return some(this.read(elem, env, json[0]));
  }

  private readData(tycon: TypeConRef, args: readonly LfType[], env: TypeEnv, json: unknown): Value {
    const dt = this.requireDataType(tycon);
    const inner = bind(dt.params, args, env);
    switch (dt.kind) {
      case 'record': {
        const obj = object(`record ${tycon.entityName}`, json);
        const fields = dt.fields.map((f) => this.read(f.type, inner, Object.hasOwn(obj, f.name) ? obj[f.name] : null));
        return { tag: 'record', tycon, fields, fieldNames: this.namesOf(dt) };
      }
      case 'variant': {
        const v = object(`variant ${tycon.entityName}`, json);
        const rank = dt.constructors.findIndex((c) => c.name === v.tag);
        const ctor = dt.constructors[rank];
        if (!ctor) throw mismatch(`variant ${tycon.entityName}`, json);
        return { tag: 'variant', tycon, constructor: ctor.name, rank, value: this.read(ctor.type, inner, v.value) };
      }
      case 'enum': {
        const rank = typeof json === 'string' ? dt.constructors.indexOf(json) : -1;
        if (rank < 0) throw mismatch(`enum ${tycon.entityName}`, json);
        return { tag: 'enum', tycon, constructor: dt.constructors[rank]!, rank };
      }
      case 'interface':
        throw new LfJsonError(`interface ${tycon.entityName} values are not serializable`);
    }
  }

  // ---- Value → JSON -------------------------------------------------------------------------------

  private write(type: LfType, env: TypeEnv, v: Value): unknown {
    const head = this.head(type, env);
    return head.type.kind === 'builtin' ? this.writeBuiltin(head.type, head.env, v) : this.writeData(head.type.tycon, head.type.args, head.env, v);
  }

  private writeBuiltin(t: Extract<LfType, { kind: 'builtin' }>, env: TypeEnv, v: Value): unknown {
    const [a0, a1] = t.args;
    switch (t.name) {
      case 'Unit':
        expectTag(v, 'unit');
        return {};
      case 'Bool':
        return expectTag(v, 'bool').value;
      case 'Text':
        return expectTag(v, 'text').value;
      case 'Party':
        return expectTag(v, 'party').value;
      case 'ContractId':
        return expectTag(v, 'contractId').value;
      case 'Int64':
        return expectTag(v, 'int64').value.toString();
      case 'Numeric': {
        const n = expectTag(v, 'numeric');
        return formatNumeric(n.unscaled, n.scale);
      }
      case 'Date':
        return formatDate(expectTag(v, 'date').days);
      case 'Timestamp':
        return formatDamlTimestamp(expectTag(v, 'timestamp').micros);
      case 'Optional': {
        if (!a0) throw new LfJsonError('Optional without its argument');
        const o = expectTag(v, 'optional');
        if (isOptionalSyntax(a0)) return this.writeNested(a0, env, o.value);
        return o.value === undefined ? null : this.write(a0, env, o.value);
      }
      case 'List': {
        if (!a0) throw new LfJsonError('List without its argument');
        return expectTag(v, 'list').items.map((x) => this.write(a0, env, x));
      }
      case 'TextMap': {
        if (!a0) throw new LfJsonError('TextMap without its argument');
        const m = expectTag(v, 'textMap').entries;
        const out: Record<string, unknown> = {};
        for (const k of [...m.keys()].sort(compareText)) out[k] = this.write(a0, env, m.get(k)!);
        return out;
      }
      case 'GenMap': {
        if (!a0 || !a1) throw new LfJsonError('GenMap without its arguments');
        return expectTag(v, 'genMap').entries.map(([k, x]) => [this.write(a0, env, k), this.write(a1, env, x)]);
      }
      default:
        throw new LfJsonError(`builtin type ${t.name} is not serializable`);
    }
  }

  private writeNested(elem: LfType, env: TypeEnv, inner: Value | undefined): unknown {
    if (inner === undefined) return [];
    const f = flatten(elem);
    if (f.kind === 'builtin' && f.name === 'Optional' && f.args[0]) return [this.writeNested(f.args[0], env, expectTag(inner, 'optional').value)];
    return [this.write(elem, env, inner)];
  }

  private writeData(tycon: TypeConRef, args: readonly LfType[], env: TypeEnv, v: Value): unknown {
    const dt = this.requireDataType(tycon);
    const inner = bind(dt.params, args, env);
    switch (dt.kind) {
      case 'record': {
        const r = expectTag(v, 'record');
        const out: Record<string, unknown> = {};
        const names = r.fieldNames;
        const sameOrder = names === this.fieldNames.get(dt);
        dt.fields.forEach((f, i) => {
          // A record built for another version of the type (an upgrade) is matched by field name;
          // a field it lacks is an Optional's None.
          const at = sameOrder ? i : names.indexOf(f.name);
          const fv = at >= 0 ? r.fields[at] : undefined;
          out[f.name] = fv === undefined ? this.write(f.type, inner, NONE) : this.write(f.type, inner, fv);
        });
        return out;
      }
      case 'variant': {
        const x = expectTag(v, 'variant');
        const ctor = dt.constructors.find((c) => c.name === x.constructor);
        if (!ctor) throw new LfJsonError(`${tycon.entityName} has no constructor ${x.constructor}`);
        return { tag: ctor.name, value: this.write(ctor.type, inner, x.value) };
      }
      case 'enum': {
        const x = expectTag(v, 'enum');
        if (!dt.constructors.includes(x.constructor)) throw new LfJsonError(`${tycon.entityName} has no constructor ${x.constructor}`);
        return x.constructor;
      }
      case 'interface':
        throw new LfJsonError(`interface ${tycon.entityName} values are not serializable`);
    }
  }

  /**
   * The builtin or data type `type` stands for, with the environment to read its arguments in:
   * type variables and synonyms followed; any other type is not serializable.
   */
  private head(type: LfType, env: TypeEnv): { type: Extract<LfType, { kind: 'builtin' | 'con' }>; env: TypeEnv } {
    let t = flatten(type);
    let e = env;
    for (;;) {
      switch (t.kind) {
        case 'var': {
          const b = e.get(t.name);
          if (!b || t.args.length > 0) throw new LfJsonError(`unbound or higher-kinded type variable ${t.name}`);
          t = flatten(b.type);
          e = b.env;
          break;
        }
        case 'syn': {
          const expanded = this.expandSynonym(t.tysyn, t.args, e);
          t = flatten(expanded.type);
          e = expanded.env;
          break;
        }
        case 'builtin':
        case 'con':
          return { type: t, env: e };
        default:
          throw new LfJsonError(`type ${t.kind} is not serializable`);
      }
    }
  }

  private expandSynonym(tysyn: TypeConRef, args: readonly LfType[], env: TypeEnv): TypeBinding {
    const syn = this.module(tysyn)?.synonyms.get(tysyn.entityName);
    if (!syn) throw new LfJsonError(`unknown type synonym ${tysyn.moduleName}:${tysyn.entityName}`);
    return { type: syn.type, env: bind(syn.params, args, env) };
  }
}

/** The scale of `Numeric n` (json-codec.ts reads it); a Numeric without one is an internal error here. */
function scaleOf(arg: LfType | undefined, env: TypeEnv): number {
  const scale = numericScale(arg, env);
  if (scale === undefined) throw new LfJsonError('Numeric without a scale');
  return scale;
}

/** A canonical Numeric string (`-12.3400`) at `scale` → its unscaled integer. */
function parseNumeric(s: string, scale: number): bigint {
  const m = /^(-?)(\d+)\.(\d*)$/.exec(s) ?? /^(-?)(\d+)()$/.exec(s);
  if (!m) throw mismatch(`Numeric ${scale}`, s);
  const frac = m[3]!;
  if (frac.length > scale && /[1-9]/.test(frac.slice(scale))) throw mismatch(`Numeric ${scale}`, s);
  const digits = BigInt(m[2]! + frac.slice(0, scale).padEnd(scale, '0'));
  return m[1] === '-' ? -digits : digits;
}

function expectTag<T extends Value['tag']>(v: Value, tag: T): Extract<Value, { tag: T }> {
  if (v.tag !== tag) throw new LfJsonError(`expected a ${tag} value, got ${v.tag}`);
  return v as Extract<Value, { tag: T }>;
}

function str(what: string, json: unknown): string {
  if (typeof json !== 'string') throw mismatch(what, json);
  return json;
}

function object(what: string, json: unknown): Record<string, unknown> {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw mismatch(what, json);
  return json as Record<string, unknown>;
}

function mismatch(what: string, got: unknown): LfJsonError {
  return new LfJsonError(`expected ${what}, got ${preview(got)}`);
}
