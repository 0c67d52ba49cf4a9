/**
 * A closed-loop HTTP/1.1 load generator with little overhead, for throughput benchmarks on
 * loopback: N keep-alive connections over raw `net` sockets, each with one request in flight
 * (no pipelining), the request bytes built once, the response parsed only as far as the status
 * line and Content-Length (or the end of a chunked body), and its body compared with the expected
 * bytes. It is much cheaper per request than `http.request`, so the servers, not the client, are
 * what gets measured (bench/http-client.ts stays the convenient client for functional calls).
 *
 * Bounded in time (warm-up + duration, then every connection finishes its request in flight and
 * closes) and in count (`maxRequests`), and it refuses any host but 127.0.0.1.
 *
 * It runs in the calling thread (`runLoad`), or as a worker process:
 *   node --import tsx bench/load-client.ts '<LoadOptions as JSON>'
 * which prints one line of JSON (LoadResult) on stdout. Several worker processes started with the
 * same `startAt` begin and end together; their results are merged with `mergeResults`.
 */
import net from 'node:net';
import { fileURLToPath } from 'node:url';

export interface LoadOptions {
  port: number;
  /** Only 127.0.0.1 is accepted: load is never sent off the machine. */
  host?: '127.0.0.1';
  method: string;
  path: string;
  body: string;
  connections: number;
  warmupMs: number;
  durationMs: number;
  /** Hard bound on requests sent in the measured window, per load process. */
  maxRequests: number;
  /** Expected status and body (base64); responses that differ are counted in `mismatches`. */
  expectStatus: number;
  expectBodyBase64: string;
  /** Epoch ms at which to begin the warm-up (lets several processes start together). */
  startAt?: number;
  /**
   * Never sleep in the kernel while the load runs: the event loop always has an immediate
   * pending, so libuv polls its sockets with a zero timeout instead of blocking in epoll_wait.
   * Why: a server's write to a loopback socket whose reader is blocked runs the reader's wake-up
   * in the writer's system call (sock_def_readable, with interrupts off), and on a virtual
   * machine waking another vCPU costs tens of µs. A slow server leaves the load core idle, so it
   * pays that on every answer, while a fast server's client never sleeps and never pays it: the
   * comparison would then measure the hypervisor, not the servers. The load core is the load
   * generator's own (pinned), so polling takes nothing from the server; its CPU time then
   * reads 100% and no longer says whether the client was the bottleneck.
   */
  poll?: boolean;
}

export interface LoadResult {
  /** Requests completed in the measured window. */
  completed: number;
  /** Every answer received, warm-up included (each connection waits for its answer before sending again). */
  answered: number;
  /** Seconds from the start of the measured window to the last completion. */
  elapsedS: number;
  /** Latencies of measured requests, ms, sorted ascending. */
  latenciesMs: number[];
  mismatches: number;
  errors: number;
  /** CPU time this load process used during the measured window (user + system), ms. */
  cpuMs: number;
}

const CRLF2 = Buffer.from('\r\n\r\n');
const CHUNKED_END = Buffer.from('0\r\n\r\n');

