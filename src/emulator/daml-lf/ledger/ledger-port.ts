/**
 * The ledger as Daml code sees it while a choice body runs: each update action (create, fetch,
 * exercise, try) goes to the command interpreter's UpdateContext, which checks authorization and
 * visibility and records the transaction tree, exactly as for a native template's body. Values
 * cross in the ledger's JSON encoding, converted by the LF types of the template, the choice
 * argument and the choice result.
 *
 * LIMITS: a contract read at another version of its package (an upgrade) is converted with the
 * type the Daml code expects, field by field; fields the code's version lacks are dropped rather
 * than checked to be None, as Canton's downgrade check would.
 */
import type { TypeConRef } from '../ast.js';
import type { UpdateContext } from '../../ledger/templates.js';
import { DamlFailure, type LedgerPort } from '../runtime.js';
import type { RecordV, Value } from '../value.js';
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
    if (!this.rt.engine.hasTemplate(template)) {
      throw new DamlFailure({ kind: 'unsupported', feature: `interface ${iface.moduleName}:${iface.entityName} of a contract of template ${template.moduleName}:${template.entityName}, whose package the evaluator does not have` });
    }
    return this.rt.record(template, c.payload);
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
