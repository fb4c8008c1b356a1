/**
 * Training and evaluation of the audio-only model on speech whose phoneme timeline is known
 * (espeak output). Used by train-lipsync.mjs beside it and by src/lipsync/audio-mouth.test.ts; not by the media plane
 * (outside src/: never built or published).
 */
import { Viseme } from '../src/face-state.js';
import {
  CLASS_FEATURES,
  CLASS_FROM,
  FEATURE_COUNT,
  HOP_SAMPLES,
  contextFeatures,
} from '../src/lipsync/audio-features.js';
import type { AudioModelWeights } from '../src/lipsync/audio-model.js';
import { analyzeOpenness } from '../src/lipsync/audio-mouth.js';
import { LEAD_MS, buildMouthTrack } from '../src/lipsync/mouth-track.js';
import { msToSamples } from '../src/clock/media-clock.js';

/** Openness under which the mouth counts as shut. */
const CLOSED_OPEN = 0.15;

export interface LabelledSpeech {
  pcm: Int16Array;
  phonemes: ReadonlyArray<{ ipa: string; startSample: number }>;
}

/** Per 10 ms frame, what the phoneme-driven track shows for the sound at the frame's centre. */
export function truthFrames(
  speech: LabelledSpeech,
  frames: number,
): { openness: Float32Array; viseme: Viseme[] } {
  const track = buildMouthTrack({ phonemes: speech.phonemes, totalSamples: speech.pcm.length });
  const lead = msToSamples(LEAD_MS);
  const openness = new Float32Array(frames);
  const viseme = new Array<Viseme>(frames);
  for (let f = 0; f < frames; f++) {
    const s = f * HOP_SAMPLES + HOP_SAMPLES / 2 - lead;
    openness[f] = track.at(s).open;
    viseme[f] = track.visemeAt(s);
  }
  return { openness, viseme };
}

/** Solves (AᵀA + λI)w = Aᵀy (intercept not penalised) by Gaussian elimination with pivoting. */
function ridge(ata: Float64Array, aty: Float64Array, lambda: number): number[] {
  const n = FEATURE_COUNT;
  const m = Float64Array.from(ata);
  const y = Float64Array.from(aty);
  for (let i = 0; i < n - 1; i++) m[i * n + i] = m[i * n + i]! + lambda;
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r * n + c]!) > Math.abs(m[p * n + c]!)) p = r;
    if (p !== c) {
      for (let k = 0; k < n; k++) [m[c * n + k], m[p * n + k]] = [m[p * n + k]!, m[c * n + k]!];
      [y[c], y[p]] = [y[p]!, y[c]!];
    }
    const d = m[c * n + c]! || 1e-12;
    for (let r = c + 1; r < n; r++) {
      const f = m[r * n + c]! / d;
      if (f === 0) continue;
      for (let k = c; k < n; k++) m[r * n + k] = m[r * n + k]! - f * m[c * n + k]!;
      y[r] = y[r]! - f * y[c]!;
    }
  }
  const w = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let acc = y[r]!;
    for (let k = r + 1; k < n; k++) acc -= m[r * n + k]! * w[k]!;
    w[r] = acc / (m[r * n + r]! || 1e-12);
  }
  return w;
}

