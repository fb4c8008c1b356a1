/**
 * What the drawing code reads: a face's state (its mouth and motion types are the protocol's, the
 * animation stream's own: imported as types, so nothing of the protocol is bundled) and a vector
 * avatar's look (the fields of the vector pack manifest, docs/avatars.md).
 */
import type { FaceMotion, MouthParams } from '@mouthpiece/protocol';

/** Preston Blair / Rhubarb mouth shapes (the engine's lip-sync speaks the same letters). */
export type Viseme = 'A' | 'B' | 'C' | 'D' | 'E' | 'F' | 'G' | 'H' | 'X';

/** The face state's parts (their one definition is the protocol's: packages/protocol/src/face.ts). */
export type { FaceMotion, MouthParams } from '@mouthpiece/protocol';

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
