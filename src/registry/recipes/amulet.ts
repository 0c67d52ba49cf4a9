/**
 * Recipe for Canton Coin (Amulet, package `splice-amulet`), reproducing Splice Scan's registry
 * (Splice `apps/scan/.../scan/admin/http/HttpTokenStandard*Handler.scala`, `scan/util/ChoiceContextBuilder.scala`). Two
 * generations, chosen by the `compat` setting (config `amuletCompat` / env AMULET_REGISTRY_COMPAT):
 *
 * `current` (default; the newest Scan, which pairs with splice-amulet 0.1.22):
 *  - factory = the DSO's ExternalPartyAmuletRules (disclosed, not in the context);
 *  - the config state = the DSO's newest ExternalPartyConfigState (`lookupLatestExternalPartyConfigState`),
 *    under `external-party-config-state`, everywhere only when one exists;
 *  - transfer factory (v1, v2) and allocation factory v1: `amulet-rules` (AmuletRules), `open-round`
 *    (the latest *usable* OpenMiningRound: of exactly three consecutive open rounds, the newest whose
 *    `opensAt` has come; else 404 "No open usable OpenMiningRound found.") and the config state (Scan
 *    keeps the rules and round for informees that have not vetted the newer packages);
 *    transferKind `self` when sender == receiver; otherwise the receiver's TransferPreapproval
 *    (→ `transfer-preapproval`, plus the provider's FeaturedAppRight as `featured-app-right`) makes
 *    it `direct`; else `offer`. Disclosure order: AmuletRules, OpenMiningRound,
 *    [ExternalPartyConfigState], [FeaturedAppRight], [TransferPreapproval], ExternalPartyAmuletRules;
 *  - allocation factory v2 and settlement factory: only the config state;
 *  - transfer-instruction accept/reject/withdraw and allocation v1 execute-transfer/withdraw/cancel
 *    (`getTwoStepTransferContext`): the config state, `expire-lock: true` and (execute-transfer) the
 *    executor's `featured-app-right`, with the instruction's LockedAmulet disclosed; no rules, no
 *    round. When the LockedAmulet is gone (its lock expired and it was unlocked): accept /
 *    execute-transfer → 404 "LockedAmulet '…' not found for …, which expires on …"; reject /
 *    withdraw / cancel → only `{"expire-lock": false}` and no disclosures;
 *  - allocation v2 withdraw/cancel: the AmuletAllocationV2's LockedAmulet is optional (an allocation
 *    that needed no funding has none): with it `{"expire-lock": true}` and the LockedAmulet
 *    disclosed; without it, or when it is gone, only `{"expire-lock": false}`; no featuring (Scan:
 *    FARs will go with CIP-104). An allocation made through the V1 factory (AmuletAllocation) is
 *    accepted too: Scan looks up the V2 allocation, then falls back to V1 (its two-step context);
 *  - settlement factory: ExternalPartyAmuletRules (the factory) and every LockedAmulet backing the
 *    referenced allocations disclosed (the executor archives them but is not their stakeholder);
 *    each allocation is looked up as an AmuletAllocationV2, then as an AmuletAllocation; 404 for
 *    an unknown one.
 *
 * `legacy` (Scan releases before the config state, for wallets pinned to splice-amulet ≤ 0.1.17
 * packages): every context is built on `amulet-rules` + `open-round` (the two-step contexts add
 * them too, as `abortTwoStepTransfer` then read `open-round`), no config state anywhere, and no
 * V1 fallback (a V1 allocation answers only on /v1, a V2 one only on /v2).
 *
 * In both, Amulet creates no allocation instructions (their contexts: 400), a V2 allocation is a
 * 404 on /v1, and like Scan the recipe does not check amounts, deadlines or holdings (the service
 * pre-checks the token-standard arguments; the Daml choice does the rest). Transfer instructions
 * are served on V1 and V2 alike (v2: sender and receiver compared as whole accounts, the
 * pre-approval looked up by the receiver's owner).
 */
