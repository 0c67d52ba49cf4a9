/**
 * Recipe for Splice's TestTokenV2 (`splice-test-token-v2`), answering as its Daml test registry
 * `TestTokenV2_RegistryV2` does (Splice `token-standard/splice-token-standard-v2-test/.../TestTokenV2_RegistryV2.daml`):
 *  - every factory (transfer v1/v2, allocation v1/v2, settlement v2) is the admin's single
 *    `TokenRules` contract;
 *  - every endpoint's context has the same two keys (so a context can be reused across choices):
 *      `testTokenV2/accountConfigs`: AV_List of AV_ContractId, one per involved account that has
 *        an AccountConfig (0 found: skipped, as always for basic accounts; more than 1: error),
 *      `testTokenV2/tokenRules`: AV_ContractId of TokenRules (also the EventLog);
 *    and discloses TokenRules, the included AccountConfigs and the per-endpoint extras that
 *    `TestTokenV2_RegistryV2` lists (the locked Tokens an instruction or allocation spends on behalf of a non-stakeholder);
 *  - the accounts involved per endpoint are those `TestTokenV2_RegistryV2` names; V1 arguments are upcast as the
 *    token's V1 adapters do (`Splice.TokenStandard.Utils`): a party becomes a basic account unless the
 *    `cip-112/<field>.provider` / `cip-112/<field>.id` meta keys name a provider account;
 *  - transferKind (the Daml registry does not compute it): `self` when the factory call
 *    completes at once, i.e. the actors (with the authority an AccountConfig lets them use) cover
 *    both the sender's and the receiver's account parties (e.g. sender account == receiver
 *    account); otherwise `offer`. TestTokenV2 has no pre-approvals, so never `direct`.
 * Pre-checks beyond the service's (a 400 instead of a failed submission, never stricter than the
 * token): the factory `actors` must be one of the groups the sender's (authorizer's) account allows
 * to initiate (`checkActors` on the initial state, `AccountConfig.daml`), checked only when that account's
 * configuration is known; a V2 transfer that would create an offer must not carry `cip-112/sender.*`
 * or `cip-112/receiver.*` meta keys (the offer's `isValidTransferV2` ensure).
 */
import { templateKey, type IndexedContract } from '../../contracts/indexed-contract.js';
import type { AnyValue } from '../../canton/lf-value.js';
import { badRequest, notFound, RegistryError } from '../errors.js';
import { isObject } from '../../canton/json-shape.js';
import type { AllocationAction, AllocationInstructionAction, ApiVersion, TransferInstructionAction } from '../api.js';
import type { ContextParts, ContractKind, ContractRequest, FactoryParts, Recipe, RecipeEnv, TransferFactoryParts } from './recipe.js';
import { contractIdValue, instrumentIdOf, UnsupportedOperation } from './recipe.js';

const PKG = 'splice-test-token-v2';
const M = 'Splice.Testing.Tokens.TestTokenV2';
/** `packageName:Module:Entity` of the templates the recipe reads (`TestTokenV2.daml` and its modules). */
export const TestTokenV2Templates = {
  TokenRules: `${PKG}:${M}:TokenRules`,
  Token: `${PKG}:${M}.Holding:Token`,
  TokenTransferOffer: `${PKG}:${M}.Transfer:TokenTransferOffer`,
  TokenAllocationInstructionV2: `${PKG}:${M}.Allocation:TokenAllocationInstructionV2`,
  TokenAllocationInstructionV1: `${PKG}:${M}.Allocation:TokenAllocationInstructionV1`,
  TokenAllocationV2: `${PKG}:${M}.Allocation:TokenAllocationV2`,
  TokenAllocationV1: `${PKG}:${M}.Allocation:TokenAllocationV1`,
  AccountConfig: `${PKG}:${M}.AccountConfig:AccountConfig`,
} as const;
const T = TestTokenV2Templates;

/** The registry-private choice-context keys of TestTokenV2 (`TestTokenV2_RegistryV2.daml`). */
export const TEST_TOKEN_V2_ACCOUNT_CONFIGS_KEY = 'testTokenV2/accountConfigs';
export const TEST_TOKEN_V2_TOKEN_RULES_KEY = 'testTokenV2/tokenRules';

