import { describe, expect, it } from 'vitest';
import type { Landmarks } from './face-tracker.js';
import { markCoveredMouths, mouthRegion } from './mouth-cover.js';
import type { TrackedFrame } from './track-clip.js';

const box = { x: 100, y: 200, width: 120, height: 80 };
/** Canonical landmarks whose lips (48–59) span x 130–190, y 230–250. */
const canonical: Landmarks = Array.from({ length: 68 }, (_, i): [number, number] =>
  i >= 48 && i < 60 ? [130 + ((i - 48) % 6) * 12, i < 54 ? 230 : 250] : [160, 220],
);

/** A crop (I420) whose luma has lip-like stripes in the mouth's region, or is flat there. */
function crop(lips: boolean): Uint8Array {
  const out = new Uint8Array(box.width * box.height * 1.5).fill(120);
  const r = mouthRegion(box, canonical);
  for (let y = 0; y < box.height; y++)
    for (let x = 0; x < box.width; x++) {
      const inMouth = x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height;
      // skin: a little texture everywhere; lips: strong horizontal lines
      out[y * box.width + x] = 120 + ((x + y) % 3) + (inMouth && lips && y % 4 < 2 ? 40 : 0);
    }
  return out;
}

const frame = (c?: Uint8Array): TrackedFrame => ({
  valid: true,
  landmarks: [],
  toFrame: [1, 0, 0, 0],
  thumb: new Uint8Array(0),
  ...(c ? { crop: c } : {}),
});

describe('covered mouths', () => {
  it('marks crops whose mouth region is flat, and the frames between crops after them', () => {
    const frames = [
      ...Array.from({ length: 8 }, () => frame(crop(true))),
      frame(crop(false)),
      frame(),
      frame(crop(true)),
      frame(),
    ];
    expect(markCoveredMouths(frames, box, canonical)).toBe(2);
    expect(frames.map((f) => f.lost ?? (f.valid ? 'ok' : '?'))).toEqual([
      ...Array<string>(8).fill('ok'),
      'covered',
      'covered',
      'ok',
      'ok',
    ]);
    expect(frames[8]!.crop).toBeUndefined();
  });

  it('marks nothing when every mouth shows its lips', () => {
    const frames = Array.from({ length: 10 }, () => frame(crop(true)));
    expect(markCoveredMouths(frames, box, canonical)).toBe(0);
  });
});
