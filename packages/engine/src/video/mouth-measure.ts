/**
 * Mouth parameters of every clip frame in the renderer's own space (face-state.ts MouthParams):
 * measured from the tracked landmarks in the canonical frame (inner-lip gap, mouth width) and the
 * crop's pixels (teeth: a bright inner mouth), then put on the scale the renderer is driven with.
 * The opening is put on the person's own speaking range (speakingRange: their median speaking
 * opening is a typical vowel, their widest is 1), so a crop is never asked to open wider than
 * the person does; the clip's audio says which frames are speech, and the lip-sync model's
 * opening of the same audio is still correlated with the gap as a check of the tracking.
 */
import { msToSamples, SAMPLE_RATE_HZ } from '../clock/media-clock.js';
import { HOP_SAMPLES } from '../lipsync/audio-features.js';
import { analyzeOpenness, shapeFor } from '../lipsync/audio-mouth.js';
import { LEAD_MS } from '../lipsync/mouth-track.js';
import { normalisedBands, signatureAt, signatureSpread } from '../lipsync/sound-signature.js';
import type { Landmarks } from './face-tracker.js';
import {
  invertSimilarity,
  applySimilarity,
  i420View,
  type MouthDescriptor,
  type Similarity,
} from './pack.js';
import { meanLumaInside } from './pixels.js';

export interface RawMouth {
  /** Inner-lip gap over the eyes' distance. */
  gap: number;
  /** Mouth corner to corner over the eyes' distance. */
  width: number;
  /** Mean luma inside the inner lips over the crop's ring luma (teeth show bright); NaN if unknown. */
  inner: number;
}

export function measureMouth(
  landmarks: Landmarks,
  toFrame: Similarity,
  crop: Uint8Array | undefined,
  box: { x: number; y: number; width: number; height: number },
  ringLuma: number,
): RawMouth {
  const inv = invertSimilarity(toFrame);
  const c = landmarks.map(([x, y]) => applySimilarity(inv, x, y));
  const P = (i: number): [number, number] => c[i]!;
  const eye = (from: number): [number, number] => {
    let x = 0;
    let y = 0;
    for (let k = from; k < from + 6; k++) {
      x += P(k)[0];
      y += P(k)[1];
    }
    return [x / 6, y / 6];
  };
  const [lx, ly] = eye(36);
  const [rx, ry] = eye(42);
  const iod = Math.hypot(rx - lx, ry - ly) || 1;
  const gap = (P(66)[1] - P(62)[1] + (P(67)[1] - P(61)[1]) + (P(65)[1] - P(63)[1])) / 3;
  const width = Math.hypot(P(54)[0] - P(48)[0], P(54)[1] - P(48)[1]);
  let inner = NaN;
  if (crop && gap > 1.5) {
    const view = i420View(crop, 0, box.width, box.height);
    const poly = [60, 61, 62, 63, 64, 65, 66, 67].map((i): [number, number] => [
      P(i)[0] - box.x,
      P(i)[1] - box.y,
    ]);
    const y = meanLumaInside(view, poly);
    if (y > 0 && ringLuma > 0) inner = y / ringLuma;
  }
  return { gap: Math.max(0, gap / iod), width: width / iod, inner };
}

function quantiles(values: readonly number[], n = 101): number[] {
  const s = [...values].sort((a, b) => a - b);
  return Array.from(
    { length: n },
    (_, k) => s[Math.min(s.length - 1, Math.round((k / (n - 1)) * (s.length - 1)))]!,
  );
}

const clamp01 = (v: number): number => Math.max(0, Math.min(1, v));

export interface Calibration {
  descriptors: MouthDescriptor[];
  /** Correlation of the landmark gap with the audio model's opening (NaN without audio). */
  audioCorrelation: number;
  scale: 'audio' | 'percentile';
}

/**
 * Descriptors for every frame (`raw[i]` undefined for untracked frames gets rest). `pcm48k` is
 * the clip's audio (empty without audio); frame i covers audio samples [i·1920, (i+1)·1920).
 */
