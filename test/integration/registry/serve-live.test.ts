/**
 * `serve` follows its ledger live: the registry of `startRegistry` (serve's own wiring, a real
 * loopback LedgerClient) against the emulated ledger over real HTTP and websocket.
 * - A TokenRules created on the ledger is in the registry's answers at once: the index follows
 *   the websocket update stream (the long-poll fallback is given a 10 s idle time here, so only
 *   the websocket can deliver it in time).
 * - A transfer instruction the ledger has archived is a 404 right after the archive was
 *   acknowledged, also when the update stream is slowed down on purpose (the registry then reads
 *   the gap up to the ledger end before answering: it never answers from an index known to be behind).
 * - A ledger that refuses the websocket upgrade is followed by long polls.
 * - With JWT auth, the websocket carries the token as Canton expects (`jwt.token.<JWT>`, `daml.ws.auth`).
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistryConfigSchema } from '../../../src/config/registry.js';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';
import { registerTestTokenV2 } from '../../../src/emulator/templates/test-token-v2/index.js';
import { noAuth } from '../../../src/ledger-client/auth.js';
import { LedgerClient as RegistryLedgerClient } from '../../../src/ledger-client/client.js';
import { pollingUpdates, preferWebSocket, webSocketUpdates, type UpdateStream } from '../../../src/ledger-client/update-stream.js';
import { startRegistry, type RunningRegistry } from '../../../src/serve.js';
import { basic, create, LedgerClient, TT2, type Disclosed } from '../../unit/emulator/templates/test-token-v2/client.js';
import { until } from '../../support/processes.js';
import { errorOf } from '../../support/registry-wire.js';

const silent = pino({ level: 'silent' });
const meta = { values: {} };
const at = (ms: number) => new Date(Date.now() + ms).toISOString();

let emu: RunningEmulator;
let client: LedgerClient;
let admin: string, alice: string, bob: string;

beforeAll(async () => {
  emu = await startEmulator({ config: { port: 0, demoWorld: false, logLevel: 'silent' } });
  registerTestTokenV2(emu.engine.templates);
  client = new LedgerClient((path, init) => fetch(emu.ledgerUrl + path, init));
  admin = await client.allocateParty('adminX2');
  alice = await client.allocateParty('alice');
  bob = await client.allocateParty('bob');
}, 30_000);
afterAll(async () => {
  await emu?.close();
});

function registryConfig(ledgerUrl: string) {
  return RegistryConfigSchema.parse({
    adminParty: admin,
    ledger: { url: ledgerUrl, auth: { kind: 'none' } },
    instruments: [{ id: 'X2', name: 'X two', symbol: 'X2', decimals: 2, recipe: 'splice-test-token-v2' }],
    port: 0,
    host: '127.0.0.1',
    logLevel: 'silent',
  });
}

/** serve's stream, with a long-poll fallback too slow to pass for live (10 s idle polls). */
function liveUpdates(ledgerUrl: string, wrap: (s: UpdateStream) => UpdateStream = (s) => s): UpdateStream {
  const ledger = new RegistryLedgerClient({ baseUrl: ledgerUrl, tokenProvider: noAuth });
  return preferWebSocket({ webSocket: wrap(webSocketUpdates({ baseUrl: ledgerUrl, tokenProvider: noAuth })), poll: pollingUpdates({ ledger, idleMs: 10_000 }), logger: silent });
}

/** Delays every update by `ms` before the index sees it (an index that lags its ledger). */
function delayed(ms: number) {
  return (inner: UpdateStream): UpdateStream => ({
    get transport() {
      return inner.transport;
    },
    follow: (req, onUpdate, signal) => inner.follow(req, async (u) => {
      await new Promise((r) => setTimeout(r, ms));
      await onUpdate(u);
    }, signal),
  });
}

async function post(base: string, path: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const r = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, body: await r.json() };
}

const factoryRequest = () => ({
  choiceArguments: {
    transfer: {
      sender: basic(alice),
      receiver: basic(bob),
      amount: '1.0',
      instrumentId: { admin, id: 'X2' },
      requestedAt: at(-60_000),
      executeBefore: at(3_600_000),
      inputHoldingCids: [],
      meta,
    },
    actors: [alice],
    extraArgs: { context: meta, meta },
  },
});
const acceptPath = (cid: string) => `/registry/transfer-instruction/v2/${cid}/choice-contexts/accept`;

let rules: string;
let rulesD: Disclosed;

/** The admin offers `owner` a mint: a pending transfer instruction (V2). */
const offerMint = (owner: string) => client.offerMint(admin, rules, owner, 'X2');
/** The receiver accepts: the ledger archives the instruction and acknowledges it. */
const acceptOnLedger = (owner: string, cid: string) => client.acceptInstruction(owner, cid, rulesD);

