/**
 * The video avatar on a real person's clip (testing/real-clip-pack.ts: a man with a beard talking to
 * the camera, imported once and cached), driven by a paragraph through say-text (espeak, offline
 * as in a session: testing/talking-clip-speech.ts). What a viewer would see, measured from the
 * rendered frames (landmarks tracked on them by the import's own tracker) against the clip's own
 * frames (the mouth library, tracked at import): the mouth opens no wider and no darker than the
 * person ever did, and moves; nothing outside the face's mesh changes; two crops blend only when
 * they are neighbouring frames of the clip.
 */
import {
  MESH,
  RING,
  i420ToRgba,
  meshFrame,
  meshVertices,
  targetLandmarks,
  type FlatLandmarks,
} from '@mouthpiece/draw';
import { beforeAll, describe, expect, it } from 'vitest';
import { REST_MOTION, type FaceState } from '../face-state.js';
import { BLEND_SPAN } from './mouth-selector.js';
import { createVideoRenderer } from '../render/video-renderer.js';
import { realClipPack, type RealClipPack } from '../testing/real-clip-pack.js';
import { clipSpeech } from '../testing/talking-clip-speech.js';
import { landmarksIn, trackingBox, type Landmarks } from './face-tracker.js';
import { applySimilarity, i420Bytes, readVideoPack, type VideoPackData } from './pack.js';

const FRAMES = 330;
/** Luma below this inside the inner lips is the mouth's dark cavity. */
const DARK = 45;

type Pt = readonly [number, number];
const pt = (L: FlatLandmarks, i: number): Pt => [L[2 * i]!, L[2 * i + 1]!];

function eyeDistance(P: (i: number) => Pt): number {
  const mean = (from: number): Pt => {
    let x = 0;
    let y = 0;
    for (let k = from; k < from + 6; k++) [x, y] = [x + P(k)[0] / 6, y + P(k)[1] / 6];
    return [x, y];
  };
  const [l, r] = [mean(36), mean(42)];
  return Math.hypot(r[0] - l[0], r[1] - l[1]) || 1;
}

/** The inner lips' gap over the eyes' distance (as the import measures it). */
function opening(P: (i: number) => Pt): number {
  const gap = (P(66)[1] - P(62)[1] + (P(67)[1] - P(61)[1]) + (P(65)[1] - P(63)[1])) / 3;
  return Math.max(0, gap) / eyeDistance(P);
}

function inside(x: number, y: number, poly: readonly Pt[]): boolean {
  let c = false;
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
    const [xi, yi] = poly[i]!;
    const [xj, yj] = poly[j]!;
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) c = !c;
  }
  return c;
}

/** Dark pixels inside the inner lips of a luma plane, over the eyes' distance squared. */
function darkArea(luma: Uint8Array, width: number, P: (i: number) => Pt): number {
  const poly = [60, 61, 62, 63, 64, 65, 66, 67].map(P);
  const xs = poly.map((p) => p[0]);
  const ys = poly.map((p) => p[1]);
  let n = 0;
  for (let y = Math.floor(Math.min(...ys)); y <= Math.ceil(Math.max(...ys)); y++)
    for (let x = Math.floor(Math.min(...xs)); x <= Math.ceil(Math.max(...xs)); x++)
      if (inside(x + 0.5, y + 0.5, poly) && luma[y * width + x]! < DARK) n++;
  return n / eyeDistance(P) ** 2;
}

const max = (v: number[]): number => v.reduce((a, b) => Math.max(a, b), 0);
const sd = (v: number[]): number => {
  const m = v.reduce((a, b) => a + b, 0) / v.length;
  return Math.sqrt(v.reduce((a, b) => a + (b - m) ** 2, 0) / v.length);
};

