/** The emulator's admin API: behaviour (service.ts), routes (app.ts), world snapshots, the world's clock. */
export { AdminError, AdminService, type AdminServiceDeps, type Funded, type Holdings, type Minted } from './service.js';
export { adminOpenApiDocument, createAdminApp, type AdminAppDeps } from './app.js';
export { SkewedClock } from './clock.js';
export { captureWorld, restoreWorld, type WorldParts, type WorldSnapshot } from './world-state.js';
export { LiveEvents, type LiveEvent, type WorldChange } from './live-events.js';
export { RequestLog, type RecordedRequest, type RecordedService } from './request-log.js';
export { WorldView, type TransactionEvent, type TransactionSummary } from './world-view.js';