import { formatInstant, parseInstant } from '../../canton/clock.js';
import type { AnyValue } from '../../canton/lf-value.js';
import { templateKey, type IndexedContract } from '../../contracts/indexed-contract.js';
import { badRequest, notFound } from '../errors.js';
import type { AllocationAction, AllocationInstructionAction, ApiVersion, TransferInstructionAction } from '../api.js';
import type { InstrumentConfig } from '../instrument-config.js';
import type { ContextParts, ContractKind, ContractRequest, FactoryParts, Recipe, RecipeEnv, TransferFactoryParts } from './recipe.js';
import { contractIdValue, UnsupportedOperation, TOKEN_STANDARD_V1_APIS } from './recipe.js';
import type { AmuletRegistryCompat } from './amulet-compat.js';


const PKG = 'splice-amulet';
const T = {
  AmuletRules: `${PKG}:Splice.AmuletRules:AmuletRules`,
  TransferPreapproval: `${PKG}:Splice.AmuletRules:TransferPreapproval`,
  ExternalPartyAmuletRules: `${PKG}:Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules`,
  OpenMiningRound: `${PKG}:Splice.Round:OpenMiningRound`,
  FeaturedAppRight: `${PKG}:Splice.Amulet:FeaturedAppRight`,
  LockedAmulet: `${PKG}:Splice.Amulet:LockedAmulet`,
  AmuletTransferInstruction: `${PKG}:Splice.AmuletTransferInstruction:AmuletTransferInstruction`,
  AmuletAllocation: `${PKG}:Splice.AmuletAllocation:AmuletAllocation`,
  AmuletAllocationV2: `${PKG}:Splice.AmuletAllocationV2:AmuletAllocationV2`,
  ExternalPartyConfigState: `${PKG}:Splice.ExternalPartyConfigState:ExternalPartyConfigState`,
} as const;

/** `externalPartyConfigStateContextKey` (Splice.Amulet.TokenApiUtils). */
const CONFIG_STATE_KEY = 'external-party-config-state';

export const AMULET_RECIPE_NAME = PKG;

/** Minimum interval between the catch-ups an `offer` answer triggers (see transferFactory). */
const PREAPPROVAL_CATCH_UP_MS = 250;

/** The registry's instrument for Canton Coin, as Scan lists it (Splice `HttpTokenStandardMetadataHandler.scala`). */
export function amuletInstrumentConfig(overrides: Partial<InstrumentConfig> = {}): InstrumentConfig {
  return { id: 'Amulet', name: 'Canton Coin', symbol: 'CC', decimals: 10, recipe: PKG, ...overrides };
}

const boolValue = (b: boolean): AnyValue => ({ tag: 'AV_Bool', value: b });

interface Payload {
  dso?: string;
  receiver?: string;
  provider?: string;
  expiresAt?: string;
  opensAt?: string;
  round?: { number: string };
  targetArchiveAfter?: string;
}

/**
 * The V1 APIs plus the V2 ones the emulated Amulet implements: HoldingV2 views, TransferFactory
 * and TransferInstruction V2, AllocationFactory V2 (Amulet has no allocation instructions) and
 * Allocation / SettlementFactory V2. (Scan's 0.5 metadata listed only the V1 APIs.)
 */
const AMULET_APIS: Readonly<Record<string, number>> = {
  ...TOKEN_STANDARD_V1_APIS,
  'splice-api-token-holding-v2': 1,
  'splice-api-token-transfer-instruction-v2': 1,
  'splice-api-token-allocation-v2': 1,
  'splice-api-token-allocation-instruction-v2': 1,
};

export class AmuletRecipe implements Recipe {
  readonly name = PKG;
  readonly compat: AmuletRegistryCompat;

  readonly supportedApis: Readonly<Record<string, number>>;

