/**
 * Full Daml-LF 2 package decoding into the syntax tree of `ast.ts`: every module's values,
 * templates, interfaces, exceptions, synonyms and data types, expressions and updates included.
 * Field numbers follow `daml_lf2.proto` (`Package`, `Module`, `DefTemplate`, `Expr`, `Update`, ...);
 * the meaning of each construct is the one `daml-lf-2.rst` gives it.
 *
 * Interned strings, dotted names, types and package imports are resolved through the type-level
 * decoder's `Lf2Context` (shared, so each interned type is decoded once); interned expressions
 * (`Package.interned_exprs`, 2.dev) are decoded once each and shared too.
 *
 * Known limits:
 *  - Constructs this decoder does not know (a `BuiltinFunction` number outside the enum, an `Expr`
 *    or `Update` case added after this was written) do not fail decoding: they become an
 *    `{ tag: 'experimental' }` expression naming what was found, so that only evaluating it fails.
 *    Malformed input (a missing required field, an unset `CaseAlt` pattern, a bad numeric literal,
 *    a dangling interned index) is an `LfDecodeError`.
 *  - Expression locations (`Expr.location`) are dropped; definition locations are kept.
 *  - Kinds are dropped: type abstractions keep their variable names only.
 */
import {
  Lf2Context,
  LfDecodeError,
  readArchivePayload,
  type LfType,
  type TypeConRef,
} from '../ledger/dar/lf2.js';
import { ProtoMessage } from '../ledger/dar/protobuf.js';
import {
  tyconKey,
  type Binding,
  type BuiltinFunctionName,
  type CaseAlt,
  type CasePattern,
  type DamlModule,
  type DamlPackage,
  type DefException,
  type DefInterface,
  type DefTemplate,
  type DefTypeSyn,
  type DefValue,
  type Expr,
  type FailureCategoryName,
  type FieldExpr,
  type InterfaceInstance,
  type InterfaceMethod,
  type Literal,
  type RoundingModeName,
  type SourceLocation,
  type TemplateChoice,
  type TemplateKey,
  type Update,
  type ValueRef,
} from './ast.js';

/** `BuiltinFunction` enum numbers of daml_lf2.proto. */
const BUILTIN_FUNCTIONS: ReadonlyMap<number, BuiltinFunctionName> = new Map<number, BuiltinFunctionName>([
  [0, 'TRACE'], [1, 'ERROR'], [2, 'EQUAL'], [3, 'LESS_EQ'], [4, 'LESS'], [5, 'GREATER_EQ'], [6, 'GREATER'],
  [7, 'ADD_INT64'], [8, 'SUB_INT64'], [9, 'MUL_INT64'], [10, 'DIV_INT64'], [11, 'MOD_INT64'], [12, 'EXP_INT64'],
  [13, 'ADD_NUMERIC'], [14, 'SUB_NUMERIC'], [15, 'MUL_NUMERIC'], [16, 'DIV_NUMERIC'], [17, 'ROUND_NUMERIC'],
  [18, 'CAST_NUMERIC'], [19, 'SHIFT_NUMERIC'], [20, 'INT64_TO_NUMERIC'], [21, 'NUMERIC_TO_INT64'],
  [22, 'INT64_TO_TEXT'], [23, 'NUMERIC_TO_TEXT'], [25, 'TIMESTAMP_TO_TEXT'], [26, 'DATE_TO_TEXT'],
  [27, 'PARTY_TO_TEXT'], [28, 'TEXT_TO_PARTY'], [29, 'TEXT_TO_INT64'], [30, 'TEXT_TO_NUMERIC'],
  [31, 'CONTRACT_ID_TO_TEXT'], [32, 'SHA256_TEXT'], [33, 'EXPLODE_TEXT'], [34, 'APPEND_TEXT'], [35, 'IMPLODE_TEXT'],
  [36, 'CODE_POINTS_TO_TEXT'], [37, 'TEXT_TO_CODE_POINTS'], [38, 'DATE_TO_UNIX_DAYS'], [39, 'UNIX_DAYS_TO_DATE'],
  [40, 'TIMESTAMP_TO_UNIX_MICROSECONDS'], [41, 'UNIX_MICROSECONDS_TO_TIMESTAMP'], [42, 'COERCE_CONTRACT_ID'],
  [43, 'FOLDL'], [44, 'FOLDR'], [45, 'EQUAL_LIST'],
  [52, 'GENMAP_EMPTY'], [53, 'GENMAP_INSERT'], [54, 'GENMAP_LOOKUP'], [55, 'GENMAP_DELETE'], [56, 'GENMAP_KEYS'],
  [57, 'GENMAP_VALUES'], [58, 'GENMAP_SIZE'], [59, 'ANY_EXCEPTION_MESSAGE'],
  [60, 'TEXTMAP_EMPTY'], [61, 'TEXTMAP_INSERT'], [62, 'TEXTMAP_LOOKUP'], [63, 'TEXTMAP_DELETE'],
  [64, 'TEXTMAP_TO_LIST'], [65, 'TEXTMAP_SIZE'], [66, 'FAIL_WITH_STATUS'],
  [67, 'KECCAK256_TEXT'], [68, 'SECP256K1_BOOL'], [69, 'HEX_TO_TEXT'], [70, 'TEXT_TO_HEX'], [71, 'SHA256_HEX'],
  [72, 'SECP256K1_WITH_ECDSA_BOOL'], [73, 'SECP256K1_VALIDATE_KEY'],
  [2001, 'SCALE_BIGNUMERIC'], [2002, 'PRECISION_BIGNUMERIC'], [2003, 'ADD_BIGNUMERIC'], [2004, 'SUB_BIGNUMERIC'],
  [2005, 'MUL_BIGNUMERIC'], [2006, 'DIV_BIGNUMERIC'], [2007, 'SHIFT_RIGHT_BIGNUMERIC'],
  [2008, 'BIGNUMERIC_TO_NUMERIC'], [2009, 'NUMERIC_TO_BIGNUMERIC'], [2010, 'BIGNUMERIC_TO_TEXT'],
  [3011, 'TYPE_REP_TYCON_NAME'], [5001, 'EXTERNAL_CALL'],
]);

