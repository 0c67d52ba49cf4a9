/**
 * Registration of evaluated templates: once a participant has a DAR, each template of its
 * packages that has no other implementation becomes a template of the `daml` kind (run by the
 * Daml-LF evaluator), and each of its interfaces is registered, so commands, interface filters
 * and views work for any uploaded model. Native and declared templates win: a template whose name
 * already has one of those is left to it, and packages listed as `native` are skipped entirely
 * (TEMPLATE_ENGINE=native keeps the hand-written token implementations).
 *
 * Of several versions of a package, the preferred one (highest vetted version, as `#name`
 * references resolve) answers by name; the others run the contracts created with them.
 */
import type { LedgerEngine } from '../participant/engine.js';
import type { DecodedInterface, DecodedPackage } from '../dar/index.js';
import type { InterfaceDef } from '../participant/templates.js';
import { nameKey, type QualifiedId } from '../participant/types.js';
import type { DamlRuntime } from './daml-runtime.js';
import { damlTemplateDef, type ImplementedInterface } from './template-defs.js';

export interface InstallDamlTemplatesOptions {
  /** Package ids whose templates have a native implementation in use: never registered as `daml`. */
  nativePackageIds?: ReadonlySet<string>;
}

/** Registers the templates of `ledger`'s packages, now and after every upload, as `daml` templates. */
export function installDamlTemplates(ledger: LedgerEngine, rt: DamlRuntime, opts: InstallDamlTemplatesOptions = {}): void {
  rt.addSource(ledger.packages);
  const native = opts.nativePackageIds ?? new Set<string>();
  const register = (ids: readonly string[]): void => {
    const added = ids.map((id) => ledger.packages.get(id)).filter((p): p is DecodedPackage => p !== undefined && !native.has(p.packageId));
    // Interfaces first, so that templates find every interface they implement.
    for (const p of added) registerInterfaces(ledger, p);
    for (const p of added) registerTemplates(ledger, rt, p);
  };
  ledger.packages.onPackagesAdded(register);
  register(ledger.packages.list());
}

function qid(p: DecodedPackage, moduleName: string, entityName: string): QualifiedId {
  return { packageId: p.packageId, packageName: p.name, moduleName, entityName };
}

function registerInterfaces(ledger: LedgerEngine, p: DecodedPackage): void {
  const templates = ledger.templates;
  for (const m of p.modules) {
    for (const i of m.interfaces) {
      const id = qid(p, m.name, i.name);
      if (!templates.interfaceByNameKey(nameKey(id))) templates.registerInterface({ id, choices: i.choices.map((c) => c.name) });
    }
  }
}

function registerTemplates(ledger: LedgerEngine, rt: DamlRuntime, p: DecodedPackage): void {
  const templates = ledger.templates;
  const preferred = ledger.packages.resolvePackage(`#${p.name}`)?.packageId === p.packageId;
  for (const m of p.modules) {
    for (const t of m.templates) {
      const id = qid(p, m.name, t.name);
      const existing = templates.templateByNameKey(nameKey(id));
      if (existing && existing.kind !== 'daml') continue;
      const interfaces = t.implements.map((key) => implemented(ledger, key)).filter((i): i is ImplementedInterface => i !== undefined);
      templates.register(damlTemplateDef(rt, id, t, interfaces), { preferred: preferred || existing === undefined });
    }
  }
}

/** The interface `pkgId:Module:Entity` as registered, with its declaration from its package. */
function implemented(ledger: LedgerEngine, key: string): ImplementedInterface | undefined {
  const [packageId, moduleName, entityName] = key.split(':') as [string, string, string];
  const p = ledger.packages.get(packageId);
  const decl: DecodedInterface | undefined = p?.modules.find((m) => m.name === moduleName)?.interfaces.find((i) => i.name === entityName);
  if (!p || !decl) return undefined;
  const id = qid(p, moduleName, entityName);
  const def: InterfaceDef = ledger.templates.interfaceByNameKey(nameKey(id)) ?? { id, choices: decl.choices.map((c) => c.name) };
  return { def, decl };
}
