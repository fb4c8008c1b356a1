/**
 * A photo avatar's tilt pictures: the portrait rotated by a step's tilt about the pivot below the
 * chin, its surround (the portrait with its edge columns and rows stretched outwards) filling the
 * margin. Made on the media thread when the animator reaches a step not made yet
 * (photo-renderer.ts), and ahead on a worker thread (photo-tilt-worker.ts): ≈ 10–35 ms each.
 */
import { createCanvas, type Canvas, type Image } from '@napi-rs/canvas';
import { PHOTO_MARGIN as MARGIN, PHOTO_TILT_STEP as TILT_STEP, type Vec } from '@mouthpiece/draw';

/** Where the portrait lies in the output: its scale, its top-left corner, the tilt pivot. */
export interface TiltPlace {
  scale: number;
  left: number;
  top: number;
  pivot: Vec;
}

/** The portrait with its edge columns stretched at its sides, and edge rows above and below. */
export function surroundOf(image: Image): Canvas {
  const iw = image.width;
  const ih = image.height;
  const e = ih / 2;
  const c = createCanvas(iw * 3, ih * 2);
  const ctx = c.getContext('2d');
  ctx.drawImage(image, iw, e);
  ctx.drawImage(image, 0, 0, 1, ih, 0, e, iw, ih);
  ctx.drawImage(image, iw - 1, 0, 1, ih, iw * 2, e, iw, ih);
  ctx.drawImage(c, 0, e, iw * 3, 1, 0, 0, iw * 3, e);
  ctx.drawImage(c, 0, e + ih - 1, iw * 3, 1, 0, e + ih, iw * 3, e);
  return c;
}

/** The tilt picture of `step`: RGBA, the output size plus MARGIN on every side. */
export function tiltPicture(
  surround: Canvas,
  image: { width: number; height: number },
  place: TiltPlace,
  size: { width: number; height: number },
  step: number,
): { px: Uint8ClampedArray; width: number; height: number } {
  const w = size.width + 2 * MARGIN;
  const h = size.height + 2 * MARGIN;
  const canvas = createCanvas(w, h);
  const ctx = canvas.getContext('2d');
  ctx.translate(MARGIN + place.pivot[0], MARGIN + place.pivot[1]);
  ctx.rotate(step * TILT_STEP);
  ctx.translate(-place.pivot[0] + place.left, -place.pivot[1] + place.top);
  ctx.scale(place.scale, place.scale);
  ctx.drawImage(surround, -image.width, -image.height / 2);
  return { px: ctx.getImageData(0, 0, w, h).data, width: w, height: h };
}
