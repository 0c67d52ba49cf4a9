import { describe, expect, it } from 'vitest';
import { LedgerApiError } from '../../../../src/canton/errors.js';
import { compareVersions, isUtilityPackage, PackageStore } from '../../../../src/emulator/participant/packages.js';
import { buildDalf, buildDar, buildManifest, buildRawDar, type PackageSpec } from '../../../support/dar-builder.js';

const api: PackageSpec = {
  name: 'token-api',
  version: '1.0.0',
  modules: [{ name: 'Api.Token', interfaces: [{ name: 'Token', viewType: 'Api.Token:TokenView', choices: [{ name: 'Token_Burn' }] }], dataTypes: [{ name: 'TokenView', record: [['owner', 'Party']] }] }],
};
const apiDalf = buildDalf(api);

function tokenSpec(version: string, extraField = false): PackageSpec & { dependencies: PackageSpec[] } {
  return {
    name: 'token',
    version,
    modules: [
      {
        name: 'Token',
        templates: [
          {
            name: 'Token',
            fields: extraField ? [['owner', 'Party'], ['memo', 'Optional Text']] : [['owner', 'Party']],
            choices: [{ name: 'Transfer', arg: [['to', 'Party']] }],
            implements: [`${apiDalf.packageId}:Api.Token:Token`],
          },
        ],
      },
    ],
    dependencies: [api],
  };
}

const utility: PackageSpec = {
  name: 'daml-prim',
  version: '0.0.0',
  modules: [{ name: 'GHC.Types', dataTypes: [{ name: 'Opaque', serializable: false, record: [] }] }],
};

function expectCode(f: () => unknown, code: string): LedgerApiError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(LedgerApiError);
    expect((e as LedgerApiError).code).toBe(code);
    return e as LedgerApiError;
  }
  throw new Error(`expected ${code}`);
}

