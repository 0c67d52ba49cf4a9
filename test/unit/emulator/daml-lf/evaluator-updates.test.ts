import { describe, expect, it } from 'vitest';
import type { DefInterface, DefTemplate, Expr, TemplateChoice } from '../../../../src/emulator/daml-lf/ast.js';
import { Evaluator } from '../../../../src/emulator/daml-lf/evaluator.js';
import { DamlFailure } from '../../../../src/emulator/daml-lf/runtime.js';
import { int64, list, party, text, type RecordV, type Value } from '../../../../src/emulator/lf-value/runtime-value.js';
import {
  FakeLedger,
  MOD,
  T,
  app,
  b,
  block,
  case_,
  int,
  lam,
  listOf,
  lookup,
  makePackage,
  proj,
  pure,
  rec,
  recordType,
  ref,
  str,
  testBuiltins,
  upd,
  v,
} from './evaluator-fixtures.js';

const Asset = ref('Asset');
const Other = ref('Other');
const MyError = ref('MyError');
const HasAmount = ref('HasAmount');
const View = ref('View');

const owner = proj(Asset, 'owner', v('this'));
const amount = proj(Asset, 'amount', v('this'));
const sub = (x: Expr, y: Expr): Expr => app(b('SUB_INT64'), x, y);
const appendText = (x: Expr, y: Expr): Expr => app(b('APPEND_TEXT'), x, y);
const throwMy = (msg: Expr): Expr => ({
  tag: 'throw',
  returnType: T.int,
  exceptionType: T.con(MyError),
  expr: rec(MyError, [['msg', msg]]),
});
const tryCatch = (tryExpr: Expr, binder: string, catchExpr: Expr): Expr =>
  upd({ tag: 'tryCatch', returnType: T.int, tryExpr, binder, catchExpr });
const createAsset = (amt: Expr): Expr => upd({ tag: 'create', template: Asset, expr: rec(Asset, [['owner', owner], ['amount', amt]]) });
const someE = (e: Expr): Expr => ({ tag: 'some', type: T.int, value: e });

function choice(name: string, update: Expr, consuming = true, extra: Partial<TemplateChoice> = {}): [string, TemplateChoice] {
  return [
    name,
    {
      name,
      consuming,
      controllers: listOf(owner),
      selfBinder: 'self',
      argBinder: { name: 'arg', type: T.int },
      returnType: T.int,
      update,
      ...extra,
    },
  ];
}

const assetTemplate: DefTemplate = {
  tycon: Asset,
  param: 'this',
  precond: app(b('LESS_EQ'), int(0), amount),
  signatories: listOf(owner),
  observers: { tag: 'nil', type: T.party },
  choices: new Map([
    // Split: two new assets, amounts arg and amount - arg.
    choice('Split', block([['a', createAsset(v('arg'))], ['b', createAsset(sub(amount, v('arg')))]], pure(listOf(v('a'), v('b'))))),
    choice('Fail', upd({ tag: 'embedExpr', type: T.int, expr: throwMy(str('boom')) }), false),
    // TryFail: a create then a throw inside try; the handler answers with the exception message.
    choice(
      'TryFail',
      tryCatch(
        block([['c', createAsset(int(1))]], upd({ tag: 'embedExpr', type: T.int, expr: throwMy(str('boom')) })),
        'e',
        someE(pure(appendText(str('caught: '), app(b('ANY_EXCEPTION_MESSAGE'), v('e'))))),
      ),
      false,
    ),
    // Declines every exception.
    choice('TryDecline', tryCatch(upd({ tag: 'embedExpr', type: T.int, expr: throwMy(str('boom')) }), 'e', { tag: 'none', type: T.int }), false),
    // A builtin's ArithmeticError caught, message through ANY_EXCEPTION_MESSAGE.
    choice('DivZero', tryCatch(pure(app(b('DIV_INT64'), int(1), int(0))), 'e', someE(pure(app(b('ANY_EXCEPTION_MESSAGE'), v('e'))))), false),
    // Exercises Fail on the contract `arg` and catches what that nested exercise throws.
    choice(
      'CatchNested',
      tryCatch(upd({ tag: 'exercise', template: Asset, choice: 'Fail', cid: v('arg'), arg: { tag: 'unit' } }), 'e', someE(pure(str('nested caught')))),
      false,
    ),
    choice('FetchSelf', block([['me', upd({ tag: 'fetch', template: Asset, cid: v('self') })], ['now', upd({ tag: 'getTime' })]], pure(listOf(proj(Asset, 'amount', v('me'))))), false),
  ]),
  implements: new Map([
    [
      `pkg0:${MOD}:HasAmount`,
      { iface: HasAmount, methods: new Map([['getAmount', amount]]), view: rec(View, [['total', amount]]) },
    ],
  ]),
};

