import { describe, expect, it } from 'vitest';
import { corsPolicy } from '../../../src/http/cors.js';

const WALLET = 'https://wallet.example.com';

describe('CORS policy', () => {
  const policy = corsPolicy({ origins: [WALLET, 'http://localhost:3000'] })!;

  it('is off without origins', () => {
    expect(corsPolicy({ origins: [] })).toBeUndefined();
  });

  it('leaves requests without Origin alone (not a browser cross-origin call)', () => {
    expect(policy.decide('POST', '/', {})).toBeUndefined();
  });

  it('allows a listed origin on simple requests and exposes the request id', () => {
    expect(policy.decide('POST', '/', { origin: WALLET })).toEqual({
      headers: { 'access-control-allow-origin': WALLET, vary: 'Origin', 'access-control-expose-headers': 'x-request-id, retry-after' },
    });
  });

  it('answers an allowed preflight 204 with methods, the requested headers and a max age', () => {
    const d = policy.decide('OPTIONS', '/', { origin: 'http://localhost:3000', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-request-id' })!;
    expect(d.preflightStatus).toBe(204);
    expect(d.headers).toMatchObject({
      'access-control-allow-origin': 'http://localhost:3000',
      'access-control-allow-methods': 'GET, POST, OPTIONS',
      'access-control-allow-headers': 'content-type,x-request-id',
      'access-control-max-age': '600',
    });
  });

  it('refuses a preflight from another origin (403, no allow-origin) and adds nothing to its simple requests', () => {
    const d = policy.decide('OPTIONS', '/', { origin: 'https://evil.example', 'access-control-request-method': 'POST' })!;
    expect(d.preflightStatus).toBe(403);
    expect(d.headers['access-control-allow-origin']).toBeUndefined();
    expect(policy.decide('POST', '/', { origin: 'https://evil.example' })).toBeUndefined();
  });

  it('a plain OPTIONS (no Access-Control-Request-Method) is not a preflight', () => {
    expect(policy.decide('OPTIONS', '/', { origin: WALLET })?.preflightStatus).toBeUndefined();
  });

  it('* allows any origin', () => {
    expect(corsPolicy({ origins: ['*'] })!.decide('GET', '/', { origin: 'https://any.example' })?.headers['access-control-allow-origin']).toBe('*');
  });
});
