/**
 * Per-client rate limiting for `serve`: a token bucket per client key (the remote address),
 * refilled at `requestsPerSecond` up to `burst`. A client with an empty bucket is told when its
 * next token arrives (the 429's Retry-After, whole seconds, at least 1). Buckets of clients not
 * seen for a while are forgotten least-recently-seen first, so memory stays bounded by
 * `maxClients` whatever the number of addresses.
 */
import type { RateLimitConfig } from './limits.js';

export type RateDecision = { ok: true } | { ok: false; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  atMs: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly config: RateLimitConfig,
    private readonly nowMs: () => number = Date.now,
  ) {}

  get enabled(): boolean {
    return this.config.requestsPerSecond > 0;
  }

  /** Takes one token for `client`. */
  take(client: string): RateDecision {
    if (!this.enabled) return { ok: true };
    const now = this.nowMs();
    const { requestsPerSecond: rate, burst } = this.config;
    let b = this.buckets.get(client);
    if (b) {
      this.buckets.delete(client); // re-inserted below: Map order is least recently seen first
      b.tokens = Math.min(burst, b.tokens + ((now - b.atMs) / 1000) * rate);
      b.atMs = now;
    } else {
      b = { tokens: burst, atMs: now };
      if (this.buckets.size >= this.config.maxClients) {
        const oldest = this.buckets.keys().next();
        if (!oldest.done) this.buckets.delete(oldest.value);
      }
    }
    this.buckets.set(client, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / rate)) };
  }

  /** Clients currently tracked (for tests and metrics). */
  get size(): number {
    return this.buckets.size;
  }
}
