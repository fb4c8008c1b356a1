/**
 * Mouth movement from audio alone (uploads, docs/design.md §6.4): openness from the trained ridge
 * model, lip closures where the nearest-class-mean classifier hears a bilabial inside speech.
 * Analysis is offline, so windows are centred and smoothing is zero-phase: nothing lags the
 * sound. Mouth *shape* is not recoverable from audio across voices, so the shapes used are the
 * open/closed series X → B → C → D, and A for closures, which like the phoneme track are held
 * ≥ 60 ms and lead the sound by 20 ms.
 */
import { REST_MOUTH, Viseme, type MouthParams } from '../face-state.js';
import {
  HOP_SAMPLES,
  bandEnergies,
  bandEnergiesAsync,
  normalizeBands,
  type BandEnergies,
} from './audio-features.js';
import { AUDIO_MODEL, predictFrames, type AudioModelWeights } from './audio-model.js';
import { MOUTH_SHAPES, mixMouth } from './mouth-shapes.js';
import { LEAD_MS, MIN_CLOSURE_MS, type MouthTrack } from './mouth-track.js';
import { signatureAt } from './sound-signature.js';
import { msToSamples } from '../clock/media-clock.js';

/** Half-width (frames) of the triangular zero-phase smoothing of openness. */
const SMOOTH_FRAMES = 2;
/** A closure needs speech (openness above this) within ±SPEECH_NEAR_FRAMES. */
const SPEECH_OPEN = 0.3;
const SPEECH_NEAR_FRAMES = 15;
/** Shortest run of closure-class frames believed (10 ms frames). */
const MIN_CLOSURE_RUN = 1;
/** …during which the regression must also think the mouth nearly shut. */
const CLOSURE_MAX_OPEN = 0.4;

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
  /** 0..1 per 10 ms frame (frame f is centred on sample f·480 + 240), smoothed. */
  openness: Float32Array;
  /** 1 where the lips are judged closed inside speech (held ≥ 60 ms, ending at the release). */
  closures: Uint8Array;
}

export function analyzeOpenness(
  input: Int16Array | BandEnergies,
  model: Readonly<AudioModelWeights> = AUDIO_MODEL,
): AudioMouthAnalysis {
  const pred = predictFrames(input, model);
  const frames = pred.frames;
  const openness = smooth(pred.openness, SMOOTH_FRAMES);
  const closures = new Uint8Array(frames);
  const minFrames = Math.round(MIN_CLOSURE_MS / 10);
  for (let f = 0; f < frames; f++) {
    if (pred.viseme[f] !== Viseme.A || (f > 0 && pred.viseme[f - 1] === Viseme.A)) continue;
    let end = f;
    while (end + 1 < frames && pred.viseme[end + 1] === Viseme.A) end++;
    if (end - f + 1 < MIN_CLOSURE_RUN) continue;
    let minOpen = 1;
    for (let k = f; k <= end; k++) minOpen = Math.min(minOpen, pred.openness[k]!);
    if (minOpen > CLOSURE_MAX_OPEN) continue;
    let speechNear = false;
    for (let k = Math.max(0, f - SPEECH_NEAR_FRAMES); k < Math.min(frames, end + SPEECH_NEAR_FRAMES); k++)
      if (openness[k]! > SPEECH_OPEN) speechNear = true;
    if (!speechNear) continue;
    for (let k = Math.max(0, Math.min(f, end + 1 - minFrames)); k <= end; k++) closures[k] = 1;
  }
  return { openness, closures };
}

/** Openness → the open/closed series X → B → C → D, blended; a closure → A (also used live: live-audio-mouth.ts). */
export function shapeFor(open: number, closed: boolean): { mouth: MouthParams; viseme: Viseme } {
  if (closed) return { mouth: { ...MOUTH_SHAPES.A }, viseme: Viseme.A };
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
      const f = Math.max(0, (open - x0) / (x1 - x0));
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

function trackOf(
  { openness, closures }: AudioMouthAnalysis,
  durationSamples: number,
  bands: BandEnergies,
): MouthTrack {
  const norm = normalizeBands(bands.frames, bands.bands);
  const n = openness.length;
  const shapes = Array.from(openness, (o, f) => shapeFor(o, closures[f] === 1));
  const lead = msToSamples(LEAD_MS);
  // the mouth shows at `sample` what sounds LEAD_MS later
  const idx = (sample: number): number =>
    Math.min(n - 1, Math.max(0, Math.round((sample + lead - HOP_SAMPLES / 2) / HOP_SAMPLES)));
  return {
    durationSamples,
    at: (sample) => (n === 0 ? { ...REST_MOUTH } : { ...shapes[idx(sample)]!.mouth }),
    visemeAt: (sample) => (n === 0 ? Viseme.X : shapes[idx(sample)]!.viseme),
    emphasisAt: (sample) => (n === 0 ? 0 : Math.max(0, (openness[idx(sample)]! - 0.7) / 0.3)),
    soundAt: (sample) => signatureAt(norm, bands.frames, idx(sample)),
  };
}

/** The mouth track of speech known only as audio (≈ 3.5 ms of CPU per second of audio). */
export function analyzeAudioMouth(
  pcm48k: Int16Array,
  model: Readonly<AudioModelWeights> = AUDIO_MODEL,
): MouthTrack {
  const bands = bandEnergies(pcm48k);
  return trackOf(analyzeOpenness(bands, model), pcm48k.length, bands);
}

/** The same result as analyzeAudioMouth, yielding to the event loop every few milliseconds of work. */
export async function analyzeAudioMouthAsync(
  pcm48k: Int16Array,
  model: Readonly<AudioModelWeights> = AUDIO_MODEL,
): Promise<MouthTrack> {
  const bands = await bandEnergiesAsync(pcm48k);
  return trackOf(analyzeOpenness(bands, model), pcm48k.length, bands);
}