/** `BuiltinLit.RoundingMode`, in enum order (java.math.RoundingMode's order too). */
const ROUNDING_MODES: readonly RoundingModeName[] = [
  'UP', 'DOWN', 'CEILING', 'FLOOR', 'HALF_UP', 'HALF_DOWN', 'HALF_EVEN', 'UNNECESSARY',
];
/** `BuiltinLit.FailureCategory`, in enum order. */
const FAILURE_CATEGORIES: readonly FailureCategoryName[] = [
  'INVALID_INDEPENDENT_OF_SYSTEM_STATE', 'INVALID_GIVEN_CURRENT_SYSTEM_STATE_OTHER',
];

const UNIT_TYPE: LfType = { kind: 'builtin', name: 'Unit', args: [] };
const UNIT: Expr = { tag: 'unit' };
const TRUE: Expr = { tag: 'bool', value: true };
const FALSE: Expr = { tag: 'bool', value: false };

/**
 * Numeric literals are text (`Numeric.fromString` in the LF data library): `-?([1-9]\d*|0)\.\d*`,
 * the number of digits after the point being the scale; at most 38 significant digits and scale 37
 * (daml-lf-2.rst, "Numeric").
 */
const NUMERIC_LITERAL = /^-?([1-9]\d*|0)\.(\d*)$/;
const NUMERIC_MAX_PRECISION = 38;
const NUMERIC_MAX_SCALE = 37;

export function parseNumericLiteral(text: string): { scale: number; unscaled: bigint } {
  const m = NUMERIC_LITERAL.exec(text);
  if (!m) throw new LfDecodeError(`Could not read Numeric string "${text}"`);
  const intPart = m[1]!;
  const scale = m[2]!.length;
  const precision = intPart === '0' ? scale : intPart.length + scale;
  if (precision > NUMERIC_MAX_PRECISION || scale > NUMERIC_MAX_SCALE) {
    throw new LfDecodeError(`Could not read Numeric string "${text}"`);
  }
  return { scale, unscaled: BigInt(text.replace('.', '')) };
}

export interface DecodeStats {
  /** The deepest nesting of `Expr` messages met (interned expressions counted where used). */
  maxExprDepth: number;
  /** How many `Expr` messages were decoded. */
  exprCount: number;
}

/** Decodes an ArchivePayload (as `lf2.ts`'s `decodePackage` takes it) with every expression. */
export function decodeDamlPackage(packageId: string, payload: Buffer): DamlPackage {
  return decodeDamlPackageWithStats(packageId, payload).pkg;
}

/** `decodeDamlPackage`, also reporting the expression depth and count (for tests and benchmarks). */
export function decodeDamlPackageWithStats(
  packageId: string,
  payload: Buffer,
): { pkg: DamlPackage; stats: DecodeStats } {
  const info = readArchivePayload(payload);
  const ctx = new Lf2Context(packageId, ProtoMessage.decode(info.packageBytes));
  const d = new PackageDecoder(ctx);
  const pkg: DamlPackage = {
    packageId,
    ...ctx.metadata(),
    lfVersion: `2.${info.minor}`,
    modules: new Map(),
  };
  for (const m of ctx.pkg.repeatedMessages(1)) {
    const mod = d.module(m);
    pkg.modules.set(mod.name, mod);
  }
  return { pkg, stats: { maxExprDepth: d.maxDepth, exprCount: d.exprCount } };
}

/**
 * How deep `Expr` messages may nest before decoding gives up with an `LfDecodeError` rather than
 * overflowing the JS stack (each level costs a few frames). Real packages stay far below it.
 */
const MAX_EXPR_DEPTH = 2000;

