/**
 * CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), the checksum ZIP stores per entry.
 * `zlib.crc32` (native, from Node 22.2) when the runtime has it: a DAR is tens of MB uncompressed,
 * and the table-driven loop below costs a quarter of a second per DAR set; the loop stays for
 * Node 22.0 and 22.1 (package.json allows any Node 22).
 */
import * as zlib from 'node:zlib';

const nativeCrc32: ((data: Uint8Array) => number) | undefined = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;

const TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32(data: Uint8Array): number {
  return nativeCrc32 ? nativeCrc32(data) >>> 0 : crc32Js(data);
}

/** The portable implementation (exported for the test that checks both agree). */
export function crc32Js(data: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < data.length; i++) c = TABLE[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
