/**
 * What the decoders of single `Expr` cases (updates.ts, interface-exprs.ts) and the interned
 * expression table read their operands with. `ExprDecoder` (expressions.ts) implements it; it is
 * declared here, below all of them, because expressions.ts imports those decoders.
 */
import type { Lf2Context } from '../../dar/lf2.js';
import type { Msg } from '../../shared/lf-reader.js';
import type { Binding, Expr } from '../ast.js';
import { UNIT_TYPE, type TypeReader } from './types.js';

export interface ExprReader {
  readonly ctx: Lf2Context;
  readonly types: TypeReader;
  /** The required `Expr` field `field` of `p`. */
  exprF(p: Msg, field: number): Expr;
  /** The `Expr` message in `buf[start, end)`. */
  exprAt(buf: Buffer, start: number, end: number): Expr;
  /** `Binding { binder 1 (VarWithType { var 3, type 2 }), bound 2 }`. */
  bindings(bs: Msg[]): Binding[];
}

/** A construct this decoder does not know: decodes, and fails only when evaluated. */
export function unknownConstruct(what: string): Expr {
  return { tag: 'experimental', name: what, type: UNIT_TYPE };
}
