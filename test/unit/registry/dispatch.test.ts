/**
 * The POST dispatcher: path matching (exact map for the factories, patterns for per-contract
 * contexts) and the request context handed through to the service.
 */
import { describe, expect, it } from 'vitest';
import type { RequestContext } from '../../../src/http/request-context.js';
import type { RegistryApi } from '../../../src/registry/api.js';
import { registryPostEndpoints } from '../../../src/registry/app.js';
import { PostDispatcher } from '../../../src/registry/dispatch.js';

function recordingApi(seen: Array<{ method: string; args: unknown[] }>): RegistryApi {
  const unused = () => Promise.reject(new Error('not called by these tests'));
  const context = { choiceContextData: {}, disclosedContracts: [] };
  return {
    getRegistryInfo: unused,
    listInstruments: unused,
    getInstrument: unused,
    getTransferFactory: async (...args) => {
      seen.push({ method: 'getTransferFactory', args });
      return { factoryId: 'f', transferKind: 'offer', choiceContext: context };
    },
    getTransferInstructionContext: unused,
    getAllocationFactory: unused,
    getAllocationInstructionContext: unused,
    getAllocationContext: async (...args) => {
      seen.push({ method: 'getAllocationContext', args });
      return context;
    },
    getSettlementFactory: unused,
  };
}

describe('PostDispatcher', () => {
  const seen: Array<{ method: string; args: unknown[] }> = [];
  const d = new PostDispatcher(registryPostEndpoints(), recordingApi(seen));
  const ctx: RequestContext = { requestId: 'req-1' };

  it('matches factories exactly and contexts by pattern, and nothing else', () => {
    expect(d.routeOf('/registry/transfer-instruction/v1/transfer-factory')).toBe('/registry/transfer-instruction/v1/transfer-factory');
    expect(d.routeOf('/registry/transfer-instruction/v2/00ab/choice-contexts/accept')).toBe('/registry/transfer-instruction/v2/{transferInstructionId}/choice-contexts/accept');
    expect(d.matches('/registry/transfer-instruction/v1/transfer-factory/')).toBe(false);
    expect(d.matches('/registry/transfer-instruction/v1/a/b/choice-contexts/accept')).toBe(false);
  });

  it("hands the request's context to the service with the decoded parameters", async () => {
    seen.length = 0;
    const f = await d.answer('/registry/transfer-instruction/v1/transfer-factory', '{"choiceArguments":{},"excludeDebugFields":true}', ctx);
    expect(f?.status).toBe(200);
    const c = await d.answer('/registry/allocations/v1/00%61b/choice-contexts/withdraw', '', ctx);
    expect(c?.status).toBe(200);
    expect(seen).toEqual([
      { method: 'getTransferFactory', args: [1, { choiceArguments: {}, excludeDebugFields: true }, ctx] },
      { method: 'getAllocationContext', args: [1, '00ab', 'withdraw', {}, ctx] },
    ]);
  });
});
