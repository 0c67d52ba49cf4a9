import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createProxyApp, stripHopByHop, upstreamTarget, type ProxyLogger } from '../../../src/proxy/forward.js';

interface Seen {
  url: string;
  init: RequestInit;
  headers: Headers;
  body: string | null;
}

/** A fake fetch that records what it was asked and answers with `respond`. */
function fakeFetch(respond: (seen: Seen) => Response | Promise<Response> = () => new Response('{}', { headers: { 'content-type': 'application/json' } })) {
  const calls: Seen[] = [];
  const f = (async (input: string | URL | Request, init?: RequestInit) => {
    const i = init ?? {};
    const body = i.body == null ? null : await new Response(i.body as ConstructorParameters<typeof Response>[0]).text();
    const seen = { url: String(input), init: i, headers: new Headers(i.headers), body };
    calls.push(seen);
    return respond(seen);
  }) as typeof fetch;
  return { fetch: f, calls };
}

/** A fetch that never answers but honours its abort signal, as undici does. */
const hangingFetch = (async (_input: string | URL | Request, init?: RequestInit) =>
  new Promise<Response>((_resolve, reject) => {
    init?.signal?.addEventListener('abort', () => reject(init.signal!.reason), { once: true });
  })) as typeof fetch;

function networkError(code: string): TypeError {
  return new TypeError('fetch failed', { cause: Object.assign(new Error(`connect ${code} 10.0.0.7:7575`), { code }) });
}

function capturingLogger() {
  const lines: string[] = [];
  const log = (obj: object, msg: string) => lines.push(JSON.stringify({ ...obj, msg }));
  const logger: ProxyLogger = { debug: log, warn: log, error: log };
  return { logger, lines };
}

const LEDGER = 'http://participant.internal:7575';
const SCAN = 'https://scan.sv.example/api/scan';

describe('path joining', () => {
  it('appends the path after the mount to the upstream base URL', () => {
    expect(upstreamTarget(LEDGER, '', '/v2/version', '')).toBe(`${LEDGER}/v2/version`);
    expect(upstreamTarget('http://gw.example/ledger-api/', '', '/v2/parties', '?filter-party=a')).toBe(
      'http://gw.example/ledger-api/v2/parties?filter-party=a',
    );
    expect(upstreamTarget(SCAN, '/api/scan', '/api/scan/v0/dso', '')).toBe(`${SCAN}/v0/dso`);
    expect(upstreamTarget(SCAN, '/api/scan', '/api/scan', '?x=1')).toBe(`${SCAN}?x=1`);
  });

  it('does not match a path that merely starts with the mount text', () => {
    expect(upstreamTarget(SCAN, '/api/scan', '/api/scanner/v0/dso', '')).toBeNull();
    expect(upstreamTarget(SCAN, '/api/scan', '/v0/dso', '')).toBeNull();
  });

  it('forwards the raw (percent-encoded) path and query unchanged', async () => {
    const f = fakeFetch();
    const app = createProxyApp({ api: 'ledger', upstream: { url: LEDGER }, fetch: f.fetch });
    await app.request('/v2/users/alice%40corp/rights?x=a%20b&y=%2F');
    expect(f.calls[0]!.url).toBe(`${LEDGER}/v2/users/alice%40corp/rights?x=a%20b&y=%2F`);
  });

  it('works mounted inside another Hono app at the mount path', async () => {
    const f = fakeFetch();
    const outer = new Hono();
    outer.route('/api/scan', createProxyApp({ api: 'scan', upstream: { url: SCAN }, fetch: f.fetch }));
    outer.get('/other', (c) => c.text('mine'));
    const res = await outer.request('/api/scan/v0/featured-apps?limit=3');
    expect(res.status).toBe(200);
    expect(f.calls[0]!.url).toBe(`${SCAN}/v0/featured-apps?limit=3`);
    expect(await (await outer.request('/other')).text()).toBe('mine');
  });

  it('answers a path outside the mount with the API\'s own 404, without calling upstream', async () => {
    const f = fakeFetch();
    const scan = createProxyApp({ api: 'scan', upstream: { url: SCAN }, fetch: f.fetch });
    const res = await scan.request('http://proxy.local/api/validator/v0/x');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'The requested resource could not be found: http://proxy.local/api/validator/v0/x' });
    expect(f.calls).toHaveLength(0);
  });

  it('rejects a malformed mount path or upstream URL at construction', () => {
    expect(() => createProxyApp({ api: 'scan', mountPath: '/api/scan/', upstream: { url: SCAN } })).toThrow(/mountPath/);
    expect(() => createProxyApp({ api: 'scan', mountPath: 'api', upstream: { url: SCAN } })).toThrow(/mountPath/);
    expect(() => createProxyApp({ api: 'scan', upstream: { url: 'scan.example' } })).toThrow(/not a URL/);
    expect(() => createProxyApp({ api: 'scan', upstream: { url: 'ftp://scan.example' } })).toThrow(/http or https/);
  });
});

