/**
 * The rig of a photo avatar, made once from its 68 landmarks: a triangle mesh over the face (the
 * landmarks and a fixed ring around the face, so the warp fades into the untouched photo), and
 * per vertex how it moves for each mouth parameter, a blink and a brow raise. A frame's vertex
 * positions are the rest positions plus a weighted sum of these modes (pose()).
 */
import type { FaceMotion, MouthParams } from '../face.js';
import { triangulate } from './delaunay.js';
import {
  MODES,
  MOUTH_MODES,
  along,
  closeMode,
  CORNER_VERTICES,
  cornerVertices,
  innerPolygon,
  jawModes,
  lidModes,
  mouthModes,
  neckPoints,
  stomion,
  type FaceFrame,
  type Mode,
  type PhotoSampler,
  type Vec,
} from './photo-rig-modes.js';

export { MODES, type Mode, type PhotoSampler, type Vec } from './photo-rig-modes.js';

export interface PhotoRig {
  /** Rest positions (the photo), x and y interleaved. */
  rest: Float64Array;
  /** Triangles as vertex index triples. */
  tris: Int32Array;
  /** Triangles inside the inner lips (drawn as the inner mouth, not sampled). */
  cavity: number[];
  /** Triangles the mouth modes move (always warped), those blinks move, those only brows move. */
  mouthTris: number[];
  lidTris: number[];
  browTris: number[];
  /** Displacement of every vertex per unit of each mode, in the face's axes (along r, along u). */
  modes: Record<Mode, Float64Array>;
  /** The face's axes in the photo: u points down the face, r to the image's right. */
  u: Vec;
  r: Vec;
  /** Mouth width (corner to corner) and face width (jaw 0 to 16). */
  mouthW: number;
  faceW: number;
  /** Where the lips meet at rest, in the middle (the upper teeth hang from above it). */
  stomion: Vec;
  /** Inner lip vertices, corner to corner: upper 60,61,62,63,64 and lower 60,67,66,65,64. */
  innerUpper: readonly number[];
  innerLower: readonly number[];
}

const RING = 24;

/** The width parameter at which the mouth is as wide as in the photo. */
export const PHOTO_WIDTH = 0.35;

function faceFrame(landmarks: ReadonlyArray<Vec>): FaceFrame {
  const L = (i: number): Vec => landmarks[i]!;
  const down: Vec = [L(8)[0] - L(27)[0], L(8)[1] - L(27)[1]];
  const dl = Math.hypot(down[0], down[1]);
  const u: Vec = [down[0] / dl, down[1] / dl];
  return {
    L,
    u,
    r: [u[1], -u[0]],
    mc: [(L(48)[0] + L(54)[0]) / 2, (L(48)[1] + L(54)[1]) / 2],
    mouthW: Math.hypot(L(54)[0] - L(48)[0], L(54)[1] - L(48)[1]),
    faceW: Math.hypot(L(16)[0] - L(0)[0], L(16)[1] - L(0)[1]),
  };
}

/**
 * A ring of fixed vertices around the face, from above the brows to well below the chin (so the
 * jaw's drop fades out over the neck), as the warp's fixed border.
 */
function ring(f: FaceFrame): Vec[] {
  const { L, r, u, mc, faceW } = f;
  const top = Math.min(...[19, 24].map((i) => along(f, L(i), u))) - 0.2 * faceW;
  const bottom = along(f, L(8), u) + 0.42 * faceW;
  const centreU = along(f, L(30), u);
  const rr = 0.64 * faceW;
  const centreR = along(f, [(L(0)[0] + L(16)[0]) / 2, (L(0)[1] + L(16)[1]) / 2], r);
  const out: Vec[] = [];
  for (let k = 0; k < RING; k++) {
    const a = (k / RING) * Math.PI * 2;
    const pr = centreR + rr * Math.cos(a);
    const pu = centreU + (Math.sin(a) > 0 ? bottom - centreU : centreU - top) * Math.sin(a);
    out.push([mc[0] + pr * r[0] + pu * u[0], mc[1] + pr * r[1] + pu * u[1]]);
  }
  return out;
}

