/**
 * An in-process ledger with the Amulet world seeded (DSO, AmuletRules, ExternalPartyAmuletRules,
 * three open rounds), a few parties, and a wallet-like client over the JSON Ledger API
 * (`app.request`, or real HTTP with `fetch` in the integration tests).
 */
import { expect } from 'vitest';
import { LedgerEngine } from '../../../../../src/emulator/participant/engine.js';
import { createLedgerApiApp, ledgerApiRoutes } from '../../../../../src/emulator/ledger-api/routes.js';
import { ManualClock } from '../../../../../src/canton/clock.js';
import { formatTime } from '../../../../../src/canton/lf-value.js';
import {
  amuletContext,
  disclosedOf,
  seedAmuletWorld,
  tapAmulet,
  type SeedAmuletWorldOptions,
} from '../../../../../src/emulator/templates/amulet/index.js';
// the token standard's HoldingV1.HoldingView (as TestTokenV1 describes it)
import type { HoldingView } from '../../../../../src/emulator/templates/test-token-v1/index.js';
import type { TransferOutcome } from '../../../../../src/emulator/templates/amulet/transfer.js';
import type { AmuletTransferV, MetadataV, RoundV, TransferContextV } from '../../../../../src/emulator/templates/amulet/values.js';
import { GetLedgerEndResponseSchema, type CreatedEvent } from '../../../../../src/ledger-client/schemas/events.js';
import { activeContracts, LedgerResponse, postJson, transactions, type Tx, type TxEvent } from '../wire.js';

export type Requester = (path: string, init?: RequestInit) => Promise<Response>;

export const IFACE = {
  HoldingV1: '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding',
  HoldingV2: '#splice-api-token-holding-v2:Splice.Api.Token.HoldingV2:Holding',
  TransferFactoryV1: '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory',
  TransferInstructionV1: '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction',
  AllocationFactoryV1: '#splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationFactory',
  AllocationV1: '#splice-api-token-allocation-v1:Splice.Api.Token.AllocationV1:Allocation',
  AllocationFactoryV2: '#splice-api-token-allocation-instruction-v2:Splice.Api.Token.AllocationInstructionV2:AllocationFactory',
  AllocationV2: '#splice-api-token-allocation-v2:Splice.Api.Token.AllocationV2:Allocation',
  SettlementFactoryV2: '#splice-api-token-allocation-v2:Splice.Api.Token.AllocationV2:SettlementFactory',
} as const;

export const AMULET = {
  AmuletRules: '#splice-amulet:Splice.AmuletRules:AmuletRules',
  TransferPreapproval: '#splice-amulet:Splice.AmuletRules:TransferPreapproval',
  Amulet: '#splice-amulet:Splice.Amulet:Amulet',
  LockedAmulet: '#splice-amulet:Splice.Amulet:LockedAmulet',
  ExternalPartyAmuletRules: '#splice-amulet:Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules',
  AmuletAllocationV2: '#splice-amulet:Splice.AmuletAllocationV2:AmuletAllocationV2',
  OpenMiningRound: '#splice-amulet:Splice.Round:OpenMiningRound',
  TransferOffer: '#splice-wallet:Splice.Wallet.TransferOffer:TransferOffer',
  AcceptedTransferOffer: '#splice-wallet:Splice.Wallet.TransferOffer:AcceptedTransferOffer',
  WalletAppInstall: '#splice-wallet:Splice.Wallet.Install:WalletAppInstall',
} as const;

export interface Disclosed {
  templateId?: string;
  contractId?: string;
  createdEventBlob: string;
  synchronizerId?: string;
}

export const exercise = (templateId: string, contractId: string, choice: string, choiceArgument: unknown) => ({
  ExerciseCommand: { templateId, contractId, choice, choiceArgument },
});
export const create = (templateId: string, createArguments: unknown) => ({ CreateCommand: { templateId, createArguments } });

const cidValue = (cid: string) => ({ tag: 'AV_ContractId', value: cid });

let counter = 0;

