/**
 * `emulate` as a test harness starts it: a child process whose stdout is a pipe. Whatever that
 * pipe does (its reader stalls: a full pipe; its reader goes away: EPIPE), SIGTERM ends the
 * process within SHUTDOWN_DRAIN_MS + 2 s, and the log lines it could not write are counted on
 * stderr.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, startMain, until, type NodeProcess } from '../../support/processes.js';

const DRAIN_MS = 1000;
const BOUND_MS = DRAIN_MS + 2000;

let p: NodeProcess | undefined;
afterEach(async () => {
  await p?.kill();
  p = undefined;
});

async function startEmulate(): Promise<{ p: NodeProcess; base: string }> {
  const port = await freePort();
  const proc = startMain(
    ['emulate'],
    { PORT: String(port), REGISTRY_PORT: '0', SCAN_PORT: '0', VALIDATOR_PORT: '0', ADMIN_PORT: '0', LOG_LEVEL: 'info', SHUTDOWN_DRAIN_MS: String(DRAIN_MS) },
    { stdout: 'unread' },
  );
  p = proc;
  const base = `http://127.0.0.1:${port}`;
  await until(async () => (await fetch(`${base}/livez`)).ok, 30_000, 'the emulated ledger to listen');
  return { p: proc, base };
}

/** Requests whose access-log lines are ~6 KB each (the path is logged), `concurrency` at a time. */
function load(base: string, concurrency: number): { stop: () => Promise<void>; sent: () => number } {
  const path = `/livez/${'x'.repeat(6000)}`;
  let running = true;
  let sent = 0;
  const worker = async () => {
    while (running) {
      try {
        await (await fetch(`${base}${path}`)).arrayBuffer();
        sent++;
      } catch {
        await new Promise((r) => setTimeout(r, 20)); // refused once it stops accepting
      }
    }
  };
  const workers = Array.from({ length: concurrency }, worker);
  return {
    sent: () => sent,
    stop: async () => {
      running = false;
      await Promise.all(workers);
    },
  };
}

async function sigtermUnderLoad(proc: NodeProcess, base: string, beforeSigterm = () => {}): Promise<{ ms: number; code: number | null }> {
  const l = load(base, 8);
  // ~2 MB of log lines: far more than a pipe (64 KiB) and the parent's read buffer hold
  await until(() => l.sent() >= 300, 60_000, '300 requests answered');
  beforeSigterm();
  const t0 = Date.now();
  proc.child.kill('SIGTERM');
  try {
    const code = await proc.exited(BOUND_MS + 10_000);
    return { ms: Date.now() - t0, code };
  } finally {
    await l.stop();
  }
}

describe('emulate exits on SIGTERM whatever its stdout does', () => {
  it(`stdout a full pipe nobody reads: gone within SHUTDOWN_DRAIN_MS + 2 s, dropped lines reported`, async () => {
    const { p: proc, base } = await startEmulate();
    const { ms, code } = await sigtermUnderLoad(proc, base);
    expect(ms).toBeLessThan(BOUND_MS);
    expect(code).not.toBeNull(); // exited, not killed
    expect(proc.output()).toMatch(/log: \d+ lines? could not be written to stdout \(its reader did not keep up\)/);
  }, 90_000);

  it('stdout a pipe whose reader first stalled, then went away (EPIPE): gone within the bound, dropped lines reported', async () => {
    const { p: proc, base } = await startEmulate();
    // the pipe is full when its read end is closed: the child's next writes get EPIPE
    const { ms, code } = await sigtermUnderLoad(proc, base, () => proc.child.stdout!.destroy());
    expect(ms).toBeLessThan(BOUND_MS);
    expect(code).toBe(0); // a clean shutdown: nothing waits on the broken pipe
    expect(proc.output()).toMatch(/log: \d+ lines? could not be written to stdout \(EPIPE\)/);
  }, 90_000);
});
