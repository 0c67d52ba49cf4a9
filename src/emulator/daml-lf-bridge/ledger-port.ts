/**
 * The ledger as Daml code sees it while a choice body runs: each update action (create, fetch,
 * exercise, try) goes to the command interpreter's UpdateContext, which checks authorization and
 * visibility and records the transaction tree, exactly as for a native template's body. Values
 * cross in the ledger's JSON encoding, converted by the LF types of the template, the choice
 * argument and the choice result.
 *
 * Contracts of templates the ledger implements natively (no Daml code in the evaluator) can be
 * fetched through an interface: their interface value carries the native view, signatories and
 * observers. Interface methods of such contracts are not available (native templates have none).
 *
 * LIMITS: a contract read at another version of its package (an upgrade) is converted with the
 * type the Daml code expects, field by field; fields the code's version lacks are dropped rather
 * than checked to be None, as Canton's downgrade check would.
 */
import type { TypeConRef } from '../daml-lf/ast.js';
import type { UpdateContext } from '../participant/templates.js';
import type { LfValue, QualifiedId } from '../participant/types.js';
import { DamlFailure, type LedgerPort } from '../daml-lf/runtime.js';
import type { ForeignContract, RecordV, Value } from '../lf-value/runtime-value.js';
import type { DamlRuntime } from './daml-runtime.js';

export class UpdateContextPort implements LedgerPort {
  constructor(
    private readonly rt: DamlRuntime,
    private readonly ctx: UpdateContext,
  ) {}

  get nowMicros(): bigint {
    return this.ctx.nowMicros;
  }

  create(template: TypeConRef, arg: RecordV): string {
    return this.ctx.create(this.rt.qualifiedId(template), this.rt.recordJson(template, arg));
  }

  fetchTemplate(template: TypeConRef, cid: string): RecordV {
    const c = this.ctx.fetch(cid, this.rt.qualifiedId(template));
    return this.rt.record(template, c.payload);
  }

  fetchInterface(iface: TypeConRef, cid: string): RecordV {
    const c = this.ctx.fetch(cid, this.rt.qualifiedId(iface));
    const template: TypeConRef = { packageId: c.templateId.packageId, moduleName: c.templateId.moduleName, entityName: c.templateId.entityName };
    if (this.rt.engine.hasTemplate(template)) return this.rt.record(template, c.payload);
    // A template the ledger implements natively (its package is not evaluated): the interface
    // value carries the ledger's answers instead of the template's fields.
    const view = c.interfaceView;
    if (!view || view(this.rt.qualifiedId(iface)) === undefined) {
      throw new DamlFailure({ kind: 'unsupported', feature: `interface ${iface.moduleName}:${iface.entityName} of a contract of template ${template.moduleName}:${template.entityName}, whose package the evaluator does not have` });
    }
    return { tag: 'record', tycon: template, fields: [], fieldNames: [], foreign: this.foreign(c.signatories, c.observers, view) };
  }

  /** The ledger's answers for an interface value of a native template (lf-value/runtime-value.ts, ForeignContract). */
  private foreign(signatories: string[], observers: string[], view: (iface: QualifiedId) => LfValue | undefined): ForeignContract {
    const rt = this.rt;
    return {
      signatories,
      observers,
      implements: (iface) => view(rt.qualifiedId(iface)) !== undefined,
      view: (iface) => {
        const json = view(rt.qualifiedId(iface));
        const decl = rt.interface(iface);
        if (json === undefined || decl === undefined) return undefined;
        return rt.value(decl.view, rt.normalize(decl.view, json));
      },
    };
  }

  exerciseTemplate(template: TypeConRef, cid: string, choice: string, arg: Value): Value {
    const def = this.rt.choice(template, choice);
    if (!def) throw new DamlFailure({ kind: 'other', message: `Template ${template.moduleName}:${template.entityName} has no choice ${choice}` });
    const result = this.ctx.exercise(cid, choice, this.rt.json(def.argBinder.type, arg), { templateId: this.rt.qualifiedId(template) });
    return this.rt.value(def.returnType, result);
  }

  exerciseInterface(iface: TypeConRef, cid: string, choice: string, arg: Value): Value {
    const def = this.rt.choice(iface, choice);
    if (!def) throw new DamlFailure({ kind: 'other', message: `Interface ${iface.moduleName}:${iface.entityName} has no choice ${choice}` });
    const result = this.ctx.exercise(cid, choice, this.rt.json(def.argBinder.type, arg), { interfaceId: this.rt.qualifiedId(iface) });
    return this.rt.value(def.returnType, result);
  }

  rollbackScope<T>(body: () => T): T {
    return this.ctx.rollbackScope(body);
  }
}
