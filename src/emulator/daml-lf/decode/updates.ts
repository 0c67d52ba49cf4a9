/**
 * `Update` of daml_lf2.proto (`Expr.update = 23`): create, exercise, fetch and their by-key and
 * interface forms, blocks, try/catch, ledger time.
 */
import { LfDecodeError } from '../../dar/lf2.js';
import type { Msg } from '../../shared/lf-reader.js';
import type { Expr, Update } from '../ast.js';
import { unknownConstruct, type ExprReader } from './expr-reader.js';

/** `Update`, as the expression `{ tag: 'update' }` (or an unknown-construct marker). */
export function decodeUpdate(reader: ExprReader, u: Msg): Expr {
  const { ctx, types } = reader;
  const field = u.caseOf();
  let update: Update;
  switch (field) {
    case 1: {
      // Pure { type 1, expr 2 }
      const p = u.msg(1)!;
      update = { tag: 'pure', type: types.typeF(p, 1), expr: reader.exprF(p, 2) };
      break;
    }
    case 2: {
      // Block { bindings 1, body 2 }
      const b = u.msg(2)!;
      update = { tag: 'block', bindings: reader.bindings(b.msgs(1)), body: reader.exprF(b, 2) };
      break;
    }
    case 3: {
      // Create { template 1, expr 2 }
      const c = u.msg(3)!;
      update = { tag: 'create', template: types.typeConId(c.msg(1)), expr: reader.exprF(c, 2) };
      break;
    }
    case 4: {
      // Exercise { template 1, choice 6, cid 3, arg 5 }
      const e = u.msg(4)!;
      update = {
        tag: 'exercise',
        template: types.typeConId(e.msg(1)),
        choice: ctx.str(e.int32(6)),
        cid: reader.exprF(e, 3),
        arg: reader.exprF(e, 5),
      };
      break;
    }
    case 5: {
      // Fetch { template 1, cid 2 }
      const f = u.msg(5)!;
      update = { tag: 'fetch', template: types.typeConId(f.msg(1)), cid: reader.exprF(f, 2) };
      break;
    }
    case 6:
      update = { tag: 'getTime' };
      break;
    case 7: {
      // EmbedExpr { type 1, body 2 }
      const e = u.msg(7)!;
      update = { tag: 'embedExpr', type: types.typeF(e, 1), expr: reader.exprF(e, 2) };
      break;
    }
    case 9:
      // RetrieveByKey { template 1 }
      update = { tag: 'fetchByKey', template: types.typeConId(u.msg(9)!.msg(1)) };
      break;
    case 10: {
      // ExerciseByKey { template 1, choice 2, key 3, arg 4 }
      const e = u.msg(10)!;
      update = {
        tag: 'exerciseByKey',
        template: types.typeConId(e.msg(1)),
        choice: ctx.str(e.int32(2)),
        key: reader.exprF(e, 3),
        arg: reader.exprF(e, 4),
      };
      break;
    }
    case 11: {
      // TryCatch { return_type 1, try_expr 2, var 3, catch_expr 4 }
      const t = u.msg(11)!;
      update = {
        tag: 'tryCatch',
        returnType: types.typeF(t, 1),
        tryExpr: reader.exprF(t, 2),
        binder: ctx.str(t.int32(3)),
        catchExpr: reader.exprF(t, 4),
      };
      break;
    }
    case 12: {
      // CreateInterface { interface 1, expr 2 }
      const c = u.msg(12)!;
      update = { tag: 'createInterface', iface: types.typeConId(c.msg(1)), expr: reader.exprF(c, 2) };
      break;
    }
    case 13: {
      // ExerciseInterface { interface 1, choice 2, cid 3, arg 4, guard 5 (optional) }
      const e = u.msg(13)!;
      const ex: Update = {
        tag: 'exerciseInterface',
        iface: types.typeConId(e.msg(1)),
        choice: ctx.str(e.int32(2)),
        cid: reader.exprF(e, 3),
        arg: reader.exprF(e, 4),
      };
      if (e.has(5)) ex.guard = reader.exprF(e, 5);
      update = ex;
      break;
    }
    case 14: {
      // FetchInterface { interface 1, cid 2 }
      const f = u.msg(14)!;
      update = { tag: 'fetchInterface', iface: types.typeConId(f.msg(1)), cid: reader.exprF(f, 2) };
      break;
    }
    case 15:
      update = { tag: 'ledgerTimeLt', expr: reader.exprF(u, 15) };
      break;
    case 16:
      // QueryNByKey { template 1 }
      update = { tag: 'queryNByKey', template: types.typeConId(u.msg(16)!.msg(1)) };
      break;
    case 0:
      throw new LfDecodeError('update without a case');
    default:
      return unknownConstruct(`Update case ${field}`);
  }
  return { tag: 'update', update };
}
