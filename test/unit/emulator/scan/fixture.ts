/**
 * A small Canton Coin world for the scan tests, built from STAND-INS of the Amulet templates:
 * declared templates (payload field paths for signatories/observers, only `Archive` as choice)
 * under the real package name and module/entity names, with the payloads and signatories of
 * Splice's `daml/splice-amulet` templates. Scan reads by template name key, so the native templates of
 * src/emulator/templates/amulet/ behave the same for it.
 */
import { createHash } from 'node:crypto';
import { LedgerEngine } from '../../../../src/emulator/participant/engine.js';
import type { QualifiedId } from '../../../../src/emulator/participant/types.js';
import type { TransactionRecord } from '../../../../src/emulator/participant/updates.js';
import { ManualClock } from '../../../../src/canton/clock.js';
import { createScanApp } from '../../../../src/emulator/scan/routes.js';
import { ScanService } from '../../../../src/emulator/scan/service.js';

export const STANDIN_PKG = createHash('sha256').update('scan-test/splice-amulet-standin').digest('hex');

const id = (moduleName: string, entityName: string): QualifiedId => ({ packageId: STANDIN_PKG, packageName: 'splice-amulet', moduleName, entityName });

export const IDS = {
  Amulet: id('Splice.Amulet', 'Amulet'),
  LockedAmulet: id('Splice.Amulet', 'LockedAmulet'),
  FeaturedAppRight: id('Splice.Amulet', 'FeaturedAppRight'),
  AmuletRules: id('Splice.AmuletRules', 'AmuletRules'),
  TransferPreapproval: id('Splice.AmuletRules', 'TransferPreapproval'),
  OpenMiningRound: id('Splice.Round', 'OpenMiningRound'),
  IssuingMiningRound: id('Splice.Round', 'IssuingMiningRound'),
  ExternalPartyAmuletRules: id('Splice.ExternalPartyAmuletRules', 'ExternalPartyAmuletRules'),
  /** A template the DSO is not a stakeholder of: scan must not see it. */
  Other: { packageId: 'e'.repeat(64), packageName: 'other-app', moduleName: 'Main', entityName: 'Note' } as QualifiedId,
};

export interface World {
  clock: ManualClock;
  engine: LedgerEngine;
  dso: string;
  alice: string;
  bob: string;
  validator: string;
  provider: string;
  scan: ScanService;
  app: ReturnType<typeof createScanApp>;
  submit(actAs: string[], commands: Array<{ template: QualifiedId; createArguments?: unknown; contractId?: string; choice?: string }>): TransactionRecord;
  create(template: QualifiedId, payload: unknown, actAs: string[]): string;
  archive(template: QualifiedId, contractId: string, actAs: string[]): TransactionRecord;
  amulet(owner: string, amount: string, round?: string): string;
  lockedAmulet(owner: string, amount: string): string;
  openRound(round: number, extra?: Record<string, unknown>): string;
  amuletRules(): string;
  post(path: string, body: unknown): Promise<Response>;
  get(path: string): Promise<Response>;
}

