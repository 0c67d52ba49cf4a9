/**
 * What the caller of a request may do, resolved from its token and its user's rights
 * (Canton `ledger/api/auth/UserBasedClaimResolver.scala`). Route handlers check these; the engine
 * itself never sees tokens.
 *
 * Note: ParticipantAdmin does NOT imply act-as or read-as for any party (Canton semantics).
 */
import { errors } from '../../canton/errors.js';

export type Claims =
  /** Auth is off (the sandbox default `AuthServiceWildcard`): everything allowed, no user. */
  | { kind: 'wildcard' }
  | UserClaims;

export interface UserClaims {
  kind: 'user';
  userId: string;
  identityProviderId: string;
  admin: boolean;
  idpAdmin: boolean;
  actAs: ReadonlySet<string>;
  readAs: ReadonlySet<string>;
  executeAs: ReadonlySet<string>;
  readAsAnyParty: boolean;
  executeAsAnyParty: boolean;
  /** Token expiry in epoch seconds, if the token had one. */
  expiresAt?: number;
  /**
   * The `jwt-timestamp-leeway` the token was verified with (seconds): open streams end once
   * `now - leeway >= expiresAt` (canton: community/base/.../auth/Claims.scala, `notExpired`).
   */
  expiryLeewaySeconds?: number;
}

export const WILDCARD: Claims = { kind: 'wildcard' };

export function isAdmin(c: Claims): boolean {
  return c.kind === 'wildcard' || c.admin;
}
export function isAdminOrIdpAdmin(c: Claims): boolean {
  return c.kind === 'wildcard' || c.admin || c.idpAdmin;
}
export function canActAs(c: Claims, party: string): boolean {
  return c.kind === 'wildcard' || c.actAs.has(party);
}
export function canReadAs(c: Claims, party: string): boolean {
  return c.kind === 'wildcard' || c.readAsAnyParty || c.actAs.has(party) || c.readAs.has(party);
}
export function canReadAsAnyParty(c: Claims): boolean {
  return c.kind === 'wildcard' || c.readAsAnyParty;
}
export function canExecuteAs(c: Claims, party: string): boolean {
  return c.kind === 'wildcard' || c.executeAsAnyParty || c.executeAs.has(party) || c.actAs.has(party);
}
/** The user id the token speaks for, or undefined when auth is off. */
export function userIdOf(c: Claims): string | undefined {
  return c.kind === 'user' ? c.userId : undefined;
}

export function requireAdmin(c: Claims): void {
  if (!isAdmin(c)) throw errors.permissionDenied('Claims do not authorize the use of administrative services.');
}
export function requireAdminOrIdpAdmin(c: Claims): void {
  if (!isAdminOrIdpAdmin(c)) {
    throw errors.permissionDenied('Claims do not authorize the use of administrative services.');
  }
}
export function requireActAs(c: Claims, parties: Iterable<string>): void {
  for (const p of parties) {
    if (!canActAs(c, p)) throw errors.permissionDenied(`Claims do not authorize to act as party '${p}'`);
  }
}
export function requireReadAs(c: Claims, parties: Iterable<string>): void {
  for (const p of parties) {
    if (!canReadAs(c, p)) throw errors.permissionDenied(`Claims do not authorize to read data for party '${p}'`);
  }
}
export function requireReadAsAnyParty(c: Claims): void {
  if (!canReadAsAnyParty(c)) {
    throw errors.permissionDenied('Claims do not authorize to read data for all parties (wildcard reads)');
  }
}
