/**
 * Closure compilation of Daml-LF 2 expressions (daml-lf-2.rst, "Expression evaluation"): each
 * `Expr` is turned once into a JS function `(env) => Value`, so that running Daml code is a
 * chain of direct calls with no AST walking.
 *
 * Environments: every lambda (and every piece of code an update runs later: block bodies,
 * `try` bodies and handlers, embedded expressions) gets a frame, an array of slots, linked to the
 * frame it was created in. Each binder (parameter, `let`, case pattern variable) gets its own slot
 * in its frame at compile time, and a variable is compiled to "go up `hops` frames, read slot
 * `i`". A slot is written once per frame activation, so closures can share frames safely.
 *
 * Evaluation order and strictness follow the spec's evaluation contexts: call by value, left to
 * right; `let` is strict; only the chosen `case` alternative is evaluated; top-level values are
 * evaluated lazily, once (see the Evaluator). Types are erased (type abstraction and application
 * are the identity; LF 2 numeric builtins take their scale as a value witness), except in
 * `to_any`/`from_any`/`type_rep`/exceptions, which keep their (ground) type.
 */
import type { BuiltinFunctionName, CasePattern, Expr, Literal, LfType, TypeConRef, ValueRef } from './ast.js';
import { DamlFailure, DamlThrow } from './runtime.js';
import { sameTycon, typesEqual } from './eval-types.js';
import { consList, isEmptyList, unconsList } from './eval-lists.js';
import { compileUpdate } from './update.js';
import { asRecord, bind, childScope, internal, matchError, rootScope, type Code, type Frame, type Scope } from './compile-scope.js';
import {
  EMPTY_LIST,
  FALSE,
  NONE,
  TRUE,
  UNIT,
  applyValue,
  fun,
  some,
  type AnyExceptionV,
  type RecordV,
  type Value,
} from '../lf-value/runtime-value.js';

/** What compiled code asks of the evaluator (definitions, data types, budget, interfaces). */
export interface Runtime {
  /** Steps left before the budget runs out; decremented on every closure entry. */
  readonly st: { remaining: number };
  budgetExceeded(): never;
  /** The (lazily evaluated, memoized) value of a top-level definition. */
  topValue(ref: ValueRef): Value;
  builtin(name: BuiltinFunctionName): Value;
  /** Field names of a record type, in declaration order. */
  recordFields(tycon: TypeConRef): readonly string[];
  /** Index of a variant or enum constructor in its data type. */
  constructorRank(tycon: TypeConRef, constructor: string): number;
  normalizeType(t: LfType): LfType;
  /** The message of an exception value (its DefException's `message` applied). */
  exceptionMessage(ex: AnyExceptionV): string;
  /** Records a known message (e.g. from a caught `DamlThrow`) so `ANY_EXCEPTION_MESSAGE` needs no lookup. */
  rememberMessage(ex: AnyExceptionV, message: string): void;
  implementsInterface(template: TypeConRef, iface: TypeConRef): boolean;
  /** `implementsInterface` for the template of an interface value (also a natively implemented one). */
  recordImplements(rec: RecordV, iface: TypeConRef): boolean;
  callMethod(iface: TypeConRef, method: string, rec: RecordV): Value;
  interfaceView(iface: TypeConRef, rec: RecordV): Value;
  /** `[Party]` values of the template of `rec`. */
  templateSignatories(rec: RecordV): Value;
  templateObservers(rec: RecordV): Value;
  choiceControllers(owner: TypeConRef, choice: string, rec: RecordV, arg: Value): Value;
  choiceObserversValue(owner: TypeConRef, choice: string, rec: RecordV, arg: Value): Value;
}

/** Applies a function value; the exact-arity call is the fast path. */
export function apply(f: Value, args: Value[]): Value {
  if (f.tag === 'fun' && f.arity === args.length) return f.invoke(args);
  if (f.tag !== 'fun') internal(`applying a ${f.tag} value as a function`);
  return applyValue(f, args);
}

