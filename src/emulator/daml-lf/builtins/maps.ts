/**
 * TextMap and GenMap builtins (daml-lf-2.rst, "Text map functions", "Generic map functions").
 *  - TextMaps are unordered JS Maps (lf-value/runtime-value.ts); TEXTMAP_TO_LIST lists them in key code point order
 *    as `⟨key, value⟩` structs.
 *  - GenMaps keep their entries sorted by key in LF's value order; INSERT replaces the value of an
 *    equal key; a key that is not comparable with itself (holding a function) is an error even on
 *    an empty map.
 * Maps are immutable: every update copies (O(n)), which keeps sharing safe.
 */
import type { FunV, GenMapV, TextMapV, Value } from '../../lf-value/runtime-value.js';
import { expect, fun, int64, list, NONE, some } from '../../lf-value/runtime-value.js';
import { checkComparable, compareValues, sortedTextMapEntries } from './compare.js';

export const EMPTY_TEXT_MAP: TextMapV = Object.freeze({ tag: 'textMap', entries: new Map<string, Value>() });
export const EMPTY_GEN_MAP: GenMapV = Object.freeze({ tag: 'genMap', entries: Object.freeze([]) });

// ---- TextMap -------------------------------------------------------------------------------------

/** Arity 0: a constant (see index.ts). */
export const textMapEmpty: FunV = fun(0, () => EMPTY_TEXT_MAP, 'TEXTMAP_EMPTY');

export const textMapInsert: FunV = fun(3, (args) => {
  const key = expect(args[0]!, 'text').value;
  const m = expect(args[2]!, 'textMap');
  const entries = new Map(m.entries);
  entries.set(key, args[1]!);
  return { tag: 'textMap', entries };
}, 'TEXTMAP_INSERT');

export const textMapLookup: FunV = fun(2, (args) => {
  const v = expect(args[1]!, 'textMap').entries.get(expect(args[0]!, 'text').value);
  return v === undefined ? NONE : some(v);
}, 'TEXTMAP_LOOKUP');

export const textMapDelete: FunV = fun(2, (args) => {
  const key = expect(args[0]!, 'text').value;
  const m = expect(args[1]!, 'textMap');
  if (!m.entries.has(key)) return m;
  const entries = new Map(m.entries);
  entries.delete(key);
  return { tag: 'textMap', entries };
}, 'TEXTMAP_DELETE');

export const textMapToList: FunV = fun(1, (args) => {
  const m = expect(args[0]!, 'textMap');
  return list(
    sortedTextMapEntries(m.entries).map(([k, v]): Value => ({
      tag: 'struct',
      fields: new Map<string, Value>([
        ['key', { tag: 'text', value: k }],
        ['value', v],
      ]),
    })),
  );
}, 'TEXTMAP_TO_LIST');

export const textMapSize: FunV = fun(1, (args) => int64(BigInt(expect(args[0]!, 'textMap').entries.size)), 'TEXTMAP_SIZE');

// ---- GenMap --------------------------------------------------------------------------------------

/** Index of `key` in the sorted entries, or `-(insertion point) - 1` when absent. */
function search(entries: GenMapV['entries'], key: Value): number {
  checkComparable(key);
  let lo = 0;
  let hi = entries.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const d = compareValues(entries[mid]![0], key);
    if (d === 0) return mid;
    if (d < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -lo - 1;
}

/** Arity 0: a constant (see index.ts). */
export const genMapEmpty: FunV = fun(0, () => EMPTY_GEN_MAP, 'GENMAP_EMPTY');

export const genMapInsert: FunV = fun(3, (args) => {
  const key = args[0]!;
  const m = expect(args[2]!, 'genMap');
  const i = search(m.entries, key);
  const entries = m.entries.slice();
  if (i >= 0) entries[i] = [entries[i]![0], args[1]!];
  else entries.splice(-i - 1, 0, [key, args[1]!]);
  return { tag: 'genMap', entries };
}, 'GENMAP_INSERT');

export const genMapLookup: FunV = fun(2, (args) => {
  const m = expect(args[1]!, 'genMap');
  const i = search(m.entries, args[0]!);
  return i >= 0 ? some(m.entries[i]![1]) : NONE;
}, 'GENMAP_LOOKUP');

export const genMapDelete: FunV = fun(2, (args) => {
  const m = expect(args[1]!, 'genMap');
  const i = search(m.entries, args[0]!);
  if (i < 0) return m;
  const entries = m.entries.slice();
  entries.splice(i, 1);
  return { tag: 'genMap', entries };
}, 'GENMAP_DELETE');

export const genMapKeys: FunV = fun(1, (args) => list(expect(args[0]!, 'genMap').entries.map(([k]) => k)), 'GENMAP_KEYS');

export const genMapValues: FunV = fun(1, (args) => list(expect(args[0]!, 'genMap').entries.map(([, v]) => v)), 'GENMAP_VALUES');

export const genMapSize: FunV = fun(1, (args) => int64(BigInt(expect(args[0]!, 'genMap').entries.length)), 'GENMAP_SIZE');