describe('request forwarding', () => {
  it('forwards method, body and end-to-end headers (Authorization included)', async () => {
    const f = fakeFetch();
    const app = createProxyApp({ api: 'ledger', upstream: { url: LEDGER }, fetch: f.fetch });
    const body = JSON.stringify({ commands: { commandId: 'c1' } });
    await app.request('/v2/commands/submit-and-wait', {
      method: 'POST',
      body,
      headers: {
        authorization: 'Bearer secret-token',
        'content-type': 'application/json',
        accept: 'application/json',
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
        'x-request-id': 'r-1',
      },
    });
    const seen = f.calls[0]!;
    expect(seen.init.method).toBe('POST');
    expect(seen.body).toBe(body);
    expect(seen.init.redirect).toBe('manual');
    expect(seen.headers.get('authorization')).toBe('Bearer secret-token');
    expect(seen.headers.get('content-type')).toBe('application/json');
    expect(seen.headers.get('accept')).toBe('application/json');
    expect(seen.headers.get('traceparent')).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    expect(seen.headers.get('x-request-id')).toBe('r-1');
    // upstream bodies come back as sent, never transparently decompressed
    expect(seen.headers.get('accept-encoding')).toBe('identity');
  });

  it('forwards every method; GET and HEAD carry no body', async () => {
    const f = fakeFetch();
    const app = createProxyApp({ api: 'validator', upstream: { url: 'http://v.example/api/validator' }, fetch: f.fetch });
    for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      await app.request('/api/validator/v0/wallet/transfer-offers', { method, body: ['GET', 'HEAD'].includes(method) ? undefined : 'x' });
    }
    expect(f.calls.map((s) => s.init.method)).toEqual(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
    expect(f.calls.map((s) => s.body)).toEqual([null, null, 'x', 'x', 'x', 'x', 'x']);
    expect(f.calls.every((s) => s.url === 'http://v.example/api/validator/v0/wallet/transfer-offers')).toBe(true);
  });

  it('strips hop-by-hop request headers, those named in Connection, Host and Expect', async () => {
    const f = fakeFetch();
    const app = createProxyApp({ api: 'ledger', upstream: { url: LEDGER }, fetch: f.fetch });
    const req = new Request('http://proxy.local/v2/parties', {
      method: 'POST',
      body: '{}',
      headers: {
        connection: 'keep-alive, X-Hop-Secret',
        'keep-alive': 'timeout=5',
        'proxy-authorization': 'Basic cHJveHk6cHc=',
        'proxy-connection': 'keep-alive',
        te: 'trailers',
        trailer: 'x-checksum',
        'transfer-encoding': 'chunked',
        upgrade: 'h2c',
        'x-hop-secret': 'drop me',
        host: 'proxy.local',
        expect: '100-continue',
        authorization: 'Bearer t',
      },
    });
    expect(req.headers.get('x-hop-secret')).toBe('drop me');
    await app.request(req);
    const h = f.calls[0]!.headers;
    for (const name of ['connection', 'keep-alive', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'x-hop-secret', 'host', 'expect']) {
      expect(h.has(name), name).toBe(false);
    }
    expect(h.get('authorization')).toBe('Bearer t');
  });

  it('stripHopByHop removes the Connection-named headers case-insensitively', () => {
    const h = stripHopByHop(new Headers({ Connection: 'Close, X-A ,x-b', 'x-a': '1', 'X-B': '2', 'x-c': '3' }));
    expect([...h.keys()]).toEqual(['x-c']);
  });
});

