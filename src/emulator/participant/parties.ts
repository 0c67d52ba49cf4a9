/**
 * Party records of the emulated participant: allocation, lookup, paged listing and update of the
 * participant-local metadata, with the validation and error texts of Canton 3.5's
 * `ApiPartyManagementService` + `InMemoryPartyRecordStore` (digital-asset/canton).
 *
 * Every locally allocated party has a local record (resourceVersion "0" on allocation, +1 per
 * update). Remote parties (known to the participant but hosted elsewhere) carry no local record:
 * they print `isLocal: false` and an empty resourceVersion.
 *
 * Every method validates fully before touching state: a rejected call changes nothing.
 */
import type { IdGenerator } from '../shared/ids.js';
import { errors, LedgerApiError } from '../../canton/errors.js';
import {
  decodePageToken,
  encodePageToken,
  invalidPageToken,
  isValidPartyString,
  isWithinMaxAnnotationsSize,
  mergeAnnotations,
  optionalIdentityProviderId,
  parseResourceVersion,
  partyStringError,
  requireEmptyString,
  requireIdentityProviderExists,
  requireParty,
  UpdateMask,
  verifyAnnotations,
} from './object-meta.js';
import type { HostingPermission, PartyRecord } from './types.js';

/** `PartyManagementServiceConfig.DefaultMaxPartiesPageSize`. */
export const MAX_PARTIES_PAGE_SIZE = 10000;

/** Every valid party-details update path (`UpdateRequestsPaths.PartyDetailsPaths`, proto snake_case). */
export const PARTY_UPDATE_PATHS = [
  'party',
  'is_local',
  'local_metadata.annotations',
  'local_metadata.resource_version',
  'identity_provider_id',
] as const;

export interface PartyStoreOptions {
  ids: IdGenerator;
  /** The participant's namespace fingerprint: parties are `name::<namespace>`. */
  namespace: string;
  /**
   * `party-management-service.max-self-allocated-parties`: how many parties a regular user may
   * hold rights to and still allocate one for itself. Canton's default is 0, i.e. regular users
   * cannot self-allocate at all.
   */
  maxSelfAllocatedParties?: number;
  /** Called when this participant starts hosting a party (the synchronizer's topology records it). */
  onHosted?: (party: string, permission: HostingPermission) => void;
  /** Called after every write of a party record (durable state journals it). */
  onWrite?: (rec: PartyRecord) => void;
}

export interface AllocateOptions {
  /** `localMetadata.annotations` of the new party (non-empty values only). */
  annotations?: Record<string, string>;
  /** `localMetadata.resourceVersion` as sent: must be empty on allocation. */
  resourceVersion?: string;
  identityProviderId?: string;
  /**
   * Runs after the request is validated and before the party is written (and before the
   * duplicate check, matching Canton's order): the route checks the `userId` and quota here.
   * Throwing aborts the allocation with nothing changed.
   */
  beforeCommit?: (party: string) => void;
}

export interface ListPartiesOptions {
  pageSize?: number;
  pageToken?: string;
  /** `filter-party`: a prefix, matched like Canton's SQL `LIKE 'filter%'` (so `_` matches any char). */
  filterParty?: string;
}

/** The fields of an update request (`UpdatePartyDetailsRequest.partyDetails`), as decoded from the wire. */
export interface PartyDetailsUpdate {
  party: string;
  isLocal: boolean;
  localMetadata: { resourceVersion: string; annotations: Record<string, string> };
  identityProviderId: string;
}

export class PartyStore {
  private readonly records = new Map<string, PartyRecord>();
  /** See `PartyStoreOptions.maxSelfAllocatedParties`; settable so an emulator config can raise it. */
  maxSelfAllocatedParties: number;

  constructor(private readonly opts: PartyStoreOptions) {
    this.maxSelfAllocatedParties = opts.maxSelfAllocatedParties ?? 0;
  }

  get namespace(): string {
    return this.opts.namespace;
  }

  get(party: string): PartyRecord | undefined {
    const rec = this.records.get(party);
    return rec === undefined ? undefined : clone(rec);
  }
  has(party: string): boolean {
    return this.records.has(party);
  }
  /** Locally hosted party (the ones users may get rights to without an admin's override). */
  isLocal(party: string): boolean {
    return this.records.get(party)?.isLocal === true;
  }
  /** All known parties in party order. */
  all(): PartyRecord[] {
    return this.sortedIds().map((p) => clone(this.records.get(p)!));
  }

