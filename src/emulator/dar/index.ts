/**
 * Reading a DAR as Canton's package service does (`GenDarReader`,
 * `Reader.readArchive`, `PackageServiceErrors.Reading` in digital-asset/canton):
 *
 *  1. unzip; an entry reaching the size threshold          -> ZIP_BOMB
 *     a damaged zip                                          -> DAR_PARSE_ERROR ("IO error: ...")
 *  2. read META-INF/MANIFEST.MF (Main-Dalf, Dalfs, Format);
 *     missing manifest or attribute                          -> INVALID_DAR ("Dar file is corrupt")
 *     (a body that is not a zip at all lands here: Java's ZipInputStream sees no entries)
 *  3. every dalf named by the manifest must be in the zip  -> INVALID_ZIP_ENTRY
 *  4. each dalf is a `daml_lf.Archive`; its package id is the SHA-256 of `payload` and must equal
 *     `hash`; the payload must be LF 2                       -> DAR_PARSE_ERROR
 *
 * Errors carry Canton's cause texts and context keys. Nothing here stores anything.
 *
 * With a `DarDecodeCache`, work done for an earlier DAR is not done again: the Splice DARs each
 * carry their whole dependency closure (14 DARs hold 531 dalfs, 59 distinct ones), and every
 * participant uploads the same DARs. An entry whose stored bytes (by SHA-256), method, size and
 * CRC match one read before is known to inflate to the same verified content, and a dalf seen
 * before is known to decode to the same package, so neither is inflated or decoded again. The
 * errors a DAR gets are the same with or without the cache (only successes are remembered).
 */
import { createHash } from 'node:crypto';
import { LedgerApiError } from '../../canton/errors.js';
import { decodePackage, LfDecodeError, type DecodedPackage } from './lf2.js';
import { ManifestError, readDarManifest, type DarManifest } from './manifest.js';
import { ProtoError, ProtoMessage } from '../shared/protobuf.js';
import { DEFAULT_MAX_ENTRY_SIZE, forEachZipEntry, readEntry, ZipBombError, ZipFormatError, type ZipEntryRef } from './zip.js';

export type { DecodedPackage } from './lf2.js';
export type {
  DecodedChoice,
  DecodedDataType,
  DecodedField,
  DecodedInterface,
  DecodedModule,
  DecodedTemplate,
  LfType,
  TypeConRef,
} from './lf2.js';
export { formatTypeCon, showType } from './lf2.js';
export type { DarManifest } from './manifest.js';

export interface DecodedDar {
  mainPackageId: string;
  /** The main package first, then the dependencies in manifest order (duplicates removed). */
  packages: DecodedPackage[];
  manifest: DarManifest;
}

export interface DecodeDarOptions {
  /** Per-entry zip-bomb threshold in bytes (Canton: 1 GiB). */
  maxEntrySize?: number;
  /** The DAR's name in error messages; Canton uses `unknown-file-name` for Ledger API uploads. */
  darName?: string;
}

const MANIFEST = 'META-INF/MANIFEST.MF';
/** Scala's `Throwable.toString` prefix for the archive errors Canton reports as `throwable`. */
const LF_ERROR = 'com.digitalasset.daml.lf.archive.Error';

/**
 * What decoding DARs has already established, keyed by the SHA-256 of an entry's stored bytes:
 * which entries inflate to content matching their size and CRC, and which package each such
 * dalf is. Decoded packages are held weakly (a package no store keeps may be collected and is
 * then decoded again); the set of verified entries is bounded. One cache may serve any number
 * of package stores: a `DecodedPackage` is never modified once decoded.
 */
export class DarDecodeCache {
  private readonly verified = new Set<string>();
  private readonly packages = new Map<string, WeakRef<DecodedPackage>>();

  constructor(private readonly maxEntries = 20_000) {}

  /** The key of an entry: its stored bytes' hash, method, size and CRC. */
  key(ref: ZipEntryRef): string {
    return `${createHash('sha256').update(ref.raw).digest('base64')}:${ref.method}:${ref.size}:${ref.crc}`;
  }
  isVerified(key: string): boolean {
    return this.verified.has(key);
  }
  markVerified(key: string): void {
    if (this.verified.size >= this.maxEntries) this.verified.clear();
    this.verified.add(key);
  }
  package(key: string): DecodedPackage | undefined {
    return this.packages.get(key)?.deref();
  }
  setPackage(key: string, pkg: DecodedPackage): void {
    if (this.packages.size >= this.maxEntries) this.packages.clear();
    this.packages.set(key, new WeakRef(pkg));
  }
}

/**
 * The cache every package store uses unless given its own: decoding a DAR is a pure function of
 * its bytes, so sharing it process-wide is safe, and it makes every further emulator in the
 * process (a second participant, each test's stack) skip the decoding already done.
 */
export const sharedDarDecodeCache = new DarDecodeCache();

export interface DecodeDarCacheOption {
  /** Remembers decoded entries across calls (`null`: none). */
  cache?: DarDecodeCache | null;
}

