/**
 * The cached vector avatar drawing, on any CanvasFactory. Everything that never changes is
 * rasterised once per avatar and size and shared by every drawer of the cache: the background with
 * the body at each breathing offset, and the head under and over the features as two sprites per
 * tilt step. Each frame then blits three images at whole-pixel positions and draws only the eyes,
 * brows and mouth as vectors (docs/design.md §3.5, §12). A drawer that owns its canvas may redraw
 * only the region that changed since its previous frame (update(), vector-region.ts).
 */
import {
  context2d,
  DrawError,
  type CanvasFactory,
  type CanvasLike,
  type Context2D,
  type Defer,
} from './canvas.js';
import type { FacePose, FaceMotion, VectorLook } from './face.js';
import type { Rect } from './sprite-renderer.js';
import {
  EXTREME_MOUTHS,
  evenClamped,
  featuresInRange,
  moved,
  sameFeatures,
  turned,
  union,
  type DrawnPose,
} from './vector-region.js';
import {
  drawBackground,
  drawBody,
  drawFeatures,
  drawHeadOver,
  drawHeadUnder,
  geometry,
  headTransform,
  type FaceGeometry,
} from './vector-face.js';

const DESIGN = 512;
/** The body rises up to this many design pixels when breathing in. */
const BREATH_PX = 3;
/**
 * Head tilt is drawn in steps of this many radians (≈ 1 output pixel at the crown at 512×512) and
 * head and body move in whole output pixels: each pose is a cached sprite blitted without
 * resampling, and between steps most of the frame is unchanged, which VP8 encodes for almost free.
 */
export const TILT_STEP = 0.005;

const REST: FaceMotion = { blink: 0, headX: 0, headY: 0, tilt: 0, breath: 0, brow: 0, gazeX: 0, gazeY: 0 };

interface Sprite {
  canvas: CanvasLike;
  /** Its top-left corner in output pixels, for a head at rest. */
  x: number;
  y: number;
}

interface Layers {
  make: CanvasFactory;
  look: VectorLook;
  width: number;
  height: number;
  g: FaceGeometry;
  scale: number;
  offsetX: number;
  offsetY: number;
  /** Background + body at each whole-pixel breathing offset, made on first use. */
  bodies: Map<number, CanvasLike>;
  /** Head under and over the features at each tilt step, made on first use. */
  heads: Map<number, { under: Sprite | undefined; over: Sprite | undefined }>;
  /** Heads' under sprites made ahead of their over sprites (warming makes each half in its own piece). */
  unders: Map<number, Sprite | undefined>;
  /** A flat colour replacing the look's background gradient. */
  background: string | undefined;
  /** Where the features can reach with the head at rest (output pixels), made on first use. */
  features: Rect | undefined;
  users: number;
}

/** Draws one frame of a vector avatar into a context of the drawer's size. */
export interface VectorDrawer {
  readonly width: number;
  readonly height: number;
  draw(ctx: Context2D, pose: FacePose): void;
  /**
   * Draws the frame of `pose` over the frame this drawer drew last into `ctx` (by draw or update),
   * redrawing only the region where they differ, and returns that region (even pixel boundaries);
   * null when they do not differ (`ctx` is left as it is). `ctx` must hold exactly that last frame:
   * a context of the drawer's own that nothing else draws into. The first call draws it all.
   */
  update(ctx: Context2D, pose: FacePose): Rect | null;
  /** Releases its share of the cached layers; idempotent. */
  close(): void;
}

export interface VectorCache {
  open(look: VectorLook, size: { width: number; height: number }, background?: string): VectorDrawer;
}

export interface VectorCacheOptions {
  canvas: CanvasFactory;
  /** Warms the head poses one per call in the background; without it poses are drawn on first use. */
  defer?: Defer | undefined;
}

/** Tilt steps the animator reaches (|tilt| < 0.06 rad), warmed nearest-first. */
const WARM_STEPS = [0, ...Array.from({ length: 12 }, (_, i) => [i + 1, -(i + 1)]).flat()];

export function createVectorCache(opts: VectorCacheOptions): VectorCache {
  const shared = new Map<string, Layers>();

  /**
   * Rasterises the head poses in the background, half a pose (its under or its over sprite, each a
   * frame-sized drawing and read-back) per deferred call, so a frame never waits for a new pose and
   * no call holds the thread long.
   */
  const warm = (l: Layers, key: string, defer: Defer): void => {
    let i = 0;
    const next = (): void => {
      if (i >= WARM_STEPS.length * 2 || shared.get(key) !== l) return;
      const step = WARM_STEPS[i >> 1]!;
      if (i++ % 2 === 0) headUnder(l, step);
      else headAt(l, step);
      defer(next);
    };
    defer(next);
  };

  return {
    open(look, { width, height }, background) {
      const key = `${look.id}@${width}x${height}${background ? `:${background}` : ''}`;
      let l = shared.get(key);
      if (!l) {
        l = newLayers(opts.canvas, look, width, height, background);
        shared.set(key, l);
        if (opts.defer) {
          const layers = l;
          opts.defer(() => featuresBox(layers));
          warm(l, key, opts.defer);
        }
      }
      l.users++;
      const layers = l;
      return drawer(layers, () => {
        if (--layers.users === 0) shared.delete(key);
      });
    },
  };
}