export function calibrate(
  raw: ReadonlyArray<RawMouth | undefined>,
  pcm48k: Int16Array,
  fps: number,
): Calibration {
  const tracked = raw
    .map((r, i) => ({ r, i }))
    .filter((x): x is { r: RawMouth; i: number } => x.r !== undefined);
  const gaps = tracked.map((x) => x.r.gap);
  let audioOpen: number[] | undefined;
  if (pcm48k.length >= 48_000) {
    const { openness } = analyzeOpenness(pcm48k);
    const hopsPerFrame = 100 / fps;
    audioOpen = tracked.map(({ i }) => {
      let s = 0;
      let n = 0;
      for (
        let h = Math.floor(i * hopsPerFrame);
        h < Math.floor((i + 1) * hopsPerFrame) && h < openness.length;
        h++
      ) {
        s += openness[h]!;
        n++;
      }
      return shapeFor(n ? s / n : 0, false).mouth.open;
    });
  }
  const gq = quantiles(gaps);
  const spread = gq[97]! - gq[5]!;
  const useAudio = audioOpen !== undefined && spread > 1e-3 && Math.max(...audioOpen) > 0.2;
  const openOf = speakingRange(gaps, useAudio ? speakingFrames(pcm48k, tracked, fps) : undefined);
  const wq = quantiles(tracked.map((x) => x.r.width));
  const wLo = wq[5]!;
  const wHi = Math.max(wLo + 1e-6, wq[95]!);
  const descriptors: MouthDescriptor[] = raw.map((r) => {
    if (!r) return { open: 0, width: 0.35, round: 0, teeth: 0 };
    const open = openOf(r.gap);
    const width = clamp01(0.2 + (0.4 * (r.width - wLo)) / (wHi - wLo));
    // only a mouth narrower than the person's usual range's lower third is rounded (oo, w)
    const round = clamp01((0.32 - width) / 0.12);
    const teeth = Number.isNaN(r.inner) || open < 0.08 ? 0 : clamp01((r.inner - 0.6) / 0.4);
    return { open, width, round, teeth };
  });
  return {
    descriptors,
    audioCorrelation: audioOpen ? correlation(gaps, audioOpen) : NaN,
    scale: useAudio ? 'audio' : 'percentile',
  };
}

/** An open mouth in the engine's scale (mouth-shapes.ts): a typical vowel, and the widest. */
const TYPICAL_VOWEL = 0.5;

/**
 * The person's own speaking range on the renderer's scale (docs/design.md §14): a closed mouth
 * (the gap's 5th percentile) is 0, their median opening while speaking a typical vowel (0.5),
 * their widest (the 98th percentile while speaking) 1. A wanted opening then picks what this
 * person does for that sound, and the widest crops are kept for the widest sounds, never every
 * vowel. `speaking` marks the tracked frames with speech (from the audio); without audio, frames
 * whose gap is above the closed mouth's count.
 */
function speakingRange(
  gaps: readonly number[],
  speaking: readonly boolean[] | undefined,
): (gap: number) => number {
  const all = quantiles(gaps);
  const closed = all[5]!;
  let talk = gaps.filter((g, k) => (speaking ? speaking[k] : g > closed + 0.25 * (all[97]! - closed)));
  if (talk.length < 10) talk = [...gaps];
  const tq = quantiles(talk);
  const mid = Math.max(closed + 1e-4, tq[50]!);
  const top = Math.max(mid + 1e-4, tq[98]!);
  return (gap) =>
    gap <= closed
      ? 0
      : gap <= mid
        ? (TYPICAL_VOWEL * (gap - closed)) / (mid - closed)
        : Math.min(1, TYPICAL_VOWEL + ((1 - TYPICAL_VOWEL) * (gap - mid)) / (top - mid));
}

/** Which tracked frames have speech: their audio is above a quarter of the clip's loud level. */
function speakingFrames(pcm48k: Int16Array, tracked: ReadonlyArray<{ i: number }>, fps: number): boolean[] {
  const per = Math.round(SAMPLE_RATE_HZ / fps);
  const rms = tracked.map(({ i }) => {
    let s = 0;
    const end = Math.min(pcm48k.length, (i + 1) * per);
    for (let k = i * per; k < end; k++) s += pcm48k[k]! * pcm48k[k]!;
    return Math.sqrt(s / Math.max(1, end - i * per));
  });
  const loud = quantiles(rms)[95]! || 1;
  return rms.map((r) => r > 0.25 * loud);
}

export function correlation(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  if (n < 2) return NaN;
  let ma = 0;
  let mb = 0;
  for (let i = 0; i < n; i++) {
    ma += a[i]!;
    mb += b[i]!;
  }
  ma /= n;
  mb /= n;
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < n; i++) {
    sab += (a[i]! - ma) * (b[i]! - mb);
    saa += (a[i]! - ma) ** 2;
    sbb += (b[i]! - mb) ** 2;
  }
  return saa > 0 && sbb > 0 ? sab / Math.sqrt(saa * sbb) : NaN;
}

/**
 * Each clip frame's sound signature (lipsync/sound-signature.ts) from the clip's own audio, taken
 * where an audio mouth track would take it for the frame (its centre, LEAD_MS later: the mouth
 * shows what is about to sound), and how far apart neighbouring sounds are. Empty without audio.
 */
export function frameSounds(
  pcm48k: Int16Array,
  frameIndices: readonly number[],
  fps: number,
): { sounds: Float32Array[]; spread: number } {
  if (pcm48k.length === 0) return { sounds: [], spread: 0 };
  const { frames, norm } = normalisedBands(pcm48k);
  const perFrame = SAMPLE_RATE_HZ / fps;
  const lead = msToSamples(LEAD_MS);
  const sounds = frameIndices.map((i) =>
    signatureAt(norm, frames, Math.round(((i + 0.5) * perFrame + lead - HOP_SAMPLES / 2) / HOP_SAMPLES)),
  );
  return { sounds, spread: signatureSpread(sounds) };
}
