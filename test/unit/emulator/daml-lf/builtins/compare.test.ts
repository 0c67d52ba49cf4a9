import { describe, expect, it } from 'vitest';
import type { LfType, TypeConRef } from '../../../../../src/emulator/daml-lf/ast.js';
import { compareText, compareTypes, compareValues, equalValues } from '../../../../../src/emulator/daml-lf/builtins/index.js';
import type { Value } from '../../../../../src/emulator/lf-value/runtime-value.js';
import {
  bool,
  contractId,
  date,
  fun,
  list,
  NONE,
  party,
  some,
  text,
  timestamp,
  TRUE,
  FALSE,
  UNIT,
} from '../../../../../src/emulator/lf-value/runtime-value.js';
import { call, failureOf, i, num, t } from './helpers.js';

const TC: TypeConRef = { packageId: 'p', moduleName: 'M', entityName: 'T' };
const rec = (...fields: Value[]): Value => ({ tag: 'record', tycon: TC, fields, fieldNames: fields.map((_, k) => `f${k}`) });
const variant = (constructor: string, rank: number, value: Value): Value => ({ tag: 'variant', tycon: TC, constructor, rank, value });
const enumV = (constructor: string, rank: number): Value => ({ tag: 'enum', tycon: TC, constructor, rank });
const struct = (...entries: Array<[string, Value]>): Value => ({ tag: 'struct', fields: new Map(entries) });
const textMap = (...entries: Array<[string, Value]>): Value => ({ tag: 'textMap', entries: new Map(entries) });
const genMap = (...entries: Array<[Value, Value]>): Value => ({ tag: 'genMap', entries });
const f = fun(1, (args) => args[0]!);
const builtinT = (name: 'Int64' | 'Text' | 'List' | 'Optional', ...args: LfType[]): LfType => ({ kind: 'builtin', name, args });
const con = (packageId: string, moduleName: string, entityName: string, ...args: LfType[]): LfType => ({
  kind: 'con',
  tycon: { packageId, moduleName, entityName },
  args,
});

/** Asserts a < b under LESS/LESS_EQ/GREATER/GREATER_EQ/EQUAL and compareValues. */
function assertLess(a: Value, b: Value): void {
  expect(compareValues(a, b)).toBeLessThan(0);
  expect(compareValues(b, a)).toBeGreaterThan(0);
  expect(call('LESS', a, b)).toBe(TRUE);
  expect(call('LESS_EQ', a, b)).toBe(TRUE);
  expect(call('GREATER', a, b)).toBe(FALSE);
  expect(call('GREATER_EQ', a, b)).toBe(FALSE);
  expect(call('GREATER', b, a)).toBe(TRUE);
  expect(call('EQUAL', a, b)).toBe(FALSE);
}

function assertEqual(a: Value, b: Value): void {
  expect(compareValues(a, b)).toBe(0);
  expect(call('EQUAL', a, b)).toBe(TRUE);
  expect(call('LESS', a, b)).toBe(FALSE);
  expect(call('LESS_EQ', a, b)).toBe(TRUE);
  expect(call('GREATER_EQ', a, b)).toBe(TRUE);
}

describe('LF value order on literals', () => {
  it('orders unit, booleans, integers, numerics, dates and timestamps naturally', () => {
    assertEqual(UNIT, UNIT);
    assertLess(FALSE, TRUE);
    assertLess(i(-(2n ** 63n)), i(2n ** 63n - 1n));
    assertLess(num('1.25'), num('1.30'));
    assertEqual(num('1.50'), num('1.50'));
    assertLess(date(-1), date(0));
    assertLess(timestamp(0n), timestamp(1n));
  });

  it('orders text by code point (UTF-8 order), not by UTF-16 unit', () => {
    assertLess(t(''), t('a'));
    assertLess(t('a'), t('ab'));
    assertLess(t('B'), t('a'));
    // U+FFFF < U+1F600 although the latter's first UTF-16 unit (0xD83D) is smaller.
    assertLess(t('\uffff'), t('\u{1f600}'));
    assertLess(t('a\uffff'), t('a\u{1f600}'));
    assertLess(t('\u{1f600}'), t('\u{1f601}'));
    assertEqual(t('\u{1f600}x'), t('\u{1f600}x'));
    expect(compareText('\ue000', '\u{10000}')).toBeLessThan(0);
  });

  it('orders parties and contract ids as strings; a local and a global id with one discriminator clash', () => {
    assertLess(party('Alice::1'), party('Bob::1'));
    const disc = '00' + 'ab'.repeat(32);
    assertLess(contractId(disc + 'ca01'), contractId(disc + 'ca02'));
    assertLess(contractId('00' + 'aa'.repeat(32) + 'ff'), contractId(disc + '00'));
    expect(failureOf(() => compareValues(contractId(disc), contractId(disc + 'ca01')))).toEqual({
      kind: 'other',
      message: `The global contract ID ${disc}ca01 conflicts with a local contract ID`,
    });
    expect(failureOf(() => equalValues(contractId(disc + 'ca01'), contractId(disc)))).toMatchObject({ kind: 'other' });
    assertEqual(contractId(disc), contractId(disc));
  });

  it('orders rounding modes by declaration', () => {
    assertLess({ tag: 'roundingMode', value: 'UP' }, { tag: 'roundingMode', value: 'UNNECESSARY' });
    assertLess({ tag: 'roundingMode', value: 'FLOOR' }, { tag: 'roundingMode', value: 'HALF_UP' });
  });
});

