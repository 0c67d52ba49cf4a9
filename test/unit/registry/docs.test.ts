/** The registry's API reference page: served beside openapi.json, self-contained (no CDN). */
import { describe, expect, it } from 'vitest';
import { createRegistryApp } from '../../../src/registry/app.js';
import type { RegistryApi } from '../../../src/registry/api.js';

// The docs and the OpenAPI document never call the service.
const unused = new Proxy({}, { get: () => () => Promise.reject(new Error('not called')) }) as RegistryApi;

describe('/docs', () => {
  for (const basePath of ['', '/api/token-standard']) {
    it(`renders the document next to it${basePath ? ' under a base path' : ''}, loading nothing from another host`, async () => {
      const app = createRegistryApp({ registry: unused, basePath });
      const r = await app.request(`${basePath}/docs`);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await r.text();
      // the page fetches the document relative to itself, i.e. `${basePath}/openapi.json`
      expect(html).toContain('fetch("openapi.json")');
      expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|https?:\/\/(?!www\.w3)/);
      expect((await app.request(`${basePath}/openapi.json`)).status).toBe(200);
    });
  }

  it('is not part of the OpenAPI document (it is not an API endpoint)', async () => {
    const doc = (await (await createRegistryApp({ registry: unused }).request('/openapi.json')).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).some((p) => p.includes('docs'))).toBe(false);
    expect(Object.keys(doc.paths).length).toBeGreaterThan(5);
  });
});
