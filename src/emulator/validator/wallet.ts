/**
 * The validator's wallet backend over the emulated ledger: the part of Splice's `UserWalletManager`,
 * `UserWalletStore`, `HttpWalletHandler`, `HttpExternalWalletHandler`, `HttpStatusWalletHandler` and
 * the wallet automation that the endpoints of createValidatorApp need (Splice
 * wallet-external.yaml, wallet-internal.yaml), without HTTP.
 *
 * - Wallets: one per active `WalletAppInstall` of this validator (`validatorParty`), keyed by its
 *   `endUserName` (the ledger API user), whose wallet party is its `endUserParty`
 *   (`UserWalletManager.lookupUserWallet`).
 * - Authorization (`UserWalletAuthExtractor`): no wallet for the user → 404 `No wallet found for
 *   user '<user>' for operation '<opId>'`; user unknown on the participant, deactivated, or without
 *   `CanActAs` on the wallet party → 403 `Authorization Failed for <user>` (the reason is only
 *   logged).
 * - Actions go through the user's WalletAppInstall, submitted as the validator party with the
 *   user's party as readAs (`HttpWalletHandlerUtil.exerciseWalletAction`), as the validator's
 *   ledger API user.
 * - Transfer-offer status comes from the user's transaction log (`UserWalletTxLogParser`): the
 *   transactions the wallet party witnesses, latest event per tracking id.
 * - The wallet automation (`AcceptedTransferOfferTrigger`, `ExpireTransferOfferTrigger`,
 *   `ExpireAcceptedTransferOfferTrigger`) runs as an engine automation (engine.automations), so it
 *   happens lazily before each submission and whenever the validator answers a request
 *   (see `runAutomation`); so does the validator's `AcceptTransferPreapprovalProposalTrigger`
 *   (`runPreapprovalAutomation`), which buys the pre-approvals that `POST
 *   /v0/wallet/transfer-preapproval` and the wallet SDK ask for.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Deduplication, DisclosedInput, EngineCommand } from '../ledger/commands.js';
import type { LedgerEngine } from '../ledger/engine.js';
import { LedgerApiError } from '../../canton/errors.js';
import type { ContractRecord, QualifiedId } from '../ledger/types.js';
import { nameKey } from '../ledger/types.js';
import type { CreateNode, ExerciseNode, TransactionRecord } from '../ledger/updates.js';
import { contractJson, contractWithStateJson, type JsonObject } from '../scan/encode.js';
import { formatTime, parseTime } from '../../canton/lf.js';
import {
  amuletContext,
  AmuletIds,
  BuyTrafficRequestId,
  amuletValueAtRound,
  dec,
  decText,
  disclosedOf,
  latestUsableOpenRound,
  openMiningRounds,
  TransferPreapprovalProposalId,
  type AcceptedTransferOfferPayload,
  type BuyTrafficRequestPayload,
  type AmuletPayload,
  type LockedAmuletPayload,
  type TransferOfferPayload,
  type TransferPreapprovalPayload,
  type TransferPreapprovalProposalPayload,
  type WalletAppInstallPayload,
} from '../templates/amulet/index.js';
import { badRequest, conflict, fromLedgerError, notFound, ValidatorError } from './errors.js';
import { decodeNumeric, decodeParty, decodeTimestampMicros, type CreateBuyTrafficRequest, type CreateTransferOfferRequest, type TapRequest, type TransferPreapprovalSendRequest } from './schemas.js';

export interface ValidatorWalletsOptions {
  engine: LedgerEngine;
  dso: string;
  validatorParty: string;
  /** The validator's ledger API user: submissions are made as this user. */
  validatorUser: string;
  logger?: Logger;
  /**
   * `TransferPreapprovalConfig.preapprovalLifetime`: how long the pre-approvals the validator
   * buys when accepting proposals last, in microseconds (default 90 days, Splice's default).
   */
  preapprovalLifetimeMicros?: bigint;
  /** `acceptNonHostedPreapprovalProposals` (default false: only receivers hosted on this participant). */
  acceptNonHostedPreapprovalProposals?: boolean;
}

/** A user's wallet: the install and its end-user party. */
export interface UserWallet {
  user: string;
  party: string;
  install: ContractRecord & { payload: WalletAppInstallPayload };
}

/** The statuses of `GetTransferOfferStatusResponse`. */
export type TransferOfferStatus =
  | { status: 'created' | 'accepted' | 'completed'; transaction_id: string; contract_id: string }
  | { status: 'failed'; failure_kind: 'expired' | 'rejected' | 'withdrawn'; withdrawn_reason?: string };

/** The statuses of `GetBuyTrafficRequestStatusResponse`. */
export type BuyTrafficRequestStatus =
  | { status: 'created' }
  | { status: 'completed'; transaction_id: string }
  | { status: 'failed'; failure_reason: 'expired' | 'rejected'; rejection_reason?: string };