describe('serve follows its ledger over the websocket update stream', () => {
  let running: RunningRegistry;
  beforeAll(async () => {
    running = await startRegistry(registryConfig(emu.ledgerUrl), { logger: silent, follow: { updates: liveUpdates(emu.ledgerUrl) } });
  }, 30_000);
  afterAll(async () => {
    await running?.close();
  });

  it('answers with a TokenRules created on the ledger at once', async () => {
    const before = await post(running.url, '/registry/transfer-instruction/v2/transfer-factory', factoryRequest());
    expect(before.status).toBe(404);
    expect(errorOf(before.body)).toMatch(/No TokenRules contract/);

    const created = await client.ok([admin], [create(TT2.TokenRules, { admin })]);
    const t0 = performance.now();
    let answer = await post(running.url, '/registry/transfer-instruction/v2/transfer-factory', factoryRequest());
    while (answer.status === 404 && performance.now() - t0 < 5000) {
      await new Promise((r) => setTimeout(r, 2));
      answer = await post(running.url, '/registry/transfer-instruction/v2/transfer-factory', factoryRequest());
    }
    const ms = performance.now() - t0;
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    // The factory answer was not built from an index known to be behind, and the stream (not a
    // 10 s poll) brought it: well under a second even on a loaded machine (typically a few ms).
    expect(ms).toBeLessThan(1000);
    expect(running.registry.index.transport).toBe('websocket');
    console.log(`TokenRules in the registry's answers ${ms.toFixed(1)} ms after the ledger acknowledged it`);
    rules = (created.events[0] as { CreatedEvent: { contractId: string } }).CreatedEvent.contractId;
    rulesD = await client.disclosed(admin, rules);
  });

  it('answers 404 for a transfer instruction right after its archive was acknowledged', async () => {
    for (let i = 0; i < 10; i++) {
      const cid = await offerMint(alice);
      const live = await post(running.url, acceptPath(cid), {});
      expect(live.status, JSON.stringify(live.body)).toBe(200);
      await acceptOnLedger(alice, cid);
      const gone = await post(running.url, acceptPath(cid), {});
      expect(gone.status, JSON.stringify(gone.body)).toBe(404);
      expect(errorOf(gone.body)).toMatch(/not found/);
    }
  });

  it('exports how it follows the ledger and its lag on /metrics', async () => {
    const text = await (await fetch(`${running.url}/metrics`)).text();
    expect(text).toMatch(/^token_registry_contract_index_follows_websocket 1$/m);
    expect(text).toMatch(/^token_registry_contract_index_lag_offsets \d+$/m);
    const count = /^token_registry_contract_index_apply_delay_seconds_count (\d+)$/m.exec(text);
    expect(Number(count?.[1])).toBeGreaterThan(10);
  });
});

describe('an index whose update stream lags by 300 ms', () => {
  let running: RunningRegistry;
  beforeAll(async () => {
    running = await startRegistry(registryConfig(emu.ledgerUrl), { logger: silent, follow: { updates: liveUpdates(emu.ledgerUrl, delayed(300)) } });
  }, 30_000);
  afterAll(async () => {
    await running?.close();
  });

  it('still never answers for an instruction the ledger archived: it reads the gap to the ledger end first', async () => {
    for (let i = 0; i < 3; i++) {
      const cid = await offerMint(bob);
      const live = await post(running.url, acceptPath(cid), {});
      expect(live.status, JSON.stringify(live.body)).toBe(200);
      await acceptOnLedger(bob, cid);
      const gone = await post(running.url, acceptPath(cid), {});
      expect(gone.status, JSON.stringify(gone.body)).toBe(404);
    }
  });
});

describe('a ledger node that refuses the websocket upgrade', () => {
  let server: Server;
  let running: RunningRegistry;
  beforeAll(async () => {
    // The same ledger's HTTP API on another port, answering every upgrade with a plain 404 (as a
    // node or proxy without websockets does).
    server = createServer(getRequestListener(emu.app.fetch));
    server.on('upgrade', (_req, socket) => socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const ledger = new RegistryLedgerClient({ baseUrl: url, tokenProvider: noAuth });
    const updates = preferWebSocket({ webSocket: webSocketUpdates({ baseUrl: url, tokenProvider: noAuth }), poll: pollingUpdates({ ledger, idleMs: 100 }), logger: silent });
    running = await startRegistry(registryConfig(url), { logger: silent, follow: { updates } });
  }, 30_000);
  afterAll(async () => {
    await running?.close();
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
  });

  it('is followed by long polls', async () => {
    const cid = await offerMint(alice);
    await until(async () => (await post(running.url, acceptPath(cid), {})).status === 200, 10_000, 'the polled index to have the instruction');
    expect(running.registry.index.transport).toBe('poll');
    const offset = running.registry.index.currentOffset;
    await acceptOnLedger(alice, cid);
    expect((await post(running.url, acceptPath(cid), {})).status).toBe(404);
    await until(() => running.registry.index.currentOffset > offset, 10_000, 'the polls to bring the archive');
  });
});

describe('a ledger node with JWT auth', () => {
  const SECRET = 'live-test-secret';
  const AUDIENCE = 'https://daml.com/jwt/aud/participant/live';
  let jwtEmu: RunningEmulator;
  let running: RunningRegistry;
  beforeAll(async () => {
    jwtEmu = await startEmulator({ config: { port: 0, logLevel: 'silent', auth: { mode: 'jwt', hs256Secret: SECRET, targetAudience: AUDIENCE } } });
    const tokenAdmin = jwtEmu.seeded!.parties.find((p) => p.hint === 'token-admin')!.party;
    const config = RegistryConfigSchema.parse({
      adminParty: tokenAdmin,
      ledger: { url: jwtEmu.ledgerUrl, auth: { kind: 'hs256', secret: SECRET, userId: 'token-admin', audience: AUDIENCE } },
      instruments: [{ id: 'TT2-USD', name: 'Test Token Two (USD)', symbol: 'TUSD', decimals: 2, recipe: 'splice-test-token-v2' }],
      port: 0,
      host: '127.0.0.1',
      logLevel: 'silent',
    });
    running = await startRegistry(config, { logger: silent });
  }, 30_000);
  afterAll(async () => {
    await running?.close();
    await jwtEmu?.close();
  });

  it('accepts the token the websocket carries in its subprotocols', async () => {
    await until(() => jwtEmu.streams.size === 1, 5000, 'the registry to subscribe');
    // A rejected token would end the stream with an error frame (the index then leaves ready).
    await new Promise((r) => setTimeout(r, 300));
    expect(jwtEmu.streams.size).toBe(1);
    expect(running.registry.index.state).toBe('ready');
    expect(running.registry.index.transport).toBe('websocket');
  });
});
