import { describe, expect, it } from 'vitest';
import { composeFace, faceScratch } from './face-composite.js';
import { MESH, RING, UNDER_NOSE, meshFrame, meshVertices, targetLandmarks } from './face-mesh.js';
import { i420Bytes, i420View, type I420View } from './i420.js';

const SIZE = 256;

/**
 * A frontal face's 68 landmarks (flat), jaw an ellipse, chin at (128, 200); `drop` lowers jaw 4–12
 * and the lower lip; `lips`: the outer lips' half width and half height (a laugh's are larger).
 */
function face(drop = 0, lipShift = 0, lips = { w: 24, h: 9 }): number[] {
  const L: Array<[number, number]> = [];
  const cx = 128;
  const cy = 120;
  for (let j = 0; j <= 16; j++) {
    const th = Math.PI - (Math.PI * j) / 16;
    const down = j >= 4 && j <= 12 ? drop * Math.sin(((j - 4) / 8) * Math.PI) : 0;
    L.push([cx + 60 * Math.cos(th), cy + 80 * Math.sin(th) + down]);
  }
  for (let j = 0; j < 10; j++) L.push([cx - 42 + 9 * j, 84]); // brows
  for (let j = 0; j < 4; j++) L.push([cx, 92 + 10 * j]); // nose bridge 27..30
  for (let j = 0; j < 5; j++) L.push([cx - 10 + 5 * j, 134]); // nose base 31..35
  for (const side of [-1, 1])
    for (let j = 0; j < 6; j++) L.push([cx + side * 24 + 8 * Math.cos(j), 100 + 3 * Math.sin(j)]);
  for (let j = 0; j < 20; j++) {
    const outer = j < 12;
    const th = (Math.PI * 2 * (outer ? j : j - 12)) / (outer ? 12 : 8);
    const y = 160 + (outer ? lips.h : 4) * Math.sin(th) + lipShift + (Math.sin(th) > 0 ? drop / 2 : 0);
    L.push([cx + (outer ? lips.w : 16) * Math.cos(th), y]);
  }
  return L.flat();
}

const BOX = { x: 60, y: 110, width: 136, height: 130 };
const frame = meshFrame(face());

function image(width: number, height: number, luma: (x: number, y: number) => number): I420View {
  const v = i420View(new Uint8Array(i420Bytes(width, height)), 0, width, height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) v.y[y * width + x] = luma(x, y);
  v.u.fill(128);
  v.v.fill(128);
  return v;
}

/** A crop (box-sized, canonical = output here) drawn by a luma function of canonical coordinates. */
const crop = (luma: (x: number, y: number) => number): I420View =>
  image(BOX.width, BOX.height, (x, y) => luma(x + BOX.x, y + BOX.y));

