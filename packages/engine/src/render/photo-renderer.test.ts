import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCanvas, Image } from '@napi-rs/canvas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAvatarPack } from '../avatar/catalog.js';
import type { PhotoAvatarManifest } from '../avatar/manifest.js';
import { importPhotoAvatar } from '../avatar/photo-import.js';
import { REST_MOTION, REST_MOUTH, type FaceMotion, type MouthParams } from '../face-state.js';
import { MOUTH_SHAPES } from '../lipsync/mouth-shapes.js';
import { portraitFixture } from '../testing/portrait-fixture.js';
import { createAvatarRenderer } from './avatar-renderer.js';

const SIZE = 512;
let packs: string;
let manifest: PhotoAvatarManifest;
let dir: string;
let photo: Uint8ClampedArray;
/** Output pixels per portrait pixel. */
let k: number;

beforeAll(async () => {
  packs = mkdtempSync(join(tmpdir(), 'mp-photo-'));
  await importPhotoAvatar({ id: 'astro', name: 'Astro', image: await portraitFixture({ scale: 2 }) }, packs);
  const pack = loadAvatarPack(join(packs, 'astro'));
  if (pack.manifest.render !== 'photo') throw new Error('not a photo pack');
  manifest = pack.manifest;
  dir = pack.dir;
  const img = new Image();
  img.src = readFileSync(join(dir, manifest.image));
  k = SIZE / img.width;
  const c = createCanvas(SIZE, SIZE);
  const ctx = c.getContext('2d');
  ctx.drawImage(img, 0, 0, SIZE, SIZE);
  photo = ctx.getImageData(0, 0, SIZE, SIZE).data;
}, 60_000);
afterAll(() => rmSync(packs, { recursive: true, force: true }));

function frame(mouth: MouthParams = REST_MOUTH, motion: Partial<FaceMotion> = {}): Uint8ClampedArray {
  const r = createAvatarRenderer(manifest, { width: SIZE, height: SIZE }, dir);
  try {
    return r.render({ mouth, motion: { ...REST_MOTION, ...motion } }).slice();
  } finally {
    r.close();
  }
}

/** The box around landmarks (output pixels), grown by `pad`. */
function box(indices: number[], pad: number) {
  const xs = indices.map((i) => manifest.landmarks[i]![0] * k);
  const ys = indices.map((i) => manifest.landmarks[i]![1] * k);
  return {
    x0: Math.floor(Math.min(...xs) - pad),
    x1: Math.ceil(Math.max(...xs) + pad),
    y0: Math.floor(Math.min(...ys) - pad),
    y1: Math.ceil(Math.max(...ys) + pad),
  };
}
type Box = ReturnType<typeof box>;

/** Mean absolute RGB difference inside `within` (or everywhere), skipping `outside`. */
function meanDiff(a: Uint8ClampedArray, b: Uint8ClampedArray, within?: Box, outside?: Box): number {
  let sum = 0;
  let n = 0;
  for (let y = 0; y < SIZE; y++)
    for (let x = 0; x < SIZE; x++) {
      if (within && (x < within.x0 || x > within.x1 || y < within.y0 || y > within.y1)) continue;
      if (outside && x >= outside.x0 && x <= outside.x1 && y >= outside.y0 && y <= outside.y1) continue;
      const o = (y * SIZE + x) * 4;
      sum += Math.abs(a[o]! - b[o]!) + Math.abs(a[o + 1]! - b[o + 1]!) + Math.abs(a[o + 2]! - b[o + 2]!);
      n += 3;
    }
  return sum / n;
}

