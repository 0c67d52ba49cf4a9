import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { IndexState } from '../../../src/contracts/index-state.js';
import { registryHealthApp, registryHostApp } from '../../../src/registry/health.js';

describe('registryHealthApp', () => {
  it('is ready only while the contract index is', async () => {
    const index: { state: IndexState } = { state: 'loading' };
    const app = registryHealthApp(index);
    const expected: Array<[IndexState, number, string]> = [
      ['loading', 503, "loading the admin's contracts from the ledger\n"],
      ['ready', 200, 'ready\n'],
      ['unreachable', 503, 'the ledger node cannot be read\n'],
      ['reloading', 503, "loading the admin's contracts from the ledger\n"],
      ['failed', 503, 'stopped\n'],
      ['stopped', 503, 'stopped\n'],
    ];
    for (const [state, status, text] of expected) {
      index.state = state;
      const r = await app.request('/readyz');
      expect([state, r.status, await r.text()]).toEqual([state, status, text]);
      // liveness does not depend on the ledger
      expect((await app.request('/livez')).status).toBe(200);
    }
  });
});

describe('registryHostApp', () => {
  it('routes probes, mounted apps, then the registry, and answers anything else with a JSON 404', async () => {
    const registry = new Hono();
    registry.get('/registry/metadata/v1/info', (c) => c.json({ adminId: 'a' }));
    const proxied = new Hono();
    proxied.get('/version', (c) => c.text('proxied'));
    const host = registryHostApp({ state: 'ready' }, registry, [['/v2', proxied]]);
    expect(await (await host.request('/readyz')).text()).toBe('ready\n');
    expect(await (await host.request('/v2/version')).text()).toBe('proxied');
    expect(await (await host.request('/registry/metadata/v1/info')).json()).toEqual({ adminId: 'a' });
    const missing = await host.request('/elsewhere', { method: 'POST' });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 'No such endpoint: POST /elsewhere' });
  });
});
