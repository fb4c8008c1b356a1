/**
 * Rate limits held in Redis, so a credential's requests per second count across every node: the
 * same token bucket as sessions/rate-limiter.ts (rate per second, bursts up to 2 × rate), kept in
 * one hash per key and moved by a script on Redis's clock (nodes' clocks may differ). While Redis
 * is unreachable the node limits on its own buckets instead (a node cut off keeps its limits).
 */
import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import { RateLimiter } from '../sessions/rate-limiter.js';
import { keys } from './redis.js';

/** KEYS: bucket. ARGV: rate, capacity. Returns 0 (allowed) or whole seconds to wait. */
const TAKE = `
local rate = tonumber(ARGV[1])
local cap = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(b[1]) or cap
local at = tonumber(b[2]) or now
tokens = math.min(cap, tokens + (now - at) / 1000 * rate)
local wait = 0
if tokens >= 1 then
  tokens = tokens - 1
else
  wait = math.max(1, math.ceil((1 - tokens) / rate))
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], 60000)
return wait`;

export class RedisRateLimiter {
  readonly #redis: Redis;
  readonly #local: RateLimiter;

  constructor(redis: Redis, clock: Clock) {
    this.#redis = redis;
    this.#local = new RateLimiter(clock);
  }

  /** Takes one token; resolves to 0 when allowed, else the seconds to wait (for Retry-After). */
  async take(key: string, ratePerSec: number): Promise<number> {
    if (ratePerSec <= 0) return 0;
    try {
      const wait = await this.#redis.eval(TAKE, 1, keys.rate(key), ratePerSec, Math.max(1, 2 * ratePerSec));
      return Number(wait);
    } catch {
      return this.#local.take(key, ratePerSec);
    }
  }

  /** Rejections to log now (one line per key per 10 s), counted per node. */
  rejected(key: string): number {
    return this.#local.rejected(key);
  }
}
