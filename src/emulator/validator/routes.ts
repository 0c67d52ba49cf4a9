/**
 * The emulated Splice validator app (Splice `apps/validator/src/main/openapi/*.yaml`): a Hono app serving the
 * validator's paths exactly as the real app does under `/api/validator` (servers url of
 * validator-internal.yaml, scan-proxy.yaml, wallet-external.yaml, wallet-internal.yaml), over the
 * emulated ledger, so a client configured with `http://<host>/api/validator` works unchanged.
 * Mount it at the root of the validator port.
 *
 * Route groups and their auth (Splice `apps/validator/.../ValidatorApp.scala`):
 *  - public: `/readyz`, `/livez`, `/status`, `/version`, `GET /v0/validator-user`;
 *  - authentication only (any valid token; the user need not exist): the scan-proxy reads and the
 *    token-standard registry under `/v0/scan-proxy/registry/...` (realm "splice scan proxy
 *    realm"), and `GET /v0/wallet/user-status` (realm "splice wallet realm");
 *  - user wallet (`UserWalletAuthExtractor`, realm "splice wallet realm"): every other
 *    `/v0/wallet/...` endpoint; 404 when the user has no wallet, 403 when the user may not act as
 *    the wallet party (wallet-installs.ts).
 * Order on each request, as the pekko directives nest: method and path, then the token (401),
 * then the wallet (404/403), then the body (400), then the handler.
 *
 * The scan-proxy answers from the emulated scan in process (`ScanService`), the registry paths
 * are forwarded, with `/api/validator/v0/scan-proxy` stripped, to the Amulet registry app that
 * scan serves at its host root (`registryApp`), and its answer is passed through.
 *
 * The wallet automation (completing accepted transfer offers and buy-traffic requests, expiring
 * offers and requests, cancelling invalid traffic purchases) is registered on
 * `engine.automations` and run before and after each wallet request, so an accepted offer is
 * completed as soon as the accept returns (the real automation does it moments later). So is the
 * validator's pre-approval automation (`AcceptTransferPreapprovalProposalTrigger`): a
 * TransferPreapprovalProposal naming this validator as provider (what the wallet SDK's
 * `preapproval.command.create` submits, or `POST /v0/wallet/transfer-preapproval`) becomes a
 * TransferPreapproval at the next ledger activity.
 *
 * LIMITATIONS (what differs from the real validator; README lists them too). Not served (404):
 * validator-internal.yaml but `getValidatorUserInfo` (no `/v0/register`, no `/v0/admin/...`:
 * users, participant, transfer-preapprovals, external parties); ANS (ans-external.yaml, scan-proxy
 * `ans-entries` and `ans-rules`); scan-proxy transfer-command counter and status, holdings summary,
 * development-fund coupons; in wallet-internal.yaml the token-standard transfers and allocation
 * requests, allocations, app payments and subscriptions, coupon and activity-record lists,
 * `listTransactions`, featured-app-right self-grant and cancel, development-fund coupons, minting
 * delegations, `featureSupport`. Wallets are this validator party's WalletAppInstalls on the
 * ledger (seeded; no onboarding). The automation runs around requests, not on timers, and neither
 * collects rewards, merges amulets nor tops up the validator's traffic; a pre-approval it cannot
 * create is a 429 at once (no polling); buy-traffic requests are for the emulated participant at
 * migration 0. The scan-proxy needs the emulated scan in process; without `registryApp` its
 * `/registry/...` paths are 404.
 */
import { Hono, type Context } from 'hono';
import { cors } from 'hono/cors';
import type { Logger } from 'pino';
import type { LedgerEngine } from '../participant/engine.js';
import { LedgerApiError } from '../../canton/errors.js';
import { ScanError } from '../scan/errors.js';
import type { ScanService } from '../scan/service.js';
import { createTokenAuthenticator, REALMS, unauthorized, type Realm, type ValidatorAuthConfig } from './auth.js';
import { fromLedgerError, ValidatorError } from './errors.js';
import { CreateBuyTrafficRequest, CreateTransferOfferRequest, decodeBody, TapRequest, TransferPreapprovalSendRequest } from './schemas.js';
import { ValidatorWallets, type UserWallet } from './service.js';
import { jsonErrorBodyLimit } from '../../http/body-limit.js';
import { SPLICE_MAX_BODY_BYTES } from '../../http/limits.js';
import type { RequestContextBindings } from '../../http/service.js';

