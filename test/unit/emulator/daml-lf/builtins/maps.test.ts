import { describe, expect, it } from 'vitest';
import type { TypeConRef } from '../../../../../src/emulator/daml-lf/ast.js';
import { builtinFunction } from '../../../../../src/emulator/daml-lf/builtins/index.js';
import type { Value } from '../../../../../src/emulator/lf-value/runtime-value.js';
import { fun, int64, list, NONE, some, text } from '../../../../../src/emulator/lf-value/runtime-value.js';
import { call, failureOf, i, t } from './helpers.js';

const empty = (name: 'TEXTMAP_EMPTY' | 'GENMAP_EMPTY'): Value => {
  const f = builtinFunction(name);
  expect(f.arity).toBe(0);
  return f.invoke([]);
};
const tmInsert = (m: Value, k: string, v: Value) => call('TEXTMAP_INSERT', t(k), v, m);
const gmInsert = (m: Value, k: Value, v: Value) => call('GENMAP_INSERT', k, v, m);
const entry = (k: string, v: Value): Value => ({ tag: 'struct', fields: new Map([['key', t(k)], ['value', v]]) });
const TC: TypeConRef = { packageId: 'p', moduleName: 'M', entityName: 'E' };
const variant = (rank: number, value: Value): Value => ({ tag: 'variant', tycon: TC, constructor: `C${rank}`, rank, value });

describe('TextMap builtins', () => {
  it('insert, overwrite, lookup, delete and size', () => {
    let m = empty('TEXTMAP_EMPTY');
    expect(call('TEXTMAP_SIZE', m)).toEqual(int64(0n));
    m = tmInsert(m, 'b', i(2));
    m = tmInsert(m, 'a', i(1));
    const before = m;
    m = tmInsert(m, 'b', i(20));
    expect(call('TEXTMAP_LOOKUP', t('b'), m)).toEqual(some(i(20)));
    expect(call('TEXTMAP_LOOKUP', t('b'), before)).toEqual(some(i(2)));
    expect(call('TEXTMAP_LOOKUP', t('z'), m)).toEqual(NONE);
    expect(call('TEXTMAP_SIZE', m)).toEqual(int64(2n));
    const deleted = call('TEXTMAP_DELETE', t('a'), m);
    expect(call('TEXTMAP_SIZE', deleted)).toEqual(int64(1n));
    expect(call('TEXTMAP_SIZE', m)).toEqual(int64(2n));
    expect(call('TEXTMAP_DELETE', t('zz'), m)).toBe(m);
  });

  it('TEXTMAP_TO_LIST lists ⟨key, value⟩ structs in code point order of the keys', () => {
    let m = empty('TEXTMAP_EMPTY');
    for (const k of ['b', '\u{1f600}', '\uffff', 'a', '', 'B']) m = tmInsert(m, k, t(k.toUpperCase()));
    expect(call('TEXTMAP_TO_LIST', m)).toEqual(
      list(['', 'B', 'a', 'b', '\uffff', '\u{1f600}'].map((k) => entry(k, t(k.toUpperCase())))),
    );
    expect(call('TEXTMAP_TO_LIST', empty('TEXTMAP_EMPTY'))).toEqual(list([]));
  });
});

describe('GenMap builtins', () => {
  it('keeps entries sorted by LF value order; insert of an equal key replaces the value', () => {
    let m = empty('GENMAP_EMPTY');
    for (const k of [5, -1, 3, 10, 3]) m = gmInsert(m, i(k), t(`v${k}`));
    m = gmInsert(m, i(3), t('three'));
    expect(call('GENMAP_KEYS', m)).toEqual(list([i(-1), i(3), i(5), i(10)]));
    expect(call('GENMAP_VALUES', m)).toEqual(list([t('v-1'), t('three'), t('v5'), t('v10')]));
    expect(call('GENMAP_SIZE', m)).toEqual(int64(4n));
    expect(call('GENMAP_LOOKUP', i(5), m)).toEqual(some(t('v5')));
    expect(call('GENMAP_LOOKUP', i(4), m)).toEqual(NONE);
    const d = call('GENMAP_DELETE', i(3), m);
    expect(call('GENMAP_KEYS', d)).toEqual(list([i(-1), i(5), i(10)]));
    expect(call('GENMAP_KEYS', m)).toEqual(list([i(-1), i(3), i(5), i(10)]));
    expect(call('GENMAP_DELETE', i(4), m)).toBe(m);
  });

  it('orders structured keys (variants by rank, then argument; text by code point)', () => {
    let m = empty('GENMAP_EMPTY');
    for (const k of [variant(1, t('a')), variant(0, t('z')), variant(1, t('\u{1f600}')), variant(1, t('\uffff'))]) m = gmInsert(m, k, i(0));
    expect(call('GENMAP_KEYS', m)).toEqual(list([variant(0, t('z')), variant(1, t('a')), variant(1, t('\uffff')), variant(1, t('\u{1f600}'))]));
  });

  it('a key holding a function is an error, even on the empty map', () => {
    const bad = some(fun(1, (a) => a[0]!));
    const notComparable = { kind: 'other', message: 'functions are not comparable' };
    expect(failureOf(() => gmInsert(empty('GENMAP_EMPTY'), bad, i(0)))).toEqual(notComparable);
    expect(failureOf(() => call('GENMAP_LOOKUP', bad, empty('GENMAP_EMPTY')))).toEqual(notComparable);
    expect(failureOf(() => call('GENMAP_DELETE', bad, empty('GENMAP_EMPTY')))).toEqual(notComparable);
  });

  it('values may be functions', () => {
    const f = fun(1, (a) => a[0]!);
    const m = gmInsert(empty('GENMAP_EMPTY'), text('k'), f);
    expect(call('GENMAP_LOOKUP', text('k'), m)).toEqual(some(f));
  });
});
