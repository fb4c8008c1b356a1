/**
 * A face's state as it crosses the seams: the engine's lip-sync and animator make it, the drawing
 * code (packages/draw) reads it, the animation stream (animation.ts) carries it to a browser that
 * draws the avatar itself. One definition here; draw, engine and client import it.
 */

/** Continuous mouth parameters, each in [0, 1]; neighbouring visemes blend by weighted average. */
export interface MouthParams {
  /** Jaw/lip opening: 0 closed, 1 widest. */
  open: number;
  /** Horizontal stretch: 0 narrow, 1 wide smile. */
  width: number;
  /** Lip rounding/protrusion (oo, w). */
  round: number;
  /** How much of the teeth show. */
  teeth: number;
  /** Lower lip under the upper teeth (f, v). */
  lipBite: number;
  /** Tongue tip visible behind the teeth (l, th). */
  tongue: number;
}

/** Everything but the mouth: idle life and emphasis. */
export interface FaceMotion {
  /** 0 eyes open, 1 closed. */
  blink: number;
  /** Head offset in output pixels at 512×512 (the renderer scales), and tilt in radians. */
  headX: number;
  headY: number;
  tilt: number;
  /** Breathing phase 0..1 (shoulders/chest rise). */
  breath: number;
  /** Eyebrow raise 0..1 (emphasis). */
  brow: number;
  /** Gaze offset, -1..1 each axis. */
  gazeX: number;
  gazeY: number;
}

/**
 * A video avatar's frame as the engine chose it: its base frame, up to two mouth-library crops and
 * their weights, and how much of them shows (packages/draw/src/video/video-frame.ts composes it).
 */
export interface VideoPick {
  baseFrame: number;
  a: number;
  wa: number;
  b: number;
  wb: number;
  /** 0..1: how much of the crops' composite shows over the base frame (0: the base frame alone). */
  fade: number;
}
