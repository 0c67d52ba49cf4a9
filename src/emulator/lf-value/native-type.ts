/**
 * The LF type of a native template's payload or choice argument, as the native templates
 * describe their records (written with `rec`, `opt`, `list` below): Decimal is `Numeric 10`, `int` Int64,
 * `time` Timestamp, `date` Date, `cid` ContractId, `any` a value whose type the template does not pin down,
 * `custom` a value read by a hand-written parser (its type is not described). The engine only
 * needs the shape, to encode values with their LF types (interactive submission's prepared
 * transactions); the template layer reads and normalises values with it.
 */
import { fieldPath } from './json-codec.js';

export type NativeValueType =
  | 'party'
  | 'text'
  | 'decimal'
  | 'int'
  | 'time'
  | 'date'
  | 'bool'
  | 'cid'
  | 'unit'
  | 'any'
  | { opt: NativeValueType }
  | { list: NativeValueType }
  | { rec: ReadonlyArray<readonly [string, NativeValueType]> }
  | { variant: Readonly<Record<string, NativeValueType>> }
  | { enum: readonly string[] }
  | { textMap: NativeValueType }
  | { map: readonly [NativeValueType, NativeValueType] }
  | { set: NativeValueType }
  /** A value read by a hand-written parser (for a type whose reading the cases above do not word alike). */
  | { custom: (value: unknown, path: string) => unknown };

/** Constructors of descriptions, as the native templates write their records field by field in declaration order. */
export const opt = (t: NativeValueType): NativeValueType => ({ opt: t });
export const list = (t: NativeValueType): NativeValueType => ({ list: t });
export const rec = (...fields: Array<readonly [string, NativeValueType]>): { rec: ReadonlyArray<readonly [string, NativeValueType]> } => ({ rec: fields });
/** DA.Types.Tuple2 (`_1`, `_2`). */
export const tuple2 = (a: NativeValueType, b: NativeValueType): NativeValueType => rec(['_1', a], ['_2', b]);

/**
 * Canton's transcode rejects a record key its type does not declare (with a non-null value) as
 * INVALID_ARGUMENT "Unexpected fields: a, b.c", whatever the template; the DAR-typed reader
 * (json-codec.ts) does so, and this gives the native templates the same check, from the type they
 * declare, before their own parsers run. A record that also lacks a required field is left to the
 * parser, which reports the missing field first, as transcode does. Values whose shape does not
 * match the type are skipped: the parser words that error.
 */
export function unexpectedFieldsIn(t: NativeValueType, value: unknown, path = ''): string[] | undefined {
  if (typeof t === 'string' || 'custom' in t) return undefined;
  if ('opt' in t) {
    // a nested Optional is written as a JSON array, which the parser reads
    if (value === null || value === undefined || (typeof t.opt !== 'string' && 'opt' in t.opt)) return undefined;
    return unexpectedFieldsIn(t.opt, value, path);
  }
  if ('list' in t || 'set' in t) {
    if (!Array.isArray(value)) return undefined;
    const elem = 'list' in t ? t.list : t.set;
    for (let i = 0; i < value.length; i++) {
      const found = unexpectedFieldsIn(elem, value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if ('map' in t) {
    if (!Array.isArray(value)) return undefined;
    for (let i = 0; i < value.length; i++) {
      const pair: unknown = value[i];
      if (!Array.isArray(pair) || pair.length !== 2) continue;
      const found = unexpectedFieldsIn(t.map[0], pair[0], `${path}[${i}]`) ?? unexpectedFieldsIn(t.map[1], pair[1], `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const obj = value as Record<string, unknown>;
  if ('textMap' in t) {
    for (const k of Object.keys(obj)) {
      const found = unexpectedFieldsIn(t.textMap, obj[k], fieldPath(path, k));
      if (found) return found;
    }
    return undefined;
  }
  if ('variant' in t) {
    const tag = obj.tag;
    if (typeof tag !== 'string' || !Object.hasOwn(t.variant, tag)) return undefined;
    return unexpectedFieldsIn(t.variant[tag]!, obj.value, fieldPath(path, tag));
  }
  if ('enum' in t) return undefined;
  const declared = new Set(t.rec.map(([n]) => n));
  const missing = t.rec.some(([n, ft]) => (obj[n] === undefined || obj[n] === null) && !(typeof ft !== 'string' && 'opt' in ft));
  if (missing) return undefined;
  const unexpected = Object.keys(obj).filter((k) => !declared.has(k) && obj[k] !== null && obj[k] !== undefined);
  if (unexpected.length > 0) return unexpected.map((k) => fieldPath(path, k));
  for (const [n, ft] of t.rec) {
    const found = unexpectedFieldsIn(ft, obj[n], fieldPath(path, n));
    if (found) return found;
  }
  return undefined;
}
