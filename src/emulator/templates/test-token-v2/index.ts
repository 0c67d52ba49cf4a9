/**
 * TestTokenV2 (`splice-test-token-v2`, modules `Splice.Testing.Tokens.TestTokenV2[.Holding/
 * .Transfer/.Allocation/.AccountConfig]`) as native emulator templates: the CIP-0112 (token
 * standard V2) reference token, which implements the V2 interfaces and, through the
 * `Splice.TokenStandard.Utils` adapters, the V1 interfaces too (canton-network/splice `token-standard/examples/splice-test-token-v2/`).
 * Behaviour follows the Daml of splice main @f819bd6f choice by choice, including provider
 * accounts with `AccountConfig` (authorization state machines and authority transfers, `AccountConfig.daml`).
 *
 * One module per Daml module: ./holding (Token), ./transfer (TokenTransferOffer), ./allocation
 * (TokenAllocationInstructionV1/V2, TokenAllocationV1/V2), ./account-config (AccountConfig,
 * AccountProposal, the state machines), ./rules (TokenRules); ./events (EventLog_HoldingsChange),
 * ./utils (Splice.TokenStandard.Utils), ./values (LF values).
 *
 * LIMITATIONS (deviations from the reference token, and why):
 *  1. `TransferFactory_Transfer` (V2, and V1 through the adapter) fails with
 *     `stdlib.daml.com/deadline-exceeded` when ledger time is at or past `transfer.executeBefore`:
 *     the interface says implementations MUST fail then; the reference token does not check it
 *     (`TestTokenV2/Transfer.daml`).
 *  2. Accepting a transfer offer (V2 `TransferInstruction_Accept`, V1 through the adapter, and the
 *     accept of a mint offer) fails the same way at or past `executeBefore`: the interface says
 *     registries SHOULD NOT execute a transfer after it, and the lock on the transferred amount
 *     expires then, so the sender may already have spent it. Reject and withdraw remain possible
 *     after the deadline, so that a stale offer can always be cleared.
 *  3. `SettlementFactory_SettleBatch` fails on an empty `transferLegs` list (the interface: "There
 *     MUST be at least one transfer leg"); the reference would settle an empty batch.
 *  4. Interface views are computed only for this package's own templates: a batch settlement or
 *     an AccountConfig authority transfer given a contract of another package fails with a clear
 *     DAML_FAILURE instead of reading its view (the emulator's choice bodies cannot evaluate a
 *     foreign view; such a contract could not pass the admin checks anyway).
 *  5. Failure texts follow the reference (`require'`, `requireMatchExpected`, the deadline
 *     assertions of DA.Assert); the error ids are `UNHANDLED_EXCEPTION/DA.Exception.GeneralError:
 *     GeneralError` for fail/abort and `…AssertionFailed:AssertionFailed` for assertMsg/require,
 *     and Daml `show` output is reproduced for the values that appear in them.
 *  Kept as in the reference (not deviations): `allocateBefore` is not checked against ledger time
 *  (only `settlementDeadline` on allocate and settle); the admin cannot cancel an expired
 *  allocation (`expiresAt = None`); withdrawing a mint offer fails (it would create a Token of the
 *  owner-less mint account, which the Token's ensure clause forbids).
 */
import type { LedgerEngine } from '../../participant/engine.js';
import type { EngineCommand, Submission } from '../../participant/commands.js';
import { archiveChoice, type InterfaceImpl, type TemplateRegistry } from '../../participant/templates.js';
import { nameKey, type QualifiedId } from '../../participant/types.js';
import type { TransactionRecord } from '../../participant/updates.js';
import { formatTime, type ChoiceContext } from '../../../canton/lf-value.js';
import { describeInterfaceChoices, registerTokenStandardInterfaces } from '../token-standard.js';
import { accountConfigTemplate, accountProposalTemplate, basicAccountConfig } from './account-config.js';
import { tokenAllocationInstructionV1Template, tokenAllocationInstructionV2Template, tokenAllocationV1Template, tokenAllocationV2Template } from './allocation.js';
import { tokenTemplate } from './holding.js';
import { ACCOUNT_CONFIGS_CONTEXT_KEY, TEST_TOKEN_V2_PACKAGE_ID, TEST_TOKEN_V2_PACKAGE_NAME, TestTokenV2Ids, TOKEN_RULES_CONTEXT_KEY } from './ids.js';
import { tokenRulesTemplate } from './rules.js';
import { tokenTransferOfferTemplate } from './transfer.js';
import { accountParties, basicAccount } from './utils.js';
import { pDecimal, type Account, type AccountConfig, type PartyConfig } from './values.js';

