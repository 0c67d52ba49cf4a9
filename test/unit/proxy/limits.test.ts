import { describe, expect, it } from 'vitest';
import { createProxyApp } from '../../../src/proxy/forward.js';

describe('proxied APIs bound request bodies as the upstream does', () => {
  const calls: string[] = [];
  const fetchStub: typeof fetch = async (input) => {
    calls.push(String(input));
    return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
  };

  it('ledger: 8 MiB (10 MiB for DARs), refused with the text/plain 413 and never forwarded', async () => {
    const app = createProxyApp({ api: 'ledger', upstream: { url: 'http://participant.invalid' }, fetch: fetchStub });
    const big = await app.request('/v2/parties', { method: 'POST', body: '{}', headers: { 'content-length': String(8 * 1024 * 1024 + 1) } });
    expect(big.status).toBe(413);
    expect(await big.text()).toBe(`Request Content-Length of ${8 * 1024 * 1024 + 1} bytes exceeds the configured limit of ${8 * 1024 * 1024} bytes`);
    expect((await app.request('/v2/dars', { method: 'POST', body: 'x', headers: { 'content-length': String(9 * 1024 * 1024) } })).status).toBe(200);
    expect(calls).toEqual(['http://participant.invalid/v2/dars']);
  });

  it('scan and validator: 8 MiB, {"error"} 413', async () => {
    const app = createProxyApp({ api: 'scan', upstream: { url: 'http://scan.invalid/api/scan' }, fetch: fetchStub });
    const res = await app.request('/api/scan/v0/amulet-rules', { method: 'POST', body: '{}', headers: { 'content-length': String(100 * 1024 * 1024) } });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: `Request Content-Length of ${100 * 1024 * 1024} bytes exceeds the configured limit of ${8 * 1024 * 1024} bytes` });
  });
});
