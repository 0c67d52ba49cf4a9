/**
 * The wallet's amulets (`GET /v0/wallet/amulets`, `GET /v0/wallet/balance`) and the DevNet tap
 * (`POST /v0/wallet/tap`), over ./wallet-store.ts.
 */
import { LedgerApiError } from '../../canton/errors.js';
import type { ContractRecord } from '../participant/types.js';
import { contractWithStateJson, type JsonObject } from '../scan/encode.js';
import { amuletValueAtRound, dec, decText, type AmuletPayload } from '../templates/amulet/index.js';
import { fromLedgerError, notFound } from './errors.js';
import { decodeNumeric, type TapRequest } from './schemas.js';
import { commandId, type UserWallet, type WalletStore } from './wallet-store.js';

export class WalletHoldings {
  constructor(private readonly store: WalletStore) {}

  /** `GET /v0/wallet/amulets`: AmuletPositions at the current round (`SpliceUtil.holdingFee`, `currentAmount`). */
  listAmulets(w: UserWallet): JsonObject {
    const round = this.store.currentRound();
    const position = (c: ContractRecord, amount: AmuletPayload['amount']): JsonObject => {
      const value = amuletValueAtRound(amount, round);
      return {
        contract: contractWithStateJson(c),
        round: Number(round),
        accrued_holding_fee: decText(dec(amount.initialAmount) - value),
        effective_amount: decText(value),
      };
    };
    return {
      amulets: this.store.amuletsOf(w.party).map((c) => position(c, c.payload.amount)),
      locked_amulets: this.store.lockedAmuletsOf(w.party).map((c) => position(c, c.payload.amulet.amount)),
    };
  }

  /**
   * `GET /v0/wallet/balance`: unlocked quantity and holding fees at the current round
   * (`getAmuletBalanceWithHoldingFees`), locked quantity as the locked amulets' initial amounts
   * (`getLockedAmuletBalance`, which takes no round).
   */
  balance(w: UserWallet): JsonObject {
    const round = this.store.currentRound();
    let unlocked = 0n;
    let fees = 0n;
    for (const c of this.store.amuletsOf(w.party)) {
      const value = amuletValueAtRound(c.payload.amount, round);
      unlocked += value;
      fees += dec(c.payload.amount.initialAmount) - value;
    }
    const locked = this.store.lockedAmuletsOf(w.party).reduce((s, c) => s + dec(c.payload.amulet.amount.initialAmount), 0n);
    return { round: Number(round), effective_unlocked_qty: decText(unlocked), effective_locked_qty: decText(locked), total_holding_fees: decText(fees) };
  }

  /**
   * `POST /v0/wallet/tap` (DevNet): the amount is in USD, converted at the latest open round's
   * price rounding up at the request's scale (`amount.divide(amuletPrice, CEILING)`), minted with
   * `CO_Tap` in a `WalletAppInstall_ExecuteBatch`, deduplicated on (party, command_id).
   */
  tap(w: UserWallet, req: TapRequest): JsonObject {
    const { text, scale } = decodeNumeric(req.amount);
    const ctx = this.store.paymentContext();
    const round = this.store.engine.contracts.get(ctx.openRoundCid)!.payload as { amuletPrice: string };
    const s = Math.min(scale, 10);
    let usd: bigint;
    try {
      usd = dec(text);
    } catch (e) {
      // more than 10 decimals, or out of Numeric 10's range: the ledger rejects the tap amount
      throw fromLedgerError(new LedgerApiError('COMMAND_PREPROCESSING_FAILED', (e as Error).message));
    }
    const price = dec(round.amuletPrice);
    if (price <= 0n) throw notFound('No open usable OpenMiningRound found.');
    const unit = 10n ** BigInt(10 - s);
    // usd/price at scale s, rounded toward +infinity (CEILING), back to Numeric 10
    const num = usd * 10n ** BigInt(s);
    let q = num / price;
    if (num % price !== 0n && num > 0n) q += 1n;
    const tapAmount = decText(q * unit);
    const cmdId = commandId('org.lfdecentralizedtrust.splice.wallet.tap', [w.party], req.command_id ?? this.store.engine.ids.uuid());
    const { result } = this.store.exerciseInstall(
      w,
      'WalletAppInstall_ExecuteBatch',
      { context: ctx.payment, inputs: [], operations: [{ tag: 'CO_Tap', value: { tapAmount } }] },
      { commandId: cmdId, disclosed: ctx.disclosed },
    );
    // The batch's result has one outcome per operation: here the `COO_Tap`, whose value is the new Amulet.
    const { outcomes } = result as { outcomes?: Array<{ value?: unknown }> };
    return { contract_id: String(outcomes?.[0]?.value) };
  }
}
