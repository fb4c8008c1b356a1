/**
 * A video avatar's mouth composited by the face (docs/design.md §14): the crops are placed by a
 * piecewise-affine warp over the lower-face mesh (face-mesh.ts) built on their own landmarks and
 * the base frame's, the base frame's chin and neck are warped to the crop's jaw, and the blend
 * runs from the jaw contour and the line under the nose (weight 0) to an inner ring (weight 1),
 * so nothing outside the face is ever taken from another frame. The seam is made invisible in
 * the gradient domain, as Poisson cloning does: the difference between base and crop is measured
 * on the boundary ring and interpolated harmonically over the mesh's inside (a membrane, solved on
 * the mesh's vertices), and that smooth offset is added to the crop. Two crops blend only after
 * both are warped onto the same (mixed) landmarks. Works in I420, luma at full resolution, chroma
 * at half; used by the engine and the browser alike (video-frame.ts).
 */
import { applySimilarity, type I420View, type Similarity } from './i420.js';
import {
  MESH,
  MESH_ALPHA,
  MESH_NEIGHBOURS,
  MESH_TRIANGLES,
  CROP_LANDMARKS,
  RING,
  UNDER_NOSE,
  holdCoveredJaw,
  innerShares,
  lipRoom,
  meshVertices,
  targetLandmarks,
  type FlatLandmarks,
  type MeshFrame,
} from './face-mesh.js';
import { warpPlane, type PlaneImages, type PlaneVertices } from './face-warp.js';
import type { VideoBox } from './video-index.js';

/** The seam's offset is at most this many levels (a larger gap is a covered or mistracked ring). */
export const MAX_OFFSET = 40;
/** A ring point's offset stays within this of the ring's median (hair or a hand at one point). */
const OFFSET_SPREAD = 12;

/** Buffers reused from frame to frame (one per renderer). */
export interface FaceScratch {
  target: Float64Array;
  canon: { t: Float32Array; b: Float32Array; a: Float32Array; bb: Float32Array };
  /** The inner ring's shares (face-mesh.ts innerShares), one for the composite's four meshes. */
  room: Float32Array;
  luma: PlaneVertices;
  chroma: PlaneVertices;
  moves: Uint8Array;
  copy: { y: Uint8Array; u: Uint8Array; v: Uint8Array };
}

const verts = (): PlaneVertices => ({
  pos: new Float32Array(2 * MESH.count),
  base: new Float32Array(2 * MESH.count),
  a: new Float32Array(2 * MESH.count),
  b: new Float32Array(2 * MESH.count),
  alpha: new Float32Array(MESH.count),
  offset: new Float32Array(MESH.count),
});

export function faceScratch(): FaceScratch {
  const c = (): Float32Array => new Float32Array(2 * MESH.count);
  return {
    target: new Float64Array(136),
    canon: { t: c(), b: c(), a: c(), bb: c() },
    room: new Float32Array(RING),
    luma: verts(),
    chroma: verts(),
    moves: new Uint8Array(MESH_TRIANGLES.length / 3),
    copy: { y: new Uint8Array(0), u: new Uint8Array(0), v: new Uint8Array(0) },
  };
}

export interface FaceJob {
  /** The output frame, holding the base frame. */
  out: I420View;
  /** Canonical coordinates → output pixels (the base frame's placement). */
  toOut: Similarity;
  box: VideoBox;
  frame: MeshFrame;
  /** Landmarks (flat, canonical) of the base frame and of the crops. */
  base: FlatLandmarks;
  landmarksA: FlatLandmarks;
  landmarksB: FlatLandmarks;
  a: I420View;
  b: I420View;
  /** a's weight (b's is 1 − wa). */
  wa: number;
  /** 0..1: how far the composite has faded in. */
  fade: number;
  /** What of each inner-ring point is visible (1 − covered), in the base and the crops; absent: all. */
  clearBase?: ArrayLike<number> | undefined;
  clearA?: ArrayLike<number> | undefined;
  clearB?: ArrayLike<number> | undefined;
  scratch: FaceScratch;
}

