/**
 * Runtime values of the Daml-LF evaluator (daml-lf-2.rst, "Values"), shared by the evaluator,
 * the builtin functions and the conversion to and from the ledger's JSON values.
 *
 * Representation choices:
 *  - Int64 is a `bigint` kept in [-2^63, 2^63-1]; overflow is an arithmetic error, as LF defines it.
 *  - Numeric is an unscaled `bigint` with its scale (0..37): `1.50` at scale 10 is 15000000000n.
 *  - Date is days since the epoch, Timestamp microseconds since the epoch.
 *  - Lists are immutable JS arrays (never mutated once built).
 *  - TextMap entries are kept in a `Map` with no order; anything that lists them sorts by key
 *    (code point order, as LF's `TEXTMAP_TO_LIST` does). GenMap entries are kept sorted by key
 *    with LF's total order on values.
 *  - Records carry their type constructor, so that an interface value (a template record
 *    upcast with `to_interface`) knows its template.
 *  - Functions (closures, partial applications, builtins) are `FunV`: `invoke` takes exactly
 *    `arity` arguments; `applyValue` handles partial and over-application.
 *  - Updates are `UpdateV`: a suspended action run against the ledger by the update interpreter.
 */
import type { LfType, TypeConRef } from '../dar/lf2.js';

/** The values of LF's `RoundingMode` and `FailureCategory` builtin types (daml_lf2.proto enums; the evaluator's AST reads its literals with these names). */
export type RoundingModeName = 'UP' | 'DOWN' | 'CEILING' | 'FLOOR' | 'HALF_UP' | 'HALF_DOWN' | 'HALF_EVEN' | 'UNNECESSARY';
export type FailureCategoryName = 'INVALID_INDEPENDENT_OF_SYSTEM_STATE' | 'INVALID_GIVEN_CURRENT_SYSTEM_STATE_OTHER';

export type Value =
  | UnitV
  | BoolV
  | Int64V
  | NumericV
  | TextV
  | PartyV
  | ContractIdV
  | DateV
  | TimestampV
  | ListV
  | OptionalV
  | TextMapV
  | GenMapV
  | RecordV
  | VariantV
  | EnumV
  | StructV
  | AnyV
  | TypeRepV
  | AnyExceptionV
  | FunV
  | UpdateV
  | RoundingModeV
  | FailureCategoryV;

export interface UnitV { readonly tag: 'unit' }
export interface BoolV { readonly tag: 'bool'; readonly value: boolean }
export interface Int64V { readonly tag: 'int64'; readonly value: bigint }
export interface NumericV { readonly tag: 'numeric'; readonly scale: number; readonly unscaled: bigint }
export interface TextV { readonly tag: 'text'; readonly value: string }
export interface PartyV { readonly tag: 'party'; readonly value: string }
export interface ContractIdV { readonly tag: 'contractId'; readonly value: string }
export interface DateV { readonly tag: 'date'; readonly days: number }
export interface TimestampV { readonly tag: 'timestamp'; readonly micros: bigint }
export interface ListV { readonly tag: 'list'; readonly items: readonly Value[] }
export interface OptionalV { readonly tag: 'optional'; readonly value: Value | undefined }
export interface TextMapV { readonly tag: 'textMap'; readonly entries: ReadonlyMap<string, Value> }
/** Entries sorted by key in LF's value order; keys unique. */
export interface GenMapV { readonly tag: 'genMap'; readonly entries: ReadonlyArray<readonly [Value, Value]> }
/** Field values in the data type's field order. */
export interface RecordV {
  readonly tag: 'record';
  readonly tycon: TypeConRef;
  readonly fields: readonly Value[];
  readonly fieldNames: readonly string[];
  /**
   * Set on an interface value whose template has no Daml code in the evaluator (a template the
   * ledger implements natively): its fields are then empty and the ledger answers for it.
   */
  readonly foreign?: ForeignContract;
}

/**
 * A contract of a template the evaluator has no Daml code for, seen through an interface it
 * implements (`fetch_interface`): what Daml code may ask of an interface value, answered by the
 * ledger that implements the template (daml-lf-2.rst, "Interface functions": `view_interface`,
 * `signatory_interface`, `observer_interface`; conversions test `implements`).
 */
export interface ForeignContract {
  /** The interface view, as a value of the interface's view type; undefined when not implemented. */
  view(iface: TypeConRef): Value | undefined;
  implements(iface: TypeConRef): boolean;
  readonly signatories: readonly string[];
  readonly observers: readonly string[];
}
/** `rank` is the constructor's index in its data type's declaration: LF orders variants and enums by it. */
export interface VariantV { readonly tag: 'variant'; readonly tycon: TypeConRef; readonly constructor: string; readonly rank: number; readonly value: Value }
export interface EnumV { readonly tag: 'enum'; readonly tycon: TypeConRef; readonly constructor: string; readonly rank: number }
/** Struct fields, in the order the struct was built (LF compares structs field by field in name order). */
export interface StructV { readonly tag: 'struct'; readonly fields: ReadonlyMap<string, Value> }
export interface AnyV { readonly tag: 'any'; readonly type: LfType; readonly value: Value }
export interface TypeRepV { readonly tag: 'typeRep'; readonly type: LfType }
/** An exception value: the exception type's record (its `tycon` names the exception). */
export interface AnyExceptionV { readonly tag: 'anyException'; readonly type: LfType; readonly value: Value }
export interface FunV {
  readonly tag: 'fun';
  readonly arity: number;
  /** Called with exactly `arity` arguments. */
  readonly invoke: (args: readonly Value[]) => Value;
  /** For error messages and debugging, e.g. the builtin's name. */
  readonly name?: string;
}
export interface UpdateV {
  readonly tag: 'update';
  /** Runs the action against the ledger. */
  readonly run: (ledger: LedgerPort) => Value;
}
/** Ledger access for running updates. Contract arguments are evaluator values (records).
 * The emulated ledger's command interpreter implements it (runtime.ts describes the seams). */
