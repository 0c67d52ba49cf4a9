/**
 * The official `ScanClient` of `@canton-network/core-splice-client` (what the wallet SDK uses)
 * against the emulated scan over the native Amulet world, in-process: global `fetch` is routed to
 * the Hono app, so no socket is opened.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { ScanClient } from '@canton-network/core-splice-client';
import type { AccessTokenProvider } from '@canton-network/core-wallet-auth';
import { pino } from 'pino';
import { LedgerEngine } from '../../../../src/emulator/participant/engine.js';
import { createScanApp } from '../../../../src/emulator/scan/routes.js';
import { seedAmuletWorld } from '../../../../src/emulator/templates/amulet/index.js';

const BASE = new URL('http://scan.local/api/scan');

/** Scan reads are public: the client gets an empty token and never asks for the auth context. */
const noAuth: AccessTokenProvider = {
  getAccessToken: async () => '',
  getAuthContext: async () => {
    throw new Error('not used by ScanClient');
  },
};

afterEach(() => {
  vi.unstubAllGlobals();
  // the client caches rules and rounds per base URL in static maps
  ScanClient.invalidateAmuletRulesCache(BASE);
  ScanClient.invalidateOpenMiningRoundsCache(BASE);
});

it('ScanClient reads the synchronizer, AmuletRules and the open rounds', async () => {
  // the client picks the active round by Date.now(): use the system clock
  const engine = new LedgerEngine({ seed: 'official-scan-client' });
  const { dso, amuletRulesCid } = seedAmuletWorld(engine);
  const app = createScanApp({ engine, dsoParty: dso });
  vi.stubGlobal('fetch', (input: Request | string | URL, init?: RequestInit) => Promise.resolve(app.request(input instanceof URL ? input.href : input, init)));

  const client = new ScanClient(BASE, pino({ level: 'silent' }), noAuth);
  expect(await client.getAmuletSynchronizerId()).toBe(engine.synchronizerId);
  expect((await client.getAmuletRules()).contract_id).toBe(amuletRulesCid);
  expect(await client.isDevNet()).toBe(true);
  expect(await client.getOpenMiningRounds()).toHaveLength(3);
  const active = await client.getActiveOpenMiningRound();
  expect(active?.payload).toMatchObject({ dso });
});
