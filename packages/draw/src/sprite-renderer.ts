/**
 * Sprite avatar drawing (`render: "sprites"`), on any CanvasFactory: the base picture over a flat
 * background, the mouth pictures of the two shapes nearest the frame's mouth parameters
 * cross-faded at the mouth anchor, and the blink pictures faded in at theirs. Head motion and
 * breathing move the whole picture by whole pixels. Pictures are scaled once per avatar, size and
 * background and shared by the drawers of the cache; each frame is composed in RGBA by hand, so
 * every canvas gives the same pixels. docs/avatars.md describes the pack.
 */
import { context2d, DrawError, type CanvasFactory, type ImageLike } from './canvas.js';
import type { FacePose, MouthParams, Viseme } from './face.js';
import { MOUTH_SHAPES, VISEMES } from './mouth-shapes.js';

const MARGIN = 16;
const BREATH_PX = 2;

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A sprite pack manifest's fields the drawing reads. */
export interface SpriteLook {
  id: string;
  size: { width: number; height: number };
  background?: string | undefined;
  mouth: { anchor: Rect };
  blink?: { anchor: Rect } | undefined;
}

/** The pack's pictures, decoded (Image in the engine, ImageBitmap in the browser). */
export interface SpritePictures {
  base: ImageLike;
  mouths: Record<Viseme, ImageLike>;
  blinks: ImageLike[];
}

interface Layer extends Rect {
  px: Uint8ClampedArray;
}

interface Shared {
  base: { px: Uint8ClampedArray; width: number; height: number };
  mouths: Record<Viseme, Layer>;
  blinks: Layer[];
  users: number;
}

/** Composes one RGBA frame per call (the same buffer each time). */
export interface SpriteDrawer {
  readonly width: number;
  readonly height: number;
  render(pose: FacePose): Uint8ClampedArray;
  close(): void;
}

export interface SpriteCache {
  /**
   * A drawer for the look at a size. `key` names the pack (its folder, its URL); `pictures` is
   * called only when nothing of that pack, size and background is cached yet.
   */
  open(
    key: string,
    look: SpriteLook,
    pictures: () => SpritePictures,
    size: { width: number; height: number },
    background?: string,
  ): SpriteDrawer;
}

/** The two mouth shapes nearest the parameters and their cross-fade weights (summing to 1). */
export function nearestShapes(mouth: MouthParams): Array<[Viseme, number]> {
  const d = VISEMES.map((v): [Viseme, number] => {
    const p = MOUTH_SHAPES[v];
    return [
      v,
      Math.hypot(
        mouth.open - p.open,
        mouth.width - p.width,
        mouth.round - p.round,
        mouth.teeth - p.teeth,
        mouth.lipBite - p.lipBite,
        mouth.tongue - p.tongue,
      ),
    ];
  }).sort((a, b) => a[1] - b[1]);
  const [a, b] = [d[0]!, d[1]!];
  if (a[1] < 1e-6) return [[a[0], 1]];
  return [
    [a[0], b[1] / (a[1] + b[1])],
    [b[0], a[1] / (a[1] + b[1])],
  ];
}

export function createSpriteCache(make: CanvasFactory): SpriteCache {
  const shared = new Map<string, Shared>();
  return {
    open(pack, m, pictures, size, background = m.background ?? '#ffffff') {
      const { width, height } = size;
      const key = `${pack}:${m.id}@${width}x${height}:${background}`;
      let s = shared.get(key);
      if (!s) {
        s = scaled(make, m, pictures(), width, height, background);
        shared.set(key, s);
      }
      s.users++;
      const cached = s;
      return drawer(cached, width, height, () => {
        if (--cached.users === 0) shared.delete(key);
      });
    },
  };
}

function drawer(s: Shared, width: number, height: number, release: () => void): SpriteDrawer {
  const out = new Uint8ClampedArray(width * height * 4);
  const motionScale = Math.min(width, height) / 512;
  let closed = false;
  return {
    width,
    height,
    render({ mouth, motion }) {
      if (closed) throw new DrawError('sprite drawer is closed');
      const rise = Math.round(Math.max(0, Math.min(1, motion.breath)) * BREATH_PX * motionScale);
      const dx = Math.max(-MARGIN, Math.min(MARGIN, Math.round(motion.headX * motionScale)));
      const dy = Math.max(-MARGIN, Math.min(MARGIN, Math.round(motion.headY * motionScale) - rise));
      compose(out, width, height, s, mouth, motion.blink, dx, dy);
      return out;
    },
    close() {
      if (closed) return;
      closed = true;
      release();
    },
  };
}

