/**
 * Sprite avatar drawing (`render: "sprites"`), on any CanvasFactory: the base picture over a flat
 * background, the mouth pictures of the two shapes nearest the frame's mouth parameters
 * cross-faded at the mouth anchor, and the blink pictures faded in at theirs. Head motion and
 * breathing move the whole picture by whole pixels. Pictures are scaled once per avatar, size and
 * background and shared by the drawers of the cache; each frame is composed in RGBA by hand, so
 * every canvas gives the same pixels; update() composes only the mouth and blink boxes while the
 * picture has not moved. docs/avatars.md describes the pack.
 */
import { context2d, DrawError, type CanvasFactory, type ImageLike } from './canvas.js';
import type { FacePose, MouthParams, Viseme } from './face.js';
import { MOUTH_SHAPES, VISEMES } from './mouth-shapes.js';
import { evenClamped, FEATURE_EPSILON, moved, sameMouth, union } from './vector-region.js';

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
  /**
   * The frame of `pose` composed over the drawer's last frame (by render or this) where they
   * differ: that region (even pixel boundaries) and its RGBA (region.width × region.height × 4),
   * or null when they do not differ. The first call composes it all.
   */
  update(pose: FacePose): { region: Rect; rgba: Uint8ClampedArray } | null;
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

/** What decides a sprite frame's pixels: the picture's whole-pixel offset, the mouth and the blink. */
interface SpritePose {
  dx: number;
  dy: number;
  mouth: MouthParams;
  blink: number;
}

function drawer(s: Shared, width: number, height: number, release: () => void): SpriteDrawer {
  const out = new Uint8ClampedArray(width * height * 4);
  const motionScale = Math.min(width, height) / 512;
  const all: Rect = { x: 0, y: 0, width, height };
  let closed = false;
  let last: SpritePose | undefined;
  const poseOf = ({ mouth, motion }: FacePose): SpritePose => {
    const rise = Math.round(Math.max(0, Math.min(1, motion.breath)) * BREATH_PX * motionScale);
    return {
      dx: Math.max(-MARGIN, Math.min(MARGIN, Math.round(motion.headX * motionScale))),
      dy: Math.max(-MARGIN, Math.min(MARGIN, Math.round(motion.headY * motionScale) - rise)),
      mouth,
      blink: motion.blink,
    };
  };
  return {
    width,
    height,
    render(pose) {
      if (closed) throw new DrawError('sprite drawer is closed');
      last = poseOf(pose);
      compose(out, width, s, last, all);
      return out;
    },
    update(pose) {
      if (closed) throw new DrawError('sprite drawer is closed');
      const p = poseOf(pose);
      const region = changed(s, last, p, width, height);
      if (!region) return null;
      last = p;
      compose(out, width, s, p, region);
      if (region.width === width && region.height === height) return { region, rgba: out };
      const rgba = new Uint8ClampedArray(region.width * region.height * 4);
      for (let y = 0; y < region.height; y++) {
        const from = ((region.y + y) * width + region.x) * 4;
        rgba.set(out.subarray(from, from + region.width * 4), y * region.width * 4);
      }
      return { region, rgba };
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

/**
 * Where frame `p` differs from frame `was` (undefined: none yet): the whole frame when the picture
 * moved, else the mouth's and blink's boxes when they changed by more than a pixel can show; null
 * when nothing did.
 */
function changed(
  s: Shared,
  was: SpritePose | undefined,
  p: SpritePose,
  width: number,
  height: number,
): Rect | null {
  const all = { x: 0, y: 0, width, height };
  if (!was || was.dx !== p.dx || was.dy !== p.dy || width % 2 !== 0 || height % 2 !== 0) return all;
  const mouthMoved = !sameMouth(was.mouth, p.mouth);
  const near = (a: number, b: number): boolean => Math.abs(a - b) < FEATURE_EPSILON;
  const boxes: Rect[] = [];
  if (mouthMoved) boxes.push(...VISEMES.map((v) => s.mouths[v]));
  if (!near(was.blink, p.blink)) boxes.push(...s.blinks);
  if (boxes.length === 0) return null;
  const box = boxes
    .map((b) => moved({ x: b.x, y: b.y, width: b.width, height: b.height }, p.dx, p.dy))
    .reduce(union);
  return evenClamped(box, width, height) ?? null;
}

/** Composes the frame of pose `p` inside `clip` (the rest of `out` is left as it is). */
function compose(out: Uint8ClampedArray, width: number, s: Shared, p: SpritePose, clip: Rect): void {
  const { dx, dy } = p;
  const rowBytes = clip.width * 4;
  for (let y = clip.y; y < clip.y + clip.height; y++) {
    const from = ((y + MARGIN - dy) * s.base.width + MARGIN - dx + clip.x) * 4;
    out.set(s.base.px.subarray(from, from + rowBytes), (y * width + clip.x) * 4);
  }
  // the nearest shape drawn fully, the second faded over it
  const [first, second] = nearestShapes(p.mouth);
  blend(out, width, s.mouths[first![0]], 1, p, clip);
  if (second) blend(out, width, s.mouths[second[0]], second[1], p, clip);
  const b = Math.max(0, Math.min(1, p.blink));
  if (s.blinks.length === 1) blend(out, width, s.blinks[0]!, b, p, clip);
  else if (s.blinks.length === 2) {
    blend(out, width, s.blinks[0]!, b < 0.5 ? 2 * b : 2 - 2 * b, p, clip);
    blend(out, width, s.blinks[1]!, Math.max(0, 2 * b - 1), p, clip);
  }
}

/** Blends a layer over the frame with weight `w` (its alpha too), at the pose's offset, inside `clip`. */
function blend(
  out: Uint8ClampedArray,
  width: number,
  l: Layer,
  w: number,
  { dx, dy }: SpritePose,
  clip: Rect,
): void {
  if (w <= 0) return;
  for (let y = 0; y < l.height; y++) {
    const oy = l.y + y + dy;
    if (oy < clip.y || oy >= clip.y + clip.height) continue;
    for (let x = 0; x < l.width; x++) {
      const ox = l.x + x + dx;
      if (ox < clip.x || ox >= clip.x + clip.width) continue;
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
