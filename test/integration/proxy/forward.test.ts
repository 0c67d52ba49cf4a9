/**
 * Proxy mode over real loopback HTTP: a second emulator instance is the upstream
 * ledger, with JWT auth on, so the Authorization header must make it through. Also an upstream
 * that is down (a closed port), one that never answers, and a small node:http stand-in for scan.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';
import { DEFAULT_DEMO_WORLD } from '../../../src/emulator/world/seed.js';
import { selfSignedHs256 } from '../../../src/ledger-client/auth.js';
import { LedgerClient } from '../../../src/ledger-client/client.js';
import { createProxyApp } from '../../../src/proxy/forward.js';

const SECRET = 'proxy-test-secret';
const AUDIENCE = 'https://proxy.example';
const ASSET = '#acme-token:Acme.Token:Asset';
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

let upstream: RunningEmulator;
let admin: string;
let bearer: string;
/** The participant admin (LocalNet's `ledger-api-user`): listing parties needs admin rights. */
let operatorBearer: string;
const closers: Array<() => Promise<void>> = [];

async function listen(app: Hono): Promise<string> {
  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    s.once('error', reject);
  });
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        // an http.Server (what serve() makes here) has closeAllConnections; the http2 servers of ServerType do not
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function nodeServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** A port nothing listens on: bind one, note it, close it. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  upstream = await startEmulator({
    world: { ...DEFAULT_DEMO_WORLD, instruments: [] },
    config: {
      port: 0,
      logLevel: 'silent',
      auth: { mode: 'jwt', hs256Secret: SECRET, targetAudience: AUDIENCE },
      declaredTemplates: [
        { packageName: 'acme-token', moduleName: 'Acme.Token', entityName: 'Asset', signatories: ['admin'], observers: ['owner'], implements: [] },
      ],
    },
  });
  admin = upstream.seeded!.parties.find((p) => p.hint === 'token-admin')!.party;
  bearer = `Bearer ${await selfSignedHs256({ secret: SECRET, userId: 'token-admin', audience: AUDIENCE }).token()}`;
  operatorBearer = `Bearer ${await selfSignedHs256({ secret: SECRET, userId: 'ledger-api-user', audience: AUDIENCE }).token()}`;
});

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await upstream?.close();
});

