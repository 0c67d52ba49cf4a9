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
 *  - Kinds are dropped: type abstractions keep their variable names only. Module feature flags
 *    are not read (LF 2 fixes them).
 *  - Nesting deeper than `MAX_EXPR_DEPTH` is refused (an `LfDecodeError`, never a stack overflow).
 *  - Interned expressions may refer to any other entry, not only earlier ones as the reference
 *    decoder demands; a cycle is an `LfDecodeError`.
 *  - With `{ lazy: true }` value bodies are decoded when first read (see `DecodeOptions`).
 */
import {
  Lf2Context,
  LfDecodeError,
  readArchivePayload,
  type LfType,
  type TypeConRef,
} from '../../participant/dar/lf2.js';
import { ProtoMessage } from '../../shared/protobuf.js';
import { Msg } from '../../shared/lf-reader.js';
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
} from '../ast.js';

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

export interface DecodeOptions {
  /**
   * Decode the bodies of value definitions (`DefValue.expr`, where nearly all of a package's code
   * is: templates and choices call into them), and their types (`DefValue.type`, which running
   * code never reads: the evaluator trusts LF's type checking), on first access instead of up front. Uploading a
   * DAR then costs little more than its type-level decode, and only the code that runs is ever
   * decoded; the price is that a malformed body is reported when first used, not at upload.
   * Default false: everything is decoded, and checked, at once.
   */
  lazy?: boolean;
}

/** Decodes an ArchivePayload (as `lf2.ts`'s `decodePackage` takes it) with every expression. */
export function decodeDamlPackage(packageId: string, payload: Buffer, opts: DecodeOptions = {}): DamlPackage {
  return decodeDamlPackageWithStats(packageId, payload, opts).pkg;
}

/** `decodeDamlPackage`, also reporting the expression depth and count (for tests and benchmarks). */
export function decodeDamlPackageWithStats(
  packageId: string,
  payload: Buffer,
  opts: DecodeOptions = {},
): { pkg: DamlPackage; stats: DecodeStats } {
  const info = readArchivePayload(payload);
  const ctx = new Lf2Context(packageId, info.packageBytes);
  const d = new PackageDecoder(ctx, opts.lazy ?? false);
  const pkg: DamlPackage = {
    packageId,
    ...ctx.metadata(),
    lfVersion: `2.${info.minor}`,
    modules: new Map(),
  };
  try {
    for (const m of ctx.moduleMsgs()) {
      const mod = d.module(m);
      pkg.modules.set(mod.name, mod);
    }
  } catch (e) {
    // The depth limit keeps real packages (nesting below 50 in the Splice DARs) far from the
    // stack's end; a caller already deep in its own stack may still hit it first.
    if (e instanceof RangeError) throw new LfDecodeError(`expression nested too deeply to decode (${e.message})`);
    throw e;
  }
  return { pkg, stats: { maxExprDepth: d.maxDepth, exprCount: d.exprCount } };
}

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

/**
 * How deep `Expr` messages may nest before decoding gives up with an `LfDecodeError` rather than
 * overflowing the JS stack (each level costs a few frames; Node's default stack holds about 1,400
 * levels). The Splice DARs nest at most 46 deep.
 */
const MAX_EXPR_DEPTH = 1000;

class PackageDecoder {
  maxDepth = 0;
  exprCount = 0;
  private depth = 0;
  /** The module being decoded: where definitions' locations without a module are. */
  private moduleName = '';
  private readonly internedExprBytes: Buffer[];
  private readonly internedExprs = new Map<number, Expr>();
  private readonly internedInProgress = new Set<number>();

  constructor(
    private readonly ctx: Lf2Context,
    private readonly lazy: boolean,
  ) {
    this.internedExprBytes = ctx.repeatedBytes(7);
  }

