/**
 * Forced alignment for uploads with a known transcript (docs/design.md §6.4): the transcript is
 * synthesized by espeak (whose phoneme times are exact), and that reference audio is aligned to
 * the upload by dynamic time warping over per-file-normalised band energies, 10 ms frames, within
 * a band around the diagonal. Each reference phoneme then lands where its frame matched, giving
 * the upload a phoneme timeline, and so real mouth shapes rather than openness alone.
 */
import { BAND_COUNT, HOP_SAMPLES, bandEnergies, normalizeBands } from './audio-features.js';
import { analyzeAudioMouth } from './audio-mouth.js';
import { buildMouthTrack, type MouthTrack } from './mouth-track.js';

export interface PhonemeEvent {
  ipa: string;
  startSample: number;
}

/** How far the path may stray from the diagonal: a share of the longer clip, within bounds. */
const BAND_SHARE = 0.3;
const BAND_MIN_FRAMES = 50;
const BAND_MAX_FRAMES = 1500;
/** Bound on the DTW table (one byte per cell); longer clips are aligned on coarser frames. */
const MAX_CELLS = 40_000_000;

const bandWidth = (n: number, m: number): number =>
  Math.min(BAND_MAX_FRAMES, Math.max(BAND_MIN_FRAMES, Math.ceil(BAND_SHARE * Math.max(n, m))));

/** Band energies per 10 ms frame, normalised per file, averaged over `step` frames. */
function features(pcm: Int16Array, step: number): { frames: number; x: Float32Array } {
  const { frames, bands } = bandEnergies(pcm);
  const norm = normalizeBands(frames, bands);
  const out = Math.ceil(frames / step);
  const x = new Float32Array(out * BAND_COUNT);
  for (let f = 0; f < frames; f++) {
    const o = Math.floor(f / step);
    const count = Math.min(step, frames - o * step);
    for (let b = 0; b < BAND_COUNT; b++)
      x[o * BAND_COUNT + b] = x[o * BAND_COUNT + b]! + norm[f * BAND_COUNT + b]! / count;
  }
  return { frames: out, x };
}

function distance(a: Float32Array, i: number, b: Float32Array, j: number): number {
  let d = 0;
  for (let k = 0; k < BAND_COUNT; k++) {
    const diff = a[i * BAND_COUNT + k]! - b[j * BAND_COUNT + k]!;
    d += diff * diff;
  }
  return Math.sqrt(d);
}

/**
 * For each reference frame, the first upload frame the warping path matches it with.
 * Steps (1,1), (1,0), (0,1); endpoints fixed at both clips' starts and ends.
 */
function warp(
  up: Float32Array,
  n: number,
  ref: Float32Array,
  m: number,
): { firstUp: Int32Array; meanCost: number } {
  const width = bandWidth(n, m);
  const lo = (i: number): number => Math.max(0, Math.floor((i * (m - 1)) / Math.max(1, n - 1)) - width);
  const hi = (i: number): number => Math.min(m - 1, Math.floor((i * (m - 1)) / Math.max(1, n - 1)) + width);
  const span = 2 * width + 2;
  // moves[i·span + (j − lo(i))]: 0 diagonal, 1 from (i−1, j), 2 from (i, j−1)
  const moves = new Uint8Array(n * span);
  let prev = new Float64Array(m).fill(Infinity);
  let cur = new Float64Array(m).fill(Infinity);
  for (let i = 0; i < n; i++) {
    cur.fill(Infinity);
    for (let j = lo(i); j <= hi(i); j++) {
      const d = distance(up, i, ref, j);
      let best = i === 0 && j === 0 ? 0 : Infinity;
      let move = 0;
      if (i > 0 && j > 0 && prev[j - 1]! + d < best) best = prev[j - 1]! + d;
      if (i > 0 && prev[j]! + d < best) {
        best = prev[j]! + d;
        move = 1;
      }
      if (j > 0 && cur[j - 1]! + d < best) {
        best = cur[j - 1]! + d;
        move = 2;
      }
      cur[j] = best + (i === 0 && j === 0 ? d : 0);
      moves[i * span + (j - lo(i))] = move;
    }
    [prev, cur] = [cur, prev];
  }
  const firstUp = new Int32Array(m).fill(-1);
  let i = n - 1;
  let j = m - 1;
  let cost = 0;
  let steps = 0;
  for (;;) {
    firstUp[j] = i;
    cost += distance(up, i, ref, j);
    steps++;
    if (i === 0 && j === 0) break;
    const move = moves[i * span + (j - lo(i))]!;
    if (j === 0 || (move === 1 && i > 0)) i--;
    else if (i === 0 || move === 2) j--;
    else {
      i--;
      j--;
    }
  }
  // relative to how far apart unrelated frames of the two clips are
  let chance = 0;
  const pairs = Math.min(20_000, n * m);
  for (let k = 0; k < pairs; k++) chance += distance(up, (k * 7919) % n, ref, (k * 104_729) % m);
  return { firstUp, meanCost: cost / steps / Math.max(1e-9, chance / pairs) };
}

