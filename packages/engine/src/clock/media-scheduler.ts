/**
 * The media clock of an engine process: 10 ms ticks from a fixed start (t0 + k·10 ms, so error
 * never accumulates). Late ticks are caught up; beyond `maxCatchUpTicks` the clock jumps ahead
 * and the skipped ticks are counted, so a stall never makes audio drift or pile up.
 */
import { TICK_MS } from './media-clock.js';
export interface SchedulerClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(h: unknown): void;
}

export const performanceClock: SchedulerClock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export interface SchedulerStats {
  ticks: number;
  skippedTicks: number;
  maxLateMs: number;
}

export class MediaScheduler {
  readonly #clock: SchedulerClock;
  readonly #tickMs: number;
  readonly #maxCatchUp: number;
  readonly #onTick: (tickIndex: number, ticksLeft: number) => void;
  #t0 = 0;
  #next = 0;
  #timer: unknown;
  #running = false;
  readonly stats: SchedulerStats = { ticks: 0, skippedTicks: 0, maxLateMs: 0 };

  /**
   * `ticksLeft` is how many more ticks of the same late batch follow this one (0 when on time):
   * work that a later tick of the batch supersedes (a video frame) may skip.
   */
  constructor(
    onTick: (tickIndex: number, ticksLeft: number) => void,
    opts: { clock?: SchedulerClock; tickMs?: number; maxCatchUpTicks?: number } = {},
  ) {
    this.#onTick = onTick;
    this.#clock = opts.clock ?? performanceClock;
    this.#tickMs = opts.tickMs ?? TICK_MS;
    this.#maxCatchUp = opts.maxCatchUpTicks ?? 10;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#t0 = this.#clock.now();
    this.#next = 0;
    this.#schedule();
  }

  stop(): void {
    this.#running = false;
    this.#clock.clearTimeout(this.#timer);
  }

  /** The tick index due now (for callers that need the media time). */
  get tickIndex(): number {
    return this.#next;
  }

  #schedule(): void {
    if (!this.#running) return;
    const due = this.#t0 + this.#next * this.#tickMs;
    this.#timer = this.#clock.setTimeout(() => this.#run(), Math.max(0, due - this.#clock.now()));
  }

  #run(): void {
    if (!this.#running) return;
    const now = this.#clock.now();
    let behind = Math.floor((now - this.#t0) / this.#tickMs) - this.#next + 1;
    if (behind > this.#maxCatchUp) {
      this.stats.skippedTicks += behind - 1;
      this.#next += behind - 1;
      behind = 1;
    }
    this.stats.maxLateMs = Math.max(this.stats.maxLateMs, now - (this.#t0 + this.#next * this.#tickMs));
    for (let i = 0; i < behind; i++) {
      this.#onTick(this.#next++, behind - 1 - i);
      this.stats.ticks++;
    }
    this.#schedule();
  }
}