class PackageDecoder {
  maxDepth = 0;
  exprCount = 0;
  private depth = 0;
  /** The module being decoded: where definitions' locations without a module are. */
  private moduleName = '';
  private readonly internedExprBytes: Buffer[];
  private readonly internedExprs = new Map<number, Expr>();
  private readonly internedInProgress = new Set<number>();

  constructor(private readonly ctx: Lf2Context) {
    this.internedExprBytes = ctx.pkg.repeatedBytes(7);
  }

  // ---- definitions ----------------------------------------------------------------------------

  /** `Module { name 1, flags 2, synonyms 3, data_types 4, values 5, templates 6, exceptions 7, interfaces 8 }`. */
  module(m: ProtoMessage): DamlModule {
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
    for (const s of m.repeatedMessages(3)) {
      const syn = this.synonym(s);
      mod.synonyms.set(syn.name, syn);
    }
    for (const dt of m.repeatedMessages(4)) {
      const decoded = ctx.dataType(dt);
      mod.dataTypes.set(decoded.name, decoded);
    }
    for (const v of m.repeatedMessages(5)) {
      const val = this.value(v);
      mod.values.set(val.ref.name, val);
    }
    for (const t of m.repeatedMessages(6)) {
      const tpl = this.template(t);
      mod.templates.set(tpl.tycon.entityName, tpl);
    }
    for (const e of m.repeatedMessages(7)) {
      const exc = this.exception(e);
      mod.exceptions.set(exc.tycon.entityName, exc);
    }
    for (const i of m.repeatedMessages(8)) {
      const iface = this.iface(i);
      mod.interfaces.set(iface.tycon.entityName, iface);
    }
    return mod;
  }

  private selfTycon(nameDname: number): TypeConRef {
    return { packageId: this.ctx.selfId, moduleName: this.moduleName, entityName: this.ctx.dname(nameDname) };
  }

  /** `DefTypeSyn { location 1, name 2, params 3, type 4 }`. */
  private synonym(s: ProtoMessage): DefTypeSyn {
    return {
      name: this.ctx.dname(s.int32(2)),
      params: s.repeatedMessages(3).map((p) => this.ctx.str(p.int32(3))),
      type: this.ctx.type(s.message(4)),
    };
  }

  /** `DefValue { location 1, name_with_type 2 { name 1, type 2 }, expr 3 }`. */
  private value(v: ProtoMessage): DefValue {
    const nt = v.message(2);
    if (!nt) throw new LfDecodeError('value definition without a name');
    const ref: ValueRef = { packageId: this.ctx.selfId, moduleName: this.moduleName, name: this.ctx.dname(nt.int32(1)) };
    const out: DefValue = { ref, type: this.ctx.type(nt.message(2)), expr: this.expr(v.message(3)) };
    const loc = this.location(v.message(1));
    if (loc) out.location = loc;
    return out;
  }

  /**
   * `DefTemplate { tycon 1, param 2, precond 3, signatories 4, choices 6, observers 7, location 8,
   * key 9, implements 10 }`. A template without `precond` has `ensure True` (as the reference
   * decoder reads it).
   */
  private template(t: ProtoMessage): DefTemplate {
    const out: DefTemplate = {
      tycon: this.selfTycon(t.int32(1)),
      param: this.ctx.str(t.int32(2)),
      precond: t.has(3) ? this.expr(t.message(3)) : TRUE,
      signatories: this.expr(t.message(4)),
      observers: this.expr(t.message(7)),
      choices: new Map(),
      implements: new Map(),
    };
    for (const c of t.repeatedMessages(6)) {
      const ch = this.choice(c);
      out.choices.set(ch.name, ch);
    }
    const key = t.message(9);
    if (key) out.key = this.templateKey(key);
    for (const impl of t.repeatedMessages(10)) {
      const inst = this.interfaceInstance(impl);
      out.implements.set(tyconKey(inst.iface), inst);
    }
    const loc = this.location(t.message(8));
    if (loc) out.location = loc;
    return out;
  }

  /** `DefKey { type 1, maintainers 3, key_expr 4 }` (contract keys are an LF 2.dev feature). */
  private templateKey(k: ProtoMessage): TemplateKey {
    return { type: this.ctx.type(k.message(1)), body: this.expr(k.message(4)), maintainers: this.expr(k.message(3)) };
  }

  /** `Implements { interface 1, body 2 { methods 1 { name 1, value 2 }, view 2 }, location 3 }`. */
  private interfaceInstance(impl: ProtoMessage): InterfaceInstance {
    const iface = this.ctx.typeConId(impl.message(1));
    const body = impl.message(2);
    if (!body) throw new LfDecodeError(`interface instance of ${tyconKey(iface)} without a body`);
    const methods = new Map<string, Expr>();
    for (const m of body.repeatedMessages(1)) methods.set(this.ctx.str(m.int32(1)), this.expr(m.message(2)));
    return { iface, methods, view: this.expr(body.message(2)) };
  }

