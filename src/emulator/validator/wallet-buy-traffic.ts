/**
 * Buy-traffic requests (wallet-external.yaml `/v0/wallet/buy-traffic-requests…`;
 * ../templates/amulet/buy-traffic-request.ts): create, the status from the user's transaction log,
 * and the wallet automation that completes, cancels or expires them.
 */
import { nameKey } from '../participant/types.js';
import type { JsonObject } from '../scan/encode.js';
import { formatTime, parseTime } from '../../canton/lf-value.js';
import type { BuyTrafficRequestPayload, WalletAppInstallPayload } from '../templates/amulet/index.js';
import { badRequest, conflict, notFound, ValidatorError } from './errors.js';
import { decodeParty, decodeTimestampMicros, type CreateBuyTrafficRequest } from './schemas.js';
import { commandId, KEY, type PaymentContext, type UserWallet, type WalletStore } from './wallet-store.js';

/** The statuses of `GetBuyTrafficRequestStatusResponse`. */
export type BuyTrafficRequestStatus =
  | { status: 'created' }
  | { status: 'completed'; transaction_id: string }
  | { status: 'failed'; failure_reason: 'expired' | 'rejected'; rejection_reason?: string };

export class WalletBuyTraffic {
  /** Requests whose completion failed unexpectedly: not retried on every pass. */
  private readonly failedCompletions = new Set<string>();

  constructor(private readonly store: WalletStore) {}

  /**
   * The latest buy-traffic-request event with this tracking id in the wallet party's transaction
   * log (`getLatestBuyTrafficRequestEventByTrackingId`): created, completed, or failed (cancelled
   * = rejected with its reason, expired).
   */
  latestBuyTrafficRequestEvent(party: string, trackingId: string): BuyTrafficRequestStatus | undefined {
    let latest: BuyTrafficRequestStatus | undefined;
    for (const tx of this.store.engine.updates.range(0, this.store.engine.ledgerEnd(), new Set([party]))) {
      for (const n of tx.nodes) {
        if (n.kind !== 'exercise' || !n.witnesses.has(party)) continue;
        const key = nameKey(n.templateId);
        const arg = (n.choiceArgument ?? {}) as { trackingId?: unknown; reason?: unknown };
        const res = (n.exerciseResult ?? {}) as { trackingInfo?: { trackingId?: unknown; endUserParty?: unknown } };
        if (key === KEY.install && n.choice === 'WalletAppInstall_CreateBuyTrafficRequest') {
          const install = this.store.engine.contracts.get(n.contractId)?.payload as WalletAppInstallPayload | undefined;
          if (arg.trackingId === trackingId && install?.endUserParty === party) latest = { status: 'created' };
          continue;
        }
        if (key !== KEY.buyTraffic || res.trackingInfo?.trackingId !== trackingId || res.trackingInfo?.endUserParty !== party) continue;
        if (n.choice === 'BuyTrafficRequest_Complete') latest = { status: 'completed', transaction_id: tx.updateId };
        else if (n.choice === 'BuyTrafficRequest_Cancel') latest = { status: 'failed', failure_reason: 'rejected', rejection_reason: String(arg.reason) };
        else if (n.choice === 'BuyTrafficRequest_Expire') latest = { status: 'failed', failure_reason: 'expired' };
      }
    }
    return latest;
  }

  /** `POST /v0/wallet/buy-traffic-requests/{tracking_id}/status`. */
  buyTrafficRequestStatus(w: UserWallet, trackingId: string): BuyTrafficRequestStatus {
    const s = this.latestBuyTrafficRequestEvent(w.party, trackingId);
    if (!s) throw notFound(`Couldn't find buy traffic request with tracking id ${trackingId}`);
    return s;
  }