  constructor(opts: { compat?: AmuletRegistryCompat } = {}) {
    this.compat = opts.compat ?? 'current';
    this.supportedApis = {
      ...AMULET_APIS,
      // Scan 0.7's instrument lists the V2 event log too (Splice 0.7.5 `HttpTokenStandardMetadataHandler`; the
      // emulated Amulet logs no EventLog_HoldingsChange, LIMITATIONS 3 of the Amulet templates)
      ...(this.compat === 'current' ? { 'splice-api-token-transfer-events-v2': 1 } : {}),
    };
  }

  readonly indexedTemplates = [T.AmuletRules, T.ExternalPartyAmuletRules, T.OpenMiningRound, T.ExternalPartyConfigState, T.TransferPreapproval, T.FeaturedAppRight].map(
    (t) => `#${t}`,
  );
  readonly cachedTemplates = [T.AmuletTransferInstruction, T.AmuletAllocation, T.AmuletAllocationV2, T.LockedAmulet].map((t) => `#${t}`);

  kindOf(c: IndexedContract): ContractKind | undefined {
    const key = templateKey(c.packageName, c.templateId);
    if (key === T.AmuletTransferInstruction) return 'transfer-instruction';
    if (key === T.AmuletAllocation || key === T.AmuletAllocationV2) return 'allocation';
    return undefined;
  }

  instrumentOf(c: IndexedContract): { admin: string; id: string } | undefined {
    const p = c.payload as {
      transfer?: { instrumentId?: { admin: string; id: string } };
      allocation?: { transferLeg?: { instrumentId?: { admin: string; id: string } }; admin?: string };
    };
    // a V2 allocation names only its admin: its legs are all of the one instrument Amulet has
    if (templateKey(c.packageName, c.templateId) === T.AmuletAllocationV2) return p.allocation?.admin === undefined ? undefined : { admin: p.allocation.admin, id: 'Amulet' };
    return p.transfer?.instrumentId ?? p.allocation?.transferLeg?.instrumentId;
  }

  async transferFactory(version: ApiVersion, args: Record<string, unknown>, env: RecipeEnv): Promise<TransferFactoryParts> {
    const base = this.rulesContext(env);
    const factory = this.factory(env);
    // v1: parties; v2: accounts, compared as whole records, the pre-approval looked up by owner
    type Account = { owner: string | null; provider: string | null; id: string };
    const transfer = args.transfer as { sender: string | Account; receiver: string | Account };
    const key = (a: string | Account) => (typeof a === 'string' ? a : JSON.stringify([a.owner, a.provider, a.id]));
    if (key(transfer.sender) === key(transfer.receiver)) {
      return { factory, values: base.values, disclose: [...base.disclose, factory], transferKind: 'self' };
    }
    const receiver = typeof transfer.receiver === 'string' ? transfer.receiver : transfer.receiver.owner;
    let preapproval = receiver === null ? undefined : this.preapprovalOf(env, receiver);
    if (!preapproval && receiver !== null) {
      // The pre-approval may have been created a moment ago: a wallet creates it, waits until
      // scan's `/v0/transfer-preapprovals/by-party` shows it (wallet-sdk `preapproval.fetchStatus`),
      // then transfers. In Splice, scan and its registry read one store, so the registry sees it
      // too; here the emulated scan reads the ledger directly while this index follows it with a
      // poll. Catch up (one ledger-end call and one update read) before answering `offer`, so
      // the two do not disagree; at most once per PREAPPROVAL_CATCH_UP_MS, so that a stream of
      // offer requests stays (almost) free of ledger calls.
      await env.index.catchUp({ skipIfCaughtUpWithinMs: PREAPPROVAL_CATCH_UP_MS });
      preapproval = this.preapprovalOf(env, receiver);
    }
    if (!preapproval) return { factory, values: base.values, disclose: [...base.disclose, factory], transferKind: 'offer' };
    const featured = this.featuredAppRightOf(env, (preapproval.payload as Payload).provider!);
    const values: Record<string, AnyValue> = { ...base.values, 'transfer-preapproval': contractIdValue(preapproval.contractId) };
    if (featured) values['featured-app-right'] = contractIdValue(featured.contractId);
    return {
      factory,
      values,
      disclose: [...base.disclose, ...(featured ? [featured] : []), preapproval, factory],
      transferKind: 'direct',
    };
  }

