/**
 * The emulated Splice validator app (Splice's validator-internal.yaml, scan-proxy.yaml, wallet-*.yaml): `createValidatorApp` serves
 * the validator's wallet, scan-proxy and public endpoints under `/api/validator` over the emulated
 * ledger, with the validator's JWT auth; `ValidatorWallets` is the wallet backend without HTTP.
 */
export { createValidatorApp, VALIDATOR_BASE_PATH, walletAutomationName, preapprovalAutomationName, type RegistryAppLike, type ValidatorAppOptions } from './app.js';
export { ValidatorWallets, DEFAULT_PREAPPROVAL_LIFETIME_MICROS, type UserWallet, type TransferOfferStatus, type ValidatorWalletsOptions } from './wallet.js';
export {
  createTokenAuthenticator,
  bearerToken,
  ledgerApiUser,
  DEFAULT_VALIDATOR_AUDIENCE,
  DEFAULT_VALIDATOR_SECRET,
  REALMS,
  SPLICE_CLAIM_KEY,
  type ValidatorAuthConfig,
} from './auth.js';
export { ValidatorError } from './errors.js';
