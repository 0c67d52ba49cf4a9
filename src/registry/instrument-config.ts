/**
 * One instrument a registry serves, as the operator configures it. Its own module so that the
 * recipes (which build default configs, e.g. Amulet's) and the service (which serves them) both
 * depend on it without depending on each other.
 */
export interface InstrumentConfig {
  id: string;
  name: string;
  symbol: string;
  decimals: number;
  /** Name of the recipe of the token implementation (e.g. `splice-test-token-v1`). */
  recipe: string;
  /** Overrides the recipe's supported APIs. */
  supportedApis?: Record<string, number>;
  paused?: boolean;
  pauseInfo?: { reason?: string; until?: string };
  accountInputFieldsToShow?: Array<'provider' | 'accountId'>;
  /** `ledger`: totalSupply = sum of the admin's HoldingV1 views of this instrument. */
  totalSupply?: 'ledger' | 'none';
}