/**
 * Fixed points on the cheeks, between the lower lids and the mouth and beside the nose, so no
 * triangle joins a lid to the lips (a blink would move the mouth, and the mouth the lids).
 */
function cheeks(f: FaceFrame): Vec[] {
  const at = (i: number, j: number, t: number): Vec => {
    const a = f.L(i);
    const b = f.L(j);
    return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
  };
  return [
    at(41, 48, 0.45),
    at(46, 54, 0.45),
    at(40, 31, 0.5),
    at(47, 35, 0.5),
    at(36, 3, 0.5),
    at(45, 13, 0.5),
  ];
}

/**
 * The rig of a photo's landmarks; `photo` (its colours, in the landmarks' coordinates) lets the
 * lips near the mouth's corners be sampled clear of teeth the photo shows.
 */
export function buildRig(landmarks: ReadonlyArray<Vec>, photo?: PhotoSampler): PhotoRig {
  const f = faceFrame(landmarks);
  const neck = neckPoints(f);
  // the landmarks, the neck rows, the inner lips' corner vertices (placed below), cheeks, ring
  const corners = 68 + neck.length;
  const points: Vec[] = [
    ...landmarks,
    ...neck.map((v) => v.p),
    ...Array.from({ length: CORNER_VERTICES }, (): Vec => [0, 0]),
    ...cheeks(f),
    ...ring(f),
  ];
  const n = points.length;
  const modes = Object.fromEntries(MODES.map((m) => [m, new Float64Array(n * 2)])) as Record<
    Mode,
    Float64Array
  >;
  const add = (m: Mode, i: number, a: number, b: number): void => {
    const v = modes[m];
    v[i * 2] = v[i * 2]! + a;
    v[i * 2 + 1] = v[i * 2 + 1]! + b;
  };
  closeMode(f, points, add);
  mouthModes(f, add);
  jawModes(f, neck, add);
  lidModes(f, add);
  cornerVertices(f, points, modes, corners, add, photo);
  return {
    ...mesh(f, points, modes, innerPolygon(corners)),
    rest: Float64Array.from(points.flat()),
    modes,
    u: f.u,
    r: f.r,
    mouthW: f.mouthW,
    faceW: f.faceW,
    stomion: stomion(f),
    innerUpper: [60, 61, 62, 63, 64],
    innerLower: [60, 67, 66, 65, 64],
  };
}

/**
 * The mesh, made with the mouth half open and the outer lips spread a little, so the inner lips
 * bound triangles of their own (an outer corner close to an inner one would steal them), and its
 * triangles sorted by what moves them.
 */
function mesh(
  f: FaceFrame,
  points: readonly Vec[],
  modes: Record<Mode, Float64Array>,
  inner: readonly number[],
): Pick<PhotoRig, 'tris' | 'cavity' | 'mouthTris' | 'lidTris' | 'browTris'> {
  const { r, u, mc } = f;
  const layout = points.map((p, i): Vec => {
    const a = modes.close[i * 2]! + 0.6 * modes.open[i * 2]!;
    const b = modes.close[i * 2 + 1]! + 0.6 * modes.open[i * 2 + 1]!;
    const q: Vec = [p[0] + a * r[0] + b * u[0], p[1] + a * r[1] + b * u[1]];
    if (i < 48 || i > 59) return q;
    return [mc[0] + (q[0] - mc[0]) * 1.25, mc[1] + (q[1] - mc[1]) * 1.25];
  });
  // (the corner vertices lie on the inner lips' segments: a nudge out keeps triangles off them)
  const upperEnd = inner.indexOf(64);
  inner.forEach((i, k) => {
    if (i < 68) return;
    const out = k < upperEnd ? -0.5 : 0.5;
    layout[i] = [layout[i]![0] + out * u[0], layout[i]![1] + out * u[1]];
  });
  const tris = triangulate(layout);
  const innerPoly = inner.map((i) => layout[i]!);
  const isInner = new Set(inner);
  const out = {
    cavity: [] as number[],
    mouthTris: [] as number[],
    lidTris: [] as number[],
    browTris: [] as number[],
  };
  const moves = (i: number, ms: readonly Mode[]): boolean =>
    ms.some((m) => modes[m][i * 2] !== 0 || modes[m][i * 2 + 1] !== 0);
  tris.forEach(([a, b, c], t) => {
    const centroid: Vec = [
      (layout[a]![0] + layout[b]![0] + layout[c]![0]) / 3,
      (layout[a]![1] + layout[b]![1] + layout[c]![1]) / 3,
    ];
    if ([a, b, c].every((i) => isInner.has(i)) && inside(centroid, innerPoly)) out.cavity.push(t);
    else if ([a, b, c].some((i) => moves(i, MOUTH_MODES))) out.mouthTris.push(t);
    else if ([a, b, c].some((i) => moves(i, ['blinkL', 'blinkR']))) out.lidTris.push(t);
    else if ([a, b, c].some((i) => moves(i, ['brow']))) out.browTris.push(t);
  });
  return { tris: Int32Array.from(tris.flat()), ...out };
}

