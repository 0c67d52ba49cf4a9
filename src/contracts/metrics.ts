/**
 * The contract index's Prometheus series: its offset, its lag behind the ledger, how it follows
 * the ledger and how long transactions take to reach it. Declared by the index's side and
 * registered by serve.ts / stack.ts.
 */
import { Gauge, Histogram, type Registry } from 'prom-client';
import { PREFIX } from '../http/metrics.js';

/** What indexMetrics reads from the contract index (a ContractIndex fits). */
export interface IndexForMetrics {
  currentOffset: number;
  lag(): Promise<number>;
  /** How it follows the ledger now (`websocket` or `poll`). */
  transport?: string;
  onApplied?(listener: (u: { recordTime: string; appliedAtMs: number }) => void): void;
}

/**
 * How far the contract index is behind its ledger: in offsets (ledger end minus the index's
 * offset, read at scrape time; offsets of transactions the admin does not see count too until
 * the index next reads up to the ledger end), and in time (each transaction's record time, the
 * ledger's commit time, to the moment the index had applied it).
 */
export function indexMetrics(registry: Registry, index: IndexForMetrics): void {
  new Gauge({
    name: `${PREFIX}contract_index_offset`,
    help: 'The ledger offset the contract index is current to',
    registers: [registry],
    collect() {
      this.set(index.currentOffset);
    },
  });
  new Gauge({
    name: `${PREFIX}contract_index_lag_offsets`,
    help: 'Ledger end minus the offset the contract index is current to (unchanged when the ledger cannot be asked)',
    registers: [registry],
    async collect() {
      try {
        this.set(await index.lag());
      } catch {
        // the ledger is unreachable: keep the last value rather than fail the scrape
      }
    },
  });
  if (index.transport !== undefined) {
    new Gauge({
      name: `${PREFIX}contract_index_follows_websocket`,
      help: 'Whether the contract index follows the ledger over the websocket update stream (1) or by long polls (0)',
      registers: [registry],
      collect() {
        this.set(index.transport === 'websocket' ? 1 : 0);
      },
    });
  }
  if (index.onApplied) {
    const delay = new Histogram({
      name: `${PREFIX}contract_index_apply_delay_seconds`,
      help: "Time from a transaction's record time on the ledger to the contract index having applied it",
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    });
    index.onApplied((u) => {
      const recorded = Date.parse(u.recordTime);
      // A record time ahead of this host's clock (skew) counts as no delay.
      if (Number.isFinite(recorded)) delay.observe(Math.max(0, u.appliedAtMs - recorded) / 1000);
    });
  }
}
