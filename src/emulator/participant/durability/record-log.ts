/**
 * An append-only file of framed records: `[length u32 LE][crc32 u32 LE][payload]`.
 *
 * Appends are buffered and written by `flush()`, which ends with an fdatasync: when it resolves,
 * every record appended before the call is on disk. Concurrent callers share one write and one
 * sync (group commit), so the cost of durability is paid once per batch, not per record.
 *
 * A failed write or sync (a full disk, an I/O error) refuses the whole batch: the file is cut
 * back to the end of its last whole record, so nothing appended after the failure can land
 * behind a torn record (which would hide it from the next start's replay), and the batch's
 * records are forgotten. PostgreSQL's "fsyncgate" lesson applies to the sync: after a failed
 * fsync the kernel may have dropped the dirty pages, so the bytes are not retried, they are cut.
 *
 * Reading stops at the first frame that is short or fails its checksum (a write torn by a crash:
 * only the last record can be, since nothing is acknowledged before its sync) and truncates the
 * file there, so the next append continues after the last good record.
 */
import { closeSync, fdatasyncSync, fstatSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import { crc32 } from 'node:zlib';

const HEADER = 8;

export interface ReadResult {
  records: Buffer[];
  /** Bytes dropped after the last good record (a torn tail), 0 when the file was clean. */
  droppedBytes: number;
}

/** Reads every intact record of `file` (missing file: none) and, unless `readOnly`, truncates a torn tail away. */
export function readRecords(file: string, opts: { readOnly?: boolean } = {}): ReadResult {
  let data: Buffer;
  try {
    data = readFileSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], droppedBytes: 0 };
    throw e;
  }
  const records: Buffer[] = [];
  let pos = 0;
  while (pos + HEADER <= data.length) {
    const length = data.readUInt32LE(pos);
    const sum = data.readUInt32LE(pos + 4);
    const end = pos + HEADER + length;
    if (end > data.length) break;
    const payload = data.subarray(pos + HEADER, end);
    if (crc32(payload) !== sum) break;
    records.push(payload);
    pos = end;
  }
  const droppedBytes = data.length - pos;
  if (droppedBytes > 0 && !opts.readOnly) {
    const fd = openSync(file, 'r+');
    try {
      ftruncateSync(fd, pos);
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
  return { records, droppedBytes };
}

export function frame(payload: Buffer): Buffer {
  const header = Buffer.alloc(HEADER);
  header.writeUInt32LE(payload.length, 0);
  header.writeUInt32LE(crc32(payload), 4);
  return Buffer.concat([header, payload]);
}

/** The file operations the log uses: node:fs, or a fake that fails on demand (tests). */
export interface LogFile {
  open(path: string): number;
  size(fd: number): number;
  write(fd: number, data: Buffer, offset: number): number;
  sync(fd: number): void;
  truncate(fd: number, length: number): void;
  close(fd: number): void;
}

export const nodeLogFile: LogFile = {
  open: (path) => openSync(path, 'a'),
  size: (fd) => fstatSync(fd).size,
  write: (fd, data, offset) => writeSync(fd, data, offset),
  sync: (fd) => fdatasyncSync(fd),
  truncate: (fd, length) => ftruncateSync(fd, length),
  close: (fd) => closeSync(fd),
};

/** A batch of records that could not be made durable; the file holds none of it. */
export class LogWriteError extends Error {
  constructor(
    readonly failure: Error,
    /** Records of the refused batch. */
    readonly records: number,
    /** Bytes of the refused batch. */
    readonly bytes: number,
  ) {
    super(`journal write failed (${errnoText(failure)}); ${records} record(s) refused`);
  }
  /** The errno code (`ENOSPC`, `EIO`, ...), when the failure had one. */
  get code(): string | undefined {
    return (this.failure as NodeJS.ErrnoException).code;
  }
}

/** `ENOSPC: no space left on device` from a node:fs error, its message otherwise. */
export function errnoText(e: Error): string {
  const code = (e as NodeJS.ErrnoException).code;
  const syscallAt = e.message.indexOf(', ');
  if (code !== undefined && e.message.startsWith(`${code}: `) && syscallAt > 0) return e.message.slice(0, syscallAt);
  return e.message;
}

export class RecordLog {
  private readonly fd: number;
  private pending: Buffer[] = [];
  private flushing: Promise<void> | undefined;
  /** Bytes of whole, synced records: where the file is cut back to after a failed write. */
  private durableSize: number;
  /** A cut-back that failed itself: retried before the next write (which must not follow torn bytes). */
  private cutPending = false;
  /** Records appended since the file was opened or truncated. */
  count = 0;

  constructor(
    file: string,
    private readonly io: LogFile = nodeLogFile,
  ) {
    this.fd = io.open(file);
    this.durableSize = io.size(this.fd);
  }

  append(payload: Buffer): void {
    this.pending.push(frame(payload));
    this.count++;
  }

  /** Whether appended records wait for a flush. */
  get dirty(): boolean {
    return this.pending.length > 0;
  }

  /**
   * Writes and syncs everything appended so far (one write and sync for all concurrent callers).
   * Rejects with a `LogWriteError` when the batch could not be made durable: none of it is kept.
   */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing.then(() => (this.pending.length > 0 ? this.flush() : undefined));
    if (this.pending.length === 0) return Promise.resolve();
    this.flushing = new Promise<void>((resolve, reject) => {
      // Let every request that is about to finish append first: they all share this sync.
      setImmediate(() => {
        try {
          this.writeOut();
          resolve();
        } catch (e) {
          reject(e);
        } finally {
          this.flushing = undefined;
        }
      });
    });
    return this.flushing;
  }

  /** Writes and syncs at once (shutdown, snapshot); throws a `LogWriteError` as `flush` rejects. */
  flushSync(): void {
    this.writeOut();
  }

  /** Forgets the records not written yet (the world they described was rolled back). */
  discardPending(): number {
    const n = this.pending.length;
    this.pending = [];
    this.count -= n;
    return n;
  }

  /** Empties the file (after a snapshot made its records redundant). */
  truncate(): void {
    this.writeOut();
    this.io.truncate(this.fd, 0);
    this.io.sync(this.fd);
    this.durableSize = 0;
    this.count = 0;
  }

  close(): void {
    try {
      this.writeOut();
    } finally {
      this.io.close(this.fd);
    }
  }

  private writeOut(): void {
    if (this.pending.length === 0) return;
    const batch = Buffer.concat(this.pending);
    const records = this.pending.length;
    // The batch is taken whole: written and synced, or refused whole.
    this.pending = [];
    try {
      if (this.cutPending) this.cutBack();
      let off = 0;
      while (off < batch.length) off += this.io.write(this.fd, batch, off);
      this.io.sync(this.fd);
    } catch (e) {
      this.count -= records;
      try {
        this.cutBack();
      } catch {
        // Retried before the next write; until then the file ends in torn bytes no reader trusts.
        this.cutPending = true;
      }
      throw new LogWriteError(e instanceof Error ? e : new Error(String(e)), records, batch.length);
    }
    this.durableSize += batch.length;
  }

  private cutBack(): void {
    this.io.truncate(this.fd, this.durableSize);
    this.io.sync(this.fd);
    this.cutPending = false;
  }
}
