/**
 * Users and their rights, with the validation, ordering of checks and error texts of Canton
 * 3.5's `ApiUserManagementService` over its user store (`InMemoryUserManagementStore`, digital-asset/canton):
 *
 * - user ids match `[a-zA-Z0-9@^$.!`\-#+'~_|:()]{1,128}`; a created user has resourceVersion
 *   "0", +1 per update (even a no-op one); rights changes never bump it;
 * - rights naming parties (CanActAs / CanReadAs) must name known parties (UNKNOWN_RESOURCE);
 * - at most 1000 rights per user (TOO_MANY_USER_RIGHTS), checked after the change;
 * - a user cannot deactivate or delete itself, nor revoke its own ParticipantAdmin;
 * - the default admin `participant_admin` holds ParticipantAdmin.
 *
 * Every method validates fully before touching state: a rejected call changes nothing.
 */
import { errors, LedgerApiError } from '../../canton/errors.js';
import {
  decodePageToken,
  encodePageToken,
  invalidPageToken,
  isValidUserId,
  isWithinMaxAnnotationsSize,
  mergeAnnotations,
  optionalIdentityProviderId,
  parseResourceVersion,
  requireEmptyString,
  requireIdentityProviderExists,
  requireParty,
  requireUserId,
  UpdateMask,
  verifyAnnotations,
} from './object-meta.js';
import type { PartyStore } from './parties.js';
import type { Right, UserRecord } from './types.js';

export const ADMIN_USER_ID = 'participant_admin';
/** `UserManagementServiceConfig` defaults (also reported by GET /v2/version). */
export const MAX_RIGHTS_PER_USER = 1000;
export const MAX_USERS_PAGE_SIZE = 1000;

/** Every valid user update path (`UpdateRequestsPaths.UserPaths`, proto snake_case; 3.5 adds the last). */
export const USER_UPDATE_PATHS = [
  'id',
  'primary_party',
  'is_deactivated',
  'metadata.annotations',
  'metadata.resource_version',
  'identity_provider_id',
  'primary_party_authentication',
] as const;

/** A stored user: the shared record plus the 3.5 `primaryPartyAuthentication` flag. */
export interface UserDetails extends UserRecord {
  primaryPartyAuthentication: boolean;
}

/** A user as sent in a create or update request (wire defaults already applied). */
export interface UserInput {
  id: string;
  primaryParty?: string;
  isDeactivated?: boolean;
  metadata?: { resourceVersion?: string; annotations?: Record<string, string> };
  identityProviderId?: string;
  primaryPartyAuthentication?: boolean;
}

/**
 * Who makes the request, for the rules that depend on it. `userId` is the authenticated user
 * (absent when auth is off); `participantAdmin` selects which party check applies.
 */
export interface Caller {
  userId?: string;
  participantAdmin: boolean;
}

/** Auth off (wildcard claims): no user, admin. */
const WILDCARD_CALLER: Caller = { participantAdmin: true };

export interface UserStoreOptions {
  parties: PartyStore;
  maxRightsPerUser?: number;
  /**
   * Whether party rights granted by a ParticipantAdmin must name parties known to the
   * participant. Canton 3.4 checks them (`indexKnownParties`); 3.5 skips the check for admins.
   * Default true: the stricter behaviour, so client mistakes surface in tests.
   */
  checkPartiesForAdmin?: boolean;
  /** Called after every change of a user or its rights (durable state journals it). */
  onChange?: (id: string) => void;
}

interface Entry {
  user: UserDetails;
  rights: Right[];
}
/** A user with its rights, as durable state saves it. */
export type SavedUser = Entry;

/** Told the id of a user after any change of it or its rights (see `UserStore.subscribe`). */
export type UserChangeListener = (id: string) => void;

export class UserStore {
  private readonly users = new Map<string, Entry>();
  private readonly listeners = new Set<UserChangeListener>();
  private readonly maxRights: number;
  private readonly checkPartiesForAdmin: boolean;

