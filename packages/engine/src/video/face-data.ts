/**
 * What the face composite (@mouthpiece/draw's video/face-composite.ts) needs of every crop and
 * base frame, measured once at import: the landmarks in canonical coordinates, the head pose,
 * and which inner-ring points of the face mesh were covered (hair, a hand) in that frame.
 *
 * Covered is judged by agreement with the clip itself: halfway between each inner-ring point and
 * the ring (where hair falls first) the frame's mean colour is compared with the median over the
 * mouth library. Skin, stubble and beard are the same from frame to frame; a strand of hair or a
 * hand is not. Not at the inner-ring point itself: the lips reach it when the mouth opens wide
 * (the upper lip lifts, the corners spread), and on the real test clip, nothing covering the face,
 * that flagged 13 % of the ring covered on average (r 0.54 with the opening), so the selector's
 * cover cost held wide openings back (a wanted 0.9 got 0.68). The thresholds are in grey levels
 * of the 3×3 patch mean.
 */
import { MESH, RING, UNDER_NOSE, meshFrame, meshVertices, type MeshFrame } from '@mouthpiece/draw';
import type { Landmarks } from './face-tracker.js';
import {
  applySimilarity,
  invertSimilarity,
  type I420View,
  type Similarity,
  type VideoIndex,
} from './pack.js';

type Box = VideoIndex['library']['box'];

/** A difference from the median below this is the same face; above COVERED_AT, covered. */
const SAME_AT = 20;
const COVERED_AT = 45;

/** A frame's landmarks in canonical coordinates, flat, to 0.1 px. */
export function canonicalLandmarks(landmarks: Landmarks, toFrame: Similarity): number[] {
  const inv = invertSimilarity(toFrame);
  const out: number[] = [];
  for (const [x, y] of landmarks) {
    const [cx, cy] = applySimilarity(inv, x, y);
    out.push(Math.round(cx * 10) / 10, Math.round(cy * 10) / 10);
  }
  return out;
}

/**
 * Head pose from canonical landmarks: yaw (−1..1: the nose tip's place between the jaw's sides)
 * and pitch (the nose's length along the face over the eyes' distance: shorter looking down or up).
 */
export function headPose(L: ArrayLike<number>): [number, number] {
  const x = (i: number): number => L[2 * i]!;
  const y = (i: number): number => L[2 * i + 1]!;
  const left = x(30) - x(0);
  const right = x(16) - x(30);
  const yaw = (right - left) / Math.max(1e-6, right + left);
  const ex = (x(36) + x(39) + x(42) + x(45)) / 4;
  const ey = (y(36) + y(39) + y(42) + y(45)) / 4;
  const iod = Math.hypot(x(45) - x(36), y(45) - y(36)) || 1;
  const pitch = Math.hypot(x(30) - ex, y(30) - ey) / iod;
  return [Math.round(yaw * 1000) / 1000, Math.round(pitch * 1000) / 1000];
}

/** Mean Y, U and V of a 3×3 patch (2 px apart) around canonical point (x, y) of a box-sized crop. */
function patchYuv(crop: I420View, box: Box, x: number, y: number): [number, number, number] {
  let sy = 0;
  let su = 0;
  let sv = 0;
  const cw = crop.width >> 1;
  const ch = crop.height >> 1;
  for (let j = -1; j <= 1; j++)
    for (let i = -1; i <= 1; i++) {
      const px = Math.min(crop.width - 1, Math.max(0, Math.round(x - box.x + 2 * i)));
      const py = Math.min(crop.height - 1, Math.max(0, Math.round(y - box.y + 2 * j)));
      sy += crop.y[py * crop.width + px]!;
      const c = Math.min(ch - 1, py >> 1) * cw + Math.min(cw - 1, px >> 1);
      su += crop.u[c]!;
      sv += crop.v[c]!;
    }
  return [sy / 9, su / 9, sv / 9];
}

/** Colour samples of a frame halfway between its inner-ring points and the ring: RING × 3 values. */
export function ringSamples(
  crop: I420View,
  box: Box,
  landmarks: ArrayLike<number>,
  frame: MeshFrame,
): Float32Array {
  const v = meshVertices(landmarks, landmarks, frame);
  const out = new Float32Array(RING * 3);
  for (let k = 0; k < RING; k++) {
    const ix = v[2 * (MESH.inner + k)]!;
    const iy = v[2 * (MESH.inner + k) + 1]!;
    const rx = v[2 * (MESH.ring + k)]!;
    const ry = v[2 * (MESH.ring + k) + 1]!;
    out.set(patchYuv(crop, box, (ix + rx) / 2, (iy + ry) / 2), 3 * k);
  }
  return out;
}

