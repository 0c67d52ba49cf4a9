/**
 * The emulated Splice scan app (Splice `apps/scan/src/main/openapi/scan.yaml`): `createScanApp` serves scan's HTTP
 * API under `/api/scan` over the emulated ledger; `ScanService` is the same behaviour without HTTP
 * (for the validator's scan-proxy).
 */
export { createScanApp, SCAN_BASE_PATH, type ScanAppOptions } from './app.js';
export { ScanService, SCAN_TEMPLATES, encodeV2Token, decodeV2Token, type ScanServiceOptions } from './service.js';
export { ScanStore, SNAPSHOT_PERIOD_MICROS, type Snapshot, type HistoryEntry } from './store.js';
export { ScanError } from './errors.js';
export { contractJson, contractWithStateJson, activeContractJson, createdEventJson, recordTimeString, parseRequestTime } from './encode.js';
