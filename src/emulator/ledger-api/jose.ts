/**
 * JOSE service (Canton 3.6, experimental in Canton): GET /v2/jose/jwks/synchronizer/{synchronizer}/party/{party}.
 * Authorization is RequiredClaim.Public, any authenticated caller (digital-asset/canton:
 * community/ledger/ledger-api-core/.../auth/services/JoseServiceAuthorization.scala); the engine
 * builds the JWKS (participant/jwks.ts).
 */
import type { RouteModule } from './route-module.js';
import { partyJwks } from '../participant/jwks.js';

export const joseRoutes: RouteModule = (app) => {
  app.get('/v2/jose/jwks/synchronizer/:synchronizer/party/:party', async (c) =>
    c.json(await partyJwks(c.get('engine'), c.req.param('synchronizer'), c.req.param('party'))),
  );
};