  /**
   * Allocates `hint::<namespace>` (or `party-<uuid>::<namespace>` without a hint), with the
   * checks of `ApiPartyManagementService.allocateParty`. A hint that is already allocated fails
   * with INVALID_ARGUMENT "Party already exists: party … is already allocated on this node", the
   * text Canton's sync service produces (party id in Canton's abbreviated pretty form, as seen
   * on real nodes: `Alice::1220f5f0704a...`).
   */
  allocate(hint?: string, opts: AllocateOptions = {}): PartyRecord {
    const hintStr = hint ?? '';
    if (hintStr !== '') requireParty(hintStr);
    requireEmptyString(opts.resourceVersion ?? '', 'local_metadata.resource_version');
    const annotations = opts.annotations ?? {};
    verifyAnnotations(annotations, false, 'local_metadata.annotations');
    const idp = optionalIdentityProviderId(opts.identityProviderId ?? '', 'identity_provider_id');
    // `UniqueIdentifier.create`: the identifier must not contain the `::` delimiter and is a String185.
    if (hintStr.includes('::')) throw errors.invalidArgument('Invalid party ID: String contains reserved delimiter `::`.');
    if (hintStr.length > 185) {
      throw errors.invalidArgument(
        `Invalid party ID: The given string has a maximum length of 185 but a string of length ${hintStr.length} ('${hintStr.slice(0, 235)}.') was given`,
      );
    }
    requireIdentityProviderExists(idp);
    const name = hintStr !== '' ? hintStr : `party-${this.opts.ids.uuid()}`;
    const party = `${name}::${this.opts.namespace}`;
    opts.beforeCommit?.(party);
    if (this.records.has(party)) {
      throw errors.invalidArgument(
        `Party already exists: party ${name}::${this.opts.namespace.slice(0, 12)}... is already allocated on this node`,
      );
    }
    const rec: PartyRecord = {
      party,
      isLocal: true,
      localMetadata: { resourceVersion: '0', annotations: { ...annotations } },
      identityProviderId: idp,
    };
    this.write(rec);
    this.opts.onHosted?.(party, 'Submission');
    return clone(rec);
  }

  /**
   * Fails as Canton's party allocation does for a party this node already hosts (the same text
   * as `allocate`; the JSON API turns the sync service's ALREADY_EXISTS into INVALID_ARGUMENT).
   */
  requireNotAllocated(party: string): void {
    if (this.records.get(party)?.isLocal !== true) return;
    const sep = party.indexOf('::');
    const name = party.slice(0, sep);
    const namespace = party.slice(sep + 2);
    throw errors.invalidArgument(
      `Party already exists: party ${name}::${namespace.slice(0, 12)}... is already allocated on this node`,
    );
  }

  /**
   * Records an external party hosted here (`allocateExternalParty`): its id is in the party's own
   * namespace, not the participant's. Like any party hosted on this node it is `isLocal: true`
   * and gets a local record with empty annotations (`updateOrCreatePartyRecord(…, Map.empty)`).
   * The caller has validated the id; a known remote party of that id becomes hosted.
   */
  allocateHosted(party: string, identityProviderId: string, permission: HostingPermission = 'Confirmation'): PartyRecord {
    this.requireNotAllocated(party);
    const rec: PartyRecord = {
      party,
      isLocal: true,
      localMetadata: { resourceVersion: '0', annotations: {} },
      identityProviderId,
    };
    this.write(rec);
    this.opts.onHosted?.(party, permission);
    return clone(rec);
  }

  /** Records a party hosted on another participant (known here, `isLocal: false`, no local record). */
  addRemote(party: string): PartyRecord {
    const err = partyStringError(party);
    if (err !== undefined) throw errors.invalidArgument(err);
    const existing = this.records.get(party);
    if (existing) return clone(existing);
    const rec: PartyRecord = { party, isLocal: false, localMetadata: { resourceVersion: '', annotations: {} }, identityProviderId: '' };
    this.write(rec);
    return clone(rec);
  }

  /** `listKnownParties`: party order, paged with Canton's opaque token. */
  list(opts: ListPartiesOptions = {}): { parties: PartyRecord[]; nextPageToken: string } {
    const pageToken = opts.pageToken ?? '';
    let fromExcl: string | undefined;
    if (pageToken !== '') {
      const decoded = decodePageToken(pageToken);
      if (decoded === undefined || !isValidPartyString(decoded)) throw invalidPageToken();
      fromExcl = decoded;
    }
    const pageSize = opts.pageSize ?? 0;
    if (pageSize < 0) throw errors.invalidArgument('Page size must be non-negative');
    if (pageSize > MAX_PARTIES_PAGE_SIZE) {
      throw errors.invalidArgument(`Page size must not exceed the server's maximum of ${MAX_PARTIES_PAGE_SIZE}`);
    }
    const size = pageSize === 0 ? MAX_PARTIES_PAGE_SIZE : pageSize;
    const filter = opts.filterParty ?? '';
    let matches: (p: string) => boolean = () => true;
    if (filter !== '') {
      const err = partyStringError(filter) ?? (filter.length > 185 ? `The given string has a maximum length of 185 but a string of length ${filter.length} ('${filter.slice(0, 235)}.') was given` : undefined);
      if (err !== undefined) throw errors.invalidField('filterString', err);
      // SQL LIKE 'filter%': `_` is a single-character wildcard (party strings cannot contain `%`).
      const re = new RegExp(`^${filter.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&').replace(/_/g, '.')}`, 's');
      matches = (p) => re.test(p);
    }
    const page: PartyRecord[] = [];
    for (const p of this.sortedIds()) {
      if (fromExcl !== undefined && !(p > fromExcl)) continue;
      if (!matches(p)) continue;
      page.push(clone(this.records.get(p)!));
      if (page.length >= size) break;
    }
    const nextPageToken = page.length < size ? '' : encodePageToken(page[page.length - 1]!.party);
    return { parties: page, nextPageToken };
  }