  async transferInstructionContext(req: ContractRequest<TransferInstructionAction>, env: RecipeEnv): Promise<ContextParts> {
    const p = req.contract.payload as { lockedAmulet: string; transfer: { executeBefore: string } };
    return this.twoStepContext(env, `AmuletTransferInstruction '${req.contract.contractId}'`, p.lockedAmulet, p.transfer.executeBefore, req.action === 'accept', undefined);
  }

  async allocationFactory(version: ApiVersion, _args: Record<string, unknown>, env: RecipeEnv): Promise<FactoryParts> {
    // the newest Scan's V2 factory needs only the config state (and no open round: no 404 without one)
    const base = this.compat === 'current' && version === 2 ? this.configStateContext(env) : this.rulesContext(env);
    const factory = this.factory(env);
    return { factory, values: base.values, disclose: [...base.disclose, factory] };
  }

  async allocationInstructionContext(_req: ContractRequest<AllocationInstructionAction>): Promise<ContextParts> {
    throw new UnsupportedOperation('Allocation instruction choice contexts are unsupported because amulet does not create allocation instructions.');
  }

  async allocationContext(req: ContractRequest<AllocationAction>, env: RecipeEnv): Promise<ContextParts> {
    const isV2 = templateKey(req.contract.packageName, req.contract.templateId) === T.AmuletAllocationV2;
    if (req.version === 2) {
      if (req.action === 'execute-transfer') throw new UnsupportedOperation('execute-transfer is a V1 allocation choice; V2 allocations settle through the settlement factory');
      if (isV2) return this.unlockV2Context(env, (req.contract.payload as { lockedAmulet: string | null }).lockedAmulet);
      // the newest Scan looks up the V2 allocation, then falls back to V1 (an allocation made
      // through the V1 factory), whose withdraw/cancel context is the V1 one
      if (this.compat === 'legacy') throw notFound(`AmuletAllocationV2 '${req.contract.contractId}' not found.`);
    } else if (isV2) {
      throw notFound(`AmuletAllocation '${req.contract.contractId}' not found.`);
    }
    const p = req.contract.payload as { lockedAmulet: string; allocation: { settlement: { settleBefore: string; executor: string } } };
    const execute = req.action === 'execute-transfer';
    return this.twoStepContext(
      env,
      `AmuletAllocation '${req.contract.contractId}'`,
      p.lockedAmulet,
      p.allocation.settlement.settleBefore,
      execute,
      execute ? p.allocation.settlement.executor : undefined,
    );
  }

  async settlementFactory(args: Record<string, unknown>, env: RecipeEnv): Promise<FactoryParts> {
    const base = this.compat === 'current' ? this.configStateContext(env) : this.rulesContext(env);
    const factory = this.factory(env);
    const locked: IndexedContract[] = [];
    for (const { allocationCid } of (args.allocations as Array<{ allocationCid: string }> | undefined) ?? []) {
      if (!/^[0-9a-f]{2,}$/.test(allocationCid)) throw badRequest(`allocations: "${allocationCid}" is not a contract id`);
      const backing = await this.settledAllocation(env, allocationCid);
      if (backing.lockedAmulet === null) continue;
      const l = await env.index.getById(backing.lockedAmulet);
      if (!l || templateKey(l.packageName, l.templateId) !== T.LockedAmulet) {
        const at = backing.expiresAt === null ? undefined : parseInstant(backing.expiresAt);
        throw notFound(
          `LockedAmulet 'Some(ContractId(${backing.lockedAmulet}))' not found for ${backing.template} '${allocationCid}', which expires on ${at === undefined ? 'None' : `Some(${formatInstant(at)})`}`,
        );
      }
      locked.push(l);
    }
    return { factory, values: base.values, disclose: [...base.disclose, factory, ...locked] };
  }

