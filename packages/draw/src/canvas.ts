/**
 * The Canvas2D calls the drawing code makes, and nothing else: `@napi-rs/canvas` (Skia) satisfies
 * it in the engine, OffscreenCanvas or HTMLCanvasElement in the browser. The package needs no DOM
 * and no Node types: whoever draws hands in a CanvasFactory.
 */

/** A gradient made by the context; colours are CSS colour strings. */
export interface Gradient {
  addColorStop(offset: number, color: string): void;
}

/** Pixels read back: RGBA, not premultiplied, row by row. */
export interface Pixels {
  readonly width: number;
  readonly height: number;
  readonly data: Uint8ClampedArray;
}

/**
 * What drawImage takes: a canvas of the same kind, or a decoded picture (Image, ImageBitmap). Left
 * opaque: the browser's CanvasImageSource includes sources with no numeric width (VideoFrame, SVG
 * images), and the drawing never reads a picture's size (canvas-types.test.ts).
 */
export type ImageLike = object;

export interface Context2D {
  /** A CSS colour, or a Gradient this context made. */
  fillStyle: string | object;
  strokeStyle: string | object;
  lineWidth: number;
  lineCap: string;
  globalAlpha: number;
  save(): void;
  restore(): void;
  setTransform(a: number, b: number, c: number, d: number, e: number, f: number): void;
  translate(x: number, y: number): void;
  rotate(angle: number): void;
  beginPath(): void;
  closePath(): void;
  moveTo(x: number, y: number): void;
  lineTo(x: number, y: number): void;
  bezierCurveTo(c1x: number, c1y: number, c2x: number, c2y: number, x: number, y: number): void;
  quadraticCurveTo(cx: number, cy: number, x: number, y: number): void;
  arc(x: number, y: number, r: number, start: number, end: number, counterclockwise?: boolean): void;
  ellipse(
    x: number,
    y: number,
    rx: number,
    ry: number,
    rotation: number,
    start: number,
    end: number,
    counterclockwise?: boolean,
  ): void;
  roundRect(x: number, y: number, w: number, h: number, radius: number): void;
  fill(): void;
  stroke(): void;
  clip(): void;
  fillRect(x: number, y: number, w: number, h: number): void;
  createLinearGradient(x0: number, y0: number, x1: number, y1: number): Gradient;
  createRadialGradient(x0: number, y0: number, r0: number, x1: number, y1: number, r1: number): Gradient;
  drawImage(image: ImageLike, dx: number, dy: number): void;
  drawImage(image: ImageLike, dx: number, dy: number, dw: number, dh: number): void;
  drawImage(
    image: ImageLike,
    sx: number,
    sy: number,
    sw: number,
    sh: number,
    dx: number,
    dy: number,
    dw: number,
    dh: number,
  ): void;
  getImageData(x: number, y: number, w: number, h: number): Pixels;
}

export interface CanvasLike {
  readonly width: number;
  readonly height: number;
  getContext(kind: '2d'): Context2D | null;
}

/** Makes an off-screen canvas of a size: `createCanvas` of @napi-rs/canvas, `new OffscreenCanvas`. */
export type CanvasFactory = (width: number, height: number) => CanvasLike;

/** Defers a piece of background work (cache warming) by a few milliseconds; never blocks. */
export type Defer = (fn: () => void) => void;

export class DrawError extends Error {
  override readonly name = 'DrawError';
}

/** The canvas's 2D context; a canvas that has none (a WebGL canvas) is a DrawError. */
export function context2d(canvas: CanvasLike): Context2D {
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new DrawError('this canvas has no 2d context');
  return ctx;
}
