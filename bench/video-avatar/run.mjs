// npm run bench:video-avatar [-- --duration 40] [--frames N] [--sheets DIR] [--smoke]
// Held-out reconstruction (figures in docs/benchmarks.md, findings in
// docs/benchmarks-changelog.md), the figure talking-head papers report: a test clip (the test portrait as a
// photo avatar speaking) is cut at 80 %; the first part is imported as a video avatar (the
// import's own child process), and the last 20 %'s audio drives it as say-audio does (the
// audio-only mouth model, sampled at each 25 fps frame's centre as a session does,
// `speaking` while the audio plays). The baseline is a photo avatar made from the clip's first
// frame, driven by the same mouths. Every frame, real or made, is aligned to the pack's canonical
// frame by its own tracked landmarks; the lower-face boxes are compared (SSIM and mean absolute
// difference of luma) and the landmark mouth opening is correlated over time. The engine path is
// replayed offline (no WebRTC, no encode): made frame n and real frame n are the same instant of
// the clip. Needs a build (npx tsc -b), ffmpeg and the test portrait.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runVideoImport } from '../../packages/engine/dist/video/video-import-client.js';
import { createAvatarRenderer } from '../../packages/engine/dist/render/avatar-renderer.js';
import { makeTalkingClip, readClipTruth } from '../../packages/engine/dist/testing/talking-clip.js';
import { seamMask } from '../../packages/engine/dist/video/mask.js';
import { readVideoPack } from '../../packages/engine/dist/video/pack.js';
import { mouthStates, photoBaseline, renderAndTrack } from '../lib/held-out.mjs';
import { alignFrame, createTracker, pearson, score, writeSheet } from './compare.mjs';
import { realFrames, splitClip } from './footage.mjs';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '40' },
    frames: { type: 'string' },
    sheets: { type: 'string' },
    smoke: { type: 'boolean', default: false },
  },
});
const smoke = values.smoke;
/** The imported part of the clip. */
const TRAIN_FRACTION = 0.8;
const SIZE = 512;
// smoke: a small clip just long enough that its first 80 % passes the import's 20 s minimum
const CLIP = smoke
  ? { durationS: 25.2, width: 512, height: 416, faceSize: 384 }
  : { durationS: Number(values.duration) };
const MAX_FRAMES = smoke ? 20 : values.frames ? Number(values.frames) : Infinity;

const t0 = performance.now();
const log = (what) => console.error(`[${((performance.now() - t0) / 1000).toFixed(1)} s] ${what}`);

const variance = (v) => {
  const m = v.reduce((a, x) => a + x, 0) / v.length;
  return v.reduce((a, x) => a + (x - m) ** 2, 0) / v.length;
};
const fmt = (v, d) => (Number.isFinite(v) ? v.toFixed(d) : 'n/a');

