/**
 * What closure compilation (compile.ts) and update compilation (update.ts) share, kept below both
 * so the two import one way: frames and compile-time scopes, the expression compiler as update
 * compilation sees it, and the evaluator's internal errors.
 */
import type { Expr } from './ast.js';
import { DamlFailure } from './runtime.js';
import type { AnyExceptionV, RecordV, Value } from '../lf-value/runtime-value.js';

/** A runtime frame: the slots of one activation, linked to the enclosing frame. */
export interface Frame {
  readonly up: Frame | undefined;
  readonly s: Value[];
}
export type Code = (env: Frame) => Value;

/** The expression compiler as update compilation uses it (compile.ts's `Compiler` implements it). */
export interface ExpressionCompiler {
  compile(e: Expr, scope: Scope): Code;
  /** Compiles `expr` to run later in a fresh frame of its own (see `childScope`). */
  compileDelayed(expr: Expr, scope: Scope): Code;
  /** The one runtime service update compilation needs: remembering a caught exception's message. */
  readonly rt: { rememberMessage(ex: AnyExceptionV, message: string): void };
}

interface FrameInfo {
  readonly level: number;
  nslots: number;
}
interface VarEntry {
  readonly name: string;
  readonly level: number;
  readonly slot: number;
  readonly next: VarEntry | undefined;
}
/** Compile-time scope: the frame being filled and the variables visible. */
export interface Scope {
  readonly frame: FrameInfo;
  readonly vars: VarEntry | undefined;
}

export function rootScope(): Scope {
  return { frame: { level: 0, nslots: 0 }, vars: undefined };
}
/** A scope for code that runs in a frame of its own, created at run time inside `scope`'s frame. */
export function childScope(scope: Scope): Scope {
  return { frame: { level: scope.frame.level + 1, nslots: 0 }, vars: scope.vars };
}
/** Binds `name` to a fresh slot of the current frame. */
export function bind(scope: Scope, name: string): { scope: Scope; slot: number } {
  const slot = scope.frame.nslots++;
  return { scope: { frame: scope.frame, vars: { name, level: scope.frame.level, slot, next: scope.vars } }, slot };
}

export function matchError(): never {
  throw new DamlFailure({ kind: 'other', message: 'match error: no case alternative matched the value' });
}

export function internal(message: string): never {
  throw new DamlFailure({ kind: 'other', message: `Daml-LF evaluation: ${message}` });
}

export function asRecord(v: Value, what: string): RecordV {
  if (v.tag !== 'record') internal(`${what}: expected a record (template or interface value), got ${v.tag}`);
  return v;
}
