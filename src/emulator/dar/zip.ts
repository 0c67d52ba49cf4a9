/**
 * A minimal ZIP reader for DAR files (as Canton's `GenDarReader.scala` reads them): entries are found through the
 * central directory, and each one is either stored or deflated (the two methods damlc writes).
 *
 * Canton reads DARs with `java.util.zip.ZipInputStream` (`GenDarReader.scala`), whose behaviour
 * this mirrors where a client can see it:
 *  - a body that does not start with a local file header has no entries at all (the stream
 *    simply ends), so it fails later for want of a manifest rather than as a broken zip;
 *  - a damaged zip (truncated, bad CRC, unknown method) fails as an I/O error;
 *  - an entry whose content reaches the size threshold (1 GiB in Canton) is a zip bomb. The
 *    limit is enforced while inflating, so a small archive cannot make us allocate more.
 *
 * Only the header walk is ours: inflating is Node's zlib, CRC-32 Node's `zlib.crc32` (crc32.ts).
 * Zip libraries were measured against it (Node 24, pinned to one core, the 14 Splice DARs of
 * `../shared/dars`: 9.2 MB zipped, 38.6 MB in 697 entries; medians of 7 to 11 runs, on a quiet
 * and on a busy 2-core VM), reading every entry and checking its CRC:
 *  - this reader: 69 ms (busy: 182 ms);
 *  - fflate 0.8.3 `unzipSync`, with our CRC check added: 161 ms (439). Its inflate is
 *    JavaScript; it checks no CRC, no header signature and no bounds, and allocates each entry at
 *    the size its header claims;
 *  - adm-zip 0.6.1: 200 ms (596): its CRC-32 is a JavaScript table loop. Its central directory
 *    alone (entries and their stored bytes, which is all a DarDecodeCache needs of an entry it
 *    has seen, as most entries of the Splice DARs are) takes 17 ms (65), this reader's 0.4 ms;
 *  - yauzl 3.4.0: asynchronous streams, where `decodeDar` and its callers are synchronous: 968 ms
 *    on the busy VM.
 * Each is 2.3 to 5 times slower at reading the entries, and every emulator start reads them
 * (decoding all 14 DARs, zip included, took 185 to 240 ms on the busy VM with a fresh cache);
 * none reports ZipInputStream's error texts, which DAR_PARSE_ERROR carries. So no library here.
 */
import { inflateRawSync } from 'node:zlib';
import { crc32 } from './crc32.js';

export interface ZipEntry {
  name: string;
  data: Buffer;
}

/** An archive that cannot be read; `javaClass` is the exception Java's zip library would throw. */
export class ZipFormatError extends Error {
  constructor(
    message: string,
    readonly javaClass: 'java.util.zip.ZipException' | 'java.io.EOFException' = 'java.util.zip.ZipException',
  ) {
    super(message);
  }
}

/** An entry at or above the per-entry size threshold. */
export class ZipBombError extends Error {
  constructor(readonly entryName: string) {
    super('An entry is too large, rejected as a possible zip bomb');
  }
}

/** Canton's `GenDarReader.EntrySizeThreshold`. */
export const DEFAULT_MAX_ENTRY_SIZE = 1024 * 1024 * 1024;

const LOCAL_SIG = 0x04034b50;
const CENTRAL_SIG = 0x02014b50;
const EOCD_SIG = 0x06054b50;
const EOCD_MIN = 22;

export interface ReadZipOptions {
  /** An entry whose uncompressed size reaches this many bytes is rejected as a zip bomb. */
  maxEntrySize?: number;
}

/**
 * One entry as the central directory describes it, its headers checked, its content not yet
 * read: `readEntry` inflates it and verifies its size and CRC.
 */
export interface ZipEntryRef {
  name: string;
  /** 0 = stored, 8 = deflated. */
  method: number;
  crc: number;
  size: number;
  /** The stored (possibly compressed) bytes, a view into the archive. */
  raw: Buffer;
}

export function readZip(bytes: Buffer, opts: ReadZipOptions = {}): ZipEntry[] {
  const maxEntrySize = opts.maxEntrySize ?? DEFAULT_MAX_ENTRY_SIZE;
  const entries: ZipEntry[] = [];
  forEachZipEntry(bytes, opts, (ref) => entries.push({ name: ref.name, data: readEntry(ref, maxEntrySize) }));
  return entries;
}

/**
 * Walks the entries in central-directory order, checking each one's headers before calling
 * `visit` with it: a caller that reads (or knows) each entry inside `visit` meets the errors in
 * the order `readZip` reports them. Nothing is inflated here.
 */
