/**
 * A Canton Coin (Amulet) world in the emulated ledger: the Splice templates of
 * `splice-amulet` 0.1.22 and `splice-wallet` 0.1.23 as native templates under their real package
 * names and ids (./values.ts), rounds that open and advance with the injectable clock, and the
 * seeding helpers the demo world and tests use (all through `engine.commands.submit`).
 *
 * Behaviour follows the Daml code of canton-network/splice (obsidiansystems fork @f819bd6f and its
 * history; `daml/splice-amulet/daml/Splice/*.daml`). The token-standard
 * implementation is the one Scan's registry (`HttpTokenStandard*Handler.scala`) pairs with: factory =
 * ExternalPartyAmuletRules, choice-context keys `external-party-config-state`, `amulet-rules`,
 * `open-round`, `transfer-preapproval`, `featured-app-right`, `expire-lock`.
 *
 * LIMITATIONS (deviations from splice-amulet 0.1.22, and why):
 *  1. Context generation: both generations of the token-standard choice context are accepted.
 *     With `external-party-config-state` in the context (0.1.22, what Scan's registry serves by
 *     default) the two-step transfers, the V2 allocation factory and the settlement pay through
 *     the ExternalPartyConfigState (./external-party-config-state.ts: its round, price and
 *     fee-less TransferConfigV2; `executeExternalPartyTransfer`, no AmuletRules involved; locks
 *     released with `LockedAmulet_UnlockV2`), and so do the transfer factory's self and offer
 *     paths and the V1 allocation factory; without it they read `amulet-rules` / `open-round` and
 *     unlock with `LockedAmulet_Unlock {openRoundCid}` (the ≤ 0.1.17 token-standard code, which
 *     older Scan releases serve: the registry's `legacy` setting). The direct path (receiver's
 *     pre-approval) always pays through AmuletRules (`TransferPreapproval_Send`; the SendV2
 *     choice is not emulated). 0.1.22's actor rule applies (`[sender]` or `[sender, receiver]`;
 *     with the receiver among the actors the transfer completes at once). Not checked here:
 *     `executeBefore - requestedAt <= tokenStandardMaxTTL` and account metadata in V1
 *     `transfer.meta`. Both `LockedAmulet_Unlock` and `LockedAmulet_UnlockV2` (and the
 *     OwnerExpireLock pair) exist, with the V1 semantics (0.1.22 marks the V1 ones deprecated).
 *  2. Fees: the round's `transferConfigUsd` is honoured (create fee, lock-holder fee, stepped
 *     transfer fee, scaled by 1/amuletPrice; pre-CIP-78 math), whereas 0.1.22's `ensure` rejects
 *     non-zero fees. The seeded config has zero fees, as on today's networks. Holding fees accrue
 *     per round (`amount.ratePerRound`, see `amuletValueAtRound`) but are charged on transfer only
 *     with `registerAmulet(templates, { holdingFeesOnTransfer: true })` (pre-2025-09 behaviour).
 *  3. Rewards are not issued: no AppRewardCoupon / ValidatorRewardCoupon is created, reward-coupon
 *     transfer inputs are rejected, and `beneficiaries` are ignored. FeaturedAppActivityMarkers are
 *     created by `FeaturedAppRight_CreateActivityMarker` (./featured-app-activity.ts) but never
 *     converted into coupons.
 *     Of the V2 token standard, TransferFactory V2 (basic accounts only, the V1 body with the
 *     actors, as `transferFactoryV2_transferDefaultImplUsingV1`), TransferInstruction V2 (the
 *     actor-checked V1 choices), AllocationFactory V2, SettlementFactory V2 and AmuletAllocationV2
 *     (Allocation V2: settle, cancel, withdraw; iterated settlement; the DSO's
 *     `ExternalPartyAmuletRules_ExpireAmuletAllocationsV2`) are implemented (./allocation-v2.ts);
 *     HoldingV2 views are served. `SettlementFactory_SettleBatch` fails on an empty
 *     `transferLegs` (the interface's MUST; Splice's default implementation does not check it).
 *     Not implemented: TransferEventsV2.EventLog (so no `EventLog_HoldingsChange` is logged by
 *     allocation settlement), the V1 AllocationFactory creating V2-shaped allocations (V1
 *     allocations stay `AmuletAllocation`), TransferCommand, ExternalPartySetupProposal, member
 *     traffic, and TransferPreapproval_SendV2. Pre-approvals are bought as Splice does
 *     (./preapproval.ts: TransferPreapprovalProposal, AmuletRules_CreateTransferPreapproval,
 *     TransferPreapproval_Renew) or created directly by `createTransferPreapproval`.
 *  4. Rounds: `AmuletRules_AdvanceOpenMiningRounds` creates a SummarizingMiningRound as Splice
 *     does, but the issuing/closed round life cycle is not modelled: the round automation archives
 *     the previous SummarizingMiningRound when it advances again. After a large clock jump the
 *     automation advances as far as the Daml preconditions allow at the current time (so round
 *     numbers advance by at most one per pass after the newest round, as a live SV automation that
 *     had been paused would), not one round per elapsed tick.
 *  5. Failure messages: message texts, error ids and categories follow the Daml code; where they
 *     print a Daml `show` of a whole record (checked-fetch mismatches) the record is abbreviated to
 *     the contract id.
 *  6. The V1 AmuletAllocation.expiresAt is set to `settlement.settleBefore` (0.1.22 computes it
 *     from the ExternalPartyConfigState's maximum TTL, as the V2 allocations here do). The
 *     ExternalPartyConfigState's fields of newer packages (traffic price, synchronizers,
 *     switch-over times) are not in 0.1.22 and not modelled; its EventLog interface instance is
 *     not declared. Allocation locks (V1 and V2) use 0.1.22's context text `allocation for
 *     settlement of <id>`. Holdings changes are not reported as TransferEventsV2
 *     `EventLog_HoldingsChange` exercises, which 0.1.22 makes on AmuletRules for every mint and
 *     transfer (the differential test against the DAR leaves exactly these nodes out).
 *  7. WalletAppInstall_ExecuteBatch supports CO_CompleteAcceptedTransfer, CO_CompleteBuyTrafficRequest,
 *     CO_MergeTransferInputs, CO_Tap, CO_TransferPreapprovalSend, CO_AcceptTransferPreapprovalProposal and
 *     CO_RenewTransferPreapproval; the other wallet operations fail saying so.
 */
