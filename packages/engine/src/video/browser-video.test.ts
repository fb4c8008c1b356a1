import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeMedia } from '../testing/ffmpeg.js';
import { writeSyntheticVideoPack, type SyntheticVideoPack } from '../testing/synthetic-video-pack.js';
import { BROWSER_VIDEO, VideoEncodeError, encodeVideoForBrowsers, ivfFrameCount } from './browser-video.js';
import { i420Bytes, VIDEO_FILES } from './pack.js';

let root: string;
let pack: SyntheticVideoPack;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'mp-browser-video-'));
  pack = await writeSyntheticVideoPack(root, { encoded: true });
}, 60_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** ffmpeg's decoding of an IVF file back to raw I420. */
function ffmpegDecode(file: string): Buffer {
  const r = spawnSync(
    'ffmpeg',
    ['-v', 'error', '-i', file, '-f', 'rawvideo', '-pix_fmt', 'yuv420p', 'pipe:1'],
    {
      maxBuffer: 1 << 28,
    },
  );
  if (r.status !== 0) throw new Error(`ffmpeg could not decode ${file}: ${r.stderr.toString()}`);
  return r.stdout;
}

const mad = (a: Uint8Array, b: Uint8Array): number => {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
};

describe('encodeVideoForBrowsers (the frames as VP9 for the SDK)', () => {
  it('writes base.ivf and mouths.ivf: VP9 of the pack’s sizes, a frame per raw frame, near-lossless and far smaller', () => {
    const { index, dir } = pack;
    const { box } = index.library;
    for (const [raw, encoded, width, height, frames] of [
      [VIDEO_FILES.base, VIDEO_FILES.baseEncoded, index.size, index.size, index.base.frames],
      [VIDEO_FILES.mouths, VIDEO_FILES.mouthsEncoded, box.width, box.height, index.library.frames],
    ] as const) {
      const file = join(dir, encoded);
      const ivf = readFileSync(file);
      expect(ivf.subarray(0, 4).toString('latin1')).toBe('DKIF');
      expect(ivf.subarray(8, 12).toString('latin1')).toBe('VP90');
      expect([ivf.readUInt16LE(12), ivf.readUInt16LE(14)]).toEqual([width, height]);
      expect(ivfFrameCount(ivf)).toBe(frames);
      expect(probeMedia(file).video).toMatchObject({ codec: 'vp9', width, height, frames });
      const original = readFileSync(join(dir, raw));
      expect(original.length).toBe(frames * i420Bytes(width, height));
      const decoded = ffmpegDecode(file);
      expect(decoded.length).toBe(original.length);
      const diff = mad(decoded, original);
      expect(diff, `${encoded}: mean absolute difference`).toBeLessThan(1);
      expect(diff, `${encoded}: not a copy`).toBeGreaterThan(0);
      expect(ivf.length * 10, `${encoded}: at least 10× smaller`).toBeLessThan(original.length);
    }
    expect(BROWSER_VIDEO.codec).toMatch(/^vp09\.00\.\d\d\.08$/);
  });

  it('the first frame is the only key frame (decoded in order at load, never sought)', () => {
    const ivf = readFileSync(join(pack.dir, VIDEO_FILES.mouthsEncoded));
    const keys: boolean[] = [];
    for (let at = ivf.readUInt16LE(6); at < ivf.length; at += 12 + ivf.readUInt32LE(at))
      keys.push((ivf[at + 12]! & 0x04) === 0); // profile 0: frame_type, 0 = key
    expect(keys[0]).toBe(true);
    expect(keys.slice(1).every((k) => !k)).toBe(true);
  });

  it('refuses raw files of the wrong size, leaving nothing behind; reads video.json when not given the index', async () => {
    const p = await writeSyntheticVideoPack(root, { id: 'short', baseFrames: 3 });
    expect(existsSync(join(p.dir, VIDEO_FILES.baseEncoded))).toBe(false); // not asked for
    const base = readFileSync(join(p.dir, VIDEO_FILES.base));
    writeFileSync(join(p.dir, VIDEO_FILES.base), base.subarray(0, base.length - 1));
    await expect(encodeVideoForBrowsers(p.dir)).rejects.toBeInstanceOf(VideoEncodeError);
    expect(spawnSync('ls', ['-A', p.dir]).stdout.toString()).not.toMatch(/ivf/);
    writeFileSync(join(p.dir, VIDEO_FILES.base), base);
    const written = await encodeVideoForBrowsers(p.dir);
    expect(written.base).toMatchObject({ name: 'base.ivf', frames: 3 });
    expect(written.mouths).toMatchObject({ name: 'mouths.ivf', frames: p.index.library.frames });
  });
});
