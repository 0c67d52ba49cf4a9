/**
 * A small type-directed normaliser for LF JSON values (transcode encoding,
 * Canton `JsonCodec.scala`), shared by the native templates: each record type is described once, field by field in
 * declaration order, and `normalize` turns a client's value into the canonical JSON the ledger
 * stores and prints (every field present, Decimal at scale 10, Int64 as a string, Time as
 * transcode prints it, Optional missing → null), or throws ArgumentError with the field path
 * (→ COMMAND_PREPROCESSING_FAILED).
 *
 * How a record reads its fields is a `RecordRules`: by default transcode's (unknown fields with a
 * non-null value rejected, null counts as missing), which Amulet uses; TestTokenV1 passes its own,
 * more lenient rules so that its messages stay as they were.
 */
import { fieldPath } from './json-codec.js';
import type { NativeValueType } from './native-type.js';
import { INT64_MAX, INT64_MIN } from './runtime-value.js';
import { ArgumentError, expectContractId, expectParty, expectRecord, expectText, formatDecimal, formatTime, parseDecimal, parseTime } from '../../canton/lf-value.js';
import { daysInMonth } from '../../canton/calendar.js';

/** How `normalize` reads a record's fields. */
export interface RecordRules {
  /** Reject fields the type does not declare when their value is not null (transcode's "Unexpected fields"). */
  rejectUnknown: boolean;
  /** A null field counts as missing; otherwise null goes to the field's type, which words its own error. */
  nullIsMissing: boolean;
  /** The message for a missing non-optional field `name` of the record at `path`. */
  missing(path: string, name: string): string;
}

/** Canton's transcode (the default). */
export const TRANSCODE_RECORDS: RecordRules = {
  rejectUnknown: true,
  nullIsMissing: true,
  missing: (path, name) => `${path}: Missing non-optional field: ${name}`,
};

/** An Int64 as Canton's JSON codec reads one: a JSON integer, or text in `Long.parseLong` syntax (an optional sign, decimal digits). */
function intText(v: unknown, path: string): string {
  if ((typeof v === 'string' && /^[+-]?\d+$/.test(v)) || (typeof v === 'number' && Number.isInteger(v))) {
    const n = BigInt(v);
    if (n > INT64_MAX || n < INT64_MIN) throw new ArgumentError(`${path}: ${String(v)} is out of bounds for Int64`);
    return n.toString();
  }
  throw new ArgumentError(`${path}: expected an Int64, got ${JSON.stringify(v)}`);
}

/** A Date as transcode reads and prints it: an ISO local date `yyyy-mm-dd` that is a real calendar day. */
function dateText(v: unknown, path: string): string {
  const bad = () => new ArgumentError(`${path}: expected a Date (yyyy-mm-dd), got ${JSON.stringify(v)}`);
  if (typeof v !== 'string') throw bad();
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (!m) throw bad();
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // Daml's Date range starts at 0001-01-01; the calendar is checked by hand, since `Date.UTC`
  // reads the years 0-99 as 1900-1999.
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) throw bad();
  return v;
}

