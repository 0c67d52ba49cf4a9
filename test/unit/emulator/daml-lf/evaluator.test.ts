import { describe, expect, it } from 'vitest';
import type { Expr } from '../../../../src/emulator/daml-lf/ast.js';
import { Evaluator } from '../../../../src/emulator/daml-lf/evaluator.js';
import { DamlFailure } from '../../../../src/emulator/daml-lf/runtime.js';
import { int64, list, text, type Value } from '../../../../src/emulator/lf-value/runtime-value.js';
import {
  MOD,
  PKG,
  T,
  app,
  b,
  case_,
  enumType,
  int,
  ite,
  lam,
  let_,
  listOf,
  lookup,
  makePackage,
  proj,
  rec,
  recordType,
  ref,
  str,
  testBuiltins,
  v,
  val,
  variantType,
  type ModuleSpec,
} from './evaluator-fixtures.js';

const Point = ref('Point');
const Shape = ref('Shape');
const Color = ref('Color');

const baseModule: ModuleSpec = {
  dataTypes: [recordType('Point', ['x', 'y']), variantType('Shape', ['Circle', 'Square', 'Dot']), enumType('Color', ['Red', 'Green', 'Blue'])],
};

/** Evaluates `expr` as the top-level value `main` of a package with `values`. */
function evaluate(expr: Expr, values: Record<string, Expr> = {}, opts: { stepBudget?: number } = {}): Value {
  const pkg = makePackage({ [MOD]: { ...baseModule, values: { ...values, main: expr } } });
  const ev = new Evaluator(lookup(pkg), { builtins: testBuiltins, ...opts });
  return ev.evaluateValue({ packageId: PKG, moduleName: MOD, name: 'main' });
}

const add = (x: Expr, y: Expr): Expr => app(b('ADD_INT64'), x, y);

describe('Evaluator: functions and let', () => {
  it('applies lambdas, with partial and over-application', () => {
    const k = lam(['x', 'y'], v('x'));
    expect(evaluate(app(lam(['x', 'y'], add(v('x'), v('y'))), int(2), int(3)))).toEqual(int64(5n));
    // partial: (\x y. x + y) 2, then applied to 40
    expect(evaluate(let_([['f', app(lam(['x', 'y'], add(v('x'), v('y'))), int(2))]], app(v('f'), int(40))))).toEqual(int64(42n));
    // over-application: (\x. \y. x - y) applied to two arguments through a function returning a function
    const curried: Expr = lam(['x'], { tag: 'tyAbs', params: ['a'], body: lam(['y'], app(b('SUB_INT64'), v('x'), v('y'))) });
    expect(evaluate(app(curried, int(10), int(4)))).toEqual(int64(6n));
    const retFun: Expr = lam(['x'], let_([['z', add(v('x'), int(1))]], lam(['y'], add(v('z'), v('y')))));
    expect(evaluate(app(retFun, int(1), int(2)))).toEqual(int64(4n));
    expect(evaluate(app(k, int(7), int(8)))).toEqual(int64(7n));
    // a builtin partially applied
    expect(evaluate(app(let_([['inc', app(b('ADD_INT64'), int(1))]], v('inc')), int(41)))).toEqual(int64(42n));
  });

  it('closures capture their environment, shadowing resolves to the innermost binder', () => {
    const e = let_(
      [['x', int(1)], ['f', lam(['y'], add(v('x'), v('y')))], ['x', int(100)]],
      add(app(v('f'), int(10)), v('x')),
    );
    expect(evaluate(e)).toEqual(int64(111n));
  });

  it('let is strict: an erroring binding fails even if unused', () => {
    expect(() => evaluate(let_([['u', app(b('ERROR'), str('boom'))]], int(1)))).toThrow('boom');
  });

  it('top-level values are lazy, memoized and may be mutually recursive functions', () => {
    const values = {
      even: lam(['n'], ite(app(b('EQUAL'), v('n'), int(0)), { tag: 'bool', value: true }, app(val('odd'), app(b('SUB_INT64'), v('n'), int(1))))),
      odd: lam(['n'], ite(app(b('EQUAL'), v('n'), int(0)), { tag: 'bool', value: false }, app(val('even'), app(b('SUB_INT64'), v('n'), int(1))))),
      unused: app(b('ERROR'), str('never evaluated')),
    } satisfies Record<string, Expr>;
    expect(evaluate(app(val('even'), int(10)), values)).toEqual({ tag: 'bool', value: true });
    expect(evaluate(app(val('odd'), int(7)), values)).toEqual({ tag: 'bool', value: true });
  });
});

