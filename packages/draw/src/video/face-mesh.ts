/**
 * The lower-face mesh a video avatar's mouth is composited through (docs/design.md §14), built
 * from 68 landmarks in canonical coordinates (video-index.ts), with a topology fixed by hand so
 * that the blend always ends on the face's own contour:
 *
 *   boundary ring R (18): the jaw from landmark 3 to 13, a cheek point, a line just under the
 *     nose (31–35 moved a third of the nose tip→base distance down), the other cheek point;
 *     blend weight 0 — the composite never reaches past the jaw or above the nose;
 *   inner ring I (18): each R point 30 % of the way to the mouth's centre, or nearer R where the
 *     lips come nearer (lipRoom, innerShares: the blend is full LIP_SHARE of the way from R to the
 *     lips, so no lip is ever in its ramp); weight 1 (times what the occlusion measure leaves of it);
 *   mouth centre M: weight 1;
 *   neck ring N (11): the jaw points pushed out along the jaw's normal by 15 % of the face width,
 *     moving with the jaw (the base's neck follows a dropped chin);
 *   far ring F (11): 40 % out, fixed (where the base's warp fades to nothing).
 *
 * A frame's *target* landmarks take the upper face (eyes, nose, jaw ends 3 and 13) from the base
 * frame and the lower jaw (4–12) and mouth (48–67) from the crop, so the base's chin is warped to
 * the crop's and the two jaw lines coincide; every vertex outside the lower jaw stays where the
 * base has it, so the base's warp is continuous with the untouched picture around it.
 */

/** 68 landmarks, flat: [x0, y0, x1, y1, …] (canonical pixels). */
export type FlatLandmarks = ArrayLike<number>;

export const RING = 18;
/** Jaw landmarks 3..13 are ring vertices 0..10. */
const JAW_FIRST = 3;
const JAW_POINTS = 11;
/** Ring vertices that move with the crop's jaw (landmarks 4..12). */
const MOVING_JAW = { from: 1, to: 9 } as const;
/** Ring vertices on the line under the nose (landmarks 35..31). */
export const UNDER_NOSE = { from: 12, to: 16 } as const;
const INNER_AT = 0.3;
/**
 * The inner ring lies at most this share of the way from the boundary to the outer lips: a wide
 * open or laughing mouth, or a head tilted back (the upper lip just under the nose), would
 * otherwise put the lips in the blend's ramp, where the base's lip shows through beside the
 * crop's (two lip lines). 0.6: a closed mouth's lips begin about halfway to the mouth's centre,
 * so its ring stays at INNER_AT.
 */
const LIP_SHARE = 0.6;
/** ... and at least this share of the way to the mouth's centre (a ramp of no width is a cut). */
const INNER_MIN = 0.05;
const NECK_AT = 0.15;
const FAR_AT = 0.4;

/** Vertex index ranges. */
export const MESH = {
  ring: 0,
  inner: RING,
  centre: 2 * RING,
  neck: 2 * RING + 1,
  far: 2 * RING + 1 + JAW_POINTS,
  count: 2 * RING + 1 + 2 * JAW_POINTS,
} as const;

/** Landmarks the target takes from the crop: the lower jaw and the mouth. */
export const CROP_LANDMARKS: readonly number[] = [
  ...Array.from({ length: MOVING_JAW.to - MOVING_JAW.from + 1 }, (_, k) => JAW_FIRST + MOVING_JAW.from + k),
  ...Array.from({ length: 20 }, (_, k) => 48 + k),
];

function tri(): Uint16Array {
  const t: number[] = [];
  for (let i = 0; i < RING; i++) {
    const j = (i + 1) % RING;
    t.push(MESH.ring + i, MESH.ring + j, MESH.inner + j);
    t.push(MESH.ring + i, MESH.inner + j, MESH.inner + i);
    t.push(MESH.inner + i, MESH.inner + j, MESH.centre);
  }
  for (let i = 0; i < JAW_POINTS - 1; i++) {
    t.push(MESH.ring + i, MESH.neck + i, MESH.neck + i + 1);
    t.push(MESH.ring + i, MESH.neck + i + 1, MESH.ring + i + 1);
    t.push(MESH.neck + i, MESH.far + i, MESH.far + i + 1);
    t.push(MESH.neck + i, MESH.far + i + 1, MESH.neck + i + 1);
  }
  return Uint16Array.from(t);
}

/** The mesh's triangles (vertex index triples), the same for every pack. */
export const MESH_TRIANGLES = tri();

/** Each vertex's blend weight before occlusion: 1 on the inner ring and the centre, else 0. */
export const MESH_ALPHA = Float32Array.from({ length: MESH.count }, (_, v) =>
  v >= MESH.inner && v <= MESH.centre ? 1 : 0,
);

const px = (L: FlatLandmarks, i: number): number => L[2 * i]!;
const py = (L: FlatLandmarks, i: number): number => L[2 * i + 1]!;

