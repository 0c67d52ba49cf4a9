/**
 * Hand-built Daml-LF packages and a small builtins table for the evaluator's unit tests (the
 * full builtins live on their own; these few follow daml-lf-2.rst closely enough for the tests).
 */
import type {
  BuiltinFunctionName,
  CaseAlt,
  DamlModule,
  DamlPackage,
  DecodedDataType,
  DefException,
  DefInterface,
  DefTemplate,
  Expr,
  LfType,
  PackageLookup,
  TypeConRef,
  Update,
} from '../../../../src/emulator/daml-lf/ast.js';
import { DamlFailure, DamlThrow, type LedgerPort } from '../../../../src/emulator/daml-lf/runtime.js';
import {
  bool,
  expect as expectTag,
  fun,
  int64,
  text,
  type FunV,
  type RecordV,
  type Value,
} from '../../../../src/emulator/lf-value/runtime-value.js';

export const PKG = 'pkg0';
export const MOD = 'M';
export const ref = (entityName: string, moduleName = MOD, packageId = PKG): TypeConRef => ({ packageId, moduleName, entityName });

// ---- expression builders ----------------------------------------------------------------------

export const T = {
  int: { kind: 'builtin', name: 'Int64', args: [] } as LfType,
  text: { kind: 'builtin', name: 'Text', args: [] } as LfType,
  party: { kind: 'builtin', name: 'Party', args: [] } as LfType,
  unit: { kind: 'builtin', name: 'Unit', args: [] } as LfType,
  con: (r: TypeConRef, args: LfType[] = []): LfType => ({ kind: 'con', tycon: r, args }),
  list: (t: LfType): LfType => ({ kind: 'builtin', name: 'List', args: [t] }),
};

export const v = (name: string): Expr => ({ tag: 'var', name });
export const val = (name: string, moduleName = MOD, packageId = PKG): Expr => ({ tag: 'val', ref: { packageId, moduleName, name } });
export const b = (name: BuiltinFunctionName): Expr => ({ tag: 'builtin', name });
export const int = (n: number | bigint): Expr => ({ tag: 'lit', value: { lit: 'int64', value: BigInt(n) } });
export const str = (s: string): Expr => ({ tag: 'lit', value: { lit: 'text', value: s } });
export const app = (f: Expr, ...args: Expr[]): Expr => ({ tag: 'app', fun: f, args });
export const lam = (names: string[], body: Expr): Expr => ({
  tag: 'abs',
  params: names.map((name) => ({ name, type: T.int })),
  body,
});
export const let_ = (bindings: Array<[string, Expr]>, body: Expr): Expr => ({
  tag: 'let',
  bindings: bindings.map(([name, bound]) => ({ name, type: T.int, bound })),
  body,
});
export const case_ = (scrut: Expr, alts: CaseAlt[]): Expr => ({ tag: 'case', scrut, alts });
export const ite = (c: Expr, t: Expr, e: Expr): Expr =>
  case_(c, [
    { pattern: { pat: 'bool', value: true }, body: t },
    { pattern: { pat: 'default' }, body: e },
  ]);
export const rec = (tycon: TypeConRef, fields: Array<[string, Expr]>): Expr => ({
  tag: 'recCon',
  tycon,
  typeArgs: [],
  fields: fields.map(([field, expr]) => ({ field, expr })),
});
export const proj = (tycon: TypeConRef, field: string, record: Expr): Expr => ({ tag: 'recProj', tycon, field, record });
export const listOf = (...items: Expr[]): Expr =>
  items.length === 0 ? { tag: 'nil', type: T.int } : { tag: 'cons', type: T.int, front: items, tail: { tag: 'nil', type: T.int } };
export const upd = (u: Update): Expr => ({ tag: 'update', update: u });
export const pure = (e: Expr): Expr => upd({ tag: 'pure', type: T.int, expr: e });
export const block = (bindings: Array<[string, Expr]>, body: Expr): Expr =>
  upd({ tag: 'block', bindings: bindings.map(([name, bound]) => ({ name, type: T.int, bound })), body });