function literal(l: Literal): Value {
  switch (l.lit) {
    case 'int64':
      return { tag: 'int64', value: l.value };
    case 'numeric':
      return { tag: 'numeric', scale: l.scale, unscaled: l.unscaled };
    case 'text':
      return { tag: 'text', value: l.value };
    case 'timestamp':
      return { tag: 'timestamp', micros: l.micros };
    case 'date':
      return { tag: 'date', days: l.days };
    case 'roundingMode':
      return { tag: 'roundingMode', value: l.value };
    case 'failureCategory':
      return { tag: 'failureCategory', value: l.value };
  }
}

export class Compiler {
  constructor(readonly rt: Runtime) {}

  /**
   * Compiles `expr` as the body of a function of `params` (a root frame: template parts, choice
   * bodies, top-level values). The result takes the parameters' values in order.
   */
  compileRoot(expr: Expr, params: readonly string[]): (args: readonly Value[]) => Value {
    let scope = rootScope();
    for (const p of params) scope = bind(scope, p).scope;
    const code = this.compile(expr, scope);
    const frame = scope.frame;
    const n = params.length;
    return (args) => {
      const s = new Array<Value>(frame.nslots);
      for (let i = 0; i < n; i++) s[i] = args[i] ?? UNIT;
      return code({ up: undefined, s });
    };
  }

  /** Compiles `expr` to run later in a fresh frame of its own (see `childScope`). */
  compileDelayed(expr: Expr, scope: Scope): Code {
    const inner = childScope(scope);
    const code = this.compile(expr, inner);
    const frame = inner.frame;
    return (env) => code({ up: env, s: new Array<Value>(frame.nslots) });
  }

