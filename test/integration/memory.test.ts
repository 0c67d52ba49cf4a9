/**
 * Memory under oversized bodies, with the real server processes: `emulate` (ledger, registry,
 * scan, validator) and `serve` (reading that ledger) are spawned as the operator runs them, then
 * every API receives 100 MB bodies, all in parallel, with and without a Content-Length, three
 * rounds. Each is refused with 413 before it is buffered (a declared length before a byte is
 * read, a chunked body at the first chunk over the API's limit), so the servers' resident memory
 * stays within 50 MB of what it was before. Baseline and after are measured after a full GC in the
 * server (a test-only preload); the peak is sampled every 20 ms. The figures are printed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
const MB = 1024 * 1024;
const children: ChildProcess[] = [];

function start(command: string, env: Record<string, string>, ready: RegExp): Promise<{ child: ChildProcess; out: string }> {
  const child = spawn(process.execPath, ['--expose-gc', '--require', './test/support/gc-on-signal.cjs', '--import', 'tsx', 'src/main.ts', command], {
    cwd: ROOT,
    // glibc keeps freed blocks below its mmap threshold in the process heap (RSS) for reuse; on
    // Node 24 the socket reads of the flood leave tens of MB there that the server no longer holds
    // (its JS heap and external memory are back at the baseline after the GC). Blocks of 64 KiB and
    // more are then mmap'ed and returned on free, so RSS shows what the server keeps, not the pool.
    env: { ...process.env, LOG_LEVEL: 'silent', MALLOC_MMAP_THRESHOLD_: '65536', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${command} did not start: ${out}`)), 30_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (ready.test(out)) {
        clearTimeout(timer);
        // the whole banner is written at once; give the pipe a moment
        setTimeout(() => resolve({ child, out }), 100);
      }
    });
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => reject(new Error(`${command} exited (${code}): ${out}`)));
  });
}

/** Resident memory after a full GC in the child (test/support/gc-on-signal.cjs). */
async function settledRssMb(pid: number): Promise<number> {
  process.kill(pid, 'SIGUSR2');
  await new Promise((r) => setTimeout(r, 500));
  return rssMb(pid);
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]) / 1024;
}

/** Sends `total` bytes (declared or chunked) and resolves with the status, or 0 if the connection closed without one. */
function bigPost(url: string, total: number, declared: boolean): Promise<number> {
  const u = new URL(url);
  const chunk = Buffer.alloc(MB, 0x20);
  return new Promise((resolve) => {
    let status = 0;
    const req = httpRequest(
      { host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: declared ? { 'content-length': String(total), 'content-type': 'application/json' } : { 'transfer-encoding': 'chunked', 'content-type': 'application/json' } },
      (res) => {
        status = res.statusCode!;
        res.resume();
        res.on('end', () => resolve(status));
      },
    );
    req.on('error', () => resolve(status));
    req.on('close', () => setTimeout(() => resolve(status), 50));
    let sent = 0;
    const write = (): void => {
      while (sent < total && !req.destroyed) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', write);
      }
      if (!req.destroyed) req.end();
    };
    write();
  });
}

let emulate: { child: ChildProcess; out: string };
let serve: { child: ChildProcess; out: string };
const urls: Record<string, string> = {};

beforeAll(async () => {
  emulate = await start('emulate', { PORT: '0', REGISTRY_PORT: '0', SCAN_PORT: '0', VALIDATOR_PORT: '0', ADMIN_PORT: '0', HOST: '127.0.0.1' }, /instrument\s+token/);
  const url = (label: string) => new RegExp(`^${label}\\s+(http\\S+)`, 'm').exec(emulate.out)![1]!;
  urls.ledger = url('ledger JSON API v2');
  urls.registry = url('token-standard registry');
  urls.scan = url('Amulet registry \\(admin: DSO\\)');
  urls.validator = url('validator').replace(/\/api\/validator$/, '');
  const admin = /^(token-admin::\S+)/m.exec(emulate.out)![1]!;
  const dir = mkdtempSync(join(tmpdir(), 'tr-memory-'));
  const file = join(dir, 'registry.json');
  writeFileSync(file, JSON.stringify({ adminParty: admin, ledger: { url: urls.ledger }, instruments: [{ id: 'TT2-USD', name: 'TT2', symbol: 'TUSD', decimals: 2, recipe: 'splice-test-token-v2' }], port: 0, host: '127.0.0.1' }));
  serve = await start('serve', { REGISTRY_CONFIG_FILE: file }, /token-standard registry\s+http/);
  urls.serve = /token-standard registry\s+(http\S+)/.exec(serve.out)![1]!;
}, 60_000);