  /**
   * An allocation of this admin named in a settlement: an AmuletAllocationV2, else (current
   * Scan's fallback) a V1 AmuletAllocation; 404 naming the V2 template when it is neither.
   */
  private async settledAllocation(
    env: RecipeEnv,
    cid: string,
  ): Promise<{ template: 'AmuletAllocationV2' | 'AmuletAllocation'; lockedAmulet: string | null; expiresAt: string | null }> {
    const c = await env.index.getById(cid);
    const key = c === undefined ? undefined : templateKey(c.packageName, c.templateId);
    if (c && key === T.AmuletAllocationV2) {
      const p = c.payload as { lockedAmulet: string | null; expiresAt: string; allocation: { admin: string } };
      if (p.allocation.admin === env.admin) return { template: 'AmuletAllocationV2', lockedAmulet: p.lockedAmulet, expiresAt: p.expiresAt };
    }
    if (c && key === T.AmuletAllocation && this.compat === 'current') {
      const p = c.payload as { lockedAmulet: string; allocation: { settlement: { settleBefore: string }; transferLeg: { instrumentId: { admin: string } } } };
      if (p.allocation.transferLeg.instrumentId.admin === env.admin) {
        return { template: 'AmuletAllocation', lockedAmulet: p.lockedAmulet, expiresAt: p.allocation.settlement.settleBefore };
      }
    }
    throw notFound(`AmuletAllocationV2 '${cid}' not found.`);
  }

  // ---- lookups -------------------------------------------------------------------------------------

  /**
   * `getAmuletRulesTransferContext`: AmuletRules and the latest usable open round, then (current)
   * the newest ExternalPartyConfigState when there is one.
   */
  private rulesContext(env: RecipeEnv): ContextParts {
    const rules = this.single(env, T.AmuletRules, 'AmuletRules');
    const round = this.latestUsableOpenRound(env);
    if (!round) throw notFound('No open usable OpenMiningRound found.');
    const state = this.compat === 'current' ? this.latestConfigState(env) : undefined;
    const values: Record<string, AnyValue> = { 'amulet-rules': contractIdValue(rules.contractId), 'open-round': contractIdValue(round.contractId) };
    if (state) values[CONFIG_STATE_KEY] = contractIdValue(state.contractId);
    return { values, disclose: [rules, round, ...(state ? [state] : [])] };
  }

  /** Only the newest ExternalPartyConfigState, when there is one (the newest Scan's V2 contexts). */
  private configStateContext(env: RecipeEnv): ContextParts {
    const state = this.latestConfigState(env);
    return state ? { values: { [CONFIG_STATE_KEY]: contractIdValue(state.contractId) }, disclose: [state] } : { values: {}, disclose: [] };
  }

  /** `lookupLatestExternalPartyConfigState`: the DSO's config state lasting longest. */
  private latestConfigState(env: RecipeEnv): IndexedContract | undefined {
    const found = env.index.find(T.ExternalPartyConfigState, (c) => (c.payload as Payload).dso === env.admin);
    const until = (c: IndexedContract) => parseInstant((c.payload as Payload).targetArchiveAfter ?? '') ?? 0n;
    return found.reduce<IndexedContract | undefined>((a, b) => (a === undefined || until(b) > until(a) ? b : a), undefined);
  }

  private factory(env: RecipeEnv): IndexedContract {
    return this.single(env, T.ExternalPartyAmuletRules, 'ExternalPartyAmuletRules');
  }

  private single(env: RecipeEnv, key: string, what: string): IndexedContract {
    const found = env.index.find(key, (c) => (c.payload as Payload).dso === env.admin);
    if (found.length === 0) throw notFound(`No ${what} contract of ${env.admin} found on the ledger`);
    // Splice keeps one; during a rules update two may briefly coexist: the newest wins
    return found.reduce((a, b) => (b.createdAt > a.createdAt ? b : a));
  }

