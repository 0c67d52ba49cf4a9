/**
 * The websocket channels of the emulated JSON Ledger API over real sockets (src/emulator/ledger-api/
 * websocket.ts): every channel yields exactly what its list endpoint answers, errors are one
 * JsCantonError frame then a normal close (1000, no reason), open-ended streams tail the update log
 * live, auth is read from the `jwt.token.` subprotocol, and every subscription is freed on close.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createAuthenticator, mintDevToken, type Authenticator } from '../../../src/emulator/ledger-api/auth.js';
import { cmds, create, IOU, testLedger, type TestLedger } from '../../support/ledger-fixtures.js';
import { eventually, serveLedger, subscribe, type ServedLedger } from '../../support/ws-ledger.js';

const SECRET = 'ws-secret';
const iou = (issuer: string, owner: string, amount = '10') => ({ issuer, owner, amount, observers: [] });

function updatesRequest(party: string, extra: Record<string, unknown> = {}) {
  return {
    beginExclusive: 0,
    updateFormat: {
      includeTransactions: { eventFormat: { filtersByParty: { [party]: { cumulative: [] } }, verbose: true }, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' },
    },
    ...extra,
  };
}
function acsRequest(party: string, activeAtOffset: number) {
  return { eventFormat: { filtersByParty: { [party]: { cumulative: [] } }, verbose: false }, activeAtOffset };
}
/** The error frame without its per-request ids. */
function withoutIds(e: unknown): unknown {
  const { correlationId: _c, traceId: _t, context, ...rest } = e as Record<string, unknown> & { context: Record<string, string> };
  const { tid: _tid, ...ctx } = context;
  return { ...rest, context: ctx };
}

