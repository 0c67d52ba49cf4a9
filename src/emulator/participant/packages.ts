/**
 * Uploaded Daml packages: the DARs a participant holds and vets (Canton `JsPackageService.scala`, `GenDarReader.scala`).
 *
 * Upload is all-or-nothing: the whole DAR is decoded and checked before anything is stored, so a
 * bad DAR changes nothing. Uploading the same DAR again is a no-op. Every package of a DAR is
 * vetted on the participant's one synchronizer unless the upload asks not to (`vetAllPackages`).
 *
 * A participant also starts with built-in system packages (Canton's admin workflows, e.g.
 * `canton-builtin-admin-workflow-ping`), which it lists and vets like uploaded ones. The emulator
 * knows those by id, name and version only (`registerBuiltIn`): their templates are native, and
 * their archive bytes are not available, so `payload` has nothing for them.
 */
import { decodeDar, sharedDarDecodeCache, type DarDecodeCache, type DecodedDar, type DecodedPackage } from '../dar/index.js';
import type { DecodedDataType, DecodedInterface, DecodedTemplate } from '../dar/index.js';
import { LedgerApiError } from '../../canton/errors.js';
import type { QualifiedId } from './types.js';

export interface UploadDarOptions {
  /** Vet every package of the DAR (the JSON API's `vetAllPackages`, default true). */
  vetAllPackages?: boolean;
}

export interface UploadDarResult {
  mainPackageId: string;
  /** Packages this upload added, main package first; empty for a re-upload. */
  newPackageIds: string[];
}

export interface PackageStoreOptions {
  /** Per-entry zip-bomb threshold (Canton: 1 GiB). */
  maxDarEntrySize?: number;
  /** Called after an upload that changed the store (durable state journals the DAR). */
  onUpload?: (upload: SavedDarUpload) => void;
  /**
   * What earlier DAR decodings established (dar/index.ts): by default the process-wide cache, so a
   * dependency shared by several DARs, or uploaded to several participants, is decoded once.
   */
  decodeCache?: DarDecodeCache | null;
}

/** A DAR upload as durable state saves it: uploading it again restores what it added. */
export interface SavedDarUpload {
  bytes: Buffer;
  vetAllPackages: boolean;
}

export interface TemplateLookup {
  id: QualifiedId;
  packageVersion: string;
  template: DecodedTemplate;
  /** The template's payload type: the record data type of the same name in the same module. */
  dataType?: DecodedDataType;
}

export interface InterfaceLookup {
  id: QualifiedId;
  packageVersion: string;
  interface: DecodedInterface;
}

/** What the package service reports about a package: `PackageDescription`'s id, name and version. */
export interface PackageMetadata {
  packageId: string;
  name: string;
  version: string;
}

export interface DataTypeLookup {
  id: QualifiedId;
  dataType: DecodedDataType;
}

export class PackageStore {
  /** By package id, in upload order. */
  private readonly packages = new Map<string, DecodedPackage>();
  /** Built-in packages known by metadata only, in registration order. */
  private readonly builtIn = new Map<string, PackageMetadata>();
  private readonly vetted = new Set<string>();
  private serial = 0;
  /** The uploads that changed the store, in order (durable state's snapshot re-uploads them). */
  private readonly uploads: SavedDarUpload[] = [];
  private readonly addedListeners: Array<(packageIds: readonly string[]) => void> = [];

  constructor(private readonly opts: PackageStoreOptions = {}) {}

  has(packageId: string): boolean {
    return this.packages.has(packageId) || this.builtIn.has(packageId);
  }
  nameOf(packageId: string): string | undefined {
    return this.packages.get(packageId)?.name ?? this.builtIn.get(packageId)?.name;
  }
  idsOf(packageName: string): string[] {
    return this.all().filter((p) => p.name === packageName).map((p) => p.packageId);
  }

  /** Every package id: the built-in ones, then the uploaded ones (dependencies included) in upload order. */
  list(): string[] {
    return [...this.builtIn.keys(), ...this.packages.keys()];
  }

