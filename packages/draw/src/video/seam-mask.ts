/**
 * The seam of a video avatar's mouth composite, in canonical coordinates (docs/avatars.md "Video
 * avatars"): a feathered ellipse inside the lower-face box (the engine's video/mask.ts finds the
 * box from the landmarks). The import measures each crop's and each base frame's colour on the
 * ellipse's feathered ring, and the renderer shifts the crop's colour by the difference, so the
 * seam disappears. The import, the engine's renderer and the browser's use this one definition.
 */

export interface SeamMask {
  width: number;
  height: number;
  /** Blend weight of each box pixel, 0..255 (row-major, box width × height). */
  alpha: Uint8Array;
  /** The same at chroma resolution ((width/2) × (height/2)). */
  alphaC: Uint8Array;
  /** Box pixel indices on the feathered ring's upper part, where the seam's colour is measured. */
  ring: Uint32Array;
  /** The same at chroma resolution. */
  ringC: Uint32Array;
}

/**
 * The seam's colour is measured only on the ring's upper part (beside and under the nose, the
 * cheeks): lower down the ring crosses the jaw line, where an opening mouth drops the chin over
 * the neck and would read as a change of light (measured on test footage: the full ring's
 * brightness varied by 5.8 grey levels with the opening, r 0.71; its top part by 0.8).
 */
const RING_TOP = 0.3;

/** The fraction of each semi-axis over which the ellipse fades out. */
const FEATHER = 0.3;

function ellipseWeight(x: number, y: number, w: number, h: number): number {
  // the ellipse touches the box's sides and bottom; its top half is flattened into the box's top
  const nx = (x - w / 2) / (w / 2);
  const ny = (y - h * 0.42) / (y < h * 0.42 ? h * 0.42 : h * 0.58);
  const r = Math.hypot(nx, ny);
  const t = (1 - r) / FEATHER;
  if (t >= 1) return 1;
  if (t <= 0) return 0;
  return t * t * (3 - 2 * t); // smoothstep
}

const cache = new Map<string, SeamMask>();

/** The mask of a box of this size (computed once per size, then shared). */
export function seamMask(width: number, height: number): SeamMask {
  const key = `${width}x${height}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const alpha = new Uint8Array(width * height);
  const ring: number[] = [];
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const a = ellipseWeight(x + 0.5, y + 0.5, width, height);
      alpha[y * width + x] = Math.round(a * 255);
      if (a > 0.15 && a < 0.7 && y < height * RING_TOP) ring.push(y * width + x);
    }
  const cw = width >> 1;
  const ch = height >> 1;
  const alphaC = new Uint8Array(cw * ch);
  const ringC: number[] = [];
  for (let y = 0; y < ch; y++)
    for (let x = 0; x < cw; x++) {
      const a = ellipseWeight(2 * x + 1, 2 * y + 1, width, height);
      alphaC[y * cw + x] = Math.round(a * 255);
      if (a > 0.15 && a < 0.7 && 2 * y + 1 < height * RING_TOP) ringC.push(y * cw + x);
    }
  const m: SeamMask = {
    width,
    height,
    alpha,
    alphaC,
    ring: Uint32Array.from(ring),
    ringC: Uint32Array.from(ringC),
  };
  cache.set(key, m);
  return m;
}
