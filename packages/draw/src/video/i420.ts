/**
 * I420 images and the similarity transforms of a video avatar pack (docs/avatars.md "Video
 * avatars"): the layout both the engine and the browser read, and the conversion to RGBA.
 *
 * A similarity [a, b, tx, ty] maps x' = a·x − b·y + tx, y' = b·x + a·y + ty. Pixel centres are
 * at (x + 0.5, y + 0.5). An I420 image is Y (width × height), then U and V (each half × half).
 */

/** A similarity transform [a, b, tx, ty]: x' = a·x − b·y + tx, y' = b·x + a·y + ty. */
export type Similarity = [number, number, number, number];

/** Applies a similarity transform to a point. */
export function applySimilarity(t: Similarity, x: number, y: number): [number, number] {
  const [a, b, tx, ty] = t;
  return [a * x - b * y + tx, b * x + a * y + ty];
}

/** The inverse transform. */
export function invertSimilarity(t: Similarity): Similarity {
  const [a, b, tx, ty] = t;
  const d = a * a + b * b;
  const ia = a / d;
  const ib = -b / d;
  return [ia, ib, -(ia * tx - ib * ty), -(ib * tx + ia * ty)];
}

/** Bytes of one I420 image. */
export function i420Bytes(width: number, height: number): number {
  return width * height + 2 * ((width >> 1) * (height >> 1));
}

/** Views of one I420 image inside a larger buffer. */
export interface I420View {
  width: number;
  height: number;
  y: Uint8Array;
  u: Uint8Array;
  v: Uint8Array;
}

/** The planes of the I420 image at `offset` in `buf`, as views (no copy). */
export function i420View(buf: Uint8Array, offset: number, width: number, height: number): I420View {
  const ySize = width * height;
  const cSize = (width >> 1) * (height >> 1);
  return {
    width,
    height,
    y: buf.subarray(offset, offset + ySize),
    u: buf.subarray(offset + ySize, offset + ySize + cSize),
    v: buf.subarray(offset + ySize + cSize, offset + ySize + 2 * cSize),
  };
}

/**
 * I420 → opaque RGBA, BT.601 limited range (the inverse of libyuv's RGBA → I420 behind
 * `wrtc.nonstandard.rgbaToI420`), each chroma sample serving its 2×2 block; rounded and clamped
 * by the Uint8ClampedArray. Widths and heights are even. The engine's RGBA frames of a video
 * avatar and the browser's picture both come from here, so they agree to the bit. (Per-value
 * tables and one chroma read per four pixels were measured no faster in V8: the stores dominate.)
 */
export function i420ToRgba(
  i420: Uint8Array,
  width: number,
  height: number,
  out: Uint8ClampedArray = new Uint8ClampedArray(width * height * 4),
): Uint8ClampedArray {
  const cw = width >> 1;
  const uOff = width * height;
  const vOff = uOff + cw * (height >> 1);
  for (let y = 0; y < height; y++) {
    const crow = (y >> 1) * cw;
    for (let x = 0; x < width; x++) {
      const c = crow + (x >> 1);
      const l = 1.164 * (i420[y * width + x]! - 16);
      const u = i420[uOff + c]! - 128;
      const v = i420[vOff + c]! - 128;
      const i = (y * width + x) * 4;
      out[i] = l + 1.596 * v;
      out[i + 1] = l - 0.813 * v - 0.391 * u;
      out[i + 2] = l + 2.018 * u;
      out[i + 3] = 255;
    }
  }
  return out;
}
