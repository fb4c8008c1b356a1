/**
 * The audio output's latency: from the receiver handing a sample to the audio device to the
 * speaker playing it (the last step of a frame's lead, frame-clock.ts; docs/design.md §13.4). The
 * page cannot see it directly; the browser estimates it in two places, read in this order:
 *
 * 1. the connection's own `media-playout` stats (Chromium 111+): Δ`totalPlayoutDelay` /
 *    Δ`totalSamplesCount`, the mean delay of the playout path per sample played. It is the path
 *    the session's audio takes (the SDK's audio element), read with the jitter buffer's stats.
 *    Headless Chromium 156 reports 30 ms (its null output device's buffer).
 * 2. `AudioContext.outputLatency` (Firefox, Chromium 102+): the default output device's latency
 *    seen from a Web Audio graph. Chromium reports 0 until the context's output has started (32 ms
 *    300 ms later in the same headless Chromium; baseLatency, the graph's own 10 ms buffer, is not
 *    on the audio element's path and is not added). ContextLatencyProbe says when one is made.
 *
 * Neither (Safari): DEFAULT_OUTPUT_LATENCY_MS, a guess. A reading is clamped to
 * MAX_OUTPUT_LATENCY_MS: Bluetooth headsets report 150–250 ms, and a figure beyond that is
 * more likely a broken estimate than a device.
 */

/** The guess where the browser says nothing. */
export const DEFAULT_OUTPUT_LATENCY_MS = 10;
/** The most a reading is believed (Bluetooth headsets: 150–250 ms). */
export const MAX_OUTPUT_LATENCY_MS = 300;

/** A `media-playout` stats entry's counters (cumulative). */
export interface PlayoutStatsSample {
  /** Seconds, summed over the samples played. */
  totalPlayoutDelay: number;
  totalSamplesCount: number;
}

/** A reading in ms made sane: undefined when it says nothing (not finite, ≤ 0), else at most the cap. */
export function saneOutputLatencyMs(ms: number | undefined): number | undefined {
  if (ms === undefined || !Number.isFinite(ms) || ms <= 0) return undefined;
  return Math.min(ms, MAX_OUTPUT_LATENCY_MS);
}

/**
 * The playout path's mean delay (ms) over the interval between two `media-playout` readings;
 * undefined when nothing was played in between (keep the previous figure).
 */
export function playoutLatencyMs(
  prev: PlayoutStatsSample | undefined,
  next: PlayoutStatsSample,
): number | undefined {
  const count = next.totalSamplesCount - (prev?.totalSamplesCount ?? 0);
  const delay = next.totalPlayoutDelay - (prev?.totalPlayoutDelay ?? 0);
  if (!(count > 0) || !(delay >= 0)) return undefined;
  return saneOutputLatencyMs((delay / count) * 1000);
}

/** `AudioContext.outputLatency` (seconds; 0 or missing: not known yet) in ms, made sane. */
export function contextLatencyMs(ctx: { readonly outputLatency?: number }): number | undefined {
  const s = ctx.outputLatency;
  return typeof s === 'number' ? saneOutputLatencyMs(s * 1000) : undefined;
}

/**
 * The `media-playout` entry of the stats report that plays the inbound audio (its `playoutId`, or
 * the only one), undefined where the browser has none.
 */
export function playoutStats(
  report: Pick<RTCStatsReport, 'forEach'>,
  playoutId: string | undefined,
): PlayoutStatsSample | undefined {
  let found: PlayoutStatsSample | undefined;
  report.forEach(
    (s: { type?: string; id?: string; totalPlayoutDelay?: number; totalSamplesCount?: number }) => {
      if (s.type !== 'media-playout' || (playoutId !== undefined && s.id !== playoutId)) return;
      if (typeof s.totalPlayoutDelay === 'number' && typeof s.totalSamplesCount === 'number')
        found = { totalPlayoutDelay: s.totalPlayoutDelay, totalSamplesCount: s.totalSamplesCount };
    },
  );
  return found;
}

/** What the probe reads of an AudioContext. */
export type LatencyContext = Pick<AudioContext, 'outputLatency' | 'state' | 'close'>;

/** Polls a probe makes at most (one per stats reading, 250 ms apart) before giving up. */
export const CONTEXT_PROBE_POLLS = 8;

/**
 * One short-lived AudioContext asked for its outputLatency, for browsers whose stats have no
 * `media-playout`. The caller polls it only while the session's audio plays with sound (autoplay
 * allowed: a context made before the page may play sound starts suspended, says nothing and
 * earns a console warning). The first poll makes the context; a later one returns its reading and
 * closes it. A context that is not running, or still says nothing after CONTEXT_PROBE_POLLS, is
 * closed and the guess kept. Closed once done: a page may hold only a few AudioContexts.
 */
export class ContextLatencyProbe {
  readonly #make: () => LatencyContext | undefined;
  #ctx: LatencyContext | undefined;
  #polls = 0;
  #done = false;

  constructor(make: () => LatencyContext | undefined = newAudioContext) {
    this.#make = make;
  }

  get done(): boolean {
    return this.#done;
  }

  /** The latency in ms once the context knows it; undefined meanwhile and after. */
  poll(): number | undefined {
    if (this.#done) return undefined;
    if (!this.#ctx) {
      this.#ctx = this.#make();
      if (!this.#ctx) this.close();
      return undefined; // (0 until its output has started)
    }
    const ms = contextLatencyMs(this.#ctx);
    if (ms !== undefined || this.#ctx.state !== 'running' || ++this.#polls >= CONTEXT_PROBE_POLLS)
      this.close();
    return ms;
  }

  close(): void {
    this.#done = true;
    const ctx = this.#ctx;
    this.#ctx = undefined;
    if (ctx && ctx.state !== 'closed') void ctx.close().catch(() => undefined);
  }
}

function newAudioContext(): LatencyContext | undefined {
  if (typeof AudioContext !== 'function') return undefined;
  try {
    return new AudioContext();
  } catch {
    return undefined; // (too many contexts on the page, or no audio output)
  }
}
