/**
 * The video avatar renderer (`render: "video"`, docs/design.md §11): the person's own footage
 * supplies every pixel. The idle loop (base frames) plays at the pack's frame rate (each render
 * call is one output frame at `fps`, by default the pack's), and carries the head motion and blinks (FaceState.motion is ignored: the
 * person's real idle motion replaces the animator). While the mouth moves, the mouth-library crops
 * nearest the wanted mouth (mouth-selector.ts) are warped from canonical coordinates onto the base
 * frame, colour-matched on the seam ring and blended through the feathered seam mask, in I420
 * (i420-composite.ts). At rest the composite fades out over FADE_FRAMES, so idle is real footage.
 *
 * Per process and output size, shared by every session: the pack's files, and the base frames at
 * the output size (scaled to cover, centred, once: one frame per timer turn in the background, or
 * on first use). A frame is then a copy of the base frame and a blend in the box's rectangle.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { VideoAvatarManifest } from '../avatar/manifest.js';
import { REST_MOUTH, type FaceState } from '../face-state.js';
import { seamMask, type SeamMask } from '../video/mask.js';
import {
  i420Bytes,
  i420View,
  readVideoPack,
  VIDEO_FILES,
  type I420View,
  type Similarity,
  type VideoIndex,
} from '../video/pack.js';
import { compositeI420, outputRect, premultipliedFor, scaleI420Cover, type Rect } from './i420-composite.js';
import { i420ToRgba } from './i420-convert.js';
import { MouthSelector, type MouthPick } from './mouth-selector.js';
import type { Renderer } from './renderer.js';

/** Frames over which the composite fades in when the mouth moves and out when it rests. */
export const FADE_FRAMES = 3;
/** Below this opening (and not speaking) the mouth is at rest. */
const REST_OPEN = 0.02;
/** The colour match shifts a crop's Y, U and V by at most this much (a larger gap is a bad ring). */
export const MAX_COLOUR_SHIFT = 40;

interface Shared {
  index: VideoIndex;
  /** The pack's base frames at the pack's size; dropped once every frame is at the output size. */
  packBase: Uint8Array | undefined;
  crops: I420View[];
  /** Base frames at the output size (views of the pack's when the sizes agree), made on first use. */
  frames: Array<Uint8Array | undefined>;
  /** Canonical → output pixels, and the box's output rectangle, per base frame. */
  toOut: Similarity[];
  rects: Rect[];
  mask: SeamMask;
  users: number;
}

const shared = new Map<string, Shared>();

function sharedFor(dir: string, width: number, height: number): { key: string; s: Shared } {
  const key = `${join(dir, VIDEO_FILES.index)}:${statSync(join(dir, VIDEO_FILES.index)).mtimeMs}@${width}x${height}`;
  let s = shared.get(key);
  if (!s) {
    const { index, base, mouths } = readVideoPack(dir);
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
    const same = width === index.size && height === index.size;
    const frameBytes = i420Bytes(index.size, index.size);
    s = {
      index,
      packBase: same ? undefined : base,
      crops: Array.from({ length: index.library.frames }, (_, k) =>
        i420View(mouths, k * cropBytes, box.width, box.height),
      ),
      frames: Array.from({ length: index.base.frames }, (_, i) =>
        same ? base.subarray(i * frameBytes, (i + 1) * frameBytes) : undefined,
      ),
      toOut,
      rects: toOut.map((t) => outputRect(t, box, width, height)),
      mask: seamMask(box.width, box.height),
      users: 0,
    };
    shared.set(key, s);
    if (!same) warm(key, s, width, height);
  }
  s.users++;
  return { key, s };
}

/** Base frame i at the output size. */
function frameAt(s: Shared, i: number, width: number, height: number): Uint8Array {
  let f = s.frames[i];
  if (f) return f;
  const size = s.index.size;
  const packBase = s.packBase!;
  f = new Uint8Array(i420Bytes(width, height));
  scaleI420Cover(i420View(packBase, i * i420Bytes(size, size), size, size), i420View(f, 0, width, height));
  s.frames[i] = f;
  if (s.frames.every((x) => x !== undefined)) s.packBase = undefined;
  return f;
}

/** Scales the base frames one per timer turn, so a session rarely waits for one. */
function warm(key: string, s: Shared, width: number, height: number): void {
  let i = 0;
  const next = (): void => {
    if (shared.get(key) !== s || i >= s.frames.length) return;
    frameAt(s, i++, width, height);
    setTimeout(next, 15).unref();
  };
  setTimeout(next, 15).unref();
}

