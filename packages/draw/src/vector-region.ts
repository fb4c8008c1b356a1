/**
 * What a vector frame changes over the frame before it (VectorDrawer.update in vector-renderer.ts),
 * so that a renderer redraws, reads back and converts only that region. A frame's pixels are
 * decided by its drawn pose: the body's whole-pixel rise, the head's tilt step and whole-pixel
 * offset, and the features (mouth, blink, brows, gaze). When only the features move, the region is
 * the box the features can reach at the head's pose; when the head moves, the union of the head's
 * boxes at both poses; when the body rises, the whole frame.
 */
import type { MouthParams } from './face.js';
import type { Rect } from './sprite-renderer.js';

/** A frame's pose in the drawing's own whole-pixel and tilt steps, and its features as given. */
export interface DrawnPose {
  rise: number;
  step: number;
  dx: number;
  dy: number;
  mouth: MouthParams;
  blink: number;
  brow: number;
  gazeX: number;
  gazeY: number;
}

/**
 * A feature value within this of the one last drawn is not drawn again. At 512² it moves the
 * drawing by at most 0.03 output pixel (the mouth's opening: 30 design pixels for 1), which changes
 * no pixel by more than a few levels at an edge: nothing visible. Being measured from the value
 * last drawn, a slow drift is drawn as soon as it adds up to more.
 */
export const FEATURE_EPSILON = 1e-3;

/** Whether two mouths draw the same (every parameter within FEATURE_EPSILON). */
export function sameMouth(m: MouthParams, n: MouthParams): boolean {
  const near = (x: number, y: number): boolean => Math.abs(x - y) < FEATURE_EPSILON;
  return (
    near(m.open, n.open) &&
    near(m.width, n.width) &&
    near(m.round, n.round) &&
    near(m.teeth, n.teeth) &&
    near(m.lipBite, n.lipBite) &&
    near(m.tongue, n.tongue)
  );
}

/** The pose of the features (their values) as far as a frame can show them. */
export function sameFeatures(a: DrawnPose, b: DrawnPose): boolean {
  const near = (x: number, y: number): boolean => Math.abs(x - y) < FEATURE_EPSILON;
  return (
    near(a.blink, b.blink) &&
    near(a.brow, b.brow) &&
    near(a.gazeX, b.gazeX) &&
    near(a.gazeY, b.gazeY) &&
    sameMouth(a.mouth, b.mouth)
  );
}

/** Whether the features are inside the ranges the features box was measured over. */
export function featuresInRange({ mouth, blink, brow, gazeX, gazeY }: DrawnPose): boolean {
  const unit = (v: number): boolean => v >= 0 && v <= 1;
  return (
    unit(mouth.open) &&
    unit(mouth.width) &&
    unit(mouth.round) &&
    unit(mouth.teeth) &&
    unit(mouth.lipBite) &&
    unit(mouth.tongue) &&
    unit(blink) &&
    unit(brow) &&
    Math.abs(gazeX) <= 1 &&
    Math.abs(gazeY) <= 1
  );
}

/** The bounding box of two boxes. */
export function union(a: Rect, b: Rect): Rect {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return {
    x,
    y,
    width: Math.max(a.x + a.width, b.x + b.width) - x,
    height: Math.max(a.y + a.height, b.y + b.height) - y,
  };
}

/** A box moved by whole pixels. */
export function moved(r: Rect, dx: number, dy: number): Rect {
  return { x: r.x + dx, y: r.y + dy, width: r.width, height: r.height };
}

/** The bounding box of a box turned by `angle` about a pivot (all in output pixels), grown by a pixel. */
export function turned(r: Rect, angle: number, px: number, py: number): Rect {
  if (angle === 0) return r;
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const [x, y] of [
    [r.x, r.y],
    [r.x + r.width, r.y],
    [r.x, r.y + r.height],
    [r.x + r.width, r.y + r.height],
  ] as const) {
    const tx = px + (x - px) * cos - (y - py) * sin;
    const ty = py + (x - px) * sin + (y - py) * cos;
    x0 = Math.min(x0, tx);
    y0 = Math.min(y0, ty);
    x1 = Math.max(x1, tx);
    y1 = Math.max(y1, ty);
  }
  const x = Math.floor(x0) - 1;
  const y = Math.floor(y0) - 1;
  return { x, y, width: Math.ceil(x1) + 1 - x, height: Math.ceil(y1) + 1 - y };
}

/**
 * The box on even pixel boundaries (so that each 2×2 block of I420's chroma lies wholly inside or
 * outside it) and inside the frame; undefined when nothing of it is inside.
 */
export function evenClamped(r: Rect, width: number, height: number): Rect | undefined {
  const x0 = Math.max(0, Math.floor(r.x / 2) * 2);
  const y0 = Math.max(0, Math.floor(r.y / 2) * 2);
  const x1 = Math.min(width, Math.ceil((r.x + r.width) / 2) * 2);
  const y1 = Math.min(height, Math.ceil((r.y + r.height) / 2) * 2);
  if (x1 <= x0 || y1 <= y0) return undefined;
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

/** Mouth parameters at the corners of their ranges that reach farthest (the features box's samples). */
export const EXTREME_MOUTHS: MouthParams[] = [0, 1].flatMap((open) =>
  [0, 1].flatMap((width) => [0, 1].map((round) => ({ open, width, round, teeth: 1, lipBite: 0, tongue: 1 }))),
);