const SUBMITTED_WITHDRAW_REASON = 'Withdrawn by sender';

const byName = (id: QualifiedId) => ({ package: { name: id.packageName }, moduleName: id.moduleName, entityName: id.entityName });
const KEY = {
  install: nameKey(AmuletIds.WalletAppInstall),
  offer: nameKey(AmuletIds.TransferOffer),
  accepted: nameKey(AmuletIds.AcceptedTransferOffer),
  amulet: nameKey(AmuletIds.Amulet),
  locked: nameKey(AmuletIds.LockedAmulet),
  featured: nameKey(AmuletIds.FeaturedAppRight),
  preapproval: nameKey(AmuletIds.TransferPreapproval),
  proposal: nameKey(TransferPreapprovalProposalId),
  buyTraffic: nameKey(BuyTrafficRequestId),
};

/** `TransferPreapprovalConfig.preapprovalLifetime` default: 90 days. */
export const DEFAULT_PREAPPROVAL_LIFETIME_MICROS = 90n * 24n * 3600n * 1_000_000n;
/** The wallet's `dedupDuration` for pre-approval sends (the spec: one success per id within 24h). */
const SEND_DEDUP_MICROS = 24n * 3600n * 1_000_000n;
const PREAPPROVAL_TIMEOUT_MESSAGE =
  'Transfer preapproval creation request timed out because validator automation did not complete it in time. ' +
  'This is most likely because the validator has insufficient funds to cover the transfer preapproval creation fee. ' +
  'Please contact your validator administrator or retry in some time.';

/** `SpliceLedgerConnection.CommandId`: a stable command id from a method name, parties and a discriminator. */
function commandId(method: string, parties: string[], discriminator: string): string {
  const h = createHash('sha256').update(`${parties.join(',')}\u0000${discriminator}`).digest('hex');
  return `${method}_${h}`;
}

interface SubmitOpts {
  commandId?: string;
  disclosed?: DisclosedInput[];
  deduplication?: Deduplication;
  /** Act as the wallet party too (not only read as it). */
  actAsUser?: boolean;
}

export class ValidatorWallets {
  readonly engine: LedgerEngine;
  readonly dso: string;
  readonly validatorParty: string;
  readonly validatorUser: string;
  private readonly logger?: Logger;
  /** Accepted offers whose completion failed unexpectedly: not retried on every pass. */
  private readonly failedCompletions = new Set<string>();
  /** Pre-approval proposals whose acceptance failed for another reason than funds: not retried. */
  private readonly failedProposals = new Set<string>();
  private readonly preapprovalLifetimeMicros: bigint;
  private readonly acceptNonHosted: boolean;

  constructor(opts: ValidatorWalletsOptions) {
    this.engine = opts.engine;
    this.dso = opts.dso;
    this.validatorParty = opts.validatorParty;
    this.validatorUser = opts.validatorUser;
    this.logger = opts.logger;
    this.preapprovalLifetimeMicros = opts.preapprovalLifetimeMicros ?? DEFAULT_PREAPPROVAL_LIFETIME_MICROS;
    this.acceptNonHosted = opts.acceptNonHostedPreapprovalProposals ?? false;
  }

  // ---- lookups ---------------------------------------------------------------------------------

  private active(templateKey: string, party: string): ContractRecord[] {
    const end = this.engine.ledgerEnd();
    return this.engine.contracts.activeAt(end, end, new Set([party]), new Set([templateKey]));
  }

  /** The active WalletAppInstalls of this validator. */
  installs(): Array<UserWallet['install']> {
    return this.active(KEY.install, this.validatorParty).filter(
      (c) => (c.payload as WalletAppInstallPayload).validatorParty === this.validatorParty,
    ) as Array<UserWallet['install']>;
  }

  /** `UserWalletManager.lookupUserWallet`: by the install's `endUserName`. */
  lookupWallet(user: string): UserWallet | undefined {
    const install = this.installs().find((c) => c.payload.endUserName === user);
    return install ? { user, party: install.payload.endUserParty, install } : undefined;
  }

  /** The install of a party's wallet on this validator (automation). */
  private installOfParty(party: string): UserWallet['install'] | undefined {
    return this.installs().find((c) => c.payload.endUserParty === party);
  }

