/**
 * An append-only file of framed records: `[length u32 LE][crc32 u32 LE][payload]`.
 *
 * Appends are buffered and written by `flush()`, which ends with an fdatasync: when it resolves,
 * every record appended before the call is on disk. Concurrent callers share one write and one
 * sync (group commit), so the cost of durability is paid once per batch, not per record.
 *
 * Reading stops at the first frame that is short or fails its checksum (a write torn by a crash:
 * only the last record can be, since nothing is acknowledged before its sync) and truncates the
 * file there, so the next append continues after the last good record.
 */
import { closeSync, fdatasyncSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import { crc32 } from 'node:zlib';

const HEADER = 8;

export interface ReadResult {
  records: Buffer[];
  /** Bytes dropped after the last good record (a torn tail), 0 when the file was clean. */
  droppedBytes: number;
}

/** Reads every intact record of `file` (missing file: none) and truncates a torn tail away. */
export function readRecords(file: string): ReadResult {
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
  if (droppedBytes > 0) {
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

export class RecordLog {
  private fd: number;
  private pending: Buffer[] = [];
  private flushing: Promise<void> | undefined;
  /** Records appended since the file was opened or truncated. */
  count = 0;

  constructor(file: string) {
    this.fd = openSync(file, 'a');
  }

  append(payload: Buffer): void {
    this.pending.push(frame(payload));
    this.count++;
  }

  /** Whether appended records wait for a flush. */
  get dirty(): boolean {
    return this.pending.length > 0;
  }

  /** Writes and syncs everything appended so far (one write and sync for all concurrent callers). */
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

  /** Writes and syncs at once (shutdown, snapshot). */
  flushSync(): void {
    this.writeOut();
  }

  /** Empties the file (after a snapshot made its records redundant). */
  truncate(): void {
    this.writeOut();
    ftruncateSync(this.fd, 0);
    fdatasyncSync(this.fd);
    this.count = 0;
  }

  close(): void {
    this.writeOut();
    closeSync(this.fd);
  }

  private writeOut(): void {
    if (this.pending.length === 0) return;
    const batch = Buffer.concat(this.pending);
    this.pending = [];
    let off = 0;
    while (off < batch.length) off += writeSync(this.fd, batch, off);
    fdatasyncSync(this.fd);
  }
}