// ---- packages ---------------------------------------------------------------------------------

export interface ModuleSpec {
  dataTypes?: DecodedDataType[];
  values?: Record<string, Expr>;
  templates?: DefTemplate[];
  interfaces?: DefInterface[];
  exceptions?: DefException[];
}

export function makePackage(modules: Record<string, ModuleSpec>, packageId = PKG): DamlPackage {
  const mods = new Map<string, DamlModule>();
  for (const [name, spec] of Object.entries(modules)) {
    mods.set(name, {
      name,
      dataTypes: new Map((spec.dataTypes ?? []).map((d) => [d.name, d])),
      synonyms: new Map(),
      values: new Map(
        Object.entries(spec.values ?? {}).map(([n, expr]) => [
          n,
          { ref: { packageId, moduleName: name, name: n }, type: T.int, expr },
        ]),
      ),
      templates: new Map((spec.templates ?? []).map((t) => [t.tycon.entityName, t])),
      interfaces: new Map((spec.interfaces ?? []).map((t) => [t.tycon.entityName, t])),
      exceptions: new Map((spec.exceptions ?? []).map((t) => [t.tycon.entityName, t])),
    });
  }
  return { packageId, name: 'test', version: '1.0.0', lfVersion: '2.1', modules: mods };
}

export function lookup(...pkgs: DamlPackage[]): PackageLookup {
  const m = new Map(pkgs.map((p) => [p.packageId, p]));
  return { get: (id) => m.get(id) };
}

export const recordType = (name: string, fields: string[], fieldType: LfType = T.int): DecodedDataType => ({
  kind: 'record',
  name,
  params: [],
  serializable: true,
  fields: fields.map((f) => ({ name: f, type: fieldType })),
});
export const variantType = (name: string, constructors: string[]): DecodedDataType => ({
  kind: 'variant',
  name,
  params: [],
  serializable: true,
  constructors: constructors.map((c) => ({ name: c, type: T.int })),
});
export const enumType = (name: string, constructors: string[]): DecodedDataType => ({
  kind: 'enum',
  name,
  params: [],
  serializable: true,
  constructors,
});

// ---- a few builtins -----------------------------------------------------------------------------

const int2 = (name: string, f: (a: bigint, b: bigint) => bigint): FunV =>
  fun(2, ([a, c]) => int64(f(expectTag(a!, 'int64').value, expectTag(c!, 'int64').value)), name);

function simpleEqual(a: Value, c: Value): boolean {
  return JSON.stringify(a, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x)) ===
    JSON.stringify(c, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x));
}

export function testBuiltins(name: BuiltinFunctionName): FunV {
  switch (name) {
    case 'ADD_INT64':
      return int2(name, (a, c) => a + c);
    case 'SUB_INT64':
      return int2(name, (a, c) => a - c);
    case 'MUL_INT64':
      return int2(name, (a, c) => a * c);
    case 'LESS_EQ':
      return fun(2, ([a, c]) => bool(expectTag(a!, 'int64').value <= expectTag(c!, 'int64').value), name);
    case 'EQUAL':
      return fun(2, ([a, c]) => bool(simpleEqual(a!, c!)), name);
    case 'APPEND_TEXT':
      return fun(2, ([a, c]) => text(expectTag(a!, 'text').value + expectTag(c!, 'text').value), name);
    case 'INT64_TO_TEXT':
      return fun(1, ([a]) => text(String(expectTag(a!, 'int64').value)), name);
    case 'ERROR':
      return fun(1, ([a]) => {
        throw new DamlFailure({ kind: 'userError', message: expectTag(a!, 'text').value });
      }, name);
    case 'FOLDL':
      return fun(3, ([f, z, l]) => {
        let acc = z!;
        for (const x of expectTag(l!, 'list').items) {
          const g = expectTag(f!, 'fun');
          const partial = g.arity === 2 ? g.invoke([acc, x]) : expectTag(g.invoke([acc]), 'fun').invoke([x]);
          acc = partial;
        }
        return acc;
      }, name);
    case 'DIV_INT64':
      return fun(2, ([a, c]) => {
        const d = expectTag(c!, 'int64').value;
        if (d === 0n) {
          const message = `ArithmeticError while evaluating (DIV_INT64 ${expectTag(a!, 'int64').value} 0).`;
          const value: RecordV = {
            tag: 'record',
            tycon: ref('ArithmeticError', 'DA.Exception.ArithmeticError', 'prim'),
            fields: [text(message)],
            fieldNames: ['message'],
          };
          throw new DamlThrow({ tag: 'anyException', type: T.con(value.tycon), value }, message);
        }
        return int64(expectTag(a!, 'int64').value / d);
      }, name);
    default:
      return fun(1, () => {
        throw new DamlFailure({ kind: 'unsupported', feature: name });
      }, name);
  }
}

