/**
 * Minting test tokens on an emulated stack from outside, over its JSON Ledger API, the way the
 * emulator's demo world mints at start (src/emulator/world/seed.ts) and Splice's reference registries'
 * test utilities do:
 *  - `splice-test-token-v1`: create an unlocked `Token` acting as owner and admin;
 *  - `splice-test-token-v2`: the admin offers a mint (`TokenRules_OfferMint`) to the owner's basic
 *    account, and the owner accepts it (`TransferInstruction_Accept` of TransferInstructionV2) with
 *    the admin's `TokenRules` disclosed and in the choice context.
 * Both submit as the parties themselves, which the stack's default ledger auth (`none`) allows; with
 * LEDGER_AUTH set, give the client a token of a user that may act as owner and admin.
 */
import { z } from 'zod';
import type { LedgerClient } from '../ledger-client/client.js';
import { JsTransactionSchema } from '../ledger-client/schemas/events.js';
import type { JsActiveContract } from '../ledger-client/schemas/events.js';

const TT1_TOKEN = '#splice-test-token-v1:Splice.Testing.Tokens.TestTokenV1:Token';
const TT2_TOKEN_RULES = '#splice-test-token-v2:Splice.Testing.Tokens.TestTokenV2:TokenRules';
const TRANSFER_INSTRUCTION_V2 = '#splice-api-token-transfer-instruction-v2:Splice.Api.Token.TransferInstructionV2:TransferInstruction';
/** The registry-private choice-context keys of splice-test-token-v2 (its TokenRules, its account configs). */
const TT2_CONTEXT_TOKEN_RULES = 'testTokenV2/tokenRules';
const TT2_CONTEXT_ACCOUNT_CONFIGS = 'testTokenV2/accountConfigs';

export interface MintRequest {
  /** Instrument id, e.g. `TT1` or `TT2-USD`. */
  instrument: string;
  /** The owner's party id, or the hint/user of a seeded party (`alice`). */
  owner: string;
  /** A decimal, e.g. `"100"` or `"12.5"`. */
  amount: string;
}

export interface MintDeps {
  ledger: LedgerClient;
  /** The instrument admin party. */
  admin: string;
  /** The token implementation of an instrument (`splice-test-token-v1` | `splice-test-token-v2`). */
  tokenOf(instrument: string): string | undefined;
  /** A party id from a party id, hint or user. */
  partyOf(ownerOrHint: string): string;
  /** Distinct command ids. */
  commandId(): string;
}

const SubmitResponseSchema = z.object({ transaction: JsTransactionSchema });
const OfferMintResultSchema = z.object({ offerCid: z.string().min(1) });
const AcceptResultSchema = z.object({
  output: z.object({ tag: z.string(), value: z.object({ receiverHoldingCids: z.array(z.string()).optional() }).loose() }),
});

interface Disclosed {
  templateId: string;
  contractId: string;
  createdEventBlob: string;
  synchronizerId: string;
}

async function submit(deps: MintDeps, actAs: string[], command: unknown, disclosedContracts: Disclosed[] = []) {
  const r = await deps.ledger.request(
    'POST',
    '/v2/commands/submit-and-wait-for-transaction',
    {
      commands: { commands: [command], commandId: deps.commandId(), actAs, userId: 'token-registry-testcontainers', disclosedContracts },
      transactionFormat: {
        eventFormat: { filtersByParty: Object.fromEntries(actAs.map((p) => [p, { cumulative: [] }])), verbose: true },
        transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
      },
    },
    { schema: SubmitResponseSchema },
  );
  return r.transaction;
}

/** The root node's exercise result (node 0). */
function rootResult(tx: z.output<typeof JsTransactionSchema>): unknown {
  for (const e of tx.events) if ('ExercisedEvent' in e && e.ExercisedEvent.nodeId === 0) return e.ExercisedEvent.exerciseResult;
  throw new Error(`transaction ${tx.updateId} has no root exercise`);
}

function disclosed(c: JsActiveContract): Disclosed {
  const ev = c.createdEvent;
  if (!ev.createdEventBlob) throw new Error(`the ledger returned ${ev.contractId} without its created-event blob`);
  return { templateId: ev.templateId, contractId: ev.contractId, createdEventBlob: ev.createdEventBlob, synchronizerId: c.synchronizerId };
}

/** Mints `amount` of `instrument` to `owner`; returns the new holding's contract id. */
export async function mint(deps: MintDeps, req: MintRequest): Promise<string> {
  const token = deps.tokenOf(req.instrument);
  const owner = deps.partyOf(req.owner);
  const instrumentId = { admin: deps.admin, id: req.instrument };
  if (token === 'splice-test-token-v1') {
    const holding = { owner, instrumentId, amount: req.amount, lock: null, meta: { values: {} } };
    const tx = await submit(deps, [...new Set([owner, deps.admin])], { CreateCommand: { templateId: TT1_TOKEN, createArguments: { holding } } });
    for (const e of tx.events) if ('CreatedEvent' in e) return e.CreatedEvent.contractId;
    throw new Error(`mint ${req.instrument}: the transaction created nothing`);
  }
  if (token === 'splice-test-token-v2') {
    const acs = await deps.ledger.activeContracts({ parties: [deps.admin], templateIds: [TT2_TOKEN_RULES], includeCreatedEventBlob: true });
    const rules = acs.contracts.find((c) => (c.createdEvent.createArgument as { admin?: unknown } | null)?.admin === deps.admin);
    if (!rules) throw new Error(`mint ${req.instrument}: ${deps.admin} has no splice-test-token-v2 TokenRules`);
    const account = { owner, provider: null, id: '' };
    const offer = await submit(deps, [deps.admin], {
      ExerciseCommand: {
        templateId: TT2_TOKEN_RULES,
        contractId: rules.createdEvent.contractId,
        choice: 'TokenRules_OfferMint',
        choiceArgument: {
          receiver: account,
          amount: req.amount,
          instrumentId,
          offeredAt: new Date().toISOString(),
          // a basic account's implicit config (the reference token's `basicAccountConfig`)
          receiverConfig: { admin: deps.admin, account, ownerConfig: { canInitiate: true, mustApprove: true }, providerConfig: { canInitiate: false, mustApprove: false } },
        },
      },
    });
    const { offerCid } = OfferMintResultSchema.parse(rootResult(offer));
    const context = {
      values: {
        [TT2_CONTEXT_ACCOUNT_CONFIGS]: { tag: 'AV_List', value: [] },
        [TT2_CONTEXT_TOKEN_RULES]: { tag: 'AV_ContractId', value: rules.createdEvent.contractId },
      },
    };
    const accepted = await submit(
      deps,
      [owner],
      {
        ExerciseCommand: {
          templateId: TRANSFER_INSTRUCTION_V2,
          contractId: offerCid,
          choice: 'TransferInstruction_Accept',
          choiceArgument: { actors: [owner], extraArgs: { context, meta: { values: {} } } },
        },
      },
      [disclosed(rules)],
    );
    const result = AcceptResultSchema.parse(rootResult(accepted));
    const cid = result.output.value.receiverHoldingCids?.[0];
    if (result.output.tag !== 'TransferInstructionResult_Completed' || !cid) throw new Error(`mint ${req.instrument}: the mint offer was not completed (${result.output.tag})`);
    return cid;
  }
  if (token === undefined) throw new Error(`mint: the stack has no instrument "${req.instrument}"`);
  throw new Error(`mint: instrument "${req.instrument}" is a ${token}; mint knows splice-test-token-v1 and splice-test-token-v2`);
}
