/**
 * `serve` follows its ledger, with real processes: the emulated ledger (`emulate`) and `serve`
 * (sharing a real redis-server) each run as their own process. The ledger is killed, restarted
 * empty, then restarted with different content on the same port, while `serve` runs:
 * - `serve` goes unready (/readyz 503) while the ledger is down and while it reloads (an empty
 *   ledger, without the token's packages, keeps it reloading: 503, nothing of the old ledger);
 * - after it is ready again, what it answers is valid on the new ledger: a transfer built from
 *   its factory and disclosed contracts is submitted to the new ledger and succeeds;
 * - no contract of the old ledger is served: the old transfer instruction's id (cached in Redis
 *   under the old ledger's namespace) is a 404, although the new ledger reuses contract ids (same
 *   seed, so the same id sequence) for other contracts.
 * Last: a ledger whose auth rejects serve's credentials makes `serve` exit with a clear message.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noAuth } from '../../../src/ledger-client/auth.js';
import { LedgerClient } from '../../../src/ledger-client/client.js';
import type { TokenPayload } from '../../../src/emulator/templates/test-token-v2/holding.js';
import { TestTokenV2Templates } from '../../../src/registry/recipes/test-token-v2.js';
import { freePort, startMain, until, type NodeProcess } from '../../support/processes.js';
import { startRedisServer, type RedisServer } from '../../support/redis-server.js';
import { contextOf, errorOf, factoryOf, outputCid, outputTag } from '../../support/registry-wire.js';
import { walletExercise } from '../../support/wallet-submit.js';

const dir = mkdtempSync(join(tmpdir(), 'tr-follow-'));
const TRANSFER_FACTORY_V2 = '#splice-api-token-transfer-instruction-v2:Splice.Api.Token.TransferInstructionV2:TransferFactory';
const TRANSFER_INSTRUCTION_V2 = '#splice-api-token-transfer-instruction-v2:Splice.Api.Token.TransferInstructionV2:TransferInstruction';
const noMeta = { values: {} };

function file(name: string, value: unknown): string {
  const p = join(dir, name);
  writeFileSync(p, JSON.stringify(value));
  return p;
}
const parties = [{ hint: 'token-admin' }, { hint: 'alice' }, { hint: 'bob' }];
const tt2 = (holdings: Array<{ owner: string; amount: string }>) => ({
  token: 'splice-test-token-v2',
  admin: 'token-admin',
  id: 'TT2',
  name: 'Test token two',
  symbol: 'TT2',
  decimals: 2,
  holdings,
});
/**
 * The first world, and a different one: other holdings (more of them, so its ledger end is past
 * the first ledger's), hence the same contract ids name other contracts.
 */
const world1 = file('world1.json', { parties, instruments: [tt2([{ owner: 'alice', amount: '100' }])] });
const world2 = file('world2.json', {
  parties,
  instruments: [tt2(['7', '8', '9', '10', '11', '12'].map((amount) => ({ owner: 'bob', amount })).concat([{ owner: 'alice', amount: '60' }]))],
});

let redis: RedisServer;
let ledgerPort: number;
let ledgerUrl: string;
let ledger: NodeProcess | undefined;
let serve: NodeProcess | undefined;
let serveUrl: string;
let admin: string;
let alice: string;
let bob: string;

async function startLedger(env: Record<string, string>): Promise<NodeProcess> {
  const p = startMain(['emulate'], { PORT: String(ledgerPort), REGISTRY_PORT: '0', SCAN_PORT: '0', VALIDATOR_PORT: '0', ADMIN_PORT: '0', LOG_LEVEL: 'warn', ...env });
  await p.waitFor(/token-registry emulator ready/, 30_000);
  return p;
}

const readyz = async () => (await fetch(`${serveUrl}/readyz`)).status;

