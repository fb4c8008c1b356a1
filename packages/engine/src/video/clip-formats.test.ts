/**
 * Real-world clips at import: the shared real footage (testing/real-clip.ts) cut short and written
 * the way phones and editors write clips — stored sideways with a display matrix, 30 fps with
 * dropped frames (a variable rate), 10-bit HEVC in HLG or PQ, padded to an odd-sized landscape
 * frame at 60 fps in WebM with 6-channel Opus. Every decode pass must see the same upright SDR
 * frame at the same index, and each clip must import. Clips are 7 s (3 s for decoding only) at
 * 360×640, made once and cached; the imports take them through `minSeconds`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runVideoImport } from './video-import-client.js';
import { realClip } from '../testing/real-clip.js';
import { clipInfoOf } from './clip-probe.js';
import { VideoImportError } from './import-errors.js';
import { decodeFrames, probeClip, type FrameOptions } from './ffmpeg.js';

const SIDE = 64;
const SQUARE = { crop: { x: 0, y: 100, side: 360 }, size: SIDE } as const;

async function frames(file: string, o: Partial<FrameOptions> = {}): Promise<Uint8Array[]> {
  const clip = await probeClip(file);
  const out: Uint8Array[] = [];
  await decodeFrames(file, { fps: 25, ...SQUARE, clip, ...o }, (rgb) => void out.push(rgb), {
    width: SIDE,
    height: SIDE,
  });
  return out;
}

/** Mean absolute difference in grey levels over the frames both have. */
function mad(a: Uint8Array[], b: Uint8Array[]): number {
  let sum = 0;
  let n = 0;
  for (let k = 0; k < Math.min(a.length, b.length); k++)
    for (let i = 0; i < a[k]!.length; i++, n++) sum += Math.abs(a[k]![i]! - b[k]![i]!);
  return sum / Math.max(1, n);
}

/** The same square decoded as ffmpeg would without the import's care: as stored, colours untouched. */
function untouched(file: string, count: number): Uint8Array[] {
  const vf = `fps=25,scale=360:640,crop=360:360:0:100,scale=${SIDE}:${SIDE}:flags=bicubic`;
  const r = spawnSync('ffmpeg', [
    ...['-v', 'error', '-noautorotate', '-i', file, '-vf', vf, '-frames:v', String(count)],
    ...['-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'],
  ]);
  const bytes = SIDE * SIDE * 3;
  return Array.from({ length: Math.floor(r.stdout.length / bytes) }, (_, k) =>
    r.stdout.subarray(k * bytes, (k + 1) * bytes),
  );
}

describe('clip probe', () => {
  const video = { codec_type: 'video', codec_name: 'hevc', width: 1920, height: 1080 };
  const probe = (stream: object, audio: object = {}) =>
    clipInfoOf({
      format: { duration: '30', format_name: 'mov,mp4' },
      streams: [
        { ...video, ...stream },
        { codec_type: 'audio', ...audio },
      ],
    });

  it('answers the displayed size: turned by the display matrix or the old tag, pixels made square', () => {
    expect(probe({ side_data_list: [{ rotation: -90 }] })).toMatchObject({
      width: 1080,
      height: 1920,
      rotation: 270,
    });
    expect(probe({ side_data_list: [{ rotation: 90 }] })).toMatchObject({
      width: 1080,
      height: 1920,
      rotation: 90,
    });
    expect(probe({ side_data_list: [{ rotation: 180 }] })).toMatchObject({ width: 1920, height: 1080 });
    expect(probe({ tags: { rotate: '90' } })).toMatchObject({ width: 1080, height: 1920 });
    expect(probe({ width: 1440, sample_aspect_ratio: '4:3' })).toMatchObject({ width: 1920, height: 1080 });
    expect(probe({ side_data_list: [{ rotation: 30 }] })).toMatchObject({ width: 1920, rotation: 0 });
  });

  it('answers HDR, a varying rate and where the audio begins against the video', () => {
    expect(probe({ color_transfer: 'smpte2084', color_primaries: 'bt2020' })).toMatchObject({
      hdr: 'pq',
      wideGamut: true,
    });
    expect(probe({ color_transfer: 'arib-std-b67' }).hdr).toBe('hlg');
    expect(probe({ color_transfer: 'bt709' }).hdr).toBeUndefined();
    expect(probe({ r_frame_rate: '30/1', avg_frame_rate: '5400/209' })).toMatchObject({ variableRate: true });
    expect(probe({ r_frame_rate: '30000/1001', avg_frame_rate: '30000/1001' }).variableRate).toBe(false);
    expect(probe({ start_time: '0.040' }, { start_time: '0.000' }).audioOffsetS).toBeCloseTo(-0.04);
  });
});

