import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  composeReach,
  i420ToRgba,
  outputRect,
  scaleI420Cover,
  videoLayout,
  type PixelRect as Rect,
} from '@mouthpiece/draw';
import { loadAvatarPack } from '../avatar/catalog.js';
import { previewPng } from '../avatar/preview.js';
import { REST_MOTION, REST_MOUTH, type FaceState, type MouthParams } from '../face-state.js';
import {
  cavityGrey,
  syntheticFace,
  writeSyntheticVideoPack,
  type SyntheticVideoPack,
} from '../testing/synthetic-video-pack.js';
import { applySimilarity, i420Bytes, i420View, readVideoPack, VIDEO_FILES } from '../video/pack.js';
import { createAvatarRenderer } from './avatar-renderer.js';
import type { Renderer } from './renderer.js';
import { atRest, FADE_FRAMES, MAX_COLOUR_SHIFT } from './video-renderer.js';

type I420Renderer = Renderer & Required<Pick<Renderer, 'renderI420'>>;

let root: string;
let pack: SyntheticVideoPack;
const SIZE = 256;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'mp-video-'));
  pack = await writeSyntheticVideoPack(root, { size: SIZE });
}, 60_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const rest: FaceState = { mouth: REST_MOUTH, motion: REST_MOTION };
const speak = (open: number, more: Partial<MouthParams> = {}): FaceState => ({
  mouth: { ...REST_MOUTH, open, width: 0.45, round: 0.1, teeth: 0.3, ...more },
  motion: REST_MOTION,
  speaking: true,
});

function open(p: SyntheticVideoPack, width = SIZE, height = SIZE): I420Renderer {
  const r = createAvatarRenderer(p.manifest, { width, height }, p.dir);
  if (!r.renderI420) throw new Error('the video renderer renders I420');
  return r as I420Renderer;
}

/** Renders the states in order, one frame each, as I420 copies. */
function run(p: SyntheticVideoPack, states: FaceState[], width = SIZE, height = SIZE): Uint8Array[] {
  const r = open(p, width, height);
  try {
    return states.map((s) => {
      const out = new Uint8Array(i420Bytes(width, height));
      r.renderI420(s, out);
      return out;
    });
  } finally {
    r.close();
  }
}

const baseFrame = (p: SyntheticVideoPack, i: number): Uint8Array => {
  const n = i420Bytes(p.index.size, p.index.size);
  return readVideoPack(p.dir).base.slice(i * n, (i + 1) * n);
};
const bytes = (a: Uint8ClampedArray): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.length);
const same = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(a, b) === 0;
/** Which base frame a rendered frame is (-1: none). */
const whichBase = (p: SyntheticVideoPack, f: Uint8Array): number =>
  Array.from({ length: p.index.base.frames }, (_, i) => i).find((i) => same(baseFrame(p, i), f)) ?? -1;

/** The output pixel at a canonical point through base frame i's transform (scaled to the output). */
function at(
  p: SyntheticVideoPack,
  i: number,
  pt: [number, number],
  scale = 1,
  ox = 0,
  oy = 0,
): [number, number] {
  const [x, y] = applySimilarity(p.index.base.toFrame[i]!, pt[0], pt[1]);
  return [Math.floor(x * scale + ox), Math.floor(y * scale + oy)];
}
/** Which crop's mouth inside is at the output pixel: the crop whose cavity luma is nearest. */
function cropAt(p: SyntheticVideoPack, f: Uint8Array, width: number, [x, y]: [number, number]): number {
  const luma = f[y * width + x]!;
  const lumas = p.index.library.descriptors.map((_, k) => 16 + 0.859 * cavityGrey(k));
  return lumas.reduce((best, l, k) => (Math.abs(l - luma) < Math.abs(lumas[best]! - luma) ? k : best), 0);
}
/** Whether every pixel outside the rectangle (and its chroma half) equals the reference's. */
function sameOutside(f: Uint8Array, ref: Uint8Array, width: number, height: number, r: Rect): boolean {
  const a = i420View(f, 0, width, height);
  const b = i420View(ref, 0, width, height);
  for (const [pa, pb, w, h, k] of [
    [a.y, b.y, width, height, 1],
    [a.u, b.u, width >> 1, height >> 1, 2],
    [a.v, b.v, width >> 1, height >> 1, 2],
  ] as const)
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) {
        const inside = x >= r.x0 / k && x < r.x1 / k && y >= r.y0 / k && y < r.y1 / k;
        if (!inside && pa[y * w + x] !== pb[y * w + x]) return false;
      }
  return true;
}

