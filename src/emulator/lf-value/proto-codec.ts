/**
 * Daml values from the ledger's transcode JSON (Canton `JsonCodec.scala`) to the protobuf
 * `Value` of a prepared transaction (proto-value.ts).
 *
 * Type-directed when the value's LF type is known: a native template's description of its
 * payload or choice argument (`nativeTypedValue`), or a template of an uploaded DAR (the
 * package store has its data types: `typedValue`); otherwise the type is read off the canonical
 * JSON the engine stores, which is unambiguous for what the native templates hold: parties (`hint::1220…`),
 * contract ids (`00…`, 138 hex), Numeric (a decimal point), Int64 (digits only), Timestamp
 * (ISO instant), Date (`yyyy-mm-dd`), variants (`{tag, value}`), records (objects, fields in
 * declaration order, labelled), lists, Unit (`{}`), Bool, None (`null`). What JSON cannot tell
 * apart without the type (Some x vs x, a TextMap vs a record) is encoded as the value it reads
 * as; the emulator never reads these values back for execution, it commits what it
 * interpreted, so the choice only affects what a wallet displays.
 */
import type { DecodedDataType, LfType, TypeConRef } from '../dar/lf2.js';
import type { NativeValueType } from './native-type.js';
import type { PValue } from './proto-value.js';
import { INT64_MAX, INT64_MIN } from './runtime-value.js';

const PARTY = /^[A-Za-z0-9:\-_ ]{1,255}::1220[0-9a-f]{64}$/;
const CONTRACT_ID = /^00[0-9a-f]{64}[0-9a-f]*$/;
const NUMERIC = /^-?\d+\.\d*$/;
const INT64 = /^-?\d{1,19}$/;
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/;
const DATE = /^\d{4}-\d\d-\d\d$/;

/** Micros since the epoch of an ISO instant (sub-microsecond digits truncated). */
function isoToMicros(s: string): bigint {
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z$/.exec(s);
  if (!m) throw new Error(`not an instant: ${s}`);
  const secs = BigInt(Date.parse(`${m[1]}Z`)) / 1000n;
  const frac = BigInt(((m[2] ?? '') + '000000').slice(0, 6));
  return secs * 1_000_000n + frac;
}

function dateToDays(s: string): number {
  return Math.floor(Date.parse(`${s}T00:00:00Z`) / 86_400_000);
}

/** The scalar cases of a proto Value, each read from its canonical JSON the same way whichever type description names it. */
type ScalarKind = 'unit' | 'bool' | 'int64' | 'numeric' | 'text' | 'party' | 'contractId' | 'timestamp' | 'date';

function scalarValue(kind: ScalarKind, v: unknown): PValue {
  switch (kind) {
    case 'unit':
      return { kind };
    case 'bool':
      return { kind, value: v === true };
    case 'int64':
      return { kind, value: BigInt(String(v)) };
    case 'timestamp':
      return { kind, value: isoToMicros(String(v)) };
    case 'date':
      return { kind, value: dateToDays(String(v)) };
    default:
      return { kind, value: String(v) };
  }
}

/** The LF builtin types (dar/lf2.ts `BuiltinName`) that are scalars. */
const BUILTIN_SCALARS: Readonly<Record<string, ScalarKind>> = {
  Unit: 'unit',
  Bool: 'bool',
  Int64: 'int64',
  Numeric: 'numeric',
  Text: 'text',
  Party: 'party',
  ContractId: 'contractId',
  Timestamp: 'timestamp',
  Date: 'date',
};

/** The scalars of a native type description (native-type.ts); `any` is read off the JSON. */
const NATIVE_SCALARS: Readonly<Record<Exclude<NativeValueType, object | 'any'>, ScalarKind>> = {
  party: 'party',
  text: 'text',
  decimal: 'numeric',
  int: 'int64',
  time: 'timestamp',
  date: 'date',
  bool: 'bool',
  cid: 'contractId',
  unit: 'unit',
};