  /**
   * `TemplateChoice { location 1, name 2, consuming 3, controllers 4, observers 5, arg_binder 6,
   * ret_type 8, update 9, self_binder 10, authorizers 1001 }`.
   */
  private choice(c: ProtoMessage): TemplateChoice {
    const binder = c.message(6);
    if (!binder) throw new LfDecodeError('choice without an argument binder');
    const out: TemplateChoice = {
      name: this.ctx.str(c.int32(2)),
      consuming: c.bool(3),
      controllers: this.expr(c.message(4)),
      selfBinder: this.ctx.str(c.int32(10)),
      argBinder: { name: this.ctx.str(binder.int32(3)), type: this.ctx.type(binder.message(2)) },
      returnType: this.ctx.type(c.message(8)),
      update: this.expr(c.message(9)),
    };
    if (c.has(5)) out.observers = this.expr(c.message(5));
    if (c.has(1001)) out.authorizers = this.expr(c.message(1001));
    const loc = this.location(c.message(1));
    if (loc) out.location = loc;
    return out;
  }

  /** `DefInterface { location 1, tycon 2, methods 3, param 4, choices 5, view 6, requires 7 }`. */
  private iface(i: ProtoMessage): DefInterface {
    const methods = new Map<string, InterfaceMethod>();
    // InterfaceMethod { location 1, method_interned_name 2, type 3 }
    for (const m of i.repeatedMessages(3)) {
      const name = this.ctx.str(m.int32(2));
      methods.set(name, { name, type: this.ctx.type(m.message(3)) });
    }
    const choices = new Map<string, TemplateChoice>();
    for (const c of i.repeatedMessages(5)) {
      const ch = this.choice(c);
      choices.set(ch.name, ch);
    }
    const out: DefInterface = {
      tycon: this.selfTycon(i.int32(2)),
      param: this.ctx.str(i.int32(4)),
      methods,
      choices,
      view: this.ctx.type(i.message(6)),
      requires: i.repeatedMessages(7).map((r) => tyconKey(this.ctx.typeConId(r))),
    };
    const loc = this.location(i.message(1));
    if (loc) out.location = loc;
    return out;
  }

  /** `DefException { name 1, location 2, message 3 }`. */
  private exception(e: ProtoMessage): DefException {
    return { tycon: this.selfTycon(e.int32(1)), message: this.expr(e.message(3)) };
  }

  /** `Location { module 1 (optional: the current module), range 2 { start_line 1, start_col 2, end_line 3, end_col 4 } }`. */
  private location(l: ProtoMessage | undefined): SourceLocation | undefined {
    const range = l?.message(2);
    if (!l || !range) return undefined;
    const mod = l.message(1);
    const where = mod ? this.ctx.moduleId(mod) : { packageId: this.ctx.selfId, moduleName: this.moduleName };
    return {
      ...where,
      startLine: range.int32(1),
      startCol: range.int32(2),
      endLine: range.int32(3),
      endCol: range.int32(4),
    };
  }

  // ---- expressions ----------------------------------------------------------------------------

  /** Decodes a required `Expr` field. */
  expr(m: ProtoMessage | undefined): Expr {
    if (!m) throw new LfDecodeError('missing expression');
    this.exprCount++;
    if (++this.depth > this.maxDepth) {
      this.maxDepth = this.depth;
      if (this.depth > MAX_EXPR_DEPTH) throw new LfDecodeError(`expression nested deeper than ${MAX_EXPR_DEPTH}`);
    }
    try {
      return this.exprCase(m);
    } finally {
      this.depth--;
    }
  }