export function composeFace(job: FaceJob): void {
  const { scratch: s, toOut, box } = job;
  const T = targetLandmarks(job.base, job.landmarksA, job.landmarksB, job.wa, job.fade, s.target);
  if (job.clearBase) holdCoveredJaw(T, job.base, job.clearBase);
  placeMeshes(job, T);
  // a crop's jaw far from the base's (a mistracked frame, hair taken for the jaw) would fold the
  // mesh: the picture torn and laid over itself. Move half as far until nothing folds.
  for (let tries = 0; tries < FOLD_TRIES && folds(s.canon.t, s.canon.b); tries++) {
    const last = tries === FOLD_TRIES - 1;
    for (const i of CROP_LANDMARKS)
      for (let c = 0; c < 2; c++) {
        const k = 2 * i + c;
        T[k] = last ? job.base[k]! : job.base[k]! + (T[k]! - job.base[k]!) / 2;
      }
    placeMeshes(job, T);
  }
  const L = s.luma;
  for (let v = 0; v < MESH.count; v++) {
    const [tx, ty] = applySimilarity(toOut, s.canon.t[2 * v]!, s.canon.t[2 * v + 1]!);
    const [bx, by] = applySimilarity(toOut, s.canon.b[2 * v]!, s.canon.b[2 * v + 1]!);
    L.pos[2 * v] = tx;
    L.pos[2 * v + 1] = ty;
    L.base[2 * v] = bx;
    L.base[2 * v + 1] = by;
    L.a[2 * v] = s.canon.a[2 * v]! - box.x;
    L.a[2 * v + 1] = s.canon.a[2 * v + 1]! - box.y;
    L.b[2 * v] = s.canon.bb[2 * v]! - box.x;
    L.b[2 * v + 1] = s.canon.bb[2 * v + 1]! - box.y;
    let alpha = MESH_ALPHA[v]! * job.fade;
    // under the nose what differs from the usual face is the upper lip drawn up (a smile), not a
    // cover: holding the base there left its lip above the crop's (frames whose lip reaches the
    // nose are kept out at import, video/face-data.ts clearUnderNose)
    const k = v - MESH.inner;
    if (alpha > 0 && v < MESH.centre && (k < UNDER_NOSE.from || k > UNDER_NOSE.to)) {
      const crop = (job.clearA?.[k] ?? 1) * job.wa + (job.clearB?.[k] ?? 1) * (1 - job.wa);
      alpha *= crop * (job.clearBase?.[k] ?? 1);
    }
    L.alpha[v] = alpha;
  }
  for (let t = 0; t < s.moves.length; t++) {
    let moved = 0;
    for (let e = 0; e < 3; e++) {
      const v = MESH_TRIANGLES[3 * t + e]!;
      if (Math.abs(L.pos[2 * v]! - L.base[2 * v]!) + Math.abs(L.pos[2 * v + 1]! - L.base[2 * v + 1]!) > 0.01)
        moved = 1;
    }
    s.moves[t] = moved;
  }
  const C = s.chroma;
  for (let i = 0; i < 2 * MESH.count; i++) {
    C.pos[i] = L.pos[i]! / 2;
    C.base[i] = L.base[i]! / 2;
    C.a[i] = L.a[i]! / 2;
    C.b[i] = L.b[i]! / 2;
  }
  C.alpha.set(L.alpha);
  const { out } = job;
  const rect = bounds(L, out.width, out.height);
  if (!rect) return;
  const cw = out.width >> 1;
  const ch = out.height >> 1;
  const rc = { x0: rect.x0 >> 1, y0: rect.y0 >> 1, x1: rect.x1 >> 1, y1: rect.y1 >> 1 };
  s.copy.y = copyRect(out.y, out.width, rect, s.copy.y);
  s.copy.u = copyRect(out.u, cw, rc, s.copy.u);
  s.copy.v = copyRect(out.v, cw, rc, s.copy.v);
  const plane = (
    dst: Uint8Array,
    width: number,
    height: number,
    copy: Uint8Array,
    r: { x0: number; y0: number; x1: number; y1: number },
    a: Uint8Array,
    b: Uint8Array,
    f: number,
  ): PlaneImages => ({
    dst,
    width,
    height,
    copy,
    x0: r.x0,
    y0: r.y0,
    w: r.x1 - r.x0,
    h: r.y1 - r.y0,
    cropA: a,
    cropB: b,
    cw: job.a.width / f,
    ch: job.a.height / f,
    wa: job.wa,
  });
  const yImg = plane(out.y, out.width, out.height, s.copy.y, rect, job.a.y, job.b.y, 1);
  seamOffsets(yImg, L);
  warpPlane(yImg, L, MESH_TRIANGLES, s.moves);
  for (const [dst, copy, a, b] of [
    [out.u, s.copy.u, job.a.u, job.b.u],
    [out.v, s.copy.v, job.a.v, job.b.v],
  ] as const) {
    const img = plane(dst, cw, ch, copy, rc, a, b, 2);
    seamOffsets(img, C);
    warpPlane(img, C, MESH_TRIANGLES, s.moves);
  }
}

