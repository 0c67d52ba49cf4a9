/**
 * TestTokenV1 (`splice-test-token-v1`, module `Splice.Testing.Tokens.TestTokenV1`): the minimal
 * V1-only reference token of the Splice token standard, as native emulator templates
 * (Splice `token-standard/examples/splice-test-token-v1/`; behaviour, checks, results and messages follow the Daml code
 * at splice main @f819bd6f):
 *  - `Token { holding : HoldingV1.HoldingView }`: an unlocked holding (signatories owner + admin);
 *  - `TokenTransferOffer { transfer }`: a pending transfer; also a *locked* V1 Holding of the sender;
 *  - `TokenAllocation { allocation }`: an allocation; also a locked V1 Holding of the sender;
 *  - `TokenRules { admin }`: the V1 TransferFactory and AllocationFactory (no observers: a sender
 *    must pass it as a disclosed contract, which is what the registry's factory endpoints hand out).
 *
 * LIMITATIONS (deviations from the reference token, and why):
 *  1. `TransferInstruction_Accept` fails once `transfer.executeBefore` has passed
 *     (`stdlib.daml.com/deadline-exceeded`, "Ledger time is at or past deadline
 *     'Transfer.executeBefore' …"). The Daml token does not check it; the interface
 *     says registries SHOULD NOT execute a transfer after `executeBefore`, so that senders can
 *     safely retry after it. Reject and Withdraw stay possible after the deadline (they only
 *     return the funds to the sender).
 *  2. `TransferFactory_PublicFetch` and `AllocationFactory_PublicFetch` check `expectedAdmin`
 *     (same message as the Transfer/Allocate check). The Daml token returns the view without the
 *     check; the interface says implementations MUST validate it.
 *  3. (none: deadline failures report DA.Assert's `deadline` metadata in the error's context,
 *     next to the real message, error id and category.)
 *  4. No Daml-LF evaluation: a holding of another template can fund a transfer only if that
 *     template is registered with a HoldingV1 view (as in Daml, where any Holding is accepted).
 * Everything else (including the AllocationInstruction V1 interface, which TestTokenV1 does not
 * implement: allocations complete immediately) is as in the reference token.
 */
import type { LedgerEngine } from '../../participant/engine.js';
import type { TemplateRegistry } from '../../participant/templates.js';
import type { LfValue, QualifiedId } from '../../participant/types.js';
import { nameKey } from '../../participant/types.js';
import type { EngineCommand, Submission } from '../../participant/commands.js';
import { registerTokenStandardInterfaces } from '../token-standard.js';
import { decimalText } from './values.js';
import { TEST_TOKEN_V1_MODULE, TEST_TOKEN_V1_PACKAGE_NAME, TestTokenV1Ids, testTokenV1Templates, tokenPayload } from './templates.js';

export {
  TEST_TOKEN_V1_MODULE,
  TEST_TOKEN_V1_PACKAGE_ID,
  TEST_TOKEN_V1_PACKAGE_NAME,
  TestTokenV1Ids,
  allocationHoldingView,
  transferHoldingView,
  type TokenAllocationPayload,
  type TokenPayload,
  type TokenRulesPayload,
  type TokenTransferOfferPayload,
} from './templates.js';
export type { AllocationSpecification, HoldingView, InstrumentId, Lock, SettlementInfo, Transfer, TransferLeg } from './values.js';

/** `#splice-test-token-v1:Splice.Testing.Tokens.TestTokenV1:<entity>`: the by-name template id clients use. */
export function testTokenV1TemplateId(entity: keyof typeof TestTokenV1Ids): string {
  return `#${TEST_TOKEN_V1_PACKAGE_NAME}:${TEST_TOKEN_V1_MODULE}:${entity}`;
}

/**
 * Registers the token-standard interfaces and TestTokenV1's four templates. Idempotent: a second
 * call on the same registry does nothing (re-registering would list the templates twice as
 * implementors of their interfaces).
 */
export function registerTestTokenV1(templates: TemplateRegistry): void {
  if (templates.templateByNameKey(nameKey(TestTokenV1Ids.Token))) return;
  registerTokenStandardInterfaces(templates);
  for (const def of testTokenV1Templates(templates)) templates.register(def);
}

const ensureRegistered = (engine: LedgerEngine): void => registerTestTokenV1(engine.templates);

export interface SubmitOptions {
  /** The user id recorded on the transaction (default `test-token-v1`). */
  userId?: string;
  commandId?: string;
}

/** Submits one command through the participant's command service (the path HTTP commands take). */
function submitOne(engine: LedgerEngine, actAs: string[], command: EngineCommand, opts: SubmitOptions = {}) {
  const s: Submission = {
    userId: opts.userId ?? 'test-token-v1',
    actAs,
    readAs: [],
    commandId: opts.commandId ?? engine.ids.uuid(),
    workflowId: '',
    submissionId: engine.ids.uuid(),
    commands: [command],
    disclosedContracts: [],
  };
  return engine.commands.submit(s);
}

function createCommand(id: QualifiedId, createArguments: LfValue): EngineCommand {
  return {
    kind: 'create',
    template: { package: { name: id.packageName }, moduleName: id.moduleName, entityName: id.entityName },
    createArguments,
  };
}

function createdCid(tx: ReturnType<typeof submitOne>): string {
  const node = tx.nodes.find((n) => n.kind === 'create');
  if (!node || node.kind !== 'create') throw new Error('expected a create node');
  return node.contract.contractId;
}

/**
 * Creates `TokenRules { admin }` (what the reference registry does at initialisation,
 * `TestTokenV1_RegistryV1.daml`), acting as `admin`; returns its contract id.
 */
export function createTestTokenV1Rules(engine: LedgerEngine, admin: string, opts: SubmitOptions = {}): string {
  ensureRegistered(engine);
  return createdCid(submitOne(engine, [admin], createCommand(TestTokenV1Ids.TokenRules, { admin }), opts));
}

export interface MintTestTokenV1 {
  /** Instrument admin (the registry party). */
  admin: string;
  owner: string;
  /** Instrument id text (`InstrumentId.id`); the reference tests use "X1". */
  instrumentId: string;
  /** Decimal, e.g. "1000" or "12.5". */
  amount: string;
}

/**
 * Mints by creating an unlocked `Token` acting as owner and admin, as the reference registry's
 * test utility does (`actAs [user, admin]`, `TestTokenV1_RegistryV1.daml`); returns the Token's contract id.
 */
export function mintTestTokenV1(engine: LedgerEngine, args: MintTestTokenV1, opts: SubmitOptions = {}): string {
  ensureRegistered(engine);
  const payload = tokenPayload(args.owner, { admin: args.admin, id: args.instrumentId }, decimalText(args.amount, 'amount'));
  return createdCid(submitOne(engine, [...new Set([args.owner, args.admin])], createCommand(TestTokenV1Ids.Token, payload), opts));
}
