/**
 * Helpers for the example test-token registry of the wallet repository (canton-network/wallet,
 * `examples/test-token-v1-registry`; LocalNet's `localhost:5634`) where the wallet SDK 1.4.0 has
 * no call: its admin endpoint `POST /admin/v2/offer-mint`, and the token standard's V2 factories
 * (splice-api-token-allocation-instruction-v2 `AllocationFactory_Allocate`,
 * splice-api-token-allocation-v2 `SettlementFactory_SettleBatch`) asked for as raw JSON, the
 * commands then submitted by the caller (`submit`: a local party's `ledger.internal.submit`, or an
 * external party's prepare → sign → execute).
 */
export const ALLOCATION_FACTORY_V2 = '#splice-api-token-allocation-instruction-v2:Splice.Api.Token.AllocationInstructionV2:AllocationFactory';
export const SETTLEMENT_FACTORY_V2 = '#splice-api-token-allocation-v2:Splice.Api.Token.AllocationV2:SettlementFactory';
export const ALLOCATION_V2 = '#splice-api-token-allocation-v2:Splice.Api.Token.AllocationV2:Allocation';

export const noMeta = { values: {} };
/** An ISO time `ms` from now. */
export const at = (ms: number) => new Date(Date.now() + ms).toISOString();
/** A TestTokenV2 basic account (no provider, empty id). */
export const basic = (owner: string) => ({ owner, provider: null, id: '' });

/** A disclosed contract as the registry answers it (with `excludeDebugFields`). */
export interface Disclosed {
  templateId: string;
  contractId: string;
  createdEventBlob: string;
  synchronizerId: string;
}
/** A V2 factory answer: the factory and the choice context to exercise it with. */
export interface Factory {
  factoryId: string;
  choiceContext: { choiceContextData: { values: Record<string, unknown> }; disclosedContracts: Disclosed[] };
}
/** `POST /admin/v2/offer-mint`'s answer. */
export interface OfferMint {
  offerCid: string;
  updateId: string;
  completionOffset: number;
}

/** A JSON Ledger API `ExerciseCommand` (the `Command` of the ledger's OpenAPI). */
export interface ExerciseCommand {
  ExerciseCommand: { templateId: string; contractId: string; choice: string; choiceArgument: unknown };
}
/** Submits `command` as `party` with the disclosed contracts (the caller's way: local or external party). */
export type SubmitAs = (party: string, command: ExerciseCommand, disclosed: Disclosed[]) => Promise<unknown>;

