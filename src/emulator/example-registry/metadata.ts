/**
 * The instruments of the wallet repository's example test-token registry, exactly as it answers
 * them (canton-network/wallet, `examples/test-token-v1-registry/src/api/metadata/common.ts`):
 * a fixed list, including its fixed `totalSupply` / `totalSupplyAsOf` texts, in its order.
 */
import type { Instrument } from '../../registry/schemas.js';
import type { InstrumentConfig } from '../../registry/instrument-config.js';

/** What the example advertises for TestTokenV1 (`supportedApisV1`), and at `/registry/metadata/v1/info`. */
export const EXAMPLE_REGISTRY_V1_APIS: Readonly<Record<string, number>> = {
  'splice-api-token-metadata-v1': 1,
  'splice-api-token-transfer-instruction-v1': 1,
  'splice-api-token-allocation-v1': 1,
  'splice-api-token-allocation-instruction-v1': 1,
};

/** The CIP-0112 dual advertisement of the TestTokenV2 instruments (`supportedApisDual`). */
export const EXAMPLE_REGISTRY_DUAL_APIS: Readonly<Record<string, number>> = {
  ...EXAMPLE_REGISTRY_V1_APIS,
  'splice-api-token-holding-v2': 1,
  'splice-api-token-transfer-instruction-v2': 1,
  'splice-api-token-allocation-v2': 1,
  'splice-api-token-allocation-instruction-v2': 1,
  'splice-api-token-allocation-request-v2': 1,
  'splice-api-token-transfer-events-v2': 1,
};

const AS_OF = '2026-07-13T09:49:23.104Z';

/** The three instruments, with the recipe of the token behind each. */
const INSTRUMENTS: ReadonlyArray<{ instrument: Instrument; recipe: string }> = [
  {
    recipe: 'splice-test-token-v1',
    instrument: { id: 'test-token-v1', name: 'TestTokenV1', symbol: 'tt', totalSupply: '1_000_000_000', totalSupplyAsOf: AS_OF, decimals: 2, supportedApis: { ...EXAMPLE_REGISTRY_V1_APIS }, paused: false, showAccountInputFields: false },
  },
  {
    recipe: 'splice-test-token-v2',
    instrument: { id: 'test-token-v2', name: 'TestTokenV2', symbol: 'tt2', totalSupply: '1_000_000_000', totalSupplyAsOf: AS_OF, decimals: 2, supportedApis: { ...EXAMPLE_REGISTRY_DUAL_APIS }, paused: false, showAccountInputFields: false },
  },
  {
    recipe: 'splice-test-token-v2',
    instrument: {
      id: 'test-token-paused',
      name: 'TestTokenPaused',
      symbol: 'ttp',
      totalSupply: '0',
      totalSupplyAsOf: AS_OF,
      decimals: 2,
      supportedApis: { ...EXAMPLE_REGISTRY_DUAL_APIS },
      paused: true,
      pauseInfo: { reason: 'CIP-0112 solvency fixture', until: '2099-01-01T00:00:00.000Z' },
      showAccountInputFields: false,
    },
  },
];

/** The instruments as `listInstruments` / `getInstrument` answer them, in the example's order. */
export function exampleRegistryInstruments(): Instrument[] {
  return INSTRUMENTS.map(({ instrument }) => structuredClone(instrument));
}

/** The same instruments as our registry's configuration (recipes, paused state; no ledger total). */
export function exampleRegistryInstrumentConfigs(): InstrumentConfig[] {
  return INSTRUMENTS.map(({ instrument: i, recipe }) => ({
    id: i.id,
    name: i.name,
    symbol: i.symbol,
    decimals: i.decimals,
    recipe,
    supportedApis: { ...i.supportedApis },
    ...(i.paused ? { paused: true, ...(i.pauseInfo ? { pauseInfo: { ...i.pauseInfo } } : {}) } : {}),
    totalSupply: 'none',
  }));
}