  constructor(private readonly opts: UserStoreOptions) {
    this.maxRights = opts.maxRightsPerUser ?? MAX_RIGHTS_PER_USER;
    this.checkPartiesForAdmin = opts.checkPartiesForAdmin ?? true;
    this.users.set(ADMIN_USER_ID, { user: newUser(ADMIN_USER_ID), rights: [{ kind: 'ParticipantAdmin' }] });
  }

  /**
   * The user, or undefined. No identity-provider scoping (for the auth layer and tests). Typed
   * as the shared `UserRecord` (the stub's signature); the object is a full `UserDetails`.
   */
  get(id: string): UserRecord | undefined {
    return this.details(id);
  }
  /** Like `get`, typed with the 3.5 `primaryPartyAuthentication` flag. */
  details(id: string): UserDetails | undefined {
    const e = this.users.get(id);
    return e === undefined ? undefined : cloneUser(e.user);
  }
  /** The user's rights ([] for an unknown user). */
  rights(id: string): Right[] {
    return (this.users.get(id)?.rights ?? []).map((r) => ({ ...r }));
  }
  has(id: string): boolean {
    return this.users.has(id);
  }

  /**
   * Makes `id` an additional participant admin, like Canton's `additional-admin-user-id`
   * (LocalNet: `ledger-api-user`): created with ParticipantAdmin if missing, else granted it.
   */
  addAdminUser(id: string): void {
    requireUserId(id, 'id');
    const e = this.users.get(id);
    if (e === undefined) this.users.set(id, { user: newUser(id), rights: [{ kind: 'ParticipantAdmin' }] });
    else if (!e.rights.some((r) => r.kind === 'ParticipantAdmin')) e.rights.push({ kind: 'ParticipantAdmin' });
    this.changed(id);
  }

  /** `createUser`. */
  create(input: UserInput, rights: readonly Right[] = [], caller: Caller = WILDCARD_CALLER): UserDetails {
    const id = requireUserId(input.id, 'id');
    requireEmptyString(input.metadata?.resourceVersion ?? '', 'user.metadata.resource_version');
    const annotations = input.metadata?.annotations ?? {};
    verifyAnnotations(annotations, false, 'user.metadata.annotations');
    const primaryParty = input.primaryParty ?? '';
    if (primaryParty !== '') requireParty(primaryParty);
    const rightSet = validateRights(rights);
    const idp = optionalIdentityProviderId(input.identityProviderId ?? '', 'identity_provider_id');
    requireIdentityProviderExists(idp);
    this.verifyPartiesExist(rightSet, idp, caller);
    const existing = this.users.get(id);
    if (existing !== undefined) {
      if (existing.user.identityProviderId !== idp) throw otherIdp(id);
      throw new LedgerApiError('USER_ALREADY_EXISTS', `creating user failed, as user "${id}" already exists`, {
        resources: [['USER', id]],
      });
    }
    if (!isWithinMaxAnnotationsSize(annotations)) throw annotationsTooLarge(id);
    if (rightSet.length > this.maxRights) throw tooManyRights('creating user', id);
    const user: UserDetails = {
      id,
      primaryParty,
      isDeactivated: input.isDeactivated ?? false,
      metadata: { resourceVersion: '0', annotations: { ...annotations } },
      identityProviderId: idp,
      primaryPartyAuthentication: input.primaryPartyAuthentication ?? false,
    };
    this.users.set(id, { user, rights: rightSet });
    this.changed(id);
    return cloneUser(user);
  }

  /** `getUser` (also the authenticated-user lookup). `operation` names the call in USER_NOT_FOUND. */
  getUser(id: string, identityProviderId = '', operation = 'getting user'): UserDetails {
    requireUserId(id, 'user_id');
    const idp = optionalIdentityProviderId(identityProviderId, 'identity_provider_id');
    return cloneUser(this.withUser(id, idp, operation).user);
  }