export function buildWorld(opts: { start?: string; enableForcedSnapshots?: boolean } = {}): World {
  const clock = new ManualClock(opts.start ?? '2026-05-01T01:00:00Z');
  const engine = new LedgerEngine({ clock, seed: 'scan-test' });
  const dso = engine.parties.allocate('DSO').party;
  const alice = engine.parties.allocate('alice').party;
  const bob = engine.parties.allocate('bob').party;
  const validator = engine.parties.allocate('aliceValidator').party;
  const provider = engine.parties.allocate('app_provider').party;

  const t = engine.templates;
  t.declare({ id: IDS.Amulet, signatories: ['dso', 'owner'] });
  t.declare({ id: IDS.LockedAmulet, signatories: ['lock.holders', 'amulet.dso', 'amulet.owner'] });
  t.declare({ id: IDS.FeaturedAppRight, signatories: ['dso'], observers: ['provider'] });
  t.declare({ id: IDS.AmuletRules, signatories: ['dso'] });
  t.declare({ id: IDS.TransferPreapproval, signatories: ['receiver', 'provider', 'dso'] });
  t.declare({ id: IDS.OpenMiningRound, signatories: ['dso'] });
  t.declare({ id: IDS.IssuingMiningRound, signatories: ['dso'] });
  t.declare({ id: IDS.ExternalPartyAmuletRules, signatories: ['dso'] });
  t.declare({ id: IDS.Other, signatories: ['owner'] });

  const scan = new ScanService({ engine, dsoParty: dso, clock, enableForcedSnapshots: opts.enableForcedSnapshots ?? true });
  const app = createScanApp({ service: scan });

  let n = 0;
  const submit: World['submit'] = (actAs, commands) =>
    engine.commands.submit({
      userId: 'scan-test',
      actAs,
      readAs: [],
      commandId: `cmd-${++n}`,
      workflowId: '',
      submissionId: `sub-${n}`,
      disclosedContracts: [],
      commands: commands.map((c) => {
        const template = { package: { name: c.template.packageName }, moduleName: c.template.moduleName, entityName: c.template.entityName };
        return c.contractId
          ? { kind: 'exercise' as const, template, contractId: c.contractId, choice: c.choice ?? 'Archive', choiceArgument: {} }
          : { kind: 'create' as const, template, createArguments: c.createArguments };
      }),
    });
  const create: World['create'] = (template, payload, actAs) => {
    const tx = submit(actAs, [{ template, createArguments: payload }]);
    const node = tx.nodes[0]!;
    if (node.kind !== 'create') throw new Error('expected a create');
    return node.contract.contractId;
  };

  const amuletPayload = (owner: string, amount: string, round = '1') => ({
    dso,
    owner,
    amount: { initialAmount: amount, createdAt: { number: round }, ratePerRound: { rate: '0.0038051800' } },
  });

  const world: World = {
    clock,
    engine,
    dso,
    alice,
    bob,
    validator,
    provider,
    scan,
    app,
    submit,
    create,
    archive: (template, contractId, actAs) => submit(actAs, [{ template, contractId }]),
    amulet: (owner, amount, round) => create(IDS.Amulet, amuletPayload(owner, amount, round), [dso, owner]),
    lockedAmulet: (owner, amount) =>
      create(
        IDS.LockedAmulet,
        { amulet: amuletPayload(owner, amount), lock: { holders: [dso], expiresAt: '2026-06-01T00:00:00Z', optContext: `transfer to '${bob}'` } },
        [dso, owner],
      ),
    openRound: (round, extra = {}) => create(IDS.OpenMiningRound, openRoundPayload(dso, round, clock.nowMicros(), extra), [dso]),
    amuletRules: () => create(IDS.AmuletRules, amuletRulesPayload(dso, engine.synchronizerId), [dso]),
    post: (path, body) =>
      Promise.resolve(
        app.request(`http://scan.local${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) }),
      ),
    get: (path) => Promise.resolve(app.request(`http://scan.local${path}`)),
  };
  return world;
}

/** The OpenMiningRound payload of LocalNet round 20 (splice-wallet-kernel `amulet-service-consts.test.ts`), with a 10-minute tick. */
export function openRoundPayload(dso: string, round: number, nowMicros: bigint, extra: Record<string, unknown> = {}) {
  const iso = (m: bigint) => new Date(Number(m / 1000n)).toISOString().replace('Z', '000Z');
  const tick = 600_000_000n;
  return {
    dso,
    round: { number: String(round) },
    amuletPrice: '0.005',
    opensAt: iso(nowMicros + tick),
    targetClosesAt: iso(nowMicros + 3n * tick),
    issuingFor: { microseconds: '12000000000' },
    tickDuration: { microseconds: String(tick) },
    transferConfigUsd: {
      createFee: { fee: '0.0' },
      holdingFee: { rate: '0.0000190259' },
      transferFee: { initialRate: '0.01', steps: [{ _1: '100.0', _2: '0.001' }, { _1: '1000.0', _2: '0.0001' }] },
      lockHolderFee: { fee: '0.005' },
      extraFeaturedAppRewardAmount: '1.0',
      maxNumInputs: '100',
      maxNumOutputs: '100',
      maxNumLockHolders: '50',
    },
    issuanceConfig: {
      amuletToIssuePerYear: '40000000000.0',
      validatorRewardPercentage: '0.05',
      appRewardPercentage: '0.15',
      validatorRewardCap: '0.2',
      featuredAppRewardCap: '100.0',
      unfeaturedAppRewardCap: '0.6',
      optValidatorFaucetCap: '2.85',
      optDevelopmentFundPercentage: null,
    },
    ...extra,
  };
}

export function amuletRulesPayload(dso: string, synchronizerId: string) {
  return {
    dso,
    configSchedule: {
      initialValue: {
        transferConfig: {
          createFee: { fee: '0.0' },
          holdingFee: { rate: '0.0000190259' },
          transferFee: { initialRate: '0.0', steps: [] },
          lockHolderFee: { fee: '0.0' },
          extraFeaturedAppRewardAmount: '1.0',
          maxNumInputs: '100',
          maxNumOutputs: '100',
          maxNumLockHolders: '50',
        },
        issuanceCurve: { initialValue: { amuletToIssuePerYear: '40000000000.0' }, futureValues: [] },
        decentralizedSynchronizer: {
          requiredSynchronizers: { map: [[synchronizerId, {}]] },
          activeSynchronizer: synchronizerId,
          fees: {
            baseRateTrafficLimits: { burstAmount: '400000', burstWindow: { microseconds: '1200000000' } },
            extraTrafficPrice: '16.67',
            readVsWriteScalingFactor: '4',
            minTopupAmount: '200000',
          },
        },
        tickDuration: { microseconds: '600000000' },
        packageConfig: {
          amulet: '0.1.22',
          amuletNameService: '0.1.23',
          dsoGovernance: '0.1.28',
          validatorLifecycle: '0.1.5',
          wallet: '0.1.23',
          walletPayments: '0.1.14',
        },
      },
      futureValues: [],
    },
    isDevNet: true,
  };
}

export type OpenRoundStandIn = ReturnType<typeof openRoundPayload>;
export type AmuletRulesStandIn = ReturnType<typeof amuletRulesPayload>;

// ---- answer bodies: the fields the tests read (Splice scan.yaml) ----------------------------------

/** A scan error answer. */
export interface ScanError {
  error: string;
}

/** A `Contract`; `P` is its payload as the test reads it. */
export interface ScanContract<P = unknown> {
  template_id: string;
  contract_id: string;
  payload: P;
  created_event_blob: string;
  created_at: string;
}

export interface ContractWithState<P = unknown> {
  contract: ScanContract<P>;
  domain_id?: string;
}

/** `MaybeCachedContractWithState`: no contract when the caller's cached id is current. */
export interface MaybeCachedContractWithState<P = unknown> {
  contract?: ScanContract<P>;
  domain_id?: string;
}

/** What scan's created events and active contracts both say of a contract. */
interface ContractFields {
  contract_id: string;
  template_id: string;
  package_name: string;
  create_arguments: unknown;
  created_at: string;
  signatories: string[];
  observers: string[];
}

/** A `CreatedEvent` of the update history and of the v0 ACS. */
export interface CreatedEvent extends ContractFields {
  event_type: 'created_event';
  event_id: string;
}

export interface ExercisedEvent {
  event_type: 'exercised_event';
  event_id: string;
  contract_id: string;
  template_id: string;
  package_name: string;
  choice: string;
  choice_argument: unknown;
  child_event_ids: string[];
  exercise_result: unknown;
  consuming: boolean;
  acting_parties: string[];
  interface_id?: string;
}

export type TreeEvent = CreatedEvent | ExercisedEvent;

/** An active contract of the v1/v2 ACS and holdings pages. */
export interface ActiveContract extends ContractFields {
  created_in_update_id: string;
}

/** An ACS or holdings page: int64 tokens in v0/v1, opaque strings in v2; v0 has `CreatedEvent`s. */
export interface AcsPage<Token extends number | string = number, E = ActiveContract> {
  record_time: string;
  migration_id: number;
  created_events: E[];
  next_page_token?: Token;
}

/** A transaction of `/v2/updates`. */
export interface UpdateHistoryTransaction {
  update_id: string;
  migration_id: number;
  workflow_id: string;
  record_time: string;
  synchronizer_id: string;
  effective_at: string;
  root_event_ids: string[];
  events_by_id: Record<string, TreeEvent>;
}

export interface UpdateHistory {
  transactions: UpdateHistoryTransaction[];
}

/** `/v0/dso` over this world's stand-in payloads. */
export interface DsoInfo {
  sv_user: string;
  sv_party_id: string;
  dso_party_id: string;
  voting_threshold: number;
  latest_mining_round: ContractWithState<OpenRoundStandIn>;
  amulet_rules: ContractWithState<AmuletRulesStandIn>;
  dso_rules: ContractWithState;
  sv_node_states: ContractWithState[];
  initial_round?: string;
}

/** `/v0/open-and-issuing-mining-rounds` (maps by contract id). */
export interface OpenAndIssuingMiningRounds {
  time_to_live_in_microseconds: number;
  open_mining_rounds: Record<string, MaybeCachedContractWithState<OpenRoundStandIn>>;
  issuing_mining_rounds: Record<string, MaybeCachedContractWithState>;
}

/** `/v0/amulet-rules`. */
export interface AmuletRulesUpdate {
  amulet_rules_update: MaybeCachedContractWithState<AmuletRulesStandIn>;
}

export interface FeaturedApps {
  featured_apps: ScanContract[];
}

/** `/v0/featured-apps/{provider}` and `by-contract-id`: `{}` when there is none. */
export interface FeaturedAppRight {
  featured_app_right?: ScanContract;
}

export interface TransferPreapprovalByParty<P = unknown> {
  transfer_preapproval: ContractWithState<P>;
}

/**
 * Reads a JSON response body with its status. `T` is the body the test expects (an assertion on
 * the parsed JSON, as `(await r.json()) as T` would be; the test's expectations check it).
 */
export async function json<T = unknown>(res: Response | Promise<Response>): Promise<{ status: number; body: T }> {
  const r = await res;
  const text = await r.text();
  const body: unknown = text === '' ? undefined : JSON.parse(text);
  return { status: r.status, body: body as T };
}