/** Outward unit normals of the jaw points and the face width, from the pack's mean face (once). */
export interface MeshFrame {
  normals: Float32Array;
  faceWidth: number;
}

export function meshFrame(canonical: FlatLandmarks): MeshFrame {
  const normals = new Float32Array(2 * JAW_POINTS);
  const cx = (px(canonical, 33) + px(canonical, 8)) / 2;
  const cy = (py(canonical, 33) + py(canonical, 8)) / 2;
  for (let k = 0; k < JAW_POINTS; k++) {
    const i = JAW_FIRST + k;
    let nx = py(canonical, i + 1) - py(canonical, i - 1);
    let ny = -(px(canonical, i + 1) - px(canonical, i - 1));
    if (nx * (px(canonical, i) - cx) + ny * (py(canonical, i) - cy) < 0) {
      nx = -nx;
      ny = -ny;
    }
    const n = Math.hypot(nx, ny) || 1;
    normals[2 * k] = nx / n;
    normals[2 * k + 1] = ny / n;
  }
  const faceWidth = Math.hypot(px(canonical, 16) - px(canonical, 0), py(canonical, 16) - py(canonical, 0));
  return { normals, faceWidth };
}

/** Scratch for meshVertices' own inner ring. */
const ownRoom = new Float32Array(RING);

/**
 * The mesh's vertex positions (flat x, y) for landmarks `L`, into `out` (2 × MESH.count). The
 * far ring is placed from `anchor`'s jaw (the base frame's), so it is the same for the base and
 * the target. `inner`: each inner-ring point's share of the way from the ring to the mouth's
 * centre (innerShares); by default `L`'s own.
 */
export function meshVertices(
  L: FlatLandmarks,
  anchor: FlatLandmarks,
  frame: MeshFrame,
  out: Float32Array = new Float32Array(2 * MESH.count),
  inner?: ArrayLike<number>,
): Float32Array {
  const set = (v: number, x: number, y: number): void => {
    out[2 * v] = x;
    out[2 * v + 1] = y;
  };
  const lerp = (a: number, b: number, t: number): [number, number] => [
    px(L, a) + (px(L, b) - px(L, a)) * t,
    py(L, a) + (py(L, b) - py(L, a)) * t,
  ];
  for (let k = 0; k < JAW_POINTS; k++) set(MESH.ring + k, px(L, JAW_FIRST + k), py(L, JAW_FIRST + k));
  set(MESH.ring + 11, ...lerp(13, 35, 0.5));
  const dx = (px(L, 33) - px(L, 30)) / 3;
  const dy = (py(L, 33) - py(L, 30)) / 3;
  for (let k = 0; k <= UNDER_NOSE.to - UNDER_NOSE.from; k++)
    set(MESH.ring + UNDER_NOSE.from + k, px(L, 35 - k) + dx, py(L, 35 - k) + dy);
  set(MESH.ring + 17, ...lerp(3, 31, 0.5));
  let mx = 0;
  let my = 0;
  for (let i = 48; i < 60; i++) {
    mx += px(L, i) / 12;
    my += py(L, i) / 12;
  }
  set(MESH.centre, mx, my);
  const share = inner ?? innerShares(lipRoom(out, L, ownRoom.fill(1)));
  for (let k = 0; k < RING; k++) {
    const x = out[2 * (MESH.ring + k)]!;
    const y = out[2 * (MESH.ring + k) + 1]!;
    const t = share[k]!;
    set(MESH.inner + k, x + (mx - x) * t, y + (my - y) * t);
  }
  const w = frame.faceWidth;
  for (let k = 0; k < JAW_POINTS; k++) {
    const nx = frame.normals[2 * k]!;
    const ny = frame.normals[2 * k + 1]!;
    const i = JAW_FIRST + k;
    set(MESH.neck + k, px(L, i) + nx * NECK_AT * w, py(L, i) + ny * NECK_AT * w);
    set(MESH.far + k, px(anchor, i) + nx * FAR_AT * w, py(anchor, i) + ny * FAR_AT * w);
  }
  return out;
}

/**
 * How far the outer lips (48–59 and their edges' midpoints) leave each inner-ring point to go,
 * for the mesh `v` (its ring and centre placed, meshVertices) of landmarks `L`, as a share of the
 * way from the ring point to the mouth's centre M. A lip point in the wedge of ring points k,
 * k + 1 and M is M + α(R_k − M) + β(R_k+1 − M): it is inside the inner ring when both points'
 * shares are at most 1 − α − β, the room it leaves them. Lowers what `room` holds (start it at 1,
 * or at another mesh's room: a composite's inner ring must leave every frame's lips inside).
 */
