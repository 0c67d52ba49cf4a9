import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeDar, showType, type DecodedPackage } from '../../../../src/emulator/dar/index.js';
import { LedgerApiError } from '../../../../src/canton/errors.js';
import {
  archiveBytes,
  buildDalf,
  buildDar,
  buildManifest,
  buildRawDar,
  buildZip,
  ProtoWriter,
  type DarSpec,
} from '../../../support/dar-builder.js';

const iface = buildDalf({
  name: 'holding-api',
  version: '1.0.0',
  modules: [
    {
      name: 'Api.Holding',
      interfaces: [
        {
          name: 'Holding',
          viewType: 'Api.Holding:HoldingView',
          methods: ['describe'],
          choices: [{ name: 'Holding_Lock', consuming: false, arg: [['lockHolder', 'Party']], returnType: 'Unit' }],
        },
      ],
      dataTypes: [{ name: 'HoldingView', record: [['owner', 'Party'], ['amount', 'Numeric 10']] }],
    },
  ],
});

function assetSpec(over: Partial<DarSpec> = {}): DarSpec {
  return {
    name: 'asset-model',
    version: '1.2.0',
    modules: [
      {
        name: 'Main.Asset',
        templates: [
          {
            name: 'Asset',
            fields: [
              ['issuer', 'Party'],
              ['owner', 'Party'],
              ['amount', 'Numeric 10'],
              ['observers', 'List Party'],
              ['note', 'Optional Text'],
              ['meta', 'TextMap Text'],
              ['kind', 'Main.Asset:Kind'],
            ],
            choices: [
              { name: 'Transfer', consuming: true, arg: [['newOwner', 'Party']], returnType: 'ContractId Main.Asset:Asset' },
              { name: 'Peek', consuming: false, argType: 'Unit', returnType: 'Int64' },
            ],
            key: '(Party)',
            implements: [`${iface.packageId}:Api.Holding:Holding`],
          },
        ],
        dataTypes: [
          { name: 'Kind', enum: ['Fungible', 'NonFungible'] },
          { name: 'Shape', variant: [['Circle', 'Numeric 10'], ['Nothing', 'Unit']] },
          { name: 'Pair', params: ['a', 'b'], record: [['fst', 'a'], ['snd', 'b']] },
        ],
      },
    ],
    dependencies: [iface],
    ...over,
  };
}

function expectLedgerError(f: () => unknown, code: string): LedgerApiError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(LedgerApiError);
    expect((e as LedgerApiError).code).toBe(code);
    expect((e as LedgerApiError).httpStatus).toBe(400);
    return e as LedgerApiError;
  }
  throw new Error(`expected ${code}`);
}

function mainOf(bytes: Buffer): DecodedPackage {
  return decodeDar(bytes).packages[0]!;
}