export { ACCOUNT_CONFIGS_CONTEXT_KEY, TEST_TOKEN_V2_PACKAGE_ID, TEST_TOKEN_V2_PACKAGE_NAME, TestTokenV2Ids, TOKEN_RULES_CONTEXT_KEY };
export type { Account, AccountConfig, PartyConfig };

/** Every template of `splice-test-token-v2`. */
export const TEST_TOKEN_V2_TEMPLATES = [
  tokenRulesTemplate,
  tokenTemplate,
  tokenTransferOfferTemplate,
  tokenAllocationInstructionV2Template,
  tokenAllocationV2Template,
  tokenAllocationInstructionV1Template,
  tokenAllocationV1Template,
  accountConfigTemplate,
  accountProposalTemplate,
] as const;

// Every Daml interface has the implicit consuming `Archive` choice (controllers: the signatories).
for (const t of TEST_TOKEN_V2_TEMPLATES) {
  for (const impl of t.implements as InterfaceImpl[]) impl.choices.Archive ??= archiveChoice((p) => (t.signatories as (x: unknown) => string[])(p));
  // Interface choices take the interface's argument type (prepared transactions encode them with it).
  describeInterfaceChoices(t.implements as InterfaceImpl[]);
}

/** Registers the token-standard interfaces and TestTokenV2's templates (idempotent). */
export function registerTestTokenV2(templates: TemplateRegistry): void {
  registerTokenStandardInterfaces(templates);
  // register() appends to the interface implementor lists, so registering twice must be skipped
  // (an evaluated template of the same name, TEMPLATE_ENGINE=daml, is left in place)
  for (const t of TEST_TOKEN_V2_TEMPLATES) {
    const existing = templates.templateById(t.id);
    if (existing !== t && existing?.kind !== 'daml') templates.register(t);
  }
}

/**
 * The choice context TestTokenV2's registry serves for every endpoint (`TestTokenV2_RegistryV2.daml`): the
 * TokenRules contract (also the EventLog) and the AccountConfigs of the provider accounts involved.
 */
export function testTokenV2ChoiceContext(tokenRulesCid: string, accountConfigCids: readonly string[] = []): ChoiceContext {
  return {
    values: {
      [ACCOUNT_CONFIGS_CONTEXT_KEY]: { tag: 'AV_List', value: accountConfigCids.map((c) => ({ tag: 'AV_ContractId', value: c })) },
      [TOKEN_RULES_CONTEXT_KEY]: { tag: 'AV_ContractId', value: tokenRulesCid },
    },
  };
}

// ---- helpers for seeding (they submit commands like any client; they never write stores) -----------

const refOf = (id: QualifiedId) => ({ package: { name: id.packageName }, moduleName: id.moduleName, entityName: id.entityName });

function submit(engine: LedgerEngine, actAs: string[], commands: EngineCommand[], disclose: string[] = [], userId = 'test-token-v2-seed'): TransactionRecord {
  const s: Submission = {
    userId,
    actAs,
    readAs: [],
    commandId: `test-token-v2-${engine.ids.uuid()}`,
    workflowId: '',
    submissionId: engine.ids.uuid(),
    commands,
    disclosedContracts: disclose.map((cid) => {
      const c = engine.contracts.getActive(cid);
      if (!c) throw new Error(`contract ${cid} is not active`);
      return { contractId: cid, createdEventBlob: c.blob, synchronizerId: c.synchronizerId };
    }),
  };
  return engine.commands.submit(s);
}

