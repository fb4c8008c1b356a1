import { describe, expect, it } from 'vitest';
import type { Clock } from '@mouthpiece/protocol';
import { MediaScheduler, STALL_MS } from './media-scheduler.js';

class FakeClock implements Clock {
  t = 1000;
  timers: Array<{ at: number; fn: () => void; id: number }> = [];
  #id = 0;
  now = (): number => this.t;
  setTimeout = (fn: () => void, ms: number): number => {
    const id = ++this.#id;
    this.timers.push({ at: this.t + ms, fn, id });
    return id;
  };
  clearTimeout = (h: unknown): void => {
    this.timers = this.timers.filter((t) => t.id !== h);
  };
  /** Advances to `to`, firing timers; `lateBy` delays each firing (a busy event loop). */
  run(to: number, lateBy = 0): void {
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at);
      const t = this.timers[0];
      if (!t || t.at + lateBy > to) break;
      this.timers.shift();
      this.t = Math.max(this.t, t.at + lateBy);
      t.fn();
    }
    this.t = to;
  }
}

describe('MediaScheduler', () => {
  it('ticks every 10 ms from a fixed start, without drift', () => {
    const clock = new FakeClock();
    const ticks: number[] = [];
    const s = new MediaScheduler((k) => ticks.push(k), { clock });
    s.start();
    clock.run(1000 + 1000, 3); // each timer fires 3 ms late: the schedule stays anchored to t0
    expect(ticks.length).toBeGreaterThanOrEqual(100);
    expect(ticks.length).toBeLessThanOrEqual(101);
    expect(ticks.slice(0, 5)).toEqual([0, 1, 2, 3, 4]);
    s.stop();
  });

  it('catches up late ticks in order, and skips (counted) beyond the limit', () => {
    const clock = new FakeClock();
    const ticks: number[] = [];
    const late: number[] = [];
    const s = new MediaScheduler(
      (k, ticksLeft) => {
        ticks.push(k);
        if (ticksLeft > 0) late.push(k);
      },
      { clock, maxCatchUpTicks: 10 },
    );
    s.start();
    clock.run(1000); // tick 0
    clock.t = 1055; // a 55 ms stall: 5 ticks late, caught up
    clock.run(1055);
    expect(ticks).toEqual([0, 1, 2, 3, 4, 5]);
    expect(late).toEqual([1, 2, 3, 4]); // told how many ticks of the batch follow each one
    clock.t = 1555; // a 500 ms stall: skipped ahead
    clock.run(1555);
    expect(s.stats.skippedTicks).toBeGreaterThan(40);
    expect(ticks.at(-1)).toBe(55);
    s.stop();
    const n = ticks.length;
    clock.run(3000);
    expect(ticks.length).toBe(n);
  });

  it('a held thread is a stall with its lateness, even when the clock skips past it and no frame is skipped', () => {
    const clock = new FakeClock();
    const s = new MediaScheduler(() => undefined, { clock, maxCatchUpTicks: 10 });
    s.start();
    clock.run(1200, 3); // timers 3 ms late: not a stall
    expect(s.stats.stalls).toBe(0);
    expect(s.stats.maxLateMs).toBeLessThan(STALL_MS);
    const first = s.sample();
    expect(first.recentMaxLateMs).toBeGreaterThanOrEqual(3);
    expect(s.stats.recentMaxLateMs).toBe(0); // sampled: a new window starts

    clock.t = 1200 + 330; // the media thread held for 330 ms (a session's start reading a pack)
    clock.run(1200 + 330);
    expect(s.stats.skippedTicks).toBeGreaterThan(0);
    expect(s.stats.stalls).toBe(1);
    expect(s.stats.maxLateMs).toBeGreaterThanOrEqual(320); // measured before the clock jumped ahead
    expect(s.sample().recentMaxLateMs).toBeGreaterThanOrEqual(320);

    clock.t += 25; // a short hold, caught up tick by tick (no skip): still under a stall
    clock.run(clock.t);
    clock.t += STALL_MS + 15; // one over the bound
    clock.run(clock.t);
    expect(s.stats.stalls).toBe(2);
    const last = s.sample();
    expect(last.recentMaxLateMs).toBeGreaterThanOrEqual(STALL_MS);
    expect(last.recentMaxLateMs).toBeLessThan(320);
    s.stop();
  });
});