describe('decodeDar', () => {
  it('decodes package id, name, version and LF version', () => {
    const built = buildDar(assetSpec());
    const dar = decodeDar(built.bytes);
    expect(dar.mainPackageId).toBe(built.mainPackageId);
    expect(dar.packages.map((p) => p.packageId)).toEqual([built.mainPackageId, iface.packageId]);
    const main = dar.packages[0]!;
    expect(main.packageId).toBe(createHash('sha256').update(built.main.payload).digest('hex'));
    expect(main.payload.equals(built.main.payload)).toBe(true);
    expect(main).toMatchObject({ name: 'asset-model', version: '1.2.0', lfVersion: '2.1' });
    expect(dar.manifest.name).toBe('asset-model-1.2.0');
    expect(dar.manifest.sdkVersion).toBe('3.4.0');
  });

  it('decodes templates with their choices, key and implemented interfaces', () => {
    const built = buildDar(assetSpec());
    const main = mainOf(built.bytes);
    expect(main.modules.map((m) => m.name)).toEqual(['Main.Asset']);
    const [t] = main.modules[0]!.templates;
    expect(t!.name).toBe('Asset');
    expect(t!.hasKey).toBe(true);
    expect(showType(t!.keyType!)).toBe('Party');
    expect(t!.implements).toEqual([`${iface.packageId}:Api.Holding:Holding`]);
    expect(t!.choices.map((c) => [c.name, c.consuming])).toEqual([
      ['Transfer', true],
      ['Peek', false],
    ]);
    const transfer = t!.choices[0]!;
    expect(showType(transfer.argType!)).toBe(`${built.mainPackageId}:Main.Asset:Transfer`);
    expect(showType(transfer.returnType!)).toBe(`ContractId ${built.mainPackageId}:Main.Asset:Asset`);
    expect(showType(t!.choices[1]!.argType!)).toBe('Unit');
    expect(showType(t!.choices[1]!.returnType!)).toBe('Int64');
  });

  it('decodes record, variant and enum data types with field names and types', () => {
    const main = mainOf(buildDar(assetSpec()).bytes);
    const types = main.modules[0]!.dataTypes;
    const asset = types.find((d) => d.name === 'Asset')!;
    expect(asset.kind).toBe('record');
    expect(asset.serializable).toBe(true);
    if (asset.kind !== 'record') throw new Error();
    expect(asset.fields.map((f) => [f.name, showType(f.type)])).toEqual([
      ['issuer', 'Party'],
      ['owner', 'Party'],
      ['amount', 'Numeric 10'],
      ['observers', 'List Party'],
      ['note', 'Optional Text'],
      ['meta', 'TextMap Text'],
      ['kind', `${main.packageId}:Main.Asset:Kind`],
    ]);
    expect(asset.fields[2]!.type).toEqual({
      kind: 'builtin',
      name: 'Numeric',
      args: [{ kind: 'nat', value: 10 }],
    });
    expect(types.find((d) => d.name === 'Kind')).toMatchObject({ kind: 'enum', constructors: ['Fungible', 'NonFungible'] });
    const shape = types.find((d) => d.name === 'Shape')!;
    if (shape.kind !== 'variant') throw new Error();
    expect(shape.constructors.map((c) => [c.name, showType(c.type)])).toEqual([
      ['Circle', 'Numeric 10'],
      ['Nothing', 'Unit'],
    ]);
    const pair = types.find((d) => d.name === 'Pair')!;
    expect(pair.params).toEqual(['a', 'b']);
    if (pair.kind !== 'record') throw new Error();
    expect(pair.fields[0]!.type).toEqual({ kind: 'var', name: 'a', args: [] });
    expect(types.find((d) => d.name === 'Transfer')).toMatchObject({ kind: 'record' });
  });

  it('decodes interfaces of a dependency', () => {
    const dep = decodeDar(buildDar(assetSpec()).bytes).packages[1]!;
    expect(dep.name).toBe('holding-api');
    const [i] = dep.modules[0]!.interfaces;
    expect(i).toMatchObject({ name: 'Holding', methods: ['describe'], requires: [] });
    expect(showType(i!.viewType!)).toBe(`${iface.packageId}:Api.Holding:HoldingView`);
    expect(i!.choices).toHaveLength(1);
    expect(i!.choices[0]).toMatchObject({ name: 'Holding_Lock', consuming: false });
    expect(dep.modules[0]!.dataTypes.find((d) => d.name === 'Holding')).toMatchObject({ kind: 'interface' });
  });

  it('decodes inline (non-interned) types and stored entries the same way', () => {
    const interned = mainOf(buildDar(assetSpec()).bytes);
    const inline = mainOf(buildDar(assetSpec({ internTypes: false, method: 'store' })).bytes);
    expect(inline.packageId).not.toBe(interned.packageId);
    const strip = (p: DecodedPackage) =>
      JSON.stringify(p.modules).replaceAll(p.packageId, 'SELF');
    expect(strip(inline)).toBe(strip(interned));
  });

  it('tolerates extra entries (sources, interface files) and reports the upgraded package id', () => {
    const built = buildDar(
      assetSpec({
        upgradedPackageId: 'f'.repeat(64),
        lfMinor: '2',
        extraEntries: [{ name: 'asset-model-1.2.0/Main/Asset.daml', data: 'module Main.Asset where' }],
      }),
    );
    const main = mainOf(built.bytes);
    expect(main.upgradedPackageId).toBe('f'.repeat(64));
    expect(main.lfVersion).toBe('2.2');
  });

  it('rejects a dalf whose hash does not match its payload (DAR_PARSE_ERROR)', () => {
    const dalf = buildDalf(assetSpec());
    const wrong = 'a'.repeat(64);
    const bytes = buildRawDar(buildManifest([['Main-Dalf', 'm.dalf'], ['Dalfs', 'm.dalf'], ['Format', 'daml-lf']]), [
      { path: 'm.dalf', bytes: archiveBytes(dalf.payload, wrong) },
    ]);
    const err = expectLedgerError(() => decodeDar(bytes), 'DAR_PARSE_ERROR');
    expect(err.causeText).toBe('Failed to parse the dar file content.');
    const reason = `Mismatching hashes! Expected ${dalf.packageId} but got ${wrong}`;
    expect(err.options.context).toEqual({ [reason]: reason });
  });

  it('rejects a body that is not a zip as a corrupt DAR (no entries, no manifest)', () => {
    const err = expectLedgerError(() => decodeDar(Buffer.from('definitely not a zip')), 'INVALID_DAR');
    expect(err.causeText).toBe('Dar file is corrupt');
    expect(err.options.context).toEqual({
      entries: 'List()',
      throwable:
        'com.digitalasset.daml.lf.archive.Error$InvalidZipEntry: Invalid zip entryName: META-INF/MANIFEST.MF, DAR: unknown-file-name, content: [}]',
    });
  });

  it('rejects a truncated zip (DAR_PARSE_ERROR) and a zip bomb (ZIP_BOMB)', () => {
    const { bytes } = buildDar(assetSpec());
    const err = expectLedgerError(() => decodeDar(bytes.subarray(0, bytes.length - 30)), 'DAR_PARSE_ERROR');
    expect(Object.keys(err.options.context!)[0]).toMatch(/^IO error: java\.util\.zip\.ZipException: /);
    const bomb = expectLedgerError(() => decodeDar(bytes, { maxEntrySize: 64 }), 'ZIP_BOMB');
    expect(bomb.causeText).toBe('Dar zip file seems to be a zip bomb.');
    expect(bomb.options.context).toEqual({ msg: 'An entry is too large, rejected as a possible zip bomb' });
  });

  it('rejects a zip without manifest, or with an incomplete one (INVALID_DAR)', () => {
    const dalf = buildDalf(assetSpec());
    const noManifest = buildRawDar(undefined, [{ path: 'm.dalf', bytes: dalf.bytes }]);
    expect(expectLedgerError(() => decodeDar(noManifest), 'INVALID_DAR').options.context!.entries).toBe('List(m.dalf)');
    const noFormat = buildRawDar(buildManifest([['Main-Dalf', 'm.dalf'], ['Dalfs', 'm.dalf']]), [{ path: 'm.dalf', bytes: dalf.bytes }]);
    expect(expectLedgerError(() => decodeDar(noFormat), 'INVALID_DAR').options.context).toEqual({
      entries: 'List(META-INF/MANIFEST.MF, m.dalf)',
      throwable: 'com.digitalasset.daml.lf.archive.Error$DarManifestReaderException: Cannot find attribute: Format',
    });
  });

  it('rejects a manifest naming a dalf the zip lacks (INVALID_ZIP_ENTRY)', () => {
    const dalf = buildDalf(assetSpec());
    const bytes = buildRawDar(
      buildManifest([['Main-Dalf', 'm.dalf'], ['Dalfs', 'm.dalf, missing.dalf'], ['Format', 'daml-lf']]),
      [{ path: 'm.dalf', bytes: dalf.bytes }],
    );
    const err = expectLedgerError(() => decodeDar(bytes), 'INVALID_ZIP_ENTRY');
    expect(err.causeText).toBe('Dar zip file is corrupt');
    expect(err.options.context).toEqual({ name: 'missing.dalf', entries: 'List(META-INF/MANIFEST.MF, m.dalf)' });
  });

  it('rejects LF1 payloads, payloads without a package and garbage dalfs (DAR_PARSE_ERROR)', () => {
    const manifest = buildManifest([['Main-Dalf', 'm.dalf'], ['Dalfs', 'm.dalf'], ['Format', 'daml-lf']]);
    const withPayload = (payload: Buffer) =>
      buildRawDar(manifest, [{ path: 'm.dalf', bytes: archiveBytes(payload, createHash('sha256').update(payload).digest('hex')) }]);
    const lf1 = new ProtoWriter().string(3, '17').bytes(2, Buffer.from([0x0a, 0x00])).finish();
    const e1 = expectLedgerError(() => decodeDar(withPayload(lf1)), 'DAR_PARSE_ERROR');
    expect(Object.keys(e1.options.context!)).toEqual(['LF version 1.17 unsupported']);
    const none = new ProtoWriter().string(3, '1').finish();
    const e2 = expectLedgerError(() => decodeDar(withPayload(none)), 'DAR_PARSE_ERROR');
    expect(Object.keys(e2.options.context!)).toEqual(['Unrecognized or Unsupported LF version']);
    const garbage = buildRawDar(manifest, [{ path: 'm.dalf', bytes: Buffer.from([0xff, 0xff, 0xff]) }]);
    expectLedgerError(() => decodeDar(garbage), 'DAR_PARSE_ERROR');
    // a package whose interned-string indexes point nowhere
    const badPkg = new ProtoWriter().message(1, (m) => m.varint(1, 5)).finish();
    const e3 = expectLedgerError(
      () => decodeDar(withPayload(new ProtoWriter().string(3, '1').bytes(4, badPkg).finish())),
      'DAR_PARSE_ERROR',
    );
    expect(Object.keys(e3.options.context!)[0]).toMatch(/invalid interned dotted name index 5|no metadata/);
  });

  it('deduplicates a package listed twice', () => {
    const dalf = buildDalf(assetSpec());
    const bytes = buildZip([
      { name: 'META-INF/MANIFEST.MF', data: buildManifest([['Main-Dalf', 'a.dalf'], ['Dalfs', 'a.dalf, b.dalf'], ['Format', 'daml-lf']]) },
      { name: 'a.dalf', data: dalf.bytes },
      { name: 'b.dalf', data: dalf.bytes },
    ]);
    expect(decodeDar(bytes).packages).toHaveLength(1);
  });
});