const otherTemplate: DefTemplate = {
  tycon: Other,
  param: 'this',
  precond: { tag: 'bool', value: true },
  signatories: listOf(proj(Other, 'owner', v('this'))),
  observers: { tag: 'nil', type: T.party },
  choices: new Map(),
  implements: new Map(),
};

const hasAmount: DefInterface = {
  tycon: HasAmount,
  param: 'i',
  methods: new Map([['getAmount', { name: 'getAmount', type: T.int }]]),
  choices: new Map([
    [
      'Double',
      {
        name: 'Double',
        consuming: false,
        controllers: { tag: 'signatoryInterface', iface: HasAmount, expr: v('i') },
        selfBinder: 'self',
        argBinder: { name: 'arg', type: T.unit },
        returnType: T.int,
        update: pure(app(b('MUL_INT64'), int(2), { tag: 'callInterface', iface: HasAmount, method: 'getAmount', expr: v('i') })),
      },
    ],
  ]),
  view: T.con(View),
  requires: [],
};

const pkg = makePackage({
  [MOD]: {
    dataTypes: [
      { kind: 'record', name: 'Asset', params: [], serializable: true, fields: [{ name: 'owner', type: T.party }, { name: 'amount', type: T.int }] },
      { kind: 'record', name: 'Other', params: [], serializable: true, fields: [{ name: 'owner', type: T.party }] },
      recordType('MyError', ['msg'], T.text),
      recordType('View', ['total']),
      { kind: 'interface', name: 'HasAmount', params: [], serializable: false },
    ],
    templates: [assetTemplate, otherTemplate],
    interfaces: [hasAmount],
    exceptions: [{ tycon: MyError, message: lam(['e'], appendText(str('my error: '), proj(MyError, 'msg', v('e')))) }],
    values: {
      asIface: lam(['x'], { tag: 'toInterface', iface: HasAmount, template: Asset, expr: v('x') }),
      fromIfaceAsset: lam(['x'], { tag: 'fromInterface', iface: HasAmount, template: Asset, expr: v('x') }),
      fromIfaceOther: lam(['x'], { tag: 'fromInterface', iface: HasAmount, template: Other, expr: v('x') }),
      unsafeOther: lam(['x'], { tag: 'unsafeFromInterface', iface: HasAmount, template: Other, cid: v('x'), expr: v('x') }),
      viewOf: lam(['x'], { tag: 'viewInterface', iface: HasAmount, expr: v('x') }),
      tplRep: lam(['x'], { tag: 'interfaceTemplateTypeRep', iface: HasAmount, expr: v('x') }),
      anyEx: lam(['m'], { tag: 'fromAnyException', type: T.con(MyError), expr: { tag: 'toAnyException', type: T.con(MyError), expr: rec(MyError, [['msg', v('m')]]) } }),
      anyExWrong: lam(['m'], { tag: 'fromAnyException', type: T.con(Asset), expr: { tag: 'toAnyException', type: T.con(MyError), expr: rec(MyError, [['msg', v('m')]]) } }),
      controllerOf: lam(['x'], { tag: 'choiceController', template: Asset, choice: 'Split', contract: v('x'), choiceArg: int(1) }),
      ifaceTwice: lam(
        ['cid'],
        upd({ tag: 'exerciseInterface', iface: HasAmount, choice: 'Double', cid: v('cid'), arg: { tag: 'unit' } }),
      ),
      // `u` is one update value, run twice: two creates.
      rerun: lam(
        ['p'],
        block(
          [['u', pure(upd({ tag: 'create', template: Asset, expr: rec(Asset, [['owner', v('p')], ['amount', int(1)]]) }))]],
          block([['x', v('u')], ['y', v('u')]], pure(listOf(v('x'), v('y')))),
        ),
      ),
    },
  },
});

const asset = (amt: bigint, who = 'alice'): RecordV => ({ tag: 'record', tycon: Asset, fields: [party(who), int64(amt)], fieldNames: ['owner', 'amount'] });
const other = (who = 'bob'): RecordV => ({ tag: 'record', tycon: Other, fields: [party(who)], fieldNames: ['owner'] });