/**
 * The four meshes of a composite (target, base, crops a and b) into the scratch, with one inner
 * ring: it leaves every one's lips inside (face-mesh.ts lipRoom), so neither the base's lips
 * (warped onto the target) nor the crops' are ever in the blend's ramp, where both would show.
 */
function placeMeshes(job: FaceJob, T: Float64Array): void {
  const { scratch: s, frame, base } = job;
  const meshes: Array<[FlatLandmarks, Float32Array]> = [
    [T, s.canon.t],
    [base, s.canon.b],
    [job.landmarksA, s.canon.a],
    [job.landmarksB, s.canon.bb],
  ];
  s.room.fill(1);
  for (const [L, v] of meshes) lipRoom(meshVertices(L, base, frame, v), L, s.room);
  innerShares(s.room);
  for (const [L, v] of meshes) meshVertices(L, base, frame, v, s.room);
}

/** Halvings of the crop's movement tried before the base's own landmarks are kept. */
const FOLD_TRIES = 5;

/**
 * Whether any triangle of the target mesh `t` is turned over or squeezed to under a tenth of its
 * area in the base mesh `b` (canonical vertices, flat).
 */
function folds(t: Float32Array, b: Float32Array): boolean {
  const area = (v: Float32Array, p: number, q: number, r: number): number =>
    (v[2 * q]! - v[2 * p]!) * (v[2 * r + 1]! - v[2 * p + 1]!) -
    (v[2 * r]! - v[2 * p]!) * (v[2 * q + 1]! - v[2 * p + 1]!);
  for (let i = 0; i < MESH_TRIANGLES.length; i += 3) {
    const [p, q, r] = [MESH_TRIANGLES[i]!, MESH_TRIANGLES[i + 1]!, MESH_TRIANGLES[i + 2]!];
    const at = area(t, p, q, r);
    const ab = area(b, p, q, r);
    if (at * ab <= 0 || Math.abs(at) < 0.1 * Math.abs(ab)) return true;
  }
  return false;
}

/** The even-aligned output rectangle holding every vertex (target and base), or undefined. */
function bounds(
  L: PlaneVertices,
  width: number,
  height: number,
): { x0: number; y0: number; x1: number; y1: number } | undefined {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const arr of [L.pos, L.base])
    for (let v = 0; v < MESH.count; v++) {
      x0 = Math.min(x0, arr[2 * v]!);
      x1 = Math.max(x1, arr[2 * v]!);
      y0 = Math.min(y0, arr[2 * v + 1]!);
      y1 = Math.max(y1, arr[2 * v + 1]!);
    }
  const r = {
    x0: Math.max(0, 2 * Math.floor(x0 / 2) - 2),
    y0: Math.max(0, 2 * Math.floor(y0 / 2) - 2),
    x1: Math.min(width, 2 * Math.ceil(x1 / 2) + 2),
    y1: Math.min(height, 2 * Math.ceil(y1 / 2) + 2),
  };
  return r.x1 - r.x0 >= 2 && r.y1 - r.y0 >= 2 ? r : undefined;
}