/** The pictures scaled to the output once: the base over the background (with a margin for motion), mouths, blinks. */
function scaled(
  make: CanvasFactory,
  m: SpriteLook,
  pics: SpritePictures,
  width: number,
  height: number,
  background: string,
): Shared {
  const scale = Math.min(width / m.size.width, height / m.size.height);
  const left = (width - m.size.width * scale) / 2;
  const top = (height - m.size.height * scale) / 2;
  const w = width + 2 * MARGIN;
  const h = height + 2 * MARGIN;
  const ctx = context2d(make(w, h));
  ctx.fillStyle = background;
  ctx.fillRect(0, 0, w, h);
  ctx.drawImage(pics.base, MARGIN + left, MARGIN + top, m.size.width * scale, m.size.height * scale);
  const at = (img: ImageLike, rect: Rect) => layer(make, img, rect, scale, left, top);
  const mouths = Object.fromEntries(VISEMES.map((v) => [v, at(pics.mouths[v], m.mouth.anchor)])) as Record<
    Viseme,
    Layer
  >;
  const blinkAnchor = m.blink?.anchor;
  const blinks = blinkAnchor ? pics.blinks.map((img) => at(img, blinkAnchor)) : [];
  return { base: { px: ctx.getImageData(0, 0, w, h).data, width: w, height: h }, mouths, blinks, users: 0 };
}

function layer(
  make: CanvasFactory,
  img: ImageLike,
  rect: Rect,
  scale: number,
  left: number,
  top: number,
): Layer {
  const x = Math.round(left + rect.x * scale);
  const y = Math.round(top + rect.y * scale);
  const width = Math.max(1, Math.round(rect.width * scale));
  const height = Math.max(1, Math.round(rect.height * scale));
  const ctx = context2d(make(width, height));
  ctx.drawImage(img, 0, 0, width, height);
  return { x, y, width, height, px: ctx.getImageData(0, 0, width, height).data };
}

function compose(
  out: Uint8ClampedArray,
  width: number,
  height: number,
  s: Shared,
  mouth: MouthParams,
  blink: number,
  dx: number,
  dy: number,
): void {
  const rowBytes = width * 4;
  for (let y = 0; y < height; y++) {
    const from = ((y + MARGIN - dy) * s.base.width + MARGIN - dx) * 4;
    out.set(s.base.px.subarray(from, from + rowBytes), y * rowBytes);
  }
  // the nearest shape drawn fully, the second faded over it
  const [first, second] = nearestShapes(mouth);
  blend(out, width, height, s.mouths[first![0]], 1, dx, dy);
  if (second) blend(out, width, height, s.mouths[second[0]], second[1], dx, dy);
  const b = Math.max(0, Math.min(1, blink));
  if (s.blinks.length === 1) blend(out, width, height, s.blinks[0]!, b, dx, dy);
  else if (s.blinks.length === 2) {
    blend(out, width, height, s.blinks[0]!, b < 0.5 ? 2 * b : 2 - 2 * b, dx, dy);
    blend(out, width, height, s.blinks[1]!, Math.max(0, 2 * b - 1), dx, dy);
  }
}

/** Blends a layer over the frame with weight `w` (its alpha too), at an offset. */
function blend(
  out: Uint8ClampedArray,
  width: number,
  height: number,
  l: Layer,
  w: number,
  dx: number,
  dy: number,
): void {
  if (w <= 0) return;
  for (let y = 0; y < l.height; y++) {
    const oy = l.y + y + dy;
    if (oy < 0 || oy >= height) continue;
    for (let x = 0; x < l.width; x++) {
      const ox = l.x + x + dx;
      if (ox < 0 || ox >= width) continue;
      const i = (y * l.width + x) * 4;
      const a = (l.px[i + 3]! / 255) * w;
      if (a === 0) continue;
      const o = (oy * width + ox) * 4;
      out[o] = out[o]! + a * (l.px[i]! - out[o]!);
      out[o + 1] = out[o + 1]! + a * (l.px[i + 1]! - out[o + 1]!);
      out[o + 2] = out[o + 2]! + a * (l.px[i + 2]! - out[o + 2]!);
    }
  }
}
