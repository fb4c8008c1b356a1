/**
 * What the mouth shows in each video frame: the speech's mouth sampled at the centre of the audio
 * the frame covers (half a frame ahead of the player), and rest in silence. After an interrupt the
 * very next frame is at rest (docs/design.md §13.3): the voice stops at once, and a mouth still
 * closing for three frames after it read as lag. A natural end needs no ease here: the mouth track
 * itself closes into the silence at a sentence's end.
 */
import { frameIntervalMs, msToSamples } from '../clock/media-clock.js';
import { REST_MOUTH, type MouthParams } from '../face-state.js';

export class MouthDriver {
  readonly #aheadSamples: number;

  constructor(fps: number) {
    this.#aheadSamples = Math.round(msToSamples(frameIntervalMs(fps) / 2));
  }

  /** How far ahead of the player's position a frame samples the mouth. */
  get aheadSamples(): number {
    return this.#aheadSamples;
  }

  /** The mouth of a frame, given the speech's mouth there (undefined: silence, or just interrupted). */
  frame(speech: MouthParams | undefined): MouthParams {
    return speech ?? { ...REST_MOUTH };
  }
}
