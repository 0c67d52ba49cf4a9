/**
 * `Package.interned_exprs` (daml_lf2.proto, 2.dev; `Expr.interned_expr = 44` refers to an entry):
 * each entry decoded once, where first used, then shared by every expression that refers to it.
 * Entries may refer to any other entry, not only earlier ones as the reference decoder demands;
 * a cycle is an `LfDecodeError`.
 */
import { LfDecodeError } from '../../dar/lf2.js';
import type { Expr } from '../ast.js';
import type { ExprReader } from './expr-reader.js';

export class InternedExprTable {
  private readonly decoded = new Map<number, Expr>();
  private readonly inProgress = new Set<number>();

  /** `bytes`: the encoded entries, in table order. */
  constructor(private readonly bytes: readonly Buffer[]) {}

  /** Entry `i`, decoded by `reader` the first time. */
  get(i: number, reader: ExprReader): Expr {
    const hit = this.decoded.get(i);
    if (hit) return hit;
    const bytes = this.bytes[i];
    if (bytes === undefined) throw new LfDecodeError(`invalid interned expression index ${i}`);
    if (this.inProgress.has(i)) throw new LfDecodeError(`cyclic interned expression ${i}`);
    this.inProgress.add(i);
    try {
      const e = reader.exprAt(bytes, 0, bytes.length);
      this.decoded.set(i, e);
      return e;
    } finally {
      this.inProgress.delete(i);
    }
  }
}