  compile(e: Expr, scope: Scope): Code {
    switch (e.tag) {
      case 'var':
        return this.variable(e.name, scope);
      case 'val': {
        const rt = this.rt;
        const ref = e.ref;
        let cached: Value | undefined;
        return () => cached ?? (cached = rt.topValue(ref));
      }
      case 'builtin': {
        const rt = this.rt;
        const name = e.name;
        let cached: Value | undefined;
        return () => cached ?? (cached = rt.builtin(name));
      }
      case 'unit':
        return () => UNIT;
      case 'bool':
        return e.value ? () => TRUE : () => FALSE;
      case 'lit': {
        const v = literal(e.value);
        return () => v;
      }
      case 'recCon':
        return this.recCon(e.tycon, e.fields, scope);
      case 'recProj': {
        const rec = this.compile(e.record, scope);
        const idx = this.fieldIndex(e.tycon, e.field);
        const field = e.field;
        return (env) => {
          const r = rec(env);
          if (r.tag !== 'record') internal(`projection of field ${field} from a ${r.tag} value`);
          // The ledger builds records in declaration order too; the name check keeps a record of
          // another layout (e.g. another package version) correct, just slower.
          const v = r.fieldNames[idx] === field ? r.fields[idx] : r.fields[r.fieldNames.indexOf(field)];
          if (v === undefined) internal(`record ${r.tycon.entityName} has no field ${field}`);
          return v;
        };
      }
      case 'recUpd': {
        const rec = this.compile(e.record, scope);
        const upd = this.compile(e.update, scope);
        const idx0 = this.fieldIndex(e.tycon, e.field);
        const field = e.field;
        return (env) => {
          const r = rec(env);
          const nv = upd(env);
          if (r.tag !== 'record') internal(`update of field ${field} of a ${r.tag} value`);
          const idx = r.fieldNames[idx0] === field ? idx0 : r.fieldNames.indexOf(field);
          if (idx < 0) internal(`record ${r.tycon.entityName} has no field ${field}`);
          const fields = r.fields.slice();
          fields[idx] = nv;
          return { tag: 'record', tycon: r.tycon, fields, fieldNames: r.fieldNames };
        };
      }
      case 'variantCon': {
        const arg = this.compile(e.arg, scope);
        const rank = this.rt.constructorRank(e.tycon, e.constructor);
        const tycon = e.tycon;
        const constructor = e.constructor;
        return (env) => ({ tag: 'variant', tycon, constructor, rank, value: arg(env) });
      }
      case 'enumCon': {
        const v: Value = {
          tag: 'enum',
          tycon: e.tycon,
          constructor: e.constructor,
          rank: this.rt.constructorRank(e.tycon, e.constructor),
        };
        return () => v;
      }
      case 'structCon': {
        const names = e.fields.map((f) => f.field);
        const codes = e.fields.map((f) => this.compile(f.expr, scope));
        return (env) => {
          const m = new Map<string, Value>();
          for (let i = 0; i < codes.length; i++) m.set(names[i]!, codes[i]!(env));
          return { tag: 'struct', fields: m };
        };
      }
      case 'structProj': {
        const st = this.compile(e.struct, scope);
        const field = e.field;
        return (env) => {
          const s = st(env);
          if (s.tag !== 'struct') internal(`struct projection of ${field} from a ${s.tag} value`);
          const v = s.fields.get(field);
          if (v === undefined) internal(`struct has no field ${field}`);
          return v;
        };
      }
      case 'structUpd': {
        const st = this.compile(e.struct, scope);
        const upd = this.compile(e.update, scope);
        const field = e.field;
        return (env) => {
          const s = st(env);
          const nv = upd(env);
          if (s.tag !== 'struct') internal(`struct update of ${field} of a ${s.tag} value`);
          const m = new Map(s.fields);
          m.set(field, nv);
          return { tag: 'struct', fields: m };
        };
      }
      case 'app':
      case 'tyApp':
        return this.application(e, scope);
      case 'abs':
      case 'tyAbs':
        return this.lambda(e, scope);
      case 'case':
        return this.caseOf(e.scrut, e.alts, scope);
      case 'let': {
        let inner = scope;
        const codes: Code[] = [];
        const slots: number[] = [];
        for (const b of e.bindings) {
          codes.push(this.compile(b.bound, inner));
          const r = bind(inner, b.name);
          inner = r.scope;
          slots.push(r.slot);
        }
        const body = this.compile(e.body, inner);
        const n = codes.length;
        if (n === 1) {
          const c0 = codes[0]!;
          const s0 = slots[0]!;
          return (env) => {
            env.s[s0] = c0(env);
            return body(env);
          };
        }
        return (env) => {
          for (let i = 0; i < n; i++) env.s[slots[i]!] = codes[i]!(env);
          return body(env);
        };
      }
      case 'nil':
        return () => EMPTY_LIST;
      case 'cons': {
        const front = e.front.map((x) => this.compile(x, scope));
        const tail = this.compile(e.tail, scope);
        const n = front.length;
        return (env) => {
          const items = new Array<Value>(n);
          for (let i = 0; i < n; i++) items[i] = front[i]!(env);
          const t = tail(env);
          if (t.tag !== 'list') internal(`cons onto a ${t.tag} value`);
          return consList(items, t);
        };
      }
      case 'none':
        return () => NONE;
      case 'some': {
        const v = this.compile(e.value, scope);
        return (env) => some(v(env));
      }
      case 'toAny': {
        const type = this.rt.normalizeType(e.type);
        const v = this.compile(e.expr, scope);
        return (env) => ({ tag: 'any', type, value: v(env) });
      }
      case 'fromAny': {
        const type = this.rt.normalizeType(e.type);
        const v = this.compile(e.expr, scope);
        return (env) => {
          const a = v(env);
          if (a.tag !== 'any') internal(`from_any of a ${a.tag} value`);
          return typesEqual(a.type, type) ? some(a.value) : NONE;
        };
      }
      case 'typeRep': {
        const v: Value = { tag: 'typeRep', type: this.rt.normalizeType(e.type) };
        return () => v;
      }
      case 'toAnyException': {
        const type = this.rt.normalizeType(e.type);
        const v = this.compile(e.expr, scope);
        return (env) => ({ tag: 'anyException', type, value: v(env) });
      }
      case 'fromAnyException': {
        const type = this.rt.normalizeType(e.type);
        const v = this.compile(e.expr, scope);
        return (env) => {
          const a = v(env);
          if (a.tag !== 'anyException') internal(`from_any_exception of a ${a.tag} value`);
          return typesEqual(a.type, type) ? some(a.value) : NONE;
        };
      }
      case 'throw': {
        const type = this.rt.normalizeType(e.exceptionType);
        const v = this.compile(e.expr, scope);
        const rt = this.rt;
        return (env) => {
          const ex: AnyExceptionV = { tag: 'anyException', type, value: v(env) };
          throw new DamlThrow(ex, rt.exceptionMessage(ex));
        };
      }
      case 'toInterface':
      case 'toRequiredInterface':
        // An interface value is the template's record itself: its tycon names the template.
        return this.compile(e.expr, scope);
      case 'fromInterface': {
        const v = this.compile(e.expr, scope);
        const template = e.template;
        return (env) => {
          const r = asRecord(v(env), 'from_interface');
          return sameTycon(r.tycon, template) ? some(r) : NONE;
        };
      }
      case 'unsafeFromInterface': {
        const cid = this.compile(e.cid, scope);
        const v = this.compile(e.expr, scope);
        const template = e.template;
        return (env) => {
          const c = cid(env);
          const r = asRecord(v(env), 'unsafe_from_interface');
          if (!sameTycon(r.tycon, template)) {
            throw new DamlFailure({
              kind: 'wronglyTypedContract',
              cid: c.tag === 'contractId' ? c.value : '',
              expected: template,
              actual: r.tycon,
            });
          }
          return r;
        };
      }
      case 'fromRequiredInterface': {
        const v = this.compile(e.expr, scope);
        const required = e.required;
        const rt = this.rt;
        return (env) => {
          const r = asRecord(v(env), 'from_required_interface');
          return rt.recordImplements(r, required) ? some(r) : NONE;
        };
      }
      case 'unsafeFromRequiredInterface': {
        const cid = this.compile(e.cid, scope);
        const v = this.compile(e.expr, scope);
        const required = e.required;
        const rt = this.rt;
        return (env) => {
          const c = cid(env);
          const r = asRecord(v(env), 'unsafe_from_required_interface');
          if (!rt.recordImplements(r, required)) {
            throw new DamlFailure({
              kind: 'contractDoesNotImplementInterface',
              cid: c.tag === 'contractId' ? c.value : '',
              iface: required,
              template: r.tycon,
            });
          }
          return r;
        };
      }
      case 'callInterface': {
        const v = this.compile(e.expr, scope);
        const { iface, method } = e;
        const rt = this.rt;
        return (env) => rt.callMethod(iface, method, asRecord(v(env), 'call_interface'));
      }
      case 'viewInterface': {
        const v = this.compile(e.expr, scope);
        const iface = e.iface;
        const rt = this.rt;
        return (env) => rt.interfaceView(iface, asRecord(v(env), 'view_interface'));
      }
      case 'signatoryInterface': {
        const v = this.compile(e.expr, scope);
        const rt = this.rt;
        return (env) => rt.templateSignatories(asRecord(v(env), 'interface_signatory'));
      }
      case 'observerInterface': {
        const v = this.compile(e.expr, scope);
        const rt = this.rt;
        return (env) => rt.templateObservers(asRecord(v(env), 'interface_observer'));
      }
      case 'interfaceTemplateTypeRep': {
        const v = this.compile(e.expr, scope);
        const rt = this.rt;
        return (env) => {
          const r = asRecord(v(env), 'interface_typerep');
          return { tag: 'typeRep', type: rt.normalizeType({ kind: 'con', tycon: r.tycon, args: [] }) };
        };
      }
      case 'choiceController':
      case 'choiceObserver': {
        const contract = this.compile(e.contract, scope);
        const arg = this.compile(e.choiceArg, scope);
        const { template, choice } = e;
        const rt = this.rt;
        const observers = e.tag === 'choiceObserver';
        return (env) => {
          const r = asRecord(contract(env), e.tag);
          const a = arg(env);
          return observers ? rt.choiceObserversValue(template, choice, r, a) : rt.choiceControllers(template, choice, r, a);
        };
      }
      case 'update':
        return compileUpdate(this, e.update, scope);
      case 'experimental': {
        const name = e.name;
        return () => {
          throw new DamlFailure({ kind: 'unsupported', feature: `experimental ${name}` });
        };
      }
    }
  }

