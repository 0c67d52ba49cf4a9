/**
 * The definitions of a `Module` of daml_lf2.proto: type synonyms, data types (through the
 * type-level decoder), values, templates with their choices, keys and interface instances,
 * interfaces and exceptions, and their source locations. Their expressions are decoded by
 * `ExprDecoder`; value bodies lazily when asked to (see `DecodeOptions.lazy` in index.ts).
 */
import { LfDecodeError, type Lf2Context, type LfType, type TypeConRef } from '../../dar/lf2.js';
import type { Msg } from '../../shared/lf-reader.js';
import {
  tyconKey,
  type DamlModule,
  type DefException,
  type DefInterface,
  type DefTemplate,
  type DefTypeSyn,
  type DefValue,
  type Expr,
  type InterfaceInstance,
  type InterfaceMethod,
  type SourceLocation,
  type TemplateChoice,
  type TemplateKey,
  type ValueRef,
} from '../ast.js';
import { TRUE, UNIT } from './builtins.js';
import type { ExprDecoder } from './expressions.js';
import { UNIT_TYPE, type TypeReader } from './types.js';

/**
 * A value definition whose `expr` is decoded on first read (an own, enumerable accessor, so that
 * spreading and structural comparison see it like a plain field).
 */
function lazyValue(
  ref: ValueRef,
  decodeType: () => LfType,
  decode: () => Expr,
  decodeLocation: (() => SourceLocation | undefined) | undefined,
): DefValue {
  let expr: Expr | undefined;
  let type: LfType | undefined;
  // `type: UNIT_TYPE, expr: UNIT` only give the object its shape; the accessors below replace them.
  const out: DefValue = { ref, type: UNIT_TYPE, expr: UNIT };
  Object.defineProperty(out, 'type', {
    enumerable: true,
    configurable: true,
    get: () => (type ??= decodeType()),
    set: (t: LfType) => {
      type = t;
    },
  });
  Object.defineProperty(out, 'expr', {
    enumerable: true,
    configurable: true,
    get: () => (expr ??= decode()),
    set: (e: Expr) => {
      expr = e;
    },
  });
  if (decodeLocation) {
    let location: SourceLocation | undefined;
    let read = false;
    Object.defineProperty(out, 'location', {
      enumerable: true,
      configurable: true,
      get: () => {
        if (!read) {
          location = decodeLocation();
          read = true;
        }
        return location;
      },
      set: (l: SourceLocation | undefined) => {
        location = l;
        read = true;
      },
    });
  }
  return out;
}

export class DefinitionDecoder {
  /** The module being decoded: where definitions' locations without a module are. */
  private moduleName = '';

  constructor(
    private readonly ctx: Lf2Context,
    private readonly types: TypeReader,
    private readonly exprs: ExprDecoder,
    private readonly lazy: boolean,
  ) {}

  /** `Module { name 1, flags 2, synonyms 3, data_types 4, values 5, templates 6, exceptions 7, interfaces 8 }`. */
  module(m: Msg): DamlModule {
    const ctx = this.ctx;
    const name = ctx.dname(m.int32(1));
    this.moduleName = name;
    const mod: DamlModule = {
      name,
      dataTypes: new Map(),
      synonyms: new Map(),
      values: new Map(),
      templates: new Map(),
      interfaces: new Map(),
      exceptions: new Map(),
    };
    for (const s of m.msgs(3)) {
      const syn = this.synonym(s);
      mod.synonyms.set(syn.name, syn);
    }
    for (const dt of m.msgs(4)) {
      const decoded = ctx.dataType(dt.asProto());
      mod.dataTypes.set(decoded.name, decoded);
    }
    for (const v of m.msgs(5)) {
      const val = this.value(v);
      mod.values.set(val.ref.name, val);
    }
    for (const t of m.msgs(6)) {
      const tpl = this.template(t);
      mod.templates.set(tpl.tycon.entityName, tpl);
    }
    for (const e of m.msgs(7)) {
      const exc = this.exception(e);
      mod.exceptions.set(exc.tycon.entityName, exc);
    }
    for (const i of m.msgs(8)) {
      const iface = this.iface(i);
      mod.interfaces.set(iface.tycon.entityName, iface);
    }
    return mod;
  }

  private selfTycon(nameDname: number): TypeConRef {
    return { packageId: this.ctx.selfId, moduleName: this.moduleName, entityName: this.ctx.dname(nameDname) };
  }

  /** `DefTypeSyn { location 1, name 2, params 3, type 4 }`. */
  private synonym(s: Msg): DefTypeSyn {
    return {
      name: this.ctx.dname(s.int32(2)),
      params: s.msgs(3).map((p) => this.ctx.str(p.int32(3))),
      type: this.types.typeF(s, 4),
    };
  }

  /** `DefValue { location 1, name_with_type 2 { name 1, type 2 }, expr 3 }`. */
  private value(v: Msg): DefValue {
    const nt = v.msg(2);
    if (!nt) throw new LfDecodeError('value definition without a name');
    const ref: ValueRef = { packageId: this.ctx.selfId, moduleName: this.moduleName, name: this.ctx.dname(nt.int32(1)) };
    let out: DefValue;
    if (this.lazy) {
      if (!v.has(3)) throw new LfDecodeError('missing expression');
      // The location is read lazily too: where the module is must be captured now.
      const moduleName = this.moduleName;
      const location = v.has(1)
        ? () => {
            const saved = this.moduleName;
            this.moduleName = moduleName;
            try {
              return this.location(v.msg(1));
            } finally {
              this.moduleName = saved;
            }
          }
        : undefined;
      return lazyValue(ref, () => this.types.typeF(nt, 2), () => this.exprs.lazyExpr(v, 3), location);
    }
    out = { ref, type: this.types.typeF(nt, 2), expr: this.exprs.exprF(v, 3) };
    const loc = this.location(v.msg(1));
    if (loc) out.location = loc;
    return out;
  }