function copyRect(
  plane: Uint8Array,
  stride: number,
  r: { x0: number; y0: number; x1: number; y1: number },
  buf: Uint8Array,
): Uint8Array {
  const w = r.x1 - r.x0;
  const n = w * (r.y1 - r.y0);
  const out = buf.length >= n ? buf : new Uint8Array(n);
  for (let y = r.y0; y < r.y1; y++)
    out.set(plane.subarray(y * stride + r.x0, y * stride + r.x1), (y - r.y0) * w);
  return out;
}

/** Mean of a 3×3 grid of samples around (x, y), `step` apart, bilinear, clamped. */
function patch(p: Uint8Array, w: number, h: number, x: number, y: number, step: number): number {
  let s = 0;
  for (let j = -1; j <= 1; j++)
    for (let i = -1; i <= 1; i++) {
      const fx = Math.min(w - 1, Math.max(0, x + i * step - 0.5));
      const fy = Math.min(h - 1, Math.max(0, y + j * step - 0.5));
      const x0 = Math.min(w - 2, fx | 0);
      const y0 = Math.min(h - 2, fy | 0);
      const ax = fx - x0;
      const ay = fy - y0;
      const k = y0 * w + x0;
      const top = p[k]! + (p[k + 1]! - p[k]!) * ax;
      s += top + (p[k + w]! + (p[k + w + 1]! - p[k + w]!) * ax - top) * ay;
    }
  return s / 9;
}

/**
 * The seam's offsets: on each boundary-ring point (measured a little inside it, halfway to the
 * inner ring, where both pictures are face), base minus crop; inside, the membrane over the
 * mesh (Gauss–Seidel on the vertices' neighbours, ring fixed); outside the ring, 0.
 */
function seamOffsets(img: PlaneImages, v: PlaneVertices): void {
  const { offset } = v;
  offset.fill(0);
  const d = new Float32Array(RING);
  for (let k = 0; k < RING; k++) {
    const r = MESH.ring + k;
    const i = MESH.inner + k;
    const mid = (arr: Float32Array, c: number): number => (arr[2 * r + c]! + arr[2 * i + c]!) / 2;
    const step = Math.max(
      0.75,
      Math.hypot(v.pos[2 * i]! - v.pos[2 * r]!, v.pos[2 * i + 1]! - v.pos[2 * r + 1]!) / 8,
    );
    const base = patch(img.copy, img.w, img.h, mid(v.base, 0) - img.x0, mid(v.base, 1) - img.y0, step);
    let crop = patch(img.cropA, img.cw, img.ch, mid(v.a, 0), mid(v.a, 1), step);
    if (img.wa < 1)
      crop = crop * img.wa + patch(img.cropB, img.cw, img.ch, mid(v.b, 0), mid(v.b, 1), step) * (1 - img.wa);
    d[k] = base - crop;
  }
  const median = [...d].sort((p, q) => p - q)[RING >> 1]!;
  for (let k = 0; k < RING; k++) {
    const c = Math.max(median - OFFSET_SPREAD, Math.min(median + OFFSET_SPREAD, d[k]!));
    offset[MESH.ring + k] = Math.max(-MAX_OFFSET, Math.min(MAX_OFFSET, c));
  }
  const free: number[] = [];
  for (let k = MESH.inner; k <= MESH.centre; k++) {
    offset[k] = median;
    free.push(k);
  }
  for (let sweep = 0; sweep < 24; sweep++)
    for (const k of free) {
      let s = 0;
      let n = 0;
      for (const q of MESH_NEIGHBOURS[k]!) {
        s += offset[q]!;
        n++;
      }
      offset[k] = s / n;
    }
}