/** The protobuf value of an LF JSON value whose type is not known (read off the JSON). */
export function inferValue(v: unknown): PValue {
  if (v === null || v === undefined) return { kind: 'optional', value: undefined };
  if (typeof v === 'boolean') return { kind: 'bool', value: v };
  if (typeof v === 'number') return Number.isInteger(v) ? { kind: 'int64', value: BigInt(v) } : { kind: 'numeric', value: String(v) };
  if (typeof v === 'string') {
    if (PARTY.test(v)) return { kind: 'party', value: v };
    if (v.length === 138 && CONTRACT_ID.test(v)) return { kind: 'contractId', value: v };
    if (NUMERIC.test(v)) return { kind: 'numeric', value: v };
    if (INT64.test(v)) {
      const n = BigInt(v);
      if (n <= INT64_MAX && n >= INT64_MIN) return { kind: 'int64', value: n };
    }
    if (TIMESTAMP.test(v) && !Number.isNaN(Date.parse(v))) return { kind: 'timestamp', value: isoToMicros(v) };
    if (DATE.test(v) && !Number.isNaN(Date.parse(v))) return { kind: 'date', value: dateToDays(v) };
    return { kind: 'text', value: v };
  }
  if (Array.isArray(v)) return { kind: 'list', elements: v.map(inferValue) };
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    if (keys.length === 0) return { kind: 'unit' };
    if (keys.length === 2 && typeof o.tag === 'string' && 'value' in o) {
      return { kind: 'variant', constructor: o.tag, value: inferValue(o.value) };
    }
    return { kind: 'record', fields: keys.map((k) => ({ label: k, value: inferValue(o[k]) })) };
  }
  return { kind: 'text', value: String(v) };
}

/**
 * The part of the uploaded packages `typedValue` reads: a data type by a package reference, with
 * the id of the package it resolved to (the participant's PackageStore is one). Declared here, so
 * that the codecs sit below the participant that uses them.
 */
export interface DataTypeFinder {
  findDataType(packageRef: string, moduleName: string, entityName: string): { readonly id: TypeConRef; readonly dataType: DecodedDataType } | undefined;
}

/**
 * The protobuf value of `v` typed by `type` (an LF type of an uploaded package); parts whose
 * type cannot be resolved fall back to `inferValue`.
 */
export function typedValue(packages: DataTypeFinder, type: LfType, v: unknown, env: ReadonlyMap<string, LfType> = new Map()): PValue {
  if (type.kind === 'var') {
    const bound = env.get(type.name);
    return bound ? typedValue(packages, bound, v, env) : inferValue(v);
  }
  if (type.kind === 'builtin') {
    const [a, b] = type.args;
    const scalar = BUILTIN_SCALARS[type.name];
    if (scalar) return scalarValue(scalar, v);
    switch (type.name) {
      case 'Optional': {
        if (v === null || v === undefined) return { kind: 'optional', value: undefined };
        // Nested optionals use arrays at every level in transcode (json-codec.ts).
        const inner = a && a.kind === 'builtin' && a.name === 'Optional' && Array.isArray(v) ? (v.length === 0 ? null : v[0]) : v;
        return { kind: 'optional', value: a ? typedValue(packages, a, inner, env) : inferValue(inner) };
      }
      case 'List':
        return { kind: 'list', elements: (Array.isArray(v) ? v : []).map((x) => (a ? typedValue(packages, a, x, env) : inferValue(x))) };
      case 'TextMap': {
        const o = (v ?? {}) as Record<string, unknown>;
        return { kind: 'textMap', entries: Object.keys(o).map((k) => ({ key: k, value: a ? typedValue(packages, a, o[k], env) : inferValue(o[k]) })) };
      }
      case 'GenMap': {
        const pairs = Array.isArray(v) ? (v as unknown[][]) : [];
        return {
          kind: 'genMap',
          entries: pairs.map(([k, x]) => ({
            key: a ? typedValue(packages, a, k, env) : inferValue(k),
            value: b ? typedValue(packages, b, x, env) : inferValue(x),
          })),
        };
      }
      default:
        return inferValue(v);
    }
  }
  if (type.kind === 'con') {
    const found = packages.findDataType(type.tycon.packageId, type.tycon.moduleName, type.tycon.entityName);
    const dt = found?.dataType;
    if (!dt) return inferValue(v);
    const params = dt.params;
    const inner = new Map<string, LfType>();
    params.forEach((p, i) => {
      const arg = type.args[i];
      if (arg) inner.set(p, arg.kind === 'var' && env.has(arg.name) ? env.get(arg.name)! : arg);
    });
    const id = { packageId: found.id.packageId, moduleName: found.id.moduleName, entityName: found.id.entityName };
    if (dt.kind === 'record') {
      const o = (v ?? {}) as Record<string, unknown>;
      return { kind: 'record', recordId: id, fields: dt.fields.map((f) => ({ label: f.name, value: typedValue(packages, f.type, o[f.name] ?? null, inner) })) };
    }
    if (dt.kind === 'variant') {
      const o = (v ?? {}) as { tag?: string; value?: unknown };
      const ctor = dt.constructors.find((c) => c.name === o.tag);
      return { kind: 'variant', variantId: id, constructor: String(o.tag), value: ctor ? typedValue(packages, ctor.type, o.value, inner) : inferValue(o.value) };
    }
    if (dt.kind === 'enum') return { kind: 'enum', enumId: id, constructor: String(v) };
  }
  return inferValue(v);
}

