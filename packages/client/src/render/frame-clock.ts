/**
 * When each animation frame is drawn (docs/design.md §13.4). A frame is stamped with the engine's
 * audio sample it belongs to; it should show when that sample is heard. The page cannot see the
 * engine's sample clock, so it maps stamps to its own clock from the frames' arrival: the least
 * (arrival − stamp time) over the last frames is the path without queueing delay (a frame late on
 * the channel only raises its own value). From there to the ear:
 *
 *   the stamp is half a video frame past the audio handed to the network with it, and an Opus
 *   packet leaves once it is complete (on average half a packet later): animationSendLeadMs() of
 *   the timing the engine announced in this connection's `hello` (packages/protocol/src/animation.ts;
 *   the protocol's defaults until it has spoken),
 *   the receiver's jitter buffer holds each sample (inbound-rtp audio: Δ jitterBufferDelay /
 *   Δ jitterBufferEmittedCount, sampled every 250 ms: audioDelayMs()),
 *   and the output device plays it (the browser's estimate where it gives one, else a guess:
 *   output-latency.ts).
 *
 * A frame drawn in a requestAnimationFrame callback shows at the next display refresh, one refresh
 * interval after the callback's timestamp (RefreshMeter measures the interval): a callback takes the
 * frames due before the middle of the refresh it draws for (drawUntilMs()), so each frame shows at
 * the refresh nearest its audio rather than up to a refresh after it. The frames channel is
 * unordered (latest wins): a frame older than the newest one pushed is dropped. Pure: the caller
 * passes the clock (the callback's timestamp, or performance.now() off the display) and the stats.
 */
import {
  animationSendLeadMs,
  DEFAULT_STREAM_TIMING,
  type AnimationFrame,
  type StreamTiming,
} from '@mouthpiece/protocol';
import { DEFAULT_OUTPUT_LATENCY_MS, saneOutputLatencyMs } from './output-latency.js';

/** The display's refresh interval until measured (60 Hz). */
export const DEFAULT_REFRESH_MS = 1000 / 60;
/** Gaps between animation-frame callbacks longer than this are pauses, not the refresh interval. */
export const MAX_REFRESH_MS = 100;
/** Refresh intervals the meter takes its median from. */
export const REFRESH_WINDOW = 30;
/** The jitter buffer's delay until the stats have said it. */
export const DEFAULT_AUDIO_DELAY_MS = 40;
/** Frames whose (arrival − stamp) the mapping takes its least from: 2 s at 25 fps. */
export const OFFSET_WINDOW = 50;
/** Frames held at most (a stalled page drops the oldest). */
export const MAX_QUEUED = 100;

/** One reading of the receiver's inbound-rtp audio stats (cumulative counters). */
export interface AudioStatsSample {
  /** Seconds, summed over emitted samples. */
  jitterBufferDelay: number;
  jitterBufferEmittedCount: number;
}

/**
 * The jitter buffer's delay (ms) over the interval between two readings; undefined when no
 * audio left the buffer in between (keep the previous figure).
 */
export function audioDelayMs(prev: AudioStatsSample | undefined, next: AudioStatsSample): number | undefined {
  const count = next.jitterBufferEmittedCount - (prev?.jitterBufferEmittedCount ?? 0);
  const delay = next.jitterBufferDelay - (prev?.jitterBufferDelay ?? 0);
  if (!(count > 0) || !(delay >= 0)) return undefined;
  return (delay / count) * 1000;
}

/** From a frame's arrival (on the mapped, queue-free path) to drawing it: ms. */
export function playoutLeadMs(
  timing: StreamTiming,
  audioDelay: number,
  outputLatency = DEFAULT_OUTPUT_LATENCY_MS,
): number {
  return animationSendLeadMs(timing) + audioDelay + outputLatency;
}

/**
 * What a requestAnimationFrame callback stamped `callbackMs` draws: its frame shows one refresh
 * later and stays up for one refresh, so it takes the frames due before the middle of that refresh
 * (a frame due earlier would show later at the next one, a frame due later earlier at this one).
 */
export function drawUntilMs(callbackMs: number, refreshMs: number): number {
  return callbackMs + 1.5 * refreshMs;
}

