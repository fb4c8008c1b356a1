import { decodeRuns } from './base-frames.js';
import { describe, expect, it } from 'vitest';
import { lowerFaceBox, seamMask } from './mask.js';
import { calibrate, correlation, type RawMouth } from './mouth-measure.js';
import { OneEuroFilter } from './one-euro.js';
import { applySimilarity, fitSimilarity, i420View, invertSimilarity, type Similarity } from './pack.js';
import { extractCrop, rgbToI420 } from './pixels.js';
import { looksLikeVideo } from './sniff.js';

describe('similarity transforms', () => {
  it('fits a rotation, scale and shift exactly, and inverts it', () => {
    const t: Similarity = [1.1 * Math.cos(0.2), 1.1 * Math.sin(0.2), 12, -7];
    const from: Array<[number, number]> = [
      [10, 20],
      [200, 40],
      [120, 300],
      [50, 90],
    ];
    const to = from.map(([x, y]) => applySimilarity(t, x, y));
    const fit = fitSimilarity(from, to);
    for (let k = 0; k < 4; k++) expect(fit[k]).toBeCloseTo(t[k]!, 9);
    const back = applySimilarity(invertSimilarity(fit), ...to[2]!);
    expect(back[0]).toBeCloseTo(120, 9);
    expect(back[1]).toBeCloseTo(300, 9);
  });
});

describe('One-Euro filter', () => {
  it('smooths jitter at rest and follows a fast move', () => {
    const f = new OneEuroFilter(25, { minCutoffHz: 1.2, beta: 0.02 });
    let spread = 0;
    for (let i = 0; i < 50; i++) {
      const out = f.next([100 + (i % 2 ? 1 : -1)]);
      if (i > 10) spread = Math.max(spread, Math.abs(out[0]! - 100));
    }
    expect(spread).toBeLessThan(0.5); // ±1 px of jitter shrinks to under half a pixel
    let v = 100;
    for (let i = 0; i < 10; i++) v = f.next([100 + 40 * (i + 1)])[0]!;
    expect(v).toBeGreaterThan(400 - 60); // a 1000 px/s move is followed within a few frames' lag
  });
});

describe('seam mask', () => {
  it('is opaque in the middle, transparent at the box edge, with a ring in between', () => {
    const m = seamMask(200, 120);
    expect(m.alpha[60 * 200 + 100]).toBe(255);
    expect(m.alpha[0]).toBe(0);
    expect(m.alpha[119 * 200 + 100]).toBe(0);
    expect(m.ring.length).toBeGreaterThan(100);
    for (const i of m.ring) expect(m.alpha[i]).toBeGreaterThan(0);
    expect(m.alphaC.length).toBe(100 * 60);
  });
  it('the lower-face box starts at the nostrils (the face mesh starts under them) and reaches below the chin', () => {
    const lm = Array.from({ length: 68 }, (_, i): [number, number] => [200 + (i % 17) * 5, 200 + i]);
    lm[0] = [150, 200];
    lm[16] = [350, 200];
    lm[33] = [250, 260];
    lm[8] = [250, 340];
    const box = lowerFaceBox(lm);
    // the nostrils (31, 35) are at y 231 and 235 here, the nose's base (33) at 260
    expect(box.y).toBeLessThanOrEqual(231);
    expect(box.y).toBeGreaterThan(231 - 0.1 * 200);
    expect(box.y + box.height).toBeGreaterThan(340 + 0.2 * 200);
    expect(box.width % 2).toBe(0);
    expect(box.height % 2).toBe(0);
  });
});

describe('pixels', () => {
  it('an identity crop is the frame region in I420', () => {
    const side = 64;
    const rgb = new Uint8Array(side * side * 3).map((_, i) => (i * 37) % 251);
    const box = { x: 8, y: 10, width: 20, height: 16 };
    const crop = i420View(extractCrop(rgb, side, side, [1, 0, 0, 0], box), 0, box.width, box.height);
    const whole = i420View(rgbToI420(rgb, side, side), 0, side, side);
    for (let y = 0; y < box.height; y++)
      for (let x = 0; x < box.width; x++)
        expect(crop.y[y * box.width + x]).toBe(whole.y[(box.y + y) * side + box.x + x]);
  });
});