function rootResult(tx: TransactionRecord): unknown {
  const root = tx.nodes[0];
  if (!root || root.kind !== 'exercise') throw new Error('expected an exercise at the root of the transaction');
  return root.exerciseResult;
}

function activeOf(engine: LedgerEngine, party: string, id: QualifiedId) {
  const end = engine.ledgerEnd();
  return engine.contracts.activeAt(end, end, new Set([party]), new Set([nameKey(id)]));
}

/** The admin's TokenRules contract ids (the registry expects exactly one). */
export function findTestTokenV2Rules(engine: LedgerEngine, admin: string): string[] {
  return activeOf(engine, admin, TestTokenV2Ids.TokenRules)
    .filter((c) => (c.payload as { admin: string }).admin === admin)
    .map((c) => c.contractId);
}

/** Creates `TokenRules{admin}` (as the admin); returns its contract id. */
export function createTestTokenV2Rules(engine: LedgerEngine, admin: string): string {
  const tx = submit(engine, [admin], [{ kind: 'create', template: refOf(TestTokenV2Ids.TokenRules), createArguments: { admin } }]);
  const node = tx.nodes[0];
  if (!node || node.kind !== 'create') throw new Error('expected a create');
  return node.contract.contractId;
}

/**
 * Opens a provider account the way the reference registry does (`makeAccountIfMissing`): the
 * provider proposes an AccountConfig, the owner accepts (an account without owner: the provider
 * creates it). Returns the AccountConfig contract id.
 */
export function createTestTokenV2Account(
  engine: LedgerEngine,
  opts: { admin: string; owner: string | null; provider: string; id?: string; ownerConfig?: PartyConfig; providerConfig?: PartyConfig },
): string {
  const config: AccountConfig = {
    admin: opts.admin,
    account: { owner: opts.owner, provider: opts.provider, id: opts.id ?? '' },
    ownerConfig: opts.ownerConfig ?? { canInitiate: true, mustApprove: true },
    providerConfig: opts.providerConfig ?? { canInitiate: true, mustApprove: true },
  };
  if (opts.owner === null) {
    // an account without owner (CIP-112 special account): the provider, its only signatory, creates it
    const created = submit(engine, [opts.provider], [{ kind: 'create', template: refOf(TestTokenV2Ids.AccountConfig), createArguments: config }]);
    const node = created.nodes[0];
    if (!node || node.kind !== 'create') throw new Error('expected a create');
    return node.contract.contractId;
  }
  const owner = opts.owner;
  const proposal = submit(engine, [opts.provider], [{ kind: 'create', template: refOf(TestTokenV2Ids.AccountProposal), createArguments: { config } }]);
  const node = proposal.nodes[0];
  if (!node || node.kind !== 'create') throw new Error('expected a create');
  const accepted = submit(engine, [owner], [
    { kind: 'exercise', template: refOf(TestTokenV2Ids.AccountProposal), contractId: node.contract.contractId, choice: 'AccountProposal_Accept', choiceArgument: {} },
  ]);
  return (rootResult(accepted) as { accountConfig: string }).accountConfig;
}

/** The AccountConfig contract of a provider account, if one exists. */
export function findTestTokenV2AccountConfig(engine: LedgerEngine, admin: string, account: Account): string | undefined {
  return activeOf(engine, admin, TestTokenV2Ids.AccountConfig).find((c) => {
    const p = c.payload as AccountConfig;
    return p.admin === admin && p.account.owner === account.owner && p.account.provider === account.provider && p.account.id === account.id;
  })?.contractId;
}

export interface OfferMintTestTokenV2Options {
  admin: string;
  tokenRulesCid: string;
  /** The receiving account with its configuration (`receiverConfig.account` is the receiver). */
  receiverConfig: AccountConfig;
  instrumentId: string;
  amount: string | number;
  /** The ledger user the submission is recorded under. */
  userId?: string;
}

