/**
 * `Expr` of daml_lf2.proto: variables, value references, builtins and literals, records,
 * variants, enums, structs, applications and abstractions, case, let, lists, optionals, `Any`,
 * type representations and exceptions. Updates (`Expr.update`) and the interface expressions
 * have their own modules (updates.ts, interface-exprs.ts), types theirs (types.ts).
 *
 * Expression locations (`Expr.location`) are dropped. Nesting deeper than `MAX_EXPR_DEPTH` is
 * refused (an `LfDecodeError`, never a stack overflow).
 */
import { LfDecodeError, type Lf2Context } from '../../dar/lf2.js';
import { Msg } from '../../shared/lf-reader.js';
import type { Binding, CaseAlt, CasePattern, Expr, FieldExpr } from '../ast.js';
import { builtinCon, builtinFunction, builtinLiteral } from './builtins.js';
import { unknownConstruct, type ExprReader } from './expr-reader.js';
import { decodeInterfaceExpr } from './interface-exprs.js';
import type { InternedExprTable } from './interned-exprs.js';
import { UNIT_TYPE, type TypeReader } from './types.js';
import { decodeUpdate } from './updates.js';


/**
 * How deep `Expr` messages may nest before decoding gives up with an `LfDecodeError` rather than
 * overflowing the JS stack (each level costs a few frames; Node's default stack holds about 1,400
 * levels). The Splice DARs nest at most 46 deep.
 */
const MAX_EXPR_DEPTH = 1000;

export class ExprDecoder implements ExprReader {
  /** The deepest nesting of `Expr` messages met so far. */
  maxDepth = 0;
  /** How many `Expr` messages were decoded so far. */
  exprCount = 0;
  private depth = 0;

  constructor(
    readonly ctx: Lf2Context,
    readonly types: TypeReader,
    private readonly interned: InternedExprTable,
  ) {}

  /** `exprF` for a lazily decoded body: run later, from a fresh stack, with the stack-overflow guard. */
  lazyExpr(p: Msg, field: number): Expr {
    try {
      return this.exprF(p, field);
    } catch (e) {
      if (e instanceof RangeError) throw new LfDecodeError(`expression nested too deeply to decode (${e.message})`);
      throw e;
    }
  }

  /** The required `Expr` field `field` of `p`. */
  exprF(p: Msg, field: number): Expr {
    const i = p.last(field);
    if (i < 0) throw new LfDecodeError('missing expression');
    if (p.f[i + 1] !== 2) throw new LfDecodeError(`expression field ${field} is not a message`);
    return this.exprAt(p.buf, p.f[i + 2]!, p.f[i + 3]!);
  }

  /** The repeated `Expr` field `field` of `p`. */
  private exprsF(p: Msg, field: number): Expr[] {
    const out: Expr[] = [];
    const f = p.f;
    for (let i = 0; i < f.length; i += 4) {
      if (f[i] !== field) continue;
      if (f[i + 1] !== 2) throw new LfDecodeError(`expression field ${field} is not a message`);
      out.push(this.exprAt(p.buf, f[i + 2]!, f[i + 3]!));
    }
    return out;
  }

  /**
   * The `Expr` message in `buf[start, end)`. Its case is found by scanning its keys in place
   * (skipping `location = 1`), so only the case's own payload gets a reader.
   */
  exprAt(buf: Buffer, start: number, end: number): Expr {
    this.exprCount++;
    if (++this.depth > this.maxDepth) {
      this.maxDepth = this.depth;
      if (this.depth > MAX_EXPR_DEPTH) throw new LfDecodeError(`expression nested deeper than ${MAX_EXPR_DEPTH}`);
    }
    try {
      let pos = start;
      while (pos < end) {
        let key = 0;
        let shift = 0;
        let b: number;
        do {
          b = buf[pos++]!;
          key |= (b & 0x7f) << shift;
          shift += 7;
        } while (b & 0x80 && pos < end);
        const field = key >>> 3;
        const wire = key & 7;
        // The varint value (int32 cases) or the length of the payload (message cases).
        let v = 0;
        shift = 0;
        if (wire === 0 || wire === 2) {
          do {
            if (pos >= end) throw new LfDecodeError('truncated expression');
            b = buf[pos++]!;
            if (wire === 2) v += (b & 0x7f) * 2 ** shift;
            else if (shift < 32) v |= (b & 0x7f) << shift;
            shift += 7;
          } while (b & 0x80);
        } else throw new LfDecodeError(`expression field ${field} has wire type ${wire}`);
        if (wire === 2 && v > end - pos) throw new LfDecodeError('truncated expression');
        if (field === 1) {
          // Expr.location: dropped (definitions keep theirs).
          if (wire === 2) pos += v;
          continue;
        }
        if (wire === 0) return this.exprCase(field, v | 0, undefined);
        return this.exprCase(field, 0, Msg.range(buf, pos, pos + v));
      }
      throw new LfDecodeError('expression without a case');
    } finally {
      this.depth--;
    }
  }

