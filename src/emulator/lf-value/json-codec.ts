/**
 * Daml-LF values in the emulator (this folder). The ledger's canonical JSON, the JSON Ledger API's
 * transcode encoding, is the form every other one converts to and from, so this module is the
 * folder's main one. The forms, and why there is more than one:
 *  - JSON (`unknown`, participant/types.ts `LfValue`): what clients send and the ledger stores and
 *    prints. A request's JSON is checked and made canonical against its LF type here (a DAR's
 *    `LfType`), or in native-json-codec.ts against a native template's description.
 *  - Type descriptions: a DAR's types are the decoder's `LfType` AST (emulator/dar/lf2.ts); the
 *    native templates, which have no DAR to read, describe theirs with `NativeValueType`
 *    (native-type.ts). Both describe the same LF types; the native one names no type constructors.
 *  - Runtime values (runtime-value.ts): what the Daml-LF evaluator computes with: numbers as
 *    bigints, records with their type constructor, closures and update actions, which JSON cannot
 *    hold. runtime-json-codec.ts converts canonical JSON to them and back.
 *  - The protobuf `Value` (proto-value.ts): how interactive submission's prepared transactions carry
 *    values; proto-codec.ts builds it from canonical JSON.
 *  The kernel's `src/canton/lf-value.ts` holds the readers of single JSON values (Decimal, Time,
 *  Party, token-standard Metadata) that the registry shares with the native templates.
 *
 * This module: Daml-LF values checked against their LF type and normalised to the transcode
 * encoding (`JsonCodec` in Canton's transcode library, digital-asset/canton), for templates
 * whose package was uploaded as a DAR:
 *  - records: an object; every field is emitted, in declaration order; a missing Optional field is
 *    None; a missing non-Optional field fails; keys the type does not have fail unless their value
 *    is null;
 *  - variants `{"tag","value"}` (both keys required), enums as the constructor name;
 *  - Unit `{}` (any input), Bool, Text, Party, ContractId;
 *  - Int64 as a string (string or number in), Numeric n as the canonical string with exactly n
 *    decimals (`Numeric.toString`: scale 0 prints a trailing "."), Date `yyyy-mm-dd`, Timestamp
 *    ISO at UTC with the fraction's trailing zeros stripped (sub-microsecond input truncated);
 *  - Optional: `null`/the value; a nested chain (`Optional (Optional a)`) uses arrays at every
 *    level (`[]`, `[[]]`, `[["5"]]`), only the innermost value uses its own codec;
 *  - List as an array; TextMap as an object with keys in code-point order (the LF TextMap is
 *    sorted); GenMap as `[[k, v], ...]` sorted by key in Daml's value order (the engine keeps maps
 *    ordered, so that is how a created contract reads back).
 *
 * Error codes follow `Endpoints.handleError` (Canton `http/json/v2/Endpoints.scala`): a missing field is
 * COMMAND_PREPROCESSING_FAILED, unexpected fields are INVALID_ARGUMENT, and so are malformed
 * values (Canton turns some of those, e.g. ujson type mismatches, into a 500; the emulator never
 * answers a client mistake with a 500). Numerics that do not fit their scale are rejected by the
 * Daml engine's preprocessing, hence COMMAND_PREPROCESSING_FAILED.
 *
 * Type variables are bound lazily (with the environment of their use site), so the nested
 * optional form is chosen from the type as written, as transcode does: in `Optional a` with
 * `a = Optional Int64` the outer level uses the simple form.
 *
 * Types that cannot occur in serializable values (synonyms, structs, foralls, Any, ...) and type
 * constructors the package store cannot resolve are passed through verbatim: there is nothing to
 * check them against.
 */
import type { DecodedDataType, LfType, TypeConRef } from '../dar/lf2.js';
import { civilFromDays, daysFromCivil, daysInMonth } from '../../canton/calendar.js';
import { formatDamlTimestamp } from '../../canton/clock.js';
import { LedgerApiError, type ErrorCodeId } from '../../canton/errors.js';
import { canonicalNumeric, numericScaleProblem, numericTextOf, readNumericText } from '../../canton/numeric.js';
import { INT64_MAX, INT64_MIN } from './runtime-value.js';

/** Looks up the data type a type constructor names (in the uploaded packages). */
export type DataTypeResolver = (tycon: TypeConRef) => DecodedDataType | undefined;