import type { DisclosedInput, EngineCommand, Submission } from '../../participant/commands.js';
import type { LedgerEngine } from '../../participant/engine.js';
import type { TemplateRegistry } from '../../participant/templates.js';
import type { ContractRecord, LfValue, QualifiedId } from '../../participant/types.js';
import { nameKey } from '../../participant/types.js';
import { formatTime, parseTime } from '../../../canton/lf-value.js';
import { registerTokenStandardInterfaces } from '../token-standard.js';
import { amuletTemplates } from './templates.js';
import { SummarizingMiningRoundId } from './mining-rounds.js';
import type { AmuletBehaviour } from './transfer.js';
import { AmuletIds, decText, dec, type AmuletConfigV, type OpenMiningRoundPayload } from './values.js';
import { walletTemplates } from './wallet.js';
import { registerTransferPreapprovals } from './preapproval.js';
import { ExternalPartyConfigStateId, type ExternalPartyConfigStatePayload } from './external-party-config-state.js';
import { registerMemberTraffic, trafficControlParametersOf } from './traffic.js';
import { registerBuyTrafficRequests } from './buy-traffic-request.js';

export * from './values.js';
export { amuletHoldingView, lockedAmuletHoldingView } from './amulet-holdings.js';
export { SummarizingMiningRoundId } from './mining-rounds.js';
export { chargeSteppedRate, transferConfigAmulet, type AmuletBehaviour } from './transfer.js';
export { ExternalPartyConfigStateId, EXTERNAL_PARTY_CONFIG_STATE_KEY, type ExternalPartyConfigStatePayload } from './external-party-config-state.js';
export { TransferPreapprovalProposalId, payForTransferPreapproval, type TransferPreapprovalProposalPayload } from './preapproval.js';
export { MemberTrafficId, synchronizerFees, trafficControlParametersOf, type MemberTrafficPayload } from './traffic.js';
export { BuyTrafficRequestId, type BuyTrafficRequestPayload } from './buy-traffic-request.js';

/**
 * Registers the token-standard interfaces and the Amulet and wallet templates. Idempotent (a
 * second call on the same registry does nothing, whatever its options).
 */
