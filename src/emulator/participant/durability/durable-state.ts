/**
 * Durable emulator state (`STATE_DIR`): the emulated world survives a restart, even a kill -9.
 *
 * Two files in the directory:
 *  - `journal.log`: every change of the world (changes.ts: commits, parties, users, DARs, topology,
 *    external parties, the clock's advances) as a framed record (record-log.ts), appended as it happens; the HTTP layer
 *    waits for `flush()` (write + fdatasync, shared by concurrent requests) before it answers, so an
 *    acknowledged command is on disk;
 *  - `snapshot.bin`: the whole world at one journal sequence number, written to a temporary file,
 *    synced and renamed over the old one every `snapshotEvery` changes and on close; the journal
 *    is then emptied (compaction). Records at or below the snapshot's sequence number are skipped
 *    on load, so a crash between the rename and the truncation loses nothing and applies nothing twice.
 *
 * A write that fails (a full disk, an I/O error) acknowledges nothing: the journal is cut back to
 * its last whole record (record-log.ts), the world in memory is rolled back to what is on disk
 * (the snapshot and the journal, as a restart would load them), the requests that waited for the
 * failed sync are answered 503 (`INDEX_DB_SQL_TRANSIENT_ERROR`), and from then on every change is
 * refused before it is applied, until a probe write in the directory succeeds again (every
 * `probeEveryMs`); reads keep being served and `/readyz` says not ready meanwhile. Updates are
 * published to readers and subscribers only after the sync that makes them durable (updates.ts),
 * so nobody sees a transaction that a failure or a kill -9 then takes away. A snapshot that
 * cannot be written is dropped (its temporary file removed): the previous snapshot and the
 * journal still hold everything.
 *
 * Loading: the stack is built as usual (templates, automations, the demo world's wiring), then
 * every store is cleared and filled from the snapshot, and the journal's changes are applied in
 * order; the id generator continues where it stopped, so no id is reused. A torn last record is
 * dropped. What is not kept: prepared-but-not-executed interactive submissions, a multi-hosted
 * party's allocation still waiting for its other participant, and scan's time-stamped snapshots
 * (rebuilt from the ledger, at the restart's time).
 *
 * Values are encoded with `v8.serialize` (bigint, Map, Set and shared references survive; the
 * records are plain data); a snapshot written by another format version is refused.
 */
import { createPublicKey } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import type { Logger } from 'pino';
import { errors, LedgerApiError } from '../../../canton/errors.js';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { ConfigError } from '../../../canton/config-error.js';
import { encodeBlob } from '../blob.js';
import type { Completion } from '../commands.js';
import type { LedgerEngine } from '../engine.js';
import type { ExternalPartyRecord } from '../external-parties.js';
import type { SavedDarUpload } from '../packages.js';
import { savedExternalParty, type HostingPermission, type Synchronizer } from '../synchronizer.js';
import type { State as TrafficState } from '../traffic.js';
import type { ContractRecord, PartyRecord } from '../types.js';
import type { TransactionRecord } from '../updates.js';
import type { SavedUser } from '../users.js';
import type { SavedExternalParty, StateChange, StateJournal } from './changes.js';
import { errnoText, LogWriteError, nodeLogFile, readRecords, RecordLog, type LogFile } from './record-log.js';

const FORMAT = 1;
const SNAPSHOT = 'snapshot.bin';
const JOURNAL = 'journal.log';
const PROBE = 'write.probe';
/** Bytes a probe writes at least: room for a batch of commands, not a single byte. */
const PROBE_BYTES = 64 * 1024;

/** What must match for a state directory to be loaded: the world it was made from. */
export type StateIdentity = Record<string, string | number | boolean>;

interface SavedParticipant {
  name: string;
  parties: PartyRecord[];
  users: Array<[string, SavedUser]>;
  dars: SavedDarUpload[];
  contracts: ContractRecord[];
  transactions: TransactionRecord[];
  deduplication: Array<[string, Completion]>;
}

interface Snapshot {
  format: number;
  identity: StateIdentity;
  /** Sequence number of the last change the snapshot includes. */
  seq: number;
  ids: number;
  hosting: Array<{ party: string; participantId: string; permission: HostingPermission; threshold: number }>;
  externals: SavedExternalParty[];
  traffic: Array<[string, TrafficState]>;
  participants: SavedParticipant[];
  /** The clock's skew over its base clock; absent in directories written before it was kept (0). */
  clockSkewMicros?: bigint;
}

