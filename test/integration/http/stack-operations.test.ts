/**
 * The emulated stack as operated: every service (ledger, registry, scan, validator) serves its own
 * Prometheus metrics, the ledger counts websocket subscribers, and CORS_ORIGINS governs the
 * registries (scan's own API keeps answering CORS as Splice's scan does, for any origin);
 * `Expect: 100-continue` is answered without the 100 when the request is refused before its body is
 * read, and the errors Node would write itself come in each API's own shape.
 */
import { pino } from 'pino';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type RunningStack } from '../../../src/stack.js';
import { parsePrometheusText, sampleValue } from '../../support/prometheus-text.js';
import { exchange, openFrom, until } from '../../support/raw-http.js';

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

describe('Expect: 100-continue, and the answers Node would word itself, on every service', () => {
  const json = /^application\/json/;
  const text = /^text\/plain/;
  const services = () => [
    { name: 'ledger', base: stack.ledgerUrl, path: '/v2/commands/submit-and-wait', type: text },
    { name: 'registry', base: stack.registryUrl!, path: '/registry/transfer-instruction/v1/transfer-factory', type: json },
    { name: 'scan', base: stack.scanUrl!, path: '/api/scan/v0/amulet-rules', type: json },
    { name: 'validator', base: stack.validatorUrl!, path: '/api/validator/v0/wallet/transfer-offers', type: json },
  ];
  const head = (path: string, length: number) =>
    `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: ${length}\r\n\r\n`;
  const contentType = (answer: string) => /\r\ncontent-type: ([^\r]*)/i.exec(answer)?.[1] ?? '';

  it('a declared length over the limit gets its 413 at once, no 100 Continue, and the connection closes', async () => {
    for (const s of services()) {
      const answer = await exchange(s.base, head(s.path, 1e12), 5_000);
      expect(answer, s.name).toMatch(/^HTTP\/1\.1 413 /);
      expect(answer, s.name).not.toMatch(/100 Continue/);
      expect(answer, s.name).toMatch(/\r\nconnection: close\r\n/i);
      expect(contentType(answer), s.name).toMatch(s.type);
    }
  });

  it('a body within the limit: 100 Continue once the handler reads it, then the answer', async () => {
    // the ledger and scan read these bodies; the answers show they were read
    for (const s of services().filter((x) => x.name === 'ledger' || x.name === 'scan')) {
      const p = await openFrom(s.base, '127.0.0.1');
      p.socket.write(head(s.path, 2));
      await until(() => p.received().includes('\r\n\r\n'), 5_000, `${s.name}: 100 Continue`);
      expect(p.received(), s.name).toBe('HTTP/1.1 100 Continue\r\n\r\n');
      p.socket.write('{}');
      await until(() => /\r\n\r\n[\s\S]*\r\n\r\n/.test(p.received()), 5_000, `${s.name}: the answer`);
      const final = p.received().slice('HTTP/1.1 100 Continue\r\n\r\n'.length);
      expect(final, s.name).toMatch(/^HTTP\/1\.1 (200|400) /);
      expect(final, s.name).not.toMatch(/\r\nconnection: close\r\n/i);
      p.socket.destroy();
    }
    // the validator refuses a request without a token before reading: no 100, the connection closes
    const refused = await exchange(stack.validatorUrl!, head('/api/validator/v0/wallet/transfer-offers', 2), 5_000);
    expect(refused).toMatch(/^HTTP\/1\.1 401 /);
    expect(refused).toMatch(/\r\nconnection: close\r\n/i);
    expect(refused).not.toMatch(/100 Continue/);
  });

  it('no Host on HTTP/1.1, no Host on HTTP/1.0, an Expect other than 100-continue: 400, 400, 417 in the API’s shape', async () => {
    for (const s of services()) {
      for (const [request, status] of [
        [`GET ${s.path} HTTP/1.1\r\n\r\n`, 400],
        [`GET ${s.path} HTTP/1.0\r\n\r\n`, 400],
        [`GET ${s.path} HTTP/1.1\r\nHost: x\r\nExpect: something-else\r\n\r\n`, 417],
      ] as const) {
        const answer = await exchange(s.base, request, 5_000);
        expect(answer, `${s.name}: ${request}`).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
        expect(contentType(answer), `${s.name}: ${request}`).toMatch(s.type);
        const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
        if (s.type === json) expect(JSON.parse(body), `${s.name}: ${request}`).toEqual({ error: expect.any(String) });
        else expect(body.length, `${s.name}: ${request}`).toBeGreaterThan(0);
      }
    }
  });

  it('the validator’s 405 and 404 are {"error": ...} on the wire, as scan’s are', async () => {
    for (const base of [stack.validatorUrl!, stack.scanUrl!]) {
      const path = base === stack.scanUrl ? '/api/scan/v0/amulet-rules' : '/api/validator/v0/wallet/transfer-offers';
      const wrong = await fetch(`${base}${path}`, { method: 'PUT' });
      expect(wrong.status, base).toBe(405);
      expect(wrong.headers.get('content-type'), base).toMatch(json);
      expect(await wrong.json(), base).toEqual({ error: expect.stringMatching(/^HTTP method not allowed, supported methods: /) });
      const missing = await fetch(`${base}${path.replace(/[^/]+$/, 'no-such-endpoint')}`);
      expect(missing.status, base).toBe(404);
      expect(await missing.json(), base).toEqual({ error: expect.stringMatching(/^The requested resource could not be found: /) });
    }
  });
});
