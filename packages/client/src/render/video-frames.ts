/**
 * A video avatar's frames in the browser, without a canvas (video-player.ts shows them): the
 * pack's three files as typed-array views (no copies), and per animation frame the RGBA picture
 * the engine would have sent, composed from the engine's pick by the engine's own code
 * (@mouthpiece/draw video/) at the pack's size. docs/design.md §13.6.
 */
import {
  composeVideoPick,
  i420Bytes,
  i420ToRgba,
  loopFrame,
  pickFits,
  videoLayout,
  videoScratch,
  type VideoIndex,
  type VideoPick,
} from '@mouthpiece/draw';
import { ANIMATION_STAMP_RATE_HZ, PackFileRole, type AnimationFrame } from '@mouthpiece/protocol';
import { RendererUnavailable, type LoadedPack } from './types.js';

/** The pack's video files by their role in the listing. */
const ROLES = {
  index: PackFileRole.videoIndex,
  base: PackFileRole.baseFrames,
  mouths: PackFileRole.mouthLibrary,
} as const;

export interface VideoFrames {
  /** Side of the pictures (the pack's base frames are square). */
  readonly size: number;
  readonly index: VideoIndex;
  /**
   * The picture for a frame, RGBA size×size (one buffer, overwritten by the next call); `changed`
   * is false when it is the previous call's picture again (the same base frame and pick).
   */
  picture(frame: AnimationFrame): { rgba: Uint8ClampedArray<ArrayBuffer>; changed: boolean };
}

function fileOf(pack: LoadedPack, role: string): ArrayBuffer {
  const entry = pack.files.find((f) => f.role === role);
  const bytes = entry && pack.bytes.get(entry.name);
  if (!bytes) throw new RendererUnavailable('pack-failed', `video avatar ${pack.id}: no ${role} file`);
  return bytes;
}

const positiveInt = (v: unknown): boolean => typeof v === 'number' && Number.isInteger(v) && v > 0;

/** video.json, checked for what composing reads (a wrong pack is refused, never drawn half). */
function parseIndex(pack: LoadedPack): VideoIndex {
  const fail = (what: string): never => {
    throw new RendererUnavailable('pack-failed', `video avatar ${pack.id}: video.json ${what}`);
  };
  let index: VideoIndex | null;
  try {
    index = JSON.parse(new TextDecoder().decode(fileOf(pack, ROLES.index))) as VideoIndex | null;
  } catch (err) {
    if (err instanceof RendererUnavailable) throw err;
    return fail('is not JSON');
  }
  if (index?.version !== 1) return fail('is not version 1');
  const { base, library } = index;
  if (!positiveInt(index.size) || index.size % 2) fail('has no even size');
  if (!positiveInt(base?.frames) || !positiveInt(library?.frames)) fail('has no frames');
  const box = library.box;
  if (![box?.width, box?.height].every((v) => positiveInt(v) && v % 2 === 0)) fail('has no even mouth box');
  if (base.toFrame?.length !== base.frames || base.ring?.length !== base.frames)
    fail('has a transform and a ring per base frame missing');
  if (library.ring?.length !== library.frames) fail('has a ring per crop missing');
  return index;
}

/** The pack's frames; rejects a pack whose files are missing or of the wrong size. */
export function videoFrames(pack: LoadedPack): VideoFrames {
  const index = parseIndex(pack);
  const { size } = index;
  const frameBytes = i420Bytes(size, size);
  const { box } = index.library;
  const base = new Uint8Array(fileOf(pack, ROLES.base));
  const mouths = new Uint8Array(fileOf(pack, ROLES.mouths));
  const wrong = (name: string, got: number, want: number): never => {
    throw new RendererUnavailable(
      'pack-failed',
      `video avatar ${pack.id}: ${name} is ${got} bytes, not ${want}`,
    );
  };
  if (base.length !== index.base.frames * frameBytes)
    wrong('base.i420', base.length, index.base.frames * frameBytes);
  const cropBytes = i420Bytes(box.width, box.height);
  if (mouths.length !== index.library.frames * cropBytes)
    wrong('mouths.i420', mouths.length, index.library.frames * cropBytes);

  const layout = videoLayout(index, mouths, { width: size, height: size });
  const mix = videoScratch(index);
  const composed = new Uint8Array(frameBytes);
  const rgba = new Uint8ClampedArray(size * size * 4);
  let last = '';

  /** A frame without a usable pick: the idle loop's frame at the stamp's time, as at rest. */
  const restPick = (sampleIndex: number): VideoPick => {
    const t = Math.floor((sampleIndex * index.fps) / ANIMATION_STAMP_RATE_HZ);
    return { baseFrame: loopFrame(t, index.base.frames, index.base.loop), a: 0, wa: 0, b: 0, wb: 0, fade: 0 };
  };

  return {
    size,
    index,
    picture(frame) {
      const pick = frame.video && pickFits(index, frame.video) ? frame.video : restPick(frame.sampleIndex);
      const key =
        pick.fade > 0
          ? `${pick.baseFrame} ${pick.a} ${pick.wa} ${pick.b} ${pick.wb} ${pick.fade}`
          : `${pick.baseFrame}`;
      if (key === last) return { rgba, changed: false };
      last = key;
      const baseFrame = base.subarray(pick.baseFrame * frameBytes, (pick.baseFrame + 1) * frameBytes);
      if (pick.fade > 0) {
        composed.set(baseFrame);
        composeVideoPick(layout, pick, composed, mix);
        i420ToRgba(composed, size, size, rgba);
      } else i420ToRgba(baseFrame, size, size, rgba);
      return { rgba, changed: true };
    },
  };
}
