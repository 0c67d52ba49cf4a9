/**
 * LF's total order and equality on values (daml-lf-2.rst, "Generic comparison functions"; Speedy's
 * `svalue.Ordering` and `svalue.Equality` for the cases the rules leave implicit):
 *  - Text by Unicode code point (the UTF-8 byte order), not by UTF-16 code unit as JS's `<` does;
 *    parties by their (ASCII) characters.
 *  - Records field by field in declaration order; structs field by field in field-name order.
 *  - Variants and enums by constructor rank (declaration order), then the variant's argument.
 *  - Lists lexicographically (a proper prefix is smaller), `None` before `Some`.
 *  - TextMaps and GenMaps as the sequence key₁, value₁, key₂, value₂, … of their entries in key order.
 *  - `Any` and `AnyException` by type (LF's type order), then by value; type representations by type.
 *  - Rounding modes in declaration order; failure categories by their Canton category id.
 *  - Contract ids: V1 ids (`00` + 32-byte discriminator + suffix) by discriminator then suffix; a
 *    suffixed and an unsuffixed id with the same discriminator are not comparable (an error). Other
 *    ids as strings.
 *  - Functions and updates are not comparable: comparing two of them is an error. Values of
 *    different kinds never meet in well-typed code (a `TypeError` here means an evaluator bug).
 * Comparison stops at the first difference, so `[1, f] < [2, f]` holds without touching `f`.
 */
import type { LfType, TypeConRef } from '../ast.js';
import type { Value } from '../../lf-value/runtime-value.js';
import { failure, nonComparable } from './errors.js';

export function compareValues(a: Value, b: Value): number {
  switch (a.tag) {
    case 'unit':
      same(a, b);
      return 0;
    case 'bool':
      return Number(a.value) - Number(same(a, b).value);
    case 'int64':
      return sign(a.value - same(a, b).value);
    case 'numeric':
      return compareNumeric(a, same(a, b));
    case 'text':
      return compareText(a.value, same(a, b).value);
    case 'party':
      return compareStrings(a.value, same(a, b).value);
    case 'contractId':
      return compareContractIds(a.value, same(a, b).value);
    case 'date':
      return sign(a.days - same(a, b).days);
    case 'timestamp':
      return sign(a.micros - same(a, b).micros);
    case 'list':
      return compareSequences(a.items, same(a, b).items);
    case 'optional': {
      const y = same(a, b).value;
      if (a.value === undefined) return y === undefined ? 0 : -1;
      return y === undefined ? 1 : compareValues(a.value, y);
    }
    case 'textMap':
      return compareSequences(interlace(sortedTextMapEntries(a.entries)), interlace(sortedTextMapEntries(same(a, b).entries)));
    case 'genMap':
      return compareSequences(interlace(a.entries), interlace(same(a, b).entries));
    case 'record':
      return compareSequences(a.fields, same(a, b).fields);
    case 'variant': {
      const y = same(a, b);
      return a.rank !== y.rank ? sign(a.rank - y.rank) : compareValues(a.value, y.value);
    }
    case 'enum':
      return sign(a.rank - same(a, b).rank);
    case 'struct':
      return compareSequences(structValues(a.fields), structValues(same(a, b).fields));
    case 'any':
    case 'anyException': {
      const y = same(a, b);
      const d = compareTypes(a.type, y.type);
      return d !== 0 ? d : compareValues(a.value, y.value);
    }
    case 'typeRep':
      return compareTypes(a.type, same(a, b).type);
    case 'roundingMode':
      return sign(ROUNDING_MODES.indexOf(a.value) - ROUNDING_MODES.indexOf(same(a, b).value));
    case 'failureCategory':
      return sign(failureCategoryId(a.value) - failureCategoryId(same(a, b).value));
    case 'fun':
    case 'update':
      if (b.tag !== 'fun' && b.tag !== 'update') mismatch(a, b);
      return nonComparable();
  }
}

export function equalValues(a: Value, b: Value): boolean {
  switch (a.tag) {
    case 'unit':
      same(a, b);
      return true;
    case 'bool':
      return a.value === same(a, b).value;
    case 'int64':
      return a.value === same(a, b).value;
    case 'numeric':
      return compareNumeric(a, same(a, b)) === 0;
    case 'text':
    case 'party':
      return a.value === same(a, b).value;
    case 'contractId':
      return equalContractIds(a.value, same(a, b).value);
    case 'date':
      return a.days === same(a, b).days;
    case 'timestamp':
      return a.micros === same(a, b).micros;
    case 'list':
      return equalSequences(a.items, same(a, b).items);
    case 'optional': {
      const y = same(a, b).value;
      if (a.value === undefined || y === undefined) return a.value === y;
      return equalValues(a.value, y);
    }
    case 'textMap':
      return equalSequences(interlace(sortedTextMapEntries(a.entries)), interlace(sortedTextMapEntries(same(a, b).entries)));
    case 'genMap':
      return equalSequences(interlace(a.entries), interlace(same(a, b).entries));
    case 'record':
      return equalSequences(a.fields, same(a, b).fields);
    case 'variant': {
      const y = same(a, b);
      return a.rank === y.rank && equalValues(a.value, y.value);
    }
    case 'enum':
      return a.rank === same(a, b).rank;
    case 'struct':
      return equalSequences(structValues(a.fields), structValues(same(a, b).fields));
    case 'any':
    case 'anyException': {
      const y = same(a, b);
      return compareTypes(a.type, y.type) === 0 && equalValues(a.value, y.value);
    }
    case 'typeRep':
      return compareTypes(a.type, same(a, b).type) === 0;
    case 'roundingMode':
    case 'failureCategory':
      return a.value === same(a, b).value;
    case 'fun':
    case 'update':
      if (b.tag !== 'fun' && b.tag !== 'update') mismatch(a, b);
      return nonComparable();
  }
}

