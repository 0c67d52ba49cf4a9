import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeDar, type DecodedPackage } from '../../../../src/emulator/ledger/dar/index.js';
import { decodeDamlPackageWithStats } from '../../../../src/emulator/daml-lf/decode.js';
import type { DamlPackage } from '../../../../src/emulator/daml-lf/ast.js';

const DARS = '../shared/dars';
const darFiles = readdirSync(DARS).filter((f) => f.endsWith('.dar')).sort();

describe('decodeDamlPackage on the real DARs', () => {
  it.each(darFiles)('%s: every package decodes, matching the type-level decode', (file) => {
    const dar = decodeDar(readFileSync(`${DARS}/${file}`));
    const started = performance.now();
    let maxDepth = 0;
    const decoded: Array<[DecodedPackage, DamlPackage]> = [];
    for (const p of dar.packages) {
      const { pkg, stats } = decodeDamlPackageWithStats(p.packageId, p.payload);
      maxDepth = Math.max(maxDepth, stats.maxExprDepth);
      decoded.push([p, pkg]);
    }
    const ms = performance.now() - started;
    console.log(`${file}: ${dar.packages.length} packages decoded in ${ms.toFixed(0)} ms, max expression depth ${maxDepth}`);
    for (const [typeLevel, full] of decoded) expectSameShape(typeLevel, full);
  });
});

function expectSameShape(t: DecodedPackage, f: DamlPackage): void {
  expect(f.packageId).toBe(t.packageId);
  expect(f.name).toBe(t.name);
  expect(f.version).toBe(t.version);
  expect(f.lfVersion).toBe(t.lfVersion);
  expect(f.upgradedPackageId).toBe(t.upgradedPackageId);
  expect([...f.modules.keys()]).toEqual(t.modules.map((m) => m.name));
  for (const tm of t.modules) {
    const fm = f.modules.get(tm.name)!;
    expect([...fm.templates.keys()]).toEqual(tm.templates.map((x) => x.name));
    for (const tt of tm.templates) {
      const ft = fm.templates.get(tt.name)!;
      expect([...ft.choices.keys()]).toEqual(tt.choices.map((c) => c.name));
      for (const tc of tt.choices) {
        const fc = ft.choices.get(tc.name)!;
        expect(fc.consuming).toBe(tc.consuming);
        expect(fc.argBinder.type).toEqual(tc.argType);
        expect(fc.returnType).toEqual(tc.returnType);
      }
      expect([...ft.implements.keys()]).toEqual(tt.implements);
      expect(ft.key !== undefined).toBe(tt.hasKey);
    }
    expect([...fm.interfaces.keys()]).toEqual(tm.interfaces.map((x) => x.name));
    for (const ti of tm.interfaces) {
      const fi = fm.interfaces.get(ti.name)!;
      expect([...fi.choices.keys()]).toEqual(ti.choices.map((c) => c.name));
      expect([...fi.methods.keys()]).toEqual(ti.methods);
      expect(fi.requires).toEqual(ti.requires);
      expect(fi.view).toEqual(ti.viewType);
    }
    expect([...fm.dataTypes.values()]).toEqual(tm.dataTypes);
  }
}
