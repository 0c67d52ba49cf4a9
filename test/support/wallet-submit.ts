/**
 * What a wallet does after asking a registry: one ExerciseCommand submitted to the ledger with
 * the registry's disclosed contracts (submit-and-wait-for-transaction, LEDGER_EFFECTS), answering
 * the root exercise's result. Shared by the registry tests that drive the emulated ledger in process.
 */
import { expect } from 'vitest';
import type { RequestHandler } from '../../src/ledger-client/in-process.js';
import { rootExerciseResult } from './ledger-wire.js';

let commandCounter = 0;

export function walletExercise(ledger: RequestHandler, prefix: string) {
  /** Returns the root exercise's result (LF JSON: read it with registry-wire's `jsonAt`, `outputTag`, ...). */
  return async (actAs: string[], templateId: string, contractId: string, choice: string, choiceArgument: unknown, disclosedContracts: unknown[]): Promise<unknown> => {
    const r = await ledger.request('/v2/commands/submit-and-wait-for-transaction', {
      method: 'POST',
      body: JSON.stringify({
        commands: {
          commands: [{ ExerciseCommand: { templateId, contractId, choice, choiceArgument } }],
          commandId: `${prefix}-${++commandCounter}`,
          actAs,
          userId: 'wallet',
          disclosedContracts,
        },
        transactionFormat: {
          eventFormat: { filtersByParty: Object.fromEntries(actAs.map((p) => [p, { cumulative: [] }])), verbose: true },
          transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
        },
      }),
    });
    const body: unknown = await r.json();
    expect(r.status, JSON.stringify(body)).toBe(200);
    return rootExerciseResult(body);
  };
}
