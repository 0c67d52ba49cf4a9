/**
 * Transfer offers (wallet-internal.yaml `/v0/wallet/transfer-offers…`): list, create, accept,
 * reject, withdraw, the status from the user's transaction log (`UserWalletTxLogParser`), and the
 * wallet automation's `ExpireTransferOfferTrigger`, `ExpireAcceptedTransferOfferTrigger` and
 * `AcceptedTransferOfferTrigger`.
 */
import type { ContractRecord } from '../participant/types.js';
import { nameKey } from '../participant/types.js';
import type { CreateNode, ExerciseNode, TransactionRecord } from '../participant/updates.js';
import { contractJson, type JsonObject } from '../scan/encode.js';
import { formatTime, parseTime } from '../../canton/lf-value.js';
import {
  dec,
  decText,
  type AcceptedTransferOfferPayload,
  type AmuletPayload,
  type TransferOfferPayload,
} from '../templates/amulet/index.js';
import { conflict, notFound, ValidatorError } from './errors.js';
import { decodeNumeric, decodeParty, decodeTimestampMicros, type CreateTransferOfferRequest } from './schemas.js';
import { commandId, KEY, type PaymentContext, type UserWallet, type WalletStore } from './wallet-store.js';

/** The statuses of `GetTransferOfferStatusResponse`. */
export type TransferOfferStatus =
  | { status: 'created' | 'accepted' | 'completed'; transaction_id: string; contract_id: string }
  | { status: 'failed'; failure_kind: 'expired' | 'rejected' | 'withdrawn'; withdrawn_reason?: string };

const SUBMITTED_WITHDRAW_REASON = 'Withdrawn by sender';

export class WalletTransferOffers {
  /** Accepted offers whose completion failed unexpectedly: not retried on every pass. */
  private readonly failedCompletions = new Set<string>();

  constructor(private readonly store: WalletStore) {}

  /** `GET /v0/wallet/transfer-offers`: open offers where the wallet party is sender or receiver. */
  listTransferOffers(w: UserWallet): JsonObject {
    const offers = this.store.active(KEY.offer, w.party).filter((c) => {
      const p = c.payload as TransferOfferPayload;
      return p.sender === w.party || p.receiver === w.party;
    });
    return { offers: offers.map(contractJson) };
  }

  /** `GET /v0/wallet/accepted-transfer-offers`. */
  listAcceptedTransferOffers(w: UserWallet): JsonObject {
    const offers = this.store.active(KEY.accepted, w.party).filter((c) => {
      const p = c.payload as AcceptedTransferOfferPayload;
      return p.sender === w.party || p.receiver === w.party;
    });
    return { accepted_offers: offers.map(contractJson) };
  }

  /**
   * The latest transfer-offer event with this tracking id in the wallet party's transaction log
   * (`getLatestTransferOfferEventByTrackingId`), as the status endpoint reports it.
   */
  latestTransferOfferEvent(party: string, trackingId: string): TransferOfferStatus | undefined {
    let latest: TransferOfferStatus | undefined;
    for (const tx of this.store.engine.updates.range(0, this.store.engine.ledgerEnd(), new Set([party]))) {
      for (const n of tx.nodes) {
        if (n.kind !== 'exercise' || !n.witnesses.has(party)) continue;
        const e = this.offerEvent(tx, n);
        if (e && e.trackingId === trackingId) latest = e.status;
      }
    }
    return latest;
  }