  /**
   * Registers a package the participant has from the start without a DAR (Canton loads its
   * admin-workflow DARs at node start-up and vets them): listed, REGISTERED and vetted, with no
   * archive bytes. Registering the same package again does nothing.
   */
  registerBuiltIn(meta: PackageMetadata): void {
    if (this.has(meta.packageId)) return;
    this.checkVetting([], [meta]);
    this.builtIn.set(meta.packageId, { ...meta });
    this.vetted.add(meta.packageId);
    this.serial++;
  }
  /** Whether the package is a built-in one, known by metadata only. */
  isBuiltIn(packageId: string): boolean {
    return this.builtIn.has(packageId);
  }
  /** The built-in package's metadata, if `packageId` is one. */
  builtInPackage(packageId: string): PackageMetadata | undefined {
    const p = this.builtIn.get(packageId);
    return p && { ...p };
  }
  get(packageId: string): DecodedPackage | undefined {
    return this.packages.get(packageId);
  }
  /** The ArchivePayload bytes whose SHA-256 is the package id. */
  payload(packageId: string): Buffer | undefined {
    return this.packages.get(packageId)?.payload;
  }
  isVetted(packageId: string): boolean {
    return this.vetted.has(packageId);
  }
  /** The vetted packages, in vetting order, and the serial of the last vetting change (0 = none). */
  vettedPackages(): { serial: number; packages: PackageMetadata[] } {
    return { serial: this.serial, packages: [...this.vetted].map((id) => this.metadataOf(id)!) };
  }

  /**
   * Decodes and checks a DAR as an upload would (including the vetting checks), storing nothing:
   * `POST /v2/dars/validate`.
   */
  validateDar(bytes: Buffer): DecodedDar {
    const dar = this.decode(bytes);
    this.checkVetting(dar.packages);
    return dar;
  }

  uploadDar(bytes: Buffer, opts: UploadDarOptions = {}): UploadDarResult {
    const dar = this.decode(bytes);
    const vet = opts.vetAllPackages ?? true;
    if (vet) this.checkVetting(dar.packages);
    // Checked: from here on nothing can fail.
    const newPackageIds: string[] = [];
    for (const p of dar.packages) {
      if (!this.packages.has(p.packageId)) {
        this.packages.set(p.packageId, p);
        newPackageIds.push(p.packageId);
      }
    }
    if (vet) {
      let changed = false;
      for (const p of dar.packages) {
        if (!this.vetted.has(p.packageId)) {
          this.vetted.add(p.packageId);
          changed = true;
        }
      }
      if (changed) this.serial++;
    }
    if (newPackageIds.length > 0 || vet) {
      const upload = { bytes, vetAllPackages: vet };
      this.uploads.push(upload);
      this.opts.onUpload?.(upload);
    }
    if (newPackageIds.length > 0) for (const l of this.addedListeners) l(newPackageIds);
    return { mainPackageId: dar.mainPackageId, newPackageIds };
  }

  /**
   * Calls `listener` with the ids of the packages each upload adds (main package first), once
   * they are stored: the Daml-LF engine registers their templates (src/emulator/daml-lf-bridge).
   */
  onPackagesAdded(listener: (packageIds: readonly string[]) => void): void {
    this.addedListeners.push(listener);
  }

  /** Every upload that changed the store, in order. */
  savedUploads(): readonly SavedDarUpload[] {
    return this.uploads;
  }

  /**
   * The package a reference names: a package id, or a package name (with or without `#`), which
   * resolves to its highest vetted version (else its highest stored one), as Canton picks the
   * preferred package for `#name` references.
   */
  resolvePackage(ref: string): DecodedPackage | undefined {
    if (!ref.startsWith('#')) {
      const byId = this.packages.get(ref);
      if (byId) return byId;
    }
    const name = ref.startsWith('#') ? ref.slice(1) : ref;
    const candidates = [...this.packages.values()].filter((p) => p.name === name);
    const vetted = candidates.filter((p) => this.vetted.has(p.packageId));
    const pool = vetted.length > 0 ? vetted : candidates;
    let best: DecodedPackage | undefined;
    for (const p of pool) if (!best || compareVersions(p.version, best.version) > 0) best = p;
    return best;
  }

  findTemplate(packageRef: string, moduleName: string, entityName: string): TemplateLookup | undefined {
    const pkg = this.resolvePackage(packageRef);
    const mod = pkg?.modules.find((m) => m.name === moduleName);
    const template = mod?.templates.find((t) => t.name === entityName);
    if (!pkg || !mod || !template) return undefined;
    const out: TemplateLookup = { id: qid(pkg, moduleName, entityName), packageVersion: pkg.version, template };
    const dataType = mod.dataTypes.find((d) => d.name === entityName);
    if (dataType) out.dataType = dataType;
    return out;
  }

