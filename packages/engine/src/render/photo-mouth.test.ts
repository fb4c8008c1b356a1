// The photo avatar's mouth as a viewer sees it: the jaw dropping, the corners following the
// shape, the inner mouth's edge, teeth and tongue. Frames of the test portrait at 512×512.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCanvas, Image } from '@napi-rs/canvas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAvatarPack } from '../avatar/catalog.js';
import type { PhotoAvatarManifest } from '../avatar/manifest.js';
import { importPhotoAvatar } from '../avatar/photo-import.js';
import { REST_MOTION, type MouthParams } from '../face-state.js';
import { MOUTH_SHAPES } from '../lipsync/mouth-shapes.js';
import { portraitFixture } from '../testing/portrait-fixture.js';
import { createAvatarRenderer } from './avatar-renderer.js';
import { buildRig, modeWeights, pose } from '@mouthpiece/draw';

const SIZE = 512;
let packs: string;
let manifest: PhotoAvatarManifest;
let dir: string;
let photo: Uint8ClampedArray;
/** Output pixels per portrait pixel. */
let k: number;
let mouthW: number;
let faceW: number;

beforeAll(async () => {
  packs = mkdtempSync(join(tmpdir(), 'mp-photo-mouth-'));
  await importPhotoAvatar({ id: 'astro', name: 'Astro', image: await portraitFixture({ scale: 2 }) }, packs);
  const pack = loadAvatarPack(join(packs, 'astro'));
  if (pack.manifest.render !== 'photo') throw new Error('not a photo pack');
  manifest = pack.manifest;
  dir = pack.dir;
  const img = new Image();
  img.src = readFileSync(join(dir, manifest.image));
  k = SIZE / img.width;
  const c = createCanvas(SIZE, SIZE);
  c.getContext('2d').drawImage(img, 0, 0, SIZE, SIZE);
  photo = c.getContext('2d').getImageData(0, 0, SIZE, SIZE).data;
  mouthW = dist(at(48), at(54));
  faceW = dist(at(0), at(16));
}, 60_000);
afterAll(() => rmSync(packs, { recursive: true, force: true }));

type P = readonly [number, number];
/** A landmark in output pixels. */
const at = (i: number): P => [manifest.landmarks[i]![0] * k, manifest.landmarks[i]![1] * k];
const dist = (a: P, b: P): number => Math.hypot(a[0] - b[0], a[1] - b[1]);

function frame(mouth: MouthParams, size = SIZE): Uint8ClampedArray {
  const r = createAvatarRenderer(manifest, { width: size, height: size }, dir);
  try {
    return r.render({ mouth, motion: REST_MOTION }).slice();
  } finally {
    r.close();
  }
}

/** The rig's vertices for a mouth, in output pixels (no head motion). */
function posed(mouth: MouthParams): (i: number) => P {
  const rig = buildRig(manifest.landmarks);
  const out = new Float64Array(rig.rest.length);
  pose(rig, modeWeights(mouth, REST_MOTION), k, 0, [0, 0], 0, 0, out);
  return (i) => [out[i * 2]!, out[i * 2 + 1]!];
}

const luma = (f: Uint8ClampedArray, x: number, y: number, size = SIZE): number => {
  const o = (Math.round(y) * size + Math.round(x)) * 4;
  return 0.299 * f[o]! + 0.587 * f[o + 1]! + 0.114 * f[o + 2]!;
};

/** Mean absolute RGB difference over a box (inclusive, output pixels). */
function meanDiff(
  a: Uint8ClampedArray,
  b: Uint8ClampedArray,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
): number {
  let sum = 0;
  let n = 0;
  for (let y = Math.round(y0); y <= Math.round(y1); y++)
    for (let x = Math.round(x0); x <= Math.round(x1); x++) {
      const o = (y * SIZE + x) * 4;
      for (let c = 0; c < 3; c++) sum += Math.abs(a[o + c]! - b[o + c]!);
      n += 3;
    }
  return sum / n;
}

/** The y of the first clear fall in brightness down a column, between y0 and y1 (an outline). */
function edgeDown(f: Uint8ClampedArray, x: number, y0: number, y1: number): number {
  let y = Math.round(y0);
  while (y < y1 && luma(f, x, y - 2) - luma(f, x, y + 2) < 30) y++;
  return y;
}