async function main() {
  const clip = await makeTalkingClip(CLIP);
  const split = Math.round(clip.frames * TRAIN_FRACTION);
  const n = Math.min(clip.frames - split, MAX_FRAMES);
  log(
    `clip ${clip.durationS} s (${clip.frames} frames${clip.cached ? ', cached' : ''}); import frames [0, ${split}), compare ${n} from ${split}`,
  );
  const work = mkdtempSync(join(tmpdir(), 'mp-bench-video-avatar-'));
  const packs = join(work, 'packs');
  try {
    const { train, firstFrame, heldOut } = await splitClip(clip, split, work);
    const states = mouthStates(heldOut, clip.fps, n);
    log('importing the first part as a video avatar (its own process); meanwhile the photo baseline');
    const [imported, photoFrames] = await Promise.all([
      runVideoImport({ id: 'video', name: 'First 80 %', file: train }, packs),
      photoBaseline(firstFrame, packs, states, SIZE).then((frames) => {
        log('photo avatar imported from the first frame, its frames rendered and tracked');
        return frames;
      }),
    ]);
    const { index } = readVideoPack(join(packs, 'video'));
    log(`video avatar imported (${imported.stats.importSeconds} s); rendering and tracking its frames`);
    const videoFrames = await renderAndTrack(
      createAvatarRenderer(imported.manifest, { width: SIZE, height: SIZE }, join(packs, 'video'), {
        fps: clip.fps,
      }),
      states,
      SIZE,
    );
    log('decoding and tracking the real held-out frames');
    const real = [];
    const trackReal = createTracker(SIZE);
    await realFrames(clip, index.clip.crop, SIZE, split, n, async (rgb) => {
      real.push(alignFrame(index, rgb, SIZE, await trackReal(rgb)));
    });
    const align = (frames) => frames.map((f) => alignFrame(index, f.rgb, SIZE, f.lm));
    const made = { video: align(videoFrames), photo: align(photoFrames) };
    const box = index.library.box;
    const mask = seamMask(box.width, box.height);
    const rows = [
      { method: 'video avatar', ...score(real, made.video, box, 0, mask) },
      { method: 'photo avatar (first frame)', ...score(real, made.photo, box, 0, mask) },
      { method: 'real, next frame (ceiling)', ...score(real, real, box, 1, mask) },
    ];
    const ratio = {
      ssim: rows[0].ssim / rows[1].ssim,
      mad: rows[0].mad / rows[1].mad,
      openingR: rows[0].openingR / rows[1].openingR,
    };
    // sanity: the real frames are where the clip drew them, and how well audio alone predicts the
    // mouth the clip was drawn with (phonemes from the text): a limit on every method's opening r
    const truth = readClipTruth(clip.truthFile);
    const k = SIZE / index.clip.crop.side;
    let err = 0;
    real.forEach((f, i) => {
      const drawn = truth.perFrame[split + i].faces[0].landmarks;
      f.landmarks.forEach(([x, y], p) => {
        err += Math.hypot(
          x - (drawn[p][0] - index.clip.crop.x) * k,
          y - (drawn[p][1] - index.clip.crop.y) * k,
        );
      });
    });
    const drawnOpen = truth.perFrame.slice(split, split + n).map((f) => f.mouth.open);
    const sanity = {
      realLandmarkErrorPx: +(err / (real.length * 68)).toFixed(2),
      audioModelVsDrawnOpenR: +pearson(
        states.map((s) => s.mouth.open),
        drawnOpen,
      ).toFixed(3),
      trackedVsDrawnOpenR: +pearson(
        real.map((f) => f.open),
        drawnOpen,
      ).toFixed(3),
    };
    // what the pack holds that the figures depend on: idle-loop frames with the mouth open (a
    // composite on them shows two chins), and how much the seam ring's luma follows the mouth (the
    // colour match shifts a crop by the ring's difference, meant to be light, not jaw)
    const library = index.library;
    const crop = new Map(library.source.map((source, k) => [source, k]));
    const pack = {
      baseFrames: index.base.frames,
      loop: index.base.loop,
      baseFramesOpen: index.base.source.filter((s) => (library.descriptors[crop.get(s)]?.open ?? 0) > 0.3)
        .length,
      ringLumaSd: +Math.sqrt(variance(library.ring.map((r) => r[0]))).toFixed(2),
      ringLumaVsOpenR: +pearson(
        library.ring.map((r) => r[0]),
        library.descriptors.map((d) => d.open),
      ).toFixed(3),
    };
    if (values.sheets) {
      mkdirSync(values.sheets, { recursive: true });
      const per = 10;
      for (let s = 0; s * per < n; s++) {
        const file = join(values.sheets, `video-avatar-sheet-${String(s).padStart(2, '0')}.png`);
        const chosen = Array.from({ length: Math.min(per, n - s * per) }, (_, i) => s * per + i);
        await writeSheet(file, [real, made.video, made.photo], box, chosen);
      }
      log(`sheets (real | video | photo, frames ${per} a sheet) in ${values.sheets}`);
    }

    console.log(
      `video-avatar benchmark: held-out reconstruction of a ${clip.durationS} s test clip at ${SIZE}x${SIZE}, ${clip.fps} fps; imported frames 0-${split - 1}, compared frames ${split}-${split + n - 1} (${n})`,
    );
    console.log('method                          SSIM     MAD  (seam in / out)   opening r   frames');
    for (const r of rows)
      console.log(
        `${r.method.padEnd(28)} ${fmt(r.ssim, 3).padStart(7)} ${fmt(r.mad, 2).padStart(7)} ${`(${fmt(r.madInside, 2)} / ${fmt(r.madOutside, 2)})`.padStart(17)} ${fmt(r.openingR, 3).padStart(11)} ${String(r.frames).padStart(8)}`,
      );
    console.log(
      `${'video / photo'.padEnd(28)} ${fmt(ratio.ssim, 2).padStart(7)} ${fmt(ratio.mad, 2).padStart(7)} ${fmt(ratio.openingR, 2).padStart(11)}`,
    );
    console.log(
      `(lower-face box ${box.width}x${box.height} of the canonical frame, every frame aligned by its own tracked landmarks; SSIM: mean over 7x7 uniform windows of luma, C1/C2 of Wang et al. for 8 bits, higher is better; MAD: mean |ΔY| 0-255, lower is better, also split inside the seam mask (where the video avatar pastes a mouth; alpha ≥ 0.5) and outside it (the video avatar's idle footage); opening r: Pearson r over time of the landmark inner-lip gap / eye distance, made vs real. video / photo: above 1 is better for SSIM and r, below 1 for MAD.)`,
    );
    console.log(
      `(The engine's say-audio path replayed offline, no WebRTC: the audio-only mouth model on the held-out 48 kHz audio, each frame's mouth at its centre as in a session, so made frame n and real frame n are the same instant. The footage itself was drawn by the photo renderer from the test portrait, so the photo baseline has a home advantage. Sanity: real frames' tracked landmarks ${sanity.realLandmarkErrorPx} px from where they were drawn; the clip's drawn opening vs the audio model's r ${sanity.audioModelVsDrawnOpenR}, vs the real frames' tracked opening r ${sanity.trackedVsDrawnOpenR}.)`,
    );
    console.log(
      `(Pack: idle loop ${pack.baseFrames} frames (${pack.loop}), ${pack.baseFramesOpen} of them with the mouth open > 0.3; seam-ring luma over the mouth library sd ${pack.ringLumaSd}, r with the crops' opening ${pack.ringLumaVsOpenR}.)`,
    );
    console.log(
      JSON.stringify({
        bench: 'video-avatar',
        smoke,
        size: SIZE,
        clip: { durationS: clip.durationS, frames: clip.frames, fps: clip.fps, split, compared: n },
        import: imported.stats,
        box,
        results: rows.map((r) => ({
          method: r.method,
          ssim: +r.ssim.toFixed(4),
          mad: +r.mad.toFixed(3),
          madInside: +r.madInside.toFixed(3),
          madOutside: +r.madOutside.toFixed(3),
          openingR: Number.isFinite(r.openingR) ? +r.openingR.toFixed(3) : null,
          frames: r.frames,
        })),
        videoOverPhoto: Object.fromEntries(
          Object.entries(ratio).map(([key, v]) => [key, Number.isFinite(v) ? +v.toFixed(3) : null]),
        ),
        sanity,
        pack,
        seconds: +((performance.now() - t0) / 1000).toFixed(1),
      }),
    );
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