  /** The `Expr.Sum` case: every field but `location = 1`. */
  private exprCase(m: ProtoMessage): Expr {
    let field = 0;
    for (const f of m.fieldNumbers()) {
      if (f !== 1) {
        field = f;
        break;
      }
    }
    const ctx = this.ctx;
    switch (field) {
      case 2:
        return { tag: 'var', name: ctx.str(m.int32(2)) };
      case 3: {
        // ValueId { module 1, name_interned_dname 2 }
        const v = m.message(3)!;
        const mod = v.message(1);
        if (!mod) throw new LfDecodeError('value reference without module');
        return { tag: 'val', ref: { ...ctx.moduleId(mod), name: ctx.dname(v.int32(2)) } };
      }
      case 4: {
        const code = m.int32(4);
        const name = BUILTIN_FUNCTIONS.get(code);
        return name ? { tag: 'builtin', name } : this.unknown(`BuiltinFunction ${code}`);
      }
      case 5:
        return this.builtinCon(m.int32(5)) ?? this.unknown(`BuiltinCon ${m.int32(5)}`);
      case 6:
        return this.literal(m.message(6)!);
      case 7: {
        // RecCon { tycon 1 (Type.Con), fields 2 }
        const r = m.message(7)!;
        const { tycon, args } = this.tyconApp(r.message(1));
        return { tag: 'recCon', tycon, typeArgs: args, fields: this.fieldExprs(r.repeatedMessages(2)) };
      }
      case 8: {
        // RecProj { tycon 1, field 4, record 3 }
        const r = m.message(8)!;
        return { tag: 'recProj', tycon: this.tyconApp(r.message(1)).tycon, field: ctx.str(r.int32(4)), record: this.expr(r.message(3)) };
      }
      case 9: {
        // RecUpd { tycon 1, field 2, record 3, update 4 }
        const r = m.message(9)!;
        return {
          tag: 'recUpd',
          tycon: this.tyconApp(r.message(1)).tycon,
          field: ctx.str(r.int32(2)),
          record: this.expr(r.message(3)),
          update: this.expr(r.message(4)),
        };
      }
      case 10: {
        // VariantCon { tycon 1, variant_con 2, variant_arg 3 }
        const v = m.message(10)!;
        const { tycon, args } = this.tyconApp(v.message(1));
        return { tag: 'variantCon', tycon, typeArgs: args, constructor: ctx.str(v.int32(2)), arg: this.expr(v.message(3)) };
      }
      case 11: {
        // EnumCon { tycon 1 (TypeConId), enum_con 2 }
        const e = m.message(11)!;
        return { tag: 'enumCon', tycon: ctx.typeConId(e.message(1)), constructor: ctx.str(e.int32(2)) };
      }
      case 12:
        return { tag: 'structCon', fields: this.fieldExprs(m.message(12)!.repeatedMessages(1)) };
      case 13: {
        const s = m.message(13)!;
        return { tag: 'structProj', field: ctx.str(s.int32(1)), struct: this.expr(s.message(2)) };
      }
      case 14: {
        const s = m.message(14)!;
        return { tag: 'structUpd', field: ctx.str(s.int32(1)), struct: this.expr(s.message(2)), update: this.expr(s.message(3)) };
      }
      case 15: {
        // App { fun 1, args 2 }
        const a = m.message(15)!;
        const fun = this.expr(a.message(1));
        const args = a.repeatedMessages(2).map((x) => this.expr(x));
        if (args.length === 0) throw new LfDecodeError('application without arguments');
        return { tag: 'app', fun, args };
      }
      case 16: {
        // TyApp { expr 1, types 2 }
        const a = m.message(16)!;
        const expr = this.expr(a.message(1));
        const types = a.repeatedMessages(2).map((t) => ctx.type(t));
        if (types.length === 0) throw new LfDecodeError('type application without types');
        return { tag: 'tyApp', expr, types };
      }
      case 17: {
        // Abs { param 1 (VarWithType { var 3, type 2 }), body 2 }
        const a = m.message(17)!;
        const params = a.repeatedMessages(1).map((p) => ({ name: ctx.str(p.int32(3)), type: ctx.type(p.message(2)) }));
        if (params.length === 0) throw new LfDecodeError('abstraction without parameters');
        return { tag: 'abs', params, body: this.expr(a.message(2)) };
      }
      case 18: {
        // TyAbs { param 1 (TypeVarWithKind { var 3, kind 2 }), body 2 }
        const a = m.message(18)!;
        const params = a.repeatedMessages(1).map((p) => ctx.str(p.int32(3)));
        if (params.length === 0) throw new LfDecodeError('type abstraction without parameters');
        return { tag: 'tyAbs', params, body: this.expr(a.message(2)) };
      }
      case 19: {
        // Case { scrut 1, alts 2 }
        const c = m.message(19)!;
        return { tag: 'case', scrut: this.expr(c.message(1)), alts: c.repeatedMessages(2).map((a) => this.caseAlt(a)) };
      }
      case 20: {
        // Block { bindings 1, body 2 }
        const b = m.message(20)!;
        const bindings = this.bindings(b.repeatedMessages(1));
        if (bindings.length === 0) throw new LfDecodeError('let without bindings');
        return { tag: 'let', bindings, body: this.expr(b.message(2)) };
      }
      case 21:
        return { tag: 'nil', type: ctx.type(m.message(21)!.message(1)) };
      case 22: {
        // Cons { type 1, front 2, tail 3 }
        const c = m.message(22)!;
        const front = c.repeatedMessages(2).map((x) => this.expr(x));
        if (front.length === 0) throw new LfDecodeError('cons without front elements');
        return { tag: 'cons', type: ctx.type(c.message(1)), front, tail: this.expr(c.message(3)) };
      }
      case 23:
        return this.update(m.message(23)!);
      case 25:
        return { tag: 'none', type: ctx.type(m.message(25)!.message(1)) };
      case 26: {
        const s = m.message(26)!;
        return { tag: 'some', type: ctx.type(s.message(1)), value: this.expr(s.message(2)) };
      }
      case 27: {
        const a = m.message(27)!;
        return { tag: 'toAny', type: ctx.type(a.message(1)), expr: this.expr(a.message(2)) };
      }
      case 28: {
        const a = m.message(28)!;
        return { tag: 'fromAny', type: ctx.type(a.message(1)), expr: this.expr(a.message(2)) };
      }
      case 29:
        return { tag: 'typeRep', type: ctx.type(m.message(29)) };
      case 30: {
        const a = m.message(30)!;
        return { tag: 'toAnyException', type: ctx.type(a.message(1)), expr: this.expr(a.message(2)) };
      }
      case 31: {
        const a = m.message(31)!;
        return { tag: 'fromAnyException', type: ctx.type(a.message(1)), expr: this.expr(a.message(2)) };
      }
      case 32: {
        // Throw { return_type 1, exception_type 2, exception_expr 3 }
        const t = m.message(32)!;
        return {
          tag: 'throw',
          returnType: ctx.type(t.message(1)),
          exceptionType: ctx.type(t.message(2)),
          expr: this.expr(t.message(3)),
        };
      }
      case 33: {
        // ToInterface { interface_type 1, template_type 2, template_expr 3 }
        const t = m.message(33)!;
        return { tag: 'toInterface', iface: ctx.typeConId(t.message(1)), template: ctx.typeConId(t.message(2)), expr: this.expr(t.message(3)) };
      }
      case 34: {
        const t = m.message(34)!;
        return { tag: 'fromInterface', iface: ctx.typeConId(t.message(1)), template: ctx.typeConId(t.message(2)), expr: this.expr(t.message(3)) };
      }
      case 35: {
        // CallInterface { interface_type 1, method_interned_name 2, interface_expr 3 }
        const c = m.message(35)!;
        return { tag: 'callInterface', iface: ctx.typeConId(c.message(1)), method: ctx.str(c.int32(2)), expr: this.expr(c.message(3)) };
      }
      case 36: {
        const s = m.message(36)!;
        return { tag: 'signatoryInterface', iface: ctx.typeConId(s.message(1)), expr: this.expr(s.message(2)) };
      }
      case 37: {
        const s = m.message(37)!;
        return { tag: 'observerInterface', iface: ctx.typeConId(s.message(1)), expr: this.expr(s.message(2)) };
      }
      case 38: {
        const s = m.message(38)!;
        return { tag: 'viewInterface', iface: ctx.typeConId(s.message(1)), expr: this.expr(s.message(2)) };
      }
      case 39: {
        // UnsafeFromInterface { interface_type 1, template_type 2, contract_id_expr 3, interface_expr 4 }
        const u = m.message(39)!;
        return {
          tag: 'unsafeFromInterface',
          iface: ctx.typeConId(u.message(1)),
          template: ctx.typeConId(u.message(2)),
          cid: this.expr(u.message(3)),
          expr: this.expr(u.message(4)),
        };
      }
      case 40: {
        const s = m.message(40)!;
        return { tag: 'interfaceTemplateTypeRep', iface: ctx.typeConId(s.message(1)), expr: this.expr(s.message(2)) };
      }
      case 41: {
        // ToRequiredInterface { required_interface 1, requiring_interface 2, expr 3 }
        const r = m.message(41)!;
        return {
          tag: 'toRequiredInterface',
          required: ctx.typeConId(r.message(1)),
          requiring: ctx.typeConId(r.message(2)),
          expr: this.expr(r.message(3)),
        };
      }
      case 42: {
        const r = m.message(42)!;
        return {
          tag: 'fromRequiredInterface',
          required: ctx.typeConId(r.message(1)),
          requiring: ctx.typeConId(r.message(2)),
          expr: this.expr(r.message(3)),
        };
      }
      case 43: {
        const r = m.message(43)!;
        return {
          tag: 'unsafeFromRequiredInterface',
          required: ctx.typeConId(r.message(1)),
          requiring: ctx.typeConId(r.message(2)),
          cid: this.expr(r.message(3)),
          expr: this.expr(r.message(4)),
        };
      }
      case 44:
        return this.internedExpr(m.int32(44));
      case 1001:
      case 1002: {
        // ChoiceController / ChoiceObserver { template 1, choice 2, contract_expr 3, choice_arg_expr 4 }
        const c = m.message(field)!;
        return {
          tag: field === 1001 ? 'choiceController' : 'choiceObserver',
          template: ctx.typeConId(c.message(1)),
          choice: ctx.str(c.int32(2)),
          contract: this.expr(c.message(3)),
          choiceArg: this.expr(c.message(4)),
        };
      }
      case 9999: {
        // Experimental { name 1, type 2 }
        const x = m.message(9999)!;
        return { tag: 'experimental', name: x.string(1), type: x.has(2) ? ctx.type(x.message(2)) : UNIT_TYPE };
      }
      case 0:
        throw new LfDecodeError('expression without a case');
      default:
        return this.unknown(`Expr case ${field}`);
    }
  }