/** POSTs `body` as JSON to the registry at `base`; the status and the JSON answer. */
export async function postJson<T>(base: string, path: string, body: unknown): Promise<{ status: number; body: T }> {
  const r = await fetch(new URL(path, base), { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  return { status: r.status, body: (await r.json()) as T };
}

/** The registry's TransferFactory asked for `amount` of `instrumentId` (V1, raw JSON): for the refusals SDK clients never reach. */
export function askTransferFactory(base: string, o: { admin: string; sender: string; receiver: string; amount: string; instrumentId: string }) {
  return postJson<{ error: string }>(base, '/registry/transfer-instruction/v1/transfer-factory', {
    choiceArguments: {
      expectedAdmin: o.admin,
      transfer: {
        sender: o.sender,
        receiver: o.receiver,
        amount: o.amount,
        instrumentId: { admin: o.admin, id: o.instrumentId },
        requestedAt: at(-1000),
        executeBefore: at(3_600_000),
        inputHoldingCids: [],
        meta: noMeta,
      },
      extraArgs: { context: { values: {} }, meta: noMeta },
    },
  });
}

/** A settlement of one TestTokenV2 leg, sender → receiver, settled by `executor`. */
export interface V2Settlement {
  settlement: { executors: string[]; id: string; cid: null; meta: typeof noMeta };
  leg: { transferLegId: string; sender: ReturnType<typeof basic>; receiver: ReturnType<typeof basic>; amount: string; instrumentId: string; meta: typeof noMeta };
}

export function v2Settlement(o: { id: string; executor: string; sender: string; receiver: string; amount: string; instrumentId: string }): V2Settlement {
  return {
    settlement: { executors: [o.executor], id: o.id, cid: null, meta: noMeta },
    leg: { transferLegId: `${o.id}-leg`, sender: basic(o.sender), receiver: basic(o.receiver), amount: o.amount, instrumentId: o.instrumentId, meta: noMeta },
  };
}

/**
 * `who`'s side of the leg: the allocation factory (raw JSON, `/registry/allocation-instruction/v2/allocation-factory`),
 * then `AllocationFactory_Allocate` with its context, submitted by `submit`. The factory's answer.
 */
export async function allocateV2(
  base: string,
  o: { admin: string; s: V2Settlement; who: string; side: 'SenderSide' | 'ReceiverSide'; holdings: string[]; submit: SubmitAs },
): Promise<Factory> {
  const { settlement, leg } = o.s;
  const choiceArguments = {
    settlement,
    allocation: {
      admin: o.admin,
      authorizer: basic(o.who),
      transferLegSides: [
        { transferLegId: leg.transferLegId, side: o.side, otherside: o.side === 'SenderSide' ? leg.receiver : leg.sender, amount: leg.amount, instrumentId: leg.instrumentId, meta: noMeta },
      ],
      settlementDeadline: at(3_600_000),
      nextIterationFunding: null,
      committed: false,
      meta: noMeta,
    },
    requestedAt: at(-1000),
    inputHoldingCids: o.holdings,
    extraArgs: { context: { values: {} }, meta: noMeta },
    actors: [o.who],
  };
  return exerciseFactory(base, '/registry/allocation-instruction/v2/allocation-factory', ALLOCATION_FACTORY_V2, 'AllocationFactory_Allocate', choiceArguments, o.who, o.submit);
}

/**
 * The settlement factory (raw JSON, `/registry/allocation/v2/settlement-factory`) for the leg
 * with `allocationCids`, then `SettlementFactory_SettleBatch` with its context, submitted by the
 * executor through `submit`. The factory's answer.
 */
export async function settleBatchV2(base: string, o: { s: V2Settlement; executor: string; allocationCids: string[]; submit: SubmitAs }): Promise<Factory> {
  const choiceArguments = {
    settlement: o.s.settlement,
    transferLegs: [o.s.leg],
    allocations: o.allocationCids.map((allocationCid) => ({ allocationCid, extraTransferLegSides: [], nextIterationFunding: null })),
    actors: [o.executor],
    extraArgs: { context: { values: {} }, meta: noMeta },
  };
  return exerciseFactory(base, '/registry/allocation/v2/settlement-factory', SETTLEMENT_FACTORY_V2, 'SettlementFactory_SettleBatch', choiceArguments, o.executor, o.submit);
}

/**
 * Asks the registry for a factory (`path`, raw JSON), then exercises `choice` on it with the
 * answer's context and disclosures, submitted as `actor` through `submit`. The factory's answer.
 */
async function exerciseFactory(base: string, path: string, templateId: string, choice: string, choiceArguments: object, actor: string, submit: SubmitAs): Promise<Factory> {
  const f = await postJson<Factory>(base, path, { choiceArguments, excludeDebugFields: true });
  if (f.status !== 200) throw new Error(`${path} answered ${f.status}: ${JSON.stringify(f.body)}`);
  const command: ExerciseCommand = {
    ExerciseCommand: {
      templateId,
      contractId: f.body.factoryId,
      choice,
      choiceArgument: { ...choiceArguments, extraArgs: { context: f.body.choiceContext.choiceContextData, meta: noMeta } },
    },
  };
  await submit(actor, command, f.body.choiceContext.disclosedContracts);
  return f.body;
}
