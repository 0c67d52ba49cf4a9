import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { frame, readRecords, RecordLog } from '../../../../../src/emulator/ledger/durability/record-log.js';

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

  it('a missing file has no records', () => {
    expect(readRecords(`${file()}-none`)).toEqual({ records: [], droppedBytes: 0 });
  });
});
