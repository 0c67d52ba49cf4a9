import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeDar, type DecodedPackage } from '../../../../src/emulator/dar/index.js';
import { decodeDamlPackage, decodeDamlPackageWithStats } from '../../../../src/emulator/daml-lf/decode/index.js';
import type { CasePattern, DamlPackage, Expr } from '../../../../src/emulator/daml-lf/ast.js';
import { LfDecodeError } from '../../../../src/emulator/dar/lf2.js';
import { ProtoWriter } from '../../../../src/emulator/shared/protobuf-writer.js';
import { buildDalf } from '../../../support/dar-builder.js';
import { Lf2Builder } from '../../../support/lf2-package-builder.js';

const DARS = '../shared/dars';
const darFiles = readdirSync(DARS).filter((f) => f.endsWith('.dar')).sort();

describe('decodeDamlPackage on the real DARs', () => {
  it.each(darFiles)('%s: every package decodes, matching the type-level decode', (file) => {
    const dar = decodeDar(readFileSync(`${DARS}/${file}`));
    const started = performance.now();
    let maxDepth = 0;
    const decoded: Array<[DecodedPackage, DamlPackage]> = [];
    for (const p of dar.packages) {
      const { pkg, stats } = decodeDamlPackageWithStats(p.packageId, p.payload);
      maxDepth = Math.max(maxDepth, stats.maxExprDepth);
      decoded.push([p, pkg]);
    }
    const ms = performance.now() - started;
    const lazyStarted = performance.now();
    for (const p of dar.packages) decodeDamlPackage(p.packageId, p.payload, { lazy: true });
    const lazyMs = performance.now() - lazyStarted;
    console.log(
      `${file}: ${dar.packages.length} packages decoded in ${ms.toFixed(0)} ms ` +
        `(lazy value bodies: ${lazyMs.toFixed(0)} ms), max expression depth ${maxDepth}`,
    );
    for (const [typeLevel, full] of decoded) expectSameShape(typeLevel, full);
  });
});

function expectSameShape(t: DecodedPackage, f: DamlPackage): void {
  expect(f.packageId).toBe(t.packageId);
  expect(f.name).toBe(t.name);
  expect(f.version).toBe(t.version);
  expect(f.lfVersion).toBe(t.lfVersion);
  expect(f.upgradedPackageId).toBe(t.upgradedPackageId);
  expect([...f.modules.keys()]).toEqual(t.modules.map((m) => m.name));
  for (const tm of t.modules) {
    const fm = f.modules.get(tm.name)!;
    expect([...fm.templates.keys()]).toEqual(tm.templates.map((x) => x.name));
    for (const tt of tm.templates) {
      const ft = fm.templates.get(tt.name)!;
      expect([...ft.choices.keys()]).toEqual(tt.choices.map((c) => c.name));
      for (const tc of tt.choices) {
        const fc = ft.choices.get(tc.name)!;
        expect(fc.consuming).toBe(tc.consuming);
        expect(fc.argBinder.type).toEqual(tc.argType);
        expect(fc.returnType).toEqual(tc.returnType);
      }
      expect([...ft.implements.keys()]).toEqual(tt.implements);
      expect(ft.key !== undefined).toBe(tt.hasKey);
    }
    expect([...fm.interfaces.keys()]).toEqual(tm.interfaces.map((x) => x.name));
    for (const ti of tm.interfaces) {
      const fi = fm.interfaces.get(ti.name)!;
      expect([...fi.choices.keys()]).toEqual(ti.choices.map((c) => c.name));
      expect([...fi.methods.keys()]).toEqual(ti.methods);
      expect(fi.requires).toEqual(ti.requires);
      expect(fi.view).toEqual(ti.viewType);
    }
    expect([...fm.dataTypes.values()]).toEqual(tm.dataTypes);
  }
}

// ---- spot checks on TestTokenV1 ------------------------------------------------------------------

const TOKEN_V1 = 'aaa0b576b5a3db49b3a4f7a4710fe6f8ae462aabbde4da89f639eb87fd62e90c';
const HOLDING_V1 = '718a0f77e505a8de22f188bd4c87fe74101274e9d4cb1bfac7d09aec7158d35b';
const TRANSFER_INSTRUCTION_V1 = '55ba4deb0ad4662c4168b39859738a0e91388d252286480c7331b3f71a517281';

function packagesOf(file: string): Map<string, DamlPackage> {
  const out = new Map<string, DamlPackage>();
  for (const p of decodeDar(readFileSync(`${DARS}/${file}`)).packages) out.set(p.packageId, decodeDamlPackage(p.packageId, p.payload));
  return out;
}

/** Every expression node under `root` (ast objects, Maps and arrays walked; types skipped). */
function exprsUnder(root: unknown): Expr[] {
  const out: Expr[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const x = stack.pop();
    if (Array.isArray(x)) stack.push(...x);
    else if (x instanceof Map) stack.push(...x.values());
    else if (x !== null && typeof x === 'object') {
      if ('kind' in x) continue; // an LfType
      if (isExpr(x)) out.push(x);
      for (const [k, v] of Object.entries(x)) if (k !== 'tycon' && k !== 'ref') stack.push(v);
    }
  }
  return out;
}
/** Expressions have a string `tag`; so do updates (`{ tag: 'update', update }` holds them), which is fine for these searches. */
function isExpr(x: object): x is Expr {
  return 'tag' in x && typeof x.tag === 'string';
}

