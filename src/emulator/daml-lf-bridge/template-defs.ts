/**
 * Templates of uploaded DARs as TemplateDefs of the `daml` kind: the command interpreter calls
 * them like native templates, and each callback asks the DamlEngine (the Daml-LF evaluator):
 *  - the payload is checked and normalised against the template's record type (lf-value/json-codec.ts, as
 *    declared templates do), then read as an evaluator record once (cached by payload object);
 *  - signatories, observers and `ensure` are the template's own expressions; a false precondition
 *    takes the native templates' path (DAML_FAILURE `PreconditionFailed`, "Template precondition
 *    violated: ...");
 *  - every choice of the DAR's template (its `Archive` included) with its consuming flag,
 *    controllers, choice observers, argument (normalised by the choice's argument type) and body
 *    (the evaluator running the choice's update against the transaction being built); the result
 *    is written back by the choice's return type;
 *  - every interface the template implements: the view, and each interface choice run by the
 *    evaluator with the interface as its owner.
 *
 * Daml errors raised by a callback travel up unmapped (a Daml `try` around a nested exercise may
 * catch them); the command interpreter maps what reaches the command (./errors.ts). Errors of the
 * evaluator itself (a bug, a value of the wrong shape) become DAML_INTERPRETATION_ERROR here.
 *
 * LIMITS: contract keys (LF 2.dev) are not supported: a template with a key is registered
 * without it.
 */
import type { LfType, TypeConRef } from '../daml-lf/ast.js';
import type { DecodedChoice, DecodedInterface, DecodedTemplate } from '../dar/lf2.js';
import { LedgerApiError } from '../../canton/errors.js';
import type { ChoiceDef, InterfaceDef, InterfaceImpl, TemplateDef, UpdateContext } from '../participant/templates.js';
import type { LfValue, QualifiedId } from '../participant/types.js';
import { DamlFailure, DamlThrow } from '../daml-lf/runtime.js';
import { internalEvaluationError } from '../daml-lf/ledger-errors.js';
import type { DamlRuntime } from './daml-runtime.js';
import { UpdateContextPort } from './ledger-port.js';

/** An interface a template implements, as the registry and the DAR know it. */
export interface ImplementedInterface {
  def: InterfaceDef;
  decl: DecodedInterface;
}

const UNIT_TYPE: LfType = { kind: 'builtin', name: 'Unit', args: [] };

/** The TemplateDef of template `id` (declared as `decl` in its DAR), run by `rt`'s engine. */
export function damlTemplateDef(
  rt: DamlRuntime,
  id: QualifiedId,
  decl: DecodedTemplate,
  interfaces: readonly ImplementedInterface[],
): TemplateDef<LfValue> {
  const tycon: TypeConRef = { packageId: id.packageId, moduleName: id.moduleName, entityName: id.entityName };
  const payloadType: LfType = { kind: 'con', tycon, args: [] };
  const record = (p: LfValue) => rt.record(tycon, p);
  const choices: Record<string, ChoiceDef<LfValue>> = {};
  for (const c of decl.choices) choices[c.name] = choiceDef(rt, tycon, tycon, c);
  return {
    id,
    kind: 'daml',
    parsePayload: (raw) => (rt.knowsPayload(tycon, raw) ? raw : rt.normalize(payloadType, raw)),
    signatories: (p) => guard(() => rt.engine.signatories(tycon, record(p))),
    observers: (p) => guard(() => rt.engine.observers(tycon, record(p))),
    ensure: (p) => (guard(() => rt.engine.precondition(tycon, record(p))) ? undefined : `${id.packageId}:${id.moduleName}:${id.entityName}`),
    choices,
    implements: interfaces.map((i): InterfaceImpl<LfValue> => {
      const iface: TypeConRef = { packageId: i.def.id.packageId, moduleName: i.def.id.moduleName, entityName: i.def.id.entityName };
      const viewType = i.decl.viewType ?? UNIT_TYPE;
      const ifaceChoices: Record<string, ChoiceDef<LfValue>> = {};
      for (const c of i.decl.choices) ifaceChoices[c.name] = choiceDef(rt, iface, tycon, c);
      return {
        interface: i.def,
        view: (p) => guard(() => rt.json(viewType, rt.engine.view(iface, record(p)))),
        choices: ifaceChoices,
      };
    }),
  };
}

/** A choice of `owner` (the template itself, or an interface it implements) on contracts of `template`. */
function choiceDef(rt: DamlRuntime, owner: TypeConRef, template: TypeConRef, c: DecodedChoice): ChoiceDef<LfValue> {
  const argType = c.argType ?? UNIT_TYPE;
  const returnType = c.returnType ?? UNIT_TYPE;
  const record = (p: LfValue) => rt.record(template, p);
  const arg = (a: LfValue) => rt.value(argType, a);
  return {
    name: c.name,
    consuming: c.consuming,
    parseArgument: (raw) => (rt.knowsValue(argType, raw) ? raw : rt.normalize(argType, raw)),
    controllers: (p, a) => guard(() => rt.engine.controllers(owner, c.name, record(p), arg(a))),
    observers: (p, a) => guard(() => rt.engine.choiceObservers(owner, c.name, record(p), arg(a))),
    body: (ctx: UpdateContext, self, a) =>
      guard(() => rt.json(returnType, rt.engine.exercise(owner, c.name, self.contractId, record(self.payload), arg(a), new UpdateContextPort(rt, ctx)))),
  };
}

/**
 * Runs an engine call: Daml errors and ledger errors pass as they are (a Daml `try` or the
 * command interpreter deals with them), anything else is an evaluator failure, reported as a
 * DAML_INTERPRETATION_ERROR rather than a server error.
 */
function guard<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof DamlThrow || e instanceof DamlFailure || e instanceof LedgerApiError) throw e;
    throw internalEvaluationError(e);
  }
}
