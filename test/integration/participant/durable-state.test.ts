/**
 * Durable emulator state (STATE_DIR) over real sockets: a world changed through the APIs
 * (parties, users and rights, a DAR, TT1 transfers, a participant2 party) is the same after a
 * restart, read through the same APIs; ids continue (nothing reused); a torn journal tail is
 * dropped; another world in the directory is refused; snapshots compact the journal.
 */
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startStack, type RunningStack } from '../../../src/stack.js';
import { TRANSFER_FACTORY_V1, Tt1Client, type Disclosed } from '../../unit/emulator/templates/test-token-v1/tt1-client.js';
import { SHARED_DARS_URL } from '../../support/shared-dars.js';
import { z } from 'zod';
import { GetLedgerEndResponseSchema } from '../../../src/ledger-client/schemas/events.js';
import { AllocatePartyResponseSchema } from '../../../src/ledger-client/schemas/parties.js';
import { UserOutSchema } from '../../../src/ledger-client/schemas/users.js';


const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function stateDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'token-registry-state-'));
  dirs.push(d);
  return d;
}

function start(dir: string, extra: Record<string, unknown> = {}): Promise<RunningStack> {
  return startStack({ config: { port: 0, participant2Port: 0, participants: 2, logLevel: 'silent', stateDir: dir, ...extra }, registryPort: 0, scanPort: 0, validatorPort: 0 });
}

async function call(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const r = await fetch(url + path, { method, body: body === undefined ? undefined : typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body), headers: { 'content-type': body instanceof Uint8Array ? 'application/octet-stream' : 'application/json' } });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}

/** `GET /v2/users`, the users kept whole (unknown fields too: they are compared across restarts). */
const ListUsersLooseSchema = z.object({ users: z.array(UserOutSchema.loose()) });
const allocatedParty = (body: unknown): string => AllocatePartyResponseSchema.parse(body).partyDetails.party;