/** The base frame shown at output frame t: the loop wrapped ('cut') or played back and forth. */
export function loopFrame(t: number, frames: number, loop: VideoIndex['base']['loop']): number {
  if (frames <= 1) return 0;
  if (loop === 'cut') return t % frames;
  const period = 2 * frames - 2;
  const m = t % period;
  return m < frames ? m : period - m;
}

/** A mouth at rest: nearly closed and not speaking (unknown: also no other shape than REST_MOUTH). */
export function atRest({ mouth, speaking }: FaceState): boolean {
  if (speaking === true || mouth.open >= REST_OPEN) return false;
  if (speaking === false) return true;
  const near = 0.03;
  return (
    Math.abs(mouth.width - REST_MOUTH.width) < near &&
    mouth.round < near &&
    mouth.teeth < near &&
    mouth.lipBite < near &&
    mouth.tongue < near
  );
}

/** The colour match: base frame i's ring colour minus the picked crops' (weighted), clamped. */
function colourShift(index: VideoIndex, i: number, p: MouthPick): [number, number, number] {
  const ring = index.base.ring[i]!;
  const ra = index.library.ring[p.a]!;
  const rb = index.library.ring[p.b]!;
  const at = (c: number): number => {
    const d = p.wa * (ring[c]! - ra[c]!) + p.wb * (ring[c]! - rb[c]!);
    return Math.max(-MAX_COLOUR_SHIFT, Math.min(MAX_COLOUR_SHIFT, d));
  };
  return [at(0), at(1), at(2)];
}

export function createVideoRenderer(
  manifest: VideoAvatarManifest,
  dir: string,
  size: { width: number; height: number },
  opts: { fps?: number | undefined } = {},
): Renderer & Required<Pick<Renderer, 'renderI420'>> {
  const { width, height } = size;
  if (width % 2 || height % 2)
    throw new Error(`avatar ${manifest.id}: I420 needs an even size, not ${width}x${height}`);
  const { key, s } = sharedFor(dir, width, height);
  const { index, mask, crops } = s;
  const selector = new MouthSelector(
    index.library.descriptors,
    index.library.source,
    index.library.sound,
    index.library.soundSpread,
  );
  const bytes = i420Bytes(width, height);
  const mix = premultipliedFor(index.library.box);
  let i420: Uint8Array | undefined;
  let rgba: Uint8ClampedArray | undefined;
  /** Base frames per output frame: the footage plays at its own rate whatever the output's. */
  const step = opts.fps && index.fps > 0 ? index.fps / opts.fps : 1;
  let t = 0;
  let fade = 0;
  let closed = false;

  /** One output frame's choice: its base frame, and the crops while the composite shows. */
  const next = (state: FaceState): { i: number; pick: MouthPick | undefined } => {
    if (closed) throw new Error('renderer is closed');
    const i = loopFrame(Math.floor(t++ * step + 1e-6), index.base.frames, index.base.loop);
    fade = atRest(state) ? Math.max(0, fade - 1) : Math.min(FADE_FRAMES, fade + 1);
    if (fade > 0) return { i, pick: selector.select(state.mouth, state.sound) };
    selector.reset();
    return { i, pick: undefined };
  };

  const renderI420 = (state: FaceState, out: Uint8Array): void => {
    if (out.length !== bytes)
      throw new Error(`an I420 frame of ${width}x${height} is ${bytes} bytes, not ${out.length}`);
    const { i, pick } = next(state);
    out.set(frameAt(s, i, width, height));
    if (!pick) return;
    const { a, wa, b, wb } = pick;
    compositeI420({
      out: i420View(out, 0, width, height),
      toOut: s.toOut[i]!,
      rect: s.rects[i]!,
      box: index.library.box,
      mask,
      a: crops[a]!,
      wa,
      b: crops[b]!,
      wb,
      shift: colourShift(index, i, pick),
      fade: fade / FADE_FRAMES,
      mix,
    });
  };

  return {
    width,
    height,
    renderI420,
    pick(state) {
      const { i, pick } = next(state);
      const p = pick ?? { a: 0, wa: 0, b: 0, wb: 0 };
      return { baseFrame: i, a: p.a, wa: p.wa, b: p.b, wb: p.wb, fade: fade / FADE_FRAMES };
    },
    render(state) {
      i420 ??= new Uint8Array(bytes);
      rgba ??= new Uint8ClampedArray(width * height * 4);
      renderI420(state, i420);
      return i420ToRgba(i420, width, height, rgba);
    },
    close() {
      if (closed) return;
      closed = true;
      if (--s.users === 0) shared.delete(key);
    },
  };
}
