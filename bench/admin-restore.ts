/**
 * Benchmark of the admin API's restore (src/emulator/admin): a test suite restores a snapshot
 * before every test, so it must be quick on a world of realistic size.
 *  - the stack (ledger, registries, scan, validator, admin API) in process, the demo world plus
 *    10,000 contracts (100 transactions of 100 creates, 100 parties);
 *  - a snapshot, then per round: 10 transactions of changes (100 creates, 10 archives), then
 *    `POST /admin/v1/snapshots/{id}/restore` over loopback, timed from request to answer (which
 *    includes ending streams and reloading the registries' indexes); median of 30 rounds.
 * Target: < 50 ms. Run: `npm run bench -- admin-restore` (no build needed: in process).
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { captureWorld, restoreWorld } from '../src/emulator/admin/world-state.js';
import { startStack } from '../src/stack.js';
import type { LedgerEngine } from '../src/emulator/participant/engine.js';
import { BENCH_TEMPLATE, round } from './ledger.js';
import type { Result } from './report.js';

const TEMPLATE = { package: { name: BENCH_TEMPLATE.packageName }, moduleName: 'Bench', entityName: 'Item' };

function creates(engine: LedgerEngine, parties: string[], tag: string): string[] {
  const tx = engine.commands.submit({
    userId: 'bench',
    actAs: parties,
    readAs: [],
    commandId: tag,
    workflowId: '',
    submissionId: tag,
    commands: parties.map((owner, i) => ({ kind: 'create' as const, template: TEMPLATE, createArguments: { owner, n: `${tag}-${i}` } })),
    disclosedContracts: [],
  });
  return tx.nodes.flatMap((n) => (n.kind === 'create' ? [n.contract.contractId] : []));
}

function archive(engine: LedgerEngine, owner: string, cid: string, tag: string): void {
  engine.commands.submit({
    userId: 'bench',
    actAs: [owner],
    readAs: [],
    commandId: tag,
    workflowId: '',
    submissionId: tag,
    commands: [{ kind: 'exercise' as const, template: TEMPLATE, contractId: cid, choice: 'Archive', choiceArgument: {} }],
    disclosedContracts: [],
  });
}

export async function runAdminRestoreBench(): Promise<Result[]> {
  const stack = await startStack({
    config: { port: 0, logLevel: 'silent', declaredTemplates: [BENCH_TEMPLATE] },
    registryPort: 0,
    scanPort: 0,
    validatorPort: 0,
    adminPort: 0,
  });
  try {
    const { engine } = stack;
    const parties = Array.from({ length: 100 }, (_, i) => engine.parties.allocate(`p${i}`).party);
    for (let b = 0; b < 100; b++) creates(engine, parties, `fill-${b}`);
    const contracts = engine.contracts.activeCount;
    const snap = await (await fetch(`${stack.adminUrl}/admin/v1/snapshots`, { method: 'POST' })).json();
    const id = (snap as { id: string }).id;
    const rounds = Number(process.env.BENCH_ROUNDS ?? 30);
    const times: number[] = [];
    let n = 0;
    for (let r = 0; r < rounds; r++) {
      const made = creates(engine, parties, `round-${r}`);
      for (let i = 0; i < 10; i++) archive(engine, parties[i]!, made[i]!, `archive-${r}-${n++}`);
      const t0 = performance.now();
      const res = await fetch(`${stack.adminUrl}/admin/v1/snapshots/${id}/restore`, { method: 'POST' });
      await res.text();
      times.push(performance.now() - t0);
      if (res.status !== 200 || engine.contracts.activeCount !== contracts) throw new Error(`restore failed: ${res.status}, ${engine.contracts.activeCount} active`);
    }
    times.sort((a, b) => a - b);
    const p50 = times[Math.floor(times.length / 2)]!;
    // The world's stores alone (no registry reload), in process, the same rounds.
    const world = { synchronizer: engine.synchronizer, participants: [engine], clock: stack.clock, scan: stack.scan?.store };
    const saved = captureWorld(world);
    const stores: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const made = creates(engine, parties, `stores-${r}`);
      for (let i = 0; i < 10; i++) archive(engine, parties[i]!, made[i]!, `stores-archive-${r}-${n++}`);
      const t0 = performance.now();
      restoreWorld(world, saved);
      stores.push(performance.now() - t0);
    }
    stores.sort((a, b) => a - b);
    const storesP50 = stores[Math.floor(stores.length / 2)]!;
    return [
      {
        name: `restore of a world with ${contracts} active contracts over HTTP (p50 of ${rounds})`,
        value: round(p50),
        unit: 'ms',
        target: '< 50 ms',
        pass: p50 < 50 && contracts >= 10_000,
        detail: { min_ms: round(times[0]!), max_ms: round(times.at(-1)!), ledger_end: engine.ledgerEnd(), load_average: os.loadavg()[0] },
      },
      {
        name: `of which the world's stores (restoreWorld in process, no registry reload; p50 of ${rounds})`,
        value: round(storesP50),
        unit: 'ms',
        target: 'information',
        pass: true,
        detail: { min_ms: round(stores[0]!), max_ms: round(stores.at(-1)!) },
      },
    ];
  } finally {
    await stack.close();
  }
}
