/**
 * One frame of a video avatar from a pick: the base frame, and while the mouth moves the
 * picked mouth-library crops blended onto it through the seam mask, colour-matched on the seam
 * ring. The engine's renderer (packages/engine/src/render/video-renderer.ts) picks and composes;
 * the browser's player composes the pick the engine sent in the animation frame. Both call
 * composeVideoPick, so a pick gives the same pixels in both places.
 */
import {
  compositeI420,
  outputRect,
  premultipliedFor,
  type PixelRect,
  type Premultiplied,
} from './composite.js';
import { composeFace, faceScratch, type FaceScratch } from './face-composite.js';
import { MESH, meshFrame, meshVertices, type MeshFrame } from './face-mesh.js';
import { i420Bytes, i420View, type I420View, type Similarity } from './i420.js';
import { seamMask, type SeamMask } from './seam-mask.js';
import type { VideoIndex } from './video-index.js';
import type { VideoPick } from '@mouthpiece/protocol';

/** The colour match shifts a crop's Y, U and V by at most this much (a larger gap is a bad ring). */
export const MAX_COLOUR_SHIFT = 40;

/** A frame's choice (the protocol's type: the engine sends it in the animation stream). */
export type { VideoPick } from '@mouthpiece/protocol';

/** What composing a pack's frames at one output size needs, made once and shared. */
export interface VideoLayout {
  index: VideoIndex;
  width: number;
  height: number;
  /** The library's crops, views of mouths.i420. */
  crops: I420View[];
  /** Canonical → output pixels, and the box's output rectangle, per base frame. */
  toOut: Similarity[];
  rects: PixelRect[];
  mask: SeamMask;
  /** The face mesh's frame, for packs with landmarks (composited by the face, face-composite.ts). */
  mesh: MeshFrame | undefined;
}

/** Scratch for composeVideoPick (one per renderer: it is overwritten by every frame). */
export interface VideoScratch {
  mix: Premultiplied;
  face: FaceScratch;
}

/**
 * The layout of a pack at an output size: the base frames scaled to cover it, centred (a square
 * frame into a wider output loses its top and bottom). `mouths` is the whole mouths.i420.
 */
export function videoLayout(
  index: VideoIndex,
  mouths: Uint8Array,
  size: { width: number; height: number },
): VideoLayout {
  const { width, height } = size;
  const { box } = index.library;
  const cropBytes = i420Bytes(box.width, box.height);
  const scale = Math.max(width / index.size, height / index.size);
  const ox = (width - index.size * scale) / 2;
  const oy = (height - index.size * scale) / 2;
  const toOut = index.base.toFrame.map(([a, b, tx, ty]): Similarity => [
    a * scale,
    b * scale,
    tx * scale + ox,
    ty * scale + oy,
  ]);
  return {
    index,
    width,
    height,
    crops: Array.from({ length: index.library.frames }, (_, k) =>
      i420View(mouths, k * cropBytes, box.width, box.height),
    ),
    toOut,
    rects: toOut.map((t) => outputRect(t, box, width, height)),
    mask: seamMask(box.width, box.height),
    mesh: hasFaceData(index) ? meshFrame(index.canonical.landmarks.flat()) : undefined,
  };
}

/**
 * The output rectangle a composite on base frame i can touch (every other pixel is the base
 * frame's): the crop box's, and for the face composite also the base's neck down to the mesh's
 * far ring (whose chin warp reaches below the box).
 */
export function composeReach(layout: VideoLayout, i: number): PixelRect {
  const r = layout.rects[i]!;
  const { mesh, index } = layout;
  const base = index.base.landmarks?.[i];
  if (!mesh || !base) return r;
  const v = meshVertices(base, base, mesh);
  const [a, b, tx, ty] = layout.toOut[i]!;
  let { x0, y0, x1, y1 } = r;
  for (let k = MESH.far; k < MESH.count; k++) {
    const [cx, cy] = [v[2 * k]!, v[2 * k + 1]!];
    const [x, y] = [a * cx - b * cy + tx, b * cx + a * cy + ty];
    x0 = Math.min(x0, 2 * Math.floor(x / 2) - 2);
    y0 = Math.min(y0, 2 * Math.floor(y / 2) - 2);
    x1 = Math.max(x1, 2 * Math.ceil(x / 2) + 2);
    y1 = Math.max(y1, 2 * Math.ceil(y / 2) + 2);
  }
  const clamp = (v: number, max: number): number => Math.max(0, Math.min(max, v));
  return {
    x0: clamp(x0, layout.width),
    y0: clamp(y0, layout.height),
    x1: clamp(x1, layout.width),
    y1: clamp(y1, layout.height),
  };
}

