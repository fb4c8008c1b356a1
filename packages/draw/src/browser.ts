/**
 * The drawing code on the browser's canvas (the SDK's `render: 'client'`): a vector or sprite
 * avatar drawn from its manifest and a FacePose into a canvas the page owns, at that canvas's size.
 * Off-screen layers are OffscreenCanvas where there is one, else <canvas> elements. Bundled by
 * build.mjs (dist/mouthpiece-draw.js, global `MouthpieceDraw`), with a gzipped size budget.
 */
import {
  context2d,
  DrawError,
  type CanvasFactory,
  type CanvasLike,
  type Context2D,
  type Pixels,
} from './canvas.js';
import type { FacePose, VectorLook } from './face.js';
import { createSpriteCache, type SpriteLook, type SpritePictures } from './sprite-renderer.js';
import { createVectorCache } from './vector-renderer.js';

export * from './index.js';

interface BrowserContext2D extends Context2D {
  putImageData(data: Pixels, dx: number, dy: number): void;
}

/** The page's canvas (HTMLCanvasElement or OffscreenCanvas): its size is the drawing's size. */
export interface TargetCanvas extends CanvasLike {
  width: number;
  height: number;
}

interface BrowserGlobals {
  OffscreenCanvas?: new (width: number, height: number) => CanvasLike;
  document?: { createElement(tag: 'canvas'): TargetCanvas };
  ImageData: new (data: Uint8ClampedArray, width: number, height: number) => Pixels;
  setTimeout(fn: () => void, delayMs: number): unknown;
}

const web = globalThis as unknown as BrowserGlobals;

/** OffscreenCanvas where the browser has it, else a detached <canvas>. */
export const browserCanvas: CanvasFactory = (width, height) => {
  if (web.OffscreenCanvas) return new web.OffscreenCanvas(width, height);
  if (!web.document) throw new DrawError('no OffscreenCanvas and no document: not a browser');
  const c = web.document.createElement('canvas');
  c.width = width;
  c.height = height;
  return c;
};

/** Draws one avatar into a page canvas; close() frees its cached layers. */
export interface CanvasAvatar {
  draw(pose: FacePose): void;
  close(): void;
}

/** A vector avatar drawn into `target` (layers cached for its size; head poses warmed in the background). */
export function createCanvasVectorAvatar(
  look: VectorLook,
  target: TargetCanvas,
  opts: { background?: string | undefined } = {},
): CanvasAvatar {
  const cache = createVectorCache({ canvas: browserCanvas, defer: (fn) => void web.setTimeout(fn, 15) });
  const drawer = cache.open(look, { width: target.width, height: target.height }, opts.background);
  const ctx = context2d(target);
  return { draw: (pose) => drawer.draw(ctx, pose), close: () => drawer.close() };
}

/** A sprite avatar drawn into `target` from its decoded pictures (ImageBitmap, HTMLImageElement). */
export function createCanvasSpriteAvatar(
  look: SpriteLook,
  pictures: SpritePictures,
  target: TargetCanvas,
  opts: { background?: string | undefined } = {},
): CanvasAvatar {
  const drawer = createSpriteCache(browserCanvas).open(
    look.id,
    look,
    () => pictures,
    { width: target.width, height: target.height },
    opts.background,
  );
  const ctx = context2d(target) as BrowserContext2D;
  return {
    draw(pose) {
      const px = drawer.render(pose);
      ctx.putImageData(new web.ImageData(px, drawer.width, drawer.height), 0, 0);
    },
    close: () => drawer.close(),
  };
}
