/**
 * The media clock of an engine process: 10 ms ticks from a fixed start (t0 + k·10 ms, so error
 * never accumulates). Late ticks are caught up; beyond `maxCatchUpTicks` the clock jumps ahead
 * and the skipped ticks are counted, so a stall never makes audio drift or pile up.
 *
 * A late tick is a metric, not a silence: every wake-up's lateness (how long after its first due
 * tick it ran) is measured before any catch-up or skip, so a stall shows even when no frame is
 * skipped. `stalls` counts wake-ups STALL_MS or more late; `recentMaxLateMs` is the worst since
 * the last sample() (the engine samples at each health ping: packages/server/src/metrics.ts).
 */
import type { Clock } from '@mouthpiece/protocol';
import { TICK_MS } from './media-clock.js';

/** The media plane's clock: performance.now() and the event loop's timers. */
export const performanceClock: Clock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/**
 * A wake-up this late is a stall: a whole video frame at 25 fps, so a viewer's picture held at
 * least one frame too long.
 */
export const STALL_MS = 40;

export interface SchedulerStats {
  ticks: number;
  skippedTicks: number;
  /** The latest any tick has run since the start, in ms. */
  maxLateMs: number;
  /** Wake-ups STALL_MS or more late since the start. */
  stalls: number;
  /** The latest a tick has run since the previous sample(), in ms. */
  recentMaxLateMs: number;
}

export class MediaScheduler {
  readonly #clock: Clock;
  readonly #tickMs: number;
  readonly #maxCatchUp: number;
  readonly #onTick: (tickIndex: number, ticksLeft: number) => void;
  #t0 = 0;
  #next = 0;
  #timer: unknown;
  #running = false;
  readonly stats: SchedulerStats = { ticks: 0, skippedTicks: 0, maxLateMs: 0, stalls: 0, recentMaxLateMs: 0 };

  /**
   * `ticksLeft` is how many more ticks of the same late batch follow this one (0 when on time):
   * work that a later tick of the batch supersedes (a video frame) may skip.
   */
  constructor(
    onTick: (tickIndex: number, ticksLeft: number) => void,
    opts: { clock?: Clock; tickMs?: number; maxCatchUpTicks?: number } = {},
  ) {
    this.#onTick = onTick;
    this.#clock = opts.clock ?? performanceClock;
    this.#tickMs = opts.tickMs ?? TICK_MS;
    this.#maxCatchUp = opts.maxCatchUpTicks ?? 10;
  }

  /** Starts ticking: the first tick `firstInMs` from now (default at once). */
  start(firstInMs = 0): void {
    if (this.#running) return;
    this.#running = true;
    this.#t0 = this.#clock.now() + firstInMs;
    this.#next = 0;
    this.#schedule();
  }

  stop(): void {
    this.#running = false;
    this.#clock.clearTimeout(this.#timer);
  }

  /** The counters as of now; starts a new window for `recentMaxLateMs`. */
  sample(): SchedulerStats {
    const now = { ...this.stats };
    this.stats.recentMaxLateMs = 0;
    return now;
  }

  #schedule(): void {
    if (!this.#running) return;
    const due = this.#t0 + this.#next * this.#tickMs;
    this.#timer = this.#clock.setTimeout(() => this.#run(), Math.max(0, due - this.#clock.now()));
  }

  #run(): void {
    if (!this.#running) return;
    const now = this.#clock.now();
    this.#measure(now - (this.#t0 + this.#next * this.#tickMs));
    let behind = Math.floor((now - this.#t0) / this.#tickMs) - this.#next + 1;
    if (behind > this.#maxCatchUp) {
      this.stats.skippedTicks += behind - 1;
      this.#next += behind - 1;
      behind = 1;
    }
    for (let i = 0; i < behind; i++) {
      this.#onTick(this.#next++, behind - 1 - i);
      this.stats.ticks++;
    }
    this.#schedule();
  }

  #measure(lateMs: number): void {
    if (lateMs >= STALL_MS) this.stats.stalls++;
    this.stats.maxLateMs = Math.max(this.stats.maxLateMs, lateMs);
    this.stats.recentMaxLateMs = Math.max(this.stats.recentMaxLateMs, lateMs);
  }
}
