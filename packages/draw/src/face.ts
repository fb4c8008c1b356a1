/**
 * What the drawing code reads: a face's state (the engine's FaceState has the same shape; the
 * engine passes its own, and the compiler checks they still agree) and a vector avatar's look
 * (the fields of the vector pack manifest, docs/avatars.md).
 */

/** Preston Blair / Rhubarb mouth shapes (the engine's lip-sync speaks the same letters). */
export type Viseme = 'A' | 'B' | 'C' | 'D' | 'E' | 'F' | 'G' | 'H' | 'X';

/** Continuous mouth parameters, each in [0, 1]. */
export interface MouthParams {
  open: number;
  width: number;
  round: number;
  teeth: number;
  lipBite: number;
  tongue: number;
}

/** Everything but the mouth: head offset in pixels at 512×512 and tilt in radians, blink, breath, brows, gaze. */
export interface FaceMotion {
  blink: number;
  headX: number;
  headY: number;
  tilt: number;
  breath: number;
  brow: number;
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