export interface LedgerPort {
  /** The transaction's ledger time (`getTime`), microseconds since the epoch. */
  readonly nowMicros: bigint;
  /** Creates a contract of `template` (its signatories, precondition and key are asked of the DamlEngine). */
  create(template: TypeConRef, arg: RecordV): string;
  /** Fetches an active, visible contract that must be of `template`; returns its argument. */
  fetchTemplate(template: TypeConRef, cid: string): RecordV;
  /** Fetches an active, visible contract that must implement `iface`; returns its template's argument. */
  fetchInterface(iface: TypeConRef, cid: string): RecordV;
  /** Exercises `choice` of `template` on `cid`; returns the choice's result. */
  exerciseTemplate(template: TypeConRef, cid: string, choice: string, arg: Value): Value;
  /** Exercises the interface choice `choice` of `iface` on `cid`; returns the choice's result. */
  exerciseInterface(iface: TypeConRef, cid: string, choice: string, arg: Value): Value;
  /**
   * Runs `body` in a rollback scope (LF `try`): when it throws, every ledger effect it made is
   * rolled back (a rollback node in the transaction, as Canton records it) and the error rethrown.
   */
  rollbackScope<T>(body: () => T): T;
}

export interface RoundingModeV { readonly tag: 'roundingMode'; readonly value: RoundingModeName }
export interface FailureCategoryV { readonly tag: 'failureCategory'; readonly value: FailureCategoryName }

// ---- constants and constructors -------------------------------------------------------------------

/** LF's Int64 range (daml-lf-2.rst, "Int64"): every form of an LF value keeps an Int64 within it. */
export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

export const UNIT: UnitV = Object.freeze({ tag: 'unit' });
export const TRUE: BoolV = Object.freeze({ tag: 'bool', value: true });
export const FALSE: BoolV = Object.freeze({ tag: 'bool', value: false });
export const NONE: OptionalV = Object.freeze({ tag: 'optional', value: undefined });
export const EMPTY_LIST: ListV = Object.freeze({ tag: 'list', items: Object.freeze([]) });

export const bool = (b: boolean): BoolV => (b ? TRUE : FALSE);
export const int64 = (value: bigint): Int64V => ({ tag: 'int64', value });
export const text = (value: string): TextV => ({ tag: 'text', value });
export const party = (value: string): PartyV => ({ tag: 'party', value });
export const contractId = (value: string): ContractIdV => ({ tag: 'contractId', value });
export const list = (items: readonly Value[]): ListV => (items.length === 0 ? EMPTY_LIST : { tag: 'list', items });
export const some = (value: Value): OptionalV => ({ tag: 'optional', value });
export const numeric = (scale: number, unscaled: bigint): NumericV => ({ tag: 'numeric', scale, unscaled });
export const date = (days: number): DateV => ({ tag: 'date', days });
export const timestamp = (micros: bigint): TimestampV => ({ tag: 'timestamp', micros });

/** A function value of `arity` arguments. */
export function fun(arity: number, invoke: (args: readonly Value[]) => Value, name?: string): FunV {
  return name === undefined ? { tag: 'fun', arity, invoke } : { tag: 'fun', arity, invoke, name };
}

/**
 * Applies a function value to arguments: exactly `arity` calls it, fewer makes a partial
 * application, more applies the result to the rest.
 */
export function applyValue(f: Value, args: readonly Value[]): Value {
  let fn: Value = f;
  let rest = args;
  for (;;) {
    if (fn.tag !== 'fun') throw new TypeError(`applying a non-function value (${fn.tag})`);
    if (rest.length === fn.arity) return fn.invoke(rest);
    if (rest.length < fn.arity) {
      const target = fn;
      const given = rest;
      return fun(target.arity - given.length, (more) => target.invoke([...given, ...more]), target.name);
    }
    const now = rest.slice(0, fn.arity);
    rest = rest.slice(fn.arity);
    fn = fn.invoke(now);
  }
}

/** Narrowing helpers: the evaluator and builtins rely on LF's type checking, so a mismatch is an internal error. */
export function expect<T extends Value['tag']>(v: Value, tag: T): Extract<Value, { tag: T }> {
  if (v.tag !== tag) throw new TypeError(`expected a ${tag} value, got ${v.tag}`);
  return v as Extract<Value, { tag: T }>;
}