interface JournalRecord {
  seq: number;
  /** The id generator's position after the change. */
  ids: number;
  change: StateChange;
}

export interface DurableStateOptions {
  dir: string;
  synchronizer: Synchronizer;
  participants: readonly LedgerEngine[];
  identity: StateIdentity;
  /** The world's clock whose skew (admin/clock.ts SkewedClock) is kept: put back at open, journaled at each advance. */
  clock?: SkewableClock;
  /** Changes between snapshots (default 10,000). */
  snapshotEvery?: number;
  /** How often a node whose writes failed tries a probe write to resume (default 1 s). */
  probeEveryMs?: number;
  logger?: Pick<Logger, 'error' | 'warn' | 'info'>;
  /** The journal's file operations and the probe write (default node:fs; tests inject failing ones). */
  io?: StateDirIo;
}

/** A clock moved ahead of its base clock by a skew, which journals its advances when given a journal. */
export interface SkewableClock {
  skewMicros: bigint;
  journal: StateJournal | undefined;
}

/** What durable state writes through, besides snapshots: a seam for tests of failing disks. */
export interface StateDirIo {
  logFile?: LogFile;
  /** Writes and syncs `bytes` bytes in `dir`, then removes them; throws what the disk says. */
  probeWrite?: (dir: string, bytes: number) => void;
}

/** What opening found. */
export interface OpenedState {
  /** The world was loaded from the directory (false: a new directory, the built world was saved). */
  restored: boolean;
  /** Journal changes applied on top of the snapshot. */
  replayed: number;
  /** Bytes of a torn last record that were dropped. */
  droppedBytes: number;
}

/** A STATE_DIR that cannot be used as it is: the CLI reports it as a configuration error. */
export class StateDirError extends ConfigError {}

/** Why the node cannot write, while it cannot. */
interface WriteFailure {
  /** `ENOSPC: no space left on device`, ... */
  reason: string;
  /** The world in memory could not be rolled back to the disk's: only a restart resumes. */
  permanent: boolean;
}

export class DurableState implements StateJournal {
  private readonly log: RecordLog;
  private seq = 0;
  private snapshotScheduled = false;
  private closed = false;
  /** Changes in the journal at which the next snapshot is taken (pushed back when one fails). */
  private compactAt: number;
  /** The batch being written, shared by every caller of `flush` meanwhile. */
  private syncing: Promise<void> | undefined;
  private failure: WriteFailure | undefined;
  private prober: NodeJS.Timeout | undefined;
  /** Bytes of the batch that failed: a probe writes at least as much. */
  private failedBytes = 0;
  private failedWrites = 0;
  readonly opened: OpenedState;

  /** Deletes what a state directory holds (`emulate --reset`). */
  static reset(dir: string): void {
    rmSync(join(dir, SNAPSHOT), { force: true });
    rmSync(join(dir, `${SNAPSHOT}.tmp`), { force: true });
    rmSync(join(dir, JOURNAL), { force: true });
    rmSync(join(dir, PROBE), { force: true });
  }

  /**
   * Opens `dir`: loads the world saved there into the (already built) participants, or saves the
   * built world as the directory's first snapshot; then journals every change.
   */
  static open(opts: DurableStateOptions): DurableState {
    return new DurableState(opts);
  }

  private constructor(private readonly opts: DurableStateOptions) {
    this.compactAt = opts.snapshotEvery ?? 10_000;
    try {
      mkdirSync(opts.dir, { recursive: true });
    } catch (e) {
      throw new StateDirError(`STATE_DIR ${opts.dir}: cannot be created (${errnoText(mkdirFailure(opts.dir, asError(e)))})`);
    }
    try {
      // A directory the node cannot write would only fail the first command: say so at start.
      writeProbe(opts.dir, 1);
    } catch (e) {
      throw new StateDirError(`STATE_DIR ${opts.dir}: not writable (${errnoText(asError(e))})`);
    }
    try {
      ({ opened: this.opened, log: this.log } = this.openIn(opts));
    } catch (e) {
      if (e instanceof StateDirError || (e as NodeJS.ErrnoException).code === undefined) throw e;
      throw new StateDirError(`STATE_DIR ${opts.dir}: not writable (${errnoText(asError(e))})`);
    }
    for (const e of opts.participants) e.updates.deferPublication();
    opts.synchronizer.journal = this;
    if (opts.clock) opts.clock.journal = this;
  }

