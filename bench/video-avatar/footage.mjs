// The footage of bench:video-avatar: a test clip (the test portrait as a photo avatar speaking,
// testing/talking-clip.ts) split at a frame: the first part re-encoded to its own file (an exact
// cut: re-encoded, so it need not start on a key frame, and cut by frame count), the clip's first
// frame as a PNG (the photo baseline's portrait), the held-out part's audio (48 kHz mono s16, as
// say-audio decodes an upload) and its real frames in the video pack's base-frame space.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { codecArgs } from '../../packages/engine/dist/testing/ffmpeg.js';
import { decodeAudio, decodeFrames } from '../../packages/engine/dist/video/ffmpeg.js';

function ffmpeg(args) {
  const r = spawnSync('ffmpeg', ['-hide_banner', '-v', 'error', '-nostdin', '-y', ...args], {
    encoding: 'utf8',
  });
  if (r.error)
    throw new Error(`ffmpeg did not run (${r.error.message}): install it with "apt-get install ffmpeg"`);
  if (r.status !== 0) throw new Error(`ffmpeg ${args.join(' ')} failed: ${r.stderr.trim()}`);
}

/**
 * Writes `<dir>/train.mp4` (frames [0, split) and their audio) and `<dir>/first.png`; answers the
 * held-out audio, samples [split, frames) · 48000 / fps of the clip's decoded audio.
 */
export async function splitClip(clip, split, dir) {
  const train = join(dir, 'train.mp4');
  ffmpeg([
    ...['-i', clip.file, '-frames:v', String(split), '-t', (split / clip.fps).toFixed(6)],
    ...codecArgs('mp4', true),
    train,
  ]);
  const firstFrame = join(dir, 'first.png');
  ffmpeg(['-i', clip.file, '-frames:v', '1', firstFrame]);
  // the whole clip's audio, cut by sample: decoding from the start keeps it on the frames' clock
  const pcm = await decodeAudio(clip.file);
  const perFrame = 48_000 / clip.fps;
  const heldOut = pcm.slice(Math.round(split * perFrame), Math.round(clip.frames * perFrame));
  return { train, firstFrame, heldOut };
}

/**
 * Hands each real frame from `from` on (at most `count`) to `onFrame(rgb, k)`, cropped to the
 * pack's square of the clip and scaled to its base-frame size as the import does (ffmpeg's crop
 * and bicubic scale). Decodes from the clip's start, so frame k is exactly clip frame from + k.
 */
export async function realFrames(clip, crop, size, from, count, onFrame) {
  let seen = 0;
  await decodeFrames(
    clip.file,
    { fps: clip.fps, crop, size, maxFrames: from + count },
    async (rgb, i) => {
      if (i < from) return;
      seen++;
      await onFrame(rgb, i - from);
    },
    { width: size, height: size },
  );
  if (seen !== count) throw new Error(`decoded ${seen} held-out frames, expected ${count}`);
}
