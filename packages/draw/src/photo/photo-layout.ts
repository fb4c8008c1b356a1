/**
 * Where a photo avatar sits in a frame of a given size, and how a frame's face state places it:
 * the part of the photo renderer shared by the engine (Skia, CPU warp) and the browser (WebGL).
 * The whole portrait fits the frame (wider or taller frames show its edges stretched at its
 * sides); head motion moves the whole picture by whole pixels and tilts it in steps about a
 * pivot below the chin, as the engine's per-step pictures are made.
 */
import type { FacePose } from '../face.js';
import type { Image32 } from './mesh-warp.js';
import {
  buildRig,
  modeWeights,
  MODES,
  type Mode,
  type PhotoRig,
  type PhotoSampler,
  type Vec,
} from './photo-rig.js';

/** Tilt is drawn in steps of this many radians (the engine makes each step's picture once). */
export const PHOTO_TILT_STEP = 0.005;
/** The tilt steps the animator reaches (|tilt| < 0.06 rad). */
export const PHOTO_MAX_STEP = 12;
/** Whole-picture rise when breathing in, in output pixels at 512×512. */
const BREATH_PX = 2;
/** How far head motion may move the picture, in output pixels (the engine's margin). */
export const PHOTO_MARGIN = 16;

/** A photo avatar laid out in a frame of one size. */
export interface PhotoLayout {
  rig: PhotoRig;
  width: number;
  height: number;
  /** Portrait pixels to output pixels. */
  scale: number;
  /** Output position of the portrait's top-left corner. */
  left: number;
  top: number;
  /** Head tilt pivot (below the chin), in output pixels. */
  pivot: Vec;
}

/** The portrait's colours at points in the rig's coordinates (the portrait offset by dx, dy). */
export function pixelSampler(img: Image32, dx: number, dy: number): PhotoSampler {
  const { px, width, height } = img;
  return (x, y) => {
    const ix = Math.round(x - dx - 0.5);
    const iy = Math.round(y - dy - 0.5);
    if (ix < 0 || iy < 0 || ix >= width || iy >= height) return undefined;
    const o = (iy * width + ix) * 4;
    return [px[o]!, px[o + 1]!, px[o + 2]!];
  };
}

/**
 * The rig of the portrait's landmarks laid out in a `width`×`height` frame; `portrait` (its
 * decoded RGBA) lets the lips near the mouth's corners be placed clear of teeth the photo shows.
 */
export function photoLayout(
  landmarks: ReadonlyArray<readonly [number, number]>,
  portrait: Image32,
  width: number,
  height: number,
): PhotoLayout {
  const scale = Math.min(width / portrait.width, height / portrait.height);
  const left = (width - portrait.width * scale) / 2;
  const top = (height - portrait.height * scale) / 2;
  const rig = buildRig(
    landmarks.map(([x, y]): Vec => [x + left / scale, y + top / scale]),
    pixelSampler(portrait, left / scale, top / scale),
  );
  const chin: Vec = [rig.rest[16]! * scale, rig.rest[17]! * scale];
  return {
    rig,
    width,
    height,
    scale,
    left,
    top,
    pivot: [chin[0] + rig.u[0] * rig.faceW * 0.3 * scale, chin[1] + rig.u[1] * rig.faceW * 0.3 * scale],
  };
}

/** How one frame's face state places the photo. */
export interface PhotoFramePose {
  /** The tilt step (−PHOTO_MAX_STEP … PHOTO_MAX_STEP) and its angle in radians. */
  step: number;
  angle: number;
  /** Whole-pixel offset of the picture (head motion and breathing). */
  dx: number;
  dy: number;
  /** The rig's mode weights (photo-rig.ts). */
  weights: Record<Mode, number>;
  /** Equal for two frames that draw the same picture. */
  key: string;
}

export function photoFramePose({ mouth, motion }: FacePose, width: number, height: number): PhotoFramePose {
  const motionScale = Math.min(width, height) / 512;
  const step = Math.max(-PHOTO_MAX_STEP, Math.min(PHOTO_MAX_STEP, Math.round(motion.tilt / PHOTO_TILT_STEP)));
  const rise = Math.round(Math.max(0, Math.min(1, motion.breath)) * BREATH_PX * motionScale);
  const dx = Math.max(-PHOTO_MARGIN, Math.min(PHOTO_MARGIN, Math.round(motion.headX * motionScale)));
  const dy = Math.max(-PHOTO_MARGIN, Math.min(PHOTO_MARGIN, Math.round(motion.headY * motionScale) - rise));
  const weights = modeWeights(mouth, motion);
  const key = `${step},${dx},${dy},${MODES.map((m) => weights[m].toFixed(4)).join(',')},${mouth.teeth.toFixed(3)},${mouth.tongue.toFixed(3)}`;
  return { step, angle: step * PHOTO_TILT_STEP, dx, dy, weights, key };
}

/** The face's axes (to its right, down it) in a frame tilted by `angle`. */
export function faceAxes(rig: PhotoRig, angle: number): { r: Vec; u: Vec } {
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  return {
    r: [rig.r[0] * cos - rig.r[1] * sin, rig.r[0] * sin + rig.r[1] * cos],
    u: [rig.u[0] * cos - rig.u[1] * sin, rig.u[0] * sin + rig.u[1] * cos],
  };
}