  private openIn(opts: DurableStateOptions): { opened: OpenedState; log: RecordLog } {
    const logFile = opts.io?.logFile ?? nodeLogFile;
    const snapshotFile = join(opts.dir, SNAPSHOT);
    let snapshot: Snapshot | undefined;
    try {
      snapshot = deserialize(readFileSync(snapshotFile)) as Snapshot;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw new StateDirError(`STATE_DIR ${opts.dir}: ${SNAPSHOT} cannot be read (${(e as Error).message}); \`emulate --reset\` starts over`);
      }
    }
    // A snapshot a crash or a full disk interrupted: never read, only in the way.
    rmSync(`${snapshotFile}.tmp`, { force: true });
    const journalFile = join(opts.dir, JOURNAL);
    if (snapshot === undefined) {
      // A new directory: what was built is the first snapshot; an old journal without it is stale.
      rmSync(journalFile, { force: true });
      const log = new RecordLog(journalFile, logFile);
      this.writeSnapshot();
      return { opened: { restored: false, replayed: 0, droppedBytes: 0 }, log };
    } else {
      this.checkIdentity(snapshot);
      const { records, droppedBytes } = readRecords(journalFile);
      const replayed = this.restore(snapshot, records, { dars: true });
      return { opened: { restored: true, replayed, droppedBytes }, log: new RecordLog(journalFile, logFile) };
    }
  }

  /**
   * Journals a change. While the node cannot write, the change is refused (a 503 LedgerApiError):
   * a commit is recorded before it is applied, so nothing of it happens; the other stores record
   * after their write, which the refusal then rolls back.
   */
  record(change: StateChange): void {
    if (this.closed) return;
    if (this.failure) {
      // Nothing waits to be written now (the failure discarded it, and everything since was
      // refused), so the disk holds exactly the world to go back to; at once, before any other
      // request can see the store's write.
      if (change.kind !== 'commit') this.rollBack();
      throw this.refusal();
    }
    this.seq++;
    this.log.append(serialize({ seq: this.seq, ids: this.opts.synchronizer.ids.position, change } satisfies JournalRecord));
    // Every change reaches the disk (and its readers) even when no request waits for it.
    this.flush().catch(() => undefined);
    if (this.log.count >= this.compactAt && !this.snapshotScheduled) {
      this.snapshotScheduled = true;
      setImmediate(() => {
        this.snapshotScheduled = false;
        if (!this.closed && !this.failure) this.compact();
      });
    }
  }

  /** Failed writes so far: a request that saw this change while it ran may have read or made what was rolled back. */
  get failures(): number {
    return this.failedWrites;
  }

  /** Why the node cannot write now, undefined when it can (`/readyz`). */
  unavailableReason(): string | undefined {
    return this.failure && `cannot persist to STATE_DIR ${this.opts.dir} (${this.failure.reason})`;
  }

  /** The error a refused request gets. */
  refusal(): LedgerApiError {
    return errors.cannotPersist(this.unavailableReason() ?? `a write to STATE_DIR ${this.opts.dir} failed`);
  }

  /**
   * Resolves when every change recorded so far is on disk, and publishes the updates it made
   * durable; rejects with the refusal when the write failed (and the world was rolled back).
   */
  flush(): Promise<void> {
    if (this.syncing) return this.syncing;
    if (!this.log.dirty) return Promise.resolve();
    // The log writes synchronously in one macrotask: whatever was appended before these handlers
    // run is in the batch they settle.
    const batch = this.log.flush().then(
      () => {
        this.syncing = undefined;
        this.published();
      },
      (e: unknown) => {
        this.syncing = undefined;
        throw this.writeFailed(e);
      },
    );
    this.syncing = batch;
    return batch;
  }

  /**
   * Writes a snapshot of the world and empties the journal. A snapshot that cannot be written is
   * left out (the previous one and the journal hold everything) and retried after as many
   * changes again; returns whether one was written.
   */
  compact(): boolean {
    try {
      this.log.flushSync();
    } catch (e) {
      this.writeFailed(e);
      return false;
    }
    this.published();
    try {
      this.writeSnapshot();
    } catch (e) {
      this.compactAt = this.log.count + (this.opts.snapshotEvery ?? 10_000);
      this.opts.logger?.error({ err: e, dir: this.opts.dir }, `snapshot not written (${errnoText(asError(e))}); the previous snapshot and the journal are kept`);
      return false;
    }
    this.compactAt = this.opts.snapshotEvery ?? 10_000;
    try {
      this.log.truncate();
    } catch (e) {
      // Harmless: records at or below the snapshot's sequence number are skipped on load.
      this.opts.logger?.warn({ err: e, dir: this.opts.dir }, `journal not emptied after the snapshot (${errnoText(asError(e))})`);
    }
    return true;
  }

  /** Compacts and stops journaling. */
  close(): void {
    if (this.closed) return;
    if (!this.failure) this.compact();
    this.closed = true;
    clearInterval(this.prober);
    this.prober = undefined;
    try {
      this.log.close();
    } catch (e) {
      this.opts.logger?.error({ err: e, dir: this.opts.dir }, `journal not flushed at close (${errnoText(asError(e))})`);
    }
    if (this.opts.synchronizer.journal === this) this.opts.synchronizer.journal = undefined;
    if (this.opts.clock?.journal === this) this.opts.clock.journal = undefined;
  }

  /** After a sync: what it made durable is published to readers and subscribers. */
  private published(): void {
    for (const e of this.opts.participants) e.updates.publish();
  }

  /** A batch could not be written: refuse it, roll the world back to the disk's, and probe until writes work again. */
  private writeFailed(e: unknown): LedgerApiError {
    const err = asError(e);
    this.failedWrites++;
    this.failedBytes = Math.max(this.failedBytes, err instanceof LogWriteError ? err.bytes : 0, PROBE_BYTES);
    const reason = errnoText(err instanceof LogWriteError ? err.failure : err);
    const firstFailure = this.failure === undefined;
    this.failure = { reason, permanent: this.failure?.permanent ?? false };
    this.opts.logger?.error(
      { err, dir: this.opts.dir },
      `cannot persist to STATE_DIR (${reason}): ${err instanceof LogWriteError ? err.records : 'its'} change(s) refused, the world rolled back to what is on disk; changes are refused until writes work again`,
    );
    // Appended after the failed batch, hence made on the world it described.
    this.log.discardPending();
    this.rollBack();
    if (firstFailure) this.startProbing();
    return this.refusal();
  }

  /**
   * Replaces the world in memory with the one on disk (the snapshot and the journal's whole
   * records), as a restart would load it. DARs stay loaded (uploading again is idempotent and
   * slow; a package store cannot unload): a refused DAR upload stays usable until a restart.
   */
  private rollBack(): void {
    const sync = this.opts.synchronizer;
    const journal = sync.journal;
    sync.journal = undefined;
    try {
      const snapshot = deserialize(readFileSync(join(this.opts.dir, SNAPSHOT))) as Snapshot;
      const { records } = readRecords(join(this.opts.dir, JOURNAL), { readOnly: true });
      this.restore(snapshot, records, { dars: false });
      for (const e of this.opts.participants) e.updates.markPublished();
    } catch (e) {
      // The world in memory may now hold what the disk does not: only a restart can tell.
      this.failure = { reason: `${this.failure?.reason ?? 'a write failed'}; the world could not be reloaded from disk, restart the node`, permanent: true };
      this.opts.logger?.error({ err: e, dir: this.opts.dir }, 'cannot reload the world from STATE_DIR after a failed write; writes stay refused until a restart');
    } finally {
      sync.journal = journal;
    }
  }

  private startProbing(): void {
    if (this.prober) return;
    this.prober = setInterval(() => this.probe(), this.opts.probeEveryMs ?? 1000);
    this.prober.unref();
  }

  /** Tries a write of the size that failed; when it works, the node takes changes again. */
  private probe(): void {
    if (!this.failure || this.failure.permanent) return;
    try {
      (this.opts.io?.probeWrite ?? writeProbe)(this.opts.dir, this.failedBytes);
    } catch {
      return;
    }
    this.opts.logger?.info({ dir: this.opts.dir }, `STATE_DIR writable again (was: ${this.failure.reason}); changes are taken again`);
    this.failure = undefined;
    this.failedBytes = 0;
    clearInterval(this.prober);
    this.prober = undefined;
  }

  /** Loads a snapshot and the journal records after it; returns how many records were applied. */
  private restore(snapshot: Snapshot, records: readonly Buffer[], opts: { dars: boolean }): number {
    this.load(snapshot, opts);
    let replayed = 0;
    for (const raw of records) {
      const r = deserialize(raw) as JournalRecord;
      if (r.seq <= snapshot.seq) continue;
      if (opts.dars || r.change.kind !== 'dar') this.apply(r.change);
      this.opts.synchronizer.ids.position = r.ids;
      this.seq = r.seq;
      replayed++;
    }
    return replayed;
  }

  private checkIdentity(s: Snapshot): void {
    if (s.format !== FORMAT) {
      throw new StateDirError(`STATE_DIR ${this.opts.dir} was written by another version (format ${s.format}, this is ${FORMAT}); \`emulate --reset\` starts over`);
    }
    const diff = Object.keys({ ...s.identity, ...this.opts.identity }).filter((k) => s.identity[k] !== this.opts.identity[k]);
    if (diff.length > 0) {
      throw new StateDirError(
        `STATE_DIR ${this.opts.dir} holds another world (${diff.map((k) => `${k}: saved ${JSON.stringify(s.identity[k])}, now ${JSON.stringify(this.opts.identity[k])}`).join('; ')}); \`emulate --reset\` starts over`,
      );
    }
  }

  private engine(name: string): LedgerEngine {
    const e = this.opts.participants.find((p) => p.participantName === name);
    if (!e) throw new StateDirError(`STATE_DIR ${this.opts.dir} names participant ${name}, which is not running`);
    return e;
  }

  private writeSnapshot(): void {
    const sync = this.opts.synchronizer;
    const snapshot: Snapshot = {
      format: FORMAT,
      identity: this.opts.identity,
      seq: this.seq,
      ids: sync.ids.position,
      hosting: sync.savedHosting(),
      externals: sync.externalParties.all().map(savedExternalParty),
      traffic: sync.traffic.savedStates(),
      clockSkewMicros: this.opts.clock?.skewMicros ?? 0n,
      participants: this.opts.participants.map((e) => ({
        name: e.participantName,
        parties: e.parties.all(),
        users: e.users.savedEntries(),
        dars: [...e.packages.savedUploads()],
        contracts: [...e.contracts.all()],
        transactions: [...e.updates.all()],
        deduplication: e.commands.savedDeduplication(),
      })),
    };
    const file = join(this.opts.dir, SNAPSHOT);
    const tmp = `${file}.tmp`;
    try {
      // Blobs are half of a contract's bytes and a function of its other fields: left out, remade on load.
      writeFileSync(tmp, withoutBlobs(this.opts.participants.flatMap((e) => [...e.contracts.all()]), () => serialize(snapshot)));
      const fd = openSync(tmp, 'r');
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, file);
    } catch (e) {
      // A partial snapshot must not stay behind to fill the disk (the previous one is intact).
      rmSync(tmp, { force: true });
      throw e;
    }
    const dirFd = openSync(this.opts.dir, 'r');
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
  }

  private load(s: Snapshot, opts: { dars: boolean }): void {
    const sync = this.opts.synchronizer;
    sync.clearHosting();
    for (const h of s.hosting) sync.restoreHosting(h.party, h.participantId, h.permission, h.threshold);
    sync.externalParties.clear();
    for (const x of s.externals) sync.externalParties.restore(externalRecord(x));
    sync.traffic.restoreStates(s.traffic);
    for (const p of s.participants) {
      const e = this.engine(p.name);
      e.parties.clear();
      for (const r of p.parties) e.parties.restore(r);
      e.users.clear();
      for (const [id, u] of p.users) e.users.restoreEntry(id, u);
      if (opts.dars) for (const d of p.dars) e.packages.uploadDar(d.bytes, { vetAllPackages: d.vetAllPackages });
      e.contracts.clear();
      for (const c of p.contracts) if (c.blob === '') lazyBlob(c);
      e.contracts.load(p.contracts);
      e.updates.clear();
      for (const tx of p.transactions) e.updates.append(tx);
      e.commands.restoreDeduplication(p.deduplication);
    }
    sync.ids.position = s.ids;
    this.seq = s.seq;
    if (this.opts.clock) this.opts.clock.skewMicros = s.clockSkewMicros ?? 0n;
  }

  private apply(c: StateChange): void {
    switch (c.kind) {
      case 'commit':
        // Delivery to the other participants is part of applying it, as when it was committed.
        this.engine(c.participant).commands.apply(c.commit);
        return;
      case 'party':
        this.engine(c.participant).parties.restore(c.record);
        return;
      case 'user':
        this.engine(c.participant).users.restoreEntry(c.id, c.user);
        return;
      case 'dar':
        this.engine(c.participant).packages.uploadDar(c.upload.bytes, { vetAllPackages: c.upload.vetAllPackages });
        return;
      case 'host':
        this.opts.synchronizer.restoreHosting(c.party, c.participantId, c.permission, c.threshold);
        return;
      case 'external':
        this.opts.synchronizer.externalParties.restore(externalRecord(c.record));
        return;
      case 'clock':
        if (this.opts.clock) this.opts.clock.skewMicros = c.skewMicros;
        return;
    }
  }
}

