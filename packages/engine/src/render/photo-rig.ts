/**
 * The rig of a photo avatar, made once from its 68 landmarks: a triangle mesh over the face (the
 * landmarks and a fixed ring around the face, so the warp fades into the untouched photo), and
 * per vertex how it moves for each mouth parameter, a blink and a brow raise. A frame's vertex
 * positions are the rest positions plus a weighted sum of these modes (pose()).
 */
import type { FaceMotion, MouthParams } from '../face-state.js';
import { triangulate } from './delaunay.js';

export type Vec = readonly [number, number];

export const MODES = ['close', 'open', 'width', 'round', 'bite', 'blinkL', 'blinkR', 'brow'] as const;
export type Mode = (typeof MODES)[number];

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
  /** Inner lip vertices, corner to corner: upper 60,61,62,63,64 and lower 60,67,66,65,64. */
  innerUpper: readonly number[];
  innerLower: readonly number[];
}

const RING = 20;
const UPPER_OUT = [49, 50, 51, 52, 53];
const LOWER_OUT = [59, 58, 57, 56, 55];
const UPPER_IN = [61, 62, 63];
const LOWER_IN = [67, 66, 65];
const CORNERS = [48, 54, 60, 64];

/** The width parameter at which the mouth is as wide as in the photo. */
export const PHOTO_WIDTH = 0.35;

