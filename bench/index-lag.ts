/**
 * How far `serve`'s contract index lags its ledger, and whether the registry ever answers for a
 * contract the ledger has already archived. The server (bench/index-lag-server.ts: the emulated
 * ledger and a registry wired as `serve` wires it, over loopback HTTP and websocket) runs in its
 * own process; on a multi-core machine it is pinned to core 0 and this load process to core 1
 * with `taskset`, as the other benchmarks do.
 *
 * Load: `BENCH_WALLETS` (8) wallets, each in a loop, paced together to `BENCH_TX_RATE` (500)
 * ledger transactions per second, for `BENCH_DURATION_MS` (10 s):
 *   1. the admin offers the wallet a mint (a pending transfer instruction);
 *   2. the wallet asks the registry for the instruction's accept context (must be 200);
 *   3. the wallet accepts on the ledger with that context (the ledger archives the instruction);
 *   4. the wallet asks for the accept context again, right after the ledger's answer (must be 404).
 * Figures:
 *   - completion → index: from the load's receipt of a transaction's submit-and-wait answer to the
 *     registry's index having applied that offset (p50/p99; negative: the index had it first).
 *     Target p99 < 50 ms;
 *   - contexts answered 200 for instructions the ledger had already archived (step 4). Target 0;
 *   - information: accept-context latency, the registry's ledger calls (ledger-end, update reads),
 *     record time → applied from the registry's own /metrics histogram.
 * Run: `npm run bench -- index-lag` (`BENCH_FOLLOW=poll`: the index follows by long polls, for comparison).
 */
import { spawn, spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeClient, percentile } from './http-client.js';
import { firstJsonLine, type Result } from './report.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pinnable = availableParallelism() > 1 && spawnSync('taskset', ['-V']).status === 0;

const TOKEN_RULES = '#splice-test-token-v2:Splice.Testing.Tokens.TestTokenV2:TokenRules';
const TRANSFER_INSTRUCTION_V2 = '#splice-api-token-transfer-instruction-v2:Splice.Api.Token.TransferInstructionV2:TransferInstruction';
const meta = { values: {} };
const basic = (owner: string) => ({ owner, provider: null, id: '' });

interface World {
  ledgerUrl: string;
  registryUrl: string;
  admin: string;
  wallets: string[];
}

