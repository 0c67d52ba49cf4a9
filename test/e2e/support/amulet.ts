/**
 * Helpers for driving the official Splice clients (@canton-network/core-splice-client@1.8.0:
 * ScanClient, ScanProxyClient, ValidatorInternalClient) and the wallet SDK's `amulet` namespace
 * (@canton-network/wallet-sdk@1.4.0) against the emulated stack.
 *
 * URLs, as a LocalNet client is configured (wallet-sdk `localNetStaticConfig`): the scan API is
 * `<scan host>/api/scan`, the validator API `<validator host>/api/validator`, and the Canton Coin
 * registry either the scan host root (`/registry/...` there) or the validator's scan-proxy
 * `<validator host>/api/validator/v0/scan-proxy` (authenticated).
 */
import type { ScanClient } from '@canton-network/core-splice-client';
import { CustomLogAdapter, SDK } from '@canton-network/wallet-sdk';
import { SignJWT } from 'jose';
import { z } from 'zod';
import type { RunningStack } from '../../../src/stack.js';
import { fromUnits, selfSignedAuth, toUnits } from './wallet-sdk.js';

/** LocalNet's validator auth (`hs-256-unsafe`, secret `unsafe`, audience below). */
export const VALIDATOR_SECRET = 'unsafe';
export const VALIDATOR_AUDIENCE = 'https://canton.network.global';

/** The clients' `Logger` (`Pick<Console, 'debug' | 'info' | 'warn' | 'error'>`), silent. */
export const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };

/** core-wallet-auth `AccessTokenProvider` with a fixed token; `''` makes the clients send no Authorization header. */
export function staticTokenProvider(token: string) {
  return {
    getAccessToken: async () => token,
    getAuthContext: async () => ({ userId: '', accessToken: token }),
  };
}