function newLayers(
  make: CanvasFactory,
  look: VectorLook,
  width: number,
  height: number,
  background: string | undefined,
): Layers {
  const scale = Math.min(width, height) / DESIGN;
  return {
    make,
    look,
    width,
    height,
    g: geometry(look),
    scale,
    offsetX: (width - DESIGN * scale) / 2,
    offsetY: height - DESIGN * scale,
    bodies: new Map(),
    heads: new Map(),
    unders: new Map(),
    background,
    features: undefined,
    users: 0,
  };
}

function drawer(l: Layers, release: () => void): VectorDrawer {
  let closed = false;
  /** The pose of the frame last drawn (update() redraws what differs from it). */
  let last: DrawnPose | undefined;
  return {
    width: l.width,
    height: l.height,
    draw(ctx, pose) {
      if (closed) throw new DrawError('vector drawer is closed');
      last = drawnPose(l, pose);
      drawFrame(ctx, l, last, pose);
    },
    update(ctx, pose) {
      if (closed) throw new DrawError('vector drawer is closed');
      const p = drawnPose(l, pose);
      const region = changed(l, last, p);
      if (!region) return null;
      last = p;
      const whole = region.width === l.width && region.height === l.height;
      if (!whole) {
        ctx.save();
        ctx.setTransform(1, 0, 0, 1, 0, 0);
        ctx.beginPath();
        ctx.moveTo(region.x, region.y);
        ctx.lineTo(region.x + region.width, region.y);
        ctx.lineTo(region.x + region.width, region.y + region.height);
        ctx.lineTo(region.x, region.y + region.height);
        ctx.closePath();
        ctx.clip();
      }
      drawFrame(ctx, l, p, pose);
      if (!whole) ctx.restore();
      return region;
    },
    close() {
      if (closed) return;
      closed = true;
      release();
    },
  };
}

function drawnPose(l: Layers, { mouth, motion }: FacePose): DrawnPose {
  return {
    rise: Math.round(Math.max(0, Math.min(1, motion.breath)) * BREATH_PX * l.scale),
    step: Math.round(motion.tilt / TILT_STEP),
    dx: Math.round(motion.headX * l.scale),
    dy: Math.round(motion.headY * l.scale),
    mouth,
    blink: motion.blink,
    brow: motion.brow,
    gazeX: motion.gazeX,
    gazeY: motion.gazeY,
  };
}

/**
 * One frame, its context's state (line caps, styles) saved and restored around it: every frame
 * starts from the same state, so a frame drawn anew and one drawn over its predecessor are alike.
 */
function drawFrame(ctx: Context2D, l: Layers, p: DrawnPose, { mouth, motion }: FacePose): void {
  const { dx, dy, step } = p;
  const head = headAt(l, step);
  ctx.save();
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.drawImage(bodyAt(l, p.rise), 0, 0);
  if (head.under) ctx.drawImage(head.under.canvas, head.under.x + dx, head.under.y + dy);
  ctx.setTransform(l.scale, 0, 0, l.scale, l.offsetX, l.offsetY);
  headTransform(ctx, l.g, { ...motion, headX: dx / l.scale, headY: dy / l.scale, tilt: step * TILT_STEP });
  drawFeatures(ctx, l.look, l.g, mouth, motion);
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  if (head.over) ctx.drawImage(head.over.canvas, head.over.x + dx, head.over.y + dy);
  ctx.restore();
}

/** Where frame `p` differs from frame `was` (undefined: none drawn yet), or null where it does not. */
function changed(l: Layers, was: DrawnPose | undefined, p: DrawnPose): Rect | null {
  const all = { x: 0, y: 0, width: l.width, height: l.height };
  // odd sizes: I420's chroma blocks would straddle the region's edge
  if (!was || was.rise !== p.rise || l.width % 2 !== 0 || l.height % 2 !== 0) return all;
  let box: Rect;
  if (was.step !== p.step || was.dx !== p.dx || was.dy !== p.dy) box = union(headBox(l, was), headBox(l, p));
  else if (sameFeatures(was, p)) return null;
  else box = featuresInRange(p) && featuresInRange(was) ? featuresAt(l, p) : headBox(l, p);
  return evenClamped(box, l.width, l.height) ?? null;
}

