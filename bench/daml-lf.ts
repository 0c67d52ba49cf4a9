/**
 * Throughput of the Daml-LF evaluator in the emulated ledger (issue 10 target): TestTokenV1's
 * transfer offer + accept, two transactions per round, run from the token's DAR
 * (TEMPLATE_ENGINE=daml) through the command service in-process, against the same rounds run by
 * the native implementation. Target: >= 500 evaluated transactions/s.
 * Run: `npm run bench -- daml-lf`.
 */
import { fileURLToPath } from 'node:url';
import { ManualClock } from '../src/canton/clock.js';
import { buildEmulator } from '../src/emulator/index.js';
import type { EngineCommand } from '../src/emulator/ledger/commands.js';
import type { LedgerEngine } from '../src/emulator/ledger/engine.js';
import { createTestTokenV1Rules, mintTestTokenV1, registerTestTokenV1 } from '../src/emulator/templates/test-token-v1/index.js';
import type { Result } from './report.js';

const DARS_DIR = fileURLToPath(new URL('../../shared/dars/', import.meta.url));
const ROUNDS = 2_000;
const WARM_UP = 200;
const EXTRA_ARGS = { context: { values: {} }, meta: { values: {} } };
const iface = (entityName: string) => ({
  package: { name: 'splice-api-token-transfer-instruction-v1' },
  moduleName: 'Splice.Api.Token.TransferInstructionV1',
  entityName,
});

/** Offer + accept rounds per second with the given template engine. */
function rounds(engineKind: 'native' | 'daml'): { txPerSecond: number; ms: number } {
  const built = buildEmulator({
    config: { demoWorld: false, logLevel: 'silent', templateEngine: engineKind, darsDir: DARS_DIR },
    clock: new ManualClock('2026-03-01T12:00:00Z'),
  });
  const e: LedgerEngine = built.engine;
  if (engineKind === 'native') registerTestTokenV1(e.templates);
  const admin = e.parties.allocate('admin').party;
  const alice = e.parties.allocate('alice').party;
  const bob = e.parties.allocate('bob').party;
  const rules = createTestTokenV1Rules(e, admin);
  const tokens = Array.from({ length: ROUNDS + WARM_UP }, () => mintTestTokenV1(e, { admin, owner: alice, instrumentId: 'X1', amount: '10' }));
  const submit = (actAs: string[], command: EngineCommand, readAs: string[] = []) =>
    e.commands.submit({ userId: 'bench', actAs, readAs, commandId: e.ids.uuid(), workflowId: '', submissionId: e.ids.uuid(), commands: [command], disclosedContracts: [] });
  // the sender reads the admin's TokenRules as a reader (a wallet would pass it as a disclosed contract)
  const round = (input: string) => {
    const transfer = {
      sender: alice,
      receiver: bob,
      amount: '10',
      instrumentId: { admin, id: 'X1' },
      requestedAt: '2026-03-01T11:00:00Z',
      executeBefore: '2026-03-02T12:00:00Z',
      inputHoldingCids: [input],
      meta: { values: {} },
    };
    const tx = submit([alice], { kind: 'exercise', template: iface('TransferFactory'), contractId: rules, choice: 'TransferFactory_Transfer', choiceArgument: { expectedAdmin: admin, transfer, extraArgs: EXTRA_ARGS } }, [admin]);
    const root = tx.nodes[0];
    if (root?.kind !== 'exercise') throw new Error('expected the factory exercise');
    const offer = (root.exerciseResult as { output: { value: { transferInstructionCid: string } } }).output.value.transferInstructionCid;
    submit([bob], { kind: 'exercise', template: iface('TransferInstruction'), contractId: offer, choice: 'TransferInstruction_Accept', choiceArgument: { extraArgs: EXTRA_ARGS } });
  };
  for (let i = 0; i < WARM_UP; i++) round(tokens[i]!);
  const t0 = performance.now();
  for (let i = WARM_UP; i < tokens.length; i++) round(tokens[i]!);
  const ms = performance.now() - t0;
  return { txPerSecond: Math.round(((2 * ROUNDS) / ms) * 1000), ms: Math.round(ms) };
}

export async function runDamlLfBench(): Promise<Result[]> {
  const evaluated = rounds('daml');
  const native = rounds('native');
  return [
    {
      name: 'evaluated TestTokenV1 offer + accept',
      value: evaluated.txPerSecond,
      unit: 'tx/s',
      target: '>= 500',
      pass: evaluated.txPerSecond >= 500,
      detail: { rounds: ROUNDS, ms: evaluated.ms, nativeTxPerSecond: native.txPerSecond },
    },
  ];
}
