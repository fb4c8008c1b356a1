import type { Clock } from '@mouthpiece/protocol';

/**
 * A clock for tests: time moves only when `advance()` is called; due timers fire in time order
 * (ties in creation order), and timers created by a firing timer fire too if they fall due.
 */
export class ManualClock implements Clock {
  #now: number;
  #seq = 0;
  readonly #timers = new Map<number, { at: number; seq: number; fn: () => void }>();

  constructor(startMs = Date.UTC(2026, 0, 1)) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): number {
    const id = ++this.#seq;
    this.#timers.set(id, { at: this.#now + Math.max(0, ms), seq: id, fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    if (typeof handle === 'number') this.#timers.delete(handle);
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way. */
  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      let next: { id: number; at: number; seq: number; fn: () => void } | undefined;
      for (const [id, t] of this.#timers) {
        if (t.at <= end && (!next || t.at < next.at || (t.at === next.at && t.seq < next.seq))) {
          next = { id, ...t };
        }
      }
      if (!next) break;
      this.#timers.delete(next.id);
      this.#now = Math.max(this.#now, next.at);
      next.fn();
    }
    this.#now = end;
  }

  /** Number of timers waiting. */
  get pendingTimers(): number {
    return this.#timers.size;
  }
}
