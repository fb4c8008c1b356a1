/**
 * I420 → RGBA in JavaScript, BT.601 limited range (the inverse of libyuv's conversion behind
 * `wrtc.nonstandard.rgbaToI420`; the other way is video/pixels.ts rgbToI420). For previews and
 * tests: correctness over speed. Widths and heights are even.
 */

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
