/**
 * Party management: GET/POST /v2/parties, GET /v2/parties/participant-id, GET/PATCH
 * /v2/parties/{party} (digital-asset/canton 3.5 `JsPartyManagementService`,
 * `PartyManagementServiceAuthorization`, `ApiPartyManagementService`).
 *
 * Order of checks, as on Canton: JSON-layer checks (path/body mismatch), then authorization
 * (claims), then request validation, then state. Nothing is written unless every check passed.
 */
import type { RouteModule } from './route-module.js';
import { decodeBody, queryInt } from './decode.js';
import type { Claims } from '../participant/claims.js';
import type { LedgerEngine } from '../participant/engine.js';
import { isAdminOrIdpAdmin } from '../participant/claims.js';
import { errors, LedgerApiError } from '../../canton/errors.js';
import { ledgerStringError, optionalIdentityProviderId, optionalUserId, requireParty } from '../participant/object-meta.js';
import type { PartyRecord, Right } from '../participant/types.js';
import type { Caller } from '../participant/users.js';
import {
  AllocatePartyRequestSchema,
  UpdatePartyDetailsRequestSchema,
  type PartyDetailsOut,
} from '../../ledger-client/schemas/parties.js';

export const partiesRoutes: RouteModule = (app) => {
  // Registered before /v2/parties/:party so the literal path wins.
  app.get('/v2/parties/participant-id', (c) => {
    // RequiredClaim.Public: any authenticated caller.
    return c.json({ participantId: c.get('engine').participantId });
  });

  app.get('/v2/parties', (c) => {
    const engine = c.get('engine');
    const pageSize = queryInt(c, 'pageSize');
    const claims = c.get('claims');
    requireAdminOrIdpAdminClaims(claims);
    const idp = matchIdentityProviderId(claims, c.req.query('identity-provider-id') ?? '');
    optionalIdentityProviderId(idp, 'identity_provider_id');
    const { parties, nextPageToken } = engine.parties.list({
      pageSize: pageSize ?? 0,
      pageToken: c.req.query('pageToken') ?? '',
      filterParty: c.req.query('filter-party') ?? '',
    });
    return c.json({ partyDetails: parties.map((p) => partyDetailsJson(p, idp)), nextPageToken });
  });

  app.post('/v2/parties', async (c) => {
    const engine = c.get('engine');
    const req = await decodeBody(c, AllocatePartyRequestSchema);
    const claims = c.get('claims');
    // AdminOrIdpAdminOrSelfAdmin(userId): a regular user may allocate a party for itself only.
    if (!isAdminOrIdpAdmin(claims) && !(claims.kind === 'user' && claims.userId === req.userId)) {
      throw errors.permissionDenied('Claims do not authorize the use of administrative services.');
    }
    const idp = matchIdentityProviderId(claims, req.identityProviderId);
    const userId = optionalUserId(req.userId, 'user_id');
    if (req.synchronizerId !== '' && req.synchronizerId !== engine.synchronizerId) {
      // The emulated participant is connected to exactly one synchronizer.
      throw new LedgerApiError(
        'PARTY_ALLOCATION_WITHOUT_CONNECTED_SYNCHRONIZER',
        'Cannot allocate a party without being connected to a synchronizer',
      );
    }
    const rec = engine.parties.allocate(req.partyIdHint, {
      annotations: req.localMetadata?.annotations ?? {},
      resourceVersion: req.localMetadata?.resourceVersion ?? '',
      identityProviderId: idp,
      beforeCommit: () => checkAllocatingUser(engine, claims, userId, idp),
    });
    if (userId !== undefined) {
      const right: Right = { kind: 'CanActAs', party: rec.party };
      engine.users.grant(userId, [right], idp, { participantAdmin: true });
    }
    return c.json({ partyDetails: partyDetailsJson(rec, idp) });
  });

  app.get('/v2/parties/:party', (c) => {
    const engine = c.get('engine');
    const requested = [c.req.param('party'), ...(c.req.queries('parties') ?? [])];
    const claims = c.get('claims');
    // AdminOrIdpAdminOrOperateAsParty(parties) + MatchIdentityProviderId.
    if (!isAdminOrIdpAdmin(claims)) {
      for (const p of requested) {
        if (!canOperateAs(claims, p)) {
          throw errors.permissionDenied(`Claims do not authorize to operate as party '${p}' and are not admin claims`);
        }
      }
    }
    const idp = optionalIdentityProviderId(
      matchIdentityProviderId(claims, c.req.query('identity-provider-id') ?? ''),
      'identity_provider_id',
    );
    for (const p of requested) requireParty(p);
    // Only known parties are returned: an unknown party gives [] with 200.
    const known = [...new Set(requested)].flatMap((p) => {
      const rec = engine.parties.get(p);
      return rec === undefined ? [] : [partyDetailsJson(rec, idp)];
    });
    return c.json({ partyDetails: known });
  });

  app.patch('/v2/parties/:party', async (c) => {
    const engine = c.get('engine');
    const path = c.req.param('party');
    const req = await decodeBody(c, UpdatePartyDetailsRequestSchema);
    const details = req.partyDetails;
    if (!details || details.party !== path) {
      // JsPartyManagementService: the path party must equal the body's party.
      throw errors.invalidArgument(
        `${path} does not match party in body ${details ? `Some(PartyDetails(${details.party}))` : 'None'}`,
      );
    }
    const claims = c.get('claims');
    requireAdminOrIdpAdminClaims(claims);
    const idp = matchIdentityProviderId(claims, details.identityProviderId);
    if (!req.updateMask) {
      // Canton validates the party and metadata first, then the mask's presence.
      requireParty(details.party);
      throw errors.missingField('update_mask');
    }
    const rec = engine.parties.update(
      {
        party: details.party,
        isLocal: details.isLocal,
        localMetadata: {
          resourceVersion: details.localMetadata?.resourceVersion ?? '',
          annotations: details.localMetadata?.annotations ?? {},
        },
        identityProviderId: idp,
      },
      req.updateMask.paths,
    );
    return c.json({ partyDetails: partyDetailsJson(rec, idp) });
  });
};

