/**
 * Durable emulator state (STATE_DIR) and the world's clock, in process and over real sockets: an
 * advance through the admin API (`POST /admin/v1/clock/advance`) is kept across a restart, from
 * the journal (a kill -9: the directory copied before the clean stop) and from a snapshot (after a
 * compaction), so the clock never reads earlier than before and record times stay monotonic; an
 * advance the disk cannot take (ENOSPC) is answered 503 and leaves the clock where it was; a
 * directory saved before the skew was kept loads with skew 0.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeLogFile, type LogFile } from '../../../src/emulator/participant/durability/record-log.js';
import type { StateDirIo } from '../../../src/emulator/participant/durability/durable-state.js';
import { startStack, type RunningStack } from '../../../src/stack.js';
import { until } from '../../support/processes.js';

const PING = '#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping';
const DAY = 86_400;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function stateDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'token-registry-state-clock-'));
  dirs.push(d);
  return d;
}

function start(dir: string, extra: { snapshotEvery?: number; stateDirIo?: StateDirIo } = {}): Promise<RunningStack> {
  return startStack({
    config: { port: 0, logLevel: 'silent', stateDir: dir, stateProbeEveryMs: 50, ...(extra.snapshotEvery ? { snapshotEvery: extra.snapshotEvery } : {}) },
    registryPort: 0,
    scanPort: 0,
    validatorPort: 0,
    adminPort: 0,
    ...(extra.stateDirIo ? { stateDirIo: extra.stateDirIo } : {}),
  });
}

async function call(url: string, method: string, path: string, body?: unknown) {
  const r = await fetch(url + path, { method, body: body === undefined ? undefined : JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  const text = await r.text();
  return { status: r.status, headers: r.headers, body: r.headers.get('content-type')?.includes('json') ? (JSON.parse(text) as unknown) : text };
}

/** The admin API's clock: `now` in microseconds since the epoch (the instant's own precision) and the skew. */
async function clockOf(stack: RunningStack): Promise<{ nowMs: number; skewSeconds: number }> {
  const { now, skewSeconds } = (await call(stack.adminUrl, 'GET', '/admin/v1/clock')).body as { now: string; skewSeconds: number };
  return { nowMs: Date.parse(now), skewSeconds };
}

async function advance(stack: RunningStack, seconds: number) {
  return call(stack.adminUrl, 'POST', '/admin/v1/clock/advance', { seconds });
}

