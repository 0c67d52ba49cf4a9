/**
 * The interface expressions of daml_lf2.proto (`Expr` cases 33 to 43, and the choice controllers
 * and observers of 2.dev, 1001 and 1002): conversions between templates and interfaces, method
 * calls, an interface's signatories, observers and view (daml-lf-2.rst, "Interfaces").
 */
import type { Msg } from '../../shared/lf-reader.js';
import type { Expr } from '../ast.js';
import { unknownConstruct, type ExprReader } from './expr-reader.js';

/** The interface case `field` of `Expr.Sum`, its message `m`. */
export function decodeInterfaceExpr(reader: ExprReader, field: number, m: Msg): Expr {
  const { ctx, types } = reader;
  switch (field) {
    case 33:
      // ToInterface { interface_type 1, template_type 2, template_expr 3 }
      return { tag: 'toInterface', iface: types.typeConId(m.msg(1)), template: types.typeConId(m.msg(2)), expr: reader.exprF(m, 3) };
    case 34:
      return { tag: 'fromInterface', iface: types.typeConId(m.msg(1)), template: types.typeConId(m.msg(2)), expr: reader.exprF(m, 3) };
    case 35:
      // CallInterface { interface_type 1, method_interned_name 2, interface_expr 3 }
      return { tag: 'callInterface', iface: types.typeConId(m.msg(1)), method: ctx.str(m.int32(2)), expr: reader.exprF(m, 3) };
    case 36:
      return { tag: 'signatoryInterface', iface: types.typeConId(m.msg(1)), expr: reader.exprF(m, 2) };
    case 37:
      return { tag: 'observerInterface', iface: types.typeConId(m.msg(1)), expr: reader.exprF(m, 2) };
    case 38:
      return { tag: 'viewInterface', iface: types.typeConId(m.msg(1)), expr: reader.exprF(m, 2) };
    case 39:
      // UnsafeFromInterface { interface_type 1, template_type 2, contract_id_expr 3, interface_expr 4 }
      return {
        tag: 'unsafeFromInterface',
        iface: types.typeConId(m.msg(1)),
        template: types.typeConId(m.msg(2)),
        cid: reader.exprF(m, 3),
        expr: reader.exprF(m, 4),
      };
    case 40:
      return { tag: 'interfaceTemplateTypeRep', iface: types.typeConId(m.msg(1)), expr: reader.exprF(m, 2) };
    case 41:
      // ToRequiredInterface { required_interface 1, requiring_interface 2, expr 3 }
      return {
        tag: 'toRequiredInterface',
        required: types.typeConId(m.msg(1)),
        requiring: types.typeConId(m.msg(2)),
        expr: reader.exprF(m, 3),
      };
    case 42:
      return {
        tag: 'fromRequiredInterface',
        required: types.typeConId(m.msg(1)),
        requiring: types.typeConId(m.msg(2)),
        expr: reader.exprF(m, 3),
      };
    case 43:
      return {
        tag: 'unsafeFromRequiredInterface',
        required: types.typeConId(m.msg(1)),
        requiring: types.typeConId(m.msg(2)),
        cid: reader.exprF(m, 3),
        expr: reader.exprF(m, 4),
      };
    case 1001:
    case 1002:
      // ChoiceController / ChoiceObserver { template 1, choice 2, contract_expr 3, choice_arg_expr 4 }
      return {
        tag: field === 1001 ? 'choiceController' : 'choiceObserver',
        template: types.typeConId(m.msg(1)),
        choice: ctx.str(m.int32(2)),
        contract: reader.exprF(m, 3),
        choiceArg: reader.exprF(m, 4),
      };
    default:
      return unknownConstruct(`Expr case ${field}`);
  }
}