/** Normalises `value` of type `t`; `path` names the field in error messages. */
export function normalize(t: NativeValueType, value: unknown, path: string, rules: RecordRules = TRANSCODE_RECORDS): unknown {
  if (typeof t === 'string') {
    switch (t) {
      case 'party':
        return expectParty(value, path);
      case 'text':
        return expectText(value, path);
      case 'decimal':
        return formatDecimal(parseDecimal(value, path));
      case 'int':
        return intText(value, path);
      case 'time':
        return formatTime(parseTime(value, path));
      case 'date':
        return dateText(value, path);
      case 'bool':
        if (typeof value !== 'boolean') throw new ArgumentError(`${path}: expected a Bool, got ${JSON.stringify(value)}`);
        return value;
      case 'cid':
        return expectContractId(value, path);
      case 'unit':
        expectRecord(value ?? {}, path);
        return {};
      case 'any':
        return value;
    }
  }
  if ('custom' in t) return t.custom(value, path);
  if ('opt' in t) return value === undefined || value === null ? null : normalize(t.opt, value, path, rules);
  if ('list' in t) {
    if (!Array.isArray(value)) throw new ArgumentError(`${path}: expected a List, got ${JSON.stringify(value)}`);
    return value.map((x, i) => normalize(t.list, x, `${path}[${i}]`, rules));
  }
  if ('rec' in t) {
    const r = expectRecord(value, path);
    if (rules.rejectUnknown) {
      const names = t.rec.map(([n]) => n);
      const unexpected = Object.keys(r).filter((k) => !names.includes(k) && r[k] !== null && r[k] !== undefined);
      if (unexpected.length > 0) throw new ArgumentError(`${path}: Unexpected fields: ${unexpected.join(', ')}`);
    }
    const out: Record<string, unknown> = {};
    for (const [name, ft] of t.rec) {
      const v = r[name];
      const isOpt = typeof ft !== 'string' && 'opt' in ft;
      if ((v === undefined || (v === null && rules.nullIsMissing)) && !isOpt) throw new ArgumentError(rules.missing(path, name));
      out[name] = normalize(ft, v, fieldPath(path, name), rules);
    }
    return out;
  }
  if ('variant' in t) {
    const r = expectRecord(value, path);
    if (typeof r.tag !== 'string' || !(r.tag in t.variant)) {
      throw new ArgumentError(`${path}: expected a variant with tag one of ${Object.keys(t.variant).join(', ')}, got ${JSON.stringify(r.tag)}`);
    }
    return { tag: r.tag, value: normalize(t.variant[r.tag]!, r.value ?? {}, `${path}.${r.tag}`, rules) };
  }
  if ('enum' in t) {
    if (typeof value !== 'string' || !t.enum.includes(value)) throw new ArgumentError(`${path}: expected one of ${t.enum.join(', ')}, got ${JSON.stringify(value)}`);
    return value;
  }
  if ('textMap' in t) {
    const r = expectRecord(value, path);
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(r).sort()) out[k] = normalize(t.textMap, r[k], `${path}.${k}`, rules);
    return out;
  }
  if ('map' in t) {
    if (!Array.isArray(value)) throw new ArgumentError(`${path}: expected a Map as an array of [key, value] pairs, got ${JSON.stringify(value)}`);
    const entries = value.map((e, i) => {
      if (!Array.isArray(e) || e.length !== 2) throw new ArgumentError(`${path}[${i}]: expected a [key, value] pair`);
      return [normalize(t.map[0], e[0], `${path}[${i}][0]`, rules), normalize(t.map[1], e[1], `${path}[${i}][1]`, rules)] as [unknown, unknown];
    });
    entries.sort((a, b) => compareLf(a[0], b[0]));
    return entries;
  }
  // set: {"map": [[k, {}], ...]}
  const r = expectRecord(value, path);
  const raw = r.map ?? [];
  if (!Array.isArray(raw)) throw new ArgumentError(`${path}.map: expected an array of [key, {}] pairs`);
  const keys = raw.map((e, i) => normalize(t.set, Array.isArray(e) ? e[0] : e, `${path}.map[${i}]`, rules));
  keys.sort(compareLf);
  return { map: keys.filter((k, i) => i === 0 || compareLf(keys[i - 1], k) !== 0).map((k) => [k, {}]) };
}

/** A total order on normalised values, close enough to Daml's for the keys used here (text, party). */
export function compareLf(a: unknown, b: unknown): number {
  const sa = typeof a === 'string' ? a : JSON.stringify(a);
  const sb = typeof b === 'string' ? b : JSON.stringify(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** A parser of a template payload or choice argument of record type `t`. */
export function recordParser<P>(t: NativeValueType, what: string): (raw: unknown) => P {
  return (raw) => normalize(t, raw ?? {}, what) as P;
}