type Reference = { pcm: Int16Array; phonemes: ReadonlyArray<PhonemeEvent> };

/** Sentences synthesized one by one, joined into one clip with one timeline. */
function joined(reference: Reference | readonly Reference[]): Reference {
  if (!Array.isArray(reference)) return reference as Reference;
  const parts = reference as readonly Reference[];
  const pcm = new Int16Array(parts.reduce((n, p) => n + p.pcm.length, 0));
  const phonemes: PhonemeEvent[] = [];
  let at = 0;
  for (const p of parts) {
    pcm.set(p.pcm, at);
    for (const ph of p.phonemes) phonemes.push({ ipa: ph.ipa, startSample: ph.startSample + at });
    at += p.pcm.length;
  }
  return { pcm, phonemes };
}

export interface Alignment {
  /** The reference's phonemes at upload sample positions. */
  phonemes: PhonemeEvent[];
  /** Mean feature distance along the warping path over that of unrelated frames (≈ 1). */
  meanCost: number;
}

/**
 * Mean path cost (relative to unrelated frame pairs) above which the transcript is taken not to
 * match the audio. Measured: the same text in other voices, rates or with leading silence
 * 0.12–0.55; a different text 0.68–0.71.
 */
export const MISMATCH_COST = 0.62;

/**
 * The upload's phoneme timeline: `reference` is espeak's synthesis of the transcript (one
 * segment, or the transcript's sentences in order; any voice of the same language), `pcm48k` the
 * uploaded speech, both mono 48 kHz.
 */
export function alignTranscript(input: {
  pcm48k: Int16Array;
  reference: Reference | readonly Reference[];
}): Alignment {
  const reference = joined(input.reference);
  const frames = (pcm: Int16Array): number => Math.ceil(pcm.length / HOP_SAMPLES);
  let step = 1;
  for (;;) {
    const n = Math.ceil(frames(input.pcm48k) / step);
    const m = Math.ceil(frames(reference.pcm) / step);
    if (n * (2 * bandWidth(n, m) + 2) <= MAX_CELLS) break;
    step++;
  }
  const up = features(input.pcm48k, step);
  const ref = features(reference.pcm, step);
  if (up.frames === 0 || ref.frames === 0) return { phonemes: [], meanCost: Infinity };
  const { firstUp, meanCost } = warp(up.x, up.frames, ref.x, ref.frames);
  const hop = HOP_SAMPLES * step;
  let last = 0;
  const phonemes = reference.phonemes.map((p) => {
    const j = Math.min(ref.frames - 1, Math.floor(p.startSample / hop));
    const within = p.startSample - j * hop;
    const at = Math.min(input.pcm48k.length, Math.max(last, firstUp[j]! * hop + within));
    last = at;
    return { ipa: p.ipa, startSample: at };
  });
  return { phonemes, meanCost };
}

/**
 * The mouth track of an upload whose transcript is known: from the aligned phonemes, or — when
 * the transcript does not fit the audio (mean cost over MISMATCH_COST) — from the audio alone.
 */
export function transcriptMouthTrack(input: {
  pcm48k: Int16Array;
  reference: Reference | readonly Reference[];
}): MouthTrack {
  return alignedMouthTrack(alignTranscript(input), input.pcm48k.length) ?? analyzeAudioMouth(input.pcm48k);
}

/**
 * The mouth track of an alignment (computed elsewhere, e.g. in a worker thread), or undefined
 * when the transcript does not fit the audio (mean cost over MISMATCH_COST): then the audio-only
 * model keeps driving the mouth.
 */
export function alignedMouthTrack(alignment: Alignment, totalSamples: number): MouthTrack | undefined {
  if (alignment.meanCost > MISMATCH_COST) return undefined;
  return buildMouthTrack({ phonemes: alignment.phonemes, totalSamples });
}