describe('Evaluator: data', () => {
  it('builds records in declaration order whatever the expression order, projects and updates', () => {
    const p = rec(Point, [['y', int(2)], ['x', int(1)]]);
    const r = evaluate(p);
    expect(r).toMatchObject({ tag: 'record', fieldNames: ['x', 'y'], fields: [int64(1n), int64(2n)] });
    expect(evaluate(proj(Point, 'y', p))).toEqual(int64(2n));
    const updated = evaluate({ tag: 'recUpd', tycon: Point, field: 'x', record: p, update: int(9) });
    expect(updated).toMatchObject({ fields: [int64(9n), int64(2n)] });
  });

  it('variants and enums carry their constructor rank; case matches them', () => {
    expect(evaluate({ tag: 'variantCon', tycon: Shape, typeArgs: [], constructor: 'Square', arg: int(3) })).toMatchObject({
      tag: 'variant',
      constructor: 'Square',
      rank: 1,
      value: int64(3n),
    });
    expect(evaluate({ tag: 'enumCon', tycon: Color, constructor: 'Blue' })).toMatchObject({ tag: 'enum', rank: 2 });
    const area = (shape: Expr): Expr =>
      case_(shape, [
        { pattern: { pat: 'variant', tycon: Shape, constructor: 'Circle', binder: 'r' }, body: app(b('MUL_INT64'), int(3), app(b('MUL_INT64'), v('r'), v('r'))) },
        { pattern: { pat: 'variant', tycon: Shape, constructor: 'Square', binder: 's' }, body: app(b('MUL_INT64'), v('s'), v('s')) },
        { pattern: { pat: 'default' }, body: int(0) },
      ]);
    expect(evaluate(area({ tag: 'variantCon', tycon: Shape, typeArgs: [], constructor: 'Circle', arg: int(2) }))).toEqual(int64(12n));
    expect(evaluate(area({ tag: 'variantCon', tycon: Shape, typeArgs: [], constructor: 'Square', arg: int(5) }))).toEqual(int64(25n));
    expect(evaluate(area({ tag: 'variantCon', tycon: Shape, typeArgs: [], constructor: 'Dot', arg: int(5) }))).toEqual(int64(0n));
    const colorName = case_({ tag: 'enumCon', tycon: Color, constructor: 'Green' }, [
      { pattern: { pat: 'enum', tycon: Color, constructor: 'Red' }, body: str('red') },
      { pattern: { pat: 'enum', tycon: Color, constructor: 'Green' }, body: str('green') },
      { pattern: { pat: 'enum', tycon: Color, constructor: 'Blue' }, body: str('blue') },
    ]);
    expect(evaluate(colorName)).toEqual(text('green'));
  });

  it('case on unit, bool, list and optional patterns; no match is a match error', () => {
    expect(evaluate(case_({ tag: 'unit' }, [{ pattern: { pat: 'unit' }, body: int(1) }]))).toEqual(int64(1n));
    expect(evaluate(ite({ tag: 'bool', value: false }, int(1), int(2)))).toEqual(int64(2n));
    const sum: Expr = lam(
      ['xs'],
      case_(v('xs'), [
        { pattern: { pat: 'nil' }, body: int(0) },
        { pattern: { pat: 'cons', head: 'h', tail: 't' }, body: add(v('h'), app(val('sum'), v('t'))) },
      ]),
    );
    expect(evaluate(app(val('sum'), listOf(int(1), int(2), int(3))), { sum })).toEqual(int64(6n));
    const orZero = (o: Expr): Expr =>
      case_(o, [
        { pattern: { pat: 'none' }, body: int(0) },
        { pattern: { pat: 'some', binder: 'x' }, body: v('x') },
      ]);
    expect(evaluate(orZero({ tag: 'some', type: T.int, value: int(5) }))).toEqual(int64(5n));
    expect(evaluate(orZero({ tag: 'none', type: T.int }))).toEqual(int64(0n));
    const failing = case_({ tag: 'bool', value: true }, [{ pattern: { pat: 'bool', value: false }, body: int(1) }]);
    expect(() => evaluate(failing)).toThrow(/match error/);
  });

  it('lists built by recursion and taken apart by patterns are ordinary list values', () => {
    // map (+1) over [1..n] by recursion, then summed by the FOLDL builtin (which reads `items`).
    const values = {
      incAll: lam(
        ['xs'],
        case_(v('xs'), [
          { pattern: { pat: 'nil' }, body: { tag: 'nil', type: T.int } },
          { pattern: { pat: 'cons', head: 'h', tail: 't' }, body: { tag: 'cons', type: T.int, front: [add(v('h'), int(1))], tail: app(val('incAll'), v('t')) } },
        ]),
      ),
    } satisfies Record<string, Expr>;
    const input = listOf(int(1), int(2), int(3));
    const out = evaluate(app(val('incAll'), input), values);
    expect(out).toEqual(list([int64(2n), int64(3n), int64(4n)]));
    expect(out.tag === 'list' && [...out.items]).toEqual([int64(2n), int64(3n), int64(4n)]);
    expect({ ...out }).toEqual({ tag: 'list', items: [int64(2n), int64(3n), int64(4n)] });
    const n = 800;
    const big: Expr = { tag: 'cons', type: T.int, front: Array.from({ length: n }, (_, i) => int(i)), tail: { tag: 'nil', type: T.int } };
    const sum = app(b('FOLDL'), lam(['acc', 'x'], add(v('acc'), v('x'))), int(0), app(val('incAll'), big));
    expect(evaluate(sum, values)).toEqual(int64(BigInt((n * (n - 1)) / 2 + n)));
  });

  it('only the chosen case alternative is evaluated', () => {
    expect(evaluate(ite({ tag: 'bool', value: true }, int(1), app(b('ERROR'), str('not me'))))).toEqual(int64(1n));
  });

  it('structs: construction, projection and update', () => {
    const s: Expr = { tag: 'structCon', fields: [{ field: 'b', expr: int(2) }, { field: 'a', expr: int(1) }] };
    expect(evaluate({ tag: 'structProj', field: 'b', struct: s })).toEqual(int64(2n));
    const u = evaluate({ tag: 'structUpd', field: 'a', struct: s, update: int(7) });
    expect(u.tag === 'struct' && u.fields.get('a')).toEqual(int64(7n));
  });

  it('lists: cons of several fronts onto a tail', () => {
    const e: Expr = { tag: 'cons', type: T.int, front: [int(1), int(2)], tail: listOf(int(3)) };
    expect(evaluate(e)).toEqual(list([int64(1n), int64(2n), int64(3n)]));
  });

  it('to_any/from_any compare types, type_rep values carry the type', () => {
    const any = (t = T.int): Expr => ({ tag: 'toAny', type: t, expr: int(3) });
    expect(evaluate({ tag: 'fromAny', type: T.int, expr: any() })).toEqual({ tag: 'optional', value: int64(3n) });
    expect(evaluate({ tag: 'fromAny', type: T.text, expr: any() })).toEqual({ tag: 'optional', value: undefined });
    expect(evaluate({ tag: 'fromAny', type: T.con(Point), expr: any(T.con(Point)) })).toEqual({ tag: 'optional', value: int64(3n) });
    expect(evaluate({ tag: 'fromAny', type: T.con(ref('Other')), expr: any(T.con(Point)) })).toEqual({ tag: 'optional', value: undefined });
    expect(evaluate({ tag: 'typeRep', type: T.list(T.int) })).toEqual({ tag: 'typeRep', type: T.list(T.int) });
  });
});

