import { describe, expect, it } from 'vitest';
import { MOUTH_SHAPES } from '../mouth-shapes.js';
import {
  PHOTO_MARGIN,
  PHOTO_MAX_STEP,
  PHOTO_TILT_STEP,
  photoFramePose,
  pixelSampler,
} from './photo-layout.js';

const REST = { blink: 0, headX: 0, headY: 0, tilt: 0, breath: 0, brow: 0, gazeX: 0, gazeY: 0 };

describe("a photo frame's placement", () => {
  it('moves the picture by whole output pixels, scaled from 512², within the margin', () => {
    const at512 = photoFramePose(
      { mouth: MOUTH_SHAPES.X, motion: { ...REST, headX: 3.4, headY: -1.6 } },
      512,
      512,
    );
    expect([at512.dx, at512.dy]).toEqual([3, -2]);
    const at1024 = photoFramePose(
      { mouth: MOUTH_SHAPES.X, motion: { ...REST, headX: 3.4, headY: -1.6 } },
      1024,
      1024,
    );
    expect([at1024.dx, at1024.dy]).toEqual([7, -3]);
    const far = photoFramePose(
      { mouth: MOUTH_SHAPES.X, motion: { ...REST, headX: 90, headY: -90 } },
      512,
      512,
    );
    expect([far.dx, far.dy]).toEqual([PHOTO_MARGIN, -PHOTO_MARGIN]);
    // breathing in lifts the picture (2 px at 512²)
    expect(photoFramePose({ mouth: MOUTH_SHAPES.X, motion: { ...REST, breath: 1 } }, 512, 512).dy).toBe(-2);
  });

  it('tilts in steps, up to the last step the animator reaches', () => {
    const p = photoFramePose({ mouth: MOUTH_SHAPES.X, motion: { ...REST, tilt: 0.0126 } }, 512, 512);
    expect(p.step).toBe(3);
    expect(p.angle).toBeCloseTo(3 * PHOTO_TILT_STEP, 12);
    expect(photoFramePose({ mouth: MOUTH_SHAPES.X, motion: { ...REST, tilt: -1 } }, 512, 512).step).toBe(
      -PHOTO_MAX_STEP,
    );
  });

  it('keys equal poses alike and different mouths, blinks or offsets apart', () => {
    const key = (mouth = MOUTH_SHAPES.C, motion = REST) => photoFramePose({ mouth, motion }, 512, 512).key;
    expect(key()).toBe(key());
    expect(key(MOUTH_SHAPES.D)).not.toBe(key());
    expect(key(MOUTH_SHAPES.C, { ...REST, blink: 1 })).not.toBe(key());
    expect(key(MOUTH_SHAPES.C, { ...REST, headX: 2 })).not.toBe(key());
    expect(key({ ...MOUTH_SHAPES.C, tongue: 1 })).not.toBe(key());
  });
});

describe('the portrait sampler', () => {
  it("reads the pixel under a point of the rig's coordinates, nothing outside the portrait", () => {
    const px = new Uint8ClampedArray(2 * 2 * 4);
    px.set([10, 20, 30, 255, 40, 50, 60, 255, 70, 80, 90, 255, 100, 110, 120, 255]);
    const at = pixelSampler({ px, width: 2, height: 2 }, 5, 0);
    expect(at(6.5, 1.5)).toEqual([100, 110, 120]);
    expect(at(5.2, 0.4)).toEqual([10, 20, 30]);
    expect(at(4.5, 0.5)).toBeUndefined();
    expect(at(7.5, 0.5)).toBeUndefined();
  });
});
