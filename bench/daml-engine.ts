/**
 * Benchmarks of the Daml-LF engine, on loopback only, bounded in count and time:
 *  1. upload + decode of splice-amulet-0.1.22.dar (51 packages) in process, cold (a fresh package
 *     store and decode cache each time, so nothing decoded before is reused): the participant's
 *     upload (unzip, SHA-256 of each dalf, type-level decoding, vetting) plus the decoding of
 *     every package as the ledger's engine does it (value bodies lazily), median of 5; wall and
 *     CPU time (`process.cpuUsage`, meaningful on a loaded machine). Target < 1 s;
 *  2. `node dist/main.js emulate` with TEMPLATE_ENGINE=daml and DARS_DIR=../shared/dars (every
 *     DAR uploaded, the demo world seeded through the evaluated templates), spawn to `/readyz`,
 *     median of 3, with the child's CPU time from /proc. Target < 2 s. Needs `npm run build`;
 *  3. TestTokenV1 transfer offer + accept through submit-and-wait (the `-for-transaction` variant,
 *     whose exercise result names the receiver's new holding): per load client, two parties pass
 *     one holding back and forth, each move a TransferFactory_Transfer (TokenRules disclosed) then
 *     the receiver's TransferInstruction_Accept; 16 clients, transactions/s over BENCH_DURATION_MS
 *     (default 5 s) after a warm-up. Measured with the evaluated DAR (target >= 500/s) and with the
 *     native templates in the same run (target: evaluated within 3x of native).
 * The server (bench/daml-server.ts) runs in its own process; on a multi-core machine it is pinned
 * to core 0 and the load generator (this process) to core 1 with `taskset`.
 * Run: `npm run build && npm run bench -- daml-engine` (writes .bench-out/daml-engine.json).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatTime } from '../src/canton/lf-value.js';
import { LF_ENGINE } from '../src/emulator/daml-lf-bridge/lf-engine.js';
import { DarDecodeCache } from '../src/emulator/dar/index.js';
import { PackageStore } from '../src/emulator/participant/packages.js';
import { makeClient, percentile } from './http-client.js';
import { round, startCli } from './ledger.js';
import { processCpuMs } from './registry.js';
import { firstJsonLine, type Result } from './report.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const DARS_DIR = join(root, '../shared/dars');
const CLIENTS = 16;
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 5000);
const WARMUP_MS = 1500;
const TRANSFER_FACTORY_V1 = '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory';
const TRANSFER_INSTRUCTION_V1 = '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction';
const pinnable = availableParallelism() > 1 && spawnSync('taskset', ['-V']).status === 0;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Upload + decode of the Amulet DAR on a fresh store and cache: wall and CPU ms, median of 5. */
function uploadDecode(): Result {
  const bytes = readFileSync(join(DARS_DIR, 'splice-amulet-0.1.22.dar'));
  const wall: number[] = [];
  const cpu: number[] = [];
  let packages = 0;
  for (let i = 0; i < 5; i++) {
    const store = new PackageStore({ decodeCache: new DarDecodeCache() });
    const t0 = performance.now();
    const c0 = cpuMs();
    const ids = store.uploadDar(bytes).newPackageIds;
    for (const id of ids) LF_ENGINE.decode(id, store.payload(id)!);
    cpu.push(cpuMs() - c0);
    wall.push(performance.now() - t0);
    packages = ids.length;
  }
  const ms = Math.round(median(wall));
  return {
    name: `upload + decode of splice-amulet-0.1.22.dar (${packages} packages, cold), median of 5`,
    value: ms,
    unit: 'ms',
    target: '< 1000',
    pass: ms < 1000 && packages === 51,
    detail: { cpuMs: Math.round(median(cpu)), wallSamples: wall.map(Math.round), cpuSamples: cpu.map(Math.round) },
  };
}

