/**
 * What the renderer draws each frame, produced by lip-sync (mouth) and the animator (the rest).
 * Shared by lipsync/, animation/, render/ and session/.
 */
import type { FaceMotion, MouthParams } from '@mouthpiece/draw';

/** The mouth parameters and the rest of the face's motion: one definition, in the drawing package. */
export type { FaceMotion, MouthParams } from '@mouthpiece/draw';

/** Preston Blair / Rhubarb mouth shapes: A closed (M B P), B slightly open (most consonants, ee),
 * C open (eh, ae), D wide open (aa), E rounded (ao, er), F puckered (oo, w), G lip-bite (f, v),
 * H tongue up (l), X rest. */
export const Viseme = { A: 'A', B: 'B', C: 'C', D: 'D', E: 'E', F: 'F', G: 'G', H: 'H', X: 'X' } as const;
export type Viseme = (typeof Viseme)[keyof typeof Viseme];

export const REST_MOUTH: Readonly<MouthParams> = Object.freeze({
  open: 0,
  width: 0.35,
  round: 0,
  teeth: 0,
  lipBite: 0,
  tongue: 0,
});

export interface FaceState {
  mouth: MouthParams;
  motion: FaceMotion;
  /**
   * Whether speech is playing (a closed mouth in speech is not rest: the video renderer keeps its
   * mouth composite). Absent: judged from the mouth alone.
   */
  speaking?: boolean;
  /**
   * What the speech sounds like at this frame (lipsync/sound-signature.ts), when the mouth comes
   * from audio alone: the video renderer matches it against the recorded person's own sounds.
   */
  sound?: Float32Array;
}

export const REST_MOTION: Readonly<FaceMotion> = Object.freeze({
  blink: 0,
  headX: 0,
  headY: 0,
  tilt: 0,
  breath: 0,
  brow: 0,
  gazeX: 0,
  gazeY: 0,
});
