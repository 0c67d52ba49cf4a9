/**
 * Durable emulator state against a real crash: the CLI (`emulate`) runs as its own process with
 * STATE_DIR; concurrent clients stream acknowledged commands (party allocations and Ping creates)
 * at it; the process is killed with SIGKILL mid-stream; a new process on the same directory has
 * every acknowledged command (and may have some that were in flight, never answered), and every
 * transaction a websocket subscriber was shown (updates are published only once synced).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GetLedgerEndResponseSchema } from '../../../src/ledger-client/schemas/events.js';
import { AllocatePartyResponseSchema, ListKnownPartiesResponseSchema } from '../../../src/ledger-client/schemas/parties.js';
import { subscribe } from '../../support/ws-ledger.js';

const ROOT = new URL('../../../', import.meta.url).pathname;
const PING = '#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping';
const children: ChildProcess[] = [];
const dirs: string[] = [];

afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Starts `emulate` with STATE_DIR and answers its ledger URL and what it printed about its state. */
async function emulate(dir: string): Promise<{ child: ChildProcess; ledgerUrl: string; state: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'emulate'], {
    cwd: ROOT,
    env: { ...process.env, STATE_DIR: dir, PORT: '0', REGISTRY_PORT: '0', SCAN_PORT: '0', VALIDATOR_PORT: '0', ADMIN_PORT: '0', LOG_LEVEL: 'silent', LEDGER_LIST_MAX_ELEMENTS: '100000' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const ready = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`emulate did not start in 60 s: ${out}${err}`)), 60_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (/^state: .*$/m.test(out)) {
        clearTimeout(timer);
        resolve(out);
      }
    });
    child.once('exit', (code) => reject(new Error(`emulate exited (${code}): ${out}${err}`)));
  });
  const ledgerUrl = /ledger JSON API v2\s*\|?\s*(http:\/\/\S+)/.exec(ready)?.[1];
  if (!ledgerUrl) throw new Error(`no ledger URL in: ${ready}`);
  return { child, ledgerUrl: ledgerUrl.replace(/\|$/, ''), state: /^state: .*$/m.exec(ready)![0] };
}

async function get(url: string): Promise<unknown> {
  return (await fetch(url)).json();
}

async function post(url: string, body: unknown): Promise<unknown> {
  const r = await fetch(url, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  if (r.status !== 200) throw new Error(`${r.status} ${await r.text()}`);
  return r.json();
}

const ledgerEnd = async (url: string): Promise<number> => GetLedgerEndResponseSchema.parse(await get(`${url}/v2/state/ledger-end`)).offset;
const partiesOf = async (url: string) => ListKnownPartiesResponseSchema.parse(await get(url)).partyDetails;

/** The ACS answer, as far as it is read here: the Ping ids. */
type PingAcs = Array<{ contractEntry: { JsActiveContract: { createdEvent: { createArgument: { id: string } } } } }>;

describe('STATE_DIR: kill -9 during a stream of acknowledged commands', () => {
  it('a new process on the directory has every acknowledged command', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'token-registry-kill-'));
    dirs.push(dir);
    const first = await emulate(dir);
    expect(first.state).toContain('(new)');
    const parties = await partiesOf(`${first.ledgerUrl}/v2/parties`);
    const alice = parties.find((p) => p.party.startsWith('alice::'))!.party;
    const bob = parties.find((p) => p.party.startsWith('bob::'))!.party;

    const acknowledgedPings: string[] = [];
    const acknowledgedParties: string[] = [];
    let stop = false;
    let n = 0;
    const worker = async (w: number) => {
      while (!stop) {
        const i = n++;
        try {
          if (i % 5 === 0) {
            const r = await post(`${first.ledgerUrl}/v2/parties`, { partyIdHint: `kill-${i}`, identityProviderId: '' });
            acknowledgedParties.push(AllocatePartyResponseSchema.parse(r).partyDetails.party);
          } else {
            await post(`${first.ledgerUrl}/v2/commands/submit-and-wait`, {
              commands: [{ CreateCommand: { templateId: PING, createArguments: { id: `ping-${i}`, initiator: alice, responder: bob } } }],
              commandId: `kill-${w}-${i}`,
              actAs: [alice],
              userId: 'alice',
            });
            acknowledgedPings.push(`ping-${i}`);
          }
        } catch {
          return; // the process is gone: this request was never acknowledged
        }
      }
    };
    const workers = Array.from({ length: 8 }, (_, w) => worker(w));
    // Kill once enough commands are acknowledged (a count, not a fixed delay: a busy machine is slower),
    // while the stream still runs.
    const deadline = Date.now() + 30_000;
    while (acknowledgedPings.length <= 20 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 200));
    first.child.kill('SIGKILL');
    stop = true;
    await Promise.all(workers);
    expect(acknowledgedPings.length).toBeGreaterThan(20);

    const second = await emulate(dir);
    expect(second.state).toMatch(/restored; \d+ journaled changes replayed/);
    try {
      const end = await ledgerEnd(second.ledgerUrl);
      const acs = (await post(`${second.ledgerUrl}/v2/state/active-contracts`, {
        eventFormat: { filtersByParty: { [alice]: { cumulative: [{ identifierFilter: { TemplateFilter: { value: { templateId: PING, includeCreatedEventBlob: false } } } }] } }, verbose: false },
        activeAtOffset: end,
      })) as PingAcs;
      const pings = new Set(acs.map((c) => c.contractEntry.JsActiveContract.createdEvent.createArgument.id));
      const lostPings = acknowledgedPings.filter((id) => !pings.has(id));
      expect(lostPings).toEqual([]);
      const known = new Set((await partiesOf(`${second.ledgerUrl}/v2/parties?pageSize=10000`)).map((p) => p.party));
      expect(acknowledgedParties.filter((p) => !known.has(p))).toEqual([]);
      // the restarted ledger goes on: a new command commits after what was there
      await post(`${second.ledgerUrl}/v2/commands/submit-and-wait`, {
        commands: [{ CreateCommand: { templateId: PING, createArguments: { id: 'after', initiator: alice, responder: bob } } }],
        commandId: 'after-restart',
        actAs: [alice],
        userId: 'alice',
      });
      expect(await ledgerEnd(second.ledgerUrl)).toBe(end + 1);
    } finally {
      second.child.kill('SIGTERM');
      await new Promise((r) => second.child.once('exit', r));
    }
  });
});

