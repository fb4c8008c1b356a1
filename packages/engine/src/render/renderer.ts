/**
 * The renderer interface (so a GPU renderer can be added later) and the vector avatar's Skia
 * renderer. The drawing itself, and its layer caches shared by every session of the process, live
 * in @mouthpiece/draw (the same code draws in the browser SDK, docs/design.md §13); this file hands
 * it `@napi-rs/canvas`. render() returns RGBA. Never call it many times in one synchronous loop:
 * Skia's read-back buffers are freed only when the event loop turns (docs/design.md §3.5).
 */
import { createCanvas, type Canvas, type SKRSContext2D } from '@napi-rs/canvas';
import { createVectorCache, type CanvasFactory } from '@mouthpiece/draw';
import type { VideoPick } from '@mouthpiece/protocol';
import type { AvatarManifest } from '../avatar/manifest.js';
import type { FrameRegion } from '../contract/media.js';
import type { FaceState } from '../face-state.js';
import { defer } from './turns.js';

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
   * The frame as the region where it differs from this renderer's previous frame (by render() or
   * this), with that region's RGBA (region.width × region.height × 4 bytes, even pixel boundaries),
   * or null when it does not differ. For a video sink's writeRgbaRegion / repeat. One call is one
   * output frame, like render().
   */
  renderRegion?(state: FaceState): { region: FrameRegion; rgba: Uint8ClampedArray } | null;
  /**
   * For a viewer that draws the avatar itself (render: 'client'): what a video avatar's frame shows
   * (its base frame and mouth-library crops), chosen as renderI420 would and moving the renderer's
   * clock on by one frame, without drawing. Absent: the face state alone says it (vector, photo,
   * sprites).
   */
  pick?(state: FaceState): VideoPick;
  close(): void;
}

/** Skia canvases for the drawing code. */
export const skiaCanvas: CanvasFactory = (width, height) => createCanvas(width, height);

/**
 * One cache for the process: a head pose seen for the first time would cost a frame ~10 ms, late
 * for every session, so the poses are warmed in the background, one piece per turn (turns.ts).
 */
const vectors = createVectorCache({ canvas: skiaCanvas, defer });

export function createRenderer(
  manifest: AvatarManifest,
  size: { width: number; height: number },
  background?: string,
): Renderer {
  const { width, height } = size;
  const canvas: Canvas = createCanvas(width, height);
  const ctx: SKRSContext2D = canvas.getContext('2d');
  const drawer = vectors.open(manifest, size, background);
  let closed = false;
  // the stored pixels, not getImageData(): the frame is opaque, so premultiplied RGBA is plain
  // RGBA, and this skips an unpremultiplying copy
  const pixels = (): Uint8ClampedArray => {
    const px = canvas.data();
    return new Uint8ClampedArray(px.buffer, px.byteOffset, px.length);
  };
  return {
    width,
    height,
    render(state) {
      if (closed) throw new Error('renderer is closed');
      drawer.draw(ctx, state);
      return pixels();
    },
    renderRegion(state) {
      if (closed) throw new Error('renderer is closed');
      const region = drawer.update(ctx, state);
      if (!region) return null;
      if (region.width === width && region.height === height) return { region, rgba: pixels() };
      // the region alone read back (the frame is opaque: unpremultiplying changes nothing)
      return { region, rgba: ctx.getImageData(region.x, region.y, region.width, region.height).data };
    },
    close() {
      if (closed) return;
      closed = true;
      drawer.close();
    },
  };
}
