/**
 * Durable emulator state (STATE_DIR) against a disk that fails under it, with the real CLI
 * (`emulate`) as a child process and real sockets:
 *  - the disk fills (a small tmpfs topped up with a filler file): writes are answered 503 with the
 *    ledger API's JsCantonError and Retry-After, reads go on, /readyz is 503; once space is back the
 *    node takes commands again by itself; after a kill -9 and a restart every acknowledged command
 *    is there and none that was refused;
 *  - the disk fills while a snapshot is written: the snapshot is dropped (its temporary file
 *    removed), the node keeps serving, and the same holds after kill -9;
 *  - a read-only or uncreatable STATE_DIR is one configuration error line and exit 1.
 *
 * The tmpfs needs root (`mount -t tmpfs`): without it the tmpfs tests are skipped, except in CI
 * (CI=true), where they must run.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, closeSync, readdirSync, rmSync, statfsSync, writeFileSync, writeSync, fsyncSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GetLedgerEndResponseSchema } from '../../../src/ledger-client/schemas/events.js';
import { ListKnownPartiesResponseSchema } from '../../../src/ledger-client/schemas/parties.js';
import { startMain, until, type NodeProcess } from '../../support/processes.js';

const PING = '#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping';
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const mounts: string[] = [];
const dirs: string[] = [];
const processes: NodeProcess[] = [];

/** A fresh tmpfs of `size` mounted on a new directory, or the reason it cannot be. */
function mountTmpfs(size: string): { dir: string } | { error: string } {
  const dir = mkdtempSync(join(tmpdir(), 'token-registry-tmpfs-'));
  dirs.push(dir);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (e) {
    return { error: `mount -t tmpfs failed (${String((e as { stderr?: Buffer }).stderr ?? e).trim()})` };
  }
  mounts.push(dir);
  return { dir };
}

// Probed once at collection: can this process mount a tmpfs?
const probe = mountTmpfs('1m');
const canMount = 'dir' in probe;
if (!canMount && !IN_CI) console.warn(`[STATE_DIR disk tests] SKIPPED: ${probe.error}`);
const tmpfsIt = canMount || IN_CI ? it : it.skip;