/**
 * What went wrong with a value:
 *  - `missing-field`: a non-Optional record field is absent (COMMAND_PREPROCESSING_FAILED);
 *  - `unexpected-fields`: record keys the type does not have (INVALID_ARGUMENT);
 *  - `invalid-value`: the JSON does not encode a value of the type (INVALID_ARGUMENT);
 *  - `numeric-scale`: a Numeric with more decimals than its scale, or too many digits
 *    (COMMAND_PREPROCESSING_FAILED).
 */
export type LfValueErrorKind = 'missing-field' | 'unexpected-fields' | 'invalid-value' | 'numeric-scale';

const CODE_OF: Record<LfValueErrorKind, ErrorCodeId> = {
  'missing-field': 'COMMAND_PREPROCESSING_FAILED',
  'unexpected-fields': 'INVALID_ARGUMENT',
  'invalid-value': 'INVALID_ARGUMENT',
  'numeric-scale': 'COMMAND_PREPROCESSING_FAILED',
};

/**
 * A value that does not fit its LF type. It is a `LedgerApiError` carrying Canton's code for the
 * kind, so the command interpreter reports it as is.
 */
export class LfValueError extends LedgerApiError {
  constructor(
    readonly kind: LfValueErrorKind,
    /** Where in the value: `field.sub[2]`, '' for the value itself. */
    readonly path: string,
    /** The message without the INVALID_ARGUMENT prefix. */
    readonly detail: string,
  ) {
    super(
      CODE_OF[kind],
      CODE_OF[kind] === 'INVALID_ARGUMENT' ? `The submitted request has invalid arguments: ${detail}` : detail,
    );
  }
}

/**
 * Checks `value` against `type` and returns its canonical transcode JSON; throws `LfValueError`.
 * `path` names the value in error messages ('' for a top-level value).
 */
export function normalizeValue(type: LfType, value: unknown, resolve: DataTypeResolver, path: string): unknown {
  return new Normalizer(resolve).value(type, EMPTY_ENV, value, path);
}

// ---- implementation -----------------------------------------------------------------------------

/** A type variable's binding: the argument type and the environment it is to be read in. */
export interface TypeBinding {
  type: LfType;
  env: TypeEnv;
}
export type TypeEnv = ReadonlyMap<string, TypeBinding>;
export const EMPTY_TYPE_ENV: TypeEnv = new Map();
type Bound = TypeBinding;
type Env = TypeEnv;
const EMPTY_ENV = EMPTY_TYPE_ENV;

/** Daml's Date/Timestamp range: 0001-01-01 to 9999-12-31 (inclusive, microsecond precision). */
const MIN_DAY = daysFromCivil(1, 1, 1);
const MAX_DAY = daysFromCivil(9999, 12, 31);
const MICROS_PER_DAY = 86_400_000_000n;
const MIN_MICROS = BigInt(MIN_DAY) * MICROS_PER_DAY;
const MAX_MICROS = BigInt(MAX_DAY + 1) * MICROS_PER_DAY - 1n;

/** Party ids: `Ref.Party` allows these characters, 1 to 255 of them. */
const PARTY = /^[A-Za-z0-9:\-_ ]{1,255}$/;
const CONTRACT_ID = /^[0-9a-f]+$/;

class Normalizer {
  constructor(private readonly resolve: DataTypeResolver) {}

  value(type: LfType, env: Env, v: unknown, path: string): unknown {
    const t = flatten(type);
    switch (t.kind) {
      case 'var': {
        const b = env.get(t.name);
        // Higher-kinded variables never occur in serializable types; nothing to check against.
        if (!b || t.args.length > 0) return v;
        return this.value(b.type, b.env, v, path);
      }
      case 'builtin':
        return this.builtin(t, env, v, path);
      case 'con':
        return this.dataType(t.tycon, t.args, env, v, path);
      default:
        return v;
    }
  }

