/**
 * A small wallet-side client for TestTokenV2 over the JSON Ledger API, used by the unit tests
 * (in-process `app.request`) and the integration tests (real HTTP `fetch`): it submits commands,
 * reads holdings through the HoldingV1/V2 interface views, fetches disclosed contracts the way a
 * wallet gets them from the registry (the admin's ACS with `includeCreatedEventBlob`), and reads
 * the LEDGER_EFFECTS update stream.
 */
import { expect } from 'vitest';
import type { HoldingView as HoldingViewV1 } from '../../../../../src/emulator/templates/test-token-v1/index.js';
import type { HoldingsChange } from '../../../../../src/emulator/templates/test-token-v2/events.js';
import type { HoldingView as HoldingViewV2, TransferLegSide } from '../../../../../src/emulator/templates/test-token-v2/values.js';
import { GetConnectedSynchronizersResponseSchema, GetLedgerEndResponseSchema, type CreatedEvent } from '../../../../../src/ledger-client/schemas/events.js';
import { AllocatePartyResponseSchema } from '../../../../../src/ledger-client/schemas/parties.js';
import { activeContracts, LedgerResponse, postJson, transactions, type Tx, type TxEvent } from '../wire.js';

export type Requester = (path: string, init?: RequestInit) => Promise<Response>;

export const TT2 = {
  TokenRules: '#splice-test-token-v2:Splice.Testing.Tokens.TestTokenV2:TokenRules',
  Token: '#splice-test-token-v2:Splice.Testing.Tokens.TestTokenV2.Holding:Token',
  TokenTransferOffer: '#splice-test-token-v2:Splice.Testing.Tokens.TestTokenV2.Transfer:TokenTransferOffer',
  TokenAllocationV2: '#splice-test-token-v2:Splice.Testing.Tokens.TestTokenV2.Allocation:TokenAllocationV2',
  TokenAllocationV1: '#splice-test-token-v2:Splice.Testing.Tokens.TestTokenV2.Allocation:TokenAllocationV1',
  AccountConfig: '#splice-test-token-v2:Splice.Testing.Tokens.TestTokenV2.AccountConfig:AccountConfig',
  AccountProposal: '#splice-test-token-v2:Splice.Testing.Tokens.TestTokenV2.AccountConfig:AccountProposal',
} as const;

export const IFACE = {
  HoldingV1: '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding',
  HoldingV2: '#splice-api-token-holding-v2:Splice.Api.Token.HoldingV2:Holding',
  TransferFactoryV1: '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory',
  TransferFactoryV2: '#splice-api-token-transfer-instruction-v2:Splice.Api.Token.TransferInstructionV2:TransferFactory',
  TransferInstructionV1: '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction',
  TransferInstructionV2: '#splice-api-token-transfer-instruction-v2:Splice.Api.Token.TransferInstructionV2:TransferInstruction',
  AllocationFactoryV1: '#splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationFactory',
  AllocationFactoryV2: '#splice-api-token-allocation-instruction-v2:Splice.Api.Token.AllocationInstructionV2:AllocationFactory',
  AllocationInstructionV2: '#splice-api-token-allocation-instruction-v2:Splice.Api.Token.AllocationInstructionV2:AllocationInstruction',
  AllocationV1: '#splice-api-token-allocation-v1:Splice.Api.Token.AllocationV1:Allocation',
  AllocationV2: '#splice-api-token-allocation-v2:Splice.Api.Token.AllocationV2:Allocation',
  SettlementFactoryV2: '#splice-api-token-allocation-v2:Splice.Api.Token.AllocationV2:SettlementFactory',
  EventLogV2: '#splice-api-token-transfer-events-v2:Splice.Api.Token.TransferEventsV2:EventLog',
} as const;

export interface Disclosed {
  templateId: string;
  contractId: string;
  createdEventBlob: string;
  synchronizerId: string;
}

/** A JSON API response: `status`, raw `body`, and the body read as `transaction` or `error`. */
export type TxResult = LedgerResponse;

/** The holding view of each HoldingV1 / HoldingV2 interface. */
export interface HoldingViews {
  V1: HoldingViewV1;
  V2: HoldingViewV2;
}

export const exercise = (templateId: string, contractId: string, choice: string, choiceArgument: unknown) => ({
  ExerciseCommand: { templateId, contractId, choice, choiceArgument },
});
export const create = (templateId: string, createArguments: unknown) => ({ CreateCommand: { templateId, createArguments } });

export const basic = (owner: string) => ({ owner, provider: null, id: '' });
export const extraArgs = (context: unknown = { values: {} }) => ({ context, meta: { values: {} } });
export function context(tokenRulesCid: string, accountConfigCids: string[] = []) {
  return {
    values: {
      'testTokenV2/accountConfigs': { tag: 'AV_List', value: accountConfigCids.map((c) => ({ tag: 'AV_ContractId', value: c })) },
      'testTokenV2/tokenRules': { tag: 'AV_ContractId', value: tokenRulesCid },
    },
  };
}

let counter = 0;

export class LedgerClient {
  constructor(private readonly request: Requester) {}

  async post(path: string, body: unknown): Promise<TxResult> {
    return postJson(this.request, path, body);
  }