function inside(p: Vec, poly: readonly Vec[]): boolean {
  let c = false;
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
    const [xi, yi] = poly[i]!;
    const [xj, yj] = poly[j]!;
    if (yi > p[1] !== yj > p[1] && p[0] < ((xj - xi) * (p[1] - yi)) / (yj - yi) + xi) c = !c;
  }
  return c;
}

/** Every mode at zero: the photo as it is. */
export const PHOTO_POSE: Readonly<Record<Mode, number>> = Object.freeze(
  Object.fromEntries(MODES.map((m) => [m, 0])) as Record<Mode, number>,
);

/** The weight of each mode for a frame. */
export function modeWeights(mouth: MouthParams, motion: FaceMotion): Record<Mode, number> {
  const blink = Math.min(1, Math.max(0, motion.blink));
  return {
    close: 1,
    open: mouth.open,
    width: mouth.width - PHOTO_WIDTH,
    round: mouth.round,
    roundOpen: mouth.round * Math.min(1, mouth.open / 0.15),
    bite: mouth.lipBite,
    relax: Math.min(1, mouth.round + 0.45 * Math.min(1, mouth.open / 0.4)),
    blinkL: blink,
    blinkR: blink,
    brow: Math.min(1, Math.max(0, motion.brow)),
  };
}

/**
 * Vertex positions for a frame into `out`: rest positions scaled by `scale`, moved by the
 * weighted modes, rotated by `angle` about `pivot` and shifted by (dx, dy).
 */
export function pose(
  rig: PhotoRig,
  weights: Readonly<Record<Mode, number>>,
  scale: number,
  angle: number,
  pivot: Vec,
  dx: number,
  dy: number,
  out: Float64Array,
): void {
  const n = rig.rest.length / 2;
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  const { r, u } = rig;
  for (let i = 0; i < n; i++) {
    let a = 0;
    let b = 0;
    for (const m of MODES) {
      const w = weights[m];
      if (w === 0) continue;
      a += w * rig.modes[m][i * 2]!;
      b += w * rig.modes[m][i * 2 + 1]!;
    }
    const x = (rig.rest[i * 2]! + a * r[0] + b * u[0]) * scale - pivot[0];
    const y = (rig.rest[i * 2 + 1]! + a * r[1] + b * u[1]) * scale - pivot[1];
    out[i * 2] = pivot[0] + x * cos - y * sin + dx;
    out[i * 2 + 1] = pivot[1] + x * sin + y * cos + dy;
  }
}

/** A point of the photo (its pixels) in the frame, as pose() places the rig's vertices. */
export function place(p: Vec, scale: number, angle: number, pivot: Vec, dx: number, dy: number): Vec {
  const x = p[0] * scale - pivot[0];
  const y = p[1] * scale - pivot[1];
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  return [pivot[0] + x * cos - y * sin + dx, pivot[1] + x * sin + y * cos + dy];
}
