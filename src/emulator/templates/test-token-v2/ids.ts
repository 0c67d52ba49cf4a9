/**
 * Identifiers of `splice-test-token-v2` (package id from the DAR
 * in canton-network/splice `daml/dars` @f819bd6f) and the registry-private choice-context keys (`TestTokenV2_RegistryV2.daml`).
 */
import type { FetchedContract, UpdateContext } from '../../participant/templates.js';
import { nameKey, type LfValue, type QualifiedId } from '../../participant/types.js';
import type { InterfaceDef } from '../../participant/templates.js';
import { fail } from './utils.js';

export const TEST_TOKEN_V2_PACKAGE_ID = 'a38a96b6f46c14c599b2763bc4fc68911a9cada90f89c599a1401e8e3df685e1';
export const TEST_TOKEN_V2_PACKAGE_NAME = 'splice-test-token-v2';

const tid = (moduleName: string, entityName: string): QualifiedId => ({
  packageId: TEST_TOKEN_V2_PACKAGE_ID,
  packageName: TEST_TOKEN_V2_PACKAGE_NAME,
  moduleName,
  entityName,
});

const M = 'Splice.Testing.Tokens.TestTokenV2';
/** The template ids of `splice-test-token-v2`, one per Daml module as in the package. */
export const TestTokenV2Ids = {
  TokenRules: tid(M, 'TokenRules'),
  Token: tid(`${M}.Holding`, 'Token'),
  TokenTransferOffer: tid(`${M}.Transfer`, 'TokenTransferOffer'),
  TokenAllocationInstructionV2: tid(`${M}.Allocation`, 'TokenAllocationInstructionV2'),
  TokenAllocationV2: tid(`${M}.Allocation`, 'TokenAllocationV2'),
  TokenAllocationInstructionV1: tid(`${M}.Allocation`, 'TokenAllocationInstructionV1'),
  TokenAllocationV1: tid(`${M}.Allocation`, 'TokenAllocationV1'),
  AccountConfig: tid(`${M}.AccountConfig`, 'AccountConfig'),
  AccountProposal: tid(`${M}.AccountConfig`, 'AccountProposal'),
} as const;

/** Context key holding the TokenRules contract (it is also the EventLog). */
export const TOKEN_RULES_CONTEXT_KEY = 'testTokenV2/tokenRules';
/** Context key holding the AccountConfig contracts of the provider accounts involved. */
export const ACCOUNT_CONFIGS_CONTEXT_KEY = 'testTokenV2/accountConfigs';

/**
 * Interface views of this package's templates, by template name key and interface name key.
 * Choice bodies that `view <$> fetch cid` (e.g. the AccountConfig authority transfers, batch
 * settlement) need the view of a contract given only its id; each template module registers its
 * views here when it is defined, which avoids import cycles between the modules.
 */
const views = new Map<string, (payload: LfValue) => unknown>();

/**
 * `P` is `template`'s payload type: fetchView looks a view up by the fetched contract's template,
 * so it only ever gets the payload of a `template` contract, stored as its parsePayload returned it.
 */
export function registerView<P>(template: QualifiedId, iface: InterfaceDef, view: (payload: P) => unknown): void {
  views.set(`${nameKey(template)}|${nameKey(iface.id)}`, (payload) => view(payload as P));
}

/** `view <$> fetch @I cid` for a contract of this package. */
export function fetchView<V>(ctx: UpdateContext, cid: string, iface: InterfaceDef): { contract: FetchedContract; view: V } {
  const contract = ctx.fetch(cid, iface.id);
  const view = views.get(`${nameKey(contract.templateId)}|${nameKey(iface.id)}`);
  if (!view) {
    // The emulator computes interface views only for the native templates it knows; a contract of
    // another package cannot take part in a TestTokenV2 workflow anyway (its admin differs).
    return fail(ctx, `Contract ${cid} of template ${nameKey(contract.templateId)} is not a TestTokenV2 contract; its ${iface.id.entityName} view is not available here`);
  }
  return { contract, view: view(contract.payload) as V };
}