  private variable(name: string, scope: Scope): Code {
    let v = scope.vars;
    while (v !== undefined && v.name !== name) v = v.next;
    if (v === undefined) internal(`unbound variable ${name}`);
    const slot = v.slot;
    const hops = scope.frame.level - v.level;
    switch (hops) {
      case 0:
        return (env) => env.s[slot]!;
      case 1:
        return (env) => env.up!.s[slot]!;
      case 2:
        return (env) => env.up!.up!.s[slot]!;
      default:
        return (env) => {
          let f = env;
          for (let i = 0; i < hops; i++) f = f.up!;
          return f.s[slot]!;
        };
    }
  }

  private fieldIndex(tycon: TypeConRef, field: string): number {
    const idx = this.rt.recordFields(tycon).indexOf(field);
    if (idx < 0) internal(`record ${tycon.moduleName}:${tycon.entityName} has no field ${field}`);
    return idx;
  }

  private recCon(tycon: TypeConRef, fields: ReadonlyArray<{ field: string; expr: Expr }>, scope: Scope): Code {
    const fieldNames = this.rt.recordFields(tycon);
    const codes = fields.map((f) => this.compile(f.expr, scope));
    // Where each expression's value goes in the declaration-ordered field array.
    const positions = fields.map((f) => this.fieldIndex(tycon, f.field));
    if (positions.length !== fieldNames.length || new Set(positions).size !== positions.length) {
      internal(`record construction of ${tycon.entityName} does not give every field once`);
    }
    const n = codes.length;
    return (env) => {
      const vals = new Array<Value>(n);
      for (let i = 0; i < n; i++) vals[positions[i]!] = codes[i]!(env);
      return { tag: 'record', tycon, fields: vals, fieldNames };
    };
  }

