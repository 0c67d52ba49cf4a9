/** Runs the benchmarks: `npm run bench [-- ledger|registry|interactive-submission|websocket|durable-state|daml-engine|index-lag|admin-restore|localnet|explorer]`. Exits non-zero when a target is missed. */
import { runLedgerBench } from './ledger.js';
import { report } from './report.js';
import { runRegistryBench } from './registry.js';
import { runInteractiveSubmissionBench } from './interactive-submission.js';
import { runWebsocketBench } from './websocket.js';
import { runDurableStateBench } from './durable-state.js';
import { runDamlEngineBench } from './daml-engine.js';
import { runIndexLagBench } from './index-lag.js';
import { runAdminRestoreBench } from './admin-restore.js';
import { runLocalnetBench } from './localnet.js';
import { runExplorerBench } from './explorer.js';

const benches = {
  ledger: runLedgerBench,
  registry: runRegistryBench,
  'interactive-submission': runInteractiveSubmissionBench,
  websocket: runWebsocketBench,
  'durable-state': runDurableStateBench,
  'daml-engine': runDamlEngineBench,
  'index-lag': runIndexLagBench,
  'admin-restore': runAdminRestoreBench,
  localnet: runLocalnetBench,
  explorer: runExplorerBench,
} as const;
const which = process.argv[2] ?? 'ledger';
if (!(which in benches)) {
  console.error(`unknown benchmark "${which}" (available: ${Object.keys(benches).join(', ')})`);
  process.exit(2);
}
const results = await benches[which as keyof typeof benches]();
report(results, which);
process.exit(results.every((r) => r.pass) ? 0 : 1);