describe('a video avatar of a real person', () => {
  let pack: RealClipPack;
  let data: VideoPackData;
  let states: FaceState[];
  beforeAll(async () => {
    pack = await realClipPack();
    data = readVideoPack(pack.dir);
    const speech = await clipSpeech({
      fps: 25,
      frames: FRAMES,
      voiceId: 'en-us-male',
      speed: 1,
      speech: true,
    });
    states = speech.frames.map((f) => ({ mouth: f.mouth, motion: REST_MOTION, speaking: f.speaking }));
  }, 300_000);

  it('through say-text opens the mouth no wider and no darker than the person did, and moves it', async () => {
    const { index } = data;
    const size = index.size;
    const crop = index.library.box;
    const own = index.library.landmarks!.map((L) => ({
      open: opening((i) => pt(L, i)),
      dark: (k: number) =>
        darkArea(data.mouths.subarray(k * i420Bytes(crop.width, crop.height)), crop.width, (i) => [
          L[2 * i]! - crop.x,
          L[2 * i + 1]! - crop.y,
        ]),
    }));
    const r = createVideoRenderer(pack.manifest, pack.dir, { width: size, height: size }, { fps: 25 });
    const out = new Uint8Array(i420Bytes(size, size));
    const made = { open: [] as number[], dark: [] as number[] };
    let lm: Landmarks = index.canonical.landmarks.map(([x, y]) =>
      applySimilarity(index.base.toFrame[0]!, x, y),
    );
    try {
      for (const state of states) {
        r.renderI420(state, out);
        if (!state.speaking) continue;
        const rgba = i420ToRgba(out, size, size);
        const rgb = new Uint8Array(size * size * 3);
        for (let p = 0; p < size * size; p++) rgb.set(rgba.subarray(4 * p, 4 * p + 3), 3 * p);
        lm = await landmarksIn({ rgb, width: size, height: size }, trackingBox(lm));
        const P = (i: number): Pt => lm[i]!;
        made.open.push(opening(P));
        made.dark.push(darkArea(out, size, P));
      }
    } finally {
      r.close();
    }
    const clip = { open: own.map((o) => o.open), dark: own.map((o, k) => o.dark(k)) };
    expect(made.open.length).toBeGreaterThan(120);
    // the landmark net's own noise on a re-rendered frame is a few hundredths of the eyes' distance
    expect(max(made.open)).toBeLessThanOrEqual(max(clip.open) + 0.03);
    expect(max(made.dark)).toBeLessThanOrEqual(max(clip.dark) * 1.1 + 0.002);
    expect(sd(made.open), 'the mouth moves while speaking').toBeGreaterThan(0.3 * sd(clip.open));
  }, 300_000);

  it('changes no pixel outside the face mesh, and blends only neighbouring frames of the clip', () => {
    const { index } = data;
    const size = index.size;
    const frame = meshFrame(index.canonical.landmarks.flat());
    // the twin walks the base frames as the renderer does (the same seed)
    const r = createVideoRenderer(
      pack.manifest,
      pack.dir,
      { width: size, height: size },
      { fps: 25, seed: 7 },
    );
    const twin = createVideoRenderer(
      pack.manifest,
      pack.dir,
      { width: size, height: size },
      { fps: 25, seed: 7 },
    );
    const out = new Uint8Array(i420Bytes(size, size));
    const frameBytes = i420Bytes(size, size);
    let checked = 0;
    let blended = 0;
    try {
      for (const state of states.slice(0, 200)) {
        const pick = twin.pick!(state);
        r.renderI420(state, out);
        if (pick.fade === 0) continue;
        const { library } = index;
        if (pick.wb > 0) {
          blended++;
          expect(Math.abs(library.source[pick.a]! - library.source[pick.b]!)).toBeLessThanOrEqual(BLEND_SPAN);
        }
        const B = index.base.landmarks![pick.baseFrame]!;
        const T = targetLandmarks(
          B,
          library.landmarks![pick.a]!,
          library.landmarks![pick.b]!,
          pick.wa / (pick.wa + pick.wb),
          pick.fade,
        );
        const v = meshVertices(T, B, frame);
        const at = (k: number): Pt =>
          applySimilarity(index.base.toFrame[pick.baseFrame]!, v[2 * k]!, v[2 * k + 1]!);
        // the mesh's outline: a cheek, the jaw's ends, the far ring under the jaw, the other cheek, the line under the nose
        const outline = [
          at(MESH.ring + RING - 1),
          at(MESH.ring),
          ...Array.from({ length: 11 }, (_, k) => at(MESH.far + k)),
          ...Array.from({ length: 7 }, (_, k) => at(MESH.ring + 10 + k)),
        ];
        const base = data.base.subarray(pick.baseFrame * frameBytes);
        for (let y = 0; y < size; y++)
          for (let x = 0; x < size; x++) {
            const d = Math.abs(out[y * size + x]! - base[y * size + x]!);
            if (d > 1 && !inside(x + 0.5, y + 0.5, outline))
              expect.fail(`pixel ${x},${y} changed by ${d} outside the face mesh (frame ${checked})`);
          }
        checked++;
      }
    } finally {
      r.close();
      twin.close();
    }
    expect(checked).toBeGreaterThan(80);
    expect(blended).toBeGreaterThan(0);
  }, 300_000);
});
