/**
 * Where a mouth crop is blended into a base frame, in canonical coordinates (video/pack.ts): the
 * lower-face box (below the nose to well under the chin, wider than the jaw), found here by the
 * import, and the feathered ellipse inside it (the seam mask, in @mouthpiece/draw's
 * video/seam-mask.ts, which the engine's and the browser's renderers share).
 */
import type { VideoIndex } from './pack.js';

export { seamMask, type SeamMask } from '@mouthpiece/draw';

type Pt = readonly [number, number];

/** The crop's rectangle in canonical coordinates, from the canonical (mean) landmarks. */
export function lowerFaceBox(landmarks: ReadonlyArray<Pt>): VideoIndex['library']['box'] {
  const L = (i: number): Pt => landmarks[i]!;
  const faceW = Math.hypot(L(16)[0] - L(0)[0], L(16)[1] - L(0)[1]);
  const left = Math.min(L(2)[0], L(3)[0], L(4)[0]) - 0.06 * faceW;
  const right = Math.max(L(14)[0], L(13)[0], L(12)[0]) + 0.06 * faceW;
  // from the nostrils (31/35) and the nose's base (33) to under the dropped chin
  // (the face composite's mesh starts a third of the nose's tip-to-base length under the nose)
  const top = Math.min(L(31)[1], L(33)[1], L(35)[1]) - 0.02 * faceW;
  const bottom = L(8)[1] + 0.24 * faceW;
  const even = (v: number): number => 2 * Math.round(v / 2);
  const x = even(left);
  const y = even(top);
  return { x, y, width: Math.max(2, even(right - x)), height: Math.max(2, even(bottom - y)) };
}
