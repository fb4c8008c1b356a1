/**
 * Band energies of mono 48 kHz audio: 10 ms hop, 1024-sample Hann window centred on each hop
 * (zero-phase, so features line up with the sound), log energy in 10 log-spaced bands.
 */
import { CHUNK_SAMPLES, SAMPLE_RATE_HZ } from '../clock/media-clock.js';
export const HOP_SAMPLES = CHUNK_SAMPLES;
const WINDOW = 1024;
const BAND_EDGES_HZ = [80, 160, 300, 500, 800, 1200, 1800, 2600, 3800, 5500, 8000];
export const BAND_COUNT = BAND_EDGES_HZ.length - 1;
const BAND_EDGE_BINS = BAND_EDGES_HZ.map((hz) => Math.round((hz * WINDOW) / SAMPLE_RATE_HZ));

const hann = Float64Array.from(
  { length: WINDOW },
  (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / WINDOW),
);

// A real FFT of WINDOW points as a complex FFT of WINDOW/2 points (even samples real, odd
// imaginary), with bit-reversal and twiddle tables computed once.
const HALF = WINDOW / 2;
const BITS = Math.log2(HALF);
const bitReversed = Uint16Array.from({ length: HALF }, (_, i) => {
  let r = 0;
  for (let b = 0; b < BITS; b++) r |= ((i >> b) & 1) << (BITS - 1 - b);
  return r;
});
const halfCos = Float64Array.from({ length: HALF / 2 }, (_, k) => Math.cos((2 * Math.PI * k) / HALF));
const halfSin = Float64Array.from({ length: HALF / 2 }, (_, k) => -Math.sin((2 * Math.PI * k) / HALF));
const fullCos = Float64Array.from({ length: HALF + 1 }, (_, k) => Math.cos((2 * Math.PI * k) / WINDOW));
const fullSin = Float64Array.from({ length: HALF + 1 }, (_, k) => Math.sin((2 * Math.PI * k) / WINDOW));

function halfFft(re: Float64Array, im: Float64Array): void {
  for (let i = 0; i < HALF; i++) {
    const j = bitReversed[i]!;
    if (i < j) {
      const tr = re[i]!;
      re[i] = re[j]!;
      re[j] = tr;
      const ti = im[i]!;
      im[i] = im[j]!;
      im[j] = ti;
    }
  }
  for (let len = 2; len <= HALF; len <<= 1) {
    const halfLen = len >> 1;
    const stride = HALF / len;
    for (let i = 0; i < HALF; i += len) {
      for (let k = 0; k < halfLen; k++) {
        const wr = halfCos[k * stride]!;
        const wi = halfSin[k * stride]!;
        const a = i + k;
        const b = a + halfLen;
        const xr = re[b]! * wr - im[b]! * wi;
        const xi = re[b]! * wi + im[b]! * wr;
        re[b] = re[a]! - xr;
        im[b] = im[a]! - xi;
        re[a] = re[a]! + xr;
        im[a] = im[a]! + xi;
      }
    }
  }
}

export interface BandEnergies {
  frames: number;
  /** log10 energy per frame and band (frames × BAND_COUNT, row-major). */
  bands: Float32Array;
}

function fillBands(pcm: Int16Array, from: number, to: number, bands: Float32Array): void {
  const re = new Float64Array(HALF);
  const im = new Float64Array(HALF);
  for (let f = from; f < to; f++) {
    const first = f * HOP_SAMPLES + HOP_SAMPLES / 2 - WINDOW / 2;
    for (let i = 0; i < HALF; i++) {
      const s0 = first + 2 * i;
      const s1 = s0 + 1;
      re[i] = s0 >= 0 && s0 < pcm.length ? (pcm[s0]! / 32768) * hann[2 * i]! : 0;
      im[i] = s1 >= 0 && s1 < pcm.length ? (pcm[s1]! / 32768) * hann[2 * i + 1]! : 0;
    }
    halfFft(re, im);
    for (let b = 0; b < BAND_COUNT; b++) {
      let e = 1e-10;
      for (let k = BAND_EDGE_BINS[b]!; k < BAND_EDGE_BINS[b + 1]!; k++) {
        const m = (HALF - k) & (HALF - 1);
        const er = (re[k]! + re[m]!) / 2;
        const ei = (im[k]! - im[m]!) / 2;
        const or = (im[k]! + im[m]!) / 2;
        const oi = (re[m]! - re[k]!) / 2;
        const c = fullCos[k]!;
        const s = fullSin[k]!;
        const xr = er + c * or + s * oi;
        const xi = ei + c * oi - s * or;
        e += xr * xr + xi * xi;
      }
      bands[f * BAND_COUNT + b] = Math.log10(e);
    }
  }
}

/** Band energies of mono 48 kHz PCM, one row per 10 ms frame (about 3 ms of CPU per second). */
export function bandEnergies(pcm48k: Int16Array): BandEnergies {
  const frames = Math.ceil(pcm48k.length / HOP_SAMPLES);
  const bands = new Float32Array(frames * BAND_COUNT);
  fillBands(pcm48k, 0, frames, bands);
  return { frames, bands };
}

