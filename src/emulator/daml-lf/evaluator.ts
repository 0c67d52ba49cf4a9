/**
 * The Daml-LF 2 evaluator: runs the templates, choices, interface instances and values of
 * decoded packages (ast.ts) for the emulated ledger, as the `DamlEngine` of runtime.ts.
 *
 * Expressions are compiled once to JS closures (compile.ts, update.ts) and cached: top-level
 * values per definition (evaluated lazily, once, daml-lf-2.rst "Expression evaluation" allows
 * memoizing them), template and choice parts per template, interface instance methods and views
 * per (template, interface), exception messages per exception type.
 *
 * Errors: a Daml exception (`DamlThrow`) that no `try` catches becomes, at the outermost engine
 * call, `DamlFailure { kind: 'unhandledException' }` (Speedy's `UnhandledException`; Canton
 * reports it as `UNHANDLED_EXCEPTION`). Nested engine calls (the ledger calling back while an
 * update runs, e.g. an exercise inside a choice) let `DamlThrow` through untouched, so that a
 * `try` in the calling choice can catch it. The step budget (closure entries) is reset at every
 * outermost call; a JS stack overflow becomes a `DamlFailure` too.
 *
 * `ANY_EXCEPTION_MESSAGE` is implemented here, not by the builtins: it needs the exception
 * definitions (an exception's message is its DefException's `message` function applied).
 *
 * Limits: contract keys (Daml-LF 2.dev) and guarded interface exercises are unsupported (see
 * update.ts); interface instances are looked up in the template only (LF 2 has no instances
 * declared in the interface); `EXTERNAL_CALL` is whatever the builtins table does. Daml
 * recursion runs on the JS stack: with Node's default stack, a few thousand nested non-tail
 * Daml calls (measured: about 3,000 for a recursive list sum) end in the stack-overflow failure
 * (the stdlib's list functions use the FOLDL/FOLDR builtins and do not recurse). The step
 * budget counts closure entries, not builtin work.
 */
import {
  tyconKey,
  type BuiltinFunctionName,
  type DamlModule,
  type DefException,
  type DefInterface,
  type DefTemplate,
  type Expr,
  type LfType,
  type PackageLookup,
  type TemplateChoice,
  type TypeConRef,
  type ValueRef,
} from './ast.js';
import { Compiler, apply } from './compile.js';
import { internal } from './compile-scope.js';
import { normalizeType, refText } from './eval-types.js';
import { DamlFailure, DamlThrow, type DamlEngine, type LedgerPort } from './runtime.js';
import { UNIT, contractId, fun, text, type AnyExceptionV, type FunV, type RecordV, type Value } from '../lf-value/runtime-value.js';

export interface EvaluatorOptions {
  builtins: (name: BuiltinFunctionName) => FunV;
  /** Closure entries allowed per outermost engine call (default 10,000,000). */
  stepBudget?: number;
}

type Root = (args: readonly Value[]) => Value;

interface ValueCell {
  state: 'todo' | 'running' | 'done';
  value?: Value;
}

interface TemplateCode {
  def: DefTemplate;
  signatories?: Root;
  observers?: Root;
  precond?: Root;
  key?: { body: Root; maintainers: Root };
}

interface ChoiceCode {
  choice: TemplateChoice;
  /** `param` of the owner (template or interface). */
  param: string;
  controllers?: Root;
  observers?: Root;
  update?: Root;
}

interface InstanceCode {
  view: Root;
  methods: Map<string, Root>;
}

const DEFAULT_BUDGET = 10_000_000;

export class Evaluator implements DamlEngine {
  readonly st = { remaining: DEFAULT_BUDGET };
  private readonly budget: number;
  private readonly compiler: Compiler;
  private depth = 0;
  private readonly values = new Map<string, ValueCell>();
  private readonly builtinValues = new Map<BuiltinFunctionName, Value>();
  private readonly recordFieldsCache = new Map<string, readonly string[]>();
  private readonly rankCache = new Map<string, Map<string, number>>();
  private readonly templates = new Map<string, TemplateCode>();
  private readonly choices = new Map<string, ChoiceCode>();
  private readonly instances = new Map<string, InstanceCode>();
  private readonly messageFns = new Map<string, Value>();
  private readonly messages = new WeakMap<AnyExceptionV, string>();