// ---- accounts (HoldingV2.Account) and their configurations ---------------------------------------

interface Account {
  owner: string | null;
  provider: string | null;
  id: string;
}
interface PartyConfig {
  canInitiate: boolean;
  mustApprove: boolean;
}
interface AccountConfig {
  admin: string;
  account: Account;
  ownerConfig: PartyConfig;
  providerConfig: PartyConfig;
}

type Meta = Record<string, string>;

const accountKey = (a: Account) => JSON.stringify([a.owner, a.provider, a.id]);
const showAccount = (a: Account) => `{owner: ${a.owner ?? 'None'}, provider: ${a.provider ?? 'None'}, id: "${a.id}"}`;

/** An account as wallets send it (owner/provider may be missing; missing means None). */
function toAccount(raw: unknown): Account {
  const a = (raw ?? {}) as { owner?: string | null; provider?: string | null; id?: string };
  return { owner: a.owner ?? null, provider: a.provider ?? null, id: a.id ?? '' };
}

/** The V1 owner stub of special accounts (owner = None), from `Splice.TokenStandard.Utils`. */
const NO_OWNER_STUB = 'cip-112_no-owner::1220000000000000000000000000000000000000000000000000000000000000abcd';

/** `accountFromMeta`: the V2 account of a V1 party, from the `cip-112/<field>.*` meta keys (`Splice.TokenStandard.Utils`). */
function accountFromMeta(owner: string, field: string, meta: Meta): Account {
  return {
    owner: owner === NO_OWNER_STUB ? null : owner,
    provider: meta[`cip-112/${field}.provider`] ?? null,
    id: meta[`cip-112/${field}.id`] ?? '',
  };
}
const metaOf = (m: unknown): Meta => ((m as { values?: Meta } | undefined)?.values ?? {}) as Meta;

/** `accountParties admin acc`: the principal (owner, or the admin for special accounts), plus a distinct provider. */
function accountParties(admin: string, a: Account): string[] {
  const principal = a.owner ?? admin;
  return a.provider !== null && a.provider !== principal ? [principal, a.provider] : [principal];
}

/** The implicit configuration of a basic account (`AccountConfig.daml`): the owner initiates and approves alone. */
const basicConfig = (admin: string, account: Account): AccountConfig => ({
  admin,
  account,
  ownerConfig: { canInitiate: true, mustApprove: true },
  providerConfig: { canInitiate: false, mustApprove: false },
});

const sortGroups = (gs: string[][]): string[][] => {
  const norm = gs.map((g) => [...new Set(g)].sort());
  const keys = new Set<string>();
  return norm.filter((g) => (keys.has(g.join('\u0000')) ? false : (keys.add(g.join('\u0000')), true))).sort((a, b) => (a.join('\u0000') < b.join('\u0000') ? -1 : 1));
};

/**
 * The groups of parties that may take the first step of an account-authorised action (`nextActors'`
 * with nothing authorised yet, `AccountConfig.daml`): the owner alone or the provider alone if allowed to initiate,
 * or all the account's parties together.
 */
function initiatorGroups(admin: string, config: AccountConfig): string[][] {
  const missing = accountParties(admin, config.account);
  const { owner, provider } = config.account;
  const groups: string[][] = [];
  if (owner !== null && missing.includes(owner) && config.ownerConfig.canInitiate) groups.push([owner]);
  if (provider !== null && missing.includes(provider) && config.providerConfig.canInitiate) groups.push([provider]);
  groups.push(missing);
  return sortGroups(groups);
}

/** `authorizationTransfers` (`AccountConfig.daml`): (p, q) when p can initiate and q, the other party, need not approve. */
function authorizationTransfers(config: AccountConfig): Array<[string, string]> {
  const { owner, provider } = config.account;
  if (owner === null || provider === null) return [];
  const cs: Array<[string, PartyConfig]> = [
    [owner, config.ownerConfig],
    [provider, config.providerConfig],
  ];
  const out: Array<[string, string]> = [];
  for (const [p, pc] of cs) for (const [q, qc] of cs) if (p !== q && pc.canInitiate && !qc.mustApprove) out.push([p, q]);
  return out;
}