  private builtin(t: Extract<LfType, { kind: 'builtin' }>, env: Env, v: unknown, path: string): unknown {
    const [a0, a1] = t.args;
    switch (t.name) {
      case 'Unit':
        return {};
      case 'Bool':
        if (typeof v !== 'boolean') throw mismatch(path, 'a Bool', v);
        return v;
      case 'Text':
        if (typeof v !== 'string') throw mismatch(path, 'a Text', v);
        return v;
      case 'Party':
        if (typeof v !== 'string' || !PARTY.test(v)) throw mismatch(path, 'a Party', v);
        return v;
      case 'ContractId':
        if (typeof v !== 'string' || !CONTRACT_ID.test(v)) throw mismatch(path, 'a ContractId', v);
        return v;
      case 'Int64':
        return normalizeInt64(v, path);
      case 'Numeric':
        return normalizeNumeric(v, numericScale(a0, env) ?? 10, path); // no scale: Decimal
      case 'Date':
        return formatDate(parseDate(v, path));
      case 'Timestamp':
        return formatDamlTimestamp(parseTimestamp(v, path));
      case 'Optional':
        if (!a0) return v;
        return isOptionalSyntax(a0) ? this.nestedOptional(a0, env, v, path) : v === null || v === undefined ? null : this.value(a0, env, v, path);
      case 'List':
        if (!a0) return v;
        if (!Array.isArray(v)) throw mismatch(path, 'a List (JSON array)', v);
        return v.map((x, i) => this.value(a0, env, x, `${path}[${i}]`));
      case 'TextMap': {
        if (!a0) return v;
        const obj = asObject(v, path, 'a TextMap (JSON object)');
        const out: Record<string, unknown> = {};
        for (const k of Object.keys(obj).sort(compareText)) out[k] = this.value(a0, env, obj[k], `${path}[${JSON.stringify(k)}]`);
        return out;
      }
      case 'GenMap': {
        if (!a0 || !a1) return v;
        if (!Array.isArray(v)) throw mismatch(path, 'a GenMap (JSON array of [key, value] pairs)', v);
        const entries = v.map((e, i): [unknown, unknown] => {
          if (!Array.isArray(e) || e.length < 2) throw mismatch(`${path}[${i}]`, 'a [key, value] pair', e);
          return [this.value(a0, env, e[0], `${path}[${i}][0]`), this.value(a1, env, e[1], `${path}[${i}][1]`)];
        });
        // The engine keeps a GenMap as an ordered map: entries sorted by key, a repeated key
        // keeps its last value (a TreeMap built by successive inserts).
        const sorted: Array<[unknown, unknown]> = [];
        for (const e of entries) {
          const at = sorted.findIndex((s) => this.compare(a0, env, s[0], e[0]) === 0);
          if (at >= 0) sorted[at] = e;
          else sorted.push(e);
        }
        return sorted.sort((x, y) => this.compare(a0, env, x[0], y[0]));
      }
      default:
        return v;
    }
  }

  /**
   * A value of `Optional elem` in the nested form (`elem` is itself written as an Optional, or
   * this is an inner level of such a chain): `[]` is None, `[x]` is Some x, where x is again in
   * the nested form while the chain goes on, else in `elem`'s own encoding. Canton's codec fails
   * on `null` here (with a 500); the emulator reads a missing/null value as None, like the
   * simple form.
   */
  private nestedOptional(elem: LfType, env: Env, v: unknown, path: string): unknown {
    if (v === null || v === undefined) return [];
    if (!Array.isArray(v)) throw mismatch(path, 'a nested Optional (JSON array: [] or [value])', v);
    if (v.length === 0) return [];
    const f = flatten(elem);
    if (f.kind === 'builtin' && f.name === 'Optional' && f.args[0]) return [this.nestedOptional(f.args[0], env, v[0], `${path}[0]`)];
    return [this.value(elem, env, v[0], `${path}[0]`)];
  }

  private dataType(tycon: TypeConRef, args: LfType[], env: Env, v: unknown, path: string): unknown {
    const dt = this.resolve(tycon);
    if (!dt) return v;
    const inner = bind(dt.params, args, env);
    switch (dt.kind) {
      case 'record': {
        const obj = asObject(v, path, `a record ${tycon.moduleName}:${tycon.entityName} (JSON object)`);
        const names = new Set(dt.fields.map((f) => f.name));
        const missing = dt.fields.filter((f) => !Object.hasOwn(obj, f.name) && !this.isOptional(f.type, inner)).map((f) => fieldPath(path, f.name));
        if (missing.length > 0) {
          throw new LfValueError('missing-field', path, `Missing non-optional field${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`);
        }
        const unexpected = Object.keys(obj).filter((k) => !names.has(k) && obj[k] !== null).map((k) => fieldPath(path, k));
        if (unexpected.length > 0) throw new LfValueError('unexpected-fields', path, `Unexpected fields: ${unexpected.join(', ')}`);
        const out: Record<string, unknown> = {};
        for (const f of dt.fields) out[f.name] = this.value(f.type, inner, Object.hasOwn(obj, f.name) ? obj[f.name] : null, fieldPath(path, f.name));
        return out;
      }
      case 'variant': {
        if (v === null || typeof v !== 'object' || Array.isArray(v) || !Object.hasOwn(v, 'tag') || !Object.hasOwn(v, 'value')) {
          throw new LfValueError('invalid-value', path, `${where(path)}: Variant type json must have 'tag' and 'value' fields, got ${preview(v)}`);
        }
        const { tag, value } = v as { tag: unknown; value: unknown };
        const ctor = typeof tag === 'string' ? dt.constructors.find((c) => c.name === tag) : undefined;
        if (!ctor) throw new LfValueError('invalid-value', path, `${where(path)}: Unexpected variant tag: ${preview(tag)}`);
        return { tag: ctor.name, value: this.value(ctor.type, inner, value, fieldPath(path, ctor.name)) };
      }
      case 'enum':
        if (typeof v !== 'string') throw mismatch(path, `an enum ${tycon.moduleName}:${tycon.entityName} (constructor name)`, v);
        if (!dt.constructors.includes(v)) throw new LfValueError('invalid-value', path, `${where(path)}: Unexpected enum constructor: ${v}`);
        return v;
      case 'interface':
        // An interface-typed value prints as `{}` (transcode `JsonCodec`).
        return {};
    }
  }