/** The `/v2/updates` request of alice's transactions (ACS delta shape), from the ledger's start. */
function aliceUpdates(alice: string, extra: Record<string, unknown> = {}) {
  return {
    beginExclusive: 0,
    updateFormat: { includeTransactions: { eventFormat: { filtersByParty: { [alice]: { cumulative: [] } }, verbose: false }, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' } },
    ...extra,
  };
}

/** `offset updateId` of every transaction among `frames` (websocket frames or list elements). */
function transactionsIn(frames: readonly unknown[]): string[] {
  const out: string[] = [];
  for (const f of frames) {
    const tx = (f as { update?: { Transaction?: { value: { offset: number; updateId: string } } } }).update?.Transaction?.value;
    if (tx) out.push(`${tx.offset} ${tx.updateId}`);
  }
  return out;
}

describe('STATE_DIR: kill -9 while a websocket subscriber reads the updates', () => {
  it('every transaction the subscriber was shown is there after the restart', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'token-registry-kill-ws-'));
    dirs.push(dir);
    const first = await emulate(dir);
    const parties = await partiesOf(`${first.ledgerUrl}/v2/parties`);
    const alice = parties.find((p) => p.party.startsWith('alice::'))!.party;
    const bob = parties.find((p) => p.party.startsWith('bob::'))!.party;
    const sub = subscribe(first.ledgerUrl.replace(/^http/, 'ws'), '/v2/updates', aliceUpdates(alice));
    const before = transactionsIn(await sub.waitFrames(1, 20_000)).length;

    let stop = false;
    let n = 0;
    const worker = async (w: number) => {
      while (!stop) {
        const i = n++;
        try {
          await post(`${first.ledgerUrl}/v2/commands/submit-and-wait`, {
            commands: [{ CreateCommand: { templateId: PING, createArguments: { id: `ws-${i}`, initiator: alice, responder: bob } } }],
            commandId: `ws-${w}-${i}`,
            actAs: [alice],
            userId: 'alice',
          });
        } catch {
          return; // the process is gone
        }
      }
    };
    const workers = Array.from({ length: 8 }, (_, w) => worker(w));
    // Killed the moment the subscriber has been shown enough (from its message handler, so the
    // server has had the least time to do anything after sending): what it holds is what it saw.
    let seen: string[] = [];
    const killed = new Promise<void>((resolve) => {
      const onFrame = () => {
        if (transactionsIn(sub.frames).length < before + 30) return;
        first.child.kill('SIGKILL');
        seen = transactionsIn(sub.frames);
        sub.ws.off('message', onFrame);
        resolve();
      };
      sub.ws.on('message', onFrame);
    });
    await Promise.race([killed, new Promise((r) => setTimeout(r, 30_000))]);
    if (seen.length === 0) first.child.kill('SIGKILL');
    stop = true;
    await Promise.all(workers);
    await sub.closed;
    expect(seen.length).toBeGreaterThanOrEqual(before + 30);

    const second = await emulate(dir);
    try {
      const end = await ledgerEnd(second.ledgerUrl);
      const listed = new Set(transactionsIn((await post(`${second.ledgerUrl}/v2/updates`, aliceUpdates(alice, { endInclusive: end }))) as unknown[]));
      console.log(`[kill -9 with a websocket subscriber] seen ${seen.length} transactions, ${listed.size} after restart`);
      expect(seen.filter((t) => !listed.has(t)), 'shown to the subscriber, then lost').toEqual([]);
    } finally {
      second.child.kill('SIGTERM');
      await new Promise((r) => second.child.once('exit', r));
    }
  });
});
