/**
 * `video.json`, the index of a video avatar pack (docs/avatars.md "Video avatars"), as the
 * engine's import writes it (packages/engine/src/video/pack.ts) and both renderers read it.
 *
 * Every base frame is `size`×`size` pixels (the clip cropped square around the face and scaled,
 * the face ≈ 40 % of the side). The *canonical frame* is a fixed face position in that same
 * pixel scale: `canonical.landmarks` (68 points) is the mean face. A library crop holds the
 * canonical frame's pixels inside `library.box`, taken from one clip frame warped so that its
 * stable landmarks sit on the canonical ones. `base.toFrame[i]` is the similarity taking
 * canonical coordinates to base frame i's pixels (i420.ts).
 */
import type { Similarity } from './i420.js';

/** What the renderer matches: the mouth parameters it is driven with. */
export interface MouthDescriptor {
  open: number;
  width: number;
  round: number;
  teeth: number;
}

export interface VideoIndex {
  version: 1;
  /** Side of a base frame, pixels (even). */
  size: number;
  fps: number;
  base: {
    frames: number;
    /** How the loop continues after its last frame: from the first again, or backwards. */
    loop: 'cut' | 'pingpong';
    /** Canonical → base frame i. */
    toFrame: Similarity[];
    /** Mean Y, U, V of each base frame on the seam ring (the mask's feathered edge). */
    ring: Array<[number, number, number]>;
    /** Source clip frame index of each base frame (consecutive source frames play on). */
    source: number[];
    /** Each base frame's 68 landmarks in canonical coordinates, flat [x0, y0, …] (packs since #29). */
    landmarks?: number[][];
    /** Each base frame's head pose [yaw, pitch] (pose.ts units). */
    pose?: Array<[number, number]>;
    /** What of each inner-ring point of the face mesh is uncovered (1) or covered by hair or a hand (0). */
    clear?: number[][];
    /**
     * The video-texture graph (packs imported before it have none: the renderer then plays the
     * frames by `loop`). Per base frame, the base frames the player may show next instead of
     * the one after it, cheapest first, and each jump's cost (≤ 1: seamless, taken at will;
     * above: only where a stretch ends). The engine's video/jump-graph.ts writes them.
     */
    jumps?: number[][];
    jumpCost?: number[][];
    /** Per base frame: may show at idle (its own mouth closed, or a closed mouth baked in). */
    idle?: boolean[];
    /** Per base frame: recorded while the person spoke (the head motion shown while speaking). */
    speech?: boolean[];
    /** Per base frame: a closed mouth was composited in at import. */
    baked?: boolean[];
  };
  canonical: {
    /** The mean face, 68 [x, y] points in base-frame pixels. */
    landmarks: Array<[number, number]>;
  };
  library: {
    frames: number;
    /** The crop's rectangle in canonical coordinates (x, y, width, height even). */
    box: { x: number; y: number; width: number; height: number };
    descriptors: MouthDescriptor[];
    /** Source clip frame index of each crop (consecutive source frames play as real motion). */
    source: number[];
    /** Mean Y, U, V of each crop on the seam ring. */
    ring: Array<[number, number, number]>;
    /** Each crop's 68 landmarks in canonical coordinates, flat (packs since #29: the face composite). */
    landmarks?: number[][];
    /** Each crop's source frame's head pose [yaw, pitch]. */
    pose?: Array<[number, number]>;
    /** What of each inner-ring point of the face mesh is uncovered in the crop (as base.clear). */
    clear?: number[][];
    /** Each crop's lower-face sharpness (mean |Laplacian| of luma; low: motion blur in its source frame). */
    sharpness?: number[];
    /**
     * What the clip sounded like at each crop (the engine's lipsync/sound-signature.ts, values
     * 0..1 to two decimals), and the median distance between neighbouring sounds; absent for a
     * silent clip.
     */
    sound?: number[][];
    soundSpread?: number;
  };
  /** Where the frames came from: the clip's size and the square of it they show (clip pixels). */
  clip: { width: number; height: number; crop: { x: number; y: number; side: number } };
  /** What the import measured (for docs and the benchmark). */
  stats: Record<string, number | string>;
}

/** The crop's rectangle in canonical coordinates. */
export type VideoBox = VideoIndex['library']['box'];
