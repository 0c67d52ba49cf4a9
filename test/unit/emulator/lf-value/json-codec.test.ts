import { describe, expect, it } from 'vitest';
import type { BuiltinName, DecodedDataType, LfType, TypeConRef } from '../../../../src/emulator/dar/lf2.js';
import { compareText, LfValueError, normalizeValue, type DataTypeResolver } from '../../../../src/emulator/lf-value/json-codec.js';

// ---- hand-built types -------------------------------------------------------------------------

const b = (name: BuiltinName, ...args: LfType[]): LfType => ({ kind: 'builtin', name, args });
const UNIT = b('Unit');
const BOOL = b('Bool');
const INT = b('Int64');
const TEXT = b('Text');
const PARTY = b('Party');
const CID = b('ContractId', UNIT);
const DATE = b('Date');
const TIME = b('Timestamp');
const num = (scale: number): LfType => b('Numeric', { kind: 'nat', value: scale });
const opt = (t: LfType): LfType => b('Optional', t);
const list = (t: LfType): LfType => b('List', t);
const textMap = (t: LfType): LfType => b('TextMap', t);
const genMap = (k: LfType, v: LfType): LfType => b('GenMap', k, v);
const tv = (name: string): LfType => ({ kind: 'var', name, args: [] });

const PKG = 'a'.repeat(64);
const ref = (entityName: string): TypeConRef => ({ packageId: PKG, moduleName: 'M', entityName });
const con = (entityName: string, ...args: LfType[]): LfType => ({ kind: 'con', tycon: ref(entityName), args });

const dataTypes: DecodedDataType[] = [
  { kind: 'record', name: 'Point', params: [], serializable: true, fields: [{ name: 'x', type: INT }, { name: 'y', type: INT }] },
  {
    kind: 'record',
    name: 'Person',
    params: [],
    serializable: true,
    fields: [
      { name: 'name', type: TEXT },
      { name: 'nick', type: opt(TEXT) },
      { name: 'home', type: con('Point') },
    ],
  },
  { kind: 'record', name: 'Tuple2', params: ['a', 'b'], serializable: true, fields: [{ name: '_1', type: tv('a') }, { name: '_2', type: tv('b') }] },
  { kind: 'record', name: 'Box', params: ['a'], serializable: true, fields: [{ name: 'v', type: opt(tv('a')) }] },
  { kind: 'record', name: 'Scaled', params: ['n'], serializable: true, fields: [{ name: 'amount', type: b('Numeric', tv('n')) }] },
  {
    kind: 'variant',
    name: 'Shape',
    params: [],
    serializable: true,
    constructors: [
      { name: 'Circle', type: num(10) },
      { name: 'Rect', type: con('Point') },
      { name: 'Empty', type: UNIT },
    ],
  },
  { kind: 'variant', name: 'Either', params: ['l', 'r'], serializable: true, constructors: [{ name: 'Left', type: tv('l') }, { name: 'Right', type: tv('r') }] },
  { kind: 'enum', name: 'Color', params: [], serializable: true, constructors: ['Red', 'Green', 'Blue'] },
  { kind: 'interface', name: 'Iface', params: [], serializable: true },
];
const resolve: DataTypeResolver = (r) => (r.packageId === PKG && r.moduleName === 'M' ? dataTypes.find((d) => d.name === r.entityName) : undefined);

const norm = (t: LfType, v: unknown, path = '') => normalizeValue(t, v, resolve, path);

function failure(t: LfType, v: unknown): LfValueError {
  try {
    norm(t, v);
  } catch (e) {
    expect(e).toBeInstanceOf(LfValueError);
    return e as LfValueError;
  }
  throw new Error(`expected ${JSON.stringify(v)} to be rejected`);
}

// ---- builtins -----------------------------------------------------------------------------------