/** The display's refresh interval: the median gap between consecutive animation-frame callbacks. */
export class RefreshMeter {
  readonly #gaps: number[] = [];
  #last: number | undefined;

  /** A callback ran with this timestamp. */
  tick(callbackMs: number): void {
    const gap = this.#last === undefined ? undefined : callbackMs - this.#last;
    this.#last = callbackMs;
    if (gap === undefined || !(gap > 0) || gap > MAX_REFRESH_MS) return;
    this.#gaps.push(gap);
    if (this.#gaps.length > REFRESH_WINDOW) this.#gaps.shift();
  }

  /** The callbacks stopped (nothing to draw): the next gap is a pause, not a refresh. */
  pause(): void {
    this.#last = undefined;
  }

  get refreshMs(): number {
    if (this.#gaps.length === 0) return DEFAULT_REFRESH_MS;
    const sorted = [...this.#gaps].sort((a, b) => a - b);
    return sorted[sorted.length >> 1]!;
  }
}

interface Queued {
  frame: AnimationFrame;
  /** The stamp in ms on the unwrapped sample clock. */
  stampMs: number;
}

/** Frames in, the frame due now out; hold the last one when none is due. */
export class FrameClock {
  readonly #queue: Queued[] = [];
  readonly #offsets: number[] = [];
  #lastRaw: number | undefined;
  #samples = 0;
  #audioDelayMs = DEFAULT_AUDIO_DELAY_MS;
  #outputLatencyMs = DEFAULT_OUTPUT_LATENCY_MS;
  #timing: StreamTiming = DEFAULT_STREAM_TIMING;

  /** Frames waiting to be due. */
  get queued(): number {
    return this.#queue.length;
  }

  get audioDelay(): number {
    return this.#audioDelayMs;
  }

  /** The receiver's jitter-buffer delay now (from audioDelayMs()). */
  setAudioDelay(ms: number): void {
    if (Number.isFinite(ms) && ms >= 0) this.#audioDelayMs = ms;
  }

  get timing(): StreamTiming {
    return this.#timing;
  }

  /** How the engine times the stream, as this connection's `hello` said (streamTiming()). */
  setTiming(timing: StreamTiming): void {
    this.#timing = timing;
  }

  get outputLatency(): number {
    return this.#outputLatencyMs;
  }

  /** The audio output's latency, as the browser estimates it (output-latency.ts); clamped. */
  setOutputLatency(ms: number): void {
    const sane = saneOutputLatencyMs(ms);
    if (sane !== undefined) this.#outputLatencyMs = sane;
  }

  /** A frame arrived at `arrivalMs` (the page's clock). */
  push(frame: AnimationFrame, arrivalMs: number): void {
    const raw = frame.sampleIndex >>> 0;
    // stamps are modulo 2^32: the signed 32-bit step from the newest one unwraps them
    const step = this.#lastRaw === undefined ? undefined : (raw - this.#lastRaw) | 0;
    if (step !== undefined && step <= 0) return; // overtaken on the unordered channel: stale
    this.#samples = step === undefined ? raw : this.#samples + step;
    this.#lastRaw = raw;
    const stampMs = (this.#samples / this.#timing.stampRateHz) * 1000;
    this.#offsets.push(arrivalMs - stampMs);
    if (this.#offsets.length > OFFSET_WINDOW) this.#offsets.shift();
    this.#queue.push({ frame, stampMs });
    if (this.#queue.length > MAX_QUEUED) this.#queue.shift();
  }

  /** When the frame stamped `stampMs` is drawn, on the page's clock. */
  dueMs(stampMs: number): number {
    const lead = playoutLeadMs(this.#timing, this.#audioDelayMs, this.#outputLatencyMs);
    return stampMs + Math.min(...this.#offsets) + lead;
  }

  /** The newest frame due at `nowMs` (older due ones are dropped); undefined: hold what shows. */
  take(nowMs: number): AnimationFrame | undefined {
    let due: Queued | undefined;
    while (this.#queue.length > 0 && this.dueMs(this.#queue[0]!.stampMs) <= nowMs) due = this.#queue.shift();
    return due?.frame;
  }

  /** A new connection: its stamps continue the count, but its path is new. */
  reset(): void {
    this.#queue.length = 0;
    this.#offsets.length = 0;
    this.#lastRaw = undefined;
  }
}