  async allocateParty(hint: string): Promise<string> {
    const r = await this.post('/v2/parties', { partyIdHint: hint, identityProviderId: '' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return AllocatePartyResponseSchema.parse(r.body).partyDetails.party;
  }

  /** submit-and-wait-for-transaction with LEDGER_EFFECTS, seen by the submitters. */
  async submit(actAs: string[], commands: unknown[], disclosedContracts: Disclosed[] = []): Promise<TxResult> {
    return this.post('/v2/commands/submit-and-wait-for-transaction', {
      commands: { commands, commandId: `tt2-${++counter}`, actAs, userId: 'tester', disclosedContracts },
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
  async ok<R = unknown>(actAs: string[], commands: unknown[], disclosed: Disclosed[] = []): Promise<{ result: R; events: TxEvent[]; updateId: string; offset: number }> {
    const r = await this.submit(actAs, commands, disclosed);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const tx = r.transaction;
    const root = tx.events[0]?.ExercisedEvent;
    return { result: root?.exerciseResult as R, events: tx.events, updateId: tx.updateId, offset: tx.offset };
  }

  /**
   * The admin offers `owner` a mint of `instrument` through its TokenRules: a pending transfer
   * instruction (V2) that the owner must accept (mustApprove). Answers the offer's contract id.
   */
  async offerMint(admin: string, tokenRulesCid: string, owner: string, instrument: string, amount = '5.0'): Promise<string> {
    const offer = await this.ok<{ offerCid: string }>([admin], [
      exercise(TT2.TokenRules, tokenRulesCid, 'TokenRules_OfferMint', {
        receiver: basic(owner),
        amount,
        instrumentId: { admin, id: instrument },
        offeredAt: new Date(Date.now() - 1000).toISOString(),
        receiverConfig: { admin, account: basic(owner), ownerConfig: { canInitiate: true, mustApprove: true }, providerConfig: { canInitiate: false, mustApprove: false } },
      }),
    ]);
    return offer.result.offerCid;
  }

  /** The receiver accepts a transfer instruction (V2); the ledger archives it. */
  async acceptInstruction(owner: string, instructionCid: string, tokenRules: Disclosed): Promise<void> {
    await this.ok([owner], [exercise(IFACE.TransferInstructionV2, instructionCid, 'TransferInstruction_Accept', { actors: [owner], extraArgs: extraArgs(context(tokenRules.contractId)) })], [tokenRules]);
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

  /** Interface views of the party's holdings (HoldingV1 or HoldingV2 filter with includeInterfaceView). */
  async holdings<V extends keyof HoldingViews = 'V2'>(party: string, version?: V): Promise<Array<{ contractId: string; view: HoldingViews[V] }>> {
    const interfaceId = version === 'V1' ? IFACE.HoldingV1 : IFACE.HoldingV2;
    const events = await this.acs(party, { InterfaceFilter: { value: { interfaceId, includeInterfaceView: true, includeCreatedEventBlob: false } } });
    return events.map((e) => {
      const iv = e.interfaceViews[0];
      if (iv === undefined) throw new Error(`no interface view of ${e.contractId}`);
      expect(iv.viewStatus.code).toBe(0);
      return { contractId: e.contractId, view: iv.viewValue as HoldingViews[V] };
    });
  }

  /** Sum of the party's holdings (as owner) with the given lock state, through the interface views. */
  async balance(party: string, opts: { version?: 'V1' | 'V2'; locked?: boolean; admin?: string } = {}): Promise<number> {
    const hs =
      opts.version === 'V1'
        ? (await this.holdings(party, 'V1')).map((h) => ({ owner: h.view.owner, view: h.view }))
        : (await this.holdings(party, 'V2')).map((h) => ({ owner: h.view.account.owner, view: h.view }));
    return hs
      .filter((h) => h.owner === party)
      .filter((h) => opts.admin === undefined || h.view.instrumentId.admin === opts.admin)
      .filter((h) => opts.locked === undefined || (h.view.lock !== null) === opts.locked)
      .reduce((s, h) => s + Number(h.view.amount), 0);
  }

  /** A disclosed contract as a wallet gets it: read by a stakeholder with the created-event blob. */
  async disclosed(reader: string, contractId: string): Promise<Disclosed> {
    const events = await this.acs(reader, { WildcardFilter: { value: { includeCreatedEventBlob: true } } });
    const e = events.find((x) => x.contractId === contractId);
    expect(e, `contract ${contractId} visible to ${reader}`).toBeDefined();
    if (e === undefined) throw new Error(`contract ${contractId} not visible to ${reader}`);
    const sync = await this.request('/v2/state/connected-synchronizers');
    const synchronizerId = GetConnectedSynchronizersResponseSchema.parse(await sync.json()).connectedSynchronizers[0]?.synchronizerId ?? '';
    return { templateId: e.templateId, contractId, createdEventBlob: e.createdEventBlob, synchronizerId };
  }

  /** The LEDGER_EFFECTS transactions a party sees after `beginExclusive`. */
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

/** A compact trace of a transaction's events: `create Entity`, `exercise Entity.Choice`, `archive`. */
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

/** The `EventLog_HoldingsChange` exercises of a transaction with their reasons and accounts. */
export function holdingsChanges(events: TxEvent[]): Array<{ owner: string | null; reason: string | undefined; legs: TransferLegSide[]; inputs: string[]; outputs: string[] }> {
  return events.flatMap((e) => {
    const x = e.ExercisedEvent;
    if (x?.choice !== 'EventLog_HoldingsChange') return [];
    const a = x.choiceArgument as HoldingsChange;
    return [
      {
        owner: a.account.owner,
        reason: a.extraArgs.meta.values['splice.lfdecentralizedtrust.org/reason'],
        legs: a.transferLegSides,
        inputs: a.inputHoldingCids,
        outputs: a.outputHoldingCids,
      },
    ];
  });
}