describe('decodeDamlPackage: TestTokenV1', () => {
  const pkgs = packagesOf('splice-test-token-v1-1.0.0.dar');
  const mod = pkgs.get(TOKEN_V1)!.modules.get('Splice.Testing.Tokens.TestTokenV1')!;

  it('decodes the templates with their parameters and interface instances', () => {
    expect([...mod.templates.keys()].sort()).toEqual(['Token', 'TokenAllocation', 'TokenRules', 'TokenTransferOffer']);
    const token = mod.templates.get('Token')!;
    expect(token.tycon).toEqual({ packageId: TOKEN_V1, moduleName: 'Splice.Testing.Tokens.TestTokenV1', entityName: 'Token' });
    expect(token.param).toBe('this');
    // No choices of its own: only the implicit Archive, which the compiler writes out.
    expect([...token.choices.keys()]).toEqual(['Archive']);
    expect(token.choices.get('Archive')!.consuming).toBe(true);
    expect(token.location?.moduleName).toBe('Splice.Testing.Tokens.TestTokenV1');
    // `implements HoldingV1.Holding where view = holding`: no methods, a view applied to the contract.
    const holding = token.implements.get(`${HOLDING_V1}:Splice.Api.Token.HoldingV1:Holding`)!;
    expect(holding.methods.size).toBe(0);
    expect(holding.view).toMatchObject({ tag: 'app', fun: { tag: 'val' }, args: [{ tag: 'var', name: 'this' }] });
    // TokenRules implements both factories; each instance has its methods and view.
    const rules = mod.templates.get('TokenRules')!;
    const allocFactory = [...rules.implements.values()].find((i) => i.iface.entityName === 'AllocationFactory')!;
    expect([...allocFactory.methods.keys()].sort()).toEqual(['allocationFactory_allocateImpl', 'allocationFactory_publicFetchImpl']);
    expect(allocFactory.view.tag).toBe('app');
  });

  it("decodes Token's signatories: a call of the signatory function on `this`", () => {
    const sig = mod.templates.get('Token')!.signatories;
    expect(sig).toMatchObject({ tag: 'app', fun: { tag: 'val' }, args: [{ tag: 'var', name: 'this' }] });
    if (sig.tag !== 'app' || sig.fun.tag !== 'val') throw new Error('unexpected shape');
    const def = mod.values.get(sig.fun.ref.name)!;
    // λ(this : Token). let ds = this.holding in concat [toParties ds.instrumentId.admin, toParties ds.owner]
    expect(def.expr).toMatchObject({ tag: 'abs', params: [{ name: 'this' }], body: { tag: 'let' } });
    const projections = exprsUnder(def.expr).filter((e) => e.tag === 'recProj').map((e) => (e.tag === 'recProj' ? e.field : ''));
    expect(projections).toEqual(expect.arrayContaining(['holding', 'instrumentId', 'admin', 'owner']));
  });

  it("decodes Token's ensure: `amount > 0.0` at scale 10, then the PreconditionFailed throw", () => {
    const precond = mod.templates.get('Token')!.precond;
    expect(precond).toMatchObject({ tag: 'case', alts: [{ pattern: { pat: 'bool', value: true } }, { pattern: { pat: 'bool', value: false }, body: { tag: 'throw' } }] });
    if (precond.tag !== 'case' || precond.scrut.tag !== 'app' || precond.scrut.fun.tag !== 'val') throw new Error('unexpected shape');
    const ensure = mod.values.get(precond.scrut.fun.ref.name)!;
    const lits = exprsUnder(ensure.expr).flatMap((e) => (e.tag === 'lit' ? [e.value] : []));
    expect(lits).toContainEqual({ lit: 'numeric', scale: 10, unscaled: 0n });
    expect(exprsUnder(ensure.expr)).toContainEqual({ tag: 'builtin', name: 'GREATER' });
  });

  it("decodes an interface choice's controllers: TransferFactory_Transfer is controlled by transfer.sender", () => {
    const ti = pkgs.get(TRANSFER_INSTRUCTION_V1)!.modules.get('Splice.Api.Token.TransferInstructionV1')!;
    const factory = ti.interfaces.get('TransferFactory')!;
    expect(factory.param).toBe('this');
    expect([...factory.methods.keys()].sort()).toEqual(['transferFactory_publicFetchImpl', 'transferFactory_transferImpl']);
    const choice = factory.choices.get('TransferFactory_Transfer')!;
    expect(choice.consuming).toBe(false);
    expect(choice.selfBinder).toBe('self');
    expect(choice.argBinder.name).toBe('arg');
    // (λ this arg. let ds1 = arg.transfer in toParties ds1.sender) this arg
    expect(choice.controllers).toMatchObject({
      tag: 'app',
      fun: { tag: 'abs', params: [{ name: 'this' }, { name: 'arg' }] },
      args: [{ tag: 'var', name: 'this' }, { tag: 'var', name: 'arg' }],
    });
    const fields = exprsUnder(choice.controllers).flatMap((e) => (e.tag === 'recProj' ? [e.field] : []));
    expect(fields.sort()).toEqual(['sender', 'transfer']);
    expect(choice.observers).toBeDefined();
    expect(choice.update).toMatchObject({ tag: 'app', fun: { tag: 'abs', params: [{ name: 'self' }, { name: 'this' }, { name: 'arg' }] } });
  });
});

// ---- a hand-written package with the rarer constructs --------------------------------------------