/**
 * `TokenRules_OfferMint` as the admin, offered at ledger time: the offer the receiving account's
 * parties accept to receive the minted tokens. Returns the offer and the transaction that made it.
 */
export function offerMintTestTokenV2(engine: LedgerEngine, opts: OfferMintTestTokenV2Options): { offerCid: string; updateId: string; offset: number } {
  const tx = submit(
    engine,
    [opts.admin],
    [
      {
        kind: 'exercise',
        template: refOf(TestTokenV2Ids.TokenRules),
        contractId: opts.tokenRulesCid,
        choice: 'TokenRules_OfferMint',
        choiceArgument: {
          receiver: opts.receiverConfig.account,
          amount: pDecimal(opts.amount, 'amount'),
          instrumentId: { admin: opts.admin, id: opts.instrumentId },
          offeredAt: formatTime(engine.clock.nowMicros()),
          receiverConfig: opts.receiverConfig,
        },
      },
    ],
    [],
    opts.userId,
  );
  const { offerCid } = rootResult(tx) as { offerCid: string };
  return { offerCid, updateId: tx.updateId, offset: tx.offset };
}

export interface MintTestTokenV2Options {
  admin: string;
  /** The owner of a basic account; or give `account` for a provider account (it needs an AccountConfig). */
  owner?: string;
  account?: Account;
  /** Instrument id text, e.g. "X2" (the instrument is `{admin, id}`). */
  instrumentId: string;
  amount: string | number;
  /** Defaults to the admin's single TokenRules contract. */
  tokenRulesCid?: string;
}

/**
 * Mints like the reference registry (`TestTokenV2_RegistryV2.daml`): the admin exercises `TokenRules_OfferMint`,
 * then the receiving account's parties accept the offer through V2 `TransferInstruction_Accept`
 * (with TokenRules as a disclosed contract and the registry's choice context). Returns the
 * minted Token's contract id.
 */
export function mintTestTokenV2(engine: LedgerEngine, opts: MintTestTokenV2Options): string {
  const account = opts.account ?? (opts.owner !== undefined ? basicAccount(opts.owner) : undefined);
  if (!account || account.owner === null) throw new Error('mintTestTokenV2: give `owner` or an `account` with an owner');
  const rules = opts.tokenRulesCid ?? findTestTokenV2Rules(engine, opts.admin)[0];
  if (!rules) throw new Error(`mintTestTokenV2: no TokenRules of ${opts.admin}; create one with createTestTokenV2Rules`);
  let receiverConfig: AccountConfig = basicAccountConfig(opts.admin, account);
  const configCids: string[] = [];
  if (account.provider !== null) {
    const cid = findTestTokenV2AccountConfig(engine, opts.admin, account);
    if (!cid) throw new Error('mintTestTokenV2: the provider account has no AccountConfig; create one with createTestTokenV2Account');
    receiverConfig = engine.contracts.getActive(cid)!.payload as AccountConfig;
    configCids.push(cid);
  }
  const { offerCid } = offerMintTestTokenV2(engine, { admin: opts.admin, tokenRulesCid: rules, receiverConfig, instrumentId: opts.instrumentId, amount: opts.amount });
  const actors = accountParties(opts.admin, account);
  const acceptTx = submit(
    engine,
    actors,
    [
      {
        kind: 'exercise',
        template: { package: { name: 'splice-api-token-transfer-instruction-v2' }, moduleName: 'Splice.Api.Token.TransferInstructionV2', entityName: 'TransferInstruction' },
        contractId: offerCid,
        choice: 'TransferInstruction_Accept',
        choiceArgument: { actors, extraArgs: { context: testTokenV2ChoiceContext(rules, configCids), meta: { values: {} } } },
      },
    ],
    [rules],
  );
  const result = rootResult(acceptTx) as { output: { tag: string; value: { receiverHoldingCids?: string[] } } };
  const cid = result.output.value.receiverHoldingCids?.[0];
  if (result.output.tag !== 'TransferInstructionResult_Completed' || !cid) throw new Error(`mintTestTokenV2: the mint offer was not completed (${result.output.tag})`);
  return cid;
}
