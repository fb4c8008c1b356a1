/**
 * The renderer interface (so a GPU renderer can be added later) and its Skia implementation:
 * the static layers (background, body) are cached per size; each frame draws only the head.
 * render() returns RGBA. Never call it many times in one synchronous loop: Skia's read-back
 * buffers are freed only when the event loop turns (notes §4).
 */
import { createCanvas, type Canvas, type SKRSContext2D } from '@napi-rs/canvas';
import type { AvatarManifest } from '../avatar/manifest.js';
import type { FaceState } from '../face-state.js';
import { drawBackground, drawBody, drawHead, geometry, type FaceGeometry } from './vector-face.js';

export interface Renderer {
  readonly width: number;
  readonly height: number;
  render(state: FaceState): Uint8ClampedArray;
  close(): void;
}

const DESIGN = 512;

export function createRenderer(manifest: AvatarManifest, size: { width: number; height: number }): Renderer {
  const { width, height } = size;
  const canvas: Canvas = createCanvas(width, height);
  const ctx: SKRSContext2D = canvas.getContext('2d');
  const g: FaceGeometry = geometry(manifest);
  const scale = Math.min(width, height) / DESIGN;
  const offsetX = (width - DESIGN * scale) / 2;
  const offsetY = height - DESIGN * scale;
  const staticLayer = createCanvas(width, height);
  const s = staticLayer.getContext('2d');
  drawBackground(s, manifest, width, height);
  const body = createCanvas(width, height);
  const b = body.getContext('2d');
  b.setTransform(scale, 0, 0, scale, offsetX, offsetY);
  drawBody(b, manifest, g);
  let closed = false;
  return {
    width,
    height,
    render(state) {
      if (closed) throw new Error('renderer is closed');
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.drawImage(staticLayer, 0, 0);
      ctx.drawImage(body, 0, -state.motion.breath * 3 * scale);
      ctx.setTransform(scale, 0, 0, scale, offsetX, offsetY);
      drawHead(ctx, manifest, g, state.mouth, state.motion);
      return ctx.getImageData(0, 0, width, height).data;
    },
    close() {
      closed = true;
    },
  };
}