// ---- payloads of the per-contract objects ----------------------------------------------------------

interface TransferV2 {
  sender: Account;
  receiver: Account;
  instrumentId: { admin: string; id: string };
  inputHoldingCids: string[];
}
interface OfferPayload {
  transfer: TransferV2;
  actionAuthorizers: Array<[{ tag: string }, string[]]>;
}
interface TransferLegSide {
  transferLegId: string;
  side: 'SenderSide' | 'ReceiverSide';
  otherside: Account;
  instrumentId: string;
}
interface AllocationSpecification {
  admin: string;
  authorizer: Account;
  transferLegSides: TransferLegSide[];
  nextIterationFunding: Record<string, string> | null;
}
interface InstructionV2Payload {
  admin: string;
  allocation: AllocationSpecification;
}
interface AllocationV2Payload {
  allocation: AllocationSpecification;
  lockedTokens: Record<string, string[]>;
}

const isInstruction = (key: string) => key === T.TokenAllocationInstructionV2 || key === T.TokenAllocationInstructionV1;
const isAllocation = (key: string) => key === T.TokenAllocationV2 || key === T.TokenAllocationV1;
const keyOf = (c: IndexedContract) => templateKey(c.packageName, c.templateId);

// The ledger gives a payload as the LF JSON of its template's record, so its shape is that of the
// interfaces above. The guards check only what the recipe dereferences (a few typeof tests per
// request), so that a payload of a package version the recipe does not know fails as an internal
// error naming the contract (for instrumentOf: as a contract of no known instrument), not as a
// TypeError somewhere in a context computation.
const isAccountConfig = (p: unknown): p is AccountConfig =>
  isObject(p) && typeof p.admin === 'string' && isObject(p.account) && isObject(p.ownerConfig) && isObject(p.providerConfig);
const isOffer = (p: unknown): p is OfferPayload =>
  isObject(p) &&
  Array.isArray(p.actionAuthorizers) &&
  isObject(p.transfer) &&
  isObject(p.transfer.sender) &&
  isObject(p.transfer.receiver) &&
  Array.isArray(p.transfer.inputHoldingCids);
const isAllocationSpecification = (a: unknown): a is AllocationSpecification =>
  isObject(a) && typeof a.admin === 'string' && isObject(a.authorizer) && Array.isArray(a.transferLegSides);
const isInstructionV2 = (p: unknown): p is InstructionV2Payload => isObject(p) && typeof p.admin === 'string' && isAllocationSpecification(p.allocation);
const isAllocationV2 = (p: unknown): p is AllocationV2Payload => isObject(p) && isAllocationSpecification(p.allocation) && isObject(p.lockedTokens);

/** `v` (a contract's payload or a part of it) once `is` accepts it; else the internal error of a contract the recipe cannot read. */
function readAs<P>(c: IndexedContract, v: unknown, is: (v: unknown) => v is P): P {
  if (!is(v)) throw new RegistryError('INTERNAL', `Contract ${c.contractId} (${c.templateId}) does not have the payload ${PKG} expects of its template`);
  return v;
}

/** The V2 instruction record of a TokenAllocationInstructionV2, or of the V1 wrapper (`instrV2`); unchecked. */
const instructionRecord = (c: IndexedContract): unknown => (keyOf(c) === T.TokenAllocationInstructionV1 ? c.payload.instrV2 : c.payload);
/** The V2 allocation record of a TokenAllocationV2, or of the V1 wrapper (`allocationV2`); unchecked. */
const allocationRecord = (c: IndexedContract): unknown => (keyOf(c) === T.TokenAllocationV1 ? c.payload.allocationV2 : c.payload);

