/**
 * A tiny wallet/registry client for TestTokenV1 tests, over the JSON Ledger API only (in-process
 * `app.request` for unit tests, real loopback `fetch` for integration tests): it allocates
 * parties, submits commands, reads holdings through the HoldingV1 interface, gets the TokenRules
 * disclosure the way a registry does (admin ACS read with includeCreatedEventBlob), and reads
 * the LEDGER_EFFECTS update stream.
 */
import { TS } from '../../../../../src/emulator/templates/token-standard.js';
import { testTokenV1TemplateId, type HoldingView } from '../../../../../src/emulator/templates/test-token-v1/index.js';
import { AllocatePartyResponseSchema } from '../../../../../src/ledger-client/schemas/parties.js';
import { GetLedgerEndResponseSchema, type JsActiveContract } from '../../../../../src/ledger-client/schemas/events.js';
import { activeContracts, LedgerResponse, postJson, transactions, type Tx } from '../wire.js';

export type Requester = (path: string, init?: RequestInit) => Promise<Response>;

export const HOLDING_V1 = '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding';
export const TRANSFER_FACTORY_V1 = '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory';
export const TRANSFER_INSTRUCTION_V1 = '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction';
export const ALLOCATION_FACTORY_V1 = '#splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationFactory';
export const ALLOCATION_V1 = '#splice-api-token-allocation-v1:Splice.Api.Token.AllocationV1:Allocation';
export const TOKEN = testTokenV1TemplateId('Token');
export const TOKEN_RULES = testTokenV1TemplateId('TokenRules');
export const HOLDING_V1_ID = `${TS.HoldingV1.id.packageId}:${TS.HoldingV1.id.moduleName}:${TS.HoldingV1.id.entityName}`;

export const EMPTY_EXTRA_ARGS = { context: { values: {} }, meta: { values: {} } };

export interface Disclosed {
  templateId: string;
  contractId: string;
  createdEventBlob: string;
  synchronizerId: string;
}

export interface HoldingRow {
  contractId: string;
  templateId: string;
  view: HoldingView;
}

/** A JSON API response: `status`, raw `body`, and the body read as `transaction` or `error`. */
export type Result = LedgerResponse;

let counter = 0;

export class Tt1Client {
  constructor(private readonly request: Requester) {}

  private async post(path: string, body: unknown): Promise<Result> {
    return postJson(this.request, path, body);
  }

  async allocateParty(hint: string): Promise<string> {
    const r = await this.post('/v2/parties', { partyIdHint: hint, identityProviderId: '' });
    if (r.status !== 200) throw new Error(`party allocation failed: ${JSON.stringify(r.body)}`);
    return AllocatePartyResponseSchema.parse(r.body).partyDetails.party;
  }

  async ledgerEnd(): Promise<number> {
    const r = await this.request('/v2/state/ledger-end');
    return GetLedgerEndResponseSchema.parse(await r.json()).offset;
  }

  /** submit-and-wait-for-transaction with a LEDGER_EFFECTS view for the submitters. */
  async submit(actAs: string[], commands: unknown[], disclosedContracts: Disclosed[] = []): Promise<Result> {
    return this.post('/v2/commands/submit-and-wait-for-transaction', {
      commands: { commands, commandId: `tt1-${++counter}-${Date.now()}`, actAs, userId: 'tt1-tester', disclosedContracts },
      transactionFormat: {
        eventFormat: { filtersByParty: Object.fromEntries(actAs.map((p) => [p, { cumulative: [] }])), verbose: true },
        transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
      },
    });
  }

  /**
   * Exercises a choice and returns the exercise result of the root node (throws with the body when
   * it fails), as the LF JSON shape `R` the caller expects.
   */
  async exercise<R = unknown>(actAs: string[], templateId: string, contractId: string, choice: string, choiceArgument: unknown, disclosed: Disclosed[] = []): Promise<R> {
    const r = await this.submit(actAs, [{ ExerciseCommand: { templateId, contractId, choice, choiceArgument } }], disclosed);
    if (r.status !== 200) throw new Error(`${choice} failed (${r.status}): ${JSON.stringify(r.body)}`);
    const root = r.transaction.events.find((e) => e.ExercisedEvent?.nodeId === 0)?.ExercisedEvent;
    if (root === undefined) throw new Error(`${choice}: no root exercise in ${JSON.stringify(r.body)}`);
    return root.exerciseResult as R;
  }

