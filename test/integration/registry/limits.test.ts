/**
 * `serve`'s bounds over real sockets: bodies over the registry's limit are refused 413 before
 * they are read (declared or chunked, on the POST fast path and the Hono path), the server has
 * its timeouts and connection cap, and a client over its rate gets 429 with Retry-After while
 * health probes and other clients keep working. Limits come from the file and the environment.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';
import { loadRegistryConfig, startRegistry, type RunningRegistry } from '../../../src/serve.js';

let emu: RunningEmulator;
let running: RunningRegistry;
const dir = mkdtempSync(join(tmpdir(), 'tr-limits-'));

function configFile(config: unknown): string {
  const p = join(dir, `c${Math.random()}.json`);
  writeFileSync(p, JSON.stringify(config));
  return p;
}

beforeAll(async () => {
  emu = await startEmulator({ config: { port: 0, logLevel: 'silent' } });
  const admin = emu.seeded!.parties.find((p) => p.hint === 'token-admin')!.party;
  const file = configFile({
    adminParty: admin,
    ledger: { url: emu.ledgerUrl },
    instruments: [{ id: 'TT2-USD', name: 'Test Token Two (USD)', symbol: 'TUSD', decimals: 2, recipe: 'splice-test-token-v2' }],
    port: 0,
    host: '127.0.0.1',
    limits: { maxBodyBytes: 1024, rateLimit: { requestsPerSecond: 1, burst: 20 } },
  });
  const config = loadRegistryConfig({ REGISTRY_CONFIG_FILE: file, LOG_LEVEL: 'silent' });
  running = await startRegistry(config, { logger: pino({ level: 'silent' }) });
});
afterAll(async () => {
  await running?.close();
  await emu?.close();
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A POST of `total` bytes in chunks (declared or chunked); resolves with the answer even if the server hangs up early. */
function post(path: string, total: number, declared: boolean): Promise<Answer> {
  const url = new URL(path, running.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { agent: false, host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: declared ? { 'content-length': String(total), 'content-type': 'application/json' } : { 'transfer-encoding': 'chunked' } },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    let answered = false;
    req.once('response', () => (answered = true));
    // the server closes the connection after its answer while we may still be writing
    req.on('error', (e) => (answered ? undefined : reject(e)));
    let sent = 0;
    const chunk = Buffer.alloc(16 * 1024, 0x20);
    const write = () => {
      while (sent < total) {
        const n = Math.min(chunk.length, total - sent);
        sent += n;
        if (!req.write(chunk.subarray(0, n))) return void req.once('drain', write);
      }
      req.end();
    };
    write();
  });
}

describe('serve bounds what it reads', () => {
  const factory = '/registry/transfer-instruction/v1/transfer-factory';

  it('a declared body over the limit is 413 {"error"} on the POST fast path, and the connection is closed', async () => {
    const r = await post(factory, 10 * 1024 * 1024, true);
    expect(r.status).toBe(413);
    expect(r.headers.connection).toBe('close');
    expect(JSON.parse(r.body)).toEqual({ error: `Request Content-Length of ${10 * 1024 * 1024} bytes exceeds the configured limit of 1024 bytes` });
  });

  it('a chunked body over the limit is 413 too', async () => {
    const r = await post(factory, 5 * 1024 * 1024, false);
    expect(r.status).toBe(413);
    expect(JSON.parse(r.body)).toEqual({ error: 'Request body exceeds the configured limit of 1024 bytes' });
  });

  it('the Hono path (any other POST) refuses a declared over-long body before routing; an unrouted chunked body is never read', async () => {
    const r = await post('/registry/metadata/v1/info', 2 * 1024 * 1024, true);
    expect(r.status).toBe(413);
    expect(JSON.parse(r.body)).toEqual({ error: `Request Content-Length of ${2 * 1024 * 1024} bytes exceeds the configured limit of 1024 bytes` });
    const unrouted = await post('/registry/metadata/v1/info', 2 * 1024 * 1024, false);
    expect(unrouted.status).toBe(404);
    expect(JSON.parse(unrouted.body)).toHaveProperty('error');
  });

  it('a body within the limit is served', async () => {
    const r = await post(factory, 10, true);
    expect(r.status).toBe(400); // ten spaces: an empty body is `{}`, which lacks choiceArguments
    expect(JSON.parse(r.body)).toHaveProperty('error');
  });

  it('a client over its rate gets 429 with Retry-After in {"error"} shape; health probes are not limited', async () => {
    let limited: Response | undefined;
    for (let i = 0; i < 40 && !limited; i++) {
      const r = await fetch(`${running.url}/registry/metadata/v1/info`);
      if (r.status === 429) limited = r;
      else await r.arrayBuffer();
    }
    expect(limited).toBeDefined();
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await limited!.json()).toEqual({ error: expect.stringMatching(/^Too many requests: retry after \d+ s$/) });
    expect((await fetch(`${running.url}/readyz`)).status).toBe(200);
    expect((await fetch(`${running.url}/livez`)).status).toBe(200);
  });

  it('RATE_LIMIT_RPS / RATE_LIMIT_BURST / MAX_BODY_BYTES override the file; 0 turns rate limiting off', () => {
    const file = configFile({ adminParty: 'a', ledger: { url: 'http://x' }, instruments: [{ id: 'A', name: 'a', symbol: 'A', recipe: 'splice-test-token-v1' }] });
    const defaults = loadRegistryConfig({ REGISTRY_CONFIG_FILE: file });
    expect(defaults.limits).toMatchObject({ maxBodyBytes: 65_536, maxJsonDepth: 100, rateLimit: { requestsPerSecond: 50, burst: 100 } });
    const env = loadRegistryConfig({ REGISTRY_CONFIG_FILE: file, RATE_LIMIT_RPS: '0', RATE_LIMIT_BURST: '5', MAX_BODY_BYTES: '2048' });
    expect(env.limits).toMatchObject({ maxBodyBytes: 2048, rateLimit: { requestsPerSecond: 0, burst: 5 } });
    expect(() => loadRegistryConfig({ REGISTRY_CONFIG_FILE: file, RATE_LIMIT_RPS: 'lots' })).toThrow(/requestsPerSecond/);
  });
});