describe('normalizeValue: builtins', () => {
  it('Unit is {} whatever comes in', () => {
    expect(norm(UNIT, {})).toEqual({});
    expect(norm(UNIT, 'anything')).toEqual({});
  });

  it('Bool, Text, Party, ContractId pass through when well-typed', () => {
    expect(norm(BOOL, true)).toBe(true);
    expect(norm(TEXT, 'héllo')).toBe('héllo');
    expect(norm(PARTY, 'alice::1220abcd')).toBe('alice::1220abcd');
    expect(norm(CID, '00abcdef')).toBe('00abcdef');
    for (const [t, v] of [[BOOL, 'true'], [TEXT, 5], [PARTY, ''], [PARTY, 'bad/party'], [CID, 'not-hex'], [TEXT, null]] as const) {
      const e = failure(t, v);
      expect(e.code).toBe('INVALID_ARGUMENT');
      expect(e.kind).toBe('invalid-value');
    }
  });

  it('Int64: a string or number in, a string out, range-checked', () => {
    expect(norm(INT, '42')).toBe('42');
    expect(norm(INT, 42)).toBe('42');
    expect(norm(INT, '-0017')).toBe('-17');
    expect(norm(INT, '+5')).toBe('5');
    expect(norm(INT, '9223372036854775807')).toBe('9223372036854775807');
    expect(norm(INT, '-9223372036854775808')).toBe('-9223372036854775808');
    for (const v of ['9223372036854775808', '-9223372036854775809', '1.5', 1.5, 'abc', '', true, 2 ** 60]) {
      expect(failure(INT, v).code).toBe('INVALID_ARGUMENT');
    }
  });

  it('Numeric n: canonical scale-padded string; decimals beyond the scale and overflow are preprocessing errors', () => {
    expect(norm(num(10), '10')).toBe('10.0000000000');
    expect(norm(num(10), '10.5')).toBe('10.5000000000');
    expect(norm(num(10), 10.25)).toBe('10.2500000000');
    expect(norm(num(10), '-0.000')).toBe('0.0000000000');
    expect(norm(num(10), '0012.50000000000000')).toBe('12.5000000000'); // trailing zeros beyond the scale are harmless
    expect(norm(num(10), 0.001)).toBe('0.0010000000');
    expect(norm(num(10), 9999999.5)).toBe('9999999.5000000000');
    // the Ledger API's syntax: a sign, digits, an optional point with or without decimals
    expect(norm(num(10), '+1')).toBe('1.0000000000');
    expect(norm(num(10), '1.')).toBe('1.0000000000');
    expect(norm(num(2), '-3.1')).toBe('-3.10');
    expect(norm(num(0), '7')).toBe('7.'); // Numeric.toString: scale 0 keeps the point
    expect(norm(num(37), '0.5')).toBe(`0.5${'0'.repeat(36)}`);
    // 28 integer digits fit Numeric 10, 29 do not.
    expect(norm(num(10), '9'.repeat(28))).toBe(`${'9'.repeat(28)}.0000000000`);
    const over = failure(num(10), '1'.repeat(29));
    expect([over.code, over.kind]).toEqual(['COMMAND_PREPROCESSING_FAILED', 'numeric-scale']);
    expect(over.causeText).toContain('Out-of-bounds (Numeric 10)');
    const lossy = failure(num(2), '1.234');
    expect([lossy.code, lossy.kind]).toEqual(['COMMAND_PREPROCESSING_FAILED', 'numeric-scale']);
    expect(lossy.causeText).toContain('Cannot represent 1.234 as (Numeric 2) without loss of precision');
    // a JSON number outside [1e-3, 1e7) reaches Canton in scientific notation (Double.toString: "1.0E-7")
    for (const v of ['abc', '1e5', ' 1', '1 ', '.5', '', true, null, `1.${'0'.repeat(40)}`, 1e-7, 1e21, 1e7]) {
      expect(failure(num(10), v).code).toBe('INVALID_ARGUMENT');
    }
  });

  it('Date: strict yyyy-mm-dd in Daml range', () => {
    expect(norm(DATE, '2023-04-06')).toBe('2023-04-06');
    expect(norm(DATE, '2024-02-29')).toBe('2024-02-29');
    expect(norm(DATE, '0001-01-01')).toBe('0001-01-01');
    for (const v of ['2023-02-29', '2023-13-01', '2023-4-6', '0000-12-31', '2023-04-06T00:00:00Z', 20230406]) {
      expect(failure(DATE, v).code).toBe('INVALID_ARGUMENT');
    }
  });

  it('Timestamp: any ISO date-time with an offset in; UTC out, trailing zeros stripped, sub-microseconds truncated', () => {
    expect(norm(TIME, '2025-01-27T15:30:36.430940Z')).toBe('2025-01-27T15:30:36.43094Z');
    expect(norm(TIME, '2025-01-27T15:30:36.000Z')).toBe('2025-01-27T15:30:36Z');
    expect(norm(TIME, '2025-01-27T15:30Z')).toBe('2025-01-27T15:30:00Z');
    expect(norm(TIME, '2025-01-27T15:30:36.123456789Z')).toBe('2025-01-27T15:30:36.123456Z');
    expect(norm(TIME, '2025-01-27T17:30:36.5+02:00')).toBe('2025-01-27T15:30:36.5Z');
    expect(norm(TIME, '2025-01-01T00:30:00-01:00')).toBe('2025-01-01T01:30:00Z');
    expect(norm(TIME, '1969-12-31T23:59:59.999999Z')).toBe('1969-12-31T23:59:59.999999Z');
    expect(norm(TIME, '0001-01-01T00:00:00Z')).toBe('0001-01-01T00:00:00Z');
    expect(norm(TIME, '9999-12-31T23:59:59.999999Z')).toBe('9999-12-31T23:59:59.999999Z');
    for (const v of ['2025-01-27T15:30:36', '2025-01-27', '2025-02-30T00:00:00Z', '2025-01-27T24:00:00Z', '0001-01-01T00:00:00+01:00', 0]) {
      expect(failure(TIME, v).code).toBe('INVALID_ARGUMENT');
    }
  });

  it('Optional (simple): null or the value; a present value is checked', () => {
    expect(norm(opt(INT), null)).toBeNull();
    expect(norm(opt(INT), 5)).toBe('5');
    expect(failure(opt(INT), 'x').code).toBe('INVALID_ARGUMENT');
  });

  it('Optional (nested): arrays at every level, the innermost value in its own encoding', () => {
    const t = opt(opt(INT));
    expect(norm(t, [])).toEqual([]);
    expect(norm(t, [[]])).toEqual([[]]);
    expect(norm(t, [[5]])).toEqual([['5']]);
    expect(norm(t, null)).toEqual([]); // emulator leniency: missing/null reads as None
    const t3 = opt(opt(opt(TEXT)));
    expect(norm(t3, [[['x']]])).toEqual([[['x']]]);
    expect(norm(t3, [[[]]])).toEqual([[[]]]);
    expect(failure(t, 5).code).toBe('INVALID_ARGUMENT');
    expect(failure(t, [5]).code).toBe('INVALID_ARGUMENT');
  });

  it('List, TextMap (keys in code-point order), GenMap (pairs sorted by key, last repeat wins)', () => {
    expect(norm(list(INT), [1, '2'])).toEqual(['1', '2']);
    expect(failure(list(INT), { 0: 1 }).code).toBe('INVALID_ARGUMENT');
    expect(failure(list(INT), [1, 'x']).causeText).toContain('[1]');

    const tm = norm(textMap(num(1)), { b: 2, a: '1', '\u{1F600}': 3, '\uFFFD': 4 }) as Record<string, string>;
    expect(Object.entries(tm)).toEqual([['a', '1.0'], ['b', '2.0'], ['\uFFFD', '4.0'], ['\u{1F600}', '3.0']]);
    expect(failure(textMap(INT), [['a', 1]]).code).toBe('INVALID_ARGUMENT');

    expect(norm(genMap(INT, TEXT), [[10, 'ten'], ['2', 'two'], [-1, 'minus'], [2, 'TWO']])).toEqual([
      ['-1', 'minus'],
      ['2', 'TWO'],
      ['10', 'ten'],
    ]);
    expect(norm(genMap(con('Point'), BOOL), [[{ x: 1, y: 2 }, true], [{ x: 1, y: 1 }, false]])).toEqual([
      [{ x: '1', y: '1' }, false],
      [{ x: '1', y: '2' }, true],
    ]);
    expect(failure(genMap(INT, TEXT), { a: 'b' }).code).toBe('INVALID_ARGUMENT');
    expect(failure(genMap(INT, TEXT), [[1]]).code).toBe('INVALID_ARGUMENT');
  });

  it('orders Text by code point', () => {
    expect(compareText('\uFFFD', '\u{1F600}')).toBeLessThan(0);
    expect(compareText('a', 'ab')).toBeLessThan(0);
    expect(compareText('b', 'a')).toBeGreaterThan(0);
  });
});