/** serve's answer: its status and JSON body (read with registry-wire's `factoryOf`, `contextOf`, `errorOf`). */
async function post(path: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const r = await fetch(`${serveUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, body: await r.json() };
}

/** The wallet's side: submits to the ledger process over HTTP. */
const exercise = walletExercise({ request: (path, init) => fetch(`${ledgerUrl}${String(path)}`, init) }, 'follow');

async function holdingOf(owner: string): Promise<string> {
  const client = new LedgerClient({ baseUrl: ledgerUrl, tokenProvider: noAuth });
  const acs = await client.activeContracts({ parties: [owner], templateIds: [`#${TestTokenV2Templates.Token}`] });
  const mine = acs.contracts.filter((c) => {
    // a Token's create argument (one-step from its LF JSON)
    const { holding } = c.createdEvent.createArgument as TokenPayload;
    return holding.account.owner === owner && holding.lock === null;
  });
  expect(mine.length).toBeGreaterThan(0);
  return mine[0]!.createdEvent.contractId;
}

/** alice offers bob `amount` through serve's factory, submitted to the current ledger. */
async function offer(amount: string): Promise<string> {
  const args = {
    transfer: {
      sender: { owner: alice, provider: null, id: '' },
      receiver: { owner: bob, provider: null, id: '' },
      amount,
      instrumentId: { admin, id: 'TT2' },
      requestedAt: new Date(Date.now() - 60_000).toISOString(),
      executeBefore: new Date(Date.now() + 3_600_000).toISOString(),
      inputHoldingCids: [await holdingOf(alice)],
      meta: noMeta,
    },
    actors: [alice],
    extraArgs: { context: { values: {} }, meta: noMeta },
  };
  const answer = await post('/registry/transfer-instruction/v2/transfer-factory', { choiceArguments: args });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  const f = factoryOf(answer.body);
  const result = await exercise([alice], TRANSFER_FACTORY_V2, f.factoryId, 'TransferFactory_Transfer', { ...args, extraArgs: { context: f.choiceContext.choiceContextData, meta: noMeta } }, f.choiceContext.disclosedContracts);
  expect(outputTag(result)).toBe('TransferInstructionResult_Pending');
  return outputCid(result, 'transferInstructionCid');
}

const acceptPath = (cid: string) => `/registry/transfer-instruction/v2/${cid}/choice-contexts/accept`;

/** bob accepts with serve's accept context: proves the context's disclosed contracts are live. */
async function accept(cid: string): Promise<void> {
  const answer = await post(acceptPath(cid), {});
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  const ctx = contextOf(answer.body);
  const done = await exercise([bob], TRANSFER_INSTRUCTION_V2, cid, 'TransferInstruction_Accept', { actors: [bob], extraArgs: { context: ctx.choiceContextData, meta: noMeta } }, ctx.disclosedContracts);
  expect(outputTag(done)).toBe('TransferInstructionResult_Completed');
}

beforeAll(async () => {
  redis = await startRedisServer();
  ledgerPort = await freePort();
  ledgerUrl = `http://127.0.0.1:${ledgerPort}`;
  ledger = await startLedger({ DEMO_WORLD_FILE: world1 });
  const out = ledger.output();
  admin = out.match(/token-admin::[0-9a-f]+/)![0];
  alice = out.match(/alice::[0-9a-f]+/)![0];
  bob = out.match(/bob::[0-9a-f]+/)![0];
  const port = await freePort();
  serveUrl = `http://127.0.0.1:${port}`;
  const config = file('registry.json', {
    adminParty: admin,
    ledger: { url: ledgerUrl, auth: { kind: 'none' } },
    instruments: [{ id: 'TT2', name: 'Test token two', symbol: 'TT2', decimals: 2, recipe: 'splice-test-token-v2' }],
    port,
    host: '127.0.0.1',
  });
  serve = startMain(['serve'], { REGISTRY_CONFIG_FILE: config, REDIS_URL: redis.url, LOG_LEVEL: 'info' });
  await serve.waitFor(/token-registry serving/, 30_000);
  await until(async () => (await readyz()) === 200, 15_000, 'serve to be ready');
}, 60_000);

afterAll(async () => {
  await serve?.kill();
  await ledger?.kill();
  await redis?.stop();
});

describe('serve follows its ledger (real processes)', () => {
  let oldOffer: string;

  it('serves the first ledger', async () => {
    oldOffer = await offer('30');
    // served (and cached in Redis) while the first ledger runs
    expect((await post(acceptPath(oldOffer), {})).status).toBe(200);
  }, 30_000);

  it('reloads when the ledger comes back with other content; what it serves then is valid there', async () => {
    await ledger!.kill();
    await until(async () => (await readyz()) === 503, 10_000, '/readyz to say 503 once the ledger is gone');
    expect(serve!.child.exitCode).toBeNull();
    ledger = await startLedger({ DEMO_WORLD_FILE: world2 });
    // Same seed and participant id, a ledger end past serve's offset: only the ledger's first
    // update (its record time) tells the new ledger from the old one.
    await until(() => /reloading its snapshot/.test(serve!.output()), 15_000, 'serve to notice the new ledger');
    expect(serve!.output()).toMatch(/first update changed/);
    await until(async () => (await readyz()) === 200, 15_000, 'serve to reload on the new ledger');

    // The old offer's id is, on this ledger, some other contract (or none): never the old offer.
    const stale = await post(acceptPath(oldOffer), {});
    expect(stale.status, JSON.stringify(stale.body)).toBe(404);
    // A transfer built from serve's answers succeeds on the new ledger, and so does the accept.
    const fresh = await offer('25');
    await accept(fresh);
  }, 40_000);

  it('goes unready when the ledger comes back empty, and ready again when it has content', async () => {
    const before = serve!.output().length;
    await ledger!.kill();
    await until(async () => (await readyz()) === 503, 10_000, '/readyz to say 503 once the ledger is gone');

    ledger = await startLedger({ DEMO_WORLD: 'false' });
    // The empty ledger is behind serve's offset: serve drops its index and reloads; the ledger
    // has not even the token's packages, so the reload keeps failing (retried with backoff) and
    // serve stays unready, answering 503 rather than anything of the old ledger.
    await until(() => /reloading its snapshot/.test(serve!.output().slice(before)), 15_000, 'serve to notice the reset');
    await until(() => /TEMPLATES_OR_INTERFACES_NOT_FOUND/.test(serve!.output().slice(before)), 10_000, 'the reload to meet the empty ledger');
    expect(await readyz()).toBe(503);
    const gone = await post(acceptPath(oldOffer), {});
    expect(gone.status, JSON.stringify(gone.body)).toBe(503);
    expect(errorOf(gone.body)).toMatch(/not ready/);

    await ledger!.kill();
    ledger = await startLedger({ DEMO_WORLD_FILE: world1 });
    await until(async () => (await readyz()) === 200, 15_000, 'serve to load the ledger once it has content');
    await accept(await offer('10'));
  }, 50_000);

  it('exits with a clear message when the ledger rejects its credentials', async () => {
    await ledger!.kill();
    ledger = await startLedger({ DEMO_WORLD_FILE: world2, LEDGER_AUTH: 'jwt', LEDGER_AUTH_HS256_SECRET: 'the-ledger-secret' });
    // serve sends no token: after the restart the node answers 401 and serve gives up.
    const code = await serve!.exited(20_000);
    expect(code).toBe(1);
    expect(serve!.output()).toMatch(/configuration error: the ledger node http:\/\/127\.0\.0\.1:\d+ rejected the registry's access token \(401/);
  }, 40_000);
});
