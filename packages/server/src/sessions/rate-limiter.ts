/**
 * Token buckets keyed by credential or session: `rate` tokens per second, bursts up to 2 × rate.
 * A rate of 0 means unlimited. Buckets idle for a minute are forgotten.
 */
import type { Clock } from '../clock.js';

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  readonly #clock: Clock;
  readonly #buckets = new Map<string, Bucket>();
  #lastSweep = 0;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Takes one token; returns 0 when allowed, else the seconds to wait (for Retry-After). */
  take(key: string, ratePerSec: number): number {
    if (ratePerSec <= 0) return 0;
    const now = this.#clock.now();
    this.#sweep(now);
    const capacity = Math.max(1, 2 * ratePerSec);
    const b = this.#buckets.get(key) ?? { tokens: capacity, at: now };
    b.tokens = Math.min(capacity, b.tokens + ((now - b.at) / 1000) * ratePerSec);
    b.at = now;
    this.#buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / ratePerSec));
  }

  #sweep(now: number): void {
    if (now - this.#lastSweep < 60_000) return;
    this.#lastSweep = now;
    for (const [k, b] of this.#buckets) if (now - b.at > 60_000) this.#buckets.delete(k);
  }
}
