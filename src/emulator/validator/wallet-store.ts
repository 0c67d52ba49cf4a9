/**
 * What the validator's wallet features share (Splice `UserWalletStore`, `SpliceLedgerConnection`,
 * `HttpWalletHandlerUtil.exerciseWalletAction`): the active contracts a party sees, its amulets, the
 * open round and payment context, and submissions through a user's WalletAppInstall as the
 * validator. The features (./wallet-*.ts) are built over one store; ./service.ts assembles them.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Deduplication, DisclosedInput, EngineCommand } from '../participant/commands.js';
import type { LedgerEngine } from '../participant/engine.js';
import { LedgerApiError } from '../../canton/errors.js';
import type { ContractRecord, QualifiedId } from '../participant/types.js';
import { nameKey } from '../participant/types.js';
import type { ExerciseNode, TransactionRecord } from '../participant/updates.js';
import {
  amuletContext,
  AmuletIds,
  BuyTrafficRequestId,
  dec,
  decText,
  latestUsableOpenRound,
  openMiningRounds,
  TransferPreapprovalProposalId,
  type AmuletPayload,
  type LockedAmuletPayload,
  type WalletAppInstallPayload,
} from '../templates/amulet/index.js';
import { fromLedgerError, notFound } from './errors.js';

/** A user's wallet: the install and its end-user party. */
export interface UserWallet {
  user: string;
  party: string;
  install: ContractRecord & { payload: WalletAppInstallPayload };
}

export const byName = (id: QualifiedId) => ({ package: { name: id.packageName }, moduleName: id.moduleName, entityName: id.entityName });
export const KEY = {
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

/** `SpliceLedgerConnection.CommandId`: a stable command id from a method name, parties and a discriminator. */
export function commandId(method: string, parties: string[], discriminator: string): string {
  const h = createHash('sha256').update(`${parties.join(',')}\u0000${discriminator}`).digest('hex');
  return `${method}_${h}`;
}

export interface SubmitOpts {
  commandId?: string;
  disclosed?: DisclosedInput[];
  deduplication?: Deduplication;
  /** Act as the wallet party too (not only read as it). */
  actAsUser?: boolean;
}

export type PaymentContext = ReturnType<WalletStore['paymentContext']>;

export class WalletStore {
  constructor(
    readonly engine: LedgerEngine,
    readonly dso: string,
    readonly validatorParty: string,
    /** The validator's ledger API user: submissions are made as this user. */
    readonly validatorUser: string,
    readonly logger?: Logger,
  ) {}

  active(templateKey: string, party: string): ContractRecord[] {
    const end = this.engine.ledgerEnd();
    return this.engine.contracts.activeAt(end, end, new Set([party]), new Set([templateKey]));
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

  amuletsOf(party: string): Array<ContractRecord & { payload: AmuletPayload }> {
    return this.active(KEY.amulet, party).filter((c) => {
      const p = c.payload as AmuletPayload;
      return p.owner === party && p.dso === this.dso;
    }) as Array<ContractRecord & { payload: AmuletPayload }>;
  }

  lockedAmuletsOf(party: string): Array<ContractRecord & { payload: LockedAmuletPayload }> {
    return this.active(KEY.locked, party).filter((c) => {
      const p = c.payload as LockedAmuletPayload;
      return p.amulet.owner === party && p.amulet.dso === this.dso;
    }) as Array<ContractRecord & { payload: LockedAmuletPayload }>;
  }

  /** The PaymentTransferContext the treasury uses, with AmuletRules and the open round disclosed. */
  paymentContext() {
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

  /** Submits through the user's install as the validator (readAs the user); ledger failures → the validator's answer. */
  submitAsValidator(party: string, commands: EngineCommand[], opts: SubmitOpts = {}): TransactionRecord {
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

  exerciseInstall(w: Pick<UserWallet, 'party' | 'install'>, choice: string, choiceArgument: unknown, opts: SubmitOpts = {}) {
    const cmd: EngineCommand = { kind: 'exercise', template: byName(AmuletIds.WalletAppInstall), contractId: w.install.contractId, choice, choiceArgument };
    const tx = this.submitAsValidator(w.party, [cmd], opts);
    const root = tx.nodes[0] as ExerciseNode;
    return { tx, result: (root.exerciseResult ?? {}) as Record<string, unknown> };
  }

  tryAutomation(what: string, run: () => unknown): void {
    try {
      run();
    } catch (e) {
      this.logger?.warn({ err: e }, `wallet automation: ${what} failed`);
    }
  }

  /** The wallet treasury's inputs: the party's amulets, at most 100. */
  amuletInputs(party: string) {
    return this.amuletsOf(party)
      .slice(0, 100)
      .map((c) => ({ tag: 'InputAmulet', value: c.contractId }));
  }
}

/** The missing amount of an `ITR_InsufficientFunds` transfer failure, if that is what `e` is. */
export function insufficientFunds(e: unknown): string | undefined {
  const missing = /ITR_InsufficientFunds \{missingAmount = ([0-9.]+)\}/.exec((e as Error)?.message ?? '')?.[1];
  return missing === undefined ? undefined : decText(dec(missing));
}