/** Everything a client can read of both participants, with ids (offsets, update ids, contract ids). */
async function worldOf(stack: RunningStack) {
  const out: Record<string, unknown> = {};
  for (const p of stack.participants) {
    const url = p.ledgerUrl;
    const end = GetLedgerEndResponseSchema.parse((await call(url, 'GET', '/v2/state/ledger-end')).body).offset;
    const acs = await call(url, 'POST', '/v2/state/active-contracts', { eventFormat: { filtersForAnyParty: { cumulative: [] }, verbose: true }, activeAtOffset: end });
    const updates = await call(url, 'POST', '/v2/updates', {
      beginExclusive: 0,
      endInclusive: end,
      updateFormat: { includeTransactions: { eventFormat: { filtersForAnyParty: { cumulative: [] }, verbose: true }, transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS' } },
    });
    const users = ListUsersLooseSchema.parse((await call(url, 'GET', '/v2/users?pageSize=1000')).body).users;
    const rights = await Promise.all(users.map(async (u) => [u.id, ((await call(url, 'GET', `/v2/users/${u.id}/rights`)).body as { rights: unknown }).rights]));
    out[p.participantId] = {
      end,
      acs: acs.body,
      updates: updates.body,
      parties: (await call(url, 'GET', '/v2/parties?pageSize=10000')).body,
      users,
      rights,
      packages: (await call(url, 'GET', '/v2/packages')).body,
    };
  }
  return out;
}

describe('STATE_DIR', () => {
  it('keeps the world across a restart, ids continue, and a torn journal tail is dropped', async () => {
    const dir = stateDir();
    let stack = await start(dir);
    expect(stack.durable!.opened.restored).toBe(false);
    const [url1, url2] = stack.participants.map((p) => p.ledgerUrl) as [string, string];
    const seeded = stack.seeded!;
    const alice = seeded.parties.find((p) => p.hint === 'alice')!.party;
    const admin = seeded.instruments[0]!.adminParty;
    // changes through every kind of write
    const carol = allocatedParty((await call(url2, 'POST', '/v2/parties', { partyIdHint: 'carol', identityProviderId: '' })).body);
    expect((await call(url1, 'POST', '/v2/users', { user: { id: 'dave', primaryParty: alice, isDeactivated: false, identityProviderId: '' }, rights: [{ kind: { CanReadAs: { value: { party: alice } } } }] })).status).toBe(200);
    expect((await call(url1, 'PATCH', `/v2/parties/${encodeURIComponent(alice)}`, { partyDetails: { party: alice, isLocal: true, localMetadata: { resourceVersion: '', annotations: { tag: 'kept' } }, identityProviderId: '' }, updateMask: { paths: ['local_metadata.annotations'] } })).status).toBe(200);
    const dar = readFileSync(new URL('splice-token-test-trading-app-1.0.0.dar', SHARED_DARS_URL));
    expect((await call(url2, 'POST', '/v2/dars', new Uint8Array(dar))).status).toBe(200);
    const tt1 = new Tt1Client((path, init) => fetch(url1 + path, init));
    const rules: Disclosed = await tt1.disclosedRules(admin);
    const holdings = (await tt1.holdings(alice)).filter((h) => h.view.instrumentId.id === 'TT1').map((h) => h.contractId);
    const now = Date.now();
    const offer = await tt1.submit(
      [alice],
      [{ ExerciseCommand: { templateId: TRANSFER_FACTORY_V1, contractId: rules.contractId, choice: 'TransferFactory_Transfer', choiceArgument: {
        expectedAdmin: admin,
        transfer: { sender: alice, receiver: carol, amount: '12', instrumentId: { admin, id: 'TT1' }, requestedAt: new Date(now - 60_000).toISOString(), executeBefore: new Date(now + 3_600_000).toISOString(), inputHoldingCids: holdings, meta: { values: {} } },
        extraArgs: { context: { values: {} }, meta: { values: {} } },
      } } }],
      [rules],
    );
    expect(offer.status, JSON.stringify(offer.body)).toBe(200);
    const before = await worldOf(stack);
    // What a kill -9 now leaves: every answered change is in the journal (the snapshot is the seeded world).
    const crashed = stateDir();
    cpSync(dir, crashed, { recursive: true });
    await stack.close();

    stack = await start(crashed);
    expect(stack.durable!.opened.restored).toBe(true);
    expect(stack.durable!.opened.replayed).toBe(7); // carol (her record, hosting, known on participant1), dave, alice's annotation, the DAR, the offer
    expect(await worldOf(stack)).toEqual(before);
    await stack.close();

    // after a clean stop everything is in the snapshot (blobs are remade from the records)
    stack = await start(dir);
    expect(stack.durable!.opened).toEqual({ restored: true, replayed: 0, droppedBytes: 0 });
    expect(await worldOf(stack)).toEqual(before);
    expect(await new Tt1Client((path, init) => fetch(stack.participants[0]!.ledgerUrl + path, init)).disclosedRules(admin)).toEqual(rules);
    // ids continue: a new party and transaction get ids never handed out before
    const seen = JSON.stringify(before);
    const next = await call(stack.participants[0]!.ledgerUrl, 'POST', '/v2/parties', { identityProviderId: '' });
    expect(seen).not.toContain(allocatedParty(next.body).split('::')[0]);
    const after = await worldOf(stack);
    await stack.close();

    // a torn last record (a crash mid-write) is dropped; everything before it is there
    appendFileSync(join(dir, 'journal.log'), Buffer.from([200, 0, 0, 0, 1, 2, 3]));
    stack = await start(dir);
    expect(stack.durable!.opened.droppedBytes).toBe(7);
    expect(await worldOf(stack)).toEqual(after);
    await stack.close();
  });

  it('refuses a directory holding another world, with a clear message', async () => {
    const dir = stateDir();
    const stack = await start(dir);
    await stack.close();
    await expect(start(dir, { seed: 'another-seed' })).rejects.toThrow(/holds another world \(seed: saved "token-registry", now "another-seed"\).*emulate --reset/);
  });

  it('snapshots compact the journal', async () => {
    const dir = stateDir();
    let stack = await start(dir, { snapshotEvery: 5 });
    const url = stack.participants[0]!.ledgerUrl;
    for (let i = 0; i < 12; i++) expect((await call(url, 'POST', '/v2/parties', { partyIdHint: `p${i}`, identityProviderId: '' })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 50));
    expect(statSync(join(dir, 'journal.log')).size).toBeLessThan(5_000);
    const parties = (await call(url, 'GET', '/v2/parties?pageSize=10000')).body;
    await stack.close();
    expect(statSync(join(dir, 'journal.log')).size).toBe(0);
    stack = await start(dir, { snapshotEvery: 5 });
    expect((await call(stack.participants[0]!.ledgerUrl, 'GET', '/v2/parties?pageSize=10000')).body).toEqual(parties);
    await stack.close();
  });
});