  constructor(
    private readonly packages: PackageLookup,
    private readonly opts: EvaluatorOptions,
  ) {
    this.budget = opts.stepBudget ?? DEFAULT_BUDGET;
    this.st.remaining = this.budget;
    this.compiler = new Compiler(this);
  }

  // ---- DamlEngine ---------------------------------------------------------------------------

  hasTemplate(template: TypeConRef): boolean {
    return this.module(template)?.templates.has(template.entityName) ?? false;
  }

  signatories(template: TypeConRef, arg: RecordV): string[] {
    return this.call(() => parties(this.templateSignatoriesOf(template, arg)));
  }

  observers(template: TypeConRef, arg: RecordV): string[] {
    return this.call(() => parties(this.templateObserversOf(template, arg)));
  }

  precondition(template: TypeConRef, arg: RecordV): boolean {
    return this.call(() => {
      const t = this.templateCode(template);
      t.precond ??= this.compiler.compileRoot(t.def.precond, [t.def.param]);
      const v = t.precond([arg]);
      if (v.tag !== 'bool') internal(`precondition of ${refText(template)} is a ${v.tag}`);
      return v.value;
    });
  }

  key(template: TypeConRef, arg: RecordV): { key: Value; maintainers: string[] } | undefined {
    return this.call(() => {
      const t = this.templateCode(template);
      const k = t.def.key;
      if (k === undefined) return undefined;
      t.key ??= { body: this.compiler.compileRoot(k.body, [t.def.param]), maintainers: this.compiler.compileRoot(k.maintainers, []) };
      const key = t.key.body([arg]);
      return { key, maintainers: parties(apply(t.key.maintainers([]), [key])) };
    });
  }

  controllers(owner: TypeConRef, choice: string, arg: RecordV, choiceArg: Value): string[] {
    return this.call(() => parties(this.choiceControllers(owner, choice, arg, choiceArg)));
  }

  choiceObservers(owner: TypeConRef, choice: string, arg: RecordV, choiceArg: Value): string[] {
    return this.call(() => parties(this.choiceObserversValue(owner, choice, arg, choiceArg)));
  }

  exercise(owner: TypeConRef, choice: string, cid: string, arg: RecordV, choiceArg: Value, ledger: LedgerPort): Value {
    return this.call(() => {
      const c = this.choiceCode(owner, choice);
      c.update ??= this.choiceRoot(c, c.choice.update);
      const u = c.update([arg, contractId(cid), choiceArg]);
      if (u.tag !== 'update') internal(`choice ${choice} body is a ${u.tag}, not an update`);
      return u.run(ledger);
    });
  }

  view(iface: TypeConRef, arg: RecordV): Value {
    return this.call(() => this.interfaceView(iface, arg));
  }

  /** Evaluates a top-level value (e.g. a pure function, then applied with `applyTop`). */
  evaluateValue(ref: ValueRef): Value {
    return this.call(() => this.topValue(ref));
  }

  /** Applies a function value to arguments as an outermost engine call (budget, error mapping). */
  applyFunction(f: Value, args: Value[]): Value {
    return this.call(() => apply(f, args));
  }

  /** Runs an update value against a ledger as an outermost engine call. */
  runUpdate(u: Value, ledger: LedgerPort): Value {
    return this.call(() => {
      if (u.tag !== 'update') internal(`running a ${u.tag} value as an update`);
      return u.run(ledger);
    });
  }

  // ---- the outermost-call wrapper -----------------------------------------------------------

  private call<T>(body: () => T): T {
    if (this.depth > 0) {
      this.depth++;
      try {
        return body();
      } finally {
        this.depth--;
      }
    }
    this.st.remaining = this.budget;
    this.depth = 1;
    try {
      return body();
    } catch (err) {
      throw this.outermostError(err);
    } finally {
      this.depth = 0;
    }
  }

