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
 *
 * By feature, over one shared store (./wallet-store.ts): the users' wallets and authorization
 * (./wallet-installs.ts), amulets, balance and tap (./wallet-holdings.ts), transfer offers
 * (./wallet-transfer-offers.ts), pre-approvals (./wallet-preapprovals.ts) and buy-traffic requests
 * (./wallet-buy-traffic.ts); ValidatorWallets assembles them for createValidatorApp.
 */
import type { Logger } from 'pino';
import type { LedgerEngine } from '../participant/engine.js';
import { WalletBuyTraffic } from './wallet-buy-traffic.js';
import { WalletHoldings } from './wallet-holdings.js';
import { WalletInstalls } from './wallet-installs.js';
import { DEFAULT_PREAPPROVAL_LIFETIME_MICROS, WalletPreapprovals } from './wallet-preapprovals.js';
import { WalletStore } from './wallet-store.js';
import { WalletTransferOffers } from './wallet-transfer-offers.js';

export { DEFAULT_PREAPPROVAL_LIFETIME_MICROS } from './wallet-preapprovals.js';
export type { BuyTrafficRequestStatus } from './wallet-buy-traffic.js';
export type { TransferOfferStatus } from './wallet-transfer-offers.js';
export type { UserWallet } from './wallet-store.js';

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

/**
 * The wallet backend of one validator: its features over one shared store, for the routes of
 * createValidatorApp, and the two automations it registers.
 */
export class ValidatorWallets {
  /** The users' wallets and authorization. */
  readonly users: WalletInstalls;
  /** Amulets, balance and the DevNet tap. */
  readonly holdings: WalletHoldings;
  readonly transferOffers: WalletTransferOffers;
  readonly preapprovals: WalletPreapprovals;
  readonly buyTraffic: WalletBuyTraffic;
  private readonly engine: LedgerEngine;

  constructor(opts: ValidatorWalletsOptions) {
    this.engine = opts.engine;
    const store = new WalletStore(opts.engine, opts.dso, opts.validatorParty, opts.validatorUser, opts.logger);
    this.users = new WalletInstalls(store);
    this.holdings = new WalletHoldings(store);
    this.transferOffers = new WalletTransferOffers(store);
    this.preapprovals = new WalletPreapprovals(
      store,
      this.users,
      opts.preapprovalLifetimeMicros ?? DEFAULT_PREAPPROVAL_LIFETIME_MICROS,
      opts.acceptNonHostedPreapprovalProposals ?? false,
    );
    this.buyTraffic = new WalletBuyTraffic(store);
  }

  /**
   * One pass of the wallet automation of every wallet on this validator: the transfer-offer
   * triggers, then the buy-traffic triggers. Registered on engine.automations by createValidatorApp.
   */
  runAutomation(): void {
    const now = this.engine.clock.nowMicros();
    const installs = this.users.installs();
    if (installs.length === 0) return;
    const byParty = new Map(installs.map((i) => [i.payload.endUserParty, i]));
    this.transferOffers.runAutomation(byParty, now);
    this.buyTraffic.runAutomation(byParty, now);
  }

  /** `AcceptTransferPreapprovalProposalTrigger`; registered on engine.automations by createValidatorApp. */
  runPreapprovalAutomation(): void {
    this.preapprovals.runPreapprovalAutomation();
  }
}