/** Rows [from, to) only (a stream's new frames: a frame reads WINDOW samples around its centre). */
export function bandEnergiesRange(pcm48k: Int16Array, from: number, to: number): Float32Array {
  const bands = new Float32Array(Math.max(0, to - from) * BAND_COUNT);
  const all = new Float32Array(to * BAND_COUNT);
  fillBands(pcm48k, from, to, all);
  bands.set(all.subarray(from * BAND_COUNT));
  return bands;
}

/** Samples past a frame's start its analysis window reaches. */
export const FRAME_REACH_SAMPLES = HOP_SAMPLES / 2 + WINDOW / 2;

/** The same, yielding to the event loop every `sliceFrames` frames (long uploads, media thread). */
export async function bandEnergiesAsync(pcm48k: Int16Array, sliceFrames = 300): Promise<BandEnergies> {
  const frames = Math.ceil(pcm48k.length / HOP_SAMPLES);
  const bands = new Float32Array(frames * BAND_COUNT);
  for (let f = 0; f < frames; f += sliceFrames) {
    fillBands(pcm48k, f, Math.min(frames, f + sliceFrames), bands);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return { frames, bands };
}

/** How many 10 ms frames either side a frame's feature vector includes (openness regression). */
export const CONTEXT_FRAMES = 4;
/** Per frame: (2·CONTEXT_FRAMES + 1) × BAND_COUNT normalised band energies, then one constant. */
export const FEATURE_COUNT = (2 * CONTEXT_FRAMES + 1) * BAND_COUNT + 1;
/** The classifier looks at fewer neighbours (±1 frame): wider context smears short closures. */
export const CLASS_CONTEXT_FRAMES = 2;
/** The part of a feature vector the classifier uses: [CLASS_FROM, CLASS_FROM + CLASS_FEATURES). */
export const CLASS_FROM = (CONTEXT_FRAMES - CLASS_CONTEXT_FRAMES) * BAND_COUNT;
export const CLASS_FEATURES = (2 * CLASS_CONTEXT_FRAMES + 1) * BAND_COUNT;

export function percentile(values: ArrayLike<number>, p: number): number {
  if (values.length === 0) return 0;
  const sorted = Float64Array.from(values).sort();
  const i = Math.min(sorted.length - 1, Math.max(0, Math.round(p * (sorted.length - 1))));
  return sorted[i]!;
}

/**
 * Per-file normalisation, so level and voice tilt drop out: the loudest band's p98 over the file
 * maps to 1 and everything 4 decades (40 dB) below it to 0; averaged with the same band measured
 * from its own median over the louder half of the file (removing the voice's spectral tilt).
 */
const SILENT_LOG_ENERGY = -2;

export function normalizeBands(frames: number, bands: Float32Array): Float32Array {
  const out = new Float32Array(bands.length);
  if (frames === 0) return out;
  const peak = new Float64Array(frames);
  for (let f = 0; f < frames; f++) {
    let m = -Infinity;
    for (let b = 0; b < BAND_COUNT; b++) m = Math.max(m, bands[f * BAND_COUNT + b]!);
    peak[f] = m;
  }
  // a full-scale sine peaks near 5 (log10 energy); below 5 − 7 (−70 dBFS) nothing counts as sound
  const top = Math.max(SILENT_LOG_ENERGY, percentile(peak, 0.98));
  const half = percentile(peak, 0.5);
  const loud: number[] = [];
  for (let f = 0; f < frames; f++) if (peak[f]! >= half) loud.push(f);
  for (let b = 0; b < BAND_COUNT; b++) {
    const col = loud.map((f) => bands[f * BAND_COUNT + b]!);
    const tilt = percentile(col, 0.5) - top;
    for (let f = 0; f < frames; f++) {
      const level = Math.max(0, Math.min(1, (bands[f * BAND_COUNT + b]! - top + 4) / 4));
      const flat = Math.max(0, Math.min(1, (bands[f * BAND_COUNT + b]! - tilt - top + 2) / 4));
      out[f * BAND_COUNT + b] = 0.5 * (level + flat);
    }
  }
  return out;
}

/** The model input for every frame: normalised bands of the frame and its ±2 neighbours, and 1. */
export function contextFeatures(input: Int16Array | BandEnergies): { frames: number; x: Float64Array } {
  const { frames, bands } = input instanceof Int16Array ? bandEnergies(input) : input;
  const norm = normalizeBands(frames, bands);
  const x = new Float64Array(frames * FEATURE_COUNT);
  for (let f = 0; f < frames; f++) {
    let k = f * FEATURE_COUNT;
    for (let c = -CONTEXT_FRAMES; c <= CONTEXT_FRAMES; c++) {
      const g = Math.min(frames - 1, Math.max(0, f + c));
      for (let b = 0; b < BAND_COUNT; b++) x[k++] = norm[g * BAND_COUNT + b]!;
    }
    x[k] = 1;
  }
  return { frames, x };
}