/** An allocation's instrument (multi-instrument in V2): that of its first leg side, else of its funding. */
function firstInstrument(a: AllocationSpecification, locked: Record<string, string[]> = {}): string | undefined {
  return a.transferLegSides[0]?.instrumentId ?? Object.keys(a.nextIterationFunding ?? {})[0] ?? Object.keys(locked)[0];
}

/** The locked Tokens of an allocation, in the order of its view's `holdingCids` (TextMap key order). */
const lockedTokenCids = (a: AllocationV2Payload): string[] =>
  Object.keys(a.lockedTokens)
    .sort()
    .flatMap((k) => a.lockedTokens[k]!);

/** The leg's sender and receiver accounts of each leg side of an allocation (`transferLegFromSide`). */
function legAccounts(a: AllocationSpecification): Account[] {
  return a.transferLegSides.flatMap((s) => (s.side === 'SenderSide' ? [a.authorizer, s.otherside] : [s.otherside, a.authorizer]));
}

// ---- the recipe --------------------------------------------------------------------------------------

export class TestTokenV2Recipe implements Recipe {
  readonly name = PKG;
  /** TestTokenV2 implements the V2 APIs and, through the Splice.TokenStandard.Utils adapters, the V1 APIs (`TestTokenV2.daml`). */
  readonly supportedApis = {
    'splice-api-token-metadata-v1': 1,
    'splice-api-token-holding-v1': 1,
    'splice-api-token-holding-v2': 1,
    'splice-api-token-transfer-instruction-v1': 1,
    'splice-api-token-transfer-instruction-v2': 1,
    'splice-api-token-allocation-v1': 1,
    'splice-api-token-allocation-v2': 1,
    'splice-api-token-allocation-instruction-v1': 1,
    'splice-api-token-allocation-instruction-v2': 1,
  };
  readonly indexedTemplates = [`#${T.TokenRules}`, `#${T.AccountConfig}`];
  readonly cachedTemplates = [
    `#${T.TokenTransferOffer}`,
    `#${T.TokenAllocationInstructionV2}`,
    `#${T.TokenAllocationInstructionV1}`,
    `#${T.TokenAllocationV2}`,
    `#${T.TokenAllocationV1}`,
    `#${T.Token}`,
  ];

  kindOf(c: IndexedContract): ContractKind | undefined {
    const key = keyOf(c);
    if (key === T.TokenTransferOffer) return 'transfer-instruction';
    if (isInstruction(key)) return 'allocation-instruction';
    if (isAllocation(key)) return 'allocation';
    return undefined;
  }

  instrumentOf(c: IndexedContract): { admin: string; id: string } | undefined {
    const key = keyOf(c);
    if (key === T.TokenTransferOffer) {
      const t = c.payload.transfer;
      return isObject(t) ? instrumentIdOf(t.instrumentId) : undefined;
    }
    if (isInstruction(key)) {
      const i = instructionRecord(c);
      if (!isInstructionV2(i)) return undefined;
      const id = firstInstrument(i.allocation);
      return id === undefined ? undefined : { admin: i.admin, id };
    }
    if (isAllocation(key)) {
      const a = allocationRecord(c);
      if (!isAllocationV2(a)) return undefined;
      const id = firstInstrument(a.allocation, a.lockedTokens);
      return id === undefined ? undefined : { admin: a.allocation.admin, id };
    }
    return undefined;
  }

  // ---- factories ---------------------------------------------------------------------------------

