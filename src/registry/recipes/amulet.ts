/**
 * Recipe for Canton Coin (Amulet, package `splice-amulet`), reproducing Splice Scan's registry
 * (research/registry.md §3.3; Scan's HttpTokenStandard*Handler and ChoiceContextBuilder):
 *  - factory = the DSO's ExternalPartyAmuletRules (disclosed, not in the context);
 *  - base context: `amulet-rules` (AmuletRules) and `open-round` (the latest *usable*
 *    OpenMiningRound: of exactly three consecutive open rounds, the newest whose `opensAt` has
 *    come), else 404 "No open usable OpenMiningRound found.";
 *  - transfer factory: transferKind `self` when sender == receiver; otherwise the receiver's
 *    TransferPreapproval (→ `transfer-preapproval`, plus the provider's FeaturedAppRight as
 *    `featured-app-right` when it has one) makes it `direct`; else `offer`. Disclosure order:
 *    AmuletRules, OpenMiningRound, [FeaturedAppRight], [TransferPreapproval],
 *    ExternalPartyAmuletRules;
 *  - transfer-instruction accept/reject/withdraw and allocation execute-transfer/withdraw/cancel
 *    (`getTwoStepTransferContext`): the base context plus the instruction's LockedAmulet
 *    (disclosed) and `expire-lock: true` (+ the executor's `featured-app-right` for
 *    execute-transfer). When the LockedAmulet is gone (its lock expired and it was unlocked):
 *    accept / execute-transfer → 404 "LockedAmulet '…' not found for …, which expires on …";
 *    reject / withdraw / cancel → only `{"expire-lock": false}` and no disclosures;
 *  - allocation factory (v1 and v2): the base context, ExternalPartyAmuletRules disclosed too;
 *    Amulet creates no allocation instructions (their contexts: 400);
 *  - allocations v2 withdraw/cancel: the AmuletAllocationV2's LockedAmulet is optional (an
 *    allocation that needed no funding has none): with it `{"expire-lock": true}` and the
 *    LockedAmulet disclosed; without it, or when it is gone, only `{"expire-lock": false}`; no
 *    featuring (Scan: FARs will go with CIP-104);
 *  - settlement factory (v2): the base context, ExternalPartyAmuletRules (the factory) and every
 *    LockedAmulet backing the referenced allocations disclosed (the executor archives them but is
 *    not their stakeholder); only AmuletAllocationV2s are looked up: 404 for an unknown one.
 * Like Scan, the recipe does not check amounts, deadlines or holdings (the service pre-checks the
 * token-standard arguments; the Daml choice does the rest). Transfer instructions are served on
 * V1 and V2 alike (v2: sender and receiver compared as whole accounts, the pre-approval looked up
 * by the receiver's owner). A V1 AmuletAllocation answers only on /v1, an AmuletAllocationV2 only
 * on /v2 (each is the other's 404, as Scan looks up one template per version).
 *
 * The context key `external-party-config-state` of splice-amulet 0.1.22 is never served: the
 * emulated Amulet has no ExternalPartyConfigState, and its Daml reads `amulet-rules` and
 * `open-round` instead (the ≤ 0.1.17 token-standard code; LIMITATIONS 1 in
 * src/emulator/templates/amulet/index.ts), so wherever Scan would put the config state (the V2
 * allocation and settlement factories) the base context stands in for it.
 */
import { formatInstant, parseInstant } from '../../emulator/shared/clock.js';
import type { AnyValue } from '../../emulator/templates/lf.js';
import { templateKey, type IndexedContract } from '../../contracts/contract-index.js';
import { badRequest, notFound } from '../errors.js';
import type { AllocationAction, AllocationInstructionAction, ApiVersion, TransferInstructionAction } from '../api.js';
import type { InstrumentConfig } from '../service.js';
import type { ContextParts, ContractKind, ContractRequest, FactoryParts, Recipe, RecipeEnv, TransferFactoryParts } from './recipe.js';
import { contractIdValue, UnsupportedOperation, TOKEN_STANDARD_V1_APIS } from './recipe.js';

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
} as const;

export const AMULET_RECIPE_NAME = PKG;

/** Minimum interval between the catch-ups an `offer` answer triggers (see transferFactory). */
const PREAPPROVAL_CATCH_UP_MS = 250;

/** The registry's instrument for Canton Coin, as Scan lists it (research/registry.md §3.3 metadata). */
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
}