export function buildRig(landmarks: ReadonlyArray<Vec>): PhotoRig {
  const L = (i: number): Vec => landmarks[i]!;
  const sub = (a: Vec, b: Vec): Vec => [a[0] - b[0], a[1] - b[1]];
  const len = (a: Vec): number => Math.hypot(a[0], a[1]);
  const down = sub(L(8), L(27));
  const u: Vec = [down[0] / len(down), down[1] / len(down)];
  const r: Vec = [u[1], -u[0]];
  const mouthW = len(sub(L(54), L(48)));
  const faceW = len(sub(L(16), L(0)));
  const mc: Vec = [(L(48)[0] + L(54)[0]) / 2, (L(48)[1] + L(54)[1]) / 2];
  const along = (p: Vec, axis: Vec): number => (p[0] - mc[0]) * axis[0] + (p[1] - mc[1]) * axis[1];
  const xRel = (i: number): number => along(L(i), r) / (mouthW / 2);

  // a ring of fixed vertices around the face, from above the brows to below the chin
  const top = Math.min(...[19, 24].map((i) => along(L(i), u))) - 0.2 * faceW;
  const bottom = along(L(8), u) + 0.28 * faceW;
  const centreU = (top + bottom) / 2;
  const ru = (bottom - top) / 2;
  const rr = 0.64 * faceW;
  const centreR = along([(L(0)[0] + L(16)[0]) / 2, (L(0)[1] + L(16)[1]) / 2], r);
  const points: Vec[] = [...landmarks];
  for (let k = 0; k < RING; k++) {
    const a = (k / RING) * Math.PI * 2;
    const pr = centreR + rr * Math.cos(a);
    const pu = centreU + ru * Math.sin(a);
    points.push([mc[0] + pr * r[0] + pu * u[0], mc[1] + pr * r[1] + pu * u[1]]);
  }
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
  const wx = (i: number): number => 1 - 0.5 * Math.min(1, xRel(i) ** 2);
  const gap = (upper: number, lower: number): number => Math.max(0, along(L(lower), u) - along(L(upper), u));

  // close: lips that part in the photo (a smile with teeth) meet in the middle at rest; their
  // inner edges are taken a little onto the lips, so no tooth shows along the closed line
  for (let k = 0; k < 3; k++) {
    const g = gap(UPPER_IN[k]!, LOWER_IN[k]!) / 2;
    const inset = Math.min(g * 0.4, 0.025 * mouthW);
    for (const [i, sign] of [
      [UPPER_IN[k]!, -1],
      [LOWER_IN[k]!, 1],
    ] as const) {
      const p = points[i]!;
      points[i] = [p[0] + sign * inset * u[0], p[1] + sign * inset * u[1]];
      add('close', i, 0, -sign * (g + inset));
    }
    add('close', UPPER_OUT[k + 1]!, 0, g * 0.9);
    add('close', LOWER_OUT[k + 1]!, 0, -g * 0.9);
  }
  const gEdge = (gap(61, 67) + gap(63, 65)) / 4;
  for (const i of [49, 53]) add('close', i, 0, gEdge * 0.5);
  for (const i of [59, 55]) add('close', i, 0, -gEdge * 0.5);
  const gMid = gap(62, 66) / 2;
  for (let j = 4; j <= 12; j++) add('close', j, 0, -gMid * jawWeight(j));

  for (const i of [...UPPER_OUT, ...UPPER_IN]) {
    add('open', i, 0, -0.07 * mouthW * wx(i));
    add('bite', i, 0, -0.07 * mouthW * wx(i));
  }
  for (const i of UPPER_OUT) add('round', i, 0, -0.05 * mouthW * wx(i));
  for (const i of LOWER_IN) {
    add('open', i, 0, 0.42 * mouthW * wx(i));
    add('bite', i, 0, -0.05 * mouthW * wx(i));
  }
  for (const i of LOWER_OUT) {
    add('open', i, 0, 0.4 * mouthW * wx(i));
    add('bite', i, 0, -0.03 * mouthW * wx(i));
    add('round', i, 0, 0.06 * mouthW * wx(i));
  }
  for (const i of CORNERS) add('open', i, -0.04 * mouthW * Math.sign(xRel(i)), 0.12 * mouthW);
  for (let i = 48; i <= 67; i++) {
    add('width', i, 0.5 * mouthW * xRel(i) * 0.5, 0);
    add('round', i, -0.3 * mouthW * xRel(i) * Math.min(1, Math.abs(xRel(i))) * 0.5, 0);
  }
  for (let j = 3; j <= 13; j++) add('open', j, 0, 0.4 * mouthW * jawWeight(j));

  // blinks: the upper lid comes down to the lower one, which rises a little
  for (const [m, up, low] of [
    ['blinkL', [37, 38], [41, 40]],
    ['blinkR', [43, 44], [47, 46]],
  ] as const)
    for (let k = 0; k < 2; k++) {
      const d = sub(L(low[k]!), L(up[k]!));
      add(
        m,
        up[k]!,
        along([mc[0] + d[0], mc[1] + d[1]], r) * 0.88,
        along([mc[0] + d[0], mc[1] + d[1]], u) * 0.88,
      );
      add(
        m,
        low[k]!,
        -along([mc[0] + d[0], mc[1] + d[1]], r) * 0.12,
        -along([mc[0] + d[0], mc[1] + d[1]], u) * 0.12,
      );
    }
  for (let i = 17; i <= 26; i++) add('brow', i, 0, -0.035 * faceW);

  // mesh the face with its mouth half open and the outer lips spread a little, so the inner lips
  // bound triangles of their own (an outer corner close to an inner one would steal them)
  const layout = points.map((p, i): Vec => {
    const a = modes.close[i * 2]! + 0.6 * modes.open[i * 2]!;
    const b = modes.close[i * 2 + 1]! + 0.6 * modes.open[i * 2 + 1]!;
    const q: Vec = [p[0] + a * r[0] + b * u[0], p[1] + a * r[1] + b * u[1]];
    if (i < 48 || i > 59) return q;
    return [mc[0] + (q[0] - mc[0]) * 1.25, mc[1] + (q[1] - mc[1]) * 1.25];
  });
  const tris = triangulate(layout);
  const inner = [60, 61, 62, 63, 64, 65, 66, 67];
  const innerPoly = inner.map((i) => layout[i]!);
  const cavity: number[] = [];
  const mouthTris: number[] = [];
  const lidTris: number[] = [];
  const browTris: number[] = [];
  const moves = (i: number, ms: readonly Mode[]): boolean =>
    ms.some((m) => modes[m][i * 2] !== 0 || modes[m][i * 2 + 1] !== 0);
  tris.forEach(([a, b, c], t) => {
    const centroid: Vec = [
      (layout[a]![0] + layout[b]![0] + layout[c]![0]) / 3,
      (layout[a]![1] + layout[b]![1] + layout[c]![1]) / 3,
    ];
    if ([a, b, c].every((i) => i >= 60 && i <= 67) && inside(centroid, innerPoly)) cavity.push(t);
    else if ([a, b, c].some((i) => moves(i, ['close', 'open', 'width', 'round', 'bite']))) mouthTris.push(t);
    else if ([a, b, c].some((i) => moves(i, ['blinkL', 'blinkR']))) lidTris.push(t);
    else if ([a, b, c].some((i) => moves(i, ['brow']))) browTris.push(t);
  });
  return {
    rest: Float64Array.from(points.flat()),
    tris: Int32Array.from(tris.flat()),
    cavity,
    mouthTris,
    lidTris,
    browTris,
    modes,
    u,
    r,
    mouthW,
    faceW,
    innerUpper: [60, 61, 62, 63, 64],
    innerLower: [60, 67, 66, 65, 64],
  };
}

/** How much a jaw landmark follows the chin: 1 at the chin (8), fading towards the ears. */
function jawWeight(j: number): number {
  return Math.max(0, Math.cos(((j - 8) / 6) * (Math.PI / 2))) ** 1.5;
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
    bite: mouth.lipBite,
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