// ---- data types ---------------------------------------------------------------------------------

describe('normalizeValue: records, variants, enums', () => {
  it('emits every record field in declaration order; a missing Optional is null', () => {
    const out = norm(con('Person'), { home: { y: '2', x: 1 }, name: 'Ann' });
    expect(out).toEqual({ name: 'Ann', nick: null, home: { x: '1', y: '2' } });
    expect(Object.keys(out as object)).toEqual(['name', 'nick', 'home']);
    expect(Object.keys((out as { home: object }).home)).toEqual(['x', 'y']);
  });

  it('a missing non-Optional field is COMMAND_PREPROCESSING_FAILED, nested fields named by path', () => {
    const top = failure(con('Person'), { home: { x: 1, y: 2 } });
    expect([top.code, top.kind, top.causeText]).toEqual(['COMMAND_PREPROCESSING_FAILED', 'missing-field', 'Missing non-optional field: name']);
    const nested = failure(con('Person'), { name: 'A', home: { x: 1 } });
    expect(nested.causeText).toBe('Missing non-optional field: home.y');
    expect(failure(con('Point'), {}).causeText).toBe('Missing non-optional fields: x, y');
  });

  it('a non-Optional field given as null is a type error, not a missing field', () => {
    expect(failure(con('Point'), { x: null, y: 1 }).code).toBe('INVALID_ARGUMENT');
  });

  it('unknown fields with non-null values are INVALID_ARGUMENT "Unexpected fields"; null ones are ignored', () => {
    const e = failure(con('Point'), { x: 1, y: 2, z: 3, w: 'x', v: null });
    expect([e.code, e.kind]).toEqual(['INVALID_ARGUMENT', 'unexpected-fields']);
    expect(e.causeText).toBe('The submitted request has invalid arguments: Unexpected fields: z, w');
    expect(norm(con('Point'), { x: 1, y: 2, v: null })).toEqual({ x: '1', y: '2' });
  });

  it('rejects a record given as an array or a scalar', () => {
    expect(failure(con('Point'), ['1', '2']).code).toBe('INVALID_ARGUMENT');
    expect(failure(con('Point'), 'p').code).toBe('INVALID_ARGUMENT');
  });

  it('variants are {tag, value}; unknown tags and other shapes are INVALID_ARGUMENT', () => {
    expect(norm(con('Shape'), { tag: 'Circle', value: 2 })).toEqual({ tag: 'Circle', value: '2.0000000000' });
    expect(norm(con('Shape'), { tag: 'Rect', value: { x: 1, y: 2 }, extra: 1 })).toEqual({ tag: 'Rect', value: { x: '1', y: '2' } });
    expect(norm(con('Shape'), { tag: 'Empty', value: {} })).toEqual({ tag: 'Empty', value: {} });
    const unknown = failure(con('Shape'), { tag: 'Triangle', value: {} });
    expect(unknown.code).toBe('INVALID_ARGUMENT');
    expect(unknown.causeText).toContain('Unexpected variant tag: "Triangle"');
    expect(failure(con('Shape'), { tag: 'Empty' }).causeText).toContain("must have 'tag' and 'value' fields");
    expect(failure(con('Shape'), 'Circle').code).toBe('INVALID_ARGUMENT');
    // the constructor's argument is checked too (a missing field inside keeps its code)
    expect(failure(con('Shape'), { tag: 'Rect', value: { x: 1 } }).causeText).toBe('Missing non-optional field: Rect.y');
  });

  it('enums are constructor names', () => {
    expect(norm(con('Color'), 'Green')).toBe('Green');
    const e = failure(con('Color'), 'Purple');
    expect(e.code).toBe('INVALID_ARGUMENT');
    expect(e.causeText).toContain('Unexpected enum constructor: Purple');
    expect(failure(con('Color'), { tag: 'Red', value: {} }).code).toBe('INVALID_ARGUMENT');
  });

  it('an interface-typed value is {}', () => {
    expect(norm(con('Iface'), { anything: 1 })).toEqual({});
  });

  it('substitutes type parameters (generic records and variants such as DA.Types.Tuple2, Either)', () => {
    expect(norm(con('Tuple2', INT, num(2)), { _1: 1, _2: '3.5' })).toEqual({ _1: '1', _2: '3.50' });
    expect(norm(con('Tuple2', con('Tuple2', TEXT, BOOL), list(INT)), { _1: { _1: 'a', _2: false }, _2: [7] })).toEqual({
      _1: { _1: 'a', _2: false },
      _2: ['7'],
    });
    expect(norm(con('Either', TEXT, con('Point')), { tag: 'Right', value: { x: 0, y: 0 } })).toEqual({ tag: 'Right', value: { x: '0', y: '0' } });
    expect(failure(con('Either', TEXT, INT), { tag: 'Left', value: 1 }).code).toBe('INVALID_ARGUMENT');
    // a nat parameter: Numeric n
    expect(norm(con('Scaled', { kind: 'nat', value: 3 }), { amount: 1 })).toEqual({ amount: '1.000' });
  });

  it('a field whose type variable is bound to an Optional may be left out', () => {
    expect(norm(con('Tuple2', opt(INT), INT), { _2: 1 })).toEqual({ _1: null, _2: '1' });
    expect(failure(con('Tuple2', INT, INT), { _2: 1 }).causeText).toBe('Missing non-optional field: _1');
  });

  it('chooses the nested optional form from the type as written (transcode: a variable is not seen through)', () => {
    // Box a = Box { v : Optional a } with a = Optional Int64: the outer level is the simple form.
    expect(norm(con('Box', opt(INT)), { v: 5 })).toEqual({ v: '5' });
    expect(norm(con('Box', opt(INT)), { v: null })).toEqual({ v: null });
    // written as Optional (Optional Int64) it is the array form
    expect(norm(con('Tuple2', opt(opt(INT)), UNIT), { _1: [[5]], _2: {} })).toEqual({ _1: [['5']], _2: {} });
  });

  it('folds type applications (LF 2.dev `app`) into their head', () => {
    const applied: LfType = { kind: 'app', fun: { kind: 'app', fun: con('Tuple2'), arg: INT }, arg: TEXT };
    expect(norm(applied, { _1: 2, _2: 'x' })).toEqual({ _1: '2', _2: 'x' });
  });

  it('passes values of unresolvable or non-serializable types through verbatim', () => {
    const unknown: LfType = { kind: 'con', tycon: { packageId: 'f'.repeat(64), moduleName: 'X', entityName: 'Y' }, args: [] };
    expect(norm(unknown, { loose: 1 })).toEqual({ loose: 1 });
    expect(norm({ kind: 'syn', tysyn: ref('Syn'), args: [] }, 'x')).toBe('x');
    expect(norm(tv('unbound'), 3)).toBe(3);
  });

  it('names the failing position in messages', () => {
    const e = failure(con('Person'), { name: 'A', home: { x: 'one', y: 2 } });
    expect(e.path).toBe('home.x');
    expect(e.causeText).toBe('The submitted request has invalid arguments: home.x: expected an Int64, got "one"');
    expect(() => normalizeValue(INT, 'x', resolve, 'createArguments')).toThrow(/createArguments: expected an Int64/);
  });
});