export function registerAmulet(templates: TemplateRegistry, behaviour: Partial<AmuletBehaviour> = {}): void {
  if (templates.templateByNameKey(nameKey(AmuletIds.Amulet))) return;
  registerTokenStandardInterfaces(templates);
  const b: AmuletBehaviour = { holdingFeesOnTransfer: behaviour.holdingFeesOnTransfer ?? false };
  for (const def of [...amuletTemplates(templates, b), ...walletTemplates()]) templates.register(def);
  registerTransferPreapprovals(templates, b);
  registerMemberTraffic(templates, b);
  registerBuyTrafficRequests(templates);
}

// ---- configuration ---------------------------------------------------------------------------------

export interface AmuletConfigOptions {
  /** Tick duration (half a round) in microseconds; LocalNet: 10 minutes. */
  tickMicros?: bigint;
  /** Fees in USD (zero except the holding fee, as since CIP-78). */
  createFeeUsd?: string;
  holdingFeeRateUsd?: string;
  lockHolderFeeUsd?: string;
  /** Stepped transfer fee: initial rate and `[threshold (USD), rate]` steps. */
  transferFee?: { initialRate: string; steps: Array<[string, string]> };
  maxNumInputs?: number;
  maxNumOutputs?: number;
  maxNumLockHolders?: number;
  /**
   * `transferPreapprovalBaseDuration` (CIP-0119, splice-amulet 0.1.20): the lifetime of a
   * TransferPreapproval that is bought for free. Unset: the Daml default of 90 days applies. 0 makes
   * every pre-approval paid, as before CIP-0119.
   */
  transferPreapprovalBaseDurationMicros?: bigint;
}

/** An AmuletConfig USD as a LocalNet SV sets it up (see splice-wallet-kernel `amulet-service-consts.test.ts`), for `synchronizerId`. */
export function defaultAmuletConfig(synchronizerId: string, o: AmuletConfigOptions = {}): AmuletConfigV {
  const d = (v: string) => decText(dec(v));
  const tick = (o.tickMicros ?? 600_000_000n).toString();
  const steps = o.transferFee?.steps ?? [
    ['100', '0'],
    ['1000', '0'],
    ['1000000', '0'],
  ];
  return {
    transferConfig: {
      createFee: { fee: d(o.createFeeUsd ?? '0') },
      holdingFee: { rate: d(o.holdingFeeRateUsd ?? '0.0000190259') },
      transferFee: { initialRate: d(o.transferFee?.initialRate ?? '0'), steps: steps.map(([a, b]) => ({ _1: d(a), _2: d(b) })) },
      lockHolderFee: { fee: d(o.lockHolderFeeUsd ?? '0') },
      extraFeaturedAppRewardAmount: d('1'),
      maxNumInputs: String(o.maxNumInputs ?? 100),
      maxNumOutputs: String(o.maxNumOutputs ?? 100),
      maxNumLockHolders: String(o.maxNumLockHolders ?? 50),
      tokenStandardMaxTTL: null,
    },
    issuanceCurve: {
      initialValue: {
        amuletToIssuePerYear: d('40000000000'),
        validatorRewardPercentage: d('0.05'),
        appRewardPercentage: d('0.15'),
        validatorRewardCap: d('0.2'),
        featuredAppRewardCap: d('100'),
        unfeaturedAppRewardCap: d('0.6'),
        optValidatorFaucetCap: d('2.85'),
        optDevelopmentFundPercentage: null,
      },
      futureValues: [],
    },
    decentralizedSynchronizer: {
      requiredSynchronizers: { map: [[synchronizerId, {}]] },
      activeSynchronizer: synchronizerId,
      fees: {
        baseRateTrafficLimits: { burstAmount: '400000', burstWindow: { microseconds: '1200000000' } },
        extraTrafficPrice: d('16.67'),
        readVsWriteScalingFactor: '4',
        minTopupAmount: '200000',
      },
    },
    tickDuration: { microseconds: tick },
    packageConfig: {
      amulet: '0.1.22',
      amuletNameService: '0.1.23',
      dsoGovernance: '0.1.28',
      validatorLifecycle: '0.1.6',
      wallet: '0.1.23',
      walletPayments: '0.1.22',
    },
    transferPreapprovalFee: null,
    featuredAppActivityMarkerAmount: d('1'),
    optDevelopmentFundManager: null,
    externalPartyConfigStateTickDuration: null,
    rewardConfig: null,
    transferPreapprovalBaseDuration: o.transferPreapprovalBaseDurationMicros === undefined ? null : { microseconds: o.transferPreapprovalBaseDurationMicros.toString() },
  };
}