  /** Whether a record field may be left out: its type is (or a variable bound to) an Optional. */
  private isOptional(type: LfType, env: Env): boolean {
    const t = flatten(type);
    if (t.kind === 'var') {
      const b = env.get(t.name);
      return b !== undefined && t.args.length === 0 && this.isOptional(b.type, b.env);
    }
    return t.kind === 'builtin' && t.name === 'Optional';
  }

  // ---- Daml's value order on canonical values (for GenMap keys) ----------------------------------

  compare(type: LfType, env: Env, a: unknown, b: unknown): number {
    const t = flatten(type);
    if (t.kind === 'var') {
      const bound = env.get(t.name);
      return bound && t.args.length === 0 ? this.compare(bound.type, bound.env, a, b) : compareJson(a, b);
    }
    if (t.kind === 'builtin') {
      const [a0, a1] = t.args;
      switch (t.name) {
        case 'Unit':
          return 0;
        case 'Bool':
          return Number(a) - Number(b);
        case 'Int64':
          return sign(BigInt(a as string) - BigInt(b as string));
        case 'Numeric':
          // Same scale on both sides: the digits without the point are the scaled integers.
          return sign(BigInt((a as string).replace('.', '')) - BigInt((b as string).replace('.', '')));
        case 'Date':
          return compareText(a as string, b as string);
        case 'Timestamp':
          return sign(parseTimestamp(a, '') - parseTimestamp(b, ''));
        case 'Text':
        case 'Party':
        case 'ContractId':
          return compareText(a as string, b as string);
        case 'Optional': {
          if (!a0) return compareJson(a, b);
          const nested = isOptionalSyntax(a0);
          const none = (x: unknown) => (nested ? (x as unknown[]).length === 0 : x === null);
          if (none(a) || none(b)) return Number(!none(a)) - Number(!none(b));
          return nested ? this.compareNested(a0, env, a, b) : this.compare(a0, env, a, b);
        }
        case 'List':
          return a0 ? compareSeq(a as unknown[], b as unknown[], (x, y) => this.compare(a0, env, x, y)) : compareJson(a, b);
        case 'TextMap': {
          if (!a0) return compareJson(a, b);
          const ea = Object.entries(a as Record<string, unknown>);
          const eb = Object.entries(b as Record<string, unknown>);
          return compareSeq(ea, eb, (x, y) => compareText(x[0], y[0]) || this.compare(a0, env, x[1], y[1]));
        }
        case 'GenMap':
          if (!a0 || !a1) return compareJson(a, b);
          return compareSeq(a as Array<[unknown, unknown]>, b as Array<[unknown, unknown]>, (x, y) => this.compare(a0, env, x[0], y[0]) || this.compare(a1, env, x[1], y[1]));
        default:
          return compareJson(a, b);
      }
    }
    if (t.kind === 'con') {
      const dt = this.resolve(t.tycon);
      if (!dt) return compareJson(a, b);
      const inner = bind(dt.params, t.args, env);
      switch (dt.kind) {
        case 'record': {
          const ra = a as Record<string, unknown>;
          const rb = b as Record<string, unknown>;
          for (const f of dt.fields) {
            const c = this.compare(f.type, inner, ra[f.name], rb[f.name]);
            if (c !== 0) return c;
          }
          return 0;
        }
        case 'variant': {
          const va = a as { tag: string; value: unknown };
          const vb = b as { tag: string; value: unknown };
          const ia = dt.constructors.findIndex((c) => c.name === va.tag);
          const ib = dt.constructors.findIndex((c) => c.name === vb.tag);
          return ia - ib || this.compare(dt.constructors[ia]!.type, inner, va.value, vb.value);
        }
        case 'enum':
          return dt.constructors.indexOf(a as string) - dt.constructors.indexOf(b as string);
        case 'interface':
          return 0;
      }
    }
    return compareJson(a, b);
  }