  async transferFactory(version: ApiVersion, args: Record<string, unknown>, env: RecipeEnv): Promise<TransferFactoryParts> {
    const t = args.transfer as { sender: unknown; receiver: unknown; meta?: unknown };
    let sender: Account;
    let receiver: Account;
    let actors: string[];
    if (version === 1) {
      // V1 TransferFactory_Transfer runs the V2 body with actors = [transfer.sender] on the upcast transfer (`TestTokenV2.daml`)
      const meta = metaOf(t.meta);
      sender = accountFromMeta(t.sender as string, 'sender', meta);
      receiver = accountFromMeta(t.receiver as string, 'receiver', meta);
      actors = [t.sender as string];
    } else {
      sender = toAccount(t.sender);
      receiver = toAccount(t.receiver);
      actors = (args.actors as string[] | undefined) ?? [];
    }
    const configs = await this.configs(env, [sender, receiver]);
    this.checkInitiators(env, actors, sender, configs, version === 1 ? 'the V1 sender' : 'actors', 'initiate a transfer from');
    const kind = completesAtOnce(env.admin, sender, receiver, actors.length > 0 ? actors : [sender.owner ?? env.admin], configs) ? 'self' : 'offer';
    if (version === 2 && kind === 'offer') {
      const bad = Object.keys(metaOf(t.meta)).filter((k) => /^cip-112\/(sender|receiver)\.(provider|id)$/.test(k));
      if (bad.length > 0) {
        throw badRequest(`transfer.meta must not carry account metadata in a V2 transfer (${bad.join(', ')}): give the accounts in transfer.sender and transfer.receiver`);
      }
    }
    return { ...this.factory(env, configs, []), transferKind: kind };
  }

  async allocationFactory(version: ApiVersion, args: Record<string, unknown>, env: RecipeEnv): Promise<FactoryParts> {
    let authorizer: Account;
    let actors: string[];
    if (version === 1) {
      // V1 AllocationFactory_Allocate: authorizer = the upcast sender account, actors = [leg.sender] (`TestTokenV2.daml`)
      const leg = (args.allocation as { transferLeg: { sender: string; meta?: unknown } }).transferLeg;
      authorizer = accountFromMeta(leg.sender, 'sender', metaOf(leg.meta));
      actors = [leg.sender];
    } else {
      authorizer = toAccount((args.allocation as { authorizer: unknown }).authorizer);
      actors = (args.actors as string[] | undefined) ?? [];
    }
    const configs = await this.configs(env, [authorizer]);
    this.checkInitiators(env, actors, authorizer, configs, version === 1 ? 'the V1 sender' : 'actors', 'allocate from');
    return this.factory(env, configs, []);
  }

  async settlementFactory(args: Record<string, unknown>, env: RecipeEnv): Promise<FactoryParts> {
    const legs = (args.transferLegs as Array<{ sender: unknown; receiver: unknown }>) ?? [];
    const configs = await this.configs(
      env,
      legs.flatMap((l) => [toAccount(l.sender), toAccount(l.receiver)]),
    );
    // The settlement archives every allocation's locked Tokens on behalf of the executors, who are
    // not their stakeholders: disclose them (as `TestTokenV2_RegistryV2` does).
    const extras: IndexedContract[] = [];
    for (const { allocationCid } of (args.allocations as Array<{ allocationCid: string }>) ?? []) {
      if (!/^[0-9a-f]{2,}$/.test(allocationCid)) throw badRequest(`allocations: "${allocationCid}" is not a contract id`);
      const c = await env.index.getById(allocationCid);
      if (!c) throw notFound(`Allocation ${allocationCid} not found: it does not exist, is archived, or is not visible to the registry admin`);
      if (!isAllocation(keyOf(c))) throw badRequest(`Contract ${allocationCid} (${c.templateId}) is not a ${PKG} allocation`);
      const a = readAs(c, allocationRecord(c), isAllocationV2);
      if (a.allocation.admin !== env.admin) throw badRequest(`Allocation ${allocationCid} is for admin ${a.allocation.admin}, not this registry's (${env.admin})`);
      extras.push(...(await this.tokens(env, lockedTokenCids(a), `allocation ${allocationCid}`)));
    }
    return this.factory(env, configs, extras);
  }

  // ---- per-contract contexts -----------------------------------------------------------------------

  async transferInstructionContext(req: ContractRequest<TransferInstructionAction>, env: RecipeEnv): Promise<ContextParts> {
    const offer = readAs(req.contract, req.contract.payload, isOffer);
    const { sender, receiver } = offer.transfer;
    const configs = await this.configs(env, [sender, receiver]);
    // Before the sender's side is fully authorised (multi-party senders), the inputs are the
    // sender's own unlocked holdings and a withdraw does not touch them: do not insist on finding them.
    const acceptAuth = offer.actionAuthorizers.find(([a]) => a.tag === 'TIA_Accept')?.[1] ?? [];
    const senderAuthorised = accountParties(env.admin, sender).every((p) => acceptAuth.includes(p));
    const required = senderAuthorised || req.action !== 'withdraw';
    const extras = await this.tokens(env, offer.transfer.inputHoldingCids, `transfer instruction ${req.contract.contractId}`, required);
    return this.context(env, configs, extras);
  }

