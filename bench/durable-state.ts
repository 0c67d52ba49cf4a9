/**
 * Benchmarks of durable emulator state (STATE_DIR), on loopback, bounded in count and time:
 *  1. creates/s through submit-and-wait with STATE_DIR, against the in-memory figure measured in
 *     the same run with the same load (target: >= 50%);
 *  2. restart of a world with 100,000 contracts: `emulate` on a STATE_DIR holding them, from
 *     spawn to `/readyz` (target < 3 s), and the same start without STATE_DIR for comparison.
 * Run: `npm run build && npm run bench -- durable-state`.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildEmulator } from '../src/emulator/index.js';
import { BENCH_TEMPLATE, fillBenchWorld, measureCreates, round, startCli } from './ledger.js';
import type { Result } from './report.js';

async function readyMs(env: Record<string, string>): Promise<number> {
  const { child, readyMs } = await startCli(env);
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  return readyMs;
}

export async function runDurableStateBench(): Promise<Result[]> {
  const dir = mkdtempSync(join(tmpdir(), 'token-registry-bench-state-'));
  try {
    const memory = await measureCreates();
    const durable = await measureCreates({ STATE_DIR: join(dir, 'creates') });
    const ratio = durable.rate / memory.rate;

    // A world of 100,000 contracts (1,000 transactions of 100), saved the way `emulate` would.
    const stateDir = join(dir, 'restart');
    const built = buildEmulator({ config: { logLevel: 'silent', stateDir, declaredTemplates: [BENCH_TEMPLATE] } });
    const { engine } = built;
    fillBenchWorld(engine);
    const contracts = engine.contracts.activeCount;
    built.durable!.close();
    const snapshotMb = statSync(join(stateDir, 'snapshot.bin')).size / 2 ** 20;
    const restart = await readyMs({ STATE_DIR: stateDir });
    const fresh = await readyMs({});
    return [
      {
        name: 'creates/s with STATE_DIR vs in memory (same run, 32 clients, 5 s each)',
        value: Math.round(ratio * 100),
        unit: '%',
        target: '>= 50%',
        pass: ratio >= 0.5 && durable.errors === 0,
        detail: { in_memory: Math.round(memory.rate), state_dir: Math.round(durable.rate), p50_ms: round(durable.p50), p99_ms: round(durable.p99) },
      },
      {
        name: `restart with STATE_DIR holding ${contracts} contracts: spawn to /readyz`,
        value: Math.round(restart),
        unit: 'ms',
        target: '< 3000 ms',
        pass: restart < 3000 && contracts >= 100_000,
        detail: { snapshot_mb: round(snapshotMb), start_without_state_ms: Math.round(fresh) },
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
