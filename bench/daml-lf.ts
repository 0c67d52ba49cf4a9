/**
 * The Daml-LF engine in the emulated ledger (issue 10 targets):
 *  1. upload + decode of splice-amulet-0.1.22.dar (51 packages) in process, cold (a fresh package
 *     store and decode cache each time, so nothing decoded before is reused): the participant's
 *     upload (unzip, SHA-256 of each dalf, type-level decoding, vetting) plus the decoding of
 *     every package as the ledger's engine does it (value bodies lazily), median of 5; wall and
 *     CPU time (`process.cpuUsage`, meaningful on a loaded machine). Target < 1 s;
 *  2. `node dist/main.js emulate` with TEMPLATE_ENGINE=daml and DARS_DIR=../shared/dars (every
 *     DAR uploaded, the demo world seeded through the evaluated templates), spawn to `/readyz`,
 *     median of 3, with the child's CPU time from /proc. Target < 2 s. Needs `npm run build`;
 *  3. TestTokenV1's transfer offer + accept, two transactions per round, run from the token's DAR
 *     (TEMPLATE_ENGINE=daml) through the command service in-process, against the same rounds run
 *     by the native implementation. Target: >= 500 evaluated transactions/s.
 * Run: `npm run build && npm run bench -- daml-lf`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ManualClock } from '../src/canton/clock.js';
import { LF_ENGINE } from '../src/emulator/daml-lf/ledger/lf-engine.js';
import { DarDecodeCache } from '../src/emulator/ledger/dar/index.js';
import { PackageStore } from '../src/emulator/ledger/packages.js';
import { buildEmulator } from '../src/emulator/index.js';
import type { EngineCommand } from '../src/emulator/ledger/commands.js';
import type { LedgerEngine } from '../src/emulator/ledger/engine.js';
import { createTestTokenV1Rules, mintTestTokenV1, registerTestTokenV1 } from '../src/emulator/templates/test-token-v1/index.js';
import { startCli } from './ledger.js';
import { processCpuMs } from './registry.js';
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

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Upload + decode of the Amulet DAR on a fresh store and cache: wall and CPU ms, median of 5. */
function uploadDecode(): Result {
  const bytes = readFileSync(join(DARS_DIR, 'splice-amulet-0.1.22.dar'));
  const wall: number[] = [];
  const cpu: number[] = [];
  let packages = 0;
  for (let i = 0; i < 5; i++) {
    const store = new PackageStore({ decodeCache: new DarDecodeCache() });
    const t0 = performance.now();
    const c0 = cpuMs();
    const ids = store.uploadDar(bytes).newPackageIds;
    for (const id of ids) LF_ENGINE.decode(id, store.payload(id)!);
    cpu.push(cpuMs() - c0);
    wall.push(performance.now() - t0);
    packages = ids.length;
  }
  const ms = Math.round(median(wall));
  return {
    name: `upload + decode of splice-amulet-0.1.22.dar (${packages} packages, cold), median of 5`,
    value: ms,
    unit: 'ms',
    target: '< 1000',
    pass: ms < 1000 && packages === 51,
    detail: { cpuMs: Math.round(median(cpu)), wallSamples: wall.map(Math.round), cpuSamples: cpu.map(Math.round) },
  };
}

/** `emulate` with TEMPLATE_ENGINE=daml from spawn to /readyz: wall and the child's CPU ms, median of 3. */
async function startDaml(): Promise<Result> {
  const name = 'emulate with TEMPLATE_ENGINE=daml DARS_DIR=../shared/dars, spawn to /readyz, median of 3';
  if (!existsSync(fileURLToPath(new URL('../dist/main.js', import.meta.url)))) {
    return { name, value: -1, unit: 'ms', target: '< 2000', pass: false, detail: { skipped: 'dist/main.js missing: run npm run build first' } };
  }
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < 3; i++) {
    const { child, readyMs } = await startCli({ TEMPLATE_ENGINE: 'daml', DARS_DIR, SCAN_PORT: '0', VALIDATOR_PORT: '0' });
    wall.push(readyMs);
    cpu.push(processCpuMs(child.pid) ?? -1);
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
  const ms = Math.round(median(wall));
  return { name, value: ms, unit: 'ms', target: '< 2000', pass: ms < 2000, detail: { childCpuMs: Math.round(median(cpu)), wallSamples: wall.map(Math.round), cpuSamples: cpu } };
}

export async function runDamlLfBench(): Promise<Result[]> {
  const upload = uploadDecode();
  const start = await startDaml();
  const evaluated = rounds('daml');
  const native = rounds('native');
  return [
    upload,
    start,
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
