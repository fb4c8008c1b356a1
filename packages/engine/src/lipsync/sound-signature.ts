/**
 * What a moment of speech sounds like, as a short vector: the normalised band energies
 * (audio-features.ts) of the 10 ms frame and of the frames 20 ms either side. The video avatar's
 * import stores one per mouth-library crop, from the clip's own sound; an upload's mouth track
 * answers one per sample (audio-mouth.ts). When the avatar speaks with the recorded person's voice
 * the nearest library sound is the same phoneme in the same context, and its crop shows the mouth
 * that made it — rounding and lip bites included, which the opening model cannot hear (measured on
 * the test clip: the nearest crop by sound follows the drawn opening with r 0.91, the opening
 * model 0.83). Another voice is far from every library sound, and the renderer then leans on the
 * opening alone (video/mouth-selector.ts).
 */
import { BAND_COUNT, bandEnergies, normalizeBands } from './audio-features.js';

/** The 10 ms frames, relative to the moment's own, a signature holds. */
export const SIGNATURE_HOPS = [-2, 0, 2] as const;
export const SIGNATURE_LENGTH = SIGNATURE_HOPS.length * BAND_COUNT;

/** Normalised bands of a whole recording (per-file normalisation, as the opening model's input). */
export function normalisedBands(pcm48k: Int16Array): { frames: number; norm: Float32Array } {
  const { frames, bands } = bandEnergies(pcm48k);
  return { frames, norm: normalizeBands(frames, bands) };
}

/** The signature of 10 ms frame `hop` (frames past either end read the nearest one). */
export function signatureAt(norm: Float32Array, frames: number, hop: number): Float32Array {
  const out = new Float32Array(SIGNATURE_LENGTH);
  if (frames === 0) return out;
  let k = 0;
  for (const d of SIGNATURE_HOPS) {
    const h = Math.min(frames - 1, Math.max(0, hop + d));
    for (let b = 0; b < BAND_COUNT; b++) out[k++] = norm[h * BAND_COUNT + b]!;
  }
  return out;
}

/** Squared distance of two signatures. */
export function signatureDistance(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]! - b[i]!;
    d += x * x;
  }
  return d;
}

/**
 * How far apart neighbouring sounds of one recording are: the median, over signatures with sound
 * in them, of the distance to the nearest other one more than `apart` places away (neighbours in
 * time are near by construction). The renderer's yardstick for "the same voice".
 */
export function signatureSpread(sigs: ReadonlyArray<ArrayLike<number>>, apart = 3): number {
  const near: number[] = [];
  sigs.forEach((s, i) => {
    let loud = 0;
    for (let k = 0; k < s.length; k++) loud = Math.max(loud, s[k]!);
    if (loud < 0.3) return;
    let best = Infinity;
    sigs.forEach((t, j) => {
      if (Math.abs(i - j) > apart) best = Math.min(best, signatureDistance(s, t));
    });
    if (Number.isFinite(best)) near.push(Math.sqrt(best));
  });
  if (near.length === 0) return 0;
  near.sort((a, b) => a - b);
  return near[Math.floor(near.length / 2)]!;
}
