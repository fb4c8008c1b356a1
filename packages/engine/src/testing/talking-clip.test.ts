import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeFrame, probeMedia } from './ffmpeg.js';
import { clipSpeech } from './talking-clip-speech.js';
import { makeTalkingClip, readClipTruth, type ClipTruth, type TalkingClip } from './talking-clip.js';

// a fresh cache, so the clips are really made (and the portrait's pack imported) by this run
const cacheDir = mkdtempSync(join(tmpdir(), 'mp-clips-'));
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

const SMALL = { width: 320, height: 240, cacheDir } as const;
let clip: TalkingClip;
let truth: ClipTruth;

beforeAll(async () => {
  clip = await makeTalkingClip({ ...SMALL, faceSize: 224, durationS: 6 });
  truth = readClipTruth(clip.truthFile);
}, 180_000);

/** The box around some landmarks of face 0 in frame i, grown by `pad`, clipped to the (same-sized) frame. */
function box(i: number, indices: number[], pad: number, t: ClipTruth = truth) {
  const pts = indices.map((k) => t.perFrame[i]!.faces[0]!.landmarks![k]!);
  const xs = pts.map((p) => p[0]);
  const ys = pts.map((p) => p[1]);
  return {
    x0: Math.max(0, Math.floor(Math.min(...xs) - pad)),
    x1: Math.min(clip.width - 1, Math.ceil(Math.max(...xs) + pad)),
    y0: Math.max(0, Math.floor(Math.min(...ys) - pad)),
    y1: Math.min(clip.height - 1, Math.ceil(Math.max(...ys) + pad)),
  };
}

/** Mean absolute RGB difference of two decoded frames inside a box. */
function diff(a: Uint8Array, b: Uint8Array, r: ReturnType<typeof box>): number {
  let sum = 0;
  let n = 0;
  for (let y = r.y0; y <= r.y1; y++)
    for (let x = r.x0; x <= r.x1; x++) {
      const o = (y * clip.width + x) * 4;
      for (let c = 0; c < 3; c++) sum += Math.abs(a[o + c]! - b[o + c]!);
      n += 3;
    }
  return sum / n;
}