  /** A construct this decoder does not know: decodes, and fails only when evaluated. */
  private unknown(what: string): Expr {
    return { tag: 'experimental', name: what, type: UNIT_TYPE };
  }

  /** `Package.interned_exprs` (2.dev): each entry decoded once, then shared. */
  private internedExpr(i: number): Expr {
    const hit = this.internedExprs.get(i);
    if (hit) return hit;
    const bytes = this.internedExprBytes[i];
    if (bytes === undefined) throw new LfDecodeError(`invalid interned expression index ${i}`);
    if (this.internedInProgress.has(i)) throw new LfDecodeError(`cyclic interned expression ${i}`);
    this.internedInProgress.add(i);
    try {
      const e = this.expr(ProtoMessage.decode(bytes));
      this.internedExprs.set(i, e);
      return e;
    } finally {
      this.internedInProgress.delete(i);
    }
  }

  private builtinCon(code: number): Expr | undefined {
    // BuiltinCon { CON_UNIT 0, CON_FALSE 1, CON_TRUE 2 }
    return code === 0 ? UNIT : code === 1 ? FALSE : code === 2 ? TRUE : undefined;
  }

  /**
   * `BuiltinLit { int64 1 (sint64), timestamp 2 (sfixed64 µs), numeric_interned_str 3,
   * text_interned_str 4, date 5 (days), failure_category 6, rounding_mode 1001 }`.
   */
  private literal(l: ProtoMessage): Expr {
    let value: Literal;
    if (l.has(1)) value = { lit: 'int64', value: l.sint64Big(1) };
    else if (l.has(2)) value = { lit: 'timestamp', micros: l.sfixed64(2) };
    else if (l.has(3)) value = { lit: 'numeric', ...parseNumericLiteral(this.ctx.str(l.int32(3))) };
    else if (l.has(4)) value = { lit: 'text', value: this.ctx.str(l.int32(4)) };
    else if (l.has(5)) value = { lit: 'date', days: l.int32(5) };
    else if (l.has(6)) {
      const fc = FAILURE_CATEGORIES[l.int32(6)];
      if (!fc) return this.unknown(`FailureCategory ${l.int32(6)}`);
      value = { lit: 'failureCategory', value: fc };
    } else if (l.has(1001)) {
      const rm = ROUNDING_MODES[l.int32(1001)];
      if (!rm) return this.unknown(`RoundingMode ${l.int32(1001)}`);
      value = { lit: 'roundingMode', value: rm };
    } else {
      const other = l.fieldNumbers().next();
      if (other.done) throw new LfDecodeError('literal without a case');
      return this.unknown(`BuiltinLit case ${other.value}`);
    }
    return { tag: 'lit', value };
  }

