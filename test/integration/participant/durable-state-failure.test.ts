/**
 * Durable emulator state (STATE_DIR) whose journal writes fail, in process and over real sockets,
 * two participants: the journal's file operations are node:fs with a switch that makes writes
 * fail with ENOSPC midway (a full disk), so the test needs no root and no tmpfs. While the disk is
 * "full", commits, party allocations (on participant2) and user creations are answered 503 with
 * a JsCantonError and leave the world exactly as it was (reads, streams, ids); a websocket
 * subscriber is shown nothing of them; /readyz is 503 on both participants. Space back, the node
 * takes commands again by itself, and a restart has what was acknowledged.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeLogFile, type LogFile } from '../../../src/emulator/participant/durability/record-log.js';
import { GetLedgerEndResponseSchema } from '../../../src/ledger-client/schemas/events.js';
import { startStack, type RunningStack } from '../../../src/stack.js';
import { until } from '../../support/processes.js';
import { subscribe } from '../../support/ws-ledger.js';

const PING = '#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping';
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });

/** node:fs for the journal, except while `full`: a write then stores half its bytes and fails. */
function disk() {
  const state = { full: false, failedWrites: 0 };
  const logFile: LogFile = {
    ...nodeLogFile,
    write(fd, data, offset) {
      if (!state.full) return nodeLogFile.write(fd, data, offset);
      state.failedWrites++;
      const half = Math.floor((data.length - offset) / 2);
      // a short write first (torn bytes the journal must cut back), then the error
      if (half > 0) return nodeLogFile.write(fd, data.subarray(0, offset + half), offset);
      throw enospc();
    },
  };
  const probeWrite = () => {
    if (state.full) throw enospc();
  };
  return { state, io: { logFile, probeWrite } };
}

function start(dir: string, io: ReturnType<typeof disk>['io']): Promise<RunningStack> {
  return startStack({
    config: { port: 0, participant2Port: 0, participants: 2, logLevel: 'silent', stateDir: dir, stateProbeEveryMs: 50 },
    registryPort: 0,
    scanPort: 0,
    validatorPort: 0,
    stateDirIo: io,
  });
}

async function call(url: string, method: string, path: string, body?: unknown) {
  const r = await fetch(url + path, { method, body: body === undefined ? undefined : JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  const text = await r.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // text (readyz)
  }
  return { status: r.status, headers: r.headers, body: parsed };
}

/** What a client reads of both participants: ledger end, ACS, updates, parties, users. */
async function worldOf(stack: RunningStack) {
  const out: Record<string, unknown> = {};
  for (const p of stack.participants) {
    const url = p.ledgerUrl;
    const end = GetLedgerEndResponseSchema.parse((await call(url, 'GET', '/v2/state/ledger-end')).body).offset;
    out[p.participantId] = {
      end,
      acs: (await call(url, 'POST', '/v2/state/active-contracts', { eventFormat: { filtersForAnyParty: { cumulative: [] }, verbose: true }, activeAtOffset: end })).body,
      updates: (
        await call(url, 'POST', '/v2/updates', {
          beginExclusive: 0,
          endInclusive: end,
          updateFormat: { includeTransactions: { eventFormat: { filtersForAnyParty: { cumulative: [] }, verbose: true }, transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS' } },
        })
      ).body,
      parties: (await call(url, 'GET', '/v2/parties?pageSize=10000')).body,
      users: (await call(url, 'GET', '/v2/users?pageSize=1000')).body,
    };
  }
  return out;
}

const refusal = {
  code: 'INDEX_DB_SQL_TRANSIENT_ERROR',
  cause: expect.stringMatching(/^Processing the request failed due to a transient database error: cannot persist to STATE_DIR .* \(ENOSPC: no space left on device\)$/),
  errorCategory: 1,
  grpcCodeValue: 14,
  retryInfo: '1 second',
};

describe('STATE_DIR whose journal writes fail', () => {
  it('refuses what it cannot persist with a 503 JsCantonError, changes nothing readers can see, and resumes by itself', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'token-registry-state-fail-'));
    dirs.push(dir);
    const d = disk();
    const stack = await start(dir, d.io);
    const [p1, p2] = stack.participants.map((p) => p.ledgerUrl) as [string, string];
    const alice = stack.seeded!.parties.find((p) => p.hint === 'alice')!.party;
    const bob = stack.seeded!.parties.find((p) => p.hint === 'bob')!.party;
    const ping = (id: string) =>
      call(p1, 'POST', '/v2/commands/submit-and-wait', {
        commands: [{ CreateCommand: { templateId: PING, createArguments: { id, initiator: alice, responder: bob } } }],
        commandId: id,
        actAs: [alice],
        userId: 'alice',
      });
    const transactions = (frames: readonly unknown[]) => frames.filter((f) => (f as { update?: { Transaction?: unknown } }).update?.Transaction !== undefined).length;

    for (let i = 0; i < 3; i++) expect((await ping(`ok-${i}`)).status).toBe(200);
    const sub = subscribe(p1.replace(/^http/, 'ws'), '/v2/updates', {
      beginExclusive: 0,
      updateFormat: { includeTransactions: { eventFormat: { filtersByParty: { [alice]: { cumulative: [] } }, verbose: false }, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' } },
    });
    await sub.waitFrames(3);
    await new Promise((r) => setTimeout(r, 100));
    const shown = transactions(sub.frames);
    const before = await worldOf(stack);

    d.state.full = true;
    // one group commit of a burst of writes of every kind, then the same refused up front
    for (const round of ['burst', 'after']) {
      const answers = await Promise.all([
        ping(`${round}-1`),
        ping(`${round}-2`),
        call(p2, 'POST', '/v2/parties', { partyIdHint: `${round}-carol`, identityProviderId: '' }),
        call(p1, 'POST', '/v2/users', { user: { id: `${round}-dave`, primaryParty: alice, isDeactivated: false, identityProviderId: '' }, rights: [] }),
      ]);
      for (const a of answers) {
        expect(a.status, JSON.stringify(a.body)).toBe(503);
        expect(a.headers.get('retry-after')).toBe('1');
        expect(a.body).toMatchObject(refusal);
      }
    }
    expect(d.state.failedWrites).toBeGreaterThan(0);
    expect(await worldOf(stack)).toEqual(before);
    for (const url of [p1, p2]) {
      const r = await call(url, 'GET', '/readyz');
      expect(r.status).toBe(503);
      expect(String(r.body)).toContain('ENOSPC');
    }
    await new Promise((r) => setTimeout(r, 100));
    expect(transactions(sub.frames)).toBe(shown);

    d.state.full = false;
    await until(async () => (await call(p1, 'GET', '/readyz')).status === 200, 10_000, 'readyz 200 once writes work');
    const resumed = await ping('resumed');
    expect(resumed.status).toBe(200);
    expect((await call(p2, 'POST', '/v2/parties', { partyIdHint: 'carol', identityProviderId: '' })).status).toBe(200);
    await until(() => transactions(sub.frames) === shown + 1, 10_000, 'the resumed transaction shown to the subscriber');
    const kept = await worldOf(stack);
    sub.ws.close();
    await stack.close();

    // what was acknowledged is what a restart has, nothing more
    const again = await start(dir, disk().io);
    try {
      expect(await worldOf(again)).toEqual(kept);
    } finally {
      await again.close();
    }
  });
});