describe('response passthrough', () => {
  it('passes status, headers and body unchanged, minus hop-by-hop headers', async () => {
    const body = '{"code":"CONTRACT_NOT_FOUND","cause":"Contract could not be found with id 00ab"}';
    const f = fakeFetch(() => {
      const res = new Response(body, {
        status: 404,
        headers: {
          'content-type': 'application/json',
          connection: 'close, X-Internal',
          'keep-alive': 'timeout=5',
          'x-internal': 'hop',
          'proxy-authenticate': 'Basic',
          upgrade: 'h2c',
          trailer: 'x',
          'transfer-encoding': 'chunked',
          'x-request-id': 'abc',
        },
      });
      res.headers.append('set-cookie', 'a=1');
      res.headers.append('set-cookie', 'b=2');
      return res;
    });
    const app = createProxyApp({ api: 'ledger', upstream: { url: LEDGER }, fetch: f.fetch });
    const res = await app.request('/v2/events/events-by-contract-id', { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
    expect(await res.text()).toBe(body);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('x-request-id')).toBe('abc');
    expect(res.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    for (const name of ['connection', 'keep-alive', 'x-internal', 'proxy-authenticate', 'upgrade', 'trailer', 'transfer-encoding']) {
      expect(res.headers.has(name), name).toBe(false);
    }
  });

  it('passes a text/plain 400 and a 5xx through byte for byte', async () => {
    const plain = "Invalid value for: body (Missing required field at 'commands')";
    let n = 0;
    const f = fakeFetch(() =>
      n++ === 0
        ? new Response(plain, { status: 400, headers: { 'content-type': 'text/plain; charset=UTF-8' } })
        : new Response('{"error":"An unexpected error occurred."}', { status: 500, headers: { 'content-type': 'application/json' } }),
    );
    const ledger = createProxyApp({ api: 'ledger', upstream: { url: LEDGER }, fetch: f.fetch });
    const r1 = await ledger.request('/v2/commands/submit-and-wait', { method: 'POST', body: '{' });
    expect([r1.status, r1.headers.get('content-type'), await r1.text()]).toEqual([400, 'text/plain; charset=UTF-8', plain]);
    const scan = createProxyApp({ api: 'scan', upstream: { url: SCAN }, fetch: f.fetch });
    const r2 = await scan.request('/api/scan/v0/dso');
    expect([r2.status, await r2.text()]).toEqual([500, '{"error":"An unexpected error occurred."}']);
  });

  it('passes a redirect through instead of following it', async () => {
    const f = fakeFetch(() => new Response(null, { status: 302, headers: { location: '/elsewhere' } }));
    const app = createProxyApp({ api: 'scan', upstream: { url: SCAN }, fetch: f.fetch });
    const res = await app.request('/api/scan/v0/dso');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/elsewhere');
  });

  it('streams a multi-chunk body', async () => {
    const chunks = ['[', '{"a":1}', ',', '{"a":2}', ']'];
    const f = fakeFetch(
      () =>
        new Response(
          new ReadableStream({
            start(c) {
              for (const ch of chunks) c.enqueue(new TextEncoder().encode(ch));
              c.close();
            },
          }),
          { headers: { 'content-type': 'application/json' } },
        ),
    );
    const app = createProxyApp({ api: 'ledger', upstream: { url: LEDGER }, fetch: f.fetch });
    const res = await app.request('/v2/state/active-contracts', { method: 'POST', body: '{}' });
    expect(await res.json()).toEqual([{ a: 1 }, { a: 2 }]);
  });

  it('drops Content-Encoding/Length when fetch has already decoded the body', async () => {
    const f = fakeFetch(() => new Response('decoded', { headers: { 'content-encoding': 'gzip', 'content-length': '99', 'content-type': 'text/plain' } }));
    const app = createProxyApp({ api: 'scan', upstream: { url: SCAN }, fetch: f.fetch });
    const res = await app.request('/api/scan/version');
    expect(res.headers.has('content-encoding')).toBe(false);
    expect(res.headers.has('content-length')).toBe(false);
    expect(await res.text()).toBe('decoded');
  });
});

describe('timeouts', () => {
  it('ledger: 504 REQUEST_TIME_OUT JsCantonError within the bound', async () => {
    const app = createProxyApp({ api: 'ledger', upstream: { url: LEDGER, timeoutMs: 50 }, fetch: hangingFetch, participantName: 'p-proxy' });
    const t0 = Date.now();
    const res = await app.request('/v2/commands/submit-and-wait', {
      method: 'POST',
      body: '{}',
      headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
    });
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(res.status).toBe(504);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as { cause: string };
    expect(body).toMatchObject({
      code: 'REQUEST_TIME_OUT',
      errorCategory: 3,
      grpcCodeValue: 4,
      retryInfo: '1 second',
      // decoded from a gRPC status on Canton: null at the top, the value in the context
      definiteAnswer: null,
      correlationId: null,
      traceId: '0af7651916cd43dd8448eb211c80319c',
      context: { participant: 'p-proxy', category: '3', definite_answer: 'false' },
      resources: [],
    });
    expect(body.cause).toContain('/v2/commands/submit-and-wait');
    expect(body.cause).toContain('50 ms');
  });

  it("scan/validator: 503 with Splice's timeout text, method and request URI", async () => {
    for (const api of ['scan', 'validator'] as const) {
      const mount = `/api/${api}`;
      const app = createProxyApp({ api, upstream: { url: `https://x.example${mount}`, timeoutMs: 30 }, fetch: hangingFetch });
      const res = await app.request(`http://proxy.local${mount}/v0/holdings/state?x=1`, { method: 'POST', body: '{}' });
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({
        error: `The server is taking too long to respond to the (POST) request at http://proxy.local${mount}/v0/holdings/state?x=1`,
      });
    }
  });

  it('aborts a body that stalls for longer than the timeout', async () => {
    const f = fakeFetch(
      (seen) =>
        new Response(
          new ReadableStream({
            start(c) {
              c.enqueue(new TextEncoder().encode('[{"a":1}'));
              // never closes; like undici, error the stream when the fetch is aborted
              seen.init.signal?.addEventListener('abort', () => c.error(seen.init.signal!.reason));
            },
          }),
          { headers: { 'content-type': 'application/json' } },
        ),
    );
    const app = createProxyApp({ api: 'ledger', upstream: { url: LEDGER, timeoutMs: 50 }, fetch: f.fetch });
    const res = await app.request('/v2/state/active-contracts', { method: 'POST', body: '{}' });
    expect(res.status).toBe(200);
    const t0 = Date.now();
    await expect(res.text()).rejects.toThrow();
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('does not abort a slow but flowing body', async () => {
    const f = fakeFetch(() => {
      let i = 0;
      return new Response(
        new ReadableStream({
          async pull(c) {
            await new Promise((r) => setTimeout(r, 20));
            if (i++ < 5) c.enqueue(new TextEncoder().encode('x'));
            else c.close();
          },
        }),
      );
    });
    // 5 chunks at 20 ms each exceed 50 ms in total, but no gap does
    const app = createProxyApp({ api: 'scan', upstream: { url: SCAN, timeoutMs: 50 }, fetch: f.fetch });
    const res = await app.request('/api/scan/v0/dso');
    expect(await res.text()).toBe('xxxxx');
  });
});

describe('unreachable upstream', () => {
  it('ledger: 503 SERVICE_NOT_RUNNING JsCantonError', async () => {
    const fetchFail = (async () => {
      throw networkError('ECONNREFUSED');
    }) as typeof fetch;
    const app = createProxyApp({ api: 'ledger', upstream: { url: LEDGER }, fetch: fetchFail });
    const res = await app.request('/v2/version');
    expect(res.status).toBe(503);
    const body = (await res.json()) as { traceId: string };
    expect(body).toMatchObject({
      code: 'SERVICE_NOT_RUNNING',
      cause: 'Ledger API is not running.',
      errorCategory: 1,
      grpcCodeValue: 14,
      retryInfo: '1 second',
      context: { service_name: 'Ledger API', reason: 'upstream connection refused', category: '1' },
    });
    expect(body.traceId).toMatch(/^[0-9a-f]{32}$/);
    // the upstream's address stays out of the client's answer
    expect(JSON.stringify(body)).not.toContain('10.0.0.7');
    expect(JSON.stringify(body)).not.toContain('participant.internal');
  });

  it('scan/validator: 503 {"error"} naming the reason', async () => {
    const cases: Array<[string, string]> = [
      ['ECONNREFUSED', 'connection refused'],
      ['ENOTFOUND', 'host not found'],
      ['ECONNRESET', 'connection closed by upstream'],
      ['UND_ERR_SOCKET', 'connection closed by upstream'],
      ['HPE_INVALID_CONSTANT', 'invalid HTTP response from upstream'],
      ['CERT_HAS_EXPIRED', 'TLS handshake failed'],
    ];
    for (const [code, reason] of cases) {
      const fetchFail = (async () => {
        throw networkError(code);
      }) as typeof fetch;
      const app = createProxyApp({ api: 'validator', upstream: { url: 'http://v.example/api/validator' }, fetch: fetchFail });
      const res = await app.request('/api/validator/v0/validator-user');
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ error: `The validator service is unavailable (upstream ${reason}). Please retry in a short while.` });
    }
  });
});

describe('logging', () => {
  it('never logs the Authorization header, on success or failure', async () => {
    const { logger, lines } = capturingLogger();
    const token = 'Bearer eyJhbGciOiJIUzI1NiJ9.c2VjcmV0.sig';
    const ok = createProxyApp({ api: 'ledger', upstream: { url: LEDGER }, fetch: fakeFetch().fetch, logger });
    await ok.request('/v2/version', { headers: { authorization: token } });
    const down = createProxyApp({
      api: 'ledger',
      upstream: { url: LEDGER },
      logger,
      fetch: (async () => {
        throw networkError('ECONNREFUSED');
      }) as typeof fetch,
    });
    await down.request('/v2/version', { headers: { authorization: token } });
    const slow = createProxyApp({ api: 'scan', upstream: { url: SCAN, timeoutMs: 10 }, fetch: hangingFetch, logger });
    await slow.request('/api/scan/v0/dso', { headers: { authorization: token } });
    expect(lines.length).toBeGreaterThanOrEqual(3);
    const all = lines.join('\n');
    expect(all).not.toContain('eyJhbGciOiJIUzI1NiJ9');
    expect(all.toLowerCase()).not.toContain('authorization');
    expect(all).toContain('upstream unreachable');
    expect(all).toContain('upstream timed out');
  });
});