  async acs(party: string, identifierFilter: unknown): Promise<JsActiveContract[]> {
    const r = await this.post('/v2/state/active-contracts', {
      eventFormat: { filtersByParty: { [party]: { cumulative: [{ identifierFilter }] } }, verbose: false },
      activeAtOffset: await this.ledgerEnd(),
    });
    if (r.status !== 200) throw new Error(`ACS failed: ${JSON.stringify(r.body)}`);
    return activeContracts(r);
  }

  /** The party's visible V1 holdings (HoldingV1 interface filter with the view). */
  async holdings(party: string): Promise<HoldingRow[]> {
    const rows = await this.acs(party, { InterfaceFilter: { value: { interfaceId: HOLDING_V1, includeInterfaceView: true, includeCreatedEventBlob: false } } });
    return rows.map((r) => {
      const ev = r.createdEvent;
      const iv = ev.interfaceViews.find((v) => v.interfaceId === HOLDING_V1_ID);
      if (iv === undefined) throw new Error(`no HoldingV1 view of ${ev.contractId}`);
      return { contractId: ev.contractId, templateId: ev.templateId, view: iv.viewValue as HoldingView };
    });
  }

  /** Sum of the party's own holdings (owner == party), split into unlocked and locked, as Decimal strings. */
  async balance(party: string, instrument?: { admin: string; id: string }): Promise<{ unlocked: string; locked: string; count: number }> {
    const mine = (await this.holdings(party)).filter(
      (h) => h.view.owner === party && (!instrument || (h.view.instrumentId.admin === instrument.admin && h.view.instrumentId.id === instrument.id)),
    );
    let unlocked = 0n;
    let locked = 0n;
    for (const h of mine) {
      const v = scaled(h.view.amount);
      if (h.view.lock === null) unlocked += v;
      else locked += v;
    }
    return { unlocked: unscaled(unlocked), locked: unscaled(locked), count: mine.length };
  }

  /** The admin's TokenRules as a disclosed contract, read the way a registry does. */
  async disclosedRules(admin: string): Promise<Disclosed> {
    const rows = await this.acs(admin, { TemplateFilter: { value: { templateId: TOKEN_RULES, includeCreatedEventBlob: true } } });
    if (rows.length !== 1) throw new Error(`expected exactly one TokenRules, got ${rows.length}`);
    const row = rows[0]!;
    const ev = row.createdEvent;
    return { templateId: ev.templateId, contractId: ev.contractId, createdEventBlob: ev.createdEventBlob, synchronizerId: row.synchronizerId };
  }

  /** LEDGER_EFFECTS transactions visible to `party` after `beginExclusive`, up to the ledger end. */
  async updates(party: string, beginExclusive: number): Promise<Tx[]> {
    const r = await this.post('/v2/updates', {
      beginExclusive,
      endInclusive: await this.ledgerEnd(),
      updateFormat: {
        includeTransactions: {
          eventFormat: { filtersByParty: { [party]: { cumulative: [] } }, verbose: true },
          transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
        },
      },
    });
    if (r.status !== 200) throw new Error(`updates failed: ${JSON.stringify(r.body)}`);
    return transactions(r, 'fail');
  }
}

/** Decimal text → units of 10^-10. */
export function scaled(d: string): bigint {
  const [i, f = ''] = d.split('.');
  return BigInt(i!) * 10n ** 10n + BigInt((f + '0000000000').slice(0, 10));
}
export function unscaled(v: bigint): string {
  return `${v / 10n ** 10n}.${(v % 10n ** 10n).toString().padStart(10, '0')}`;
}

/** Summary of a transaction's events: `create <Entity>` / `exercise <choice> (consuming)`. */
export function eventSummary(tx: Tx): string[] {
  return tx.events.map((e) => {
    if (e.CreatedEvent) return `create ${e.CreatedEvent.templateId.split(':').pop()}`;
    const x = e.ExercisedEvent;
    if (x === undefined) throw new Error(`not a LEDGER_EFFECTS event: ${JSON.stringify(e)}`);
    return `${x.consuming ? 'archive' : 'exercise'} ${x.templateId.split(':').pop()}.${x.choice}`;
  });
}
