/**
 * Prometheus metrics of one service (registry, ledger, scan, validator), in the text exposition
 * format served at `/metrics`. Built on prom-client: it is the de-facto Node client, its
 * exposition output follows the Prometheus text format 0.0.4, and it brings the standard process
 * metrics (CPU, memory, event-loop lag, GC); writing our own would re-implement escaping,
 * histogram buckets and label handling.
 *
 * Each service has its own registry so that scraping one port reports that service only. The
 * values that live elsewhere (cache counters, index offsets, Redis state, websocket subscribers)
 * are read at scrape time from their owners, which keep no reference to prom-client. This module
 * is the plumbing only (the registry, HTTP series, the name prefix, gauges read at scrape time):
 * each domain module declares its own series beside it (ledger-client/metrics.ts, cache/metrics.ts,
 * contracts/metrics.ts), and serve.ts / stack.ts assemble them.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const PREFIX = 'token_registry_';

/** Seconds buckets for HTTP and ledger latencies: sub-millisecond registry answers to slow ledgers. */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

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
