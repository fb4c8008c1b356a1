// The real footage of bench:video-real: the talking-head clip at ../shared/fixtures/real-clips/
// from the project's root (its README there says what it is and how it may be used), its frame
// count and rate, which of its frames are speech (the clip's own audio), and its frames decoded in
// the video pack's base-frame space and tracked in order.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rgbToI420 } from '../../packages/engine/dist/video/pixels.js';
import { decodeFrames } from '../../packages/engine/dist/video/ffmpeg.js';
import { createTracker } from '../video-avatar/compare.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const REAL_CLIP = resolve(ROOT, '../shared/fixtures/real-clips/latentsync-demo2.mp4');

/** The clip as splitClip (bench/video-avatar/footage.mjs) reads it: file, fps, frames, seconds. */
export function realClip(file = REAL_CLIP) {
  if (!existsSync(file))
    throw new Error(
      `the real talking-head clip is missing: put latentsync-demo2.mp4 at ${file} (../shared/fixtures/real-clips/ from the project's root)`,
    );
  const probe = spawnSync(
    'ffprobe',
    [
      ...['-v', 'error', '-select_streams', 'v:0', '-count_packets'],
      ...['-show_entries', 'stream=r_frame_rate,nb_read_packets', '-of', 'json', file],
    ],
    { encoding: 'utf8' },
  );
  if (probe.error) throw new Error(`ffprobe did not run (${probe.error.message}): apt-get install ffmpeg`);
  if (probe.status !== 0) throw new Error(`ffprobe ${file} failed: ${probe.stderr.trim()}`);
  const [stream] = JSON.parse(probe.stdout).streams;
  const [num, den] = stream.r_frame_rate.split('/').map(Number);
  const fps = num / den;
  const frames = Number(stream.nb_read_packets);
  return { file, fps, frames, durationS: frames / fps };
}

/**
 * Which frames are speech: the clip's 48 kHz audio's RMS over each frame's span above a tenth of
 * its 95th percentile over the clip (the pauses between words fall below).
 */
export function speechFrames(pcm, fps, frames) {
  const per = 48_000 / fps;
  const rms = Array.from({ length: frames }, (_, k) => {
    const from = Math.round(k * per);
    const to = Math.min(pcm.length, Math.round((k + 1) * per));
    let s = 0;
    for (let i = from; i < to; i++) s += pcm[i] * pcm[i];
    return to > from ? Math.sqrt(s / (to - from)) : 0;
  });
  const p95 = [...rms].sort((a, b) => a - b)[Math.floor(0.95 * (frames - 1))];
  return rms.map((v) => v > 0.1 * p95);
}

/** Luma of an RGB frame as the import stores it (the Y plane of its I420). */
export function lumaOf(rgb, size) {
  return rgbToI420(rgb, size, size).subarray(0, size * size);
}

/**
 * Hands `onFrame({ rgb, Y, lm }, k)` the clip's frames [from, count), cropped to the pack's square
 * and scaled to its size as the import does, tracked in order (decoded from the clip's start, so
 * frame k is exactly the clip's frame k).
 */
export async function trackedFrames(clip, crop, size, from, count, onFrame) {
  const track = createTracker(size);
  let seen = 0;
  await decodeFrames(
    clip.file,
    { fps: clip.fps, crop, size, maxFrames: count },
    async (rgb, k) => {
      seen++;
      if (k < from) return;
      await onFrame({ rgb, Y: lumaOf(rgb, size), lm: await track(rgb) }, k);
    },
    { width: size, height: size },
  );
  if (seen !== Math.min(count, clip.frames))
    throw new Error(`decoded ${seen} frames of ${clip.file}, expected ${Math.min(count, clip.frames)}`);
}
