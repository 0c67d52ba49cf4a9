/**
 * The admin API's operations behind the explorer: explorer-api.test.ts covers them (the event
 * stream by its content type, its events by their shapes), admin-api.test.ts the rest.
 */
export const EXPLORER_OPERATIONS = new Set([
  'listParties',
  'listUsers',
  'listInstruments',
  'listBalances',
  'listTransactions',
  'getTransaction',
  'getContract',
  'listRequests',
  'streamEvents',
]);
