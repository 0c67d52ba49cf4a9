/**
 * What the benchmarks' server processes (daml-server.ts, isub-server.ts) share: serving the
 * emulated ledger's app on a free loopback port, the admin's TokenRules as a disclosed contract for
 * the load clients, and printing the one JSON line the parent reads, then serving until SIGTERM
 * (a normal exit, so that node flags such as --cpu-prof write their output).
 */
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import type { buildEmulator } from '../src/emulator/index.js';
import { formatId } from '../src/emulator/participant/types.js';

type Emulator = ReturnType<typeof buildEmulator>;

/** Serves `app` on 127.0.0.1 at a free port; resolves with its URL. */
export async function serveOnLoopback(app: Emulator['app']): Promise<string> {
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

/** A contract as a disclosed contract of a command submission. */
export function disclosedContract(engine: Emulator['engine'], contractId: string) {
  const c = engine.contracts.get(contractId);
  if (!c) throw new Error(`no contract ${contractId}`);
  return { templateId: formatId(c.templateId), contractId, createdEventBlob: c.blob, synchronizerId: engine.synchronizerId };
}

/** Prints the server's description for the parent, then serves until SIGTERM. */
export function announce(description: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(description)}\n`);
  process.on('SIGTERM', () => process.exit(0));
}
