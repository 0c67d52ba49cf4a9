/**
 * Hand-written Daml-LF 2 packages for decoder and evaluator tests: protobuf messages built by the
 * field numbers of `daml_lf2.proto`, with the package's interning tables (strings, dotted names,
 * types, expressions, imports) filled as the builders are called.
 *
 *   const b = new Lf2Builder();
 *   const body = b.app(b.builtin(7), b.int64(1n), b.int64(2n)); // ADD_INT64 1 2
 *   const payload = b.payload([b.module('M', { values: [b.value('three', b.tBuiltin(2), body)] })]);
 *
 * Everything is a `ProtoWriter` message; nothing is checked: malformed input is easy to write on purpose.
 */
import { ProtoWriter } from '../../src/emulator/shared/protobuf-writer.js';
import { Lf2InterningTables } from './lf2-interning.js';

type W = ProtoWriter;

function msg(build: (w: W) => void): W {
  const w = new ProtoWriter();
  build(w);
  return w;
}

export interface ModuleParts {
  synonyms?: W[];
  dataTypes?: W[];
  values?: W[];
  templates?: W[];
  exceptions?: W[];
  interfaces?: W[];
}

export class Lf2Builder extends Lf2InterningTables {
  private readonly internedTypes: W[] = [];
  private readonly internedExprs: W[] = [];
  private readonly imports: string[] = [];

  /** Adds a package id to `package_imports` (2.dev), returning its index. */
  importPackage(id: string): number {
    return this.imports.push(id) - 1;
  }

  // ---- references ------------------------------------------------------------------------------

  /** `ModuleId`: `pkg` undefined = self, a string = interned package id, a number = import index. */
  moduleId(moduleName: string, pkg?: string | number): W {
    return msg((m) => {
      m.message(
        1,
        msg((p) => {
          if (pkg === undefined) p.message(1, new ProtoWriter());
          else if (typeof pkg === 'string') p.uint(3, this.str(pkg));
          else p.uint(4, pkg);
        }),
      );
      m.uint(2, this.dname(moduleName));
    });
  }

  /** `TypeConId` / `ValueId` (same shape). */
  ref(moduleName: string, name: string, pkg?: string | number): W {
    return msg((r) => r.message(1, this.moduleId(moduleName, pkg)).uint(2, this.dname(name)));
  }

  // ---- types -----------------------------------------------------------------------------------

  tBuiltin(code: number, ...args: W[]): W {
    return msg((t) => t.message(3, msg((b) => (b.uint(1, code), args.forEach((a) => b.message(2, a))))));
  }
  tCon(tycon: W, ...args: W[]): W {
    return msg((t) => t.message(2, this.tyConApp(tycon, args)));
  }
  tVar(name: string): W {
    return msg((t) => t.message(1, msg((v) => v.uint(3, this.str(name)))));
  }
  tNat(n: number): W {
    return msg((t) => t.sint64(6, BigInt(n)));
  }
  /** Puts `t` in `interned_types`, returning the `{ interned_type }` reference. */
  tIntern(t: W): W {
    const i = this.internedTypes.push(t) - 1;
    return msg((r) => r.uint(8, i));
  }
  tyConApp(tycon: W, args: W[] = []): W {
    return msg((c) => (c.message(1, tycon), args.forEach((a) => c.message(2, a))));
  }

  // ---- expressions -----------------------------------------------------------------------------

