/**
 * Benchmarks of the ledger's websocket channels (src/emulator/ledger-api/websocket.ts), loopback
 * only, bounded in count and time. The server (bench/ws-server.ts) runs in its own process; on a
 * multi-core machine it is pinned to core 0 and this load process to core 1 with `taskset`, as the
 * other benchmarks do.
 *  1. live latency: from the submit-and-wait answer to the subscriber seeing that transaction on
 *     `/v2/updates` (500 sequential creates; target p99 < 5 ms);
 *  2. 1,000 concurrent subscribers on `/v2/updates`: all receive one new transaction (fan-out
 *     time), server RSS (target < 600 MB);
 *  3. a slow consumer (stops reading) while ~10 MB of updates are committed: the server's largest
 *     send buffer stays bounded (target < 1 MB; the high-water mark is 256 KiB).
 * Run: `npm run bench -- websocket` (prints a table and writes .bench-out/websocket.json).
 */
import { spawn, spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { makeClient, percentile } from './http-client.js';
import { firstJsonLine, type Result } from './report.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pinnable = availableParallelism() > 1 && spawnSync('taskset', ['-V']).status === 0;

interface Stats {
  rssMb: number;
  subscriptions: number;
  maxBufferedAmount: number;
  ledgerEnd: number;
}

async function startServer() {
  const node = [process.execPath, '--expose-gc', '--import', 'tsx', join(root, 'bench/ws-server.ts')];
  const [cmd, ...args] = pinnable ? ['taskset', '-c', '0', ...node] : node;
  const child = spawn(cmd!, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const world = await firstJsonLine<{ url: string; alice: string }>(child);
  if (pinnable) spawnSync('taskset', ['-cp', '1', String(process.pid)]);
  const stats = () =>
    new Promise<Stats>((resolve) => {
      child.once('message', (m) => resolve(m as Stats));
      child.send('stats');
    });
  return { ...world, stats, stop: () => child.kill('SIGTERM') };
}

const updatesRequest = (party: string, beginExclusive: number) => ({
  beginExclusive,
  updateFormat: { includeTransactions: { eventFormat: { filtersByParty: { [party]: { cumulative: [] } }, verbose: false }, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' } },
});

function open(wsUrl: string, request: unknown): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${wsUrl}/v2/updates`, ['daml.ws.auth']);
    ws.once('open', () => {
      ws.send(JSON.stringify(request));
      resolve(ws);
    });
    ws.once('error', reject);
  });
}

let commandCounter = 0;
function createBody(alice: string, creates = 1): string {
  const n = ++commandCounter;
  return JSON.stringify({
    commands: Array.from({ length: creates }, (_, i) => ({ CreateCommand: { templateId: '#token-registry-bench:Bench:Item', createArguments: { owner: alice, n: `${n}-${i}` } } })),
    commandId: `ws-bench-${n}`,
    actAs: [alice],
    userId: 'bench',
  });
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

export async function runWebsocketBench(): Promise<Result[]> {
  const server = await startServer();
  const wsUrl = server.url.replace(/^http/, 'ws');
  const client = makeClient(server.url, 4);
  const results: Result[] = [];
  try {
    // 1. submit-and-wait answer -> subscriber sees the transaction
    const seen = new Map<string, number>();
    const waiting = new Map<string, () => void>();
    const sub = await open(wsUrl, updatesRequest(server.alice, 0));
    sub.on('message', (data) => {
      const t = performance.now();
      const updateId = (JSON.parse(String(data)) as { update: { Transaction: { value: { updateId: string } } } }).update.Transaction.value.updateId;
      seen.set(updateId, t);
      waiting.get(updateId)?.();
    });
    const latencies: number[] = [];
    for (let i = 0; i < 550; i++) {
      const r = await client.request('POST', '/v2/commands/submit-and-wait', createBody(server.alice));
      const answered = performance.now();
      const { updateId } = JSON.parse(r.body) as { updateId: string };
      if (!seen.has(updateId)) await new Promise<void>((resolve) => waiting.set(updateId, resolve));
      // Negative when the frame arrived before the HTTP answer (the stream is fed as the commit
      // returns, the answer is written after it).
      if (i >= 50) latencies.push(seen.get(updateId)! - answered);
      waiting.delete(updateId);
    }
    sub.close();
    latencies.sort((a, b) => a - b);
    const p99 = percentile(latencies, 99);
    results.push({
      name: 'submit-and-wait answer -> subscriber sees the tx, p99 of 500',
      value: round(p99),
      unit: 'ms',
      target: '< 5 ms',
      pass: p99 < 5,
      detail: {
        p50_ms: round(percentile(latencies, 50)),
        max_ms: round(latencies.at(-1)!),
        seen_before_answer: latencies.filter((l) => l <= 0).length,
        pinned: pinnable,
      },
    });

    // 2. 1,000 concurrent subscribers
    const before = await server.stats();
    const subscribers = 1000;
    const end = before.ledgerEnd;
    const sockets: WebSocket[] = [];
    let received = 0;
    let allReceived: () => void = () => {};
    const done = new Promise<void>((r) => (allReceived = r));
    for (let i = 0; i < subscribers; i += 100) {
      const batch = await Promise.all(Array.from({ length: Math.min(100, subscribers - i) }, () => open(wsUrl, updatesRequest(server.alice, end))));
      for (const ws of batch) {
        ws.on('message', () => {
          if (++received === subscribers) allReceived();
        });
        sockets.push(ws);
      }
    }
    await new Promise((r) => setTimeout(r, 200));
    const t0 = performance.now();
    await client.request('POST', '/v2/commands/submit-and-wait', createBody(server.alice));
    await done;
    const fanOutMs = performance.now() - t0;
    const withSubscribers = await server.stats();
    for (const ws of sockets) ws.close();
    results.push({
      name: `RSS with ${subscribers} concurrent subscribers`,
      value: Math.round(withSubscribers.rssMb),
      unit: 'MB',
      target: '< 600 MB',
      pass: withSubscribers.rssMb < 600 && withSubscribers.subscriptions === subscribers,
      detail: { subscriptions: withSubscribers.subscriptions, rss_before_mb: Math.round(before.rssMb), fan_out_ms: round(fanOutMs) },
    });

    // 3. a slow consumer
    await new Promise((r) => setTimeout(r, 200));
    const slow = await open(wsUrl, updatesRequest(server.alice, (await server.stats()).ledgerEnd));
    slow.pause();
    let bytes = 0;
    slow.on('message', (d) => (bytes += String(d).length));
    const txs = 200;
    for (let i = 0; i < txs; i++) await client.request('POST', '/v2/commands/submit-and-wait', createBody(server.alice, 50));
    await new Promise((r) => setTimeout(r, 300));
    const congested = await server.stats();
    slow.resume();
    const t1 = performance.now();
    while (bytes === 0 || performance.now() - t1 < 100) await new Promise((r) => setTimeout(r, 20));
    slow.close();
    const bound = 1024 * 1024;
    results.push({
      name: `slow consumer: largest server-side send buffer (${txs} txs of 50 creates pending)`,
      value: Math.round(congested.maxBufferedAmount / 1024),
      unit: 'KiB',
      target: '< 1024 KiB',
      pass: congested.maxBufferedAmount < bound,
      detail: { rss_mb: Math.round(congested.rssMb) },
    });
    return results;
  } finally {
    client.close();
    server.stop();
  }
}