  /** `listUsers`: id order, `pageSize` 0 means the maximum (1000), larger sizes are capped. */
  list(opts: { pageSize?: number; pageToken?: string; identityProviderId?: string } = {}): {
    users: UserDetails[];
    nextPageToken: string;
  } {
    const token = opts.pageToken ?? '';
    let fromExcl: string | undefined;
    if (token !== '') {
      const decoded = decodePageToken(token);
      if (decoded === undefined || !isValidUserId(decoded)) throw invalidPageToken();
      fromExcl = decoded;
    }
    const rawSize = opts.pageSize ?? 0;
    if (rawSize < 0) throw errors.invalidArgument('Max page size must be non-negative');
    const idp = optionalIdentityProviderId(opts.identityProviderId ?? '', 'identity_provider_id');
    const size = rawSize === 0 ? MAX_USERS_PAGE_SIZE : Math.min(rawSize, MAX_USERS_PAGE_SIZE);
    const page: UserDetails[] = [];
    for (const id of [...this.users.keys()].sort(compare)) {
      if (fromExcl !== undefined && !(id > fromExcl)) continue;
      const e = this.users.get(id)!;
      if (e.user.identityProviderId !== idp) continue;
      page.push(cloneUser(e.user));
      if (page.length >= size) break;
    }
    return { users: page, nextPageToken: page.length < size ? '' : encodePageToken(page[page.length - 1]!.id) };
  }

  /** `deleteUser`: removes the user and all its rights. */
  delete(id: string, identityProviderId = '', caller: Caller = WILDCARD_CALLER): void {
    requireUserId(id, 'user_id');
    const idp = optionalIdentityProviderId(identityProviderId, 'identity_provider_id');
    if (caller.userId === id) throw errors.invalidArgument('Requesting user cannot delete itself');
    this.withUser(id, idp, 'deleting user');
    this.users.delete(id);
    this.changed(id);
  }

  /**
   * `updateUser` with update-mask semantics: an exact path sets the field (even to its
   * default), a parent-only path (`metadata`) sets only non-default values. A non-empty
   * `metadata.resourceVersion` must equal the current one (CONCURRENT_USER_UPDATE_DETECTED).
   */
  update(input: UserInput, maskPaths: readonly string[] | undefined, caller: Caller = WILDCARD_CALLER): UserDetails {
    const id = requireUserId(input.id, 'user.id');
    if (maskPaths === undefined) throw errors.missingField('update_mask');
    const primaryParty = input.primaryParty ?? '';
    if (primaryParty !== '') requireParty(primaryParty);
    const idp = optionalIdentityProviderId(input.identityProviderId ?? '', 'identity_provider_id');
    const expectedVersion = parseResourceVersion(input.metadata?.resourceVersion ?? '', 'user.metadata.resource_version');
    const annotationsIn = input.metadata?.annotations ?? {};
    verifyAnnotations(annotationsIn, true, 'user.metadata.annotations');
    const mask = UpdateMask.parse(maskPaths, USER_UPDATE_PATHS);
    if (typeof mask === 'string') {
      throw new LedgerApiError('INVALID_USER_UPDATE_REQUEST', `Update operation for user id '${id}' failed due to: ${mask}`, {
        resources: [['USER', id]],
      });
    }
    requireIdentityProviderExists(idp);
    const annotationsUpdate = mask.resolve('metadata.annotations', annotationsIn, (m) => Object.keys(m).length === 0);
    const primaryPartyUpdate = mask.resolve('primary_party', primaryParty, (v) => v === '');
    const isDeactivatedUpdate = mask.resolve('is_deactivated', input.isDeactivated ?? false, (v) => v === false);
    const ppaUpdate = mask.resolve('primary_party_authentication', input.primaryPartyAuthentication ?? false, (v) => v === false);
    if (caller.userId === id && isDeactivatedUpdate === true) {
      throw errors.invalidArgument('Requesting user cannot self-deactivate');
    }
    const entry = this.withUser(id, idp, 'updating user');
    const current = entry.user;
    const currentVersion = Number(current.metadata.resourceVersion);
    if (expectedVersion !== undefined && expectedVersion !== currentVersion) {
      throw new LedgerApiError(
        'CONCURRENT_USER_UPDATE_DETECTED',
        `Update operation for user '${id}' failed due to a concurrent update to the same user`,
        { resources: [['USER', id]] },
      );
    }
    const annotations =
      annotationsUpdate === undefined ? current.metadata.annotations : mergeAnnotations(current.metadata.annotations, annotationsUpdate);
    if (!isWithinMaxAnnotationsSize(annotations)) throw annotationsTooLarge(id);
    const updated: UserDetails = {
      ...current,
      primaryParty: primaryPartyUpdate ?? current.primaryParty,
      isDeactivated: isDeactivatedUpdate ?? current.isDeactivated,
      metadata: { resourceVersion: String(currentVersion + 1), annotations: { ...annotations } },
      primaryPartyAuthentication: ppaUpdate ?? current.primaryPartyAuthentication,
    };
    entry.user = updated;
    this.changed(id);
    return cloneUser(updated);
  }