export function decodeDar(bytes: Buffer, opts: DecodeDarOptions & DecodeDarCacheOption = {}): DecodedDar {
  const darName = opts.darName ?? 'unknown-file-name';
  const maxEntrySize = opts.maxEntrySize ?? DEFAULT_MAX_ENTRY_SIZE;
  const cache = opts.cache ?? null;
  /** Per entry: its content when read now, else its key (verified earlier, read when needed). */
  const byName = new Map<string, { ref: ZipEntryRef; key?: string; data?: Buffer }>();
  try {
    forEachZipEntry(bytes, { maxEntrySize }, (ref) => {
      const key = cache?.key(ref);
      if (key !== undefined && cache!.isVerified(key)) {
        byName.set(ref.name, { ref, key });
        return;
      }
      const data = readEntry(ref, maxEntrySize);
      if (key !== undefined) cache!.markVerified(key);
      byName.set(ref.name, key === undefined ? { ref, data } : { ref, key, data });
    });
  } catch (e) {
    if (e instanceof ZipBombError) {
      throw new LedgerApiError('ZIP_BOMB', 'Dar zip file seems to be a zip bomb.', { context: { msg: e.message } });
    }
    if (e instanceof ZipFormatError) throw parseError(`IO error: ${e.javaClass}: ${e.message}`);
    throw e;
  }
  // A verified entry inflates again without error: its bytes are the ones checked before.
  const content = (e: { ref: ZipEntryRef; data?: Buffer }): Buffer => (e.data ??= readEntry(e.ref, maxEntrySize));
  const names = [...byName.keys()];
  const entriesText = `List(${names.join(', ')})`;
  // `darInfo` in Canton's Error.scala, including its stray `}`.
  const darInfo = `${darName}, content: [${names.join(', ')}}]`;

  let manifest: DarManifest;
  const manifestEntry = byName.get(MANIFEST);
  try {
    if (manifestEntry === undefined) {
      throw new Error(`${LF_ERROR}$InvalidZipEntry: Invalid zip entryName: ${MANIFEST}, DAR: ${darInfo}`);
    }
    manifest = readDarManifest(content(manifestEntry));
  } catch (e) {
    const throwable =
      e instanceof ManifestError ? `${LF_ERROR}$DarManifestReaderException: ${e.message}` : (e as Error).message;
    throw new LedgerApiError('INVALID_DAR', 'Dar file is corrupt', {
      context: { entries: entriesText, throwable },
    });
  }

  const packages: DecodedPackage[] = [];
  const seen = new Set<string>();
  for (const dalf of [manifest.mainDalf, ...manifest.dependencyDalfs]) {
    const entry = byName.get(dalf);
    if (entry === undefined) {
      throw new LedgerApiError('INVALID_ZIP_ENTRY', 'Dar zip file is corrupt', {
        context: { name: dalf, entries: entriesText },
      });
    }
    let pkg = entry.key === undefined ? undefined : cache!.package(entry.key);
    if (!pkg) {
      pkg = decodeDalf(content(entry));
      if (entry.key !== undefined) cache!.setPackage(entry.key, pkg);
    }
    if (!seen.has(pkg.packageId)) {
      seen.add(pkg.packageId);
      packages.push(pkg);
    }
  }
  return { mainPackageId: packages[0]!.packageId, packages, manifest };
}

/** Decodes one `.dalf` (a `daml_lf.Archive`), verifying its hash. */
export function decodeDalf(data: Buffer): DecodedPackage {
  try {
    const archive = ProtoMessage.decode(data);
    // Archive { hash_function = 1 (0 = SHA256), payload = 3, hash = 4 }
    if (archive.int32(1) !== 0) throw new LfDecodeError('Unrecognized hash function');
    const payload = archive.bytes(3) ?? Buffer.alloc(0);
    const theirHash = archive.string(4);
    // `PackageId.fromString`: 1 to 64 characters of [a-zA-Z0-9-_ ].
    if (!/^[A-Za-z0-9\-_ ]{1,64}$/.test(theirHash)) throw new LfDecodeError(`Invalid hash: ${theirHash}`);
    const ourHash = createHash('sha256').update(payload).digest('hex');
    if (theirHash !== ourHash) throw new LfDecodeError(`Mismatching hashes! Expected ${ourHash} but got ${theirHash}`);
    return decodePackage(ourHash, Buffer.from(payload));
  } catch (e) {
    if (e instanceof ProtoError || e instanceof LfDecodeError) throw parseError(e.message);
    throw e;
  }
}

/**
 * DAR_PARSE_ERROR. Canton builds its context as `Map(reason -> reason)` (sic: the reason is both
 * key and value), which is what real nodes print.
 */
function parseError(reason: string): LedgerApiError {
  return new LedgerApiError('DAR_PARSE_ERROR', 'Failed to parse the dar file content.', {
    context: { [reason]: reason },
  });
}