export function fitAudioModel(
  corpus: readonly LabelledSpeech[],
  lambda = 1,
): Pick<AudioModelWeights, 'openness' | 'classScale' | 'classes'> {
  const n = FEATURE_COUNT;
  const ata = new Float64Array(n * n);
  const aty = new Float64Array(n);
  const sums = new Map<Viseme, { count: number; sum: Float64Array }>();
  const total = new Float64Array(CLASS_FEATURES);
  const totalSq = new Float64Array(CLASS_FEATURES);
  let count = 0;
  for (const speech of corpus) {
    const { frames, x } = contextFeatures(speech.pcm);
    const truth = truthFrames(speech, frames);
    for (let f = 0; f < frames; f++) {
      const o = f * n;
      const y = truth.openness[f]!;
      for (let i = 0; i < n; i++) {
        const xi = x[o + i]!;
        aty[i] = aty[i]! + xi * y;
        for (let j = i; j < n; j++) ata[i * n + j] = ata[i * n + j]! + xi * x[o + j]!;
      }
      const v = truth.viseme[f]!;
      let s = sums.get(v);
      if (!s) sums.set(v, (s = { count: 0, sum: new Float64Array(CLASS_FEATURES) }));
      s.count++;
      for (let i = 0; i < CLASS_FEATURES; i++) s.sum[i] = s.sum[i]! + x[o + CLASS_FROM + i]!;
    }
  }
  for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) ata[i * n + j] = ata[j * n + i]!;
  const classes = [...sums.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([viseme, s]) => ({ viseme, mean: Array.from(s.sum, (v) => v / s.count) }));
  // pooled within-class spread, so every feature counts by how well it separates classes
  for (const speech of corpus) {
    const { frames, x } = contextFeatures(speech.pcm);
    const truth = truthFrames(speech, frames);
    for (let f = 0; f < frames; f++) {
      const mean = classes.find((c) => c.viseme === truth.viseme[f])!.mean;
      for (let i = 0; i < CLASS_FEATURES; i++) {
        const d = x[f * n + CLASS_FROM + i]! - mean[i]!;
        total[i] = total[i]! + d;
        totalSq[i] = totalSq[i]! + d * d;
      }
      count++;
    }
  }
  const classScale = Array.from({ length: CLASS_FEATURES }, (_, i) => {
    const varI = totalSq[i]! / count - (total[i]! / count) ** 2;
    return 1 / Math.sqrt(Math.max(1e-4, varI));
  });
  return { openness: ridge(ata, aty, lambda), classScale, classes };
}

function pearson(a: ArrayLike<number>, b: ArrayLike<number>, lag = 0): number {
  let n = 0;
  let sa = 0;
  let sb = 0;
  for (let i = 0; i < a.length; i++) {
    const j = i + lag;
    if (j < 0 || j >= b.length) continue;
    n++;
    sa += a[i]!;
    sb += b[j]!;
  }
  const ma = sa / n;
  const mb = sb / n;
  let num = 0;
  let da = 0;
  let db = 0;
  for (let i = 0; i < a.length; i++) {
    const j = i + lag;
    if (j < 0 || j >= b.length) continue;
    num += (a[i]! - ma) * (b[j]! - mb);
    da += (a[i]! - ma) ** 2;
    db += (b[j]! - mb) ** 2;
  }
  return da > 0 && db > 0 ? num / Math.sqrt(da * db) : 0;
}

export interface AudioModelScore {
  /** Pearson r of openness against the phoneme-driven truth, 100 Hz. */
  r: number;
  /** The lag (ms, positive = prediction late) with the best correlation, within ±100 ms. */
  lagMs: number;
  /** True lip closures (A runs inside speech) with a predicted closure within ±20 ms. */
  closures: { total: number; detected: number };
  /** Share of predicted closure frames where the true mouth is shut (open < 0.15) within ±30 ms. */
  closurePrecision: number;
}

export function scoreAudioModel(
  speech: LabelledSpeech,
  model?: Readonly<AudioModelWeights>,
): AudioModelScore {
  const pred = analyzeOpenness(speech.pcm, model);
  const frames = pred.openness.length;
  const truth = truthFrames(speech, frames);
  const r = pearson(pred.openness, truth.openness);
  let lagMs = 0;
  let bestR = -Infinity;
  for (let lag = -10; lag <= 10; lag++) {
    const rl = pearson(truth.openness, pred.openness, lag);
    if (rl > bestR) {
      bestR = rl;
      lagMs = lag * 10;
    }
  }
  const isA = (f: number): boolean => truth.viseme[f] === Viseme.A;
  let total = 0;
  let detected = 0;
  for (let f = 0; f < frames; f++) {
    if (!isA(f) || (f > 0 && isA(f - 1))) continue;
    let end = f;
    while (end + 1 < frames && isA(end + 1)) end++;
    total++;
    let hit = false;
    for (let k = Math.max(0, f - 2); k <= Math.min(frames - 1, end + 2); k++)
      if (pred.closures[k] === 1) hit = true;
    if (hit) detected++;
  }
  // a predicted closure is right where the true mouth is (nearly) shut within ±30 ms: a
  // closure, a pause, or the silent gap of another stop's release
  let predicted = 0;
  let right = 0;
  for (let f = 0; f < frames; f++) {
    if (pred.closures[f] !== 1) continue;
    predicted++;
    let near = false;
    for (let k = Math.max(0, f - 3); k <= Math.min(frames - 1, f + 3); k++)
      if (truth.openness[k]! < CLOSED_OPEN) near = true;
    if (near) right++;
  }
  return {
    r,
    lagMs,
    closures: { total, detected },
    closurePrecision: predicted === 0 ? 1 : right / predicted,
  };
}
