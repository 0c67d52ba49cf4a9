import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../../src/http/rate-limit.js';

describe('RateLimiter', () => {
  it('allows a burst, then refills at the rate, per client, with a Retry-After of whole seconds', () => {
    let now = 0;
    const rl = new RateLimiter({ requestsPerSecond: 2, burst: 3, maxClients: 10 }, () => now);
    expect([rl.take('a'), rl.take('a'), rl.take('a')].every((d) => d.ok)).toBe(true);
    expect(rl.take('a')).toEqual({ ok: false, retryAfterSeconds: 1 });
    expect(rl.take('b').ok).toBe(true); // another client has its own bucket
    now = 500; // one token back
    expect(rl.take('a').ok).toBe(true);
    expect(rl.take('a').ok).toBe(false);
    now = 100_000; // refilled, but never above the burst
    expect([rl.take('a'), rl.take('a'), rl.take('a')].every((d) => d.ok)).toBe(true);
    expect(rl.take('a').ok).toBe(false);
  });

  it('a slow rate gives a longer Retry-After', () => {
    const rl = new RateLimiter({ requestsPerSecond: 0.1, burst: 1, maxClients: 10 }, () => 0);
    expect(rl.take('a').ok).toBe(true);
    expect(rl.take('a')).toEqual({ ok: false, retryAfterSeconds: 10 });
  });

  it('is off at 0 requests per second', () => {
    const rl = new RateLimiter({ requestsPerSecond: 0, burst: 1, maxClients: 10 }, () => 0);
    expect(rl.enabled).toBe(false);
    for (let i = 0; i < 100; i++) expect(rl.take('a').ok).toBe(true);
    expect(rl.size).toBe(0);
  });

  it('tracks at most maxClients, forgetting the least recently seen', () => {
    let now = 0;
    const rl = new RateLimiter({ requestsPerSecond: 1, burst: 1, maxClients: 3 }, () => now);
    for (const c of ['a', 'b', 'c']) rl.take(c);
    expect(rl.take('a').ok).toBe(false); // a is now the most recent
    rl.take('d'); // evicts b
    expect(rl.size).toBe(3);
    expect(rl.take('b').ok).toBe(true); // forgotten, so a fresh bucket (evicts c)
    expect(rl.take('a').ok).toBe(false);
  });
});