  findInterface(packageRef: string, moduleName: string, entityName: string): InterfaceLookup | undefined {
    const pkg = this.resolvePackage(packageRef);
    const iface = pkg?.modules.find((m) => m.name === moduleName)?.interfaces.find((i) => i.name === entityName);
    if (!pkg || !iface) return undefined;
    return { id: qid(pkg, moduleName, entityName), packageVersion: pkg.version, interface: iface };
  }

  findDataType(packageRef: string, moduleName: string, entityName: string): DataTypeLookup | undefined {
    const pkg = this.resolvePackage(packageRef);
    const dataType = pkg?.modules.find((m) => m.name === moduleName)?.dataTypes.find((d) => d.name === entityName);
    if (!pkg || !dataType) return undefined;
    return { id: qid(pkg, moduleName, entityName), dataType };
  }

  private metadataOf(packageId: string): PackageMetadata | undefined {
    const p = this.packages.get(packageId) ?? this.builtIn.get(packageId);
    return p && { packageId: p.packageId, name: p.name, version: p.version };
  }

  private all(): PackageMetadata[] {
    return [...this.builtIn.values(), ...this.packages.values()];
  }

  private decode(bytes: Buffer): DecodedDar {
    const cache = this.opts.decodeCache === undefined ? sharedDarDecodeCache : this.opts.decodeCache;
    return decodeDar(bytes, this.opts.maxDarEntrySize === undefined ? { cache } : { cache, maxEntrySize: this.opts.maxDarEntrySize });
  }

  /**
   * Canton's vetting-time upgrade check: two vetted packages may not share a name and version
   * (`TopologyManagerError.UpgradeVersion`). Utility packages (no templates, no interfaces, no
   * serializable data types) are exempt, as in Canton; so are the SDK's own packages (daml-prim,
   * daml-stdlib, ghc-stdlib and their stable per-module packages, daml-script), which Canton
   * requires to be utility packages or pins by id, so DARs built with different SDKs coexist.
   */
  private checkVetting(incoming: DecodedPackage[], incomingBuiltIn: PackageMetadata[] = []): void {
    const byNameVersion = new Map<string, PackageMetadata>();
    // Built-in packages have templates: they are never utility packages.
    const consider = (p: PackageMetadata, utility: boolean): void => {
      if (utility || SDK_PACKAGE.test(p.name)) return;
      const key = `${p.name}\u0000${p.version}`;
      const other = byNameVersion.get(key);
      if (other && other.packageId !== p.packageId) {
        throw new LedgerApiError(
          'KNOWN_PACKAGE_VERSION',
          `Tried to vet two packages with the same name and version: ${describe(other)} and ${describe(p)}.`,
        );
      }
      if (!other) byNameVersion.set(key, p);
    };
    for (const id of this.vetted) {
      const decoded = this.packages.get(id);
      if (decoded) consider(decoded, isUtilityPackage(decoded));
      else consider(this.builtIn.get(id)!, false);
    }
    for (const p of incomingBuiltIn) consider(p, false);
    for (const p of incoming) consider(p, isUtilityPackage(p));
  }
}

function qid(pkg: DecodedPackage, moduleName: string, entityName: string): QualifiedId {
  return { packageId: pkg.packageId, packageName: pkg.name, moduleName, entityName };
}

/** Canton's `PkgIdWithNameAndVersion` rendering. */
function describe(p: PackageMetadata): string {
  return `${p.packageId} (${p.name} v${p.version})`;
}

const SDK_PACKAGE = /^(daml-prim|daml-stdlib|ghc-stdlib|daml-script)(-|$)/;

export function isUtilityPackage(p: DecodedPackage): boolean {
  return p.modules.every(
    (m) => m.templates.length === 0 && m.interfaces.length === 0 && m.dataTypes.every((d) => !d.serializable),
  );
}

/** Daml package versions are dot-separated non-negative integers; compares them numerically. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.');
  const pb = b.split('.');
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = Number(pa[i] ?? -1);
    const y = Number(pb[i] ?? -1);
    if (Number.isNaN(x) || Number.isNaN(y)) {
      const c = (pa[i] ?? '').localeCompare(pb[i] ?? '');
      if (c !== 0) return c;
    } else if (x !== y) return x - y;
  }
  return 0;
}