describe('photo mouth', () => {
  it('drops the chin, the skin under the lower lip and the jaw line as the mouth opens; the neck below stays', () => {
    const rest = frame(MOUTH_SHAPES.X);
    const open = frame(MOUTH_SHAPES.D); // open 0.88
    const chin = at(8);
    // the chin's outline (lit skin over the shadowed neck) moves down
    const y0 = chin[1] - 0.02 * faceW;
    const y1 = chin[1] + 0.25 * faceW;
    const drop = edgeDown(open, chin[0], y0, y1) - edgeDown(rest, chin[0], y0, y1);
    expect(drop).toBeGreaterThan(0.15 * mouthW);
    // the skin between the lower lip and the chin, and the jaw line on both sides, move
    const lip = at(57);
    const mid = [(lip[0] + chin[0]) / 2, (lip[1] + chin[1]) / 2] as const;
    const w = 0.15 * mouthW;
    expect(meanDiff(open, rest, mid[0] - w, mid[1] - 3, mid[0] + w, mid[1] + 3)).toBeGreaterThan(6);
    for (const j of [6, 10]) {
      const p = at(j);
      expect(meanDiff(open, rest, p[0] - 3, p[1] - 3, p[0] + 3, p[1] + 3)).toBeGreaterThan(4);
    }
    // far down the neck the picture is untouched
    const neck = chin[1] + 0.6 * faceW;
    expect(meanDiff(open, rest, chin[0] - 0.3 * faceW, neck, chin[0] + 0.3 * faceW, neck + 8)).toBeLessThan(
      0.5,
    );
  });

  it("narrows a rounded mouth (F) and brings a smiling photo's corners down to the lips' line; wide shapes stretch it", () => {
    const rest = posed(MOUTH_SHAPES.X);
    const round = posed(MOUTH_SHAPES.F);
    const wide = posed(MOUTH_SHAPES.D);
    const width = (p: (i: number) => P): number => dist(p(48), p(54));
    expect(width(round)).toBeLessThan(0.75 * width(rest));
    expect(width(wide)).toBeGreaterThan(1.05 * width(rest));
    // how far the corners sit above the middle of the closed lips (the photo smiles)
    const lift = (p: (i: number) => P): number => (p(62)[1] + p(66)[1]) / 2 - (p(48)[1] + p(54)[1]) / 2;
    const line = (q: (i: number) => P): number => (q(62)[1] + q(66)[1]) / 2;
    const smile = lift(rest);
    expect(smile).toBeGreaterThan(2); // the test portrait smiles
    // in F the corners come down to within a third of the smile of where the lips meet at rest
    const restLine = line(rest);
    const cornersF = (round(48)[1] + round(54)[1]) / 2;
    expect(restLine - cornersF).toBeLessThan(smile / 3);
  });

  it('blends the opening into the lips as a 4× supersampled drawing of the same frame does (no stair-steps)', () => {
    for (const shape of ['C', 'D'] as const) {
      const f = frame(MOUTH_SHAPES[shape]);
      const big = frame(MOUTH_SHAPES[shape], SIZE * 4);
      const ref = (x: number, y: number): number => {
        let s = 0;
        for (let j = 0; j < 4; j++)
          for (let i = 0; i < 4; i++) s += luma(big, x * 4 + i, y * 4 + j, SIZE * 4);
        return s / 16;
      };
      // pixels on the lower inner lip's edge beside the middle: dark opening on one side, lip on
      // the other (the median: the lower teeth and the tongue have finer details of their own)
      const p = posed(MOUTH_SHAPES[shape]);
      const errors: number[] = [];
      for (let y = Math.round((p(62)[1] + p(66)[1]) / 2); y <= Math.round(p(57)[1]) + 2; y++)
        for (let x = Math.round(p(48)[0]); x <= Math.round(p(54)[0]); x++) {
          if (Math.abs(x - p(62)[0]) < 0.12 * mouthW) continue;
          let lo = 255;
          let hi = 0;
          for (let j = -2; j <= 2; j++)
            for (let i = -2; i <= 2; i++) {
              const v = ref(x + i, y + j);
              lo = Math.min(lo, v);
              hi = Math.max(hi, v);
            }
          const g = Math.abs(ref(x + 1, y) - ref(x - 1, y)) + Math.abs(ref(x, y + 1) - ref(x, y - 1));
          if (lo > 50 || hi < 110 || g < 60) continue;
          errors.push(Math.abs(luma(f, x, y) - ref(x, y)));
        }
      errors.sort((a, b) => a - b);
      expect(errors.length).toBeGreaterThan(20);
      expect(errors[Math.floor(errors.length / 2)]).toBeLessThan(8);
    }
  }, 60_000);

  it('draws the upper teeth as rounded teeth with soft gaps, not a strip ruled with lines', () => {
    for (const shape of ['C', 'D'] as const) {
      const f = frame(MOUTH_SHAPES[shape]);
      const p = posed(MOUTH_SHAPES[shape]);
      const mid = (p(62)[0] + p(66)[0]) / 2;
      // the teeth at the middle: the bright run below the upper lip
      let top = Math.round(p(62)[1]);
      while (luma(f, mid + 4, top) < 150 && top < p(66)[1]) top++;
      let bottom = top;
      while (luma(f, mid + 4, bottom + 1) >= 150) bottom++;
      const h = bottom - top + 1;
      expect(h).toBeGreaterThan(4);
      const column = (x: number, y0: number, y1: number): number => {
        let s = 0;
        for (let y = y0; y <= y1; y++) s += luma(f, x, y);
        return s / (y1 - y0 + 1);
      };
      // no line runs down the front teeth: above the biting edge (its last 4 pixels, where the
      // teeth part) no column is a dip
      const upper = (x: number): number => column(x, top + 1, bottom - 4);
      let dip = 0;
      for (let x = Math.round(mid - 0.15 * mouthW); x <= Math.round(mid + 0.15 * mouthW); x++)
        dip = Math.min(dip, upper(x) - (upper(x - 2) + upper(x + 2)) / 2);
      expect(dip).toBeGreaterThan(-12);
      // a front tooth is brightest in its middle and darker towards its sides (a rounded tooth)
      const tooth = 0.26 * (mouthW / 2);
      for (const side of [-1, 1]) {
        const lower = (x: number): number => column(Math.round(x), top + Math.round(h * 0.4), bottom - 1);
        const centre = lower(mid + side * tooth * 0.5);
        const inner = lower(mid + side * 1.5);
        const outer = lower(mid + side * (tooth - 1.5));
        expect(centre).toBeGreaterThan(inner + 6);
        expect(centre).toBeGreaterThan(outer + 6);
      }
    }
  });

  it('shows the lower teeth in a wide-open mouth, and in H the tongue raised to the teeth in the middle only', () => {
    const d = frame(MOUTH_SHAPES.D);
    const pd = posed(MOUTH_SHAPES.D);
    const mid = (pd(62)[0] + pd(66)[0]) / 2;
    // just above the lower lip in the middle: near-white (tooth), not pink (tongue) or dark
    let teeth = 0;
    for (let y = Math.round(pd(66)[1] - 0.07 * mouthW); y < pd(66)[1]; y++)
      for (let x = Math.round(mid - 0.05 * mouthW); x <= Math.round(mid + 0.05 * mouthW); x++) {
        const o = (y * SIZE + x) * 4;
        const sat = Math.max(d[o]!, d[o + 1]!, d[o + 2]!) - Math.min(d[o]!, d[o + 1]!, d[o + 2]!);
        if (luma(d, x, y) > 110 && sat < 60) teeth++;
      }
    expect(teeth).toBeGreaterThan(4);
    const h = frame(MOUTH_SHAPES.H);
    const ph = posed(MOUTH_SHAPES.H);
    const gap = (x: number): { dark: number; tongue: number } => {
      let dark = 0;
      let tongue = 0;
      const y0 = (ph(62)[1] * 3 + ph(66)[1]) / 4;
      for (let y = Math.round(y0); y < ph(66)[1] - 1; y++) {
        const o = (y * SIZE + Math.round(x)) * 4;
        if (luma(h, x, y) < 50) dark++;
        else if (h[o]! > h[o + 1]! + 25) tongue++;
      }
      return { dark, tongue };
    };
    // the tongue fills the middle from the teeth down; beside it the mouth is dark
    expect(gap(mid).dark).toBe(0);
    expect(gap(mid).tongue).toBeGreaterThan(3);
    for (const side of [-1, 1]) expect(gap(mid + side * 0.3 * mouthW).dark).toBeGreaterThan(2);
  });

  it('keeps the rest pose closed, and the photo around the mouth as it is', () => {
    const rest = frame(MOUTH_SHAPES.X);
    const p = posed(MOUTH_SHAPES.X);
    // the nose and the cheeks beside the lips are the photo's
    const [l, r] = [at(48), at(54)];
    expect(meanDiff(rest, photo, at(31)[0], at(30)[1], at(35)[0], at(33)[1])).toBeLessThan(1.5);
    expect(meanDiff(rest, photo, l[0] - 22, l[1] - 6, l[0] - 10, l[1] + 4)).toBeLessThan(2.5);
    expect(meanDiff(rest, photo, r[0] + 10, r[1] - 6, r[0] + 22, r[1] + 4)).toBeLessThan(2.5);
    // the jaw closes most of the photo's gap between the lips, so the skin under the nose moves little
    expect(meanDiff(rest, photo, l[0] - 16, at(33)[1] + 2, r[0] + 16, at(33)[1] + 6)).toBeLessThan(5);
    // where the lips meet there is no dark opening: the line is about as bright as the lips
    for (const i of [61, 62, 63]) {
      const [x, y] = p(i);
      expect(luma(rest, x, y)).toBeGreaterThan(0.75 * luma(rest, x, y - 4));
    }
  });
});
