/**
 * Conformance of the ledger's websocket channels: every frame the emulated ledger sends (success
 * elements and JsCantonError frames, including the auth and frame-decode failures) validated
 * against Canton's official asyncapi.yaml of 3.5 and 3.4 (`../shared/specs/ledger-api/`) with
 * the same schema conversion as the OpenAPI conformance suite; every channel of the 3.5 file must
 * be covered with a success and an error frame.
 *
 * `/v2/commands/command-completions` (Canton 3.5.7) is not in the 3.5.1 file; its messages are
 * `CompletionStreamResponse`s, checked against the `/v2/commands/completions` message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthenticator, mintDevToken, type Authenticator } from '../../src/emulator/ledger-api/auth.js';
import { ASYNC_SPECS, createAsyncApiValidator } from '../support/openapi-conformance.js';
import { cmds, create, exercise, IOU, testLedger, type TestLedger } from '../support/ledger-fixtures.js';
import { serveLedger, subscribe, type ServedLedger } from '../support/ws-ledger.js';

const v35 = createAsyncApiValidator(ASYNC_SPECS.ledgerApi35);
const v34 = createAsyncApiValidator(ASYNC_SPECS.ledgerApi34);

describe('ledger websocket frames conform to the official AsyncAPI', () => {
  let t: TestLedger;
  let served: ServedLedger;
  let authed: ServedLedger;
  let bank: string;
  let alice: string;

  beforeAll(async () => {
    t = testLedger();
    served = await serveLedger(t);
    bank = t.party('bank');
    alice = t.party('alice');
    const submit = async (commands: unknown[]) => {
      const r = await fetch(`${served.httpUrl}/v2/commands/submit-and-wait`, { method: 'POST', body: JSON.stringify(cmds([bank, alice], commands)) });
      expect(r.status).toBe(200);
    };
    await submit([create(IOU, { issuer: bank, owner: alice, amount: '5', observers: [] })]);
    const acs = (await (await fetch(`${served.httpUrl}/v2/state/active-contracts`, { method: 'POST', body: JSON.stringify(acs0(alice, 1)) })).json()) as Array<{ contractEntry: { JsActiveContract: { createdEvent: { contractId: string } } } }>;
    // An exercise, so trees and LEDGER_EFFECTS carry ExercisedEvents too.
    await submit([exercise(IOU, acs[0]!.contractEntry.JsActiveContract.createdEvent.contractId, 'Transfer', { newOwner: alice })]);
    const authenticate: Authenticator = createAuthenticator({ mode: 'jwt', hs256Secret: 'conformance' }, { engine: t.engine });
    authed = await serveLedger(t, { authenticate });
  });
  afterAll(async () => {
    await served.close();
    await authed.close();
  });

  function acs0(party: string, activeAtOffset: number) {
    return { eventFormat: { filtersByParty: { [party]: { cumulative: [] } }, verbose: true }, activeAtOffset };
  }
  const legacyFilter = (party: string) => ({ filtersByParty: { [party]: { cumulative: [] } } });
  const updateFormat = (party: string, shape: string) => ({
    includeTransactions: { eventFormat: { filtersByParty: { [party]: { cumulative: [] } }, verbose: true }, transactionShape: shape },
  });

  /** Opens `path`, collects its frames until the server closes (or `frames` arrived), validates each. */
  async function check(on: ServedLedger, path: string, specChannel: string, request: unknown, kind: 'success' | 'error', frames?: number, protocols?: string[]) {
    const s = subscribe(on.wsUrl, path, request, { protocols });
    if (frames === undefined) await s.closed;
    else await s.waitFrames(frames);
    s.ws.close();
    await s.closed;
    expect(s.frames.length, `${path} ${kind}`).toBeGreaterThan(0);
    for (const frame of s.frames) {
      if (kind === 'error') expect(frame, path).toHaveProperty('code');
      else expect(frame, path).not.toHaveProperty('code');
      for (const v of [v35, v34]) {
        if (!v.channels().includes(specChannel)) continue;
        const r = v.validateFrame({ channel: specChannel, direction: 'subscribe', frame, kind });
        expect(r.errors, `${v.specPath} ${path}`).toEqual([]);
      }
    }
    if (kind === 'error') expect(s.frames).toHaveLength(1);
  }

  it('update channels: ACS_DELTA and LEDGER_EFFECTS updates, flats, trees, and their errors', async () => {
    const end = t.engine.ledgerEnd();
    for (const shape of ['TRANSACTION_SHAPE_ACS_DELTA', 'TRANSACTION_SHAPE_LEDGER_EFFECTS']) {
      await check(served, '/v2/updates', '/v2/updates', { beginExclusive: 0, endInclusive: end, updateFormat: updateFormat(alice, shape) }, 'success');
    }
    await check(served, '/v2/updates', '/v2/updates', { beginExclusive: 0, updateFormat: updateFormat(bank, 'TRANSACTION_SHAPE_ACS_DELTA') }, 'success', 2);
    await check(served, '/v2/updates/flats', '/v2/updates/flats', { beginExclusive: 0, endInclusive: end, filter: legacyFilter(alice), verbose: true }, 'success');
    await check(served, '/v2/updates/trees', '/v2/updates/trees', { beginExclusive: 0, endInclusive: end, filter: legacyFilter(alice), verbose: true }, 'success');
    for (const channel of ['/v2/updates', '/v2/updates/flats', '/v2/updates/trees']) {
      await check(served, channel, channel, { beginExclusive: 99, filter: legacyFilter(alice) }, 'error');
    }
    // A first frame that does not decode, and a missing token when auth is on.
    await check(served, '/v2/updates', '/v2/updates', 'not json', 'error');
    await check(authed, '/v2/updates', '/v2/updates', { beginExclusive: 0, updateFormat: updateFormat(alice, 'TRANSACTION_SHAPE_ACS_DELTA') }, 'error');
  });

  it('the ACS channel and its errors', async () => {
    await check(served, '/v2/state/active-contracts', '/v2/state/active-contracts', acs0(alice, t.engine.ledgerEnd()), 'success');
    await check(served, '/v2/state/active-contracts', '/v2/state/active-contracts', acs0(alice, 99), 'error');
    await check(authed, '/v2/state/active-contracts', '/v2/state/active-contracts', acs0(alice, 1), 'error', undefined, ['jwt.token.bad', 'daml.ws.auth']);
  });

  it('the completion channels and their errors', async () => {
    await check(served, '/v2/commands/completions', '/v2/commands/completions', { userId: 'tester', parties: [alice], beginExclusive: 0 }, 'success', 2);
    await check(served, '/v2/commands/completions', '/v2/commands/completions', { userId: 'tester', parties: [], beginExclusive: 0 }, 'error');
    await check(served, '/v2/commands/command-completions', '/v2/commands/completions', { beginExclusive: 0 }, 'success', 2);
    await check(served, '/v2/commands/command-completions', '/v2/commands/completions', { beginExclusive: -1 }, 'error');
  });

  it('the errors that end an open stream (stale authorization, expired token) conform', async () => {
    // A ledger of its own: its clock moves past the token's expiry.
    const own = testLedger();
    const reader = own.party('reader');
    own.engine.users.create({ id: 'conf-reader' }, [{ kind: 'CanActAs', party: reader }]);
    const ws = await serveLedger(own, { authenticate: createAuthenticator({ mode: 'jwt', hs256Secret: 'conformance' }, { engine: own.engine }) });
    try {
      const nowSeconds = Number(own.clock.nowMicros() / 1_000_000n);
      const token = await mintDevToken({ secret: 'conformance', sub: 'conf-reader', nowSeconds, expiresInSeconds: 60 });
      const request = () => ({ beginExclusive: own.engine.ledgerEnd(), updateFormat: updateFormat(reader, 'TRANSACTION_SHAPE_ACS_DELTA') });
      const open = () => subscribe(ws.wsUrl, '/v2/updates', request(), { protocols: [`jwt.token.${token}`, 'daml.ws.auth'] });
      const live = async (n: number) => {
        for (let i = 0; i < 200 && own.engine.updates.listenerCount < n; i++) await new Promise((r) => setTimeout(r, 10));
        expect(own.engine.updates.listenerCount).toBe(n);
      };

      // Expired: the clock passes `exp`; the next element is not sent, the error is.
      const expiring = open();
      await live(1);
      own.clock.advance(61_000);
      const r = await own.post('/v2/commands/submit-and-wait', cmds([reader], [create(IOU, { issuer: reader, owner: reader, amount: '1', observers: [] })]));
      expect(r.status).toBe(200);
      expect(await expiring.closed).toEqual({ code: 1000, reason: '' });

      // Stale: the user's rights change while the stream is open (a token valid again first).
      own.clock.advance(-61_000);
      const stale = open();
      await live(1);
      own.engine.users.revoke('conf-reader', [{ kind: 'CanActAs', party: reader }]);
      expect(await stale.closed).toEqual({ code: 1000, reason: '' });

      for (const [s, code] of [[expiring, 'ACCESS_TOKEN_EXPIRED'], [stale, 'STALE_STREAM_AUTHORIZATION']] as const) {
        expect(s.frames).toHaveLength(1);
        expect(s.frames[0]).toMatchObject({ code, grpcCodeValue: 10 });
        for (const v of [v35, v34]) {
          const result = v.validateFrame({ channel: '/v2/updates', direction: 'subscribe', frame: s.frames[0], kind: 'error' });
          expect(result.errors, `${v.specPath} ${code}`).toEqual([]);
        }
      }
    } finally {
      await ws.close();
    }
  });

  it('covers every channel of the 3.5 AsyncAPI with a success and an error frame', () => {
    const required = v35.channels().flatMap((channel) => [
      { channel, kind: 'success' },
      { channel, kind: 'error' },
    ]);
    expect(required).toHaveLength(10);
    expect(v35.uncovered(required)).toEqual([]);
  });

  it('the harness rejects frames that do not conform', () => {
    const strict = createAsyncApiValidator(ASYNC_SPECS.ledgerApi35);
    expect(strict.validateFrame({ channel: '/v2/updates', direction: 'subscribe', frame: { update: { Bogus: {} } }, kind: 'success' }).ok).toBe(false);
    expect(strict.validateFrame({ channel: '/v2/updates', direction: 'subscribe', frame: { code: 'X', cause: 'missing the rest' }, kind: 'error' }).ok).toBe(false);
    expect(strict.validateFrame({ channel: '/v2/state/active-contracts', direction: 'subscribe', frame: 'not json', kind: 'success' }).ok).toBe(false);
    expect(strict.uncovered([{ channel: '/v2/updates', kind: 'success' }])).toEqual([{ channel: '/v2/updates', kind: 'success' }]);
  });
});