describe('ledger websocket channels', () => {
  let t: TestLedger;
  let served: ServedLedger;
  let bank: string;
  let alice: string;
  let bob: string;

  const submit = async (actAs: string[], commands: unknown[]) => {
    const r = await fetch(`${served.httpUrl}/v2/commands/submit-and-wait`, { method: 'POST', body: JSON.stringify(cmds(actAs, commands)) });
    expect(r.status).toBe(200);
    return (await r.json()) as { updateId: string; completionOffset: number };
  };
  const list = async (path: string, body: unknown) => {
    const r = await fetch(`${served.httpUrl}${path}?stream_idle_timeout_ms=10`, { method: 'POST', body: JSON.stringify(body) });
    return { status: r.status, body: (await r.json()) as unknown };
  };

  beforeAll(async () => {
    t = testLedger();
    served = await serveLedger(t);
    bank = t.party('bank');
    alice = t.party('alice');
    bob = t.party('bob');
    await submit([bank, alice], [create(IOU, iou(bank, alice, '1'))]);
    await submit([bank, alice], [create(IOU, iou(bank, alice, '2'))]);
    await submit([bank, bob], [create(IOU, iou(bank, bob, '3'))]);
  });
  afterAll(() => served.close());
  afterEach(async () => {
    // No test leaves a subscription behind: sockets and update-log listeners are freed.
    await eventually(() => served.streams.size === 0 && t.engine.updates.listenerCount === 0);
  });

  it('serves the ACS as the list endpoint does, then closes normally (1000, no reason)', async () => {
    const end = t.engine.ledgerEnd();
    const s = subscribe(served.wsUrl, '/v2/state/active-contracts', acsRequest(alice, end));
    expect(await s.closed).toEqual({ code: 1000, reason: '' });
    expect(s.ws.protocol).toBe('daml.ws.auth');
    const expected = await list('/v2/state/active-contracts', acsRequest(alice, end));
    expect(expected.status).toBe(200);
    expect(s.frames).toEqual(expected.body);
    expect(s.frames).toHaveLength(2);
  });

  it('serves a bounded update range (endInclusive), flats and trees, as their list endpoints do', async () => {
    const end = t.engine.ledgerEnd();
    for (const [path, body] of [
      ['/v2/updates', updatesRequest(alice, { endInclusive: end })],
      ['/v2/updates/flats', { beginExclusive: 0, endInclusive: end, filter: { filtersByParty: { [bank]: { cumulative: [] } } }, verbose: true }],
      ['/v2/updates/trees', { beginExclusive: 1, endInclusive: end, filter: { filtersByParty: { [bank]: { cumulative: [] } } }, verbose: false }],
      ['/v2/updates', updatesRequest(bank, { endInclusive: end, descendingOrder: true })],
    ] as const) {
      const s = subscribe(served.wsUrl, path, body);
      expect(await s.closed).toEqual({ code: 1000, reason: '' });
      const expected = await list(path, body);
      expect(s.frames, path).toEqual(expected.body);
      expect(s.frames.length, path).toBeGreaterThan(0);
    }
  });

  it('tails the update log: the snapshot, then a transaction committed after subscribing, within milliseconds', async () => {
    const s = subscribe(served.wsUrl, '/v2/updates', updatesRequest(alice));
    await s.waitFrames(2);
    const before = Date.now();
    const { updateId, completionOffset } = await submit([bank, alice], [create(IOU, iou(bank, alice, '4'))]);
    const frames = await s.waitFrames(3);
    expect(Date.now() - before).toBeLessThan(500);
    const tx = (frames[2] as { update: { Transaction: { value: { updateId: string; offset: number } } } }).update.Transaction.value;
    expect(tx.updateId).toBe(updateId);
    expect(tx.offset).toBe(completionOffset);
    // bob's transaction is not alice's: nothing arrives, the stream stays open.
    await submit([bank, bob], [create(IOU, iou(bank, bob, '5'))]);
    await new Promise((r) => setTimeout(r, 50));
    expect(s.frames).toHaveLength(3);
    expect(s.ws.readyState).toBe(WebSocket.OPEN);
    expect(served.streams.size).toBe(1);
    expect(t.engine.updates.listenerCount).toBe(1);
    s.ws.close();
    expect((await s.closed).code).toBe(1005);
  });

  it('tails completions of the user, and command-completions of every user', async () => {
    const c = subscribe(served.wsUrl, '/v2/commands/completions', { userId: 'tester', parties: [alice], beginExclusive: 0 });
    const all = subscribe(served.wsUrl, '/v2/commands/command-completions', { beginExclusive: t.engine.ledgerEnd() });
    const have = (await list('/v2/commands/completions', { userId: 'tester', parties: [alice], beginExclusive: 0 })).body as unknown[];
    await c.waitFrames(have.length);
    expect(c.frames).toEqual(have);
    const { updateId } = await submit([bank, alice], [create(IOU, iou(bank, alice, '6'))]);
    const frames = await c.waitFrames(have.length + 1);
    expect(frames.at(-1)).toMatchObject({ completionResponse: { Completion: { value: { updateId, actAs: [alice], userId: 'tester' } } } });
    expect(await all.waitFrames(1)).toMatchObject([{ completionResponse: { Completion: { value: { updateId } } } }]);
    c.ws.close();
    all.ws.close();
    await Promise.all([c.closed, all.closed]);
  });

  it('sends a request error as the list endpoint\'s JsCantonError, then closes normally', async () => {
    const body = updatesRequest(alice, { beginExclusive: 10_000 });
    const s = subscribe(served.wsUrl, '/v2/updates', body);
    expect(await s.closed).toEqual({ code: 1000, reason: '' });
    const expected = await list('/v2/updates', body);
    expect(expected.status).toBe(400);
    expect(s.frames).toHaveLength(1);
    expect(withoutIds(s.frames[0])).toEqual(withoutIds(expected.body));
    expect(s.frames[0]).toMatchObject({ code: 'OFFSET_AFTER_LEDGER_END' });
  });

  it('answers a first frame that does not decode with an internal-error frame and a normal close', async () => {
    const badIdentifier = JSON.stringify({ beginExclusive: 0, filter: { filtersByParty: { [alice]: { cumulative: [{ identifierFilter: { TemplateFilter: { value: { templateId: 'no-colons' } } } }] } } } });
    for (const frame of ['not json', '{"beginExclusive":"x"}', badIdentifier]) {
      const s = subscribe(served.wsUrl, '/v2/updates', frame);
      expect(await s.closed).toEqual({ code: 1000, reason: '' });
      expect(s.frames).toHaveLength(1);
      expect(s.frames[0]).toMatchObject({ code: 'LEDGER_API_INTERNAL_ERROR', errorCategory: 4, grpcCodeValue: 13 });
      expect((s.frames[0] as { cause: string }).cause).toMatch(/^Cannot decode frame: Text\(/);
    }
  });

  it('refuses an unknown channel with a 404 and no upgrade', async () => {
    const s = subscribe(served.wsUrl, '/v2/updates/nope', {});
    expect(await s.closed).toEqual({ code: -1, reason: '404' });
    expect(s.frames).toEqual([]);
  });

  it('frees the subscription when the client goes away mid-stream', async () => {
    const s = subscribe(served.wsUrl, '/v2/updates', updatesRequest(bank));
    await s.waitFrames(1);
    s.ws.terminate();
    await eventually(() => served.streams.size === 0 && t.engine.updates.listenerCount === 0);
    // The ledger still serves others.
    const again = subscribe(served.wsUrl, '/v2/state/active-contracts', acsRequest(bob, t.engine.ledgerEnd()));
    expect(await again.closed).toEqual({ code: 1000, reason: '' });
    expect(again.frames.length).toBeGreaterThan(0);
  });

  it('survives 10,000 subscribe/unsubscribe cycles with nothing left behind', async () => {
    const end = t.engine.ledgerEnd();
    const started = Date.now();
    const batch = 100;
    for (let i = 0; i < 10_000; i += batch) {
      await Promise.all(
        Array.from({ length: batch }, async (_, j) => {
          const s = subscribe(served.wsUrl, '/v2/updates', updatesRequest(alice));
          // Half close right after the snapshot's first frame, half before anything arrived.
          if ((i + j) % 2 === 0) await s.waitFrames(1);
          else await new Promise<void>((r) => s.ws.once('open', () => r()));
          s.ws.close();
          await s.closed;
        }),
      );
    }
    expect(Date.now() - started).toBeLessThan(60_000);
    await eventually(() => served.streams.size === 0 && t.engine.updates.listenerCount === 0);
    expect(t.engine.ledgerEnd()).toBe(end);
  }, 90_000);
});

describe('ledger websocket back-pressure', () => {
  it('keeps a slow consumer\'s server-side send buffer near the high-water mark, and delivers everything in order once it reads', async () => {
    const t = testLedger();
    const highWater = 64 * 1024;
    const served = await serveLedger(t, { highWaterBytes: highWater });
    try {
      const bank = t.party('bank');
      const alice = t.party('alice');
      const s = subscribe(served.wsUrl, '/v2/updates', updatesRequest(alice));
      await new Promise<void>((r) => s.ws.once('open', () => r()));
      await eventually(() => t.engine.updates.listenerCount === 1);
      // The client stops reading: the kernel buffers fill, then the server's.
      s.ws.pause();
      const txs = 200;
      const perTx = 50;
      let frameBytes = 0;
      for (let i = 0; i < txs; i++) {
        const r = await fetch(`${served.httpUrl}/v2/commands/submit-and-wait`, {
          method: 'POST',
          body: JSON.stringify(cmds([bank, alice], Array.from({ length: perTx }, (_, j) => create(IOU, iou(bank, alice, String(i * perTx + j + 1)))))),
        });
        expect(r.status).toBe(200);
      }
      const one = await fetch(`${served.httpUrl}/v2/updates?limit=1`, { method: 'POST', body: JSON.stringify(updatesRequest(alice, { endInclusive: 1 })) });
      frameBytes = (await one.text()).length;
      expect(txs * frameBytes).toBeGreaterThan(8 * 1024 * 1024);
      await new Promise((r) => setTimeout(r, 100));
      // Back-pressure engaged (the buffer reached the mark) but never held more than the mark plus
      // one transaction's frame, against ~10 MB of pending updates.
      expect(served.streams.maxBufferedAmount).toBeGreaterThanOrEqual(highWater);
      expect(served.streams.maxBufferedAmount).toBeLessThan(highWater + 2 * frameBytes);
      s.ws.resume();
      const frames = await s.waitFrames(txs, 20_000);
      const offsets = frames.map((f) => (f as { update: { Transaction: { value: { offset: number } } } }).update.Transaction.value.offset);
      expect(offsets).toEqual(Array.from({ length: txs }, (_, i) => i + 1));
      s.ws.close();
      await s.closed;
      await eventually(() => served.streams.size === 0 && t.engine.updates.listenerCount === 0);
    } finally {
      await served.close();
    }
  }, 60_000);
});

describe('ledger websocket channels with auth', () => {
  it('reads the token from the jwt.token. subprotocol; a missing or bad token gets the 401 error frame', async () => {
    // The HTTP app and the channels share one authenticator, built on the test ledger's engine.
    let authenticate: Authenticator = async () => {
      throw new Error('not built yet');
    };
    const t = testLedger({ authenticate: (h) => authenticate(h) });
    authenticate = createAuthenticator({ mode: 'jwt', hs256Secret: SECRET }, { engine: t.engine });
    const alice = t.party('alice');
    t.engine.users.create({ id: 'alice-user', primaryParty: alice }, [{ kind: 'CanReadAs', party: alice }]);
    const served = await serveLedger(t, { authenticate });
    try {
      const token = await mintDevToken({ secret: SECRET, sub: 'alice-user', nowSeconds: Number(t.clock.nowMicros() / 1_000_000n) });
      const ok = subscribe(served.wsUrl, '/v2/state/active-contracts', acsRequest(alice, 0), { protocols: [`jwt.token.${token}`, 'daml.ws.auth'] });
      expect(await ok.closed).toEqual({ code: 1000, reason: '' });
      expect(ok.frames).toEqual([]);

      for (const protocols of [['daml.ws.auth'], ['jwt.token.not-a-jwt', 'daml.ws.auth']]) {
        const s = subscribe(served.wsUrl, '/v2/state/active-contracts', acsRequest(alice, 0), { protocols });
        expect(await s.closed).toEqual({ code: 1000, reason: '' });
        const http = await fetch(`${served.httpUrl}/v2/state/active-contracts`, {
          method: 'POST',
          body: JSON.stringify(acsRequest(alice, 0)),
          headers: protocols.length > 1 ? { authorization: 'Bearer not-a-jwt' } : {},
        });
        expect(http.status).toBe(401);
        expect(withoutIds(s.frames[0])).toEqual(withoutIds(await http.json()));
        expect(s.frames).toHaveLength(1);
      }

      // The frame is decoded before the token is looked at (tapir, then the gRPC call).
      const undecodable = subscribe(served.wsUrl, '/v2/state/active-contracts', '{"activeAtOffset":"x"}', { protocols: ['jwt.token.bad', 'daml.ws.auth'] });
      expect(await undecodable.closed).toEqual({ code: 1000, reason: '' });
      expect(undecodable.frames).toMatchObject([{ code: 'LEDGER_API_INTERNAL_ERROR' }]);

      // Rights as for the list endpoint: alice-user may not read bob.
      const bob = t.party('bob');
      const denied = subscribe(served.wsUrl, '/v2/state/active-contracts', acsRequest(bob, 0), { protocols: [`jwt.token.${token}`, 'daml.ws.auth'] });
      expect(await denied.closed).toEqual({ code: 1000, reason: '' });
      expect(denied.frames).toMatchObject([{ grpcCodeValue: 7 }]);
      await eventually(() => served.streams.size === 0);
    } finally {
      await served.close();
    }
  });
});