export function lipRoom(v: Float32Array, L: FlatLandmarks, room: Float32Array): Float32Array {
  const mx = v[2 * MESH.centre]!;
  const my = v[2 * MESH.centre + 1]!;
  const at = (qx: number, qy: number): void => {
    for (let k = 0; k < RING; k++) {
      const k1 = (k + 1) % RING;
      const ax = v[2 * (MESH.ring + k)]! - mx;
      const ay = v[2 * (MESH.ring + k) + 1]! - my;
      const bx = v[2 * (MESH.ring + k1)]! - mx;
      const by = v[2 * (MESH.ring + k1) + 1]! - my;
      const det = ax * by - bx * ay;
      if (Math.abs(det) < 1e-9) continue;
      const alpha = (qx * by - bx * qy) / det;
      const beta = (ax * qy - qx * ay) / det;
      if (alpha < -1e-9 || beta < -1e-9) continue;
      const left = Math.max(0, 1 - alpha - beta);
      room[k] = Math.min(room[k]!, left);
      room[k1] = Math.min(room[k1]!, left);
    }
  };
  for (let i = 48; i < 60; i++) {
    const j = i === 59 ? 48 : i + 1;
    at(px(L, i) - mx, py(L, i) - my);
    at((px(L, i) + px(L, j)) / 2 - mx, (py(L, i) + py(L, j)) / 2 - my);
  }
  return room;
}

/** The inner ring's shares for the lips' room (lipRoom): LIP_SHARE of it, within INNER_MIN..INNER_AT. In place. */
export function innerShares(room: Float32Array): Float32Array {
  for (let k = 0; k < room.length; k++)
    room[k] = Math.max(INNER_MIN, Math.min(INNER_AT, LIP_SHARE * room[k]!));
  return room;
}

/**
 * The landmarks a composite shows: the base's, with the lower jaw and mouth of the crops (`a`
 * weighted `wa`, `b` weighted 1 − wa), all moved `fade` of the way from the base's. Into `out`.
 */
export function targetLandmarks(
  base: FlatLandmarks,
  a: FlatLandmarks,
  b: FlatLandmarks,
  wa: number,
  fade: number,
  out: Float64Array = new Float64Array(136),
): Float64Array {
  for (let i = 0; i < 136; i++) out[i] = base[i]!;
  const wb = 1 - wa;
  for (const i of CROP_LANDMARKS)
    for (let c = 0; c < 2; c++) {
      const k = 2 * i + c;
      const crop = a[k]! * wa + b[k]! * wb;
      out[k] = base[k]! + (crop - base[k]!) * fade;
    }
  return out;
}

/** A jaw point moves with the crop only where its base is at least this clear, fully from HOLD_FREE. */
const HOLD_FROM = 0.5;
const HOLD_FREE = 0.9;

/**
 * Holds the target's lower jaw (landmarks 4..12) back where the base frame is covered. Under hair
 * or a hand the base's jaw landmarks are the tracker's guess at the cover's edge, not the jaw;
 * warping them onto the crop's jaw bends the cover along the mesh (a strand kinked at every
 * triangle). Over hair the import's flags alternate along the jaw (on a strand, between two), so a
 * point moves only as far as the least clear of itself and its two neighbours allows: not at all
 * below HOLD_FROM, fully from HOLD_FREE. The blend weight there is already small, so the base
 * shows as it was filmed. `clearBase` is per ring point (1 clear, 0 covered). In place.
 */
export function holdCoveredJaw(
  target: Float64Array,
  base: FlatLandmarks,
  clearBase: ArrayLike<number>,
): void {
  for (let k = MOVING_JAW.from; k <= MOVING_JAW.to; k++) {
    const near = Math.min(clearBase[k - 1] ?? 1, clearBase[k] ?? 1, clearBase[k + 1] ?? 1);
    const move = Math.max(0, Math.min(1, (near - HOLD_FROM) / (HOLD_FREE - HOLD_FROM)));
    const i = JAW_FIRST + k;
    for (let c = 0; c < 2; c++)
      target[2 * i + c] = base[2 * i + c]! + (target[2 * i + c]! - base[2 * i + c]!) * move;
  }
}

/** Whether vertex v is moved by the crop (its target position may differ from the base's). */
export function vertexMoves(v: number): boolean {
  if (v >= MESH.far) return false;
  if (v >= MESH.neck) {
    const k = v - MESH.neck;
    return k >= MOVING_JAW.from && k <= MOVING_JAW.to;
  }
  if (v < MESH.inner) return v >= MOVING_JAW.from && v <= MOVING_JAW.to;
  return true;
}

/** The mesh's neighbours of every vertex (for smoothing values over it). */
export const MESH_NEIGHBOURS: ReadonlyArray<readonly number[]> = (() => {
  const sets = Array.from({ length: MESH.count }, () => new Set<number>());
  for (let t = 0; t < MESH_TRIANGLES.length; t += 3)
    for (let e = 0; e < 3; e++) {
      const p = MESH_TRIANGLES[t + e]!;
      const q = MESH_TRIANGLES[t + ((e + 1) % 3)]!;
      sets[p]!.add(q);
      sets[q]!.add(p);
    }
  return sets.map((s) => [...s]);
})();
