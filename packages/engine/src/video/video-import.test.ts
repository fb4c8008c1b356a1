/**
 * The video import on real clips (testing/talking-clip.ts: the test portrait made a photo avatar
 * and filmed speaking) through the real import process. Checks mechanics, not looks: what is
 * stored, that the measured mouth follows the mouth that was drawn, that the idle frames are calm,
 * and that every kind of unusable clip is refused with its reason, leaving nothing behind.
 *
 * Clips cost time to make, so each is made no larger than what it proves needs: the main clip is
 * the 22 s one other test files and benchmarks import too (made once, cached), the too-short clip
 * is its first 12 s cut without re-encoding, and the clips refused from the import's first look
 * (a few frames sampled before tracking: two faces, a tiny face) are filmed at 5 fps.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runVideoImport } from './video-import-client.js';
import { makeTalkingClip, readClipTruth, type TalkingClip } from '../testing/talking-clip.js';
import { VideoImportError, type VideoImportErrorCode } from './import-errors.js';
import { signatureDistance } from '../lipsync/sound-signature.js';
import { correlation } from './mouth-measure.js';
import { applySimilarity, i420Bytes, readVideoPack } from './pack.js';

const packs = mkdtempSync(join(tmpdir(), 'mp-video-import-'));

async function refused(file: string, id: string): Promise<VideoImportError> {
  const err = await runVideoImport({ id, name: 'X', file }, packs).then(
    () => new Error('imported'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(VideoImportError);
  expect(readdirSync(packs).filter((f) => f.startsWith(id) || f.startsWith(`.${id}`))).toEqual([]);
  return err as VideoImportError;
}

function ffmpeg(args: string[], name: string): string {
  const file = join(packs, '..', `${name}-${process.pid}.mp4`);
  const r = spawnSync('ffmpeg', ['-v', 'error', '-y', ...args, file]);
  if (r.status !== 0) throw new Error(`ffmpeg: ${String(r.stderr)}`);
  return file;
}

/** Refused before tracking (find-face.ts samples a few frames), so the frame rate proves nothing. */
const SAMPLED_ONLY = { durationS: 20, fps: 5 } as const;

