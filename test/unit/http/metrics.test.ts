import { Hono } from 'hono';
import { OpenAPIHono } from '@hono/zod-openapi';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { MemoryCache } from '../../../src/cache/memory-cache.js';
import { honoRouteOf } from '../../../src/http/pipeline.js';
import { gaugeOf, ServiceMetrics } from '../../../src/http/metrics.js';
import { cacheMetrics } from '../../../src/cache/metrics.js';
import { indexMetrics } from '../../../src/contracts/metrics.js';
import { ledgerCallMetrics } from '../../../src/ledger-client/metrics.js';
import { parsePrometheusText, sampleValue } from '../../support/prometheus-text.js';

describe('service metrics', () => {
  it('counts requests and their latency by method, route pattern and status, in valid exposition format', async () => {
    const m = new ServiceMetrics({ service: 'registry' });
    m.observeRequest('POST', '/registry/transfer-instruction/v1/transfer-factory', 200, 0.002);
    m.observeRequest('POST', '/registry/transfer-instruction/v1/transfer-factory', 200, 0.004);
    m.observeRequest('GET', '/registry/metadata/v1/instruments/:instrumentId', 404, 0.0001);
    const f = parsePrometheusText(await m.render());
    const labels = { service: 'registry', method: 'POST', route: '/registry/transfer-instruction/v1/transfer-factory', status: '200' };
    expect(sampleValue(f, 'token_registry_http_requests_total', labels)).toBe(2);
    expect(sampleValue(f, 'token_registry_http_request_duration_seconds_count', labels)).toBe(2);
    expect(sampleValue(f, 'token_registry_http_request_duration_seconds_bucket', { ...labels, le: '0.0025' })).toBe(1);
    expect(sampleValue(f, 'token_registry_http_request_duration_seconds_sum', labels)).toBeCloseTo(0.006);
    expect(sampleValue(f, 'token_registry_http_requests_total', { status: '404', route: '/registry/metadata/v1/instruments/:instrumentId' })).toBe(1);
    expect(f.get('token_registry_http_request_duration_seconds')?.type).toBe('histogram');
  });

  it('ledger calls by endpoint and outcome', async () => {
    const m = new ServiceMetrics({ service: 'registry' });
    const observe = ledgerCallMetrics(m.registry);
    observe({ method: 'POST', path: '/v2/updates', outcome: '200', seconds: 0.01 });
    observe({ method: 'POST', path: '/v2/updates', outcome: 'timeout', seconds: 10 });
    const f = parsePrometheusText(await m.render());
    expect(sampleValue(f, 'token_registry_ledger_requests_total', { endpoint: '/v2/updates', outcome: '200' })).toBe(1);
    expect(sampleValue(f, 'token_registry_ledger_requests_total', { endpoint: '/v2/updates', outcome: 'timeout' })).toBe(1);
    expect(sampleValue(f, 'token_registry_ledger_request_duration_seconds_count', { endpoint: '/v2/updates' })).toBe(2);
  });

  it('follows the cache counters between scrapes; reads index lag and gauges at scrape time', async () => {
    const m = new ServiceMetrics({ service: 'registry' });
    const cache = new MemoryCache({ defaultTtlSeconds: 60, logger: pino({ level: 'silent' }) });
    cacheMetrics(m.registry, cache);
    let lag = 3;
    const applied: Array<(u: { recordTime: string; appliedAtMs: number }) => void> = [];
    indexMetrics(m.registry, { currentOffset: 7, lag: async () => lag, transport: 'websocket', onApplied: (l) => applied.push(l) });
    for (const l of applied) {
      l({ recordTime: '2026-01-01T00:00:00.000000Z', appliedAtMs: Date.parse('2026-01-01T00:00:00.003Z') });
      l({ recordTime: '2026-01-01T00:00:01.000000Z', appliedAtMs: Date.parse('2026-01-01T00:00:01.200Z') });
    }
    let subscribers = 2;
    gaugeOf(m.registry, 'ledger_websocket_subscribers', 'open subscriptions', () => subscribers);
    await cache.set('ns', 'a', { x: 1 });
    await cache.get('ns', 'a');
    await cache.get('ns', 'missing');
    let f = parsePrometheusText(await m.render());
    expect(sampleValue(f, 'token_registry_cache_hits_total', { backend: 'memory' })).toBe(1);
    expect(sampleValue(f, 'token_registry_cache_misses_total', { backend: 'memory' })).toBe(1);
    expect(sampleValue(f, 'token_registry_cache_errors_total', { backend: 'memory' })).toBe(0);
    expect(sampleValue(f, 'token_registry_contract_index_offset')).toBe(7);
    expect(sampleValue(f, 'token_registry_contract_index_lag_offsets')).toBe(3);
    expect(sampleValue(f, 'token_registry_contract_index_follows_websocket')).toBe(1);
    expect(sampleValue(f, 'token_registry_contract_index_apply_delay_seconds_count')).toBe(2);
    expect(sampleValue(f, 'token_registry_contract_index_apply_delay_seconds_bucket', { le: '0.005' })).toBe(1);
    expect(sampleValue(f, 'token_registry_contract_index_apply_delay_seconds_bucket', { le: '0.25' })).toBe(2);
    expect(sampleValue(f, 'token_registry_ledger_websocket_subscribers')).toBe(2);
    expect(sampleValue(f, 'token_registry_redis_up')).toBeUndefined(); // memory cache: no Redis series
    await cache.get('ns', 'a');
    lag = 0;
    subscribers = 0;
    f = parsePrometheusText(await m.render());
    expect(sampleValue(f, 'token_registry_cache_hits_total', { backend: 'memory' })).toBe(2);
    expect(sampleValue(f, 'token_registry_contract_index_lag_offsets')).toBe(0);
    expect(sampleValue(f, 'token_registry_ledger_websocket_subscribers')).toBe(0);
  });

  it('process metrics when asked', async () => {
    const m = new ServiceMetrics({ service: 'ledger', processMetrics: true });
    const f = parsePrometheusText(await m.render());
    expect(sampleValue(f, 'token_registry_process_resident_memory_bytes')).toBeGreaterThan(0);
  });
});

