/**
 * The upper face as a small grey patch (brows to the top of the nose, eye corner to eye
 * corner), to tell a face that is covered in part (its eyes still where they were) from one that
 * is gone, when the detector no longer sees it (video/track-clip.ts).
 */
import type { Landmarks } from './face-tracker.js';
import { lumaOf } from './pixels.js';

const PATCH_W = 24;
const PATCH_H = 12;
/** Mean grey difference under which two patches show the same upper face. */
export const SAME_UPPER_FACE = 16;

/** The patch of a square RGB frame of side `size` for a face with these landmarks. */
export function upperFacePatch(rgb: Uint8Array, size: number, lm: Landmarks): Uint8Array {
  const brows = lm.slice(17, 27);
  const x0 = Math.min(lm[36]![0], ...brows.map((p) => p[0]));
  const x1 = Math.max(lm[45]![0], ...brows.map((p) => p[0]));
  const y0 = Math.min(...brows.map((p) => p[1]));
  const y1 = lm[28]![1];
  const out = new Uint8Array(PATCH_W * PATCH_H);
  for (let y = 0; y < PATCH_H; y++) {
    const sy = Math.min(size - 1, Math.max(0, Math.floor(y0 + ((y + 0.5) * (y1 - y0)) / PATCH_H)));
    for (let x = 0; x < PATCH_W; x++) {
      const sx = Math.min(size - 1, Math.max(0, Math.floor(x0 + ((x + 0.5) * (x1 - x0)) / PATCH_W)));
      const p = (sy * size + sx) * 3;
      out[y * PATCH_W + x] = lumaOf(rgb[p]!, rgb[p + 1]!, rgb[p + 2]!);
    }
  }
  return out;
}

/** Mean absolute grey difference of two patches, after each one's mean is taken away (light). */
export function patchDistance(a: Uint8Array, b: Uint8Array): number {
  let ma = 0;
  let mb = 0;
  for (let i = 0; i < a.length; i++) {
    ma += a[i]!;
    mb += b[i]!;
  }
  const shift = (mb - ma) / a.length;
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! + shift - b[i]!);
  return sum / a.length;
}
