/**
 * The files of a video avatar pack (`render: "video"`, docs/avatars.md "Video avatars"), written
 * once by the import (video/video-import.ts) and read by the renderer (render/video-renderer.ts):
 *
 *   avatar.json   the manifest (avatar/manifest.ts VideoAvatarManifest): id, name, render "video"
 *   video.json    this file's VideoIndex: sizes, per-frame landmarks and transforms, descriptors
 *   base.i420     the idle loop: `base.frames` frames of size×size I420 (Y, then U, then V), back to back
 *   mouths.i420   the mouth library: `library.frames` crops of box.width×box.height I420, back to back
 *   preview.png   a 256 px thumbnail
 *
 * Coordinates. Every base frame is `size`×`size` pixels (the clip cropped square around the face
 * and scaled, the face ≈ 40 % of the side). The *canonical frame* is a fixed face position in
 * that same pixel scale: `canonical.landmarks` (68 points) is the mean face. A library crop holds
 * the canonical frame's pixels inside `library.box`, taken from one clip frame warped so that its
 * stable landmarks (eye corners, nose) sit on the canonical ones. `base.toFrame[i]` is the
 * similarity transform [a, b, tx, ty] taking canonical coordinates to base frame i's pixels:
 *   x' = a·x − b·y + tx,  y' = b·x + a·y + ty.
 * Pixel centres are at (x + 0.5, y + 0.5), as in packages/draw/src/photo/mesh-warp.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const VIDEO_FILES = {
  index: 'video.json',
  base: 'base.i420',
  mouths: 'mouths.i420',
  preview: 'preview.png',
} as const;

/** A similarity transform [a, b, tx, ty]: x' = a·x − b·y + tx, y' = b·x + a·y + ty. */
export type Similarity = [number, number, number, number];

/** What the renderer matches: the mouth parameters it is driven with (face-state.ts MouthParams). */
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
    /** Source clip frame index of each base frame. */
    source: number[];
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
    /**
     * What the clip sounded like at each crop (lipsync/sound-signature.ts, values 0..1 to two
     * decimals), and the median distance between neighbouring sounds; absent for a silent clip.
     */
    sound?: number[][];
    soundSpread?: number;
  };
  /** Where the frames came from: the clip's size and the square of it they show (clip pixels). */
  clip: { width: number; height: number; crop: { x: number; y: number; side: number } };
  /** What the import measured (for docs and the benchmark). */
  stats: Record<string, number | string>;
}

/** Bytes of one I420 image. */
export function i420Bytes(width: number, height: number): number {
  return width * height + 2 * ((width >> 1) * (height >> 1));
}

/** Views of one I420 image inside a larger buffer. */
export interface I420View {
  width: number;
  height: number;
  y: Uint8Array;
  u: Uint8Array;
  v: Uint8Array;
}

export function i420View(buf: Uint8Array, offset: number, width: number, height: number): I420View {
  const ySize = width * height;
  const cSize = (width >> 1) * (height >> 1);
  return {
    width,
    height,
    y: buf.subarray(offset, offset + ySize),
    u: buf.subarray(offset + ySize, offset + ySize + cSize),
    v: buf.subarray(offset + ySize + cSize, offset + ySize + 2 * cSize),
  };
}

export interface VideoPackData {
  index: VideoIndex;
  /** All base frames, I420 back to back. */
  base: Uint8Array;
  /** All library crops, I420 back to back. */
  mouths: Uint8Array;
}

/** Reads a pack's video files; throws naming the file when one is missing or the wrong size. */
export function readVideoPack(dir: string): VideoPackData {
  const index = JSON.parse(readFileSync(join(dir, VIDEO_FILES.index), 'utf8')) as VideoIndex;
  const base = new Uint8Array(readFileSync(join(dir, VIDEO_FILES.base)));
  const mouths = new Uint8Array(readFileSync(join(dir, VIDEO_FILES.mouths)));
  const wantBase = index.base.frames * i420Bytes(index.size, index.size);
  const { box } = index.library;
  const wantMouths = index.library.frames * i420Bytes(box.width, box.height);
  if (base.length !== wantBase)
    throw new Error(`${join(dir, VIDEO_FILES.base)}: ${base.length} bytes, expected ${wantBase}`);
  if (mouths.length !== wantMouths)
    throw new Error(`${join(dir, VIDEO_FILES.mouths)}: ${mouths.length} bytes, expected ${wantMouths}`);
  return { index, base, mouths };
}

/** Applies a similarity transform to a point. */
export function applySimilarity(t: Similarity, x: number, y: number): [number, number] {
  const [a, b, tx, ty] = t;
  return [a * x - b * y + tx, b * x + a * y + ty];
}

/** The inverse transform. */
export function invertSimilarity(t: Similarity): Similarity {
  const [a, b, tx, ty] = t;
  const d = a * a + b * b;
  const ia = a / d;
  const ib = -b / d;
  return [ia, ib, -(ia * tx - ib * ty), -(ib * tx + ia * ty)];
}

/**
 * The least-squares similarity taking points `from` onto points `to` (Umeyama without
 * reflection), both as [x, y] lists of the same length.
 */
export function fitSimilarity(
  from: ReadonlyArray<readonly [number, number]>,
  to: ReadonlyArray<readonly [number, number]>,
): Similarity {
  const n = from.length;
  let fx = 0;
  let fy = 0;
  let gx = 0;
  let gy = 0;
  for (let i = 0; i < n; i++) {
    fx += from[i]![0];
    fy += from[i]![1];
    gx += to[i]![0];
    gy += to[i]![1];
  }
  fx /= n;
  fy /= n;
  gx /= n;
  gy /= n;
  let sxx = 0;
  let sxy = 0;
  let norm = 0;
  for (let i = 0; i < n; i++) {
    const px = from[i]![0] - fx;
    const py = from[i]![1] - fy;
    const qx = to[i]![0] - gx;
    const qy = to[i]![1] - gy;
    sxx += px * qx + py * qy;
    sxy += px * qy - py * qx;
    norm += px * px + py * py;
  }
  const a = norm > 0 ? sxx / norm : 1;
  const b = norm > 0 ? sxy / norm : 0;
  return [a, b, gx - (a * fx - b * fy), gy - (b * fx + a * fy)];
}

/** Landmarks that do not move with the mouth: brow inner ends, eye corners, nose bridge and base. */
export const STABLE_LANDMARKS = [21, 22, 27, 28, 29, 30, 31, 33, 35, 36, 39, 42, 45] as const;
