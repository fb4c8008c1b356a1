/**
 * Time, as every part of the service receives it: the server's expiry, idle and retention timers,
 * an engine process's media scheduler, a session's speech queue, the test host's ticks. One
 * interface, so one manual clock (packages/engine/src/testing/manual-clock.ts) drives any of them
 * in a test. `now()` is milliseconds on the clock's own scale (wall time for the server's
 * expiries, a monotonic clock for the media plane).
 */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}
