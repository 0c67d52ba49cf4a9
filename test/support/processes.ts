/**
 * Real child processes for fault tests: `node --import tsx src/main.ts <command>` (the emulated
 * ledger, `serve`) started as an operator starts them, waited for by a line of their output,
 * killed with SIGKILL like a crash. Every process started here is killed when the test process
 * exits, so a failing test leaves nothing behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const alive = new Set<ChildProcess>();
let hook = false;

export interface NodeProcess {
  readonly child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Resolves with the first match of `re` in the output (waiting up to `timeoutMs`). */
  waitFor(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code (null when killed by a signal). */
  exited(timeoutMs?: number): Promise<number | null>;
  /** SIGKILL (a crash) and wait for the exit. */
  kill(): Promise<void>;
}

export interface StartOptions {
  /**
   * 'unread': stdout is a pipe this process never reads (a stalled log reader: once the pipe is
   * full the child's writes get EAGAIN); `output()` then holds stderr only, and the test may
   * destroy `child.stdout` to close the pipe (the child's writes then get EPIPE).
   */
  stdout?: 'read' | 'unread';
  /** What node runs instead of `--import tsx src/main.ts` (e.g. a bundle of it). */
  entry?: string[];
}

/** Starts `src/main.ts` with `args` and `env` (added to a minimal environment). */
export function startMain(args: string[], env: Record<string, string>, opts: StartOptions = {}): NodeProcess {
  if (!hook) {
    hook = true;
    process.once('exit', () => {
      for (const c of alive) c.kill('SIGKILL');
    });
  }
  const child = spawn(process.execPath, [...(opts.entry ?? ['--import', 'tsx', 'src/main.ts']), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'test', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  alive.add(child);
  let out = '';
  const waiters = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString('utf8');
    for (const w of waiters) w();
  };
  if (opts.stdout === 'unread') child.stdout!.pause();
  else child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exit = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      alive.delete(child);
      for (const w of waiters) w();
      resolve(code);
    });
  });
  const p: NodeProcess = {
    child,
    output: () => out,
    waitFor(re, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = out.match(re);
          if (m) {
            cleanup();
            resolve(m);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            cleanup();
            reject(new Error(`process exited before printing ${re}:\n${out}`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${re}:\n${out}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    exited(timeoutMs = 20_000) {
      return Promise.race([exit, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`process did not exit within ${timeoutMs} ms:\n${out}`)), timeoutMs).unref())]);
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exit;
    },
  };
  return p;
}

/** A free TCP port on 127.0.0.1 (the OS picks it; the caller binds it soon after). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Polls `cond` every 50 ms until it holds, or throws naming `what`. */
export async function until(cond: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await cond()) return;
    } catch {
      // not yet (e.g. connection refused)
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