export class AmuletClient {
  constructor(private readonly request: Requester) {}

  /** A JSON API response: `status`, raw `body`, and the body read as `transaction` or `error`. */
  async post(path: string, body: unknown): Promise<LedgerResponse> {
    return postJson(this.request, path, body);
  }

  /** `readAs`: as the validator app submits for a user it hosts (actAs validator, readAs user). */
  async submit(actAs: string[], commands: unknown[], disclosedContracts: Disclosed[] = [], readAs: string[] = []) {
    return this.post('/v2/commands/submit-and-wait-for-transaction', {
      commands: { commands, commandId: `amulet-${++counter}`, actAs, readAs, userId: 'tester', disclosedContracts },
      transactionFormat: {
        eventFormat: { filtersByParty: Object.fromEntries(actAs.map((p) => [p, { cumulative: [] }])), verbose: true },
        transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
      },
    });
  }

  /**
   * Submits and expects success; returns the root exercise's result (as the LF JSON shape `R` the
   * caller expects) and the events.
   */
  async ok<R = unknown>(actAs: string[], commands: unknown[], disclosed: Disclosed[] = [], readAs: string[] = []): Promise<{ result: R; events: TxEvent[]; offset: number }> {
    const r = await this.submit(actAs, commands, disclosed, readAs);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const tx = r.transaction;
    return { result: tx.events[0]?.ExercisedEvent?.exerciseResult as R, events: tx.events, offset: tx.offset };
  }

  async ledgerEnd(): Promise<number> {
    const r = await this.request('/v2/state/ledger-end');
    return GetLedgerEndResponseSchema.parse(await r.json()).offset;
  }

