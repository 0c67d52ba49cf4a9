import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DarDecodeCache, decodeDar } from '../../../../src/emulator/dar/index.js';
import { LedgerApiError } from '../../../../src/canton/errors.js';
import { PackageStore } from '../../../../src/emulator/participant/packages.js';
import { buildDalf, buildDar, buildRawDar } from '../../../support/dar-builder.js';

const dep = buildDalf({ name: 'shared-dep', version: '1.0.0', modules: [{ name: 'Dep', dataTypes: [{ name: 'T', record: [['p', 'Party']] }] }] });
const darA = buildDar({ name: 'model-a', version: '1.0.0', modules: [{ name: 'A', dataTypes: [{ name: 'A', record: [['x', 'Int64']] }] }], dependencies: [dep] });
const darB = buildDar({ name: 'model-b', version: '1.0.0', modules: [{ name: 'B', dataTypes: [{ name: 'B', record: [['y', 'Text']] }] }], dependencies: [dep] });

function errorOf(f: () => unknown): LedgerApiError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(LedgerApiError);
    return e as LedgerApiError;
  }
  throw new Error('expected a LedgerApiError');
}

describe('DarDecodeCache', () => {
  it('decodes a dependency shared by two DARs once: the second DAR gets the same package object', () => {
    const cache = new DarDecodeCache();
    const a = decodeDar(darA.bytes, { cache });
    const b = decodeDar(darB.bytes, { cache });
    expect(a.packages[1]!.packageId).toBe(dep.packageId);
    expect(b.packages[1]).toBe(a.packages[1]);
    // And the result is what decoding without a cache gives.
    expect(decodeDar(darB.bytes, { cache: null })).toEqual(b);
    expect(decodeDar(darA.bytes, { cache })).toEqual(decodeDar(darA.bytes));
  });

  it('a DAR that differs only in a damaged entry still fails as without the cache', () => {
    const cache = new DarDecodeCache();
    decodeDar(darA.bytes, { cache });
    // Same layout, one byte of the main dalf's stored data changed: its key differs, so it is read and its CRC fails.
    const stored = buildDar({ name: 'model-a', version: '1.0.0', modules: [{ name: 'A', dataTypes: [{ name: 'A', record: [['x', 'Int64']] }] }], dependencies: [dep], method: 'store' });
    decodeDar(stored.bytes, { cache });
    const bad = Buffer.from(stored.bytes);
    const at = bad.indexOf(stored.main.bytes);
    bad[at + 10] = bad[at + 10]! ^ 0xff;
    const withCache = errorOf(() => decodeDar(bad, { cache }));
    const without = errorOf(() => decodeDar(bad, { cache: null }));
    expect(withCache.code).toBe('DAR_PARSE_ERROR');
    expect(withCache.message).toBe(without.message);
    expect(withCache.options).toEqual(without.options);
  });

  it('a dalf that fails to decode is not remembered: it fails every time', () => {
    const cache = new DarDecodeCache();
    const dar = buildRawDar(
      ['Manifest-Version: 1.0', 'Main-Dalf: x.dalf', 'Dalfs: x.dalf', 'Format: daml-lf', ''].join('\n'),
      [{ path: 'x.dalf', bytes: Buffer.from([0x08, 0x07]) }],
    );
    const first = errorOf(() => decodeDar(dar, { cache }));
    const second = errorOf(() => decodeDar(dar, { cache }));
    expect(second.code).toBe(first.code);
    expect(second.message).toBe(first.message);
    expect(second.options).toEqual(first.options);
  });

  it('two package stores sharing a cache decode the Amulet DAR once', () => {
    const bytes = readFileSync('../shared/dars/splice-amulet-0.1.22.dar');
    const cache = new DarDecodeCache();
    const p1 = new PackageStore({ decodeCache: cache });
    const p2 = new PackageStore({ decodeCache: cache });
    const r1 = p1.uploadDar(bytes);
    const r2 = p2.uploadDar(bytes);
    expect(r2).toEqual(r1);
    expect(r1.newPackageIds.length).toBe(51);
    for (const id of r1.newPackageIds) expect(p2.get(id)).toBe(p1.get(id));
  });
});
