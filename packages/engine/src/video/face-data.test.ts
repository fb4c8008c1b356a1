import { describe, expect, it } from 'vitest';
import { i420Bytes } from '@mouthpiece/draw';
import { clearUnderNose, clearness, medianSamples, meshFrame, ringSamples, sharpness } from './face-data.js';
import { i420View, type I420View } from './pack.js';

/**
 * A frontal face's 68 canonical landmarks (flat), chin at (128, 200), nose base at y 134. `open`
 * (0..1) opens the mouth as people do: the jaw and lower lip drop, the upper lip lifts off the
 * teeth and the corners spread.
 */
function face(open = 0): number[] {
  const L: Array<[number, number]> = [];
  const cx = 128;
  for (let j = 0; j <= 16; j++) {
    const th = Math.PI - (Math.PI * j) / 16;
    const down = j >= 4 && j <= 12 ? 12 * open * Math.sin(((j - 4) / 8) * Math.PI) : 0;
    L.push([cx + 60 * Math.cos(th), 120 + 80 * Math.sin(th) + down]);
  }
  for (let j = 0; j < 10; j++) L.push([cx - 42 + 9 * j, 84]); // brows
  for (let j = 0; j < 4; j++) L.push([cx, 92 + 10 * j]); // nose bridge 27..30
  for (let j = 0; j < 5; j++) L.push([cx - 10 + 5 * j, 134]); // nose base 31..35
  for (const side of [-1, 1])
    for (let j = 0; j < 6; j++) L.push([cx + side * 24 + 8 * Math.cos(j), 100 + 3 * Math.sin(j)]);
  const rx = 22 + 3 * open;
  for (let j = 0; j < 20; j++) {
    const outer = j < 12;
    const th = (Math.PI * 2 * (outer ? j : j - 12)) / (outer ? 12 : 8);
    const s = Math.sin(th);
    // y grows downwards: s < 0 is the upper lip, which lifts by 6 px; the lower one drops 8 px
    const r = outer ? (s < 0 ? 8 + 6 * open : 8 + 8 * open) : s < 0 ? 2 * open : 2 + 6 * open;
    L.push([cx + (outer ? rx : rx - 8) * Math.cos(th), 158 + r * s]);
  }
  return L.flat();
}

const BOX = { x: 60, y: 110, width: 136, height: 130 };
const frame = meshFrame(face());

function inside(px: number, py: number, L: number[], from: number, to: number): boolean {
  let c = false;
  for (let i = from, j = to; i <= to; j = i++) {
    const [xi, yi, xj, yj] = [L[2 * i]!, L[2 * i + 1]!, L[2 * j]!, L[2 * j + 1]!];
    if (yi > py !== yj > py && px < ((xj - xi) * (py - yi)) / (yj - yi) + xi) c = !c;
  }
  return c;
}

/** A box-sized crop of the face with landmarks L: skin, red lips, a dark open mouth, and `extra` on top. */
function crop(L: number[], extra?: (x: number, y: number) => [number, number, number] | undefined): I420View {
  const v = i420View(new Uint8Array(i420Bytes(BOX.width, BOX.height)), 0, BOX.width, BOX.height);
  const colour = (x: number, y: number): [number, number, number] =>
    extra?.(x, y) ??
    (inside(x, y, L, 60, 67) ? [30, 128, 140] : inside(x, y, L, 48, 59) ? [95, 112, 172] : [160, 112, 148]);
  for (let y = 0; y < BOX.height; y++)
    for (let x = 0; x < BOX.width; x++) {
      const [cy, cu, cv] = colour(x + BOX.x + 0.5, y + BOX.y + 0.5);
      v.y[y * BOX.width + x] = cy;
      if (x % 2 === 0 && y % 2 === 0) {
        v.u[(y >> 1) * (BOX.width >> 1) + (x >> 1)] = cu;
        v.v[(y >> 1) * (BOX.width >> 1) + (x >> 1)] = cv;
      }
    }
  return v;
}

describe('clear (not covered) ring points', () => {
  // a library as a speaker's: mostly near rest, some wide open
  const opens = [0, 0, 0.1, 0, 0.2, 0, 0.1, 1, 0.9, 1, 0.8, 1];
  const samples = opens.map((o) => ringSamples(crop(face(o)), BOX, face(o), frame));
  const median = medianSamples(samples);

  it('calls a wide-open mouth clear: the lips moving are not a cover', () => {
    for (const [k, o] of opens.entries()) {
      const c = clearness(samples[k]!, median);
      expect(Math.min(...c), `open ${o}: ${c.join(' ')}`).toBeGreaterThanOrEqual(0.9);
    }
  });

  it('tells a laugh, its upper lip drawn up to the nose, from a wide-open mouth: a mouth cannot be laid onto it', () => {
    const L = face(1);
    expect(clearUnderNose(clearness(ringSamples(crop(L), BOX, L, frame), median))).toBe(true);
    // the landmark net puts a laughing upper lip's landmarks at its lower edge, on the teeth: the
    // red reaches up to just under the nose (y 134), above where the landmarks say the lip is (144)
    const laugh = (x: number, y: number): [number, number, number] | undefined =>
      y > 136 && y < 146 && Math.abs(x - 128) < 30 ? [95, 112, 172] : undefined;
    const c = clearness(ringSamples(crop(L, laugh), BOX, L, frame), median);
    expect(clearUnderNose(c), c.join(' ')).toBe(false);
  });

  it('finds a dark strand of hair over one cheek in a frame at rest', () => {
    const L = face(0);
    const hair = (x: number, y: number): [number, number, number] | undefined =>
      x > 60 && x < 100 && y > 140 ? [35, 124, 134] : undefined;
    const c = clearness(ringSamples(crop(L, hair), BOX, L, frame), median);
    // ring points 0..2 are the jaw's landmarks 3..5, under the strand; the far side is clear
    expect(Math.max(c[0]!, c[1]!, c[2]!), c.join(' ')).toBeLessThanOrEqual(0.1);
    expect(Math.min(...c.slice(6, 11)), c.join(' ')).toBeGreaterThanOrEqual(0.9);
  });
});

describe('sharpness', () => {
  it('reads a sharp lower face above the same face blurred', () => {
    const box = { x: 0, y: 0, width: 64, height: 64 };
    const crop = (blur: boolean): I420View => {
      const v = i420View(new Uint8Array(i420Bytes(64, 64)), 0, 64, 64);
      for (let y = 0; y < 64; y++)
        for (let x = 0; x < 64; x++)
          v.y[y * 64 + x] = blur ? 128 + 20 * Math.sin(x / 6) : (x + y) % 2 ? 168 : 88;
      return v;
    };
    const L = new Array<number>(136).fill(0);
    [L[96], L[108], L[67], L[17]] = [8, 56, 8, 56]; // 48.x, 54.x, 33.y, 8.y
    expect(sharpness(crop(false), box, L)).toBeGreaterThan(10 * sharpness(crop(true), box, L));
  });
});
