/**
 * Graceful shutdown of the real CLI (`emulate`): under load, SIGTERM makes the process stop
 * accepting connections, finish every request it had accepted (long-polls of the ledger's update
 * list included), then close and exit 0. "Accepted" is what the server says it received: every
 * access-log line it wrote must be a complete 200 the client read in full; requests the client sent
 * after the listener closed are refused at connect time and never reach the log.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../src/emulator/index.js';
import { listen } from '../../../src/http/listen.js';
import { noAuth } from '../../../src/ledger-client/auth.js';
import { LedgerClient } from '../../../src/ledger-client/client.js';
import { until } from '../../support/processes.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
let child: ChildProcess | undefined;

afterEach(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

interface Started {
  child: ChildProcess;
  ledgerUrl: string;
  registryUrl: string;
  stdoutLines: () => string[];
  exited: Promise<number | null>;
  stderr: () => string;
}

async function startCli(env: Record<string, string>): Promise<Started> {
  const c = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/main.ts'), 'emulate'], {
    cwd: root,
    env: { ...process.env, PORT: '0', REGISTRY_PORT: '0', SCAN_PORT: '0', VALIDATOR_PORT: '0', ADMIN_PORT: '0', HOST: '127.0.0.1', REDIS_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = c;
  let out = '';
  let err = '';
  c.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  c.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => c.once('exit', (code) => r(code)));
  const deadline = Date.now() + 20_000;
  let m: RegExpExecArray | null = null;
  while (!(m = /ledger JSON API v2\s+(http:\/\/\S+)[\s\S]*token-standard registry\s+(http:\/\/\S+)/.exec(out))) {
    if (c.exitCode !== null || Date.now() > deadline) throw new Error(`the CLI did not start: ${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child: c, ledgerUrl: m[1]!, registryUrl: m[2]!, stdoutLines: () => out.split('\n'), exited, stderr: () => err };
}

describe('SIGTERM under load', () => {
  it('drains every accepted request, refuses new connections, closes, and exits 0', async () => {
    const cli = await startCli({ LOG_LEVEL: 'info', SHUTDOWN_DRAIN_MS: '8000' });
    const ledger = new LedgerClient({ baseUrl: cli.ledgerUrl, tokenProvider: noAuth, retry: { maxAttempts: 1 }, timeoutMs: 15_000 });
    const parties = (await ledger.request<{ partyDetails: Array<{ party: string }> }>('GET', '/v2/parties')).partyDetails.map((p) => p.party);
    const end = await ledger.ledgerEnd();

    // Long-polls that are certainly in flight when the signal comes: the node answers after 2.5 s without news.
    const longPolls = Array.from({ length: 4 }, () =>
      ledger.updates({ beginExclusive: end, parties: [parties[0]!], idleTimeoutMs: 2500 }).then(
        (u) => ({ ok: true as const, n: u.length, at: Date.now() }),
        (e: unknown) => ({ ok: false as const, error: String(e), at: Date.now() }),
      ),
    );

    // Bounded concurrent load on the registry: 12 clients, each a loop of requests with its own id.
    const outcomes = new Map<string, 'full' | string>();
    let stop = false;
    let seq = 0;
    const client = async () => {
      for (let i = 0; i < 400 && !stop; i++) {
        const id = `load-${seq++}`;
        try {
          const r = await fetch(`${cli.registryUrl}/registry/metadata/v1/info`, { headers: { 'x-request-id': id } });
          const body = (await r.json()) as { adminId?: string };
          outcomes.set(id, r.status === 200 && typeof body.adminId === 'string' ? 'full' : `status ${r.status}`);
        } catch (e) {
          outcomes.set(id, `error ${(e as Error).cause ?? e}`);
          await new Promise((r) => setTimeout(r, 5));
        }
      }
    };
    const clients = Array.from({ length: 12 }, client);

    // Signal once the load is really flowing (a count, not a fixed delay: a busy machine is slower).
    await until(() => [...outcomes.values()].filter((o) => o === 'full').length >= 40, 20_000, 'registry load to flow');
    const signalledAt = Date.now();
    cli.child.kill('SIGTERM');
    // The listener closes at once: a new connection is refused while the long-polls still run. The
    // probe is a fresh TCP connection, made once the process says it is draining (fetch could reuse
    // a pooled keep-alive connection of the load, which the drain closes instead).
    await until(() => /SIGTERM: draining/.test(cli.stderr()), 10_000, 'the drain to start');
    const late = await new Promise<string>((resolve) => {
      const u = new URL(cli.registryUrl);
      const sock = connect({ host: u.hostname, port: Number(u.port) });
      sock.once('connect', () => {
        sock.destroy();
        resolve('connected');
      });
      sock.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? String(e)));
    });
    expect(late).toBe('ECONNREFUSED');
    stop = true;
    await Promise.all(clients);

    const polls = await Promise.all(longPolls);
    for (const p of polls) {
      expect(p).toMatchObject({ ok: true, n: 0 });
      expect(p.at).toBeGreaterThan(signalledAt); // answered during the drain, not before the signal
    }
    const code = await cli.exited;
    expect(code, cli.stderr()).toBe(0);
    expect(cli.stderr()).toMatch(/SIGTERM: draining/);

    // What the server accepted, from its own access log: each one answered in full.
    const accepted = cli
      .stdoutLines()
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg?: string; reqId?: string; status?: number; aborted?: boolean; service?: string })
      .filter((l) => l.msg === 'request');
    const registryAccepted = accepted.filter((l) => l.service === 'registry');
    expect(registryAccepted.length).toBeGreaterThan(20);
    for (const l of registryAccepted) {
      expect(l.aborted, l.reqId).toBeUndefined();
      expect(l.status).toBe(200);
      expect(outcomes.get(l.reqId!), l.reqId).toBe('full');
    }
    const ledgerPolls = accepted.filter((l) => l.service === 'ledger' && l.status === 200 && !l.aborted);
    expect(ledgerPolls.length).toBeGreaterThanOrEqual(4 + 2);
    // Requests the client saw fail never reached the server (connection refused or reset before a byte).
    const failed = [...outcomes].filter(([, o]) => o !== 'full');
    for (const [id, o] of failed) {
      expect(o).toMatch(/^error /);
      expect(registryAccepted.some((l) => l.reqId === id), `${id} was accepted but failed: ${o}`).toBe(false);
    }
  });

  it('`serve` drains too: a request in flight at SIGTERM is answered, then the process exits 0', async () => {
    // serve reads an emulated ledger over HTTP, through a relay that can make the ledger slow: the
    // first instruments request reads the total supply from the ledger (an ACS read), so with a
    // slow ACS it is certainly in flight when the signal comes.
    const emu = await startEmulator({ config: { port: 0, logLevel: 'silent' } });
    let slowAcs = false;
    const relay = await listen(
      (req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (d: Buffer) => chunks.push(d));
        req.on('end', () => {
          const delay = slowAcs && req.url!.startsWith('/v2/state/active-contracts') ? 2500 : 0;
          setTimeout(() => {
            fetch(`${emu.ledgerUrl}${req.url}`, {
              method: req.method,
              headers: { 'content-type': 'application/json' },
              body: req.method === 'GET' ? undefined : Buffer.concat(chunks),
            }).then(
              async (r) => res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/json' }).end(Buffer.from(await r.arrayBuffer())),
              () => res.writeHead(502).end(),
            );
          }, delay);
        });
      },
      { port: 0, host: '127.0.0.1' },
    );
    try {
      const admin = emu.seeded!.parties.find((p) => p.hint === 'token-admin')!.party;
      const dir = mkdtempSync(join(tmpdir(), 'tr-serve-sigterm-'));
      const file = join(dir, 'registry.json');
      writeFileSync(
        file,
        JSON.stringify({
          adminParty: admin,
          ledger: { url: relay.url },
          instruments: [{ id: 'TT2-USD', name: 'Test Token Two (USD)', symbol: 'TUSD', decimals: 2, recipe: 'splice-test-token-v2' }],
          port: 0,
          host: '127.0.0.1',
        }),
      );
      const c = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/main.ts'), 'serve'], {
        cwd: root,
        env: { ...process.env, REGISTRY_CONFIG_FILE: file, LOG_LEVEL: 'info', SHUTDOWN_DRAIN_MS: '5000', REDIS_URL: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child = c;
      let out = '';
      let err = '';
      c.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      c.stderr!.on('data', (d: Buffer) => (err += d.toString()));
      const exited = new Promise<number | null>((r) => c.once('exit', (code) => r(code)));
      const deadline = Date.now() + 20_000;
      let m: RegExpExecArray | null = null;
      while (!(m = /token-standard registry\s+(http:\/\/\S+)/.exec(out))) {
        if (c.exitCode !== null || Date.now() > deadline) throw new Error(`serve did not start: ${err}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const url = m[1]!;
      while ((await fetch(`${url}/readyz`)).status !== 200) await new Promise((r) => setTimeout(r, 50));
      // 20 concurrent requests held up by the slow ledger, then the signal: what the server accepted
      // must be answered in full (its access log says what it accepted).
      slowAcs = true;
      const inflight = Array.from({ length: 20 }, (_, i) =>
        fetch(`${url}/registry/metadata/v1/instruments`, { headers: { 'x-request-id': `serve-${i}` } }).then(
          async (r) => ({ status: r.status, instruments: ((await r.json()) as { instruments?: unknown[] }).instruments }),
          (e: unknown) => ({ status: 0, instruments: undefined, error: String(e) }),
        ),
      );
      await new Promise((r) => setTimeout(r, 1000));
      const signalledAt = Date.now();
      c.kill('SIGTERM');
      const answers = await Promise.all(inflight);
      expect(Date.now() - signalledAt).toBeGreaterThan(500); // they were still waiting on the ledger
      expect(await exited, err).toBe(0);
      expect(err).toMatch(/SIGTERM: draining/);
      const accepted = out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { msg?: string; reqId?: string; status?: number; aborted?: boolean })
        .filter((l) => l.msg === 'request' && l.reqId?.startsWith('serve-'));
      for (const l of accepted) {
        expect(l.aborted, l.reqId).toBeUndefined();
        const a = answers[Number(l.reqId!.slice('serve-'.length))]!;
        expect(a.status, l.reqId).toBe(200);
        expect(a.instruments).toHaveLength(1);
      }
      // on a busy machine a few may not have connected within the second before the signal
      expect(accepted.length).toBeGreaterThanOrEqual(10);
      // every request either was accepted and answered in full, or never reached the server
      for (const [i, a] of answers.entries()) {
        if (a.status !== 200) expect(accepted.some((l) => l.reqId === `serve-${i}`)).toBe(false);
      }
    } finally {
      await relay.close({ drainMs: 0 });
      await emu.close();
    }
  });
});
