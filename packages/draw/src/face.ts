/**
 * What the drawing code reads: a face's state (its mouth and motion types are the engine's own:
 * engine/src/face-state.ts re-exports them) and a vector avatar's look
 * (the fields of the vector pack manifest, docs/avatars.md).
 */

/** Preston Blair / Rhubarb mouth shapes (the engine's lip-sync speaks the same letters). */
export type Viseme = 'A' | 'B' | 'C' | 'D' | 'E' | 'F' | 'G' | 'H' | 'X';

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

export interface FacePose {
  mouth: MouthParams;
  motion: FaceMotion;
}

/** A vector avatar's look: the vector pack manifest's fields the drawing reads. */
export interface VectorLook {
  id: string;
  background: { top: string; bottom: string };
  skin: { tone: string; shadow: string; blush: string };
  face: { width: number; length: number; jaw: number; chin: number };
  hair: { style: string; color: string; highlight: string };
  eyes: { iris: string; shape: 'round' | 'almond'; size: number };
  brows: { color: string; thickness: number };
  lips: { color: string; thickness: number };
  nose: { width: number };
  clothing: { style: string; color: string; accent: string };
  beard: { style: 'none' | 'stubble' | 'full'; color: string };
  accessories: { glasses: boolean; earrings: boolean };
}
