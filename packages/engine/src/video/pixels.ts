/**
 * Pixel work of the video import: RGB frames to I420 (the BT.601 studio-range formulas libyuv
 * uses, so stored frames match what the engine's own conversion would make), a clip frame warped
 * into a canonical lower-face crop, small grey thumbnails for matching frames, and colour means
 * on the seam ring.
 */
import { i420Bytes, i420View, type I420View, type Similarity } from './pack.js';
import type { SeamMask } from './mask.js';

export const lumaOf = (r: number, g: number, b: number): number =>
  ((66 * r + 129 * g + 25 * b + 128) >> 8) + 16;
export const uOf = (r: number, g: number, b: number): number =>
  ((-38 * r - 74 * g + 112 * b + 128) >> 8) + 128;
export const vOf = (r: number, g: number, b: number): number =>
  ((112 * r - 94 * g - 18 * b + 128) >> 8) + 128;

/**
 * A whole frame as I420 (chroma from each 2×2 block's mean): RGB (3 bytes a pixel) or RGBA (4,
 * alpha ignored), into `out` when given. The one JavaScript conversion of the engine.
 */
export function rgbToI420(
  px: ArrayLike<number>,
  width: number,
  height: number,
  channels: 3 | 4 = 3,
  out: Uint8Array = new Uint8Array(i420Bytes(width, height)),
): Uint8Array {
  const v = i420View(out, 0, width, height);
  for (let i = 0, p = 0; i < width * height; i++, p += channels)
    v.y[i] = lumaOf(px[p]!, px[p + 1]!, px[p + 2]!);
  const cw = width >> 1;
  for (let y = 0; y < height >> 1; y++)
    for (let x = 0; x < cw; x++) {
      let r = 0;
      let g = 0;
      let b = 0;
      for (let dy = 0; dy < 2; dy++)
        for (let dx = 0; dx < 2; dx++) {
          const p = ((2 * y + dy) * width + 2 * x + dx) * channels;
          r += px[p]!;
          g += px[p + 1]!;
          b += px[p + 2]!;
        }
      v.u[y * cw + x] = uOf(r >> 2, g >> 2, b >> 2);
      v.v[y * cw + x] = vOf(r >> 2, g >> 2, b >> 2);
    }
  return out;
}

/** Bilinear RGB at a continuous position (pixel centres at +0.5), edges clamped; into `out`. */
function sample(rgb: Uint8Array, width: number, height: number, fx: number, fy: number, out: number[]): void {
  const x = Math.min(width - 1.001, Math.max(0, fx - 0.5));
  const y = Math.min(height - 1.001, Math.max(0, fy - 0.5));
  const x0 = Math.floor(x);
  const y0 = Math.floor(y);
  const ax = x - x0;
  const ay = y - y0;
  const p00 = (y0 * width + x0) * 3;
  const p10 = p00 + 3;
  const p01 = p00 + width * 3;
  const p11 = p01 + 3;
  for (let c = 0; c < 3; c++) {
    const top = rgb[p00 + c]! + (rgb[p10 + c]! - rgb[p00 + c]!) * ax;
    const bottom = rgb[p01 + c]! + (rgb[p11 + c]! - rgb[p01 + c]!) * ax;
    out[c] = Math.round(top + (bottom - top) * ay);
  }
}

/**
 * The canonical lower-face box of a frame as an I420 crop: each crop pixel (x, y) is the frame's
 * pixel at toFrame(box.x + x, box.y + y), sampled bilinearly.
 */
