import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32, crc32Js } from '../../../../src/emulator/dar/crc32.js';
import { readZip, ZipBombError, ZipFormatError } from '../../../../src/emulator/dar/zip.js';
import { buildZip } from '../../../support/dar-builder.js';

describe('crc32', () => {
  it('matches the standard check value', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
    expect(crc32(Buffer.alloc(0))).toBe(0);
    expect(crc32Js(Buffer.from('123456789'))).toBe(0xcbf43926);
  });

  it('native and portable implementations agree', () => {
    const data = Buffer.alloc(100_003);
    for (let i = 0; i < data.length; i++) data[i] = (i * 7919) & 0xff;
    expect(crc32(data)).toBe(crc32Js(data));
    expect(crc32(data.subarray(17, 5000))).toBe(crc32Js(data.subarray(17, 5000)));
  });
});

describe('readZip', () => {
  it('reads stored and deflated entries in central-directory order', () => {
    const big = Buffer.from('hello zip '.repeat(1000));
    const zip = buildZip([
      { name: 'a.txt', data: 'alpha', method: 'store' },
      { name: 'dir/b.bin', data: big, method: 'deflate' },
      { name: 'empty', data: '', method: 'deflate' },
    ]);
    const entries = readZip(zip);
    expect(entries.map((e) => e.name)).toEqual(['a.txt', 'dir/b.bin', 'empty']);
    expect(entries[0]!.data.toString()).toBe('alpha');
    expect(entries[1]!.data.equals(big)).toBe(true);
    expect(entries[2]!.data.length).toBe(0);
  });

  it('finds no entries in a body that is not a zip (as ZipInputStream does)', () => {
    expect(readZip(Buffer.from('this is not a zip file'))).toEqual([]);
    expect(readZip(Buffer.alloc(0))).toEqual([]);
    // an empty archive is only an end-of-central-directory record
    expect(readZip(buildZip([]))).toEqual([]);
  });

  it('rejects a truncated archive', () => {
    const zip = buildZip([{ name: 'a.txt', data: 'x'.repeat(500) }]);
    for (const cut of [zip.length - 5, 40, 60]) {
      expect(() => readZip(zip.subarray(0, cut))).toThrow(ZipFormatError);
    }
  });

  it('rejects a corrupted entry by its CRC', () => {
    const zip = buildZip([{ name: 'a.txt', data: 'abcdef', method: 'store' }]);
    const bad = Buffer.from(zip);
    bad[30 + 'a.txt'.length] = 'z'.charCodeAt(0); // first data byte
    expect(() => readZip(bad)).toThrow(/invalid entry CRC \(expected 0x[0-9a-f]+ but got 0x[0-9a-f]+\)/);
  });

  it('rejects an unsupported compression method', () => {
    const zip = Buffer.from(buildZip([{ name: 'a', data: 'abc', method: 'store' }]));
    const cd = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    zip.writeUInt16LE(12, cd + 10); // bzip2
    expect(() => readZip(zip)).toThrow('invalid compression method');
  });

  it('rejects an entry at the size threshold as a zip bomb, by declared size', () => {
    const zip = buildZip([{ name: 'bomb', data: Buffer.alloc(4096) }]);
    expect(() => readZip(zip, { maxEntrySize: 4096 })).toThrow(ZipBombError);
    expect(readZip(zip, { maxEntrySize: 4097 })[0]!.data.length).toBe(4096);
  });

  it('stops inflating at the threshold even when the declared size lies', () => {
    const data = Buffer.alloc(1 << 20); // 1 MiB of zeros deflates to ~1 KiB
    const zip = Buffer.from(buildZip([{ name: 'bomb', data }]));
    expect(deflateRawSync(data).length).toBeLessThan(2048);
    const cd = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    zip.writeUInt32LE(10, cd + 24); // claim 10 bytes uncompressed
    zip.writeUInt32LE(10, 22);
    expect(() => readZip(zip, { maxEntrySize: 64 * 1024 })).toThrow(ZipBombError);
  });
});
