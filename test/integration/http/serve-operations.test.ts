/**
 * `serve` as operated, over real sockets: Prometheus metrics scraped and parsed, the request id
 * returned and propagated to the ledger (the emulated ledger's own access log shows what it
 * received), W3C traceparent propagated, one access-log line per request with no secret in it,
 * CORS for browser wallets (preflight allowed and refused), Redis state, and the docs page.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';
import { loadRegistryConfig, startRegistry, type RunningRegistry } from '../../../src/serve.js';
import { parsePrometheusText, sampleValue } from '../../support/prometheus-text.js';
import { startRedisServer, type RedisServer } from '../../support/redis-server.js';

type Line = Record<string, unknown>;
const WALLET = 'https://wallet.example.com';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const FACTORY = '/registry/transfer-instruction/v1/transfer-factory';

function capture(level: 'info' | 'warn' = 'info') {
  const lines: Line[] = [];
  const raw: string[] = [];
  const logger = pino({ level }, { write: (s: string) => (raw.push(s), lines.push(JSON.parse(s) as Line)) });
  return { logger, lines, raw, requests: () => lines.filter((l) => l.msg === 'request') };
}

let emu: RunningEmulator;
let running: RunningRegistry;
let redis: RedisServer;
const ledgerLog = capture();
const registryLog = capture();

beforeAll(async () => {
  redis = await startRedisServer();
  emu = await startEmulator({ config: { port: 0, logLevel: 'silent' }, logger: ledgerLog.logger });
  const admin = emu.seeded!.parties.find((p) => p.hint === 'token-admin')!.party;
  const dir = mkdtempSync(join(tmpdir(), 'tr-ops-'));
  const file = join(dir, 'registry.json');
  writeFileSync(
    file,
    JSON.stringify({
      adminParty: admin,
      ledger: { url: emu.ledgerUrl, auth: { kind: 'none' } },
      instruments: [{ id: 'TT2-USD', name: 'Test Token Two (USD)', symbol: 'TUSD', decimals: 2, recipe: 'splice-test-token-v2' }],
      port: 0,
      host: '127.0.0.1',
    }),
  );
  const config = loadRegistryConfig({ REGISTRY_CONFIG_FILE: file, CORS_ORIGINS: `${WALLET}, http://localhost:3000`, REDIS_URL: redis.url });
  expect(config.corsOrigins).toEqual([WALLET, 'http://localhost:3000']);
  running = await startRegistry(config, { logger: registryLog.logger });
});
afterAll(async () => {
  await running?.close();
  await emu?.close();
  await redis?.stop();
});

describe('request id and trace context', () => {
  it('returns the caller’s x-request-id and propagates it, with the trace, to the ledger', async () => {
    // The first instruments read computes the total supply from the ledger (an ACS read).
    const r = await fetch(`${running.url}/registry/metadata/v1/instruments`, {
      headers: { 'x-request-id': 'wallet-req-1', traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01` },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-request-id')).toBe('wallet-req-1');
    const atLedger = ledgerLog.requests().filter((l) => l.reqId === 'wallet-req-1');
    expect(atLedger.length).toBeGreaterThanOrEqual(1);
    expect(atLedger[0]).toMatchObject({ traceId: TRACE_ID, method: 'POST', status: 200 });
    expect(String(atLedger[0]!.path)).toMatch(/^\/v2\/state\/active-contracts/);
    // the registry's own line carries the same ids
    expect(registryLog.requests().find((l) => l.reqId === 'wallet-req-1')).toMatchObject({ traceId: TRACE_ID, route: '/registry/metadata/v1/instruments', status: 200 });
  });

  it('generates an id when none (or an unusable one) is sent, on the fast path too', async () => {
    const uuid = /^[0-9a-f-]{36}$/;
    expect((await fetch(`${running.url}/registry/metadata/v1/info`)).headers.get('x-request-id')).toMatch(uuid);
    const post = await fetch(`${running.url}${FACTORY}`, { method: 'POST', body: '{', headers: { 'x-request-id': 'has space' } });
    expect(post.status).toBe(400);
    expect(post.headers.get('x-request-id')).toMatch(uuid);
    const given = await fetch(`${running.url}${FACTORY}`, { method: 'POST', body: '{', headers: { 'x-request-id': 'fast-1' } });
    expect(given.headers.get('x-request-id')).toBe('fast-1');
  });
});

describe('access log', () => {
  it('writes one line per request with route, status and duration, and never a header value', async () => {
    const before = registryLog.requests().length;
    const secret = 'Bearer super-secret-token-value';
    await fetch(`${running.url}/registry/metadata/v1/instruments/TT2-USD?token=query-secret`, { headers: { authorization: secret, 'x-request-id': 'log-1' } });
    await fetch(`${running.url}/nowhere`, { headers: { cookie: 'session=cookie-secret' } });
    const lines = registryLog.requests().slice(before);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ reqId: 'log-1', method: 'GET', route: '/registry/metadata/v1/instruments/:instrumentId', path: '/registry/metadata/v1/instruments/TT2-USD', status: 200, service: 'registry' });
    expect(typeof lines[0]!.ms).toBe('number');
    expect(lines[1]).toMatchObject({ route: 'unmatched', status: 404 });
    const all = registryLog.raw.join('') + ledgerLog.raw.join('');
    for (const s of ['super-secret-token-value', 'query-secret', 'cookie-secret', 'authorization', 'Authorization']) expect(all).not.toContain(s);
  });
});

describe('/metrics', () => {
  it('is valid Prometheus text with requests by route pattern, ledger calls, cache, index lag and Redis state', async () => {
    await fetch(`${running.url}/registry/metadata/v1/instruments/TT2-USD`);
    await fetch(`${running.url}${FACTORY}`, { method: 'POST', body: '{}' });
    const r = await fetch(`${running.url}/metrics`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const f = parsePrometheusText(await r.text());
    const req = (labels: Record<string, string>) => sampleValue(f, 'token_registry_http_requests_total', { service: 'registry', ...labels });
    expect(req({ method: 'GET', route: '/registry/metadata/v1/instruments/:instrumentId', status: '200' })).toBeGreaterThanOrEqual(2);
    expect(req({ method: 'POST', route: FACTORY, status: '400' })).toBeGreaterThanOrEqual(3);
    expect(req({ method: 'GET', route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
    // raw paths never become labels
    expect([...f.get('token_registry_http_requests_total')!.samples].some((s) => s.labels.route!.includes('TT2-USD'))).toBe(false);
    // the snapshot read at start, by endpoint and outcome
    const ledgerCalls = f.get('token_registry_ledger_requests_total')!.samples;
    expect(ledgerCalls.some((s) => s.labels.endpoint!.startsWith('/v2/state/active-contracts') && s.labels.outcome === '200' && s.value >= 1)).toBe(true);
    expect(ledgerCalls.every((s) => /^\/v2\/[a-z/-]+$/.test(s.labels.endpoint!))).toBe(true);
    expect(sampleValue(f, 'token_registry_ledger_request_duration_seconds_count', { endpoint: ledgerCalls[0]!.labels.endpoint! })).toBeGreaterThanOrEqual(1);
    for (const n of ['hits', 'misses', 'errors']) expect(sampleValue(f, `token_registry_cache_${n}_total`, { backend: 'redis' })).toBeGreaterThanOrEqual(0);
    expect(sampleValue(f, 'token_registry_redis_up')).toBe(1);
    expect(sampleValue(f, 'token_registry_contract_index_lag_offsets')).toBeGreaterThanOrEqual(0);
    expect(sampleValue(f, 'token_registry_contract_index_offset')).toBeGreaterThan(0);
    expect(sampleValue(f, 'token_registry_process_cpu_seconds_total')).toBeGreaterThan(0);
  });

  it('reports Redis down when it is', async () => {
    await redis.stop();
    await new Promise((r) => setTimeout(r, 300));
    const f = parsePrometheusText(await (await fetch(`${running.url}/metrics`)).text());
    expect(sampleValue(f, 'token_registry_redis_up')).toBe(0);
    await redis.restart();
  });

  it('the emulated ledger serves its own metrics, websocket subscribers included', async () => {
    const f = parsePrometheusText(await (await fetch(`${emu.ledgerUrl}/metrics`)).text());
    expect(sampleValue(f, 'token_registry_http_requests_total', { service: 'ledger', route: '/v2/updates', status: '200' })).toBeGreaterThanOrEqual(1);
    // serve's contract index follows the ledger over the websocket update stream
    expect(sampleValue(f, 'token_registry_ledger_websocket_subscribers')).toBe(1);
  });
});

describe('CORS (browser wallets call the registry directly)', () => {
  it('answers a preflight from an allowed origin and tags its requests, fast path included', async () => {
    const pre = await fetch(`${running.url}${FACTORY}`, {
      method: 'OPTIONS',
      headers: { origin: WALLET, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(WALLET);
    expect(pre.headers.get('access-control-allow-methods')).toContain('POST');
    expect(pre.headers.get('access-control-allow-headers')).toBe('content-type');
    const post = await fetch(`${running.url}${FACTORY}`, { method: 'POST', body: '{}', headers: { origin: WALLET, 'content-type': 'application/json' } });
    expect(post.headers.get('access-control-allow-origin')).toBe(WALLET);
    expect(post.headers.get('access-control-expose-headers')).toContain('x-request-id');
    const get = await fetch(`${running.url}/registry/metadata/v1/info`, { headers: { origin: 'http://localhost:3000' } });
    expect(get.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
  });

  it('refuses a preflight from another origin, and gives its requests no allow-origin', async () => {
    const pre = await fetch(`${running.url}${FACTORY}`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(pre.status).toBe(403);
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
    expect(((await pre.json()) as { error: string }).error).toMatch(/not allowed/);
    const get = await fetch(`${running.url}/registry/metadata/v1/info`, { headers: { origin: 'https://evil.example' } });
    expect(get.status).toBe(200);
    expect(get.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('docs', () => {
  it('serves the API reference page and the document it renders', async () => {
    const page = await fetch(`${running.url}/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('openapi.json');
    expect((await fetch(`${running.url}/openapi.json`)).status).toBe(200);
  });
});