export function extractCrop(
  rgb: Uint8Array,
  width: number,
  height: number,
  toFrame: Similarity,
  box: { x: number; y: number; width: number; height: number },
): Uint8Array {
  const out = new Uint8Array(i420Bytes(box.width, box.height));
  const v = i420View(out, 0, box.width, box.height);
  const [a, b, tx, ty] = toFrame;
  const c = [0, 0, 0];
  for (let y = 0; y < box.height; y++)
    for (let x = 0; x < box.width; x++) {
      const cx = box.x + x + 0.5;
      const cy = box.y + y + 0.5;
      sample(rgb, width, height, a * cx - b * cy + tx, b * cx + a * cy + ty, c);
      v.y[y * box.width + x] = lumaOf(c[0]!, c[1]!, c[2]!);
    }
  const cw = box.width >> 1;
  for (let y = 0; y < box.height >> 1; y++)
    for (let x = 0; x < cw; x++) {
      const cx = box.x + 2 * x + 1;
      const cy = box.y + 2 * y + 1;
      sample(rgb, width, height, a * cx - b * cy + tx, b * cx + a * cy + ty, c);
      v.u[y * cw + x] = uOf(c[0]!, c[1]!, c[2]!);
      v.v[y * cw + x] = vOf(c[0]!, c[1]!, c[2]!);
    }
  return out;
}

/** Mean Y, U, V of an I420 crop on the seam ring. */
export function ringMeans(crop: I420View, mask: SeamMask): [number, number, number] {
  let y = 0;
  for (const i of mask.ring) y += crop.y[i]!;
  let u = 0;
  let v = 0;
  for (const i of mask.ringC) {
    u += crop.u[i]!;
    v += crop.v[i]!;
  }
  const n = Math.max(1, mask.ring.length);
  const nc = Math.max(1, mask.ringC.length);
  return [y / n, u / nc, v / nc];
}

export const THUMB_PX = 48;

/** A THUMB_PX² grey thumbnail (box-filtered, every other pixel) of a side² picture's luma. */
function thumbOf(side: number, lumaAt: (pixel: number) => number): Uint8Array {
  const out = new Uint8Array(THUMB_PX * THUMB_PX);
  const k = side / THUMB_PX;
  for (let ty = 0; ty < THUMB_PX; ty++)
    for (let tx = 0; tx < THUMB_PX; tx++) {
      let sum = 0;
      let n = 0;
      for (let y = Math.floor(ty * k); y < Math.floor((ty + 1) * k); y += 2)
        for (let x = Math.floor(tx * k); x < Math.floor((tx + 1) * k); x += 2) {
          sum += lumaAt(y * side + x);
          n++;
        }
      out[ty * THUMB_PX + tx] = n ? Math.round(sum / n) : 0;
    }
  return out;
}

/** A THUMB_PX² grey thumbnail of a square RGB frame, for matching frames. */
export function thumbnail(rgb: Uint8Array, side: number): Uint8Array {
  return thumbOf(side, (p) => lumaOf(rgb[3 * p]!, rgb[3 * p + 1]!, rgb[3 * p + 2]!));
}

/** The same thumbnail of a square I420 frame (its luma plane), as thumbnail() makes from RGB. */
export function thumbOfI420(frame: Uint8Array, side: number): Uint8Array {
  return thumbOf(side, (p) => frame[p]!);
}

/** Mean absolute difference of two thumbnails. */
export function thumbDistance(a: Uint8Array, b: Uint8Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += Math.abs(a[i]! - b[i]!);
  return s / a.length;
}

/** Mean luma of the crop inside a polygon given in crop pixels (0 when it covers no pixel). */
export function meanLumaInside(crop: I420View, poly: ReadonlyArray<readonly [number, number]>): number {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const [x, y] of poly) {
    x0 = Math.min(x0, x);
    y0 = Math.min(y0, y);
    x1 = Math.max(x1, x);
    y1 = Math.max(y1, y);
  }
  let sum = 0;
  let n = 0;
  for (let y = Math.max(0, Math.floor(y0)); y <= Math.min(crop.height - 1, Math.ceil(y1)); y++)
    for (let x = Math.max(0, Math.floor(x0)); x <= Math.min(crop.width - 1, Math.ceil(x1)); x++)
      if (inside(x + 0.5, y + 0.5, poly)) {
        sum += crop.y[y * crop.width + x]!;
        n++;
      }
  return n ? sum / n : 0;
}

function inside(px: number, py: number, poly: ReadonlyArray<readonly [number, number]>): boolean {
  let c = false;
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
    const [xi, yi] = poly[i]!;
    const [xj, yj] = poly[j]!;
    if (yi > py !== yj > py && px < ((xj - xi) * (py - yi)) / (yj - yi) + xi) c = !c;
  }
  return c;
}
