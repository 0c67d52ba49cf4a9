/**
 * The emulated stack as operated: every service (ledger, registry, scan, validator) serves its own
 * Prometheus metrics, the ledger counts websocket subscribers, and CORS_ORIGINS governs the
 * registries (scan's own API keeps answering CORS as Splice's scan does, for any origin).
 */
import { pino } from 'pino';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type RunningStack } from '../../../src/stack.js';
import { parsePrometheusText, sampleValue } from '../../support/prometheus-text.js';

const WALLET = 'https://wallet.example.com';
let stack: RunningStack;

beforeAll(async () => {
  stack = await startStack({
    config: { port: 0, registryPort: 0, scanPort: 0, validatorPort: 0, logLevel: 'silent', corsOrigins: [WALLET] },
    logger: pino({ level: 'silent' }),
  });
});
afterAll(async () => {
  await stack?.close();
});

async function scrape(base: string) {
  const r = await fetch(`${base}/metrics`);
  expect(r.status).toBe(200);
  return parsePrometheusText(await r.text());
}

describe('metrics on every service of the emulated stack', () => {
  it('ledger, registry, scan and validator each report their own requests', async () => {
    const services = { ledger: stack.ledgerUrl, registry: stack.registryUrl!, scan: stack.scanUrl!, validator: stack.validatorUrl! };
    await fetch(`${stack.ledgerUrl}/v2/version`);
    await fetch(`${stack.registryUrl}/registry/metadata/v1/info`);
    await fetch(`${stack.scanUrl}/registry/metadata/v1/info`);
    await fetch(`${stack.validatorUrl}/api/validator/version`);
    for (const [service, url] of Object.entries(services)) {
      const f = await scrape(url);
      const samples = f.get('token_registry_http_requests_total')!.samples;
      expect(samples.length, service).toBeGreaterThan(0);
      expect(samples.every((s) => s.labels.service === service), service).toBe(true);
    }
    expect(sampleValue(await scrape(stack.ledgerUrl), 'token_registry_http_requests_total', { route: '/v2/version', status: '200' })).toBeGreaterThanOrEqual(1);
    const reg = await scrape(stack.registryUrl!);
    expect(sampleValue(reg, 'token_registry_http_requests_total', { route: '/registry/metadata/v1/info', status: '200' })).toBe(1);
    // the registry reads the emulated ledger in process: its calls are counted all the same
    expect(sampleValue(reg, 'token_registry_ledger_requests_total', { outcome: '200' })).toBeGreaterThanOrEqual(1);
    expect(sampleValue(reg, 'token_registry_contract_index_lag_offsets')).toBe(0);
    expect(sampleValue(await scrape(stack.scanUrl!), 'token_registry_http_requests_total', { route: '/registry/metadata/v1/info' })).toBe(1);
    expect(sampleValue(await scrape(stack.validatorUrl!), 'token_registry_http_requests_total', { route: '/api/validator/version' })).toBe(1);
  });

  it('counts the ledger’s websocket subscribers while they are open', async () => {
    const ws = new WebSocket(`${stack.ledgerUrl.replace('http', 'ws')}/v2/updates`, ['daml.ws.auth']);
    await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
    expect(sampleValue(await scrape(stack.ledgerUrl), 'token_registry_ledger_websocket_subscribers')).toBe(1);
    ws.close();
    await new Promise((r) => ws.once('close', r));
    await new Promise((r) => setTimeout(r, 50));
    expect(sampleValue(await scrape(stack.ledgerUrl), 'token_registry_ledger_websocket_subscribers')).toBe(0);
  });
});

describe('CORS in the emulated stack', () => {
  const preflight = (url: string, origin: string) =>
    fetch(url, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' } });

  it('the registries follow CORS_ORIGINS', async () => {
    for (const base of [stack.registryUrl!, stack.scanUrl!]) {
      const ok = await preflight(`${base}/registry/transfer-instruction/v1/transfer-factory`, WALLET);
      expect(ok.status).toBe(204);
      expect(ok.headers.get('access-control-allow-origin')).toBe(WALLET);
      expect((await preflight(`${base}/registry/transfer-instruction/v1/transfer-factory`, 'https://other.example')).status).toBe(403);
    }
  });

  it('scan’s own API keeps its any-origin CORS', async () => {
    const r = await preflight(`${stack.scanUrl}/api/scan/v0/dso`, 'https://other.example');
    expect(r.status).toBeLessThan(300);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('health probes of the emulated registry', () => {
  it('answers /livez and /readyz on the registry port as serve does, and its 404 stays JSON', async () => {
    expect((await fetch(`${stack.registryUrl}/livez`)).status).toBe(200);
    const ready = await fetch(`${stack.registryUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.text()).toBe('ready\n');
    const missing = await fetch(`${stack.registryUrl}/nothing-here`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 'No such endpoint: GET /nothing-here' });
    const reg = await scrape(stack.registryUrl!);
    expect(sampleValue(reg, 'token_registry_http_requests_total', { route: '/readyz', status: '200' })).toBe(1);
  });
});