/** Throws when `v` cannot be compared with itself (a GenMap key holding a function, say). */
export function checkComparable(v: Value): void {
  compareValues(v, v);
}

// ---- text ---------------------------------------------------------------------------------------

/**
 * Code point order. Equal UTF-16 prefixes hold whole code points, so at the first differing code
 * unit we compare the code points starting there (one step back when it is a low surrogate).
 */
export function compareText(x: string, y: string): number {
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const cx = x.charCodeAt(i);
    const cy = y.charCodeAt(i);
    if (cx !== cy) {
      const j = cx >= 0xdc00 && cx <= 0xdfff && i > 0 ? i - 1 : i;
      return sign(x.codePointAt(j)! - y.codePointAt(j)!);
    }
  }
  return sign(x.length - y.length);
}

/** Plain code unit order, for identifiers (party ids, names) that are ASCII. */
function compareStrings(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

/** TextMap entries in key order. */
export function sortedTextMapEntries(m: ReadonlyMap<string, Value>): Array<readonly [string, Value]> {
  return [...m.entries()].sort((p, q) => compareText(p[0], q[0]));
}

// ---- contract ids --------------------------------------------------------------------------------

/** V1 contract ids: `00`, a 32-byte discriminator, then a suffix (empty for a local, unsuffixed id). */
const V1_DISCRIMINATOR_END = 66;
const isV1 = (cid: string): boolean => cid.startsWith('00') && cid.length >= V1_DISCRIMINATOR_END;

function localConflict(global: string): never {
  failure(`The global contract ID ${global} conflicts with a local contract ID`);
}

function compareContractIds(x: string, y: string): number {
  if (isV1(x) && isV1(y)) {
    const d = compareStrings(x.slice(0, V1_DISCRIMINATOR_END), y.slice(0, V1_DISCRIMINATOR_END));
    if (d !== 0) return d;
    const sx = x.slice(V1_DISCRIMINATOR_END);
    const sy = y.slice(V1_DISCRIMINATOR_END);
    if (sx === '' && sy !== '') localConflict(y);
    if (sy === '' && sx !== '') localConflict(x);
    return compareStrings(sx, sy);
  }
  return compareStrings(x, y);
}

function equalContractIds(x: string, y: string): boolean {
  if (x === y) return true;
  if (isV1(x) && isV1(y) && x.slice(0, V1_DISCRIMINATOR_END) === y.slice(0, V1_DISCRIMINATOR_END)) {
    if (x.length === V1_DISCRIMINATOR_END) localConflict(y);
    if (y.length === V1_DISCRIMINATOR_END) localConflict(x);
  }
  return false;
}

// ---- types ---------------------------------------------------------------------------------------

/** Builtin types in LF's type order (Speedy's `TypeOrdering`). */
const BUILTIN_TYPE_ORDER = [
  'Unit', 'Bool', 'Int64', 'Date', 'Timestamp', 'Numeric', 'Party', 'Text', 'ContractId', 'Optional', 'List',
  'GenMap', 'Any', 'AnyException', 'TypeRep', 'Arrow', 'Update', 'FailureCategory', 'TextMap', 'BigNumeric',
  'RoundingMode',
];

/** A type in curried form: applications are binary, as LF's `TApp`. */
type CurriedType =
  | { k: 'builtin'; name: string }
  | { k: 'con'; tycon: TypeConRef }
  | { k: 'nat'; value: number }
  | { k: 'struct'; names: string[]; types: LfType[] }
  | { k: 'app'; fun: LfType | CurriedType; arg: LfType };

function curry(t: LfType | CurriedType): CurriedType {
  if ('k' in t) return t;
  switch (t.kind) {
    case 'builtin':
    case 'con': {
      const args = t.args;
      if (args.length === 0) return t.kind === 'builtin' ? { k: 'builtin', name: t.name } : { k: 'con', tycon: t.tycon };
      const fun: LfType = { ...t, args: args.slice(0, -1) };
      return { k: 'app', fun, arg: args[args.length - 1]! };
    }
    case 'nat':
      return { k: 'nat', value: t.value };
    case 'struct':
      return { k: 'struct', names: t.fields.map((f) => f.name), types: t.fields.map((f) => f.type) };
    case 'app':
      return { k: 'app', fun: t.fun, arg: t.arg };
    case 'var':
    case 'syn':
    case 'forall':
      throw new TypeError(`cannot compare types of kind ${t.kind}`);
  }
}

const TYPE_RANK = { builtin: 0, con: 1, nat: 2, struct: 3, app: 4 } as const;

function builtinIndex(name: string): number {
  const i = BUILTIN_TYPE_ORDER.indexOf(name);
  return i >= 0 ? i : BUILTIN_TYPE_ORDER.length + Number(name.replace(/^Builtin/, ''));
}

/** LF's total order on (closed, synonym-free) types, used for `Any` and `TypeRep` values. */
export function compareTypes(x: LfType | CurriedType, y: LfType | CurriedType): number {
  const a = curry(x);
  const b = curry(y);
  if (a.k !== b.k) return sign(TYPE_RANK[a.k] - TYPE_RANK[b.k]);
  switch (a.k) {
    case 'builtin':
      return sign(builtinIndex(a.name) - builtinIndex((b as typeof a).name));
    case 'con':
      return compareTyCons(a.tycon, (b as typeof a).tycon);
    case 'nat':
      return sign(a.value - (b as typeof a).value);
    case 'struct': {
      const s = b as typeof a;
      const d = compareSeq(a.names, s.names, compareStrings);
      return d !== 0 ? d : compareSeq(a.types, s.types, compareTypes);
    }
    case 'app': {
      const s = b as typeof a;
      const d = compareTypes(a.fun, s.fun);
      return d !== 0 ? d : compareTypes(a.arg, s.arg);
    }
  }
}

/** Package id, then module name, then entity name, dotted names segment by segment. */
function compareTyCons(x: TypeConRef, y: TypeConRef): number {
  return (
    compareStrings(x.packageId, y.packageId) ||
    compareSeq(x.moduleName.split('.'), y.moduleName.split('.'), compareStrings) ||
    compareSeq(x.entityName.split('.'), y.entityName.split('.'), compareStrings)
  );
}

// ---- helpers -------------------------------------------------------------------------------------

export const ROUNDING_MODES = ['UP', 'DOWN', 'CEILING', 'FLOOR', 'HALF_UP', 'HALF_DOWN', 'HALF_EVEN', 'UNNECESSARY'] as const;

/** Canton error category ids of LF's failure categories (Speedy compiles the literals to these). */
export function failureCategoryId(name: string): number {
  switch (name) {
    case 'INVALID_INDEPENDENT_OF_SYSTEM_STATE':
      return 8;
    case 'INVALID_GIVEN_CURRENT_SYSTEM_STATE_OTHER':
      return 9;
    default:
      throw new TypeError(`unknown failure category ${name}`);
  }
}

function sign(n: number | bigint): number {
  return n < 0 ? -1 : n > 0 ? 1 : 0;
}

function mismatch(a: Value, b: Value): never {
  throw new TypeError(`comparing values of different kinds: ${a.tag} and ${b.tag}`);
}

function same<T extends Value>(a: T, b: Value): T {
  if (b.tag !== a.tag) mismatch(a, b);
  return b as T;
}

function compareNumeric(a: { scale: number; unscaled: bigint }, b: { scale: number; unscaled: bigint }): number {
  if (a.scale === b.scale) return sign(a.unscaled - b.unscaled);
  const s = Math.max(a.scale, b.scale);
  return sign(a.unscaled * 10n ** BigInt(s - a.scale) - b.unscaled * 10n ** BigInt(s - b.scale));
}

function compareSeq<T>(xs: readonly T[], ys: readonly T[], cmp: (x: T, y: T) => number): number {
  const n = Math.min(xs.length, ys.length);
  for (let i = 0; i < n; i++) {
    const d = cmp(xs[i]!, ys[i]!);
    if (d !== 0) return d;
  }
  return sign(xs.length - ys.length);
}

function compareSequences(xs: readonly Value[], ys: readonly Value[]): number {
  return compareSeq(xs, ys, compareValues);
}

function equalSequences(xs: readonly Value[], ys: readonly Value[]): boolean {
  const n = Math.min(xs.length, ys.length);
  for (let i = 0; i < n; i++) if (!equalValues(xs[i]!, ys[i]!)) return false;
  return xs.length === ys.length;
}

function interlace(entries: ReadonlyArray<readonly [string | Value, Value]>): Value[] {
  const out: Value[] = [];
  for (const [k, v] of entries) out.push(typeof k === 'string' ? { tag: 'text', value: k } : k, v);
  return out;
}

function structValues(fields: ReadonlyMap<string, Value>): Value[] {
  return [...fields.keys()].sort(compareStrings).map((k) => fields.get(k)!);
}
