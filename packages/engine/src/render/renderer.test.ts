import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILTIN_AVATARS_DIR, loadAvatarPack } from '../avatar/catalog.js';
import { vectorManifest } from '../avatar/manifest.js';
import { REST_MOTION } from '../face-state.js';
import { MOUTH_SHAPES } from '../lipsync/mouth-shapes.js';
import { createAnimator } from '../animation/animator.js';
import { createCanvas } from '@napi-rs/canvas';
import { createRenderer } from './renderer.js';
import { drawBackground, drawBody, drawHead, geometry } from '@mouthpiece/draw';

const tick = () => new Promise((r) => setImmediate(r));

function regionDiff(
  a: Uint8ClampedArray,
  b: Uint8ClampedArray,
  width: number,
  x0: number,
  y0: number,
  w: number,
  h: number,
): number {
  let d = 0;
  for (let y = y0; y < y0 + h; y++) {
    for (let x = x0; x < x0 + w; x++) {
      const i = (y * width + x) * 4;
      d += Math.abs(a[i]! - b[i]!) + Math.abs(a[i + 1]! - b[i + 1]!) + Math.abs(a[i + 2]! - b[i + 2]!);
    }
  }
  return d / (w * h);
}

describe('renderer', () => {
  for (const id of ['amara', 'jonas', 'mei']) {
    it(`${id}: the mouth region changes between closed and open, the eyes with a blink; any size renders`, async () => {
      const manifest = vectorManifest(loadAvatarPack(join(BUILTIN_AVATARS_DIR, id)).manifest);
      const r = createRenderer(manifest, { width: 512, height: 512 });
      const closed = Uint8ClampedArray.from(r.render({ mouth: MOUTH_SHAPES.A, motion: REST_MOTION }));
      await tick();
      const open = Uint8ClampedArray.from(r.render({ mouth: MOUTH_SHAPES.D, motion: REST_MOTION }));
      await tick();
      const blink = Uint8ClampedArray.from(
        r.render({ mouth: MOUTH_SHAPES.A, motion: { ...REST_MOTION, blink: 1 } }),
      );
      expect(closed.length).toBe(512 * 512 * 4);
      expect(regionDiff(closed, open, 512, 206, 255, 100, 70)).toBeGreaterThan(10);
      expect(regionDiff(closed, open, 512, 150, 150, 212, 60)).toBeLessThan(1); // eyes untouched by the mouth
      expect(regionDiff(closed, blink, 512, 150, 170, 212, 50)).toBeGreaterThan(5);
      expect(regionDiff(closed, blink, 512, 206, 255, 100, 70)).toBeLessThan(1);
      const wide = createRenderer(manifest, { width: 1280, height: 720 });
      expect(wide.render({ mouth: MOUTH_SHAPES.X, motion: REST_MOTION }).length).toBe(1280 * 720 * 4);
      r.close();
      wide.close();
    });
  }
});

describe('animator', () => {
  it('blinks every 2–6 s, stays within small bounds, and is deterministic for a seed', () => {
    const a = createAnimator({ seed: 7 });
    const b = createAnimator({ seed: 7 });
    let blinks = 0;
    let wasClosed = false;
    for (let t = 0; t <= 20_000; t += 40) {
      const m = a.next({ tMs: t, speaking: false, emphasis: 0 });
      expect(b.next({ tMs: t, speaking: false, emphasis: 0 })).toEqual(m);
      const closed = m.blink > 0.5;
      if (closed && !wasClosed) blinks++;
      wasClosed = closed;
      expect(Math.abs(m.headX)).toBeLessThan(6);
      expect(Math.abs(m.tilt)).toBeLessThan(0.06);
      expect(m.breath).toBeGreaterThanOrEqual(0);
      expect(m.breath).toBeLessThanOrEqual(1);
    }
    expect(blinks).toBeGreaterThanOrEqual(3);
    expect(blinks).toBeLessThanOrEqual(12);
  });

  it('raises the brows on emphasis while speaking', () => {
    const a = createAnimator({ seed: 1 });
    let brow = 0;
    for (let t = 0; t < 1000; t += 40) brow = a.next({ tMs: t, speaking: true, emphasis: 1 }).brow;
    expect(brow).toBeGreaterThan(0.5);
  });
});

describe('renderer caches', () => {
  it('the cached layers and head sprites give the same picture as drawing every part directly', async () => {
    for (const id of ['amara', 'jonas', 'mei']) {
      const manifest = vectorManifest(loadAvatarPack(join(BUILTIN_AVATARS_DIR, id)).manifest);
      // a pose on the cache's grid: whole-pixel head offsets, a tilt step, a whole-pixel breath
      const motion = { ...REST_MOTION, tilt: 0.04, headX: 3, headY: -2, breath: 1 / 3, blink: 0.4 };
      const r = createRenderer(manifest, { width: 512, height: 512 });
      const cached = Uint8ClampedArray.from(r.render({ mouth: MOUTH_SHAPES.D, motion }));
      r.close();
      await tick();
      const c = createCanvas(512, 512);
      const ctx = c.getContext('2d');
      const g = geometry(manifest);
      drawBackground(ctx, manifest, 512, 512);
      ctx.translate(0, -1); // breath 1/3 of 3 px
      drawBody(ctx, manifest, g);
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      drawHead(ctx, manifest, g, MOUTH_SHAPES.D, motion);
      const direct = ctx.getImageData(0, 0, 512, 512).data;
      let diff = 0;
      for (let i = 0; i < direct.length; i++) diff += Math.abs(direct[i]! - cached[i]!);
      expect(diff / direct.length, id).toBeLessThan(0.5); // anti-aliasing differences only
      expect(regionDiff(cached, direct, 512, 206, 255, 100, 70)).toBeLessThan(2); // the mouth itself
    }
  });

  it('renderRegion: the regions laid over the first frame give each frame render() gives', async () => {
    const manifest = vectorManifest(loadAvatarPack(join(BUILTIN_AVATARS_DIR, 'jonas')).manifest);
    const size = { width: 320, height: 240 };
    const byRegion = createRenderer(manifest, size);
    const whole = createRenderer(manifest, size);
    const anim = createAnimator({ seed: 3 });
    const shapes = Object.values(MOUTH_SHAPES);
    const kept = new Uint8ClampedArray(size.width * size.height * 4);
    let repeats = 0;
    let parts = 0;
    for (let n = 0; n < 60; n++) {
      const state = {
        // the mouth holds each shape for 3 frames, then rests for 20: a still face repeats
        mouth: n < 40 ? shapes[Math.floor(n / 3) % shapes.length]! : MOUTH_SHAPES.X,
        motion: anim.next({ tMs: n * 40, speaking: n < 40, emphasis: 0.2 }),
      };
      const changed = byRegion.renderRegion!(state);
      if (!changed) repeats++;
      else {
        const { region, rgba } = changed;
        if (region.width < size.width) parts++;
        for (let y = 0; y < region.height; y++)
          kept.set(
            rgba.subarray(y * region.width * 4, (y + 1) * region.width * 4),
            ((region.y + y) * size.width + region.x) * 4,
          );
      }
      const expected = whole.render(state);
      // a frame not drawn again differs from the last drawn by less than a pixel can show
      // (@mouthpiece/draw's vector-region.ts); one drawn is exactly the whole frame
      if (changed) expect(Buffer.from(kept).equals(Buffer.from(expected)), `frame ${n}`).toBe(true);
      await tick();
    }
    expect(parts, 'frames redrawn in part').toBeGreaterThan(20);
    expect(repeats, 'a still face is not drawn again').toBeGreaterThan(0);
    byRegion.close();
    whole.close();
  });
});
