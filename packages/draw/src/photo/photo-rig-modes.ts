/**
 * How the vertices of a photo avatar's rig move, per unit of each mode (photo-rig.ts builds the
 * mesh and poses it). Displacements are in the face's axes: along r (to the face's right in the
 * image) and along u (down the face), in photo pixels.
 */

export type Vec = readonly [number, number];

export const MODES = [
  'close',
  'open',
  'width',
  'round',
  'roundOpen',
  'bite',
  'relax',
  'blinkL',
  'blinkR',
  'brow',
] as const;
export type Mode = (typeof MODES)[number];

/** The mouth modes (every triangle with a vertex they move is warped each frame). */
export const MOUTH_MODES: readonly Mode[] = ['close', 'open', 'width', 'round', 'roundOpen', 'bite', 'relax'];

/** The face's frame in the photo, measured from its landmarks. */
export interface FaceFrame {
  L: (i: number) => Vec;
  /** Down the face, and to the image's right. */
  u: Vec;
  r: Vec;
  /** Mouth centre (between the outer corners), mouth width and face width (jaw 0 to 16). */
  mc: Vec;
  mouthW: number;
  faceW: number;
}

export type AddMode = (m: Mode, i: number, a: number, b: number) => void;

const UPPER_OUT = [49, 50, 51, 52, 53];
const LOWER_OUT = [59, 58, 57, 56, 55];
const UPPER_IN = [61, 62, 63];
const LOWER_IN = [67, 66, 65];
const OUTER_CORNERS = [48, 54];
const INNER_CORNERS = [60, 64];

/** How far the chin drops at open = 1, in mouth widths; the lower lip drops a little further. */
const CHIN_DROP = 0.3;
/** Rows of vertices below the jaw line (jaw 5–11): how far out (face widths), and how much of
 * the jaw's drop each keeps, so the drop fades into the neck. */
export const NECK_ROWS = [
  { out: 0.1, keep: 0.55 },
  { out: 0.24, keep: 0.22 },
] as const;
export const NECK_JAW = [5, 6, 7, 8, 9, 10, 11];

export function along(f: FaceFrame, p: Vec, axis: Vec): number {
  return (p[0] - f.mc[0]) * axis[0] + (p[1] - f.mc[1]) * axis[1];
}

/** A landmark's position across the mouth: -1 at the left corner, 1 at the right one. */
export function xRel(f: FaceFrame, i: number): number {
  return along(f, f.L(i), f.r) / (f.mouthW / 2);
}

/** How much a jaw landmark follows the chin: 1 at the chin (8), fading towards the ears. */
export function jawWeight(j: number): number {
  return Math.max(0, Math.cos(((j - 8) / 6) * (Math.PI / 2))) ** 1.5;
}

/** How much of the photo's gap between the lips the upper lip closes at rest (the jaw, rising,
 * closes the rest), so the skin under the nose stays as it is in the photo. */
const UPPER_SHARE = 0.35;

/**
 * close: lips that part in the photo (a smile with teeth) meet at rest, the lower lip and the jaw
 * rising most; their inner edges are taken a little onto the lips (`points` moves), so no tooth
 * shows along the closed line.
 */
export function closeMode(f: FaceFrame, points: Vec[], add: AddMode): void {
  const { u, mouthW } = f;
  const gap = (upper: number, lower: number): number =>
    Math.max(0, along(f, f.L(lower), u) - along(f, f.L(upper), u));
  const share = (sign: number): number => (sign < 0 ? UPPER_SHARE : 1 - UPPER_SHARE);
  for (let k = 0; k < 3; k++) {
    const g = gap(UPPER_IN[k]!, LOWER_IN[k]!);
    const inset = Math.min(g * 0.2, 0.025 * mouthW);
    for (const [i, sign] of [
      [UPPER_IN[k]!, -1],
      [LOWER_IN[k]!, 1],
    ] as const) {
      const p = points[i]!;
      points[i] = [p[0] + sign * inset * u[0], p[1] + sign * inset * u[1]];
      add('close', i, 0, -sign * (g * share(sign) + inset));
    }
    add('close', UPPER_OUT[k + 1]!, 0, g * UPPER_SHARE * 0.9);
    add('close', LOWER_OUT[k + 1]!, 0, -g * (1 - UPPER_SHARE) * 0.9);
  }
  const gEdge = (gap(61, 67) + gap(63, 65)) / 2;
  for (const i of [49, 53]) add('close', i, 0, gEdge * UPPER_SHARE * 0.5);
  for (const i of [59, 55]) add('close', i, 0, -gEdge * (1 - UPPER_SHARE) * 0.5);
  const gMid = gap(62, 66);
  for (let j = 4; j <= 12; j++) add('close', j, 0, -gMid * (1 - UPPER_SHARE) * jawWeight(j));
}

/** Where the lips meet at rest in the middle (photo pixels). */
export function stomion(f: FaceFrame): Vec {
  const a = f.L(62);
  const b = f.L(66);
  return [a[0] + (b[0] - a[0]) * UPPER_SHARE, a[1] + (b[1] - a[1]) * UPPER_SHARE];
}