describe('decodeDamlPackage: a hand-written package', () => {
  const IMPORTED = 'a'.repeat(64);
  const INTERNED_PKG = 'b'.repeat(64);
  const b = new Lf2Builder();
  const importIdx = b.importPackage(IMPORTED);
  const M = 'Main.Sub';
  const T = b.ref(M, 'T');
  const R = b.ref(M, 'R');
  const V = b.ref(M, 'V');
  const En = b.ref(M, 'En');
  const I = b.ref(M, 'I');
  const I2 = b.ref(M, 'I2', importIdx);
  const tInt = b.tBuiltin(2);
  const tUnit = b.tIntern(b.tBuiltin(0));
  const tParty = b.tBuiltin(6);
  const tList = (t: ProtoWriter) => b.tBuiltin(10, t);
  const x = b.var('x');
  const sub = (...f: Array<[number, ProtoWriter | number]>) => {
    const w = new ProtoWriter();
    for (const [n, v] of f) (typeof v === 'number' ? w.uint(n, v) : w.message(n, v));
    return w;
  };
  const struct = (fields: Array<[string, ProtoWriter]>) => b.exprCase(12, sub(...fields.map(([n, e]): [number, ProtoWriter] => [1, b.fieldExpr(n, e)])));
  const shared = b.eIntern(b.text('interned'));

  const lits = struct([
    ['i', b.int64(-5n)],
    ['big', b.int64(-9223372036854775808n)],
    ['ts', b.timestamp(1_700_000_000_123_456n)],
    ['d', b.date(19_000)],
    ['t', b.text('héllo')],
    ['n1', b.numeric('1.50')],
    ['n2', b.numeric('-0.0000000001')],
    ['n3', b.numeric('0.')],
    ['n4', b.numeric('99999999999999999999999999999.999999999')],
    ['rm', b.roundingMode(6)],
    ['fc', b.failureCategory(1)],
    ['u', b.con(0)],
    ['f', b.con(1)],
    ['tr', b.con(2)],
  ]);
  const exprs = struct([
    ['recCon', b.exprCase(7, sub([1, b.tyConApp(R, [tInt])], [2, b.fieldExpr('f', b.int64(1n))]))],
    ['recProj', b.exprCase(8, sub([1, b.tyConApp(R)], [4, b.str('f')], [3, x]))],
    ['recUpd', b.exprCase(9, sub([1, b.tyConApp(R)], [2, b.str('f')], [3, x], [4, b.int64(2n)]))],
    ['variantCon', b.exprCase(10, sub([1, b.tyConApp(V, [tParty])], [2, b.str('Some_')], [3, x]))],
    ['enumCon', b.exprCase(11, sub([1, En], [2, b.str('Red')]))],
    ['structProj', b.exprCase(13, sub([1, b.str('a')], [2, x]))],
    ['structUpd', b.exprCase(14, sub([1, b.str('a')], [2, x], [3, b.con(0)]))],
    ['app', b.app(b.builtin(7), b.int64(1n), b.int64(2n))],
    ['tyApp', b.tyApp(b.builtin(2), tInt, b.tNat(10))],
    ['abs', b.abs([['p', tInt], ['q', tParty]], b.var('p'))],
    ['tyAbs', b.tyAbs(['a', 'n'], b.var('y'))],
    ['let', b.let([b.binding('l1', tInt, b.int64(1n)), b.binding('l2', tInt, b.var('l1'))], b.var('l2'))],
    ['nil', b.exprCase(21, sub([1, tInt]))],
    ['cons', b.exprCase(22, sub([1, tInt], [2, b.int64(1n)], [2, b.int64(2n)], [3, b.exprCase(21, sub([1, tInt]))]))],
    ['none', b.exprCase(25, sub([1, tInt]))],
    ['some', b.exprCase(26, sub([1, tInt], [2, x]))],
    ['toAny', b.exprCase(27, sub([1, tInt], [2, x]))],
    ['fromAny', b.exprCase(28, sub([1, tInt], [2, x]))],
    ['typeRep', b.exprCase(29, b.tCon(R))],
    ['toAnyException', b.exprCase(30, sub([1, b.tCon(R)], [2, x]))],
    ['fromAnyException', b.exprCase(31, sub([1, b.tCon(R)], [2, x]))],
    ['throw', b.exprCase(32, sub([1, tInt], [2, b.tCon(R)], [3, x]))],
    ['experimental', b.exprCase(9999, new ProtoWriter().string(1, 'ANSWER').message(2, tInt))],
    ['interned1', shared],
    ['interned2', shared],
    ['unknownBuiltin', b.builtin(4242)],
    ['unknownCase', b.exprCase(77, 5)],
    ['located', b.located(12, 2, b.str('z'))],
    ['valImported', b.val('Dep.Mod', 'helper', importIdx)],
    ['valInterned', b.val('Dep.Mod', 'helper', INTERNED_PKG)],
    ['valSelf', b.val(M, 'lits')],
  ]);
  const ifaces = struct([
    ['toInterface', b.exprCase(33, sub([1, I], [2, T], [3, x]))],
    ['fromInterface', b.exprCase(34, sub([1, I], [2, T], [3, x]))],
    ['callInterface', b.exprCase(35, sub([1, I], [2, b.str('getAmount')], [3, x]))],
    ['signatoryInterface', b.exprCase(36, sub([1, I], [2, x]))],
    ['observerInterface', b.exprCase(37, sub([1, I], [2, x]))],
    ['viewInterface', b.exprCase(38, sub([1, I], [2, x]))],
    ['unsafeFromInterface', b.exprCase(39, sub([1, I], [2, T], [3, b.var('cid')], [4, x]))],
    ['interfaceTemplateTypeRep', b.exprCase(40, sub([1, I], [2, x]))],
    ['toRequiredInterface', b.exprCase(41, sub([1, I2], [2, I], [3, x]))],
    ['fromRequiredInterface', b.exprCase(42, sub([1, I2], [2, I], [3, x]))],
    ['unsafeFromRequiredInterface', b.exprCase(43, sub([1, I2], [2, I], [3, b.var('cid')], [4, x]))],
    ['choiceController', b.exprCase(1001, sub([1, T], [2, b.str('Transfer')], [3, x], [4, b.var('arg')]))],
    ['choiceObserver', b.exprCase(1002, sub([1, T], [2, b.str('Transfer')], [3, x], [4, b.var('arg')]))],
  ]);
  const cases = b.case(
    x,
    b.alt(3, sub([1, V], [2, b.str('Some_')], [3, b.str('v')]), b.var('v')),
    b.alt(9, sub([1, En], [2, b.str('Red')]), b.int64(1n)),
    b.alt(4, 0, b.int64(2n)),
    b.alt(4, 1, b.int64(3n)),
    b.alt(4, 2, b.int64(4n)),
    b.alt(5, new ProtoWriter(), b.int64(5n)),
    b.alt(6, sub([1, b.str('h')], [2, b.str('t')]), b.var('h')),
    b.alt(7, new ProtoWriter(), b.int64(6n)),
    b.alt(8, sub([1, b.str('s')]), b.var('s')),
    b.alt(2, new ProtoWriter(), b.int64(7n)),
  );
  const updates = struct([
    ['pure', b.update(1, sub([1, tInt], [2, x]))],
    ['block', b.update(2, b.block([b.binding('c', b.tBuiltin(8, b.tCon(T)), b.update(3, sub([1, T], [2, x])))], b.update(6, new ProtoWriter())))],
    ['create', b.update(3, sub([1, T], [2, x]))],
    ['exercise', b.update(4, sub([1, T], [6, b.str('Transfer')], [3, b.var('cid')], [5, b.var('arg')]))],
    ['exerciseByKey', b.update(10, sub([1, T], [2, b.str('Transfer')], [3, b.var('k')], [4, b.var('arg')]))],
    ['fetch', b.update(5, sub([1, T], [2, b.var('cid')]))],
    ['getTime', b.update(6, new ProtoWriter())],
    ['queryNByKey', b.update(16, sub([1, T]))],
    ['fetchByKey', b.update(9, sub([1, T]))],
    ['embedExpr', b.update(7, sub([1, tInt], [2, x]))],
    ['tryCatch', b.update(11, sub([1, tInt], [2, x], [3, b.str('e')], [4, b.var('e')]))],
    ['createInterface', b.update(12, sub([1, I], [2, x]))],
    ['exerciseInterface', b.update(13, sub([1, I], [2, b.str('Do')], [3, b.var('cid')], [4, b.var('arg')], [5, b.var('guard')]))],
    ['exerciseInterfaceNoGuard', b.update(13, sub([1, I], [2, b.str('Do')], [3, b.var('cid')], [4, b.var('arg')]))],
    ['fetchInterface', b.update(14, sub([1, I], [2, b.var('cid')]))],
    ['ledgerTimeLt', b.update(15, b.var('t'))],
    ['unknownUpdate', b.update(99, new ProtoWriter())],
  ]);

  const choice = (name: string, withObservers: boolean) =>
    sub(
      [1, b.location(30)],
      [2, b.str(name)],
      [3, 1],
      [4, b.app(b.val(M, 'ctrl'), b.var('this'), b.var('arg'))],
      ...(withObservers ? ([[5, b.exprCase(21, sub([1, tParty]))]] as Array<[number, ProtoWriter]>) : []),
      [6, b.varWithType('arg', b.tCon(R))],
      [8, tUnit],
      [9, b.update(1, sub([1, tUnit], [2, b.con(0)]))],
      [10, b.str('self')],
      [1001, b.exprCase(21, sub([1, tParty]))],
    );
  const template = sub(
    [1, b.dname('T')],
    [2, b.str('this')],
    [4, b.exprCase(21, sub([1, tParty]))],
    [6, choice('Transfer', true)],
    [6, choice('Quiet', false)],
    [7, b.exprCase(21, sub([1, tParty]))],
    [8, b.location(20, 'Other.Mod')],
    [9, sub([1, tParty], [3, b.var('maintainers')], [4, b.var('key')])],
    [10, sub([1, I], [2, sub([1, sub([1, b.str('getAmount')], [2, b.int64(42n)])], [2, b.var('view')])])],
  );
  const iface = sub(
    [1, b.location(40)],
    [2, b.dname('I')],
    [3, sub([2, b.str('getAmount')], [3, tInt])],
    [4, b.str('me')],
    [5, choice('Do', true)],
    [6, b.tCon(R)],
    [7, I2],
  );
  const exception = sub([1, b.dname('Ex')], [3, b.abs([['e', b.tCon(R)]], b.text('boom'))]);
  const synonym = sub([2, b.dname('Syn')], [3, sub([3, b.str('a')])], [4, tList(b.tVar('a'))]);
  const record = sub([2, b.dname('R')], [4, 1], [5, sub([1, sub([3, b.str('f')], [2, tInt])])]);
  const payload = b.payload(
    [
      b.module(M, {
        synonyms: [synonym],
        dataTypes: [record],
        values: [
          b.value('lits', tInt, lits, b.location(3)),
          b.value('exprs', tInt, exprs),
          b.value('ifaces', tInt, ifaces),
          b.value('cases', tInt, cases),
          b.value('updates', tInt, updates),
        ],
        templates: [template],
        exceptions: [exception],
        interfaces: [iface],
      }),
    ],
    { name: 'handcrafted', version: '0.0.1', minor: 'dev' },
  );
  const pkg = decodeDamlPackage('c'.repeat(64), payload);
  const mod = pkg.modules.get(M)!;
  const self = 'c'.repeat(64);
  const ref = (entityName: string, packageId = self, moduleName = M) => ({ packageId, moduleName, entityName });
  const fieldsOf = (name: string): Map<string, Expr> => {
    const e = mod.values.get(name)!.expr;
    if (e.tag !== 'structCon') throw new Error(`${name} is not a struct`);
    return new Map(e.fields.map((f) => [f.field, f.expr]));
  };

  it('reads the metadata, version and definitions', () => {
    expect(pkg).toMatchObject({ packageId: self, name: 'handcrafted', version: '0.0.1', lfVersion: '2.dev' });
    expect([...mod.values.keys()]).toEqual(['lits', 'exprs', 'ifaces', 'cases', 'updates']);
    expect(mod.values.get('lits')!.location).toEqual({ packageId: self, moduleName: M, startLine: 3, startCol: 2, endLine: 4, endCol: 4 });
    expect(mod.synonyms.get('Syn')).toEqual({ name: 'Syn', params: ['a'], type: { kind: 'builtin', name: 'List', args: [{ kind: 'var', name: 'a', args: [] }] } });
    expect(mod.dataTypes.get('R')).toMatchObject({ kind: 'record', fields: [{ name: 'f' }] });
    expect(mod.exceptions.get('Ex')).toEqual({ tycon: ref('Ex'), message: { tag: 'abs', params: [{ name: 'e', type: { kind: 'con', tycon: ref('R'), args: [] } }], body: { tag: 'lit', value: { lit: 'text', value: 'boom' } } } });
  });

  it('decodes every literal; a numeric literal keeps its written scale', () => {
    const f = fieldsOf('lits');
    const lit = (n: string) => f.get(n);
    expect(lit('i')).toEqual({ tag: 'lit', value: { lit: 'int64', value: -5n } });
    expect(lit('big')).toEqual({ tag: 'lit', value: { lit: 'int64', value: -9223372036854775808n } });
    expect(lit('ts')).toEqual({ tag: 'lit', value: { lit: 'timestamp', micros: 1_700_000_000_123_456n } });
    expect(lit('d')).toEqual({ tag: 'lit', value: { lit: 'date', days: 19_000 } });
    expect(lit('t')).toEqual({ tag: 'lit', value: { lit: 'text', value: 'héllo' } });
    expect(lit('n1')).toEqual({ tag: 'lit', value: { lit: 'numeric', scale: 2, unscaled: 150n } });
    expect(lit('n2')).toEqual({ tag: 'lit', value: { lit: 'numeric', scale: 10, unscaled: -1n } });
    expect(lit('n3')).toEqual({ tag: 'lit', value: { lit: 'numeric', scale: 0, unscaled: 0n } });
    expect(lit('n4')).toEqual({ tag: 'lit', value: { lit: 'numeric', scale: 9, unscaled: 99999999999999999999999999999999999999n } });
    expect(lit('rm')).toEqual({ tag: 'lit', value: { lit: 'roundingMode', value: 'HALF_EVEN' } });
    expect(lit('fc')).toEqual({ tag: 'lit', value: { lit: 'failureCategory', value: 'INVALID_GIVEN_CURRENT_SYSTEM_STATE_OTHER' } });
    expect(lit('u')).toEqual({ tag: 'unit' });
    expect(lit('f')).toEqual({ tag: 'bool', value: false });
    expect(lit('tr')).toEqual({ tag: 'bool', value: true });
  });

  it('decodes the expression cases', () => {
    const f = fieldsOf('exprs');
    const tInt64 = { kind: 'builtin', name: 'Int64', args: [] };
    const X = { tag: 'var', name: 'x' };
    expect(f.get('recCon')).toEqual({ tag: 'recCon', tycon: ref('R'), typeArgs: [tInt64], fields: [{ field: 'f', expr: { tag: 'lit', value: { lit: 'int64', value: 1n } } }] });
    expect(f.get('recProj')).toEqual({ tag: 'recProj', tycon: ref('R'), field: 'f', record: X });
    expect(f.get('recUpd')).toEqual({ tag: 'recUpd', tycon: ref('R'), field: 'f', record: X, update: { tag: 'lit', value: { lit: 'int64', value: 2n } } });
    expect(f.get('variantCon')).toMatchObject({ tag: 'variantCon', tycon: ref('V'), typeArgs: [{ name: 'Party' }], constructor: 'Some_', arg: X });
    expect(f.get('enumCon')).toEqual({ tag: 'enumCon', tycon: ref('En'), constructor: 'Red' });
    expect(f.get('structProj')).toEqual({ tag: 'structProj', field: 'a', struct: X });
    expect(f.get('structUpd')).toEqual({ tag: 'structUpd', field: 'a', struct: X, update: { tag: 'unit' } });
    expect(f.get('app')).toMatchObject({ tag: 'app', fun: { tag: 'builtin', name: 'ADD_INT64' }, args: [{ tag: 'lit' }, { tag: 'lit' }] });
    expect(f.get('tyApp')).toEqual({ tag: 'tyApp', expr: { tag: 'builtin', name: 'EQUAL' }, types: [tInt64, { kind: 'nat', value: 10 }] });
    expect(f.get('abs')).toMatchObject({ tag: 'abs', params: [{ name: 'p', type: tInt64 }, { name: 'q', type: { name: 'Party' } }], body: { tag: 'var', name: 'p' } });
    expect(f.get('tyAbs')).toEqual({ tag: 'tyAbs', params: ['a', 'n'], body: { tag: 'var', name: 'y' } });
    expect(f.get('let')).toMatchObject({ tag: 'let', bindings: [{ name: 'l1', type: tInt64 }, { name: 'l2', bound: { tag: 'var', name: 'l1' } }], body: { tag: 'var', name: 'l2' } });
    expect(f.get('nil')).toEqual({ tag: 'nil', type: tInt64 });
    expect(f.get('cons')).toMatchObject({ tag: 'cons', type: tInt64, front: [{ tag: 'lit' }, { tag: 'lit' }], tail: { tag: 'nil' } });
    expect(f.get('none')).toEqual({ tag: 'none', type: tInt64 });
    expect(f.get('some')).toEqual({ tag: 'some', type: tInt64, value: X });
    expect(f.get('toAny')).toEqual({ tag: 'toAny', type: tInt64, expr: X });
    expect(f.get('fromAny')).toEqual({ tag: 'fromAny', type: tInt64, expr: X });
    expect(f.get('typeRep')).toEqual({ tag: 'typeRep', type: { kind: 'con', tycon: ref('R'), args: [] } });
    expect(f.get('toAnyException')).toMatchObject({ tag: 'toAnyException', type: { kind: 'con' }, expr: X });
    expect(f.get('fromAnyException')).toMatchObject({ tag: 'fromAnyException', type: { kind: 'con' }, expr: X });
    expect(f.get('throw')).toEqual({ tag: 'throw', returnType: tInt64, exceptionType: { kind: 'con', tycon: ref('R'), args: [] }, expr: X });
    expect(f.get('experimental')).toEqual({ tag: 'experimental', name: 'ANSWER', type: tInt64 });
    expect(f.get('located')).toEqual({ tag: 'var', name: 'z' });
    expect(f.get('valImported')).toEqual({ tag: 'val', ref: { packageId: IMPORTED, moduleName: 'Dep.Mod', name: 'helper' } });
    expect(f.get('valInterned')).toEqual({ tag: 'val', ref: { packageId: INTERNED_PKG, moduleName: 'Dep.Mod', name: 'helper' } });
    expect(f.get('valSelf')).toEqual({ tag: 'val', ref: { packageId: self, moduleName: M, name: 'lits' } });
  });

  it('decodes an interned expression once and shares it', () => {
    const f = fieldsOf('exprs');
    expect(f.get('interned1')).toEqual({ tag: 'lit', value: { lit: 'text', value: 'interned' } });
    expect(f.get('interned2')).toBe(f.get('interned1'));
  });

  it('decodes an unknown builtin, expression or update case, failing only when evaluated', () => {
    const f = fieldsOf('exprs');
    const unit = { kind: 'builtin', name: 'Unit', args: [] };
    expect(f.get('unknownBuiltin')).toEqual({ tag: 'experimental', name: 'BuiltinFunction 4242', type: unit });
    expect(f.get('unknownCase')).toEqual({ tag: 'experimental', name: 'Expr case 77', type: unit });
    expect(fieldsOf('updates').get('unknownUpdate')).toEqual({ tag: 'experimental', name: 'Update case 99', type: unit });
  });

  it('decodes the interface expressions', () => {
    const f = fieldsOf('ifaces');
    const X = { tag: 'var', name: 'x' };
    const cid = { tag: 'var', name: 'cid' };
    const i2 = ref('I2', IMPORTED);
    expect(f.get('toInterface')).toEqual({ tag: 'toInterface', iface: ref('I'), template: ref('T'), expr: X });
    expect(f.get('fromInterface')).toEqual({ tag: 'fromInterface', iface: ref('I'), template: ref('T'), expr: X });
    expect(f.get('callInterface')).toEqual({ tag: 'callInterface', iface: ref('I'), method: 'getAmount', expr: X });
    expect(f.get('signatoryInterface')).toEqual({ tag: 'signatoryInterface', iface: ref('I'), expr: X });
    expect(f.get('observerInterface')).toEqual({ tag: 'observerInterface', iface: ref('I'), expr: X });
    expect(f.get('viewInterface')).toEqual({ tag: 'viewInterface', iface: ref('I'), expr: X });
    expect(f.get('unsafeFromInterface')).toEqual({ tag: 'unsafeFromInterface', iface: ref('I'), template: ref('T'), cid, expr: X });
    expect(f.get('interfaceTemplateTypeRep')).toEqual({ tag: 'interfaceTemplateTypeRep', iface: ref('I'), expr: X });
    expect(f.get('toRequiredInterface')).toEqual({ tag: 'toRequiredInterface', required: i2, requiring: ref('I'), expr: X });
    expect(f.get('fromRequiredInterface')).toEqual({ tag: 'fromRequiredInterface', required: i2, requiring: ref('I'), expr: X });
    expect(f.get('unsafeFromRequiredInterface')).toEqual({ tag: 'unsafeFromRequiredInterface', required: i2, requiring: ref('I'), cid, expr: X });
    const arg = { tag: 'var', name: 'arg' };
    expect(f.get('choiceController')).toEqual({ tag: 'choiceController', template: ref('T'), choice: 'Transfer', contract: X, choiceArg: arg });
    expect(f.get('choiceObserver')).toEqual({ tag: 'choiceObserver', template: ref('T'), choice: 'Transfer', contract: X, choiceArg: arg });
  });

  it('decodes every case pattern', () => {
    const c = mod.values.get('cases')!.expr;
    if (c.tag !== 'case') throw new Error('not a case');
    expect(c.scrut).toEqual({ tag: 'var', name: 'x' });
    const patterns: CasePattern[] = [
      { pat: 'variant', tycon: ref('V'), constructor: 'Some_', binder: 'v' },
      { pat: 'enum', tycon: ref('En'), constructor: 'Red' },
      { pat: 'unit' },
      { pat: 'bool', value: false },
      { pat: 'bool', value: true },
      { pat: 'nil' },
      { pat: 'cons', head: 'h', tail: 't' },
      { pat: 'none' },
      { pat: 'some', binder: 's' },
      { pat: 'default' },
    ];
    expect(c.alts.map((a) => a.pattern)).toEqual(patterns);
    expect(c.alts[6]!.body).toEqual({ tag: 'var', name: 'h' });
  });

  it('decodes every update case', () => {
    const f = fieldsOf('updates');
    const u = (name: string) => {
      const e = f.get(name)!;
      if (e.tag !== 'update') throw new Error(`${name} is not an update`);
      return e.update;
    };
    const X = { tag: 'var', name: 'x' };
    const cid = { tag: 'var', name: 'cid' };
    const arg = { tag: 'var', name: 'arg' };
    expect(u('pure')).toEqual({ tag: 'pure', type: { kind: 'builtin', name: 'Int64', args: [] }, expr: X });
    expect(u('block')).toMatchObject({ tag: 'block', bindings: [{ name: 'c', bound: { tag: 'update', update: { tag: 'create' } } }], body: { tag: 'update', update: { tag: 'getTime' } } });
    expect(u('create')).toEqual({ tag: 'create', template: ref('T'), expr: X });
    expect(u('exercise')).toEqual({ tag: 'exercise', template: ref('T'), choice: 'Transfer', cid, arg });
    expect(u('exerciseByKey')).toEqual({ tag: 'exerciseByKey', template: ref('T'), choice: 'Transfer', key: { tag: 'var', name: 'k' }, arg });
    expect(u('fetch')).toEqual({ tag: 'fetch', template: ref('T'), cid });
    expect(u('getTime')).toEqual({ tag: 'getTime' });
    expect(u('queryNByKey')).toEqual({ tag: 'queryNByKey', template: ref('T') });
    expect(u('fetchByKey')).toEqual({ tag: 'fetchByKey', template: ref('T') });
    expect(u('embedExpr')).toEqual({ tag: 'embedExpr', type: { kind: 'builtin', name: 'Int64', args: [] }, expr: X });
    expect(u('tryCatch')).toEqual({ tag: 'tryCatch', returnType: { kind: 'builtin', name: 'Int64', args: [] }, tryExpr: X, binder: 'e', catchExpr: { tag: 'var', name: 'e' } });
    expect(u('createInterface')).toEqual({ tag: 'createInterface', iface: ref('I'), expr: X });
    expect(u('exerciseInterface')).toEqual({ tag: 'exerciseInterface', iface: ref('I'), choice: 'Do', cid, arg, guard: { tag: 'var', name: 'guard' } });
    expect(u('exerciseInterfaceNoGuard')).toEqual({ tag: 'exerciseInterface', iface: ref('I'), choice: 'Do', cid, arg });
    expect(u('fetchInterface')).toEqual({ tag: 'fetchInterface', iface: ref('I'), cid });
    expect(u('ledgerTimeLt')).toEqual({ tag: 'ledgerTimeLt', expr: { tag: 'var', name: 't' } });
  });

  it('decodes a template: default precondition, choices (authorizers, optional observers), key, interface instance', () => {
    const t = mod.templates.get('T')!;
    expect(t.tycon).toEqual(ref('T'));
    expect(t.param).toBe('this');
    expect(t.precond).toEqual({ tag: 'bool', value: true });
    expect(t.signatories).toMatchObject({ tag: 'nil' });
    expect(t.observers).toMatchObject({ tag: 'nil' });
    expect(t.location).toEqual({ packageId: self, moduleName: 'Other.Mod', startLine: 20, startCol: 2, endLine: 21, endCol: 4 });
    expect(t.key).toEqual({ type: { kind: 'builtin', name: 'Party', args: [] }, body: { tag: 'var', name: 'key' }, maintainers: { tag: 'var', name: 'maintainers' } });
    expect([...t.choices.keys()]).toEqual(['Transfer', 'Quiet']);
    const transfer = t.choices.get('Transfer')!;
    expect(transfer).toMatchObject({
      name: 'Transfer',
      consuming: true,
      controllers: { tag: 'app', fun: { tag: 'val', ref: { name: 'ctrl' } } },
      observers: { tag: 'nil' },
      authorizers: { tag: 'nil' },
      selfBinder: 'self',
      argBinder: { name: 'arg', type: { kind: 'con', tycon: ref('R') } },
      returnType: { kind: 'builtin', name: 'Unit' },
      update: { tag: 'update', update: { tag: 'pure' } },
      location: { startLine: 30, moduleName: M },
    });
    expect(t.choices.get('Quiet')!.observers).toBeUndefined();
    const inst = t.implements.get(`${self}:${M}:I`)!;
    expect(inst.iface).toEqual(ref('I'));
    expect(inst.methods.get('getAmount')).toEqual({ tag: 'lit', value: { lit: 'int64', value: 42n } });
    expect(inst.view).toEqual({ tag: 'var', name: 'view' });
  });

  it('decodes an interface: parameter, methods, choices, view, requires', () => {
    const i = mod.interfaces.get('I')!;
    expect(i).toMatchObject({ tycon: ref('I'), param: 'me', view: { kind: 'con', tycon: ref('R') }, requires: [`${IMPORTED}:${M}:I2`] });
    expect(i.methods.get('getAmount')).toEqual({ name: 'getAmount', type: { kind: 'builtin', name: 'Int64', args: [] } });
    expect([...i.choices.keys()]).toEqual(['Do']);
    expect(i.location?.startLine).toBe(40);
  });
});

