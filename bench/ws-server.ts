/**
 * The server side of the websocket benchmark, in its own process: the emulated ledger (no demo
 * world, the bench template declared) with its websocket channels on the same HTTP server, as
 * `startEmulator` serves them. Prints one JSON line (url, parties) on stdout; answers `stats`
 * messages on the IPC channel with its RSS and the channels' state.
 */
import { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { pino } from 'pino';
import { buildEmulator } from '../src/emulator/index.js';

const BENCH_TEMPLATE = { packageName: 'token-registry-bench', moduleName: 'Bench', entityName: 'Item', signatories: ['owner'], observers: [], implements: [] };

const { engine, app, streams } = buildEmulator({
  config: { demoWorld: false, logLevel: 'silent', declaredTemplates: [BENCH_TEMPLATE] },
  logger: pino({ level: 'silent' }),
});
const alice = engine.parties.allocate('alice').party;
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
await new Promise((r) => server.once('listening', r));
if (!(server instanceof HttpServer)) throw new Error('expected an HTTP/1.1 server');
streams.attach(server);
const { port } = server.address() as AddressInfo;
process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}`, alice })}\n`);
process.on('message', (m) => {
  if (m !== 'stats') return;
  global.gc?.();
  process.send?.({ rssMb: process.memoryUsage().rss / 2 ** 20, subscriptions: streams.size, maxBufferedAmount: streams.maxBufferedAmount, ledgerEnd: engine.ledgerEnd() });
});
process.on('SIGTERM', () => process.exit(0));
