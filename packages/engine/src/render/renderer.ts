/**
 * The renderer interface (so a GPU renderer can be added later) and its Skia implementation.
 * Everything that never changes is rasterised once per avatar and size and shared by every
 * session of the process: the background with the body at each breathing offset, and the head
 * under and over the features as two sprites per tilt step. Each frame then blits three images
 * at whole-pixel positions and draws only the eyes, brows and mouth as vectors. render() returns RGBA. Never call it many times in one
 * synchronous loop: Skia's read-back buffers are freed only when the event loop turns (docs/design.md §3.5).
 */
import { createCanvas, type Canvas, type SKRSContext2D } from '@napi-rs/canvas';
import type { AnimationVideoPick } from '@mouthpiece/protocol';
import type { AvatarManifest } from '../avatar/manifest.js';
import { REST_MOTION, type FaceState } from '../face-state.js';
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

export interface Renderer {
  readonly width: number;
  readonly height: number;
  render(state: FaceState): Uint8ClampedArray;
  /**
   * The frame as I420 (Y, then U, then V) written into `out` (width × height × 3/2 bytes), for a
   * renderer whose pixels already are I420 (video avatars): the session then skips RGBA → I420.
   * One call is one output frame, like render().
   */
  renderI420?(state: FaceState, out: Uint8Array): void;
  /**
   * For a viewer that draws the avatar itself (render: 'client'): what a video avatar's frame shows
   * (its base frame and mouth-library crops), chosen as renderI420 would and moving the renderer's
   * clock on by one frame, without drawing. Absent: the face state alone says it (vector, photo,
   * sprites).
   */
  pick?(state: FaceState): AnimationVideoPick;
  close(): void;
}

const DESIGN = 512;
/** The body rises up to this many design pixels when breathing in. */
const BREATH_PX = 3;
/**
 * Head tilt is drawn in steps of this many radians (≈ 1 output pixel at the crown at 512×512) and
 * head and body move in whole output pixels: each pose is a cached sprite blitted without
 * resampling, and between steps most of the frame is unchanged, which VP8 encodes for almost free.
 */
const TILT_STEP = 0.005;

interface Sprite {
  canvas: Canvas;
  /** Its top-left corner in output pixels, for a head at rest. */
  x: number;
  y: number;
}

interface Layers {
  g: FaceGeometry;
  scale: number;
  offsetX: number;
  offsetY: number;
  /** Background + body at each whole-pixel breathing offset, made on first use. */
  bodies: Map<number, Canvas>;
  /** Head under and over the features at each tilt step, made on first use. */
  heads: Map<number, { under: Sprite | undefined; over: Sprite | undefined }>;
  /** A flat colour replacing the manifest's background gradient (visualConfig.background). */
  background: string | undefined;
  users: number;
}

const shared = new Map<string, Layers>();

/** Rasterises head-local drawing at output resolution and crops it to what was drawn. */
function sprite(width: number, height: number, l: Layers, tilt: number, draw: (ctx: SKRSContext2D) => void) {
  const full = createCanvas(width, height);
  const c = full.getContext('2d');
  c.setTransform(l.scale, 0, 0, l.scale, l.offsetX, l.offsetY);
  headTransform(c, l.g, { ...REST_MOTION, tilt });
  draw(c);
  const px = full.data(); // premultiplied: a pixel is drawn iff its word is non-zero
  const words = new Uint32Array(px.buffer, px.byteOffset, px.length >> 2);
  let x0 = width;
  let y0 = height;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < height; y++)
    for (let x = 0, i = y * width; x < width; x++, i++)
      if (words[i] !== 0) {
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        y1 = y;
      }
  if (x1 < 0) return undefined;
  const w = x1 + 1 - x0;
  const h = y1 + 1 - y0;
  const canvas = createCanvas(w, h);
  canvas.getContext('2d').drawImage(full, x0, y0, w, h, 0, 0, w, h);
  return { canvas, x: x0, y: y0 };
}

function layersKey(manifest: AvatarManifest, width: number, height: number, background?: string): string {
  return `${manifest.id}@${width}x${height}${background ? `:${background}` : ''}`;
}

