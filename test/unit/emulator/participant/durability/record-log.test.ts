import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { frame, LogWriteError, nodeLogFile, readRecords, RecordLog, type LogFile } from '../../../../../src/emulator/participant/durability/record-log.js';

/** node:fs, except that a write stops after `room` more bytes with ENOSPC (a full disk), or a sync fails once with EIO. */
function failingFile(state: { room: number; failSync?: boolean }): LogFile {
  const errno = (code: string, text: string) => Object.assign(new Error(`${code}: ${text}, write`), { code });
  return {
    ...nodeLogFile,
    write(fd, data, offset) {
      if (state.room <= 0) throw errno('ENOSPC', 'no space left on device');
      // a short write first, as write(2) does when the disk fills mid-buffer
      const n = nodeLogFile.write(fd, data.subarray(0, offset + Math.min(state.room, data.length - offset)), offset);
      state.room -= n;
      return n;
    },
    sync(fd) {
      if (state.failSync) {
        state.failSync = false;
        throw errno('EIO', 'i/o error');
      }
      nodeLogFile.sync(fd);
    },
  };
}

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));
const file = () => {
  dir = mkdtempSync(join(tmpdir(), 'record-log-'));
  return join(dir, 'log');
};

describe('RecordLog', () => {
  it('appends framed records; flush writes them; concurrent flushes share one write', async () => {
    const f = file();
    const log = new RecordLog(f);
    for (let i = 0; i < 10; i++) log.append(Buffer.from(`record ${i}`));
    expect(statSync(f).size).toBe(0);
    await Promise.all([log.flush(), log.flush(), log.flush()]);
    expect(readRecords(f).records.map((r) => r.toString())).toEqual(Array.from({ length: 10 }, (_, i) => `record ${i}`));
    log.append(Buffer.from('late'));
    await log.flush();
    log.close();
    expect(readRecords(f).records).toHaveLength(11);
  });

  it('stops at a torn or corrupted record and truncates the file there', () => {
    const f = file();
    writeFileSync(f, Buffer.concat([frame(Buffer.from('a')), frame(Buffer.from('b'))]));
    const good = statSync(f).size;
    appendFileSync(f, frame(Buffer.from('torn')).subarray(0, 9));
    expect(readRecords(f)).toEqual({ records: [Buffer.from('a'), Buffer.from('b')], droppedBytes: 9 });
    expect(statSync(f).size).toBe(good);
    // a flipped byte in the payload fails the checksum: that record and everything after it go
    const bytes = readFileSync(f);
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 0xff, bytes.length - 1);
    writeFileSync(f, bytes);
    expect(readRecords(f).records).toEqual([Buffer.from('a')]);
  });

  it('a write that fails midway refuses its batch whole and cuts the file back: later records follow the last whole one', async () => {
    const f = file();
    const state = { room: 1_000_000 };
    const log = new RecordLog(f, failingFile(state));
    log.append(Buffer.from('kept 1'));
    log.append(Buffer.from('kept 2'));
    await log.flush();
    const good = statSync(f).size;
    state.room = 20; // the next batch tears after 20 bytes
    for (let i = 0; i < 5; i++) log.append(Buffer.alloc(100, i));
    const failed = await log.flush().then(() => undefined, (e: unknown) => e);
    expect(failed).toBeInstanceOf(LogWriteError);
    expect((failed as LogWriteError).code).toBe('ENOSPC');
    expect((failed as LogWriteError).records).toBe(5);
    expect(statSync(f).size).toBe(good);
    expect(log.dirty).toBe(false);
    expect(log.count).toBe(2);
    // space again: what is appended now is readable after the records before the failure
    state.room = 1_000_000;
    log.append(Buffer.from('kept 3'));
    await log.flush();
    log.close();
    expect(readRecords(f)).toEqual({ records: ['kept 1', 'kept 2', 'kept 3'].map((x) => Buffer.from(x)), droppedBytes: 0 });
  });

  it('a failed sync refuses the written batch too (its pages may be lost): the file is cut back', async () => {
    const f = file();
    const state = { room: 1_000_000, failSync: false };
    const log = new RecordLog(f, failingFile(state));
    log.append(Buffer.from('kept'));
    await log.flush();
    state.failSync = true;
    log.append(Buffer.from('refused'));
    await expect(log.flush()).rejects.toThrow(/EIO: i\/o error/);
    log.append(Buffer.from('after'));
    log.flushSync();
    log.close();
    expect(readRecords(f).records.map((r) => r.toString())).toEqual(['kept', 'after']);
  });

  it('a failed cut-back is retried before the next write', async () => {
    const f = file();
    const state = { room: 1_000_000 };
    let truncateFails = 0;
    const io: LogFile = {
      ...failingFile(state),
      truncate(fd, length) {
        if (truncateFails > 0) {
          truncateFails--;
          throw Object.assign(new Error('EIO: i/o error, ftruncate'), { code: 'EIO' });
        }
        nodeLogFile.truncate(fd, length);
      },
    };
    const log = new RecordLog(f, io);
    log.append(Buffer.from('kept'));
    await log.flush();
    state.room = 5;
    truncateFails = 1;
    log.append(Buffer.from('torn record'));
    await expect(log.flush()).rejects.toBeInstanceOf(LogWriteError);
    state.room = 1_000_000;
    log.append(Buffer.from('after'));
    await log.flush();
    log.close();
    expect(readRecords(f).records.map((r) => r.toString())).toEqual(['kept', 'after']);
  });

  it('a missing file has no records', () => {
    expect(readRecords(`${file()}-none`)).toEqual({ records: [], droppedBytes: 0 });
  });
});