  /** `Type.Con { tycon 1, args 2 }`. */
  private tyconApp(m: ProtoMessage | undefined): { tycon: TypeConRef; args: LfType[] } {
    if (!m) throw new LfDecodeError('missing type constructor application');
    return { tycon: this.ctx.typeConId(m.message(1)), args: m.repeatedMessages(2).map((a) => this.ctx.type(a)) };
  }

  /** `FieldWithExpr { field 3, expr 2 }`. */
  private fieldExprs(fs: ProtoMessage[]): FieldExpr[] {
    return fs.map((f) => ({ field: this.ctx.str(f.int32(3)), expr: this.expr(f.message(2)) }));
  }

  /** `Binding { binder 1 (VarWithType { var 3, type 2 }), bound 2 }`. */
  private bindings(bs: ProtoMessage[]): Binding[] {
    return bs.map((b) => {
      const binder = b.message(1);
      if (!binder) throw new LfDecodeError('binding without a binder');
      return { name: this.ctx.str(binder.int32(3)), type: this.ctx.type(binder.message(2)), bound: this.expr(b.message(2)) };
    });
  }

  /**
   * `CaseAlt { body 1; default 2, variant 3, builtin_con 4, nil 5, cons 6, optional_none 7,
   * optional_some 8, enum 9 }`.
   */
  private caseAlt(a: ProtoMessage): CaseAlt {
    const ctx = this.ctx;
    let pattern: CasePattern;
    if (a.has(2)) pattern = { pat: 'default' };
    else if (a.has(3)) {
      const v = a.message(3)!;
      pattern = { pat: 'variant', tycon: ctx.typeConId(v.message(1)), constructor: ctx.str(v.int32(2)), binder: ctx.str(v.int32(3)) };
    } else if (a.has(4)) {
      const code = a.int32(4);
      if (code === 0) pattern = { pat: 'unit' };
      else if (code === 1 || code === 2) pattern = { pat: 'bool', value: code === 2 };
      else throw new LfDecodeError(`unknown BuiltinCon ${code} in a case pattern`);
    } else if (a.has(5)) pattern = { pat: 'nil' };
    else if (a.has(6)) {
      const c = a.message(6)!;
      pattern = { pat: 'cons', head: ctx.str(c.int32(1)), tail: ctx.str(c.int32(2)) };
    } else if (a.has(7)) pattern = { pat: 'none' };
    else if (a.has(8)) pattern = { pat: 'some', binder: ctx.str(a.message(8)!.int32(1)) };
    else if (a.has(9)) {
      const e = a.message(9)!;
      pattern = { pat: 'enum', tycon: ctx.typeConId(e.message(1)), constructor: ctx.str(e.int32(2)) };
    } else throw new LfDecodeError('case alternative without a pattern');
    return { pattern, body: this.expr(a.message(1)) };
  }