let pings = 0;
/** Commits a Ping (alice to bob) and answers its record time in milliseconds. */
async function commit(stack: RunningStack): Promise<number> {
  const alice = stack.seeded!.parties.find((p) => p.hint === 'alice')!.party;
  const bob = stack.seeded!.parties.find((p) => p.hint === 'bob')!.party;
  const id = `clock-${++pings}`;
  const r = await call(stack.ledgerUrl, 'POST', '/v2/commands/submit-and-wait-for-transaction', {
    commands: { commands: [{ CreateCommand: { templateId: PING, createArguments: { id, initiator: alice, responder: bob } } }], commandId: id, actAs: [alice], userId: 'alice' },
    transactionFormat: { eventFormat: { filtersByParty: { [alice]: { cumulative: [] } }, verbose: false }, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return Date.parse((r.body as { transaction: { recordTime: string } }).transaction.recordTime);
}

describe('STATE_DIR keeps the clock', () => {
  it('an advance survives a restart from the journal and from a snapshot: time never runs backwards', { timeout: 120_000 }, async () => {
    const dir = stateDir();
    let stack = await start(dir);
    expect((await advance(stack, DAY)).status).toBe(200);
    const advancedTo = (await clockOf(stack)).nowMs;
    const committedAt = await commit(stack);
    expect(committedAt).toBeGreaterThanOrEqual(advancedTo);
    // What a kill -9 now leaves: the advance is only in the journal (the snapshot is the seeded world).
    const crashed = stateDir();
    cpSync(dir, crashed, { recursive: true });
    await stack.close();

    stack = await start(crashed);
    expect(stack.durable!.opened.replayed).toBeGreaterThanOrEqual(2); // the advance and the commit
    const fromJournal = await clockOf(stack);
    expect(fromJournal.skewSeconds).toBe(DAY);
    expect(fromJournal.nowMs).toBeGreaterThanOrEqual(advancedTo);
    expect(await commit(stack)).toBeGreaterThanOrEqual(committedAt);
    await stack.close();

    // after a clean stop the skew is in the snapshot
    stack = await start(dir);
    expect(stack.durable!.opened).toEqual({ restored: true, replayed: 0, droppedBytes: 0 });
    expect((await clockOf(stack)).skewSeconds).toBe(DAY);
    const second = await commit(stack);
    expect(second).toBeGreaterThanOrEqual(committedAt);

    // an advance after a snapshot (journal compacted), then another snapshot and a further advance
    expect((await advance(stack, DAY)).status).toBe(200);
    expect(stack.durable!.compact()).toBe(true);
    expect(statSync(join(dir, 'journal.log')).size).toBe(0);
    expect((await advance(stack, 3600)).status).toBe(200);
    const third = await commit(stack);
    expect(third).toBeGreaterThanOrEqual(second);
    const crashedAgain = stateDir();
    cpSync(dir, crashedAgain, { recursive: true });
    await stack.close();

    for (const d of [crashedAgain, dir]) {
      stack = await start(d);
      expect((await clockOf(stack)).skewSeconds).toBe(2 * DAY + 3600);
      expect(await commit(stack)).toBeGreaterThanOrEqual(third);
      await stack.close();
    }
  });

  it('advances journaled past snapshotEvery compact like other changes and are all kept', { timeout: 60_000 }, async () => {
    const dir = stateDir();
    let stack = await start(dir, { snapshotEvery: 3 });
    for (let i = 0; i < 7; i++) expect((await advance(stack, 60)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 50));
    const kept = stateDir();
    cpSync(dir, kept, { recursive: true });
    await stack.close();
    stack = await start(kept, { snapshotEvery: 3 });
    expect(stack.durable!.opened.replayed).toBeLessThan(7); // a snapshot took some of them
    expect((await clockOf(stack)).skewSeconds).toBe(7 * 60);
    await stack.close();
  });

  it('a directory saved before the clock was kept loads with no skew', { timeout: 60_000 }, async () => {
    const dir = stateDir();
    let stack = await start(dir);
    await stack.close();
    const snapshot = deserialize(readFileSync(join(dir, 'snapshot.bin'))) as Record<string, unknown>;
    expect(snapshot.clockSkewMicros).toBe(0n);
    delete snapshot.clockSkewMicros;
    writeFileSync(join(dir, 'snapshot.bin'), serialize(snapshot));
    stack = await start(dir);
    expect(stack.durable!.opened.restored).toBe(true);
    expect((await clockOf(stack)).skewSeconds).toBe(0);
    await stack.close();
  });

  it('an advance the disk cannot take is answered 503 and leaves the clock unmoved', { timeout: 60_000 }, async () => {
    const dir = stateDir();
    const state = { full: false };
    const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    const logFile: LogFile = {
      ...nodeLogFile,
      write(fd, data, offset) {
        if (state.full) throw enospc();
        return nodeLogFile.write(fd, data, offset);
      },
    };
    const io: StateDirIo = {
      logFile,
      probeWrite: () => {
        if (state.full) throw enospc();
      },
    };
    let stack = await start(dir, { stateDirIo: io });
    expect((await advance(stack, 60)).status).toBe(200);
    const before = await clockOf(stack);
    state.full = true;
    // the write that fails (the group commit), then an advance refused up front
    for (const round of ['failing write', 'refused up front']) {
      const r = await advance(stack, DAY);
      expect(r.status, `${round}: ${JSON.stringify(r.body)}`).toBe(503);
      expect(r.headers.get('retry-after')).toBe('1');
      expect(r.body).toEqual({ error: expect.stringMatching(/cannot persist to STATE_DIR .* \(ENOSPC: no space left on device\)$/) });
      const now = await clockOf(stack);
      expect(now.skewSeconds, round).toBe(60);
      expect(now.nowMs).toBeLessThan(before.nowMs + DAY * 1000);
    }
    // a mint refused for the same reason: the ledger's unavailability (503), not the caller's mistake (400)
    const minted = await call(stack.adminUrl, 'POST', '/admin/v1/mint', { instrument: 'TT1', owner: 'alice', amount: '1' });
    expect(minted.status, JSON.stringify(minted.body)).toBe(503);
    expect(minted.headers.get('retry-after')).toBe('1');
    expect(minted.body).toEqual({ error: expect.stringMatching(/cannot persist to STATE_DIR .* \(ENOSPC: no space left on device\)$/) });
    state.full = false;
    await until(async () => (await call(stack.ledgerUrl, 'GET', '/readyz')).status === 200, 10_000, 'readyz 200 once writes work');
    expect((await advance(stack, 60)).status).toBe(200);
    await stack.close();
    stack = await start(dir);
    expect((await clockOf(stack)).skewSeconds).toBe(120);
    await stack.close();
  });
});
