/**
 * Open streams obey the caller's current authorization, as Canton's ongoing stream authorization
 * (canton: community/ledger/ledger-api-core/.../ledger/api/auth/UserBasedOngoingAuthorization.scala):
 * over real sockets on both participants of a two-participant emulator with HS256 JWT auth,
 * - a revoked CanReadAs, a deactivated or a deleted user ends the user's open websocket streams
 *   with STALE_STREAM_AUTHORIZATION before the revoked party's next contract reaches them, and an
 *   open-ended list request answers that error (409);
 * - a token that expires ends the stream with ACCESS_TOKEN_EXPIRED at its expiry;
 * - streams of other users, and a change that leaves the user's claims as they were, go on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';
import { mintDevToken } from '../../../src/emulator/ledger-api/auth.js';
import type { LedgerEngine } from '../../../src/emulator/participant/engine.js';
import { formatInstant } from '../../../src/canton/clock.js';
import { cmds, create, IOU, iouTemplate } from '../../support/ledger-fixtures.js';
import { eventually, subscribe, type Subscription } from '../../support/ws-ledger.js';

const SECRET = 'stream-auth-secret';

interface Participant {
  engine: LedgerEngine;
  httpUrl: string;
  wsUrl: string;
  bank: string;
  alice: string;
  bob: string;
}

let emu: RunningEmulator;
const nodes: Participant[] = [];

const nowSeconds = (engine: LedgerEngine) => Number(engine.clock.nowMicros() / 1_000_000n);
const token = (p: Participant, sub: string, expiresInSeconds?: number) =>
  mintDevToken({ secret: SECRET, sub, nowSeconds: nowSeconds(p.engine), expiresInSeconds });

async function call(p: Participant, method: string, path: string, body: unknown, sub = 'participant_admin') {
  const r = await fetch(`${p.httpUrl}${path}`, {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: { authorization: `Bearer ${await token(p, sub)}`, 'content-type': 'application/json' },
  });
  return { status: r.status, body: (await r.json()) as unknown };
}

/** A new contract whose only stakeholders are the bank and `owner`. */
async function issue(p: Participant, owner: string, amount: string): Promise<void> {
  const r = await call(p, 'POST', '/v2/commands/submit-and-wait', cmds([p.bank, owner], [create(IOU, { issuer: p.bank, owner, amount, observers: [] })], { userId: 'ops' }), 'ops');
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

const wireRight = (party: string) => ({ kind: { CanReadAs: { value: { party } } } });

function updatesRequest(p: Participant, party: string) {
  return {
    beginExclusive: p.engine.ledgerEnd(),
    updateFormat: {
      includeTransactions: { eventFormat: { filtersByParty: { [party]: { cumulative: [] } }, verbose: false }, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' },
    },
  };
}

async function open(p: Participant, path: string, request: unknown, sub: string, expiresInSeconds?: number): Promise<Subscription> {
  return subscribe(p.wsUrl, path, request, { protocols: [`jwt.token.${await token(p, sub, expiresInSeconds)}`, 'daml.ws.auth'] });
}

/** The amounts of the contracts created in the update frames received so far. */
function amounts(s: Subscription): string[] {
  return s.frames.flatMap((f) => {
    const tx = (f as { update?: { Transaction?: { value: { events: Array<{ CreatedEvent?: { createArgument: { amount: string } } }> } } } }).update?.Transaction;
    return tx === undefined ? [] : tx.value.events.flatMap((e) => (e.CreatedEvent ? [String(Number(e.CreatedEvent.createArgument.amount))] : []));
  });
}

/** The socket has opened and its request frame has been served (the stream is live). */
async function live(p: Participant, before: number): Promise<void> {
  await eventually(() => p.engine.updates.listenerCount > before, 3000);
}

function expectStale(frame: unknown, p: Participant): void {
  expect(frame).toMatchObject({
    code: 'STALE_STREAM_AUTHORIZATION',
    cause: 'Stale stream authorization. Retry quickly.',
    correlationId: null,
    context: { participant: p.engine.participantName, category: '2', definite_answer: 'false' },
    resources: [],
    errorCategory: 2,
    grpcCodeValue: 10,
    retryInfo: '1 second',
  });
}

beforeAll(async () => {
  emu = await startEmulator({
    config: { port: 0, participant2Port: 0, participants: 2, demoWorld: false, logLevel: 'silent', auth: { mode: 'jwt', hs256Secret: SECRET } },
  });
  for (const [i, node] of emu.participants.entries()) {
    const engine = node.engine;
    engine.templates.register(iouTemplate);
    const party = (hint: string) => engine.parties.allocate(`${hint}${i + 1}`).party;
    const p: Participant = {
      engine,
      httpUrl: emu.ledgerUrls[i]!,
      wsUrl: emu.ledgerUrls[i]!.replace(/^http/, 'ws'),
      bank: party('bank'),
      alice: party('alice'),
      bob: party('bob'),
    };
    engine.users.create({ id: 'ops' }, [p.bank, p.alice, p.bob].map((party) => ({ kind: 'CanActAs' as const, party })));
    engine.users.create({ id: 'bob-user', primaryParty: p.bob }, [{ kind: 'CanReadAs', party: p.bob }]);
    nodes.push(p);
  }
});
afterAll(async () => {
  await emu?.close();
});

describe.each([0, 1])('ongoing stream authorization on participant %i', (i) => {
  const p = () => nodes[i]!;

  it('a revoked CanReadAs ends the stream before the party’s next contract; other streams go on', async () => {
    const n = p();
    n.engine.users.create({ id: 'alice-reads-bob', primaryParty: n.alice }, [
      { kind: 'CanReadAs', party: n.alice },
      { kind: 'CanReadAs', party: n.bob },
    ]);
    const listeners = n.engine.updates.listenerCount;
    const alice = await open(n, '/v2/updates', updatesRequest(n, n.bob), 'alice-reads-bob');
    const bob = await open(n, '/v2/updates', updatesRequest(n, n.bob), 'bob-user');
    // The same user's completions (another channel) and an open-ended list request end too.
    const completions = await open(n, '/v2/commands/completions', { userId: 'alice-reads-bob', parties: [n.bob], beginExclusive: n.engine.ledgerEnd() }, 'alice-reads-bob');
    await live(n, listeners + 2); // three sockets
    const list = fetch(`${n.httpUrl}/v2/updates?stream_idle_timeout_ms=5000`, {
      method: 'POST',
      body: JSON.stringify(updatesRequest(n, n.bob)),
      headers: { authorization: `Bearer ${await token(n, 'alice-reads-bob')}` },
    });
    await live(n, listeners + 3); // and the list request

    await issue(n, n.bob, '1');
    await alice.waitFrames(1);
    await bob.waitFrames(1);

    // A change that leaves the claims as they were (annotations) ends nothing.
    const annotate = await call(n, 'PATCH', '/v2/users/alice-reads-bob', {
      user: { id: 'alice-reads-bob', primaryParty: n.alice, isDeactivated: false, identityProviderId: '', primaryPartyAuthentication: false, metadata: { resourceVersion: '', annotations: { k: 'v' } } },
      updateMask: { paths: ['metadata.annotations'] },
    });
    expect(annotate.status, JSON.stringify(annotate.body)).toBe(200);
    expect(alice.ws.readyState).toBe(alice.ws.OPEN);

    const revoke = await call(n, 'PATCH', '/v2/users/alice-reads-bob/rights', { userId: 'alice-reads-bob', rights: [wireRight(n.bob)], identityProviderId: '' });
    expect(revoke.status, JSON.stringify(revoke.body)).toBe(200);
    await issue(n, n.bob, '2');
    await bob.waitFrames(2);

    expect(await alice.closed).toEqual({ code: 1000, reason: '' });
    expect(amounts(alice)).toEqual(['1']);
    expect(alice.frames).toHaveLength(2);
    expectStale(alice.frames[1], n);
    expect(await completions.closed).toEqual({ code: 1000, reason: '' });
    expectStale(completions.frames.at(-1), n);
    const listed = await list;
    expect(listed.status).toBe(409);
    expectStale(await listed.json(), n);

    // bob's own stream was not affected, and a fresh call of alice's is denied.
    expect(amounts(bob)).toEqual(['1', '2']);
    expect(bob.ws.readyState).toBe(bob.ws.OPEN);
    const fresh = await call(n, 'POST', '/v2/updates?stream_idle_timeout_ms=10', updatesRequest(n, n.bob), 'alice-reads-bob');
    expect(fresh.status).toBe(403);
    bob.ws.close();
    await bob.closed;
    await eventually(() => n.engine.updates.listenerCount === listeners && n.engine.users.listenerCount === 0);
  });

  it('a deactivated user’s and a deleted user’s streams end', async () => {
    const n = p();
    n.engine.users.create({ id: 'to-deactivate' }, [{ kind: 'CanReadAs', party: n.alice }]);
    n.engine.users.create({ id: 'to-delete' }, [{ kind: 'CanReadAs', party: n.alice }]);
    const listeners = n.engine.updates.listenerCount;
    const deactivated = await open(n, '/v2/updates', updatesRequest(n, n.alice), 'to-deactivate');
    const deleted = await open(n, '/v2/updates', updatesRequest(n, n.alice), 'to-delete');
    await live(n, listeners + 1); // both sockets

    const patch = await call(n, 'PATCH', '/v2/users/to-deactivate', {
      user: { id: 'to-deactivate', primaryParty: '', isDeactivated: true, identityProviderId: '', primaryPartyAuthentication: false },
      updateMask: { paths: ['is_deactivated'] },
    });
    expect(patch.status, JSON.stringify(patch.body)).toBe(200);
    expect(await deactivated.closed).toEqual({ code: 1000, reason: '' });
    expect(deactivated.frames).toHaveLength(1);
    expectStale(deactivated.frames[0], n);
    expect(deleted.ws.readyState).toBe(deleted.ws.OPEN);

    expect((await call(n, 'DELETE', '/v2/users/to-delete', undefined)).status).toBe(200);
    expect(await deleted.closed).toEqual({ code: 1000, reason: '' });
    expect(deleted.frames).toHaveLength(1);
    expectStale(deleted.frames[0], n);
    await eventually(() => n.engine.updates.listenerCount === listeners && n.engine.users.listenerCount === 0);
  });
});

describe('token expiry', () => {
  it('ends a stream (websocket and list) when its token expires, with ACCESS_TOKEN_EXPIRED, on both participants', async () => {
    const started = Date.now();
    const runs = nodes.map(async (n) => {
      n.engine.users.create({ id: 'short-lived' }, [{ kind: 'CanReadAs', party: n.alice }]);
      // exp is whole seconds: 3 s after the current second leaves at least 2 s to see one element.
      const issuedAt = nowSeconds(n.engine);
      const expiresAt = issuedAt + 3;
      const s = await open(n, '/v2/updates', updatesRequest(n, n.alice), 'short-lived', 3);
      const list = fetch(`${n.httpUrl}/v2/updates?stream_idle_timeout_ms=8000`, {
        method: 'POST',
        body: JSON.stringify(updatesRequest(n, n.alice)),
        headers: { authorization: `Bearer ${await mintDevToken({ secret: SECRET, sub: 'short-lived', nowSeconds: issuedAt, expiresInSeconds: 3 })}` },
      });
      await issue(n, n.alice, '7');
      await s.waitFrames(1);
      expect(await s.closed).toEqual({ code: 1000, reason: '' });
      // It ended at the expiry (the list's idle wait is 8 s; the socket has none), with slack for a loaded machine.
      expect(Date.now()).toBeGreaterThanOrEqual(expiresAt * 1000);
      expect(Date.now()).toBeLessThan((expiresAt + 3) * 1000);
      expect(amounts(s)).toEqual(['7']);
      expect(s.frames).toHaveLength(2);
      const expired = {
        code: 'ACCESS_TOKEN_EXPIRED',
        cause: expect.stringMatching(new RegExp(`^Claims were valid until ${formatInstant(BigInt(expiresAt) * 1_000_000n).replace(/[.]/g, '\\.')}, current time is \\S+Z$`)),
        context: { participant: n.engine.participantName, category: '2', definite_answer: 'false' },
        errorCategory: 2,
        grpcCodeValue: 10,
        retryInfo: '1 second',
      };
      expect(s.frames[1]).toMatchObject(expired);
      const listed = await list;
      expect(listed.status).toBe(409);
      expect(await listed.json()).toMatchObject(expired);
      await eventually(() => n.engine.users.listenerCount === 0);
    });
    await Promise.all(runs);
    expect(Date.now() - started).toBeLessThan(7_000);
  }, 10_000);
});