// ---- submission plumbing ---------------------------------------------------------------------------

export interface AmuletSubmitOptions {
  /** User id recorded on the transactions (default `amulet-seed`). */
  userId?: string;
}

const byName = (id: QualifiedId) => ({ package: { name: id.packageName }, moduleName: id.moduleName, entityName: id.entityName });

function submit(engine: LedgerEngine, actAs: string[], commands: EngineCommand[], disclosed: DisclosedInput[] = [], opts: AmuletSubmitOptions = {}) {
  const s: Submission = {
    userId: opts.userId ?? 'amulet-seed',
    actAs: [...new Set(actAs)],
    readAs: [],
    commandId: engine.ids.uuid(),
    workflowId: '',
    submissionId: engine.ids.uuid(),
    commands,
    disclosedContracts: disclosed,
  };
  return engine.commands.submit(s);
}

const create = (id: QualifiedId, createArguments: LfValue): EngineCommand => ({ kind: 'create', template: byName(id), createArguments });
const exercise = (id: QualifiedId, contractId: string, choice: string, choiceArgument: LfValue): EngineCommand => ({
  kind: 'exercise',
  template: byName(id),
  contractId,
  choice,
  choiceArgument,
});

function createdOf(tx: ReturnType<typeof submit>, id: QualifiedId): string[] {
  const out: string[] = [];
  for (const n of tx.nodes) if (n.kind === 'create' && nameKey(n.contract.templateId) === nameKey(id)) out.push(n.contract.contractId);
  return out;
}

/** A contract as a wallet passes it in `disclosedContracts`. */
export function disclosedOf(c: ContractRecord): DisclosedInput {
  return {
    templateId: `${c.templateId.packageId}:${c.templateId.moduleName}:${c.templateId.entityName}`,
    contractId: c.contractId,
    createdEventBlob: c.blob,
    synchronizerId: c.synchronizerId,
  };
}

function active(engine: LedgerEngine, id: QualifiedId, party: string): ContractRecord[] {
  const end = engine.ledgerEnd();
  return engine.contracts.activeAt(end, end, new Set([party]), new Set([nameKey(id)]));
}

// ---- reads -----------------------------------------------------------------------------------------

/** The DSO's active OpenMiningRounds, by round number. */
export function openMiningRounds(engine: LedgerEngine, dso: string): Array<ContractRecord & { payload: OpenMiningRoundPayload }> {
  return (active(engine, AmuletIds.OpenMiningRound, dso) as Array<ContractRecord & { payload: OpenMiningRoundPayload }>)
    .filter((c) => c.payload.dso === dso)
    .sort((a, b) => Number(BigInt(a.payload.round.number) - BigInt(b.payload.round.number)));
}

/**
 * Scan's `lookupLatestUsableOpenMiningRound(now)`: with exactly three consecutive open rounds,
 * the newest whose `opensAt` has come; undefined otherwise (Splice `store/MiningRoundsStore.scala`: the
 * registry then answers 404 "No open usable OpenMiningRound found.").
 */
export function latestUsableOpenRound(engine: LedgerEngine, dso: string, nowMicros = engine.clock.nowMicros()): ContractRecord | undefined {
  const rounds = openMiningRounds(engine, dso);
  if (rounds.length !== 3) return undefined;
  const [a, b, c] = rounds.map((r) => BigInt(r.payload.round.number));
  if (a! + 1n !== b || b! + 1n !== c) return undefined;
  return [...rounds].reverse().find((r) => parseTime(r.payload.opensAt) <= nowMicros);
}

export function amuletRulesOf(engine: LedgerEngine, dso: string): ContractRecord | undefined {
  return active(engine, AmuletIds.AmuletRules, dso).find((c) => (c.payload as { dso: string }).dso === dso);
}
export function externalPartyAmuletRulesOf(engine: LedgerEngine, dso: string): ContractRecord | undefined {
  return active(engine, AmuletIds.ExternalPartyAmuletRules, dso).find((c) => (c.payload as { dso: string }).dso === dso);
}