  /** `UserWalletTxLogParser`'s transfer-offer cases. */
  private offerEvent(tx: TransactionRecord, n: ExerciseNode): { trackingId: string; status: TransferOfferStatus } | undefined {
    const key = nameKey(n.templateId);
    // The LF JSON argument and result of the wallet choices below; only these fields are read.
    const arg = (n.choiceArgument ?? {}) as { trackingId?: unknown; reason?: unknown };
    const res = (n.exerciseResult ?? {}) as {
      trackingInfo?: { trackingId?: string };
      transferOffer?: unknown;
      acceptedTransferOffer?: unknown;
      transferResult?: { createdAmulets?: Array<{ value?: unknown }> };
    };
    const tracking = (): string => res.trackingInfo?.trackingId ?? (this.store.engine.contracts.get(n.contractId)?.payload as { trackingId?: string } | undefined)?.trackingId ?? '';
    const failed = (failure_kind: 'expired' | 'rejected' | 'withdrawn', withdrawn_reason?: string) => ({
      trackingId: tracking(),
      status: { status: 'failed' as const, failure_kind, ...(withdrawn_reason !== undefined ? { withdrawn_reason } : {}) },
    });
    if (key === KEY.install && n.choice === 'WalletAppInstall_CreateTransferOffer') {
      return { trackingId: String(arg.trackingId), status: { status: 'created', transaction_id: tx.updateId, contract_id: String(res.transferOffer) } };
    }
    if (key === KEY.offer) {
      switch (n.choice) {
        case 'TransferOffer_Accept':
          return { trackingId: tracking(), status: { status: 'accepted', transaction_id: tx.updateId, contract_id: String(res.acceptedTransferOffer) } };
        case 'TransferOffer_Reject':
          return failed('rejected');
        case 'TransferOffer_Withdraw':
          return failed('withdrawn', String(arg.reason));
        case 'TransferOffer_Expire':
          return failed('expired');
      }
    }
    if (key === KEY.accepted) {
      switch (n.choice) {
        case 'AcceptedTransferOffer_Complete': {
          const receiver = (this.store.engine.contracts.get(n.contractId)?.payload as AcceptedTransferOfferPayload | undefined)?.receiver;
          const created = this.receiverAmulet(tx, n, receiver) ?? String(res.transferResult?.createdAmulets?.[0]?.value ?? '');
          return { trackingId: tracking(), status: { status: 'completed', transaction_id: tx.updateId, contract_id: created } };
        }
        case 'AcceptedTransferOffer_Abort':
        case 'AcceptedTransferOffer_Withdraw':
          return failed('withdrawn', String(arg.reason));
        case 'AcceptedTransferOffer_Expire':
          return failed('expired');
      }
    }
    return undefined;
  }

  /** The receiver's Amulet created under the completion node. */
  private receiverAmulet(tx: TransactionRecord, n: ExerciseNode, receiver: string | undefined): string | undefined {
    for (let i = n.nodeId + 1; i <= n.lastDescendantNodeId; i++) {
      const c = tx.nodes[i];
      if (c?.kind === 'create' && nameKey(c.contract.templateId) === KEY.amulet && (c.contract.payload as AmuletPayload).owner === receiver) {
        return (c as CreateNode).contract.contractId;
      }
    }
    return undefined;
  }

  /** `POST /v0/wallet/transfer-offers/{tracking_id}/status`. */
  transferOfferStatus(w: UserWallet, trackingId: string): TransferOfferStatus {
    const s = this.latestTransferOfferEvent(w.party, trackingId);
    if (!s) throw notFound(`Couldn't find transfer offer with tracking id ${trackingId}`);
    return s;
  }

  /**
   * `POST /v0/wallet/transfer-offers`: 409 when the user's log already has an event with this
   * tracking id; else `WalletAppInstall_CreateTransferOffer` with an AmuletUnit amount, deduplicated
   * on (sender, receiver, tracking id).
   */
  createTransferOffer(w: UserWallet, req: CreateTransferOfferRequest): JsonObject {
    if (this.latestTransferOfferEvent(w.party, req.tracking_id)) {
      throw conflict(`Transfer offer with trackingId ${req.tracking_id} already exists.`);
    }
    const receiver = decodeParty(req.receiver_party_id);
    const amount = decodeNumeric(req.amount).text;
    const expiresAt = decodeTimestampMicros(req.expires_at);
    try {
      const { result } = this.store.exerciseInstall(
        w,
        'WalletAppInstall_CreateTransferOffer',
        { receiver, amount: { amount, unit: 'AmuletUnit' }, description: req.description, expiresAt: formatTime(expiresAt), trackingId: req.tracking_id },
        { commandId: commandId('org.lfdecentralizedtrust.splice.wallet.createTransferOffer', [w.party, receiver], req.tracking_id) },
      );
      return { offer_contract_id: String(result.transferOffer) };
    } catch (e) {
      // HttpErrorHandler.onGrpcAlreadyExists: a deduplicated command
      if (e instanceof ValidatorError && e.status === 409 && e.message.startsWith('DUPLICATE_COMMAND')) throw conflict('CreateTransferOffer duplicate command');
      throw e;
    }
  }

  /** `POST /v0/wallet/transfer-offers/{contract_id}/accept`; then the sender's wallet automation completes it. */
  acceptTransferOffer(w: UserWallet, contractId: string): JsonObject {
    const { result } = this.store.exerciseInstall(w, 'WalletAppInstall_TransferOffer_Accept', { cid: contractId });
    return { accepted_offer_contract_id: String(result.acceptedTransferOffer) };
  }

  /** `POST /v0/wallet/transfer-offers/{contract_id}/reject`. */
  rejectTransferOffer(w: UserWallet, contractId: string): void {
    this.store.exerciseInstall(w, 'WalletAppInstall_TransferOffer_Reject', { cid: contractId });
  }