// ---- a fake ledger ------------------------------------------------------------------------------

export interface LedgerCall {
  op: string;
  args: unknown[];
}

/**
 * An in-memory LedgerPort that records calls. Exercises call back into `engine.exercise` (as the
 * real ledger does); rollback scopes drop the contracts created inside them.
 */
export class FakeLedger implements LedgerPort {
  readonly calls: LedgerCall[] = [];
  readonly contracts = new Map<string, RecordV>();
  readonly archived = new Set<string>();
  private next = 0;
  nowMicros = 1_700_000_000_000_000n;
  constructor(
    private readonly engine: {
      exercise(owner: TypeConRef, choice: string, cid: string, arg: RecordV, choiceArg: Value, ledger: LedgerPort): Value;
      signatories(template: TypeConRef, arg: RecordV): string[];
      precondition(template: TypeConRef, arg: RecordV): boolean;
    },
    private readonly consuming: (owner: TypeConRef, choice: string) => boolean = () => true,
  ) {}

  create(template: TypeConRef, arg: RecordV): string {
    if (!this.engine.precondition(template, arg)) {
      throw new DamlFailure({ kind: 'templatePreconditionViolated', template });
    }
    const sigs = this.engine.signatories(template, arg);
    const cid = `cid${this.next++}`;
    this.calls.push({ op: 'create', args: [template.entityName, cid, sigs] });
    this.contracts.set(cid, arg);
    return cid;
  }
  fetchTemplate(template: TypeConRef, cid: string): RecordV {
    this.calls.push({ op: 'fetch', args: [template.entityName, cid] });
    return this.active(cid);
  }
  fetchInterface(iface: TypeConRef, cid: string): RecordV {
    this.calls.push({ op: 'fetchInterface', args: [iface.entityName, cid] });
    return this.active(cid);
  }
  exerciseTemplate(template: TypeConRef, cid: string, choice: string, arg: Value): Value {
    this.calls.push({ op: 'exercise', args: [template.entityName, cid, choice] });
    const c = this.active(cid);
    if (this.consuming(template, choice)) this.archived.add(cid);
    return this.engine.exercise(template, choice, cid, c, arg, this);
  }
  exerciseInterface(iface: TypeConRef, cid: string, choice: string, arg: Value): Value {
    this.calls.push({ op: 'exerciseInterface', args: [iface.entityName, cid, choice] });
    const c = this.active(cid);
    if (this.consuming(iface, choice)) this.archived.add(cid);
    return this.engine.exercise(iface, choice, cid, c, arg, this);
  }
  rollbackScope<R>(body: () => R): R {
    const contracts = new Map(this.contracts);
    const archived = new Set(this.archived);
    const mark = this.calls.length;
    try {
      return body();
    } catch (err) {
      this.contracts.clear();
      for (const [k, x] of contracts) this.contracts.set(k, x);
      this.archived.clear();
      for (const k of archived) this.archived.add(k);
      this.calls.push({ op: 'rollback', args: [this.calls.length - mark] });
      throw err;
    }
  }
  private active(cid: string): RecordV {
    const c = this.contracts.get(cid);
    if (c === undefined || this.archived.has(cid)) throw new Error(`contract ${cid} not active`);
    return c;
  }
}