afterAll(async () => {
  for (const c of children) {
    if (c.exitCode === null) {
      c.kill('SIGTERM');
      await new Promise((r) => c.once('exit', r));
    }
  }
});

describe('100 MB bodies to every API in parallel', () => {
  it('are refused 413 before buffering; RSS stays within 50 MB of the baseline', async () => {
    // every API gets a declared 100 MB body on each of these paths...
    const targets = [
      `${urls.ledger}/v2/parties`,
      `${urls.ledger}/v2/dars`,
      `${urls.ledger}/v2/commands/submit-and-wait`,
      `${urls.registry}/registry/transfer-instruction/v1/transfer-factory`,
      `${urls.scan}/api/scan/v0/amulet-rules`,
      `${urls.scan}/registry/transfer-instruction/v1/transfer-factory`,
      `${urls.validator}/api/validator/v0/register`,
      `${urls.serve}/registry/transfer-instruction/v1/transfer-factory`,
      `${urls.serve}/registry/allocation-instruction/v1/allocation-factory`,
    ];
    // ...and a chunked one (read up to the API's limit, then refused) on one path per API
    const chunked = new Set([targets[0], targets[3], targets[4], targets[6], targets[7]]);
    // warm up: load every code path once (small bodies, one 413 each)
    for (const t of targets) {
      await bigPost(t, 10, true);
      await bigPost(t, 70 * MB, true);
    }
    const pids = { emulate: emulate.child.pid!, serve: serve.child.pid! };
    const baseline = { emulate: await settledRssMb(pids.emulate), serve: await settledRssMb(pids.serve) };
    const peak = { ...baseline };
    const sampler = setInterval(() => {
      for (const k of ['emulate', 'serve'] as const) peak[k] = Math.max(peak[k], rssMb(pids[k]));
    }, 20);
    const statuses: number[] = [];
    const byTarget: Record<string, number[]> = {};
    try {
      for (let round = 0; round < 3; round++) {
        const sent = targets.flatMap((t) => [{ t, declared: true }, ...(chunked.has(t) ? [{ t, declared: false }] : [])]);
        const got = await Promise.all(sent.map((x) => bigPost(x.t, 100 * MB, x.declared)));
        statuses.push(...got);
        sent.forEach((x, i) => (byTarget[`${new URL(x.t).port}${new URL(x.t).pathname}${x.declared ? '' : ' (chunked)'}`] ??= []).push(got[i]!));
      }
    } finally {
      clearInterval(sampler);
    }
    const after = { emulate: await settledRssMb(pids.emulate), serve: await settledRssMb(pids.serve) };
    const fmt = (o: Record<string, number>) => Object.entries(o).map(([k, v]) => `${k} ${v.toFixed(1)} MB`).join(', ');
    console.log(`RSS baseline: ${fmt(baseline)}; peak: ${fmt(peak)}; after: ${fmt(after)}; statuses: ${JSON.stringify(statuses.reduce<Record<number, number>>((a, s) => ({ ...a, [s]: (a[s] ?? 0) + 1 }), {}))}`);
    console.log(JSON.stringify(byTarget));
    // the server answered 413 (a client still writing may instead see the connection closed: 0);
    // the validator has no register route for an anonymous caller: 404 without reading the body
    expect(statuses.every((s) => s === 413 || s === 0 || s === 404)).toBe(true);
    // Whether a client still writing reads the 413 or only sees the close depends on scheduling
    // (on a loaded machine about half see the close); the 413 must be there for a good share.
    expect(statuses.filter((s) => s === 413).length).toBeGreaterThanOrEqual(statuses.length / 4);
    expect(after.emulate - baseline.emulate).toBeLessThan(50);
    expect(after.serve - baseline.serve).toBeLessThan(50);
    // both still serve
    expect((await fetch(`${urls.ledger}/livez`)).status).toBe(200);
    expect((await fetch(`${urls.serve}/readyz`)).status).toBe(200);
  }, 120_000);
});
