/**
 * The ledger client carries the caller's request context to the node (x-request-id, traceparent)
 * and reports every attempt (metrics): by endpoint, never by a path with ids or a query string.
 */
import { describe, expect, it } from 'vitest';
import { staticToken } from '../../../src/ledger-client/auth.js';
import { LedgerClient, type LedgerCall } from '../../../src/ledger-client/client.js';
import { createRequestContexts, parseTraceparent } from '../../../src/http/request-context.js';

describe('ledger client request context and call reports', () => {
  it('sends the current request id and traceparent on every attempt, none outside a request', async () => {
    const seen: Headers[] = [];
    let n = 0;
    const contexts = createRequestContexts();
    const calls: LedgerCall[] = [];
    const client = new LedgerClient({
      baseUrl: 'http://ledger.test',
      tokenProvider: staticToken('tkn'),
      retry: { baseDelayMs: 1, maxDelayMs: 1 },
      contextHeaders: contexts.outgoingHeaders,
      onCall: (c) => calls.push(c),
      fetch: async (_input, init) => {
        seen.push(new Headers(init?.headers));
        // first attempt: a transient failure, so the retry is seen too
        if (n++ === 0) return Response.json({ code: 'UNAVAILABLE', cause: 'x', errorCategory: 1, context: {}, resources: [] }, { status: 503 });
        return Response.json({ offset: 42 });
      },
    });
    const trace = parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')!;
    const end = await contexts.run({ requestId: 'req-7', trace }, () => client.ledgerEnd());
    expect(end).toBe(42);
    expect(seen).toHaveLength(2);
    for (const h of seen) {
      expect(h.get('x-request-id')).toBe('req-7');
      expect(h.get('traceparent')).toBe(`00-4bf92f3577b34da6a3ce929d0e0e4736-${trace.spanId}-01`);
      expect(h.get('authorization')).toBe('Bearer tkn');
    }
    expect(calls.map((c) => [c.method, c.path, c.outcome])).toEqual([
      ['GET', '/v2/state/ledger-end', '503'],
      ['GET', '/v2/state/ledger-end', '200'],
    ]);

    await client.ledgerEnd();
    expect(seen[2]!.get('x-request-id')).toBeNull();
    expect(seen[2]!.get('traceparent')).toBeNull();
  });

  it('reports a network failure and strips the query from the endpoint', async () => {
    const calls: LedgerCall[] = [];
    const client = new LedgerClient({
      baseUrl: 'http://ledger.test',
      tokenProvider: staticToken('tkn'),
      retry: { maxAttempts: 1 },
      onCall: (c) => calls.push(c),
      fetch: async () => {
        throw new TypeError('fetch failed');
      },
    });
    await expect(client.request('POST', '/v2/updates?limit=5', {})).rejects.toThrow(/unreachable/);
    expect(calls).toEqual([expect.objectContaining({ method: 'POST', path: '/v2/updates', outcome: 'network' })]);
  });
});