/**
 * open, width, round, bite and relax. Opening drops the lower lip, the chin and the jaw line (the
 * rows below the jaw follow part of the way); width stretches the mouth; round narrows it, its
 * inner corners most (the opening rounds) and thickens the lips; relax brings the corners, raised
 * in a smiling photo, down to the lips' meeting line.
 */
export function mouthModes(f: FaceFrame, add: AddMode): void {
  const { mouthW } = f;
  const x = (i: number): number => xRel(f, i);
  const wx = (i: number): number => 1 - 0.5 * Math.min(1, x(i) ** 2);
  for (const i of [...UPPER_OUT, ...UPPER_IN]) {
    add('open', i, 0, -0.07 * mouthW * wx(i));
    add('bite', i, 0, -0.07 * mouthW * wx(i));
  }
  for (const i of UPPER_OUT) add('round', i, 0, -0.05 * mouthW * wx(i));
  // a rounded opening is taller (not a closed mouth: roundOpen grows with the opening)
  for (const i of UPPER_IN) add('roundOpen', i, 0, -0.03 * mouthW * wx(i));
  for (const i of LOWER_IN) {
    add('open', i, 0, 0.42 * mouthW * wx(i));
    add('bite', i, 0, -0.05 * mouthW * wx(i));
    add('roundOpen', i, 0, 0.04 * mouthW * wx(i));
  }
  for (const i of LOWER_OUT) {
    add('open', i, 0, 0.4 * mouthW * wx(i));
    add('bite', i, 0, -0.03 * mouthW * wx(i));
    add('round', i, 0, 0.06 * mouthW * wx(i));
  }
  for (const i of [...OUTER_CORNERS, ...INNER_CORNERS])
    add('open', i, -0.04 * mouthW * Math.sign(x(i)), 0.12 * mouthW);
  // rounding gathers the opening most: its corners and the inner lips beside the middle
  for (const i of INNER_CORNERS) add('round', i, -0.19 * mouthW * Math.sign(x(i)), 0);
  for (const i of [61, 63, 65, 67]) add('round', i, -0.085 * mouthW * Math.sign(x(i)), 0);
  // the smile: how far the corners sit above the lips' meeting line (none for a photo that frowns)
  const meet = along(f, stomion(f), f.u);
  const corners = (along(f, f.L(48), f.u) + along(f, f.L(54), f.u)) / 2;
  const smile = Math.min(0.12 * mouthW, Math.max(0, meet - corners));
  for (let i = 48; i <= 67; i++) {
    add('width', i, 0.25 * mouthW * x(i), 0);
    add('round', i, -0.15 * mouthW * x(i) * Math.min(1, Math.abs(x(i))), 0);
    add('relax', i, 0, smile * Math.min(1, x(i) ** 2));
  }
}

/**
 * The jaw line follows the chin down when the mouth opens (drawing in a little, as the jaw swings
 * on its hinge), and each neck row keeps its share of the drop of the jaw point above it.
 */
export function jawModes(
  f: FaceFrame,
  neck: ReadonlyArray<{ jaw: number; keep: number }>,
  add: AddMode,
): void {
  const drop = (j: number): Vec => {
    const w = jawWeight(j);
    const side = Math.sign(xRel(f, j));
    return [-0.05 * f.mouthW * w * (1 - w) * side, CHIN_DROP * f.mouthW * w];
  };
  for (let j = 3; j <= 13; j++) add('open', j, ...drop(j));
  neck.forEach(({ jaw, keep }, k) => {
    const [a, b] = drop(jaw);
    add('open', 68 + k, a * keep, b * keep);
  });
}

/** Neck vertices: rows below the jaw line, out along its normal turned half-way down the face. */
export function neckPoints(f: FaceFrame): Array<{ p: Vec; jaw: number; keep: number }> {
  const out: Array<{ p: Vec; jaw: number; keep: number }> = [];
  const nose = f.L(33);
  for (const row of NECK_ROWS)
    for (const j of NECK_JAW) {
      const a = f.L(j - 1);
      const b = f.L(j + 1);
      let n: Vec = [b[1] - a[1], a[0] - b[0]];
      const p = f.L(j);
      if (n[0] * (p[0] - nose[0]) + n[1] * (p[1] - nose[1]) < 0) n = [-n[0], -n[1]];
      const nl = Math.hypot(n[0], n[1]) || 1;
      const d: Vec = [n[0] / nl + f.u[0], n[1] / nl + f.u[1]];
      const dl = Math.hypot(d[0], d[1]) || 1;
      const k = (row.out * f.faceW) / dl;
      out.push({ p: [p[0] + d[0] * k, p[1] + d[1] * k], jaw: j, keep: row.keep });
    }
  return out;
}