/**
 * The disclosed contracts a wallet needs to use the DSO's rules: AmuletRules, the latest usable
 * OpenMiningRound and ExternalPartyAmuletRules (what the registry hands out), with their ids.
 */
export function amuletContext(engine: LedgerEngine, dso: string) {
  engine.automations.run();
  const rules = amuletRulesOf(engine, dso);
  const round = latestUsableOpenRound(engine, dso);
  const factory = externalPartyAmuletRulesOf(engine, dso);
  if (!rules || !round || !factory) throw new Error(`no Amulet world for ${dso}: seed it with seedAmuletWorld first (or no usable open round)`);
  return {
    amuletRulesCid: rules.contractId,
    openRoundCid: round.contractId,
    externalPartyAmuletRulesCid: factory.contractId,
    disclosed: [disclosedOf(rules), disclosedOf(round), disclosedOf(factory)],
  };
}

// ---- rounds automation --------------------------------------------------------------------------------

/**
 * What the SV automation does with rounds: while the Daml preconditions of
 * `AmuletRules_AdvanceOpenMiningRounds` hold at the current time (oldest round past
 * targetClosesAt, newest open, middle open for a tick), advance (archive the oldest, open the
 * next one tick after the newest), as the DSO, through the command service. Returns how many
 * rounds were advanced.
 */
export function advanceAmuletRounds(engine: LedgerEngine, dso: string): number {
  let advanced = 0;
  for (let guard = 0; guard < 1000; guard++) {
    const rules = amuletRulesOf(engine, dso);
    const rounds = openMiningRounds(engine, dso);
    if (!rules || rounds.length !== 3) return advanced;
    const [r0, r1, r2] = rounds as [(typeof rounds)[0], (typeof rounds)[0], (typeof rounds)[0]];
    const now = engine.clock.nowMicros();
    const due =
      parseTime(r0.payload.targetClosesAt) <= now &&
      parseTime(r2.payload.opensAt) <= now &&
      parseTime(r1.payload.opensAt) + BigInt(r1.payload.tickDuration.microseconds) <= now;
    if (!due) return advanced;
    const previous = active(engine, SummarizingMiningRoundId, dso).map((c) => exercise(SummarizingMiningRoundId, c.contractId, 'Archive', {}));
    submit(engine, [dso], [
      ...previous,
      exercise(AmuletIds.AmuletRules, rules.contractId, 'AmuletRules_AdvanceOpenMiningRounds', {
        amuletPrice: r2.payload.amuletPrice,
        roundToArchiveCid: r0.contractId,
        middleRoundCid: r1.contractId,
        latestRoundCid: r2.contractId,
      }),
    ], [], { userId: 'amulet-round-automation' });
    advanced++;
  }
  return advanced;
}

// ---- external-party config states (./external-party-config-state.ts) -----------------------------------

/** The DSO's active ExternalPartyConfigStates, oldest `targetArchiveAfter` first. */
export function externalPartyConfigStates(engine: LedgerEngine, dso: string): Array<ContractRecord & { payload: ExternalPartyConfigStatePayload }> {
  return (active(engine, ExternalPartyConfigStateId, dso) as Array<ContractRecord & { payload: ExternalPartyConfigStatePayload }>)
    .filter((c) => c.payload.dso === dso)
    .sort((a, b) => Number(parseTime(a.payload.targetArchiveAfter) - parseTime(b.payload.targetArchiveAfter)));
}

/**
 * What Splice's DSO automation does with the config states: with none, bootstrap the pair from the
 * open rounds (BootstrapExternalPartyConfigStateInstructionTrigger, once per network); then,
 * whenever the older of the two is past its `targetArchiveAfter`, replace it with a new one
 * (UpdateExternalPartyConfigStateTrigger). Returns how many transactions it submitted.
 */