  async allocationInstructionContext(req: ContractRequest<AllocationInstructionAction>, env: RecipeEnv): Promise<ContextParts> {
    const instr = readAs(req.contract, instructionRecord(req.contract), isInstructionV2);
    return this.context(env, await this.configs(env, [instr.allocation.authorizer]), []);
  }

  async allocationContext(req: ContractRequest<AllocationAction>, env: RecipeEnv): Promise<ContextParts> {
    const c = req.contract;
    if (req.version === 1 && keyOf(c) === T.TokenAllocationV2) {
      throw new UnsupportedOperation(
        `Allocation ${c.contractId} is a V2 allocation (TokenAllocationV2), which does not implement the V1 Allocation interface; use /registry/allocations/v2`,
      );
    }
    const a = readAs(c, allocationRecord(c), isAllocationV2);
    const what = `allocation ${c.contractId}`;
    switch (req.action) {
      case 'withdraw':
        return this.context(env, await this.configs(env, [a.allocation.authorizer]), []);
      case 'cancel':
        // the executors cancel: they unlock Tokens they are not stakeholders of
        return this.context(env, await this.configs(env, [a.allocation.authorizer]), await this.tokens(env, lockedTokenCids(a), what));
      case 'execute-transfer':
        if (req.version !== 1) throw new UnsupportedOperation('execute-transfer is a V1 allocation choice; V2 allocations settle through the settlement factory');
        return this.context(env, await this.configs(env, legAccounts(a.allocation)), await this.tokens(env, lockedTokenCids(a), what));
    }
  }

  // ---- helpers -------------------------------------------------------------------------------------

  private rules(env: RecipeEnv): IndexedContract {
    const rules = env.index.find(T.TokenRules, (c) => c.payload.admin === env.admin);
    if (rules.length === 0) throw notFound(`No TokenRules contract of ${env.admin} found on the ledger (${PKG})`);
    if (rules.length > 1) {
      throw new RegistryError('INTERNAL', `Multiple TokenRules contracts of ${env.admin} found on the ledger (${PKG}): ${rules.map((r) => r.contractId).join(', ')}`);
    }
    return rules[0]!;
  }

  /**
   * The AccountConfig of each distinct account (`getAccountMapAndTokenRulesC`): found by account
   * among the admin's AccountConfigs; none is skipped (always so for basic accounts), several abort.
   */
  private async configs(env: RecipeEnv, accounts: Account[]): Promise<Map<string, { account: Account; contract?: IndexedContract }>> {
    const out = new Map<string, { account: Account; contract?: IndexedContract }>();
    let caughtUp = false;
    for (const account of accounts) {
      const k = accountKey(account);
      if (out.has(k)) continue;
      const lookup = () =>
        env.index.find(T.AccountConfig, (c) => c.payload.admin === env.admin && accountKey(toAccount(c.payload.account)) === k);
      let found = lookup();
      if (found.length === 0 && account.provider !== null && !caughtUp) {
        // A provider account always has an AccountConfig: if the index has none, it may have been
        // created a moment ago. Catch the index up to the ledger end once before answering.
        await env.index.catchUp();
        caughtUp = true;
        found = lookup();
      }
      if (found.length > 1) {
        throw new RegistryError('INTERNAL', `Multiple AccountConfig contracts for account ${showAccount(account)} found on the ledger (${PKG}): ${found.map((c) => c.contractId).join(', ')}`);
      }
      out.set(k, { account, contract: found[0] });
    }
    return out;
  }

