/**
 * External party onboarding: POST /v2/parties/external/generate-topology and
 * POST /v2/parties/external/allocate (Canton 3.5 `JsPartyManagementService`,
 * `PartyManagementServiceAuthorization`: generate-topology is Public, allocate is
 * AdminOrIdpAdminOrSelfAdmin(userId) + MatchIdentityProviderId, in Canton's `ledger/api/auth/services/`).
 * The engine does the work (ledger/topology/external-onboarding.ts); this module decodes,
 * checks claims and prints.
 */
import type { RouteModule } from './route-module.js';
import { decodeBody } from './decode.js';
import { isAdminOrIdpAdmin } from '../participant/claims.js';
import { errors } from '../../canton/errors.js';
import { optionalIdentityProviderId, optionalUserId, requireIdentityProviderExists } from '../participant/object-meta.js';
import { allocateExternalParty } from '../participant/topology/allocate-external.js';
import { generateExternalPartyTopology } from '../participant/topology/generate-topology.js';
import {
  AllocateExternalPartyRequestSchema,
  GenerateExternalPartyTopologyRequestSchema,
  type GenerateExternalPartyTopologyResponse,
} from '../../ledger-client/schemas/external-parties.js';
import { checkAllocatingUser, matchIdentityProviderId } from './parties.js';

export const externalPartiesRoutes: RouteModule = (app) => {
  app.post('/v2/parties/external/generate-topology', async (c) => {
    const req = await decodeBody(c, GenerateExternalPartyTopologyRequestSchema);
    // RequiredClaim.Public: any authenticated caller; the answer is computed, nothing is stored.
    const body: GenerateExternalPartyTopologyResponse = generateExternalPartyTopology(c.get('engine'), req);
    return c.json(body);
  });

  app.post('/v2/parties/external/allocate', async (c) => {
    const engine = c.get('engine');
    const req = await decodeBody(c, AllocateExternalPartyRequestSchema);
    const claims = c.get('claims');
    if (!isAdminOrIdpAdmin(claims) && !(claims.kind === 'user' && claims.userId === req.userId)) {
      throw errors.permissionDenied('Claims do not authorize the use of administrative services.');
    }
    const idp = optionalIdentityProviderId(matchIdentityProviderId(claims, req.identityProviderId), 'identity_provider_id');
    const userId = optionalUserId(req.userId, 'user_id');
    // waitForAllocation (default true) needs no handling: a party hosted here only is effective
    // before the response, and Canton does not wait for a multi-hosted one (it waits for the
    // other hosting participants' authorization, which this call cannot give).
    const { party } = allocateExternalParty(engine, req, {
      identityProviderId: idp,
      beforeCommit: () => {
        requireIdentityProviderExists(idp);
        checkAllocatingUser(engine, claims, userId, idp);
      },
      // updateUserInfoIfUserSpecified: the user gets CanActAs on the new party.
      onHosted: (p) => {
        if (userId !== undefined) engine.users.grant(userId, [{ kind: 'CanActAs', party: p }], idp, { participantAdmin: true });
      },
    });
    return c.json({ partyId: party });
  });
};