  /**
   * `UserWalletAuthExtractor`: the wallet of an authenticated user, or the 404 / 403 the
   * validator answers. `reason` of a 403 is logged only.
   */
  authorize(user: string, operationId: string): UserWallet {
    const wallet = this.lookupWallet(user);
    if (!wallet) throw notFound(`No wallet found for user '${user}' for operation '${operationId}'`);
    const record = this.engine.users.get(user);
    let reason: string | undefined;
    if (!record) reason = 'User not found';
    else if (record.isDeactivated) reason = 'User is deactivated';
    else if (!this.engine.users.rights(user).some((r) => r.kind === 'CanActAs' && r.party === wallet.party)) {
      reason = `User may not act as wallet party ${wallet.party}`;
    }
    if (reason !== undefined) {
      this.logger?.warn(`Authorization Failed for ${user} for operation '${operationId}'. Reason: ${reason}`);
      throw new ValidatorError(403, `Authorization Failed for ${user}`);
    }
    return wallet;
  }

  // ---- reads -----------------------------------------------------------------------------------

  /** `GET /v0/wallet/transfer-offers`: open offers where the wallet party is sender or receiver. */
  listTransferOffers(w: UserWallet): JsonObject {
    const offers = this.active(KEY.offer, w.party).filter((c) => {
      const p = c.payload as TransferOfferPayload;
      return p.sender === w.party || p.receiver === w.party;
    });
    return { offers: offers.map(contractJson) };
  }

  /** `GET /v0/wallet/accepted-transfer-offers`. */
  listAcceptedTransferOffers(w: UserWallet): JsonObject {
    const offers = this.active(KEY.accepted, w.party).filter((c) => {
      const p = c.payload as AcceptedTransferOfferPayload;
      return p.sender === w.party || p.receiver === w.party;
    });
    return { accepted_offers: offers.map(contractJson) };
  }

  /**
   * The round scan's `getLatestOpenMiningRound` reports: the latest usable open round, else the
   * newest open one; 404 (scan's store error) when there is none.
   */
  currentRound(): bigint {
    const round = latestUsableOpenRound(this.engine, this.dso) ?? openMiningRounds(this.engine, this.dso).at(-1);
    if (!round) throw notFound('No active OpenMiningRound contract');
    return BigInt((round.payload as { round: { number: string } }).round.number);
  }

  private amuletsOf(party: string): Array<ContractRecord & { payload: AmuletPayload }> {
    return this.active(KEY.amulet, party).filter((c) => {
      const p = c.payload as AmuletPayload;
      return p.owner === party && p.dso === this.dso;
    }) as Array<ContractRecord & { payload: AmuletPayload }>;
  }

  private lockedAmuletsOf(party: string): Array<ContractRecord & { payload: LockedAmuletPayload }> {
    return this.active(KEY.locked, party).filter((c) => {
      const p = c.payload as LockedAmuletPayload;
      return p.amulet.owner === party && p.amulet.dso === this.dso;
    }) as Array<ContractRecord & { payload: LockedAmuletPayload }>;
  }

