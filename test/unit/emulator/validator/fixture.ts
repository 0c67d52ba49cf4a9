/**
 * A validator world for the validator tests: the emulated ledger with the Amulet world seeded,
 * a validator operator party hosting wallets (WalletAppInstall) for alice and bob and for users
 * that fail authorization, the emulated scan, optionally the Amulet registry (read through the
 * JSON Ledger API in process, as in the stack), and the validator app. Tokens are minted with jose
 * HS256 and the LocalNet secret `unsafe`.
 */
import { SignJWT, type JWTPayload } from 'jose';
import { pino } from 'pino';
import { MemoryCache } from '../../../../src/cache/memory-cache.js';
import { buildEmulator } from '../../../../src/emulator/index.js';
import type { LedgerEngine } from '../../../../src/emulator/participant/engine.js';
import { ScanService } from '../../../../src/emulator/scan/service.js';
import { ManualClock } from '../../../../src/canton/clock.js';
import { installWallet, seedAmuletWorld, type OpenMiningRoundPayload } from '../../../../src/emulator/templates/amulet/index.js';
import { createValidatorApp } from '../../../../src/emulator/validator/routes.js';
import { noAuth } from '../../../../src/ledger-client/auth.js';
import { LedgerClient } from '../../../../src/ledger-client/client.js';
import { createRegistry, type Registry } from '../../../../src/registry/index.js';
import { AmuletRecipe, amuletInstrumentConfig } from '../../../../src/registry/recipes/amulet.js';
import type { ContractWithState, ScanContract } from '../scan/fixture.js';

export const AUDIENCE = 'https://canton.network.global';
export const SECRET = 'unsafe';
const logger = pino({ level: 'silent' });

type JsonOptions = { user?: string; token?: string; body?: unknown };

export interface ValidatorWorld {
  clock: ManualClock;
  engine: LedgerEngine;
  dso: string;
  validator: string;
  alice: string;
  bob: string;
  /** Has a user but no wallet. */
  carol: string;
  /** Wallet `mallory`, user without CanActAs on the wallet party. */
  mallory: string;
  /** Wallet `dave`, deactivated user. */
  dave: string;
  /** Wallet `ghost` whose user does not exist on the participant. */
  ghost: string;
  scan: ScanService;
  registry?: Registry;
  /** Each ledger request the registry made (with `registry: true`): its path and headers. */
  ledgerRequests: Array<{ path: string; headers: Headers }>;
  app: ReturnType<typeof createValidatorApp>;
  token(user: string, claims?: JWTPayload, opts?: { secret?: string; alg?: string }): Promise<string>;
  call(method: string, path: string, opts?: { user?: string; token?: string; body?: unknown; headers?: Record<string, string> }): Promise<Response>;
  /**
   * `call` and parse: status, body (JSON when JSON, else text), headers. `T` is the body the test
   * expects (an assertion on the parsed body, as `(await r.json()) as T` would be).
   */
  json<T = unknown>(method: string, path: string, opts?: JsonOptions): Promise<{ status: number; body: T; headers: Headers }>;
  close(): Promise<void>;
}

