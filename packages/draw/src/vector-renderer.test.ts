import { createCanvas } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import { context2d, DrawError, type CanvasFactory, type CanvasLike } from './canvas.js';
import type { FaceMotion } from './face.js';
import { MOUTH_SHAPES } from './mouth-shapes.js';
import { testLook } from './testing/look.js';
import { createVectorCache, TILT_STEP } from './vector-renderer.js';

const LOOK = testLook('test-look', {
  beard: { style: 'none', color: '#000000' },
  accessories: { glasses: true, earrings: false },
});
const REST: FaceMotion = { blink: 0, headX: 0, headY: 0, tilt: 0, breath: 0, brow: 0, gazeX: 0, gazeY: 0 };
const SIZE = { width: 256, height: 256 };

/** Skia canvases, counted. */
function counting() {
  const made = { count: 0 };
  const canvas: CanvasFactory = (w, h) => {
    made.count++;
    return createCanvas(w, h);
  };
  return { made, canvas };
}

const same = (a: Uint8ClampedArray, b: Uint8ClampedArray): boolean =>
  Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));

function frame(draw: (ctx: ReturnType<typeof context2d>) => void): Uint8ClampedArray {
  const c = createCanvas(SIZE.width, SIZE.height);
  draw(c.getContext('2d'));
  return c.getContext('2d').getImageData(0, 0, SIZE.width, SIZE.height).data;
}

describe('the vector drawer on a CanvasFactory', () => {
  it('draws the same pixels for the same pose, and the mouth and blink change them', () => {
    const { canvas } = counting();
    const d = createVectorCache({ canvas }).open(LOOK, SIZE);
    const a = frame((ctx) => d.draw(ctx, { mouth: MOUTH_SHAPES.A, motion: REST }));
    const again = frame((ctx) => d.draw(ctx, { mouth: MOUTH_SHAPES.A, motion: REST }));
    const open = frame((ctx) => d.draw(ctx, { mouth: MOUTH_SHAPES.D, motion: REST }));
    const blink = frame((ctx) => d.draw(ctx, { mouth: MOUTH_SHAPES.A, motion: { ...REST, blink: 1 } }));
    expect(same(again, a)).toBe(true);
    expect(same(open, a)).toBe(false);
    expect(same(blink, a)).toBe(false);
    d.close();
  });

  it('drawers of one look and size share their layers until the last one closes', () => {
    const { made, canvas } = counting();
    const cache = createVectorCache({ canvas });
    const pose = { mouth: MOUTH_SHAPES.X, motion: REST };
    const first = cache.open(LOOK, SIZE);
    frame((ctx) => first.draw(ctx, pose));
    const layers = made.count;
    expect(layers).toBeGreaterThan(0);
    const second = cache.open(LOOK, SIZE);
    frame((ctx) => second.draw(ctx, pose));
    expect(made.count, 'the second drawer reuses the layers').toBe(layers);
    first.close();
    first.close(); // idempotent: the second still holds them
    const third = cache.open(LOOK, SIZE);
    frame((ctx) => third.draw(ctx, pose));
    expect(made.count).toBe(layers);
    second.close();
    third.close();
    const fresh = cache.open(LOOK, SIZE);
    frame((ctx) => fresh.draw(ctx, pose));
    expect(made.count, 'released layers are drawn again').toBe(2 * layers);
    fresh.close();
    expect(() => fresh.draw(context2d(createCanvas(1, 1)), pose)).toThrow(DrawError);
  });

  it('warms the head poses through `defer`, so a tilted frame then makes no new layer', () => {
    const { made, canvas } = counting();
    const queue: Array<() => void> = [];
    const d = createVectorCache({ canvas, defer: (fn) => queue.push(fn) }).open(LOOK, SIZE);
    while (queue.length) queue.shift()!();
    const warmed = made.count;
    expect(warmed).toBeGreaterThan(25 * 2); // 25 tilt steps × (under + over) sprites, each with a full-size scratch
    frame((ctx) => d.draw(ctx, { mouth: MOUTH_SHAPES.A, motion: { ...REST, tilt: -7 * TILT_STEP } }));
    expect(made.count - warmed, 'only the body layer').toBe(1);
    d.close();
  });

  it('a canvas with no 2d context is a DrawError', () => {
    const webgl: CanvasLike = { width: 1, height: 1, getContext: () => null };
    expect(() => context2d(webgl)).toThrow(DrawError);
  });
});
