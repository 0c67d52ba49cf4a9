/** The route modules of the emulated JSON Ledger API, in one list (order does not matter). */
import type { RouteModule } from './routes.js';
import { commandRoutes } from './commands.js';
import { contractRoutes } from './contracts.js';
import { interactiveSubmissionRoutes } from './interactive-submission.js';
import { packagesRoutes } from './packages.js';
import { partiesRoutes } from './parties.js';
import { externalPartiesRoutes } from './external-parties.js';
import { usersRoutes } from './users.js';
import { stateRoutes } from './state.js';
import { systemRoutes } from './system.js';
import { updateRoutes } from './updates.js';
import { joseRoutes } from './jose.js';

export const ledgerApiRoutes: RouteModule[] = [systemRoutes, commandRoutes, stateRoutes, updateRoutes, contractRoutes, packagesRoutes, partiesRoutes, externalPartiesRoutes, usersRoutes, interactiveSubmissionRoutes, joseRoutes];

export { createLedgerApiApp } from './routes.js';
export type { LedgerApiDeps, LedgerApp, RouteModule } from './routes.js';