function setup() {
  const ev = new Evaluator(lookup(pkg), { builtins: testBuiltins });
  const ledger = new FakeLedger(ev, (owner, ch) => ch === 'Split' && owner.entityName === 'Asset');
  const value = (name: string): Value => ev.evaluateValue({ packageId: 'pkg0', moduleName: MOD, name });
  const call = (name: string, ...args: Value[]): Value => ev.applyFunction(value(name), args);
  return { ev, ledger, call, value };
}

function failureOf(f: () => unknown): DamlFailure {
  try {
    f();
  } catch (e) {
    if (e instanceof DamlFailure) return e;
    throw e;
  }
  throw new Error('expected a DamlFailure');
}

describe('Evaluator as DamlEngine: templates', () => {
  it('signatories, observers, precondition, choice controllers and observers', () => {
    const { ev } = setup();
    expect(ev.hasTemplate(Asset)).toBe(true);
    expect(ev.hasTemplate(ref('Nope'))).toBe(false);
    expect(ev.signatories(Asset, asset(5n))).toEqual(['alice']);
    expect(ev.observers(Asset, asset(5n))).toEqual([]);
    expect(ev.precondition(Asset, asset(5n))).toBe(true);
    expect(ev.precondition(Asset, asset(-1n))).toBe(false);
    expect(ev.controllers(Asset, 'Split', asset(5n), int64(2n))).toEqual(['alice']);
    expect(ev.choiceObservers(Asset, 'Split', asset(5n), int64(2n))).toEqual([]);
    expect(ev.key(Asset, asset(5n))).toBeUndefined();
  });

  it('exercise runs the choice against the ledger port: creates with the engine asked for signatories', () => {
    const { ev, ledger } = setup();
    const cid = ledger.create(Asset, asset(10n));
    const result = ledger.exerciseTemplate(Asset, cid, 'Split', int64(3n));
    expect(result).toEqual(list([{ tag: 'contractId', value: 'cid1' }, { tag: 'contractId', value: 'cid2' }]));
    expect(ledger.calls.map((c) => [c.op, ...c.args])).toEqual([
      ['create', 'Asset', 'cid0', ['alice']],
      ['exercise', 'Asset', 'cid0', 'Split'],
      ['create', 'Asset', 'cid1', ['alice']],
      ['create', 'Asset', 'cid2', ['alice']],
    ]);
    expect(ledger.contracts.get('cid2')?.fields).toEqual([party('alice'), int64(7n)]);
    expect(ledger.archived.has('cid0')).toBe(true);
    // A failing precondition in a nested create is the ledger's failure, passed through.
    const cid3 = ledger.create(Asset, asset(1n));
    expect(failureOf(() => ev.exercise(Asset, 'Split', cid3, asset(1n), int64(5n), ledger)).detail.kind).toBe('templatePreconditionViolated');
  });

  it('fetch and getTime', () => {
    const { ledger } = setup();
    const cid = ledger.create(Asset, asset(4n));
    expect(ledger.exerciseTemplate(Asset, cid, 'FetchSelf', int64(0n))).toEqual(list([int64(4n)]));
    expect(ledger.calls.at(-1)).toEqual({ op: 'fetch', args: ['Asset', cid] });
  });

  it('an update value run twice performs its effects twice', () => {
    const { ev, ledger, value } = setup();
    const r = ev.runUpdate(ev.applyFunction(value('rerun'), [party('alice')]), ledger);
    expect(r).toEqual(list([{ tag: 'contractId', value: 'cid0' }, { tag: 'contractId', value: 'cid1' }]));
  });
});

