/**
 * Benchmark of interactive submission on the emulated ledger, on loopback only, bounded in
 * count and time: a TestTokenV1 transfer (TransferFactory_Transfer with the disclosed
 * TokenRules) by an external party, as a wallet does it: POST /v2/interactive-submission/prepare,
 * Ed25519 signature of the returned hash (node:crypto, in the load generator), POST
 * /v2/interactive-submission/executeAndWait.
 *  1. latency of one prepare + sign + executeAndWait, one client, p50 of 200 (target < 10 ms);
 *  2. signed transfers/s with 16 concurrent clients, each its own external sender (target >= 300/s).
 * The server (bench/isub-server.ts) runs in its own process; on a multi-core machine it is pinned
 * to core 0 and the load generator (this process) to core 1 with `taskset`, as the other
 * benchmarks keep server and load on different cores.
 * Run: `npm run bench -- interactive-submission` (writes .bench-out/interactive-submission.json).
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatTime } from '../src/canton/lf-value.js';
import { makeClient, percentile } from './http-client.js';
import { processCpuMs } from './registry.js';
import { firstJsonLine, type Result } from './report.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLIENTS = 16;
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 5000);
const LATENCY_SAMPLES = 200;
const TRANSFER_FACTORY_V1 = '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory';


interface World {
  url: string;
  admin: string;
  receiver: string;
  senders: Array<{ party: string; holdings: string[] }>;
  rules: unknown;
  now: string;
}

interface Signer {
  publicKey: string;
  fingerprint: string;
  privateKey: KeyObject;
}

function newSigner(): Signer {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  const purpose = Buffer.alloc(4);
  purpose.writeInt32BE(12);
  return { publicKey: raw.toString('base64'), fingerprint: `1220${createHash('sha256').update(Buffer.concat([purpose, raw])).digest('hex')}`, privateKey };
}

const pinnable = availableParallelism() > 1 && spawnSync('taskset', ['-V']).status === 0;

async function startServer(signers: Signer[], holdings: number): Promise<{ world: World; pid: number | undefined; stop: () => void }> {
  const node = [process.execPath, '--import', 'tsx', join(root, 'bench/isub-server.ts')];
  const [cmd, ...args] = pinnable ? ['taskset', '-c', '0', ...node] : node;
  const child = spawn(cmd!, args, { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
  // The server registers each sender's public key; the keys are made fresh for this run and
  // the private keys stay here (the load signs).
  const senders = signers.map(({ publicKey }) => ({ publicKey }));
  child.stdin!.end(JSON.stringify({ senders, holdings }));
  const world = await firstJsonLine<World>(child);
  if (pinnable) spawnSync('taskset', ['-cp', '1', String(process.pid)]);
  return { world, pid: child.pid, stop: () => child.kill('SIGTERM') };
}

let commandCounter = 0;

/** One transfer: prepare, sign, executeAndWait. Returns the HTTP statuses. */
async function transfer(client: ReturnType<typeof makeClient>, w: World, sender: { party: string; holdings: string[] }, signer: Signer): Promise<boolean> {
  const holding = sender.holdings.pop();
  if (!holding) throw new Error(`sender ${sender.party} ran out of holdings`);
  const now = BigInt(w.now);
  const prepareBody = JSON.stringify({
    userId: 'bench',
    commandId: `isub-bench-${++commandCounter}`,
    actAs: [sender.party],
    disclosedContracts: [w.rules],
    commands: [
      {
        ExerciseCommand: {
          templateId: TRANSFER_FACTORY_V1,
          contractId: (w.rules as { contractId: string }).contractId,
          choice: 'TransferFactory_Transfer',
          choiceArgument: {
            expectedAdmin: w.admin,
            transfer: {
              sender: sender.party,
              receiver: w.receiver,
              amount: '1',
              instrumentId: { admin: w.admin, id: 'BENCH' },
              requestedAt: formatTime(now - 60_000_000n),
              executeBefore: formatTime(now + 24n * 3_600_000_000n),
              inputHoldingCids: [holding],
              meta: { values: {} },
            },
            extraArgs: { context: { values: {} }, meta: { values: {} } },
          },
        },
      },
    ],
  });
  const prepared = await client.request('POST', '/v2/interactive-submission/prepare', prepareBody);
  if (prepared.status !== 200) return false;
  const p = JSON.parse(prepared.body) as { preparedTransaction: string; preparedTransactionHash: string };
  const signature = sign(null, Buffer.from(p.preparedTransactionHash, 'base64'), signer.privateKey).toString('base64');
  const executed = await client.request(
    'POST',
    '/v2/interactive-submission/executeAndWait',
    JSON.stringify({
      userId: 'bench',
      preparedTransaction: p.preparedTransaction,
      hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
      submissionId: `isub-bench-sub-${commandCounter}`,
      deduplicationPeriod: { Empty: {} },
      partySignatures: {
        signatures: [
          { party: sender.party, signatures: [{ signature, signedBy: signer.fingerprint, format: 'SIGNATURE_FORMAT_CONCAT', signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ED25519' }] },
        ],
      },
    }),
  );
  return executed.status === 200;
}

export async function runInteractiveSubmissionBench(): Promise<Result[]> {
  const signers = Array.from({ length: CLIENTS }, newSigner);
  // Enough holdings per sender for the latency run, warm-up and the throughput run at several times the target.
  const { world, pid, stop } = await startServer(signers, 1_000);
  const client = makeClient(world.url, CLIENTS);
  try {
    // warm-up
    for (let i = 0; i < 50; i++) await transfer(client, world, world.senders[0]!, signers[0]!);

    const latencies: number[] = [];
    let latencyErrors = 0;
    for (let i = 0; i < LATENCY_SAMPLES; i++) {
      const s = performance.now();
      if (!(await transfer(client, world, world.senders[1]!, signers[1]!))) latencyErrors++;
      latencies.push(performance.now() - s);
    }
    latencies.sort((a, b) => a - b);
    const p50 = percentile(latencies, 50);

    const loopLatencies: number[] = [];
    let errors = 0;
    const serverCpu0 = processCpuMs(pid);
    const loadCpu0 = process.cpuUsage();
    const t0 = performance.now();
    await Promise.all(
      world.senders.map(async (sender, i) => {
        while (performance.now() - t0 < DURATION_MS && sender.holdings.length > 0) {
          const s = performance.now();
          if (!(await transfer(client, world, sender, signers[i]!))) errors++;
          loopLatencies.push(performance.now() - s);
        }
      }),
    );
    const elapsed = (performance.now() - t0) / 1000;
    const rate = loopLatencies.length / elapsed;
    const serverCpu1 = processCpuMs(pid);
    const loadCpu = process.cpuUsage(loadCpu0);
    // CPU time used per wall second on each side: 1.0 = one core saturated
    const serverCpu = serverCpu0 !== undefined && serverCpu1 !== undefined ? round((serverCpu1 - serverCpu0) / (elapsed * 1000)) : 'n/a';
    const loadCpuShare = round((loadCpu.user + loadCpu.system) / 1000 / (elapsed * 1000));
    loopLatencies.sort((a, b) => a - b);
    return [
      {
        name: 'prepare + sign + executeAndWait of a TT1 transfer, 1 client, p50 of 200',
        value: round(p50),
        unit: 'ms',
        target: '< 10 ms',
        pass: p50 < 10 && latencyErrors === 0,
        detail: { p99_ms: round(percentile(latencies, 99)), errors: latencyErrors, pinned: pinnable },
      },
      {
        name: `signed TT1 transfers/s (${CLIENTS} clients, ${DURATION_MS / 1000} s)`,
        value: Math.round(rate),
        unit: 'transfers/s',
        target: '>= 300',
        pass: rate >= 300 && errors === 0,
        detail: {
          total: loopLatencies.length,
          errors,
          p50_ms: round(percentile(loopLatencies, 50)),
          p99_ms: round(percentile(loopLatencies, 99)),
          pinned: pinnable,
          server_cpu: serverCpu,
          load_cpu: loadCpuShare,
        },
      },
    ];
  } finally {
    client.close();
    stop();
  }
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
