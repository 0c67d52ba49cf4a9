import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/load.js';
import {
  describeUpstream,
  loadUpstreamsConfig,
  parseUpstreamSpec,
  UpstreamsConfigSchema,
} from '../../../src/config/upstreams.js';

describe('upstreams config (schema)', () => {
  it('defaults every upstream to emulate', () => {
    expect(UpstreamsConfigSchema.parse({})).toEqual({ ledger: { mode: 'emulate' }, scan: { mode: 'emulate' }, validator: { mode: 'emulate' } });
  });

  it('is a tagged union: proxy needs a URL, gets a default timeout, and the URL is normalised', () => {
    const c = UpstreamsConfigSchema.parse({ scan: { mode: 'proxy', url: 'https://scan.sv.example/api/scan/' } });
    expect(c.scan).toEqual({ mode: 'proxy', url: 'https://scan.sv.example/api/scan', timeoutMs: 30_000 });
    expect(UpstreamsConfigSchema.safeParse({ scan: { mode: 'proxy' } }).success).toBe(false);
    expect(UpstreamsConfigSchema.safeParse({ scan: { mode: 'emulate', url: 'http://x' } }).success).toBe(false);
    expect(UpstreamsConfigSchema.safeParse({ scan: { mode: 'mirror' } }).success).toBe(false);
    expect(UpstreamsConfigSchema.safeParse({ wallet: { mode: 'emulate' } }).success).toBe(false);
  });
});

describe('loadUpstreamsConfig (env)', () => {
  it('reads the three variables and the shared timeout', () => {
    const c = loadUpstreamsConfig({
      LEDGER_UPSTREAM: 'proxy:http://participant:7575',
      SCAN_UPSTREAM: 'proxy:https://scan.sv.example/api/scan',
      VALIDATOR_UPSTREAM: 'emulate',
      UPSTREAM_TIMEOUT_MS: '5000',
    });
    expect(c).toEqual({
      ledger: { mode: 'proxy', url: 'http://participant:7575', timeoutMs: 5000 },
      scan: { mode: 'proxy', url: 'https://scan.sv.example/api/scan', timeoutMs: 5000 },
      validator: { mode: 'emulate' },
    });
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('treats unset or empty as emulate unless defaults say otherwise', () => {
    expect(loadUpstreamsConfig({ SCAN_UPSTREAM: '' }).scan).toEqual({ mode: 'emulate' });
    const d = loadUpstreamsConfig({}, { scan: { mode: 'proxy', url: 'http://s/api/scan', timeoutMs: 1 } });
    expect(d.scan).toEqual({ mode: 'proxy', url: 'http://s/api/scan', timeoutMs: 1 });
  });

  it('accepts "proxy <url>" as the issue writes it', () => {
    expect(parseUpstreamSpec('X', 'proxy http://p:7575')).toEqual({ mode: 'proxy', url: 'http://p:7575', timeoutMs: 30_000 });
  });

  const bad: Array<[Record<string, string>, RegExp]> = [
    [{ LEDGER_UPSTREAM: 'proxy' }, /LEDGER_UPSTREAM=proxy needs the upstream URL: LEDGER_UPSTREAM=proxy:http:\/\/participant:7575/],
    [{ SCAN_UPSTREAM: 'proxy:' }, /SCAN_UPSTREAM=proxy needs the upstream URL: SCAN_UPSTREAM=proxy:https:\/\/scan\.sv\.example\/api\/scan/],
    [{ SCAN_UPSTREAM: 'https://scan.example/api/scan' }, /did you mean SCAN_UPSTREAM=proxy:https:\/\/scan\.example\/api\/scan\?/],
    [{ VALIDATOR_UPSTREAM: 'mock' }, /VALIDATOR_UPSTREAM must be "emulate" or "proxy:<url>".*got "mock"/],
    [{ LEDGER_UPSTREAM: 'proxy:participant:7575' }, /LEDGER_UPSTREAM: the upstream URL must be an http or https URL, got participant/],
    [{ LEDGER_UPSTREAM: 'proxy:not a url' }, /LEDGER_UPSTREAM: the upstream URL not a URL/],
    [{ LEDGER_UPSTREAM: 'proxy:ftp://p' }, /must be an http or https URL, got ftp/],
    [{ LEDGER_UPSTREAM: 'proxy:http://u:pw@p:7575' }, /must not contain credentials/],
    [{ SCAN_UPSTREAM: 'proxy:http://s/api/scan?x=1' }, /must not have a query or fragment/],
    [{ UPSTREAM_TIMEOUT_MS: '5s' }, /UPSTREAM_TIMEOUT_MS must be a whole number of milliseconds greater than 0, got "5s"/],
    [{ UPSTREAM_TIMEOUT_MS: '0' }, /UPSTREAM_TIMEOUT_MS/],
  ];
  it.each(bad)('refuses %j with a clear message', (env, message) => {
    expect(() => loadUpstreamsConfig(env)).toThrow(ConfigError);
    expect(() => loadUpstreamsConfig(env)).toThrow(message);
  });

  it('describes a mode for the start-up table', () => {
    expect(describeUpstream({ mode: 'emulate' })).toBe('emulated');
    expect(describeUpstream({ mode: 'proxy', url: 'http://p:7575', timeoutMs: 100 })).toBe('proxy -> http://p:7575 (timeout 100 ms)');
  });
});