afterAll(async () => {
  for (const p of processes) await p.kill();
  for (const m of mounts.reverse()) {
    try {
      execFileSync('umount', [m], { stdio: 'pipe' });
    } catch {
      execFileSync('umount', ['-l', m], { stdio: 'pipe' });
    }
  }
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tmpfs(size: string): string {
  const m = mountTmpfs(size);
  if ('error' in m) throw new Error(m.error);
  return m.dir;
}

interface Emulator {
  proc: NodeProcess;
  ledgerUrl: string;
  state: string;
}

/** Starts `emulate` on `stateDir` and waits for its ready line and its `state:` line. */
async function emulate(stateDir: string, env: Record<string, string> = {}): Promise<Emulator> {
  const proc = startMain(['emulate'], {
    STATE_DIR: stateDir,
    PORT: '0',
    REGISTRY_PORT: '0',
    SCAN_PORT: '0',
    VALIDATOR_PORT: '0',
    ADMIN_PORT: '0',
    LOG_LEVEL: 'warn',
    LEDGER_LIST_MAX_ELEMENTS: '100000',
    ...env,
  });
  processes.push(proc);
  const [, url] = await proc.waitFor(/ledger JSON API v2\s+(http:\/\/\S+)/, 90_000);
  const [state] = await proc.waitFor(/^state: .*$/m, 30_000);
  return { proc, ledgerUrl: url!, state };
}

async function json(url: string, init?: RequestInit): Promise<{ status: number; headers: Headers; body: unknown }> {
  const r = await fetch(url, init);
  const text = await r.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // a text body (readyz)
  }
  return { status: r.status, headers: r.headers, body };
}

const post = (url: string, body: unknown) => json(url, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

async function partiesOf(ledgerUrl: string): Promise<{ alice: string; bob: string }> {
  const parties = ListKnownPartiesResponseSchema.parse((await json(`${ledgerUrl}/v2/parties`)).body).partyDetails;
  return { alice: parties.find((p) => p.party.startsWith('alice::'))!.party, bob: parties.find((p) => p.party.startsWith('bob::'))!.party };
}

/** One Ping create; answers its HTTP status and body. */
function ping(ledgerUrl: string, parties: { alice: string; bob: string }, id: string) {
  return post(`${ledgerUrl}/v2/commands/submit-and-wait`, {
    commands: [{ CreateCommand: { templateId: PING, createArguments: { id, initiator: parties.alice, responder: parties.bob } } }],
    commandId: id,
    actAs: [parties.alice],
    userId: 'alice',
  });
}

type PingAcs = Array<{ contractEntry: { JsActiveContract: { createdEvent: { createArgument: { id: string } } } } }>;

async function activePings(ledgerUrl: string, alice: string): Promise<Set<string>> {
  const end = GetLedgerEndResponseSchema.parse((await json(`${ledgerUrl}/v2/state/ledger-end`)).body).offset;
  const r = await post(`${ledgerUrl}/v2/state/active-contracts`, {
    eventFormat: { filtersByParty: { [alice]: { cumulative: [{ identifierFilter: { TemplateFilter: { value: { templateId: PING, includeCreatedEventBlob: false } } } }] } }, verbose: false },
    activeAtOffset: end,
  });
  expect(r.status).toBe(200);
  return new Set((r.body as PingAcs).map((c) => c.contractEntry.JsActiveContract.createdEvent.createArgument.id));
}

/** Tracks what the ledger acknowledged and what it refused, checking every refusal's shape. */
class Outcomes {
  readonly acknowledged: string[] = [];
  readonly refused: string[] = [];

  async submit(e: Emulator, parties: { alice: string; bob: string }, id: string): Promise<void> {
    const r = await ping(e.ledgerUrl, parties, id);
    if (r.status === 200) {
      this.acknowledged.push(id);
      return;
    }
    // never an empty 500: the ledger API's own error, retryable, saying why
    expect(r.status, JSON.stringify(r.body)).toBe(503);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('retry-after')).toBe('1');
    expect(r.body).toMatchObject({
      code: 'INDEX_DB_SQL_TRANSIENT_ERROR',
      cause: expect.stringMatching(/cannot persist to STATE_DIR .*ENOSPC/),
      errorCategory: 1,
      grpcCodeValue: 14,
      retryInfo: '1 second',
    });
    this.refused.push(id);
  }
}

/** Fills the file system of `dir` with a filler file until `leaveBytes` (about) remain free; returns its path. */
function fill(dir: string, leaveBytes: number): string {
  const file = join(dir, 'filler');
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024, 0x5a);
  try {
    for (;;) {
      const { bavail, bsize } = statfsSync(dir);
      const room = bavail * bsize - leaveBytes;
      if (room <= 0) break;
      try {
        writeSync(fd, chunk, 0, Math.min(chunk.length, room));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOSPC') break;
        throw e;
      }
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return file;
}

const readyz = async (ledgerUrl: string) => (await fetch(`${ledgerUrl}/readyz`)).status;

/** Restarts on `stateDir` after a kill -9 and checks the acknowledged/refused accounting against the ACS. */
async function checkAfterRestart(stateDir: string, outcomes: Outcomes, alice: string): Promise<void> {
  const second = await emulate(stateDir);
  expect(second.state).toMatch(/restored/);
  const pings = await activePings(second.ledgerUrl, alice);
  expect(outcomes.acknowledged.filter((id) => !pings.has(id)), 'acknowledged, then lost').toEqual([]);
  expect(outcomes.refused.filter((id) => pings.has(id)), 'refused, yet there').toEqual([]);
  await second.proc.kill();
}

describe('STATE_DIR on a disk that fills', () => {
  tmpfsIt('a full disk refuses commands with a 503 JsCantonError and acknowledges nothing it loses; space back, it resumes by itself', { timeout: 240_000 }, async () => {
    const mount = tmpfs('4m');
    const stateDir = join(mount, 'state');
    const first = await emulate(stateDir, { STATE_PROBE_EVERY_MS: '200' });
    expect(first.state).toContain('(new)');
    const parties = await partiesOf(first.ledgerUrl);
    const outcomes = new Outcomes();
    for (let i = 0; i < 5; i++) await outcomes.submit(first, parties, `before-${i}`);
    expect(outcomes.refused).toEqual([]);

    const filler = fill(mount, 0);
    // a concurrent burst (one group commit) and then one at a time
    await Promise.all(Array.from({ length: 5 }, (_, i) => outcomes.submit(first, parties, `full-burst-${i}`)));
    for (let i = 0; i < 15; i++) await outcomes.submit(first, parties, `full-${i}`);
    expect(outcomes.refused.length).toBeGreaterThan(10);
    // reads go on and show nothing that was refused; the node says it is not ready
    const during = await activePings(first.ledgerUrl, parties.alice);
    expect(outcomes.refused.filter((id) => during.has(id))).toEqual([]);
    expect(outcomes.acknowledged.filter((id) => !during.has(id))).toEqual([]);
    const notReady = await json(`${first.ledgerUrl}/readyz`);
    expect(notReady.status).toBe(503);
    expect(notReady.headers.get('retry-after')).toBe('1');
    expect(String(notReady.body)).toMatch(/ENOSPC/);
    // bad input stays a 400: the refusal is for writes that would be kept
    expect((await post(`${first.ledgerUrl}/v2/commands/submit-and-wait`, { commands: 'nope' })).status).toBe(400);

    rmSync(filler);
    const freedAt = Date.now();
    await until(async () => (await readyz(first.ledgerUrl)) === 200, 20_000, 'readyz 200 after space came back');
    const resumedMs = Date.now() - freedAt;
    for (let i = 0; i < 10; i++) await outcomes.submit(first, parties, `after-${i}`);
    expect(outcomes.acknowledged.filter((id) => id.startsWith('after-'))).toHaveLength(10);
    console.log(
      `[disk full] acknowledged ${outcomes.acknowledged.length}, refused ${outcomes.refused.length} (503), resumed ${resumedMs} ms after space came back`,
    );

    await first.proc.kill();
    await checkAfterRestart(stateDir, outcomes, parties.alice);
  });

  tmpfsIt('a disk that fills during a snapshot keeps the previous snapshot and the journal, removes the temporary file and keeps serving', { timeout: 240_000 }, async () => {
    const mount = tmpfs('4m');
    const stateDir = join(mount, 'state');
    const first = await emulate(stateDir, { STATE_SNAPSHOT_EVERY: '4', STATE_PROBE_EVERY_MS: '200' });
    const parties = await partiesOf(first.ledgerUrl);
    const outcomes = new Outcomes();
    for (let i = 0; i < 3; i++) await outcomes.submit(first, parties, `before-${i}`);
    // room for a few journal records, not for a snapshot of the world (tens of KB)
    const filler = fill(mount, 24 * 1024);
    for (let i = 0; i < 40 && outcomes.refused.length < 5; i++) await outcomes.submit(first, parties, `filling-${i}`);
    await until(() => /snapshot not written \(ENOSPC/.test(first.proc.output()), 10_000, 'the failed snapshot logged');
    expect(first.proc.child.exitCode).toBeNull();
    expect(readdirSync(stateDir).sort()).toEqual(['journal.log', 'snapshot.bin']);
    expect(outcomes.acknowledged.length).toBeGreaterThan(3);
    expect(outcomes.refused.length).toBeGreaterThan(0);
    // still serving reads
    expect((await json(`${first.ledgerUrl}/v2/state/ledger-end`)).status).toBe(200);

    rmSync(filler);
    await until(async () => (await readyz(first.ledgerUrl)) === 200, 20_000, 'readyz 200 after space came back');
    for (let i = 0; i < 10; i++) await outcomes.submit(first, parties, `after-${i}`);
    expect(outcomes.acknowledged.filter((id) => id.startsWith('after-'))).toHaveLength(10);
    console.log(`[disk full in a snapshot] acknowledged ${outcomes.acknowledged.length}, refused ${outcomes.refused.length} (503)`);
    expect(existsSync(join(stateDir, 'snapshot.bin.tmp'))).toBe(false);

    await first.proc.kill();
    await checkAfterRestart(stateDir, outcomes, parties.alice);
  });

  tmpfsIt('a read-only STATE_DIR is one configuration error line and exit 1', { timeout: 60_000 }, async () => {
    const mount = tmpfs('1m');
    mkdirSync(join(mount, 'state'));
    execFileSync('mount', ['-o', 'remount,ro', mount], { stdio: 'pipe' });
    for (const dir of [join(mount, 'state'), join(mount, 'missing')]) {
      const p = startMain(['emulate'], { STATE_DIR: dir, PORT: '0', REGISTRY_PORT: '0', SCAN_PORT: '0', VALIDATOR_PORT: '0', ADMIN_PORT: '0', LOG_LEVEL: 'warn' });
      processes.push(p);
      expect(await p.exited(60_000)).toBe(1);
      expect(p.output().trim().split('\n')).toEqual([expect.stringMatching(new RegExp(`^configuration error: STATE_DIR ${dir}: (not writable|cannot be created) \\(EROFS: read-only file system\\)$`))]);
    }
  });

  it('a STATE_DIR that cannot be created is one configuration error line and exit 1', { timeout: 60_000 }, async () => {
    const base = mkdtempSync(join(tmpdir(), 'token-registry-notdir-'));
    dirs.push(base);
    writeFileSync(join(base, 'file'), '');
    const dir = join(base, 'file', 'state');
    const p = startMain(['emulate'], { STATE_DIR: dir, PORT: '0', REGISTRY_PORT: '0', SCAN_PORT: '0', VALIDATOR_PORT: '0', ADMIN_PORT: '0', LOG_LEVEL: 'warn' });
    processes.push(p);
    expect(await p.exited(60_000)).toBe(1);
    expect(p.output().trim().split('\n')).toEqual([`configuration error: STATE_DIR ${dir}: cannot be created (ENOTDIR: not a directory)`]);
  });
});
