/**
 * The ledger client's Prometheus series: calls to the JSON Ledger API by endpoint and outcome, and
 * their duration. Declared by the client's side (the plumbing in http/metrics.ts knows nothing of
 * the ledger) and registered on a service's registry by serve.ts / stack.ts.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import { LATENCY_BUCKETS, PREFIX } from '../http/metrics.js';
import type { LedgerCall } from './client.js';

/** Ledger JSON API calls of a registry's client, by endpoint and outcome. */
export function ledgerCallMetrics(registry: Registry): (call: LedgerCall) => void {
  const calls = new Counter({
    name: `${PREFIX}ledger_requests_total`,
    help: 'Calls to the ledger JSON API, by endpoint and outcome (HTTP status, network, timeout, auth)',
    labelNames: ['method', 'endpoint', 'outcome'],
    registers: [registry],
  });
  const time = new Histogram({
    name: `${PREFIX}ledger_request_duration_seconds`,
    help: 'Duration of one call to the ledger JSON API (one attempt), by endpoint',
    labelNames: ['method', 'endpoint'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  return (c) => {
    calls.inc({ method: c.method, endpoint: c.path, outcome: c.outcome });
    time.observe({ method: c.method, endpoint: c.path }, c.seconds);
  };
}