describe('ledger proxy in front of a second emulator', () => {
  let proxyUrl: string;
  beforeAll(async () => {
    proxyUrl = await listen(createProxyApp({ api: 'ledger', upstream: { url: upstream.ledgerUrl, timeoutMs: 5_000 } }));
  });

  const call = (base: string, path: string, init: RequestInit = {}) =>
    fetch(`${base}${path}`, { ...init, headers: { authorization: bearer, 'content-type': 'application/json', ...(init.headers as object) } });

  it('version, parties, a create, and the ACS, all through the proxy', async () => {
    const version = await call(proxyUrl, '/v2/version');
    expect(version.status).toBe(200);
    expect(((await version.json()) as { version: string }).version).toMatch(/^3\./);

    const parties = (await (await call(proxyUrl, '/v2/parties', { headers: { authorization: operatorBearer } })).json()) as { partyDetails: Array<{ party: string }> };
    expect(parties.partyDetails.map((p) => p.party)).toContain(admin);

    const submit = await call(proxyUrl, '/v2/commands/submit-and-wait-for-transaction', {
      method: 'POST',
      body: JSON.stringify({
        commands: {
          commands: [{ CreateCommand: { templateId: ASSET, createArguments: { admin, owner: admin, amount: '12.5', label: 'via-proxy' } } }],
          commandId: 'proxy-create-1',
          actAs: [admin],
          userId: 'token-admin',
        },
      }),
    });
    expect(submit.status).toBe(200);
    const tx = ((await submit.json()) as { transaction: { events: Array<{ CreatedEvent?: { contractId: string } }> } }).transaction;
    const cid = tx.events[0]!.CreatedEvent!.contractId;
    // the upstream's ledger really changed
    expect(upstream.engine.ledgerEnd()).toBeGreaterThan(0);

    // the production client reads the ACS through the proxy (active-contracts-page, ledger-end, ...)
    const client = new LedgerClient({
      baseUrl: proxyUrl,
      tokenProvider: selfSignedHs256({ secret: SECRET, userId: 'token-admin', audience: AUDIENCE }),
    });
    const set = await client.activeContracts({ parties: [admin], templateIds: [ASSET] });
    const created = set.contracts.find((x) => x.createdEvent.contractId === cid);
    expect(created?.createdEvent.createArgument).toMatchObject({ label: 'via-proxy', amount: '12.5' });
    expect(set.activeAtOffset).toBe(upstream.engine.ledgerEnd());
  });

  it('passes error responses through byte for byte, with their status and content type', async () => {
    const cases: Array<[string, RequestInit]> = [
      // a missing token: the redacted 401
      ['/v2/parties', { headers: { authorization: '' } }],
      // exercising an unknown contract: 404 CONTRACT_NOT_FOUND
      [
        '/v2/commands/submit-and-wait',
        {
          method: 'POST',
          // submit-and-wait takes JsCommands itself (not wrapped like submit-and-wait-for-transaction)
          body: JSON.stringify({
            commands: [{ ExerciseCommand: { templateId: ASSET, contractId: `00${'ab'.repeat(68)}`, choice: 'Archive', choiceArgument: {} } }],
            commandId: 'proxy-missing-1',
            // the error's correlationId is the submission id, generated when absent: fix it
            submissionId: 'proxy-missing-1',
            actAs: [admin],
            userId: 'token-admin',
          }),
        },
      ],
      // malformed JSON: tapir's text/plain 400
      ['/v2/commands/submit-and-wait', { method: 'POST', body: '{"commands": ' }],
      // unknown path: the plain 404
      ['/v2/no-such-endpoint', {}],
      // unknown user: 404 USER_NOT_FOUND
      ['/v2/users/nobody-here', {}],
    ];
    const statuses: number[] = [];
    for (const [path, init] of cases) {
      const headers = { ...(init.headers as object), traceparent: TRACEPARENT };
      const direct = await call(upstream.ledgerUrl, path, { ...init, headers });
      const proxied = await call(proxyUrl, path, { ...init, headers });
      const [d, p] = [Buffer.from(await direct.arrayBuffer()), Buffer.from(await proxied.arrayBuffer())];
      expect(direct.status, path).toBeGreaterThanOrEqual(400);
      statuses.push(direct.status);
      expect(proxied.status, path).toBe(direct.status);
      expect(proxied.headers.get('content-type'), path).toBe(direct.headers.get('content-type'));
      expect(p.equals(d), `${path}: ${p.toString()} vs ${d.toString()}`).toBe(true);
    }
    // the redacted 401, CONTRACT_NOT_FOUND, tapir's text 400, the unknown path, the redacted 403
    expect(statuses).toEqual([401, 404, 400, 404, 403]);
  });
});

