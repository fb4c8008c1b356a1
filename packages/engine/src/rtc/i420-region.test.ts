import { describe, expect, it } from 'vitest';
import { I420Region, type RgbaToI420 } from './i420-region.js';

/** A converter of the same shape as libyuv's: Y per pixel, U and V per 2×2 block. */
const convert: RgbaToI420 = ({ width, height, data }, out) => {
  const Y = out.data;
  const U = width * height;
  const V = U + (width * height) / 4;
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      Y[y * width + x] = (66 * data[i]! + 129 * data[i + 1]! + 25 * data[i + 2]! + 4224) >> 8;
    }
  for (let y = 0; y < height; y += 2)
    for (let x = 0; x < width; x += 2) {
      let r = 0;
      let g = 0;
      let b = 0;
      for (const [dx, dy] of [
        [0, 0],
        [1, 0],
        [0, 1],
        [1, 1],
      ] as const) {
        const i = ((y + dy) * width + x + dx) * 4;
        r += data[i]!;
        g += data[i + 1]!;
        b += data[i + 2]!;
      }
      const c = (y / 2) * (width / 2) + x / 2;
      Y[U + c] = ((-38 * r - 74 * g + 112 * b) / 4 + 32896) >> 8;
      Y[V + c] = ((112 * r - 94 * g - 18 * b) / 4 + 32896) >> 8;
    }
};

const W = 64;
const H = 48;

function noise(n: number, seed: number): Uint8ClampedArray {
  const a = new Uint8ClampedArray(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    a[i] = s >>> 24;
  }
  return a;
}

function crop(rgba: Uint8ClampedArray, x: number, y: number, w: number, h: number): Uint8ClampedArray {
  const out = new Uint8ClampedArray(w * h * 4);
  for (let r = 0; r < h; r++)
    out.set(rgba.subarray(((y + r) * W + x) * 4, ((y + r) * W + x + w) * 4), r * w * 4);
  return out;
}

describe('RGBA → I420 of one region of a kept frame', () => {
  it('leaves the frame exactly as converting the whole new frame would', () => {
    const before = noise(W * H * 4, 1);
    const frame = new Uint8Array((W * H * 3) / 2);
    const region = new I420Region({ width: W, height: H }, convert);
    region.convert({ x: 0, y: 0, width: W, height: H }, before, frame);
    for (const [x, y, w, h, seed] of [
      [10, 6, 20, 14, 2],
      [0, 0, 8, 8, 3],
      [W - 12, H - 10, 12, 10, 4],
      [2, 20, 60, 2, 5],
    ] as const) {
      const after = before.slice();
      const patch = noise(w * h * 4, seed);
      for (let r = 0; r < h; r++)
        after.set(patch.subarray(r * w * 4, (r + 1) * w * 4), ((y + r) * W + x) * 4);
      region.convert({ x, y, width: w, height: h }, crop(after, x, y, w, h), frame);
      const whole = new Uint8Array(frame.length);
      convert({ width: W, height: H, data: after }, { width: W, height: H, data: whole });
      expect(Buffer.from(frame).equals(Buffer.from(whole)), `${w}×${h} at ${x},${y}`).toBe(true);
      before.set(after);
    }
  });

  it('refuses a region off even pixels, outside the frame, or with the wrong number of bytes', () => {
    const region = new I420Region({ width: W, height: H }, convert);
    const frame = new Uint8Array((W * H * 3) / 2);
    expect(() =>
      region.convert({ x: 1, y: 0, width: 4, height: 4 }, new Uint8ClampedArray(64), frame),
    ).toThrow(RangeError);
    expect(() =>
      region.convert({ x: 62, y: 0, width: 4, height: 4 }, new Uint8ClampedArray(64), frame),
    ).toThrow(RangeError);
    expect(() =>
      region.convert({ x: 0, y: 0, width: 4, height: 4 }, new Uint8ClampedArray(60), frame),
    ).toThrow(RangeError);
  });
});