  private application(e: Expr, scope: Scope): Code {
    // Collect `((f a) b) @t c` into f [a, b, c]: arguments are evaluated left to right after the
    // function, then applied at once (partial and over-application handled by `apply`).
    const argExprs: Expr[][] = [];
    let head = e;
    for (;;) {
      if (head.tag === 'tyApp') head = head.expr;
      else if (head.tag === 'app') {
        argExprs.unshift(head.args);
        head = head.fun;
      } else break;
    }
    const f = this.compile(head, scope);
    const args = argExprs.flat().map((a) => this.compile(a, scope));
    switch (args.length) {
      case 0:
        return f;
      case 1: {
        const a0 = args[0]!;
        return (env) => {
          const fv = f(env);
          return apply(fv, [a0(env)]);
        };
      }
      case 2: {
        const a0 = args[0]!;
        const a1 = args[1]!;
        return (env) => {
          const fv = f(env);
          const v0 = a0(env);
          return apply(fv, [v0, a1(env)]);
        };
      }
      default: {
        const n = args.length;
        return (env) => {
          const fv = f(env);
          const vs = new Array<Value>(n);
          for (let i = 0; i < n; i++) vs[i] = args[i]!(env);
          return apply(fv, vs);
        };
      }
    }
  }

  private lambda(e: Expr, scope: Scope): Code {
    // `λx. Λα. λy. body` is one closure of arity 2: types are erased and nothing is evaluated
    // between the lambdas, so partial application gives the same results.
    const params: string[] = [];
    let body = e;
    for (;;) {
      if (body.tag === 'tyAbs') body = body.body;
      else if (body.tag === 'abs') {
        for (const p of body.params) params.push(p.name);
        body = body.body;
      } else break;
    }
    if (params.length === 0) return this.compile(body, scope);
    let inner = childScope(scope);
    for (const p of params) inner = bind(inner, p).scope;
    const code = this.compile(body, inner);
    const frame = inner.frame;
    const arity = params.length;
    const st = this.rt.st;
    const rt = this.rt;
    return (env) =>
      fun(arity, (args) => {
        if (--st.remaining < 0) rt.budgetExceeded();
        const s = new Array<Value>(frame.nslots);
        for (let i = 0; i < arity; i++) s[i] = args[i]!;
        return code({ up: env, s });
      });
  }

