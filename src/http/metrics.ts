/**
 * Prometheus metrics of one service (registry, ledger, scan, validator), in the text exposition
 * format served at `/metrics`. Built on prom-client: it is the de-facto Node client, its
 * exposition output follows the Prometheus text format 0.0.4, and it brings the standard process
 * metrics (CPU, memory, event-loop lag, GC); writing our own would re-implement escaping,
 * histogram buckets and label handling.
 *
 * Each service has its own registry so that scraping one port reports that service only. The
 * values that live elsewhere (cache counters, index offsets, Redis state, websocket subscribers)
 * are read at scrape time from their owners, which keep no reference to prom-client.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Cache } from '../cache/cache.js';
import type { LedgerCall } from '../ledger/client.js';

const PREFIX = 'token_registry_';

/** Seconds buckets for HTTP and ledger latencies: sub-millisecond registry answers to slow ledgers. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface ServiceMetricsOptions {
  /** `registry`, `ledger`, `scan`, `validator`: the `service` label of the HTTP series. */
  service: string;
  /** Also export the process metrics (one service per process should). */
  processMetrics?: boolean;
}

type RequestLabel = 'service' | 'method' | 'route' | 'status';
const REQUEST_DURATION_HELP = 'Time from request to the end of the answer, by route pattern and status';

/** The counts of one label set, kept in plain numbers: recording a request is a map lookup and a few additions. */
interface RequestSeries {
  labels: Record<RequestLabel, string>;
  count: number;
  sum: number;
  /** Per bucket (not cumulative); the last slot is above every bound (+Inf only). */
  buckets: number[];
}

/**
 * prom-client's Histogram and Counter hash the label set on every observation; on the registry's
 * hot path that cost shows in profiles (bench/registry.ts). These two read one shared store of
 * plain counters instead and render it in prom-client's own format at scrape time.
 */
class RequestStore {
  readonly series = new Map<string, RequestSeries>();
  /** The same series by route, method and status: found with three lookups, no key built per request. */
  private readonly byRoute = new Map<string, Map<string, Map<number, RequestSeries>>>();
  constructor(
    readonly bounds: readonly number[],
    private readonly service: string,
  ) {}

  record(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.byRoute.get(route);
    if (!byMethod) this.byRoute.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let s = byStatus.get(status);
    if (!s) {
      s = { labels: { service: this.service, method, route, status: String(status) }, count: 0, sum: 0, buckets: new Array<number>(this.bounds.length + 1).fill(0) };
      byStatus.set(status, s);
      this.series.set(`${method} ${status} ${route}`, s);
    }
    s.count++;
    s.sum += seconds;
    let i = 0;
    while (i < this.bounds.length && seconds > this.bounds[i]!) i++;
    s.buckets[i]!++;
  }
}

class RequestDurationHistogram extends Histogram<RequestLabel> {
  constructor(
    private readonly store: RequestStore,
    registry: Registry,
  ) {
    super({
      name: `${PREFIX}http_request_duration_seconds`,
      help: REQUEST_DURATION_HELP,
      labelNames: ['service', 'method', 'route', 'status'],
      buckets: [...store.bounds],
      registers: [registry],
    });
  }

  /**
   * What prom-client's registry renders (it prefers this method to get(), and Histogram.get()
   * builds on it): its own shape, with the values read from the store.
   */
  async getForPromString() {
    const name = `${PREFIX}http_request_duration_seconds`;
    const values: Array<{ metricName: string; labels: Record<string, string | number>; sharedLabels: Record<string, string>; value: number }> = [];
    for (const s of this.store.series.values()) {
      let acc = 0;
      this.store.bounds.forEach((le, i) => {
        acc += s.buckets[i]!;
        values.push({ metricName: `${name}_bucket`, labels: { ...s.labels, le }, sharedLabels: {}, value: acc });
      });
      values.push({ metricName: `${name}_bucket`, labels: { ...s.labels, le: '+Inf' }, sharedLabels: {}, value: s.count });
      values.push({ metricName: `${name}_sum`, labels: { ...s.labels }, sharedLabels: {}, value: s.sum });
      values.push({ metricName: `${name}_count`, labels: { ...s.labels }, sharedLabels: {}, value: s.count });
    }
    return { name, help: REQUEST_DURATION_HELP, type: 'histogram', values, aggregator: 'sum' };
  }
}

class RequestCounter extends Counter<RequestLabel> {
  constructor(
    private readonly store: RequestStore,
    registry: Registry,
  ) {
    super({
      name: `${PREFIX}http_requests_total`,
      help: 'HTTP requests answered, by route pattern and status',
      labelNames: ['service', 'method', 'route', 'status'],
      registers: [registry],
    });
  }

  override async get() {
    return { ...(await super.get()), values: [...this.store.series.values()].map((s) => ({ labels: s.labels, value: s.count })) };
  }
}

/** The metrics of one service: its HTTP requests, plus whatever its parts register. */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly service: string;
  private readonly store: RequestStore;

  constructor(opts: ServiceMetricsOptions) {
    this.service = opts.service;
    this.store = new RequestStore(LATENCY_BUCKETS, opts.service);
    new RequestCounter(this.store, this.registry);
    new RequestDurationHistogram(this.store, this.registry);
    if (opts.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: PREFIX });
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.store.record(method, route, status, seconds);
  }

  contentType(): string {
    return this.registry.contentType;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}

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

/** Cache hits, misses and errors (from `Cache.stats()`), and Redis connection state. */
export function cacheMetrics(registry: Registry, cache: Cache): void {
  const backend = cache.health().backend;
  // Counters that follow the cache's own counters: each scrape adds what happened since the last.
  const follow = (name: string, help: string, read: () => number) => {
    let seen = 0;
    new Counter({
      name: `${PREFIX}cache_${name}_total`,
      help,
      labelNames: ['backend'],
      registers: [registry],
      collect() {
        const now = read();
        if (now > seen) this.inc({ backend }, now - seen);
        else this.inc({ backend }, 0);
        seen = Math.max(seen, now);
      },
    });
  };
  follow('hits', 'Cache reads that found the contract', () => cache.stats().hits);
  follow('misses', 'Cache reads that did not (the ledger is asked instead); failed reads included', () => cache.stats().misses);
  follow('errors', 'Cache operations that failed (reads, writes, deletes)', () => cache.stats().errors);
  if (backend === 'redis') {
    new Gauge({
      name: `${PREFIX}redis_up`,
      help: 'Whether the Redis connection is ready and answering (1) or not (0)',
      registers: [registry],
      collect() {
        this.set(cache.health().ok ? 1 : 0);
      },
    });
  }
}

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

/** A gauge read from its owner at scrape time (e.g. open websocket subscriptions). */
export function gaugeOf(registry: Registry, name: string, help: string, read: () => number): void {
  new Gauge({
    name: `${PREFIX}${name}`,
    help,
    registers: [registry],
    collect() {
      this.set(read());
    },
  });
}