  /** Compares two nested-form values of `Optional elem` (see `nestedOptional`). */
  private compareNested(elem: LfType, env: Env, a: unknown, b: unknown): number {
    const ea = a as unknown[];
    const eb = b as unknown[];
    if (ea.length === 0 || eb.length === 0) return Number(ea.length > 0) - Number(eb.length > 0);
    const f = flatten(elem);
    if (f.kind === 'builtin' && f.name === 'Optional' && f.args[0]) return this.compareNested(f.args[0], env, ea[0], eb[0]);
    return this.compare(elem, env, ea[0], eb[0]);
  }
}

/** Type applications (`app`, LF 2.dev) folded into the head's argument list. */
export function flatten(t: LfType): LfType {
  if (t.kind !== 'app') return t;
  const f = flatten(t.fun);
  if (f.kind === 'builtin' || f.kind === 'con' || f.kind === 'syn' || f.kind === 'var') return { ...f, args: [...f.args, t.arg] };
  return t;
}

/** Whether a type is written as an Optional (transcode decides the nested form on the codec, not through variables). */
export function isOptionalSyntax(t: LfType): boolean {
  const f = flatten(t);
  return f.kind === 'builtin' && f.name === 'Optional';
}

/** Binds a data type's or synonym's parameters to the arguments it is applied to. */
export function bind(params: readonly string[], args: readonly LfType[], env: Env): Env {
  if (params.length === 0) return EMPTY_ENV;
  const out = new Map<string, Bound>();
  params.forEach((p, i) => {
    const a = args[i];
    if (a) out.set(p, { type: a, env });
  });
  return out;
}

/** The scale of `Numeric n`: a nat, possibly through type variables; undefined when there is none. */
export function numericScale(arg: LfType | undefined, env: TypeEnv): number | undefined {
  let t = arg;
  let e = env;
  while (t?.kind === 'var') {
    const b = e.get(t.name);
    if (!b) break;
    t = b.type;
    e = b.env;
  }
  return t?.kind === 'nat' ? t.value : undefined;
}

// ---- builtins -----------------------------------------------------------------------------------

function normalizeInt64(v: unknown, path: string): string {
  let n: bigint;
  // Long.parseLong syntax: an optional sign and decimal digits.
  if (typeof v === 'string' && /^[+-]?\d+$/.test(v)) n = BigInt(v);
  else if (typeof v === 'number' && Number.isInteger(v)) {
    if (!Number.isSafeInteger(v)) throw mismatch(path, 'an Int64 (a number this large loses precision in JSON; send it as a string)', v);
    n = BigInt(v);
  } else throw mismatch(path, 'an Int64', v);
  if (n < INT64_MIN || n > INT64_MAX) throw new LfValueError('invalid-value', path, `${where(path)}: ${String(v)} is out of range for Int64`);
  return n.toString();
}

/**
 * `Numeric s`: read as Canton reads a Numeric from the JSON API (canton/numeric.ts: a JSON number
 * through the JVM's Double.toString, then the Ledger API's validation `[+-]?\d{1,38}(\.\d{0,37})?`
 * with at most 38 significant digits, then the engine's `fromBigDecimal(s, x)`: no significant
 * decimal beyond the scale, at most 38 - s integer digits) and printed as `Numeric.toString` does
 * (exactly s decimals; scale 0 ends in ".").
 */
export function normalizeNumeric(v: unknown, scale: number, path: string): string {
  const text = numericTextOf(v);
  if (text === undefined) throw mismatch(path, `a Numeric ${scale}`, v);
  const parts = readNumericText(text);
  if (!parts) throw new LfValueError('invalid-value', path, `${where(path)}: Could not read Numeric string "${text}"`);
  const problem = numericScaleProblem(parts, scale);
  if (problem === 'precision') {
    throw new LfValueError('numeric-scale', path, `${where(path)}: Cannot represent ${text} as (Numeric ${scale}) without loss of precision`);
  }
  if (problem === 'bounds') throw new LfValueError('numeric-scale', path, `${where(path)}: Out-of-bounds (Numeric ${scale}) ${text}`);
  return canonicalNumeric(parts, scale);
}

