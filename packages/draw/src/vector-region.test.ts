import { createCanvas, type Canvas } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import type { FaceMotion, FacePose, MouthParams } from './face.js';
import { MOUTH_SHAPES } from './mouth-shapes.js';
import { testLook } from './testing/look.js';
import { createVectorCache, TILT_STEP } from './vector-renderer.js';
import { evenClamped, turned } from './vector-region.js';

const LOOK = testLook('region-look', {
  beard: { style: 'full', color: '#2a1b10' },
  accessories: { glasses: true, earrings: true },
});
const REST: FaceMotion = { blink: 0, headX: 0, headY: 0, tilt: 0, breath: 0, brow: 0, gazeX: 0, gazeY: 0 };
const SIZE = { width: 256, height: 256 };
const SHAPES: MouthParams[] = Object.values(MOUTH_SHAPES);

const pixels = (c: Canvas): Buffer =>
  Buffer.from(c.getContext('2d').getImageData(0, 0, c.width, c.height).data);

/** A talking, moving face: the mouth through its shapes, the head swaying, a blink, a breath. */
function poses(n: number): FacePose[] {
  return Array.from({ length: n }, (_, i) => ({
    mouth: { ...SHAPES[Math.floor(i / 2) % SHAPES.length]!, open: SHAPES[i % SHAPES.length]!.open },
    motion: {
      blink: i % 11 === 5 ? 1 : i % 11 === 6 ? 0.5 : 0,
      headX: 3 * Math.sin(i / 5),
      headY: 2 * Math.cos(i / 7),
      tilt: 0.03 * Math.sin(i / 6),
      breath: i < 20 ? 0 : 1,
      brow: (i % 9) / 9,
      gazeX: 0.4 * Math.sin(i / 3),
      gazeY: 0.2 * Math.cos(i / 4),
    },
  }));
}

describe("a vector drawer's update: only what changed is drawn again", () => {
  it('gives, frame after frame, exactly the pixels of the whole frame drawn anew', () => {
    const cache = createVectorCache({ canvas: createCanvas });
    const d = cache.open(LOOK, SIZE);
    const kept = createCanvas(SIZE.width, SIZE.height);
    const ctx = kept.getContext('2d');
    let partial = 0;
    for (const [i, pose] of poses(40).entries()) {
      const region = d.update(ctx, pose);
      if (region && region.width * region.height < SIZE.width * SIZE.height) partial++;
      const fresh = createCanvas(SIZE.width, SIZE.height);
      d.draw(fresh.getContext('2d'), pose);
      expect(pixels(kept).equals(pixels(fresh)), `frame ${i}`).toBe(true);
      d.update(ctx, pose); // (draw() into another context moved its idea of the last frame: back in step)
    }
    expect(partial, 'most frames redraw a part').toBeGreaterThan(20);
    d.close();
  });

  it('a moving mouth redraws a box around the features; the same face, nothing; a breath, everything', () => {
    const d = createVectorCache({ canvas: createCanvas }).open(LOOK, SIZE);
    const ctx = createCanvas(SIZE.width, SIZE.height).getContext('2d');
    const first = d.update(ctx, { mouth: MOUTH_SHAPES.X, motion: REST });
    expect(first).toEqual({ x: 0, y: 0, width: SIZE.width, height: SIZE.height });
    const talk = d.update(ctx, { mouth: MOUTH_SHAPES.D, motion: REST })!;
    expect(talk.width * talk.height).toBeLessThan((SIZE.width * SIZE.height) / 4);
    // the mouth (design y ≈ 208 + 0.6 × 120, at half scale ≈ 140) is inside it
    expect(talk.y).toBeLessThan(140);
    expect(talk.y + talk.height).toBeGreaterThan(140);
    for (const v of [talk.x, talk.y, talk.width, talk.height]) expect(v % 2).toBe(0);
    expect(d.update(ctx, { mouth: MOUTH_SHAPES.D, motion: REST }), 'the same face').toBeNull();
    const drift = { ...REST, gazeX: 0.0004, brow: 0.0004 };
    expect(d.update(ctx, { mouth: MOUTH_SHAPES.D, motion: drift }), 'a drift no pixel shows').toBeNull();
    expect(d.update(ctx, { mouth: MOUTH_SHAPES.D, motion: { ...REST, gazeX: 0.3 } })).not.toBeNull();
    const nod = d.update(ctx, {
      mouth: MOUTH_SHAPES.D,
      motion: { ...REST, gazeX: 0.3, tilt: 4 * TILT_STEP },
    })!;
    expect(nod.width * nod.height, 'a head moving: more than the features').toBeGreaterThan(
      talk.width * talk.height,
    );
    const breath = d.update(ctx, { mouth: MOUTH_SHAPES.D, motion: { ...REST, gazeX: 0.3, breath: 1 } });
    expect(breath).toEqual({ x: 0, y: 0, width: SIZE.width, height: SIZE.height });
    d.close();
  });

  it('turned boxes hold their corners; regions keep to even pixels inside the frame', () => {
    const box = turned({ x: 10, y: 10, width: 20, height: 10 }, 0.1, 0, 0);
    for (const [x, y] of [
      [10, 10],
      [30, 20],
    ] as const) {
      const tx = x * Math.cos(0.1) - y * Math.sin(0.1);
      const ty = x * Math.sin(0.1) + y * Math.cos(0.1);
      expect(tx).toBeGreaterThan(box.x);
      expect(tx).toBeLessThan(box.x + box.width);
      expect(ty).toBeGreaterThan(box.y);
      expect(ty).toBeLessThan(box.y + box.height);
    }
    expect(evenClamped({ x: -3, y: 5, width: 10, height: 300 }, 256, 256)).toEqual({
      x: 0,
      y: 4,
      width: 8,
      height: 252,
    });
    expect(evenClamped({ x: 300, y: 5, width: 10, height: 10 }, 256, 256)).toBeUndefined();
  });
});