export class AmuletRecipe implements Recipe {
  readonly name = PKG;
  /**
   * The V1 APIs plus the V2 ones the emulated Amulet implements: HoldingV2 views, TransferFactory
   * and TransferInstruction V2, AllocationFactory V2 (Amulet has no allocation instructions) and
   * Allocation / SettlementFactory V2. (Scan's 0.5 metadata listed only the V1 APIs.)
   */
  readonly supportedApis = {
    ...TOKEN_STANDARD_V1_APIS,
    'splice-api-token-holding-v2': 1,
    'splice-api-token-transfer-instruction-v2': 1,
    'splice-api-token-allocation-v2': 1,
    'splice-api-token-allocation-instruction-v2': 1,
  };
  readonly indexedTemplates = [T.AmuletRules, T.ExternalPartyAmuletRules, T.OpenMiningRound, T.TransferPreapproval, T.FeaturedAppRight].map((t) => `#${t}`);
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
    const base = this.base(env);
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

  async allocationFactory(_version: ApiVersion, _args: Record<string, unknown>, env: RecipeEnv): Promise<FactoryParts> {
    const base = this.base(env);
    const factory = this.factory(env);
    return { factory, values: base.values, disclose: [...base.disclose, factory] };
  }

  async allocationInstructionContext(_req: ContractRequest<AllocationInstructionAction>): Promise<ContextParts> {
    throw new UnsupportedOperation('Allocation instruction choice contexts are unsupported because amulet does not create allocation instructions.');
  }

  async allocationContext(req: ContractRequest<AllocationAction>, env: RecipeEnv): Promise<ContextParts> {
    const isV2 = templateKey(req.contract.packageName, req.contract.templateId) === T.AmuletAllocationV2;
    if (req.version === 2) {
      if (!isV2) throw notFound(`AmuletAllocationV2 '${req.contract.contractId}' not found.`);
      if (req.action === 'execute-transfer') throw new UnsupportedOperation('execute-transfer is a V1 allocation choice; V2 allocations settle through the settlement factory');
      return this.unlockV2Context(env, (req.contract.payload as { lockedAmulet: string | null }).lockedAmulet);
    }
    if (isV2) throw notFound(`AmuletAllocation '${req.contract.contractId}' not found.`);
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
    const base = this.base(env);
    const factory = this.factory(env);
    const locked: IndexedContract[] = [];
    for (const { allocationCid } of (args.allocations as Array<{ allocationCid: string }> | undefined) ?? []) {
      if (!/^[0-9a-f]{2,}$/.test(allocationCid)) throw badRequest(`allocations: "${allocationCid}" is not a contract id`);
      const c = await env.index.getById(allocationCid);
      if (!c || templateKey(c.packageName, c.templateId) !== T.AmuletAllocationV2) throw notFound(`AmuletAllocationV2 '${allocationCid}' not found.`);
      const p = c.payload as { lockedAmulet: string | null; expiresAt: string; allocation: { admin: string } };
      if (p.allocation.admin !== env.admin) throw notFound(`AmuletAllocationV2 '${allocationCid}' not found.`);
      if (p.lockedAmulet === null) continue;
      const l = await env.index.getById(p.lockedAmulet);
      if (!l || templateKey(l.packageName, l.templateId) !== T.LockedAmulet) {
        const at = parseInstant(p.expiresAt);
        throw notFound(`LockedAmulet 'Some(ContractId(${p.lockedAmulet}))' not found for AmuletAllocationV2 '${allocationCid}', which expires on ${at === undefined ? 'None' : `Some(${formatInstant(at)})`}`);
      }
      locked.push(l);
    }
    return { factory, values: base.values, disclose: [...base.disclose, factory, ...locked] };
  }

  // ---- lookups -------------------------------------------------------------------------------------

  /** `getAmuletRulesTransferContext`: AmuletRules and the latest usable open round. */
  private base(env: RecipeEnv): ContextParts {
    const rules = this.single(env, T.AmuletRules, 'AmuletRules');
    const round = this.latestUsableOpenRound(env);
    if (!round) throw notFound('No open usable OpenMiningRound found.');
    return {
      values: { 'amulet-rules': contractIdValue(rules.contractId), 'open-round': contractIdValue(round.contractId) },
      disclose: [rules, round],
    };
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
    const base = this.base(env);
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

