/**
 * `Splice.Testing.Tokens.TestTokenV2.Holding`: the `Token` template (Splice
 * `examples/splice-test-token-v2/.../Holding.daml`). A holding of one account, jointly signed by the account parties and the instrument admin;
 * locked holdings are real Tokens whose lock holders include the admin.
 */
import { archiveChoice, type TemplateDef, type UpdateContext } from '../../participant/templates.js';
import { parseTime } from '../../../canton/lf-value.js';
import { TS } from '../token-standard.js';
import { registerView, TestTokenV2Ids } from './ids.js';
import { accountParties, downcastHolding, fail, require, requireR } from './utils.js';
import { dec, pHoldingView, pPayload, showAccount, showInstrumentId, showTime, type Account, type HoldingView, type InstrumentId } from './values.js';
import { Tt2Types } from './types.js';

export interface TokenPayload {
  holding: HoldingView;
}

const signatories = (p: TokenPayload) => [...accountParties(p.holding.instrumentId.admin, p.holding.account), p.holding.instrumentId.admin];

export const tokenTemplate: TemplateDef<TokenPayload> = {
  id: TestTokenV2Ids.Token,
  kind: 'native',
  signatories,
  observers: () => [],
  ensure: (p) => (dec(p.holding.amount) > 0n && p.holding.account.owner !== null ? undefined : 'holding.amount > 0.0 && isSome holding.account.owner'),
  parsePayload: pPayload<TokenPayload & Record<string, unknown>>({ holding: [pHoldingView, 'req'] }),
  payloadType: Tt2Types.Token,
  choices: {},
  implements: [
    { interface: TS.HoldingV1, view: (p) => downcastHolding(p.holding), choices: {} },
    // `archive` on a `ContractId V2.Holding` goes through the interface's Archive choice.
    { interface: TS.HoldingV2, view: (p) => p.holding, choices: { Archive: archiveChoice(signatories) } },
  ],
};
registerView(TestTokenV2Ids.Token, TS.HoldingV2, (p: TokenPayload) => p.holding);
registerView(TestTokenV2Ids.Token, TS.HoldingV1, (p: TokenPayload) => downcastHolding(p.holding));

export function createToken(ctx: UpdateContext, holding: HoldingView): string {
  return ctx.create(TestTokenV2Ids.Token, { holding });
}

function fetchChecked(ctx: UpdateContext, cid: string, instrumentId: InstrumentId, owner: Account): TokenPayload {
  const token = ctx.fetch(cid, TestTokenV2Ids.Token).payload as TokenPayload;
  const h = token.holding;
  const sameInstr = h.instrumentId.admin === instrumentId.admin && h.instrumentId.id === instrumentId.id;
  requireR(ctx, sameInstr, 'inputHolding.instrumentId', showInstrumentId(h.instrumentId), 'is not equal to', 'expectedInstrumentId', showInstrumentId(instrumentId));
  const sameAccount = h.account.owner === owner.owner && h.account.provider === owner.provider && h.account.id === owner.id;
  requireR(ctx, sameAccount, 'inputHolding.account', showAccount(h.account), 'is not equal to', 'expectedOwner', showAccount(owner));
  return token;
}

/** `fetchAndArchiveLockedToken`: the token must belong to the account and instrument, and be locked. */
export function fetchAndArchiveLockedToken(ctx: UpdateContext, instrumentId: InstrumentId, owner: Account, cid: string): TokenPayload {
  const token = fetchChecked(ctx, cid, instrumentId, owner);
  require(ctx, 'Token is locked', token.holding.lock !== null);
  ctx.exercise(cid, 'Archive', {});
  return token;
}

/**
 * `fetchAndArchiveUnlockedToken`: the token must belong to the account and instrument and be
 * unlocked, or carry a lock that has expired (`expiresAt <= now`; a lock without expiry blocks).
 */
export function fetchAndArchiveUnlockedToken(ctx: UpdateContext, instrumentId: InstrumentId, owner: Account, cid: string): TokenPayload {
  const token = fetchChecked(ctx, cid, instrumentId, owner);
  const lock = token.holding.lock;
  if (lock !== null) {
    if (lock.expiresAt === null) fail(ctx, 'input holding is locked indefinitely, cannot be used for transfer');
    if (!(ctx.nowMicros >= parseTime(lock.expiresAt))) {
      ctx.fail(`Ledger time is before deadline 'input holding lock expiresAt' at ${showTime(lock.expiresAt)}`, {
        errorId: 'stdlib.daml.com/deadline-not-exceeded',
        category: 9,
        metadata: { deadline: showTime(lock.expiresAt) },
      });
    }
  }
  ctx.exercise(cid, 'Archive', {});
  return token;
}

export type FetchAndArchive = typeof fetchAndArchiveLockedToken;
