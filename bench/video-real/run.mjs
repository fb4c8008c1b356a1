// npm run bench:video-real [-- --smoke]
// Issue 29's proof on real footage (docs/benchmarks-changelog.md "Video avatars on real footage"): the talking-head clip
// at ../shared/fixtures/real-clips/ (see real-clip.mjs) is cut at 80 %; the first part is imported
// as a video avatar (the import's own child process, its 20 s minimum lowered through the request's
// benchmark-only `minSeconds`). Measured from the outside only — rendered frames, landmarks tracked
// on them, the pack's files and `renderer.pick` — each figure beside the same measure on the clip's
// own frames:
// - say-text (a paragraph by espeak-ng, per-frame mouths as testing/talking-clip-speech.ts works
//   them out) and say-audio (the held-out 20 %'s own audio) rendered offline at the pack's size:
//   outside the face mask the output equals the base frame; seam, ghost-edge and motion ratios;
//   the mouth's landmark opening and dark area against the clip's own maximum;
// - held-out reconstruction (bench/video-avatar's method, bench/lib/held-out.mjs): SSIM, MAD and
//   opening r inside the face mask, the video avatar beside a photo avatar of the first frame.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { i420ToRgba } from '../../packages/draw/dist/index.js';
import { createAnimator } from '../../packages/engine/dist/animation/animator.js';
import { runVideoImport } from '../../packages/engine/dist/video/video-import-client.js';
import { createAvatarRenderer } from '../../packages/engine/dist/render/avatar-renderer.js';
import { clipSpeech } from '../../packages/engine/dist/testing/talking-clip-speech.js';
import { decodeAudio } from '../../packages/engine/dist/video/ffmpeg.js';
import { readVideoPack } from '../../packages/engine/dist/video/pack.js';
import { mouthStates, photoBaseline } from '../lib/held-out.mjs';
import { alignFrame, createTracker, rgbOf } from '../video-avatar/compare.mjs';
import { splitClip } from '../video-avatar/footage.mjs';
import { heldOutRows, maskInBox, report } from './report.mjs';
import { meanChange } from './face-regions.mjs';
import { createClipMeter, createRenderMeter } from './meters.mjs';
import { realClip, speechFrames, trackedFrames } from './real-clip.mjs';

const { values } = parseArgs({ options: { smoke: { type: 'boolean', default: false } } });
const smoke = values.smoke;
/** The imported part of the clip (smoke: half, 10 s, so the import and the cut cost less). */
const TRAIN_FRACTION = smoke ? 0.5 : 0.8;
/** The import's frame size (VIDEO_LIMITS.framePx): every frame is measured at the pack's size. */
const SIZE = 512;
/** Smoke: this many held-out frames (and the clip's own from the split on), twice as many say-text. */
const SMOKE_FRAMES = 20;
const ALL = new Uint8Array(SIZE * SIZE).fill(1);

const t0 = performance.now();
const log = (what) => console.error(`[${((performance.now() - t0) / 1000).toFixed(1)} s] ${what}`);

/**
 * Renders `states` with a video avatar, each frame beside the base frame a twin renderer's `pick`
 * answers for the same state (pick advances as render does), into `meter`; answers the rendered
 * frames (RGB) and their landmarks when `keep`.
 */
async function renderMeasured(manifest, dir, states, meter, keep) {
  const size = { width: SIZE, height: SIZE };
  // the twin walks the base frames as the renderer does: the same seed
  const renderer = createAvatarRenderer(manifest, size, dir, { fps: 25, seed: 29 });
  const twin = createAvatarRenderer(manifest, size, dir, { fps: 25, seed: 29 });
  if (!renderer.renderI420 || !twin.pick) throw new Error('the video renderer has no renderI420 or pick');
  const track = createTracker(SIZE);
  const i420 = new Uint8Array((SIZE * SIZE * 3) / 2);
  const rgba = new Uint8ClampedArray(SIZE * SIZE * 4);
  const kept = [];
  try {
    for (const state of states) {
      const { baseFrame } = twin.pick(state);
      renderer.renderI420(state, i420);
      const rgb = rgbOf(i420ToRgba(i420, SIZE, SIZE, rgba));
      const lm = await track(rgb);
      meter.add(i420, baseFrame, lm, state.speaking);
      if (keep) kept.push({ rgb, lm });
    }
  } finally {
    renderer.close();
    twin.close();
  }
  return kept;
}

/**
 * A paragraph through say-text, offline: espeak-ng's phonemes, each frame's mouth and motion; with
 * `maxFrames`, that many from 15 frames before the speech starts.
 */
async function sayTextStates(fps, maxFrames) {
  const speech = await clipSpeech({
    fps,
    frames: undefined,
    voiceId: 'en-us-female',
    speed: 1,
    speech: true,
  });
  const animator = createAnimator({ seed: 3 });
  const from = Number.isFinite(maxFrames) ? Math.max(0, speech.frames.findIndex((f) => f.speaking) - 15) : 0;
  return speech.frames.slice(from, from + maxFrames).map((f, n) => ({
    mouth: f.mouth,
    motion: animator.next({ tMs: (n * 1000) / fps, speaking: f.speaking, emphasis: f.emphasis }),
    speaking: f.speaking,
  }));
}

