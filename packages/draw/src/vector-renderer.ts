/**
 * The cached vector avatar drawing, on any CanvasFactory. Everything that never changes is
 * rasterised once per avatar and size and shared by every drawer of the cache: the background with
 * the body at each breathing offset, and the head under and over the features as two sprites per
 * tilt step. Each frame then blits three images at whole-pixel positions and draws only the eyes,
 * brows and mouth as vectors (docs/design.md §3.5, §12).
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
  /** A flat colour replacing the look's background gradient. */
  background: string | undefined;
  users: number;
}

/** Draws one frame of a vector avatar into a context of the drawer's size. */
export interface VectorDrawer {
  readonly width: number;
  readonly height: number;
  draw(ctx: Context2D, pose: FacePose): void;
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

  /** Rasterises the head poses one per deferred call, so a frame never waits for a new pose. */
  const warm = (l: Layers, key: string, defer: Defer): void => {
    let i = 0;
    const next = (): void => {
      if (i >= WARM_STEPS.length || shared.get(key) !== l) return;
      headAt(l, WARM_STEPS[i++]!);
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
        if (opts.defer) warm(l, key, opts.defer);
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
    background,
    users: 0,
  };
}

function drawer(l: Layers, release: () => void): VectorDrawer {
  let closed = false;
  return {
    width: l.width,
    height: l.height,
    draw(ctx, { mouth, motion }) {
      if (closed) throw new DrawError('vector drawer is closed');
      const rise = Math.round(Math.max(0, Math.min(1, motion.breath)) * BREATH_PX * l.scale);
      const step = Math.round(motion.tilt / TILT_STEP);
      const dx = Math.round(motion.headX * l.scale);
      const dy = Math.round(motion.headY * l.scale);
      const head = headAt(l, step);
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.drawImage(bodyAt(l, rise), 0, 0);
      if (head.under) ctx.drawImage(head.under.canvas, head.under.x + dx, head.under.y + dy);
      ctx.setTransform(l.scale, 0, 0, l.scale, l.offsetX, l.offsetY);
      headTransform(ctx, l.g, {
        ...motion,
        headX: dx / l.scale,
        headY: dy / l.scale,
        tilt: step * TILT_STEP,
      });
      drawFeatures(ctx, l.look, l.g, mouth, motion);
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      if (head.over) ctx.drawImage(head.over.canvas, head.over.x + dx, head.over.y + dy);
    },
    close() {
      if (closed) return;
      closed = true;
      release();
    },
  };
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
    const tilt = step * TILT_STEP;
    h = {
      under: sprite(l, tilt, (c) => drawHeadUnder(c, l.look, l.g)),
      over: sprite(l, tilt, (c) => drawHeadOver(c, l.look, l.g)),
    };
    l.heads.set(step, h);
  }
  return h;
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