describe('route patterns from a Hono router', () => {
  it('names the matched route, not the raw path, also under mounted apps; unmatched is undefined', () => {
    const inner = new OpenAPIHono();
    inner.use('*', async (_c, next) => next());
    inner.get('/parties/:party', (c) => c.text('x'));
    const app = new Hono();
    app.route('/v2', inner);
    app.all('/proxy/*', (c) => c.text('p'));
    const routeOf = honoRouteOf(app);
    expect(routeOf('GET', '/v2/parties/alice::1220ab')).toBe('/v2/parties/:party');
    expect(routeOf('HEAD', '/v2/parties/bob')).toBe('/v2/parties/:party');
    expect(routeOf('GET', '/proxy/a/b')).toBe('/proxy/*');
    expect(routeOf('GET', '/nowhere')).toBeUndefined();
    expect(routeOf('GET', '/v2/unknown', 404)).toBeUndefined();
    // a sub-app with its own error handler: mounted handlers are wrapped, the method route still wins
    const withErrors = new Hono();
    withErrors.onError((_e, c) => c.text('e', 500));
    withErrors.use('*', async (_c, next) => next());
    withErrors.get('/items/:id', (c) => c.text('x'));
    withErrors.all('/fwd/*', (c) => c.text('f'));
    const host = new Hono();
    host.route('/', withErrors);
    const hostRoute = honoRouteOf(host);
    expect(hostRoute('GET', '/items/7', 200)).toBe('/items/:id');
    expect(hostRoute('POST', '/fwd/x', 200)).toBe('/fwd/*');
    expect(hostRoute('GET', '/none', 404)).toBeUndefined();
  });
});

describe('the test parser is strict', () => {
  it('refuses malformed expositions', () => {
    const ok = '# HELP a_total x\n# TYPE a_total counter\na_total{k="v"} 1\n';
    expect(parsePrometheusText(ok).get('a_total')?.samples).toHaveLength(1);
    for (const bad of [
      ok.trimEnd(), // no final line feed
      '# TYPE a counter\na{k="v} 1\n', // unterminated label
      '# TYPE a counter\na{k="\\x"} 1\n', // bad escape
      '# TYPE a counter\na{1k="v"} 1\n', // bad label name
      '# TYPE a counter\na 1\na 2\n', // duplicate series
      '# TYPE a counter\na one\n', // bad value
      'a 1\n# TYPE a counter\n', // TYPE after samples
      '# TYPE a counter\n# TYPE a gauge\n', // TYPE twice
      '# TYPE a counter\na 1\n# TYPE b counter\nb 1\na{x="1"} 1\n', // interleaved families
      '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_count 1\nh_sum 1\n', // not cumulative
      '# TYPE h histogram\nh_bucket{le="1"} 1\nh_count 1\nh_sum 1\n', // no +Inf
      '# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_count 1\nh_sum 1\n', // +Inf != count
    ]) {
      expect(() => parsePrometheusText(bad), bad).toThrow();
    }
  });
});