describe('PackageStore', () => {
  it('stores every package of a DAR and serves ids, names, payloads and definitions', () => {
    const store = new PackageStore();
    const built = buildDar(tokenSpec('1.0.0'));
    const res = store.uploadDar(built.bytes);
    expect(res).toEqual({ mainPackageId: built.mainPackageId, newPackageIds: built.packageIds });
    expect(store.list()).toEqual(built.packageIds);
    expect(store.has(built.mainPackageId)).toBe(true);
    expect(store.nameOf(built.mainPackageId)).toBe('token');
    expect(store.nameOf(apiDalf.packageId)).toBe('token-api');
    expect(store.idsOf('token')).toEqual([built.mainPackageId]);
    expect(store.payload(built.mainPackageId)!.equals(built.main.payload)).toBe(true);
    expect(store.get(built.mainPackageId)!.version).toBe('1.0.0');
    expect(store.payload('0'.repeat(64))).toBeUndefined();
    expect(store.isVetted(built.mainPackageId)).toBe(true);
    expect(store.vettedPackages().serial).toBe(1);
  });

  it('is idempotent: uploading the same DAR again adds nothing', () => {
    const store = new PackageStore();
    const built = buildDar(tokenSpec('1.0.0'));
    store.uploadDar(built.bytes);
    expect(store.uploadDar(built.bytes)).toEqual({ mainPackageId: built.mainPackageId, newPackageIds: [] });
    expect(store.list()).toHaveLength(2);
    expect(store.vettedPackages().serial).toBe(1);
  });

  it('shares dependencies between DARs', () => {
    const store = new PackageStore();
    store.uploadDar(buildDar(tokenSpec('1.0.0')).bytes);
    const v2 = buildDar(tokenSpec('2.0.0', true));
    expect(store.uploadDar(v2.bytes).newPackageIds).toEqual([v2.mainPackageId]);
    expect(store.idsOf('token')).toHaveLength(2);
  });

  it('stores nothing when any package of the DAR is bad', () => {
    const store = new PackageStore();
    const good = buildDalf(tokenSpec('1.0.0'));
    const bytes = buildRawDar(
      buildManifest([['Main-Dalf', 'main.dalf'], ['Dalfs', 'main.dalf, dep.dalf'], ['Format', 'daml-lf']]),
      [
        { path: 'main.dalf', bytes: good.bytes },
        { path: 'dep.dalf', bytes: Buffer.from('garbage') },
      ],
    );
    expectCode(() => store.uploadDar(bytes), 'DAR_PARSE_ERROR');
    expect(store.list()).toEqual([]);
    expectCode(() => store.uploadDar(Buffer.from('nope')), 'INVALID_DAR');
    expect(store.list()).toEqual([]);
  });

  it('refuses to vet a second package with the same name and version (KNOWN_PACKAGE_VERSION)', () => {
    const store = new PackageStore();
    const first = buildDar(tokenSpec('1.0.0'));
    store.uploadDar(first.bytes);
    const clash = buildDar(tokenSpec('1.0.0', true));
    expect(clash.mainPackageId).not.toBe(first.mainPackageId);
    const err = expectCode(() => store.uploadDar(clash.bytes), 'KNOWN_PACKAGE_VERSION');
    expect(err.httpStatus).toBe(400);
    expect(err.causeText).toBe(
      `Tried to vet two packages with the same name and version: ${first.mainPackageId} (token v1.0.0) and ${clash.mainPackageId} (token v1.0.0).`,
    );
    expect(store.has(clash.mainPackageId)).toBe(false);
    expectCode(() => store.validateDar(clash.bytes), 'KNOWN_PACKAGE_VERSION');
    // Without vetting, the package is only stored.
    expect(store.uploadDar(clash.bytes, { vetAllPackages: false }).newPackageIds).toEqual([clash.mainPackageId]);
    expect(store.isVetted(clash.mainPackageId)).toBe(false);
    expect(store.resolvePackage('#token')!.packageId).toBe(first.mainPackageId);
  });

  it('exempts utility packages (no templates, interfaces or serializable types) from that check', () => {
    const store = new PackageStore();
    const prim1 = buildDalf(utility);
    const prim2 = buildDalf({ ...utility, modules: [{ name: 'GHC.Tuple', dataTypes: [{ name: 'T', serializable: false, record: [] }] }] });
    expect(prim1.packageId).not.toBe(prim2.packageId);
    store.uploadDar(buildDar({ ...tokenSpec('1.0.0'), dependencies: [api, prim1] }).bytes);
    store.uploadDar(buildDar({ ...tokenSpec('2.0.0'), dependencies: [api, prim2] }).bytes);
    expect(store.idsOf('daml-prim')).toEqual([prim1.packageId, prim2.packageId]);
    expect(isUtilityPackage(store.get(prim1.packageId)!)).toBe(true);
    expect(isUtilityPackage(store.get(apiDalf.packageId)!)).toBe(false);
  });

  it('exempts the SDK packages (stable daml-stdlib-* packages have serializable types)', () => {
    const store = new PackageStore();
    const stable = (field: string): PackageSpec => ({
      name: 'daml-stdlib-DA-Set-Types',
      version: '1.0.0',
      modules: [{ name: 'DA.Set.Types', dataTypes: [{ name: 'Set', record: [[field, 'Unit']] }] }],
    });
    const a = buildDalf(stable('map'));
    const b = buildDalf(stable('other'));
    store.uploadDar(buildDar({ ...tokenSpec('1.0.0'), dependencies: [api, a] }).bytes);
    store.uploadDar(buildDar({ ...tokenSpec('2.0.0'), dependencies: [api, b] }).bytes);
    expect(store.isVetted(a.packageId) && store.isVetted(b.packageId)).toBe(true);
  });

  it('validateDar checks a DAR without storing it', () => {
    const store = new PackageStore();
    const built = buildDar(tokenSpec('1.0.0'));
    expect(store.validateDar(built.bytes).mainPackageId).toBe(built.mainPackageId);
    expect(store.list()).toEqual([]);
  });

  it('looks up templates, interfaces and data types by package id or name (highest version wins)', () => {
    const store = new PackageStore();
    const v1 = buildDar(tokenSpec('1.0.0'));
    const v10 = buildDar(tokenSpec('1.10.0', true));
    const v9 = buildDar(tokenSpec('1.9.0'));
    for (const d of [v1, v10, v9]) store.uploadDar(d.bytes);

    const byName = store.findTemplate('#token', 'Token', 'Token')!;
    expect(byName.id).toEqual({ packageId: v10.mainPackageId, packageName: 'token', moduleName: 'Token', entityName: 'Token' });
    expect(byName.packageVersion).toBe('1.10.0');
    expect(byName.template.choices.map((c) => c.name)).toEqual(['Transfer']);
    expect(byName.template.implements).toEqual([`${apiDalf.packageId}:Api.Token:Token`]);
    expect(byName.dataType).toMatchObject({ kind: 'record' });
    if (byName.dataType?.kind !== 'record') throw new Error();
    expect(byName.dataType.fields.map((f) => f.name)).toEqual(['owner', 'memo']);

    expect(store.findTemplate('token', 'Token', 'Token')!.id.packageId).toBe(v10.mainPackageId);
    expect(store.findTemplate(v1.mainPackageId, 'Token', 'Token')!.id.packageId).toBe(v1.mainPackageId);
    expect(store.findTemplate('#token', 'Token', 'Nope')).toBeUndefined();
    expect(store.findTemplate('#nope', 'Token', 'Token')).toBeUndefined();

    const i = store.findInterface('#token-api', 'Api.Token', 'Token')!;
    expect(i.id.packageId).toBe(apiDalf.packageId);
    expect(i.interface.choices.map((c) => c.name)).toEqual(['Token_Burn']);
    expect(store.findInterface('#token', 'Token', 'Token')).toBeUndefined();
    expect(store.findDataType(apiDalf.packageId, 'Api.Token', 'TokenView')!.dataType.kind).toBe('record');
  });
});