async function startServer() {
  const node = [process.execPath, '--import', 'tsx', join(root, 'bench/index-lag-server.ts')];
  const [cmd, ...args] = pinnable ? ['taskset', '-c', '0', ...node] : node;
  const child = spawn(cmd!, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const world = await firstJsonLine<World>(child);
  if (pinnable) spawnSync('taskset', ['-cp', '1', String(process.pid)]);
  const applied = () =>
    new Promise<{ applied: number[]; transport: string }>((resolve) => {
      child.once('message', (m) => resolve(m as { applied: number[]; transport: string }));
      child.send('applied');
    });
  return { ...world, applied, stop: () => child.kill('SIGTERM') };
}

const now = () => performance.timeOrigin + performance.now();
const round = (x: number) => Math.round(x * 100) / 100;

interface ExercisedTx {
  transaction: { offset: number; events: Array<{ ExercisedEvent?: { exerciseResult: unknown } }> };
}

export async function runIndexLagBench(): Promise<Result[]> {
  const server = await startServer();
  const wallets = server.wallets.length;
  const ledger = makeClient(server.ledgerUrl, wallets * 2);
  const registry = makeClient(server.registryUrl, wallets * 2);
  let commands = 0;
  /** offset → when this process had the ledger's answer (epoch ms). */
  const completed = new Map<number, number>();

  async function submit(actAs: string, command: unknown, disclosedContracts: unknown[] = []): Promise<ExercisedTx> {
    const body = JSON.stringify({
      commands: { commands: [command], commandId: `lag-${++commands}`, actAs: [actAs], userId: 'bench', disclosedContracts },
      transactionFormat: { eventFormat: { filtersByParty: { [actAs]: { cumulative: [] } }, verbose: false }, transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS' },
    });
    const r = await ledger.request('POST', '/v2/commands/submit-and-wait-for-transaction', body);
    const t = now();
    if (r.status !== 200) throw new Error(`submit failed: ${r.status} ${r.body.slice(0, 300)}`);
    const tx = JSON.parse(r.body) as ExercisedTx;
    completed.set(tx.transaction.offset, t);
    return tx;
  }

  const rules = await submit(server.admin, { CreateCommand: { templateId: TOKEN_RULES, createArguments: { admin: server.admin } } });
  const rulesCid = (rules.transaction.events[0] as { CreatedEvent?: { contractId: string } }).CreatedEvent!.contractId;

  const durationMs = Number(process.env.BENCH_DURATION_MS ?? 10_000);
  const txRate = Number(process.env.BENCH_TX_RATE ?? 500);
  const contextMs: number[] = [];
  let liveNot200 = 0;
  /** Statuses of the live instructions' contexts that were not 200, with a sample body each. */
  const liveNot200ByStatus: Record<string, { count: number; sample: string }> = {};
  let archivedAnswered200 = 0;
  let cycles = 0;
  let failures = 0;
  const started = Date.now();
  let nextSlot = performance.now();
  /** Paces all wallets together to txRate transactions per second. */
  const pace = async () => {
    const slot = nextSlot;
    nextSlot = Math.max(nextSlot + 1000 / txRate, performance.now() - 50);
    const wait = slot - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  };
  const context = async (cid: string) => {
    const t = performance.now();
    const r = await registry.request('POST', `/registry/transfer-instruction/v2/${cid}/choice-contexts/accept`, '{}');
    contextMs.push(performance.now() - t);
    return r;
  };

  async function wallet(party: string): Promise<void> {
    while (Date.now() - started < durationMs) {
      try {
        await pace();
        const offer = await submit(server.admin, {
          ExerciseCommand: {
            templateId: TOKEN_RULES,
            contractId: rulesCid,
            choice: 'TokenRules_OfferMint',
            choiceArgument: {
              receiver: basic(party),
              amount: '1.0',
              instrumentId: { admin: server.admin, id: 'X2' },
              offeredAt: new Date(Date.now() - 1000).toISOString(),
              receiverConfig: { admin: server.admin, account: basic(party), ownerConfig: { canInitiate: true, mustApprove: true }, providerConfig: { canInitiate: false, mustApprove: false } },
            },
          },
        });
        const cid = (offer.transaction.events[0]!.ExercisedEvent!.exerciseResult as { offerCid: string }).offerCid;
        const live = await context(cid);
        if (live.status !== 200) {
          liveNot200++;
          const seen = (liveNot200ByStatus[live.status] ??= { count: 0, sample: live.body.slice(0, 200) });
          seen.count++;
          continue;
        }
        const ctx = JSON.parse(live.body) as { choiceContextData: unknown; disclosedContracts: unknown[] };
        await pace();
        await submit(
          party,
          { ExerciseCommand: { templateId: TRANSFER_INSTRUCTION_V2, contractId: cid, choice: 'TransferInstruction_Accept', choiceArgument: { actors: [party], extraArgs: { context: ctx.choiceContextData, meta } } } },
          ctx.disclosedContracts,
        );
        const gone = await context(cid);
        if (gone.status === 200) archivedAnswered200++;
        cycles++;
      } catch (e) {
        failures++;
        if (failures <= 3) console.error(e);
      }
    }
  }
  await Promise.all(server.wallets.map((w) => wallet(w)));
  const elapsedS = (Date.now() - started) / 1000;
  // Let the index take the last transactions.
  await new Promise((r) => setTimeout(r, 500));
  const { applied, transport } = await server.applied();
  const appliedAt = new Map<number, number>();
  for (let i = 0; i < applied.length; i += 2) if (!appliedAt.has(applied[i]!)) appliedAt.set(applied[i]!, applied[i + 1]!);
  const lags: number[] = [];
  let missing = 0;
  for (const [offset, t] of completed) {
    const a = appliedAt.get(offset);
    if (a === undefined) missing++;
    else lags.push(a - t);
  }
  lags.sort((a, b) => a - b);
  contextMs.sort((a, b) => a - b);
  const metrics = (await registry.request('GET', '/metrics')).body;
  const sample = (re: RegExp) => Number(re.exec(metrics)?.[1] ?? 0);
  const ledgerEndCalls = sample(/^token_registry_ledger_requests_total\{[^}]*endpoint="\/v2\/state\/ledger-end"[^}]*outcome="200"[^}]*\} (\d+)/m);
  const updateReads = sample(/^token_registry_ledger_requests_total\{[^}]*endpoint="\/v2\/updates"[^}]*outcome="200"[^}]*\} (\d+)/m);
  const endSeconds = sample(/^token_registry_ledger_request_duration_seconds_sum\{[^}]*endpoint="\/v2\/state\/ledger-end"[^}]*\} ([\d.e+-]+)/m);
  const endCount = sample(/^token_registry_ledger_request_duration_seconds_count\{[^}]*endpoint="\/v2\/state\/ledger-end"[^}]*\} (\d+)/m);
  const delayCount = sample(/^token_registry_contract_index_apply_delay_seconds_count (\d+)/m);
  const delaySum = sample(/^token_registry_contract_index_apply_delay_seconds_sum ([\d.e+-]+)/m);
  ledger.close();
  registry.close();
  server.stop();

  const p99 = round(percentile(lags, 99));
  const txPerS = round(completed.size / elapsedS);
  return [
    {
      name: 'completion → index applied, p99',
      value: p99,
      unit: 'ms',
      target: '< 50 ms',
      pass: p99 < 50 && missing === 0,
      detail: {
        p50: round(percentile(lags, 50)),
        p90: round(percentile(lags, 90)),
        min: round(lags[0] ?? NaN),
        max: round(lags[lags.length - 1] ?? NaN),
        transactions: completed.size,
        notApplied: missing,
        transport,
        recordTimeToAppliedMeanMs: round((delaySum / delayCount) * 1000),
      },
    },
    {
      name: 'accept contexts answered 200 for instructions the ledger had archived',
      value: archivedAnswered200,
      unit: 'answers',
      target: '0',
      pass: archivedAnswered200 === 0,
      detail: { checked: cycles, liveContextNot200: liveNot200, liveNot200ByStatus, failures },
    },
    {
      name: 'ledger transactions per second (wallets paced together)',
      value: txPerS,
      unit: 'tx/s',
      target: `information (asked ${txRate}/s, ${wallets} wallets)`,
      pass: true,
      detail: { cycles, cyclesPerS: round(cycles / elapsedS) },
    },
    {
      name: 'accept-context latency, p99',
      value: round(percentile(contextMs, 99)),
      unit: 'ms',
      target: 'information',
      pass: true,
      detail: { p50: round(percentile(contextMs, 50)), requests: contextMs.length, registryLedgerEndCalls: ledgerEndCalls, ledgerEndCallMeanMs: round((endSeconds / endCount) * 1000), registryUpdateReads: updateReads },
    },
  ];
}
