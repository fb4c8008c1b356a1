/**
 * Which video frame a session shows at a media tick. Sessions are staggered by a per-session phase
 * (in ticks) so that their frames fall on different ticks. In a late batch of ticks, a frame is
 * skipped only if a newer frame of the same session is due later in that same batch.
 *
 * Speech starting begins a frame on that very tick, between two of the cadence: the first mouth of
 * a turn is drawn with its first audio instead of up to a frame (three ticks) later. The mouth it
 * shows is sampled as every frame's is (face-frame.ts), so lip-sync is unchanged; only the wait
 * for the next frame of the cadence is gone from say → first mouth movement (docs/design.md §9).
 */
import { TICK_MS } from '../clock/media-clock.js';
export class FrameClock {
  readonly #phase: number;
  readonly #fps: number;
  readonly #tickMs: number;
  #last = -1;
  #speechStarts = false;

  constructor(o: { phase: number; fps: number; tickMs?: number }) {
    this.#phase = o.phase;
    this.#fps = o.fps;
    this.#tickMs = o.tickMs ?? TICK_MS;
  }

  /** The frame index of the last frame begun (rendered or skipped), -1 before any. */
  get lastFrame(): number {
    return this.#last;
  }

  /** Speech starts on the tick about to be asked for: it begins a frame whatever the cadence. */
  speechStarts(): void {
    this.#speechStarts = true;
  }

  /** 'render' or 'skip' when tick `tickIndex` begins a frame, undefined when it does not. */
  at(tickIndex: number, ticksLeft = 0): 'render' | 'skip' | undefined {
    const frame = this.#frameAt(tickIndex);
    const starts = this.#speechStarts;
    this.#speechStarts = false;
    if (frame === this.#last && !starts) return undefined;
    this.#last = frame;
    return ticksLeft > 0 && this.#frameAt(tickIndex + ticksLeft) !== frame ? 'skip' : 'render';
  }

  #frameAt(tickIndex: number): number {
    return Math.floor(((tickIndex + this.#phase) * this.#tickMs * this.#fps) / 1000);
  }
}