/**
 * Landmarks of every base frame (the pack's idle footage), tracked in order; the face is found
 * afresh where the footage jumps (a mean luma change over JUMP_GREY from the previous base frame).
 */
async function trackBase(index, base) {
  const JUMP_GREY = 6;
  const bytes = (SIZE * SIZE * 3) / 2;
  const rgba = new Uint8ClampedArray(SIZE * SIZE * 4);
  const out = [];
  let track;
  let previous;
  for (let b = 0; b < index.base.frames; b++) {
    const frame = base.subarray(b * bytes, (b + 1) * bytes);
    const Y = frame.subarray(0, SIZE * SIZE);
    if (!previous || meanChange(Y, previous, ALL) > JUMP_GREY) track = createTracker(SIZE);
    out.push(await track(rgbOf(i420ToRgba(frame, SIZE, SIZE, rgba))));
    previous = Y;
  }
  return out;
}

/** The pack's own landmarks of each base frame in frame pixels (packs since issue 29 store them). */
function packLandmarks(index) {
  return index.base.landmarks?.map((L, b) => {
    const [a, s, tx, ty] = index.base.toFrame[b];
    return Array.from({ length: 68 }, (_, i) => [
      a * L[2 * i] - s * L[2 * i + 1] + tx,
      s * L[2 * i] + a * L[2 * i + 1] + ty,
    ]);
  });
}

/** The clip's own frames: its meter, and the held-out frames aligned as bench:video-avatar aligns. */
async function clipOwn(clip, index, split, n) {
  const speech = speechFrames(await decodeAudio(clip.file), clip.fps, clip.frames);
  const meter = createClipMeter({ size: SIZE });
  const heldOut = [];
  await trackedFrames(clip, index.clip.crop, SIZE, smoke ? split : 0, split + n, (frame, k) => {
    meter.add(frame, speech[k]);
    if (k >= split) heldOut.push(alignFrame(index, frame.rgb, SIZE, frame.lm));
  });
  return { own: meter.result(), heldOut, speechFraction: speech.filter(Boolean).length / clip.frames };
}

async function main() {
  const clip = realClip();
  const split = Math.round(clip.frames * TRAIN_FRACTION);
  const n = smoke ? SMOKE_FRAMES : clip.frames - split;
  log(`${clip.file}: ${clip.frames} frames at ${clip.fps} fps; import [0, ${split}), hold out ${n}`);
  const work = mkdtempSync(join(tmpdir(), 'mp-bench-video-real-'));
  const packs = join(work, 'packs');
  try {
    const { train, firstFrame, heldOut } = await splitClip(clip, split, work);
    const audioStates = mouthStates(heldOut, clip.fps, n);
    const [imported, photoFrames] = await Promise.all([
      runVideoImport({ id: 'video', name: 'First 80 %', file: train, minSeconds: 5 }, packs),
      photoBaseline(firstFrame, packs, audioStates, SIZE),
    ]);
    const dir = join(packs, 'video');
    const { index, base } = readVideoPack(dir);
    if (index.size !== SIZE)
      throw new Error(`the pack's frames are ${index.size} px, the bench measures at ${SIZE}`);
    log(`imported in ${imported.stats.importSeconds} s (${index.base.frames} base frames); tracking them`);
    const baseLm = await trackBase(index, base);
    const textStates = await sayTextStates(clip.fps, smoke ? SMOKE_FRAMES * 2 : Infinity);
    log(`rendering ${textStates.length} say-text frames and ${n} say-audio frames`);
    const packLm = packLandmarks(index);
    const textMeter = createRenderMeter({ base, baseLm, packLm, size: SIZE });
    await renderMeasured(imported.manifest, dir, textStates, textMeter, false);
    const audioMeter = createRenderMeter({ base, baseLm, packLm, size: SIZE });
    const videoFrames = await renderMeasured(imported.manifest, dir, audioStates, audioMeter, true);
    log("decoding and tracking the clip's own frames");
    const own = await clipOwn(clip, index, split, n);
    const align = (frames) => frames.map((f) => alignFrame(index, f.rgb, SIZE, f.lm));
    const heldOutScores = heldOutRows(own.heldOut, align(videoFrames), align(photoFrames), index);
    report({
      smoke,
      clip: { frames: clip.frames, fps: clip.fps, split, heldOut: n, speechFraction: own.speechFraction },
      import: imported.stats,
      baseFrames: index.base.frames,
      sayText: textMeter.result(),
      sayAudio: audioMeter.result(),
      own: own.own,
      heldOut: heldOutScores,
      maskPixels: maskInBox(index).reduce((a, v) => a + v, 0),
      seconds: +((performance.now() - t0) / 1000).toFixed(1),
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

try {
  await main();
  process.exit(0);
} catch (err) {
  console.error(err);
  process.exit(1);
}