// ---- helpers shared with the user routes ------------------------------------------------------

/**
 * PartyDetails as `ApiPartyManagementService.blindAndConvertToProto` prints it for a request in
 * identity provider `requestIdp`: full details when the party's local record is in that IDP;
 * for the default IDP, `isLocal` as is but no metadata; otherwise reported as non-local.
 */
export function partyDetailsJson(rec: PartyRecord, requestIdp: string): PartyDetailsOut {
  const hasRecord = rec.isLocal && rec.localMetadata.resourceVersion !== '';
  if (hasRecord && rec.identityProviderId === requestIdp) {
    return {
      party: rec.party,
      isLocal: rec.isLocal,
      localMetadata: { resourceVersion: rec.localMetadata.resourceVersion, annotations: { ...rec.localMetadata.annotations } },
      identityProviderId: rec.identityProviderId,
    };
  }
  return {
    party: rec.party,
    isLocal: requestIdp === '' ? rec.isLocal : false,
    localMetadata: { resourceVersion: '', annotations: {} },
    identityProviderId: '',
  };
}

export function requireAdminOrIdpAdminClaims(claims: Claims): void {
  if (!isAdminOrIdpAdmin(claims)) throw errors.permissionDenied('Claims do not authorize the use of administrative services.');
}

/**
 * `RequiredClaim.MatchIdentityProviderId`: a non-admin's empty request IDP is implied from its
 * claims; a caller scoped to an IDP may only address that IDP. Returns the effective IDP.
 */
export function matchIdentityProviderId(claims: Claims, requestIdp: string): string {
  let idp = requestIdp;
  if (claims.kind === 'user') {
    if (idp === '' && !claims.admin) idp = claims.identityProviderId;
    if (idp !== '') {
      const err = ledgerStringError(idp);
      if (err !== undefined) {
        throw new LedgerApiError(
          'INVALID_TOKEN',
          `The submitted token has a field with invalid value: Invalid field identity_provider_id: ${err}`,
        );
      }
    }
    if (claims.identityProviderId !== '' && idp !== claims.identityProviderId) {
      throw errors.permissionDenied(`identity_provider_id from the request \`${idp || '<empty>'}\` does not match the one provided in the authorization claims`);
    }
  }
  return idp;
}

/** The caller as the user store sees it. */
export function callerOf(claims: Claims): Caller {
  return claims.kind === 'wildcard' ? { participantAdmin: true } : { userId: claims.userId, participantAdmin: claims.admin };
}

/** `Claims.canOperateAs`: any party right on `party`, or an any-party right. */
function canOperateAs(claims: Claims, party: string): boolean {
  if (claims.kind === 'wildcard') return true;
  return (
    claims.readAsAnyParty ||
    claims.executeAsAnyParty ||
    claims.actAs.has(party) ||
    claims.readAs.has(party) ||
    claims.executeAs.has(party)
  );
}

/**
 * `getUserIfUserSpecified` + `checkUserLimitsIfUserSpecified` of Canton's party allocation (both
 * the local and the external one): the named user must exist, and a regular user may hold rights
 * to at most `max-self-allocated-parties` parties after the allocation.
 */
export function checkAllocatingUser(engine: LedgerEngine, claims: Claims, userId: string | undefined, idp: string): void {
  if (userId === undefined) return;
  engine.users.getUser(userId, idp, "checking user's existence");
  if (claims.kind === 'user' && !claims.admin && !claims.idpAdmin) {
    const held = new Set(engine.users.rights(userId).flatMap((r) => ('party' in r ? [r.party] : [])));
    if (held.size + 1 > engine.parties.maxSelfAllocatedParties) {
      throw errors.permissionDenied('User quota of party allocations exhausted');
    }
  }
}