function externalRecord(x: SavedExternalParty): ExternalPartyRecord {
  return {
    party: x.party,
    threshold: x.threshold,
    keys: x.keys.map((k) => ({ fingerprint: k.fingerprint, spec: k.spec, key: createPublicKey({ key: k.spki, format: 'der', type: 'spki' }) })),
  };
}

/**
 * A server's fetch that answers only once the changes the request made are on disk (the
 * journal's group commit); the fetch itself without durable state. When a write failed while the
 * request ran, its answer may rest on what was rolled back: it gets `refused(error)` instead.
 */
export function answerWhenDurable<E>(
  durable: Pick<DurableState, 'flush' | 'failures' | 'refusal'> | undefined,
  fetch: (req: Request, env: E) => Response | Promise<Response>,
  refused: (err: LedgerApiError, req: Request) => Response = plainRefusal,
): (req: Request, env: E) => Response | Promise<Response> {
  if (durable === undefined) return fetch;
  // `env` passed on: it carries the request's context (src/http/service.ts) to the app
  return async (req, env) => {
    const failuresBefore = durable.failures;
    const res = await fetch(req, env);
    let err: LedgerApiError | undefined;
    try {
      await durable.flush();
    } catch (e) {
      err = e instanceof LedgerApiError ? e : durable.refusal();
    }
    if (err === undefined && durable.failures === failuresBefore) return res;
    await res.body?.cancel();
    return refused(err ?? durable.refusal(), req);
  };
}