  /** `POST /v0/wallet/transfer-offers/{contract_id}/withdraw` (reason `Withdrawn by sender`). */
  withdrawTransferOffer(w: UserWallet, contractId: string): void {
    this.store.exerciseInstall(w, 'WalletAppInstall_TransferOffer_Withdraw', { cid: contractId, reason: SUBMITTED_WITHDRAW_REASON });
  }

  /**
   * The transfer-offer part of one pass of the wallet automation over the wallets `byParty`:
   *  - `ExpireTransferOfferTrigger` / `ExpireAcceptedTransferOfferTrigger`: offers past `expiresAt`
   *    are expired through a stakeholder's install;
   *  - `AcceptedTransferOfferTrigger`: each accepted offer whose sender has a wallet here is
   *    completed with `WalletAppInstall_ExecuteBatch [CO_CompleteAcceptedTransfer]`, the sender's
   *    amulets as inputs; when the sender lacks funds (ITR_InsufficientFunds) it is aborted with
   *    `out of funds (missing <n> CC)`, as the trigger does on a COO_Error.
   */
  runAutomation(byParty: ReadonlyMap<string, UserWallet['install']>, now: bigint): void {
    const expiredOffers = new Map<string, ContractRecord>();
    for (const party of byParty.keys()) {
      for (const c of this.store.active(KEY.offer, party)) if (parseTime((c.payload as TransferOfferPayload).expiresAt) <= now) expiredOffers.set(c.contractId, c);
    }
    for (const offer of expiredOffers.values()) {
      const p = offer.payload as TransferOfferPayload;
      if (!this.store.engine.contracts.getActive(offer.contractId)) continue;
      const install = byParty.get(p.sender) ?? byParty.get(p.receiver);
      if (!install) continue;
      this.store.tryAutomation('expire transfer offer', () =>
        this.store.exerciseInstall({ party: install.payload.endUserParty, install }, 'WalletAppInstall_TransferOffer_Expire', { cid: offer.contractId }),
      );
    }

    const seen = new Set<string>();
    for (const party of byParty.keys()) {
      for (const accepted of this.store.active(KEY.accepted, party)) {
        if (seen.has(accepted.contractId) || !this.store.engine.contracts.getActive(accepted.contractId)) continue;
        seen.add(accepted.contractId);
        const p = accepted.payload as AcceptedTransferOfferPayload;
        if (parseTime(p.expiresAt) <= now) {
          const install = byParty.get(p.sender) ?? byParty.get(p.receiver);
          if (install) {
            this.store.tryAutomation('expire accepted transfer offer', () =>
              this.store.exerciseInstall({ party: install.payload.endUserParty, install }, 'WalletAppInstall_AcceptedTransferOffer_Expire', { cid: accepted.contractId }),
            );
          }
          continue;
        }
        const senderInstall = byParty.get(p.sender);
        if (!senderInstall || this.failedCompletions.has(accepted.contractId)) continue;
        this.completeAcceptedOffer({ party: p.sender, install: senderInstall }, accepted.contractId);
      }
    }
  }

  private completeAcceptedOffer(w: Pick<UserWallet, 'party' | 'install'>, acceptedCid: string): void {
    let ctx: PaymentContext;
    try {
      ctx = this.store.paymentContext();
    } catch {
      return; // no usable open round yet: retried on a later pass
    }
    const inputs = this.store.amuletInputs(w.party);
    try {
      this.store.exerciseInstall(w, 'WalletAppInstall_ExecuteBatch', { context: ctx.payment, inputs, operations: [{ tag: 'CO_CompleteAcceptedTransfer', value: acceptedCid }] }, { disclosed: ctx.disclosed });
    } catch (e) {
      const missing = /ITR_InsufficientFunds \{missingAmount = ([0-9.]+)\}/.exec((e as Error).message)?.[1];
      if (missing !== undefined) {
        const reason = `out of funds (missing ${decText(dec(missing))} CC)`;
        this.store.logger?.info(`Insufficient funds for the transfer (missing ${decText(dec(missing))} CC), aborting transfer offer`);
        this.store.tryAutomation('abort accepted transfer offer', () => this.store.exerciseInstall(w, 'WalletAppInstall_AcceptedTransferOffer_Abort', { cid: acceptedCid, reason }));
      } else {
        this.failedCompletions.add(acceptedCid);
        this.store.logger?.warn({ err: e }, `Unexpectedly failed to complete accepted transfer offer ${acceptedCid}`);
      }
    }
  }
}
