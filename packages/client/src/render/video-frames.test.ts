import { describe, expect, it } from 'vitest';
import { i420Bytes, i420ToRgba, outputRect, type VideoIndex } from '@mouthpiece/draw';
import { decodeAnimationFrame, encodeAnimationFrame, type AnimationFrame } from '@mouthpiece/protocol';
import { RendererUnavailable, type LoadedPack } from './types.js';
import { videoFrames } from './video-frames.js';

const SIZE = 32;
const BOX = { x: 8, y: 14, width: 16, height: 12 };
const BASE_GREYS = [60, 90, 120];
const CROP_GREYS = [220, 30];

/** A tiny pack: flat grey base frames swaying 1 px a frame, flat grey crops, no colour match. */
function tinyPack(over: { index?: Partial<VideoIndex>; base?: number; drop?: string } = {}): LoadedPack {
  const index: VideoIndex = {
    version: 1,
    size: SIZE,
    fps: 25,
    base: {
      frames: 3,
      loop: 'cut',
      toFrame: BASE_GREYS.map((_, i) => [1, 0, i, 0]),
      ring: BASE_GREYS.map(() => [0, 0, 0]),
      source: [0, 1, 2],
    },
    canonical: { landmarks: [] },
    library: {
      frames: 2,
      box: BOX,
      descriptors: CROP_GREYS.map((_, k) => ({ open: k, width: 0.4, round: 0, teeth: 0 })),
      source: [0, 1],
      ring: CROP_GREYS.map(() => [0, 0, 0]),
    },
    clip: { width: SIZE, height: SIZE, crop: { x: 0, y: 0, side: SIZE } },
    stats: {},
    ...over.index,
  };
  const flat = (grey: number, w: number, h: number): Uint8Array => {
    const b = new Uint8Array(i420Bytes(w, h)).fill(128);
    b.fill(grey, 0, w * h);
    return b;
  };
  const join = (parts: Uint8Array[]): ArrayBuffer => {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
    return out.buffer;
  };
  const base = join(BASE_GREYS.map((g) => flat(g, SIZE, SIZE)));
  const files = [
    { name: 'video.json', role: 'video-index', body: new TextEncoder().encode(JSON.stringify(index)).buffer },
    { name: 'base.i420', role: 'base-frames', body: over.base ? base.slice(0, over.base) : base },
    {
      name: 'mouths.i420',
      role: 'mouth-library',
      body: join(CROP_GREYS.map((g) => flat(g, BOX.width, BOX.height))),
    },
  ].filter((f) => f.name !== over.drop);
  return {
    id: 'tiny',
    render: 'video',
    manifest: { id: 'tiny', render: 'video' },
    files: files.map((f) => ({
      name: f.name,
      role: f.role,
      url: `/v1/avatar-session/s/avatar/${f.name}`,
      bytes: f.body.byteLength,
      contentType: 'application/octet-stream',
      etag: '"x"',
    })),
    bytes: new Map(files.map((f) => [f.name, f.body])),
  };
}

const still = { open: 0, width: 0.4, round: 0, teeth: 0, lipBite: 0, tongue: 0 };
const motion = { blink: 0, headX: 0, headY: 0, tilt: 0, breath: 0, brow: 0, gazeX: 0, gazeY: 0 };
/** A frame as the SDK receives it: through the wire format (weights quantised to 1/255). */
const frame = (sampleIndex: number, video?: AnimationFrame['video']): AnimationFrame =>
  decodeAnimationFrame(
    encodeAnimationFrame({ sampleIndex, speaking: !!video, mouth: still, motion, video }),
  )!;
const pick = (baseFrame: number, a: number, fade = 1): AnimationFrame['video'] => ({
  baseFrame,
  a,
  wa: 1,
  b: a,
  wb: 0,
  fade,
});
const greyOf = (y: number): number =>
  Math.round(i420ToRgba(new Uint8Array([y, y, y, y, 128, 128]), 2, 2)[0]!);

describe('the video avatar’s frames in the browser', () => {
  it('a frame with the engine’s pick shows its base frame, and the crop only inside the box’s rectangle', () => {
    const frames = videoFrames(tinyPack());
    const px = frames.picture(frame(0, pick(1, 0))).rgba.slice();
    const r = outputRect([1, 0, 1, 0], BOX, SIZE, SIZE);
    let inside = 0;
    for (let y = 0; y < SIZE; y++)
      for (let x = 0; x < SIZE; x++) {
        const v = px[(y * SIZE + x) * 4]!;
        if (x >= r.x0 && x < r.x1 && y >= r.y0 && y < r.y1) inside += v === greyOf(90) ? 0 : 1;
        else expect(v, `${x},${y}`).toBe(greyOf(90));
      }
    expect(inside).toBeGreaterThan(50);
    // the seam mask's centre is the crop itself
    const c = ((BOX.y + Math.round(BOX.height * 0.42)) * SIZE + BOX.x + 1 + BOX.width / 2) * 4;
    expect(Math.abs(px[c]! - greyOf(220))).toBeLessThanOrEqual(1);
    // the other crop gives another mouth
    expect(frames.picture(frame(0, pick(1, 1))).rgba[c]).toBeLessThan(greyOf(90));
  });

  it('a pick with no fade, a frame without a pick, or a pick naming frames the pack lacks show the idle loop', () => {
    const frames = videoFrames(tinyPack());
    const grey = (f: AnimationFrame): number => frames.picture(f).rgba[0]!;
    expect(grey(frame(0, pick(2, 1, 0)))).toBe(greyOf(120));
    // at rest: the loop's frame at the stamp's time (25 fps footage: one frame per 1920 samples)
    expect([0, 1920, 3840, 5760].map((s) => grey(frame(s)))).toEqual([60, 90, 120, 60].map(greyOf));
    expect(grey(frame(1920, pick(7, 0)))).toBe(greyOf(90));
    expect(grey(frame(1920, pick(0, 9)))).toBe(greyOf(90));
  });

  it('keeps the pack’s files as views: nothing copied, and the same pick twice is not composed again', () => {
    const pack = tinyPack();
    const frames = videoFrames(pack);
    expect(frames.picture(frame(0)).changed).toBe(true);
    new Uint8Array(pack.bytes.get('base.i420')!).fill(200, 0, SIZE * SIZE);
    expect(frames.picture(frame(10)).changed).toBe(false);
    const next = frames.picture(frame(0, pick(0, 0, 0)));
    expect(next.changed).toBe(false);
    expect(frames.picture(frame(1920)).changed).toBe(true);
    expect(frames.picture(frame(0)).rgba[0]).toBe(greyOf(200));
  });

  it('refuses a pack with a file missing, of the wrong size or a broken index (pack-failed)', () => {
    const refused = (pack: LoadedPack): string => {
      try {
        videoFrames(pack);
      } catch (err) {
        expect(err).toBeInstanceOf(RendererUnavailable);
        expect((err as RendererUnavailable).reason).toBe('pack-failed');
        return (err as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refused(tinyPack({ drop: 'mouths.i420' }))).toMatch(/mouth-library/);
    expect(refused(tinyPack({ base: 100 }))).toMatch(/base\.i420 is 100 bytes/);
    expect(refused(tinyPack({ index: { size: 31 } }))).toMatch(/even size/);
    expect(refused(tinyPack({ index: { version: 2 as 1 } }))).toMatch(/version 1/);
    const broken = tinyPack();
    (broken.bytes as Map<string, ArrayBuffer>).set('video.json', new TextEncoder().encode('{').buffer);
    expect(refused(broken)).toMatch(/not JSON/);
  });
});
