/**
 * The video avatar's renderer in the browser (`render: 'client'`, docs/design.md §13.6): each
 * animation frame carries the engine's pick (base frame, mouth crops, weights, fade), composed
 * here by the engine's code (video-frames.ts) at the pack's size, put on an offscreen canvas and
 * drawn onto the page's canvas scaled to cover it, centred, smoothed — as the engine scales its
 * base frames to its output size. Composing and converting happen only when the pick changes. The head motion is in the footage: the picture never moves.
 * The session's background is not used (the footage fills the canvas).
 */
import { RendererUnavailable, type BrowserRenderer, type LoadedPack, type RendererFactory } from './types.js';
import { videoFrames } from './video-frames.js';

type Canvas2D = CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D;

function offscreen(size: number): { canvas: OffscreenCanvas | HTMLCanvasElement; ctx: Canvas2D | null } {
  if (typeof OffscreenCanvas === 'function') {
    const canvas = new OffscreenCanvas(size, size);
    return { canvas, ctx: canvas.getContext('2d') };
  }
  const canvas = document.createElement('canvas');
  canvas.width = size;
  canvas.height = size;
  return { canvas, ctx: canvas.getContext('2d') };
}

export const videoRenderer: RendererFactory = (pack, canvas) => {
  try {
    return Promise.resolve(createVideoPlayer(pack, canvas));
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
};

function createVideoPlayer(pack: LoadedPack, canvas: HTMLCanvasElement): BrowserRenderer {
  if (pack.render !== 'video')
    throw new RendererUnavailable('unsupported-kind', `avatar ${pack.id} is ${pack.render}, not video`);
  const frames = videoFrames(pack);
  const { size } = frames;
  const source = offscreen(size);
  const page = canvas.getContext('2d');
  if (!source.ctx || !page) throw new RendererUnavailable('unsupported-kind', 'no 2D canvas context');
  const sourceCtx = source.ctx;
  let image: ImageData | undefined;
  let closed = false;

  const show = (): void => {
    const { width, height } = canvas;
    const scale = Math.max(width / size, height / size);
    page.imageSmoothingEnabled = true;
    // up: bilinear, as the engine scales its base frames (and 'high' costs a software canvas 6× more,
    // docs/design.md §13.6); down: mipmapped, so a small container does not alias
    page.imageSmoothingQuality = scale > 1 ? 'low' : 'medium';
    page.drawImage(
      source.canvas,
      (width - size * scale) / 2,
      (height - size * scale) / 2,
      size * scale,
      size * scale,
    );
  };

  return {
    resize(width, height) {
      if (closed) return;
      canvas.width = Math.max(1, Math.round(width));
      canvas.height = Math.max(1, Math.round(height));
      if (image) show();
    },
    draw(frame) {
      if (closed) return;
      const { rgba, changed } = frames.picture(frame);
      if (changed || !image) {
        image ??= new ImageData(rgba, size, size);
        sourceCtx.putImageData(image, 0, 0);
      }
      show();
    },
    restore() {
      // (the offscreen canvas may have lost its pixels with the page's context; the next draw shows them)
      if (image && !closed) sourceCtx.putImageData(image, 0, 0);
    },
    close() {
      closed = true;
      image = undefined;
      source.canvas.width = 0;
      source.canvas.height = 0;
    },
  };
}
