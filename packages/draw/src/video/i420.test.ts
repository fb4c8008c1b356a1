import { describe, expect, it } from 'vitest';
import { applySimilarity, i420Bytes, i420ToRgba, i420View, invertSimilarity } from './i420.js';

describe('I420 images', () => {
  it('convert to RGBA by the BT.601 limited-range formula, byte for byte (clamped and rounded)', () => {
    // every Y against a spread of U and V, four pixels sharing each chroma sample
    const chroma = [0, 1, 16, 64, 127, 128, 129, 200, 240, 254, 255];
    const width = 512;
    const height = 2 * chroma.length * chroma.length;
    const img = new Uint8Array(i420Bytes(width, height));
    const v = i420View(img, 0, width, height);
    for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) v.y[y * width + x] = (x >> 1) + y;
    for (let cy = 0; cy < height / 2; cy++)
      for (let cx = 0; cx < width / 2; cx++) {
        v.u.set([chroma[cy % chroma.length]!], cy * (width / 2) + cx);
        v.v.set([chroma[Math.floor(cy / chroma.length)]!], cy * (width / 2) + cx);
      }
    const rgba = i420ToRgba(img, width, height);
    const want = new Uint8ClampedArray(width * height * 4);
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) {
        const c = (y >> 1) * (width / 2) + (x >> 1);
        const l = 1.164 * (v.y[y * width + x]! - 16);
        const u = v.u[c]! - 128;
        const vv = v.v[c]! - 128;
        const i = (y * width + x) * 4;
        want[i] = l + 1.596 * vv;
        want[i + 1] = l - 0.813 * vv - 0.391 * u;
        want[i + 2] = l + 2.018 * u;
        want[i + 3] = 255;
      }
    const firstDiff = rgba.findIndex((b, i) => b !== want[i]);
    expect(firstDiff, 'the first byte that differs').toBe(-1);
    expect(new Set(rgba.filter((_, i) => i % 4 === 0)).size).toBe(256);
  });

  it('views the planes of an image inside a larger buffer without copying', () => {
    const buf = new Uint8Array(10 + i420Bytes(4, 2));
    const v = i420View(buf, 10, 4, 2);
    expect([v.y.length, v.u.length, v.v.length]).toEqual([8, 2, 2]);
    v.v[1] = 7;
    expect(buf.at(-1)).toBe(7);
  });

  it('inverts a similarity transform', () => {
    const t = [1.2, 0.3, 5, -7] as [number, number, number, number];
    const [x, y] = applySimilarity(invertSimilarity(t), ...applySimilarity(t, 13, 21));
    expect(x).toBeCloseTo(13, 9);
    expect(y).toBeCloseTo(21, 9);
  });
});