/** `emulate` with TEMPLATE_ENGINE=daml from spawn to /readyz: wall and the child's CPU ms, median of 3. */
async function startDaml(): Promise<Result> {
  const name = 'emulate with TEMPLATE_ENGINE=daml DARS_DIR=../shared/dars, spawn to /readyz, median of 3';
  if (!existsSync(fileURLToPath(new URL('../dist/main.js', import.meta.url)))) {
    return { name, value: -1, unit: 'ms', target: '< 2000', pass: false, detail: { skipped: 'dist/main.js missing: run npm run build first' } };
  }
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < 3; i++) {
    const { child, readyMs } = await startCli({ TEMPLATE_ENGINE: 'daml', DARS_DIR, SCAN_PORT: '0', VALIDATOR_PORT: '0', ADMIN_PORT: '0' });
    wall.push(readyMs);
    cpu.push(processCpuMs(child.pid) ?? -1);
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
  const ms = Math.round(median(wall));
  return { name, value: ms, unit: 'ms', target: '< 2000', pass: ms < 2000, detail: { childCpuMs: Math.round(median(cpu)), wallSamples: wall.map(Math.round), cpuSamples: cpu } };
}

interface ServerWorld {
  url: string;
  engine: string;
  kind: string | null;
  admin: string;
  pairs: Array<{ a: string; b: string; holding: string }>;
  rules: unknown;
}

interface Throughput {
  rate: number;
  total: number;
  errors: number;
  firstError?: string;
  p50: number;
  p99: number;
  serverCpuShare?: number;
  kind: string | null;
}

