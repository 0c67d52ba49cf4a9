/**
 * Template and interface references as clients write them: `#<package-name>:Module:Entity`
 * (preferred) or `<package-id>:Module:Entity` (deprecated but accepted). Output always uses the
 * package-id form (Canton `ProtocolConverters.scala` `IdentifierConverter`).
 */
import { LedgerApiError } from '../../canton/errors.js';
import type { InterfaceDef, TemplateDef, TemplateRegistry } from './templates.js';

export interface IdRef {
  /** `{ name }` for `#name:...`, `{ id }` for a package id. */
  package: { name: string } | { id: string };
  moduleName: string;
  entityName: string;
}

/** Splits an identifier; returns undefined when it is not exactly three `:`-separated parts. */
export function parseIdRef(text: string): IdRef | undefined {
  const parts = text.split(':');
  if (parts.length !== 3 || parts.some((p) => p === '')) return undefined;
  const [pkg, moduleName, entityName] = parts as [string, string, string];
  if (pkg.startsWith('#')) {
    if (pkg.length === 1) return undefined;
    return { package: { name: pkg.slice(1) }, moduleName, entityName };
  }
  return { package: { id: pkg }, moduleName, entityName };
}

export function formatIdRef(ref: IdRef): string {
  const pkg = 'name' in ref.package ? `#${ref.package.name}` : ref.package.id;
  return `${pkg}:${ref.moduleName}:${ref.entityName}`;
}

/** The package name a reference points to, if the registry knows the package. */
export function packageNameOf(ref: IdRef, templates: TemplateRegistry): string | undefined {
  if ('name' in ref.package) return templates.packageIdsOf(ref.package.name).size > 0 ? ref.package.name : undefined;
  return templates.packageNameOf(ref.package.id);
}

export type Resolved =
  | { kind: 'template'; def: TemplateDef }
  | { kind: 'interface'; def: InterfaceDef };

/**
 * Resolves a reference to a registered template or interface. A package-id reference resolves by
 * package name (filters and commands match every version of a package name, as Canton's filters do).
 */
export function resolveRef(ref: IdRef, templates: TemplateRegistry): Resolved | undefined {
  const name = packageNameOf(ref, templates);
  if (name === undefined) return undefined;
  const key = `${name}:${ref.moduleName}:${ref.entityName}`;
  const t = templates.templateByNameKey(key);
  if (t) return { kind: 'template', def: t };
  const i = templates.interfaceByNameKey(key);
  if (i) return { kind: 'interface', def: i };
  return undefined;
}

/** Resolution failure of a command's template: the Daml engine's preprocessing lookup error. */
export function unknownTemplateError(ref: IdRef, templates: TemplateRegistry): LedgerApiError {
  const text = formatIdRef(ref);
  if (packageNameOf(ref, templates) === undefined) {
    const what = 'name' in ref.package ? `package name ${ref.package.name}` : `package ${ref.package.id}`;
    return new LedgerApiError('COMMAND_PREPROCESSING_FAILED', `Couldn't find ${what} (referenced by ${text})`, {
      resources: [['TEMPLATE_ID', text]],
    });
  }
  return new LedgerApiError('COMMAND_PREPROCESSING_FAILED', `Couldn't find template or interface ${text}`, {
    resources: [['TEMPLATE_ID', text]],
  });
}
