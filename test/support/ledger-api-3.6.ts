/**
 * Operations the emulated JSON Ledger API serves beyond openapi-3.5.yaml: Canton 3.6's additions
 * (openapi-3.6-snapshot.yaml). ledger-api.test.ts counts them among the served routes;
 * ledger-api-3.6.test.ts validates them against the 3.6 snapshot spec.
 */
export const BEYOND_35: ReadonlyArray<{ method: string; pathTemplate: string }> = [
  { method: 'post', pathTemplate: '/v2/updates/update-by-hash' },
  { method: 'post', pathTemplate: '/v2/commands/completion-by-hash' },
  { method: 'get', pathTemplate: '/v2/jose/jwks/synchronizer/{synchronizer}/party/{party}' },
];
