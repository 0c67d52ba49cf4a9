/**
 * The holding templates of splice-amulet `Splice.Amulet`: Amulet and LockedAmulet, with their
 * expiry and unlock choices and their token-standard Holding V1 and V2 views.
 */
import type { TemplateDef, UpdateContext } from '../../participant/templates.js';
import { archiveChoice } from '../../participant/templates.js';
import { TS } from '../token-standard.js';
import { recordParser } from '../../lf-value/native-json-codec.js';
import { rec } from '../../lf-value/native-type.js';
import { nativeChoice } from '../native-choice.js';
import { fetchOpenRound } from './fetch-checked.js';
import { NO_ARGS } from './choice-helpers.js';
import { amuletInstrument, holdingTxMeta } from './transfer.js';
import {
  AmuletIds,
  T,
  amuletExpiresAtRound,
  amuletMetadata,
  assertDeadlineExceeded,
  dec,
  decText,
  require,
  type AmuletPayload,
  type LockedAmuletPayload,
  type OpenMiningRoundPayload,
} from './values.js';

export function amuletHoldingView(a: AmuletPayload) {
  return { owner: a.owner, instrumentId: amuletInstrument(a.dso), amount: a.amount.initialAmount, lock: null, meta: amuletMetadata(a) };
}
export function lockedAmuletHoldingView(l: LockedAmuletPayload) {
  return {
    owner: l.amulet.owner,
    instrumentId: amuletInstrument(l.amulet.dso),
    amount: l.amulet.amount.initialAmount,
    lock: { holders: l.lock.holders, expiresAt: l.lock.expiresAt, expiresAfter: null, context: l.lock.optContext },
    meta: amuletMetadata(l.amulet),
  };
}
/** `upcast` of a V1 holding view to V2: a basic account of the owner. */
function holdingV2(v: ReturnType<typeof amuletHoldingView> | ReturnType<typeof lockedAmuletHoldingView>) {
  return { account: { owner: v.owner, provider: null, id: '' }, instrumentId: v.instrumentId, amount: v.amount, lock: v.lock, meta: v.meta };
}

const amuletExpired = (ctx: UpdateContext, roundCid: string, a: AmuletPayload) => {
  const round = fetchOpenRound(ctx, a.dso, roundCid);
  const expiresAt = amuletExpiresAtRound(a.amount);
  require(ctx, 'Amulet is expired', expiresAt !== undefined && expiresAt <= BigInt(round.round.number));
};
const expireSummary = (a: AmuletPayload) => ({
  owner: a.owner,
  round: a.amount.createdAt,
  changeToInitialAmountAsOfRoundZero: decText(-(dec(a.amount.initialAmount) + dec(a.amount.ratePerRound.rate) * BigInt(a.amount.createdAt.number))),
  changeToHoldingFeesRate: decText(-dec(a.amount.ratePerRound.rate)),
});

export function amuletTemplate(): TemplateDef<AmuletPayload> {
  const amuletSignatories = (p: AmuletPayload) => [p.dso, p.owner];
  return {
    id: AmuletIds.Amulet,
    kind: 'native',
    signatories: amuletSignatories,
    observers: () => [],
    ensure: (p) =>
      dec(p.amount.initialAmount) > 0n && dec(p.amount.ratePerRound.rate) >= 0n && BigInt(p.amount.createdAt.number) >= 0n ? undefined : 'validExpiringAmount amount',
    parsePayload: recordParser(T.Amulet, 'createArguments'),
    payloadType: T.Amulet,
    choices: {
      Amulet_Expire: nativeChoice<AmuletPayload, { roundCid: string }>('Amulet_Expire', rec(['roundCid', 'cid']), {
        consuming: true,
        controllers: (p) => [p.dso],
        body: (ctx, self, a) => {
          amuletExpired(ctx, a.roundCid, self.payload);
          return { expireSum: expireSummary(self.payload), meta: holdingTxMeta('expire-dust', null, null, dec(self.payload.amount.initialAmount)) };
        },
      }),
    },
    implements: [
      { interface: TS.HoldingV1, view: amuletHoldingView, choices: { Archive: archiveChoice(amuletSignatories) } },
      { interface: TS.HoldingV2, view: (p) => holdingV2(amuletHoldingView(p)), choices: { Archive: archiveChoice(amuletSignatories) } },
    ],
  };
}