describe('Evaluator: exceptions', () => {
  it('an uncaught throw is an unhandledException failure with the DefException message', () => {
    const { ev, ledger } = setup();
    const cid = ledger.create(Asset, asset(1n));
    const f = failureOf(() => ev.exercise(Asset, 'Fail', cid, asset(1n), int64(0n), ledger));
    expect(f.detail).toMatchObject({ kind: 'unhandledException', exceptionType: MyError, message: 'my error: boom' });
  });

  it('try/catch rolls back the try body and runs the handler; ANY_EXCEPTION_MESSAGE gives the message', () => {
    const { ev, ledger } = setup();
    const cid = ledger.create(Asset, asset(1n));
    expect(ev.exercise(Asset, 'TryFail', cid, asset(1n), int64(0n), ledger)).toEqual(text('caught: my error: boom'));
    expect(ledger.calls.map((c) => c.op)).toEqual(['create', 'create', 'rollback']);
    expect([...ledger.contracts.keys()]).toEqual([cid]);
  });

  it('a handler answering None rethrows', () => {
    const { ev, ledger } = setup();
    const cid = ledger.create(Asset, asset(1n));
    expect(failureOf(() => ev.exercise(Asset, 'TryDecline', cid, asset(1n), int64(0n), ledger)).detail.kind).toBe('unhandledException');
  });

  it("a builtin's ArithmeticError is catchable, its message read from the record when its package is not loaded", () => {
    const { ev, ledger } = setup();
    const cid = ledger.create(Asset, asset(1n));
    expect(ev.exercise(Asset, 'DivZero', cid, asset(1n), int64(0n), ledger)).toEqual(text('ArithmeticError while evaluating (DIV_INT64 1 0).'));
  });

  it('an exception thrown by a nested exercise is catchable by the calling choice', () => {
    const { ev, ledger } = setup();
    const a = ledger.create(Asset, asset(1n));
    const b2 = ledger.create(Asset, asset(2n));
    expect(ev.exercise(Asset, 'CatchNested', a, asset(1n), { tag: 'contractId', value: b2 }, ledger)).toEqual(text('nested caught'));
  });

  it('to_any_exception/from_any_exception', () => {
    const { call } = setup();
    expect(call('anyEx', text('x'))).toMatchObject({ tag: 'optional', value: { tag: 'record', tycon: MyError } });
    expect(call('anyExWrong', text('x'))).toEqual({ tag: 'optional', value: undefined });
  });
});

describe('Evaluator: interfaces', () => {
  it('to/from interface, views, methods, template type rep', () => {
    const { ev, call } = setup();
    const a = call('asIface', asset(6n));
    expect(a).toEqual(asset(6n));
    expect(call('fromIfaceAsset', a)).toEqual({ tag: 'optional', value: asset(6n) });
    expect(call('fromIfaceOther', a)).toEqual({ tag: 'optional', value: undefined });
    expect(call('viewOf', a)).toMatchObject({ tag: 'record', tycon: View, fields: [int64(6n)] });
    expect(ev.view(HasAmount, asset(6n))).toMatchObject({ fields: [int64(6n)] });
    expect(call('tplRep', a)).toEqual({ tag: 'typeRep', type: T.con(Asset) });
    expect(call('controllerOf', a)).toEqual(list([party('alice')]));
  });

  it('unsafe_from_interface of another template is a wronglyTypedContract failure', () => {
    const ev = new Evaluator(
      lookup(
        makePackage({
          [MOD]: {
            ...{ dataTypes: [{ kind: 'record', name: 'Asset', params: [], serializable: true, fields: [{ name: 'owner', type: T.party }, { name: 'amount', type: T.int }] }] },
            templates: [assetTemplate, otherTemplate],
            values: { f: lam(['c', 'x'], { tag: 'unsafeFromInterface', iface: HasAmount, template: Other, cid: v('c'), expr: v('x') }) },
          },
        }),
      ),
      { builtins: testBuiltins },
    );
    const fn = ev.evaluateValue({ packageId: 'pkg0', moduleName: MOD, name: 'f' });
    const f = failureOf(() => ev.applyFunction(fn, [{ tag: 'contractId', value: 'c1' }, asset(1n)]));
    expect(f.detail).toEqual({ kind: 'wronglyTypedContract', cid: 'c1', expected: Other, actual: Asset });
  });

  it('an interface choice runs with the interface value bound, controllers from the interface', () => {
    const { ev, ledger, call } = setup();
    const cid = ledger.create(Asset, asset(21n));
    expect(ev.controllers(HasAmount, 'Double', asset(21n), { tag: 'unit' })).toEqual(['alice']);
    expect(ev.runUpdate(call('ifaceTwice', { tag: 'contractId', value: cid }), ledger)).toEqual(int64(42n));
    expect(ledger.calls.at(-1)).toEqual({ op: 'exerciseInterface', args: ['HasAmount', cid, 'Double'] });
  });

  it('an interface method of a template that does not implement it fails', () => {
    const { ev } = setup();
    expect(() => ev.view(HasAmount, other())).toThrow(DamlFailure);
  });
});

describe('case on a list value from the ledger', () => {
  it('works on lists of records', () => {
    const pkg2 = makePackage({ [MOD]: { values: { len: lam(['xs'], case_(v('xs'), [{ pattern: { pat: 'nil' }, body: int(0) }, { pattern: { pat: 'cons', head: 'h', tail: 't' }, body: int(1) }])) } } });
    const ev2 = new Evaluator(lookup(pkg2), { builtins: testBuiltins });
    const len = ev2.evaluateValue({ packageId: 'pkg0', moduleName: MOD, name: 'len' });
    expect(ev2.applyFunction(len, [list([asset(1n)])])).toEqual(int64(1n));
  });
});