export const VALIDATOR_BASE_PATH = '/api/validator';

/** What the scan-proxy needs of the registry app: Hono's in-process `request`. */
export interface RegistryAppLike {
  /** `env` carries the validator request's context, so the registry's ledger calls carry its request id and trace. */
  request(input: string, init: RequestInit, env: RequestContextBindings): Response | Promise<Response>;
}

/** What the validator's app finds in `c.env` when served by the HTTP pipeline (src/http/service.ts). */
export type ValidatorEnv = { Bindings: RequestContextBindings };

export interface ValidatorAppOptions {
  engine: LedgerEngine;
  /** Request body limit (default: pekko-http's 8 MiB). */
  maxBodyBytes?: number;
  /** The DSO party of the Amulet world. */
  dso: string;
  /** The emulated scan the scan-proxy reads from (shared with the scan app). */
  scan: ScanService;
  /** The Amulet registry app (scan's `/registry/...`), for `/v0/scan-proxy/registry/...`. */
  registryApp?: RegistryAppLike;
  /** The validator operator party (the `validatorParty` of the WalletAppInstalls it serves). */
  validatorParty: string;
  /** The validator's ledger API user (`GET /v0/validator-user`); default `ledger-api-user` (LocalNet). */
  validatorUser?: string;
  auth?: ValidatorAuthConfig;
  logger?: Logger;
  /** `GET /version` `version`; default: scan's. */
  version?: string;
  /** Register the wallet automation on engine.automations (default true). */
  walletAutomation?: boolean;
  /**
   * Register the automation accepting TransferPreapprovalProposals whose provider is the validator
   * (`AcceptTransferPreapprovalProposalTrigger`) on engine.automations (default: as walletAutomation).
   */
  preapprovalAutomation?: boolean;
  /** Lifetime of the pre-approvals the validator buys, in microseconds (default 90 days). */
  preapprovalLifetimeMicros?: bigint;
}

type Auth = 'public' | { realm: Realm; wallet: false } | { realm: Realm; wallet: true; operationId: string };

interface Route {
  method: 'GET' | 'POST';
  path: string;
  auth: Auth;
  handler: (c: Context, user: { name?: string; wallet?: UserWallet }) => Promise<unknown> | unknown;
}

/** Name of a validator's wallet automation on engine.automations. */
export const walletAutomationName = (validatorParty: string) => `validator-wallet:${validatorParty}`;
/** Name of a validator's pre-approval proposal automation on engine.automations. */
export const preapprovalAutomationName = (validatorParty: string) => `validator-preapprovals:${validatorParty}`;