/** ISO local date `yyyy-mm-dd` (strict: a real calendar day) → epoch day. */
export function parseDate(v: unknown, path: string): number {
  const m = typeof v === 'string' ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(v) : null;
  if (!m) throw mismatch(path, 'a Date (yyyy-mm-dd)', v);
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (!validDay(y, mo, d)) throw mismatch(path, 'a Date (yyyy-mm-dd)', v);
  const day = daysFromCivil(y, mo, d);
  if (day < MIN_DAY) throw new LfValueError('invalid-value', path, `${where(path)}: Date ${v as string} is out of range`);
  return day;
}

export function formatDate(day: number): string {
  const { year: y, month: m, day: d } = civilFromDays(day);
  return `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`;
}

const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):(\d{2})(?::(\d{2}))?)$/;

/**
 * A date-time with an offset, as `DateTimeFormatter.ISO_DATE_TIME` reads it (seconds and fraction
 * optional, up to 9 fraction digits, offset `Z` or `±hh:mm[:ss]`) → epoch micros, truncating
 * below the microsecond; must lie in Daml's Timestamp range.
 */
export function parseTimestamp(v: unknown, path: string): bigint {
  const m = typeof v === 'string' ? TIMESTAMP.exec(v) : null;
  const bad = () => mismatch(path, 'a Timestamp (ISO 8601 date-time with offset, e.g. 2025-01-27T15:30:36.43094Z)', v);
  if (!m) throw bad();
  const [y, mo, d, h, mi, s] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0)) as [number, number, number, number, number, number];
  if (!validDay(y, mo, d) || h > 23 || mi > 59 || s > 59) throw bad();
  let offset = 0;
  if (m[9]) {
    const [oh, om, os] = [Number(m[10]), Number(m[11]), Number(m[12] ?? 0)];
    if (oh > 18 || om > 59 || os > 59) throw bad();
    offset = (m[9] === '-' ? -1 : 1) * (oh * 3600 + om * 60 + os);
  }
  const seconds = BigInt(daysFromCivil(y, mo, d)) * 86_400n + BigInt(h * 3600 + mi * 60 + s - offset);
  const micros = seconds * 1_000_000n + BigInt((m[7] ?? '').padEnd(6, '0').slice(0, 6));
  if (micros < MIN_MICROS || micros > MAX_MICROS) {
    throw new LfValueError('invalid-value', path, `${where(path)}: Timestamp ${v as string} is out of range`);
  }
  return micros;
}

function validDay(y: number, m: number, d: number): boolean {
  return m >= 1 && m <= 12 && d >= 1 && d <= daysInMonth(y, m);
}


// ---- helpers ------------------------------------------------------------------------------------

function asObject(v: unknown, path: string, what: string): Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw mismatch(path, what, v);
  return v as Record<string, unknown>;
}

function mismatch(path: string, expected: string, got: unknown): LfValueError {
  return new LfValueError('invalid-value', path, `${where(path)}: expected ${expected}, got ${preview(got)}`);
}

function where(path: string): string {
  return path === '' ? 'value' : path;
}

/** The path of field `name` of the value at `path` (a value at the root, path '', names its fields bare). */
export function fieldPath(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

/** A value as error messages quote it: its JSON, cut at 80 characters. */
export function preview(v: unknown): string {
  const s = v === undefined ? 'nothing' : JSON.stringify(v);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

function sign(n: bigint): number {
  return n < 0n ? -1 : n > 0n ? 1 : 0;
}

/**
 * Daml's Text order: code points (UTF-8 byte order). JS `<` compares UTF-16 units, which differs
 * only between surrogates and U+E000..U+FFFF; remapping those units restores code-point order.
 */
export function compareText(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codeUnitRank(x) - codeUnitRank(y);
  }
  return a.length - b.length;
}

function codeUnitRank(c: number): number {
  if (c < 0xd800) return c;
  return c >= 0xe000 ? c - 0x800 : c + 0x2000;
}

function compareSeq<T>(a: readonly T[], b: readonly T[], cmp: (x: T, y: T) => number): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = cmp(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

function compareJson(a: unknown, b: unknown): number {
  return compareText(JSON.stringify(a) ?? '', JSON.stringify(b) ?? '');
}