describe('photo renderer', () => {
  it('finds the face: 68 landmarks in their places', () => {
    const at = (i: number) => manifest.landmarks[i]!;
    expect(manifest.landmarks).toHaveLength(68);
    expect(at(36)[1]).toBeLessThan(at(33)[1]); // eyes above the nose tip
    expect(at(33)[1]).toBeLessThan(at(62)[1]); // nose above the mouth
    expect(at(62)[1]).toBeLessThan(at(8)[1]); // mouth above the chin
    expect(at(36)[0]).toBeLessThan(at(45)[0]);
    expect(Math.hypot(at(16)[0] - at(0)[0], at(16)[1] - at(0)[1]) * k).toBeGreaterThan(150);
  });

  it('at rest shows the photo: only the lips move (they close over the smile)', () => {
    const rest = frame();
    const face = box([...Array(68).keys()], 40);
    const mouth = box([48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59], 6);
    expect(meanDiff(rest, photo, undefined, face)).toBeLessThan(1.5);
    // eyes, brows and nose untouched (the jaw follows the lips closing)
    const upper = box(
      [...Array(31).keys()].map((i) => i + 17),
      6,
    );
    expect(meanDiff(rest, photo, upper)).toBeLessThan(1.5);
    expect(meanDiff(rest, photo, face, mouth)).toBeLessThan(6);
    // the photo shows teeth; at rest the lips meet
    expect(meanDiff(rest, photo, mouth)).toBeGreaterThan(1);
  });

  it('opens the mouth with the mouth parameters, and shows a dark inner mouth', () => {
    const rest = frame(MOUTH_SHAPES.X);
    const open = frame(MOUTH_SHAPES.D);
    const mouth = box([48, 54, 57, 62], 4);
    const eyes = box([36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47], 4);
    expect(meanDiff(open, rest, mouth)).toBeGreaterThan(20);
    expect(meanDiff(open, rest, eyes)).toBe(0);
    // the inner mouth is darker than the lips around it
    const luma = (f: Uint8ClampedArray, b: Box) => {
      let s = 0;
      let n = 0;
      for (let y = b.y0; y <= b.y1; y++)
        for (let x = b.x0; x <= b.x1; x++) {
          const o = (y * SIZE + x) * 4;
          s += 0.3 * f[o]! + 0.59 * f[o + 1]! + 0.11 * f[o + 2]!;
          n++;
        }
      return s / n;
    };
    const centre = box([62, 66], 2);
    const below = { ...centre, y0: centre.y1 + 4, y1: centre.y1 + 12 };
    expect(luma(open, centre)).toBeLessThan(luma(rest, centre) - 40);
    expect(luma(open, below)).toBeLessThan(luma(rest, below));
    // every shape differs from its neighbours
    const shapes = 'ABCDEFGH'.split('').map((v) => frame(MOUTH_SHAPES[v as 'A']));
    for (let i = 1; i < shapes.length; i++)
      expect(meanDiff(shapes[i]!, shapes[i - 1]!, mouth)).toBeGreaterThan(1);
  });

  it('blinks by closing the lids, and moves the whole picture with the head', () => {
    const open = frame();
    const blink = frame(REST_MOUTH, { blink: 1 });
    const eyes = box([36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47], 2);
    const mouth = box([48, 54, 57, 51], 4);
    expect(meanDiff(blink, open, eyes)).toBeGreaterThan(8);
    expect(meanDiff(blink, open, mouth)).toBe(0);
    const moved = frame(REST_MOUTH, { headX: 4, headY: -3 });
    // pixel (x, y) of the moved frame is pixel (x - 4, y + 3) of the still one
    let diff = 0;
    for (let y = 50; y < 450; y++)
      for (let x = 50; x < 450; x++) {
        const o = (y * SIZE + x) * 4;
        const p = ((y + 3) * SIZE + x - 4) * 4;
        diff += Math.abs(moved[o]! - open[p]!);
      }
    expect(diff / (400 * 400)).toBeLessThan(0.5);
    expect(meanDiff(moved, open)).toBeGreaterThan(1);
  });

  it('draws the same frame for the same state, and refuses to draw once closed', () => {
    expect(meanDiff(frame(MOUTH_SHAPES.C), frame(MOUTH_SHAPES.C))).toBe(0);
    const r = createAvatarRenderer(manifest, { width: SIZE, height: SIZE }, dir);
    r.close();
    r.close();
    expect(() => r.render({ mouth: REST_MOUTH, motion: REST_MOTION })).toThrow(/closed/);
  });

  it('renderRegion: the whole frame when the pose changed, null when it is the last frame again', () => {
    const r = createAvatarRenderer(manifest, { width: SIZE, height: SIZE }, dir);
    try {
      const at = (mouth: MouthParams, motion: Partial<FaceMotion> = {}) =>
        r.renderRegion!({ mouth, motion: { ...REST_MOTION, ...motion } });
      const first = at(REST_MOUTH);
      expect(first?.region).toEqual({ x: 0, y: 0, width: SIZE, height: SIZE });
      expect(meanDiff(first!.rgba.slice(), frame())).toBe(0);
      expect(at(REST_MOUTH)).toBeNull(); // the same pose: the session holds the frame back
      expect(at(REST_MOUTH, { headX: 0.1 })).toBeNull(); // less than a pixel moves nothing
      const open = at(MOUTH_SHAPES.C);
      expect(open).not.toBeNull();
      expect(meanDiff(open!.rgba.slice(), frame(MOUTH_SHAPES.C))).toBe(0);
    } finally {
      r.close();
    }
  });
});