/** A validator JWT for `user` (HS256 `unsafe`, `sub` = the ledger API user), as LocalNet's test tokens. */
export function validatorJwt(user: string, o: { secret?: string; audience?: string } = {}): Promise<string> {
  return new SignJWT({ scope: '' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(user)
    .setAudience(o.audience ?? VALIDATOR_AUDIENCE)
    .setIssuedAt(Math.floor(Date.now() / 1000) - 5)
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(o.secret ?? VALIDATOR_SECRET));
}

/** The LocalNet-style URLs of a running stack's scan and validator. */
export function amuletUrls(stack: RunningStack) {
  if (!stack.scanUrl || !stack.validatorUrl) throw new Error('the stack has no scan or validator');
  return {
    /** ScanClient base URL. */
    scanApi: `${stack.scanUrl}/api/scan`,
    /** ScanProxyClient / ValidatorInternalClient base URL. */
    validatorApi: `${stack.validatorUrl}/api/validator`,
    /** The Amulet registry at the root of the scan host. */
    registry: stack.scanUrl,
    /** The Amulet registry through the validator's scan-proxy (needs a token). */
    scanProxyRegistry: `${stack.validatorUrl}/api/validator/v0/scan-proxy`,
  };
}

/**
 * `SDK.create` for one user with the `amulet` and `token` namespaces. With `viaValidator` the amulet namespace reads AmuletRules/rounds/pre-approvals/
 * featured apps through the validator's scan-proxy (ScanProxyClient, JWT) and learns the
 * validator party from `GET /v0/validator-user`; without it, from scan directly (ScanClient).
 * `registry` is the Canton Coin registry URL; the token namespace uses `tokenRegistries`
 * (default: that one), and with `tokenViaValidator` the validator too (its merge delegation acts
 * as the validator party). `ledgerUrl` defaults to the stack's.
 */
export function createAmuletSdk(
  stack: RunningStack,
  userId: string,
  o: { viaValidator: boolean; registry: string; ledgerUrl?: string; tokenRegistries?: string[]; tokenViaValidator?: boolean },
) {
  const urls = amuletUrls(stack);
  const auth = selfSignedAuth(userId);
  return SDK.create({
    auth,
    ledgerClientUrl: o.ledgerUrl ?? stack.ledgerUrl,
    logAdapter: new CustomLogAdapter(() => {}),
    amulet: {
      auth,
      scanApiUrl: urls.scanApi,
      registryUrl: o.registry,
      ...(o.viaValidator ? { validatorUrl: urls.validatorApi } : {}),
    },
    token: { auth, registries: o.tokenRegistries ?? [o.registry], ...(o.tokenViaValidator ? { validatorUrl: urls.validatorApi } : {}) },
  });
}

export type AmuletSdk = Awaited<ReturnType<typeof createAmuletSdk>>;

/*
 * Response shapes the tests read. The client's own typings cannot be used: its `scan-client.d.ts`
 * imports `./generated-clients/scan` without a file extension, which NodeNext resolution (this
 * project's tsconfig) does not resolve, so every `get`/`post` result is typed `unknown` and every
 * `ScanTypes[...]` is `any`. These mirror Splice's `apps/scan/src/main/openapi/scan.yaml`.
 */

/** scan.yaml `Contract`. */
export interface ContractJson {
  template_id: string;
  contract_id: string;
  payload: Record<string, unknown>;
  created_event_blob: string;
  created_at: string;
}

/** scan.yaml `ContractWithState`. */
export interface ContractWithStateJson {
  contract: ContractJson;
  domain_id?: string;
}

/** `GET /v0/dso` (the fields read here). */
export interface DsoInfoJson {
  dso_party_id: string;
  amulet_rules: ContractWithStateJson;
  latest_mining_round: ContractWithStateJson;
}

/** `POST /v0/state/acs/force`. */
export interface ForceAcsSnapshotJson {
  record_time: string;
  migration_id: number;
}

/** scan.yaml `ActiveContract`. */
export interface ActiveContractJson {
  contract_id: string;
  template_id: string;
  package_name: string;
  create_arguments: Record<string, unknown>;
  created_at: string;
  signatories: string[];
  observers: string[];
}

/** `POST /v1/state/acs` and `/v1/holdings/state` (`AcsResponseV1`). */
export interface AcsResponseV1Json {
  record_time: string;
  migration_id: number;
  created_events: ActiveContractJson[];
  next_page_token?: number;
}

/** One holding row of scan's holdings state (an Amulet or a LockedAmulet). */
export interface ScanHolding {
  contractId: string;
  template: 'Amulet' | 'LockedAmulet';
  owner: string;
  /** `amount.initialAmount` (scan reports the contract as created). */
  amount: string;
}

export interface ScanSnapshotHoldings {
  recordTime: string;
  holdings: ScanHolding[];
  /** Per owner: unlocked and locked sums (decimal texts). */
  balances: Record<string, { unlocked: string; locked: string }>;
}

/** The fields of an Amulet's create arguments read here (`Splice.Amulet:Amulet`). */
const AmuletPayloadSchema = z.object({ owner: z.string(), amount: z.object({ initialAmount: z.string() }) });
/** `Splice.Amulet:LockedAmulet`: the Amulet and its lock. */
const LockedAmuletPayloadSchema = z.object({ amulet: AmuletPayloadSchema });

/**
 * Forces an ACS snapshot (`POST /v0/state/acs/force`), then reads the owners' Amulet and
 * LockedAmulet at exactly that record time (`POST /v1/holdings/state`, `record_time_match:
 * exact`), following `next_page_token` with small pages so paging is exercised too.
 */
export async function holdingsAtForcedSnapshot(scan: ScanClient, owners: string[], pageSize = 2): Promise<ScanSnapshotHoldings> {
  const forced = (await scan.post('/v0/state/acs/force', undefined)) as ForceAcsSnapshotJson;
  const holdings: ScanHolding[] = [];
  let after: number | undefined;
  for (let pages = 0; ; pages++) {
    if (pages > 100) throw new Error('holdings paging does not end');
    const page = (await scan.post('/v1/holdings/state', {
      migration_id: forced.migration_id,
      record_time: forced.record_time,
      record_time_match: 'exact',
      page_size: pageSize,
      owner_party_ids: owners,
      ...(after === undefined ? {} : { after }),
    })) as AcsResponseV1Json;
    if (page.record_time !== forced.record_time) throw new Error(`snapshot time ${page.record_time} != forced ${forced.record_time}`);
    for (const c of page.created_events) {
      const entity = c.template_id.split(':').at(-1);
      if (entity === 'Amulet') {
        const p = AmuletPayloadSchema.parse(c.create_arguments);
        holdings.push({ contractId: c.contract_id, template: 'Amulet', owner: p.owner, amount: p.amount.initialAmount });
      } else if (entity === 'LockedAmulet') {
        const p = LockedAmuletPayloadSchema.parse(c.create_arguments).amulet;
        holdings.push({ contractId: c.contract_id, template: 'LockedAmulet', owner: p.owner, amount: p.amount.initialAmount });
      } else {
        throw new Error(`unexpected template in holdings: ${c.template_id}`);
      }
    }
    if (page.next_page_token === undefined || page.next_page_token === null) break;
    after = page.next_page_token;
  }
  const balances: ScanSnapshotHoldings['balances'] = {};
  for (const owner of owners) {
    let unlocked = 0n;
    let locked = 0n;
    for (const h of holdings) {
      if (h.owner !== owner) continue;
      if (h.template === 'Amulet') unlocked += toUnits(h.amount);
      else locked += toUnits(h.amount);
    }
    balances[owner] = { unlocked: fromUnits(unlocked), locked: fromUnits(locked) };
  }
  return { recordTime: forced.record_time, holdings, balances };
}
