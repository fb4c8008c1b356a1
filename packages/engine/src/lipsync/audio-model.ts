/**
 * The audio-only lip-sync model (docs/design.md §6.4): openness by ridge regression over normalised band
 * energies with ±2 frames of context, and mouth classes by nearest class mean (used for lip
 * closures). Its weights are trained by `training/train-lipsync.mjs` on espeak speech with known
 * phonemes and shipped in `model-weights.json`, which the script also writes as `model-weights.ts`
 * (the engine's project does not include JSON files in its build).
 */
import type { Viseme } from '../face-state.js';
import {
  CLASS_FEATURES,
  CLASS_FROM,
  FEATURE_COUNT,
  contextFeatures,
  type BandEnergies,
} from './audio-features.js';
import { MODEL_WEIGHTS } from './model-weights.js';

export interface AudioModelWeights {
  /** FEATURE_COUNT coefficients (the last is the intercept). */
  openness: number[];
  /** Per classifier feature: the scale of its distances (1 / pooled within-class deviation). */
  classScale: number[];
  /** Mean classifier features (CLASS_FEATURES of them) of each mouth class. */
  classes: Array<{ viseme: Viseme; mean: number[] }>;
  /** What produced the weights and how well they did (written by the training script). */
  provenance?: unknown;
}

export const AUDIO_MODEL: Readonly<AudioModelWeights> = MODEL_WEIGHTS;

export interface AudioFramePrediction {
  frames: number;
  /** Unsmoothed openness per 10 ms frame, clamped to 0..1. */
  openness: Float32Array;
  /** The nearest class per frame. */
  viseme: Viseme[];
}

export function predictFrames(
  input: Int16Array | BandEnergies,
  model: Readonly<AudioModelWeights> = AUDIO_MODEL,
): AudioFramePrediction {
  const { frames, x } = contextFeatures(input);
  if (model.openness.length !== FEATURE_COUNT || model.classScale.length !== CLASS_FEATURES)
    throw new Error('the lip-sync model does not fit these features: retrain it');
  const openness = new Float32Array(frames);
  const viseme = new Array<Viseme>(frames);
  for (let f = 0; f < frames; f++) {
    const o = f * FEATURE_COUNT;
    let y = 0;
    for (let k = 0; k < FEATURE_COUNT; k++) y += model.openness[k]! * x[o + k]!;
    openness[f] = Math.min(1, Math.max(0, y));
    let best = Infinity;
    let bestClass: Viseme = 'X';
    for (const c of model.classes) {
      let d = 0;
      for (let k = 0; k < CLASS_FEATURES; k++) {
        const diff = (x[o + CLASS_FROM + k]! - c.mean[k]!) * model.classScale[k]!;
        d += diff * diff;
      }
      if (d < best) {
        best = d;
        bestClass = c.viseme;
      }
    }
    viseme[f] = bestClass;
  }
  return { frames, openness, viseme };
}