describe('talking clip (test footage)', () => {
  it('is as long as asked, at 25 fps, with an H.264 video and an AAC audio stream', () => {
    const p = probeMedia(clip.file);
    expect(p.durationS).toBeGreaterThan(5.95);
    expect(p.durationS).toBeLessThan(6.1);
    expect(p.video).toMatchObject({ codec: 'h264', width: 320, height: 240, fps: 25 });
    expect(p.video!.frames).toBe(150);
    expect(p.audio).toMatchObject({ codec: 'aac', sampleRateHz: 48_000, channels: 1 });
    expect(p.audio!.durationS).toBeGreaterThan(5.9);
    expect(truth.perFrame).toHaveLength(150);
    expect(clip).toMatchObject({ frames: 150, fps: 25, durationS: 6, audio: true, cached: false });
  });

  it('speaks after a silent lead-in, and the ground truth follows the sentence', () => {
    const speaking = truth.perFrame.filter((f) => f.speaking);
    expect(truth.sentences).toHaveLength(1);
    const s = truth.sentences[0]!;
    expect(s.startS).toBe(2);
    expect(truth.perFrame.slice(0, 50).some((f) => f.speaking)).toBe(false);
    expect(speaking.length).toBeGreaterThan(50);
    for (const f of speaking) expect(f.tS + 0.02).toBeGreaterThanOrEqual(s.startS);
    // "My baby brother put a pebble…": closures and an open mouth
    expect(speaking.some((f) => f.viseme === 'A' && f.mouth.open < 0.05)).toBe(true);
    expect(Math.max(...speaking.map((f) => f.mouth.open))).toBeGreaterThan(0.6);
    expect(truth.perFrame.every((f) => f.faces[0]!.visible)).toBe(true);
  });

  it('the mouth moves in the picture during speech: open and closed frames differ at the mouth, not elsewhere', () => {
    const speaking = truth.perFrame.filter((f) => f.speaking);
    const open = speaking.reduce((a, b) => (b.mouth.open > a.mouth.open ? b : a));
    const closed = speaking.find((f) => f.viseme === 'A' && f.mouth.open < 0.05)!;
    const a = decodeFrame(clip.file, open.i, clip);
    const b = decodeFrame(clip.file, closed.i, clip);
    const mouth = diff(a, b, box(open.i, [48, 54, 57, 51], 2));
    const forehead = diff(a, b, box(open.i, [19, 24], 0)); // a box the size of the brows' span
    // the ground truth agrees: the inner lips (62 over 66) were drawn apart in the open frame
    const gap = (i: number) => {
      const lm = truth.perFrame[i]!.faces[0]!.landmarks!;
      return lm[66]![1] - lm[62]![1];
    };
    expect(gap(open.i) - gap(closed.i)).toBeGreaterThan(5);
    expect(mouth).toBeGreaterThan(12);
    expect(mouth).toBeGreaterThan(3 * forehead); // head motion alone moves both alike
  });

  it('the head moves and the eyes blink (ground truth: where the landmarks were drawn)', () => {
    const nose = truth.perFrame.map((f) => f.faces[0]!.landmarks![30]!);
    const span = (k: 0 | 1) => Math.max(...nose.map((p) => p[k])) - Math.min(...nose.map((p) => p[k]));
    expect(span(0) + span(1)).toBeGreaterThan(1);
    expect(truth.perFrame.some((f) => f.faces[0]!.motion.blink > 0.8)).toBe(true);
  });

  it('a second request with the same options comes from the cache', async () => {
    const again = await makeTalkingClip({ ...SMALL, faceSize: 224, durationS: 6 });
    expect(again).toMatchObject({ file: clip.file, cached: true, madeInMs: clip.madeInMs });
  });

  it('two requests at once make the clip once', async () => {
    const opts = { ...SMALL, faceSize: 120, durationS: 1, audio: false };
    const [a, b] = await Promise.all([makeTalkingClip(opts), makeTalkingClip(opts)]);
    expect(a.file).toBe(b.file);
    expect([a.cached, b.cached].sort()).toEqual([false, true]);
  }, 60_000);

  it('audio: false has no audio track; webm is VP8', async () => {
    const silent = await makeTalkingClip({
      ...SMALL,
      faceSize: 160,
      durationS: 2,
      audio: false,
      format: 'webm',
    });
    const p = probeMedia(silent.file);
    expect(p.audio).toBeUndefined();
    expect(p.video).toMatchObject({ codec: 'vp8', fps: 25, frames: 50 });
  }, 60_000);

  it('faces: 2 shows two faces; awayFraction takes them out of view for that part of the clip', async () => {
    const c = await makeTalkingClip({ ...SMALL, durationS: 4, faces: 2, awayFraction: 0.5 });
    const t = readClipTruth(c.truthFile);
    expect(t.faces).toHaveLength(2);
    expect(t.away).toEqual([25, 75]);
    const seen = (i: number) => t.perFrame[i]!.faces.map((f) => f.visible);
    expect(seen(0)).toEqual([true, true]);
    expect(seen(50)).toEqual([false, false]);
    expect(t.perFrame.filter((f) => f.faces.some((x) => x.visible)).length).toBeLessThanOrEqual(50);
    // away: nothing but the background (#3c4650) in the picture
    const px = decodeFrame(c.file, 50, c);
    let off = 0;
    for (let o = 0; o < px.length; o += 4)
      off = Math.max(off, Math.abs(px[o]! - 0x3c), Math.abs(px[o + 1]! - 0x46), Math.abs(px[o + 2]! - 0x50));
    expect(off).toBeLessThan(6);
  }, 60_000);

  it("awayStyle 'back' shows the back of a head in the face's place while away", async () => {
    const c = await makeTalkingClip({
      ...SMALL,
      faceSize: 200,
      durationS: 3,
      awayFraction: 0.4,
      awayStyle: 'back',
    });
    const t = readClipTruth(c.truthFile);
    expect(t.away).toEqual([22, 52]);
    expect(t.perFrame[38]!.faces[0]).toMatchObject({ visible: false, landmarks: null, x: t.faces[0]!.x });
    expect(t.perFrame[0]!.faces[0]!.visible).toBe(true);
    const face = decodeFrame(c.file, 0, c);
    const away = decodeFrame(c.file, 38, c);
    const eyes = box(0, [36, 39, 42, 45], 3, t);
    // where the eyes were: something far from the face, and not the empty background
    expect(diff(face, away, eyes)).toBeGreaterThan(15);
    const background = new Uint8Array(away.length).map((_, o) => [0x3c, 0x46, 0x50, 255][o % 4]!);
    expect(diff(background, away, eyes)).toBeGreaterThan(15);
  }, 60_000);

  it('the full passage shows every mouth shape and has idle stretches of 2 s or more', async () => {
    const speech = await clipSpeech({
      fps: 25,
      frames: undefined,
      voiceId: 'en-us-female',
      speed: 1,
      speech: true,
    });
    expect(new Set(speech.frames.map((f) => f.viseme))).toEqual(new Set([...'ABCDEFGHX']));
    let run = 0;
    let longest = 0;
    for (const f of speech.frames) {
      run = f.speaking ? 0 : run + 1;
      longest = Math.max(longest, run);
    }
    expect(longest / 25).toBeGreaterThanOrEqual(2);
    expect(speech.sentences.length).toBeGreaterThanOrEqual(7);
  });

  it('says what to install when ffmpeg is missing', async () => {
    const script = fileURLToPath(new URL('../../scripts/talking-clip.mjs', import.meta.url));
    const run = promisify(execFile)(process.execPath, [script, join(cacheDir, 'x.mp4'), '--no-cache'], {
      env: { PATH: '/nonexistent' },
    });
    await expect(run).rejects.toMatchObject({ stderr: expect.stringContaining('apt-get install ffmpeg') });
  });
});
