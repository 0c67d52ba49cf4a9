/**
 * The admin API with the ledger's auth on (LEDGER_AUTH=localnet): a request needs a token the
 * ledger accepts, of a user holding ParticipantAdmin; the OpenAPI document stays public. Advancing
 * the clock past the stack's own registry tokens' lifetime leaves the registries working (they
 * mint theirs at ledger time).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCALNET_LEDGER_AUTH } from '../../../src/canton/localnet.js';
import { mintDevToken } from '../../../src/emulator/ledger-api/auth.js';
import { startStack, type RunningStack } from '../../../src/stack.js';

let stack: RunningStack;

const token = (sub: string) =>
  mintDevToken({ secret: LOCALNET_LEDGER_AUTH.hs256Secret, sub, audience: LOCALNET_LEDGER_AUTH.targetAudience, nowSeconds: Math.floor(Number(stack.clock.nowMicros() / 1_000_000n)) });

beforeAll(async () => {
  stack = await startStack({ config: { port: 0, logLevel: 'silent', auth: { mode: 'localnet' } }, registryPort: 0, scanPort: 0, validatorPort: 0 });
});

afterAll(async () => {
  await stack?.close();
});

describe('admin API with LEDGER_AUTH=localnet', () => {
  it('401 without a token, 403 for a user without ParticipantAdmin, 200 for an admin user', async () => {
    const url = `${stack.adminUrl}/admin/v1/snapshots`;
    const none = await fetch(url, { method: 'POST' });
    expect(none.status).toBe(401);
    expect(typeof ((await none.json()) as { error: unknown }).error).toBe('string');
    const alice = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${await token('alice')}` } });
    expect(alice.status).toBe(403);
    const end = stack.engine.ledgerEnd();
    const admin = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${await token('ledger-api-user')}` } });
    expect(admin.status).toBe(200);
    expect(stack.engine.ledgerEnd()).toBe(end);
    expect((await fetch(`${stack.adminUrl}/admin/openapi.json`)).status).toBe(200);
  });

  it("the explorer's reads and event stream need the same token; its page (no data) does not", async () => {
    const admin = { authorization: `Bearer ${await token('ledger-api-user')}` };
    for (const path of ['/admin/v1/parties', '/admin/v1/transactions', '/admin/v1/requests', '/admin/v1/events']) {
      expect((await fetch(`${stack.adminUrl}${path}`)).status, path).toBe(401);
      expect((await fetch(`${stack.adminUrl}${path}`, { headers: { authorization: `Bearer ${await token('alice')}` } })).status, path).toBe(403);
    }
    expect((await fetch(`${stack.adminUrl}/admin/v1/parties`, { headers: admin })).status).toBe(200);
    const ac = new AbortController();
    const events = await fetch(`${stack.adminUrl}/admin/v1/events`, { headers: admin, signal: ac.signal });
    expect(events.status).toBe(200);
    ac.abort();
    expect((await fetch(`${stack.adminUrl}/`)).status).toBe(200);
  });

  it("after a two-hour advance the registries still read the ledger (their tokens follow ledger time)", async () => {
    const headers = { authorization: `Bearer ${await token('ledger-api-user')}`, 'content-type': 'application/json' };
    const advanced = await fetch(`${stack.adminUrl}/admin/v1/clock/advance`, { method: 'POST', headers, body: JSON.stringify({ seconds: 7200 }) });
    expect(advanced.status).toBe(200);
    const minted = await fetch(`${stack.adminUrl}/admin/v1/mint`, { method: 'POST', headers: { ...headers, authorization: `Bearer ${await token('ledger-api-user')}` }, body: JSON.stringify({ instrument: 'TT1', owner: 'alice', amount: '5' }) });
    expect(minted.status).toBe(200);
    const snap = await fetch(`${stack.adminUrl}/admin/v1/snapshots`, { method: 'POST', headers: { authorization: `Bearer ${await token('ledger-api-user')}` } });
    const { id } = (await snap.json()) as { id: string };
    const restored = await fetch(`${stack.adminUrl}/admin/v1/snapshots/${id}/restore`, { method: 'POST', headers: { authorization: `Bearer ${await token('ledger-api-user')}` } });
    expect(restored.status).toBe(200);
    // the registry reloaded its index through the ledger with a token minted at ledger time
    expect(stack.registry!.index.state).toBe('ready');
    const info = await fetch(`${stack.registryUrl}/registry/metadata/v1/instruments`);
    expect(info.status).toBe(200);
  });
});