/** Transactions/s of offer + accept pairs against a server running TestTokenV1 with `engine`. */
async function measureTransfers(engine: 'native' | 'daml'): Promise<Throughput> {
  const node = [process.execPath, '--import', 'tsx', join(root, 'bench/daml-server.ts'), engine, String(CLIENTS)];
  const [cmd, ...args] = pinnable ? ['taskset', '-c', '0', ...node] : node;
  const child = spawn(cmd!, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const w = await firstJsonLine<ServerWorld>(child);
    const client = makeClient(w.url, CLIENTS);
    let n = 0;
    const submit = async (actAs: string, commands: unknown[], disclosedContracts: unknown[]) => {
      const body = JSON.stringify({
        commands: { commands, commandId: `bench-${engine}-${n++}`, actAs: [actAs], userId: 'bench', disclosedContracts },
        transactionFormat: { eventFormat: { filtersByParty: { [actAs]: { cumulative: [] } }, verbose: false }, transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS' },
      });
      const r = await client.request('POST', '/v2/commands/submit-and-wait-for-transaction', body);
      return { status: r.status, body: r.body };
    };
    // The fields read of a submit-and-wait-for-transaction answer (LEDGER_EFFECTS): the root exercise's result.
    // Not parsed with the ledger's zod schema: this runs per transaction in the load generator.
    interface ChoiceResult {
      output: { value: { transferInstructionCid?: string; receiverHoldingCids?: string[] } };
    }
    interface SubmittedTransaction {
      transaction: { events: Array<{ ExercisedEvent?: { nodeId: number; exerciseResult: ChoiceResult } }> };
    }
    const rootResult = (body: string): ChoiceResult => {
      const tx: SubmittedTransaction = JSON.parse(body);
      const root = tx.transaction.events.find((e) => e.ExercisedEvent?.nodeId === 0)?.ExercisedEvent;
      if (!root) throw new Error(`no root exercise in the transaction: ${body.slice(0, 200)}`);
      return root.exerciseResult;
    };
    const latencies: number[] = [];
    let errors = 0;
    let firstError: string | undefined;
    let counting = false;
    let done = 0;
    const loop = async (pair: ServerWorld['pairs'][number], until: () => boolean) => {
      let [from, to, holding] = [pair.a, pair.b, pair.holding];
      while (!until()) {
        const now = BigInt(Date.now()) * 1000n;
        const arg = {
          expectedAdmin: w.admin,
          transfer: {
            sender: from,
            receiver: to,
            amount: '10',
            instrumentId: { admin: w.admin, id: 'BENCH' },
            requestedAt: formatTime(now - 60_000_000n),
            executeBefore: formatTime(now + 3_600_000_000n),
            inputHoldingCids: [holding],
            meta: { values: {} },
          },
          extraArgs: { context: { values: {} }, meta: { values: {} } },
        };
        const s1 = performance.now();
        const offer = await submit(from, [{ ExerciseCommand: { templateId: TRANSFER_FACTORY_V1, contractId: (w.rules as { contractId: string }).contractId, choice: 'TransferFactory_Transfer', choiceArgument: arg } }], [w.rules]);
        const s2 = performance.now();
        if (offer.status !== 200) {
          errors++;
          firstError ??= offer.body.slice(0, 300);
          return;
        }
        const instr = rootResult(offer.body).output.value.transferInstructionCid;
        if (instr === undefined) throw new Error('the transfer created no transfer instruction');
        const accept = await submit(to, [{ ExerciseCommand: { templateId: TRANSFER_INSTRUCTION_V1, contractId: instr, choice: 'TransferInstruction_Accept', choiceArgument: { extraArgs: { context: { values: {} }, meta: { values: {} } } } } }], []);
        const s3 = performance.now();
        if (accept.status !== 200) {
          errors++;
          firstError ??= accept.body.slice(0, 300);
          return;
        }
        const received = rootResult(accept.body).output.value.receiverHoldingCids?.[0];
        if (received === undefined) throw new Error('the accept gave the receiver no holding');
        holding = received;
        [from, to] = [to, from];
        if (counting) {
          latencies.push(s2 - s1, s3 - s2);
          done += 2;
        }
      }
    };
    // Warm-up then measure, each client continuing with its own holding.
    const t0 = performance.now();
    const cpu0 = { t: performance.now(), ms: 0 };
    let stopAt = t0 + WARMUP_MS + DURATION_MS;
    const measureFrom = t0 + WARMUP_MS;
    const timer = setTimeout(() => {
      counting = true;
      cpu0.t = performance.now();
      cpu0.ms = processCpuMs(child.pid) ?? 0;
    }, WARMUP_MS);
    await Promise.all(w.pairs.map((p) => loop(p, () => performance.now() >= stopAt)));
    clearTimeout(timer);
    const elapsed = (performance.now() - Math.max(measureFrom, t0)) / 1000;
    const cpu1 = processCpuMs(child.pid);
    stopAt = 0;
    client.close();
    latencies.sort((a, b) => a - b);
    return {
      rate: done / elapsed,
      total: done,
      errors,
      firstError,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      serverCpuShare: cpu1 === undefined ? undefined : round((cpu1 - cpu0.ms) / (performance.now() - cpu0.t)),
      kind: w.kind,
    };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

export async function runDamlEngineBench(): Promise<Result[]> {
  const results: Result[] = [];
  results.push(uploadDecode());
  results.push(await startDaml());
  if (pinnable) spawnSync('taskset', ['-cp', '1', String(process.pid)]);
  const daml = await measureTransfers('daml');
  const native = await measureTransfers('native');
  const detail = (t: Throughput) => ({
    total: t.total,
    errors: t.errors,
    ...(t.firstError ? { first_error: t.firstError } : {}),
    p50_ms: round(t.p50),
    p99_ms: round(t.p99),
    server_cpu: t.serverCpuShare,
    template_kind: t.kind,
    pinned: pinnable,
  });
  results.push({
    name: `evaluated TestTokenV1 offer + accept via submit-and-wait (${CLIENTS} clients, ${DURATION_MS / 1000} s)`,
    value: Math.round(daml.rate),
    unit: 'transactions/s',
    target: '>= 500',
    pass: daml.rate >= 500 && daml.errors === 0 && daml.kind === 'daml',
    detail: detail(daml),
  });
  results.push({
    name: 'native TestTokenV1 offer + accept, same load, same run',
    value: Math.round(native.rate),
    unit: 'transactions/s',
    target: 'information',
    pass: native.errors === 0 && native.kind === 'native',
    detail: detail(native),
  });
  const ratio = native.rate / Math.max(daml.rate, 1e-9);
  results.push({ name: 'native / evaluated throughput', value: Math.round(ratio * 100) / 100, unit: 'x', target: '<= 3', pass: ratio <= 3 });
  return results;
}
