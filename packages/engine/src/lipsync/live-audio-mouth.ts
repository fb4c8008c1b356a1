/**
 * The audio-only mouth of speech that is still arriving (a streamed provider sentence before its
 * phonemes are known): band energies are computed once per new 10 ms frame, and the openness
 * model runs over the last WINDOW_FRAMES frames after each chunk, so the work per second of
 * speech stays constant. The newest frames lack their right-hand context and are revised when
 * more audio comes; the player is always behind them by the time it plays them. Its sound
 * signatures (a video avatar's sound matching, sound-signature.ts) are normalised over the same
 * window.
 */
import { REST_MOUTH, Viseme, type MouthParams } from '../face-state.js';
import {
  BAND_COUNT,
  FRAME_REACH_SAMPLES,
  HOP_SAMPLES,
  bandEnergiesRange,
  normalizeBands,
} from './audio-features.js';
import { analyzeOpenness, shapeFor } from './audio-mouth.js';
import { LEAD_MS, type MouthTrack } from './mouth-track.js';
import { signatureAt } from './sound-signature.js';
import { msToSamples } from '../clock/media-clock.js';

/** Frames the model sees per update (its per-file normalisation needs a second or so). */
const WINDOW_FRAMES = 150;

export class LiveAudioMouth implements MouthTrack {
  #pcm: Int16Array = new Int16Array(0);
  #bands = new Float32Array(0);
  /** Frames with band energies. */
  #frames = 0;
  #openness = new Float32Array(0);
  #closures = new Uint8Array(0);
  #norm = new Float32Array(0);
  readonly #lead = msToSamples(LEAD_MS);

  get durationSamples(): number {
    return this.#pcm.length;
  }

  /** The audio so far (the caller's buffer; appended to as it grows). */
  update(pcm: Int16Array, final = false): void {
    this.#pcm = pcm;
    const ready = final
      ? Math.ceil(pcm.length / HOP_SAMPLES)
      : Math.max(0, Math.floor((pcm.length - FRAME_REACH_SAMPLES) / HOP_SAMPLES) + 1);
    if (ready <= this.#frames) return;
    const bands = new Float32Array(ready * BAND_COUNT);
    bands.set(this.#bands);
    bands.set(bandEnergiesRange(pcm, this.#frames, ready), this.#frames * BAND_COUNT);
    this.#bands = bands;
    const from = Math.max(0, ready - WINDOW_FRAMES);
    const { openness, closures } = analyzeOpenness({
      frames: ready - from,
      bands: bands.subarray(from * BAND_COUNT),
    });
    const o = new Float32Array(ready);
    const c = new Uint8Array(ready);
    o.set(this.#openness.subarray(0, from));
    c.set(this.#closures.subarray(0, from));
    o.set(openness, from);
    c.set(closures, from);
    const norm = new Float32Array(ready * BAND_COUNT);
    norm.set(this.#norm.subarray(0, from * BAND_COUNT));
    norm.set(normalizeBands(ready - from, bands.subarray(from * BAND_COUNT)), from * BAND_COUNT);
    this.#openness = o;
    this.#closures = c;
    this.#norm = norm;
    this.#frames = ready;
  }

  #frame(sample: number): number {
    const n = this.#frames;
    return Math.min(n - 1, Math.max(0, Math.round((sample + this.#lead - HOP_SAMPLES / 2) / HOP_SAMPLES)));
  }

  at(sample: number): MouthParams {
    if (this.#frames === 0) return { ...REST_MOUTH };
    const f = this.#frame(sample);
    return { ...shapeFor(this.#openness[f]!, this.#closures[f] === 1).mouth };
  }

  visemeAt(sample: number): Viseme {
    if (this.#frames === 0) return Viseme.X;
    const f = this.#frame(sample);
    return shapeFor(this.#openness[f]!, this.#closures[f] === 1).viseme;
  }

  soundAt(sample: number): Float32Array {
    return signatureAt(this.#norm, this.#frames, this.#frames === 0 ? 0 : this.#frame(sample));
  }

  emphasisAt(sample: number): number {
    return this.#frames === 0 ? 0 : Math.max(0, (this.#openness[this.#frame(sample)]! - 0.7) / 0.3);
  }
}
