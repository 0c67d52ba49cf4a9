/**
 * A restore with STATE_DIR is what the directory keeps: after snapshot → mint → restore and a
 * restart on the same directory, the world is the snapshot's (the restore compacts the journal,
 * which described the replaced world).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startStack, type RunningStack } from '../../../src/stack.js';

const dir = mkdtempSync(join(tmpdir(), 'admin-durable-'));
const open: RunningStack[] = [];

async function start(): Promise<RunningStack> {
  const s = await startStack({ config: { port: 0, logLevel: 'silent', stateDir: dir }, registryPort: 0, scanPort: 0, validatorPort: 0 });
  open.push(s);
  return s;
}

afterAll(async () => {
  for (const s of open) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('admin API with STATE_DIR', () => {
  it('a restored world is the one a restart loads', async () => {
    const first = await start();
    const id = first.snapshot();
    const end = first.engine.ledgerEnd();
    const lastUpdate = first.engine.updates.atOffset(end)!.updateId;
    const before = first.holdings('alice');
    const minted = first.mint({ instrument: 'TT1', owner: 'alice', amount: '77' });
    await first.restore(id);
    // a change after the restore is journaled on top of the restored world
    const after = first.mint({ instrument: 'TT2-USD', owner: 'bob', amount: '1' });
    // (the round automation may commit too, at wall-clock time)
    const endAtClose = first.engine.ledgerEnd();
    await first.close();
    open.pop();

    const second = await start();
    expect(second.engine.ledgerEnd()).toBeGreaterThanOrEqual(endAtClose);
    expect(second.engine.updates.atOffset(end)!.updateId).toBe(lastUpdate);
    expect(second.engine.contracts.get(minted.contractId)).toBeUndefined();
    const alice = second.holdings('alice');
    expect(alice.balances).toEqual(before.balances);
    expect(alice.holdings.map((h) => h.contractId)).not.toContain(minted.contractId);
    expect(second.holdings('bob').holdings.map((h) => h.contractId)).toContain(after.contractId);
  });
});
