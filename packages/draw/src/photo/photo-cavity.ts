/**
 * The inner mouth's place in a frame: the cavity triangles (inside the inner lips) are not
 * sampled from the photo but shaded by inner-mouth.ts over the box around them; their pixels are
 * marked (alpha 0) first, so the shading knows which pixels lie inside the opening.
 */
import { fillTriangle, type Image32 } from './mesh-warp.js';
import type { PhotoRig } from './photo-rig.js';

/** Inclusive pixel box [x0, y0, x1, y1]. */
export type PixelBox = readonly [number, number, number, number];

/** The triangle `t` of the rig at vertex positions `pos`, shifted by (−ox, −oy), into `out`. */
export function triangleAt(
  rig: PhotoRig,
  t: number,
  pos: ArrayLike<number>,
  out: Float64Array,
  ox = 0,
  oy = 0,
): void {
  for (let k = 0; k < 3; k++) {
    const v = rig.tris[t * 3 + k]!;
    out[k * 2] = pos[v * 2]! - ox;
    out[k * 2 + 1] = pos[v * 2 + 1]! - oy;
  }
}

/** The box around the cavity triangles at `pos` in a width×height frame, grown by 3 pixels. */
export function cavityBox(
  rig: PhotoRig,
  pos: ArrayLike<number>,
  width: number,
  height: number,
): PixelBox | undefined {
  let bx0 = width;
  let by0 = height;
  let bx1 = 0;
  let by1 = 0;
  const d = new Float64Array(6);
  for (const t of rig.cavity) {
    triangleAt(rig, t, pos, d);
    for (let k = 0; k < 6; k += 2) {
      bx0 = Math.min(bx0, d[k]!);
      bx1 = Math.max(bx1, d[k]!);
      by0 = Math.min(by0, d[k + 1]!);
      by1 = Math.max(by1, d[k + 1]!);
    }
  }
  return bx1 > bx0
    ? [Math.floor(bx0) - 3, Math.floor(by0) - 3, Math.ceil(bx1) + 3, Math.ceil(by1) + 3]
    : undefined;
}

/**
 * Sets the alpha of every pixel centre inside the listed triangles (at `pos`, the image's
 * top-left corner being the frame's pixel (ox, oy)) to `alpha`.
 */
export function markTriangles(
  out: Image32,
  rig: PhotoRig,
  tris: readonly number[],
  pos: ArrayLike<number>,
  alpha: number,
  ox = 0,
  oy = 0,
): void {
  const d = new Float64Array(6);
  const mark = (_x: number, _y: number, o: number): void => {
    out.px[o + 3] = alpha;
  };
  for (const t of tris) {
    triangleAt(rig, t, pos, d, ox, oy);
    fillTriangle(out, d, mark);
  }
}
