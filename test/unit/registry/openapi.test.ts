import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { OPENAPI_PATH, renderOpenApi } from '../../../scripts/openapi.js';
import type { RegistryApi } from '../../../src/registry/api.js';
import { SPECS, specPath } from '../../support/openapi-conformance.js';

describe('openapi.yaml', () => {
  it('is generated from the routes and committed up to date (npm run openapi:gen)', () => {
    expect(readFileSync(OPENAPI_PATH, 'utf8')).toBe(renderOpenApi());
  });

  it('describes every path and method of the official token-standard specs', () => {
    const ours = parse(readFileSync(OPENAPI_PATH, 'utf8')) as { paths: Record<string, Record<string, unknown>> };
    const official = [
      SPECS.tokenMetadataV1,
      SPECS.transferInstructionV1,
      SPECS.transferInstructionV2,
      SPECS.allocationInstructionV1,
      SPECS.allocationInstructionV2,
      SPECS.allocationV1,
      SPECS.allocationV2,
    ];
    const missing: string[] = [];
    let count = 0;
    for (const file of official) {
      const spec = parse(readFileSync(specPath(file), 'utf8')) as { paths: Record<string, Record<string, unknown>> };
      for (const [path, ops] of Object.entries(spec.paths)) {
        for (const method of Object.keys(ops).filter((m) => ['get', 'post'].includes(m))) {
          count++;
          if (!ours.paths[path]?.[method]) missing.push(`${method.toUpperCase()} ${path}`);
        }
      }
    }
    expect(count).toBeGreaterThanOrEqual(20);
    expect(missing).toEqual([]);
  });
});

/** Serving the OpenAPI document asks the registry nothing: every method fails loudly if called. */
const notCalled = (): never => {
  throw new Error('the OpenAPI document needs no registry');
};
const noRegistry: RegistryApi = {
  getRegistryInfo: notCalled,
  listInstruments: notCalled,
  getInstrument: notCalled,
  getTransferFactory: notCalled,
  getTransferInstructionContext: notCalled,
  getAllocationFactory: notCalled,
  getAllocationInstructionContext: notCalled,
  getAllocationContext: notCalled,
  getSettlementFactory: notCalled,
};

describe('the served OpenAPI document', () => {
  it('is the same document as openapi.yaml, served at /openapi.json (and under a base path)', async () => {
    const { createRegistryApp } = await import('../../../src/registry/app.js');
    const committed = parse(readFileSync(OPENAPI_PATH, 'utf8'));
    for (const basePath of ['', '/api/token-standard']) {
      const app = createRegistryApp({ registry: noRegistry, basePath });
      const r = await app.request(`${basePath}/openapi.json`);
      expect(r.status).toBe(200);
      const doc = (await r.json()) as { paths: Record<string, unknown> };
      // under a base path the served document names the paths as they are served
      expect(Object.keys(doc.paths).sort()).toEqual(Object.keys(committed.paths).map((p) => `${basePath}${p}`).sort());
    }
  });
});
