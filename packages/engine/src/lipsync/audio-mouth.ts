/**
 * Mouth movement from audio alone (uploads): openness from band energies weighted towards the
 * first-formant region (where jaw opening shows), normalised per clip by percentiles; lip
 * closures where energy dips inside speech. Zero-phase smoothing keeps it aligned with the sound.
 * Mouth *shape* is not recoverable from audio across voices (notes §3), so the shapes used are
 * the open/closed series X → B → C → D, and A for closures.
 */
import { REST_MOUTH, Viseme, type MouthParams } from '../face-state.js';
import { BAND_COUNT, HOP_SAMPLES, bandEnergies } from './audio-features.js';
import { MOUTH_SHAPES, mixMouth } from './mouth-shapes.js';
import type { MouthTrack } from './mouth-track.js';

/** Band weights: F1 region (300–1200 Hz) carries jaw opening; high bands mark fricatives. */
const OPEN_WEIGHTS = [0.2, 0.6, 1.0, 1.0, 0.9, 0.5, 0.3, 0.1, 0.05, 0.05];

function percentile(values: Float32Array, p: number): number {
  const sorted = Float32Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.floor(p * (sorted.length - 1))))] ?? 0;
}

function smooth(x: Float32Array, radius: number): Float32Array {
  const out = new Float32Array(x.length);
  for (let i = 0; i < x.length; i++) {
    let acc = 0;
    let wsum = 0;
    for (let k = -radius; k <= radius; k++) {
      const j = i + k;
      if (j < 0 || j >= x.length) continue;
      const w = radius + 1 - Math.abs(k);
      acc += x[j]! * w;
      wsum += w;
    }
    out[i] = acc / wsum;
  }
  return out;
}

export interface AudioMouthAnalysis {
  /** 0..1 per 10 ms frame. */
  openness: Float32Array;
  /** Frames judged lip closures inside speech. */
  closures: Uint8Array;
}

export function analyzeOpenness(pcm48k: Int16Array): AudioMouthAnalysis {
  const { frames, bands } = bandEnergies(pcm48k);
  const raw = new Float32Array(frames);
  const loud = new Float32Array(frames);
  for (let f = 0; f < frames; f++) {
    let acc = 0;
    let total = 0;
    for (let b = 0; b < BAND_COUNT; b++) {
      const e = bands[f * BAND_COUNT + b]!;
      acc += OPEN_WEIGHTS[b]! * e;
      total = Math.max(total, e);
    }
    raw[f] = acc;
    loud[f] = total;
  }
  const floor = percentile(raw, 0.1);
  const top = percentile(raw, 0.95);
  const loudFloor = percentile(loud, 0.1);
  const loudTop = percentile(loud, 0.95);
  const span = Math.max(1e-6, top - floor);
  const openness = new Float32Array(frames);
  for (let f = 0; f < frames; f++) openness[f] = Math.min(1, Math.max(0, (raw[f]! - floor) / span));
  const sm = smooth(openness, 2);
  // closures: a dip well below the local maximum while speech is around (±150 ms)
  const closures = new Uint8Array(frames);
  const speechLevel = loudFloor + 0.35 * (loudTop - loudFloor);
  for (let f = 0; f < frames; f++) {
    let localMax = 0;
    let speechNear = false;
    for (let k = Math.max(0, f - 15); k < Math.min(frames, f + 16); k++) {
      localMax = Math.max(localMax, sm[k]!);
      if (loud[k]! > speechLevel) speechNear = true;
    }
    if (speechNear && localMax > 0.4 && sm[f]! < 0.3 * localMax) closures[f] = 1;
  }
  return { openness: sm, closures };
}

function shapeFor(open: number, closed: boolean): { mouth: MouthParams; viseme: Viseme } {
  if (closed) return { mouth: { ...MOUTH_SHAPES.A }, viseme: Viseme.A };
  if (open < 0.08) return { mouth: { ...REST_MOUTH }, viseme: Viseme.X };
  const steps: Array<[number, Viseme]> = [
    [0, Viseme.X],
    [0.3, Viseme.B],
    [0.6, Viseme.C],
    [1, Viseme.D],
  ];
  for (let i = 1; i < steps.length; i++) {
    const [x1, v1] = steps[i]!;
    const [x0, v0] = steps[i - 1]!;
    if (open <= x1) {
      const f = (open - x0) / (x1 - x0);
      return {
        mouth: mixMouth([
          { w: 1 - f, p: MOUTH_SHAPES[v0] },
          { w: f, p: MOUTH_SHAPES[v1] },
        ]),
        viseme: f < 0.5 ? v0 : v1,
      };
    }
  }
  return { mouth: { ...MOUTH_SHAPES.D }, viseme: Viseme.D };
}

export function analyzeAudioMouth(pcm48k: Int16Array): MouthTrack {
  const { openness, closures } = analyzeOpenness(pcm48k);
  const n = openness.length;
  const idx = (sample: number): number => Math.min(n - 1, Math.max(0, Math.round(sample / HOP_SAMPLES)));
  return {
    durationSamples: pcm48k.length,
    at: (sample) =>
      n === 0 ? { ...REST_MOUTH } : shapeFor(openness[idx(sample)]!, closures[idx(sample)] === 1).mouth,
    visemeAt: (sample) =>
      n === 0 ? Viseme.X : shapeFor(openness[idx(sample)]!, closures[idx(sample)] === 1).viseme,
    emphasisAt: (sample) => (n === 0 ? 0 : Math.max(0, (openness[idx(sample)]! - 0.7) / 0.3)),
  };
}