export function lockedAmuletTemplate(): TemplateDef<LockedAmuletPayload> {
  const lockedSignatories = (p: LockedAmuletPayload) => [...p.lock.holders, p.amulet.dso, p.amulet.owner];
  const unlockResult = (ctx: UpdateContext, p: LockedAmuletPayload, round: OpenMiningRoundPayload, reason: string) => {
    const cid = ctx.create(AmuletIds.Amulet, p.amulet);
    return { amuletSum: { amulet: cid, amuletPrice: round.amuletPrice, round: round.round }, meta: holdingTxMeta('unlock', reason, null, 0n) };
  };
  return {
    id: AmuletIds.LockedAmulet,
    kind: 'native',
    signatories: lockedSignatories,
    observers: () => [],
    parsePayload: recordParser(T.LockedAmulet, 'createArguments'),
    payloadType: T.LockedAmulet,
    choices: {
      LockedAmulet_Unlock: nativeChoice<LockedAmuletPayload, { openRoundCid: string }>('LockedAmulet_Unlock', rec(['openRoundCid', 'cid']), {
        consuming: true,
        controllers: (p) => [p.amulet.owner, ...p.lock.holders],
        body: (ctx, self, a) => unlockResult(ctx, self.payload, fetchOpenRound(ctx, self.payload.amulet.dso, a.openRoundCid), 'holders released lock'),
      }),
      LockedAmulet_OwnerExpireLock: nativeChoice<LockedAmuletPayload, { openRoundCid: string }>('LockedAmulet_OwnerExpireLock', rec(['openRoundCid', 'cid']), {
        consuming: true,
        controllers: (p) => [p.amulet.owner],
        body: (ctx, self, a) => {
          const round = fetchOpenRound(ctx, self.payload.amulet.dso, a.openRoundCid);
          assertDeadlineExceeded(ctx, 'Lock.expiresAt', self.payload.lock.expiresAt);
          return unlockResult(ctx, self.payload, round, 'lock expired');
        },
      }),
      LockedAmulet_UnlockV2: nativeChoice<LockedAmuletPayload, Record<string, never>>('LockedAmulet_UnlockV2', NO_ARGS, {
        consuming: true,
        controllers: (p) => [p.amulet.owner, ...p.lock.holders],
        body: (ctx, self) => ({
          amuletCid: ctx.create(AmuletIds.Amulet, self.payload.amulet),
          meta: holdingTxMeta('unlock', 'holders released lock', null, 0n),
        }),
      }),
      LockedAmulet_OwnerExpireLockV2: nativeChoice<LockedAmuletPayload, Record<string, never>>('LockedAmulet_OwnerExpireLockV2', NO_ARGS, {
        consuming: true,
        controllers: (p) => [p.amulet.owner],
        body: (ctx, self) => {
          assertDeadlineExceeded(ctx, 'Lock.expiresAt', self.payload.lock.expiresAt);
          return { amuletCid: ctx.create(AmuletIds.Amulet, self.payload.amulet), meta: holdingTxMeta('unlock', 'lock expired', null, 0n) };
        },
      }),
      LockedAmulet_ExpireAmulet: nativeChoice<LockedAmuletPayload, { roundCid: string }>('LockedAmulet_ExpireAmulet', rec(['roundCid', 'cid']), {
        consuming: true,
        controllers: (p) => [p.amulet.dso],
        body: (ctx, self, a) => {
          assertDeadlineExceeded(ctx, 'Lock.expiresAt', self.payload.lock.expiresAt);
          amuletExpired(ctx, a.roundCid, self.payload.amulet);
          return {
            expireSum: expireSummary(self.payload.amulet),
            meta: holdingTxMeta('expire-dust', null, null, dec(self.payload.amulet.amount.initialAmount)),
          };
        },
      }),
    },
    implements: [
      { interface: TS.HoldingV1, view: lockedAmuletHoldingView, choices: { Archive: archiveChoice(lockedSignatories) } },
      { interface: TS.HoldingV2, view: (p) => holdingV2(lockedAmuletHoldingView(p)), choices: { Archive: archiveChoice(lockedSignatories) } },
    ],
  };
}
