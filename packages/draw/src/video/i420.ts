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

/** Per 8-bit value, each term of the conversion (the same doubles the formula computes). */
interface Terms {
  l: Float64Array;
  rv: Float64Array;
  gv: Float64Array;
  gu: Float64Array;
  bu: Float64Array;
}
let terms: Terms | undefined;

function conversionTerms(): Terms {
  if (terms) return terms;
  const t = (f: (c: number) => number): Float64Array => Float64Array.from({ length: 256 }, (_, i) => f(i));
  terms = {
    l: t((y) => 1.164 * (y - 16)),
    rv: t((v) => 1.596 * (v - 128)),
    gv: t((v) => 0.813 * (v - 128)),
    gu: t((u) => 0.391 * (u - 128)),
    bu: t((u) => 2.018 * (u - 128)),
  };
  return terms;
}

/**
 * I420 → opaque RGBA, BT.601 limited range (the inverse of libyuv's RGBA → I420 behind
 * `wrtc.nonstandard.rgbaToI420`), each chroma sample serving its 2×2 block:
 *   R = 1.164·(Y−16) + 1.596·(V−128), G = 1.164·(Y−16) − 0.813·(V−128) − 0.391·(U−128),
 *   B = 1.164·(Y−16) + 2.018·(U−128), rounded and clamped by the Uint8ClampedArray.
 * The terms come from tables (the same doubles, so the same bytes as computing them) and each
 * chroma sample is read once for its four pixels. Widths and heights are even. The engine's RGBA
 * frames of a video avatar and the browser's picture both come from here, so they agree to the bit.
 */
export function i420ToRgba(
  i420: Uint8Array,
  width: number,
  height: number,
  out: Uint8ClampedArray = new Uint8ClampedArray(width * height * 4),
): Uint8ClampedArray {
  const { l, rv, gv, gu, bu } = conversionTerms();
  const cw = width >> 1;
  const uOff = width * height;
  const vOff = uOff + cw * (height >> 1);
  for (let cy = 0; cy < height >> 1; cy++)
    for (let cx = 0; cx < cw; cx++) {
      const c = cy * cw + cx;
      const u = i420[uOff + c]!;
      const v = i420[vOff + c]!;
      const r = rv[v]!;
      const g1 = gv[v]!;
      const g2 = gu[u]!;
      const b = bu[u]!;
      for (let dy = 0; dy < 2; dy++) {
        const p = (2 * cy + dy) * width + 2 * cx;
        for (let dx = 0; dx < 2; dx++) {
          const y = l[i420[p + dx]!]!;
          const i = (p + dx) * 4;
          out[i] = y + r;
          out[i + 1] = y - g1 - g2;
          out[i + 2] = y + b;
          out[i + 3] = 255;
        }
      }
    }
  return out;
}