describe('ledger proxy with a broken upstream', () => {
  it('answers 503 SERVICE_NOT_RUNNING when the upstream port is closed', async () => {
    const port = await closedPort();
    const proxyUrl = await listen(createProxyApp({ api: 'ledger', upstream: { url: `http://127.0.0.1:${port}`, timeoutMs: 5_000 } }));
    const res = await fetch(`${proxyUrl}/v2/version`, { headers: { traceparent: TRACEPARENT } });
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toMatchObject({
      code: 'SERVICE_NOT_RUNNING',
      errorCategory: 1,
      grpcCodeValue: 14,
      retryInfo: '1 second',
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      context: { reason: 'upstream connection refused' },
    });
  });

  it('answers 504 REQUEST_TIME_OUT within the bound when the upstream never answers', async () => {
    const slow = await nodeServer(() => {
      /* accept the request, never answer */
    });
    const proxyUrl = await listen(createProxyApp({ api: 'ledger', upstream: { url: slow.url, timeoutMs: 300 } }));
    const t0 = Date.now();
    const res = await fetch(`${proxyUrl}/v2/commands/submit-and-wait`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    const elapsed = Date.now() - t0;
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(3_000);
    expect(res.status).toBe(504);
    expect(await res.json()).toMatchObject({ code: 'REQUEST_TIME_OUT', errorCategory: 3, grpcCodeValue: 4, definiteAnswer: null, context: { definite_answer: 'false' } });
  });

  it('aborts a response whose body stalls for longer than the timeout', async () => {
    const stalling = await nodeServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[{"contractEntry":');
    });
    const proxyUrl = await listen(createProxyApp({ api: 'ledger', upstream: { url: stalling.url, timeoutMs: 300 } }));
    const res = await fetch(`${proxyUrl}/v2/state/active-contracts`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(200);
    const t0 = Date.now();
    await expect(res.text()).rejects.toThrow();
    expect(Date.now() - t0).toBeLessThan(3_000);
  });

  it('cuts the upstream exchange when the client hangs up', async () => {
    let upstreamClosed!: () => void;
    const closed = new Promise<void>((resolve) => (upstreamClosed = resolve));
    const slow = await nodeServer((req) => {
      req.socket.on('close', () => upstreamClosed());
    });
    const proxyUrl = await listen(createProxyApp({ api: 'ledger', upstream: { url: slow.url, timeoutMs: 60_000 } }));
    await expect(fetch(`${proxyUrl}/v2/version`, { signal: AbortSignal.timeout(200) })).rejects.toThrow();
    await expect(Promise.race([closed.then(() => 'closed'), new Promise((r) => setTimeout(() => r('still open'), 3_000))])).resolves.toBe('closed');
  });
});

describe('scan proxy in front of a node:http scan stand-in', () => {
  let fakeScan: string;
  const seen: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }> = [];

  beforeAll(async () => {
    const s = await nodeServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        if (req.url === '/api/scan/v0/dso-party-id') {
          res.writeHead(200, { 'content-type': 'application/json', connection: 'keep-alive, x-hop', 'x-hop': 'upstream-only', 'x-end-to-end': 'kept' });
          res.end('{"dso_party_id":"DSO::1220abc"}');
        } else if (req.url?.startsWith('/api/scan/v0/transfer-preapprovals/by-party/')) {
          res.writeHead(404, { 'content-type': 'application/json' });
          res.end('{"error":"No TransferPreapproval found for party: alice::1220"}');
        } else if (req.url === '/api/scan/v1/holdings/state') {
          // chunked, streamed in pieces
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('{"record_time":"2026-01-01T00:00:00Z",');
          setTimeout(() => res.end(`"echo":${body}}`), 20);
        } else {
          res.writeHead(404, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: `The requested resource could not be found: ${req.url}` }));
        }
      });
    });
    fakeScan = s.url;
  });

  it('forwards under /api/scan and passes answers, errors included, unchanged', async () => {
    const proxyUrl = await listen(createProxyApp({ api: 'scan', upstream: { url: `${fakeScan}/api/scan` } }));
    const ok = await fetch(`${proxyUrl}/api/scan/v0/dso-party-id`);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('{"dso_party_id":"DSO::1220abc"}');
    // x-hop is named in the upstream's Connection header: it stops at the proxy
    expect(ok.headers.get('x-hop')).toBeNull();
    expect(ok.headers.get('x-end-to-end')).toBe('kept');

    const missing = await fetch(`${proxyUrl}/api/scan/v0/transfer-preapprovals/by-party/alice%3A%3A1220`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe('{"error":"No TransferPreapproval found for party: alice::1220"}');
    expect(seen.at(-1)!.url).toBe('/api/scan/v0/transfer-preapprovals/by-party/alice%3A%3A1220');

    const body = JSON.stringify({ owner_party_ids: ['alice::1220'], page_size: 10 });
    const holdings = await fetch(`${proxyUrl}/api/scan/v1/holdings/state`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', authorization: 'Bearer scan-ignores-it', traceparent: TRACEPARENT },
    });
    expect(holdings.status).toBe(200);
    expect(await holdings.json()).toEqual({ record_time: '2026-01-01T00:00:00Z', echo: JSON.parse(body) });
    const last = seen.at(-1)!;
    expect(last.method).toBe('POST');
    expect(last.body).toBe(body);
    expect(last.headers.authorization).toBe('Bearer scan-ignores-it');
    expect(last.headers.traceparent).toBe(TRACEPARENT);
    expect(last.headers['content-type']).toBe('application/json');
  });

  it('answers 503 {"error"} when scan is down, and the timeout text when it is slow', async () => {
    const port = await closedPort();
    const down = await listen(createProxyApp({ api: 'scan', upstream: { url: `http://127.0.0.1:${port}/api/scan` } }));
    const r1 = await fetch(`${down}/api/scan/v0/dso`);
    expect(r1.status).toBe(503);
    expect(await r1.json()).toEqual({ error: 'The scan service is unavailable (upstream connection refused). Please retry in a short while.' });

    const slow = await nodeServer(() => {});
    const slowProxy = await listen(createProxyApp({ api: 'validator', upstream: { url: `${slow.url}/api/validator`, timeoutMs: 200 } }));
    const t0 = Date.now();
    const r2 = await fetch(`${slowProxy}/api/validator/v0/wallet/transfer-offers`, { method: 'POST', body: '{}' });
    expect(Date.now() - t0).toBeLessThan(3_000);
    expect(r2.status).toBe(503);
    expect(await r2.json()).toEqual({
      error: `The server is taking too long to respond to the (POST) request at ${slowProxy}/api/validator/v0/wallet/transfer-offers`,
    });
  });
});
