/**
 * Preferred packages (InteractiveSubmissionService.GetPreferredPackages / ...Version): for a
 * package name, the highest version vetted for all the given parties. The emulated participant
 * hosts every party and vets everything it uploads (unless asked not to), so this is the
 * highest vetted version in the package store.
 *
 * Errors as Canton's: a party unknown to the topology is UNKNOWN_INFORMEES; a name that is not
 * a valid package name is INVALID_FIELD; a valid name nobody vetted is PACKAGE_NAMES_NOT_FOUND.
 */
import type { LedgerEngine } from '../engine.js';
import { errors, LedgerApiError } from '../../../canton/errors.js';
import { compareVersions } from '../packages.js';

/** `Ref.PackageName`: letters, digits, `-`, `_`, `.`; at most 255 characters. */
const PACKAGE_NAME = /^[A-Za-z0-9._-]{1,255}$/;

export interface PackageReference {
  packageId: string;
  packageName: string;
  packageVersion: string;
}

export function preferredPackage(engine: LedgerEngine, packageName: string, parties: readonly string[]): PackageReference {
  const unknown = parties.filter((p) => !engine.parties.has(p));
  if (unknown.length > 0) {
    throw new LedgerApiError('UNKNOWN_INFORMEES', `The following parties are not active on any synchronizer: ${unknown.join(', ')}`, {
      resources: unknown.map((p) => ['PARTY', p] as [string, string]),
    });
  }
  if (!PACKAGE_NAME.test(packageName)) {
    throw errors.invalidField('package_name/packageName', `Invalid package name: ${packageName}`);
  }
  let best: PackageReference | undefined;
  for (const p of engine.packages.vettedPackages().packages) {
    if (p.name !== packageName) continue;
    if (!best || compareVersions(p.version, best.packageVersion) > 0) best = { packageId: p.packageId, packageName: p.name, packageVersion: p.version };
  }
  if (!best) {
    throw new LedgerApiError('PACKAGE_NAMES_NOT_FOUND', `The following package names do not match upgradable packages uploaded on this participant: [${packageName}].`, {
      resources: [['PACKAGE_NAME', packageName]],
    });
  }
  return best;
}