  private factory(env: RecipeEnv, configs: Map<string, { contract?: IndexedContract }>, extras: IndexedContract[]): FactoryParts {
    const parts = this.context(env, configs, extras);
    return { ...parts, factory: parts.disclose[0]! };
  }

  /** The context every TestTokenV2 endpoint answers: TokenRules first, then the AccountConfigs, then the extras. */
  private context(env: RecipeEnv, configs: Map<string, { contract?: IndexedContract }>, extras: IndexedContract[]): ContextParts {
    const rules = this.rules(env);
    const configContracts = [...configs.values()].flatMap((e) => (e.contract ? [e.contract] : []));
    const values: Record<string, AnyValue> = {
      [TEST_TOKEN_V2_ACCOUNT_CONFIGS_KEY]: { tag: 'AV_List', value: configContracts.map((c) => contractIdValue(c.contractId)) },
      [TEST_TOKEN_V2_TOKEN_RULES_KEY]: contractIdValue(rules.contractId),
    };
    return { values, disclose: [rules, ...configContracts, ...extras] };
  }

  /** Tokens by id (cache, else one ledger lookup each); a missing one is a 404 unless not required. */
  private async tokens(env: RecipeEnv, cids: string[], of: string, required = true): Promise<IndexedContract[]> {
    const out: IndexedContract[] = [];
    for (const cid of cids) {
      const c = await env.index.getById(cid);
      if (!c || keyOf(c) !== T.Token) {
        if (!required) continue;
        throw notFound(`Holding ${cid} of ${of} not found: it is archived or not a ${PKG} Token visible to the registry admin`);
      }
      out.push(c);
    }
    return out;
  }

  /**
   * The factory's `checkActors` on the initial state (`AccountConfig.daml`): the actors must equal one of the
   * groups allowed to initiate for the account. Checked only when the account's configuration is
   * known (basic, or its AccountConfig is indexed), so that an index lag never rejects a valid call.
   */
  private checkInitiators(
    env: RecipeEnv,
    actors: string[],
    account: Account,
    configs: Map<string, { account: Account; contract?: IndexedContract }>,
    who: string,
    what: string,
  ): void {
    if (actors.length === 0) return;
    const config = configOf(env.admin, account, configs);
    if (!config) return;
    const groups = initiatorGroups(env.admin, config);
    const set = [...new Set(actors)].sort().join('\u0000');
    if (!groups.some((g) => g.join('\u0000') === set)) {
      throw badRequest(
        `${who} [${actors.join(', ')}] cannot ${what} account ${showAccount(account)}: ${PKG} requires exactly one of these groups: ${groups.map((g) => `[${g.join(', ')}]`).join(' or ')}`,
      );
    }
  }
}

/** The configuration of an account: implicit for basic accounts, else its AccountConfig if found. */
function configOf(admin: string, account: Account, configs: Map<string, { contract?: IndexedContract }>): AccountConfig | undefined {
  if (account.provider === null) return basicConfig(admin, account);
  const c = configs.get(accountKey(account))?.contract;
  return c ? readAs(c, c.payload, isAccountConfig) : undefined;
}

/**
 * Whether the factory call runs TIS_Init → Authorized → Accepted in one transaction (`TestTokenV2/Transfer.daml`): each
 * step needs all parties of its account (sender, then receiver) among the TIA_Accept authorisers,
 * which are the actors plus a party whose authority an AccountConfig lets them use (the
 * authority transfer that completes a Pending step, `AccountConfig.daml`).
 */
function completesAtOnce(
  admin: string,
  sender: Account,
  receiver: Account,
  actors: string[],
  configs: Map<string, { contract?: IndexedContract }>,
): boolean {
  const authorised = new Set(actors);
  for (const account of [sender, receiver]) {
    const missing = accountParties(admin, account).filter((p) => !authorised.has(p));
    if (missing.length === 0) continue;
    const config = account.provider === null ? undefined : configOf(admin, account, configs);
    if (config && missing.length === 1 && authorizationTransfers(config).some(([p, q]) => authorised.has(p) && q === missing[0])) {
      authorised.add(missing[0]!);
      continue;
    }
    return false;
  }
  return true;
}