export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const host = o.host ?? '127.0.0.1';
  if (host !== '127.0.0.1') throw new Error('the load client only talks to 127.0.0.1');
  const body = Buffer.from(o.body);
  const request = Buffer.concat([
    Buffer.from(`${o.method} ${o.path} HTTP/1.1\r\nHost: 127.0.0.1:${o.port}\r\nConnection: keep-alive\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`),
    body,
  ]);
  const expected = Buffer.from(o.expectBodyBase64, 'base64');
  if (o.startAt !== undefined) await new Promise((r) => setTimeout(r, Math.max(0, o.startAt! - Date.now())));

  const t0 = performance.now();
  const measureFrom = t0 + o.warmupMs;
  const stopAt = measureFrom + o.durationMs;
  const latencies: number[] = [];
  let sent = 0;
  let lastDone = measureFrom;
  let mismatches = 0;
  let errors = 0;
  let answered = 0;
  let cpuAtStart: NodeJS.CpuUsage | undefined;
  const cpuTimer = setTimeout(() => (cpuAtStart = process.cpuUsage()), o.warmupMs);

  const one = () =>
    new Promise<void>((resolve) => {
      const socket = net.connect({ host, port: o.port });
      socket.setNoDelay(true);
      let buf: Buffer = Buffer.alloc(0);
      let startedAt = 0;
      let measured = false;
      const next = () => {
        const now = performance.now();
        if (now >= stopAt || sent >= o.maxRequests) {
          socket.end();
          return;
        }
        measured = now >= measureFrom;
        if (measured) sent++;
        startedAt = now;
        socket.write(request);
      };
      socket.on('connect', next);
      socket.on('data', (chunk: Buffer) => {
        buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
        const headEnd = buf.indexOf(CRLF2);
        if (headEnd < 0) return;
        const head = buf.toString('latin1', 0, headEnd);
        const m = /\r\ncontent-length:\s*(\d+)/i.exec(head);
        let bodyBytes: Buffer;
        let total: number;
        if (m) {
          total = headEnd + 4 + Number(m[1]);
          if (buf.length < total) return;
          bodyBytes = buf.subarray(headEnd + 4, total);
        } else {
          // chunked: complete when the buffer ends with the last-chunk marker
          if (buf.length < headEnd + 4 + CHUNKED_END.length || !buf.subarray(buf.length - CHUNKED_END.length).equals(CHUNKED_END)) return;
          total = buf.length;
          bodyBytes = dechunk(buf.subarray(headEnd + 4));
        }
        const done = performance.now();
        answered++;
        const status = Number(head.slice(9, 12));
        if (status !== o.expectStatus || !bodyBytes.equals(expected)) mismatches++;
        if (measured) {
          latencies.push(done - startedAt);
          lastDone = done;
        }
        buf = buf.length > total ? buf.subarray(total) : Buffer.alloc(0);
        next();
      });
      socket.on('error', () => {
        errors++;
        resolve();
      });
      socket.on('close', () => resolve());
    });

  let polling = o.poll === true;
  const keepPolling = () => {
    if (polling) setImmediate(keepPolling);
  };
  keepPolling();
  await Promise.all(Array.from({ length: o.connections }, one));
  polling = false;
  clearTimeout(cpuTimer);
  const cpu = process.cpuUsage(cpuAtStart);
  latencies.sort((a, b) => a - b);
  return {
    completed: latencies.length,
    answered,
    elapsedS: (lastDone - measureFrom) / 1000,
    latenciesMs: latencies,
    mismatches,
    errors,
    cpuMs: cpuAtStart ? (cpu.user + cpu.system) / 1000 : NaN,
  };
}

function dechunk(b: Buffer): Buffer {
  const parts: Buffer[] = [];
  let i = 0;
  for (;;) {
    const eol = b.indexOf('\r\n', i);
    if (eol < 0) break;
    const size = parseInt(b.toString('latin1', i, eol), 16);
    if (!(size > 0)) break;
    parts.push(b.subarray(eol + 2, eol + 2 + size));
    i = eol + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** Results of load processes that ran side by side over the same window. */
export function mergeResults(results: LoadResult[]): LoadResult {
  const latencies = results.flatMap((r) => r.latenciesMs).sort((a, b) => a - b);
  return {
    completed: results.reduce((s, r) => s + r.completed, 0),
    answered: results.reduce((s, r) => s + r.answered, 0),
    elapsedS: Math.max(...results.map((r) => r.elapsedS)),
    latenciesMs: latencies,
    mismatches: results.reduce((s, r) => s + r.mismatches, 0),
    errors: results.reduce((s, r) => s + r.errors, 0),
    cpuMs: results.reduce((s, r) => s + r.cpuMs, 0),
  };
}

// Worker process mode.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const opts = JSON.parse(process.argv[2] ?? '{}') as LoadOptions;
  const result = await runLoad(opts);
  // latencies rounded to 1 µs keep the line short
  process.stdout.write(`${JSON.stringify({ ...result, latenciesMs: result.latenciesMs.map((x) => Math.round(x * 1000) / 1000) })}\n`);
}
