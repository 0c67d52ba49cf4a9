/** Library API of token-registry. */
// The emulated stack (ledger + registries + scan + validator) and its parts
export { startStack, type StackOptions, type RunningStack } from './stack.js';
export { startEmulator, buildEmulator, type RunningEmulator, type StartEmulatorOptions } from './emulator/index.js';
export { LedgerEngine, type LedgerEngineOptions } from './emulator/participant/engine.js';
export { ManualClock, systemClock, type Clock } from './canton/clock.js';
export { TemplateRegistry, type TemplateDef, type InterfaceDef, type ChoiceDef, type DeclaredTemplateSpec } from './emulator/participant/templates.js';
export { createLedgerApiApp, ledgerApiRoutes } from './emulator/ledger-api/routes.js';
export { mintDevToken } from './emulator/ledger-api/auth.js';
export { DEFAULT_DEMO_WORLD, DemoWorldSchema, type DemoWorld } from './emulator/world/seed.js';
export { registerTestTokenV1, mintTestTokenV1, createTestTokenV1Rules } from './emulator/templates/test-token-v1/index.js';
export { registerTestTokenV2, mintTestTokenV2, createTestTokenV2Rules, createTestTokenV2Account } from './emulator/templates/test-token-v2/index.js';
export { seedAmuletWorld, tapAmulet, createTransferPreapproval, createFeaturedAppRight, installWallet } from './emulator/templates/amulet/index.js';
export { createScanApp } from './emulator/scan/routes.js';
export { ScanService } from './emulator/scan/service.js';
export { createValidatorApp } from './emulator/validator/routes.js';
// The registry service (what `serve` runs)
export { startRegistry, loadRegistryConfig, type RunningRegistry } from './serve.js';
export { createRegistry, type Registry, type RegistryOptions } from './registry/index.js';
export { createRegistryApp } from './registry/app.js';
export { builtInRecipes, declarativeRecipes } from './registry/recipes/index.js';
export type { Recipe } from './registry/recipes/recipe.js';
export { RegistryConfigSchema, type RegistryConfig } from './config/registry.js';
// Clients and building blocks
export { LedgerClient, type LedgerClientOptions } from './ledger-client/client.js';
export { noAuth, staticToken, oauth2ClientCredentials, selfSignedHs256, type TokenProvider } from './ledger-client/auth.js';
export { inProcessFetch } from './ledger-client/in-process.js';
export { createCache, type Cache } from './cache/index.js';
export { createProxyApp } from './proxy/forward.js';