/** The box of the head's sprites (which cover the features) at a pose, output pixels. */
function headBox(l: Layers, p: DrawnPose): Rect {
  const { under, over } = headAt(l, p.step);
  const boxes = [under, over].filter((s) => s !== undefined).map((s) => moved(spriteRect(s), p.dx, p.dy));
  if (boxes.length === 0) return { x: 0, y: 0, width: l.width, height: l.height };
  return boxes.reduce(union);
}

function spriteRect(s: Sprite): Rect {
  return { x: s.x, y: s.y, width: s.canvas.width, height: s.canvas.height };
}

/** The features box at a pose: the rest box turned about the neck, moved with the head. */
function featuresAt(l: Layers, p: DrawnPose): Rect {
  const pivotX = l.offsetX + l.g.cx * l.scale;
  const pivotY = l.offsetY + (l.g.cy + l.g.hl) * l.scale;
  return moved(turned(featuresBox(l), p.step * TILT_STEP, pivotX, pivotY), p.dx, p.dy);
}

/**
 * Where the features can reach with the head at rest: every mouth at the corners of its ranges,
 * eyes open and shut, brows raised, gaze at its limits, drawn on one canvas; their drawn box grown
 * by 3 pixels (antialiasing). Made once per look and size (deferred by the cache when it can).
 */
function featuresBox(l: Layers): Rect {
  if (l.features) return l.features;
  const full = l.make(l.width, l.height);
  const c = context2d(full);
  for (const mouth of EXTREME_MOUTHS)
    for (const [blink, gaze] of [
      [0, -1],
      [0, 1],
      [1, 0],
    ] as const) {
      c.setTransform(l.scale, 0, 0, l.scale, l.offsetX, l.offsetY);
      headTransform(c, l.g, REST);
      drawFeatures(c, l.look, l.g, mouth, {
        ...REST,
        blink,
        brow: gaze < 0 ? 0 : 1,
        gazeX: gaze,
        gazeY: gaze,
      });
    }
  const box = drawnBox(c.getImageData(0, 0, l.width, l.height));
  l.features = box
    ? { x: box.x - 3, y: box.y - 3, width: box.w + 6, height: box.h + 6 }
    : { x: 0, y: 0, width: l.width, height: l.height };
  return l.features;
}

/** Rasterises head-local drawing at output resolution and crops it to what was drawn. */
function sprite(l: Layers, tilt: number, draw: (ctx: Context2D) => void): Sprite | undefined {
  const { width, height } = l;
  const full = l.make(width, height);
  const c = context2d(full);
  c.setTransform(l.scale, 0, 0, l.scale, l.offsetX, l.offsetY);
  headTransform(c, l.g, { ...REST, tilt });
  draw(c);
  const box = drawnBox(c.getImageData(0, 0, width, height));
  if (!box) return undefined;
  const canvas = l.make(box.w, box.h);
  context2d(canvas).drawImage(full, box.x, box.y, box.w, box.h, 0, 0, box.w, box.h);
  return { canvas, x: box.x, y: box.y };
}

function headAt(l: Layers, step: number) {
  let h = l.heads.get(step);
  if (!h) {
    h = {
      under: headUnder(l, step),
      over: sprite(l, step * TILT_STEP, (c) => drawHeadOver(c, l.look, l.g)),
    };
    l.heads.set(step, h);
    l.unders.delete(step);
  }
  return h;
}

function headUnder(l: Layers, step: number): Sprite | undefined {
  const made = l.heads.get(step);
  if (made) return made.under;
  if (!l.unders.has(step))
    l.unders.set(
      step,
      sprite(l, step * TILT_STEP, (c) => drawHeadUnder(c, l.look, l.g)),
    );
  return l.unders.get(step);
}

function bodyAt(l: Layers, rise: number): CanvasLike {
  let c = l.bodies.get(rise);
  if (!c) {
    c = l.make(l.width, l.height);
    const b = context2d(c);
    if (l.background) {
      b.fillStyle = l.background;
      b.fillRect(0, 0, l.width, l.height);
    } else drawBackground(b, l.look, l.width, l.height);
    b.setTransform(l.scale, 0, 0, l.scale, l.offsetX, l.offsetY - rise);
    drawBody(b, l.look, l.g);
    l.bodies.set(rise, c);
  }
  return c;
}

/** The bounding box of the pixels with any alpha, or undefined when nothing was drawn. */
function drawnBox(px: { width: number; height: number; data: Uint8ClampedArray }) {
  const { width, height, data } = px;
  let x0 = width;
  let y0 = height;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < height; y++)
    for (let x = 0, i = y * width * 4 + 3; x < width; x++, i += 4)
      if (data[i] !== 0) {
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        y1 = y;
      }
  if (x1 < 0) return undefined;
  return { x: x0, y: y0, w: x1 + 1 - x0, h: y1 + 1 - y0 };
}
