/**
 * The files of a video avatar pack (`render: "video"`, docs/avatars.md "Video avatars"), written
 * once by the import (video/video-import.ts) and read by the renderer (render/video-renderer.ts):
 *
 *   avatar.json   the manifest (avatar/manifest.ts VideoAvatarManifest): id, name, render "video"
 *   video.json    this file's VideoIndex: sizes, per-frame landmarks and transforms, descriptors
 *   base.i420     the base frames: `base.frames` frames of size×size I420 (Y, then U, then V), back to back
 *   mouths.i420   the mouth library: `library.frames` crops of box.width×box.height I420, back to back
 *   base.ivf      base.i420 as VP9 in IVF, for browsers (video/browser-video.ts; not in packs imported before it)
 *   mouths.ivf    mouths.i420 likewise (one box-sized frame a crop)
 *   preview.png   a 256 px thumbnail
 *
 * Coordinates. Every base frame is `size`×`size` pixels (the clip cropped square around the face
 * and scaled, the face ≈ 40 % of the side). The *canonical frame* is a fixed face position in
 * that same pixel scale: `canonical.landmarks` (68 points) is the mean face. A library crop holds
 * the canonical frame's pixels inside `library.box`, taken from one clip frame warped so that its
 * stable landmarks (eye corners, nose) sit on the canonical ones. `base.toFrame[i]` is the
 * similarity transform [a, b, tx, ty] taking canonical coordinates to base frame i's pixels:
 *   x' = a·x − b·y + tx,  y' = b·x + a·y + ty.
 * Pixel centres are at (x + 0.5, y + 0.5), as in packages/draw/src/photo/mesh-warp.ts. The index's
 * type, I420 views and the transforms live in @mouthpiece/draw (video/), which the browser's player shares.
 */
import { readFileSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { i420Bytes, type Similarity, type VideoIndex } from '@mouthpiece/draw';

export const VIDEO_FILES = {
  index: 'video.json',
  base: 'base.i420',
  mouths: 'mouths.i420',
  baseEncoded: 'base.ivf',
  mouthsEncoded: 'mouths.ivf',
  preview: 'preview.png',
} as const;

export {
  applySimilarity,
  i420Bytes,
  i420View,
  invertSimilarity,
  type I420View,
  type MouthDescriptor,
  type Similarity,
  type VideoIndex,
} from '@mouthpiece/draw';

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
  const want = expectedBytes(index);
  checkSize(join(dir, VIDEO_FILES.base), base.length, want.base);
  checkSize(join(dir, VIDEO_FILES.mouths), mouths.length, want.mouths);
  return { index, base, mouths };
}

/**
 * readVideoPack off the event loop: the reads run on libuv's threads, each file into one buffer
 * of its expected size (no copy; the base frames' is a SharedArrayBuffer), in slices of
 * READ_SLICE_BYTES; a file of the wrong size is refused before it is read. Same errors as readVideoPack.
 */
export async function readVideoPackAsync(dir: string): Promise<VideoPackData> {
  const index = JSON.parse(await readFile(join(dir, VIDEO_FILES.index), 'utf8')) as VideoIndex;
  const want = expectedBytes(index);
  // shared memory: a worker thread may scale the base frames without a copy (render/video-pack-cache.ts)
  const base = await readExactly(join(dir, VIDEO_FILES.base), want.base, true);
  const mouths = await readExactly(join(dir, VIDEO_FILES.mouths), want.mouths);
  return { index, base, mouths };
}

/** Bytes read per call of readVideoPackAsync (a thread-pool read each). */
const READ_SLICE_BYTES = 8 << 20;

async function readExactly(file: string, bytes: number, shared = false): Promise<Uint8Array> {
  const fh = await open(file, 'r');
  try {
    checkSize(file, (await fh.stat()).size, bytes);
    const out = new Uint8Array(shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes));
    for (let at = 0; at < bytes;) {
      const { bytesRead } = await fh.read(out, at, Math.min(READ_SLICE_BYTES, bytes - at), at);
      if (bytesRead === 0) checkSize(file, at, bytes); // shrank while being read
      at += bytesRead;
    }
    return out;
  } finally {
    await fh.close();
  }
}

function expectedBytes(index: VideoIndex): { base: number; mouths: number } {
  const { box } = index.library;
  return {
    base: index.base.frames * i420Bytes(index.size, index.size),
    mouths: index.library.frames * i420Bytes(box.width, box.height),
  };
}

function checkSize(file: string, bytes: number, expected: number): void {
  if (bytes !== expected)
    throw new Error(
      `${file}: ${bytes} bytes, expected ${expected} (the pack is damaged or was not fully written: import the clip again)`,
    );
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