  /** `GET /v0/wallet/amulets`: AmuletPositions at the current round (`SpliceUtil.holdingFee`, `currentAmount`). */
  listAmulets(w: UserWallet): JsonObject {
    const round = this.currentRound();
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
      amulets: this.amuletsOf(w.party).map((c) => position(c, c.payload.amount)),
      locked_amulets: this.lockedAmuletsOf(w.party).map((c) => position(c, c.payload.amulet.amount)),
    };
  }

  /**
   * `GET /v0/wallet/balance`: unlocked quantity and holding fees at the current round
   * (`getAmuletBalanceWithHoldingFees`), locked quantity as the locked amulets' initial amounts
   * (`getLockedAmuletBalance`, which takes no round).
   */
  balance(w: UserWallet): JsonObject {
    const round = this.currentRound();
    let unlocked = 0n;
    let fees = 0n;
    for (const c of this.amuletsOf(w.party)) {
      const value = amuletValueAtRound(c.payload.amount, round);
      unlocked += value;
      fees += dec(c.payload.amount.initialAmount) - value;
    }
    const locked = this.lockedAmuletsOf(w.party).reduce((s, c) => s + dec(c.payload.amulet.amount.initialAmount), 0n);
    return { round: Number(round), effective_unlocked_qty: decText(unlocked), effective_locked_qty: decText(locked), total_holding_fees: decText(fees) };
  }

  /** `GET /v0/wallet/user-status` (authentication only: the user may have no wallet). */
  userStatus(user: string): JsonObject {
    const w = this.lookupWallet(user);
    const featured = w !== undefined && this.active(KEY.featured, w.party).some((c) => (c.payload as { provider: string; dso: string }).provider === w.party);
    return { party_id: w?.party ?? '', user_onboarded: w !== undefined, user_wallet_installed: w !== undefined, has_featured_app_right: featured };
  }

  /** Whether the validator party has a FeaturedAppRight (`GET /v0/validator-user` `featured`). */
  validatorFeatured(): boolean {
    return this.active(KEY.featured, this.validatorParty).some((c) => (c.payload as { provider: string }).provider === this.validatorParty);
  }

  // ---- transaction log -----------------------------------------------------------------------

  /**
   * The latest transfer-offer event with this tracking id in the wallet party's transaction log
   * (`getLatestTransferOfferEventByTrackingId`), as the status endpoint reports it.
   */
  latestTransferOfferEvent(party: string, trackingId: string): TransferOfferStatus | undefined {
    let latest: TransferOfferStatus | undefined;
    for (const tx of this.engine.updates.range(0, this.engine.ledgerEnd(), new Set([party]))) {
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
    const tracking = (): string => res.trackingInfo?.trackingId ?? (this.engine.contracts.get(n.contractId)?.payload as { trackingId?: string } | undefined)?.trackingId ?? '';
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
          const receiver = (this.engine.contracts.get(n.contractId)?.payload as AcceptedTransferOfferPayload | undefined)?.receiver;
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

  // ---- actions ---------------------------------------------------------------------------------

  /** Submits through the user's install as the validator (readAs the user); ledger failures → the validator's answer. */
  private submitAsValidator(party: string, commands: EngineCommand[], opts: SubmitOpts = {}): TransactionRecord {
    try {
      return this.engine.commands.submit({
        userId: this.validatorUser,
        actAs: opts.actAsUser && party !== this.validatorParty ? [this.validatorParty, party] : [this.validatorParty],
        readAs: party === this.validatorParty || opts.actAsUser ? [] : [party],
        commandId: opts.commandId ?? this.engine.ids.uuid(),
        workflowId: '',
        submissionId: this.engine.ids.uuid(),
        commands,
        disclosedContracts: opts.disclosed ?? [],
        ...(opts.deduplication ? { deduplication: opts.deduplication } : {}),
      });
    } catch (e) {
      if (e instanceof LedgerApiError) throw fromLedgerError(e);
      throw e;
    }
  }

  private exerciseInstall(w: Pick<UserWallet, 'party' | 'install'>, choice: string, choiceArgument: unknown, opts: SubmitOpts = {}) {
    const cmd: EngineCommand = { kind: 'exercise', template: byName(AmuletIds.WalletAppInstall), contractId: w.install.contractId, choice, choiceArgument };
    const tx = this.submitAsValidator(w.party, [cmd], opts);
    const root = tx.nodes[0] as ExerciseNode;
    return { tx, result: (root.exerciseResult ?? {}) as Record<string, unknown> };
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
      const { result } = this.exerciseInstall(
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
    const { result } = this.exerciseInstall(w, 'WalletAppInstall_TransferOffer_Accept', { cid: contractId });
    return { accepted_offer_contract_id: String(result.acceptedTransferOffer) };
  }

  /** `POST /v0/wallet/transfer-offers/{contract_id}/reject`. */
  rejectTransferOffer(w: UserWallet, contractId: string): void {
    this.exerciseInstall(w, 'WalletAppInstall_TransferOffer_Reject', { cid: contractId });
  }

  /** `POST /v0/wallet/transfer-offers/{contract_id}/withdraw` (reason `Withdrawn by sender`). */
  withdrawTransferOffer(w: UserWallet, contractId: string): void {
    this.exerciseInstall(w, 'WalletAppInstall_TransferOffer_Withdraw', { cid: contractId, reason: SUBMITTED_WITHDRAW_REASON });
  }

  /**
   * `POST /v0/wallet/tap` (DevNet): the amount is in USD, converted at the latest open round's
   * price rounding up at the request's scale (`amount.divide(amuletPrice, CEILING)`), minted with
   * `CO_Tap` in a `WalletAppInstall_ExecuteBatch`, deduplicated on (party, command_id).
   */
  tap(w: UserWallet, req: TapRequest): JsonObject {
    const { text, scale } = decodeNumeric(req.amount);
    const ctx = this.paymentContext();
    const round = this.engine.contracts.get(ctx.openRoundCid)!.payload as { amuletPrice: string };
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
    const cmdId = commandId('org.lfdecentralizedtrust.splice.wallet.tap', [w.party], req.command_id ?? this.engine.ids.uuid());
    const { result } = this.exerciseInstall(
      w,
      'WalletAppInstall_ExecuteBatch',
      { context: ctx.payment, inputs: [], operations: [{ tag: 'CO_Tap', value: { tapAmount } }] },
      { commandId: cmdId, disclosed: ctx.disclosed },
    );
    // The batch's result has one outcome per operation: here the `COO_Tap`, whose value is the new Amulet.
    const { outcomes } = result as { outcomes?: Array<{ value?: unknown }> };
    return { contract_id: String(outcomes?.[0]?.value) };
  }

  /** The PaymentTransferContext the treasury uses, with AmuletRules and the open round disclosed. */
  private paymentContext() {
    let c: ReturnType<typeof amuletContext>;
    try {
      c = amuletContext(this.engine, this.dso);
    } catch {
      throw notFound('No open usable OpenMiningRound found.');
    }
    return {
      openRoundCid: c.openRoundCid,
      payment: { amuletRules: c.amuletRulesCid, context: { openMiningRound: c.openRoundCid, issuingMiningRounds: [], validatorRights: [], featuredAppRight: null } },
      disclosed: c.disclosed.slice(0, 2),
    };
  }

  // ---- transfer pre-approvals ---------------------------------------------------------------------

  /** `UserWalletStore.lookupTransferPreapproval`: an active TransferPreapproval with the party as receiver (any provider). */
  private preapprovalOf(party: string): (ContractRecord & { payload: TransferPreapprovalPayload }) | undefined {
    return this.active(KEY.preapproval, party).find((c) => {
      const p = c.payload as TransferPreapprovalPayload;
      return p.receiver === party && p.dso === this.dso;
    }) as (ContractRecord & { payload: TransferPreapprovalPayload }) | undefined;
  }

  /** `UserWalletStore.lookupTransferPreapprovalProposal`. */
  private proposalOf(party: string): ContractRecord | undefined {
    return this.active(KEY.proposal, party).find((c) => (c.payload as TransferPreapprovalProposalPayload).receiver === party);
  }

  /**
   * `POST /v0/wallet/transfer-preapproval` (`HttpWalletHandler.createTransferPreapproval`): 409
   * with the existing pre-approval's id when the user has one; else a TransferPreapprovalProposal
   * (receiver = the user, provider = this validator, expectedDso = the DSO; submitted acting as
   * both, deduplicated on (user, validator) since the lookup's offset, an accepted duplicate
   * counting as success) unless one is pending, then the validator's automation accepts it and the
   * new pre-approval's id is returned. When the automation could not create it (e.g. the validator
   * cannot pay the fee): 429 with Splice's "timed out" message.
   */
  createTransferPreapproval(w: UserWallet): { status: 200 | 409; body: JsonObject } {
    const existing = this.preapprovalOf(w.party);
    if (existing) return { status: 409, body: { transfer_preapproval_contract_id: existing.contractId } };
    if (!this.proposalOf(w.party)) {
      const offset = this.engine.ledgerEnd();
      try {
        this.submitAsValidator(
          w.party,
          [
            {
              kind: 'create',
              template: byName(TransferPreapprovalProposalId),
              createArguments: { receiver: w.party, provider: this.validatorParty, expectedDso: this.dso },
            },
          ],
          {
            actAsUser: true,
            commandId: commandId('org.lfdecentralizedtrust.splice.wallet.createTransferPreapprovalProposal', [w.party, this.validatorParty], ''),
            deduplication: { kind: 'offset', offset },
          },
        );
      } catch (e) {
        // `.recoveringAcceptedDuplicates()`: an accepted earlier submission is as good as this one
        if (!(e instanceof ValidatorError && e.message.startsWith('DUPLICATE_COMMAND'))) throw e;
      }
    }
    // Splice polls its store until the validator automation has accepted the proposal.
    this.engine.automations.run();
    const created = this.preapprovalOf(w.party);
    if (!created) throw new ValidatorError(429, PREAPPROVAL_TIMEOUT_MESSAGE);
    return { status: 200, body: { transfer_preapproval_contract_id: created.contractId } };
  }

  /**
   * `POST /v0/wallet/transfer-preapproval/send` (`HttpWalletHandler.transferPreapprovalSend`): the
   * receiver's pre-approval as scan reports it (none → 400 `Receiver <r> does not have a
   * TransferPreapproval`) and its provider's FeaturedAppRight, then
   * `WalletAppInstall_ExecuteBatch [CO_TransferPreapprovalSend]` with the user's amulets as inputs
   * and both contracts disclosed, deduplicated on (sender, deduplication_id) for 24 hours; a
   * duplicate of an accepted send answers 200 again without sending (recoverAcceptedDuplicates).
   * Insufficient funds: the treasury's COO_Error, answered 400 (FAILED_PRECONDITION).
   */
  transferPreapprovalSend(w: UserWallet, req: TransferPreapprovalSendRequest): void {
    const receiver = decodeParty(req.receiver_party_id);
    const amount = decodeNumeric(req.amount).text;
    const preapproval = this.active(KEY.preapproval, this.dso).find((c) => {
      const p = c.payload as TransferPreapprovalPayload;
      return p.receiver === receiver && p.dso === this.dso;
    });
    if (!preapproval) throw badRequest(`Receiver ${receiver} does not have a TransferPreapproval`);
    const provider = (preapproval.payload as TransferPreapprovalPayload).provider;
    const featured = this.active(KEY.featured, this.dso).find((c) => (c.payload as { provider: string; dso: string }).provider === provider);
    const ctx = this.paymentContext();
    const inputs = this.amuletsOf(w.party)
      .slice(0, 100)
      .map((c) => ({ tag: 'InputAmulet', value: c.contractId }));
    const operation = {
      tag: 'CO_TransferPreapprovalSend',
      value: { transferPreapprovalCid: preapproval.contractId, providerFeaturedAppRightCid: featured?.contractId ?? null, amount, description: req.description ?? null },
    };
    try {
      this.exerciseInstall(
        w,
        'WalletAppInstall_ExecuteBatch',
        { context: ctx.payment, inputs, operations: [operation] },
        {
          commandId: commandId('transferPreapprovalSend', [w.party], req.deduplication_id),
          deduplication: { kind: 'duration', micros: SEND_DEDUP_MICROS },
          disclosed: [...ctx.disclosed, disclosedOf(preapproval), ...(featured ? [disclosedOf(featured)] : [])],
        },
      );
    } catch (e) {
      if (e instanceof ValidatorError && e.message.startsWith('DUPLICATE_COMMAND')) return;
      const missing = insufficientFunds(e);
      if (missing !== undefined) throw badRequest(`the amulet operation failed with a Daml exception: COO_Error(ITR_InsufficientFunds(${missing})).`);
      throw e;
    }
  }

  /**
   * One pass of `AcceptTransferPreapprovalProposalTrigger`: every TransferPreapprovalProposal whose
   * provider is this validator and whose receiver is hosted here (unless
   * `acceptNonHostedPreapprovalProposals`) is accepted, unless the receiver already has an
   * unexpired pre-approval from this validator (then the proposal is left alone, as Splice does).
   * Acceptance: through the validator's own WalletAppInstall when it has one
   * (`WalletAppInstall_ExecuteBatch [CO_AcceptTransferPreapprovalProposal]`, the validator's
   * amulets as inputs), else `TransferPreapprovalProposal_Accept` directly as the validator; the
   * pre-approval lasts `preapprovalLifetime`; deduplicated on (receiver, validator) since the
   * lookup's offset. Insufficient funds are retried on later passes; other failures are not.
   * Registered on engine.automations by createValidatorApp.
   */
  runPreapprovalAutomation(): void {
    const proposals = this.active(KEY.proposal, this.validatorParty).filter((c) => (c.payload as TransferPreapprovalProposalPayload).provider === this.validatorParty);
    for (const proposal of proposals) {
      if (this.failedProposals.has(proposal.contractId) || !this.engine.contracts.getActive(proposal.contractId)) continue;
      const receiver = (proposal.payload as TransferPreapprovalProposalPayload).receiver;
      if (!this.acceptNonHosted && !this.engine.parties.has(receiver)) continue;
      const offset = this.engine.ledgerEnd();
      const now = this.engine.clock.nowMicros();
      const existing = this.active(KEY.preapproval, this.validatorParty).find((c) => {
        const p = c.payload as TransferPreapprovalPayload;
        return p.receiver === receiver && p.provider === this.validatorParty;
      });
      if (existing && parseTime((existing.payload as TransferPreapprovalPayload).expiresAt) > now) continue;
      this.acceptProposal(proposal.contractId, receiver, offset, now);
    }
  }

  private acceptProposal(proposalCid: string, receiver: string, offset: number, now: bigint): void {
    let ctx: ReturnType<ValidatorWallets['paymentContext']>;
    try {
      ctx = this.paymentContext();
    } catch {
      return; // no usable open round yet: retried on a later pass
    }
    const expiresAt = formatTime(now + this.preapprovalLifetimeMicros);
    const inputs = this.amuletsOf(this.validatorParty)
      .slice(0, 100)
      .map((c) => ({ tag: 'InputAmulet', value: c.contractId }));
    const opts: SubmitOpts = {
      commandId: commandId('org.lfdecentralizedtrust.splice.validator.acceptTransferPreapprovalProposal', [receiver, this.validatorParty], ''),
      deduplication: { kind: 'offset', offset },
      disclosed: ctx.disclosed,
    };
    const own = this.installOfParty(this.validatorParty);
    try {
      if (own) {
        this.exerciseInstall(
          { party: this.validatorParty, install: own },
          'WalletAppInstall_ExecuteBatch',
          { context: ctx.payment, inputs, operations: [{ tag: 'CO_AcceptTransferPreapprovalProposal', value: { preapprovalProposalCid: proposalCid, expiresAt } }] },
          opts,
        );
      } else {
        this.submitAsValidator(
          this.validatorParty,
          [
            {
              kind: 'exercise',
              template: byName(TransferPreapprovalProposalId),
              contractId: proposalCid,
              choice: 'TransferPreapprovalProposal_Accept',
              choiceArgument: { context: ctx.payment, inputs, expiresAt },
            },
          ],
          opts,
        );
      }
    } catch (e) {
      if (e instanceof ValidatorError && e.message.startsWith('DUPLICATE_COMMAND')) return;
      const missing = insufficientFunds(e);
      if (missing !== undefined) {
        this.logger?.info(`Insufficient funds to create transfer pre-approval (missing ${missing} CC)`);
        return;
      }
      this.failedProposals.add(proposalCid);
      this.logger?.warn({ err: e }, `Unexpectedly failed to create transfer pre-approval for ${receiver}`);
    }
  }

  // ---- wallet automation -------------------------------------------------------------------------

  /**
   * One pass of the wallet automation of every wallet on this validator:
   *  - `ExpireTransferOfferTrigger` / `ExpireAcceptedTransferOfferTrigger`: offers past `expiresAt`
   *    are expired through a stakeholder's install;
   *  - `AcceptedTransferOfferTrigger`: each accepted offer whose sender has a wallet here is
   *    completed with `WalletAppInstall_ExecuteBatch [CO_CompleteAcceptedTransfer]`, the sender's
   *    amulets as inputs; when the sender lacks funds (ITR_InsufficientFunds) it is aborted with
   *    `out of funds (missing <n> CC)`, as the trigger does on a COO_Error.
   * Registered on engine.automations by createValidatorApp.
   */
  runAutomation(): void {
    const now = this.engine.clock.nowMicros();
    const installs = this.installs();
    if (installs.length === 0) return;
    const byParty = new Map(installs.map((i) => [i.payload.endUserParty, i]));

    const expiredOffers = new Map<string, ContractRecord>();
    for (const party of byParty.keys()) {
      for (const c of this.active(KEY.offer, party)) if (parseTime((c.payload as TransferOfferPayload).expiresAt) <= now) expiredOffers.set(c.contractId, c);
    }
    for (const offer of expiredOffers.values()) {
      const p = offer.payload as TransferOfferPayload;
      if (!this.engine.contracts.getActive(offer.contractId)) continue;
      const install = byParty.get(p.sender) ?? byParty.get(p.receiver);
      if (!install) continue;
      this.tryAutomation('expire transfer offer', () =>
        this.exerciseInstall({ party: install.payload.endUserParty, install }, 'WalletAppInstall_TransferOffer_Expire', { cid: offer.contractId }),
      );
    }

    const seen = new Set<string>();
    for (const party of byParty.keys()) {
      for (const accepted of this.active(KEY.accepted, party)) {
        if (seen.has(accepted.contractId) || !this.engine.contracts.getActive(accepted.contractId)) continue;
        seen.add(accepted.contractId);
        const p = accepted.payload as AcceptedTransferOfferPayload;
        if (parseTime(p.expiresAt) <= now) {
          const install = byParty.get(p.sender) ?? byParty.get(p.receiver);
          if (install) {
            this.tryAutomation('expire accepted transfer offer', () =>
              this.exerciseInstall({ party: install.payload.endUserParty, install }, 'WalletAppInstall_AcceptedTransferOffer_Expire', { cid: accepted.contractId }),
            );
          }
          continue;
        }
        const senderInstall = byParty.get(p.sender);
        if (!senderInstall || this.failedCompletions.has(accepted.contractId)) continue;
        this.completeAcceptedOffer({ party: p.sender, install: senderInstall }, accepted.contractId);
      }
    }

    this.runBuyTrafficAutomation(byParty, now);
  }

  // ---- buy traffic requests (wallet-external.yaml; ../templates/amulet/buy-traffic-request.ts) ----

  /**
   * The latest buy-traffic-request event with this tracking id in the wallet party's transaction
   * log (`getLatestBuyTrafficRequestEventByTrackingId`): created, completed, or failed (cancelled
   * = rejected with its reason, expired).
   */
  latestBuyTrafficRequestEvent(party: string, trackingId: string): BuyTrafficRequestStatus | undefined {
    let latest: BuyTrafficRequestStatus | undefined;
    for (const tx of this.engine.updates.range(0, this.engine.ledgerEnd(), new Set([party]))) {
      for (const n of tx.nodes) {
        if (n.kind !== 'exercise' || !n.witnesses.has(party)) continue;
        const key = nameKey(n.templateId);
        const arg = (n.choiceArgument ?? {}) as { trackingId?: unknown; reason?: unknown };
        const res = (n.exerciseResult ?? {}) as { trackingInfo?: { trackingId?: unknown; endUserParty?: unknown } };
        if (key === KEY.install && n.choice === 'WalletAppInstall_CreateBuyTrafficRequest') {
          const install = this.engine.contracts.get(n.contractId)?.payload as WalletAppInstallPayload | undefined;
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
    if (!this.engine.parties.has(receiving)) throw badRequest(`No participant id found hosting party: ${receiving}`);
    const expiresAt = decodeTimestampMicros(req.expires_at);
    if (this.latestBuyTrafficRequestEvent(w.party, req.tracking_id)) {
      throw conflict(`Buy traffic request with trackingId ${req.tracking_id} already exists.`);
    }
    try {
      const { result } = this.exerciseInstall(
        w,
        'WalletAppInstall_CreateBuyTrafficRequest',
        {
          memberId: this.engine.participantMember,
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
  private runBuyTrafficAutomation(byParty: ReadonlyMap<string, UserWallet['install']>, now: bigint): void {
    for (const [party, install] of byParty) {
      for (const request of this.active(KEY.buyTraffic, party)) {
        const p = request.payload as BuyTrafficRequestPayload;
        if (p.endUserParty !== party || !this.engine.contracts.getActive(request.contractId) || this.failedCompletions.has(request.contractId)) continue;
        const w = { party, install };
        if (parseTime(p.expiresAt) <= now) {
          this.tryAutomation('expire buy traffic request', () => this.exerciseInstall(w, 'WalletAppInstall_BuyTrafficRequest_Expire', { requestCid: request.contractId }));
          continue;
        }
        let ctx: ReturnType<ValidatorWallets['paymentContext']>;
        try {
          ctx = this.paymentContext();
        } catch {
          return; // no usable open round yet: retried on a later pass
        }
        const inputs = this.amuletsOf(party)
          .slice(0, 100)
          .map((c) => ({ tag: 'InputAmulet', value: c.contractId }));
        try {
          this.exerciseInstall(
            w,
            'WalletAppInstall_ExecuteBatch',
            { context: ctx.payment, inputs, operations: [{ tag: 'CO_CompleteBuyTrafficRequest', value: { trafficRequestCid: request.contractId } }] },
            { disclosed: ctx.disclosed },
          );
        } catch (e) {
          const reason = /(ITR_[A-Za-z]+ \{[^}]*\})/.exec((e as Error).message)?.[1];
          if (reason !== undefined) {
            this.tryAutomation('cancel buy traffic request', () => this.exerciseInstall(w, 'WalletAppInstall_BuyTrafficRequest_Cancel', { requestCid: request.contractId, reason }));
          } else {
            this.failedCompletions.add(request.contractId);
            this.logger?.warn({ err: e }, `Unexpectedly failed to complete buy traffic request ${request.contractId}`);
          }
        }
      }
    }
  }

  private completeAcceptedOffer(w: Pick<UserWallet, 'party' | 'install'>, acceptedCid: string): void {
    let ctx: ReturnType<ValidatorWallets['paymentContext']>;
    try {
      ctx = this.paymentContext();
    } catch {
      return; // no usable open round yet: retried on a later pass
    }
    const inputs = this.amuletsOf(w.party)
      .slice(0, 100)
      .map((c) => ({ tag: 'InputAmulet', value: c.contractId }));
    try {
      this.exerciseInstall(w, 'WalletAppInstall_ExecuteBatch', { context: ctx.payment, inputs, operations: [{ tag: 'CO_CompleteAcceptedTransfer', value: acceptedCid }] }, { disclosed: ctx.disclosed });
    } catch (e) {
      const missing = /ITR_InsufficientFunds \{missingAmount = ([0-9.]+)\}/.exec((e as Error).message)?.[1];
      if (missing !== undefined) {
        const reason = `out of funds (missing ${decText(dec(missing))} CC)`;
        this.logger?.info(`Insufficient funds for the transfer (missing ${decText(dec(missing))} CC), aborting transfer offer`);
        this.tryAutomation('abort accepted transfer offer', () => this.exerciseInstall(w, 'WalletAppInstall_AcceptedTransferOffer_Abort', { cid: acceptedCid, reason }));
      } else {
        this.failedCompletions.add(acceptedCid);
        this.logger?.warn({ err: e }, `Unexpectedly failed to complete accepted transfer offer ${acceptedCid}`);
      }
    }
  }

  private tryAutomation(what: string, run: () => unknown): void {
    try {
      run();
    } catch (e) {
      this.logger?.warn({ err: e }, `wallet automation: ${what} failed`);
    }
  }
}

/** The missing amount of an `ITR_InsufficientFunds` transfer failure, if that is what `e` is. */
function insufficientFunds(e: unknown): string | undefined {
  const missing = /ITR_InsufficientFunds \{missingAmount = ([0-9.]+)\}/.exec((e as Error)?.message ?? '')?.[1];
  return missing === undefined ? undefined : decText(dec(missing));
}
