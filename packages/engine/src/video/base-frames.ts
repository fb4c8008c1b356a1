/**
 * The base frames' pixels (docs/design.md §11 "Base frames"): the pool's clip frames decoded
 * exactly, and a closed mouth baked into the speech-time ones.
 *
 * Decoding runs ffmpeg with the tracking pass's own settings (video/track-clip.ts) once per
 * stretch of the pool (stretches under 2 s apart in one pass), each from an exact seek
 * (video/video-filter.ts: after a seek frame k is still frame k), so a long clip costs its
 * stretches' decoding, not the whole clip's. Frames between stretches are dropped as they come.
 * Each decoded frame's thumbnail is compared with the tracking pass's (`thumbError`, 0 when they
 * are the same frames).
 *
 * Baking composes the library crop the MouthSelector picks for REST_MOUTH onto each baked base
 * frame through @mouthpiece/draw's composeVideoPick, the renderer's own compositing, with the
 * pack's whole index: a better composite there is a better bake here. One crop for every baked
 * frame: a crop per frame would make the closed mouth jump wherever the selector changed crops.
 */
import { composeVideoPick, videoLayout, videoScratch, type VideoIndex } from '@mouthpiece/draw';
import { REST_MOUTH } from '../face-state.js';
import { MouthSelector } from './mouth-selector.js';
import { decodeFrames, type ClipInfo } from './ffmpeg.js';
import type { FacePlan } from './find-face.js';
import { VIDEO_LIMITS } from './import-errors.js';
import type { SeamMask } from './mask.js';
import { i420Bytes, i420View, type I420View, type Similarity } from './pack.js';
import { extractCrop, ringMeans, rgbToI420, thumbDistance, thumbnail } from './pixels.js';

export interface DecodedBase {
  /** The frames as size×size I420, back to back, in pool order. */
  i420: Uint8Array;
  /** Each frame's seam ring colour (Y, U, V). */
  ring: Array<[number, number, number]>;
  /** The largest thumbnail difference between a decoded frame and the tracked one (grey levels). */
  thumbError: number;
}

type Box = VideoIndex['library']['box'];

/** Frames closer than this (2 s) are decoded in one pass rather than by another seek. */
const RUN_GAP = 50;

/** The clip frames to decode, `source` (ascending) grouped into passes: [from, from + count). */
export function decodeRuns(source: readonly number[]): Array<{ from: number; count: number }> {
  const runs: Array<{ from: number; count: number }> = [];
  for (const i of source) {
    const last = runs[runs.length - 1];
    if (last && i - (last.from + last.count) < RUN_GAP) last.count = i - last.from + 1;
    else runs.push({ from: i, count: 1 });
  }
  return runs;
}

/** Decodes the clip frames `source` (ascending) as the pool's base frames. */
export async function decodeBaseFrames(
  file: string,
  plan: FacePlan,
  tracked: ReadonlyArray<{ thumb: Uint8Array; toFrame: Similarity }>,
  source: readonly number[],
  clip: ClipInfo,
  seam: { box: Box; mask: SeamMask },
  onProgress: (fraction: number) => void,
  /** Each frame's canonical lower-face crop (I420, box-sized; valid during the call), by pool slot. */
  onCrop: (k: number, crop: I420View) => void = () => undefined,
): Promise<DecodedBase> {
  const size = VIDEO_LIMITS.framePx;
  const frameBytes = i420Bytes(size, size);
  const slot = new Map(source.map((s, k) => [s, k]));
  const i420 = new Uint8Array(source.length * frameBytes);
  const ring = Array.from({ length: source.length }, (): [number, number, number] => [0, 0, 0]);
  let thumbError = 0;
  let done = 0;
  for (const run of decodeRuns(source))
    await decodeFrames(
      file,
      { fps: VIDEO_LIMITS.fps, crop: plan.crop, size, fromFrame: run.from, maxFrames: run.count, clip },
      (rgb, j) => {
        const i = run.from + j;
        const k = slot.get(i);
        if (k === undefined) return;
        const t = tracked[i]!;
        thumbError = Math.max(thumbError, thumbDistance(thumbnail(rgb, size), t.thumb));
        const crop = i420View(
          extractCrop(rgb, size, size, t.toFrame, seam.box),
          0,
          seam.box.width,
          seam.box.height,
        );
        ring[k] = ringMeans(crop, seam.mask);
        onCrop(k, crop);
        rgbToI420(rgb, size, size, 3, i420.subarray(k * frameBytes, (k + 1) * frameBytes));
        onProgress(++done / source.length);
      },
      { width: size, height: size },
    );
  if (done !== source.length)
    throw new Error(`the clip gave ${done} of the ${source.length} base frames on a second decode`);
  return { i420, ring, thumbError };
}

/**
 * The library crop a closed mouth is baked from: the selector's choice for the rest mouth (a crop
 * whose face was covered in its source frame costs more there, as in a session).
 */
export function restCrop(index: VideoIndex): number {
  const { descriptors, source, clear } = index.library;
  return new MouthSelector(descriptors, source, [], 0, { clear }).select(REST_MOUTH).a;
}

/**
 * Composites crop `crop` fully onto every base frame marked in `baked` (in place in `base`, the
 * pack's base.i420), through the renderer's compositing at the pack's size; a baked frame's
 * landmarks (index.base.landmarks) become those the face composite showed.
 */
export function bakeClosedMouths(
  index: VideoIndex,
  mouths: Uint8Array,
  base: Uint8Array,
  baked: readonly boolean[],
  crop: number,
): void {
  const layout = videoLayout(index, mouths, { width: index.size, height: index.size });
  const mix = videoScratch(index);
  const frameBytes = i420Bytes(index.size, index.size);
  baked.forEach((bake, i) => {
    if (!bake) return;
    const out = base.subarray(i * frameBytes, (i + 1) * frameBytes);
    composeVideoPick(layout, { baseFrame: i, a: crop, wa: 1, b: crop, wb: 0, fade: 1 }, out, mix);
    // the face composite moved this frame's chin and mouth: its landmarks are now the composite's
    if (layout.mesh && index.base.landmarks)
      index.base.landmarks[i] = Array.from(mix.face.target, (v) => Math.round(v * 10) / 10);
  });
}

export { thumbOfI420 } from './pixels.js';