  /**
   * `DefTemplate { tycon 1, param 2, precond 3, signatories 4, choices 6, observers 7, location 8,
   * key 9, implements 10 }`. A template without `precond` has `ensure True` (as the reference
   * decoder reads it).
   */
  private template(t: Msg): DefTemplate {
    const out: DefTemplate = {
      tycon: this.selfTycon(t.int32(1)),
      param: this.ctx.str(t.int32(2)),
      precond: t.has(3) ? this.exprs.exprF(t, 3) : TRUE,
      signatories: this.exprs.exprF(t, 4),
      observers: this.exprs.exprF(t, 7),
      choices: new Map(),
      implements: new Map(),
    };
    for (const c of t.msgs(6)) {
      const ch = this.choice(c);
      out.choices.set(ch.name, ch);
    }
    const key = t.msg(9);
    if (key) out.key = this.templateKey(key);
    for (const impl of t.msgs(10)) {
      const inst = this.interfaceInstance(impl);
      out.implements.set(tyconKey(inst.iface), inst);
    }
    const loc = this.location(t.msg(8));
    if (loc) out.location = loc;
    return out;
  }

  /** `DefKey { type 1, maintainers 3, key_expr 4 }` (contract keys are an LF 2.dev feature). */
  private templateKey(k: Msg): TemplateKey {
    return { type: this.types.typeF(k, 1), body: this.exprs.exprF(k, 4), maintainers: this.exprs.exprF(k, 3) };
  }

  /** `Implements { interface 1, body 2 { methods 1 { name 1, value 2 }, view 2 }, location 3 }`. */
  private interfaceInstance(impl: Msg): InterfaceInstance {
    const iface = this.types.typeConId(impl.msg(1));
    const body = impl.msg(2);
    if (!body) throw new LfDecodeError(`interface instance of ${tyconKey(iface)} without a body`);
    const methods = new Map<string, Expr>();
    for (const m of body.msgs(1)) methods.set(this.ctx.str(m.int32(1)), this.exprs.exprF(m, 2));
    return { iface, methods, view: this.exprs.exprF(body, 2) };
  }

  /**
   * `TemplateChoice { location 1, name 2, consuming 3, controllers 4, observers 5, arg_binder 6,
   * ret_type 8, update 9, self_binder 10, authorizers 1001 }`.
   */
  private choice(c: Msg): TemplateChoice {
    const binder = c.msg(6);
    if (!binder) throw new LfDecodeError('choice without an argument binder');
    const out: TemplateChoice = {
      name: this.ctx.str(c.int32(2)),
      consuming: c.bool(3),
      controllers: this.exprs.exprF(c, 4),
      selfBinder: this.ctx.str(c.int32(10)),
      argBinder: { name: this.ctx.str(binder.int32(3)), type: this.types.typeF(binder, 2) },
      returnType: this.types.typeF(c, 8),
      update: this.exprs.exprF(c, 9),
    };
    if (c.has(5)) out.observers = this.exprs.exprF(c, 5);
    if (c.has(1001)) out.authorizers = this.exprs.exprF(c, 1001);
    const loc = this.location(c.msg(1));
    if (loc) out.location = loc;
    return out;
  }

  /** `DefInterface { location 1, tycon 2, methods 3, param 4, choices 5, view 6, requires 7 }`. */
  private iface(i: Msg): DefInterface {
    const methods = new Map<string, InterfaceMethod>();
    // InterfaceMethod { location 1, method_interned_name 2, type 3 }
    for (const m of i.msgs(3)) {
      const name = this.ctx.str(m.int32(2));
      methods.set(name, { name, type: this.types.typeF(m, 3) });
    }
    const choices = new Map<string, TemplateChoice>();
    for (const c of i.msgs(5)) {
      const ch = this.choice(c);
      choices.set(ch.name, ch);
    }
    const out: DefInterface = {
      tycon: this.selfTycon(i.int32(2)),
      param: this.ctx.str(i.int32(4)),
      methods,
      choices,
      view: this.types.typeF(i, 6),
      requires: i.msgs(7).map((r) => tyconKey(this.types.typeConId(r))),
    };
    const loc = this.location(i.msg(1));
    if (loc) out.location = loc;
    return out;
  }

  /** `DefException { name 1, location 2, message 3 }`. */
  private exception(e: Msg): DefException {
    return { tycon: this.selfTycon(e.int32(1)), message: this.exprs.exprF(e, 3) };
  }

  /** `Location { module 1 (optional: the current module), range 2 { start_line 1, start_col 2, end_line 3, end_col 4 } }`. */
  private location(l: Msg | undefined): SourceLocation | undefined {
    const range = l?.msg(2);
    if (!l || !range) return undefined;
    const mod = l.msg(1);
    const where = mod ? this.types.moduleId(mod) : { packageId: this.ctx.selfId, moduleName: this.moduleName };
    return {
      ...where,
      startLine: range.int32(1),
      startCol: range.int32(2),
      endLine: range.int32(3),
      endCol: range.int32(4),
    };
  }
}