  async acs(party: string, identifierFilter: unknown): Promise<CreatedEvent[]> {
    const r = await this.post('/v2/state/active-contracts', {
      eventFormat: { filtersByParty: { [party]: { cumulative: [{ identifierFilter }] } }, verbose: true },
      activeAtOffset: await this.ledgerEnd(),
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return activeContracts(r).map((c) => c.createdEvent);
  }

  /** HoldingV1 views of the party's holdings (interface filter with views). */
  async holdings(party: string): Promise<Array<{ contractId: string; templateId: string; view: HoldingView }>> {
    const events = await this.acs(party, {
      InterfaceFilter: { value: { interfaceId: IFACE.HoldingV1, includeInterfaceView: true, includeCreatedEventBlob: false } },
    });
    return events
      .map((e) => {
        const iv = e.interfaceViews[0];
        if (iv === undefined) throw new Error(`no HoldingV1 view of ${e.contractId}`);
        return { contractId: e.contractId, templateId: e.templateId, view: iv.viewValue as HoldingView };
      })
      .filter((h) => h.view.owner === party);
  }

  /** Sum of the party's holdings (unlocked, locked, or all) as a Decimal string. */
  async balance(party: string, locked?: boolean): Promise<string> {
    const hs = await this.holdings(party);
    let total = 0n;
    for (const h of hs) {
      if (locked !== undefined && (h.view.lock !== null) !== locked) continue;
      const [i, f = ''] = h.view.amount.split('.');
      total += BigInt(i!) * 10n ** 10n + BigInt(f.padEnd(10, '0'));
    }
    const s = total.toString().padStart(11, '0');
    return `${s.slice(0, -10)}.${s.slice(-10)}`;
  }

  async updates(party: string, beginExclusive: number): Promise<Tx[]> {
    const r = await this.post(`/v2/updates?stream_idle_timeout_ms=10`, {
      beginExclusive,
      updateFormat: {
        includeTransactions: {
          eventFormat: { filtersByParty: { [party]: { cumulative: [] } }, verbose: true },
          transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
        },
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return transactions(r, 'skip');
  }
}

/** A compact trace of a transaction's events. */
export function trace(events: TxEvent[]): string[] {
  return events.map((e) => {
    if (e.CreatedEvent) return `create ${e.CreatedEvent.templateId.split(':').pop()}`;
    if (e.ExercisedEvent) {
      const x = e.ExercisedEvent;
      return `${x.consuming ? 'consume' : 'exercise'} ${x.templateId.split(':').pop()}.${x.choice}`;
    }
    if (e.ArchivedEvent) return `archive ${e.ArchivedEvent.templateId.split(':').pop()}`;
    return Object.keys(e)[0]!;
  });
}

// ---- LF JSON shapes of Amulet choice arguments and results the tests read -----------------------

/** `TransferSummary`. */
export interface TransferSummaryV {
  inputAmuletAmount: string;
  balanceChanges: Array<[string, { changeToInitialAmountAsOfRoundZero: string; changeToHoldingFeesRate: string }]>;
  holdingFees: string;
  outputFees: string[];
  senderChangeFee: string;
  senderChangeAmount: string;
}

/** `TransferResult` (the result of `AmuletRules_Transfer`). */
export interface TransferResultV {
  round: RoundV;
  summary: TransferSummaryV;
  createdAmulets: TransferOutcome['createdAmulets'];
  senderChangeAmulet: string | null;
  meta: MetadataV | null;
}

/** The result of `WalletAppInstall_ExecuteBatch`: one outcome per operation, `V` the outcome values the test reads. */
export interface ExecuteBatchResult<V = unknown> {
  endUserName: string;
  outcomes: Array<{ tag: string; value: V }>;
}

/** The argument of `AmuletRules_Transfer`. */
export interface AmuletRulesTransferArg {
  transfer: AmuletTransferV;
  context: TransferContextV;
}

export const START = '2026-05-01T10:00:00Z';
export const TICK_MS = 600_000;

/** The Amulet world on an in-process ledger, with alice, bob, carol, a provider and an executor. */
export function amuletLedger(opts: SeedAmuletWorldOptions = {}) {
  const clock = new ManualClock(START);
  const engine = new LedgerEngine({ seed: 'amulet', clock });
  const app = createLedgerApiApp({ engine }, ledgerApiRoutes);
  const client = new AmuletClient((path, init) => Promise.resolve(app.request(path, init)));
  const world = seedAmuletWorld(engine, opts);
  const { dso } = world;
  const party = (hint: string) => engine.parties.allocate(hint).party;
  const alice = party('alice');
  const bob = party('bob');
  const carol = party('carol');
  const provider = party('provider');
  const executor = party('executor');
  const tap = (receiver: string, amount: string) => tapAmulet(engine, { dso, receiver, amount });
  /** Ledger time shifted by `ms`. */
  const at = (ms: number) => formatTime(clock.nowMicros() + BigInt(ms) * 1000n);
  /** The registry-style choice context and disclosures (amulet-rules, open-round [, extra]). */
  const ctx = (extra: Record<string, { tag: string; value: unknown }> = {}) => {
    const c = amuletContext(engine, dso);
    return {
      ...c,
      context: { values: { 'amulet-rules': cidValue(c.amuletRulesCid), 'open-round': cidValue(c.openRoundCid), ...extra } },
    };
  };
  const disclose = (cid: string): Disclosed => disclosedOf(engine.contracts.get(cid)!);
  const instrument = { admin: dso, id: 'Amulet' };
  return { clock, engine, app, client, world, dso, alice, bob, carol, provider, executor, party, tap, at, ctx, disclose, instrument, cidValue };
}
export type AmuletLedger = ReturnType<typeof amuletLedger>;

/** The argument of TransferFactory_Transfer (V1) from `sender` to `receiver`, with `over` replacing transfer fields. */
export function transferArg(l: AmuletLedger, sender: string, receiver: string, amount: string, inputs: string[], context: unknown, over: Record<string, unknown> = {}) {
  return {
    expectedAdmin: l.dso,
    transfer: {
      sender,
      receiver,
      amount,
      instrumentId: l.instrument,
      requestedAt: l.at(-60_000),
      executeBefore: l.at(24 * 3600_000),
      inputHoldingCids: inputs,
      meta: { values: {} },
      ...over,
    },
    extraArgs: { context, meta: { values: {} } },
  };
}

export { cidValue };
