/**
 * Durable emulator state (`STATE_DIR`): the emulated world survives a restart, even a kill -9.
 *
 * Two files in the directory:
 *  - `journal.log`: every change of the world (changes.ts: commits, parties, users, DARs, topology,
 *    external parties) as a framed record (record-log.ts), appended as it happens; the HTTP layer
 *    waits for `flush()` (write + fdatasync, shared by concurrent requests) before it answers, so an
 *    acknowledged command is on disk;
 *  - `snapshot.bin`: the whole world at one journal sequence number, written to a temporary file,
 *    synced and renamed over the old one every `snapshotEvery` changes and on close; the journal
 *    is then emptied (compaction). Records at or below the snapshot's sequence number are skipped
 *    on load, so a crash between the rename and the truncation loses nothing and applies nothing twice.
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
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { ConfigError } from '../../../config/errors.js';
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
import { readRecords, RecordLog } from './record-log.js';

const FORMAT = 1;
const SNAPSHOT = 'snapshot.bin';
const JOURNAL = 'journal.log';

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
  /** Changes between snapshots (default 10,000). */
  snapshotEvery?: number;
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

export class DurableState implements StateJournal {
  private readonly log: RecordLog;
  private seq = 0;
  private snapshotScheduled = false;
  private closed = false;
  readonly opened: OpenedState;

  /** Deletes what a state directory holds (`emulate --reset`). */
  static reset(dir: string): void {
    rmSync(join(dir, SNAPSHOT), { force: true });
    rmSync(join(dir, `${SNAPSHOT}.tmp`), { force: true });
    rmSync(join(dir, JOURNAL), { force: true });
  }

  /**
   * Opens `dir`: loads the world saved there into the (already built) participants, or saves the
   * built world as the directory's first snapshot; then journals every change.
   */
  static open(opts: DurableStateOptions): DurableState {
    return new DurableState(opts);
  }

  private constructor(private readonly opts: DurableStateOptions) {
    mkdirSync(opts.dir, { recursive: true });
    const snapshotFile = join(opts.dir, SNAPSHOT);
    let snapshot: Snapshot | undefined;
    try {
      snapshot = deserialize(readFileSync(snapshotFile)) as Snapshot;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw new StateDirError(`STATE_DIR ${opts.dir}: ${SNAPSHOT} cannot be read (${(e as Error).message}); \`emulate --reset\` starts over`);
      }
    }
    const journalFile = join(opts.dir, JOURNAL);
    if (snapshot === undefined) {
      // A new directory: what was built is the first snapshot; an old journal without it is stale.
      rmSync(journalFile, { force: true });
      this.log = new RecordLog(journalFile);
      this.writeSnapshot();
      this.opened = { restored: false, replayed: 0, droppedBytes: 0 };
    } else {
      this.checkIdentity(snapshot);
      const { records, droppedBytes } = readRecords(journalFile);
      this.load(snapshot);
      let replayed = 0;
      for (const raw of records) {
        const r = deserialize(raw) as JournalRecord;
        if (r.seq <= snapshot.seq) continue;
        this.apply(r.change);
        this.opts.synchronizer.ids.position = r.ids;
        this.seq = r.seq;
        replayed++;
      }
      this.log = new RecordLog(journalFile);
      this.opened = { restored: true, replayed, droppedBytes };
    }
    opts.synchronizer.journal = this;
  }

  record(change: StateChange): void {
    if (this.closed) return;
    this.seq++;
    this.log.append(serialize({ seq: this.seq, ids: this.opts.synchronizer.ids.position, change } satisfies JournalRecord));
    if (this.log.count >= (this.opts.snapshotEvery ?? 10_000) && !this.snapshotScheduled) {
      this.snapshotScheduled = true;
      setImmediate(() => {
        this.snapshotScheduled = false;
        if (!this.closed) this.compact();
      });
    }
  }

  /** Resolves when every change recorded so far is on disk. */
  flush(): Promise<void> {
    return this.log.flush();
  }

  /** Writes a snapshot of the world and empties the journal. */
  compact(): void {
    this.log.flushSync();
    this.writeSnapshot();
    this.log.truncate();
  }

  /** Compacts and stops journaling. */
  close(): void {
    if (this.closed) return;
    this.compact();
    this.closed = true;
    this.log.close();
    if (this.opts.synchronizer.journal === this) this.opts.synchronizer.journal = undefined;
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
    // Blobs are half of a contract's bytes and a function of its other fields: left out, remade on load.
    writeFileSync(tmp, withoutBlobs(this.opts.participants.flatMap((e) => [...e.contracts.all()]), () => serialize(snapshot)));
    const fd = openSync(tmp, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
    const dirFd = openSync(this.opts.dir, 'r');
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
  }

  private load(s: Snapshot): void {
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
      for (const d of p.dars) e.packages.uploadDar(d.bytes, { vetAllPackages: d.vetAllPackages });
      e.contracts.clear();
      for (const c of p.contracts) if (c.blob === '') lazyBlob(c);
      e.contracts.load(p.contracts);
      e.updates.clear();
      for (const tx of p.transactions) e.updates.append(tx);
      e.commands.restoreDeduplication(p.deduplication);
    }
    sync.ids.position = s.ids;
    this.seq = s.seq;
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
 * journal's group commit); the fetch itself without durable state.
 */
export function answerWhenDurable<E>(
  durable: Pick<DurableState, 'flush'> | undefined,
  fetch: (req: Request, env: E) => Response | Promise<Response>,
): (req: Request, env: E) => Response | Promise<Response> {
  if (durable === undefined) return fetch;
  // `env` passed on: it carries the request's context (src/http/service.ts) to the app
  return async (req, env) => {
    const res = await fetch(req, env);
    await durable.flush();
    return res;
  };
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