function compose(
  base: I420View,
  baseL: number[],
  a: I420View,
  la: number[],
  opts: { b?: I420View; lb?: number[]; wa?: number; clearA?: number[]; clearBase?: number[] } = {},
): I420View {
  const out = i420View(new Uint8Array(i420Bytes(SIZE, SIZE)), 0, SIZE, SIZE);
  out.y.set(base.y);
  out.u.set(base.u);
  out.v.set(base.v);
  composeFace({
    out,
    toOut: [1, 0, 0, 0],
    box: BOX,
    frame,
    base: baseL,
    landmarksA: la,
    landmarksB: opts.lb ?? la,
    a,
    b: opts.b ?? a,
    wa: opts.wa ?? 1,
    fade: 1,
    clearA: opts.clearA,
    clearBase: opts.clearBase,
    scratch: faceScratch(),
  });
  return out;
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

/** The composite's boundary ring (jaw 3–13, cheeks, under the nose) for the target landmarks. */
function ringPolygon(base: number[], la: number[]): Array<[number, number]> {
  const v = meshVertices(targetLandmarks(base, la, la, 1, 1), base, frame);
  return Array.from({ length: RING }, (_, k) => [v[2 * (MESH.ring + k)]!, v[2 * (MESH.ring + k) + 1]!]);
}

/** Rows where the centre column's luma jumps by more than `step` between y0 and y1. */
function edges(img: I420View, x: number, y0: number, y1: number, step: number): number[] {
  const at: number[] = [];
  for (let y = y0; y < y1; y++)
    if (Math.abs(img.y[(y + 1) * SIZE + x]! - img.y[y * SIZE + x]!) > step) at.push(y);
  return at;
}

/** The jaw's y at column x of landmarks L (the polyline 3..13). */
function jawY(L: number[], x: number): number {
  for (let i = 3; i < 13; i++) {
    const [x0, y0, x1, y1] = [L[2 * i]!, L[2 * i + 1]!, L[2 * i + 2]!, L[2 * i + 3]!];
    if ((x - x0) * (x - x1) <= 0 && x0 !== x1) return y0 + ((x - x0) / (x1 - x0)) * (y1 - y0);
  }
  return -Infinity;
}

describe('the face composite (by the face, not by a box)', () => {
  it('takes no pixel from the crop outside the jaw and the line under the nose', () => {
    const base = image(SIZE, SIZE, () => 120);
    let seed = 7;
    const noise = crop(() => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % 200) + 20);
    const la = face(10);
    const out = compose(base, face(), noise, la);
    const poly = ringPolygon(face(), la);
    let changed = 0;
    for (let y = 0; y < SIZE; y++)
      for (let x = 0; x < SIZE; x++)
        if (out.y[y * SIZE + x] !== 120) {
          changed++;
          expect(inside(x + 0.5, y + 0.5, poly), `pixel ${x},${y} changed outside the face`).toBe(true);
        }
    expect(changed).toBeGreaterThan(3000);
  });

  it('puts the chin where the crop has it, once: an open jaw covers the base’s chin line, a closed one shows its neck', () => {
    // dark beard above each face's jaw line, light neck below it
    const draw = (L: number[]) => (x: number, y: number) => (y < jawY(L, x + 0.5) ? 60 : 200);
    for (const drop of [12, -6]) {
      const la = face(drop);
      const out = compose(image(SIZE, SIZE, draw(face())), face(), crop(draw(la)), la);
      const found = edges(out, 128, 140, 240, 40);
      expect(found.length, `drop ${drop}: jaw lines at ${found.join(', ')}`).toBe(1);
      expect(Math.abs(found[0]! + 0.5 - jawY(la, 128.5))).toBeLessThanOrEqual(2);
    }
  });

  it('blends two crops only on shared landmarks: one lip line, not two', () => {
    const lipAt = (L: number[]): number => (L[2 * 62 + 1]! + L[2 * 66 + 1]!) / 2;
    const lips = (L: number[]) => (x: number, y: number) => (Math.abs(y + 0.5 - lipAt(L)) < 1.5 ? 30 : 150);
    const la = face(0, 0);
    const lb = face(0, 6);
    const out = compose(
      image(SIZE, SIZE, () => 150),
      face(),
      crop(lips(la)),
      la,
      {
        b: crop(lips(lb)),
        lb,
        wa: 0.5,
      },
    );
    const dark: number[] = [];
    for (let y = 140; y < 200; y++) if (out.y[y * SIZE + 128]! < 100) dark.push(y);
    const runs = dark.filter((y, i) => i === 0 || y !== dark[i - 1]! + 1).length;
    expect(runs, `dark rows ${dark.join(', ')}`).toBe(1);
    expect(
      Math.abs(dark[Math.floor(dark.length / 2)]! + 0.5 - (lipAt(la) + lipAt(lb)) / 2),
    ).toBeLessThanOrEqual(2);
  });

  it('covers the base’s own lips whole: a laughing base’s upper lip, just under the nose, shows nowhere beside the crop’s', () => {
    // the base laughs: its lips reach up to 4 px under the boundary under the nose (y 138), where
    // the blend's ramp would run 30 % of the way to the mouth's centre; the crop's mouth is closed
    const laugh = { w: 34, h: 18 };
    const baseL = face(0, 0, laugh);
    const lipPoly = Array.from({ length: 12 }, (_, k): [number, number] => [
      baseL[2 * (48 + k)]!,
      baseL[2 * (48 + k) + 1]!,
    ]);
    const base = image(SIZE, SIZE, (x, y) => (inside(x + 0.5, y + 0.5, lipPoly) ? 30 : 150));
    const out = compose(
      base,
      baseL,
      crop(() => 150),
      face(),
    );
    const shown: string[] = [];
    for (let y = 0; y < SIZE; y++)
      for (let x = 0; x < SIZE; x++) if (out.y[y * SIZE + x]! < 140) shown.push(`${x},${y}`);
    expect(shown.length, `the base's lip shows at ${shown.slice(0, 12).join(' ')}`).toBe(0);
    // the import's cover measure reads such a lip under the nose as not the usual face: no cover
    const clearBase = Array.from({ length: RING }, (_, k) =>
      k >= UNDER_NOSE.from && k <= UNDER_NOSE.to ? 0 : 1,
    );
    const flagged = compose(
      base,
      baseL,
      crop(() => 150),
      face(),
      { clearBase },
    );
    let dark = 0;
    for (let i = 0; i < SIZE * SIZE; i++) if (flagged.y[i]! < 140) dark++;
    expect(dark, 'pixels of the base lip shown where its points under the nose were flagged').toBe(0);
  });

  it('has no seam: a crop lit differently meets the base on the ring and follows its light inside', () => {
    // the base lit from the left (100 → 150 across the face), the crop flat and brighter
    const base = image(SIZE, SIZE, (x) => 100 + (50 * x) / SIZE);
    const out = compose(
      base,
      face(),
      crop(() => 160),
      face(),
    );
    let worst = 0;
    for (let y = 0; y < SIZE; y++)
      for (let x = 0; x < SIZE; x++)
        worst = Math.max(worst, Math.abs(out.y[y * SIZE + x]! - base.y[y * SIZE + x]!));
    // (the offsets are measured halfway in from the ring, so the base's slope adds a level or two)
    expect(worst).toBeLessThanOrEqual(6);
  });

  it('leaves a covered point of the crop’s face to the base (hair or a hand in its source frame)', () => {
    const base = image(SIZE, SIZE, () => 120);
    const la = face();
    const clear = Array<number>(RING).fill(1);
    clear[3] = 0; // the jaw's landmark 6: a strand of hair there in the crop's source frame
    const covered = crop(() => 20);
    const v = meshVertices(la, la, frame);
    const at = Math.floor(v[2 * (MESH.inner + 3) + 1]!) * SIZE + Math.floor(v[2 * (MESH.inner + 3)]!);
    expect(compose(base, face(), covered, la, { clearA: clear }).y[at]! - 120).toBeGreaterThanOrEqual(-3);
    // the same crop taken as clear is laid over the base there (its offset clamped at 40 levels)
    expect(compose(base, face(), covered, la).y[at]).toBeLessThan(70);
  });

  it('does not bend what covers the base’s jaw: a strand over it stays where it was filmed while the crop’s jaw drops', () => {
    // a dark strand falls slanting across the base's left jaw (landmarks 4–7) onto the neck; there
    // the base's jaw landmarks are the tracker's guess at the strand's edge, flagged covered
    const strandAt = (y: number): number => 60 + 0.5 * (y - 120);
    const base = image(SIZE, SIZE, (x, y) => (Math.abs(x + 0.5 - strandAt(y + 0.5)) < 3 ? 30 : 150));
    // as the import flags hair over a beard (the hair case's base frame 26): on a strand, between two
    const clearBase = Array<number>(RING).fill(1);
    [0.56, 0.95, 0.02, 0.92, 0.53].forEach((c, k) => (clearBase[k] = c));
    const la = face(14); // the crop's jaw dropped: the base's chin and neck are warped down to it
    const out = compose(
      base,
      face(),
      crop(() => 150),
      la,
      { clearBase },
    );
    const moved: string[] = [];
    for (let y = 150; y < 225; y++) {
      let sx = 0;
      let n = 0;
      for (let x = Math.round(strandAt(y)) - 12; x <= Math.round(strandAt(y)) + 12; x++)
        if (out.y[y * SIZE + x]! < 90) {
          sx += x + 0.5;
          n++;
        }
      if (n > 0 && Math.abs(sx / n - strandAt(y + 0.5)) > 1) moved.push(`${y}: ${(sx / n).toFixed(1)}`);
    }
    expect(moved, 'rows where the strand left its place').toEqual([]);
  });

  it('never folds the picture over itself, even for a crop whose jaw is far from the base’s (a mistracked frame)', () => {
    // luma = y: with the jaw moving only up or down, every column must still read top to bottom
    const base = image(SIZE, SIZE, (_x, y) => y);
    for (const drop of [45, -60]) {
      const la = face(drop);
      const out = compose(
        base,
        face(),
        crop((_x, y) => y),
        la,
      );
      const folds: string[] = [];
      for (let x = 70; x < 186; x += 4)
        for (let y = 100; y < SIZE - 1; y++)
          if (out.y[(y + 1) * SIZE + x]! < out.y[y * SIZE + x]! - 3) folds.push(`${x},${y}`);
      expect(folds.slice(0, 8), `drop ${drop}: ${folds.length} places where a column runs backwards`).toEqual(
        [],
      );
    }
  });
});