  /**
   * `POST /v0/wallet/buy-traffic-requests`: traffic for the participant hosting
   * `receiving_validator_party_id` (the emulated participant: it must host the party) on
   * `domain_id`, at the validator's migration id (0). 409 when the user's log already has an event
   * with this tracking id; else `WalletAppInstall_CreateBuyTrafficRequest`, deduplicated on
   * (user, tracking id). The wallet automation then buys it (`runBuyTrafficAutomation`).
   */
  createBuyTrafficRequest(w: UserWallet, req: CreateBuyTrafficRequest): JsonObject {
    const receiving = decodeParty(req.receiving_validator_party_id);
    if (!this.store.engine.parties.has(receiving)) throw badRequest(`No participant id found hosting party: ${receiving}`);
    const expiresAt = decodeTimestampMicros(req.expires_at);
    if (this.latestBuyTrafficRequestEvent(w.party, req.tracking_id)) {
      throw conflict(`Buy traffic request with trackingId ${req.tracking_id} already exists.`);
    }
    try {
      const { result } = this.store.exerciseInstall(
        w,
        'WalletAppInstall_CreateBuyTrafficRequest',
        {
          memberId: this.store.engine.participantMember,
          synchronizerId: req.domain_id,
          migrationId: '0',
          trafficAmount: String(req.traffic_amount),
          expiresAt: formatTime(expiresAt),
          trackingId: req.tracking_id,
        },
        { commandId: commandId('org.lfdecentralizedtrust.splice.wallet.createBuyTrafficRequest', [w.party], req.tracking_id) },
      );
      return { request_contract_id: String(result.buyTrafficRequest) };
    } catch (e) {
      if (e instanceof ValidatorError && e.status === 409 && e.message.startsWith('DUPLICATE_COMMAND')) throw conflict('CreateBuyTrafficRequest duplicate command');
      throw e;
    }
  }

  /**
   * The wallet automation's buy-traffic triggers: requests past `expiresAt` are expired
   * (`WalletAppInstall_BuyTrafficRequest_Expire`); the others are completed with
   * `WalletAppInstall_ExecuteBatch [CO_CompleteBuyTrafficRequest]` from the user's amulets, and
   * cancelled with the Amulet rules' reason (`WalletAppInstall_BuyTrafficRequest_Cancel`) when the
   * purchase is invalid (unknown synchronizer, below the minimum top-up, out of funds), as
   * Splice's trigger does with a `COO_Error` outcome.
   */
  runAutomation(byParty: ReadonlyMap<string, UserWallet['install']>, now: bigint): void {
    for (const [party, install] of byParty) {
      for (const request of this.store.active(KEY.buyTraffic, party)) {
        const p = request.payload as BuyTrafficRequestPayload;
        if (p.endUserParty !== party || !this.store.engine.contracts.getActive(request.contractId) || this.failedCompletions.has(request.contractId)) continue;
        const w = { party, install };
        if (parseTime(p.expiresAt) <= now) {
          this.store.tryAutomation('expire buy traffic request', () => this.store.exerciseInstall(w, 'WalletAppInstall_BuyTrafficRequest_Expire', { requestCid: request.contractId }));
          continue;
        }
        let ctx: PaymentContext;
        try {
          ctx = this.store.paymentContext();
        } catch {
          return; // no usable open round yet: retried on a later pass
        }
        const inputs = this.store.amuletInputs(party);
        try {
          this.store.exerciseInstall(
            w,
            'WalletAppInstall_ExecuteBatch',
            { context: ctx.payment, inputs, operations: [{ tag: 'CO_CompleteBuyTrafficRequest', value: { trafficRequestCid: request.contractId } }] },
            { disclosed: ctx.disclosed },
          );
        } catch (e) {
          const reason = /(ITR_[A-Za-z]+ \{[^}]*\})/.exec((e as Error).message)?.[1];
          if (reason !== undefined) {
            this.store.tryAutomation('cancel buy traffic request', () => this.store.exerciseInstall(w, 'WalletAppInstall_BuyTrafficRequest_Cancel', { requestCid: request.contractId, reason }));
          } else {
            this.failedCompletions.add(request.contractId);
            this.store.logger?.warn({ err: e }, `Unexpectedly failed to complete buy traffic request ${request.contractId}`);
          }
        }
      }
    }
  }
}