/**
 * Whether a frame's face-mesh boundary under the nose shows the clip's usual face there
 * (`clear`: clearness of its ring points, each at least CLEAR_ENOUGH). When it does not, the
 * frame's own upper lip is drawn up to the nose (a laugh or a broad smile, more so with the head
 * tilted back; the landmark net then puts the lip's landmarks at its lower edge, on the teeth),
 * and the composite's boundary, where the blend weight is 0, crosses it: a mouth laid onto such a
 * frame leaves its lip above the crop's, two upper lips and a seam across the cheeks at the lip
 * (with one or two such points, a notch of it at the philtrum); such a crop has its lip cut. Such
 * frames are no base frames (video-import.ts) and such crops are not picked (mouth-selector.ts).
 */
export function clearUnderNose(clear: ArrayLike<number>): boolean {
  for (let k = UNDER_NOSE.from; k <= UNDER_NOSE.to; k++) if ((clear[k] ?? 1) < CLEAR_ENOUGH) return false;
  return true;
}

/** A ring point at least this clear is the usual face (clearness runs 1 at SAME_AT to 0 at COVERED_AT). */
const CLEAR_ENOUGH = 0.5;

/** The per-value median of many ringSamples (the clip's usual face at each point). */
export function medianSamples(samples: readonly Float32Array[]): Float32Array {
  const n = samples[0]?.length ?? 0;
  const out = new Float32Array(n);
  const col = new Float32Array(samples.length);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < samples.length; k++) col[k] = samples[k]![i]!;
    col.sort();
    out[i] = col[col.length >> 1] ?? 0;
  }
  return out;
}

/**
 * What of each inner-ring point is clear (1) or covered (0), against the median face. The frame's
 * own overall change of light (the median difference over its points, per channel) is taken out
 * first: a head turned towards the window is brighter everywhere, a strand of hair only where it is.
 */
export function clearness(samples: Float32Array, median: Float32Array): number[] {
  const shift = [0, 1, 2].map((c) => {
    const d: number[] = [];
    for (let o = c; o < samples.length; o += 3) d.push(samples[o]! - median[o]!);
    return d.sort((p, q) => p - q)[d.length >> 1] ?? 0;
  });
  const out: number[] = [];
  for (let k = 0; k < RING; k++) {
    const dc = (c: number): number => Math.abs(samples[3 * k + c]! - median[3 * k + c]! - shift[c]!);
    const worst = dc(0) + 1.5 * (dc(1) + dc(2));
    const c = 1 - (worst - SAME_AT) / (COVERED_AT - SAME_AT);
    out.push(Math.round(Math.max(0, Math.min(1, c)) * 100) / 100);
  }
  return out;
}

/**
 * How sharp a crop's lower face is: the mean absolute Laplacian of luma over the box between the
 * mouth's corners and from under the nose to the chin (landmarks 48/54, 33, 8). A frame blurred by
 * motion reads low against the library's median; the selector weighs that (video/mouth-selector.ts).
 */
export function sharpness(crop: I420View, box: Box, landmarks: ArrayLike<number>): number {
  const x0 = Math.max(1, Math.round(landmarks[2 * 48]! - box.x));
  const x1 = Math.min(crop.width - 2, Math.round(landmarks[2 * 54]! - box.x));
  const y0 = Math.max(1, Math.round(landmarks[2 * 33 + 1]! - box.y));
  const y1 = Math.min(crop.height - 2, Math.round(landmarks[2 * 8 + 1]! - box.y));
  const w = crop.width;
  let sum = 0;
  let n = 0;
  for (let y = y0; y <= y1; y++)
    for (let x = x0; x <= x1; x++) {
      const i = y * w + x;
      sum += Math.abs(4 * crop.y[i]! - crop.y[i - 1]! - crop.y[i + 1]! - crop.y[i - w]! - crop.y[i + w]!);
      n++;
    }
  return n ? Math.round((sum / n) * 100) / 100 : 0;
}

export { meshFrame };