export function createValidatorApp(opts: ValidatorAppOptions): Hono<ValidatorEnv> {
  const { engine, scan, logger } = opts;
  const validatorUser = opts.validatorUser ?? 'ledger-api-user';
  const wallets = new ValidatorWallets({
    engine,
    dso: opts.dso,
    validatorParty: opts.validatorParty,
    validatorUser,
    logger,
    ...(opts.preapprovalLifetimeMicros !== undefined ? { preapprovalLifetimeMicros: opts.preapprovalLifetimeMicros } : {}),
  });
  if (opts.walletAutomation ?? true) engine.automations.register(walletAutomationName(opts.validatorParty), () => wallets.runAutomation());
  if (opts.preapprovalAutomation ?? opts.walletAutomation ?? true) {
    engine.automations.register(preapprovalAutomationName(opts.validatorParty), () => wallets.runPreapprovalAutomation());
  }
  const authenticate = createTokenAuthenticator(opts.auth ?? {}, engine.clock);
  const startedAtMicros = engine.clock.nowMicros();
  const body = async <S extends Parameters<typeof decodeBody>[1]>(c: Context, schema: S) => decodeBody(await c.req.text(), schema);
  const walletRoute = (operationId: string): Auth => ({ realm: REALMS.wallet, wallet: true, operationId });
  const scanProxy: Auth = { realm: REALMS.scanProxy, wallet: false };
  const w = (u: { wallet?: UserWallet }) => u.wallet!;

  const routes: Route[] = [
    // health (common-external.yaml)
    { method: 'GET', path: '/readyz', auth: 'public', handler: (c) => c.body(null, 200) },
    { method: 'GET', path: '/livez', auth: 'public', handler: (c) => c.body(null, 200) },
    {
      method: 'GET',
      path: '/status',
      auth: 'public',
      handler: () => {
        const uptime = Math.max(0, Number(engine.clock.nowMicros() - startedAtMicros) / 1e6);
        return { success: { id: `validator::${opts.validatorParty.split('::')[1] ?? ''}`, uptime: `${uptime.toFixed(3)}s`, ports: {}, active: true } };
      },
    },
    { method: 'GET', path: '/version', auth: 'public', handler: () => ({ ...scan.versionInfo(), ...(opts.version ? { version: opts.version } : {}) }) },

    // validator public (validator-internal.yaml)
    {
      method: 'GET',
      path: '/v0/validator-user',
      auth: 'public',
      handler: () => ({ party_id: opts.validatorParty, user_name: validatorUser, featured: wallets.users.validatorFeatured() }),
    },

    // wallet, external (wallet-external.yaml)
    { method: 'GET', path: '/v0/wallet/transfer-offers', auth: walletRoute('listTransferOffers'), handler: (_c, u) => wallets.transferOffers.listTransferOffers(w(u)) },
    {
      method: 'POST',
      path: '/v0/wallet/transfer-offers',
      auth: walletRoute('createTransferOffer'),
      handler: async (c, u) => wallets.transferOffers.createTransferOffer(w(u), await body(c, CreateTransferOfferRequest)),
    },
    {
      method: 'POST',
      path: '/v0/wallet/transfer-offers/:tracking_id/status',
      auth: walletRoute('getTransferOfferStatus'),
      handler: (c, u) => wallets.transferOffers.transferOfferStatus(w(u), c.req.param('tracking_id')!),
    },

    {
      method: 'POST',
      path: '/v0/wallet/buy-traffic-requests',
      auth: walletRoute('createBuyTrafficRequest'),
      handler: async (c, u) => wallets.buyTraffic.createBuyTrafficRequest(w(u), await body(c, CreateBuyTrafficRequest)),
    },
    {
      method: 'POST',
      path: '/v0/wallet/buy-traffic-requests/:tracking_id/status',
      auth: walletRoute('getBuyTrafficRequestStatus'),
      handler: (c, u) => wallets.buyTraffic.buyTrafficRequestStatus(w(u), c.req.param('tracking_id')!),
    },

    // wallet, internal (wallet-internal.yaml)
    { method: 'GET', path: '/v0/wallet/user-status', auth: { realm: REALMS.wallet, wallet: false }, handler: (_c, u) => wallets.users.userStatus(u.name!) },
    {
      method: 'POST',
      path: '/v0/wallet/transfer-offers/:contract_id/accept',
      auth: walletRoute('acceptTransferOffer'),
      handler: (c, u) => wallets.transferOffers.acceptTransferOffer(w(u), c.req.param('contract_id')!),
    },
    {
      method: 'POST',
      path: '/v0/wallet/transfer-offers/:contract_id/reject',
      auth: walletRoute('rejectTransferOffer'),
      handler: (c, u) => {
        wallets.transferOffers.rejectTransferOffer(w(u), c.req.param('contract_id')!);
        return c.body(null, 200);
      },
    },
    {
      method: 'POST',
      path: '/v0/wallet/transfer-offers/:contract_id/withdraw',
      auth: walletRoute('withdrawTransferOffer'),
      handler: (c, u) => {
        wallets.transferOffers.withdrawTransferOffer(w(u), c.req.param('contract_id')!);
        return c.body(null, 200);
      },
    },
    { method: 'GET', path: '/v0/wallet/accepted-transfer-offers', auth: walletRoute('listAcceptedTransferOffers'), handler: (_c, u) => wallets.transferOffers.listAcceptedTransferOffers(w(u)) },
    { method: 'GET', path: '/v0/wallet/balance', auth: walletRoute('getBalance'), handler: (_c, u) => wallets.holdings.balance(w(u)) },
    { method: 'GET', path: '/v0/wallet/amulets', auth: walletRoute('list'), handler: (_c, u) => wallets.holdings.listAmulets(w(u)) },
    { method: 'POST', path: '/v0/wallet/tap', auth: walletRoute('tap'), handler: async (c, u) => wallets.holdings.tap(w(u), await body(c, TapRequest)) },
    {
      method: 'POST',
      path: '/v0/wallet/transfer-preapproval',
      auth: walletRoute('createTransferPreapproval'),
      // 409 carries the existing pre-approval's id (CreateTransferPreapprovalResponse), not an ErrorResponse
      handler: (c, u) => {
        const r = wallets.preapprovals.createTransferPreapproval(w(u));
        return c.json(r.body, r.status);
      },
    },
    {
      method: 'POST',
      path: '/v0/wallet/transfer-preapproval/send',
      auth: walletRoute('transferPreapprovalSend'),
      handler: async (c, u) => {
        wallets.preapprovals.transferPreapprovalSend(w(u), await body(c, TransferPreapprovalSendRequest));
        return c.body(null, 200);
      },
    },

    // scan-proxy (scan-proxy.yaml), answered by the emulated scan
    { method: 'GET', path: '/v0/scan-proxy/dso-party-id', auth: scanProxy, handler: () => scan.dsoPartyId() },
    { method: 'GET', path: '/v0/scan-proxy/dso', auth: scanProxy, handler: () => scan.dsoInfo() },
    { method: 'GET', path: '/v0/scan-proxy/featured-apps/:provider_party_id', auth: scanProxy, handler: (c) => scan.featuredAppRight(c.req.param('provider_party_id')!) },
    {
      method: 'GET',
      path: '/v0/scan-proxy/open-and-issuing-mining-rounds',
      auth: scanProxy,
      // GetOpenAndIssuingMiningRoundsProxyResponse: plain arrays of ContractWithState, no TTL
      handler: () => {
        const r = scan.openAndIssuingMiningRounds({ cached_open_mining_round_contract_ids: [], cached_issuing_round_contract_ids: [] });
        return { open_mining_rounds: Object.values(r.open_mining_rounds as object), issuing_mining_rounds: Object.values(r.issuing_mining_rounds as object) };
      },
    },
    {
      method: 'GET',
      path: '/v0/scan-proxy/amulet-rules',
      auth: scanProxy,
      handler: () => ({ amulet_rules: scan.amuletRules({ cached_amulet_rules_contract_id: undefined, cached_amulet_rules_domain_id: undefined }).amulet_rules_update }),
    },
    { method: 'GET', path: '/v0/scan-proxy/transfer-preapprovals/by-party/:party', auth: scanProxy, handler: (c) => scan.transferPreapprovalByParty(c.req.param('party')!) },
  ];

  /** Auth, automation, handler: one route's full processing. */
  const run = (r: Route) => async (c: Context) => {
    const user: { name?: string; wallet?: UserWallet } = {};
    if (r.auth !== 'public') {
      const a = await authenticate(c.req.header('authorization'));
      if (!a.ok) {
        logger?.info(`Could not validate token for operation '${r.auth.wallet ? r.auth.operationId : r.path}': ${a.reason}`);
        return unauthorized(a, r.auth.realm);
      }
      user.name = a.user;
      engine.automations.run();
      if (r.auth.wallet) user.wallet = wallets.users.authorize(a.user, r.auth.operationId);
    }
    const out = await r.handler(c, user);
    if (r.auth !== 'public' && r.auth.wallet) engine.automations.run();
    return out instanceof Response ? out : c.json(out as object, 200);
  };

  const api = new Hono<ValidatorEnv>();
  for (const r of routes) {
    if (r.method === 'GET') api.get(r.path, run(r));
    else api.post(r.path, run(r));
  }

  // the token-standard registry, proxied to scan's `/registry/...`
  const registry = async (c: Context<ValidatorEnv>) => {
    const a = await authenticate(c.req.header('authorization'));
    if (!a.ok) return unauthorized(a, REALMS.scanProxy);
    const url = new URL(c.req.url);
    if (!opts.registryApp) return notFoundAnswer(c);
    const path = url.pathname.slice(url.pathname.indexOf('/v0/scan-proxy/registry/') + '/v0/scan-proxy'.length);
    const init: RequestInit = { method: c.req.method, headers: { 'content-type': c.req.header('content-type') ?? 'application/json' } };
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') init.body = await c.req.text();
    const res = await opts.registryApp.request(`http://scan.local${path}${url.search}`, init, { requestContext: c.env?.requestContext });
    // a path the registry has no endpoint for is not a route of the validator either
    if (res.status === 404 && /^\{"error":"No such endpoint: /.test(await res.clone().text())) return notFoundAnswer(c);
    const headers = new Headers();
    const ct = res.headers.get('content-type');
    if (ct) headers.set('content-type', ct);
    return new Response(await res.arrayBuffer(), { status: res.status, headers });
  };
  api.all('/v0/scan-proxy/registry/*', registry);

  // A known path with another method: pekko's MethodRejection message and Allow header, in the
  // API's own error shape (`{"error": ...}`, as scan answers it), so a client parses every error
  // of the validator one way.
  const methodsByPath = new Map<string, string[]>();
  for (const r of routes) methodsByPath.set(r.path, [...(methodsByPath.get(r.path) ?? []), r.method]);
  for (const [path, methods] of methodsByPath) {
    api.all(path, (c) => c.json({ error: `HTTP method not allowed, supported methods: ${methods.join(', ')}` }, 405, { allow: methods.join(', ') }));
  }

  const onError = (err: Error, c: Context) => {
    if (err instanceof ValidatorError) return c.json({ error: err.message }, err.status);
    if (err instanceof ScanError) return c.json({ error: err.message }, err.status);
    if (err instanceof LedgerApiError) {
      const e = fromLedgerError(err);
      // the ledger is unavailable for now (e.g. it cannot persist): the client may come back
      if (e.status === 503) c.header('Retry-After', '1');
      return c.json({ error: e.message }, e.status);
    }
    logger?.error({ err }, 'unhandled error in validator API');
    return c.json({ error: 'An unexpected error occurred.' }, 500);
  };
  api.notFound(notFoundAnswer);
  api.onError(onError);

  const app = new Hono<ValidatorEnv>();
  app.use('*', jsonErrorBodyLimit(opts.maxBodyBytes ?? SPLICE_MAX_BODY_BYTES));
  // ValidatorApp wraps its routes in pekko-http-cors with these methods and exposed headers.
  app.use(`${VALIDATOR_BASE_PATH}/*`, cors({ origin: '*', allowMethods: ['DELETE', 'GET', 'POST', 'HEAD', 'OPTIONS'], exposeHeaders: ['traceparent'] }));
  app.route(VALIDATOR_BASE_PATH, api);
  app.notFound(notFoundAnswer);
  app.onError(onError);
  return app;
}

/** `HttpAdminService.notFoundRoute`. */
function notFoundAnswer(c: Context): Response {
  return c.json({ error: `The requested resource could not be found: ${c.req.url}` }, 404);
}
