/**
 * A small type-directed normaliser for the LF JSON (transcode encoding, research/ledger-api.md
 * §8) of the Splice Amulet and wallet records: each record type is described once, field by field
 * in declaration order, and `normalize` turns a client's value into the canonical JSON the ledger
 * stores and prints (every field present, Decimal at scale 10, Int64 as a string, Time as
 * transcode prints it, Optional missing → null), or throws ArgumentError with the field path
 * (→ COMMAND_PREPROCESSING_FAILED). Unknown record fields with a non-null value are rejected, as
 * transcode does.
 */
import { ArgumentError } from '../../ledger/templates.js';
import { expectContractId, expectParty, expectRecord, expectText, formatDecimal, formatTime, parseDecimal, parseTime } from '../lf.js';

export type LfT =
  | 'party'
  | 'text'
  | 'decimal'
  | 'int'
  | 'time'
  | 'bool'
  | 'cid'
  | 'unit'
  | 'any'
  | { opt: LfT }
  | { list: LfT }
  | { rec: ReadonlyArray<readonly [string, LfT]> }
  | { variant: Readonly<Record<string, LfT>> }
  | { enum: readonly string[] }
  | { textMap: LfT }
  | { map: readonly [LfT, LfT] }
  | { set: LfT };

export const opt = (t: LfT): LfT => ({ opt: t });
export const list = (t: LfT): LfT => ({ list: t });
export const rec = (...fields: Array<readonly [string, LfT]>): { rec: ReadonlyArray<readonly [string, LfT]> } => ({ rec: fields });
export const tuple2 = (a: LfT, b: LfT): LfT => rec(['_1', a], ['_2', b]);

function intText(v: unknown, path: string): string {
  if ((typeof v === 'string' && /^-?\d+$/.test(v)) || (typeof v === 'number' && Number.isInteger(v))) {
    const n = BigInt(v);
    if (n > 9223372036854775807n || n < -9223372036854775808n) throw new ArgumentError(`${path}: ${String(v)} is out of bounds for Int64`);
    return n.toString();
  }
  throw new ArgumentError(`${path}: expected an Int64, got ${JSON.stringify(v)}`);
}

/** Normalises `value` of type `t`; `path` names the field in error messages. */
export function normalize(t: LfT, value: unknown, path: string): unknown {
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
  if ('opt' in t) return value === undefined || value === null ? null : normalize(t.opt, value, path);
  if ('list' in t) {
    if (!Array.isArray(value)) throw new ArgumentError(`${path}: expected a List, got ${JSON.stringify(value)}`);
    return value.map((x, i) => normalize(t.list, x, `${path}[${i}]`));
  }
  if ('rec' in t) {
    const r = expectRecord(value, path);
    const names = t.rec.map(([n]) => n);
    const unexpected = Object.keys(r).filter((k) => !names.includes(k) && r[k] !== null && r[k] !== undefined);
    if (unexpected.length > 0) throw new ArgumentError(`${path}: Unexpected fields: ${unexpected.join(', ')}`);
    const out: Record<string, unknown> = {};
    for (const [name, ft] of t.rec) {
      const v = r[name];
      const isOpt = typeof ft !== 'string' && 'opt' in ft;
      if ((v === undefined || v === null) && !isOpt) throw new ArgumentError(`${path}: Missing non-optional field: ${name}`);
      out[name] = normalize(ft, v, `${path}.${name}`);
    }
    return out;
  }
  if ('variant' in t) {
    const r = expectRecord(value, path);
    if (typeof r.tag !== 'string' || !(r.tag in t.variant)) {
      throw new ArgumentError(`${path}: expected a variant with tag one of ${Object.keys(t.variant).join(', ')}, got ${JSON.stringify(r.tag)}`);
    }
    return { tag: r.tag, value: normalize(t.variant[r.tag]!, r.value ?? {}, `${path}.${r.tag}`) };
  }
  if ('enum' in t) {
    if (typeof value !== 'string' || !t.enum.includes(value)) throw new ArgumentError(`${path}: expected one of ${t.enum.join(', ')}, got ${JSON.stringify(value)}`);
    return value;
  }
  if ('textMap' in t) {
    const r = expectRecord(value, path);
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(r).sort()) out[k] = normalize(t.textMap, r[k], `${path}.${k}`);
    return out;
  }
  if ('map' in t) {
    if (!Array.isArray(value)) throw new ArgumentError(`${path}: expected a Map as an array of [key, value] pairs, got ${JSON.stringify(value)}`);
    const entries = value.map((e, i) => {
      if (!Array.isArray(e) || e.length !== 2) throw new ArgumentError(`${path}[${i}]: expected a [key, value] pair`);
      return [normalize(t.map[0], e[0], `${path}[${i}][0]`), normalize(t.map[1], e[1], `${path}[${i}][1]`)] as [unknown, unknown];
    });
    entries.sort((a, b) => compareLf(a[0], b[0]));
    return entries;
  }
  // set: {"map": [[k, {}], ...]}
  const r = expectRecord(value, path);
  const raw = r.map ?? [];
  if (!Array.isArray(raw)) throw new ArgumentError(`${path}.map: expected an array of [key, {}] pairs`);
  const keys = raw.map((e, i) => normalize(t.set, Array.isArray(e) ? e[0] : e, `${path}.map[${i}]`));
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
export function recordParser<P>(t: LfT, what: string): (raw: unknown) => P {
  return (raw) => normalize(t, raw ?? {}, what) as P;
}