describe('video renderer', () => {
  it('at rest plays the idle loop exactly, wrapping to the first frame after the last (cut)', () => {
    const frames = run(pack, Array<FaceState>(20).fill(rest));
    expect(frames.map((f) => whichBase(pack, f))).toEqual(Array.from({ length: 20 }, (_, t) => t % 8));
  });

  it('plays the footage at its own rate when the output frame rate differs', () => {
    const r = createAvatarRenderer(pack.manifest, { width: SIZE, height: SIZE }, pack.dir, { fps: 50 });
    try {
      const shown = Array.from({ length: 8 }, () => {
        const out = new Uint8Array(i420Bytes(SIZE, SIZE));
        r.renderI420!(rest, out);
        return whichBase(pack, out);
      });
      expect(shown).toEqual([0, 0, 1, 1, 2, 2, 3, 3]);
    } finally {
      r.close();
    }
  });

  it('a ping-pong loop plays backwards, then forwards again', async () => {
    const p = await writeSyntheticVideoPack(root, { id: 'pingpong', baseFrames: 4, loop: 'pingpong' });
    const frames = run(p, Array<FaceState>(11).fill(rest));
    expect(frames.map((f) => whichBase(p, f))).toEqual([0, 1, 2, 3, 2, 1, 0, 1, 2, 3, 2]);
  });

  it('with the mouth wide open shows a wide-open crop in the mouth, and leaves everything outside the composite’s reach as the base frame', () => {
    const frames = run(pack, [
      ...Array<FaceState>(6).fill(speak(0.9)),
      ...Array<FaceState>(4).fill(speak(0.3)),
    ]);
    const { descriptors, box } = pack.index.library;
    const mouth = syntheticFace(SIZE).mouth;
    frames.forEach((f, t) => {
      const i = t % 8;
      expect(outputRect(pack.index.base.toFrame[i]!, box, SIZE, SIZE)).toSatisfy(
        (b: Rect) => b.x1 - b.x0 > box.width - 1,
      );
      const r = composeReach(
        videoLayout(pack.index, readVideoPack(pack.dir).mouths, { width: SIZE, height: SIZE }),
        i,
      );
      expect(sameOutside(f, baseFrame(pack, i), SIZE, SIZE, r)).toBe(true);
      expect(same(f, baseFrame(pack, i))).toBe(false);
    });
    expect(descriptors[cropAt(pack, frames[4]!, SIZE, at(pack, 4, mouth))]!.open).toBeGreaterThan(0.8);
    // a held opening walks on through the recorded frames that follow (one library step, 0.09, either way)
    expect(
      Math.abs(descriptors[cropAt(pack, frames[9]!, SIZE, at(pack, 1, mouth))]!.open - 0.3),
    ).toBeLessThan(0.1);
  });

  it('(a pack without landmarks) fades the mouth in over three frames when speech starts, and out over three at rest, back to the base exactly', async () => {
    // every crop one flat colour, so the change does not depend on which crop is shown
    const p = await writeSyntheticVideoPack(root, {
      id: 'fade',
      faceData: false,
      flatCrop: () => [250, 250, 250],
      rings: 'zero',
    });
    const states = [rest, rest, ...Array<FaceState>(5).fill(speak(0.9)), ...Array<FaceState>(5).fill(rest)];
    const frames = run(p, states);
    // the summed difference from the base frame: the blend is linear in the fade
    const change = frames.map((f, t) => {
      const base = baseFrame(p, t % 8);
      return f.reduce((sum, v, j) => sum + Math.abs(v - base[j]!), 0);
    });
    expect(FADE_FRAMES).toBe(3);
    expect(change.slice(0, 2)).toEqual([0, 0]);
    // in: a third, two thirds, all
    expect(change[2]! / change[4]!).toBeCloseTo(1 / 3, 1);
    expect(change[3]! / change[4]!).toBeCloseTo(2 / 3, 1);
    expect(change[4]).toBeGreaterThan(10_000);
    expect(change[6]! / change[4]!).toBeCloseTo(1, 1);
    // out: two thirds, a third, none — then the whole frame is the base frame again
    expect(change[7]! / change[6]!).toBeCloseTo(2 / 3, 1);
    expect(change[8]! / change[6]!).toBeCloseTo(1 / 3, 1);
    for (let t = 9; t < 12; t++) expect(same(frames[t]!, baseFrame(p, t % 8))).toBe(true);
  });

  it('treats a closed mouth as rest only when not speaking (a closure in speech keeps the composite)', () => {
    expect(atRest(rest)).toBe(true);
    expect(atRest({ ...rest, mouth: { ...REST_MOUTH, open: 0.01 }, speaking: false })).toBe(true);
    expect(atRest({ ...rest, speaking: true })).toBe(false);
    // no speaking flag: an 'M B P' closure (wider than rest) is not rest
    expect(atRest({ ...rest, mouth: { ...REST_MOUTH, width: 0.42, round: 0.1 } })).toBe(false);
  });

  it('prefers the next consecutive source frame to a slightly nearer distant one', async () => {
    const p = await writeSyntheticVideoPack(root, {
      id: 'jumps',
      descriptors: [0.5, 0.6, 0.62].map((o) => ({ open: o, width: 0.45, round: 0.1, teeth: 0.3 })),
      source: [10, 11, 50],
    });
    const mouth = syntheticFace(SIZE).mouth;
    const after = run(p, [speak(0.5), speak(0.5), speak(0.5), speak(0.62)]);
    expect(cropAt(p, after[3]!, SIZE, at(p, 3, mouth))).toBe(1);
    const fresh = run(p, [speak(0.62), speak(0.62), speak(0.62)]);
    expect(cropAt(p, fresh[2]!, SIZE, at(p, 2, mouth))).toBe(2);
  });

  it('renders at another output size: the base scaled to cover, centred (wider, taller, smaller), the mouth where the face is', () => {
    for (const [w, h] of [
      [320, 240],
      [240, 320],
      [128, 128],
    ] as const) {
      const scale = Math.max(w, h) / SIZE;
      const ox = (w - SIZE * scale) / 2;
      const oy = (h - SIZE * scale) / 2;
      const idle = run(pack, Array<FaceState>(3).fill(rest), w, h);
      const talk = run(pack, Array<FaceState>(3).fill(speak(0.9)), w, h);
      const expected = new Uint8Array(i420Bytes(w, h));
      scaleI420Cover(i420View(baseFrame(pack, 2), 0, SIZE, SIZE), i420View(expected, 0, w, h));
      expect(same(idle[2]!, expected)).toBe(true);
      const layout = videoLayout(pack.index, readVideoPack(pack.dir).mouths, { width: w, height: h });
      expect(sameOutside(talk[2]!, idle[2]!, w, h, composeReach(layout, 2))).toBe(true);
      const m = at(pack, 2, syntheticFace(SIZE).mouth, scale, ox, oy);
      expect(pack.index.library.descriptors[cropAt(pack, talk[2]!, w, m)]!.open).toBeGreaterThan(0.8);
    }
  });

  it('(a pack without landmarks) has no step at the seam: across the feather the picture goes smoothly from the crop to the base', async () => {
    const p = await writeSyntheticVideoPack(root, {
      id: 'seam',
      faceData: false,
      toFrame: () => [1, 0, 0, 0],
      flatCrop: () => [250, 250, 250],
      rings: 'zero',
    });
    const [f] = run(p, Array<FaceState>(4).fill(speak(0.5))).slice(3);
    const base = baseFrame(p, 3);
    const { box } = p.index.library;
    const y = box.y + Math.round(box.height * 0.42);
    const crop = 16 + 0.859 * 250;
    const share: number[] = [];
    for (let x = box.x + box.width / 2; x < box.x + box.width + 4; x++) {
      const b = base[y * SIZE + x]!;
      share.push((f![y * SIZE + x]! - b) / (crop - b));
    }
    expect(share[0]).toBeCloseTo(1, 1);
    expect(share.at(-1)).toBe(0);
    const steps = share.slice(1).map((s, i) => Math.abs(s - share[i]!));
    expect(Math.max(...steps)).toBeLessThan(0.15);
    expect(share.filter((s) => s > 0.05 && s < 0.95).length).toBeGreaterThan(8);
  });

  it('(a pack without landmarks) matches the crop’s colour to the base frame’s on the seam ring (a per-channel shift, clamped)', async () => {
    const p = await writeSyntheticVideoPack(root, {
      id: 'colour',
      faceData: false,
      flatCrop: () => [200, 170, 150],
    });
    const [f] = run(p, Array<FaceState>(4).fill(speak(0.5))).slice(3);
    const { descriptors, ring } = p.index.library;
    const k = descriptors.reduce(
      (b, d, j) => (Math.abs(d.open - 0.5) < Math.abs(descriptors[b]!.open - 0.5) ? j : b),
      0,
    );
    const cropY = readVideoPack(p.dir).mouths[
      k * i420Bytes(p.index.library.box.width, p.index.library.box.height)
    ]!;
    const shift = Math.max(
      -MAX_COLOUR_SHIFT,
      Math.min(MAX_COLOUR_SHIFT, p.index.base.ring[3]![0] - ring[k]![0]),
    );
    expect(Math.abs(shift)).toBeGreaterThan(5);
    const [x, y] = at(p, 3, syntheticFace(SIZE).mouth);
    expect(Math.abs(f![y * SIZE + x]! - (cropY + shift))).toBeLessThanOrEqual(2);
  });

  it('renders the same picture through render() (RGBA) as through renderI420()', () => {
    const states = [rest, speak(0.4), speak(0.7), speak(0.9), rest];
    const i420 = run(pack, states);
    const r = open(pack);
    try {
      for (const [t, s] of states.entries())
        expect(same(bytes(r.render(s)), bytes(i420ToRgba(i420[t]!, SIZE, SIZE)))).toBe(true);
    } finally {
      r.close();
    }
  });

  it('shares one cache between renderers of a pack, freed when the last one closes', async () => {
    const p = await writeSyntheticVideoPack(root, { id: 'shared' });
    const first = open(p);
    const original = baseFrame(p, 0);
    writeFileSync(join(p.dir, VIDEO_FILES.base), new Uint8Array(10)); // the pack on disk breaks
    const second = open(p); // ... but the shared copy serves
    const out = new Uint8Array(i420Bytes(SIZE, SIZE));
    second.renderI420(rest, out);
    expect(same(out, original)).toBe(true);
    first.close();
    first.close(); // idempotent: does not drop the second renderer's use
    const third = open(p);
    third.close();
    second.close();
    expect(() => open(p)).toThrow(/base\.i420/);
  });

  it('refuses a frame buffer of the wrong size and drawing once closed', () => {
    const r = open(pack);
    expect(() => r.renderI420(rest, new Uint8Array(10))).toThrow(/bytes/);
    r.close();
    expect(() => r.render(rest)).toThrow(/closed/);
  });

  it('loads as a pack, and its preview is the stored preview.png', async () => {
    const loaded = loadAvatarPack(pack.dir);
    expect(loaded.manifest.render).toBe('video');
    expect(Buffer.compare(await previewPng(loaded), readFileSync(join(pack.dir, VIDEO_FILES.preview)))).toBe(
      0,
    );
    const copy = join(root, 'no-preview');
    cpSync(pack.dir, copy, { recursive: true });
    rmSync(join(copy, VIDEO_FILES.preview));
    const png = await previewPng(loadAvatarPack(copy));
    expect(png.subarray(1, 4).toString()).toBe('PNG');
  });
});