  private e(field: number, body: W | number): W {
    return msg((x) => (typeof body === 'number' ? x.uint(field, body) : x.message(field, body)));
  }
  var(name: string): W {
    return this.e(2, this.str(name));
  }
  val(moduleName: string, name: string, pkg?: string | number): W {
    return this.e(3, this.ref(moduleName, name, pkg));
  }
  builtin(code: number): W {
    return this.e(4, code);
  }
  /** BuiltinCon: 0 unit, 1 false, 2 true. */
  con(code: number): W {
    return this.e(5, code);
  }
  int64(n: bigint): W {
    return this.e(6, msg((l) => l.sint64(1, n)));
  }
  timestamp(micros: bigint): W {
    return this.e(6, msg((l) => l.sfixed64(2, micros)));
  }
  numeric(text: string): W {
    return this.e(6, msg((l) => l.uint(3, this.str(text))));
  }
  text(s: string): W {
    return this.e(6, msg((l) => l.uint(4, this.str(s))));
  }
  date(days: number): W {
    return this.e(6, msg((l) => l.uint(5, days)));
  }
  failureCategory(code: number): W {
    return this.e(6, msg((l) => l.uint(6, code)));
  }
  roundingMode(code: number): W {
    return this.e(6, msg((l) => l.uint(1001, code)));
  }
  /** Any `Expr.Sum` case by field number, for the cases without a dedicated builder. */
  exprCase(field: number, body: W | number): W {
    return this.e(field, body);
  }
  /** The `Expr.Sum` case `field` with an `Expr.location` (field 1) before it, as serialisers write it. */
  located(line: number, field: number, body: W | number): W {
    return msg((x) => {
      x.message(1, this.location(line));
      if (typeof body === 'number') x.uint(field, body);
      else x.message(field, body);
    });
  }
  fieldExpr(name: string, expr: W): W {
    return msg((f) => f.uint(3, this.str(name)).message(2, expr));
  }
  app(fun: W, ...args: W[]): W {
    return this.e(15, msg((a) => (a.message(1, fun), args.forEach((x) => a.message(2, x)))));
  }
  tyApp(expr: W, ...types: W[]): W {
    return this.e(16, msg((a) => (a.message(1, expr), types.forEach((t) => a.message(2, t)))));
  }
  varWithType(name: string, type: W): W {
    return msg((v) => v.uint(3, this.str(name)).message(2, type));
  }
  abs(params: Array<[string, W]>, body: W): W {
    return this.e(17, msg((a) => (params.forEach(([n, t]) => a.message(1, this.varWithType(n, t))), a.message(2, body))));
  }
  tyAbs(params: string[], body: W): W {
    const star = msg((k) => k.message(1, new ProtoWriter()));
    return this.e(
      18,
      msg((a) => (params.forEach((n) => a.message(1, msg((p) => p.uint(3, this.str(n)).message(2, star)))), a.message(2, body))),
    );
  }
  binding(name: string, type: W, bound: W): W {
    return msg((b) => b.message(1, this.varWithType(name, type)).message(2, bound));
  }
  block(bindings: W[], body: W): W {
    return msg((b) => (bindings.forEach((x) => b.message(1, x)), b.message(2, body)));
  }
  let(bindings: W[], body: W): W {
    return this.e(20, this.block(bindings, body));
  }
  case(scrut: W, ...alts: W[]): W {
    return this.e(19, msg((c) => (c.message(1, scrut), alts.forEach((a) => c.message(2, a)))));
  }
  /** `CaseAlt` with pattern field `patField` (2 default, 3 variant, 4 builtin con, 5 nil, 6 cons, 7 none, 8 some, 9 enum). */
  alt(patField: number, pat: W | number, body: W): W {
    return msg((a) => {
      a.message(1, body);
      if (typeof pat === 'number') a.uint(patField, pat);
      else a.message(patField, pat);
    });
  }
  update(field: number, body: W): W {
    return this.e(23, msg((u) => u.message(field, body)));
  }
  /** Puts `e` in `interned_exprs` (2.dev), returning the `{ interned_expr }` reference. */
  eIntern(e: W): W {
    const i = this.internedExprs.push(e) - 1;
    return this.e(44, i);
  }

  // ---- definitions -----------------------------------------------------------------------------

  location(line: number, moduleName?: string): W {
    return msg((l) => {
      if (moduleName !== undefined) l.message(1, this.moduleId(moduleName));
      l.message(2, msg((r) => r.uint(1, line).uint(2, 2).uint(3, line + 1).uint(4, 4)));
    });
  }
  value(name: string, type: W, expr: W, location?: W): W {
    return msg((v) => {
      if (location) v.message(1, location);
      v.message(2, msg((nt) => nt.uint(1, this.dname(name)).message(2, type)));
      v.message(3, expr);
    });
  }
  module(name: string, parts: ModuleParts): W {
    return msg((m) => {
      m.uint(1, this.dname(name));
      for (const x of parts.synonyms ?? []) m.message(3, x);
      for (const x of parts.dataTypes ?? []) m.message(4, x);
      for (const x of parts.values ?? []) m.message(5, x);
      for (const x of parts.templates ?? []) m.message(6, x);
      for (const x of parts.exceptions ?? []) m.message(7, x);
      for (const x of parts.interfaces ?? []) m.message(8, x);
    });
  }

  /** The `ArchivePayload` of a package with these modules (LF `2.<minor>`). */
  payload(modules: W[], opts: { name?: string; version?: string; minor?: string } = {}): Buffer {
    const meta = msg((m) => m.uint(1, this.str(opts.name ?? 'handcrafted')).uint(2, this.str(opts.version ?? '1.0.0')));
    const pkg = new ProtoWriter();
    for (const m of modules) pkg.message(1, m);
    for (const s of this.strings) pkg.string(2, s);
    for (const d of this.dnames) pkg.message(3, msg((dn) => dn.packed(1, d)));
    pkg.message(4, meta);
    for (const t of this.internedTypes) pkg.message(5, t);
    for (const e of this.internedExprs) pkg.message(7, e);
    if (this.imports.length > 0) pkg.message(9, msg((i) => this.imports.forEach((id) => i.string(1, id))));
    return new ProtoWriter().string(3, opts.minor ?? 'dev').message(4, pkg).finish();
  }
}
