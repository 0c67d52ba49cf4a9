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
import type { LedgerEngine } from '../../../../src/emulator/ledger/engine.js';
import { ScanService } from '../../../../src/emulator/scan/index.js';
import { ManualClock } from '../../../../src/canton/clock.js';
import { installWallet, seedAmuletWorld } from '../../../../src/emulator/templates/amulet/index.js';
import { createValidatorApp } from '../../../../src/emulator/validator/index.js';
import { noAuth } from '../../../../src/ledger/auth.js';
import { LedgerClient } from '../../../../src/ledger/client.js';
import { createRegistry, type Registry } from '../../../../src/registry/index.js';
import { AmuletRecipe, amuletInstrumentConfig } from '../../../../src/registry/recipes/amulet.js';

export const AUDIENCE = 'https://canton.network.global';
export const SECRET = 'unsafe';
const logger = pino({ level: 'silent' });

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
  /** The headers of each ledger request the registry made (with `registry: true`). */
  ledgerRequestHeaders: Headers[];
  app: ReturnType<typeof createValidatorApp>;
  token(user: string, claims?: JWTPayload, opts?: { secret?: string; alg?: string }): Promise<string>;
  call(method: string, path: string, opts?: { user?: string; token?: string; body?: unknown; headers?: Record<string, string> }): Promise<Response>;
  /** `call` and parse: status, body (JSON when JSON, else text), headers. */
  json(method: string, path: string, opts?: { user?: string; token?: string; body?: unknown }): Promise<{ status: number; body: any; headers: Headers }>;
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
  const ledgerRequestHeaders: Headers[] = [];
  if (opts.registry) {
    const ledger = new LedgerClient({
      baseUrl: 'http://emulated-ledger',
      tokenProvider: noAuth,
      fetch: (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
        ledgerRequestHeaders.push(new Headers(init?.headers));
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
  const json: ValidatorWorld['json'] = async (method, path, o) => {
    const res = await call(method, path, o);
    const text = await res.text();
    const isJson = (res.headers.get('content-type') ?? '').includes('json');
    return { status: res.status, body: isJson && text !== '' ? JSON.parse(text) : text, headers: res.headers };
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
    ledgerRequestHeaders,
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
