/**
 * Ongoing authorization of an open stream (websocket channels and open-ended list requests):
 * a stream authorized when it opened ends once its caller's authorization goes stale or its
 * token expires, as Canton ends its gRPC streams, which the JSON API serves.
 *
 * Canton (digital-asset/canton):
 * - `community/base/.../auth/Authorizer.scala` (`stream`) wraps every server stream whose claims
 *   have an expiry or were resolved from a user in the ongoing authorization
 *   (`community/ledger/ledger-api-core/.../ledger/api/auth/UserBasedOngoingAuthorization.scala`).
 * - Before each element (`onNext`) it checks the token expiry (`Claims.notExpired`: expired once
 *   `now - jwt-timestamp-leeway >= exp`) and fails the stream with ACCESS_TOKEN_EXPIRED, whose
 *   cause is the `AuthorizationError.Expired` reason "Claims were valid until <exp>, current time
 *   is <now>" (`community/base/.../auth/AuthorizationError.scala`).
 * - `UserRightsChangeAsyncChecker` re-reads the user every `userRightsCheckIntervalInSeconds`
 *   (the user-management cache expiry, 5 s by default) and fails the stream with
 *   STALE_STREAM_AUTHORIZATION ("Stale stream authorization. Retry quickly.") when the user is
 *   gone (deleted, moved to another identity provider), deactivated, or the claims its rights
 *   convert to differ from the stream's in any way: a grant ends the stream as a revoke does
 *   (`community/app/.../ledgerapi/auth/OngoingStreamAuthIT.scala` grants ParticipantAdmin).
 *   Both errors are ContentionOnSharedResources (ABORTED, 409):
 *   `community/base/.../auth/AuthorizationChecksErrors.scala`.
 *
 * Two deliberate differences in timing, both stricter and never delivering more than Canton:
 * the user store notifies every change at once (no 5 s polling window in which the stream still
 * delivers), and a timer ends the stream at its token's expiry even when no element is due
 * (Canton notices only at the next element).
 */
import { formatInstant } from '../../canton/clock.js';
import { LedgerApiError } from '../../canton/errors.js';
import type { Claims, UserClaims } from '../participant/claims.js';
import type { LedgerEngine } from '../participant/engine.js';
import { resolveUserClaims } from './auth.js';

/** The longest single timer (Node's setTimeout fires at once beyond 2^31-1 ms); longer waits re-arm. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/**
 * When the expiry timer fires but the engine's clock says the token is still valid (a clock that
 * is not wall time, e.g. a test's ManualClock), the next look is at least this far off.
 */
const MIN_RECHECK_MS = 1000;

export interface StreamAuthorization {
  /**
   * The error that ends the stream, or undefined while the caller is still authorized. Called
   * before each element is sent (Canton's `onNext` check); a violation found here is also
   * reported to `onEnd`, once.
   */
  check(): LedgerApiError | undefined;
  /** Stops watching (the stream completed or its client went away). Idempotent. */
  stop(): void;
}

const UNWATCHED: StreamAuthorization = { check: () => undefined, stop: () => {} };

/**
 * Watches `claims` for the life of one stream on `engine`'s participant. `onEnd` is called once,
 * synchronously, with Canton's error when the authorization lapses: the stream must then send
 * that error and end. Auth off (wildcard claims) is never watched.
 */
export function watchStreamAuthorization(
  engine: LedgerEngine,
  claims: Claims,
  onEnd: (err: LedgerApiError) => void,
): StreamAuthorization {
  if (claims.kind !== 'user') return UNWATCHED;
  let ended: LedgerApiError | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const stop = (): void => {
    stopped = true;
    if (timer !== undefined) clearTimeout(timer);
    unsubscribe();
  };
  const end = (err: LedgerApiError): LedgerApiError => {
    if (ended === undefined && !stopped) {
      ended = err;
      stop();
      onEnd(err);
    }
    return ended ?? err;
  };
  const expiry = (): LedgerApiError | undefined => expiredError(claims, engine.clock.nowMicros());

  // The store calls this synchronously inside the change, so the stream ends before any later
  // transaction can reach it. It must not throw into the user management call that changed the
  // user (the change is made by then): should `onEnd` fail to send the error, `ended` is already
  // set, so `check()` still refuses every further element.
  const unsubscribe = engine.users.subscribe((id) => {
    if (id !== claims.userId || stopped) return;
    let current: UserClaims | undefined;
    try {
      current = resolveUserClaims(engine, id, claims.expiresAt);
    } catch {
      current = undefined; // deleted, deactivated or in another identity provider
    }
    if (current !== undefined && sameClaims(claims, current)) return;
    try {
      end(staleStreamAuthorization());
    } catch {
      // see above
    }
  });

  const arm = (minMs: number): void => {
    if (claims.expiresAt === undefined || stopped) return;
    const dueMicros = (BigInt(claims.expiresAt) + BigInt(claims.expiryLeewaySeconds ?? 0)) * 1_000_000n;
    const remainingMs = Number((dueMicros - engine.clock.nowMicros() + 999n) / 1000n);
    timer = setTimeout(
      () => {
        timer = undefined;
        const err = expiry();
        if (err !== undefined) end(err);
        else arm(MIN_RECHECK_MS);
      },
      Math.min(Math.max(remainingMs, minMs), MAX_TIMER_MS),
    );
    // An idle stream's expiry timer must not keep the process alive on its own.
    timer.unref();
  };
  arm(0);

  return {
    check() {
      if (ended !== undefined) return ended;
      if (stopped) return undefined;
      const err = expiry();
      return err === undefined ? undefined : end(err);
    },
    stop,
  };
}

/** `AuthorizationChecksErrors.StaleUserManagementBasedStreamClaims.Reject`. */
export function staleStreamAuthorization(): LedgerApiError {
  return new LedgerApiError('STALE_STREAM_AUTHORIZATION', 'Stale stream authorization. Retry quickly.');
}

/**
 * `Claims.notExpired` with the leeway: expired once `now - leeway >= exp`; the error is
 * `AuthorizationChecksErrors.AccessTokenExpired.Reject(AuthorizationError.Expired(exp, now).reason)`,
 * instants printed as Java's `Instant.toString`.
 */
export function expiredError(claims: UserClaims, nowMicros: bigint): LedgerApiError | undefined {
  if (claims.expiresAt === undefined) return undefined;
  const expMicros = BigInt(claims.expiresAt) * 1_000_000n;
  const relaxedNow = nowMicros - BigInt(claims.expiryLeewaySeconds ?? 0) * 1_000_000n;
  if (relaxedNow < expMicros) return undefined;
  return new LedgerApiError(
    'ACCESS_TOKEN_EXPIRED',
    `Claims were valid until ${formatInstant(expMicros)}, current time is ${formatInstant(nowMicros)}`,
  );
}

/** Whether two resolutions of one user grant the same claims (`convertUserRightsToClaims` sets). */
function sameClaims(a: UserClaims, b: UserClaims): boolean {
  return (
    a.admin === b.admin &&
    a.idpAdmin === b.idpAdmin &&
    a.readAsAnyParty === b.readAsAnyParty &&
    a.executeAsAnyParty === b.executeAsAnyParty &&
    a.identityProviderId === b.identityProviderId &&
    sameSet(a.actAs, b.actAs) &&
    sameSet(a.readAs, b.readAs) &&
    sameSet(a.executeAs, b.executeAs)
  );
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}