describe('decodeDamlPackage: malformed input', () => {
  const build = (expr: (b: Lf2Builder) => ProtoWriter) => {
    const b = new Lf2Builder();
    return b.payload([b.module('M', { values: [b.value('v', b.tBuiltin(2), expr(b))] })]);
  };

  it('rejects a bad numeric literal, a dangling interned index, an expression without a case', () => {
    expect(() => decodeDamlPackage('d'.repeat(64), build((b) => b.numeric('1.5e3')))).toThrow(LfDecodeError);
    expect(() => decodeDamlPackage('d'.repeat(64), build((b) => b.numeric('01.5')))).toThrow(/Could not read Numeric string "01.5"/);
    expect(() => decodeDamlPackage('d'.repeat(64), build((b) => b.exprCase(44, 3)))).toThrow(/invalid interned expression index 3/);
    expect(() => decodeDamlPackage('d'.repeat(64), build(() => new ProtoWriter()))).toThrow(/expression without a case/);
  });

  it('refuses expressions nested deeper than it decodes, with a decode error rather than a stack overflow', () => {
    const nest = (depth: number) => (b: Lf2Builder) => {
      let e = b.var('x');
      for (let i = 0; i < depth; i++) e = b.exprCase(26, new ProtoWriter().message(1, b.tBuiltin(2)).message(2, e));
      return e;
    };
    const ok = decodeDamlPackageWithStats('d'.repeat(64), build(nest(500)));
    expect(ok.stats.maxExprDepth).toBe(501);
    expect(() => decodeDamlPackage('d'.repeat(64), build(nest(1200)))).toThrow(/nested deeper than 1000/);
  });
});

