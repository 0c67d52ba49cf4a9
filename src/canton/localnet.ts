/**
 * Splice LocalNet's fixed facts (hyperledger-labs/splice `cluster/compose/localnet/`: `env/common.env`,
 * `env/*-auth-on.env`, `compose.env`, `conf/canton/*\/app-auth.conf`) and the profile names. Plain
 * data in the kernel: the production side (the testcontainers module) and the emulated ledger's
 * options use it, and config/ assembles the profile built from it (config/profiles.ts).
 */

/** The named sets of defaults `emulate` can start with (config/profiles.ts). */
export const PROFILE_NAMES = ['localnet'] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];

/** What LocalNet's participants check (`unsafe-jwt-hmac-256` with secret `unsafe`, `target-audience`). */
export const LOCALNET_LEDGER_AUTH = { hs256Secret: 'unsafe', targetAudience: 'https://canton.network.global' } as const;

/** LocalNet's `PARTY_HINT` default (`compose.env`: `$DOCKER_NETWORK-localparty-1`, network `localnet`). */
const LOCALNET_PARTY_HINT = 'localnet-localparty-1';
/** The validator parties' hints (`env/app-user-auth-on.env`, `env/app-provider-auth-on.env`). */
export const LOCALNET_APP_USER_PARTY_HINT = `app_user_${LOCALNET_PARTY_HINT}`;
export const LOCALNET_APP_PROVIDER_PARTY_HINT = `app_provider_${LOCALNET_PARTY_HINT}`;
/** Each LocalNet participant's validator ledger user and additional admin user. */
export const LOCALNET_VALIDATOR_USER = 'ledger-api-user';

/** LocalNet's addresses as the profile serves them (the wallet SDK's `localNetStaticConfig` holds the same). */
export const LOCALNET_PORTS = {
  /** The app-user participant's JSON Ledger API (`localNetStaticConfig.LOCALNET_APP_USER_LEDGER_URL`). */
  appUserLedger: 2975,
  /** The app-provider participant's JSON Ledger API. */
  appProviderLedger: 3975,
  /** The app-user gateway: its validator's `/api/validator` (`LOCALNET_APP_VALIDATOR_URL`, and the scan-proxy registry). */
  appUserValidator: 2000,
  /** The SV gateway: scan as `scan.localhost:4000/api/scan` (`LOCALNET_SCAN_API_URL`) and the Amulet registry at `/registry`. */
  scan: 4000,
  /** The wallet repository's example test-token registry (`examples/test-token-v1-registry`: `listen(5634)`). */
  exampleRegistry: 5634,
} as const;