  // ---- definitions ----------------------------------------------------------------------------

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
      type: this.typeF(s, 4),
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
      return lazyValue(ref, () => this.typeF(nt, 2), () => this.lazyExpr(v, 3), location);
    }
    out = { ref, type: this.typeF(nt, 2), expr: this.exprF(v, 3) };
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
      precond: t.has(3) ? this.exprF(t, 3) : TRUE,
      signatories: this.exprF(t, 4),
      observers: this.exprF(t, 7),
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
    return { type: this.typeF(k, 1), body: this.exprF(k, 4), maintainers: this.exprF(k, 3) };
  }

  /** `Implements { interface 1, body 2 { methods 1 { name 1, value 2 }, view 2 }, location 3 }`. */
  private interfaceInstance(impl: Msg): InterfaceInstance {
    const iface = this.typeConId(impl.msg(1));
    const body = impl.msg(2);
    if (!body) throw new LfDecodeError(`interface instance of ${tyconKey(iface)} without a body`);
    const methods = new Map<string, Expr>();
    for (const m of body.msgs(1)) methods.set(this.ctx.str(m.int32(1)), this.exprF(m, 2));
    return { iface, methods, view: this.exprF(body, 2) };
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
      controllers: this.exprF(c, 4),
      selfBinder: this.ctx.str(c.int32(10)),
      argBinder: { name: this.ctx.str(binder.int32(3)), type: this.typeF(binder, 2) },
      returnType: this.typeF(c, 8),
      update: this.exprF(c, 9),
    };
    if (c.has(5)) out.observers = this.exprF(c, 5);
    if (c.has(1001)) out.authorizers = this.exprF(c, 1001);
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
      methods.set(name, { name, type: this.typeF(m, 3) });
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
      view: this.typeF(i, 6),
      requires: i.msgs(7).map((r) => tyconKey(this.typeConId(r))),
    };
    const loc = this.location(i.msg(1));
    if (loc) out.location = loc;
    return out;
  }

  /** `DefException { name 1, location 2, message 3 }`. */
  private exception(e: Msg): DefException {
    return { tycon: this.selfTycon(e.int32(1)), message: this.exprF(e, 3) };
  }

  /** `Location { module 1 (optional: the current module), range 2 { start_line 1, start_col 2, end_line 3, end_col 4 } }`. */
  private location(l: Msg | undefined): SourceLocation | undefined {
    const range = l?.msg(2);
    if (!l || !range) return undefined;
    const mod = l.msg(1);
    const where = mod ? this.moduleId(mod) : { packageId: this.ctx.selfId, moduleName: this.moduleName };
    return {
      ...where,
      startLine: range.int32(1),
      startCol: range.int32(2),
      endLine: range.int32(3),
      endCol: range.int32(4),
    };
  }

  // ---- expressions ----------------------------------------------------------------------------

  /** `exprF` for a lazily decoded body: run later, from a fresh stack, with the stack-overflow guard. */
  private lazyExpr(p: Msg, field: number): Expr {
    try {
      return this.exprF(p, field);
    } catch (e) {
      if (e instanceof RangeError) throw new LfDecodeError(`expression nested too deeply to decode (${e.message})`);
      throw e;
    }
  }

  /** The required `Expr` field `field` of `p`. */
  private exprF(p: Msg, field: number): Expr {
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
  private exprAt(buf: Buffer, start: number, end: number): Expr {
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
        return { tag: 'val', ref: { ...this.moduleId(mod), name: ctx.dname(v.int32(2)) } };
      }
      case 4: {
        const code = v;
        const name = BUILTIN_FUNCTIONS.get(code);
        return name ? { tag: 'builtin', name } : this.unknown(`BuiltinFunction ${code}`);
      }
      case 5:
        return this.builtinCon(v) ?? this.unknown(`BuiltinCon ${v}`);
      case 6:
        return this.literal(need().asProto());
      case 7: {
        // RecCon { tycon 1 (Type.Con), fields 2 }
        const r = need();
        const { tycon, args } = this.tyconApp(r.msg(1));
        return { tag: 'recCon', tycon, typeArgs: args, fields: this.fieldExprs(r.msgs(2)) };
      }
      case 8: {
        // RecProj { tycon 1, field 4, record 3 }
        const r = need();
        return { tag: 'recProj', tycon: this.tyconApp(r.msg(1)).tycon, field: ctx.str(r.int32(4)), record: this.exprF(r, 3) };
      }
      case 9: {
        // RecUpd { tycon 1, field 2, record 3, update 4 }
        const r = need();
        return {
          tag: 'recUpd',
          tycon: this.tyconApp(r.msg(1)).tycon,
          field: ctx.str(r.int32(2)),
          record: this.exprF(r, 3),
          update: this.exprF(r, 4),
        };
      }
      case 10: {
        // VariantCon { tycon 1, variant_con 2, variant_arg 3 }
        const v = need();
        const { tycon, args } = this.tyconApp(v.msg(1));
        return { tag: 'variantCon', tycon, typeArgs: args, constructor: ctx.str(v.int32(2)), arg: this.exprF(v, 3) };
      }
      case 11: {
        // EnumCon { tycon 1 (TypeConId), enum_con 2 }
        const e = need();
        return { tag: 'enumCon', tycon: this.typeConId(e.msg(1)), constructor: ctx.str(e.int32(2)) };
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
        const types = this.typesF(a, 2);
        if (types.length === 0) throw new LfDecodeError('type application without types');
        return { tag: 'tyApp', expr, types };
      }
      case 17: {
        // Abs { param 1 (VarWithType { var 3, type 2 }), body 2 }
        const a = need();
        const params = a.msgs(1).map((p) => ({ name: ctx.str(p.int32(3)), type: this.typeF(p, 2) }));
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
        return { tag: 'nil', type: this.type(need().msg(1)) };
      case 22: {
        // Cons { type 1, front 2, tail 3 }
        const c = need();
        const front = this.exprsF(c, 2);
        if (front.length === 0) throw new LfDecodeError('cons without front elements');
        return { tag: 'cons', type: this.typeF(c, 1), front, tail: this.exprF(c, 3) };
      }
      case 23:
        return this.update(need());
      case 25:
        return { tag: 'none', type: this.type(need().msg(1)) };
      case 26: {
        const s = need();
        return { tag: 'some', type: this.typeF(s, 1), value: this.exprF(s, 2) };
      }
      case 27: {
        const a = need();
        return { tag: 'toAny', type: this.typeF(a, 1), expr: this.exprF(a, 2) };
      }
      case 28: {
        const a = need();
        return { tag: 'fromAny', type: this.typeF(a, 1), expr: this.exprF(a, 2) };
      }
      case 29:
        return { tag: 'typeRep', type: this.type(need()) };
      case 30: {
        const a = need();
        return { tag: 'toAnyException', type: this.typeF(a, 1), expr: this.exprF(a, 2) };
      }
      case 31: {
        const a = need();
        return { tag: 'fromAnyException', type: this.typeF(a, 1), expr: this.exprF(a, 2) };
      }
      case 32: {
        // Throw { return_type 1, exception_type 2, exception_expr 3 }
        const t = need();
        return {
          tag: 'throw',
          returnType: this.typeF(t, 1),
          exceptionType: this.typeF(t, 2),
          expr: this.exprF(t, 3),
        };
      }
      case 33: {
        // ToInterface { interface_type 1, template_type 2, template_expr 3 }
        const t = need();
        return { tag: 'toInterface', iface: this.typeConId(t.msg(1)), template: this.typeConId(t.msg(2)), expr: this.exprF(t, 3) };
      }
      case 34: {
        const t = need();
        return { tag: 'fromInterface', iface: this.typeConId(t.msg(1)), template: this.typeConId(t.msg(2)), expr: this.exprF(t, 3) };
      }
      case 35: {
        // CallInterface { interface_type 1, method_interned_name 2, interface_expr 3 }
        const c = need();
        return { tag: 'callInterface', iface: this.typeConId(c.msg(1)), method: ctx.str(c.int32(2)), expr: this.exprF(c, 3) };
      }
      case 36: {
        const s = need();
        return { tag: 'signatoryInterface', iface: this.typeConId(s.msg(1)), expr: this.exprF(s, 2) };
      }
      case 37: {
        const s = need();
        return { tag: 'observerInterface', iface: this.typeConId(s.msg(1)), expr: this.exprF(s, 2) };
      }
      case 38: {
        const s = need();
        return { tag: 'viewInterface', iface: this.typeConId(s.msg(1)), expr: this.exprF(s, 2) };
      }
      case 39: {
        // UnsafeFromInterface { interface_type 1, template_type 2, contract_id_expr 3, interface_expr 4 }
        const u = need();
        return {
          tag: 'unsafeFromInterface',
          iface: this.typeConId(u.msg(1)),
          template: this.typeConId(u.msg(2)),
          cid: this.exprF(u, 3),
          expr: this.exprF(u, 4),
        };
      }
      case 40: {
        const s = need();
        return { tag: 'interfaceTemplateTypeRep', iface: this.typeConId(s.msg(1)), expr: this.exprF(s, 2) };
      }
      case 41: {
        // ToRequiredInterface { required_interface 1, requiring_interface 2, expr 3 }
        const r = need();
        return {
          tag: 'toRequiredInterface',
          required: this.typeConId(r.msg(1)),
          requiring: this.typeConId(r.msg(2)),
          expr: this.exprF(r, 3),
        };
      }
      case 42: {
        const r = need();
        return {
          tag: 'fromRequiredInterface',
          required: this.typeConId(r.msg(1)),
          requiring: this.typeConId(r.msg(2)),
          expr: this.exprF(r, 3),
        };
      }
      case 43: {
        const r = need();
        return {
          tag: 'unsafeFromRequiredInterface',
          required: this.typeConId(r.msg(1)),
          requiring: this.typeConId(r.msg(2)),
          cid: this.exprF(r, 3),
          expr: this.exprF(r, 4),
        };
      }
      case 44:
        return this.internedExpr(v);
      case 1001:
      case 1002: {
        // ChoiceController / ChoiceObserver { template 1, choice 2, contract_expr 3, choice_arg_expr 4 }
        const c = need();
        return {
          tag: field === 1001 ? 'choiceController' : 'choiceObserver',
          template: this.typeConId(c.msg(1)),
          choice: ctx.str(c.int32(2)),
          contract: this.exprF(c, 3),
          choiceArg: this.exprF(c, 4),
        };
      }
      case 9999: {
        // Experimental { name 1, type 2 }
        const x = need();
        return { tag: 'experimental', name: x.string(1), type: x.has(2) ? this.typeF(x, 2) : UNIT_TYPE };
      }
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
      const e = this.exprAt(bytes, 0, bytes.length);
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

  /**
   * A `Type`: most types in expressions are `interned_type = 8` references, taken from the shared
   * cache without building a reader; others go through the shared type decoder.
   */
  private type(m: Msg | undefined): LfType {
    if (!m) throw new LfDecodeError('missing type');
    if (m.caseOf() === 8) return this.ctx.interned(m.int32(8));
    return this.ctx.type(m.asProto());
  }

  /** The required `Type` field `field` of `p`. */
  private typeF(p: Msg, field: number): LfType {
    const i = p.last(field);
    if (i < 0) throw new LfDecodeError('missing type');
    if (p.f[i + 1] !== 2) throw new LfDecodeError(`type field ${field} is not a message`);
    return this.typeAt(p.buf, p.f[i + 2]!, p.f[i + 3]!);
  }

  private typesF(p: Msg, field: number): LfType[] {
    const out: LfType[] = [];
    const f = p.f;
    for (let i = 0; i < f.length; i += 4) {
      if (f[i] !== field) continue;
      if (f[i + 1] !== 2) throw new LfDecodeError(`type field ${field} is not a message`);
      out.push(this.typeAt(p.buf, f[i + 2]!, f[i + 3]!));
    }
    return out;
  }

  /** The `Type` in `buf[start, end)`; the common `{ interned_type = 8 }` read in place. */
  private typeAt(buf: Buffer, start: number, end: number): LfType {
    // Key 0x40 is field 8, wire type 0.
    if (end > start && buf[start] === 0x40) {
      let pos = start + 1;
      let v = 0;
      let shift = 0;
      let b: number;
      do {
        if (pos >= end) break;
        b = buf[pos++]!;
        v |= (b & 0x7f) << shift;
        shift += 7;
      } while (b & 0x80 && shift < 35);
      if (pos === end) return this.ctx.interned(v | 0);
    }
    return this.ctx.type(ProtoMessage.decode(buf.subarray(start, end)));
  }

  /** `TypeConId { module 1, name_interned_dname 2 }`. */
  private typeConId(m: Msg | undefined): TypeConRef {
    if (!m) throw new LfDecodeError('missing type constructor reference');
    const mod = m.msg(1);
    if (!mod) throw new LfDecodeError('type constructor reference without module');
    const { packageId, moduleName } = this.moduleId(mod);
    return { packageId, moduleName, entityName: this.ctx.dname(m.int32(2)) };
  }

  /**
   * `ModuleId { package_id 1 (SelfOrImportedPackageId { self 1 | interned_str 3 | import 4 }),
   * module_name_interned_dname 2 }`.
   */
  private moduleId(m: Msg): { packageId: string; moduleName: string } {
    const p = m.msg(1);
    let packageId = this.ctx.selfId;
    if (p) {
      const c = p.caseOf();
      if (c === 3) packageId = this.ctx.str(p.int32(3));
      else if (c === 4) packageId = this.ctx.importedPackage(p.int32(4));
    }
    return { packageId, moduleName: this.ctx.dname(m.int32(2)) };
  }

  /** `Type.Con { tycon 1, args 2 }`. */
  private tyconApp(m: Msg | undefined): { tycon: TypeConRef; args: LfType[] } {
    if (!m) throw new LfDecodeError('missing type constructor application');
    return { tycon: this.typeConId(m.msg(1)), args: this.typesF(m, 2) };
  }

  /** `FieldWithExpr { field 3, expr 2 }`. */
  private fieldExprs(fs: Msg[]): FieldExpr[] {
    return fs.map((f) => ({ field: this.ctx.str(f.int32(3)), expr: this.exprF(f, 2) }));
  }

  /** `Binding { binder 1 (VarWithType { var 3, type 2 }), bound 2 }`. */
  private bindings(bs: Msg[]): Binding[] {
    return bs.map((b) => {
      const binder = b.msg(1);
      if (!binder) throw new LfDecodeError('binding without a binder');
      return { name: this.ctx.str(binder.int32(3)), type: this.typeF(binder, 2), bound: this.exprF(b, 2) };
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
      pattern = { pat: 'variant', tycon: this.typeConId(v.msg(1)), constructor: ctx.str(v.int32(2)), binder: ctx.str(v.int32(3)) };
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
      pattern = { pat: 'enum', tycon: this.typeConId(e.msg(1)), constructor: ctx.str(e.int32(2)) };
    } else throw new LfDecodeError('case alternative without a pattern');
    return { pattern, body: this.exprF(a, 1) };
  }

  // ---- updates --------------------------------------------------------------------------------

  /** `Update`, as the expression `{ tag: 'update' }` (or an unknown-construct marker). */
  private update(u: Msg): Expr {
    const ctx = this.ctx;
    const field = u.caseOf();
    let update: Update;
    switch (field) {
      case 1: {
        // Pure { type 1, expr 2 }
        const p = u.msg(1)!;
        update = { tag: 'pure', type: this.typeF(p, 1), expr: this.exprF(p, 2) };
        break;
      }
      case 2: {
        // Block { bindings 1, body 2 }
        const b = u.msg(2)!;
        update = { tag: 'block', bindings: this.bindings(b.msgs(1)), body: this.exprF(b, 2) };
        break;
      }
      case 3: {
        // Create { template 1, expr 2 }
        const c = u.msg(3)!;
        update = { tag: 'create', template: this.typeConId(c.msg(1)), expr: this.exprF(c, 2) };
        break;
      }
      case 4: {
        // Exercise { template 1, choice 6, cid 3, arg 5 }
        const e = u.msg(4)!;
        update = {
          tag: 'exercise',
          template: this.typeConId(e.msg(1)),
          choice: ctx.str(e.int32(6)),
          cid: this.exprF(e, 3),
          arg: this.exprF(e, 5),
        };
        break;
      }
      case 5: {
        // Fetch { template 1, cid 2 }
        const f = u.msg(5)!;
        update = { tag: 'fetch', template: this.typeConId(f.msg(1)), cid: this.exprF(f, 2) };
        break;
      }
      case 6:
        update = { tag: 'getTime' };
        break;
      case 7: {
        // EmbedExpr { type 1, body 2 }
        const e = u.msg(7)!;
        update = { tag: 'embedExpr', type: this.typeF(e, 1), expr: this.exprF(e, 2) };
        break;
      }
      case 9:
        // RetrieveByKey { template 1 }
        update = { tag: 'fetchByKey', template: this.typeConId(u.msg(9)!.msg(1)) };
        break;
      case 10: {
        // ExerciseByKey { template 1, choice 2, key 3, arg 4 }
        const e = u.msg(10)!;
        update = {
          tag: 'exerciseByKey',
          template: this.typeConId(e.msg(1)),
          choice: ctx.str(e.int32(2)),
          key: this.exprF(e, 3),
          arg: this.exprF(e, 4),
        };
        break;
      }
      case 11: {
        // TryCatch { return_type 1, try_expr 2, var 3, catch_expr 4 }
        const t = u.msg(11)!;
        update = {
          tag: 'tryCatch',
          returnType: this.typeF(t, 1),
          tryExpr: this.exprF(t, 2),
          binder: ctx.str(t.int32(3)),
          catchExpr: this.exprF(t, 4),
        };
        break;
      }
      case 12: {
        // CreateInterface { interface 1, expr 2 }
        const c = u.msg(12)!;
        update = { tag: 'createInterface', iface: this.typeConId(c.msg(1)), expr: this.exprF(c, 2) };
        break;
      }
      case 13: {
        // ExerciseInterface { interface 1, choice 2, cid 3, arg 4, guard 5 (optional) }
        const e = u.msg(13)!;
        const ex: Update = {
          tag: 'exerciseInterface',
          iface: this.typeConId(e.msg(1)),
          choice: ctx.str(e.int32(2)),
          cid: this.exprF(e, 3),
          arg: this.exprF(e, 4),
        };
        if (e.has(5)) ex.guard = this.exprF(e, 5);
        update = ex;
        break;
      }
      case 14: {
        // FetchInterface { interface 1, cid 2 }
        const f = u.msg(14)!;
        update = { tag: 'fetchInterface', iface: this.typeConId(f.msg(1)), cid: this.exprF(f, 2) };
        break;
      }
      case 15:
        update = { tag: 'ledgerTimeLt', expr: this.exprF(u, 15) };
        break;
      case 16:
        // QueryNByKey { template 1 }
        update = { tag: 'queryNByKey', template: this.typeConId(u.msg(16)!.msg(1)) };
        break;
      case 0:
        throw new LfDecodeError('update without a case');
      default:
        return this.unknown(`Update case ${field}`);
    }
    return { tag: 'update', update };
  }
}