  // ---- updates --------------------------------------------------------------------------------

  /** `Update`, as the expression `{ tag: 'update' }` (or an unknown-construct marker). */
  private update(u: ProtoMessage): Expr {
    const ctx = this.ctx;
    let field = 0;
    for (const f of u.fieldNumbers()) {
      field = f;
      break;
    }
    let update: Update;
    switch (field) {
      case 1: {
        // Pure { type 1, expr 2 }
        const p = u.message(1)!;
        update = { tag: 'pure', type: ctx.type(p.message(1)), expr: this.expr(p.message(2)) };
        break;
      }
      case 2: {
        // Block { bindings 1, body 2 }
        const b = u.message(2)!;
        update = { tag: 'block', bindings: this.bindings(b.repeatedMessages(1)), body: this.expr(b.message(2)) };
        break;
      }
      case 3: {
        // Create { template 1, expr 2 }
        const c = u.message(3)!;
        update = { tag: 'create', template: ctx.typeConId(c.message(1)), expr: this.expr(c.message(2)) };
        break;
      }
      case 4: {
        // Exercise { template 1, choice 6, cid 3, arg 5 }
        const e = u.message(4)!;
        update = {
          tag: 'exercise',
          template: ctx.typeConId(e.message(1)),
          choice: ctx.str(e.int32(6)),
          cid: this.expr(e.message(3)),
          arg: this.expr(e.message(5)),
        };
        break;
      }
      case 5: {
        // Fetch { template 1, cid 2 }
        const f = u.message(5)!;
        update = { tag: 'fetch', template: ctx.typeConId(f.message(1)), cid: this.expr(f.message(2)) };
        break;
      }
      case 6:
        update = { tag: 'getTime' };
        break;
      case 7: {
        // EmbedExpr { type 1, body 2 }
        const e = u.message(7)!;
        update = { tag: 'embedExpr', type: ctx.type(e.message(1)), expr: this.expr(e.message(2)) };
        break;
      }
      case 9:
        // RetrieveByKey { template 1 }
        update = { tag: 'fetchByKey', template: ctx.typeConId(u.message(9)!.message(1)) };
        break;
      case 10: {
        // ExerciseByKey { template 1, choice 2, key 3, arg 4 }
        const e = u.message(10)!;
        update = {
          tag: 'exerciseByKey',
          template: ctx.typeConId(e.message(1)),
          choice: ctx.str(e.int32(2)),
          key: this.expr(e.message(3)),
          arg: this.expr(e.message(4)),
        };
        break;
      }
      case 11: {
        // TryCatch { return_type 1, try_expr 2, var 3, catch_expr 4 }
        const t = u.message(11)!;
        update = {
          tag: 'tryCatch',
          returnType: ctx.type(t.message(1)),
          tryExpr: this.expr(t.message(2)),
          binder: ctx.str(t.int32(3)),
          catchExpr: this.expr(t.message(4)),
        };
        break;
      }
      case 12: {
        // CreateInterface { interface 1, expr 2 }
        const c = u.message(12)!;
        update = { tag: 'createInterface', iface: ctx.typeConId(c.message(1)), expr: this.expr(c.message(2)) };
        break;
      }
      case 13: {
        // ExerciseInterface { interface 1, choice 2, cid 3, arg 4, guard 5 (optional) }
        const e = u.message(13)!;
        const ex: Update = {
          tag: 'exerciseInterface',
          iface: ctx.typeConId(e.message(1)),
          choice: ctx.str(e.int32(2)),
          cid: this.expr(e.message(3)),
          arg: this.expr(e.message(4)),
        };
        if (e.has(5)) ex.guard = this.expr(e.message(5));
        update = ex;
        break;
      }
      case 14: {
        // FetchInterface { interface 1, cid 2 }
        const f = u.message(14)!;
        update = { tag: 'fetchInterface', iface: ctx.typeConId(f.message(1)), cid: this.expr(f.message(2)) };
        break;
      }
      case 15:
        update = { tag: 'ledgerTimeLt', expr: this.expr(u.message(15)) };
        break;
      case 16:
        // QueryNByKey { template 1 }
        update = { tag: 'queryNByKey', template: ctx.typeConId(u.message(16)!.message(1)) };
        break;
      case 0:
        throw new LfDecodeError('update without a case');
      default:
        return this.unknown(`Update case ${field}`);
    }
    return { tag: 'update', update };
  }
}