describe('LF value order on structured values', () => {
  it('lists are lexicographic; a proper prefix is smaller', () => {
    assertLess(list([]), list([i(0)]));
    assertLess(list([i(1), i(2)]), list([i(1), i(3)]));
    assertLess(list([i(1), i(2)]), list([i(1), i(2), i(0)]));
    assertLess(list([i(1), i(9), i(9)]), list([i(2)]));
  });

  it('None comes before Some; Somes compare their values', () => {
    assertLess(NONE, some(i(-100)));
    assertLess(some(i(1)), some(i(2)));
    assertEqual(some(NONE), some(NONE));
  });

  it('records compare field by field in declaration order', () => {
    assertLess(rec(i(1), i(5)), rec(i(2), i(0)));
    assertLess(rec(i(1), i(5)), rec(i(1), i(6)));
    assertEqual(rec(), rec());
  });

  it('variants and enums compare by constructor rank first, then argument', () => {
    assertLess(variant('Left', 0, i(100)), variant('Right', 1, i(0)));
    assertLess(variant('Left', 0, i(1)), variant('Left', 0, i(2)));
    assertLess(enumV('Red', 0), enumV('Green', 1));
    assertEqual(enumV('Blue', 2), enumV('Blue', 2));
  });

  it('structs compare in field-name order whatever their construction order', () => {
    assertLess(struct(['b', i(0)], ['a', i(1)]), struct(['a', i(2)], ['b', i(0)]));
    assertEqual(struct(['b', i(0)], ['a', i(1)]), struct(['a', i(1)], ['b', i(0)]));
  });

  it('nested records, variants, optionals and lists', () => {
    const v = (n: number, tail: Value[]) => rec(some(list([variant('V', 1, rec(i(n), text('x')))])), list(tail));
    assertLess(v(1, [i(9)]), v(2, []));
    assertLess(v(1, []), v(1, [i(0)]));
    assertEqual(v(3, [i(1)]), v(3, [i(1)]));
    assertLess(rec(some(variant('A', 0, rec(i(9))))), rec(some(variant('B', 1, rec(i(0))))));
  });

  it('text maps compare as their key-ordered entries, whatever the insertion order', () => {
    assertEqual(textMap(['b', i(1)], ['a', i(2)]), textMap(['a', i(2)], ['b', i(1)]));
    assertLess(textMap(['a', i(2)]), textMap(['a', i(2)], ['b', i(1)]));
    assertLess(textMap(['a', i(9)], ['c', i(0)]), textMap(['b', i(0)]));
    assertLess(textMap(['a', i(1)]), textMap(['a', i(2)]));
    assertLess(textMap(), textMap(['', i(0)]));
  });

  it('generic maps compare as their entries', () => {
    assertLess(genMap(), genMap([i(1), t('x')]));
    assertLess(genMap([i(1), t('x')]), genMap([i(1), t('y')]));
    assertLess(genMap([i(1), t('z')], [i(2), t('a')]), genMap([i(2), t('a')]));
  });
});

describe('types, Any and functions', () => {
  it('orders types: builtins by LF index, then type constructors, then applications', () => {
    expect(compareTypes(builtinT('Int64'), builtinT('Text'))).toBeLessThan(0);
    expect(compareTypes(builtinT('Text'), con('a', 'M', 'T'))).toBeLessThan(0);
    expect(compareTypes(builtinT('Optional', builtinT('Int64')), builtinT('List', builtinT('Int64')))).toBeLessThan(0);
    expect(compareTypes(builtinT('List', builtinT('Int64')), builtinT('List', builtinT('Text')))).toBeLessThan(0);
    expect(compareTypes(con('a', 'M', 'T'), con('a', 'M', 'T', builtinT('Int64')))).toBeLessThan(0);
    expect(compareTypes(con('a', 'M.N', 'T'), con('a', 'M.N', 'T'))).toBe(0);
    expect(compareTypes(con('a', 'M', 'T'), con('b', 'A', 'A'))).toBeLessThan(0);
    expect(compareTypes(con('a', 'M', 'T'), con('a', 'M.A', 'A'))).toBeLessThan(0);
  });

  it('type representations and Any values compare by type, then value', () => {
    assertLess({ tag: 'typeRep', type: builtinT('Int64') }, { tag: 'typeRep', type: builtinT('Text') });
    assertLess({ tag: 'any', type: builtinT('Text'), value: t('a') }, { tag: 'any', type: con('p', 'M', 'T'), value: rec() });
    assertLess({ tag: 'any', type: builtinT('Int64'), value: i(1) }, { tag: 'any', type: builtinT('Int64'), value: i(2) });
    expect(equalValues({ tag: 'any', type: builtinT('Int64'), value: i(1) }, { tag: 'any', type: builtinT('Text'), value: t('1') })).toBe(false);
  });

  it('functions are not comparable, but comparison stops before reaching them', () => {
    const notComparable = { kind: 'other', message: 'functions are not comparable' };
    expect(failureOf(() => call('LESS', f, f))).toEqual(notComparable);
    expect(failureOf(() => call('EQUAL', f, f))).toEqual(notComparable);
    expect(failureOf(() => call('EQUAL', list([i(1), f]), list([i(1), f])))).toEqual(notComparable);
    expect(call('EQUAL', list([i(1), f]), list([i(2), f]))).toBe(FALSE);
    expect(call('LESS', list([i(1), f]), list([i(2), f]))).toBe(TRUE);
    expect(failureOf(() => call('EQUAL', some(f), some(f)))).toEqual(notComparable);
  });

  it('a kind mismatch is an evaluator bug, not a Daml error', () => {
    expect(() => compareValues(i(1), t('1'))).toThrow(TypeError);
    expect(() => equalValues(bool(true), i(1))).toThrow(TypeError);
  });
});