  /** The `Expr.Sum` case `field`: its int32 value `v` or its message `body`. */
  private exprCase(field: number, v: number, body: Msg | undefined): Expr {
    const need = (): Msg => {
      if (!body) throw new LfDecodeError(`expression case ${field} is not a message`);
      return body;
    };
    const ctx = this.ctx;
    switch (field) {
      case 2:
        return { tag: 'var', name: ctx.str(v) };
      case 3: {
        // ValueId { module 1, name_interned_dname 2 }
        const v = need();
        const mod = v.msg(1);
        if (!mod) throw new LfDecodeError('value reference without module');
        return { tag: 'val', ref: { ...this.types.moduleId(mod), name: ctx.dname(v.int32(2)) } };
      }
      case 4:
        return builtinFunction(v);
      case 5:
        return builtinCon(v);
      case 6:
        return builtinLiteral(ctx, need().asProto());
      case 7: {
        // RecCon { tycon 1 (Type.Con), fields 2 }
        const r = need();
        const { tycon, args } = this.types.tyconApp(r.msg(1));
        return { tag: 'recCon', tycon, typeArgs: args, fields: this.fieldExprs(r.msgs(2)) };
      }
      case 8: {
        // RecProj { tycon 1, field 4, record 3 }
        const r = need();
        return { tag: 'recProj', tycon: this.types.tyconApp(r.msg(1)).tycon, field: ctx.str(r.int32(4)), record: this.exprF(r, 3) };
      }
      case 9: {
        // RecUpd { tycon 1, field 2, record 3, update 4 }
        const r = need();
        return {
          tag: 'recUpd',
          tycon: this.types.tyconApp(r.msg(1)).tycon,
          field: ctx.str(r.int32(2)),
          record: this.exprF(r, 3),
          update: this.exprF(r, 4),
        };
      }
      case 10: {
        // VariantCon { tycon 1, variant_con 2, variant_arg 3 }
        const v = need();
        const { tycon, args } = this.types.tyconApp(v.msg(1));
        return { tag: 'variantCon', tycon, typeArgs: args, constructor: ctx.str(v.int32(2)), arg: this.exprF(v, 3) };
      }
      case 11: {
        // EnumCon { tycon 1 (TypeConId), enum_con 2 }
        const e = need();
        return { tag: 'enumCon', tycon: this.types.typeConId(e.msg(1)), constructor: ctx.str(e.int32(2)) };
      }
      case 12:
        return { tag: 'structCon', fields: this.fieldExprs(need().msgs(1)) };
      case 13: {
        const s = need();
        return { tag: 'structProj', field: ctx.str(s.int32(1)), struct: this.exprF(s, 2) };
      }
      case 14: {
        const s = need();
        return { tag: 'structUpd', field: ctx.str(s.int32(1)), struct: this.exprF(s, 2), update: this.exprF(s, 3) };
      }
      case 15: {
        // App { fun 1, args 2 }
        const a = need();
        const fun = this.exprF(a, 1);
        const args = this.exprsF(a, 2);
        if (args.length === 0) throw new LfDecodeError('application without arguments');
        return { tag: 'app', fun, args };
      }
      case 16: {
        // TyApp { expr 1, types 2 }
        const a = need();
        const expr = this.exprF(a, 1);
        const types = this.types.typesF(a, 2);
        if (types.length === 0) throw new LfDecodeError('type application without types');
        return { tag: 'tyApp', expr, types };
      }
      case 17: {
        // Abs { param 1 (VarWithType { var 3, type 2 }), body 2 }
        const a = need();
        const params = a.msgs(1).map((p) => ({ name: ctx.str(p.int32(3)), type: this.types.typeF(p, 2) }));
        if (params.length === 0) throw new LfDecodeError('abstraction without parameters');
        return { tag: 'abs', params, body: this.exprF(a, 2) };
      }
      case 18: {
        // TyAbs { param 1 (TypeVarWithKind { var 3, kind 2 }), body 2 }
        const a = need();
        const params = a.msgs(1).map((p) => ctx.str(p.int32(3)));
        if (params.length === 0) throw new LfDecodeError('type abstraction without parameters');
        return { tag: 'tyAbs', params, body: this.exprF(a, 2) };
      }
      case 19: {
        // Case { scrut 1, alts 2 }
        const c = need();
        return { tag: 'case', scrut: this.exprF(c, 1), alts: c.msgs(2).map((a) => this.caseAlt(a)) };
      }
      case 20: {
        // Block { bindings 1, body 2 }
        const b = need();
        const bindings = this.bindings(b.msgs(1));
        if (bindings.length === 0) throw new LfDecodeError('let without bindings');
        return { tag: 'let', bindings, body: this.exprF(b, 2) };
      }
      case 21:
        return { tag: 'nil', type: this.types.type(need().msg(1)) };
      case 22: {
        // Cons { type 1, front 2, tail 3 }
        const c = need();
        const front = this.exprsF(c, 2);
        if (front.length === 0) throw new LfDecodeError('cons without front elements');
        return { tag: 'cons', type: this.types.typeF(c, 1), front, tail: this.exprF(c, 3) };
      }
      case 23:
        return decodeUpdate(this, need());
      case 25:
        return { tag: 'none', type: this.types.type(need().msg(1)) };
      case 26: {
        const s = need();
        return { tag: 'some', type: this.types.typeF(s, 1), value: this.exprF(s, 2) };
      }
      case 27: {
        const a = need();
        return { tag: 'toAny', type: this.types.typeF(a, 1), expr: this.exprF(a, 2) };
      }
      case 28: {
        const a = need();
        return { tag: 'fromAny', type: this.types.typeF(a, 1), expr: this.exprF(a, 2) };
      }
      case 29:
        return { tag: 'typeRep', type: this.types.type(need()) };
      case 30: {
        const a = need();
        return { tag: 'toAnyException', type: this.types.typeF(a, 1), expr: this.exprF(a, 2) };
      }
      case 31: {
        const a = need();
        return { tag: 'fromAnyException', type: this.types.typeF(a, 1), expr: this.exprF(a, 2) };
      }
      case 32: {
        // Throw { return_type 1, exception_type 2, exception_expr 3 }
        const t = need();
        return {
          tag: 'throw',
          returnType: this.types.typeF(t, 1),
          exceptionType: this.types.typeF(t, 2),
          expr: this.exprF(t, 3),
        };
      }
      case 33:
      case 34:
      case 35:
      case 36:
      case 37:
      case 38:
      case 39:
      case 40:
      case 41:
      case 42:
      case 43:
      case 1001:
      case 1002:
        return decodeInterfaceExpr(this, field, need());
      case 44:
        return this.interned.get(v, this);
      case 9999: {
        // Experimental { name 1, type 2 }
        const x = need();
        return { tag: 'experimental', name: x.string(1), type: x.has(2) ? this.types.typeF(x, 2) : UNIT_TYPE };
      }
      default:
        return unknownConstruct(`Expr case ${field}`);
    }
  }