function layersFor(manifest: AvatarManifest, width: number, height: number, background?: string): Layers {
  const key = layersKey(manifest, width, height, background);
  let l = shared.get(key);
  if (!l) {
    const scale = Math.min(width, height) / DESIGN;
    l = {
      g: geometry(manifest),
      scale,
      offsetX: (width - DESIGN * scale) / 2,
      offsetY: height - DESIGN * scale,
      bodies: new Map(),
      heads: new Map(),
      background,
      users: 0,
    };
    shared.set(key, l);
    warm(l, manifest, width, height, key);
  }
  l.users++;
  return l;
}

/** Tilt steps the animator reaches (|tilt| < 0.06 rad), warmed nearest-first. */
const WARM_STEPS = [0, ...Array.from({ length: 12 }, (_, i) => [i + 1, -(i + 1)]).flat()];

/**
 * Rasterises the head poses one per timer turn in the background, so a frame never waits ~10 ms
 * for a pose seen for the first time (a late frame for every session of the process).
 */
function warm(l: Layers, manifest: AvatarManifest, width: number, height: number, key: string): void {
  let i = 0;
  const next = (): void => {
    if (i >= WARM_STEPS.length || shared.get(key) !== l) return;
    headAt(l, manifest, width, height, WARM_STEPS[i++]!);
    setTimeout(next, 15).unref();
  };
  setTimeout(next, 15).unref();
}

function bodyAt(l: Layers, manifest: AvatarManifest, width: number, height: number, rise: number): Canvas {
  let c = l.bodies.get(rise);
  if (!c) {
    c = createCanvas(width, height);
    const b = c.getContext('2d');
    if (l.background) {
      b.fillStyle = l.background;
      b.fillRect(0, 0, width, height);
    } else drawBackground(b, manifest, width, height);
    b.setTransform(l.scale, 0, 0, l.scale, l.offsetX, l.offsetY - rise);
    drawBody(b, manifest, l.g);
    l.bodies.set(rise, c);
  }
  return c;
}

function headAt(l: Layers, manifest: AvatarManifest, width: number, height: number, step: number) {
  let h = l.heads.get(step);
  if (!h) {
    const tilt = step * TILT_STEP;
    h = {
      under: sprite(width, height, l, tilt, (c) => drawHeadUnder(c, manifest, l.g)),
      over: sprite(width, height, l, tilt, (c) => drawHeadOver(c, manifest, l.g)),
    };
    l.heads.set(step, h);
  }
  return h;
}

export function createRenderer(
  manifest: AvatarManifest,
  size: { width: number; height: number },
  background?: string,
): Renderer {
  const { width, height } = size;
  const canvas: Canvas = createCanvas(width, height);
  const ctx: SKRSContext2D = canvas.getContext('2d');
  const l = layersFor(manifest, width, height, background);
  const key = layersKey(manifest, width, height, background);
  let closed = false;
  return {
    width,
    height,
    render({ mouth, motion }) {
      if (closed) throw new Error('renderer is closed');
      const rise = Math.round(Math.max(0, Math.min(1, motion.breath)) * BREATH_PX * l.scale);
      const step = Math.round(motion.tilt / TILT_STEP);
      const dx = Math.round(motion.headX * l.scale);
      const dy = Math.round(motion.headY * l.scale);
      const head = headAt(l, manifest, width, height, step);
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.drawImage(bodyAt(l, manifest, width, height, rise), 0, 0);
      if (head.under) ctx.drawImage(head.under.canvas, head.under.x + dx, head.under.y + dy);
      ctx.setTransform(l.scale, 0, 0, l.scale, l.offsetX, l.offsetY);
      headTransform(ctx, l.g, {
        ...motion,
        headX: dx / l.scale,
        headY: dy / l.scale,
        tilt: step * TILT_STEP,
      });
      drawFeatures(ctx, manifest, l.g, mouth, motion);
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      if (head.over) ctx.drawImage(head.over.canvas, head.over.x + dx, head.over.y + dy);
      // the stored pixels, not getImageData(): the frame is opaque, so premultiplied RGBA is
      // plain RGBA, and this skips an unpremultiplying copy
      const px = canvas.data();
      return new Uint8ClampedArray(px.buffer, px.byteOffset, px.length);
    },
    close() {
      if (closed) return;
      closed = true;
      if (--l.users === 0) shared.delete(key);
    },
  };
}
