/** Runs the benchmarks: `npm run bench [-- ledger]`. Exits non-zero when a target is missed. */
import { report, runLedgerBench } from './ledger.js';

const which = process.argv[2] ?? 'ledger';
if (which !== 'ledger') {
  console.error(`unknown benchmark "${which}" (available: ledger)`);
  process.exit(2);
}
const results = await runLedgerBench();
report(results, which);
process.exit(results.every((r) => r.pass) ? 0 : 1);