  /**
   * `updatePartyDetails`: validates the request and the mask, applies the annotation merge and
   * bumps the resource version (even for a no-op update, as Canton does).
   */
  update(details: PartyDetailsUpdate, maskPaths: readonly string[]): PartyRecord {
    const party = requireParty(details.party);
    const expectedVersion = parseResourceVersion(details.localMetadata.resourceVersion, 'party_details.local_metadata');
    verifyAnnotations(details.localMetadata.annotations, true, 'party_details.local_metadata.annotations');
    const idp = optionalIdentityProviderId(details.identityProviderId, 'identity_provider_id');
    requireIdentityProviderExists(idp);
    const mask = UpdateMask.parse(maskPaths, PARTY_UPDATE_PATHS);
    if (typeof mask === 'string') throw invalidPartyUpdate(party, mask);
    const annotationsUpdate = mask.resolve('local_metadata.annotations', details.localMetadata.annotations, isEmptyMap);
    const isLocalUpdate = mask.resolve('is_local', details.isLocal, (v) => v === false);

    const current = this.records.get(party);
    if (current === undefined) {
      throw new LedgerApiError('PARTY_NOT_FOUND', `Party: '${party}' was not found when updating a party record`, {
        resources: [['PARTY', party]],
      });
    }
    if (isLocalUpdate !== undefined && isLocalUpdate !== current.isLocal) {
      throw invalidPartyUpdate(party, "Update request attempted to modify not-modifiable 'is_local' attribute");
    }
    if (current.identityProviderId !== idp && current.localMetadata.resourceVersion !== '') {
      throw errors.permissionDenied(
        `Party ${party} belongs to an identity provider that differs from the one specified in the request`,
      );
    }
    if (!current.isLocal) {
      // No local record and not hosted here: `InMemoryPartyRecordStore.updatePartyRecord`.
      throw new LedgerApiError(
        'PARTY_NOT_FOUND',
        `Party: '${party}' was not found when updating a participant party record`,
        { resources: [['PARTY', party]] },
      );
    }
    const currentVersion = Number(current.localMetadata.resourceVersion);
    if (expectedVersion !== undefined && expectedVersion !== currentVersion) {
      throw new LedgerApiError(
        'CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED',
        `Update operation for party '${party}' failed due to a concurrent update to the same party`,
        { resources: [['PARTY', party]] },
      );
    }
    const annotations =
      annotationsUpdate === undefined
        ? current.localMetadata.annotations
        : mergeAnnotations(current.localMetadata.annotations, annotationsUpdate);
    if (!isWithinMaxAnnotationsSize(annotations)) {
      throw new LedgerApiError(
        'MAX_PARTY_DETAILS_ANNOTATIONS_SIZE_EXCEEDED',
        `Maximum annotations size for party '${party}' has been exceeded`,
        { resources: [['PARTY', party]] },
      );
    }
    const updated: PartyRecord = {
      ...current,
      localMetadata: { resourceVersion: String(currentVersion + 1), annotations: { ...annotations } },
    };
    this.write(updated);
    return clone(updated);
  }

  /** Forgets every party (durable state's restore, before it writes the saved records). */
  clear(): void {
    this.records.clear();
  }

  /** Writes a record as it was saved (durable state's restore); no hooks. */
  restore(rec: PartyRecord): void {
    this.records.set(rec.party, clone(rec));
  }

  private write(rec: PartyRecord): void {
    this.records.set(rec.party, rec);
    this.opts.onWrite?.(clone(rec));
  }

  private sortedIds(): string[] {
    // Java String.compareTo order (UTF-16 code units), which is JS's default string order.
    return [...this.records.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }
}

function invalidPartyUpdate(party: string, reason: string): LedgerApiError {
  return new LedgerApiError('INVALID_PARTY_DETAILS_UPDATE_REQUEST', `Update operation for party '${party}' failed due to: ${reason}`, {
    resources: [['PARTY', party]],
  });
}

function isEmptyMap(m: Record<string, string>): boolean {
  return Object.keys(m).length === 0;
}

function clone(rec: PartyRecord): PartyRecord {
  return {
    party: rec.party,
    isLocal: rec.isLocal,
    localMetadata: { resourceVersion: rec.localMetadata.resourceVersion, annotations: { ...rec.localMetadata.annotations } },
    identityProviderId: rec.identityProviderId,
  };
}