  private outermostError(err: unknown): unknown {
    if (err instanceof DamlThrow) {
      const v = err.exception.value;
      const t = err.exception.type;
      const exceptionType =
        v.tag === 'record' ? v.tycon : t.kind === 'con' ? t.tycon : { packageId: '', moduleName: '', entityName: 'AnyException' };
      return new DamlFailure({ kind: 'unhandledException', exceptionType, message: err.exceptionMessage, value: v });
    }
    if (err instanceof RangeError) {
      const overflow = /call stack/i.test(err.message);
      return new DamlFailure({
        kind: 'other',
        message: overflow
          ? 'Daml evaluation ran out of stack (recursion too deep)'
          : `Daml evaluation failed: ${err.message}`,
      });
    }
    return err;
  }

  // ---- Runtime (used by compiled code) -------------------------------------------------------

  budgetExceeded(): never {
    throw new DamlFailure({ kind: 'budgetExceeded', steps: this.budget });
  }

  topValue(ref: ValueRef): Value {
    const key = `${ref.packageId}:${ref.moduleName}:${ref.name}`;
    let cell = this.values.get(key);
    if (cell === undefined) {
      cell = { state: 'todo' };
      this.values.set(key, cell);
    }
    if (cell.state === 'done') return cell.value!;
    if (cell.state === 'running') internal(`top-level value ${ref.moduleName}:${ref.name} depends on itself`);
    const def = this.packages.get(ref.packageId)?.modules.get(ref.moduleName)?.values.get(ref.name);
    if (def === undefined) internal(`unknown value ${ref.packageId}:${ref.moduleName}:${ref.name}`);
    cell.state = 'running';
    try {
      const v = this.compiler.compileRoot(def.expr, [])([]);
      cell.value = v;
      cell.state = 'done';
      return v;
    } catch (err) {
      cell.state = 'todo';
      throw err;
    }
  }

  builtin(name: BuiltinFunctionName): Value {
    let v = this.builtinValues.get(name);
    if (v === undefined) {
      if (name === 'ANY_EXCEPTION_MESSAGE') {
        v = fun(
          1,
          ([ex]) => {
            if (ex === undefined || ex.tag !== 'anyException') return internal('ANY_EXCEPTION_MESSAGE of a non-exception');
            return text(this.exceptionMessage(ex));
          },
          name,
        );
      } else {
        const f = this.opts.builtins(name);
        // Nullary builtins (GENMAP_EMPTY, TEXTMAP_EMPTY) are values.
        v = f.arity === 0 ? f.invoke([]) : f;
      }
      this.builtinValues.set(name, v);
    }
    return v;
  }

  recordFields(tycon: TypeConRef): readonly string[] {
    const key = tyconKey(tycon);
    let names = this.recordFieldsCache.get(key);
    if (names === undefined) {
      const dt = this.module(tycon)?.dataTypes.get(tycon.entityName);
      if (dt === undefined || dt.kind !== 'record') internal(`unknown record type ${refText(tycon)}`);
      names = Object.freeze(dt.fields.map((f) => f.name));
      this.recordFieldsCache.set(key, names);
    }
    return names;
  }

  constructorRank(tycon: TypeConRef, constructor: string): number {
    const key = tyconKey(tycon);
    let ranks = this.rankCache.get(key);
    if (ranks === undefined) {
      const dt = this.module(tycon)?.dataTypes.get(tycon.entityName);
      if (dt === undefined) internal(`unknown data type ${refText(tycon)}`);
      const names = dt.kind === 'variant' ? dt.constructors.map((c) => c.name) : dt.kind === 'enum' ? dt.constructors : [];
      ranks = new Map(names.map((n, i) => [n, i]));
      this.rankCache.set(key, ranks);
    }
    const r = ranks.get(constructor);
    if (r === undefined) internal(`${refText(tycon)} has no constructor ${constructor}`);
    return r;
  }