  /** `grantUserRights`: returns only the rights the user did not hold yet. */
  grant(id: string, rights: readonly Right[], identityProviderId = '', caller: Caller = WILDCARD_CALLER): Right[] {
    requireUserId(id, 'user_id');
    const rightSet = validateRights(rights);
    const idp = optionalIdentityProviderId(identityProviderId, 'identity_provider_id');
    this.verifyPartiesExist(rightSet, idp, caller);
    const entry = this.withUser(id, idp, 'grant user rights');
    const held = new Set(entry.rights.map(rightKey));
    const newly = rightSet.filter((r) => !held.has(rightKey(r)));
    if (entry.rights.length + newly.length > this.maxRights) throw tooManyRights('grant user rights', id);
    entry.rights.push(...newly);
    if (newly.length > 0) this.changed(id);
    return newly.map((r) => ({ ...r }));
  }

  /** `revokeUserRights`: returns only the rights the user actually held. */
  revoke(id: string, rights: readonly Right[], identityProviderId = '', caller: Caller = WILDCARD_CALLER): Right[] {
    requireUserId(id, 'user_id');
    const rightSet = validateRights(rights);
    const idp = optionalIdentityProviderId(identityProviderId, 'identity_provider_id');
    if (caller.userId === id && rightSet.some((r) => r.kind === 'ParticipantAdmin')) {
      throw errors.invalidArgument('Requesting user cannot remove own admin rights');
    }
    this.verifyPartiesExist(rightSet, idp, caller);
    const entry = this.withUser(id, idp, 'revoke user rights');
    const revoke = new Set(rightSet.map(rightKey));
    const revoked = entry.rights.filter((r) => revoke.has(rightKey(r)));
    entry.rights = entry.rights.filter((r) => !revoke.has(rightKey(r)));
    if (revoked.length > 0) this.changed(id);
    return revoked.map((r) => ({ ...r }));
  }

  /** `listUserRights`. */
  listRights(id: string, identityProviderId = ''): Right[] {
    requireUserId(id, 'user_id');
    const idp = optionalIdentityProviderId(identityProviderId, 'identity_provider_id');
    return this.withUser(id, idp, 'list user rights').rights.map((r) => ({ ...r }));
  }

  /** `updateUserIdentityProviderId`. Only the default IDP exists, so only "" → "" succeeds. */
  updateIdentityProviderId(id: string, sourceIdp: string, targetIdp: string): UserDetails {
    requireUserId(id, 'user_id');
    const source = optionalIdentityProviderId(sourceIdp, 'source_identity_provider_id');
    const target = optionalIdentityProviderId(targetIdp, 'target_identity_provider_id');
    requireIdentityProviderExists(source);
    requireIdentityProviderExists(target);
    const entry = this.withUser(id, source, 'update user identity provider');
    entry.user = { ...entry.user, identityProviderId: target };
    this.changed(id);
    return cloneUser(entry.user);
  }

  /** The user and its rights as saved by durable state (undefined: no such user). */
  savedEntry(id: string): SavedUser | undefined {
    const e = this.users.get(id);
    return e === undefined ? undefined : { user: cloneUser(e.user), rights: e.rights.map((r) => ({ ...r })) };
  }
  /** Every user, in store order (durable state's snapshot). */
  savedEntries(): Array<[string, SavedUser]> {
    return [...this.users.keys()].map((id) => [id, this.savedEntry(id)!]);
  }
  /** Forgets every user (durable state's restore, before it writes the saved ones). */
  clear(): void {
    this.users.clear();
  }
  /** Writes (or with undefined, removes) a user as saved; no hooks. */
  restoreEntry(id: string, e: SavedUser | undefined): void {
    if (e === undefined) this.users.delete(id);
    else this.users.set(id, { user: cloneUser(e.user), rights: e.rights.map((r) => ({ ...r })) });
  }

