/**
 * A PackageLookup holding only the data types of packages, from the emulator's type-level DAR
 * reader (emulator/dar/lf2.ts): enough for the JSON <-> value conversion and for the ledger
 * integration's unit tests, which fake the evaluator (the lookup has no values, templates or
 * interfaces).
 */
import { readFileSync } from 'node:fs';
import type { DamlModule, DamlPackage, DefTemplate, Expr, PackageLookup, TemplateChoice } from '../../src/emulator/daml-lf/ast.js';
import { decodeDar, type DecodedPackage } from '../../src/emulator/dar/index.js';

const NO_CODE: Expr = { tag: 'unit' };

/**
 * The types-only DamlPackage of a decoded package: data types, and templates with their choices'
 * names, flags and types (their expressions are placeholders).
 */
export function typesOnlyPackage(p: DecodedPackage): DamlPackage {
  const modules = new Map<string, DamlModule>();
  for (const m of p.modules) {
    modules.set(m.name, {
      name: m.name,
      dataTypes: new Map(m.dataTypes.map((d) => [d.name, d])),
      synonyms: new Map(),
      values: new Map(),
      templates: new Map(
        m.templates.map((t): [string, DefTemplate] => {
          const tycon = { packageId: p.packageId, moduleName: m.name, entityName: t.name };
          const choices = new Map(
            t.choices.map((c): [string, TemplateChoice] => [
              c.name,
              {
                name: c.name,
                consuming: c.consuming,
                controllers: NO_CODE,
                selfBinder: 'self',
                argBinder: { name: 'arg', type: c.argType ?? { kind: 'builtin', name: 'Unit', args: [] } },
                returnType: c.returnType ?? { kind: 'builtin', name: 'Unit', args: [] },
                update: NO_CODE,
              },
            ]),
          );
          return [t.name, { tycon, param: 'this', precond: NO_CODE, signatories: NO_CODE, observers: NO_CODE, choices, implements: new Map() }];
        }),
      ),
      interfaces: new Map(),
      exceptions: new Map(),
    });
  }
  return { packageId: p.packageId, name: p.name, version: p.version, lfVersion: p.lfVersion, modules };
}

/** Every package of the given DAR files, types only. */
export class TypesOnlyLookup implements PackageLookup {
  readonly decoded = new Map<string, DecodedPackage>();
  private readonly packages = new Map<string, DamlPackage>();

  static ofDars(files: ReadonlyArray<string | URL>): TypesOnlyLookup {
    const out = new TypesOnlyLookup();
    for (const f of files) for (const p of decodeDar(readFileSync(f)).packages) out.add(p);
    return out;
  }

  add(p: DecodedPackage): void {
    this.decoded.set(p.packageId, p);
    this.packages.set(p.packageId, typesOnlyPackage(p));
  }

  get(packageId: string): DamlPackage | undefined {
    return this.packages.get(packageId);
  }
}
