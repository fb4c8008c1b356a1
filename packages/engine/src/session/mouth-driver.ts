/**
 * What the mouth shows in each video frame: the speech's mouth sampled at the centre of the audio
 * the frame covers (half a frame ahead of the player), and after an interrupt or the end of
 * speech, an ease to rest over EASE_MS instead of a snap.
 */
import { frameIntervalMs, msToSamples } from '../clock/media-clock.js';
import { REST_MOUTH, type MouthParams } from '../face-state.js';

export const EASE_MS = 120;

export class MouthDriver {
  readonly #aheadSamples: number;
  #last: MouthParams = { ...REST_MOUTH };
  #easeFrom: { mouth: MouthParams; atMs: number } | undefined;

  constructor(fps: number) {
    this.#aheadSamples = Math.round(msToSamples(frameIntervalMs(fps) / 2));
  }

  /** How far ahead of the player's position a frame samples the mouth. */
  get aheadSamples(): number {
    return this.#aheadSamples;
  }

  /** Speech stopped abruptly at `nowMs`: ease from where the mouth was. */
  interrupted(nowMs: number): void {
    this.#easeFrom = { mouth: this.#last, atMs: nowMs };
  }

  /** The mouth of the frame at `nowMs`, given the speech's mouth there (undefined: silence). */
  frame(speech: MouthParams | undefined, nowMs: number): MouthParams {
    let mouth: MouthParams;
    if (speech) {
      mouth = speech;
      this.#easeFrom = undefined;
    } else if (this.#easeFrom) {
      const f = Math.min(1, (nowMs - this.#easeFrom.atMs) / EASE_MS);
      mouth = lerpMouth(this.#easeFrom.mouth, REST_MOUTH, f);
      if (f >= 1) this.#easeFrom = undefined;
    } else {
      mouth = { ...REST_MOUTH };
    }
    this.#last = mouth;
    return mouth;
  }
}

/** Smoothstep between two mouths. */
export function lerpMouth(a: MouthParams, b: MouthParams, f: number): MouthParams {
  const k = f * f * (3 - 2 * f);
  return {
    open: a.open + (b.open - a.open) * k,
    width: a.width + (b.width - a.width) * k,
    round: a.round + (b.round - a.round) * k,
    teeth: a.teeth + (b.teeth - a.teeth) * k,
    lipBite: a.lipBite + (b.lipBite - a.lipBite) * k,
    tongue: a.tongue + (b.tongue - a.tongue) * k,
  };
}
