/**
 * The video avatar renderer (`render: "video"`, docs/design.md §11): the person's own footage
 * supplies every pixel. The base frames play at the pack's frame rate (each render call is one
 * output frame at `fps`, by default the pack's), chosen by a random walk over the pack's
 * video-texture graph (base-walk.ts: idle frames at rest, speech-time frames while speaking), or
 * as a loop for packs imported before the graph; they carry the head motion and blinks
 * (FaceState.motion is ignored: the person's real motion replaces the animator). While the mouth
 * moves, the mouth-library crops nearest the wanted mouth (video/mouth-selector.ts) are composited
 * by the face onto the base frame (a landmark mesh: the base's chin moved to the crop's, the seam
 * matched as a membrane; the feathered ellipse for packs without landmarks), in I420
 * (@mouthpiece/draw's video/: the same code composes the pick in the browser, docs/design.md
 * §13.6). At rest the composite fades out over FADE_FRAMES, so idle is real footage.
 *
 * Per process and output size, shared by every session: the pack's files, and the base frames at
 * the output size (scaled to cover, centred, once), held by video-pack-cache.ts: a session's
 * renderer is made once its pack is resident (avatar-renderer.ts openAvatarRenderer loads it off
 * the media tick). A frame is then a copy of the base frame and a blend in the box's rectangle.
 */
import {
  composeVideoPick,
  i420ToRgba,
  loopFrame,
  videoScratch,
  type VideoIndex,
  type VideoPick,
} from '@mouthpiece/draw';
import type { VideoAvatarManifest } from '../avatar/manifest.js';
import { REST_MOUTH, type FaceState } from '../face-state.js';
import { i420Bytes } from '../video/pack.js';
import { BaseWalk, walkGraphOf } from './base-walk.js';
import { MouthSelector } from '../video/mouth-selector.js';
import type { Renderer } from './renderer.js';
import { frameAt, loadVideoPackSync, type VideoPackLease } from './video-pack-cache.js';

export { loopFrame, MAX_COLOUR_SHIFT } from '@mouthpiece/draw';

/** Frames over which the composite fades in when the mouth moves and out when it rests. */
export const FADE_FRAMES = 3;
/** Below this opening (and not speaking) the mouth is at rest. */
const REST_OPEN = 0.02;

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

/** Whether base frame i shows a closed mouth: an idle frame or a baked one (every frame of old packs). */
function mouthClosed(index: VideoIndex, i: number): boolean {
  const { idle, baked } = index.base;
  return !idle || idle[i] === true || baked?.[i] === true;
}

const randomSeed = (): number => Math.floor(Math.random() * 2 ** 32);

export function createVideoRenderer(
  manifest: VideoAvatarManifest,
  dir: string,
  size: { width: number; height: number },
  /**
   * `pack`: the pack already resident (the renderer releases it on close); else read now,
   * synchronously. `seed`: the base-frame walk's (render/base-walk.ts); random by default.
   */
  opts: { fps?: number | undefined; pack?: VideoPackLease | undefined; seed?: number | undefined } = {},
): Renderer & Required<Pick<Renderer, 'renderI420'>> {
  const { width, height } = size;
  if (width % 2 || height % 2)
    throw new Error(`avatar ${manifest.id}: I420 needs an even size, not ${width}x${height}`);
  const lease = opts.pack ?? loadVideoPackSync(dir, size);
  const s = lease.pack;
  const { index } = s.layout;
  const selector = new MouthSelector(
    index.library.descriptors,
    index.library.source,
    index.library.sound,
    index.library.soundSpread,
    { pose: index.library.pose, clear: index.library.clear, sharpness: index.library.sharpness },
  );
  const bytes = i420Bytes(width, height);
  const mix = videoScratch(index);
  let i420: Uint8Array | undefined;
  let rgba: Uint8ClampedArray | undefined;
  /** Base frames per output frame: the footage plays at its own rate whatever the output's. */
  const step = opts.fps && index.fps > 0 ? index.fps / opts.fps : 1;
  let t = 0;
  let fade = 0;
  let closed = false;

  const graph = walkGraphOf(index.base);
  const walk = graph && new BaseWalk(graph, { fps: index.fps, seed: opts.seed ?? randomSeed() });
  let walked = 0;
  let shown = 0;
  /** The base frame at footage frame `at`: the walk (stepped up to it), else the loop. */
  const baseAt = (at: number, resting: boolean): number => {
    if (!walk) return loopFrame(at, index.base.frames, index.base.loop);
    for (; walked <= at; walked++) shown = walk.next(resting ? 'idle' : 'speech');
    return shown;
  };

  /** One output frame's choice: its base frame, and the crops while the composite shows. */
  const next = (state: FaceState): VideoPick => {
    if (closed) throw new Error('renderer is closed');
    const resting = atRest(state);
    // speech-time footage once the composite covers the mouth fully; it fades out only over a
    // base frame whose own mouth is closed (real or baked), and covers any other fully
    const i = baseAt(Math.floor(t++ * step + 1e-6), resting || fade < FADE_FRAMES);
    if (!mouthClosed(index, i)) fade = FADE_FRAMES;
    else fade = resting ? Math.max(0, fade - 1) : Math.min(FADE_FRAMES, fade + 1);
    if (fade > 0) {
      const { a, wa, b, wb } = selector.select(state.mouth, state.sound, index.base.pose?.[i]);
      return { baseFrame: i, a, wa, b, wb, fade: fade / FADE_FRAMES };
    }
    selector.reset();
    return { baseFrame: i, a: 0, wa: 0, b: 0, wb: 0, fade: 0 };
  };

  const renderI420 = (state: FaceState, out: Uint8Array): void => {
    if (out.length !== bytes)
      throw new Error(`an I420 frame of ${width}x${height} is ${bytes} bytes, not ${out.length}`);
    const pick = next(state);
    out.set(frameAt(s, pick.baseFrame, width, height));
    composeVideoPick(s.layout, pick, out, mix);
  };

  return {
    width,
    height,
    renderI420,
    pick: next,
    render(state) {
      i420 ??= new Uint8Array(bytes);
      rgba ??= new Uint8ClampedArray(width * height * 4);
      renderI420(state, i420);
      return i420ToRgba(i420, width, height, rgba);
    },
    close() {
      if (closed) return;
      closed = true;
      lease.release();
    },
  };
}