export function updateExternalPartyConfigStates(engine: LedgerEngine, dso: string): number {
  let submitted = 0;
  for (let guard = 0; guard < 10; guard++) {
    const rules = amuletRulesOf(engine, dso);
    const rounds = openMiningRounds(engine, dso);
    if (!rules || rounds.length !== 3) return submitted;
    const openMiningRoundTriple = { round0Cid: rounds[0]!.contractId, round1Cid: rounds[1]!.contractId, round2Cid: rounds[2]!.contractId };
    const states = externalPartyConfigStates(engine, dso);
    let command: EngineCommand;
    if (states.length === 0) {
      command = exercise(AmuletIds.AmuletRules, rules.contractId, 'AmuletRules_BootstrapExternalPartyConfigState', { openMiningRoundTriple, expectedDso: dso });
    } else if (states.length >= 2 && parseTime(states[0]!.payload.targetArchiveAfter) <= engine.clock.nowMicros()) {
      command = exercise(AmuletIds.AmuletRules, rules.contractId, 'AmuletRules_UpdateExternalPartyConfigStates', {
        externalPartyConfigStateCid0: states[0]!.contractId,
        externalPartyConfigStateCid1: states[1]!.contractId,
        openMiningRoundTriple,
      });
    } else {
      return submitted;
    }
    submit(engine, [dso], [command], [], { userId: 'amulet-config-state-automation' });
    submitted++;
  }
  return submitted;
}

/** Name of the round automation of `dso` on `engine.automations`. */
export const roundAutomationName = (dso: string) => `amulet-rounds:${dso}`;

// ---- seeding ----------------------------------------------------------------------------------------

export interface SeedAmuletWorldOptions extends AmuletConfigOptions, AmuletSubmitOptions {
  /** Party hint of the DSO party to allocate (default `DSO`). */
  dsoHint?: string;
  /** Use this existing party as the DSO instead of allocating one. */
  dso?: string;
  /** Amulet price in USD (default 0.005, LocalNet's). */
  amuletPrice?: string;
  /** Number of the first round (default 0). */
  initialRound?: number;
  isDevNet?: boolean;
  /** Advance rounds automatically with the clock (default true). */
  automateRounds?: boolean;
  behaviour?: Partial<AmuletBehaviour>;
  /**
   * Meter the synchronizer's traffic with the config's base rate and scaling factor, as the SVs
   * configure it (default true): transactions then report `paidTrafficCost` (participant/traffic.ts).
   */
  meterTraffic?: boolean;
}

export interface AmuletWorld {
  dso: string;
  amuletRulesCid: string;
  externalPartyAmuletRulesCid: string;
}

/**
 * Allocates the DSO party, creates AmuletRules (DevNet: tap enabled), ExternalPartyAmuletRules,
 * the first three OpenMiningRounds (`AmuletRules_Bootstrap_Rounds`, round 0 lasting one tick) and
 * the two ExternalPartyConfigStates (`AmuletRules_BootstrapExternalPartyConfigState`), and
 * registers the round and config-state automation on `engine.automations`.
 */
export function seedAmuletWorld(engine: LedgerEngine, opts: SeedAmuletWorldOptions = {}): AmuletWorld {
  registerAmulet(engine.templates, opts.behaviour);
  const dso = opts.dso ?? partyFor(engine, opts.dsoHint ?? 'DSO');
  const config = defaultAmuletConfig(engine.synchronizerId, opts);
  const tx = submit(
    engine,
    [dso],
    [
      create(AmuletIds.AmuletRules, { dso, configSchedule: { initialValue: config, futureValues: [] }, isDevNet: opts.isDevNet ?? true, contractStateSchemaVersion: null }),
      create(AmuletIds.ExternalPartyAmuletRules, { dso }),
    ],
    [],
    opts,
  );
  const amuletRulesCid = createdOf(tx, AmuletIds.AmuletRules)[0]!;
  const externalPartyAmuletRulesCid = createdOf(tx, AmuletIds.ExternalPartyAmuletRules)[0]!;
  submit(
    engine,
    [dso],
    [
      exercise(AmuletIds.AmuletRules, amuletRulesCid, 'AmuletRules_Bootstrap_Rounds', {
        amuletPrice: opts.amuletPrice ?? '0.005',
        round0Duration: config.tickDuration,
        initialRound: opts.initialRound === undefined ? null : String(opts.initialRound),
      }),
    ],
    [],
    opts,
  );
  updateExternalPartyConfigStates(engine, dso);
  if (opts.automateRounds ?? true) {
    engine.automations.register(roundAutomationName(dso), (e) => {
      advanceAmuletRounds(e, dso);
      updateExternalPartyConfigStates(e, dso);
    });
  }
  if (opts.meterTraffic ?? true) engine.traffic.setParameters(trafficControlParametersOf(config));
  return { dso, amuletRulesCid, externalPartyAmuletRulesCid };
}