  /** MiningRoundsStore.lookupLatestUsableOpenMiningRound. */
  private latestUsableOpenRound(env: RecipeEnv): IndexedContract | undefined {
    const rounds = env.index
      .find(T.OpenMiningRound, (c) => (c.payload as Payload).dso === env.admin)
      .sort((a, b) => Number(BigInt((a.payload as Payload).round!.number) - BigInt((b.payload as Payload).round!.number)));
    if (rounds.length !== 3) return undefined;
    const n = rounds.map((r) => BigInt((r.payload as Payload).round!.number));
    if (n[0]! + 1n !== n[1] || n[1]! + 1n !== n[2]) return undefined;
    const now = env.nowMicros();
    return [...rounds].reverse().find((r) => (parseInstant((r.payload as Payload).opensAt!) ?? 0n) <= now);
  }

  /** The receiver's pre-approval still in force (the one lasting longest). */
  private preapprovalOf(env: RecipeEnv, receiver: string): IndexedContract | undefined {
    const now = env.nowMicros();
    const found = env.index.find(T.TransferPreapproval, (c) => {
      const p = c.payload as Payload;
      return p.dso === env.admin && p.receiver === receiver && (parseInstant(p.expiresAt!) ?? 0n) > now;
    });
    return found.sort((a, b) => Number((parseInstant((b.payload as Payload).expiresAt!) ?? 0n) - (parseInstant((a.payload as Payload).expiresAt!) ?? 0n)))[0];
  }

  private featuredAppRightOf(env: RecipeEnv, provider: string): IndexedContract | undefined {
    return env.index.find(T.FeaturedAppRight, (c) => (c.payload as Payload).dso === env.admin && (c.payload as Payload).provider === provider)[0];
  }

  /** V2 allocation withdraw/cancel: the optional LockedAmulet, released when still there. */
  private async unlockV2Context(env: RecipeEnv, lockedAmuletCid: string | null): Promise<ContextParts> {
    const locked = lockedAmuletCid === null ? undefined : await env.index.getById(lockedAmuletCid);
    if (!locked || templateKey(locked.packageName, locked.templateId) !== T.LockedAmulet) return { values: { 'expire-lock': boolValue(false) }, disclose: [] };
    return { values: { 'expire-lock': boolValue(true) }, disclose: [locked] };
  }

  /** `ChoiceContextBuilder.getTwoStepTransferContext`. */
  private async twoStepContext(
    env: RecipeEnv,
    description: string,
    lockedAmuletCid: string,
    expiresAt: string,
    requireLockedAmulet: boolean,
    featuredProvider: string | undefined,
  ): Promise<ContextParts> {
    const locked = await env.index.getById(lockedAmuletCid);
    // the newest Scan: the config state only; older releases: AmuletRules and the open round
    const base = this.compat === 'current' ? this.configStateContext(env) : this.rulesContext(env);
    const featured = featuredProvider === undefined ? undefined : this.featuredAppRightOf(env, featuredProvider);
    if (!locked || templateKey(locked.packageName, locked.templateId) !== T.LockedAmulet) {
      if (requireLockedAmulet) {
        const at = parseInstant(expiresAt);
        throw notFound(
          `LockedAmulet 'Some(ContractId(${lockedAmuletCid}))' not found for ${description}, which expires on ${at === undefined ? 'None' : `Some(${formatInstant(at)})`}`,
        );
      }
      return { values: { 'expire-lock': boolValue(false) }, disclose: [] };
    }
    const values: Record<string, AnyValue> = { ...base.values, 'expire-lock': boolValue(true) };
    if (featured) values['featured-app-right'] = contractIdValue(featured.contractId);
    return { values, disclose: [...base.disclose, locked, ...(featured ? [featured] : [])] };
  }
}