describe('decoding real-world clips', () => {
  it('gives frame k the same picture in every pass, from the start or from a seek', async () => {
    for (const file of [realClip('phone'), realClip('landscape')]) {
      const info = await probeClip(file);
      const crop = { x: 0, y: Math.round(info.height * 0.15), side: Math.min(info.width, info.height) };
      const all = await frames(file, { crop });
      expect(Math.abs(all.length - info.durationS * 25)).toBeLessThanOrEqual(1);
      for (const from of [1, 37, 101, all.length - 4]) {
        const part = await frames(file, { crop, fromFrame: from, maxFrames: 4 });
        expect(part).toHaveLength(4);
        expect([from, mad(part, all.slice(from, from + 4))]).toEqual([from, 0]);
      }
    }
  }, 120_000);

  it('turns a clip stored sideways upright and tone-maps HLG and PQ to SDR', async () => {
    const sdr = await frames(realClip('portrait'), { maxFrames: 60 });
    for (const name of ['phone', 'pq'] as const) {
      const file = realClip(name);
      const seen = await frames(file, { maxFrames: 60 });
      expect(seen.length).toBeGreaterThanOrEqual(60);
      // the phone's frames are other instants within 1/60 s: a few grey levels of motion
      expect(mad(seen, sdr)).toBeLessThan(8);
      expect(mad(untouched(file, 60), sdr)).toBeGreaterThan(20);
    }
    expect(await probeClip(realClip('phone'))).toMatchObject({
      width: 360,
      height: 640,
      rotation: 270,
      hdr: 'hlg',
      variableRate: true,
    });
  }, 120_000);
});

describe('importing real-world clips', () => {
  const packs = mkdtempSync(join(tmpdir(), 'mp-clip-formats-'));

  it('imports a phone clip (sideways + display matrix, 30 fps with drops, 10-bit HLG HEVC)', async () => {
    const { stats } = await runVideoImport(
      { id: 'phone', name: 'Phone', file: realClip('phone'), minSeconds: 5 },
      packs,
    );
    expect(stats).toMatchObject({
      clipSize: '360x640',
      clipRotation: 270,
      clipVariableRate: 'yes',
      clipColour: 'hlg',
      audio: 'yes',
      lostCovered: 0,
    });
    expect(Math.abs(Number(stats.frames) - 175)).toBeLessThanOrEqual(1);
    expect(stats.trackedFraction).toBeGreaterThan(0.8);
  }, 180_000);

  it('imports an odd-sized landscape WebM at 60 fps with 6-channel Opus', async () => {
    const { stats } = await runVideoImport(
      { id: 'wide', name: 'Wide', file: realClip('landscape'), minSeconds: 5 },
      packs,
    );
    expect(stats).toMatchObject({ clipSize: '1139x641', clipFrameRate: 60, audio: 'yes', lostCovered: 0 });
    expect(Math.abs(Number(stats.frames) - 175)).toBeLessThanOrEqual(1);
    expect(stats.trackedFraction).toBeGreaterThan(0.8);
  }, 180_000);

  it('refuses a clip whose mouth is covered in most frames, saying so and how much', async () => {
    const err = await runVideoImport(
      { id: 'covered', name: 'Covered', file: realClip('covered'), minSeconds: 5 },
      packs,
    ).then(
      () => new Error('imported'),
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(VideoImportError);
    expect((err as VideoImportError).code).toBe('face_covered');
    // the patch is there from 1.5 s to 6.5 s of 7 (71 % of the frames); where the tracker loses
    // the covered face too, those frames count as out of view
    const message = (err as VideoImportError).message;
    expect(message).toMatch(/^The face is covered in \d+ % of the frames/);
    const [covered, unseen] = [/covered in (\d+) %/, /out of view or not recognisable in (\d+) %/].map((re) =>
      Number(re.exec(message)?.[1] ?? 0),
    );
    expect(covered).toBeGreaterThanOrEqual(40);
    expect(covered + unseen).toBeGreaterThanOrEqual(66);
    expect(covered + unseen).toBeLessThanOrEqual(76);
  }, 180_000);
});
