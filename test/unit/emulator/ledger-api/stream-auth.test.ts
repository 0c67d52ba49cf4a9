/**
 * The ongoing authorization of one open stream (src/emulator/ledger-api/stream-auth.ts), on a
 * ManualClock: which user changes end it (any change of the claims the user's rights convert to,
 * as Canton's `UserRightsChangeAsyncChecker` compares them; a deactivated or deleted user), which
 * do not, and the expiry check with its leeway and Canton's `AuthorizationError.Expired` text.
 */
import { describe, expect, it } from 'vitest';
import type { LedgerApiError } from '../../../../src/canton/errors.js';
import { resolveUserClaims } from '../../../../src/emulator/ledger-api/auth.js';
import { expiredError, watchStreamAuthorization } from '../../../../src/emulator/ledger-api/stream-auth.js';
import { WILDCARD } from '../../../../src/emulator/participant/claims.js';
import { testLedger, userClaims } from '../../../support/ledger-fixtures.js';

function setup() {
  const t = testLedger();
  const alice = t.party('alice');
  const bob = t.party('bob');
  t.engine.users.create({ id: 'alice-user' }, [{ kind: 'CanReadAs', party: alice }]);
  t.engine.users.create({ id: 'other' }, [{ kind: 'CanReadAs', party: alice }]);
  const ended: LedgerApiError[] = [];
  const watch = (exp?: number) => watchStreamAuthorization(t.engine, resolveUserClaims(t.engine, 'alice-user', exp), (e) => ended.push(e));
  return { t, alice, bob, ended, watch };
}

describe('stream authorization: user changes', () => {
  it('ends on a revoke, once, and stops listening', () => {
    const { t, alice, ended, watch } = setup();
    const w = watch();
    t.engine.users.revoke('alice-user', [{ kind: 'CanReadAs', party: alice }]);
    expect(ended.map((e) => [e.code, e.causeText, e.httpStatus])).toEqual([
      ['STALE_STREAM_AUTHORIZATION', 'Stale stream authorization. Retry quickly.', 409],
    ]);
    expect(w.check()?.code).toBe('STALE_STREAM_AUTHORIZATION');
    expect(t.engine.users.listenerCount).toBe(0);
    t.engine.users.grant('alice-user', [{ kind: 'CanReadAs', party: alice }]);
    expect(ended).toHaveLength(1);
  });

  it('ends on a grant too: Canton compares the whole claim set', () => {
    const { t, bob, ended, watch } = setup();
    watch();
    t.engine.users.grant('alice-user', [{ kind: 'CanActAs', party: bob }]);
    expect(ended.map((e) => e.code)).toEqual(['STALE_STREAM_AUTHORIZATION']);
  });

  it('ends when the user is deactivated or deleted', () => {
    const a = setup();
    a.watch();
    a.t.engine.users.update({ id: 'alice-user', isDeactivated: true }, ['is_deactivated']);
    expect(a.ended.map((e) => e.code)).toEqual(['STALE_STREAM_AUTHORIZATION']);
    const b = setup();
    b.watch();
    b.t.engine.users.delete('alice-user');
    expect(b.ended.map((e) => e.code)).toEqual(['STALE_STREAM_AUTHORIZATION']);
  });

  it('goes on through changes that leave its claims as they were', () => {
    const { t, alice, ended, watch } = setup();
    const w = watch();
    t.engine.users.revoke('other', [{ kind: 'CanReadAs', party: alice }]); // another user
    t.engine.users.grant('alice-user', [{ kind: 'CanReadAs', party: alice }]); // already held
    t.engine.users.grant('alice-user', [{ kind: 'IdentityProviderAdmin' }]); // no claim for the default IDP
    t.engine.users.update({ id: 'alice-user', metadata: { annotations: { k: 'v' } } }, ['metadata.annotations']);
    expect(ended).toEqual([]);
    expect(w.check()).toBeUndefined();
    w.stop();
    expect(t.engine.users.listenerCount).toBe(0);
  });

  it('does not watch a stream when auth is off', () => {
    const { t, alice } = setup();
    const w = watchStreamAuthorization(t.engine, WILDCARD, () => {
      throw new Error('never');
    });
    t.engine.users.revoke('alice-user', [{ kind: 'CanReadAs', party: alice }]);
    expect(w.check()).toBeUndefined();
    expect(t.engine.users.listenerCount).toBe(0);
  });
});

describe('stream authorization: token expiry', () => {
  it('is expired from exp on (now - leeway >= exp), with the Expired reason as cause', () => {
    const exp = Date.parse('2026-03-01T12:00:02Z') / 1000;
    const at = (iso: string, extraMicros = 0n) => BigInt(Date.parse(iso)) * 1000n + extraMicros;
    const claims = userClaims('u', { expiresAt: exp });
    expect(expiredError(claims, at('2026-03-01T12:00:02Z', -1n))).toBeUndefined();
    const e = expiredError(claims, at('2026-03-01T12:00:02Z', 1n));
    expect([e?.code, e?.causeText, e?.grpcCode]).toEqual([
      'ACCESS_TOKEN_EXPIRED',
      'Claims were valid until 2026-03-01T12:00:02Z, current time is 2026-03-01T12:00:02.000001Z',
      10,
    ]);
    expect(expiredError(claims, at('2026-03-01T12:00:02Z'))?.code).toBe('ACCESS_TOKEN_EXPIRED');
    const lenient = userClaims('u', { expiresAt: exp, expiryLeewaySeconds: 5 });
    expect(expiredError(lenient, at('2026-03-01T12:00:06Z'))).toBeUndefined();
    expect(expiredError(lenient, at('2026-03-01T12:00:07Z'))?.causeText).toBe(
      'Claims were valid until 2026-03-01T12:00:02Z, current time is 2026-03-01T12:00:07Z',
    );
    expect(expiredError(userClaims('u'), at('2100-01-01T00:00:00Z'))).toBeUndefined();
  });

  it('is checked before each element against the engine clock', () => {
    const { t, ended, watch } = setup();
    const now = Number(t.clock.nowMicros() / 1_000_000n);
    const w = watch(now + 60);
    expect(w.check()).toBeUndefined();
    t.clock.advance(60_000);
    expect(w.check()?.code).toBe('ACCESS_TOKEN_EXPIRED');
    expect(ended.map((e) => e.code)).toEqual(['ACCESS_TOKEN_EXPIRED']);
    expect(t.engine.users.listenerCount).toBe(0);
  });

  it('ends the stream by timer at the expiry', async () => {
    const { t, ended, watch } = setup();
    // The ManualClock stands just before the expiry: the timer fires in about 50 ms.
    const now = Number(t.clock.nowMicros() / 1_000_000n);
    t.clock.advance(950);
    watch(now + 1);
    expect(ended).toEqual([]);
    t.clock.advance(50);
    await new Promise((r) => setTimeout(r, 200));
    expect(ended.map((e) => e.code)).toEqual(['ACCESS_TOKEN_EXPIRED']);
  });
});
