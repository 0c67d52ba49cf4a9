/** Library API of token-registry. */
export { startEmulator, buildEmulator, type RunningEmulator, type StartEmulatorOptions } from './emulator/index.js';
export { LedgerEngine, type LedgerEngineOptions } from './emulator/ledger/engine.js';
export { ManualClock, systemClock, type Clock } from './emulator/shared/clock.js';
export { TemplateRegistry, type TemplateDef, type InterfaceDef, type ChoiceDef, type DeclaredTemplateSpec } from './emulator/ledger/templates.js';
export { createLedgerApiApp, ledgerApiRoutes } from './emulator/ledger-api/index.js';
export { mintDevToken } from './emulator/ledger-api/auth.js';
export { DEFAULT_DEMO_WORLD, type DemoWorld } from './emulator/seed.js';
