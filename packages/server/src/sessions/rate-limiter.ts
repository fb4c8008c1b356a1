/**
 * Token buckets keyed by credential or session: `rate` tokens per second, bursts up to 2 × rate.
 * A rate of 0 means unlimited. Buckets idle for a minute are forgotten.
 */
import type { Clock } from '../clock.js';

interface Bucket {
  tokens: number;
  at: number;
}

/** What the routes take tokens from: this in-memory limiter, or cluster/redis-rate-limiter.ts. */
export interface Limiter {
  /** 0 when allowed, else the seconds to wait (for Retry-After). */
  take(key: string, ratePerSec: number): number | Promise<number>;
  rejected(key: string): number;
}

export class RateLimiter implements Limiter {
  readonly #clock: Clock;
  readonly #buckets = new Map<string, Bucket>();
  /** Per key: rejections since the last log line, and when that line was written. */
  readonly #rejected = new Map<string, { count: number; loggedAt: number }>();
  #lastSweep = 0;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Takes one token; returns 0 when allowed, else the seconds to wait (for Retry-After). */
  take(key: string, ratePerSec: number): number {
    if (ratePerSec <= 0) return 0;
    const b = this.#refill(key, ratePerSec);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / ratePerSec));
  }

  /** Like `take` without taking: 0 while the bucket has a token, else the seconds to wait. */
  waitFor(key: string, ratePerSec: number): number {
    if (ratePerSec <= 0 || !this.#buckets.has(key)) return 0;
    const b = this.#refill(key, ratePerSec);
    return b.tokens >= 1 ? 0 : Math.max(1, Math.ceil((1 - b.tokens) / ratePerSec));
  }

  #refill(key: string, ratePerSec: number): Bucket {
    const now = this.#clock.now();
    this.#sweep(now);
    const capacity = Math.max(1, 2 * ratePerSec);
    const b = this.#buckets.get(key) ?? { tokens: capacity, at: now };
    b.tokens = Math.min(capacity, b.tokens + ((now - b.at) / 1000) * ratePerSec);
    b.at = now;
    this.#buckets.set(key, b);
    return b;
  }

  /**
   * Counts a rejection of `key`; returns the number to log when a line is due (the first
   * rejection, then at most one line per 10 s per key), else 0. A flood logs a line, not a flood.
   */
  rejected(key: string): number {
    const now = this.#clock.now();
    const r = this.#rejected.get(key) ?? { count: 0, loggedAt: -Infinity };
    r.count++;
    this.#rejected.set(key, r);
    if (now - r.loggedAt < 10_000) return 0;
    const n = r.count;
    r.count = 0;
    r.loggedAt = now;
    return n;
  }

  #sweep(now: number): void {
    if (now - this.#lastSweep < 60_000) return;
    this.#lastSweep = now;
    for (const [k, b] of this.#buckets) if (now - b.at > 60_000) this.#buckets.delete(k);
    for (const [k, r] of this.#rejected) if (now - r.loggedAt > 60_000) this.#rejected.delete(k);
  }
}