describe('Evaluator: limits', () => {
  const loop = { loop: lam(['n'], app(val('loop'), add(v('n'), int(1)))) } satisfies Record<string, Expr>;

  it('an infinite recursion exhausts the step budget', () => {
    let err: unknown;
    try {
      evaluate(app(val('loop'), int(0)), loop, { stepBudget: 1000 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DamlFailure);
    expect((err as DamlFailure).detail).toEqual({ kind: 'budgetExceeded', steps: 1000 });
  });

  it('a stack overflow becomes a DamlFailure, not a crash', () => {
    let err: unknown;
    try {
      evaluate(app(val('loop'), int(0)), loop);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DamlFailure);
    expect((err as DamlFailure).detail).toEqual({ kind: 'other', message: 'Daml evaluation ran out of stack (recursion too deep)' });
  });

  it('the budget is per outermost call', () => {
    const pkg = makePackage({ [MOD]: { ...baseModule, values: { count: lam(['n'], ite(app(b('LESS_EQ'), v('n'), int(0)), int(0), app(val('count'), app(b('SUB_INT64'), v('n'), int(1))))) } } });
    const ev = new Evaluator(lookup(pkg), { builtins: testBuiltins, stepBudget: 600 });
    const f = ev.evaluateValue({ packageId: PKG, moduleName: MOD, name: 'count' });
    for (let i = 0; i < 5; i++) expect(ev.applyFunction(f, [int64(500n)])).toEqual(int64(0n));
    expect(() => ev.applyFunction(f, [int64(700n)])).toThrow(/step budget/);
  });

  it('measures a simple loop', () => {
    const pkg = makePackage({ [MOD]: { ...baseModule, values: { count: lam(['n', 'acc'], ite(app(b('LESS_EQ'), v('n'), int(0)), v('acc'), app(val('count'), app(b('SUB_INT64'), v('n'), int(1)), add(v('acc'), v('n'))))) } } });
    const ev = new Evaluator(lookup(pkg), { builtins: testBuiltins });
    const f = ev.evaluateValue({ packageId: PKG, moduleName: MOD, name: 'count' });
    const n = 2000;
    const rounds = 200;
    const started = performance.now();
    for (let i = 0; i < rounds; i++) expect(ev.applyFunction(f, [int64(BigInt(n)), int64(0n)])).toEqual(int64(BigInt((n * (n + 1)) / 2)));
    const ms = performance.now() - started;
    console.log(`simple loop: ${((n * rounds) / (ms / 1000)).toFixed(0)} iterations/s (each: a call, a comparison, a case, two arithmetic builtins)`);
  });
});