describe('video import', () => {
  let clip: TalkingClip;
  beforeAll(async () => {
    clip = await makeTalkingClip({ durationS: 22 });
  }, 180_000);

  it('stores base frames and a mouth library whose mouths follow the drawn ones', async () => {
    const { manifest, stats } = await runVideoImport(
      { id: 'talker', name: 'Talker', file: clip.file },
      packs,
    );
    expect(manifest).toMatchObject({ id: 'talker', render: 'video', source: 'upload' });
    const dir = join(packs, 'talker');
    for (const f of ['avatar.json', 'video.json', 'base.i420', 'mouths.i420', 'preview.png'])
      expect(existsSync(join(dir, f))).toBe(true);
    const { index } = readVideoPack(dir);
    expect(stats.trackedFraction).toBeGreaterThan(0.95);
    expect(stats.mouthScale).toBe('audio');
    // every tracked frame is in the library (a short clip needs no sampling)
    expect(index.library.frames).toBeGreaterThanOrEqual(Math.floor(clip.frames * 0.95));
    expect(index.library.frames).toBeLessThanOrEqual(clip.frames);
    expect(statSync(join(dir, 'mouths.i420')).size).toBe(
      index.library.frames * i420Bytes(index.library.box.width, index.library.box.height),
    );

    const truth = readClipTruth(clip.truthFile);
    // the measured opening follows the opening the clip was drawn with
    const drawn = index.library.source.map((i) => truth.perFrame[i]!.mouth.open);
    const measured = index.library.descriptors.map((d) => d.open);
    expect(correlation(drawn, measured)).toBeGreaterThan(0.75);
    // rounded mouths (oo, w) measure narrower than wide ones
    const w = (sel: (m: { round: number; width: number }) => boolean): number => {
      const ks = index.library.source
        .map((i, k) => [truth.perFrame[i]!.mouth, k] as const)
        .filter(([m]) => sel(m));
      return ks.reduce((s, [, k]) => s + index.library.descriptors[k]!.width, 0) / Math.max(1, ks.length);
    };
    expect(w((m) => m.round > 0.7)).toBeLessThan(w((m) => m.width > 0.55));

    // each crop's sound: the same drawn shape sounds nearer its like than another shape does
    const sound = index.library.sound!;
    expect(sound).toHaveLength(index.library.frames);
    expect(index.library.soundSpread).toBeGreaterThan(0);
    const shapeOf = (k: number) => truth.perFrame[index.library.source[k]!]!.mouth;
    const rounded = sound.filter((_, k) => shapeOf(k).round > 0.7 && shapeOf(k).open > 0.2);
    const wide = sound.filter((_, k) => shapeOf(k).round < 0.1 && shapeOf(k).open > 0.5);
    const meanDistance = (a: number[][], b: number[][]): number => {
      let sum = 0;
      let n = 0;
      for (const x of a)
        for (const y of b) {
          if (x === y) continue;
          sum += Math.sqrt(signatureDistance(x, y));
          n++;
        }
      return sum / n;
    };
    expect(rounded.length).toBeGreaterThan(3);
    expect(wide.length).toBeGreaterThan(3);
    expect(meanDistance(rounded, rounded)).toBeLessThan(meanDistance(rounded, wide));

    // the base frames: calm footage (silent, mouth near rest) for idle, speech-time footage with
    // a closed mouth baked in, at most 12 s, linked by the video-texture graph
    const b = index.base;
    expect(b.frames).toBeGreaterThanOrEqual(50);
    expect(b.frames).toBeLessThanOrEqual(300);
    expect([b.idle, b.speech, b.baked, b.jumps, b.jumpCost].map((v) => v?.length)).toEqual(
      Array(5).fill(b.frames),
    );
    const calm = b.source.filter((_, k) => b.idle![k] && !b.baked![k]).map((i) => truth.perFrame[i]!);
    expect(calm.length).toBeGreaterThanOrEqual(38); // the 2 s lead-in at least, less its margin
    expect(calm.filter((f) => f.speaking).length / calm.length).toBeLessThan(0.1);
    expect(Math.max(...calm.map((f) => f.mouth.open))).toBeLessThan(0.3);
    const talk = b.source.filter((_, k) => b.speech![k]).map((i) => truth.perFrame[i]!);
    expect(talk.filter((f) => f.speaking).length / talk.length).toBeGreaterThan(0.5);
    expect(b.speech!.every((s, k) => !s || b.baked![k])).toBe(true);

    // placement: canonical landmarks taken to a base frame land where the clip drew them
    const { crop } = index.clip;
    const k = index.size / crop.side;
    let err = 0;
    for (let b = 0; b < index.base.frames; b += 10) {
      const drawnLm = truth.perFrame[index.base.source[b]!]!.faces[0]!.landmarks!;
      for (const p of [36, 45, 30, 33]) {
        const [x, y] = applySimilarity(index.base.toFrame[b]!, ...index.canonical.landmarks[p]!);
        err = Math.max(err, Math.hypot(x - (drawnLm[p]![0] - crop.x) * k, y - (drawnLm[p]![1] - crop.y) * k));
      }
    }
    expect(err).toBeLessThan(8);
  }, 240_000);

  it('imports a WebM clip without audio, the face smaller and elsewhere, on its own scale', async () => {
    const other = await makeTalkingClip({
      format: 'webm',
      audio: false,
      durationS: 21,
      faceSize: 420,
      x: 60,
      y: 250,
      width: 1280,
      height: 720,
      seed: 3,
    });
    const { stats } = await runVideoImport({ id: 'quiet', name: 'Quiet', file: other.file }, packs);
    expect(stats).toMatchObject({ audio: 'no', mouthScale: 'percentile' });
    expect(stats.trackedFraction).toBeGreaterThan(0.9);
    expect(readVideoPack(join(packs, 'quiet')).index.library.sound).toBeUndefined();
  }, 240_000);

  it('refuses what is not a usable clip, saying why, leaving nothing behind', async () => {
    const text = join(packs, '..', `text-${process.pid}.mp4`);
    writeFileSync(text, 'this is not a video at all '.repeat(100));
    const broken = join(packs, '..', `broken-${process.pid}.mp4`);
    const bytes = readFileSync(clip.file);
    writeFileSync(broken, bytes.subarray(0, Math.floor(bytes.length / 3)));
    const still = ffmpeg(['-f', 'lavfi', '-i', 'color=c=gray:s=320x240:d=25:r=5'], 'noface');
    const long = ffmpeg(['-f', 'lavfi', '-i', 'color=c=gray:s=64x64:d=181:r=1'], 'long');
    // the talking clip's first 12 s, its streams copied as they are
    const short = { file: ffmpeg(['-i', clip.file, '-t', '12', '-c', 'copy'], 'short') };
    const two = await makeTalkingClip({ faces: 2, ...SAMPLED_ONLY });
    const tiny = await makeTalkingClip({ tiny: true, ...SAMPLED_ONLY });
    const away = await makeTalkingClip({ awayFraction: 0.7, awayStyle: 'back', durationS: 24 });
    const cases: Array<[string, VideoImportErrorCode, RegExp]> = [
      [text, 'not_a_video', /not a usable video/],
      [broken, 'broken_file', /not a usable video|cannot be decoded/],
      [still, 'no_face', /No face was found/],
      [long, 'too_long', /at most 180 s/],
      [short.file, 'too_short', /at least 20 s/],
      [two.file, 'several_faces', /more than one face/],
      [tiny.file, 'face_too_small', /at least 128 px/],
      [
        away.file,
        'face_away',
        /^The face is out of view or not recognisable in (6[5-9]|7\d) % of the frames/,
      ],
    ];
    for (const [file, code, message] of cases) {
      const err = await refused(file, 'nope');
      expect([err.code, err.message]).toEqual([code, expect.stringMatching(message)]);
    }
  }, 600_000);

  it('says what to install when ffmpeg is missing', async () => {
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      const err = await refused(clip.file, 'noffmpeg');
      expect(err.code).toBe('ffmpeg_missing');
      expect(err.message).toMatch(/apt-get install ffmpeg/);
    } finally {
      process.env.PATH = path;
    }
  }, 60_000);
});