/** blinks: the upper lid comes down to the lower one, which rises a little; brow: a raise. */
export function lidModes(f: FaceFrame, add: AddMode): void {
  for (const [m, up, low] of [
    ['blinkL', [37, 38], [41, 40]],
    ['blinkR', [43, 44], [47, 46]],
  ] as const)
    for (let k = 0; k < 2; k++) {
      const p = f.L(up[k]!);
      const q = f.L(low[k]!);
      const d: Vec = [q[0] - p[0], q[1] - p[1]];
      const dr = d[0] * f.r[0] + d[1] * f.r[1];
      const du = d[0] * f.u[0] + d[1] * f.u[1];
      add(m, up[k]!, dr * 0.88, du * 0.88);
      add(m, low[k]!, -dr * 0.12, -du * 0.12);
    }
  for (let i = 17; i <= 26; i++) add('brow', i, 0, -0.035 * f.faceW);
}

/** A colour of the photo at a point in the rig's coordinates (undefined off the picture). */
export type PhotoSampler = (x: number, y: number) => readonly [number, number, number] | undefined;

/** The inner lips' corner segments (upper 60–61, 63–64, then lower 60–67, 65–64), and where
 * along each a vertex of its own is put. */
const CORNER_SEGMENTS = [
  [60, 61],
  [63, 64],
  [60, 67],
  [65, 64],
] as const;
const SPLITS = [0.25, 0.5, 0.75];
export const CORNER_VERTICES = CORNER_SEGMENTS.length * SPLITS.length;

/** The inner lips as a polygon (upper corner to corner, then the lower back), the corner
 * segments' vertices (from `first`) included. */
export function innerPolygon(first: number): number[] {
  const seg = (k: number, reverse: boolean): number[] => {
    const v = SPLITS.map((_, j) => first + k * SPLITS.length + j);
    return reverse ? v.reverse() : v;
  };
  return [
    60,
    ...seg(0, false),
    61,
    62,
    63,
    ...seg(1, false),
    64,
    ...seg(3, true),
    65,
    66,
    67,
    ...seg(2, true),
  ];
}

/**
 * Vertices along the inner lips' corner segments (`first`…, appended to `points`). In a smiling
 * photo a straight segment there can cut across teeth near the mouth's corners, and the lips
 * warped from there would show them: each vertex is placed past any teeth beside it in the photo
 * (`photo`), so the lips are sampled from lip. Its mode `close` (always fully on) takes it back
 * onto the segment, so in every frame it lies on the segment between its two landmarks and the
 * mouth keeps its shape. Call after every other mode is made.
 */
export function cornerVertices(
  f: FaceFrame,
  points: Vec[],
  modes: Record<Mode, Float64Array>,
  first: number,
  add: AddMode,
  photo: PhotoSampler | undefined,
): void {
  const teeth = photo ? teethLike(f, photo) : () => false;
  CORNER_SEGMENTS.forEach(([a, b], k) =>
    SPLITS.forEach((s, j) => {
      const i = first + k * SPLITS.length + j;
      for (const m of MODES) {
        const v = modes[m];
        v[i * 2] = v[a * 2]! * (1 - s) + v[b * 2]! * s;
        v[i * 2 + 1] = v[a * 2 + 1]! * (1 - s) + v[b * 2 + 1]! * s;
      }
      const c: Vec = [
        points[a]![0] * (1 - s) + points[b]![0] * s,
        points[a]![1] * (1 - s) + points[b]![1] * s,
      ];
      // out from the mouth: up for the upper lip, down for the lower one
      const out = k < 2 ? -1 : 1;
      let d = 0;
      for (let step = 0; step * 0.5 <= 0.08 * f.mouthW; step++) {
        const t = step * 0.5 * out;
        if (teeth(c[0] + t * f.u[0], c[1] + t * f.u[1])) d = step * 0.5 + 1;
        else if (step * 0.5 > d + 1) break;
      }
      points[i] = [c[0] + d * out * f.u[0], c[1] + d * out * f.u[1]];
      add('close', i, 0, -d * out);
    }),
  );
}

/** Whether the photo shows a tooth at a point: far less red than the lips, and not dark. */
function teethLike(f: FaceFrame, photo: PhotoSampler): (x: number, y: number) => boolean {
  const mid = (i: number, j: number): Vec => [(f.L(i)[0] + f.L(j)[0]) / 2, (f.L(i)[1] + f.L(j)[1]) / 2];
  const luma = (c: readonly number[]): number => 0.299 * c[0]! + 0.587 * c[1]! + 0.114 * c[2]!;
  const red = (c: readonly number[]): number => c[0]! - c[1]!;
  const lips = [mid(51, 62), mid(57, 66), mid(50, 61), mid(52, 63)]
    .map(([x, y]) => photo(x, y))
    .filter((c) => c !== undefined);
  if (!lips.length) return () => false;
  const lipLuma = lips.reduce((s, c) => s + luma(c), 0) / lips.length;
  const lipRed = lips.reduce((s, c) => s + red(c), 0) / lips.length;
  return (x, y) => {
    const c = photo(x, y);
    return c !== undefined && luma(c) > 0.6 * lipLuma && red(c) < 0.5 * lipRed;
  };
}
