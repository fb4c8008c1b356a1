/**
 * A real talking-head clip with no calm stretch (../shared/fixtures/real-clips/latentsync-demo2.mp4
 * from the repository root: he talks from the first second) through the real import, once, and
 * its idle played by the video renderer's walk: it repeats nothing for 2 s within 30 s, and it
 * jumps only between frames that match (docs/design.md §11 "Base frames").
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REST_MOTION, REST_MOUTH, type FaceState } from '../face-state.js';
import { realClipPack } from '../testing/real-clip-pack.js';
import { longestRepeat } from '../testing/repeats.js';
import { thumbOfI420 } from '../video/base-frames.js';
import { ivfFrameCount } from '../video/browser-video.js';
import { POOL_LIMITS } from '../video/base-pool.js';
import { i420Bytes, readVideoPack, VIDEO_FILES, type VideoPackData } from '../video/pack.js';
import { thumbDistance } from '../video/pixels.js';
import { REPEAT_HORIZON, REPEAT_WINDOW } from './base-walk.js';
import { createVideoRenderer } from './video-renderer.js';

const rest: FaceState = { mouth: REST_MOUTH, motion: REST_MOTION, speaking: false };

let dir: string;
let pack: VideoPackData;

// the clip's pack is imported once per code version and shared with the other real-clip tests
beforeAll(async () => {
  dir = (await realClipPack()).dir;
  pack = readVideoPack(dir);
}, 600_000);

/** The base frames the renderer shows at rest for `seconds`, for a seed. */
function idle(seconds: number, seed: number): number[] {
  const r = createVideoRenderer(
    { id: 'real', name: 'Real', version: 1, render: 'video', source: 'upload' },
    dir,
    { width: 64, height: 64 },
    { seed },
  );
  try {
    return Array.from({ length: seconds * pack.index.fps }, () => r.pick!(rest).baseFrame);
  } finally {
    r.close();
  }
}

describe('video avatar idle from a real clip without a calm stretch', () => {
  it('keeps a bounded pool of base frames with closed mouths baked in, its graph, and its VP9 copy', () => {
    const { base } = pack.index;
    expect(base.frames).toBeLessThanOrEqual(POOL_LIMITS.maxFrames);
    // frames whose upper lip reaches the nose (his laughs) are kept out (video/face-data.ts
    // clearUnderNose): they cut his talk into runs too short for a stretch, 188 of 300 taken
    expect(base.frames).toBeGreaterThan(POOL_LIMITS.maxFrames * 0.6);
    expect(Number(pack.index.stats.lipUnderNose)).toBeGreaterThan(0);
    // no calm stretch: idle frames are talking frames made calm
    expect(base.idle!.every((v, i) => v && base.baked![i])).toBe(true);
    expect(base.jumps).toHaveLength(base.frames);
    expect(ivfFrameCount(readFileSync(join(dir, VIDEO_FILES.baseEncoded)))).toBe(base.frames);
    // decoded per stretch from seeks, every base frame is exactly the frame tracked there
    expect(pack.index.stats.baseThumbError).toBe(0);
  });

  it('repeats no 2 s of base frames within 30 s, not even shifted by a few frames, over two minutes, for several seeds', () => {
    const fps = pack.index.fps;
    const { source, jumps, jumpCost } = pack.index.base;
    for (const seed of [1, 2, 3]) {
      const shown = idle(120, seed);
      const exact = longestRepeat(shown, REPEAT_HORIZON * fps);
      // the same footage: frames within 3 source frames, windows at least a second apart
      const near = (a: number, b: number): boolean => Math.abs(source[a]! - source[b]!) <= 3;
      const shifted = longestRepeat(shown, REPEAT_HORIZON * fps, near, fps);
      expect(exact).toBeLessThan(REPEAT_WINDOW * fps);
      expect(shifted).toBeLessThan(REPEAT_WINDOW * fps);
      // and it shows most of the footage, not a corner of it
      const seen = new Set(shown).size;
      expect(seen).toBeGreaterThan(pack.index.base.frames * 0.75);
      let cuts = 0;
      let above = 0;
      for (let t = 1; t < shown.length; t++) {
        const [a, b] = [shown[t - 1]!, shown[t]!];
        if (source[b] === source[a]! + 1) continue;
        cuts++;
        if (!(jumpCost![a]![jumps![a]!.indexOf(b)]! <= 1)) above++;
      }
      console.log(
        `real clip idle, seed ${seed}, 120 s: longest repeat ${exact} frames (shifted ${shifted}), ${cuts} jumps (${above} above the limit), ${seen} of ${source.length} frames shown`,
      );
    }
  }, 60_000); // a few seconds alone; more on a loaded machine

  it('jumps only between frames that match: well under the change of a cut to other footage', () => {
    const n = i420Bytes(pack.index.size, pack.index.size);
    const { source } = pack.index.base;
    const thumbs = source.map((_, k) => thumbOfI420(pack.base.subarray(k * n, (k + 1) * n), pack.index.size));
    const change = (a: number, b: number): number => thumbDistance(thumbs[a]!, thumbs[b]!);
    const at = (values: number[], q: number): number =>
      values.sort((a, b) => a - b)[Math.floor(q * (values.length - 1))]!;
    // a cut: any two frames a second or more apart in the clip
    const cuts: number[] = [];
    const steps: number[] = [];
    for (let a = 0; a < source.length; a++) {
      if (a > 0 && source[a] === source[a - 1]! + 1) steps.push(change(a - 1, a));
      for (let b = a + 1; b < source.length; b += 5)
        if (Math.abs(source[a]! - source[b]!) > 25) cuts.push(change(a, b));
    }
    const shown = idle(60, 4);
    const jumps: number[] = [];
    for (let t = 1; t < shown.length; t++)
      if (source[shown[t]!] !== source[shown[t - 1]!]! + 1) jumps.push(change(shown[t - 1]!, shown[t]!));
    expect(jumps.length).toBeGreaterThan(20);
    expect(at(jumps, 0.5)).toBeLessThan(0.7 * at(cuts, 0.5));
    expect(at(jumps, 0.9)).toBeLessThan(at(cuts, 0.5));
    console.log(
      `real clip idle, 60 s: ${jumps.length} jumps; grey change (48² thumbnails) at a jump p50 ${at(jumps, 0.5).toFixed(2)} p90 ${at(jumps, 0.9).toFixed(2)}; a cut p10 ${at(cuts, 0.1).toFixed(2)} p50 ${at(cuts, 0.5).toFixed(2)}; consecutive frames p50 ${at(steps, 0.5).toFixed(2)} p90 ${at(steps, 0.9).toFixed(2)} p98 ${at(steps, 0.98).toFixed(2)}`,
    );
  });
});