/** The party with this hint on the engine's participant, allocated when missing. */
function partyFor(engine: LedgerEngine, hint: string): string {
  const id = `${hint}::${engine.namespace}`;
  return engine.parties.has(id) ? id : engine.parties.allocate(hint).party;
}

export interface TapAmulet {
  dso: string;
  receiver: string;
  /** Decimal, e.g. "100" or "12.5". */
  amount: string;
}

/** Mints Amulet for `receiver` with `AmuletRules_DevNet_Tap` (acting as the receiver, rules disclosed); returns the Amulet's contract id. */
export function tapAmulet(engine: LedgerEngine, args: TapAmulet, opts: AmuletSubmitOptions = {}): string {
  const ctx = amuletContext(engine, args.dso);
  const tx = submit(
    engine,
    [args.receiver],
    [exercise(AmuletIds.AmuletRules, ctx.amuletRulesCid, 'AmuletRules_DevNet_Tap', { receiver: args.receiver, amount: args.amount, openRound: ctx.openRoundCid })],
    ctx.disclosed.slice(0, 2),
    opts,
  );
  return createdOf(tx, AmuletIds.Amulet)[0]!;
}

export interface CreateTransferPreapproval {
  dso: string;
  receiver: string;
  /** The app provider managing the pre-approval (default: the receiver, self-managed). */
  provider?: string;
  /** Default: 90 days from now. */
  expiresAt?: string;
}

/** Creates a TransferPreapproval (signed by receiver, provider and DSO, all hosted here); returns its contract id. */
export function createTransferPreapproval(engine: LedgerEngine, args: CreateTransferPreapproval, opts: AmuletSubmitOptions = {}): string {
  registerAmulet(engine.templates);
  const now = formatTime(engine.clock.nowMicros());
  const provider = args.provider ?? args.receiver;
  const expiresAt = args.expiresAt ?? formatTime(parseTime(now) + 90n * 24n * 3600n * 1_000_000n);
  const tx = submit(
    engine,
    [args.receiver, provider, args.dso],
    [create(AmuletIds.TransferPreapproval, { dso: args.dso, receiver: args.receiver, provider, validFrom: now, lastRenewedAt: now, expiresAt })],
    [],
    opts,
  );
  return createdOf(tx, AmuletIds.TransferPreapproval)[0]!;
}

export interface CreateFeaturedAppRight {
  dso: string;
  provider: string;
  activityWeight?: string;
}

/** Grants a FeaturedAppRight (as the DSO); returns its contract id. */
export function createFeaturedAppRight(engine: LedgerEngine, args: CreateFeaturedAppRight, opts: AmuletSubmitOptions = {}): string {
  registerAmulet(engine.templates);
  const tx = submit(engine, [args.dso], [create(AmuletIds.FeaturedAppRight, { dso: args.dso, provider: args.provider, activityWeight: args.activityWeight ?? null })], [], opts);
  return createdOf(tx, AmuletIds.FeaturedAppRight)[0]!;
}

export interface InstallWallet {
  dso: string;
  /** The end user's primary party. */
  user: string;
  /** The validator operator party (default: the party with hint `validator`, allocated when missing). */
  validator?: string;
  /** The participant user name of the end user (default: the party hint). */
  endUserName?: string;
}

/** Creates the end user's WalletAppInstall (signed by the user and the validator); returns its contract id. */
export function installWallet(engine: LedgerEngine, args: InstallWallet, opts: AmuletSubmitOptions = {}): string {
  registerAmulet(engine.templates);
  const validator = args.validator ?? partyFor(engine, 'validator');
  const endUserName = args.endUserName ?? args.user.split('::')[0]!;
  const tx = submit(
    engine,
    [args.user, validator],
    [create(AmuletIds.WalletAppInstall, { dsoParty: args.dso, validatorParty: validator, endUserName, endUserParty: args.user })],
    [],
    opts,
  );
  return createdOf(tx, AmuletIds.WalletAppInstall)[0]!;
}