/** A refusal as `{"error": ...}` (the Splice APIs' error shape), 503 with Retry-After. */
export function plainRefusal(err: LedgerApiError): Response {
  return Response.json({ error: err.causeText }, { status: 503, headers: { 'retry-after': '1' } });
}

/** Writes and syncs `bytes` bytes in the directory, then removes them: throws what the disk says. */
function writeProbe(dir: string, bytes: number): void {
  const file = join(dir, PROBE);
  const fd = openSync(file, 'w');
  try {
    const chunk = Buffer.alloc(Math.min(bytes, PROBE_BYTES));
    for (let written = 0; written < bytes; ) written += writeSync(fd, chunk, 0, Math.min(chunk.length, bytes - written));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
    rmSync(file, { force: true });
  }
}

/**
 * The precise reason a recursive mkdir failed: Node reports ENOENT for a directory whose parent
 * exists but cannot be written (a read-only file system); the plain mkdir of the last level says EROFS.
 */
function mkdirFailure(dir: string, e: Error): Error {
  if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return e;
  try {
    mkdirSync(dir);
    return e;
  } catch (again) {
    return asError(again);
  }
}

function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

/** Runs `f` (a synchronous serialization) with every record's blob empty, then puts the blobs back. */
function withoutBlobs<T>(records: ContractRecord[], f: () => T): T {
  const saved = records.map((c) => [c, Object.getOwnPropertyDescriptor(c, 'blob')!] as const);
  for (const c of records) Object.defineProperty(c, 'blob', { value: '', writable: true, enumerable: true, configurable: true });
  try {
    return f();
  } finally {
    for (const [c, d] of saved) Object.defineProperty(c, 'blob', d);
  }
}

/** Makes a loaded record's blob on first use (most are never asked for): it is a function of the record. */
function lazyBlob(c: ContractRecord): void {
  const settle = (value: string) => Object.defineProperty(c, 'blob', { value, writable: true, enumerable: true, configurable: true });
  Object.defineProperty(c, 'blob', {
    enumerable: true,
    configurable: true,
    get: () => {
      // encodeBlob reads the record's other fields only (never `blob`).
      const value = encodeBlob(c);
      settle(value);
      return value;
    },
    set: (value: string) => settle(value),
  });
}
