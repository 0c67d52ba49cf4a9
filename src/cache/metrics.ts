/**
 * The contract cache's Prometheus series: hits, misses and errors (from `Cache.stats()`), and the
 * Redis connection state, read at scrape time. Declared by the cache's side (the plumbing in
 * http/metrics.ts knows nothing of the cache) and registered by serve.ts / stack.ts.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { PREFIX } from '../http/metrics.js';
import type { Cache } from './cache.js';

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