  normalizeType(t: LfType): LfType {
    return normalizeType(this.packages, t);
  }

  rememberMessage(ex: AnyExceptionV, message: string): void {
    this.messages.set(ex, message);
  }

  exceptionMessage(ex: AnyExceptionV): string {
    const known = this.messages.get(ex);
    if (known !== undefined) return known;
    const v = ex.value;
    const tycon = v.tag === 'record' ? v.tycon : ex.type.kind === 'con' ? ex.type.tycon : undefined;
    const def = tycon === undefined ? undefined : this.exceptionDef(tycon);
    let message: string;
    if (tycon !== undefined && def !== undefined) {
      const key = tyconKey(tycon);
      let f = this.messageFns.get(key);
      if (f === undefined) {
        f = this.compiler.compileRoot(def.message, [])([]);
        this.messageFns.set(key, f);
      }
      const m = apply(f, [v]);
      if (m.tag !== 'text') internal(`exception message of ${refText(tycon)} is a ${m.tag}`);
      message = m.value;
    } else if (v.tag === 'record' && v.fieldNames.includes('message')) {
      // Exceptions of packages not loaded (the builtins' ArithmeticError, daml-lf-2.rst "About
      // Exceptions") carry their message in the `message` field.
      const m = v.fields[v.fieldNames.indexOf('message')];
      message = m?.tag === 'text' ? m.value : '';
    } else {
      message = tycon === undefined ? 'exception' : refText(tycon);
    }
    this.messages.set(ex, message);
    return message;
  }

  implementsInterface(template: TypeConRef, iface: TypeConRef): boolean {
    const def = this.templateDef(template);
    return def?.implements.has(tyconKey(iface)) ?? false;
  }

  callMethod(iface: TypeConRef, method: string, rec: RecordV): Value {
    if (rec.foreign) {
      throw new DamlFailure({ kind: 'unsupported', feature: `method ${method} of ${refText(iface)} on a contract of ${refText(rec.tycon)}, a template the ledger implements natively` });
    }
    const inst = this.instanceCode(rec.tycon, iface);
    const m = inst.methods.get(method);
    if (m === undefined) internal(`${refText(rec.tycon)} implements no method ${method} of ${refText(iface)}`);
    return m([rec]);
  }

  interfaceView(iface: TypeConRef, rec: RecordV): Value {
    if (rec.foreign) {
      const v = rec.foreign.view(iface);
      if (v === undefined) throw new DamlFailure({ kind: 'contractDoesNotImplementInterface', cid: '', iface, template: rec.tycon });
      return v;
    }
    return this.instanceCode(rec.tycon, iface).view([rec]);
  }

  /** Whether the template of the interface value `rec` implements `iface`. */
  recordImplements(rec: RecordV, iface: TypeConRef): boolean {
    return rec.foreign ? rec.foreign.implements(iface) : this.implementsInterface(rec.tycon, iface);
  }

  templateSignatories(rec: RecordV): Value {
    if (rec.foreign) return partyList(rec.foreign.signatories);
    return this.templateSignatoriesOf(rec.tycon, rec);
  }

  templateObservers(rec: RecordV): Value {
    if (rec.foreign) return partyList(rec.foreign.observers);
    return this.templateObserversOf(rec.tycon, rec);
  }

  choiceControllers(owner: TypeConRef, choice: string, rec: RecordV, arg: Value): Value {
    const c = this.choiceCode(owner, choice);
    c.controllers ??= this.choiceRoot(c, c.choice.controllers);
    return c.controllers([rec, UNIT, arg]);
  }

  choiceObserversValue(owner: TypeConRef, choice: string, rec: RecordV, arg: Value): Value {
    const c = this.choiceCode(owner, choice);
    const obs = c.choice.observers;
    if (obs === undefined) return { tag: 'list', items: [] };
    c.observers ??= this.choiceRoot(c, obs);
    return c.observers([rec, UNIT, arg]);
  }

