/**
 * Reading a DAR as Canton's package service does (research/ledger-api.md §9; `GenDarReader`,
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
 */
import { createHash } from 'node:crypto';
import { LedgerApiError } from '../../../canton/errors.js';
import { decodePackage, LfDecodeError, type DecodedPackage } from './lf2.js';
import { ManifestError, readDarManifest, type DarManifest } from './manifest.js';
import { ProtoError, ProtoMessage } from './protobuf.js';
import { readZip, ZipBombError, ZipFormatError, type ZipEntry } from './zip.js';

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

export function decodeDar(bytes: Buffer, opts: DecodeDarOptions = {}): DecodedDar {
  const darName = opts.darName ?? 'unknown-file-name';
  let entries: ZipEntry[];
  try {
    entries = readZip(bytes, opts.maxEntrySize === undefined ? {} : { maxEntrySize: opts.maxEntrySize });
  } catch (e) {
    if (e instanceof ZipBombError) {
      throw new LedgerApiError('ZIP_BOMB', 'Dar zip file seems to be a zip bomb.', { context: { msg: e.message } });
    }
    if (e instanceof ZipFormatError) throw parseError(`IO error: ${e.javaClass}: ${e.message}`);
    throw e;
  }
  const byName = new Map<string, Buffer>();
  for (const e of entries) byName.set(e.name, e.data);
  const names = [...byName.keys()];
  const entriesText = `List(${names.join(', ')})`;
  // `darInfo` in Canton's Error.scala, including its stray `}`.
  const darInfo = `${darName}, content: [${names.join(', ')}}]`;

  let manifest: DarManifest;
  const manifestBytes = byName.get(MANIFEST);
  try {
    if (manifestBytes === undefined) {
      throw new Error(`${LF_ERROR}$InvalidZipEntry: Invalid zip entryName: ${MANIFEST}, DAR: ${darInfo}`);
    }
    manifest = readDarManifest(manifestBytes);
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
    const data = byName.get(dalf);
    if (data === undefined) {
      throw new LedgerApiError('INVALID_ZIP_ENTRY', 'Dar zip file is corrupt', {
        context: { name: dalf, entries: entriesText },
      });
    }
    const pkg = decodeDalf(data);
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