describe('PackageStore built-in packages (known by metadata only)', () => {
  const builtIn = { packageId: 'f'.repeat(64), name: 'canton-builtin-x', version: '3.4.0' };

  it('lists them first, vets them, and has no archive bytes for them', () => {
    const store = new PackageStore();
    store.registerBuiltIn(builtIn);
    const dar = buildDar(tokenSpec('1.0.0'));
    store.uploadDar(dar.bytes);
    expect(store.list()).toEqual([builtIn.packageId, ...dar.packageIds]);
    expect(store.has(builtIn.packageId)).toBe(true);
    expect(store.isBuiltIn(builtIn.packageId)).toBe(true);
    expect(store.isBuiltIn(dar.mainPackageId)).toBe(false);
    expect(store.nameOf(builtIn.packageId)).toBe('canton-builtin-x');
    expect(store.idsOf('canton-builtin-x')).toEqual([builtIn.packageId]);
    expect(store.payload(builtIn.packageId)).toBeUndefined();
    expect(store.get(builtIn.packageId)).toBeUndefined();
    expect(store.builtInPackage(builtIn.packageId)).toEqual(builtIn);
    const vetted = store.vettedPackages();
    expect(vetted.serial).toBe(2);
    expect(vetted.packages[0]).toEqual(builtIn);
    expect(vetted.packages.map((p) => p.packageId)).toEqual([builtIn.packageId, ...dar.packageIds]);
  });

  it('refuses a second built-in with the same name and version but another id', () => {
    const store = new PackageStore();
    store.registerBuiltIn(builtIn);
    store.registerBuiltIn(builtIn);
    expect(store.vettedPackages().serial).toBe(1);
    expectCode(() => store.registerBuiltIn({ ...builtIn, packageId: 'e'.repeat(64) }), 'KNOWN_PACKAGE_VERSION');
    expect(store.list()).toEqual([builtIn.packageId]);
  });
});

describe('compareVersions', () => {
  it('orders dotted versions numerically', () => {
    expect(compareVersions('1.10.0', '1.9.0')).toBeGreaterThan(0);
    expect(compareVersions('1.0', '1.0.0')).toBeLessThan(0);
    expect(compareVersions('2.0.0', '2.0.0')).toBe(0);
  });
});