export async function buildValidatorWorld(opts: { registry?: boolean; start?: string } = {}): Promise<ValidatorWorld> {
  const clock = new ManualClock(opts.start ?? '2026-05-01T10:00:00Z');
  const emu = buildEmulator({ config: { demoWorld: false, logLevel: 'silent' }, clock });
  const engine = emu.engine;
  const { dso } = seedAmuletWorld(engine);
  const party = (hint: string) => engine.parties.allocate(hint).party;
  const validator = party('validator');
  const [alice, bob, carol, mallory, dave, ghost] = ['alice', 'bob', 'carol', 'mallory', 'dave', 'ghost'].map(party) as [string, string, string, string, string, string];
  for (const [id, p] of [['alice', alice], ['bob', bob], ['carol', carol]] as const) engine.users.create({ id, primaryParty: p }, [{ kind: 'CanActAs', party: p }]);
  engine.users.create({ id: 'mallory', primaryParty: mallory }, [{ kind: 'CanReadAs', party: mallory }]);
  engine.users.create({ id: 'dave', primaryParty: dave, isDeactivated: true }, [{ kind: 'CanActAs', party: dave }]);
  for (const [user, p] of [['alice', alice], ['bob', bob], ['mallory', mallory], ['dave', dave], ['ghost', ghost]] as const) {
    installWallet(engine, { dso, user: p, validator, endUserName: user });
  }
  const scan = new ScanService({ engine, dsoParty: dso });

  let registry: Registry | undefined;
  const ledgerRequests: Array<{ path: string; headers: Headers }> = [];
  if (opts.registry) {
    const ledger = new LedgerClient({
      baseUrl: 'http://emulated-ledger',
      tokenProvider: noAuth,
      fetch: (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
        const url = input instanceof Request ? input.url : String(input);
        ledgerRequests.push({ path: new URL(url).pathname, headers: new Headers(init?.headers) });
        return emu.app.request(input instanceof Request ? input : String(input), init);
      }) as typeof fetch,
      logger,
    });
    registry = createRegistry({
      admin: dso,
      instruments: [amuletInstrumentConfig()],
      recipes: [new AmuletRecipe()],
      ledger,
      cache: new MemoryCache({ defaultTtlSeconds: 600, logger }),
      clock,
      logger,
      pollIdleMs: 20,
    });
    await registry.start();
  }

  const app = createValidatorApp({ engine, dso, scan, registryApp: registry?.app, validatorParty: validator, logger });
  const key = (s: string) => new TextEncoder().encode(s);
  const token: ValidatorWorld['token'] = async (user, claims = {}, o = {}) =>
    new SignJWT({ sub: user, aud: AUDIENCE, ...claims }).setProtectedHeader({ alg: o.alg ?? 'HS256' }).sign(key(o.secret ?? SECRET));
  const call: ValidatorWorld['call'] = async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    const t = o.token ?? (o.user !== undefined ? await token(o.user) : undefined);
    if (t !== undefined) headers.authorization = `Bearer ${t}`;
    let body: string | undefined;
    if (o.body !== undefined) {
      body = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    return app.request(`http://validator.local/api/validator${path}`, { method, headers, body });
  };
  const json = async <T = unknown>(method: string, path: string, o?: JsonOptions): Promise<{ status: number; body: T; headers: Headers }> => {
    const res = await call(method, path, o);
    const text = await res.text();
    const isJson = (res.headers.get('content-type') ?? '').includes('json');
    const body: unknown = isJson && text !== '' ? JSON.parse(text) : text;
    return { status: res.status, body: body as T, headers: res.headers };
  };
  return {
    clock,
    engine,
    dso,
    validator,
    alice,
    bob,
    carol,
    mallory,
    dave,
    ghost,
    scan,
    registry,
    ledgerRequests,
    app,
    token,
    call,
    json,
    close: async () => {
      await registry?.stop();
    },
  };
}

/** `expires_at` in unix micros, `ms` from the world's clock. */
export const expiresIn = (w: Pick<ValidatorWorld, 'clock'>, ms: number) => Number(w.clock.nowMicros() / 1000n + BigInt(ms)) * 1000;

// ---- wallet answer bodies: the fields the tests read (Splice wallet-*.yaml) ----------------------

export interface WalletBalance {
  round: number;
  effective_unlocked_qty: string;
  effective_locked_qty: string;
  total_holding_fees: string;
}

export interface TransferOfferStatus {
  status: string;
  transaction_id?: string;
  contract_id?: string;
  failure_kind?: string;
  withdrawn_reason?: string;
}

export interface WalletAmulet {
  contract: ContractWithState;
  round: number;
  accrued_holding_fee: string;
  effective_amount: string;
}

export interface WalletAmulets {
  amulets: WalletAmulet[];
  locked_amulets: unknown[];
}

/** A validator / wallet error answer. */
export interface ErrorBody {
  error: string;
}

export interface CreatedTransferOffer {
  offer_contract_id: string;
}

export interface AcceptedTransferOffer {
  accepted_offer_contract_id: string;
}

/** The `TransferOffer` payload fields the tests read. */
export interface TransferOfferPayload {
  sender: string;
  receiver: string;
  trackingId: string;
}

export interface TransferOffers {
  offers: Array<ScanContract<TransferOfferPayload>>;
}

export interface AcceptedTransferOffers {
  accepted_offers: ScanContract[];
}

export interface TapResult {
  contract_id: string;
}

export interface UserStatus {
  party_id: string;
  user_onboarded: boolean;
  user_wallet_installed: boolean;
  has_featured_app_right: boolean;
}

export interface ValidatorUser {
  party_id: string;
  user_name: string;
  featured: boolean;
}

export interface CreatedTransferPreapproval {
  transfer_preapproval_contract_id: string;
}

/** The scan-proxy's `open-and-issuing-mining-rounds` (GET: plain arrays, not maps). */
export interface ScanProxyMiningRounds {
  open_mining_rounds: Array<ContractWithState<OpenMiningRoundPayload>>;
  issuing_mining_rounds: ContractWithState[];
}
