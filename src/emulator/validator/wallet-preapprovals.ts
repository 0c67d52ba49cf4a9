/**
 * Transfer pre-approvals (`POST /v0/wallet/transfer-preapproval`, `…/send`) and the validator's
 * `AcceptTransferPreapprovalProposalTrigger`, over ./wallet-store.ts.
 */
import type { ContractRecord } from '../participant/types.js';
import type { JsonObject } from '../scan/encode.js';
import { formatTime, parseTime } from '../../canton/lf-value.js';
import { disclosedOf, TransferPreapprovalProposalId, type TransferPreapprovalPayload, type TransferPreapprovalProposalPayload } from '../templates/amulet/index.js';
import { badRequest, ValidatorError } from './errors.js';
import { decodeNumeric, decodeParty, type TransferPreapprovalSendRequest } from './schemas.js';
import {
  byName,
  commandId,
  insufficientFunds,
  KEY,
  type PaymentContext,
  type SubmitOpts,
  type UserWallet,
  type WalletStore,
} from './wallet-store.js';
import type { WalletInstalls } from './wallet-installs.js';

/** `TransferPreapprovalConfig.preapprovalLifetime` default: 90 days. */
export const DEFAULT_PREAPPROVAL_LIFETIME_MICROS = 90n * 24n * 3600n * 1_000_000n;
/** The wallet's `dedupDuration` for pre-approval sends (the spec: one success per id within 24h). */
const SEND_DEDUP_MICROS = 24n * 3600n * 1_000_000n;
const PREAPPROVAL_TIMEOUT_MESSAGE =
  'Transfer preapproval creation request timed out because validator automation did not complete it in time. ' +
  'This is most likely because the validator has insufficient funds to cover the transfer preapproval creation fee. ' +
  'Please contact your validator administrator or retry in some time.';

export class WalletPreapprovals {
  /** Pre-approval proposals whose acceptance failed for another reason than funds: not retried. */
  private readonly failedProposals = new Set<string>();

  constructor(
    private readonly store: WalletStore,
    private readonly installs: WalletInstalls,
    private readonly preapprovalLifetimeMicros: bigint,
    private readonly acceptNonHosted: boolean,
  ) {}

  /** `UserWalletStore.lookupTransferPreapproval`: an active TransferPreapproval with the party as receiver (any provider). */
  private preapprovalOf(party: string): (ContractRecord & { payload: TransferPreapprovalPayload }) | undefined {
    return this.store.active(KEY.preapproval, party).find((c) => {
      const p = c.payload as TransferPreapprovalPayload;
      return p.receiver === party && p.dso === this.store.dso;
    }) as (ContractRecord & { payload: TransferPreapprovalPayload }) | undefined;
  }

  /** `UserWalletStore.lookupTransferPreapprovalProposal`. */
  private proposalOf(party: string): ContractRecord | undefined {
    return this.store.active(KEY.proposal, party).find((c) => (c.payload as TransferPreapprovalProposalPayload).receiver === party);
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
      const offset = this.store.engine.ledgerEnd();
      try {
        this.store.submitAsValidator(
          w.party,
          [
            {
              kind: 'create',
              template: byName(TransferPreapprovalProposalId),
              createArguments: { receiver: w.party, provider: this.store.validatorParty, expectedDso: this.store.dso },
            },
          ],
          {
            actAsUser: true,
            commandId: commandId('org.lfdecentralizedtrust.splice.wallet.createTransferPreapprovalProposal', [w.party, this.store.validatorParty], ''),
            deduplication: { kind: 'offset', offset },
          },
        );
      } catch (e) {
        // `.recoveringAcceptedDuplicates()`: an accepted earlier submission is as good as this one
        if (!(e instanceof ValidatorError && e.message.startsWith('DUPLICATE_COMMAND'))) throw e;
      }
    }
    // Splice polls its store until the validator automation has accepted the proposal.
    this.store.engine.automations.run();
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
    const preapproval = this.store.active(KEY.preapproval, this.store.dso).find((c) => {
      const p = c.payload as TransferPreapprovalPayload;
      return p.receiver === receiver && p.dso === this.store.dso;
    });
    if (!preapproval) throw badRequest(`Receiver ${receiver} does not have a TransferPreapproval`);
    const provider = (preapproval.payload as TransferPreapprovalPayload).provider;
    const featured = this.store.active(KEY.featured, this.store.dso).find((c) => (c.payload as { provider: string; dso: string }).provider === provider);
    const ctx = this.store.paymentContext();
    const inputs = this.store.amuletInputs(w.party);
    const operation = {
      tag: 'CO_TransferPreapprovalSend',
      value: { transferPreapprovalCid: preapproval.contractId, providerFeaturedAppRightCid: featured?.contractId ?? null, amount, description: req.description ?? null },
    };
    try {
      this.store.exerciseInstall(
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
    const proposals = this.store.active(KEY.proposal, this.store.validatorParty).filter((c) => (c.payload as TransferPreapprovalProposalPayload).provider === this.store.validatorParty);
    for (const proposal of proposals) {
      if (this.failedProposals.has(proposal.contractId) || !this.store.engine.contracts.getActive(proposal.contractId)) continue;
      const receiver = (proposal.payload as TransferPreapprovalProposalPayload).receiver;
      if (!this.acceptNonHosted && !this.store.engine.parties.has(receiver)) continue;
      const offset = this.store.engine.ledgerEnd();
      const now = this.store.engine.clock.nowMicros();
      const existing = this.store.active(KEY.preapproval, this.store.validatorParty).find((c) => {
        const p = c.payload as TransferPreapprovalPayload;
        return p.receiver === receiver && p.provider === this.store.validatorParty;
      });
      if (existing && parseTime((existing.payload as TransferPreapprovalPayload).expiresAt) > now) continue;
      this.acceptProposal(proposal.contractId, receiver, offset, now);
    }
  }

  private acceptProposal(proposalCid: string, receiver: string, offset: number, now: bigint): void {
    let ctx: PaymentContext;
    try {
      ctx = this.store.paymentContext();
    } catch {
      return; // no usable open round yet: retried on a later pass
    }
    const expiresAt = formatTime(now + this.preapprovalLifetimeMicros);
    const inputs = this.store.amuletInputs(this.store.validatorParty);
    const opts: SubmitOpts = {
      commandId: commandId('org.lfdecentralizedtrust.splice.validator.acceptTransferPreapprovalProposal', [receiver, this.store.validatorParty], ''),
      deduplication: { kind: 'offset', offset },
      disclosed: ctx.disclosed,
    };
    const own = this.installs.installOfParty(this.store.validatorParty);
    try {
      if (own) {
        this.store.exerciseInstall(
          { party: this.store.validatorParty, install: own },
          'WalletAppInstall_ExecuteBatch',
          { context: ctx.payment, inputs, operations: [{ tag: 'CO_AcceptTransferPreapprovalProposal', value: { preapprovalProposalCid: proposalCid, expiresAt } }] },
          opts,
        );
      } else {
        this.store.submitAsValidator(
          this.store.validatorParty,
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
        this.store.logger?.info(`Insufficient funds to create transfer pre-approval (missing ${missing} CC)`);
        return;
      }
      this.failedProposals.add(proposalCid);
      this.store.logger?.warn({ err: e }, `Unexpectedly failed to create transfer pre-approval for ${receiver}`);
    }
  }
}