/**
 * The protobuf value of `v` typed by a native template's description of its LF type
 * (native-type.ts). Records carry their field labels but no record id (the description
 * names no types); `any` and `custom` parts fall back to `inferValue`.
 */
export function nativeTypedValue(t: NativeValueType, v: unknown): PValue {
  if (typeof t === 'string') return t === 'any' ? inferValue(v) : scalarValue(NATIVE_SCALARS[t], v);
  if ('opt' in t) return { kind: 'optional', value: v === null || v === undefined ? undefined : nativeTypedValue(t.opt, v) };
  if ('list' in t) return { kind: 'list', elements: (Array.isArray(v) ? v : []).map((x) => nativeTypedValue(t.list, x)) };
  if ('rec' in t) {
    const o = (v ?? {}) as Record<string, unknown>;
    return { kind: 'record', fields: t.rec.map(([label, ft]) => ({ label, value: nativeTypedValue(ft, o[label] ?? null) })) };
  }
  if ('variant' in t) {
    const o = (v ?? {}) as { tag?: unknown; value?: unknown };
    const tag = String(o.tag);
    const ct = t.variant[tag];
    return { kind: 'variant', constructor: tag, value: ct ? nativeTypedValue(ct, o.value) : inferValue(o.value) };
  }
  if ('enum' in t) return { kind: 'enum', constructor: String(v) };
  if ('textMap' in t) {
    const o = (v ?? {}) as Record<string, unknown>;
    return { kind: 'textMap', entries: Object.keys(o).map((key) => ({ key, value: nativeTypedValue(t.textMap, o[key]) })) };
  }
  if ('map' in t) {
    const pairs = Array.isArray(v) ? (v as unknown[][]) : [];
    return { kind: 'genMap', entries: pairs.map(([k, x]) => ({ key: nativeTypedValue(t.map[0], k), value: nativeTypedValue(t.map[1], x) })) };
  }
  if ('set' in t) {
    // DA.Set.Set a = Set { map : Map a () }
    const raw = ((v ?? {}) as { map?: unknown }).map;
    const keys = Array.isArray(raw) ? raw.map((e) => (Array.isArray(e) ? e[0] : e)) : [];
    return { kind: 'record', fields: [{ label: 'map', value: { kind: 'genMap', entries: keys.map((k) => ({ key: nativeTypedValue(t.set, k), value: { kind: 'unit' } })) } }] };
  }
  return inferValue(v);
}