  /** `FieldWithExpr { field 3, expr 2 }`. */
  private fieldExprs(fs: Msg[]): FieldExpr[] {
    return fs.map((f) => ({ field: this.ctx.str(f.int32(3)), expr: this.exprF(f, 2) }));
  }

  /** `Binding { binder 1 (VarWithType { var 3, type 2 }), bound 2 }`. */
  bindings(bs: Msg[]): Binding[] {
    return bs.map((b) => {
      const binder = b.msg(1);
      if (!binder) throw new LfDecodeError('binding without a binder');
      return { name: this.ctx.str(binder.int32(3)), type: this.types.typeF(binder, 2), bound: this.exprF(b, 2) };
    });
  }

  /**
   * `CaseAlt { body 1; default 2, variant 3, builtin_con 4, nil 5, cons 6, optional_none 7,
   * optional_some 8, enum 9 }`.
   */
  private caseAlt(a: Msg): CaseAlt {
    const ctx = this.ctx;
    let pattern: CasePattern;
    if (a.has(2)) pattern = { pat: 'default' };
    else if (a.has(3)) {
      const v = a.msg(3)!;
      pattern = { pat: 'variant', tycon: this.types.typeConId(v.msg(1)), constructor: ctx.str(v.int32(2)), binder: ctx.str(v.int32(3)) };
    } else if (a.has(4)) {
      const code = a.int32(4);
      if (code === 0) pattern = { pat: 'unit' };
      else if (code === 1 || code === 2) pattern = { pat: 'bool', value: code === 2 };
      else throw new LfDecodeError(`unknown BuiltinCon ${code} in a case pattern`);
    } else if (a.has(5)) pattern = { pat: 'nil' };
    else if (a.has(6)) {
      const c = a.msg(6)!;
      pattern = { pat: 'cons', head: ctx.str(c.int32(1)), tail: ctx.str(c.int32(2)) };
    } else if (a.has(7)) pattern = { pat: 'none' };
    else if (a.has(8)) pattern = { pat: 'some', binder: ctx.str(a.msg(8)!.int32(1)) };
    else if (a.has(9)) {
      const e = a.msg(9)!;
      pattern = { pat: 'enum', tycon: this.types.typeConId(e.msg(1)), constructor: ctx.str(e.int32(2)) };
    } else throw new LfDecodeError('case alternative without a pattern');
    return { pattern, body: this.exprF(a, 1) };
  }
}
