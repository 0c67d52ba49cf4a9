/**
 * Version, health and synchronizer endpoints (Canton JSON Ledger API openapi.yaml).
 * `/v2/version` must report 3.4.x or 3.5.x: the official client refuses other versions.
 */
import type { RouteModule } from './route-module.js';
import { isAdminOrIdpAdmin, canReadAs, canActAs } from '../participant/claims.js';
import { errors } from '../../canton/errors.js';

/** The Canton release whose JSON API (and openapi-3.5.yaml) the emulator follows. */
export const EMULATED_CANTON_VERSION = '3.5.10';

export const systemRoutes: RouteModule = (app) => {
  app.get('/v2/version', (c) =>
    c.json({
      version: EMULATED_CANTON_VERSION,
      features: {
        experimental: { staticTime: { supported: false }, commandInspectionService: { supported: true } },
        userManagement: { supported: true, maxRightsPerUser: 1000, maxUsersPageSize: 1000 },
        partyManagement: { maxPartiesPageSize: 10000 },
        offsetCheckpoint: { maxOffsetCheckpointEmissionDelay: { seconds: 75, nanos: 0, unknownFields: { fields: {} } } },
        packageFeature: { maxVettedPackagesPageSize: 100 },
      },
    }),
  );

  // Canton answers /livez with an empty 200 and /readyz with its health-check text.
  app.get('/livez', (c) => c.body(null, 200));
  app.get('/readyz', (c) => {
    // Not ready while the durable state (STATE_DIR) cannot be written: writes are refused then.
    const down = c.get('engine').synchronizer.journal?.unavailableReason();
    if (down === undefined) return c.text('[+] ledger ok (SERVING)\nreadyz check passed\n', 200);
    c.header('Retry-After', '1');
    return c.text(`[-] ledger not ok (NOT_SERVING): ${down}\nreadyz check failed\n`, 503);
  });

  app.get('/v2/state/ledger-end', (c) => c.json({ offset: c.get('engine').readableEnd() }));

  app.get('/v2/state/latest-pruned-offsets', (c) =>
    // the emulator never prunes
    c.json({ participantPrunedUpToInclusive: 0, allDivulgedContractsPrunedUpToInclusive: 0 }),
  );

  app.get('/v2/state/connected-synchronizers', (c) => {
    const engine = c.get('engine');
    const claims = c.get('claims');
    const party = c.req.query('party');
    const participantId = c.req.query('participantId');
    const sync = { synchronizerAlias: engine.synchronizerAlias, synchronizerId: engine.synchronizerId };
    // Another participant of the synchronizer may be asked about (its hosting of `party`).
    const target = participantId && participantId !== '' ? participantId : engine.participantId;
    if (!engine.synchronizer.isConnected(target)) return c.json({ connectedSynchronizers: [] });
    if (party === undefined || party === '') {
      return c.json({ connectedSynchronizers: [{ ...sync, permission: 'PARTICIPANT_PERMISSION_UNSPECIFIED' }] });
    }
    if (!isAdminOrIdpAdmin(claims) && !canActAs(claims, party) && !canReadAs(claims, party)) {
      throw errors.permissionDenied(`Claims do not authorize to read data for party '${party}'`);
    }
    // The permission of the party-to-participant mapping on the synchronizer.
    const permission = engine.synchronizer.permissionOf(party, target);
    if (permission === undefined) return c.json({ connectedSynchronizers: [] });
    return c.json({ connectedSynchronizers: [{ ...sync, permission: `PARTICIPANT_PERMISSION_${permission.toUpperCase()}` }] });
  });
};
