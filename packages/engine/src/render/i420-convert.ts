/**
 * RGBA ↔ I420 in JavaScript, BT.601 limited range (what libyuv's ABGRToI420 behind
 * `wrtc.nonstandard.rgbaToI420` produces). For previews, tests and the synthetic video pack:
 * correctness over speed. The media path converts with libyuv, or not at all (renderI420).
 * Widths and heights are even.
 */
import { i420Bytes } from '../video/pack.js';

/** RGBA (4 bytes a pixel) → I420 (Y, then U, then V); chroma from each 2×2 block's mean colour. */
export function rgbaToI420(
  rgba: ArrayLike<number>,
  width: number,
  height: number,
  out: Uint8Array = new Uint8Array(i420Bytes(width, height)),
): Uint8Array {
  const cw = width >> 1;
  const ch = height >> 1;
  const uOff = width * height;
  const vOff = uOff + cw * ch;
  const o = new Uint8ClampedArray(out.buffer, out.byteOffset, out.length);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      o[y * width + x] = 16 + 0.257 * rgba[i]! + 0.504 * rgba[i + 1]! + 0.098 * rgba[i + 2]!;
    }
  for (let y = 0; y < ch; y++)
    for (let x = 0; x < cw; x++) {
      let r = 0;
      let g = 0;
      let b = 0;
      for (let dy = 0; dy < 2; dy++)
        for (let dx = 0; dx < 2; dx++) {
          const i = ((2 * y + dy) * width + 2 * x + dx) * 4;
          r += rgba[i]!;
          g += rgba[i + 1]!;
          b += rgba[i + 2]!;
        }
      r /= 4;
      g /= 4;
      b /= 4;
      o[uOff + y * cw + x] = 128 - 0.148 * r - 0.291 * g + 0.439 * b;
      o[vOff + y * cw + x] = 128 + 0.439 * r - 0.368 * g - 0.071 * b;
    }
  return out;
}

/** I420 → opaque RGBA (each chroma sample serves its 2×2 block). */
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