  private caseOf(scrutExpr: Expr, alts: ReadonlyArray<{ pattern: CasePattern; body: Expr }>, scope: Scope): Code {
    const scrut = this.compile(scrutExpr, scope);
    type Alt = { test: (v: Value, env: Frame) => boolean; body: Code };
    const compiled: Alt[] = alts.map(({ pattern: p, body }) => {
      switch (p.pat) {
        case 'default':
          return { test: () => true, body: this.compile(body, scope) };
        case 'unit':
          return { test: () => true, body: this.compile(body, scope) };
        case 'bool': {
          const want = p.value;
          return { test: (v) => v.tag === 'bool' && v.value === want, body: this.compile(body, scope) };
        }
        case 'enum': {
          const c = p.constructor;
          return { test: (v) => v.tag === 'enum' && v.constructor === c, body: this.compile(body, scope) };
        }
        case 'variant': {
          const c = p.constructor;
          const { scope: inner, slot } = bind(scope, p.binder);
          return {
            test: (v, env) => {
              if (v.tag !== 'variant' || v.constructor !== c) return false;
              env.s[slot] = v.value;
              return true;
            },
            body: this.compile(body, inner),
          };
        }
        case 'nil':
          return { test: (v) => v.tag === 'list' && isEmptyList(v), body: this.compile(body, scope) };
        case 'cons': {
          const h = bind(scope, p.head);
          const t = bind(h.scope, p.tail);
          const hs = h.slot;
          const ts = t.slot;
          return {
            test: (v, env) => {
              if (v.tag !== 'list' || isEmptyList(v)) return false;
              const [head, rest] = unconsList(v);
              env.s[hs] = head;
              env.s[ts] = rest;
              return true;
            },
            body: this.compile(body, t.scope),
          };
        }
        case 'none':
          return { test: (v) => v.tag === 'optional' && v.value === undefined, body: this.compile(body, scope) };
        case 'some': {
          const { scope: inner, slot } = bind(scope, p.binder);
          return {
            test: (v, env) => {
              if (v.tag !== 'optional' || v.value === undefined) return false;
              env.s[slot] = v.value;
              return true;
            },
            body: this.compile(body, inner),
          };
        }
      }
    });
    // Two-way cases (Bool, Optional, List, two-constructor variants) are the common shape.
    if (compiled.length === 2) {
      const [a, b] = compiled as [Alt, Alt];
      return (env) => {
        const v = scrut(env);
        if (a.test(v, env)) return a.body(env);
        if (b.test(v, env)) return b.body(env);
        return matchError();
      };
    }
    return (env) => {
      const v = scrut(env);
      for (const alt of compiled) if (alt.test(v, env)) return alt.body(env);
      return matchError();
    };
  }
}