describe('mouth calibration', () => {
  it('maps the gap onto the scale the audio model gives the same clip, monotonically', () => {
    // 20 s: speech-like noise bursts whose loudness follows the gap
    const fps = 25;
    const frames = 500;
    const gap = Array.from({ length: frames }, (_, i) => Math.max(0, Math.sin(i / 3)) * 0.3);
    const pcm = new Int16Array(frames * 1920);
    let seed = 1;
    for (let i = 0; i < pcm.length; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      const g = gap[Math.floor(i / 1920)]!;
      pcm[i] = ((seed / 0x7fffffff) * 2 - 1) * 12000 * (g / 0.3) * Math.sin(i / 9);
    }
    const raw: RawMouth[] = gap.map((g) => ({ gap: g, width: 0.9 + g, inner: NaN }));
    const cal = calibrate(raw, pcm, fps);
    expect(cal.scale).toBe('audio');
    const opens = cal.descriptors.map((d) => d.open);
    const order = gap.map((g, i) => [g, opens[i]!] as const).sort((a, b) => a[0] - b[0]);
    for (let k = 1; k < order.length; k++)
      expect(order[k]![1]).toBeGreaterThanOrEqual(order[k - 1]![1] - 1e-9);
    expect(Math.max(...opens)).toBeGreaterThan(0.5);
    expect(Math.min(...opens)).toBeLessThan(0.1);
  });
  it("without audio, the gap's own percentiles set the scale: the median speaking opening is a typical vowel, the widest 1", () => {
    const raw: RawMouth[] = Array.from({ length: 300 }, (_, i) => ({
      gap: (i % 30) / 100,
      width: 1,
      inner: NaN,
    }));
    const cal = calibrate(raw, new Int16Array(0), 25);
    expect(cal.scale).toBe('percentile');
    expect(Number.isNaN(cal.audioCorrelation)).toBe(true);
    const opens = cal.descriptors.map((d) => d.open);
    expect(Math.max(...opens)).toBeCloseTo(1, 5);
    // gaps above the closed mouth's range (8..29 of 0..29) are speech; their median (0.18) is 0.5
    const at = (g: number): number => opens[raw.findIndex((r) => Math.abs(r.gap - g) < 1e-9)]!;
    expect(at(0.19)).toBeCloseTo(0.5, 1);
    expect(at(0)).toBe(0);
    expect(at(0.1)).toBeLessThan(0.5);
  });
  it('correlation of a series with itself is 1', () => {
    expect(correlation([1, 2, 3, 5], [1, 2, 3, 5])).toBeCloseTo(1, 9);
  });
});

describe('sniffing', () => {
  it('tells MP4, MOV and WebM from pictures and text by content', () => {
    const mp4 = Buffer.from('00000020667479706973366d', 'hex');
    const webm = Buffer.from('1a45dfa3a3428681', 'hex');
    const png = Buffer.from('89504e470d0a1a0a', 'hex');
    expect(looksLikeVideo(mp4)).toBe(true);
    expect(looksLikeVideo(webm)).toBe(true);
    expect(looksLikeVideo(png)).toBe(false);
    expect(looksLikeVideo(Buffer.from('hello world, not a video'))).toBe(false);
  });
});

describe('base frames decoding', () => {
  it('decodes the pool in passes: one per stretch, stretches under 2 s apart together', () => {
    const stretch = (from: number, n: number): number[] => Array.from({ length: n }, (_, k) => from + k);
    expect(decodeRuns([...stretch(10, 75), ...stretch(100, 75), ...stretch(600, 75)])).toEqual([
      { from: 10, count: 165 },
      { from: 600, count: 75 },
    ]);
    expect(decodeRuns([])).toEqual([]);
  });
});