export function forEachZipEntry(bytes: Buffer, opts: ReadZipOptions, visit: (entry: ZipEntryRef) => void): void {
  const maxEntrySize = opts.maxEntrySize ?? DEFAULT_MAX_ENTRY_SIZE;
  // ZipInputStream yields nothing for a stream without a leading local header (empty archives
  // included), so such a body is "a zip with no entries", not a broken zip.
  if (bytes.length < 4 || bytes.readUInt32LE(0) !== LOCAL_SIG) return;

  const eocd = findEocd(bytes);
  if (eocd < 0) throw new ZipFormatError('zip END header not found');
  const count = bytes.readUInt16LE(eocd + 10);
  const cdSize = bytes.readUInt32LE(eocd + 12);
  const cdOffset = bytes.readUInt32LE(eocd + 16);
  if (cdOffset === 0xffffffff || count === 0xffff) throw new ZipFormatError('ZIP64 archives are not supported');
  if (cdOffset + cdSize > eocd) throw new ZipFormatError('invalid END header (bad central directory offset)');

  let p = cdOffset;
  for (let i = 0; i < count; i++) {
    if (p + 46 > eocd || bytes.readUInt32LE(p) !== CENTRAL_SIG) {
      throw new ZipFormatError('invalid CEN header (bad signature)');
    }
    const flags = bytes.readUInt16LE(p + 8);
    const method = bytes.readUInt16LE(p + 10);
    const crc = bytes.readUInt32LE(p + 16);
    const compSize = bytes.readUInt32LE(p + 20);
    const size = bytes.readUInt32LE(p + 24);
    const nameLen = bytes.readUInt16LE(p + 28);
    const extraLen = bytes.readUInt16LE(p + 30);
    const commentLen = bytes.readUInt16LE(p + 32);
    const localOffset = bytes.readUInt32LE(p + 42);
    if (p + 46 + nameLen > eocd) throw new ZipFormatError('invalid CEN header (bad entry name)');
    const name = bytes.toString(flags & 0x800 ? 'utf8' : 'latin1', p + 46, p + 46 + nameLen);
    p += 46 + nameLen + extraLen + commentLen;

    if (flags & 1) throw new ZipFormatError('encrypted ZIP entry not supported');
    if (compSize === 0xffffffff || size === 0xffffffff || localOffset === 0xffffffff) {
      throw new ZipFormatError('ZIP64 entries are not supported');
    }
    if (size >= maxEntrySize) throw new ZipBombError(name);

    if (localOffset + 30 > bytes.length || bytes.readUInt32LE(localOffset) !== LOCAL_SIG) {
      throw new ZipFormatError('invalid LOC header (bad signature)');
    }
    const dataStart = localOffset + 30 + bytes.readUInt16LE(localOffset + 26) + bytes.readUInt16LE(localOffset + 28);
    if (dataStart + compSize > bytes.length) {
      throw new ZipFormatError('Unexpected end of ZLIB input stream', 'java.io.EOFException');
    }
    if (method !== 0 && method !== 8) throw new ZipFormatError('invalid compression method');
    if (method === 0 && compSize !== size) {
      throw new ZipFormatError(`invalid entry size (expected ${size} but got ${compSize} bytes)`);
    }
    visit({ name, method, crc, size, raw: bytes.subarray(dataStart, dataStart + compSize) });
  }
}

/** The entry's content, inflated if need be, its size and CRC verified. */
export function readEntry(ref: ZipEntryRef, maxEntrySize: number = DEFAULT_MAX_ENTRY_SIZE): Buffer {
  const data = ref.method === 0 ? ref.raw : inflate(ref.raw, ref.name, maxEntrySize, ref.size);
  if (data.length !== ref.size) {
    throw new ZipFormatError(`invalid entry size (expected ${ref.size} but got ${data.length} bytes)`);
  }
  const actual = crc32(data);
  if (actual !== ref.crc) {
    throw new ZipFormatError(`invalid entry CRC (expected 0x${hex32(ref.crc)} but got 0x${hex32(actual)})`);
  }
  return data;
}

/**
 * Output chunks are sized from the entry's declared size (capped, as that size is only a claim),
 * so that a well-formed entry inflates into one buffer instead of 16 KiB chunks joined afterwards.
 */
const MAX_CHUNK = 16 * 1024 * 1024;

function inflate(raw: Buffer, name: string, maxEntrySize: number, size: number): Buffer {
  try {
    // Canton rejects an entry once it has read `threshold` bytes, so at most threshold-1 pass.
    return inflateRawSync(raw, {
      maxOutputLength: Math.max(1, maxEntrySize - 1),
      chunkSize: Math.min(MAX_CHUNK, Math.max(64, size + 1)),
    });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) throw new ZipBombError(name);
    if (err.code === 'Z_BUF_ERROR') throw new ZipFormatError('Unexpected end of ZLIB input stream', 'java.io.EOFException');
    throw new ZipFormatError(String(err.message ?? err));
  }
}

function findEocd(bytes: Buffer): number {
  const min = Math.max(0, bytes.length - EOCD_MIN - 0xffff);
  for (let i = bytes.length - EOCD_MIN; i >= min; i--) {
    if (bytes.readUInt32LE(i) === EOCD_SIG && i + EOCD_MIN + bytes.readUInt16LE(i + 20) <= bytes.length) return i;
  }
  return -1;
}

function hex32(n: number): string {
  return n.toString(16);
}
