/**
 * The server side of the index-lag benchmark, in its own process: the emulated ledger with the
 * TestTokenV2 templates (HTTP and websocket on one loopback port, as `emulate` serves it) and a
 * registry started by `startRegistry` (serve's own wiring: a LedgerClient over loopback HTTP, the
 * websocket update stream with its long-poll fallback, the memory cache or REDIS_URL). Prints one
 * JSON line (URLs, parties); `BENCH_FOLLOW=poll` makes the index follow by long polls instead (the
 * fallback, for comparison); answers `applied` on the IPC channel with the time each offset was
 * applied by the registry's contract index (epoch ms, sub-millisecond).
 */
import { pino } from 'pino';
import { RegistryConfigSchema } from '../src/config/registry.js';
import { startEmulator } from '../src/emulator/index.js';
import { registerTestTokenV2 } from '../src/emulator/templates/test-token-v2/index.js';
import { noAuth } from '../src/ledger-client/auth.js';
import { LedgerClient } from '../src/ledger-client/client.js';
import { pollingUpdates } from '../src/ledger-client/update-stream.js';
import { startRegistry } from '../src/serve.js';

const wallets = Number(process.env.BENCH_WALLETS ?? 8);
const emu = await startEmulator({ config: { port: 0, demoWorld: false, logLevel: 'silent' } });
registerTestTokenV2(emu.engine.templates);
const admin = emu.engine.parties.allocate('adminX2').party;
const parties = Array.from({ length: wallets }, (_, i) => emu.engine.parties.allocate(`wallet${i}`).party);
const registry = await startRegistry(
  RegistryConfigSchema.parse({
    adminParty: admin,
    ledger: { url: emu.ledgerUrl, auth: { kind: 'none' } },
    instruments: [{ id: 'X2', name: 'X two', symbol: 'X2', decimals: 2, recipe: 'splice-test-token-v2' }],
    port: 0,
    host: '127.0.0.1',
    logLevel: 'silent',
    // Eight wallets on one loopback address would meet the per-client rate limit (50/s), and a
    // 429 tells nothing about the index: the limiter is off here.
    limits: { rateLimit: { requestsPerSecond: 0 } },
    ...(process.env.REDIS_URL ? { redisUrl: process.env.REDIS_URL } : {}),
  }),
  {
    logger: pino({ level: 'silent' }),
    // BENCH_FOLLOW=poll: the long polls serve used before the websocket (for comparison)
    ...(process.env.BENCH_FOLLOW === 'poll' ? { follow: { updates: pollingUpdates({ ledger: new LedgerClient({ baseUrl: emu.ledgerUrl, tokenProvider: noAuth }) }) } } : {}),
  },
);
/** offset, applied-at pairs, flat. */
const applied: number[] = [];
registry.registry.index.onApplied((u) => applied.push(u.offset, performance.timeOrigin + performance.now()));
process.stdout.write(`${JSON.stringify({ ledgerUrl: emu.ledgerUrl, registryUrl: registry.url, admin, wallets: parties })}\n`);
process.on('message', (m) => {
  if (m !== 'applied') return;
  process.send?.({ applied, transport: registry.registry.index.transport });
});
process.on('SIGTERM', () => {
  void registry.close().finally(() => emu.close().finally(() => process.exit(0)));
});
