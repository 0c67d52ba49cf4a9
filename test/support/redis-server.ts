/**
 * A real `redis-server` for integration tests (DESIGN.md, "Real components"): a child process on a
 * free 127.0.0.1 port, no persistence, never the machine's 6379. It can be killed (SIGKILL, as when
 * Redis dies in production) and restarted on the same port, so tests can check that clients
 * recover. No mocks: if redis-server is not installed this throws and says how to install it.
 *
 * `startRedisServer({ preferEnvUrl: true })` uses `REDIS_URL` instead when it is set (an external
 * server); such a server cannot be stopped or restarted by the tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import { freePort } from './processes.js';

export interface RedisServer {
  /** `redis://127.0.0.1:<port>` (or REDIS_URL for an external server). */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Whether this is an external server from REDIS_URL (stop/restart then throw). */
  readonly external: boolean;
  /** Whether the child process is running. */
  readonly running: boolean;
  /** Kills the server (SIGKILL by default: no clean shutdown, like a crash) and waits for its exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same port (stopping it first if it runs); resolves once it answers PING. */
  restart(): Promise<void>;
  /** SIGSTOP: the server keeps its connections but answers nothing (a hung Redis). */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
}

export interface StartRedisServerOptions {
  /** Use `REDIS_URL` from the environment when it is set. Default false. */
  preferEnvUrl?: boolean;
  /** How long to wait for PING to answer. Default 10 s. */
  startTimeoutMs?: number;
  /**
   * Password (`--requirepass`); the URL then carries it. PING answers NOAUTH until then, which
   * still shows the server is up.
   */
  password?: string;
}

const HOST = '127.0.0.1';
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

export async function startRedisServer(opts: StartRedisServerOptions = {}): Promise<RedisServer> {
  const envUrl = process.env.REDIS_URL;
  if (opts.preferEnvUrl && envUrl) return externalServer(envUrl);
  installExitHook();
  const startTimeoutMs = opts.startTimeoutMs ?? 10_000;
  // A port found free can be taken before redis binds it; try a few.
  let lastErr: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    try {
      const child = await launch(port, startTimeoutMs, opts.password);
      return new LocalRedisServer(port, child, startTimeoutMs, opts.password);
    } catch (err) {
      if (err instanceof RedisNotInstalledError) throw err;
      lastErr = err;
    }
  }
  throw lastErr;
}

class RedisNotInstalledError extends Error {
  constructor() {
    super(
      'redis-server is not installed (or not on PATH). The integration tests start a real Redis: ' +
        'install it with `apt-get install redis-server` (.ci/run does this), or set REDIS_URL for tests that accept an external server.',
    );
  }
}

class LocalRedisServer implements RedisServer {
  readonly host = HOST;
  readonly external = false;
  readonly url: string;
  constructor(
    readonly port: number,
    private child: ChildProcess | undefined,
    private readonly startTimeoutMs: number,
    private readonly password: string | undefined,
  ) {
    this.url = password === undefined ? `redis://${HOST}:${port}` : `redis://:${encodeURIComponent(password)}@${HOST}:${port}`;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  async stop(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (child === undefined) return;
    this.child = undefined;
    await killAndWait(child, signal);
  }

  pause(): void {
    this.requireChild().kill('SIGSTOP');
  }

  resume(): void {
    this.requireChild().kill('SIGCONT');
  }

  private requireChild(): ChildProcess {
    if (this.child === undefined) throw new Error('redis-server is not running');
    return this.child;
  }

  async restart(): Promise<void> {
    await this.stop();
    // The old socket may linger for a moment; redis sets SO_REUSEADDR, but retry briefly anyway.
    const deadline = Date.now() + this.startTimeoutMs;
    for (;;) {
      try {
        this.child = await launch(this.port, this.startTimeoutMs, this.password);
        return;
      } catch (err) {
        if (err instanceof RedisNotInstalledError || Date.now() > deadline) throw err;
        await sleep(50);
      }
    }
  }
}

function externalServer(url: string): RedisServer {
  const u = new URL(url);
  const message = 'this test needs a redis-server it can stop and restart; it cannot control REDIS_URL';
  const unsupported = async (): Promise<never> => {
    throw new Error(message);
  };
  const unsupportedSync = (): never => {
    throw new Error(message);
  };
  return {
    url,
    host: u.hostname,
    port: Number(u.port || 6379),
    external: true,
    running: true,
    stop: unsupported,
    restart: unsupported,
    pause: unsupportedSync,
    resume: unsupportedSync,
  };
}

async function launch(port: number, timeoutMs: number, password: string | undefined): Promise<ChildProcess> {
  const args = [
    '--port', String(port),
    '--bind', HOST,
    '--save', '',
    '--appendonly', 'no',
    '--daemonize', 'no',
    '--dir', os.tmpdir(),
    '--loglevel', 'warning',
    ...(password === undefined ? [] : ['--requirepass', password]),
  ];
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (b: Buffer): void => {
    output = (output + b.toString()).slice(-4_000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);

  const failed = new Promise<never>((_, reject) => {
    child.once('error', (err: NodeJS.ErrnoException) => {
      reject(err.code === 'ENOENT' ? new RedisNotInstalledError() : err);
    });
    child.once('exit', (code, signal) => {
      reject(new Error(`redis-server on port ${port} exited before answering PING (code ${code}, signal ${signal}):\n${output}`));
    });
  });
  failed.catch(() => undefined); // observed below; avoid an unhandled rejection after success
  try {
    await Promise.race([waitForPing(port, timeoutMs), failed]);
  } catch (err) {
    if (child.exitCode === null && child.signalCode === null) await killAndWait(child, 'SIGKILL');
    throw err;
  }
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

async function waitForPing(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await ping(port)) return;
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer PING within ${timeoutMs} ms`);
    await sleep(20);
  }
}

/** One inline-command PING over a raw socket (no client library involved). */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: HOST, port });
    let reply = '';
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (b) => {
      reply += b.toString();
      // -NOAUTH: a password is required, so the server is up and answering.
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG') || reply.startsWith('-NOAUTH'));
    });
  });
}

function killAndWait(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
    if (signal !== 'SIGKILL') child.kill('SIGCONT'); // a paused server must run to handle SIGTERM
  });
}

/** Never leave a redis-server behind, whatever way the test process ends. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