  /**
   * Calls `listener` synchronously after every change of a user or its rights (create, update,
   * delete, grant, revoke, identity provider move), once the change is in place; returns the
   * unsubscribe. Open streams re-check their authorization with it (stream-auth.ts). Not called
   * by `clear`/`restoreEntry` (durable state's restore at start-up, before any stream opens).
   */
  subscribe(listener: UserChangeListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
  /** Subscribed listeners (for tests: every closed stream unsubscribes). */
  get listenerCount(): number {
    return this.listeners.size;
  }

  private changed(id: string): void {
    this.opts.onChange?.(id);
    for (const listener of [...this.listeners]) listener(id);
  }

  /** `UserManagementStore.withUser` + `Utils.handleResult`. */
  private withUser(id: string, idp: string, operation: string): Entry {
    const e = this.users.get(id);
    if (e === undefined) throw errors.userNotFound(operation, id);
    if (e.user.identityProviderId !== idp) throw otherIdp(id);
    return e;
  }

  /**
   * `verifyPartiesExistInIdp`: parties of CanActAs / CanReadAs rights (not CanExecuteAs) must
   * be known: to the participant for an admin (3.4; see `checkPartiesForAdmin`), as local party
   * records of the request's IDP otherwise.
   */
  private verifyPartiesExist(rights: readonly Right[], idp: string, caller: Caller): void {
    if (caller.participantAdmin && !this.checkPartiesForAdmin) return;
    const parties = [
      ...new Set(rights.flatMap((r) => (r.kind === 'CanActAs' || r.kind === 'CanReadAs' ? [r.party] : []))),
    ];
    const unknown = parties.filter((p) => {
      const rec = this.opts.parties.get(p);
      if (rec === undefined) return true;
      if (caller.participantAdmin) return false;
      return !(rec.isLocal && rec.identityProviderId === idp);
    });
    if (unknown.length > 0) {
      throw new LedgerApiError(
        'UNKNOWN_RESOURCE',
        `The submitted request refers to a non-existing PARTIES: Provided parties have not been found in identity_provider_id=\`${idp}\`: [${unknown.join(',')}].`,
        { resources: unknown.map((p) => ['PARTIES', p] as [string, string]) },
      );
    }
  }
}

/** `fromProtoRights`: party rights need valid party strings; duplicates collapse (a Set in Canton). */
function validateRights(rights: readonly Right[]): Right[] {
  const seen = new Set<string>();
  const out: Right[] = [];
  for (const r of rights) {
    if ('party' in r) requireParty(r.party);
    const k = rightKey(r);
    if (!seen.has(k)) {
      seen.add(k);
      out.push({ ...r });
    }
  }
  return out;
}

export function rightKey(r: Right): string {
  return 'party' in r ? `${r.kind}:${r.party}` : r.kind;
}

function newUser(id: string): UserDetails {
  return {
    id,
    primaryParty: '',
    isDeactivated: false,
    metadata: { resourceVersion: '0', annotations: {} },
    identityProviderId: '',
    primaryPartyAuthentication: false,
  };
}

function cloneUser(u: UserDetails): UserDetails {
  return { ...u, metadata: { resourceVersion: u.metadata.resourceVersion, annotations: { ...u.metadata.annotations } } };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function otherIdp(id: string): LedgerApiError {
  return errors.permissionDenied(`User ${id} belongs to another Identity Provider`);
}
function annotationsTooLarge(id: string): LedgerApiError {
  return new LedgerApiError('MAX_USER_ANNOTATIONS_SIZE_EXCEEDED', `Maximum annotations size for user '${id}' has been exceeded`, {
    resources: [['USER', id]],
  });
}
function tooManyRights(operation: string, id: string): LedgerApiError {
  return new LedgerApiError('TOO_MANY_USER_RIGHTS', `${operation} failed, as user "${id}" would have too many rights.`, {
    resources: [['USER', id]],
  });
}