  // ---- definitions ----------------------------------------------------------------------------

  private module(ref: TypeConRef): DamlModule | undefined {
    return this.packages.get(ref.packageId)?.modules.get(ref.moduleName);
  }

  private templateDef(ref: TypeConRef): DefTemplate | undefined {
    return this.module(ref)?.templates.get(ref.entityName);
  }

  private interfaceDef(ref: TypeConRef): DefInterface | undefined {
    return this.module(ref)?.interfaces.get(ref.entityName);
  }

  private exceptionDef(ref: TypeConRef): DefException | undefined {
    return this.module(ref)?.exceptions.get(ref.entityName);
  }

  private templateCode(ref: TypeConRef): TemplateCode {
    const key = tyconKey(ref);
    let t = this.templates.get(key);
    if (t === undefined) {
      const def = this.templateDef(ref);
      if (def === undefined) internal(`unknown template ${refText(ref)} (package ${ref.packageId})`);
      t = { def };
      this.templates.set(key, t);
    }
    return t;
  }

  private templateSignatoriesOf(template: TypeConRef, arg: RecordV): Value {
    const t = this.templateCode(template);
    t.signatories ??= this.compiler.compileRoot(t.def.signatories, [t.def.param]);
    return t.signatories([arg]);
  }

  private templateObserversOf(template: TypeConRef, arg: RecordV): Value {
    const t = this.templateCode(template);
    t.observers ??= this.compiler.compileRoot(t.def.observers, [t.def.param]);
    return t.observers([arg]);
  }

  /** A choice of a template or an interface (`owner` may be either). */
  private choiceCode(owner: TypeConRef, choice: string): ChoiceCode {
    const key = `${tyconKey(owner)}#${choice}`;
    let c = this.choices.get(key);
    if (c === undefined) {
      const tpl = this.templateDef(owner);
      const ifc = tpl === undefined ? this.interfaceDef(owner) : undefined;
      const def = tpl ?? ifc;
      if (def === undefined) internal(`unknown template or interface ${refText(owner)}`);
      const ch = def.choices.get(choice);
      if (ch === undefined) internal(`${refText(owner)} has no choice ${choice}`);
      c = { choice: ch, param: def.param };
      this.choices.set(key, c);
    }
    return c;
  }

  /** Choice parts take `[param, self, arg]`. */
  private choiceRoot(c: ChoiceCode, expr: Expr): Root {
    return this.compiler.compileRoot(expr, [c.param, c.choice.selfBinder, c.choice.argBinder.name]);
  }

  private instanceCode(template: TypeConRef, iface: TypeConRef): InstanceCode {
    const key = `${tyconKey(template)}|${tyconKey(iface)}`;
    let inst = this.instances.get(key);
    if (inst === undefined) {
      const def = this.templateDef(template);
      if (def === undefined) internal(`unknown template ${refText(template)}`);
      const impl = def.implements.get(tyconKey(iface));
      if (impl === undefined) {
        throw new DamlFailure({ kind: 'contractDoesNotImplementInterface', cid: '', iface, template });
      }
      const methods = new Map<string, Root>();
      for (const [name, expr] of impl.methods) methods.set(name, this.compiler.compileRoot(expr, [def.param]));
      inst = { view: this.compiler.compileRoot(impl.view, [def.param]), methods };
      this.instances.set(key, inst);
    }
    return inst;
  }
}

function parties(v: Value): string[] {
  if (v.tag !== 'list') internal(`expected a list of parties, got ${v.tag}`);
  const out: string[] = [];
  const seen = new Set<string>();
  for (const p of v.items) {
    if (p.tag !== 'party') internal(`expected a party, got ${p.tag}`);
    if (!seen.has(p.value)) {
      seen.add(p.value);
      out.push(p.value);
    }
  }
  return out;
}

function partyList(parties: readonly string[]): Value {
  return { tag: 'list', items: parties.map((p) => ({ tag: 'party', value: p })) };
}