/** Whether a pack carries what the face composite needs (packs imported before it do not). */
function hasFaceData(index: VideoIndex): boolean {
  return (
    index.library.landmarks?.length === index.library.frames &&
    index.base.landmarks?.length === index.base.frames
  );
}

export function videoScratch(index: VideoIndex): VideoScratch {
  return { mix: premultipliedFor(index.library.box), face: faceScratch() };
}

/** The colour match: base frame i's ring colour minus the picked crops' (weighted), clamped. */
export function colourShift(index: VideoIndex, p: VideoPick): [number, number, number] {
  const ring = index.base.ring[p.baseFrame]!;
  const ra = index.library.ring[p.a]!;
  const rb = index.library.ring[p.b]!;
  const at = (c: number): number => {
    const d = p.wa * (ring[c]! - ra[c]!) + p.wb * (ring[c]! - rb[c]!);
    return Math.max(-MAX_COLOUR_SHIFT, Math.min(MAX_COLOUR_SHIFT, d));
  };
  return [at(0), at(1), at(2)];
}

/** Whether the pick names frames the pack has (a pick from elsewhere is checked before use). */
export function pickFits(index: VideoIndex, p: VideoPick): boolean {
  const inside = (k: number, n: number): boolean => Number.isInteger(k) && k >= 0 && k < n;
  return (
    inside(p.baseFrame, index.base.frames) &&
    inside(p.a, index.library.frames) &&
    inside(p.b, index.library.frames)
  );
}

/**
 * Blends the pick's crops onto `out`, an I420 frame of the layout's size that already holds base
 * frame `pick.baseFrame` at that size. A fade of 0 leaves the base frame as it is.
 */
export function composeVideoPick(
  layout: VideoLayout,
  pick: VideoPick,
  out: Uint8Array,
  scratch: VideoScratch,
): void {
  if (!(pick.fade > 0)) return;
  const i = pick.baseFrame;
  const { index, mesh } = layout;
  if (mesh) {
    const { library, base } = index;
    const b = pick.wb > 0 ? pick.b : pick.a;
    composeFace({
      out: i420View(out, 0, layout.width, layout.height),
      toOut: layout.toOut[i]!,
      box: library.box,
      frame: mesh,
      base: base.landmarks![i]!,
      landmarksA: library.landmarks![pick.a]!,
      landmarksB: library.landmarks![b]!,
      a: layout.crops[pick.a]!,
      b: layout.crops[b]!,
      wa: pick.wb > 0 ? pick.wa / (pick.wa + pick.wb) : 1,
      fade: pick.fade,
      clearBase: base.clear?.[i],
      clearA: library.clear?.[pick.a],
      clearB: library.clear?.[b],
      scratch: scratch.face,
    });
    return;
  }
  const mix = scratch.mix;
  compositeI420({
    out: i420View(out, 0, layout.width, layout.height),
    toOut: layout.toOut[i]!,
    rect: layout.rects[i]!,
    box: layout.index.library.box,
    mask: layout.mask,
    a: layout.crops[pick.a]!,
    wa: pick.wa,
    b: layout.crops[pick.b]!,
    wb: pick.wb,
    shift: colourShift(layout.index, pick),
    fade: pick.fade,
    mix,
  });
}

/** The base frame shown at output frame t: the loop wrapped ('cut') or played back and forth. */
export function loopFrame(t: number, frames: number, loop: VideoIndex['base']['loop']): number {
  if (frames <= 1) return 0;
  if (loop === 'cut') return t % frames;
  const period = 2 * frames - 2;
  const m = t % period;
  return m < frames ? m : period - m;
}
