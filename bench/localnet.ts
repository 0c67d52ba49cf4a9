/**
 * The `localnet` profile as a team starts it instead of LocalNet, on loopback:
 *  1. spawn to every port ready: `node dist/main.js emulate` with PROFILE=localnet until each of
 *     LocalNet's addresses answers (the app-user and app-provider ledgers' `/readyz` on 2975 and
 *     3975, the validator's `/v0/validator-user` on 2000, scan's `/v0/dso-party-id` and the Amulet
 *     registry's info on 4000), median of 5 (target < 1.5 s);
 *  2. the process's resident memory once ready (VmRSS of /proc/<pid>/status), median of the same
 *     5 starts (target < 300 MB).
 * LocalNet's ports are fixed: nothing else may listen on them while this runs.
 * Run: `npm run build && npm run bench -- localnet` (writes .bench-out/localnet.json).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Result } from './report.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** What must answer 200 before the stack counts as ready: every address of LocalNet the profile serves. */
const PROBES = [
  'http://127.0.0.1:2975/readyz',
  'http://127.0.0.1:3975/readyz',
  'http://127.0.0.1:2000/api/validator/v0/validator-user',
  'http://127.0.0.1:4000/api/scan/v0/dso-party-id',
  'http://127.0.0.1:4000/registry/metadata/v1/info',
  'http://127.0.0.1:5634/registry/metadata/v1/info',
];

async function answers(url: string): Promise<boolean> {
  try {
    const r = await fetch(url);
    await r.arrayBuffer();
    return r.status === 200;
  } catch {
    return false;
  }
}

/** Resident set size of `pid` in MB (Linux). */
function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for process ${pid}`);
  return Number(m[1]) / 1024;
}

async function startOnce(): Promise<{ readyMs: number; rss: number }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [join(root, 'dist/main.js'), 'emulate'], {
    env: { ...process.env, PROFILE: 'localnet', ADMIN_PORT: '0', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    const pending = new Set(PROBES);
    const deadline = t0 + 20_000;
    while (pending.size > 0) {
      if (child.exitCode !== null) throw new Error(`emulate exited with ${child.exitCode} before every port was ready`);
      if (performance.now() > deadline) throw new Error(`not ready within 20 s: ${[...pending].join(', ')}`);
      await Promise.all([...pending].map(async (u) => (await answers(u)) && pending.delete(u)));
      if (pending.size > 0) await new Promise((r) => setTimeout(r, 5));
    }
    const readyMs = performance.now() - t0;
    return { readyMs, rss: rssMb(child.pid!) };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

export async function runLocalnetBench(): Promise<Result[]> {
  const runs: Array<{ readyMs: number; rss: number }> = [];
  for (let i = 0; i < 5; i++) runs.push(await startOnce());
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const ready = median(runs.map((r) => r.readyMs));
  const rss = median(runs.map((r) => r.rss));
  return [
    {
      name: 'PROFILE=localnet spawn to every port ready (median of 5)',
      value: Math.round(ready),
      unit: 'ms',
      target: '< 1500 ms',
      pass: ready < 1500,
      detail: { samples: runs.map((r) => Math.round(r.readyMs)) },
    },
    {
      name: 'PROFILE=localnet RSS once ready (median of 5)',
      value: Math.round(rss),
      unit: 'MB',
      target: '< 300 MB',
      pass: rss < 300,
      detail: { samples: runs.map((r) => Math.round(r.rss)) },
    },
  ];
}
