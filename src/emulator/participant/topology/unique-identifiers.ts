/**
 * Canton unique identifiers (`identifier::namespace`, `UniqueIdentifier.scala`) and fingerprints
 * as the external-party endpoints validate them: party hints, party ids, participant and
 * synchronizer ids. Each returns Canton's error text (or undefined / the parsed parts).
 */
import { partyStringError } from '../object-meta.js';

/** `UniqueIdentifier.verifyValidString` + `String185`: the error text, or undefined. */
export function identifierError(s: string): string | undefined {
  if (s.includes('::')) return 'String contains reserved delimiter `::`.';
  if (s.length > 185) return `The given string has a maximum length of 185 but a string of length ${s.length} was given`;
  return partyStringError(s);
}

/** `Fingerprint.fromProtoPrimitive`: the error text, or undefined. */
export function fingerprintError(s: string): string | undefined {
  if (s === '') return 'Fingerprint is empty';
  if (s.length > 68) return `Fingerprint ${s} is too long (max: 68)`;
  if (!/^[A-Za-z0-9]+$/.test(s)) return `Fingerprint ${s} contains invalid characters`;
  return undefined;
}

/** `UniqueIdentifier.fromProtoPrimitive_`: `identifier::namespace`. */
export function parseUid(s: string): { identifier: string; namespace: string } | string {
  const at = s.indexOf('::');
  if (at < 0) return `Invalid unique identifier \`${s}\` with missing namespace.`;
  const identifier = s.slice(0, at);
  const namespace = s.slice(at + 2);
  if (identifier === '') return `Invalid unique identifier \`${s}\` with empty identifier.`;
  const err = identifierError(identifier) ?? fingerprintError(namespace);
  if (err !== undefined) return `Invalid unique identifier \`${s}\`: ${err}`;
  return { identifier, namespace };
}
