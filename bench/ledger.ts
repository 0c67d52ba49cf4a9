/**
 * Benchmarks of the emulated ledger node, on loopback only, bounded in count
 * and time:
 *  1. start to ready: `node dist/main.js emulate` until `/readyz` answers 200 (target < 1 s);
 *  2. create throughput: submit-and-wait with 32 concurrent keep-alive clients against the
 *     CLI-started server in its own process (target >= 2,000 creates/s);
 *  3. ACS at scale: 100,000 active contracts over 100 parties, the ACS of one party (1,000
 *     contracts) over HTTP (target < 50 ms), and the process RSS (target < 500 MB).
 * Run: `npm run build && npm run bench -- ledger` (prints a table and writes .bench-out/ledger.json).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { buildEmulator } from '../src/emulator/index.js';
import type { LedgerEngine } from '../src/emulator/participant/engine.js';
import { makeClient, percentile } from './http-client.js';
import type { Result } from './report.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');


/** The template the benchmarks create, declared through the emulator's configuration. */
export const BENCH_TEMPLATE = { packageName: 'token-registry-bench', moduleName: 'Bench', entityName: 'Item', signatories: ['owner'] };

export async function startCli(env: Record<string, string> = {}, timeoutMs = 10_000): Promise<{ child: ChildProcess; url: string; readyMs: number }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [join(root, 'dist/main.js'), 'emulate'], {
    env: { ...process.env, PORT: '0', REGISTRY_PORT: '0', LOG_LEVEL: 'warn', DECLARED_TEMPLATES: JSON.stringify([BENCH_TEMPLATE]), ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`emulator did not print its URL within ${timeoutMs / 1000} s`)), timeoutMs);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /ledger JSON API v2\s+(http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`emulator exited with ${code}`)));
  });
  for (;;) {
    try {
      const r = await fetch(`${url}/readyz`);
      if (r.status === 200) break;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  return { child, url, readyMs: performance.now() - t0 };
}

async function benchStartup(): Promise<Result> {
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    const { child, readyMs } = await startCli();
    samples.push(readyMs);
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
  samples.sort((a, b) => a - b);
  const median = samples[2]!;
  return { name: 'start to ready (median of 5)', value: round(median), unit: 'ms', target: '< 1000 ms', pass: median < 1000, detail: { samples: samples.map(round) } };
}

async function benchCreates(): Promise<Result> {
  const m = await measureCreates();
  return {
    name: 'creates/s via submit-and-wait (32 clients, 5 s)',
    value: Math.round(m.rate),
    unit: 'creates/s',
    target: '>= 2000',
    pass: m.rate >= 2000 && m.errors === 0,
    detail: { total: m.total, errors: m.errors, p50_ms: round(m.p50), p99_ms: round(m.p99) },
  };
}

/** Creates/s of the CLI-started emulator (started with `env`): 32 keep-alive clients for 5 s after a warm-up. */
export async function measureCreates(env: Record<string, string> = {}): Promise<{ rate: number; errors: number; total: number; p50: number; p99: number }> {
  const { child, url } = await startCli(env);
  const client = makeClient(url, 32);
  try {
    const parties = JSON.parse((await client.request('GET', '/v2/parties')).body).partyDetails.map((p: { party: string }) => p.party);
    const alice = parties.find((p: string) => p.startsWith('alice::'));
    const body = (i: number) =>
      JSON.stringify({
        commands: [{ CreateCommand: { templateId: '#token-registry-bench:Bench:Item', createArguments: { owner: alice, n: String(i) } } }],
        commandId: `bench-${i}`,
        actAs: [alice],
        userId: 'alice',
      });
    // warm-up
    for (let i = 0; i < 200; i++) await client.request('POST', '/v2/commands/submit-and-wait', body(-i - 1));
    const durationMs = 5000;
    const latencies: number[] = [];
    let n = 0;
    let errors = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (performance.now() - t0 < durationMs) {
          const i = n++;
          const s = performance.now();
          const r = await client.request('POST', '/v2/commands/submit-and-wait', body(i));
          latencies.push(performance.now() - s);
          if (r.status !== 200) errors++;
        }
      }),
    );
    const elapsed = (performance.now() - t0) / 1000;
    latencies.sort((a, b) => a - b);
    return { rate: latencies.length / elapsed, errors, total: latencies.length, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
  } finally {
    client.close();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

async function benchAcs(): Promise<Result[]> {
  // In-process server so we can fill the ledger fast through the engine (the same code path the
  // HTTP commands use), then query it over real loopback HTTP.
  const { engine, app } = buildEmulator({
    config: { demoWorld: false, logLevel: 'silent', listMaxElements: 10_000, declaredTemplates: [{ ...BENCH_TEMPLATE, observers: [], implements: [] }] },
  });
  const t0 = performance.now();
  const parties = fillBenchWorld(engine);
  const fillMs = performance.now() - t0;
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as AddressInfo;
  const client = makeClient(`http://127.0.0.1:${port}`, 1);
  const body = JSON.stringify({
    eventFormat: { filtersByParty: { [parties[42]!]: { cumulative: [] } }, verbose: false },
    activeAtOffset: engine.ledgerEnd(),
  });
  const latencies: number[] = [];
  let count = 0;
  for (let i = 0; i < 30; i++) {
    const s = performance.now();
    const r = await client.request('POST', '/v2/state/active-contracts', body);
    latencies.push(performance.now() - s);
    count = JSON.parse(r.body).length;
  }
  latencies.sort((a, b) => a - b);
  global.gc?.();
  const rssMb = process.memoryUsage().rss / 2 ** 20;
  client.close();
  server.close();
  const p50 = percentile(latencies, 50);
  return [
    {
      name: 'ACS of 1 party (1,000 of 100,000 contracts), p50 of 30',
      value: round(p50),
      unit: 'ms',
      target: '< 50 ms',
      pass: p50 < 50 && count === 1000,
      detail: { contracts_returned: count, p99_ms: round(percentile(latencies, 99)), fill_ms: round(fillMs), active: engine.contracts.activeCount },
    },
    { name: 'RSS with 100,000 active contracts', value: Math.round(rssMb), unit: 'MB', target: '< 500 MB', pass: rssMb < 500 },
  ];
}

/** 100,000 active contracts of 100 parties: 1,000 transactions of 100 creates, one per party. Returns the parties. */
export function fillBenchWorld(engine: LedgerEngine): string[] {
  const parties = Array.from({ length: 100 }, (_, i) => engine.parties.allocate(`p${i}`).party);
  for (let batch = 0; batch < 1000; batch++) {
    engine.commands.submit({
      userId: 'bench',
      actAs: parties,
      readAs: [],
      commandId: `fill-${batch}`,
      workflowId: '',
      submissionId: `fill-${batch}`,
      commands: parties.map((owner, i) => ({ kind: 'create' as const, template: { package: { name: BENCH_TEMPLATE.packageName }, moduleName: 'Bench', entityName: 'Item' }, createArguments: { owner, n: String(batch * 100 + i) } })),
      disclosedContracts: [],
    });
  }
  return parties;
}

export function round(x: number): number {
  return Math.round(x * 10) / 10;
}

export async function runLedgerBench(): Promise<Result[]> {
  const results: Result[] = [];
  results.push(await benchStartup());
  results.push(await benchCreates());
  results.push(...(await benchAcs()));
  return results;
}