describe('the video renderer picks without drawing (for a viewer that draws the avatar itself)', () => {
  it('pick() chooses as renderI420 renders: the same base frames, the composite where its fade shows, crops near the mouth', () => {
    const states = [
      rest,
      rest,
      ...Array.from({ length: 6 }, () => speak(0.6)),
      ...Array.from({ length: 6 }, () => rest),
    ];
    const rendered = run(pack, states);
    const still = run(
      pack,
      states.map(() => rest),
    );
    const picker = open(pack);
    const { index } = readVideoPack(pack.dir);
    try {
      const picks = states.map((s) => picker.pick!(s));
      expect(picks.map((p) => p.fade)).toEqual([0, 0, 1 / 3, 2 / 3, 1, 1, 1, 1, 2 / 3, 1 / 3, 0, 0, 0, 0]);
      picks.forEach((p, t) => {
        // the composite shows exactly where the pick says it does
        expect(Buffer.compare(rendered[t]!, still[t]!) !== 0).toBe(p.fade > 0);
        if (p.fade === 0) return;
        expect(p.wa + p.wb).toBeCloseTo(1, 5);
        if (states[t]!.speaking)
          expect(Math.abs(index.library.descriptors[p.a]!.open - 0.6)).toBeLessThan(0.1);
      });
      // the base frame advances one a frame, as the rendered frames do at rest
      expect(new Set(picks.map((p) => p.baseFrame)).size).toBeGreaterThan(1);
    } finally {
      picker.close();
    }
  });
});
