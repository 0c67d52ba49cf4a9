/**
 * serve with scan and validator proxied to the admin's real ones (an emulated stack stands in):
 * one port serves the registry and forwards /api/scan and /api/validator unchanged.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistryConfigSchema } from '../../../src/config/registry.js';
import { startStack, type RunningStack } from '../../../src/stack.js';
import { startRegistry, type RunningRegistry } from '../../../src/serve.js';

let upstream: RunningStack;
let running: RunningRegistry;

beforeAll(async () => {
  upstream = await startStack({ config: { port: 0, logLevel: 'silent' }, registryPort: 0, scanPort: 0, validatorPort: 0 });
  const admin = upstream.seeded!.parties.find((p) => p.hint === 'token-admin')!.party;
  const config = RegistryConfigSchema.parse({
    adminParty: admin,
    ledger: { url: upstream.ledgerUrl },
    instruments: [{ id: 'TT1', name: 'Test Token One', symbol: 'TT1', recipe: 'splice-test-token-v1' }],
    port: 0,
    host: '127.0.0.1',
    logLevel: 'silent',
  });
  running = await startRegistry(config, {
    logger: pino({ level: 'silent' }),
    upstreams: {
      ledger: { mode: 'proxy', url: upstream.ledgerUrl, timeoutMs: 2000 },
      scan: { mode: 'proxy', url: `${upstream.scanUrl}/api/scan`, timeoutMs: 2000 },
      validator: { mode: 'proxy', url: `${upstream.validatorUrl}/api/validator`, timeoutMs: 2000 },
    },
  });
});
afterAll(async () => {
  await running?.close();
  await upstream?.close();
});

describe('serve proxying the ledger, scan and validator', () => {
  it('answers the registry itself and forwards scan and validator reads unchanged', async () => {
    expect((await fetch(`${running.url}/registry/metadata/v1/instruments/TT1`)).status).toBe(200);
    const direct = await (await fetch(`${upstream.scanUrl}/api/scan/v0/dso-party-id`)).text();
    const proxied = await fetch(`${running.url}/api/scan/v0/dso-party-id`);
    expect(proxied.status).toBe(200);
    expect(await proxied.text()).toBe(direct);
    const v = await fetch(`${running.url}/api/validator/v0/validator-user`);
    expect(v.status).toBe(200);
    // the ledger's JSON API through the same host
    const end = await fetch(`${running.url}/v2/state/ledger-end`);
    expect(end.status).toBe(200);
    expect(await end.json()).toEqual({ offset: upstream.engine.ledgerEnd() });
    // an upstream error passes through as the upstream wrote it
    const notFound = await fetch(`${running.url}/api/scan/v0/transfer-preapprovals/by-party/nobody::1220${'0'.repeat(64)}`);
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toEqual({ error: expect.stringContaining('No TransferPreapproval found for party') });
  });

  it('answers 503 in scan\'s shape when the upstream is down', async () => {
    await upstream.close();
    const r = await fetch(`${running.url}/api/scan/v0/dso-party-id`);
    expect(r.status).toBe(503);
    expect(await r.json()).toEqual({ error: expect.stringMatching(/scan service is unavailable/) });
  });
});