describe('decodeDamlPackage: packages of the test DAR builder', () => {
  it('decodes them fully (their expressions are placeholder text literals)', () => {
    const dalf = buildDalf({
      name: 'asset-model',
      version: '1.0.0',
      modules: [{ name: 'Main', templates: [{ name: 'Asset', fields: [['owner', 'Party']], choices: [{ name: 'Give', arg: [['to', 'Party']] }], key: 'Party' }] }],
    });
    const t = decodeDamlPackage(dalf.packageId, dalf.payload).modules.get('Main')!.templates.get('Asset')!;
    expect(t.signatories).toEqual({ tag: 'lit', value: { lit: 'text', value: 'signatories' } });
    expect(t.choices.get('Give')!.controllers).toEqual({ tag: 'lit', value: { lit: 'text', value: 'controllers' } });
    expect(t.key?.maintainers).toEqual({ tag: 'lit', value: { lit: 'text', value: 'maintainers' } });
  });
});

describe('decodeDamlPackage: lazy value bodies', () => {
  it('decodes the same package, value bodies on first read', () => {
    const p = decodeDar(readFileSync(`${DARS}/splice-test-token-v1-1.0.0.dar`)).packages[0]!;
    const eager = decodeDamlPackage(p.packageId, p.payload);
    const lazy = decodeDamlPackageWithStats(p.packageId, p.payload, { lazy: true });
    const sig = lazy.pkg.modules.get('Splice.Testing.Tokens.TestTokenV1')!.values.get('$$csignatory2')!;
    expect(lazy.stats.exprCount).toBeLessThan(decodeDamlPackageWithStats(p.packageId, p.payload).stats.exprCount / 2);
    expect(sig.expr).toMatchObject({ tag: 'abs', params: [{ name: 'this' }] });
    expect(sig.expr).toBe(sig.expr);
    expect({ ...sig }.expr).toBe(sig.expr);
    expect(lazy.pkg).toEqual(eager);
  });

  it('reports a malformed body when it is read', () => {
    const b = new Lf2Builder();
    const payload = b.payload([b.module('M', { values: [b.value('bad', b.tBuiltin(2), b.numeric('1e5'))] })]);
    const pkg = decodeDamlPackage('e'.repeat(64), payload, { lazy: true });
    expect(() => pkg.modules.get('M')!.values.get('bad')!.expr).toThrow(LfDecodeError);
    expect(() => decodeDamlPackage('e'.repeat(64), payload)).toThrow(LfDecodeError);
  });
});
