/**
 * A video avatar's frames encoded for browsers (docs/design.md §13.6 "Download"): the base frames
 * (`base.i420`) and the mouth library (`mouths.i420`) also written as VP9 in IVF files
 * (`base.ivf`, `mouths.ivf`), near-lossless, so that the SDK downloads one to two orders of
 * magnitude less and decodes every frame once at load with WebCodecs into the same I420 buffers.
 * The raw files stay: the engine reads only them (video/pack.ts), and a browser that cannot
 * decode VP9 downloads them. The import (video/video-import.ts) and the test packs
 * (testing/synthetic-video-pack.ts) call `encodeVideoForBrowsers`; so does
 * `mouthpiece avatars encode-video` for packs imported before it existed. ffmpeg (libvpx-vp9)
 * encodes; no native module is loaded here.
 */
import { spawn } from 'node:child_process';
import { readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { BROWSER_VIDEO_CODEC } from '../avatar/pack-files.js';
import { FfmpegMissingError } from './ffmpeg.js';
import { VIDEO_FILES, type VideoIndex } from './pack.js';
import { CodedError } from '@mouthpiece/protocol';

/**
 * The VP9 settings, chosen by measuring a real 512² pack and the synthetic one (docs/design.md
 * §13.6): `crf` is the quality (lower is closer to the raw frames); one keyframe, the rest
 * predicted from the frame before, since the SDK decodes every frame in order at load and never
 * seeks; no alt-ref frames, so each IVF frame is one shown picture.
 */
export const BROWSER_VIDEO = {
  crf: 15,
  /**
   * libvpx's real-time mode at its fastest `cpu-used` (8): on the real clip's 300 base frames
   * (512²) 1.2 s against 11–12 s in good-quality mode at 4–5, 18 % larger (1.42 against 1.21 MB),
   * as close to the raw frames (MAD 0.55 against 0.58 grey levels, 99th percentile 3 both).
   */
  deadline: 'realtime',
  cpuUsed: 8,
  /**
   * The WebCodecs codec string of what is written (the pack route lists it): VP9 profile 0,
   * level 3.0 (up to 552,960 pixels a picture; a pack's frames are 512² at most,
   * VIDEO_LIMITS.framePx), 8 bits.
   */
  codec: BROWSER_VIDEO_CODEC,
} as const;

/** A written IVF file: its name in the pack, frames and bytes. */
export interface EncodedVideoFile {
  name: string;
  frames: number;
  bytes: number;
}

export class VideoEncodeError extends CodedError {
  static override code = 'ERR_VIDEO_ENCODE';
  constructor(message: string) {
    super(message);
    this.name = 'VideoEncodeError';
  }
}

/**
 * Writes `base.ivf` and `mouths.ivf` beside the raw files of the pack in `dir` (each written
 * under a temporary name and renamed, so a reader never sees half a file). `index` is the pack's
 * video.json (read from `dir` when not given).
 */
export async function encodeVideoForBrowsers(
  dir: string,
  index?: VideoIndex,
): Promise<{ base: EncodedVideoFile; mouths: EncodedVideoFile }> {
  const idx = index ?? (JSON.parse(await readFile(join(dir, VIDEO_FILES.index), 'utf8')) as VideoIndex);
  const { box } = idx.library;
  const base = await encodeI420(dir, VIDEO_FILES.base, VIDEO_FILES.baseEncoded, {
    width: idx.size,
    height: idx.size,
    frames: idx.base.frames,
    fps: idx.fps,
  });
  const mouths = await encodeI420(dir, VIDEO_FILES.mouths, VIDEO_FILES.mouthsEncoded, {
    width: box.width,
    height: box.height,
    frames: idx.library.frames,
    fps: idx.fps,
  });
  return { base, mouths };
}

/** ffmpeg's arguments to encode raw I420 `input` of `size` as VP9 into the IVF file `output`. */
export function vp9Args(
  input: string,
  output: string,
  size: { width: number; height: number; fps: number },
): string[] {
  return [
    ...['-v', 'error', '-nostdin', '-y'],
    ...['-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-s', `${size.width}x${size.height}`],
    ...['-r', String(size.fps), '-i', input],
    ...['-c:v', 'libvpx-vp9', '-crf', String(BROWSER_VIDEO.crf), '-b:v', '0'],
    ...['-deadline', BROWSER_VIDEO.deadline, '-cpu-used', String(BROWSER_VIDEO.cpuUsed), '-row-mt', '1'],
    ...['-g', '100000', '-auto-alt-ref', '0', '-lag-in-frames', '0'],
    ...['-pix_fmt', 'yuv420p', '-f', 'ivf', output],
  ];
}

async function encodeI420(
  dir: string,
  rawName: string,
  name: string,
  size: { width: number; height: number; frames: number; fps: number },
): Promise<EncodedVideoFile> {
  if (size.width % 2 || size.height % 2)
    throw new VideoEncodeError(`${rawName}: ${size.width}×${size.height} is not an even size`);
  const input = join(dir, rawName);
  const want = (size.width * size.height * 3) / 2;
  const { size: rawBytes } = await stat(input);
  if (rawBytes !== want * size.frames)
    throw new VideoEncodeError(`${rawName}: ${rawBytes} bytes, not ${size.frames} frames of ${want}`);
  const temp = join(dir, `.${name}.${process.pid}.tmp`);
  try {
    await runFfmpeg(vp9Args(input, temp, size));
    const written = await readFile(temp);
    const frames = ivfFrameCount(written);
    if (frames !== size.frames)
      throw new VideoEncodeError(`${name}: ffmpeg wrote ${frames} frames, not ${size.frames}`);
    await rename(temp, join(dir, name));
    return { name, frames, bytes: written.length };
  } finally {
    await rm(temp, { force: true });
  }
}

/** The frame count of an IVF file, by walking its frame headers (the header's count may be 0). */
export function ivfFrameCount(ivf: Uint8Array): number {
  const view = new DataView(ivf.buffer, ivf.byteOffset, ivf.byteLength);
  if (ivf.length < 32 || String.fromCharCode(...ivf.subarray(0, 4)) !== 'DKIF')
    throw new VideoEncodeError('not an IVF file');
  let at = view.getUint16(6, true);
  let frames = 0;
  while (at + 12 <= ivf.length) {
    at += 12 + view.getUint32(at, true);
    if (at > ivf.length) throw new VideoEncodeError('the IVF file is truncated');
    frames++;
  }
  return frames;
}

function runFfmpeg(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('ffmpeg', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    const err: Buffer[] = [];
    child.stderr.on('data', (d: Buffer) => err.length < 20 && err.push(d));
    child.once('error', (e: NodeJS.ErrnoException) =>
      reject(e.code === 'ENOENT' ? new FfmpegMissingError() : e),
    );
    child.once('close', (code) => {
      if (code === 0) resolve();
      else
        reject(
          new VideoEncodeError(
            `ffmpeg could not encode VP9 (${Buffer.concat(err).toString('utf8').trim() || `exit ${code}`})`,
          ),
        );
    });
  });
}
